// What the kernel subcommands gemm (cmd_gemm.c) and qr (cmd_qr.c) share: their options, the
// placement of an operand (with a redistribution first under --from), its values, the size of
// a run, the report; and the choice of the domain count they share with plan and advise.
#ifndef NUMATILE_TOOL_CLI_KERN_H
#define NUMATILE_TOOL_CLI_KERN_H

#include <complex.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "numatile/dist.h"
#include "numatile/hetero.h"
#include "numatile/kernels.h"
#include "numatile/matrix.h"

// The options both kernels take, after each one's own usage lines in its --help.
#define KERN_OPTIONS_HELP                                                                        \
    "  --domains D   split this machine into D domains (default: one per NUMA node)\n"           \
    "  --threads T   threads per domain (default: the smallest cpu count of a domain)\n"         \
    "  --sched S     owner (default: owner-computes) or omp (plain OpenMP tasks, baseline)\n"    \
    "  --from DIST   place the operands on DIST first and redistribute them to --dist\n"         \
    "  --match MODE  none|volume|steps|lex: relabel --dist onto the domains (with --from)\n"     \
    "  --seed S      seed of the matrix values (default 1)\n"                                    \
    "  --type T      element type: s, d, c, z (float, double, complex float, complex double);\n" \
    "                default d; complex values have non-zero imaginary parts. --verify holds\n" \
    "                every type to the same multiple of its own eps (FLT_EPSILON for s, c;\n"  \
    "                DBL_EPSILON for d, z)\n"                                                  \
    "  --verify      check the result (exit 1 on failure)\n"                                     \
    "  --json        one JSON object: flops, seconds, gflops, remote_reads, remote_read_bytes,\n" \
    "                owner_fraction, tasks, tasks_per_domain, ... (+ redistribution, total)\n"

typedef struct kopts {
    cli_common co; // --json, --domains, --seed (default 1), --verify, --help
    int64_t m, n, nb;
    int64_t ib; // qr only; 0 = the library's default
    const char *dist, *from, *match;
    // gemm only: --speeds as given (parsed once the topology is known), --algo, and the
    // heterogeneous tile map built from them, which then takes --dist's place (dist then names
    // it "hetero:ALGO" for the report).
    const char *speeds;
    nt_hetero_algo algo;
    bool have_algo;
    const nt_tilemap_t *map;
    int threads;
    nt_kernel_sched sched;
    bool cache; // gemm only
    nt_dtype type; // --type, NT_DTYPE_D by default
} kopts;

// Redistribution totals over the operands placed with --from.
typedef struct redist_sum {
    int64_t bytes_moved, bytes_copied, tiles_kept;
    double seconds;
    bool used;
} redist_sum;

// Parse the arguments of kernel subcommand cmd ("gemm" or "qr") into o; help is what --help
// prints. Returns CLI_OK, CLI_HELP_SHOWN, or CLI_USAGE after a message.
int kern_parse(const char *cmd, const char *help, int argc, char **argv, kopts *o);

// Create an m x n operand of type o->type in o->nb tiles, filled from seed when fill is set, on
// o->map when set, else o->dist; or on o->from and then redistributed to that (relabelled by o->match), adding the
// move to *rs.
nt_status kern_place(const nt_topo_t *t, const kopts *o, int64_t m, int64_t n, uint64_t seed,
                     bool fill, nt_matrix_t **out, redist_sum *rs);

// Operands of a kernel run, to size it: count matrices of m x n elements (elem bytes each, 0 =
// o->type's) in o->nb tiles.
typedef struct kern_operand {
    int64_t m, n;
    size_t elem;
    int count;
} kern_operand;

// Refuse (exit 2, message naming the total and the limit) a run whose operands, their per-tile
// tables, under --from the largest operand's source and plan, and the kernel's task records
// (step_bytes for each of kt steps on each tile of ops[0]) do not fit the memory the process
// may still take. Checked before anything is allocated. Returns CLI_OK or the exit code after
// a message.
int kern_room(const char *cmd, const kopts *o, const kern_operand *ops, int nops, int64_t kt,
              uint64_t step_bytes);

// The topology of --domains (domains > 0); without it the machine's, split into as many
// domains as the largest of the DISTs announces (specs[k], NULL skipped, on an mt[k] x nt[k]
// tile grid) when that is more than its NUMA nodes. plan, redist, gemm, qr and advise all
// choose so. Returns CLI_OK or the exit code after a message.
int cli_topo_for_dists(const char *cmd, int domains, const char *const *specs, int nspecs,
                       const int64_t *mt, const int64_t *nt, nt_topo_t **t);

// Report a kernel run: the JSON object (stats, options, redistribution, "verify" under --verify,
// and the fields of extra) or the text lines. Takes extra and frees s. Returns the exit code:
// verify_rc, unless the JSON could not be written.
int kern_report(const char *cmd, const kopts *o, const nt_topo_t *t, nt_kernel_stats_t *s,
                const redist_sum *rs, int verify_rc, json_t *extra);

// Element (r,c) of a matrix of type t (s, d, c or z), widened to double complex.
static inline double complex kern_get(nt_dtype t, const nt_matrix_t *A, int64_t r, int64_t c)
{
    const void *p = nt_matrix_elem(A, r, c);
    switch (t) {
    case NT_DTYPE_S: return *(const float *)p;
    case NT_DTYPE_C: return *(const float complex *)p;
    case NT_DTYPE_Z: return *(const double complex *)p;
    default: return *(const double *)p;
    }
}

// Store v (its real part for s and d) as element (r,c) of a matrix of type t.
static inline void kern_set(nt_dtype t, nt_matrix_t *A, int64_t r, int64_t c, double complex v)
{
    void *p = nt_matrix_elem(A, r, c);
    switch (t) {
    case NT_DTYPE_S: *(float *)p = (float)creal(v); break;
    case NT_DTYPE_C: *(float complex *)p = (float complex)v; break;
    case NT_DTYPE_Z: *(double complex *)p = v; break;
    default: *(double *)p = creal(v);
    }
}

// Unit roundoff the --verify bounds of type t are stated in.
double kern_eps(nt_dtype t);

#endif
