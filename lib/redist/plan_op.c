// The operation of nt_plan_create_op() (B = beta*B + alpha*op(A) on a trapezoid), checked
// against the two matrices before anything is planned.
#include "nt_core.h"
#include "nt_plan.h"

static bool is_real(nt_dtype t)
{
    return t == NT_DTYPE_S || t == NT_DTYPE_D;
}

// The scalars against the type: untyped matrices only move elements, real ones take no
// imaginary part.
static nt_status check_scalars(const nt_matrix_t *src, const nt_plan_op_t *op, bool computes)
{
    if (computes && src->dtype == NT_DTYPE_NONE)
        return nt_fail(NT_EINVAL, "nt_plan_create_op: op->%s needs matrices with an element "
                       "type (nt_matrix_set_dtype()); untyped ones can only be copied or "
                       "transposed", op->alpha_re != 1 || op->alpha_im != 0 ? "alpha"
                       : op->beta_re != 0 || op->beta_im != 0 ? "beta" : "op (C)");
    if (is_real(src->dtype) && (op->alpha_im != 0 || op->beta_im != 0))
        return nt_fail(NT_EINVAL, "nt_plan_create_op: op->%s_im = %g on the real type '%s'",
                       op->alpha_im != 0 ? "alpha" : "beta",
                       op->alpha_im != 0 ? op->alpha_im : op->beta_im,
                       nt_dtype_name(src->dtype));
    return NT_OK;
}

nt_status nt_plan_op_check(const nt_matrix_t *src, const nt_matrix_t *dst,
                           const nt_plan_op_t *op, bool *copy)
{
    if ((int)op->op < NT_OP_N || op->op > NT_OP_C)
        return nt_fail(NT_EINVAL, "nt_plan_create_op: op->op = %d is not NT_OP_N, NT_OP_T or "
                       "NT_OP_C", (int)op->op);
    if ((int)op->uplo < NT_UPLO_ALL || op->uplo > NT_UPLO_LOWER)
        return nt_fail(NT_EINVAL, "nt_plan_create_op: op->uplo = %d is not NT_UPLO_ALL, "
                       "NT_UPLO_UPPER or NT_UPLO_LOWER", (int)op->uplo);
    if ((int)op->diag < NT_DIAG_NONUNIT || op->diag > NT_DIAG_UNIT)
        return nt_fail(NT_EINVAL, "nt_plan_create_op: op->diag = %d is not NT_DIAG_NONUNIT or "
                       "NT_DIAG_UNIT", (int)op->diag);
    if (src->dtype != dst->dtype)
        return nt_fail(NT_EINVAL, "nt_plan_create_op: the source's type '%s' differs from the "
                       "target's '%s'", nt_dtype_name(src->dtype), nt_dtype_name(dst->dtype));
    bool scaled = op->alpha_re != 1 || op->alpha_im != 0 || op->beta_re != 0 ||
                  op->beta_im != 0;
    bool conj = op->op == NT_OP_C && !is_real(src->dtype);
    nt_status st = check_scalars(src, op, scaled || conj);
    if (st)
        return st;
    *copy = op->op == NT_OP_N && !scaled && op->uplo == NT_UPLO_ALL;
    return NT_OK;
}
