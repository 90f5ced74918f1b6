// Plots of the harness (see harness.h): the data file and gnuplot script of a declared plot,
// and running gnuplot on a script in the output directory.
#include "harness_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "numatile.h"

bool bench_have_program(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path || strchr(prog, '/'))
        return strchr(prog, '/') && access(prog, X_OK) == 0;
    for (const char *p = path; *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, len ? p : ".", prog);
        if (access(buf, X_OK) == 0)
            return true;
        p += len + (colon != NULL);
    }
    return false;
}

bool bench_plot(bench_run *r, const char *script)
{
    static bool told; // one notice per process is enough when gnuplot is missing
    if (!bench_have_program("gnuplot")) {
        if (!told)
            bench_notice(r, "gnuplot is not on PATH: no PNG made (scripts are in %s)", r->dir);
        told = true;
        return false;
    }
    bench_close_bar(r);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(r->dir) != 0)
            _exit(127);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int ws;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        bench_notice(r, "gnuplot %s failed in %s: no PNG", script, r->dir);
        return false;
    }
    return true;
}

// ---- declared plots -----------------------------------------------------------------------------

static bool is_constant(const char *y)
{
    return strchr("0123456789.-", y[0]) != NULL;
}

// The text of a value as a block name or a title: integers exact, reals %g, strings as they are.
static void value_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_number(v))
        snprintf(buf, len, "%g", json_number_value(v));
    else
        snprintf(buf, len, "%s", json_is_string(v) ? json_string_value(v) : "");
}

static bool any_row_has(const json_t *rows, const char *key)
{
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
        if (bench_get(row, key))
            return true;
    return false;
}

// The first column of a series' y list, into buf.
static const char *first_col(const char *y, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(y, ","), y);
    return buf;
}

// Whether a series is drawn from the data file (not a constant, and some row has its column).
static bool data_series(const bench_series *s, const json_t *rows)
{
    char c[128];
    return !is_constant(s->y) && any_row_has(rows, first_col(s->y, c, sizeof c));
}

static int npanels(const bench_plot_spec *p)
{
    return p->panel[1].series[0].y ? 2 : 1;
}

// The data columns after the first (x or label): every column of every drawn series, once.
static json_t *data_columns(const bench_plot_spec *p, const json_t *rows)
{
    json_t *cols = json_array();
    for (int k = 0; k < npanels(p); k++)
        for (int i = 0; i < BENCH_PLOT_SERIES && p->panel[k].series[i].y; i++) {
            const bench_series *s = &p->panel[k].series[i];
            if (!data_series(s, rows))
                continue;
            for (const char *y = s->y; *y;) {
                size_t n = strcspn(y, ",");
                json_t *name = json_stringn(y, n);
                size_t j;
                json_t *c;
                bool seen = false;
                json_array_foreach(cols, j, c)
                    seen |= json_equal(c, name);
                if (seen)
                    json_decref(name);
                else
                    json_array_append_new(cols, name);
                y += n + (y[n] == ',');
            }
        }
    return cols;
}

// The values of the block column in order of first appearance (one "" without blocks).
static json_t *block_values(const bench_plot_spec *p, const json_t *rows)
{
    json_t *blocks = json_array();
    size_t i;
    json_t *row;
    if (!p->block) {
        json_array_append_new(blocks, json_string(""));
        return blocks;
    }
    json_array_foreach(rows, i, row) {
        char text[128];
        value_text(bench_get(row, p->block), text, sizeof text);
        size_t j;
        json_t *b;
        bool seen = false;
        json_array_foreach(blocks, j, b)
            seen |= !strcmp(json_string_value(b), text);
        if (!seen)
            json_array_append_new(blocks, json_string(text));
    }
    return blocks;
}

static void write_value(FILE *f, const json_t *v, const char *num)
{
    if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
    else if (json_is_number(v))
        fprintf(f, num, json_number_value(v));
    else if (json_is_string(v))
        fprintf(f, "\"%s\"", json_string_value(v));
    else if (json_is_boolean(v))
        fprintf(f, "%d", json_is_true(v));
    else
        fprintf(f, "NaN");
}

