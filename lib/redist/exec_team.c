// Execution teams (see nt_exec.h): the machine as the executors see it, threads bound to a
// domain, per-thread accounting and the same-run copy bound.
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/matrix/nt_copy.h"
#include "nt_core.h"
#include "nt_exec.h"
#include "numatile/mem.h"

// Scratch buffers of the copy bound are at most this large (repeated to reach the byte count).
#define BOUND_CAP ((size_t)32 << 20)

int nt_team_default_threads(const nt_topo_t *topo, int d)
{
    nt_domain_info_t info;
    if (nt_topo_domain(topo, d, &info) != NT_OK || info.ncpus == 0)
        return 0;
    if (nt_topo_oversubscribed(topo))
        return 1;
    return info.ncpus < 4 ? info.ncpus : 4;
}

nt_status nt_team_init(nt_team_t *t, const nt_topo_t *topo, int D, const nt_exec_opts_t *o)
{
    *t = (nt_team_t){.topo = topo, .D = D, .maxcpu = 1, .tpd_max = 1};
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(topo, d, &info);
        for (int k = 0; k < info.ncpus; k++)
            if (info.cpus[k] + 1 > t->maxcpu)
                t->maxcpu = info.cpus[k] + 1;
    }
    t->cpu_ok = calloc((size_t)D * (size_t)t->maxcpu, 1);
    t->tpd = calloc((size_t)D, sizeof *t->tpd);
    t->node = calloc((size_t)D, sizeof *t->node);
    if (!t->cpu_ok || !t->tpd || !t->node)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    for (int d = 0; d < D; d++) {
        nt_domain_info_t info;
        nt_topo_domain(topo, d, &info);
        t->node[d] = info.node;
        for (int k = 0; k < info.ncpus; k++)
            t->cpu_ok[(size_t)d * (size_t)t->maxcpu + (size_t)info.cpus[k]] = 1;
        if (info.ncpus == 0)
            t->tpd[d] = 0;
        else
            t->tpd[d] = o->threads_per_domain > 0 ? o->threads_per_domain
                                                  : nt_team_default_threads(topo, d);
        if (t->tpd[d] > t->tpd_max)
            t->tpd_max = t->tpd[d];
    }
    // Virtual domains that share cpus would otherwise run more outer threads than cpus, and
    // threads waiting at a barrier spin on the cpus the working ones need.
    int ncpu = 0;
    for (int c = 0; c < t->maxcpu; c++)
        for (int d = 0; d < D; d++)
            if (t->cpu_ok[(size_t)d * (size_t)t->maxcpu + (size_t)c]) {
                ncpu++;
                break;
            }
    t->outer = D < ncpu ? D : ncpu > 0 ? ncpu : 1;
    t->thread_bytes = calloc((size_t)D * (size_t)t->tpd_max, sizeof *t->thread_bytes);
    if (!t->thread_bytes)
        return nt_fail(NT_ENOMEM, "nt_plan_execute: out of memory");
    return NT_OK;
}

void nt_team_free(nt_team_t *t)
{
    free(t->cpu_ok);
    free(t->tpd);
    free(t->node);
    free(t->thread_bytes);
    t->cpu_ok = NULL;
    t->tpd = t->node = NULL;
    t->thread_bytes = NULL;
}

static bool on_domain(const nt_team_t *t, int d)
{
    int cpu = sched_getcpu();
    return cpu >= 0 && cpu < t->maxcpu && t->cpu_ok[(size_t)d * (size_t)t->maxcpu + (size_t)cpu];
}

bool nt_team_bind(const nt_team_t *t, int d, cpu_set_t *saved)
{
    if (t->tpd[d] == 0 || sched_getaffinity(0, sizeof *saved, saved) != 0)
        return false;
    return nt_bind_domain(t->topo, d) == NT_OK;
}

void nt_team_unbind(bool bound, const cpu_set_t *saved)
{
    if (bound)
        sched_setaffinity(0, sizeof *saved, saved);
}

void nt_team_task_done(nt_team_t *t, int d, int64_t bytes)
{
    int tid = omp_get_thread_num();
    int64_t ok = on_domain(t, d);
    // Each thread of the team owns its slot: no atomic needed.
    t->thread_bytes[(size_t)d * (size_t)t->tpd_max + (size_t)(tid < t->tpd_max ? tid : 0)] +=
        bytes;
#pragma omp atomic
    t->tasks += 1;
#pragma omp atomic
    t->tasks_on_domain += ok;
}

void nt_team_begin(nt_team_t *t)
{
    t->saved_levels = omp_get_max_active_levels();
    if (t->saved_levels < 2)
        omp_set_max_active_levels(2);
}

void nt_team_end(nt_team_t *t)
{
    omp_set_max_active_levels(t->saved_levels);
}

