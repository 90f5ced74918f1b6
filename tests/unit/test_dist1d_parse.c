// The DIST1D parser (nt_dist1d_parse): every form gives exactly the generator's map, every
// error names the spec and what was expected and leaves the output untouched.
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nt_core.h"
#include "numatile/dist.h"

static void same(const nt_dist1d_t *a, const nt_dist1d_t *b)
{
    cr_assert_eq(a->n, b->n);
    cr_assert_eq(a->ndomains, b->ndomains);
    cr_assert_arr_eq(a->owner, b->owner, (size_t)a->n * sizeof(int));
}

static nt_dist1d_t *parsed(const char *spec, int64_t n, int p)
{
    nt_dist1d_t *d = NULL;
    cr_assert_eq(nt_dist1d_parse(spec, n, p, &d), NT_OK, "'%s': %s", spec, nt_last_error());
    return d;
}

static void parse_error(const char *spec, int64_t n, int p, const char *message)
{
    nt_dist1d_t *d = (nt_dist1d_t *)0x1;
    cr_assert_eq(nt_dist1d_parse(spec, n, p, &d), NT_EINVAL, "'%s' accepted", spec);
    cr_assert_str_eq(nt_last_error(), message, "'%s'", spec);
    cr_assert_eq(d, (nt_dist1d_t *)0x1, "'%s': out written on failure", spec);
}

Test(dist1d_parse, block_equals_generator)
{
    for (int64_t n = 1; n <= 30; n += 7)
        for (int p = 1; p <= 5; p++) {
            nt_dist1d_t *a = parsed("block", n, p), *b;
            cr_assert_eq(nt_dist1d_block(n, p, &b), NT_OK);
            same(a, b);
            nt_dist1d_destroy(a);
            nt_dist1d_destroy(b);
        }
}

Test(dist1d_parse, balanced_equals_generator)
{
    static const struct {
        const char *spec;
        uint64_t seed;
    } cases[] = {{"balanced:0", 0},
                 {"balanced:7", 7},
                 {"balanced:0042", 42},
                 {"balanced:18446744073709551615", UINT64_MAX}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        nt_dist1d_t *a = parsed(cases[k].spec, 100, 6), *b;
        cr_assert_eq(nt_dist1d_balanced(100, 6, cases[k].seed, &b), NT_OK);
        same(a, b);
        nt_dist1d_destroy(a);
        nt_dist1d_destroy(b);
    }
}

Test(dist1d_parse, skewed_equals_generator)
{
    static const struct {
        const char *spec;
        double alpha;
        uint64_t seed;
    } cases[] = {{"skewed:0:1", 0.0, 1},       {"skewed:1:2", 1.0, 2},
                 {"skewed:0.5:3", 0.5, 3},     {"skewed:.25:4", 0.25, 4},
                 {"skewed:1.0:5", 1.0, 5},     {"skewed:0.3:18446744073709551615", 0.3, UINT64_MAX},
                 {"skewed:5e-1:6", 0.5, 6}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        nt_dist1d_t *a = parsed(cases[k].spec, 120, 4), *b;
        cr_assert_eq(nt_dist1d_skewed(4, 30, cases[k].alpha, cases[k].seed, &b), NT_OK);
        same(a, b);
        nt_dist1d_destroy(a);
        nt_dist1d_destroy(b);
    }
}

Test(dist1d_parse, malformed_specs)
{
    const char *kinds = "expected block, balanced:SEED or skewed:ALPHA:SEED";
    static const char *unknown[] = {"", "blok", "block:", "block:1", "balanced", "skewed",
                                    "Block", " block", "random:1", ":1"};
    for (size_t k = 0; k < sizeof unknown / sizeof *unknown; k++) {
        char want[128];
        snprintf(want, sizeof want, "'%s': %s", unknown[k], kinds);
        parse_error(unknown[k], 12, 3, want);
    }
    static const char *bad_seed[] = {"balanced:", "balanced:x", "balanced:-1", "balanced:+1",
                                     "balanced: 1", "balanced:1.5", "balanced:1:2",
                                     "balanced:18446744073709551616"};
    for (size_t k = 0; k < sizeof bad_seed / sizeof *bad_seed; k++) {
        char want[128];
        snprintf(want, sizeof want, "'%s': expected balanced:SEED", bad_seed[k]);
        parse_error(bad_seed[k], 12, 3, want);
    }
    parse_error("skewed:", 12, 3, "'skewed:': expected skewed:ALPHA:SEED");
    parse_error("skewed:0.5", 12, 3, "'skewed:0.5': expected skewed:ALPHA:SEED");
    static const char *bad_skew[] = {"skewed::1", "skewed:0.5:", "skewed:1.5:1", "skewed:-0:1",
                                     "skewed:nan:1", "skewed:inf:1", "skewed: 0.5:1",
                                     "skewed:0.5x:1", "skewed:0.5:x", "skewed:0.5:1:2",
                                     "skewed:1e-400:1"};
    for (size_t k = 0; k < sizeof bad_skew / sizeof *bad_skew; k++) {
        char want[128];
        snprintf(want, sizeof want, "'%s': expected skewed:ALPHA:SEED, ALPHA in [0,1]",
                 bad_skew[k]);
        parse_error(bad_skew[k], 12, 3, want);
    }
}

Test(dist1d_parse, sizes)
{
    parse_error("skewed:0.5:1", 10, 3, "'skewed:0.5:1': skewed needs n >= 1 divisible by the "
                "p >= 1 domains (n = 10, p = 3)");
    parse_error("skewed:0.5:1", 0, 3, "'skewed:0.5:1': skewed needs n >= 1 divisible by the "
                "p >= 1 domains (n = 0, p = 3)");
    parse_error("skewed:0.5:1", 12, 0, "'skewed:0.5:1': skewed needs n >= 1 divisible by the "
                "p >= 1 domains (n = 12, p = 0)");
    // block and balanced report bad sizes with the generators' own messages.
    nt_dist1d_t *keep = (nt_dist1d_t *)0x1;
    cr_assert_eq(nt_dist1d_parse("block", 0, 3, &keep), NT_EINVAL);
    cr_assert_eq(nt_dist1d_parse("balanced:1", 5, 0, &keep), NT_EINVAL);
    cr_assert_eq(keep, (nt_dist1d_t *)0x1);
    cr_assert_eq(nt_dist1d_parse(NULL, 5, 1, &keep), NT_EINVAL);
    cr_assert_eq(nt_dist1d_parse("block", 5, 1, NULL), NT_EINVAL);
}

Test(dist1d_parse, grammar_text)
{
    const char *want = "block | balanced:SEED | skewed:ALPHA:SEED";
    char buf[64], small[6];
    cr_assert_eq(nt_dist1d_spec_grammar(NULL, 0), strlen(want));
    cr_assert_eq(nt_dist1d_spec_grammar(buf, sizeof buf), strlen(want));
    cr_assert_str_eq(buf, want);
    cr_assert_eq(nt_dist1d_spec_grammar(small, sizeof small), strlen(want));
    cr_assert_str_eq(small, "block");
}
