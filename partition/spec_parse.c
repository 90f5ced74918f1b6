// The DIST grammar of DESIGN.md ("Matrix specs"): a recursive-descent reader that reports the
// 0-based character position and the reason of the first error.
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nt_partition.h"
#include "numatile/matrix.h"

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

// What the map is for: the tile grid, the caller's domain count (0 = as the spec says), the
// result.
typedef struct request {
    int64_t mt, nt;
    int ndomains;
    nt_tilemap_t **out;
} request;

// One per kind of the table below: parses the text after "name:" and builds the map.
typedef nt_status (*kind_fn)(cursor *c, const request *r);

// The grid of bc2d:PxQ[:SMBxSNB] (after "bc2d:") or bc1d:P (after "bc1d:"), to the end.
static nt_status read_bc(cursor *c, bool one_d, nt_bcgrid_t *g)
{
    *g = (nt_bcgrid_t){.p = 1, .smb = 1, .snb = 1};
    nt_status st;
    if (one_d)
        return (st = read_int(c, &g->q)) ? st : expect_end(c);
    if ((st = read_grid(c, &g->p, &g->q)))
        return st;
    if (c->spec[c->pos] == ':') {
        c->pos++;
        if ((st = read_i64(c, &g->smb)) || (st = expect(c, 'x')) || (st = read_i64(c, &g->snb)))
            return st;
    }
    return expect_end(c);
}

static nt_status parse_bc(cursor *c, const request *r, bool one_d)
{
    nt_bcgrid_t g;
    nt_status st;
    if ((st = read_bc(c, one_d, &g)) || (st = check_domains(c, g.p * g.q, r->ndomains)))
        return st;
    return nt_tilemap_bc2d(r->mt, r->nt, g.p, g.q, g.smb, g.snb, r->out);
}

static nt_status parse_bc2d(cursor *c, const request *r)
{
    return parse_bc(c, r, false);
}

static nt_status parse_bc1d(cursor *c, const request *r)
{
    return parse_bc(c, r, true);
}

// SEED alone, for the kinds that take the domain count from the caller.
static nt_status seed_only(cursor *c, int ndomains, uint64_t *seed)
{
    nt_status st;
    if ((st = read_seed(c, seed)) || (st = expect_end(c)) || (st = need_domains(c, ndomains)))
        return st;
    return NT_OK;
}

static nt_status parse_random(cursor *c, const request *r)
{
    uint64_t seed;
    nt_status st = seed_only(c, r->ndomains, &seed);
    return st ? st : nt_tilemap_random(r->mt, r->nt, r->ndomains, seed, r->out);
}

static nt_status parse_balanced(cursor *c, const request *r)
{
    uint64_t seed;
    nt_status st = seed_only(c, r->ndomains, &seed);
    return st ? st : nt_tilemap_balanced(r->mt, r->nt, r->ndomains, seed, r->out);
}

// The options after skewed:PxQ:SEED: ":domain" or ":grid" (at most one), then ":derange".
static nt_status read_skew_opts(cursor *c, nt_skew_opts_t *o)
{
    bool mode_set = false;
    *o = (nt_skew_opts_t){.mode = NT_SKEW_GRID};
    while (c->spec[c->pos] == ':') {
        const char *w = c->spec + c->pos + 1;
        size_t len = strcspn(w, ":");
        if (!o->derange && !mode_set && len == 6 && !strncmp(w, "domain", len))
            o->mode = NT_SKEW_DOMAIN, mode_set = true;
        else if (!o->derange && !mode_set && len == 4 && !strncmp(w, "grid", len))
            mode_set = true;
        else if (!o->derange && len == 7 && !strncmp(w, "derange", len))
            o->derange = true;
        else {
            c->pos++;
            return syntax(c, "expected domain, grid or derange (in that order, once each)");
        }
        c->pos += 1 + len;
    }
    return NT_OK;
}

static nt_status parse_skewed(cursor *c, const request *r)
{
    int p, q;
    uint64_t seed;
    nt_skew_opts_t o;
    nt_status st;
    if ((st = read_grid(c, &p, &q)) || (st = expect(c, ':')) || (st = read_seed(c, &seed)) ||
        (st = read_skew_opts(c, &o)) || (st = expect_end(c)) ||
        (st = check_domains(c, p * q, r->ndomains)))
        return st;
    return nt_tilemap_skewed_ex(r->mt, r->nt, p, q, &o, seed, r->out);
}

