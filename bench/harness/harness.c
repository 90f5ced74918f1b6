// The benchmark harness (see harness.h): output directory, CSV/JSON, statistics,
// progress and plots. Uses only the public numatile API, jansson and hwloc's version call.
#include "harness.h"

#include <errno.h>
#include <hwloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "numatile.h"

// ---- run state --------------------------------------------------------------------------------

struct bench_state {
    json_t *params, *labels, *rows, *summary, *notices;
    FILE *txt;          // NAME.txt copy of the human output, or NULL
    double t0;          // start of the run
    double last_line;   // last plain progress line (non-terminal)
    int last_permille;  // last bar drawn (terminal)
    bool bar_open;      // a bar line is on the terminal without its newline
};

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

// A bar left open on the terminal must be closed before anything else is written there.
static void close_bar(bench_run *r)
{
    if (r->st->bar_open) {
        fputc('\n', stderr);
        r->st->bar_open = false;
    }
}

void bench_printf(bench_run *r, const char *fmt, ...)
{
    close_bar(r);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->json ? stderr : stdout, fmt, ap);
    va_end(ap);
    if (r->st->txt) {
        va_start(ap, fmt);
        vfprintf(r->st->txt, fmt, ap);
        va_end(ap);
    }
}

void bench_notice(bench_run *r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    close_bar(r);
    fflush(stdout); // keep the table and the notice in order on a shared terminal
    fprintf(stderr, "numatile bench %s: notice: %s\n", r->name, buf);
    json_array_append_new(r->st->notices, json_string(buf));
}

void bench_progress(bench_run *r, int64_t done, int64_t total, const char *what)
{
    bench_state *st = r->st;
    double now = bench_now();
    if (now - st->t0 < 2.0 || total <= 0)
        return;
    fflush(stdout);
    int permille = (int)(1000.0 * (double)done / (double)total);
    if (isatty(STDERR_FILENO)) {
        if (permille == st->last_permille && done < total)
            return;
        st->last_permille = permille;
        int width = 40, fill = permille * width / 1000;
        fprintf(stderr, "\r[%.*s%*s] %5.1f%% %s (%.0f s)", fill,
                "########################################", width - fill, "",
                permille / 10.0, what, now - st->t0);
        st->bar_open = true;
        if (done >= total)
            close_bar(r);
        fflush(stderr);
    } else if (now - st->last_line >= 5.0 || done >= total) {
        st->last_line = now;
        fprintf(stderr, "numatile bench %s: %lld/%lld %s (%.0f s)\n", r->name, (long long)done,
                (long long)total, what, now - st->t0);
    }
}

FILE *bench_fopen(bench_run *r, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, file);
    FILE *f = fopen(path, "w");
    if (!f) {
        close_bar(r);
        fprintf(stderr, "numatile bench %s: cannot write %s: %s\n", r->name, path,
                strerror(errno));
    }
    return f;
}

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
    close_bar(r);
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

// ---- statistics -------------------------------------------------------------------------------

// k-th smallest (0-based) of a[0..n-1], rearranging a so that a[0..k-1] <= a[k] <= a[k+1..]
// (Wirth's selection: Hoare partitions around the current a[k], narrowing to k's side).
static double select_kth(double *a, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        double pivot = a[kk];
        ptrdiff_t i = lo, j = hi;
        do {
            while (a[i] < pivot)
                i++;
            while (pivot < a[j])
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            lo = i;
        if (kk < i)
            hi = j;
    }
    return a[k];
}

double bench_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *a = malloc(n * sizeof *a);
    if (!a)
        return NAN;
    memcpy(a, x, n * sizeof *a);
    double m = select_kth(a, n, n / 2);
    if (n % 2 == 0) {
        // select_kth left every value below position n/2 in a[0..n/2-1]; take their largest.
        double below = a[0];
        for (size_t i = 1; i < n / 2; i++)
            if (a[i] > below)
                below = a[i];
        m = 0.5 * (below + m);
    }
    free(a);
    return m;
}

