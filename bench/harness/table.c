// Text tables of the harness (see harness.h): a scenario declares its columns once, as an array
// of bench_col, and the rows are JSON objects; this file turns both into aligned lines.
#include "harness.h"

#include <stdlib.h>
#include <string.h>

enum { LINE_BYTES = 8192, CONV_BYTES = 48 };

// A line under construction; text beyond the buffer is dropped, the string stays terminated.
typedef struct line {
    char *buf;
    size_t len, at;
} line;

static void put(line *l, const char *s, size_t n)
{
    for (size_t i = 0; i < n && l->at + 1 < l->len; i++)
        l->buf[l->at++] = s[i];
    if (l->len)
        l->buf[l->at] = 0;
}

static void put_str(line *l, const char *s)
{
    put(l, s, strlen(s));
}

// s (its first n bytes) padded with spaces to |width|: on the right if width < 0, else left.
static void put_padded(line *l, const char *s, size_t n, int width)
{
    size_t w = (size_t)abs(width), fill = n < w ? w - n : 0;
    for (size_t i = 0; width > 0 && i < fill; i++)
        put(l, " ", 1);
    put(l, s, n);
    for (size_t i = 0; width < 0 && i < fill; i++)
        put(l, " ", 1);
}

// The value at the first len bytes of key ("a.b": b inside the object at a, "a.2": element 2
// of the array at a); NULL if absent.
static json_t *lookup(const json_t *row, const char *key, size_t len)
{
    json_t *v = (json_t *)row;
    while (v && len) {
        const char *dot = memchr(key, '.', len);
        size_t part = dot ? (size_t)(dot - key) : len;
        if (json_is_array(v) && part && strspn(key, "0123456789") >= part)
            v = json_array_get(v, strtoul(key, NULL, 10));
        else
            v = json_is_object(v) ? json_object_getn(v, key, part) : NULL;
        key += part + (dot != NULL);
        len -= part + (dot != NULL);
    }
    return json_is_null(v) ? NULL : v;
}

json_t *bench_get(const json_t *row, const char *key)
{
    return key ? lookup(row, key, strlen(key)) : NULL;
}

// One printf conversion of a column's format: the text up to the conversion letter without
// any length modifier ("%-8.2"), the letter, and the width it asks for (< 0: left-aligned).
typedef struct conv {
    char head[CONV_BYTES];
    char letter;
    int width;
} conv;

// Parse the conversion at p (p[0] == '%', not "%%"); returns the text after it.
static const char *parse_conv(const char *p, conv *c)
{
    size_t n = 0;
    const char *s = p + 1;
    bool left = false;
    for (; *s && strchr("-+ #0", *s); s++)
        left |= *s == '-';
    c->width = atoi(s);
    if (left)
        c->width = -c->width;
    while (*s && strchr("0123456789.", *s))
        s++;
    n = (size_t)(s - p) < sizeof c->head - 1 ? (size_t)(s - p) : sizeof c->head - 1;
    memcpy(c->head, p, n);
    c->head[n] = 0;
    while (*s && strchr("hlLqjzt", *s))
        s++;
    c->letter = *s;
    return *s ? s + 1 : s;
}

// c->head without its precision (".2"): the flags and width alone, for an integer.
static void head_without_precision(const conv *c, char *out, size_t len)
{
    snprintf(out, len, "%s", c->head);
    char *dot = strchr(out, '.');
    if (dot)
        *dot = 0;
}

// Format v (scaled) under conversion c into out.
static void format_value(const conv *c, const json_t *v, double scale, char *out, size_t len)
{
    char spec[CONV_BYTES + 8];
    bool integer = json_is_integer(v) && scale == 1;
    double x = json_number_value(v) * scale;
    if (c->letter == 's') {
        const char *s = json_is_string(v) ? json_string_value(v) : json_is_true(v) ? "true"
                                                                                     : "false";
        char num[64];
        if (json_is_number(v)) {
            if (integer)
                snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
            else
                snprintf(num, sizeof num, "%g", x);
            s = num;
        }
        snprintf(spec, sizeof spec, "%ss", c->head);
        snprintf(out, len, spec, s);
    } else if (strchr("diuoxX", c->letter) || (integer && strchr("feEgG", c->letter))) {
        // An integer under a floating conversion keeps its flags and width, not the decimals.
        head_without_precision(c, spec, sizeof spec - 4);
        size_t n = strlen(spec);
        spec[n++] = 'l';
        spec[n++] = 'l';
        spec[n++] = strchr("feEgG", c->letter) ? 'd' : c->letter;
        spec[n] = 0;
        snprintf(out, len, spec, integer ? (long long)json_integer_value(v) : (long long)x);
    } else {
        snprintf(spec, sizeof spec, "%s%c", c->head, c->letter);
        snprintf(out, len, spec, x);
    }
}

