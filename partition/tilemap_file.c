// file:PATH tile maps: one text line per tile row, whitespace-separated domain ids.
#include <limits.h>
#include <stdlib.h>

#include "nt_partition.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

nt_status nt_tilemap_from_file(const char *path, int64_t mt, int64_t nt, int ndomains,
                               nt_tilemap_t **out)
{
    if (!path)
        return nt_fail(NT_EINVAL, "tile-map file: path is NULL");
    if (ndomains < 0)
        return nt_fail(NT_EINVAL, "tile-map file '%s': ndomains %d must be >= 0", path,
                       ndomains);
    // A provisional domain count of 1; the real one is set once the ids are known.
    nt_tilemap_t *m;
    nt_status st = nt_tilemap_alloc(mt, nt, 1, &m);
    if (st != NT_OK)
        return st;
    char *text;
    size_t len;
    if ((st = nt_read_whole_file(path, &text, &len)) != NT_OK) {
        nt_tilemap_destroy(m);
        return st;
    }
    int64_t row = 0, line = 0;
    int maxid = 0;
    const char *s = text, *end = text + len;
    while (s < end && st == NT_OK) {
        line++;
        const char *eol = s;
        while (eol < end && *eol != '\n')
            eol++;
        int64_t col = 0;
        const char *c = s;
        while (c < eol) {
            while (c < eol && is_space(*c))
                c++;
            if (c == eol || *c == '#')
                break;
            const char *tok = c;
            while (c < eol && !is_space(*c) && *c != '#')
                c++;
            long long v = 0;
            int ok = 1;
            for (const char *t = tok; t < c && ok; t++) {
                if (*t < '0' || *t > '9')
                    ok = 0;
                else if (v <= INT_MAX)
                    v = v * 10 + (*t - '0'); // stops growing past INT_MAX: no overflow
            }
            if (ok && v > INT_MAX) {
                st = nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: domain id '%.*s' is too "
                             "large", path, (long long)line, (int)(c - tok), tok);
                break;
            }
            if (!ok) {
                st = nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: junk '%.*s' (expected a "
                             "domain id)", path, (long long)line, (int)(c - tok), tok);
                break;
            }
            if (ndomains > 0 && v >= ndomains) {
                st = nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: domain %lld out of "
                             "range 0..%d", path, (long long)line, v, ndomains - 1);
                break;
            }
            if (row >= mt) {
                st = nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: more than %lld tile "
                             "rows", path, (long long)line, (long long)mt);
                break;
            }
            if (col >= nt) {
                st = nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: more than %lld domain "
                             "ids", path, (long long)line, (long long)nt);
                break;
            }
            m->owner[row * nt + col++] = (int)v;
            if (v > maxid)
                maxid = (int)v;
        }
        if (st == NT_OK && col > 0) {
            if (col != nt)
                st = nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: expected %lld domain ids, "
                             "found %lld", path, (long long)line, (long long)nt, (long long)col);
            row++;
        }
        s = eol + 1;
    }
    free(text);
    if (st == NT_OK && row != mt)
        st = nt_fail(NT_EINVAL, "tile-map file '%s': %lld tile rows, expected %lld", path,
                     (long long)row, (long long)mt);
    if (st != NT_OK) {
        nt_tilemap_destroy(m);
        return st;
    }
    m->ndomains = ndomains > 0 ? ndomains : maxid + 1;
    *out = m;
    return NT_OK;
}
