// file:PATH tile maps: one text line per tile row, whitespace-separated domain ids.
#include <limits.h>
#include <stdlib.h>

#include "nt_partition.h"

// Filling state: the map, where the next id goes, and the largest id seen.
typedef struct filler {
    const char *path;
    nt_tilemap_t *m;
    int ndomains;
    int64_t row, line;
    int maxid;
} filler;

// One domain id: digits only, at most INT_MAX, below ndomains when that is given.
static nt_status domain_id(const filler *f, const char *tok, size_t len, int *id)
{
    uint64_t v;
    bool over;
    if (nt_scan_digits(tok, tok + len, INT_MAX, &v, &over) != len)
        return nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: junk '%.*s' (expected a domain "
                       "id)", f->path, (long long)f->line, (int)len, tok);
    if (over)
        return nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: domain id '%.*s' is too large",
                       f->path, (long long)f->line, (int)len, tok);
    if (f->ndomains > 0 && v >= (uint64_t)f->ndomains)
        return nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: domain %lld out of range 0..%d",
                       f->path, (long long)f->line, (long long)v, f->ndomains - 1);
    *id = (int)v;
    return NT_OK;
}

// The ids of one line [s, eol) into the next tile row; a line without ids is skipped.
static nt_status read_row(filler *f, const char *s, const char *eol)
{
    int64_t mt = f->m->mt, nt = f->m->nt, col = 0;
    const char *tok;
    size_t len;
    while (nt_scan_token(&s, eol, &tok, &len)) {
        int id = 0;
        nt_status st = domain_id(f, tok, len, &id);
        if (st != NT_OK)
            return st;
        if (f->row >= mt)
            return nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: more than %lld tile rows",
                           f->path, (long long)f->line, (long long)mt);
        if (col >= nt)
            return nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: more than %lld domain ids",
                           f->path, (long long)f->line, (long long)nt);
        f->m->owner[f->row * nt + col++] = id;
        if (id > f->maxid)
            f->maxid = id;
    }
    if (col == 0)
        return NT_OK;
    if (col != nt)
        return nt_fail(NT_EINVAL, "tile-map file '%s' line %lld: expected %lld domain ids, "
                       "found %lld", f->path, (long long)f->line, (long long)nt, (long long)col);
    f->row++;
    return NT_OK;
}

nt_status nt_tilemap_read(const char *path, int64_t mt, int64_t nt, int ndomains,
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
    // What mt x nt ids can take: up to 11 characters and a blank each, with 1 MiB for
    // comments and blank lines; anything larger is not a map of this grid.
    char *text;
    size_t len, cap = ((size_t)1 << 20) + (size_t)mt * (size_t)nt * 12;
    if ((st = nt_read_file(path, cap, "tile-map file", &text, &len)) != NT_OK) {
        nt_tilemap_destroy(m);
        return st;
    }
    filler f = {path, m, ndomains, 0, 0, 0};
    const char *end = text + len;
    for (const char *s = text; s < end && st == NT_OK;) {
        const char *eol = nt_scan_eol(s, end);
        f.line++;
        st = read_row(&f, s, eol);
        s = eol + 1;
    }
    free(text);
    if (st == NT_OK && f.row != mt)
        st = nt_fail(NT_EINVAL, "tile-map file '%s': %lld tile rows, expected %lld", path,
                     (long long)f.row, (long long)mt);
    if (st != NT_OK) {
        nt_tilemap_destroy(m);
        return st;
    }
    m->ndomains = ndomains > 0 ? ndomains : f.maxid + 1;
    *out = m;
    return NT_OK;
}
