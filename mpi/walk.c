// Column walks: the pieces of every message that shares a column group, merged, so that a pack
// reads each source column once in order and an unpack writes each target column once in
// order. Packing message by message instead reads every column once per message, skipping the
// other messages' rows, and unpacking writes each column in strided pieces, once per message:
// measured here (bench/micro/column_order.c: 2048 x 2048 doubles from 4 messages, 256- and
// 512-byte pieces, two runs) 6.4-8.8 GB/s message by message against 9.2-16.8 GB/s column by
// column, as fast as a plain copy of the same bytes in the same run.
#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

// A private header of libnumatile (lib/matrix/), used here on purpose: the line writers are
// header-only (static inline, no libnumatile symbol), so libnumatile_mpi links none of the
// library's internals through them and its exports stay the functions of <numatile/mpi.h>.
#include "lib/matrix/nt_lines.h"
#include "nt_mpi_copy.h"
#include "nt_mpi_int.h"

static int by_s(const void *x, const void *y)
{
    int64_t a = ((const nt_mpi_step *)x)->s, b = ((const nt_mpi_step *)y)->s;
    return (a > b) - (a < b);
}

static int by_d(const void *x, const void *y)
{
    int64_t a = ((const nt_mpi_step *)x)->d, b = ((const nt_mpi_step *)y)->d;
    return (a > b) - (a < b);
}

nt_status nt_mpi_steps_make(const nt_mpi_pieces *rows, int nr, bool by_target,
                            const char *const *msg, int local, size_t es, nt_mpi_steps *out)
{
    *out = (nt_mpi_steps){0};
    int64_t n = 0;
    for (int k = 0; k < nr; k++)
        n += msg[k] || k == local ? rows[k].n : 0;
    nt_mpi_step *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    int64_t *first = malloc((size_t)(nr ? nr : 1) * sizeof *first);
    if (!v || !first) {
        free(v);
        free(first);
        return nt_mpi_fail(NT_ENOMEM, "out of memory for a column walk of %lld pieces",
                           (long long)n);
    }
    int64_t e = 0, elems = 0;
    for (int k = 0; k < nr; k++) {
        first[k] = -1;
        if (!msg[k] && k != local)
            continue;
        // A piece's place in its message's packed column: the pieces before it in its list.
        int64_t off = 0, stride = rows[k].sum * (int64_t)es;
        for (int64_t i = 0; i < rows[k].n; i++) {
            const nt_mpi_piece *q = &rows[k].v[i];
            v[e++] = k == local ? (nt_mpi_step){NULL, 0, q->s, q->d, q->len, k}
                                : (nt_mpi_step){msg[k] + (size_t)off * es, stride, q->s, q->d,
                                                q->len, k};
            off += q->len;
        }
        elems += rows[k].sum;
    }
    // The rows of different lists never overlap on the side they are sorted by (a source row
    // goes to one target process, a target row comes from one source process).
    qsort(v, (size_t)n, sizeof *v, by_target ? by_d : by_s);
    bool contig = true;
    for (int64_t i = 0; i < n; i++) {
        if (first[v[i].list] < 0)
            first[v[i].list] = i;
        contig = contig && (i == 0 || v[i].d == v[i - 1].d + v[i - 1].len);
    }
    *out = (nt_mpi_steps){v, n, elems, nr, first, contig, NULL, 0};
    return NT_OK;
}

void nt_mpi_steps_free(nt_mpi_steps *s)
{
    free(s->v);
    free(s->first);
    free(s->g);
    *s = (nt_mpi_steps){0};
}

typedef nt_mpi_cursor cursor;

// NT_MPI_LINES: 1 (forced on), 0 (off) or -1 (unset).
static int lines_env(void)
{
    const char *e = getenv("NT_MPI_LINES");
    return e && *e ? strcmp(e, "0") != 0 : -1;
}

bool nt_mpi_lines_wanted(int64_t bytes)
{
    int f = lines_env();
    return f >= 0 ? f : bytes >= NT_MPI_LINES_MIN;
}

// Line writers (nt_lines.h) turn the pieces written in order into streaming stores of whole
// 64-byte lines, so that a target line is not read before it is written (ordinary stores move
// 3 bytes per byte copied, streaming ones 2).
typedef void (*put_fn)(nt_lines *, const uint64_t *, int64_t);

// Column c of a pack: one writer per message (list), each message's column filled in order.
static inline void pack_col_lines(const nt_mpi_steps *st, nt_lines *w, const char *scol,
                                  int64_t c, put_fn put)
{
    const nt_mpi_step *v = st->v;
    for (int k = 0; k < st->nl; k++)
        if (st->first[k] >= 0) {
            const nt_mpi_step *f = &v[st->first[k]];
            nt_lines_start(&w[k], (uint64_t *)(void *)(f->msg + (size_t)(c * f->stride)));
        }
    for (int64_t e = 0; e < st->n; e++)
        put(&w[v[e].list], (const uint64_t *)(const void *)(scol + (size_t)v[e].s * 8),
            v[e].len);
    for (int k = 0; k < st->nl; k++)
        if (st->first[k] >= 0)
            nt_lines_flush(&w[k]);
}

