// Helpers shared by the bench scenarios; see scn_util.h.
#include "scn_util.h"

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

int scn_fail(const bench_run *r, const char *what, nt_status st)
{
    if (what)
        fprintf(stderr, "numatile bench %s: %s: %s: %s\n", r->name, what, nt_strerror(st),
                nt_last_error());
    else
        fprintf(stderr, "numatile bench %s: %s: %s\n", r->name, nt_strerror(st), nt_last_error());
    return bench_status_exit(st);
}