double bench_min(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double m = x[0];
    for (size_t i = 1; i < n; i++)
        if (x[i] < m)
            m = x[i];
    return m;
}

double bench_max(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double m = x[0];
    for (size_t i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    return m;
}

double bench_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

double bench_stddev(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    if (n == 1)
        return 0;
    double m = bench_mean(x, n), s = 0;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (double)(n - 1));
}

static bool is_label(json_t *labels, const char *key)
{
    size_t i;
    json_t *v;
    json_array_foreach(labels, i, v)
        if (!strcmp(json_string_value(v), key))
            return true;
    return false;
}

json_t *bench_stats(json_t *rows, json_t *labels)
{
    json_t *groups = json_array(), *index = json_object(); // dumped label tuple -> group index
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        json_t *lab = json_object();
        size_t k;
        json_t *name;
        json_array_foreach(labels, k, name) {
            json_t *v = json_object_get(row, json_string_value(name));
            json_object_set(lab, json_string_value(name), v ? v : json_null());
        }
        char *key = json_dumps(lab, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        json_t *g, *at = json_object_get(index, key);
        if (at) {
            g = json_array_get(groups, (size_t)json_integer_value(at));
            json_decref(lab);
        } else {
            json_object_set_new(index, key, json_integer((json_int_t)json_array_size(groups)));
            g = json_pack("{s:o, s:i, s:o}", "labels", lab, "n", 0, "values", json_object());
            json_array_append_new(groups, g);
        }
        free(key);
        json_object_set_new(g, "n", json_integer(json_integer_value(json_object_get(g, "n")) + 1));
        json_t *values = json_object_get(g, "values");
        const char *q;
        json_t *v;
        json_object_foreach(row, q, v) {
            if (!json_is_number(v) || !strcmp(q, "rep") || is_label(labels, q))
                continue;
            json_t *list = json_object_get(values, q);
            if (!list)
                json_object_set_new(values, q, list = json_array());
            json_array_append_new(list, json_real(json_number_value(v)));
        }
    }
    json_decref(index);
    json_t *g;
    json_array_foreach(groups, i, g) {
        json_t *quantities = json_object(), *list;
        const char *q;
        json_object_foreach(json_object_get(g, "values"), q, list) {
            size_t n = json_array_size(list);
            double *x = malloc((n ? n : 1) * sizeof *x);
            for (size_t k = 0; k < n; k++)
                x[k] = json_real_value(json_array_get(list, k));
            json_object_set_new(quantities, q,
                                json_pack("{s:f, s:f, s:f}", "median", bench_median(x, n), "min",
                                          bench_min(x, n), "max", bench_max(x, n)));
            free(x);
        }
        json_object_del(g, "values");
        json_object_set_new(g, "quantities", quantities);
    }
    return groups;
}

// ---- CSV --------------------------------------------------------------------------------------

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

// ---- machine ----------------------------------------------------------------------------------

static json_t *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    json_t *model = json_null();
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            char *s = strchr(line, ':') + 1;
            s += strspn(s, " \t");
            s[strcspn(s, "\n")] = 0;
            model = json_string(s);
            break;
        }
    }
    if (f)
        fclose(f);
    return model;
}

#if defined(__clang__)
#define COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER __VERSION__
#endif

