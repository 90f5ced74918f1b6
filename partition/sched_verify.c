// Independent check of a one-port schedule against its transfer matrix.
#include <stdlib.h>

#include "nt_partition.h"
#include "numatile/sched.h"

nt_status nt_sched_verify(const nt_schedule_t *s, const int64_t *q)
{
    if (!s || !q)
        return nt_fail(NT_EINVAL, "schedule check: s or q is NULL");
    int p = s->p;
    if (p < 1 || s->nphases < 0 || (s->nphases > 0 && (!s->count || !s->first)))
        return nt_fail(NT_EINVAL, "schedule check: malformed schedule");
    size_t cells = (size_t)p * (size_t)p;
    int64_t *sum = calloc(cells, sizeof *sum);
    int *sent = malloc((size_t)p * sizeof *sent), *recv = malloc((size_t)p * sizeof *recv);
    nt_status st = NT_OK;
    if (!sum || !sent || !recv) {
        st = nt_fail(NT_ENOMEM, "schedule check: cannot allocate scratch for p = %d", p);
        goto done;
    }
    for (int i = 0; i < p; i++)
        sent[i] = recv[i] = -1;
    int64_t steps = 0;
    for (int t = 0; t < s->nphases && st == NT_OK; t++) {
        if (s->count[t] < 1) {
            st = nt_fail(NT_EINVAL, "schedule check: phase %d has count %lld", t,
                         (long long)s->count[t]);
            break;
        }
        if (__builtin_add_overflow(steps, s->count[t], &steps)) {
            st = nt_fail(NT_ERANGE, "schedule check: the step count overflows");
            break;
        }
        for (int64_t x = s->first[t]; x < s->first[t + 1]; x++) {
            int a = s->src[x], d = s->dst[x];
            if (a < 0 || a >= p || d < 0 || d >= p || a == d) {
                st = nt_fail(NT_EINVAL, "schedule check: phase %d has pair (%d,%d)", t, a, d);
                break;
            }
            if (sent[a] == t || recv[d] == t) {
                st = nt_fail(NT_EINVAL, "schedule check: phase %d uses sender %d or receiver %d "
                             "twice", t, a, d);
                break;
            }
            sent[a] = recv[d] = t;
            sum[(int64_t)a * p + d] += s->count[t];
        }
    }
    if (st != NT_OK)
        goto done;
    int64_t want = 0;
    for (int i = 0; i < p && st == NT_OK; i++) {
        int64_t so = 0, ri = 0;
        for (int k = 0; k < p; k++) {
            if (k == i)
                continue;
            if (sum[(int64_t)i * p + k] != q[(int64_t)i * p + k]) {
                st = nt_fail(NT_EINVAL, "schedule check: %d -> %d moves %lld, q says %lld", i, k,
                             (long long)sum[(int64_t)i * p + k], (long long)q[(int64_t)i * p + k]);
                break;
            }
            so += q[(int64_t)i * p + k];
            ri += q[(int64_t)k * p + i];
        }
        want = so > want ? so : want;
        want = ri > want ? ri : want;
    }
    if (st == NT_OK && (steps != want || s->steps != want))
        st = nt_fail(NT_EINVAL, "schedule check: %lld steps (recorded %lld), RedistSteps is %lld",
                     (long long)steps, (long long)s->steps, (long long)want);
done:
    free(sum);
    free(sent);
    free(recv);
    return st;
}
