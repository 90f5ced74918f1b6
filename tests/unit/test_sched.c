// One-port schedules: validity and exact length against an independent checker written here,
// the O(p^2) phase bound, rejection of corrupted schedules by nt_sched_verify, and errors.
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/dist.h"
#include "numatile/match.h"
#include "numatile/sched.h"

#ifdef __SANITIZE_ADDRESS__
#define SCALE 4
#else
#define SCALE 1
#endif

// Independent check: phases one-port, totals exact, length = max degree, phases <= nnz + 2p - 1.
static void check_schedule(const nt_schedule_t *s, const int64_t *q, int p, const char *what)
{
    cr_assert_eq(s->p, p, "%s", what);
    int nnz = 0;
    for (int x = 0; x < p * p; x++)
        nnz += x / p != x % p && q[x] > 0;
    cr_assert(s->nphases <= nnz + 2 * p - 1 && s->nphases <= p * p + p,
              "%s: %d phases for p = %d, %d non-zero transfers", what, s->nphases, p, nnz);
    int64_t *moved = calloc((size_t)p * p, sizeof *moved);
    int64_t steps = 0;
    cr_assert_eq(s->first[0], 0);
    for (int t = 0; t < s->nphases; t++) {
        cr_assert(s->count[t] >= 1, "%s: phase %d count %lld", what, t, (long long)s->count[t]);
        cr_assert(s->first[t + 1] > s->first[t], "%s: phase %d is empty", what, t);
        bool snd[256] = {false}, rcv[256] = {false};
        for (int64_t x = s->first[t]; x < s->first[t + 1]; x++) {
            int a = s->src[x], b = s->dst[x];
            cr_assert(a >= 0 && a < p && b >= 0 && b < p && a != b, "%s: bad pair", what);
            cr_assert(!snd[a] && !rcv[b], "%s: phase %d reuses a port", what, t);
            snd[a] = rcv[b] = true;
            moved[a * p + b] += s->count[t];
        }
        steps += s->count[t];
    }
    cr_assert_eq(s->first[s->nphases], s->npairs);
    int64_t want = 0;
    for (int i = 0; i < p; i++) {
        int64_t so = 0, ri = 0;
        for (int k = 0; k < p; k++) {
            if (i == k)
                continue;
            cr_assert_eq(moved[i * p + k], q[i * p + k], "%s: %d->%d", what, i, k);
            so += q[i * p + k];
            ri += q[k * p + i];
        }
        want = so > want ? so : want;
        want = ri > want ? ri : want;
    }
    cr_assert_eq(steps, want, "%s: %lld steps, RedistSteps %lld", what, (long long)steps,
                 (long long)want);
    cr_assert_eq(s->steps, want, "%s", what);
    free(moved);
}

static void build_and_check(const int64_t *q, int p, const char *what)
{
    nt_schedule_t *s = NULL;
    cr_assert_eq(nt_sched_build(q, p, &s), NT_OK, "%s: %s", what, nt_last_error());
    check_schedule(s, q, p, what);
    cr_assert_eq(nt_sched_verify(s, q), NT_OK, "%s: %s", what, nt_last_error());
    nt_sched_destroy(s);
}

Test(sched, random_matrices)
{
    nt_rng r = {4242};
    for (int t = 0; t < 1500 / SCALE; t++) {
        int p = 1 + (int)nt_rng_below(&r, 12);
        int64_t q[144];
        int kind = t % 5;
        for (int x = 0; x < p * p; x++) {
            switch (kind) {
            case 0: q[x] = (int64_t)nt_rng_below(&r, 5); break;              // dense small
            case 1: q[x] = nt_rng_below(&r, 4) ? 0 : (int64_t)nt_rng_below(&r, 9); break;
            case 2: q[x] = (int64_t)nt_rng_below(&r, 1000000000000ULL); break; // huge volumes
            case 3: q[x] = (x / p == 0) ? (int64_t)nt_rng_below(&r, 7) : 0; break; // one sender
            default: q[x] = (x % p == 1 % p) ? (int64_t)nt_rng_below(&r, 7) : 0; break;
            }
        }
        char what[48];
        snprintf(what, sizeof what, "matrix %d (p %d kind %d)", t, p, kind);
        build_and_check(q, p, what);
    }
}

