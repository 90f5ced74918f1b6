// libFuzzer harness: the instance-file reader (nt_instance_parse, the text of `match` and
// `schedule` files). Input: the text itself. Checks on success: every field within the
// format's bounds, total = the sum of the sizes, and the count matrices of
// nt_instance_counts() adding up to n items and total weight; on failure the output is
// untouched and there is a message.
#include <stdlib.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_counts(const nt_instance_t *in)
{
    // p x p int64 matrices: bounded because the harness keeps p small (below).
    size_t cells = (size_t)in->p * (size_t)in->p;
    int64_t *items = calloc(cells, sizeof *items), *weight = calloc(cells, sizeof *weight);
    if (!items || !weight)
        abort();
    FUZZ_CHECK(nt_instance_counts(in, items, weight) == NT_OK, "nt_instance_counts failed");
    int64_t ni = 0, nw = 0;
    for (size_t c = 0; c < cells; c++) {
        FUZZ_CHECK(items[c] >= 0 && weight[c] >= items[c], "cell %zu: %lld items, weight %lld",
                   c, (long long)items[c], (long long)weight[c]);
        ni += items[c];
        nw += weight[c];
    }
    FUZZ_CHECK(ni == in->n && nw == in->total, "counts add up to %lld items, weight %lld",
               (long long)ni, (long long)nw);
    free(items);
    free(weight);
}

static void check_instance(const nt_instance_t *in)
{
    FUZZ_CHECK(in->p >= 1 && in->n >= 0, "P %d, N %lld", in->p, (long long)in->n);
    FUZZ_CHECK(in->n == 0 || (in->domain && in->part && in->size), "arrays missing");
    int64_t total = 0;
    int weighted = 0;
    for (int64_t x = 0; x < in->n; x++) {
        FUZZ_CHECK(in->domain[x] >= 0 && in->domain[x] < in->p && in->part[x] >= 0 &&
                       in->part[x] < in->p && in->size[x] >= 1,
                   "item %lld: %d %d %lld", (long long)x, in->domain[x], in->part[x],
                   (long long)in->size[x]);
        FUZZ_CHECK(total <= INT64_MAX - in->size[x], "total overflows");
        total += in->size[x];
        weighted |= in->size[x] != 1;
    }
    FUZZ_CHECK(total == in->total, "total %lld, sizes add up to %lld", (long long)in->total,
               (long long)total);
    FUZZ_CHECK(in->weighted == 0 || in->weighted == 1, "weighted %d", in->weighted);
    FUZZ_CHECK(!weighted || in->weighted, "sizes other than 1 but weighted = 0");
    if (in->p <= 512)
        check_counts(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nt_instance_t *sentinel = (nt_instance_t *)&size, *inst = sentinel;
    nt_status st = nt_instance_parse((const char *)data, size, &inst);
    if (st == NT_OK) {
        FUZZ_CHECK(inst && inst != sentinel, "success without an instance");
        check_instance(inst);
        nt_instance_destroy(inst);
    } else {
        FUZZ_CHECK(st < 0 && inst == sentinel, "status %d, output %p", st, (void *)inst);
        const char *msg = nt_last_error();
        FUZZ_CHECK(msg && *msg, "failure without a message");
    }
    return 0;
}
