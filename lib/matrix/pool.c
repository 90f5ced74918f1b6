// Per-domain pools of page-aligned runs (see nt_pool.h). In lib/ rather than numa/: the pool is
// a policy of the matrices' memory (which blocks a tile may reuse), built only on the public
// node-bound allocator of numatile/mem.h.
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_pool.h"
#include "numatile/mem.h"

typedef struct pool_run {
    char *p;
    size_t len;
} pool_run;

typedef struct pool_dom {
    pool_run *run; // sorted by address, never adjacent (they coalesce)
    int64_t n, cap;
    size_t bytes;
} pool_dom;

struct nt_pool {
    int D;
    pool_dom *dom;
};

bool nt_pool_round(size_t bytes, size_t *out)
{
    size_t pg = nt_mem_page_size(), r;
    if (!nt_add_size(bytes, pg - 1, &r))
        return false;
    *out = r / pg * pg;
    return true;
}

nt_status nt_pool_create(int ndomains, nt_pool_t **out)
{
    if (ndomains < 1 || !out)
        return nt_fail(NT_EINVAL, "nt_pool_create: %s", out ? "ndomains < 1" : "out is NULL");
    nt_pool_t *p = calloc(1, sizeof *p);
    if (p)
        p->dom = calloc((size_t)ndomains, sizeof *p->dom);
    if (!p || !p->dom) {
        free(p);
        return nt_fail(NT_ENOMEM, "nt_pool_create: out of memory");
    }
    p->D = ndomains;
    *out = p;
    return NT_OK;
}

void nt_pool_clear(nt_pool_t *p, bool unmap)
{
    for (int d = 0; p && d < p->D; d++) {
        pool_dom *q = &p->dom[d];
        for (int64_t k = 0; unmap && k < q->n; k++)
            nt_mem_free(q->run[k].p, q->run[k].len);
        q->n = 0;
        q->bytes = 0;
    }
}

void nt_pool_destroy(nt_pool_t *p, bool unmap)
{
    if (!p)
        return;
    nt_pool_clear(p, unmap);
    for (int d = 0; d < p->D; d++)
        free(p->dom[d].run);
    free(p->dom);
    free(p);
}

// First run whose address is >= a.
static int64_t lower_bound(const pool_dom *q, const char *a)
{
    int64_t lo = 0, hi = q->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (q->run[mid].p < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

nt_status nt_pool_give(nt_pool_t *p, int d, void *ptr, size_t bytes)
{
    size_t len;
    if (!p || d < 0 || d >= p->D || !ptr || !bytes || !nt_pool_round(bytes, &len))
        return nt_fail(NT_EINVAL, "nt_pool_give: bad argument (domain %d, %zu bytes)", d, bytes);
    pool_dom *q = &p->dom[d];
    char *a = ptr;
    int64_t k = lower_bound(q, a);
    // A run given twice (or overlapping one held) would be handed out twice: refuse it.
    if ((k > 0 && q->run[k - 1].p + q->run[k - 1].len > a) || (k < q->n && a + len > q->run[k].p))
        return nt_fail(NT_EINVAL, "nt_pool_give: [%p, +%zu) overlaps a run of domain %d's pool",
                       ptr, len, d);
    bool left = k > 0 && q->run[k - 1].p + q->run[k - 1].len == a;
    bool right = k < q->n && a + len == q->run[k].p;
    // Neighbours that touch the run merge with it: no new entry is needed.
    if (left && right) {
        q->run[k - 1].len += len + q->run[k].len;
        memmove(&q->run[k], &q->run[k + 1], (size_t)(q->n - k - 1) * sizeof *q->run);
        q->n--;
    } else if (left) {
        q->run[k - 1].len += len;
    } else if (right) {
        q->run[k].p = a;
        q->run[k].len += len;
    } else {
        if (q->n == q->cap) {
            int64_t cap = q->cap ? 2 * q->cap : 16;
            pool_run *r = realloc(q->run, (size_t)cap * sizeof *r);
            if (!r)
                return nt_fail(NT_ENOMEM, "nt_pool_give: out of memory");
            q->run = r;
            q->cap = cap;
        }
        memmove(&q->run[k + 1], &q->run[k], (size_t)(q->n - k) * sizeof *q->run);
        q->run[k] = (pool_run){a, len};
        q->n++;
    }
    q->bytes += len;
    return NT_OK;
}

// Smallest run of at least len bytes (lowest address on ties), or -1.
static int64_t best_fit(const pool_dom *q, size_t len)
{
    int64_t best = -1;
    for (int64_t k = 0; k < q->n; k++)
        if (q->run[k].len >= len && (best < 0 || q->run[k].len < q->run[best].len))
            best = k;
    return best;
}

bool nt_pool_fits(const nt_pool_t *p, int d, size_t bytes)
{
    size_t len;
    return p && d >= 0 && d < p->D && bytes && nt_pool_round(bytes, &len) &&
           p->dom[d].bytes >= len && best_fit(&p->dom[d], len) >= 0;
}

void *nt_pool_take(nt_pool_t *p, int d, size_t bytes)
{
    size_t len;
    if (!nt_pool_fits(p, d, bytes) || !nt_pool_round(bytes, &len))
        return NULL;
    pool_dom *q = &p->dom[d];
    int64_t k = best_fit(q, len);
    char *a = q->run[k].p;
    if (q->run[k].len == len) {
        memmove(&q->run[k], &q->run[k + 1], (size_t)(q->n - k - 1) * sizeof *q->run);
        q->n--;
    } else {
        q->run[k].p += len;
        q->run[k].len -= len;
    }
    q->bytes -= len;
    return a;
}

nt_status nt_pool_get(nt_pool_t *p, const nt_topo_t *topo, int d, size_t bytes, void **out,
                      bool *fresh)
{
    if (!p || !out || !fresh)
        return nt_fail(NT_EINVAL, "nt_pool_get: NULL argument");
    void *a = nt_pool_take(p, d, bytes);
    if (a) {
        *out = a;
        *fresh = false;
        return NT_OK;
    }
    nt_status st = nt_mem_alloc(topo, d, bytes, NT_MEM_HUGE_PAGES, out);
    if (st == NT_OK)
        *fresh = true;
    return st;
}

size_t nt_pool_bytes(const nt_pool_t *p, int d)
{
    return p && d >= 0 && d < p->D ? p->dom[d].bytes : 0;
}

int64_t nt_pool_runs(const nt_pool_t *p, int d)
{
    return p && d >= 0 && d < p->D ? p->dom[d].n : 0;
}

void nt_pool_run(const nt_pool_t *p, int d, int64_t k, void **ptr, size_t *bytes)
{
    *ptr = p->dom[d].run[k].p;
    *bytes = p->dom[d].run[k].len;
}