Test(sched, larger_and_from_matching)
{
    nt_rng r = {8};
    const int sizes[] = {32, 64, 100};
    for (int s = 0; s < 3; s++) {
        int p = sizes[s];
        int64_t *q = malloc((size_t)p * p * sizeof *q);
        for (int x = 0; x < p * p; x++)
            q[x] = (int64_t)nt_rng_below(&r, 20);
        build_and_check(q, p, "dense random");
        // The transfer matrix of a lex-matched random balanced redistribution.
        nt_dist1d_t *ini, *tar;
        cr_assert_eq(nt_dist1d_balanced(10 * (int64_t)p, p, 3 + (uint64_t)s, &ini), NT_OK);
        cr_assert_eq(nt_dist1d_block(10 * (int64_t)p, p, &tar), NT_OK);
        int64_t *n = malloc((size_t)p * p * sizeof *n);
        cr_assert_eq(nt_counts_compute(ini->n, ini->owner, p, tar->owner, p, NULL, NULL, n),
                     NT_OK);
        nt_match_problem_t pr = {p, p, 0, n, NULL, NULL};
        int *sigma = malloc((size_t)p * sizeof *sigma);
        nt_cost_t c;
        cr_assert_eq(nt_match_solve(&pr, NT_MATCH_LEX, sigma, &c), NT_OK);
        cr_assert_eq(nt_transfer_matrix(n, p, p, p, sigma, q), NT_OK);
        nt_schedule_t *sc;
        cr_assert_eq(nt_sched_build(q, p, &sc), NT_OK);
        check_schedule(sc, q, p, "lex transfer");
        cr_assert_eq(sc->steps, c.steps);
        nt_sched_destroy(sc);
        free(sigma);
        free(n);
        nt_dist1d_destroy(ini);
        nt_dist1d_destroy(tar);
        free(q);
    }
}

Test(sched, empty_and_diagonal)
{
    int64_t q[9] = {5, 0, 0, 0, 7, 0, 0, 0, 9};
    nt_schedule_t *s = NULL;
    cr_assert_eq(nt_sched_build(q, 3, &s), NT_OK);
    cr_assert_eq(s->nphases, 0);
    cr_assert_eq(s->steps, 0);
    cr_assert_eq(nt_sched_verify(s, q), NT_OK);
    nt_sched_destroy(s);
    nt_sched_destroy(NULL);
}

Test(sched, verify_rejects_corruption)
{
    int64_t q[9] = {0, 3, 1, 2, 0, 2, 1, 1, 0};
    nt_schedule_t *s = NULL;
    cr_assert_eq(nt_sched_build(q, 3, &s), NT_OK);
    cr_assert_eq(nt_sched_verify(s, q), NT_OK);
    // Too few units of one pair.
    int64_t q2[9];
    memcpy(q2, q, sizeof q);
    q2[1]++;
    cr_assert_eq(nt_sched_verify(s, q2), NT_EINVAL);
    // A receiver used twice in one phase.
    int old = s->dst[0];
    s->dst[0] = s->src[0] == 2 ? 1 : 2;
    if (s->first[1] - s->first[0] > 1 || s->dst[0] == old)
        cr_assert_eq(nt_sched_verify(s, q), NT_EINVAL);
    s->dst[0] = old;
    // A longer schedule than RedistSteps.
    s->count[0]++;
    cr_assert_eq(nt_sched_verify(s, q), NT_EINVAL);
    s->count[0]--;
    cr_assert_eq(nt_sched_verify(s, q), NT_OK);
    nt_sched_destroy(s);
}

Test(sched, errors)
{
    int64_t q[4] = {0, -1, 0, 0};
    nt_schedule_t *s = (nt_schedule_t *)0x1;
    cr_assert_eq(nt_sched_build(q, 2, &s), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "negative") != NULL);
    cr_assert_eq(s, (nt_schedule_t *)0x1, "out written on failure");
    cr_assert_eq(nt_sched_build(NULL, 2, &s), NT_EINVAL);
    cr_assert_eq(nt_sched_build(q, 0, &s), NT_EINVAL);
    int64_t big[4] = {0, INT64_MAX, INT64_MAX, 0};
    int64_t big3[9] = {0, INT64_MAX, INT64_MAX, 0, 0, 0, 0, 0, 0};
    cr_assert_eq(nt_sched_build(big, 2, &s), NT_OK);
    cr_assert_eq(s->steps, INT64_MAX);
    nt_sched_destroy(s);
    cr_assert_eq(nt_sched_build(big3, 3, &s), NT_ERANGE);
}
