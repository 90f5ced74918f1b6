// Helpers shared by the kernel scenarios; see scn_util_b.h.
#include "scn_util_b.h"

#include <math.h>
#include <stdio.h>

// Above this 1-minute load average another job competes for the cores.
#define BUSY_LOAD 0.5

double scnb_loadavg(void)
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
    double l = scnb_loadavg();
    bench_param(r, key, json_real(l));
    if (l > BUSY_LOAD)
        bench_notice(r, "load average %.2f at the %s of the run: other jobs share the cores, "
                     "times are not from a quiet machine", l, when);
}

void scnb_note_load(bench_run *r)
{
    note(r, "loadavg_start", "start");
}

void scnb_note_load_end(bench_run *r)
{
    note(r, "loadavg_end", "end");
}

void scnb_grid(int d, int *p, int *q)
{
    int best = 1;
    for (int k = 1; (int64_t)k * k <= d; k++)
        if (d % k == 0)
            best = k;
    *p = best;
    *q = d / best;
}

double scnb_value(uint64_t seed, int64_t r, int64_t c)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)r * 0xbf58476d1ce4e5b9ULL +
                 (uint64_t)c * 0x94d049bb133111ebULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

void scnb_fill_fn(int64_t r, int64_t c, void *elem, size_t elem_size, void *arg)
{
    (void)elem_size;
    *(double *)elem = scnb_value(*(const uint64_t *)arg, r, c);
}

int scnb_kernel_threads(const nt_topo_t *topo, int *tpd)
{
    int d = nt_topo_ndomains(topo), with = 0, minc = 0;
    for (int k = 0; k < d; k++) {
        nt_domain_info_t info;
        if (nt_topo_domain(topo, k, &info) != NT_OK || info.ncpus <= 0)
            continue;
        with++;
        if (!minc || info.ncpus < minc)
            minc = info.ncpus;
    }
    if (tpd)
        *tpd = minc;
    return with * minc;
}

int scnb_fail(const bench_run *r, const char *what, nt_status st)
{
    fprintf(stderr, "numatile bench %s: %s: %s: %s\n", r->name, what, nt_strerror(st),
            nt_last_error());
    return 3;
}