// Fill a source buffer of the bound with data (nonzero bytes; one page written, then streamed
// on, so that at most that page and a partial last page stay in the caches). Fresh pages hold
// zeros, and this machine type writes zero lines far faster than others
// (bench/micro/zero_lines.c, streaming stores, 64 MiB per thread: 53-75 GB/s against 27 with
// 16-byte stores, 90 against 27 with 64-byte ones), so a copy of zeros ran 3-8% faster than
// one of any data (ones, 1.0, sequences, random bits alike): not the bound of executions that
// copy matrices' data.
static void fill_data(char *p, size_t n)
{
    const size_t pg = 4096;
    size_t head = n < pg ? n : pg, pages = (n - head) / pg, done = head + pages * pg;
    for (size_t k = 0; k < head; k++)
        p[k] = (char)(k % 251 + 1);
    nt_copy_2d_ex(p + head, (int64_t)pg, p, 0, (int64_t)pg, (int64_t)pages, 1, NT_COPY_STREAM,
                  NT_COPY_AUTO);
    memcpy(p + done, p, n - done);
}

// Allocate the bound's buffers of domain d's threads (at most BOUND_CAP each), sources filled.
static void bound_alloc(const nt_team_t *t, int d, char **bufs, size_t *len, _Atomic int *failed)
{
#pragma omp parallel num_threads(nt_team_threads(t, d))
    {
        size_t k = (size_t)d * (size_t)t->tpd_max + (size_t)omp_get_thread_num();
        if (omp_get_thread_num() < t->tpd_max && t->thread_bytes[k] > 0) {
            int64_t want = t->thread_bytes[k];
            len[k] = (size_t)want < BOUND_CAP ? (size_t)want : BOUND_CAP;
            // Huge pages as a matrix's memory has them: the bound copies memory of the same
            // kind as the executions do.
            if (nt_mem_alloc(t->topo, d, len[k], NT_MEM_HUGE_PAGES, (void **)&bufs[2 * k]) ||
                nt_mem_alloc(t->topo, d, len[k], NT_MEM_HUGE_PAGES, (void **)&bufs[2 * k + 1]))
                atomic_store(failed, 1);
            else
                fill_data(bufs[2 * k], len[k]);
        }
    }
}

// Domain d's threads copy their byte counts between their buffers, with the copy kernel's
// contiguous path and the flags the executions use for that volume (streaming stores above
// NT_COPY_STREAM_BYTES): the bound is the fastest copy of contiguous bytes the library has,
// so that streaming in the executions cannot make them look faster than the bound.
static void bound_copy(const nt_team_t *t, int d, char **bufs, const size_t *len,
                       unsigned flags)
{
#pragma omp parallel num_threads(nt_team_threads(t, d))
    {
        cpu_set_t s2;
        bool b2 = nt_team_bind(t, d, &s2);
        size_t k = (size_t)d * (size_t)t->tpd_max + (size_t)omp_get_thread_num();
        if (omp_get_thread_num() < t->tpd_max && bufs[2 * k] && bufs[2 * k + 1]) {
            size_t left = (size_t)t->thread_bytes[k];
            while (left > 0) {
                size_t n = left < len[k] ? left : len[k];
                nt_copy_2d_ex(bufs[2 * k + 1], (int64_t)n, bufs[2 * k], (int64_t)n, (int64_t)n, 1,
                              1, flags, NT_COPY_AUTO);
                left -= n;
            }
        }
        nt_team_unbind(b2, &s2);
    }
}

double nt_team_measure_bound(nt_team_t *t)
{
    size_t nbuf = (size_t)t->D * (size_t)t->tpd_max;
    char **bufs = calloc(2 * nbuf, sizeof *bufs);
    size_t *len = calloc(nbuf, sizeof *len);
    double t0 = 0, t1 = 0;
    _Atomic int failed = 0;
    int64_t total = 0;
    for (size_t k = 0; k < nbuf; k++)
        total += t->thread_bytes[k];
    unsigned flags = total >= nt_copy_stream_bytes() ? NT_COPY_STREAM : 0;
    if (!bufs || !len) {
        free(bufs);
        free(len);
        return 0;
    }
#pragma omp parallel num_threads(t->outer)
    {
        int tid = omp_get_thread_num(), nth = omp_get_num_threads();
        for (int d = tid; d < t->D; d += nth) {
            cpu_set_t saved;
            bool bound = nt_team_bind(t, d, &saved);
            bound_alloc(t, d, bufs, len, &failed);
            nt_team_unbind(bound, &saved);
        }
#pragma omp barrier
#pragma omp master
        t0 = nt_now();
#pragma omp barrier
        for (int d = tid; d < t->D; d += nth) {
            cpu_set_t saved;
            bool bound = nt_team_bind(t, d, &saved);
            bound_copy(t, d, bufs, len, flags);
            nt_team_unbind(bound, &saved);
        }
#pragma omp barrier
#pragma omp master
        t1 = nt_now();
    }
    for (size_t k = 0; k < nbuf; k++) {
        nt_mem_free(bufs[2 * k], len[k]);
        nt_mem_free(bufs[2 * k + 1], len[k]);
    }
    free(bufs);
    free(len);
    return atomic_load(&failed) ? 0 : t1 - t0;
}
