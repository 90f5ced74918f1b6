// A good citizen on the user's machine: domains built from the cpus the process may use (taskset,
// OpenMP places), threads that stay on them, hwloc's environment (HWLOC_SYNTHETIC, HWLOC_XMLFILE)
// and a caller's own hwloc topology. Oracles: the affinity mask the test sets itself,
// sched_getcpu() samples of the threads, and the topology nt_topo_load() builds from the same
// description.
#include <criterion/criterion.h>
#include <hwloc.h>
#include <jansson.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numatile.h"
#include "tool_run.h"

// The names of `topo --json`'s kind, domain count and domain list, in one place.
#define F_KIND "topology"
#define F_NDOMAINS "domains"
#define F_DOMAIN_LIST "domain_list"

// The highest cpu this process may use (the restriction tests pin to it, so that the cpus left
// out are never empty on a machine of two cpus or more).
static int last_cpu(cpu_set_t *all)
{
    CPU_ZERO(all);
    cr_assert_eq(sched_getaffinity(0, sizeof *all, all), 0);
    int last = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, all))
            last = c;
    return last;
}

// Pin the test process (its children inherit it) to one cpu; skip on a one-cpu machine.
static int pin_to_last(cpu_set_t *saved)
{
    int cpu = last_cpu(saved);
    if (CPU_COUNT(saved) < 2)
        cr_skip("needs two cpus to leave one out");
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    return cpu;
}


static bool has_string(json_t *a, const char *s)
{
    for (size_t k = 0; k < json_array_size(a); k++)
        if (!strcmp(json_string_value(json_array_get(a, k)), s))
            return true;
    return false;
}

// Every domain of `topo --json` holds only `cpu`, and the others are listed as left out.
static void assert_only_cpu(json_t *j, int cpu, const cpu_set_t *all, const char *limit)
{
    json_t *doms = json_object_get(j, F_DOMAIN_LIST);
    int seen = 0;
    for (size_t d = 0; d < json_array_size(doms); d++) {
        json_t *cpus = json_object_get(json_array_get(doms, d), "cpus");
        for (size_t k = 0; k < json_array_size(cpus); k++) {
            cr_assert_eq(json_integer_value(json_array_get(cpus, k)), cpu, "domain %zu", d);
            seen++;
        }
    }
    cr_assert_geq(seen, 1, "no domain kept cpu %d", cpu);
    int left[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, all) && c != cpu)
            left[n++] = c;
    json_t *allowed = json_object_get(j, "allowed");
    // Cpus offline or outside the test's own mask may be left out too: ours must be listed.
    json_t *lo = json_object_get(allowed, "cpus_left_out");
    for (int k = 0; k < n; k++) {
        bool found = false;
        for (size_t i = 0; i < json_array_size(lo); i++)
            found |= json_integer_value(json_array_get(lo, i)) == left[k];
        cr_assert(found, "cpu %d not listed as left out", left[k]);
    }
    for (size_t i = 0; i < json_array_size(lo); i++)
        cr_assert_neq(json_integer_value(json_array_get(lo, i)), cpu, "cpu %d listed as left out",
                      cpu);
    cr_assert(has_string(json_object_get(allowed, "limited_by"), limit), "limited_by lacks %s",
              limit);
}

Test(cpuset, taskset_one_cpu_topo_lists_it_and_threads_stay_there)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    cpu_set_t all;
    int cpu = pin_to_last(&all);
    json_t *j = tool_json((const char *[]){"topo", "--probe", "1", "--json", NULL});
    assert_only_cpu(j, cpu, &all, "affinity");
    // The probe thread of every domain with cpus was seen on the one cpu only.
    json_t *probe = json_object_get(j, "probe");
    cr_assert_geq(json_array_size(probe), 1);
    for (size_t d = 0; d < json_array_size(probe); d++) {
        json_t *ran = json_object_get(json_array_get(probe, d), "cpus_ran");
        cr_assert_eq(json_array_size(ran), 3);
        for (size_t k = 0; k < 3; k++)
            cr_assert_eq(json_integer_value(json_array_get(ran, k)), cpu);
    }
    json_decref(j);
    tool_result r = tool_run((const char *[]){"topo", NULL});
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "cpus left out:"), "%s", r.out);
    cr_assert(strstr(r.out, "process's cpu binding"), "%s", r.out);
    tool_result_free(&r);
    sched_setaffinity(0, sizeof all, &all);
}

