// Running a scenario (see harness.h): its output directory, the run's record (parameters,
// labels, raw rows, summary), the front end's one timer, and the end of the run that writes
// the files.
#include "harness_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int bench_reps(const bench_run *r, int dflt, int quick_reps)
{
    if (r->repeat > 0)
        return r->repeat;
    if (r->quick)
        return quick_reps;
    return r->full ? 4 * dflt : dflt;
}

void bench_param(bench_run *r, const char *key, json_t *value)
{
    json_object_set_new(r->st->params, key, value);
}

void bench_labels(bench_run *r, ...)
{
    va_list ap;
    va_start(ap, r);
    json_array_clear(r->st->labels);
    for (const char *s; (s = va_arg(ap, const char *)) != NULL;)
        json_array_append_new(r->st->labels, json_string(s));
    va_end(ap);
}

void bench_row(bench_run *r, json_t *row)
{
    json_array_append_new(r->st->rows, row);
}

void bench_summary(bench_run *r, json_t *summary)
{
    json_decref(r->st->summary);
    r->st->summary = summary;
}


FILE *bench_fopen(bench_run *r, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, file);
    FILE *f = bench_fopen_atomic(path);
    if (!f) {
        bench_close_bar(r);
        bench_eprintf("numatile bench %s: cannot write %s: %s\n", r->name, path,
                      strerror(errno));
    }
    return f;
}

int bench_mkdirs(const char *path)
{
    size_t len = strlen(path);
    if (len == 0 || len >= 4096) {
        errno = len ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    char buf[4096];
    memcpy(buf, path, len + 1);
    // Create every prefix ending before a '/', then the whole path.
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != 0)
            continue;
        char c = buf[i];
        buf[i] = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        buf[i] = c;
    }
    struct stat sb;
    if (stat(path, &sb) != 0)
        return -1;
    if (!S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

// The output directory: --out, else bench/results/NAME-STAMP. 0, or 3 after a message.
static int make_dir(const bench_scenario *s, const bench_opts *o, const struct tm *tm,
                    char *dir, size_t len)
{
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", tm);
    if (o->out)
        snprintf(dir, len, "%s", o->out);
    else
        snprintf(dir, len, "bench/results/%s-%s", s->name, stamp);
    if (bench_mkdirs(dir) != 0) {
        bench_eprintf("numatile bench %s: cannot create output directory %s: %s\n", s->name,
                      dir, strerror(errno));
        return 3;
    }
    // Known before the run rather than after it: results could not be written there.
    if (access(dir, W_OK | X_OK) != 0) {
        bench_eprintf("numatile bench %s: --out: directory %s is not writable: %s\n", s->name,
                      dir, strerror(errno));
        return 2;
    }
    return 0;
}

// The options every run records as parameters, before the scenario's own.
static void record_options(bench_run *r, const bench_opts *o)
{
    bench_param(r, "quick", json_boolean(o->quick));
    bench_param(r, "full", json_boolean(o->full));
    bench_param(r, "repeat", json_integer(o->repeat));
    bench_param(r, "seed", json_integer((json_int_t)o->seed));
}

static void free_state(bench_state *st)
{
    json_decref(st->params);
    json_decref(st->labels);
    json_decref(st->rows);
    json_decref(st->summary);
    json_decref(st->notices);
}

int bench_execute(const bench_scenario *s, const bench_opts *o, json_t **summary)
{
    char dir[4096], txt[4200], started[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    int made = make_dir(s, o, &tm, dir, sizeof dir);
    if (made != 0)
        return made;
    bench_state st = {.params = json_object(), .labels = json_array(), .rows = json_array(),
                      .summary = json_null(), .notices = json_array(), .last_permille = -1};
    bench_run r = {.name = s->name, .quick = o->quick, .full = o->full, .json = o->json,
                   .repeat = o->repeat, .seed = o->seed, .domains = o->domains,
                   .dir = dir, .st = &st};
    snprintf(txt, sizeof txt, "%s/%s.txt", dir, s->name);
    st.txt = bench_fopen_atomic(txt);
    record_options(&r, o);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%S%z", &tm);
    st.t0 = bench_now();
    int rc = s->run(&r);
    double wall = bench_now() - st.t0;
    bench_close_bar(&r);
    if (st.txt && fclose(st.txt) != 0) {
        bench_eprintf("numatile bench %s: cannot write %s: %s\n", s->name, txt, strerror(errno));
        rc = rc ? rc : 3;
    }
    st.txt = NULL;
    bench_drop_display_keys(st.summary);
    if (rc == 0) {
        if (bench_write_results(&r, o->argv, started, wall) != 0)
            rc = 3;
        fflush(stdout);
        if (rc == 0)
            bench_eprintf("numatile bench %s: results in %s (%.1f s)\n", s->name, dir, wall);
    }
    if (summary)
        *summary = bench_summary_doc(&r);
    free_state(&st);
    return rc;
}
