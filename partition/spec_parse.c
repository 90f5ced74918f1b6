// The DIST grammar of DESIGN.md ("Matrix specs"): a recursive-descent reader that reports the
// 0-based character position and the reason of the first error.
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nt_partition.h"

typedef struct cursor {
    const char *spec;
    size_t pos;
} cursor;

static nt_status syntax(const cursor *c, const char *why)
{
    return nt_fail(NT_EINVAL, "DIST '%s' at %zu: %s", c->spec, c->pos, why);
}

// Decimal digits into *v (no sign); fails on no digit or overflow beyond max.
static nt_status read_uint(cursor *c, uint64_t max, uint64_t *v, const char *what)
{
    const char *s = c->spec + c->pos;
    bool over;
    size_t nd = nt_scan_digits(s, s + strlen(s), max, v, &over);
    if (nd == 0)
        return syntax(c, what);
    if (over)
        return nt_fail(NT_ERANGE, "DIST '%s' at %zu: number too large (at most %llu)", c->spec,
                       c->pos, (unsigned long long)max);
    c->pos += nd;
    return NT_OK;
}

static nt_status read_pos(cursor *c, uint64_t max, uint64_t *v)
{
    size_t start = c->pos;
    nt_status st = read_uint(c, max, v, "expected a positive integer");
    if (st == NT_OK && *v == 0) {
        c->pos = start;
        return syntax(c, "expected a positive integer");
    }
    return st;
}

static nt_status read_int(cursor *c, int *v)
{
    uint64_t x;
    nt_status st = read_pos(c, INT_MAX, &x);
    if (st == NT_OK)
        *v = (int)x;
    return st;
}

static nt_status read_i64(cursor *c, int64_t *v)
{
    uint64_t x;
    nt_status st = read_pos(c, INT64_MAX, &x);
    if (st == NT_OK)
        *v = (int64_t)x;
    return st;
}

static nt_status read_seed(cursor *c, uint64_t *v)
{
    return read_uint(c, UINT64_MAX, v, "expected a seed (a non-negative integer)");
}

static nt_status expect(cursor *c, char ch)
{
    if (c->spec[c->pos] != ch) {
        char why[40];
        snprintf(why, sizeof why, "expected '%c'", ch);
        return syntax(c, why);
    }
    c->pos++;
    return NT_OK;
}

static nt_status expect_end(cursor *c)
{
    return c->spec[c->pos] ? syntax(c, "unexpected text after the distribution") : NT_OK;
}

// PxQ with P*Q <= INT_MAX.
static nt_status read_grid(cursor *c, int *p, int *q)
{
    size_t start = c->pos;
    nt_status st;
    if ((st = read_int(c, p)) || (st = expect(c, 'x')) || (st = read_int(c, q)))
        return st;
    if ((int64_t)*p * *q > INT_MAX) {
        c->pos = start;
        return nt_fail(NT_ERANGE, "DIST '%s' at %zu: grid %dx%d has more than INT_MAX domains",
                       c->spec, start, *p, *q);
    }
    return NT_OK;
}

static nt_status check_domains(const cursor *c, int have, int ndomains)
{
    if (ndomains != 0 && ndomains != have)
        return nt_fail(NT_EINVAL, "DIST '%s' has %d domains but %d were asked for", c->spec,
                       have, ndomains);
    return NT_OK;
}

static nt_status need_domains(const cursor *c, int ndomains)
{
    if (ndomains < 1)
        return nt_fail(NT_EINVAL, "DIST '%s' needs the domain count (ndomains >= 1, got %d)",
                       c->spec, ndomains);
    return NT_OK;
}

nt_status nt_tilemap_from_spec(const char *spec, int64_t mt, int64_t nt, int ndomains,
                               nt_tilemap_t **out)
{
    if (!spec || !out)
        return nt_fail(NT_EINVAL, "DIST: spec or out is NULL");
    if (ndomains < 0)
        return nt_fail(NT_EINVAL, "DIST '%s': ndomains %d must be >= 0", spec, ndomains);
    cursor c = {spec, 0};
    size_t klen = strcspn(spec, ":");
    const char *kinds[] = {"bc2d", "bc1d", "random", "balanced", "skewed", "chunk", "band",
                           "file"};
    int kind = -1;
    for (int k = 0; k < (int)(sizeof kinds / sizeof *kinds); k++)
        if (strlen(kinds[k]) == klen && strncmp(spec, kinds[k], klen) == 0)
            kind = k;
    if (kind < 0)
        return syntax(&c, "unknown distribution (expected bc2d, bc1d, random, balanced, skewed, "
                          "chunk, band or file)");
    c.pos = klen;
    nt_status st = expect(&c, ':');
    if (st != NT_OK)
        return st;
    int p, q, d;
    int64_t smb = 1, snb = 1, w;
    uint64_t seed;
    switch (kind) {
    case 0: // bc2d:PxQ[:SMBxSNB]
        if ((st = read_grid(&c, &p, &q)))
            return st;
        if (spec[c.pos] == ':') {
            c.pos++;
            if ((st = read_i64(&c, &smb)) || (st = expect(&c, 'x')) || (st = read_i64(&c, &snb)))
                return st;
        }
        if ((st = expect_end(&c)) || (st = check_domains(&c, p * q, ndomains)))
            return st;
        return nt_tilemap_bc2d(mt, nt, p, q, smb, snb, out);
    case 1: // bc1d:P
        if ((st = read_int(&c, &p)) || (st = expect_end(&c)) ||
            (st = check_domains(&c, p, ndomains)))
            return st;
        return nt_tilemap_bc2d(mt, nt, 1, p, 1, 1, out);
    case 2: // random:SEED
    case 3: // balanced:SEED
        if ((st = read_seed(&c, &seed)) || (st = expect_end(&c)) ||
            (st = need_domains(&c, ndomains)))
            return st;
        return kind == 2 ? nt_tilemap_random(mt, nt, ndomains, seed, out)
                         : nt_tilemap_balanced(mt, nt, ndomains, seed, out);
    case 4: // skewed:PxQ:SEED
        if ((st = read_grid(&c, &p, &q)) || (st = expect(&c, ':')) ||
            (st = read_seed(&c, &seed)) || (st = expect_end(&c)) ||
            (st = check_domains(&c, p * q, ndomains)))
            return st;
        return nt_tilemap_skewed(mt, nt, p, q, seed, out);
    case 5: // chunk:D:SEED
        if ((st = read_int(&c, &d)) || (st = expect(&c, ':')) || (st = read_seed(&c, &seed)) ||
            (st = expect_end(&c)) || (st = check_domains(&c, d, ndomains)))
            return st;
        return nt_tilemap_chunk(mt, nt, d, seed, out);
    case 6: // band:W:PxQ
        if ((st = read_i64(&c, &w)) || (st = expect(&c, ':')) || (st = read_grid(&c, &p, &q)) ||
            (st = expect_end(&c)) || (st = check_domains(&c, p * q, ndomains)))
            return st;
        return nt_tilemap_band(mt, nt, w, p, q, out);
    default: // file:PATH
        if (!spec[c.pos])
            return syntax(&c, "expected a file path");
        return nt_tilemap_from_file(spec + c.pos, mt, nt, ndomains, out);
    }
}
