// The element operation of libnumatile_mpi's scaling and transposing calls on one run of
// elements, b = beta*b + alpha*op(x), for op_walk.c (its own copy: the MPI library cannot call
// libnumatile's private kernels). Loads and stores go through memcpy: message and local
// array offsets need not be aligned to the element's type.
#ifndef NUMATILE_MPI_BLOCK_OP_H
#define NUMATILE_MPI_BLOCK_OP_H

#include <string.h>

#include "nt_mpi_copy.h"
#include "nt_mpi_int.h"

// Real runs (float or double through T): beta = 0 writes without reading b (NaN in b does not
// propagate), alpha = 0 reads no x (PBLAS: A need not be set then).
#define NT_MPI_REAL_RUN(T)                                                                     \
    static inline void nt_mpi_run_##T(char *d, const char *s, int64_t step, int64_t len,      \
                                      const nt_mpi_op *op)                                     \
    {                                                                                          \
        T al = (T)op->alpha[0], be = (T)op->beta[0], x = 0, y = 0;                             \
        for (int64_t k = 0; k < len; k++, d += sizeof(T), s += step) {                         \
            if (al != 0)                                                                       \
                memcpy(&x, s, sizeof(T));                                                      \
            if (be != 0)                                                                       \
                memcpy(&y, d, sizeof(T));                                                      \
            T r = al != 0 ? al * x : be * y;                                                   \
            if (al != 0 && be != 0)                                                            \
                r += be * y;                                                                   \
            memcpy(d, &r, sizeof(T));                                                          \
        }                                                                                      \
    }
NT_MPI_REAL_RUN(float)
NT_MPI_REAL_RUN(double)

// Complex runs (pairs of T), the products written out (no __muldc3 call per element), and
// as PBLAS's kernels (PTZBLAS ?mmtadd, ?mmtcadd) form them, so that results agree bit for bit,
// signed zeros included: alpha = 1 and beta = 1 do not multiply, other scalars multiply in
// full (ar*xr - ai*xi, ar*xi + ai*xr).
#define NT_MPI_COMPLEX_RUN(T)                                                                  \
    static inline void nt_mpi_crun_##T(char *d, const char *s, int64_t step, int64_t len,     \
                                       const nt_mpi_op *op)                                    \
    {                                                                                          \
        T ar = (T)op->alpha[0], ai = (T)op->alpha[1], br = (T)op->beta[0],                     \
          bi = (T)op->beta[1], x[2] = {0, 0}, y[2] = {0, 0};                                   \
        bool ax = ar != 0 || ai != 0, by = br != 0 || bi != 0;                                 \
        bool a1 = ar == 1 && ai == 0, b1 = br == 1 && bi == 0;                                 \
        T cj = op->conj ? -1 : 1;                                                              \
        for (int64_t k = 0; k < len; k++, d += 2 * sizeof(T), s += step) {                     \
            if (ax)                                                                            \
                memcpy(x, s, sizeof x);                                                        \
            if (by)                                                                            \
                memcpy(y, d, sizeof y);                                                        \
            T xi = cj * x[1], r[2] = {0, 0}, u[2];                                             \
            if (ax) {                                                                          \
                r[0] = a1 ? x[0] : ar * x[0] - ai * xi;                                        \
                r[1] = a1 ? xi : ar * xi + ai * x[0];                                          \
            }                                                                                  \
            if (by) {                                                                          \
                u[0] = b1 ? y[0] : br * y[0] - bi * y[1];                                      \
                u[1] = b1 ? y[1] : br * y[1] + bi * y[0];                                      \
                r[0] = ax ? r[0] + u[0] : u[0];                                                \
                r[1] = ax ? r[1] + u[1] : u[1];                                                \
            }                                                                                  \
            memcpy(d, r, sizeof r);                                                            \
        }                                                                                      \
    }
NT_MPI_COMPLEX_RUN(float)
NT_MPI_COMPLEX_RUN(double)

// len elements of es bytes: d contiguous, s every `step` bytes.
static inline void nt_mpi_run_op(char *d, const char *s, int64_t step, int64_t len, size_t es,
                                 const nt_mpi_op *op)
{
    if (!op->scale && !op->conj) {
        if (step == (int64_t)es) {
            nt_mpi_copy_elems(d, s, len, es);
        } else if (es == 8) { // strided: a transposed local part (constant sizes: no call)
            for (int64_t k = 0; k < len; k++)
                memcpy(d + 8 * k, s + k * step, 8);
        } else if (es == 16) {
            for (int64_t k = 0; k < len; k++)
                memcpy(d + 16 * k, s + k * step, 16);
        } else if (es == 4) {
            for (int64_t k = 0; k < len; k++)
                memcpy(d + 4 * k, s + k * step, 4);
        } else {
            for (int64_t k = 0; k < len; k++)
                memcpy(d + (size_t)k * es, s + k * step, es);
        }
        return;
    }
    if (!op->scale && op->type == 'z') { // conj(x): pztranc's alpha = 1, beta = 0
        for (int64_t k = 0; k < len; k++) {
            double x[2];
            memcpy(x, s + k * step, sizeof x);
            x[1] = -x[1];
            memcpy(d + 16 * k, x, sizeof x);
        }
        return;
    }
    switch (op->type) {
    case 's':
        nt_mpi_run_float(d, s, step, len, op);
        break;
    case 'd':
        nt_mpi_run_double(d, s, step, len, op);
        break;
    case 'c':
        nt_mpi_crun_float(d, s, step, len, op);
        break;
    default: // 'z' (nt_mpi_redist_op checks the type)
        nt_mpi_crun_double(d, s, step, len, op);
        break;
    }
}

#endif