// A redistribution on two virtual domains under taskset: both domains get the one cpu, and every
// copy task runs on its domain's cpus (the executor samples sched_getcpu per task).
Test(cpuset, taskset_redist_tasks_run_on_the_allowed_cpu)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    cpu_set_t all;
    int cpu = pin_to_last(&all);
    json_t *t = tool_json((const char *[]){"topo", "--domains", "2", "--json", NULL});
    assert_only_cpu(t, cpu, &all, "affinity");
    json_decref(t);
    json_t *j = tool_json((const char *[]){"redist", "--m", "256", "--n", "256", "--from",
                                           "32x32@bc1d:2", "--to", "32x32@random:7", "--domains",
                                           "2", "--verify", "--json", NULL});
    cr_assert(json_is_true(json_object_get(j, "verify")));
    cr_assert_gt(json_integer_value(json_object_get(j, "tasks")), 0);
    cr_assert_float_eq(json_real_value(json_object_get(j, "on_domain_fraction")), 1.0, 1e-12);
    json_decref(j);
    sched_setaffinity(0, sizeof all, &all);
}

// The library alone: the process bound with hwloc's process binding (every thread), then the
// topology's domains and a team's threads.
static nt_status where(int domain, int rank, void *arg)
{
    (void)domain;
    (void)rank;
    int *ran = arg;
    ran[omp_get_thread_num()] = sched_getcpu();
    return NT_OK;
}

Test(cpuset, library_domains_and_team_follow_the_process_binding)
{
    cpu_set_t all;
    int cpu = last_cpu(&all);
    if (CPU_COUNT(&all) < 2)
        cr_skip("needs two cpus to leave one out");
    hwloc_topology_t h;
    cr_assert_eq(hwloc_topology_init(&h), 0);
    cr_assert_eq(hwloc_topology_load(h), 0);
    hwloc_bitmap_t one = hwloc_bitmap_alloc();
    hwloc_bitmap_only(one, (unsigned)cpu);
    cr_assert_eq(hwloc_set_cpubind(h, one, HWLOC_CPUBIND_PROCESS), 0);
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(NULL, &t), NT_OK, "%s", nt_last_error());
    cr_assert(nt_topo_limits(t) & NT_TOPO_LIMIT_AFFINITY);
    int total = 0;
    for (int d = 0; d < nt_topo_ndomains(t); d++) {
        nt_domain_info_t info;
        nt_topo_domain(t, d, &info);
        for (int k = 0; k < info.ncpus; k++)
            cr_assert_eq(info.cpus[k], cpu);
        total += info.ncpus;
    }
    cr_assert_eq(total, 1);
    int n;
    const int *left = nt_topo_cpus_left_out(t, &n);
    cr_assert_eq(n, CPU_COUNT(&all) - 1 + (int)(hwloc_bitmap_weight(
                        hwloc_topology_get_topology_cpuset(h)) - CPU_COUNT(&all)));
    for (int k = 0; k < n; k++)
        cr_assert_neq(left[k], cpu);
    int ran[64];
    memset(ran, -1, sizeof ran);
    cr_assert_eq(nt_team_run(t, 2, where, ran), NT_OK, "%s", nt_last_error());
    for (int k = 0; k < 2; k++)
        cr_assert_eq(ran[k], cpu, "team thread %d ran on cpu %d", k, ran[k]);
    nt_topo_destroy(t);
    hwloc_set_cpubind(h, hwloc_topology_get_topology_cpuset(h), HWLOC_CPUBIND_PROCESS);
    hwloc_bitmap_free(one);
    hwloc_topology_destroy(h);
}

