// Copy kernels of periodic plans (see nt_periodic.h): one column's runs, repetition by
// repetition of its pattern, with non-temporal stores for long runs of large moves.
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/matrix/nt_copy.h"
#include "lib/matrix/nt_lines.h"
#include "nt_periodic.h"

// Copy n bytes with non-temporal stores (whole destination lines; copy.c's kernel).
static void stream_copy(char *d, const char *s, size_t n)
{
#if NT_LINES_AVX512
    // Whole lines (source order's runs): no call into the general kernel per run.
    if (((uintptr_t)d & 63) == 0 && n % 64 == 0 && nt_lines_avx512()) {
        nt_lines_stream_avx512(d, s, n / 64);
        return;
    }
#endif
    nt_copy_2d_ex(d, (int64_t)n, s, (int64_t)n, (int64_t)n, 1, 1, NT_COPY_NOFENCE, NT_COPY_NT);
}

void nt_stream_fence(void)
{
    nt_copy_fence();
}

// Copy n runs: run k reads source column src[r[k].a] and writes target column dst[r[k].b];
// every index is shifted by (so, to). Long runs with memcpy (or streamed), short ones inline.
static inline void copy_runs(char *const *dst, const char *const *src, const prun *r, int64_t n,
                             size_t es, bool stream, int64_t so, int64_t to)
{
    if (es == 8) {
        // Short runs (CYCLIC(r) with small r) inline: a call per run would cost more than
        // the copy.
        for (int64_t k = 0; k < n; k++) {
            uint64_t *dd = (uint64_t *)(void *)dst[r[k].b] + to + r[k].tl;
            const uint64_t *ss = (const uint64_t *)(const void *)src[r[k].a] + so + r[k].sl;
            int64_t len = r[k].len;
            if (len <= 16)
                for (int64_t l = 0; l < len; l++)
                    dd[l] = ss[l];
            else if (stream && len * 8 >= NT_STREAM_RUN)
                stream_copy((char *)dd, (const char *)ss, (size_t)len * 8);
            else
                memcpy(dd, ss, (size_t)len * 8);
        }
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        size_t b = (size_t)r[k].len * es;
        char *d = dst[r[k].b] + (size_t)(to + r[k].tl) * es;
        const char *q = src[r[k].a] + (size_t)(so + r[k].sl) * es;
        if (stream && b >= NT_STREAM_RUN)
            stream_copy(d, q, b);
        else
            memcpy(d, q, b);
    }
}

// Copy the rows of one column: the list's pattern, repetition by repetition.
void nt_copy_column(char *const *dst, const char *const *src, const prun *r, const plist *L,
                        size_t es, bool stream)
{
    if (es == 8 && L->npat <= MAX_PERIOD) {
        // The pattern's addresses once per column; then element by element (CYCLIC(1)) one
        // load and one store per element, short runs inline, long ones by memcpy.
        const uint64_t *sp[MAX_PERIOD];
        uint64_t *dp[MAX_PERIOD];
        for (int64_t e = 0; e < L->npat; e++) {
            sp[e] = (const uint64_t *)(const void *)src[r[e].a] + r[e].sl;
            dp[e] = (uint64_t *)(void *)dst[r[e].b] + r[e].tl;
        }
        for (int64_t k = 0; k <= L->reps; k++) {
            int64_t n = k < L->reps ? L->npat : L->rem, so = k * L->ds, to = k * L->dt;
            if (L->unit) {
                for (int64_t e = 0; e < n; e++)
                    dp[e][to] = sp[e][so];
                continue;
            }
            for (int64_t e = 0; e < n; e++) {
                int64_t len = r[e].len;
                if (len <= 16)
                    for (int64_t l = 0; l < len; l++)
                        dp[e][to + l] = sp[e][so + l];
                else if (stream && len * 8 >= NT_STREAM_RUN)
                    stream_copy((char *)(dp[e] + to), (const char *)(sp[e] + so), (size_t)len * 8);
                else
                    memcpy(dp[e] + to, sp[e] + so, (size_t)len * 8);
            }
        }
        return;
    }
    for (int64_t k = 0; k < L->reps; k++)
        copy_runs(dst, src, r, L->npat, es, stream, k * L->ds, k * L->dt);
    if (L->rem)
        copy_runs(dst, src, r, L->rem, es, stream, L->reps * L->ds, L->reps * L->dt);
}