static void write_dat(FILE *f, const bench_plot_spec *p, const json_t *rows, const json_t *cols,
                      const json_t *blocks)
{
    const char *first = p->x ? p->x : p->label, *num = p->num ? p->num : "%g";
    size_t i, k, b;
    json_t *row, *c, *bv;
    fprintf(f, "# %s", first);
    json_array_foreach(cols, k, c)
        fprintf(f, " %s", json_string_value(c));
    fprintf(f, p->block ? " (a block per %s)\n" : "\n", p->block);
    json_array_foreach(blocks, b, bv) {
        json_array_foreach(rows, i, row) {
            char text[128];
            value_text(bench_get(row, p->block), text, sizeof text);
            if (p->block && strcmp(text, json_string_value(bv)))
                continue;
            write_value(f, bench_get(row, first), num);
            json_array_foreach(cols, k, c) {
                fputc(' ', f);
                write_value(f, bench_get(row, json_string_value(c)), num);
            }
            fputc('\n', f);
        }
        if (p->block)
            fprintf(f, "\n\n");
    }
}

// Every "%s" of tmpl replaced by val.
// Text inside a gnuplot single-quoted string: a quote is written twice ("the paper's").
static void put_quoted(FILE *f, const char *text)
{
    for (const char *s = text; *s; s++)
        fputs(*s == '\'' ? "''" : (char[2]){*s, 0}, f);
}

static void put_subst(FILE *f, const char *tmpl, const char *val)
{
    for (const char *s = tmpl ? tmpl : ""; *s; s++) {
        if (s[0] == '%' && s[1] == 's') {
            put_quoted(f, val);
            s++;
        } else {
            put_quoted(f, (char[2]){*s, 0});
        }
    }
}

// 1-based data-file column of key.
static int column_of(const json_t *cols, const char *key, size_t len)
{
    size_t k;
    json_t *c;
    json_array_foreach(cols, k, c)
        if (strlen(json_string_value(c)) == len && !strncmp(json_string_value(c), key, len))
            return (int)k + 2;
    return 0;
}

// One data series of one block in a plot command.
static void write_series(FILE *f, const bench_plot_spec *p, const bench_series *s,
                         const json_t *cols, int block, const char *bval, bool *first)
{
    if (*first)
        fprintf(f, "'%s.dat'", p->name);
    else
        fprintf(f, ", ''");
    if (p->block)
        fprintf(f, " index %d", block);
    fprintf(f, " u ");
    if (p->x)
        fprintf(f, "1");
    for (const char *y = s->y; *y;) {
        size_t n = strcspn(y, ",");
        fprintf(f, "%s%d", p->x || y != s->y ? ":" : "", column_of(cols, y, n));
        y += n + (y[n] == ',');
        if (!p->x)
            break; // bars: one column each
    }
    if (!p->x && *first)
        fprintf(f, ":xtic(1)");
    if (s->with || p->x)
        fprintf(f, " w %s", s->with ? s->with : "lp");
    fprintf(f, " t '");
    put_subst(f, s->title, bval);
    fprintf(f, "'");
    *first = false;
}

// The plot command of one panel: its series for blocks b0..b1-1, then its reference lines.
static void write_plot(FILE *f, const bench_plot_spec *p, const bench_panel *pan,
                       const json_t *rows, const json_t *cols, const json_t *blocks, int b0,
                       int b1)
{
    bool first = true;
    fprintf(f, "plot ");
    for (int b = b0; b < b1; b++)
        for (int i = 0; i < BENCH_PLOT_SERIES && pan->series[i].y; i++)
            if (data_series(&pan->series[i], rows))
                write_series(f, p, &pan->series[i], cols, b,
                             json_string_value(json_array_get(blocks, (size_t)b)), &first);
    for (int i = 0; i < BENCH_PLOT_SERIES && pan->series[i].y; i++) {
        const bench_series *s = &pan->series[i];
        if (!is_constant(s->y))
            continue;
        fprintf(f, "%s%s w %s t '", first ? "" : ", ", s->y, s->with ? s->with : "l");
        put_subst(f, s->title, "");
        fprintf(f, "'");
        first = false;
    }
    fprintf(f, "\n");
}