// OMP_PLACES is followed: the domains keep the cpus of its places; OMP_PROC_BIND is not, and the
// tool says so once on stderr.
Test(cpuset, omp_places_followed_proc_bind_noted_once)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    cpu_set_t all;
    int cpu = last_cpu(&all);
    if (CPU_COUNT(&all) < 2)
        cr_skip("needs two cpus to leave one out");
    char places[32];
    snprintf(places, sizeof places, "{%d}", cpu);
    setenv("OMP_PLACES", places, 1);
    tool_result r = tool_run((const char *[]){"topo", "--json", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = json_loads(r.out, 0, NULL);
    cr_assert_not_null(j);
    assert_only_cpu(j, cpu, &all, "omp_places");
    cr_assert(json_is_null(json_object_get(json_object_get(j, "allowed"), "omp_note")));
    cr_assert_str_eq(r.err, "", "followed: nothing to say, got '%s'", r.err);
    json_decref(j);
    tool_result_free(&r);

    setenv("OMP_PROC_BIND", "close", 1);
    r = tool_run((const char *[]){"topo", NULL});
    cr_assert_eq(r.status, 0);
    const char *first = strstr(r.err, "OMP_PROC_BIND=close is not followed");
    cr_assert_not_null(first, "%s", r.err);
    cr_assert_null(strstr(first + 1, "OMP_PROC_BIND=close is not followed"), "said twice");
    tool_result_free(&r);
    unsetenv("OMP_PROC_BIND");

    // Places the OpenMP runtime cannot make: not followed, and said why.
    setenv("OMP_PLACES", "{4096}", 1);
    r = tool_run((const char *[]){"topo", "--json", NULL});
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.err, "OMP_PLACES=\"{4096}\" is not followed"), "%s", r.err);
    tool_result_free(&r);
    unsetenv("OMP_PLACES");
}

// An XML description written by hwloc itself, under a name of the given extension.
static void write_xml(const char *desc, char *path, const char *ext)
{
    hwloc_topology_t h;
    cr_assert_eq(hwloc_topology_init(&h), 0);
    cr_assert_eq(hwloc_topology_set_synthetic(h, desc), 0);
    cr_assert_eq(hwloc_topology_load(h), 0);
    snprintf(path, 64, "/tmp/nt_cpuset_XXXXXX%s", ext);
    int fd = mkstemps(path, (int)strlen(ext));
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(hwloc_topology_export_xml(h, path, 0), 0);
    hwloc_topology_destroy(h);
}

