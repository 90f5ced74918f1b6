// Scaffolding shared by the guest programs (tests/vm/guest_*.c, one program each): the check
// counters and their summary line, a clock, a hash, tile geometry, and the move_pages(2) page
// oracle made without libnuma or numatile. A header, not a .c: run.sh builds every
// tests/vm/guest_*.c as a program of its own. Each guest is a single translation unit, so the
// state below is that program's own.
#ifndef NUMATILE_GUEST_COMMON_H
#define NUMATILE_GUEST_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "numatile.h"

#define MAXN 16

static int tests, passed;
static int64_t verified[MAXN]; // pages whose node the move_pages oracle confirmed, per node
static int node_of[MAXN];      // node of each domain (guests on matrices fill it)
static size_t pgsz;            // page size (set by guest_start)

// Counts one check and prints "ok   MSG" or "FAIL MSG"; returns ok.
static inline bool check(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tests++;
    passed += ok;
    fputs(ok ? "ok   " : "FAIL ", stdout);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    return ok;
}

// The line run.sh reads: "guest: NAME tests=T passed=P failed=F"; returns the exit status.
static inline int guest_summary(const char *name)
{
    printf("guest: %s tests=%d passed=%d failed=%d\n", name, tests, passed, tests - passed);
    return passed == tests ? 0 : 1;
}

// "PROG: pages verified per node: node0=N ..." (run.sh copies it to its report).
static inline void guest_print_verified(const char *prog, int nodes)
{
    printf("%s: pages verified per node:", prog);
    for (int d = 0; d < nodes; d++)
        printf(" node%d=%lld", d, (long long)verified[d]);
    printf("\n");
}

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Line-buffered output (the serial console may stop at any time), the page size, and the
// expected node count: the '/'-separated entries of NT_CPUS, printed with NT_SHAPE.
static inline int guest_start(const char *prog)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    pgsz = (size_t)sysconf(_SC_PAGESIZE);
    const char *shape = getenv("NT_SHAPE"), *cpus = getenv("NT_CPUS");
    int nodes = 0;
    for (const char *p = cpus; p && *p; p++)
        nodes += *p == '/';
    nodes += cpus && *cpus;
    printf("%s: shape %s, %d nodes\n", prog, shape ? shape : "?", nodes);
    return nodes;
}

// splitmix64's finaliser.
static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline int64_t rows_of(const nt_matrix_t *A, int64_t i)
{
    return i < A->mt - 1 ? A->mb : A->m - i * A->mb;
}

static inline int64_t cols_of(const nt_matrix_t *A, int64_t j)
{
    return j < A->nt - 1 ? A->nb : A->n - j * A->nb;
}

// --- The oracle: move_pages(2) status of pages, asked of the kernel directly -----------------

// Pages of [p, p+bytes) that move_pages reports on `node`; -1 if the call fails.
static inline int64_t pages_on(const void *p, size_t bytes, int node)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)p / pg, b = ((uintptr_t)p + bytes - 1) / pg;
    size_t n = (size_t)(b - a + 1);
    void **pages = malloc(n * sizeof *pages);
    int *status = malloc(n * sizeof *status);
    int64_t on = -1;
    if (pages && status) {
        for (size_t k = 0; k < n; k++) {
            pages[k] = (void *)((a + k) * pg);
            status[k] = -1000;
        }
        if (syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0) == 0) {
            on = 0;
            for (size_t k = 0; k < n; k++)
                on += status[k] == node;
        }
    }
    free(pages);
    free(status);
    return on;
}

typedef struct pgent {
    uintptr_t page;
    int node;
} pgent;

static inline int cmp_pg(const void *a, const void *b)
{
    const pgent *x = a, *y = b;
    if (x->page != y->page)
        return x->page < y->page ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

typedef struct oracle_res {
    int64_t pages;     // distinct pages
    int64_t on_node;   // pages on their tile's node
    int64_t conflicts; // pages expected on two different nodes
    bool sys_ok;       // the move_pages calls succeeded
} oracle_res;

static inline bool add_range(pgent **v, size_t *n, size_t *cap, uintptr_t a, size_t bytes,
                             int node)
{
    for (uintptr_t p = a / pgsz; p <= (a + bytes - 1) / pgsz; p++) {
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 1024;
            pgent *nv = realloc(*v, nc * sizeof *nv);
            if (!nv)
                return false;
            *v = nv;
            *cap = nc;
        }
        (*v)[(*n)++] = (pgent){p * pgsz, node};
    }
    return true;
}

// Pages of every tile of A (TILE: the tile; SCALAPACK: each column of the tile in its local
// matrix), deduplicated, queried with move_pages against node_of[owner]; the counts go to
// verified[] when every page is on its node and no page is claimed by two nodes.
static inline oracle_res oracle_matrix(const nt_matrix_t *A)
{
    oracle_res res = {0, 0, 0, false};
    pgent *v = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    for (int64_t i = 0; ok && i < A->mt; i++)
        for (int64_t j = 0; ok && j < A->nt; j++) {
            int node = node_of[A->owner[i * A->nt + j]];
            uintptr_t base = (uintptr_t)A->tile[i * A->nt + j];
            size_t col = (size_t)rows_of(A, i) * A->elem_size;
            if (A->layout == NT_LAYOUT_TILE) {
                ok = add_range(&v, &n, &cap, base, col * (size_t)cols_of(A, j), node);
            } else {
                size_t ld = (size_t)A->lld[A->owner[i * A->nt + j]] * A->elem_size;
                for (int64_t k = 0; ok && k < cols_of(A, j); k++)
                    ok = add_range(&v, &n, &cap, base + (size_t)k * ld, col, node);
            }
        }
    if (!ok) {
        free(v);
        return res;
    }
    qsort(v, n, sizeof *v, cmp_pg);
    size_t u = 0;
    for (size_t k = 0; k < n; k++) {
        if (u > 0 && v[u - 1].page == v[k].page) {
            if (v[u - 1].node != v[k].node && (u < 2 || v[u - 2].page != v[k].page))
                res.conflicts++;
            continue;
        }
        v[u++] = v[k];
    }
    void **pages = malloc((u + 1) * sizeof *pages);
    int *status = malloc((u + 1) * sizeof *status);
    int64_t here[MAXN] = {0};
    res.sys_ok = pages && status;
    for (size_t k = 0; res.sys_ok && k < u; k++) {
        pages[k] = (void *)v[k].page;
        status[k] = -1000;
    }
    if (res.sys_ok && u > 0)
        res.sys_ok = syscall(SYS_move_pages, 0, (unsigned long)u, pages, NULL, status, 0) == 0;
    for (size_t k = 0; res.sys_ok && k < u; k++)
        if (status[k] == v[k].node) {
            res.on_node++;
            if (v[k].node >= 0 && v[k].node < MAXN)
                here[v[k].node]++;
        }
    res.pages = (int64_t)u;
    if (res.sys_ok && res.on_node == res.pages && res.conflicts == 0)
        for (int d = 0; d < MAXN; d++)
            verified[d] += here[d];
    free(pages);
    free(status);
    free(v);
    return res;
}

#endif
