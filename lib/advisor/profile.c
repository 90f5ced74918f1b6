// The machine profile: allocation, validation, the speeds it implies. Its JSON file format is in
// profile_json.c, so that programs which only calibrate and advise do not need jansson.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nt_core.h"
#include "nt_profile.h"

nt_status nt_profile_create(int ndomains, nt_profile_t **out)
{
    if (!out)
        return nt_fail(NT_EINVAL, "nt_profile_create: out is NULL");
    if (ndomains < 1 || ndomains > NT_TOPO_MAX_DOMAINS)
        return nt_fail(NT_EINVAL, "nt_profile_create: ndomains %d not in 1..%d", ndomains,
                       NT_TOPO_MAX_DOMAINS);
    size_t D = (size_t)ndomains;
    nt_profile_t *p = calloc(1, sizeof *p);
    if (!p)
        return nt_fail(NT_ENOMEM, "nt_profile_create: out of memory");
    p->ndomains = ndomains;
    p->threads_per_domain = 1;
    p->nb = 1;
    p->ib = 1;
    p->copy_gbs = calloc(D * D, sizeof(double));
    p->read_gbs = calloc(D * D, sizeof(double));
    p->fault_gbs = calloc(D, sizeof(double));
    bool ok = p->copy_gbs && p->read_gbs && p->fault_gbs;
    for (int k = 0; k < NT_TK_COUNT; k++)
        ok = (p->tile_seconds[k] = calloc(D, sizeof(double))) && ok;
    if (!ok) {
        nt_profile_destroy(p);
        return nt_fail(NT_ENOMEM, "nt_profile_create: out of memory");
    }
    *out = p;
    return NT_OK;
}

void nt_profile_destroy(nt_profile_t *prof)
{
    if (!prof)
        return;
    free(prof->copy_gbs);
    free(prof->read_gbs);
    free(prof->fault_gbs);
    for (int k = 0; k < NT_TK_COUNT; k++)
        free(prof->tile_seconds[k]);
    free(prof);
}

// ---- validation ---------------------------------------------------------------------------------

static nt_status bad_value(const char *field, double v, const char *want)
{
    return nt_fail(NT_EINVAL, "profile: %s = %g: must be %s", field, v, want);
}

static nt_status check_rate(const char *field, double v)
{
    return isfinite(v) && v > 0 ? NT_OK : bad_value(field, v, "> 0 and finite");
}

static nt_status check_time(const char *field, double v)
{
    return isfinite(v) && v >= 0 ? NT_OK : bad_value(field, v, ">= 0 and finite");
}

nt_status nt_profile_check(const nt_profile_t *p, const nt_topo_t *topo)
{
    if (!p)
        return nt_fail(NT_EINVAL, "nt_profile_check: profile is NULL");
    int D = p->ndomains;
    if (D < 1 || D > NT_TOPO_MAX_DOMAINS)
        return nt_fail(NT_EINVAL, "profile: ndomains = %d: must be in 1..%d", D,
                       NT_TOPO_MAX_DOMAINS);
    if (topo && nt_topo_ndomains(topo) != D)
        return nt_fail(NT_EINVAL, "profile: ndomains = %d but the topology has %d domains "
                                  "(calibrate with the same --domains)", D,
                       nt_topo_ndomains(topo));
    if (p->threads_per_domain < 1 || p->threads_per_domain > 1024)
        return nt_fail(NT_EINVAL, "profile: threads_per_domain = %d: must be in 1..1024",
                       p->threads_per_domain);
    if (p->nb < 1 || p->nb > INT32_MAX)
        return nt_fail(NT_EINVAL, "profile: nb = %lld: must be in 1..2^31-1", (long long)p->nb);
    if (p->ib < 1 || p->ib > p->nb)
        return nt_fail(NT_EINVAL, "profile: ib = %lld: must be in 1..nb (%lld)",
                       (long long)p->ib, (long long)p->nb);
    char f[64];
    nt_status st = NT_OK;
    for (int i = 0; i < D && !st; i++)
        for (int j = 0; j < D && !st; j++) {
            snprintf(f, sizeof f, "copy_gbs[%d][%d]", i, j);
            st = check_rate(f, p->copy_gbs[i * D + j]);
            snprintf(f, sizeof f, "read_gbs[%d][%d]", i, j);
            if (!st)
                st = check_rate(f, p->read_gbs[i * D + j]);
        }
    for (int d = 0; d < D && !st; d++) {
        snprintf(f, sizeof f, "fault_gbs[%d]", d);
        st = check_rate(f, p->fault_gbs[d]);
        for (int k = 0; k < NT_TK_COUNT && !st; k++) {
            snprintf(f, sizeof f, "tile_seconds.%s[%d]", nt_tk_name(k), d);
            st = check_rate(f, p->tile_seconds[k][d]);
        }
    }
    if (!st)
        st = check_rate("concurrent_gbs", p->concurrent_gbs);
    if (!st)
        st = check_rate("migrate_gbs", p->migrate_gbs);
    if (!st)
        st = check_time("task_seconds", p->task_seconds);
    if (!st)
        st = check_time("exec_seconds", p->exec_seconds);
    if (!st)
        st = check_time("kernel_run_seconds", p->kernel_run_seconds);
    if (!st)
        st = check_time("stencil_item_seconds", p->stencil_item_seconds);
    if (!st)
        st = check_time("stencil_round_seconds", p->stencil_round_seconds);
    return st;
}

nt_status nt_profile_speeds(const nt_profile_t *p, double *speeds)
{
    if (!p || !speeds)
        return nt_fail(NT_EINVAL, "nt_profile_speeds: NULL argument");
    double sum = 0;
    for (int d = 0; d < p->ndomains; d++) {
        double t = p->tile_seconds[NT_TK_GEMM][d];
        if (!(t > 0) || !isfinite(t))
            return bad_value("tile_seconds.gemm", t, "> 0 and finite");
        sum += p->threads_per_domain / t;
    }
    for (int d = 0; d < p->ndomains; d++)
        speeds[d] = p->threads_per_domain / p->tile_seconds[NT_TK_GEMM][d] / sum;
    return NT_OK;
}

const char *nt_profile_kernel_name(int kernel)
{
    return nt_tk_name(kernel);
}
