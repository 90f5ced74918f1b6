// Instance files for `numatile match` / `schedule` (DESIGN.md): "P N", then N lines "d p [w]".
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"
#include "numatile/instance.h"

#define MAXTOK 4

typedef struct token {
    const char *s;
    int len;
} token;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Split [s, eol) into at most MAXTOK tokens before any '#'; returns the count (MAXTOK + 1 if
// there are more).
static int split(const char *s, const char *eol, token *tok)
{
    int n = 0;
    while (s < eol) {
        while (s < eol && is_space(*s))
            s++;
        if (s == eol || *s == '#')
            break;
        const char *t = s;
        while (s < eol && !is_space(*s) && *s != '#')
            s++;
        if (n == MAXTOK)
            return MAXTOK + 1;
        tok[n].s = t;
        tok[n].len = (int)(s - t);
        n++;
    }
    return n;
}

// Optional '-' then digits, clamped at +-INT64_MAX; 0 = junk, 1 = ok, 2 = overflow.
static int number(const token *t, int64_t *v)
{
    int i = 0, neg = 0;
    if (t->len > 0 && t->s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == t->len)
        return 0;
    int64_t x = 0;
    int over = 0;
    for (; i < t->len; i++) {
        char c = t->s[i];
        if (c < '0' || c > '9')
            return 0;
        if (x > (INT64_MAX - (c - '0')) / 10)
            over = 1;
        else
            x = x * 10 + (c - '0');
    }
    *v = neg ? -x : x;
    return over ? 2 : 1;
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

static nt_status parse(const char *text, size_t len, nt_instance_t *in)
{
    const char *s = text, *end = text + len;
    int64_t line = 0, items = 0, cap = 0;
    int header = 0;
    // No line can describe more than one item: the line count bounds every allocation.
    int64_t nlines = 1;
    for (const char *c = text; c < end; c++)
        nlines += *c == '\n';
    while (s < end) {
        line++;
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        if (!eol)
            eol = end;
        if (memchr(s, '\0', (size_t)(eol - s)))
            return nt_fail(NT_EINVAL, "line %lld: junk (a NUL byte)", (long long)line);
        token t[MAXTOK];
        int n = split(s, eol, t);
        s = eol + 1;
        if (n == 0)
            continue;
        int64_t v[MAXTOK];
        for (int k = 0; k < n && k < MAXTOK; k++) {
            int r = number(&t[k], &v[k]);
            if (r == 0)
                return nt_fail(NT_EINVAL, "line %lld: junk '%.*s' (expected an integer)",
                               (long long)line, t[k].len, t[k].s);
            if (r == 2)
                return nt_fail(NT_ERANGE, "line %lld: number '%.*s' is too large",
                               (long long)line, t[k].len, t[k].s);
        }
        if (!header) {
            if (n != 2)
                return nt_fail(NT_EINVAL, "line %lld: expected 'P N' (domains, items), found %d "
                               "field%s", (long long)line, n > MAXTOK ? MAXTOK + 1 : n,
                               n == 1 ? "" : "s");
            if (v[0] < 1 || v[0] > INT_MAX)
                return nt_fail(NT_EINVAL, "line %lld: P = %lld domains, expected 1..%d",
                               (long long)line, (long long)v[0], INT_MAX);
            if (v[1] < 0)
                return nt_fail(NT_EINVAL, "line %lld: N = %lld items, expected >= 0",
                               (long long)line, (long long)v[1]);
            in->p = (int)v[0];
            in->n = v[1];
            header = 1;
            cap = in->n < nlines ? in->n : nlines;
            if (cap > 0) {
                in->domain = malloc((size_t)cap * sizeof *in->domain);
                in->part = malloc((size_t)cap * sizeof *in->part);
                in->size = malloc((size_t)cap * sizeof *in->size);
                if (!in->domain || !in->part || !in->size)
                    return nt_fail(NT_ENOMEM, "cannot allocate %lld items", (long long)cap);
            }
            continue;
        }
        if (items == in->n)
            return nt_fail(NT_EINVAL, "line %lld: extra line after the %lld items",
                           (long long)line, (long long)in->n);
        if (n < 2 || n > 3)
            return nt_fail(NT_EINVAL, "line %lld: expected 'd p [w]', found %d field%s",
                           (long long)line, n > MAXTOK ? MAXTOK + 1 : n, n == 1 ? "" : "s");
        if (v[0] < 0 || v[0] >= in->p)
            return nt_fail(NT_EINVAL, "line %lld: domain %lld out of range 0..%d",
                           (long long)line, (long long)v[0], in->p - 1);
        if (v[1] < 0 || v[1] >= in->p)
            return nt_fail(NT_EINVAL, "line %lld: component %lld out of range 0..%d",
                           (long long)line, (long long)v[1], in->p - 1);
        int64_t w = 1;
        if (n == 3) {
            if (v[2] < 1)
                return nt_fail(NT_EINVAL, "line %lld: size %lld must be a positive integer",
                               (long long)line, (long long)v[2]);
            w = v[2];
            in->weighted = 1;
        }
        if (__builtin_add_overflow(in->total, w, &in->total))
            return nt_fail(NT_ERANGE, "line %lld: the total size overflows int64",
                           (long long)line);
        in->domain[items] = (int)v[0];
        in->part[items] = (int)v[1];
        in->size[items] = w;
        items++;
    }
    if (!header)
        return nt_fail(NT_EINVAL, "missing the 'P N' line");
    if (items != in->n)
        return nt_fail(NT_EINVAL, "expected %lld item lines, found %lld", (long long)in->n,
                       (long long)items);
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
    nt_status st = nt_read_whole_file(path, &text, &len);
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
