// The one scanner of this module's text formats and grammars (instance files, tile-map files,
// DIST and DIST1D specs; core/file.c's nt_read_file() reads the files): lines, '#' comments,
// blank-separated tokens, digits; and the lists of their grammar tables in messages.
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_partition.h"

bool nt_scan_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

const char *nt_scan_eol(const char *s, const char *end)
{
    const char *eol = memchr(s, '\n', (size_t)(end - s));
    return eol ? eol : end;
}

bool nt_scan_token(const char **s, const char *eol, const char **tok, size_t *len)
{
    const char *c = *s;
    while (c < eol && nt_scan_is_blank(*c))
        c++;
    if (c == eol || *c == '#') {
        *s = c;
        return false;
    }
    const char *t = c;
    while (c < eol && !nt_scan_is_blank(*c) && *c != '#')
        c++;
    *tok = t;
    *len = (size_t)(c - t);
    *s = c;
    return true;
}

size_t nt_scan_digits(const char *s, const char *end, uint64_t max, uint64_t *v, bool *over)
{
    uint64_t x = 0;
    bool big = false;
    const char *c = s;
    for (; c < end && *c >= '0' && *c <= '9'; c++) {
        unsigned dgt = (unsigned)(*c - '0');
        if (big || x > (max - dgt) / 10)
            big = true; // keep counting the digits, stop growing the value
        else
            x = x * 10 + dgt;
    }
    *v = big ? max : x;
    *over = big;
    return (size_t)(c - s);
}

size_t nt_text_join(char *buf, size_t cap, const char *const *items, int n, const char *sep,
                    const char *last)
{
    size_t len = 0;
    if (cap > 0)
        buf[0] = '\0';
    for (int k = 0; k < n; k++) {
        const char *before = k == 0 ? "" : k == n - 1 ? last : sep;
        int w = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "%s%s", before,
                         items[k]);
        len += w > 0 ? (size_t)w : 0;
    }
    return len;
}