// The text of a column's cell for row into out: "-" if a value is missing, a string value
// under a numeric conversion as it is, else the format with every conversion filled in.
static void cell_text(const bench_col *col, const json_t *row, char *out, size_t len)
{
    line l = {out, len, 0};
    const char *key = col->key, *f = col->fmt;
    double scale = col->scale != 0 ? col->scale : 1;
    out[0] = 0;
    while (*f) {
        if (f[0] != '%' || f[1] == '%') {
            put(&l, f, 1);
            f += f[0] == '%' ? 2 : 1;
            continue;
        }
        conv c;
        f = parse_conv(f, &c);
        size_t klen = strcspn(key, ",");
        const json_t *v = lookup(row, key, klen);
        key += klen + (key[klen] == ',');
        if (!v || (json_is_string(v) && c.letter != 's')) {
            snprintf(out, len, "%s", v ? json_string_value(v) : "-");
            return;
        }
        char piece[256];
        format_value(&c, v, scale, piece, sizeof piece);
        put_str(&l, piece);
    }
}

// A column's width: its own, else that of its format's only conversion (0 if several).
static int col_width(const bench_col *col)
{
    if (col->width)
        return col->width;
    int convs = 0, w = 0;
    for (const char *f = col->fmt; *f; f++) {
        if (f[0] == '%' && f[1] == '%') {
            f++;
        } else if (f[0] == '%') {
            conv c;
            f = parse_conv(f, &c) - 1;
            w = c.width;
            convs++;
        }
    }
    return convs == 1 ? w : 0;
}

static const char *col_sep(const bench_col *cols, int i)
{
    return cols[i].sep ? cols[i].sep : i ? " " : "";
}

// Line k of a header ("" past its last line): into *s, its length into *n.
static void head_line(const char *head, int k, const char **s, size_t *n)
{
    const char *p = head ? head : "";
    for (; k > 0 && strchr(p, '\n'); k--)
        p = strchr(p, '\n') + 1;
    if (k > 0)
        p = "";
    *s = p;
    *n = strcspn(p, "\n");
}

static int head_lines(const bench_col *cols, bool *groups)
{
    int most = 1;
    *groups = false;
    for (int i = 0; cols[i].key; i++) {
        int k = 1;
        for (const char *p = cols[i].head ? cols[i].head : ""; (p = strchr(p, '\n')); p++)
            k++;
        most = k > most ? k : most;
        *groups |= cols[i].group != NULL;
    }
    return most;
}

// The group line: each group's heading, left-aligned over its columns and their separators.
static void group_line(line *l, const bench_col *cols)
{
    for (int i = 0; cols[i].key;) {
        put_str(l, col_sep(cols, i));
        if (!cols[i].group) {
            put_padded(l, "", 0, col_width(&cols[i]));
            i++;
            continue;
        }
        int span = abs(col_width(&cols[i])), j = i + 1;
        for (; cols[j].key && !cols[j].group; j++)
            span += (int)strlen(col_sep(cols, j)) + abs(col_width(&cols[j]));
        put_padded(l, cols[i].group, strlen(cols[i].group), -span);
        i = j;
    }
}

int bench_table_line(char *buf, size_t len, const bench_col *cols, const json_t *row, int k)
{
    line l = {buf, len, 0};
    bool groups;
    int lines = head_lines(cols, &groups) + groups;
    if (len)
        buf[0] = 0;
    if (!row && groups && k == 0) {
        group_line(&l, cols);
    } else {
        for (int i = 0; cols[i].key; i++) {
            char cell[512];
            const char *s = cell;
            size_t n;
            put_str(&l, col_sep(cols, i));
            if (row) {
                cell_text(&cols[i], row, cell, sizeof cell);
                n = strlen(cell);
            } else {
                head_line(cols[i].head, k - groups, &s, &n);
            }
            put_padded(&l, s, n, col_width(&cols[i]));
        }
    }
    while (l.at > 0 && buf[l.at - 1] == ' ')
        buf[--l.at] = 0;
    return row ? 1 : lines;
}

void bench_table_head(bench_run *r, const bench_col *cols)
{
    char *buf = malloc(LINE_BYTES);
    if (!buf)
        return;
    int lines = bench_table_line(buf, LINE_BYTES, cols, NULL, 0);
    for (int k = 0; k < lines; k++) {
        bench_table_line(buf, LINE_BYTES, cols, NULL, k);
        bench_printf(r, "%s\n", buf);
    }
    free(buf);
}

void bench_table_row(bench_run *r, const bench_col *cols, const json_t *row)
{
    char *buf = malloc(LINE_BYTES);
    if (!buf)
        return;
    bench_table_line(buf, LINE_BYTES, cols, row, 0);
    bench_printf(r, "%s\n", buf);
    free(buf);
}

void bench_table(bench_run *r, const bench_col *cols, const json_t *rows)
{
    size_t i;
    json_t *row;
    bench_table_head(r, cols);
    json_array_foreach(rows, i, row)
        bench_table_row(r, cols, row);
}
