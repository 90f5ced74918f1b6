// Instance files for `numatile match` / `schedule` (DESIGN.md): "P N", then N lines "d p [w]".
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"
#include "numatile/instance.h"

#define MAXTOK 4

// The fields of one line as integers, in v[0..*n-1]; *n = MAXTOK + 1 when there are more than
// MAXTOK (then none past MAXTOK is read).
static nt_status read_fields(const char *s, const char *eol, int64_t line, int64_t *v, int *n)
{
    const char *tok;
    size_t len;
    *n = 0;
    while (nt_scan_token(&s, eol, &tok, &len)) {
        if (*n == MAXTOK) {
            *n = MAXTOK + 1;
            break;
        }
        // Optional '-' then digits only.
        size_t neg = tok[0] == '-';
        uint64_t x;
        bool over;
        size_t nd = nt_scan_digits(tok + neg, tok + len, INT64_MAX, &x, &over);
        if (nd == 0 || neg + nd != len)
            return nt_fail(NT_EINVAL, "line %lld: junk '%.*s' (expected an integer)",
                           (long long)line, (int)len, tok);
        if (over)
            return nt_fail(NT_ERANGE, "line %lld: number '%.*s' is too large", (long long)line,
                           (int)len, tok);
        v[(*n)++] = neg ? -(int64_t)x : (int64_t)x;
    }
    return NT_OK;
}

void nt_instance_destroy(nt_instance_t *inst)
{
    if (!inst)
        return;
    free(inst->domain);
    free(inst->part);
    free(inst->size);
    free(inst);
}

// Parsing state: the instance so far, the current line, the items read.
typedef struct reader {
    nt_instance_t *in;
    int64_t line, items;
    int64_t nlines; // no line can describe more than one item: this bounds every allocation
    int header;
} reader;

// "P N": the sizes, and arrays for min(N, lines) items.
static nt_status header_line(reader *r, const int64_t *v, int n)
{
    nt_instance_t *in = r->in;
    if (n != 2)
        return nt_fail(NT_EINVAL, "line %lld: expected 'P N' (domains, items), found %d field%s",
                       (long long)r->line, n > MAXTOK ? MAXTOK + 1 : n, n == 1 ? "" : "s");
    if (v[0] < 1 || v[0] > INT_MAX)
        return nt_fail(NT_EINVAL, "line %lld: P = %lld domains, expected 1..%d",
                       (long long)r->line, (long long)v[0], INT_MAX);
    if (v[1] < 0)
        return nt_fail(NT_EINVAL, "line %lld: N = %lld items, expected >= 0",
                       (long long)r->line, (long long)v[1]);
    in->p = (int)v[0];
    in->n = v[1];
    r->header = 1;
    int64_t cap = in->n < r->nlines ? in->n : r->nlines;
    if (cap > 0) {
        in->domain = malloc((size_t)cap * sizeof *in->domain);
        in->part = malloc((size_t)cap * sizeof *in->part);
        in->size = malloc((size_t)cap * sizeof *in->size);
        if (!in->domain || !in->part || !in->size)
            return nt_fail(NT_ENOMEM, "cannot allocate %lld items", (long long)cap);
    }
    return NT_OK;
}

// "d p [w]": one item.
static nt_status item_line(reader *r, const int64_t *v, int n)
{
    nt_instance_t *in = r->in;
    long long line = (long long)r->line;
    if (r->items == in->n)
        return nt_fail(NT_EINVAL, "line %lld: extra line after the %lld items", line,
                       (long long)in->n);
    if (n < 2 || n > 3)
        return nt_fail(NT_EINVAL, "line %lld: expected 'd p [w]', found %d field%s", line,
                       n > MAXTOK ? MAXTOK + 1 : n, n == 1 ? "" : "s");
    if (v[0] < 0 || v[0] >= in->p)
        return nt_fail(NT_EINVAL, "line %lld: domain %lld out of range 0..%d", line,
                       (long long)v[0], in->p - 1);
    if (v[1] < 0 || v[1] >= in->p)
        return nt_fail(NT_EINVAL, "line %lld: component %lld out of range 0..%d", line,
                       (long long)v[1], in->p - 1);
    int64_t w = 1;
    if (n == 3) {
        if (v[2] < 1)
            return nt_fail(NT_EINVAL, "line %lld: size %lld must be a positive integer", line,
                           (long long)v[2]);
        w = v[2];
        in->weighted = 1;
    }
    if (__builtin_add_overflow(in->total, w, &in->total))
        return nt_fail(NT_ERANGE, "line %lld: the total size overflows int64", line);
    in->domain[r->items] = (int)v[0];
    in->part[r->items] = (int)v[1];
    in->size[r->items] = w;
    r->items++;
    return NT_OK;
}

static nt_status parse(const char *text, size_t len, nt_instance_t *in)
{
    const char *s = text, *end = text + len;
    reader r = {in, 0, 0, 1, 0};
    for (const char *c = text; c < end; c++)
        r.nlines += *c == '\n';
    while (s < end) {
        r.line++;
        const char *eol = nt_scan_eol(s, end);
        if (memchr(s, '\0', (size_t)(eol - s)))
            return nt_fail(NT_EINVAL, "line %lld: junk (a NUL byte)", (long long)r.line);
        int64_t v[MAXTOK];
        int n;
        nt_status st = read_fields(s, eol, r.line, v, &n);
        s = eol + 1;
        if (st == NT_OK && n > 0)
            st = r.header ? item_line(&r, v, n) : header_line(&r, v, n);
        if (st != NT_OK)
            return st;
    }
    if (!r.header)
        return nt_fail(NT_EINVAL, "missing the 'P N' line");
    if (r.items != in->n)
        return nt_fail(NT_EINVAL, "expected %lld item lines, found %lld", (long long)in->n,
                       (long long)r.items);
    return NT_OK;
}

nt_status nt_instance_parse(const char *text, size_t len, nt_instance_t **out)
{
    if ((!text && len > 0) || !out)
        return nt_fail(NT_EINVAL, "instance: text or out is NULL");
    nt_instance_t *in = calloc(1, sizeof *in);
    if (!in)
        return nt_fail(NT_ENOMEM, "instance: cannot allocate");
    nt_status st = parse(text ? text : "", len, in);
    if (st != NT_OK) {
        nt_instance_destroy(in);
        return st;
    }
    *out = in;
    return NT_OK;
}

nt_status nt_instance_read(const char *path, nt_instance_t **out)
{
    if (!path || !out)
        return nt_fail(NT_EINVAL, "instance: path or out is NULL");
    char *text;
    size_t len;
    nt_status st = nt_read_file(path, NT_INSTANCE_MAX_BYTES, "instance", &text, &len);
    if (st != NT_OK)
        return st;
    st = nt_instance_parse(text, len, out);
    free(text);
    if (st != NT_OK) {
        // Prefix the path; the parser's message is copied first since nt_fail overwrites it.
        char msg[400];
        snprintf(msg, sizeof msg, "%s", nt_last_error());
        return nt_fail(st, "%s: %s", path, msg);
    }
    return NT_OK;
}

nt_status nt_instance_counts(const nt_instance_t *inst, int64_t *items, int64_t *weight)
{
    if (!inst)
        return nt_fail(NT_EINVAL, "instance counts: inst is NULL");
    return nt_counts_compute(inst->n, inst->domain, inst->p, inst->part, inst->p, inst->size,
                             items, weight);
}
