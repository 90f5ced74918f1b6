// The table of nt_tile_registry.h. Flop counts are those of LAPACK Working Note 41 / PLASMA
// for the real case.
#include <stddef.h>

#include "nt_kernels.h"
#include "nt_tile_registry.h"

static double gemm_flops(double m, double n, double k)
{
    return 2.0 * m * n * k;
}

// GEQRT of m x n (k = n): 2 n^2 (m - n / 3) for m >= n.
static double geqrt_flops(double m, double n, double k)
{
    (void)k;
    return m >= n ? 2.0 * n * n * (m - n / 3.0) : 2.0 * m * m * (n - m / 3.0);
}

// k reflectors of length m applied to m x n.
static double unmqr_flops(double m, double n, double k)
{
    return 2.0 * n * k * (2.0 * m - k);
}

// A k x k triangle on top of m x k (n = k).
static double tsqrt_flops(double m, double n, double k)
{
    (void)n;
    return 2.0 * m * k * k;
}

// k reflectors of an m x k block applied to a (k + m) x n pair.
static double tsmqr_flops(double m, double n, double k)
{
    return 4.0 * m * n * k;
}

static nt_status gemm_cal(const nt_tk_tiles_t *t)
{
    int64_t nb = t->nb;
    return nt_kern_gemm(false, false, nb, nb, nb, 1.0, t->A, nb, t->B, nb, 1.0, t->C, nb);
}

static nt_status geqrt_cal(const nt_tk_tiles_t *t)
{
    return nt_kern_geqrt(t->nb, t->nb, t->ib, t->A, t->nb, t->T, t->ib, t->W, t->lw);
}

static nt_status unmqr_cal(const nt_tk_tiles_t *t)
{
    int64_t nb = t->nb;
    return nt_kern_unmqr(true, nb, nb, nb, t->ib, t->A, nb, t->T, t->ib, t->C, nb, t->W, t->lw);
}

static nt_status tsqrt_cal(const nt_tk_tiles_t *t)
{
    int64_t nb = t->nb;
    return nt_kern_tsqrt(nb, nb, t->ib, t->A, nb, t->B, nb, t->T, t->ib, t->W, t->lw);
}

static nt_status tsmqr_cal(const nt_tk_tiles_t *t)
{
    int64_t nb = t->nb;
    return nt_kern_tsmqr(true, nb, nb, nb, t->ib, t->B, nb, t->T, t->ib, t->C, nb, t->A, nb, t->W,
                         t->lw);
}

static const nt_tile_kernel_info_t table[NT_TK_COUNT] = {
    [NT_TK_GEMM] = {"gemm", gemm_flops, gemm_cal},
    [NT_TK_GEQRT] = {"geqrt", geqrt_flops, geqrt_cal},
    [NT_TK_UNMQR] = {"unmqr", unmqr_flops, unmqr_cal},
    [NT_TK_TSQRT] = {"tsqrt", tsqrt_flops, tsqrt_cal},
    [NT_TK_TSMQR] = {"tsmqr", tsmqr_flops, tsmqr_cal},
};

const nt_tile_kernel_info_t *nt_tile_kernel_info(int k)
{
    return k >= 0 && k < NT_TK_COUNT ? &table[k] : NULL;
}

const char *nt_tk_name(int k)
{
    const nt_tile_kernel_info_t *r = nt_tile_kernel_info(k);
    return r ? r->name : "unknown";
}