Test(cpuset, hwloc_synthetic_env_is_a_described_machine)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *desc = "pack:2 numa:2 core:1 pu:1";
    setenv("HWLOC_SYNTHETIC", desc, 1);
    json_t *j = tool_json((const char *[]){"topo", "--json", NULL});
    cr_assert_str_eq(json_string_value(json_object_get(j, F_KIND)), "synthetic");
    cr_assert_str_eq(json_string_value(json_object_get(j, "source")), "synthetic");
    cr_assert(strstr(json_string_value(json_object_get(j, "source_text")), "HWLOC_SYNTHETIC"));
    cr_assert_eq(json_integer_value(json_object_get(j, "physical_nodes")), 4);
    json_decref(j);
    // The library agrees, without the tool.
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(NULL, &t), NT_OK);
    cr_assert_eq(nt_topo_get_kind(t), NT_TOPO_SYNTHETIC);
    cr_assert_eq(nt_topo_get_source(t), NT_TOPO_FROM_SYNTHETIC);
    cr_assert_eq(nt_topo_ndomains(t), 4);
    void *p = NULL;
    cr_assert_eq(nt_mem_alloc(t, 1, 4096, 0, &p), NT_ENOTSUP);
    nt_topo_destroy(t);
    // Every command that places memory refuses at once, naming the cause.
    const char *cmds[][12] = {
        {"gemm", "--n", "64", "--nb", "16", "--dist", "bc2d:2x2", NULL},
        {"qr", "--m", "64", "--n", "64", "--nb", "16", "--dist", "bc2d:2x2", NULL},
        {"redist", "--m", "64", "--n", "64", "--from", "16x16@bc1d:4", "--to", "16x16@bc1d:2",
         NULL},
        {"stencil", "--items", "64", "--per-item", "8", "--iters", "2", NULL},
        {"bench", "migrate", "--quick", NULL},
        {"calibrate", "--quick", NULL},
    };
    for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++) {
        tool_result r = tool_run(cmds[k]);
        cr_assert_eq(r.status, 2, "%s: exit %d (%s)", cmds[k][0], r.status, r.err);
        cr_assert(strstr(r.err, "not this machine"), "%s: %s", cmds[k][0], r.err);
        cr_assert(strstr(r.err, "HWLOC_SYNTHETIC"), "%s: %s", cmds[k][0], r.err);
        cr_assert_str_eq(r.out, "");
        tool_result_free(&r);
    }
    // Help is help, whatever the environment.
    tool_result h = tool_run((const char *[]){"gemm", "--help", NULL});
    cr_assert_eq(h.status, 0, "%s", h.err);
    tool_result_free(&h);
    // plan does not touch memory: it plans for the described machine.
    tool_result r = tool_run((const char *[]){"plan", "--m", "64", "--n", "64", "--from",
                                              "16x16@bc1d:4", "--to", "16x16@bc1d:2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    tool_result_free(&r);
    // What hwloc cannot read is refused, not silently replaced by this machine.
    setenv("HWLOC_SYNTHETIC", "numa:two", 1);
    r = tool_run((const char *[]){"topo", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "HWLOC_SYNTHETIC=numa:two"), "%s", r.err);
    tool_result_free(&r);
    unsetenv("HWLOC_SYNTHETIC");
}

Test(cpuset, hwloc_xmlfile_env_is_a_described_machine_unless_thissystem)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char path[64];
    write_xml("pack:3 numa:1 core:2 pu:1", path, ".xml");
    setenv("HWLOC_XMLFILE", path, 1);
    json_t *j = tool_json((const char *[]){"topo", "--json", NULL});
    cr_assert_str_eq(json_string_value(json_object_get(j, F_KIND)), "synthetic");
    cr_assert_str_eq(json_string_value(json_object_get(j, "source")), "xml");
    cr_assert_eq(json_integer_value(json_object_get(j, F_NDOMAINS)), 3);
    json_decref(j);
    tool_result r = tool_run((const char *[]){"gemm", "--n", "64", "--nb", "16", "--dist",
                                              "bc1d:3", NULL});
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "HWLOC_XMLFILE"), "%s", r.err);
    tool_result_free(&r);
    unlink(path);

    // This machine's own XML with HWLOC_THISSYSTEM=1 is this machine, as hwloc documents it.
    hwloc_topology_t h;
    cr_assert_eq(hwloc_topology_init(&h), 0);
    cr_assert_eq(hwloc_topology_load(h), 0);
    snprintf(path, sizeof path, "/tmp/nt_cpuset_XXXXXX.xml");
    int fd = mkstemps(path, 4);
    close(fd);
    cr_assert_eq(hwloc_topology_export_xml(h, path, 0), 0);
    hwloc_topology_destroy(h);
    setenv("HWLOC_XMLFILE", path, 1);
    setenv("HWLOC_THISSYSTEM", "1", 1);
    j = tool_json((const char *[]){"topo", "--json", NULL});
    cr_assert_str_eq(json_string_value(json_object_get(j, F_KIND)), "physical");
    cr_assert_str_eq(json_string_value(json_object_get(j, "source")), "this-machine");
    json_decref(j);
    unsetenv("HWLOC_THISSYSTEM");
    unsetenv("HWLOC_XMLFILE");
    unlink(path);
}

