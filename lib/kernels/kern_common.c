// What the tiled kernels share: default threads, options, statistics and operand checks.
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_kern_common.h"

int nt_kernel_default_threads(const nt_topo_t *topo, int *threads_per_domain)
{
    int ndom = topo ? nt_topo_ndomains(topo) : 0, with = 0, fewest = 0;
    for (int d = 0; d < ndom; d++) {
        nt_domain_info_t info;
        if (nt_topo_domain(topo, d, &info) != NT_OK || info.ncpus <= 0)
            continue;
        with++;
        if (fewest == 0 || info.ncpus < fewest)
            fewest = info.ncpus;
    }
    if (threads_per_domain)
        *threads_per_domain = fewest;
    return with * fewest;
}

nt_status nt_kernel_opts_resolve(const nt_kernel_opts_t *opts, const nt_topo_t *topo, int *tpd,
                                 nt_kernel_sched *sched)
{
    nt_kernel_opts_t o = opts ? *opts : (nt_kernel_opts_t){0};
    if (o.threads_per_domain < 0 || o.threads_per_domain > 1024)
        return nt_fail(NT_EINVAL, "opts.threads_per_domain = %d must be in 0..1024",
                       o.threads_per_domain);
    if (o.sched != NT_KERNEL_OWNER && o.sched != NT_KERNEL_OMP)
        return nt_fail(NT_EINVAL, "opts.sched = %d is not a scheduling mode", (int)o.sched);
    if (o.ib < 0)
        return nt_fail(NT_EINVAL, "opts.ib = %lld must be >= 0", (long long)o.ib);
    if (nt_topo_get_kind(topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "kernels need a physical or virtual topology, not a "
                       "synthetic one");
    int dflt;
    if (nt_kernel_default_threads(topo, &dflt) == 0)
        return nt_fail(NT_ENOTSUP, "kernels: no domain has cpus");
    *tpd = o.threads_per_domain > 0 ? o.threads_per_domain : dflt;
    *sched = o.sched;
    return NT_OK;
}

void nt_kernel_stats_free(nt_kernel_stats_t *stats)
{
    if (!stats)
        return;
    free(stats->tasks_owned);
    free(stats->tasks_run);
    memset(stats, 0, sizeof *stats);
}

nt_status nt_kernel_stats_prepare(nt_kernel_stats_t *s, int ndomains)
{
    if (!s)
        return NT_OK;
    if (s->tasks_owned && s->ndomains == ndomains)
        return NT_OK;
    if (s->tasks_owned || s->tasks_run)
        return nt_fail(NT_EINVAL, "stats: used before with %d domains, now %d", s->ndomains,
                       ndomains);
    s->tasks_owned = calloc((size_t)ndomains, sizeof *s->tasks_owned);
    s->tasks_run = calloc((size_t)ndomains, sizeof *s->tasks_run);
    if (!s->tasks_owned || !s->tasks_run) {
        free(s->tasks_owned);
        free(s->tasks_run);
        s->tasks_owned = s->tasks_run = NULL;
        return nt_fail(NT_ENOMEM, "stats: out of memory");
    }
    s->ndomains = ndomains;
    if (s->tasks == 0)
        s->owner_fraction = 1.0;
    return NT_OK;
}

nt_dtype nt_kern_dtype(const nt_matrix_t *A)
{
    if (!A)
        return NT_DTYPE_NONE;
    if (A->dtype != NT_DTYPE_NONE)
        return A->dtype;
    return A->elem_size == sizeof(double) ? NT_DTYPE_D : NT_DTYPE_NONE;
}

static nt_status check_placed(const char *name, const nt_matrix_t *A, const nt_topo_t *topo)
{
    if (!A->allocated || !A->tile)
        return nt_fail(NT_EINVAL, "%s has no memory", name);
    if (!A->topo)
        return nt_fail(NT_EINVAL, "%s has no topology", name);
    if (topo && A->topo != topo)
        return nt_fail(NT_EINVAL, "%s lives on another topology than the other operands", name);
    if (nt_topo_get_kind(A->topo) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "%s: a synthetic topology cannot run kernels", name);
    return NT_OK;
}

nt_status nt_kern_check_matrix(const char *name, const nt_matrix_t *A, const nt_topo_t *topo)
{
    if (!A)
        return nt_fail(NT_EINVAL, "%s is NULL", name);
    if (nt_kern_dtype(A) != NT_DTYPE_D) {
        if (A->dtype != NT_DTYPE_NONE)
            return nt_fail(NT_ENOTSUP, "%s: element type %s, this kernel runs in double (d) "
                           "only", name, nt_dtype_name(A->dtype));
        return nt_fail(NT_EINVAL, "%s: element size %zu, the kernels need doubles (8)", name,
                       A->elem_size);
    }
    return check_placed(name, A, topo);
}

nt_status nt_kern_check_matrix_typed(const char *name, const nt_matrix_t *A,
                                     const nt_topo_t *topo, nt_dtype want)
{
    if (!A)
        return nt_fail(NT_EINVAL, "%s is NULL", name);
    nt_dtype t = nt_kern_dtype(A);
    if (t == NT_DTYPE_NONE)
        return nt_fail(NT_EINVAL, "%s: untyped, element size %zu; the kernels need a type "
                       "(nt_matrix_set_dtype) or 8-byte elements (double)", name, A->elem_size);
    if (want != NT_DTYPE_NONE && t != want)
        return nt_fail(NT_EINVAL, "%s: element type %s, the other operands are %s", name,
                       nt_dtype_name(t), nt_dtype_name(want));
    return check_placed(name, A, topo);
}

typedef struct range {
    uintptr_t lo, hi;
} range;

static int by_lo(const void *a, const void *b)
{
    uintptr_t x = ((const range *)a)->lo, y = ((const range *)b)->lo;
    return x < y ? -1 : x > y;
}

static range tile_range(const nt_matrix_t *A, int64_t i, int64_t j)
{
    uintptr_t lo = (uintptr_t)nt_matrix_tile(A, i, j);
    int64_t ext = (nt_matrix_tile_cols(A, j) - 1) * nt_matrix_tile_ld(A, i, j) +
                  nt_matrix_tile_rows(A, i);
    return (range){lo, lo + (uintptr_t)ext * A->elem_size};
}

bool nt_kern_tiles_overlap(const nt_matrix_t *X, const nt_matrix_t *Y, nt_status *st)
{
    *st = NT_OK;
    if (X == Y)
        return true;
    size_t n = (size_t)(X->mt * X->nt);
    range *r = malloc(n * sizeof *r);
    uintptr_t *maxhi = malloc(n * sizeof *maxhi);
    if (!r || !maxhi) {
        free(r);
        free(maxhi);
        *st = nt_fail(NT_ENOMEM, "kernels: out of memory");
        return false;
    }
    for (int64_t i = 0, k = 0; i < X->mt; i++)
        for (int64_t j = 0; j < X->nt; j++)
            r[k++] = tile_range(X, i, j);
    qsort(r, n, sizeof *r, by_lo);
    // Tiles of one matrix may interleave (ScaLAPACK layout): keep the running maximum end.
    for (size_t k = 0; k < n; k++)
        maxhi[k] = k && maxhi[k - 1] > r[k].hi ? maxhi[k - 1] : r[k].hi;
    bool hit = false;
    for (int64_t i = 0; i < Y->mt && !hit; i++)
        for (int64_t j = 0; j < Y->nt && !hit; j++) {
            range y = tile_range(Y, i, j);
            // Last X range starting before y ends.
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (r[mid].lo < y.hi)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            hit = lo > 0 && maxhi[lo - 1] > y.lo;
        }
    free(r);
    free(maxhi);
    return hit;
}
