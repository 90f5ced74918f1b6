// Binding threads to domains, and a team of OpenMP threads bound to known domains.
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_numa.h"

// Everything after nt_topo_load is read through the public accessors, so this file does not
// depend on the topology's private layout.
static nt_status check_bindable(const nt_topo_t *t, int d, const char *fn)
{
    if (!t)
        return nt_fail(NT_EINVAL, "%s: topo is NULL", fn);
    if (nt_topo_get_kind(t) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "%s: a synthetic topology has no cpus to bind to", fn);
    if (d < 0 || d >= nt_topo_ndomains(t))
        return nt_fail(NT_EINVAL, "%s: domain %d out of range 0..%d", fn, d,
                       nt_topo_ndomains(t) - 1);
    return NT_OK;
}

nt_status nt_bind_domain(const nt_topo_t *t, int d)
{
    nt_status st = check_bindable(t, d, "nt_bind_domain");
    if (st)
        return st;
    nt_domain_info_t info;
    nt_topo_domain(t, d, &info);
    if (info.ncpus == 0)
        return nt_fail(NT_ENOTSUP, "nt_bind_domain: domain %d (node %d) has no cpus", d,
                       info.node);
    int maxcpu = info.cpus[info.ncpus - 1];
    cpu_set_t *set = CPU_ALLOC((size_t)maxcpu + 1);
    if (!set)
        return nt_fail(NT_ENOMEM, "nt_bind_domain: out of memory");
    size_t sz = CPU_ALLOC_SIZE((size_t)maxcpu + 1);
    CPU_ZERO_S(sz, set);
    for (int k = 0; k < info.ncpus; k++)
        CPU_SET_S((size_t)info.cpus[k], sz, set);
    int rc = sched_setaffinity(0, sz, set);
    int err = errno;
    CPU_FREE(set);
    if (rc != 0)
        return nt_fail(NT_ESYS, "nt_bind_domain: sched_setaffinity to domain %d: %s", d,
                       strerror(err));
    return NT_OK;
}

nt_status nt_team_run(const nt_topo_t *t, int tpd, nt_team_fn fn, void *arg)
{
    if (!t || !fn)
        return nt_fail(NT_EINVAL, "nt_team_run: %s is NULL", t ? "fn" : "topo");
    if (tpd < 1)
        return nt_fail(NT_EINVAL, "nt_team_run: threads_per_domain = %d must be >= 1", tpd);
    if (nt_topo_get_kind(t) == NT_TOPO_SYNTHETIC)
        return nt_fail(NT_ENOTSUP, "nt_team_run: a synthetic topology has no cpus");

    int D = nt_topo_ndomains(t);
    int *dom = malloc((size_t)D * sizeof *dom);
    if (!dom)
        return nt_fail(NT_ENOMEM, "nt_team_run: out of memory");
    int nd = 0;
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        if (info.ncpus > 0)
            dom[nd++] = d;
    }
    int nthreads = nd * tpd;
    nt_status first = NT_OK;
    char msg[512] = "";

#pragma omp parallel num_threads(nthreads)
    {
        nt_status st = NT_OK;
        int got = omp_get_num_threads();
        cpu_set_t saved;
        bool restore = false;
        if (got != nthreads) {
            st = nt_fail(NT_ESYS, "nt_team_run: OpenMP gave %d threads of the %d asked "
                         "(OMP_THREAD_LIMIT or nesting?)", got, nthreads);
        } else {
            int tid = omp_get_thread_num();
            restore = sched_getaffinity(0, sizeof saved, &saved) == 0;
            st = nt_bind_domain(t, dom[tid / tpd]);
            if (st == NT_OK)
                st = fn(dom[tid / tpd], tid % tpd, arg);
            if (restore)
                sched_setaffinity(0, sizeof saved, &saved);
        }
        if (st != NT_OK) {
#pragma omp critical(nt_team_error)
            if (first == NT_OK) {
                first = st;
                strncpy(msg, nt_last_error(), sizeof msg - 1);
            }
        }
    }
    free(dom);
    // The message was recorded on a worker thread; make it the caller's.
    if (first != NT_OK)
        return nt_fail(first, "%s", msg);
    return NT_OK;
}