json_t *bench_machine(void)
{
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    json_t *topo;
    nt_topo_t *t;
    nt_status st = nt_topo_load(NULL, &t);
    if (st == NT_OK) {
        topo = json_pack("{s:s, s:i, s:i, s:b}", "kind", nt_topo_kind_name(nt_topo_get_kind(t)),
                         "ndomains", nt_topo_ndomains(t), "physical_nodes", nt_topo_nphysical(t),
                         "oversubscribed", nt_topo_oversubscribed(t));
        nt_topo_destroy(t);
    } else {
        topo = json_pack("{s:s}", "error", nt_last_error());
    }
    unsigned hv = hwloc_get_api_version();
    char hwloc[32];
    snprintf(hwloc, sizeof hwloc, "%u.%u.%u", hv >> 16, (hv >> 8) & 0xff, hv & 0xff);
    return json_pack("{s:s, s:i, s:o, s:o, s:{s:s, s:s, s:s}, s:s}", "hostname", host, "cpus",
                     (int)sysconf(_SC_NPROCESSORS_ONLN), "cpu_model", cpu_model(), "topology",
                     topo, "versions", "numatile", nt_version(), "hwloc", hwloc, "jansson",
                     jansson_version_str(), "compiler", COMPILER);
}

// ---- output directory and execution -----------------------------------------------------------

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

static int write_json_file(const bench_run *r, json_t *doc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", r->dir, r->name);
    if (json_dump_file(doc, path, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
        fprintf(stderr, "numatile bench %s: cannot write %s\n", r->name, path);
        return -1;
    }
    return 0;
}

static int write_csv_file(const bench_run *r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.csv", r->dir, r->name);
    FILE *f = fopen(path, "w");
    int rc = f ? bench_write_csv(f, r->st->rows) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc)
        fprintf(stderr, "numatile bench %s: cannot write %s\n", r->name, path);
    return rc;
}

int bench_execute(const bench_scenario *s, const bench_opts *o, json_t **summary)
{
    char dir[4096];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    if (o->out)
        snprintf(dir, sizeof dir, "%s", o->out);
    else
        snprintf(dir, sizeof dir, "bench/results/%s-%s", s->name, stamp);
    if (bench_mkdirs(dir) != 0) {
        fprintf(stderr, "numatile bench %s: cannot create output directory %s: %s\n", s->name,
                dir, strerror(errno));
        return 3;
    }
    bench_state st = {.params = json_object(), .labels = json_array(), .rows = json_array(),
                      .summary = json_null(), .notices = json_array(), .last_permille = -1};
    bench_run r = {.name = s->name, .quick = o->quick, .full = o->full, .json = o->json,
                   .repeat = o->repeat, .seed = o->seed, .domains = o->domains,
                   .dir = dir, .st = &st};
    char txt[4200];
    snprintf(txt, sizeof txt, "%s/%s.txt", dir, s->name);
    st.txt = fopen(txt, "w");
    bench_param(&r, "quick", json_boolean(o->quick));
    bench_param(&r, "full", json_boolean(o->full));
    bench_param(&r, "repeat", json_integer(o->repeat));
    bench_param(&r, "seed", json_integer((json_int_t)o->seed));
    char started[64];
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%S%z", &tm);
    st.t0 = bench_now();
    int rc = s->run(&r);
    double wall = bench_now() - st.t0;
    close_bar(&r);
    if (st.txt && fclose(st.txt) != 0)
        rc = rc ? rc : 3;
    st.txt = NULL;
    if (rc == 0) {
        json_t *doc = json_pack(
            "{s:s, s:s?, s:s, s:f, s:o, s:O, s:O, s:O, s:o, s:O, s:O}", "scenario", s->name,
            "command", o->argv, "started", started, "seconds", wall, "machine", bench_machine(),
            "parameters", st.params, "labels", st.labels, "raw", st.rows, "stats",
            bench_stats(st.rows, st.labels), "summary", st.summary, "notices", st.notices);
        if (!doc || write_json_file(&r, doc) != 0 || write_csv_file(&r) != 0)
            rc = 3;
        json_decref(doc);
        fflush(stdout);
        if (rc == 0)
            fprintf(stderr, "numatile bench %s: results in %s (%.1f s)\n", s->name, dir, wall);
    }
    if (summary)
        *summary = json_incref(st.summary);
    json_decref(st.params);
    json_decref(st.labels);
    json_decref(st.rows);
    json_decref(st.summary);
    json_decref(st.notices);
    return rc;
}