bool nt_lrun_pack(const prun *r, int64_t n, lrun *q)
{
    for (int64_t k = 0; k < n; k++) {
        if (r[k].len > INT32_MAX || r[k].a < 0 || r[k].a > UINT16_MAX || r[k].b < 0 ||
            r[k].b > UINT16_MAX)
            return false;
        q[k] = (lrun){r[k].sl, (int32_t)r[k].len, (uint16_t)r[k].a, (uint16_t)r[k].b};
    }
    return true;
}

// The writers' loop, instantiated for the baseline and (below) for AVX-512.
#define COPY_COLUMN_LINES(PUT)                                                                 \
    const uint64_t *sp[MAX_PERIOD];                                                            \
    bool small = L->npat <= MAX_PERIOD;                                                        \
    for (int64_t e = 0; small && e < L->npat; e++)                                             \
        sp[e] = (const uint64_t *)(const void *)src[q[e].a] + q[e].sl;                         \
    for (int64_t k = 0; k <= L->reps; k++) {                                                   \
        int64_t n = k < L->reps ? L->npat : L->rem, so = k * L->ds;                            \
        if (small) {                                                                           \
            for (int64_t e = 0; e < n; e++)                                                    \
                PUT(&w[q[e].b], sp[e] + so, q[e].len);                                         \
        } else {                                                                               \
            for (int64_t e = 0; e < n; e++)                                                    \
                PUT(&w[q[e].b], (const uint64_t *)(const void *)src[q[e].a] + so + q[e].sl,    \
                    q[e].len);                                                                 \
        }                                                                                      \
    }

static void lines_base(nt_lines *w, const char *const *src, const lrun *q, const plist *L)
{
    COPY_COLUMN_LINES(nt_lines_put)
}

#if NT_LINES_AVX512
__attribute__((target("avx512f"))) static void lines_avx512(nt_lines *w,
                                                             const char *const *src,
                                                             const lrun *q, const plist *L)
{
    COPY_COLUMN_LINES(nt_lines_put_avx512)
}
#endif

#if NT_LINES_AVX512
// lines_avx512() asking for each run's lines one column ahead (see nt_copy_column_lines()).
__attribute__((target("avx512f"))) static void lines_ahead(nt_lines *w, const char *const *src,
                                                            const lrun *q, const plist *L,
                                                            const int64_t *ahead, int stride)
{
    // Run e (the loop's) of source grid row q[e].a; addresses as integers, since the next
    // column may lie past the local matrix (a prefetch never faults).
#define PUT_AHEAD(W, S, N)                                                                     \
    do {                                                                                       \
        uintptr_t p_ = (uintptr_t)(S) + (uintptr_t)ahead[(size_t)q[e].a * (size_t)stride];     \
        for (uintptr_t l_ = p_ & ~(uintptr_t)63; l_ < p_ + (uintptr_t)(N) * 8; l_ += 64)        \
            __builtin_prefetch((const void *)l_);                                              \
        nt_lines_put_avx512(W, S, N);                                                          \
    } while (0)
    COPY_COLUMN_LINES(PUT_AHEAD)
#undef PUT_AHEAD
}

__attribute__((target("avx512f"))) static void lines_quad(nt_lines *w, const char *const *src,
                                                           const lrun *q, const plist *L)
{
    COPY_COLUMN_LINES(nt_lines_put4_avx512)
}
#endif

void nt_copy_column_lines(nt_lines *w, const char *const *src, const lrun *q, const plist *L,
                       bool avx512, bool quad, const int64_t *ahead, int stride)
{
#if NT_LINES_AVX512
    if (quad) {
        lines_quad(w, src, q, L);
        return;
    }
    if (avx512 && ahead) {
        lines_ahead(w, src, q, L, ahead, stride);
        return;
    }
#else
    (void)quad;
    (void)ahead;
    (void)stride;
#endif
    NT_LINES_DISPATCH(avx512, lines_avx512(w, src, q, L), lines_base(w, src, q, L));
}