// --synthetic FILE.XML: the extension in any case names an XML file.
Test(cpuset, uppercase_xml_extension_is_xml)
{
    char path[64];
    write_xml("pack:2 numa:2 core:1 pu:1", path, ".XML");
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.synthetic = path}, &t), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_topo_get_source(t), NT_TOPO_FROM_XML);
    cr_assert_eq(nt_topo_ndomains(t), 4);
    nt_topo_destroy(t);
    if (tool_path()) {
        json_t *j = tool_json((const char *[]){"topo", "--synthetic", path, "--json", NULL});
        cr_assert_str_eq(json_string_value(json_object_get(j, "source")), "xml");
        cr_assert_eq(json_integer_value(json_object_get(j, F_NDOMAINS)), 4);
        json_decref(j);
    }
    unlink(path);
}

static void assert_same_topology(const nt_topo_t *a, const nt_topo_t *b)
{
    int D = nt_topo_ndomains(a);
    cr_assert_eq(nt_topo_ndomains(b), D);
    cr_assert_eq(nt_topo_get_kind(a), nt_topo_get_kind(b));
    for (int d = 0; d < D; d++) {
        nt_domain_info_t x, y;
        nt_topo_domain(a, d, &x);
        nt_topo_domain(b, d, &y);
        cr_assert_eq(x.node, y.node);
        cr_assert_eq(x.memory_bytes, y.memory_bytes);
        cr_assert_eq(x.ncpus, y.ncpus);
        for (int k = 0; k < x.ncpus; k++)
            cr_assert_eq(x.cpus[k], y.cpus[k]);
    }
    for (int k = 0; k < D * D; k++)
        cr_assert_eq(nt_topo_distances(a)[k], nt_topo_distances(b)[k]);
}

// The caller's topology: the same domains as nt_topo_load() builds from the same description,
// and the caller's handle untouched and still the caller's to use and destroy.
Test(cpuset, from_hwloc_builds_the_same_domains_and_leaves_the_caller_topology)
{
    const char *desc = "pack:2 numa:2 core:2 pu:1";
    hwloc_topology_t h;
    cr_assert_eq(hwloc_topology_init(&h), 0);
    cr_assert_eq(hwloc_topology_set_synthetic(h, desc), 0);
    cr_assert_eq(hwloc_topology_load(h), 0);
    nt_topo_t *a, *b;
    cr_assert_eq(nt_topo_from_hwloc(h, &(nt_topo_opts_t){.domains = 8}, &a), NT_OK, "%s",
                 nt_last_error());
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = 8, .synthetic = desc}, &b), NT_OK);
    assert_same_topology(a, b);
    cr_assert_eq(nt_topo_get_source(a), NT_TOPO_FROM_SYNTHETIC);
    cr_assert(strstr(nt_topo_source_text(a), "caller"));
    nt_topo_destroy(a);
    nt_topo_destroy(b);
    cr_assert_eq(hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE), 4, "caller's topology changed");
    hwloc_topology_destroy(h);

    // This machine: as nt_topo_load(NULL).
    cr_assert_eq(hwloc_topology_init(&h), 0);
    cr_assert_eq(hwloc_topology_load(h), 0);
    cr_assert_eq(nt_topo_from_hwloc(h, NULL, &a), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_topo_load(NULL, &b), NT_OK);
    assert_same_topology(a, b);
    cr_assert_eq(nt_topo_get_kind(a), NT_TOPO_PHYSICAL);
    cr_assert_eq(nt_topo_get_source(a), NT_TOPO_FROM_THIS_MACHINE);
    nt_topo_destroy(a);
    nt_topo_destroy(b);

    // Errors name the argument and leave *out alone.
    nt_topo_t *keep = (nt_topo_t *)&keep;
    cr_assert_eq(nt_topo_from_hwloc(NULL, NULL, &keep), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "topology"));
    cr_assert_eq(nt_topo_from_hwloc(h, NULL, NULL), NT_EINVAL);
    cr_assert_eq(nt_topo_from_hwloc(h, &(nt_topo_opts_t){.synthetic = "numa:2"}, &keep),
                 NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "synthetic"));
    cr_assert_eq(nt_topo_from_hwloc(h, &(nt_topo_opts_t){.domains = -1}, &keep), NT_EINVAL);
    cr_assert_eq(keep, (nt_topo_t *)&keep);
    hwloc_topology_destroy(h);
}
