// Helpers shared by the bench scenarios; see scn_util.h.
#include "scn_util.h"

#include "cli.h"

#include <math.h>
#include <stdio.h>

// Above this 1-minute load average another job competes for the cores.
#define BUSY_LOAD 0.5

double scn_loadavg(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l = -1.0;
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1.0;
        fclose(f);
    }
    return l;
}

static void note(bench_run *r, const char *key, const char *when)
{
    double l = scn_loadavg();
    bench_param(r, key, json_real(l));
    if (l > BUSY_LOAD)
        bench_notice(r, "load average %.2f at the %s of the run: other jobs share the cores, "
                     "times are not from a quiet machine", l, when);
}

void scn_note_load(bench_run *r)
{
    note(r, "loadavg_start", "start");
}

void scn_note_load_end(bench_run *r)
{
    note(r, "loadavg_end", "end");
}

void scn_grid(int d, int *p, int *q)
{
    int best = 1;
    for (int k = 1; (int64_t)k * k <= d; k++)
        if (d % k == 0)
            best = k;
    *p = best;
    *q = d / best;
}

void scn_bc2d_spec(char *out, size_t cap, int d)
{
    int p, q;
    scn_grid(d, &p, &q);
    snprintf(out, cap, "bc2d:%dx%d", p, q);
}

void scn_stat3(double out[3], const double *x, int n)
{
    out[0] = bench_median(x, (size_t)n);
    out[1] = bench_min(x, (size_t)n);
    out[2] = bench_max(x, (size_t)n);
}

double scn_value(uint64_t seed, int64_t r, int64_t c)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)r * 0xbf58476d1ce4e5b9ULL +
                 (uint64_t)c * 0x94d049bb133111ebULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

void scn_fill_fn(int64_t r, int64_t c, void *elem, size_t elem_size, void *arg)
{
    (void)elem_size;
    *(double *)elem = scn_value(*(const uint64_t *)arg, r, c);
}

int scn_fail(const bench_run *r, const char *what, nt_status st)
{
    if (what)
        fprintf(stderr, "numatile bench %s: %s: %s: %s\n", r->name, what, nt_strerror(st),
                nt_last_error());
    else
        fprintf(stderr, "numatile bench %s: %s: %s\n", r->name, nt_strerror(st), nt_last_error());
    return cli_status_exit(st);
}
