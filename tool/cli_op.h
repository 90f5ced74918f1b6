// The operation options of plan and redist (--op, --alpha, --beta, --uplo, --diag, --type):
// parsing, the values the source and a placed target are filled with, and the per-element
// check of B = beta*B + alpha*op(A) behind --verify. Shared by cli_op.c and cmd_plan.c.
#ifndef NUMATILE_CLI_OP_H
#define NUMATILE_CLI_OP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "numatile/plan.h"

// Option ids (after cmd_plan.c's own).
enum { CLI_OP_OP = 0x200, CLI_OP_ALPHA, CLI_OP_BETA, CLI_OP_UPLO, CLI_OP_DIAG, CLI_OP_TYPE };

typedef struct cli_op {
    bool given;      // any operation option was given
    nt_plan_op_t op; // NT_PLAN_OP_INIT unless changed
    nt_dtype type;   // --type, else what cli_op_resolve() chose
    bool type_given;
} cli_op;

// Defaults: the plain copy, untyped.
void cli_op_init(cli_op *o);

// One of the ids above, its value in arg; CLI_OK or a usage error (exit 2) of cmd.
int cli_op_option(cli_op *o, const char *cmd, int id, const char *arg);

// The element type once every option is read: --type (whose size must equal --elem when that
// was given; *elem becomes it), else 'd' when the operation computes (scales or conjugates;
// needs 8-byte elements), else untyped. CLI_OK or a usage error.
int cli_op_resolve(cli_op *o, const char *cmd, int64_t *elem, bool elem_given);

// True when the operation differs from the plain copy (the tool then plans it with
// nt_plan_create_op() and checks it per element).
bool cli_op_active(const cli_op *o);

// True when the target is created with memory and filled before the execution: beta reads it,
// or a trapezoid leaves part of the submatrix as it was.
bool cli_op_placed(const cli_op *o);

// Fill A (typed: numbers in [-1, 1) per real part; untyped: the byte pattern) from the seed.
nt_status cli_op_fill(const cli_op *o, nt_matrix_t *A, uint64_t seed);

// Count the elements of T that differ from the oracle: inside the submatrix and the
// trapezoid beta*B0 + alpha*op(A) computed per element from S's values (within a few ulps of
// its magnitude), elsewhere B0 exactly; B0 is the fill of seed + 1 when placed, else zero.
nt_status cli_op_verify(const cli_op *o, const nt_matrix_t *S, const nt_matrix_t *T,
                        const nt_sub_t *sub, uint64_t seed, bool placed, int64_t *bad);

// The operation's fields in a JSON report (op, alpha, beta, uplo, diag, type).
void cli_op_json(json_t *out, const cli_op *o);

// One text line describing the operation.
void cli_op_print(const cli_op *o);

#endif