// Column c of an unpack: one writer down the target column (the steps are contiguous).
static inline void unpack_col_lines(const nt_mpi_steps *st, char *dcol, const char *scol,
                                    int64_t c, put_fn put)
{
    const nt_mpi_step *v = st->v;
    nt_lines w = {.lo = 0};
    nt_lines_start(&w, (uint64_t *)(void *)(dcol + (size_t)v[0].d * 8));
    for (int64_t e = 0; e < st->n; e++) {
        const char *src = v[e].msg ? v[e].msg + (size_t)(c * v[e].stride)
                                   : scol + (size_t)v[e].s * 8;
        put(&w, (const uint64_t *)(const void *)src, v[e].len);
    }
    nt_lines_flush(&w);
}

#if NT_LINES_AVX512
__attribute__((target("avx512f"))) static void pack_col_avx512(const nt_mpi_steps *st,
                                                                nt_lines *w, const char *scol,
                                                                int64_t c)
{
    pack_col_lines(st, w, scol, c, nt_lines_put_avx512);
}

__attribute__((target("avx512f"))) static void unpack_col_avx512(const nt_mpi_steps *st,
                                                                  char *dcol, const char *scol,
                                                                  int64_t c)
{
    unpack_col_lines(st, dcol, scol, c, nt_lines_put_avx512);
}
#endif

// Column c through the writers, with the AVX-512 loop where the cpu has it.
static void pack_col(const nt_mpi_steps *st, nt_lines *w, const char *scol, int64_t c,
                     bool avx512)
{
    NT_LINES_DISPATCH(avx512, pack_col_avx512(st, w, scol, c),
                      pack_col_lines(st, w, scol, c, nt_lines_put));
}

static void unpack_col(const nt_mpi_steps *st, char *dcol, const char *scol, int64_t c,
                       bool avx512)
{
    NT_LINES_DISPATCH(avx512, unpack_col_avx512(st, dcol, scol, c),
                      unpack_col_lines(st, dcol, scol, c, nt_lines_put));
}

// Whether a group's steps go through line writers (long enough on average, nt_lines.h), and
// with which loop.
static bool use_lines(const nt_mpi_steps *st, size_t es, bool lines, bool *avx512)
{
    *avx512 = nt_lines_avx512();
    int64_t min_run = *avx512 ? NT_LINES_RUN_AVX512 : NT_LINES_RUN;
    // Short regular steps go faster as groups (docs/benchmarks.md), unless the line writers
    // are forced on (tests of them).
    if (st->g && st->elems < NT_MPI_GROUP_RUN * st->n && lines_env() != 1)
        return false;
    return lines && es == 8 && st->n > 0 && st->elems >= min_run * st->n;
}

void nt_mpi_pack_group(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                       int64_t lda, size_t es, int threads, bool lines)
{
    int64_t n = st->n;
    const nt_mpi_step *v = st->v;
    bool avx512, ln = use_lines(st, es, lines, &avx512);
#pragma omp parallel num_threads(threads)
    {
        int64_t c0, c1, sj, dj;
        cursor u = nt_mpi_thread_share(cp, &c0, &c1);
        // The writers of this thread; without their memory it copies without them.
        nt_lines *w = ln ? aligned_alloc(64, (size_t)st->nl * sizeof *w) : NULL;
        if (w)
            memset(w, 0, (size_t)st->nl * sizeof *w);
        for (int64_t c = c0; c < c1; c++) {
            nt_mpi_cursor_col(&u, c, &sj, &dj);
            const char *scol = a + (size_t)(sj * lda) * es;
            if (w) {
                pack_col(st, w, scol, c, avx512);
                continue;
            }
            if (st->g) {
                nt_mpi_groups_pack(st, scol, c, es);
                continue;
            }
            for (int64_t e = 0; e < n; e++)
                nt_mpi_copy_elems((char *)v[e].msg + (size_t)(c * v[e].stride),
                           scol + (size_t)v[e].s * es, v[e].len, es);
        }
        if (w)
            nt_lines_fence(); // before the agreement that publishes them
        free(w);
    }
}

void nt_mpi_unpack_group(const nt_mpi_steps *st, const nt_mpi_pieces *cp, const char *a,
                         int64_t lda, char *b, int64_t ldb, size_t es, int64_t d0, int64_t d1,
                         int threads, bool lines)
{
    int64_t n = st->n;
    const nt_mpi_step *v = st->v;
    bool avx512, ln = use_lines(st, es, lines, &avx512) && st->contig;
#pragma omp parallel num_threads(threads)
    {
        int64_t c0, c1, sj, dj;
        cursor u = nt_mpi_thread_share(cp, &c0, &c1);
        for (int64_t c = c0; c < c1; c++) {
            nt_mpi_cursor_col(&u, c, &sj, &dj);
            if (dj < d0 || dj >= d1)
                continue;
            char *dcol = b + (size_t)(dj * ldb) * es;
            const char *scol = a ? a + (size_t)(sj * lda) * es : NULL;
            if (ln) {
                unpack_col(st, dcol, scol, c, avx512);
                continue;
            }
            if (st->g) {
                nt_mpi_groups_unpack(st, dcol, scol, c, es);
                continue;
            }
            for (int64_t e = 0; e < n; e++) {
                const char *src = v[e].msg ? v[e].msg + (size_t)(c * v[e].stride)
                                           : scol + (size_t)v[e].s * es;
                nt_mpi_copy_elems(dcol + (size_t)v[e].d * es, src, v[e].len, es);
            }
        }
        if (ln)
            nt_lines_fence(); // before the agreement that publishes them
    }
}
