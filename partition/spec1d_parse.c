// The DIST1D grammar of `numatile stencil --from`: block | balanced:SEED | skewed:ALPHA:SEED,
// one table entry per kind as in spec_parse.c, each built by a generator of gen_1d.c.
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

// The spec, its kind's grammar, the text after "name:" and what the map is for.
typedef struct request {
    const char *spec, *grammar, *args;
    int64_t n;
    int p;
    nt_dist1d_t **out;
} request;

static nt_status expected(const request *r, const char *more)
{
    return nt_fail(NT_EINVAL, "'%s': expected %s%s", r->spec, r->grammar, more);
}

// SEED: decimal digits only, 0..2^64-1, the whole of [s, end).
static bool read_seed(const char *s, const char *end, uint64_t *seed)
{
    bool over;
    return s < end && nt_scan_digits(s, end, UINT64_MAX, seed, &over) == (size_t)(end - s) &&
           !over;
}

// ALPHA: strtod's decimal syntax starting with a digit or '.', the whole of [s, end), in [0, 1].
static bool read_alpha(const char *s, const char *end, double *alpha)
{
    if (s == end || !(isdigit((unsigned char)*s) || *s == '.'))
        return false;
    char *stop;
    errno = 0;
    double a = strtod(s, &stop);
    if (errno || stop != end || !isfinite(a) || a < 0 || a > 1)
        return false;
    *alpha = a;
    return true;
}

static nt_status parse_block(const request *r)
{
    return nt_dist1d_block(r->n, r->p, r->out);
}

static nt_status parse_balanced(const request *r)
{
    uint64_t seed;
    if (!read_seed(r->args, r->args + strlen(r->args), &seed))
        return expected(r, "");
    return nt_dist1d_balanced(r->n, r->p, seed, r->out);
}

static nt_status parse_skewed(const request *r)
{
    const char *colon = strchr(r->args, ':');
    if (!colon)
        return expected(r, "");
    double alpha;
    uint64_t seed;
    if (!read_alpha(r->args, colon, &alpha) ||
        !read_seed(colon + 1, colon + 1 + strlen(colon + 1), &seed))
        return expected(r, ", ALPHA in [0,1]");
    if (r->p < 1 || r->n < 1 || r->n % r->p != 0)
        return nt_fail(NT_EINVAL, "'%s': skewed needs n >= 1 divisible by the p >= 1 domains "
                       "(n = %lld, p = %d)", r->spec, (long long)r->n, r->p);
    return nt_dist1d_skewed(r->p, r->n / r->p, alpha, seed, r->out);
}

// Adding a kind is one entry here and its function above. A grammar with a ':' takes
// arguments after "name:"; one without is the bare name.
static const struct kind {
    const char *name;
    const char *grammar;
    nt_status (*parse)(const request *r);
} kinds[] = {
    {"block", "block", parse_block},
    {"balanced", "balanced:SEED", parse_balanced},
    {"skewed", "skewed:ALPHA:SEED", parse_skewed},
};
enum { NKINDS = sizeof kinds / sizeof *kinds };

static size_t grammars(char *buf, size_t cap, const char *sep, const char *last)
{
    const char *g[NKINDS];
    for (int k = 0; k < NKINDS; k++)
        g[k] = kinds[k].grammar;
    return nt_text_join(buf, cap, g, NKINDS, sep, last);
}

size_t nt_dist1d_spec_grammar(char *buf, size_t cap)
{
    return grammars(buf, cap, " | ", " | ");
}

nt_status nt_dist1d_parse(const char *spec, int64_t n, int p, nt_dist1d_t **out)
{
    if (!spec || !out)
        return nt_fail(NT_EINVAL, "DIST1D: spec or out is NULL");
    size_t klen = strcspn(spec, ":");
    for (int k = 0; k < NKINDS; k++) {
        const struct kind *kd = &kinds[k];
        bool has_args = strchr(kd->grammar, ':') != NULL;
        if (strlen(kd->name) != klen || strncmp(spec, kd->name, klen) != 0 ||
            (spec[klen] == ':') != has_args)
            continue;
        request r = {spec, kd->grammar, has_args ? spec + klen + 1 : NULL, n, p, out};
        return kd->parse(&r);
    }
    char list[128];
    grammars(list, sizeof list, ", ", " or ");
    return nt_fail(NT_EINVAL, "'%s': expected %s", spec, list);
}
