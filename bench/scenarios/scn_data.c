// Reading the papers' data files under bench/data (see scn_data.h).
#include "scn_data.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef NT_DATA_DIR
#define NT_DATA_DIR "bench/data"
#endif
#ifndef NT_DATA_INSTALL_DIR
#define NT_DATA_INSTALL_DIR "/usr/local/share/numatile/data"
#endif

enum { EXIT_RUNTIME = 3 };

const char *scn_data_dir(void)
{
    const char *env = getenv("NUMATILE_DATA");
    if (env && *env)
        return env;
    struct stat sb;
    // The source tree wins so that a built, uninstalled tool reads the files it was built with.
    if (stat(NT_DATA_DIR, &sb) == 0 && S_ISDIR(sb.st_mode))
        return NT_DATA_DIR;
    return NT_DATA_INSTALL_DIR;
}

// The whole file as a NUL-terminated string (NULL with errno set).
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
        errno = EIO;
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

// Cut one line (NUL-terminated, comment removed) into row; false if it has too many fields.
static bool split_line(char *s, scn_data_row *row)
{
    row->nf = 0;
    for (;;) {
        s += strspn(s, " \t\r\v\f");
        if (!*s)
            return true;
        if (row->nf == SCN_DATA_MAXF)
            return false;
        row->f[row->nf++] = s;
        s += strcspn(s, " \t\r\v\f");
        if (*s)
            *s++ = '\0';
    }
}

// The lines of d->text into d->rows; 0 or an exit code.
static int split_text(const bench_run *r, scn_data *d)
{
    int cap = 16;
    d->rows = malloc((size_t)cap * sizeof *d->rows);
    char *s = d->text;
    for (int line = 1; d->rows && *s; line++) {
        char *nl = strchr(s, '\n'), *next = nl ? nl + 1 : s + strlen(s);
        if (nl)
            *nl = '\0';
        char *hash = strchr(s, '#');
        if (hash)
            *hash = '\0';
        scn_data_row row = {.line = line};
        if (!split_line(s, &row))
            return scn_data_error(r, d, &row, "more than %d fields", SCN_DATA_MAXF);
        if (row.nf > 0) {
            if (d->nrows == cap) {
                scn_data_row *nr = realloc(d->rows, (size_t)(cap *= 2) * sizeof *nr);
                if (!nr)
                    break;
                d->rows = nr;
            }
            d->rows[d->nrows++] = row;
        }
        s = next;
    }
    if (!d->rows || *s) {
        fprintf(stderr, "numatile bench %s: %s: out of memory\n", r->name, d->path);
        return EXIT_RUNTIME;
    }
    return 0;
}

int scn_data_load(const bench_run *r, const char *name, scn_data *d)
{
    *d = (scn_data){0};
    const char *dir = scn_data_dir();
    size_t len = strlen(dir) + strlen(name) + 2;
    d->path = malloc(len);
    if (!d->path) {
        fprintf(stderr, "numatile bench %s: %s: out of memory\n", r->name, name);
        return EXIT_RUNTIME;
    }
    snprintf(d->path, len, "%s/%s", dir, name);
    d->text = slurp(d->path);
    if (!d->text) {
        fprintf(stderr, "numatile bench %s: %s: %s (the data directory is NUMATILE_DATA, else "
                "%s or %s)\n", r->name, d->path, strerror(errno), NT_DATA_DIR,
                NT_DATA_INSTALL_DIR);
        scn_data_free(d);
        return EXIT_RUNTIME;
    }
    int rc = split_text(r, d);
    if (rc)
        scn_data_free(d);
    return rc;
}

void scn_data_free(scn_data *d)
{
    free(d->path);
    free(d->text);
    free(d->rows);
    *d = (scn_data){0};
}

int scn_data_error(const bench_run *r, const scn_data *d, const scn_data_row *row,
                   const char *fmt, ...)
{
    fprintf(stderr, "numatile bench %s: %s:%d: ", r->name, d->path, row->line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_RUNTIME;
}

bool scn_data_num(const bench_run *r, const scn_data *d, const scn_data_row *row, int k,
                  double *v)
{
    if (k >= row->nf) {
        scn_data_error(r, d, row, "%d fields, expected at least %d", row->nf, k + 1);
        return false;
    }
    char *end;
    errno = 0;
    *v = strtod(row->f[k], &end);
    if (end == row->f[k] || *end || errno || !isfinite(*v)) {
        scn_data_error(r, d, row, "field %d '%s': expected a number", k + 1, row->f[k]);
        return false;
    }
    return true;
}