// chunk:D:SEED keeps nt_tilemap_chunk's swaths (sides up to half the grid); chunk:D:SEED:HxW
// bounds them (nt_tilemap_chunk_swath).
static nt_status parse_chunk(cursor *c, const request *r)
{
    int d;
    uint64_t seed;
    int64_t h = 0, w = 0;
    nt_status st;
    if ((st = read_int(c, &d)) || (st = expect(c, ':')) || (st = read_seed(c, &seed)))
        return st;
    bool bounded = c->spec[c->pos] == ':';
    if (bounded) {
        c->pos++;
        if ((st = read_i64(c, &h)) || (st = expect(c, 'x')) || (st = read_i64(c, &w)))
            return st;
    }
    if ((st = expect_end(c)) || (st = check_domains(c, d, r->ndomains)))
        return st;
    return bounded ? nt_tilemap_chunk_swath(r->mt, r->nt, d, h, w, seed, r->out)
                   : nt_tilemap_chunk(r->mt, r->nt, d, seed, r->out);
}

static nt_status parse_band(cursor *c, const request *r)
{
    int64_t w;
    int p, q;
    nt_status st;
    if ((st = read_i64(c, &w)) || (st = expect(c, ':')) || (st = read_grid(c, &p, &q)) ||
        (st = expect_end(c)) || (st = check_domains(c, p * q, r->ndomains)))
        return st;
    return nt_tilemap_band(r->mt, r->nt, w, p, q, r->out);
}

static nt_status parse_file(cursor *c, const request *r)
{
    if (!c->spec[c->pos])
        return syntax(c, "expected a file path");
    return nt_tilemap_read(c->spec + c->pos, r->mt, r->nt, r->ndomains, r->out);
}

// Adding a distribution is one entry here and its function above; the error and help texts
// follow from the table.
static const struct kind {
    const char *name;
    const char *grammar;
    kind_fn parse;
} kinds[] = {
    {"bc2d", "bc2d:PxQ[:SMBxSNB]", parse_bc2d},
    {"bc1d", "bc1d:P", parse_bc1d},
    {"random", "random:SEED", parse_random},
    {"balanced", "balanced:SEED", parse_balanced},
    {"skewed", "skewed:PxQ:SEED[:domain|:grid][:derange]", parse_skewed},
    {"chunk", "chunk:D:SEED[:HxW]", parse_chunk},
    {"band", "band:W:PxQ", parse_band},
    {"file", "file:PATH", parse_file},
};
enum { NKINDS = sizeof kinds / sizeof *kinds };

size_t nt_tilemap_spec_grammar(char *buf, size_t cap)
{
    const char *grammars[NKINDS];
    for (int k = 0; k < NKINDS; k++)
        grammars[k] = kinds[k].grammar;
    return nt_text_join(buf, cap, grammars, NKINDS, " | ", " | ");
}

static nt_status unknown_kind(const cursor *c)
{
    const char *names[NKINDS];
    for (int k = 0; k < NKINDS; k++)
        names[k] = kinds[k].name;
    char list[256], why[300];
    nt_text_join(list, sizeof list, names, NKINDS, ", ", " or ");
    snprintf(why, sizeof why, "unknown distribution (expected %s)", list);
    return syntax(c, why);
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
    const struct kind *kind = NULL;
    for (int k = 0; k < NKINDS; k++)
        if (strlen(kinds[k].name) == klen && strncmp(spec, kinds[k].name, klen) == 0)
            kind = &kinds[k];
    if (!kind)
        return unknown_kind(&c);
    c.pos = klen;
    nt_status st = expect(&c, ':');
    if (st != NT_OK)
        return st;
    request r = {mt, nt, ndomains, out};
    return kind->parse(&c, &r);
}

nt_status nt_tilemap_spec_grid(const char *spec, nt_bcgrid_t *grid)
{
    if (!spec || !grid)
        return nt_fail(NT_EINVAL, "DIST: %s is NULL", spec ? "grid" : "spec");
    bool two = strncmp(spec, "bc2d:", 5) == 0, one = strncmp(spec, "bc1d:", 5) == 0;
    if (!two && !one) {
        *grid = (nt_bcgrid_t){0};
        return NT_OK;
    }
    cursor c = {spec, 5};
    nt_bcgrid_t g;
    nt_status st = read_bc(&c, one, &g);
    if (st == NT_OK)
        *grid = g;
    return st;
}
