// The files of a run's record (see harness.h): NAME.csv from the raw rows and NAME.json from
// everything, the --json document of a scenario, and the removal of display-only keys from the
// summary.
#include "harness_int.h"

#include <errno.h>
#include <string.h>

static int csv_field(FILE *f, json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER: return fprintf(f, "%lld", (long long)json_integer_value(v));
    case JSON_REAL: return fprintf(f, "%.10g", json_real_value(v));
    case JSON_TRUE: return fprintf(f, "true");
    case JSON_FALSE: return fprintf(f, "false");
    case JSON_STRING: {
        const char *s = json_string_value(v);
        if (!strpbrk(s, ",\"\n"))
            return fprintf(f, "%s", s);
        fputc('"', f);
        for (; *s; s++)
            if ((*s == '"' && fputc('"', f) == EOF) || fputc(*s, f) == EOF)
                return -1;
        return fputc('"', f) == EOF ? -1 : 0;
    }
    default: return 0; // null, arrays and objects leave the cell empty
    }
}

int bench_write_csv(FILE *f, json_t *rows)
{
    json_t *cols = json_array(), *seen = json_object();
    size_t i, k;
    json_t *row, *col;
    const char *key;
    json_t *v;
    json_array_foreach(rows, i, row) json_object_foreach(row, key, v) {
        if (!json_object_get(seen, key)) {
            json_object_set_new(seen, key, json_true());
            json_array_append_new(cols, json_string(key));
        }
    }
    int bad = 0;
    json_array_foreach(cols, k, col)
        bad |= fprintf(f, "%s%s", k ? "," : "", json_string_value(col)) < 0;
    bad |= fputc('\n', f) == EOF;
    json_array_foreach(rows, i, row) {
        json_array_foreach(cols, k, col) {
            if (k)
                bad |= fputc(',', f) == EOF;
            v = json_object_get(row, json_string_value(col));
            if (v)
                bad |= csv_field(f, v) < 0;
        }
        bad |= fputc('\n', f) == EOF;
    }
    json_decref(cols);
    json_decref(seen);
    return bad ? -1 : 0;
}

static int write_json_file(const bench_run *r, json_t *doc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", r->dir, r->name);
    FILE *f = bench_fopen_atomic(path);
    int rc = f ? json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc != 0) {
        bench_eprintf("numatile bench %s: cannot write %s: %s\n", r->name, path,
                      strerror(errno));
        return -1;
    }
    return 0;
}

static int write_csv_file(const bench_run *r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.csv", r->dir, r->name);
    FILE *f = bench_fopen_atomic(path);
    int rc = f ? bench_write_csv(f, r->st->rows) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc)
        bench_eprintf("numatile bench %s: cannot write %s: %s\n", r->name, path,
                      strerror(errno));
    return rc;
}

int bench_write_results(bench_run *r, const char *command, const char *started, double wall)
{
    bench_state *st = r->st;
    json_t *own = json_pack("{s:s, s:s?, s:s, s:f, s:O, s:O, s:o, s:O, s:O}", "scenario", r->name,
                            "command_line", command, "started", started, "seconds", wall,
                            "labels", st->labels, "raw", st->rows, "stats",
                            bench_stats(st->rows, st->labels), "summary", st->summary,
                            "notices", st->notices);
    json_t *doc = own ? bench_wrap("bench", NULL, json_deep_copy(st->params), own) : NULL;
    int rc = !doc || write_json_file(r, doc) != 0 || write_csv_file(r) != 0 ? -1 : 0;
    json_decref(doc);
    return rc;
}

json_t *bench_summary_doc(const bench_run *r)
{
    bench_state *st = r->st;
    json_t *own = json_pack("{s:s, s:O}", "scenario", r->name, "notices", st->notices);
    if (json_is_object(st->summary))
        json_object_update(own, st->summary);
    return bench_wrap("bench", NULL, json_deep_copy(st->params), own);
}

void bench_drop_display_keys(json_t *v)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
            bench_drop_display_keys(x);
    } else if (json_is_object(v)) {
        const char *key;
        json_t *x;
        void *tmp;
        json_object_foreach_safe(v, tmp, key, x) {
            if (key[0] == '_')
                json_object_del(v, key);
            else
                bench_drop_display_keys(x);
        }
    }
}