static void put_settings(FILE *f, const char *set)
{
    if (set && *set)
        fprintf(f, "%s%s", set, set[strlen(set) - 1] == '\n' ? "" : "\n");
}

static void write_gp(FILE *f, const bench_plot_spec *p, const json_t *rows, const json_t *cols,
                     const json_t *blocks)
{
    int nb = (int)json_array_size(blocks);
    int panels = p->panel_per_block ? nb : npanels(p);
    fprintf(f, "set terminal pngcairo size %d,%d\nset output '%s.png'\n", p->width, p->height,
            p->name);
    if (panels > 1)
        fprintf(f, "set multiplot layout 1,%d title '", panels);
    else
        fprintf(f, "set title '");
    put_quoted(f, p->title ? p->title : "");
    fprintf(f, "'\n");
    if (p->xlabel) {
        fprintf(f, "set xlabel '");
        put_quoted(f, p->xlabel);
        fprintf(f, "'\n");
    }
    put_settings(f, p->set);
    for (int k = 0; k < panels; k++) {
        const bench_panel *pan = &p->panel[p->panel_per_block ? 0 : k];
        const char *bval = json_string_value(json_array_get(blocks, (size_t)k));
        if (panels > 1 && pan->title) {
            fprintf(f, "set title '");
            put_subst(f, pan->title, p->panel_per_block ? bval : "");
            fprintf(f, "'\n");
        }
        if (pan->ylabel) {
            fprintf(f, "set ylabel '");
            put_quoted(f, pan->ylabel);
            fprintf(f, "'\n");
        }
        put_settings(f, pan->set);
        write_plot(f, p, pan, rows, cols, blocks, p->panel_per_block ? k : 0,
                   p->panel_per_block ? k + 1 : nb);
    }
    if (panels > 1)
        fprintf(f, "unset multiplot\n");
}

void bench_plot_write(FILE *f_dat, FILE *f_gp, const bench_plot_spec *p, const json_t *rows)
{
    json_t *cols = data_columns(p, rows), *blocks = block_values(p, rows);
    write_dat(f_dat, p, rows, cols, blocks);
    write_gp(f_gp, p, rows, cols, blocks);
    json_decref(cols);
    json_decref(blocks);
}

// A small mark in the picture's corner saying where and how the figure was measured, so that
// a PNG read on its own (a lab report, a review) says its machine and whether it was --quick.
static void write_mark(FILE *f, const bench_run *r)
{
    char host[64] = "?";
    gethostname(host, sizeof host - 1);
    for (char *c = host; *c; c++)
        if (*c == '\'' || *c == '\\')
            *c = '_';
    fprintf(f, "set label 99 '%s, %ld cpus, numatile %s, %s%s' at screen 0.005,0.975 "
            "font ',7' front\n", host, sysconf(_SC_NPROCESSORS_ONLN), nt_version(),
            nt_blas_name(), r->quick ? ", --quick" : "");
}

void bench_plot_rows(bench_run *r, const bench_plot_spec *p, const json_t *rows)
{
    char dat[256], gp[256];
    snprintf(dat, sizeof dat, "%s.dat", p->name);
    snprintf(gp, sizeof gp, "%s.gp", p->name);
    FILE *fd = bench_fopen(r, dat), *fg = fd ? bench_fopen(r, gp) : NULL;
    if (fd && fg) {
        write_mark(fg, r);
        bench_plot_write(fd, fg, p, rows);
    }
    // Each file is renamed into place by its fclose only when complete (bench_fopen_atomic).
    bool ok = fd && fg;
    if (fd && fclose(fd) != 0)
        ok = false;
    if (fg && fclose(fg) != 0)
        ok = false;
    if (!ok) {
        if (fd && fg)
            bench_eprintf("numatile bench %s: cannot write %s/%s: %s\n", r->name, r->dir, dat,
                          strerror(errno));
        return;
    }
    bench_plot(r, gp);
}
