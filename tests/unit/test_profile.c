// Machine profiles: JSON round trip (text and file; the same predictions after reading back),
// bad profiles refused with a message naming the field, and a quick calibration of two virtual
// domains whose numbers are all usable.
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nt_core.h"
#include "numatile/advise.h"
#include "numatile/profile.h"
#include "numatile/topo.h"
#include "tool_run.h"

// A 2-domain profile of round numbers.
static nt_profile_t *round_profile(void)
{
    nt_profile_t *p;
    cr_assert_eq(nt_profile_create(2, &p), NT_OK);
    double copy[4] = {1, 2, 4, 8}, rd[4] = {1, 0.5, 0.5, 1};
    memcpy(p->copy_gbs, copy, sizeof copy);
    memcpy(p->read_gbs, rd, sizeof rd);
    p->concurrent_gbs = 100;
    p->migrate_gbs = 3;
    p->fault_gbs[0] = 1;
    p->fault_gbs[1] = 2;
    for (int k = 0; k < NT_TK_COUNT; k++)
        for (int d = 0; d < 2; d++)
            p->tile_seconds[k][d] = (k + 1) * (d + 1) * 1e-3;
    p->task_seconds = 1e-6;
    p->exec_seconds = 2e-3;
    p->kernel_run_seconds = 3e-3;
    p->stencil_item_seconds = 4e-9;
    p->stencil_round_seconds = 1e-9;
    p->nb = 10;
    p->ib = 5;
    p->nodes = 1;
    strcpy(p->kind, "virtual");
    strcpy(p->host, "test");
    strcpy(p->version, "0");
    strcpy(p->blas, "none");
    strcpy(p->date, "2026-01-01T00:00:00Z");
    return p;
}

static nt_matrix_t *descriptor(int64_t n, int64_t nb, const int *owner)
{
    nt_tilemap_t *map;
    int64_t nt = (n + nb - 1) / nb;
    cr_assert_eq(nt_tilemap_create(nt, nt, 2, &map), NT_OK);
    memcpy(map->owner, owner, (size_t)(nt * nt) * sizeof *owner);
    nt_matrix_shape_t sh = {n, n, nb, nb, 8};
    nt_matrix_t *A;
    cr_assert_eq(nt_matrix_create(NULL, &sh, map, NT_LAYOUT_TILE, NT_MATRIX_NOALLOC, &A), NT_OK);
    nt_tilemap_destroy(map);
    return A;
}

// The predictions a profile gives on a fixed small case.
static void predictions(const nt_profile_t *p, double out[4])
{
    int owner[9] = {0, 1, 0, 1, 1, 0, 0, 0, 1};
    nt_matrix_t *A = descriptor(25, 10, owner);
    nt_kernel_pred_t g, q;
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_GEMM, A, &g), NT_OK);
    cr_assert_eq(nt_model_kernel(p, NT_ADVISE_QR, A, &q), NT_OK);
    int64_t copy[4] = {100, 2000, 3000, 400}, fresh[2] = {5000, 600};
    nt_redist_pred_t r;
    cr_assert_eq(nt_model_redist_bytes(p, copy, fresh, &r), NT_OK);
    out[0] = g.seconds;
    out[1] = q.seconds;
    out[2] = r.free_seconds + r.alloc_seconds;
    out[3] = r.steps_seconds;
    nt_matrix_destroy(A);
}

Test(profile, round_trip_text)
{
    nt_profile_t *p = round_profile(), *back;
    char *a, *b;
    cr_assert_eq(nt_profile_dump(p, &a), NT_OK);
    cr_assert_eq(nt_profile_parse(a, NULL, &back), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_profile_dump(back, &b), NT_OK);
    cr_assert_str_eq(a, b);
    double x[4], y[4];
    predictions(p, x);
    predictions(back, y);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(x[k], y[k], "prediction %d: %.17g vs %.17g", k, x[k], y[k]);
    cr_assert_str_eq(back->host, "test");
    cr_assert_str_eq(back->date, "2026-01-01T00:00:00Z");
    cr_assert_eq(back->nb, 10);
    free(a);
    free(b);
    nt_profile_destroy(back);
    nt_profile_destroy(p);
}

Test(profile, round_trip_file)
{
    nt_profile_t *p = round_profile(), *back;
    char path[] = "/tmp/nt-profile-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(nt_profile_save(p, path), NT_OK);
    cr_assert_eq(nt_profile_read(path, NULL, &back), NT_OK, "%s", nt_last_error());
    double x[4], y[4];
    predictions(p, x);
    predictions(back, y);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(x[k], y[k]);
    unlink(path);
    nt_profile_t *none = NULL;
    cr_assert_eq(nt_profile_read(path, NULL, &none), NT_EIO);
    cr_assert(strstr(nt_last_error(), path));
    cr_assert_null(none);
    nt_profile_destroy(back);
    nt_profile_destroy(p);
}

// Parse text edited by fn; expect NT_EINVAL with `field` in the message, out untouched.
static void expect_bad(void (*fn)(json_t *), const char *field)
{
    nt_profile_t *p = round_profile();
    char *text;
    cr_assert_eq(nt_profile_dump(p, &text), NT_OK);
    json_t *o = json_loads(text, 0, NULL);
    fn(o);
    char *bad = json_dumps(o, 0);
    nt_profile_t *out = (nt_profile_t *)0x1;
    cr_assert_eq(nt_profile_parse(bad, NULL, &out), NT_EINVAL, "accepted a bad %s", field);
    cr_assert_eq(out, (nt_profile_t *)0x1, "out touched");
    cr_assert(strstr(nt_last_error(), field), "message '%s' does not name %s", nt_last_error(),
              field);
    free(bad);
    free(text);
    json_decref(o);
    nt_profile_destroy(p);
}

static void drop_copy(json_t *o) { json_object_del(o, "copy_gbs"); }
static void string_migrate(json_t *o) { json_object_set_new(o, "migrate_gbs", json_string("x")); }
static void negative_copy(json_t *o)
{
    json_array_set_new(json_array_get(json_object_get(o, "copy_gbs"), 1), 0, json_real(-2));
}
static void short_fault(json_t *o) { json_array_remove(json_object_get(o, "fault_gbs"), 1); }
static void nan_like_tile(json_t *o)
{
    json_array_set_new(json_object_get(json_object_get(o, "tile_seconds"), "tsmqr"), 1,
                       json_real(0));
}
static void drop_gemm(json_t *o) { json_object_del(json_object_get(o, "tile_seconds"), "gemm"); }
static void bad_format(json_t *o) { json_object_set_new(o, "format", json_integer(99)); }
static void bad_ib(json_t *o) { json_object_set_new(o, "ib", json_integer(11)); }
static void no_host(json_t *o) { json_object_del(json_object_get(o, "machine"), "host"); }
static void neg_task(json_t *o) { json_object_set_new(o, "task_seconds", json_real(-1)); }
static void drop_exec(json_t *o) { json_object_del(o, "exec_seconds"); }
static void neg_stencil(json_t *o)
{
    json_object_set_new(o, "stencil_round_seconds", json_real(-1e-9));
}
static void zero_domains(json_t *o) { json_object_set_new(o, "domains", json_integer(0)); }

Test(profile, bad_fields_named)
{
    expect_bad(drop_copy, "copy_gbs");
    expect_bad(string_migrate, "migrate_gbs");
    expect_bad(negative_copy, "copy_gbs[1][0]");
    expect_bad(short_fault, "fault_gbs");
    expect_bad(nan_like_tile, "tile_seconds.tsmqr[1]");
    expect_bad(drop_gemm, "tile_seconds.gemm");
    expect_bad(bad_format, "format");
    expect_bad(bad_ib, "ib");
    expect_bad(no_host, "machine.host");
    expect_bad(neg_task, "task_seconds");
    expect_bad(zero_domains, "domains");
    expect_bad(drop_exec, "exec_seconds");
    expect_bad(neg_stencil, "stencil_round_seconds");
}

Test(profile, not_json_and_wrong_topology)
{
    nt_profile_t *out = NULL;
    cr_assert_eq(nt_profile_parse("{\"format\": 1,", NULL, &out), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "not JSON"));
    cr_assert_eq(nt_profile_parse("[1, 2]", NULL, &out), NT_EINVAL);
    cr_assert_null(out);
    nt_topo_t *t;
    nt_topo_opts_t to = {.domains = 3};
    cr_assert_eq(nt_topo_load(&to, &t), NT_OK);
    nt_profile_t *p = round_profile();
    char *text;
    cr_assert_eq(nt_profile_dump(p, &text), NT_OK);
    cr_assert_eq(nt_profile_parse(text, t, &out), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "ndomains = 2") && strstr(nt_last_error(), "3 domains"),
              "%s", nt_last_error());
    cr_assert_eq(nt_profile_check(p, t), NT_EINVAL);
    free(text);
    nt_profile_destroy(p);
    nt_topo_destroy(t);
}

Test(profile, fresh_profile_refused_until_filled)
{
    nt_profile_t *p;
    cr_assert_eq(nt_profile_create(2, &p), NT_OK);
    cr_assert_eq(nt_profile_check(p, NULL), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "copy_gbs[0][0]"), "%s", nt_last_error());
    char *text = NULL;
    cr_assert_eq(nt_profile_dump(p, &text), NT_EINVAL);
    cr_assert_null(text);
    nt_profile_destroy(p);
    nt_profile_destroy(NULL);
    cr_assert_eq(nt_profile_create(0, &p), NT_EINVAL);
    cr_assert_eq(nt_profile_create(2, NULL), NT_EINVAL);
}

Test(profile, speeds_from_gemm_times)
{
    nt_profile_t *p = round_profile(); // gemm: 1 ms on domain 0, 2 ms on domain 1
    double s[2];
    cr_assert_eq(nt_profile_speeds(p, s), NT_OK);
    cr_assert_float_eq(s[0], 2.0 / 3.0, 1e-15);
    cr_assert_float_eq(s[1], 1.0 / 3.0, 1e-15);
    p->tile_seconds[NT_TK_GEMM][1] = 0;
    cr_assert_eq(nt_profile_speeds(p, s), NT_EINVAL);
    nt_profile_destroy(p);
}

Test(profile, calibrate_two_virtual_domains)
{
    nt_topo_t *t;
    nt_topo_opts_t to = {.domains = 2};
    cr_assert_eq(nt_topo_load(&to, &t), NT_OK);
    nt_calibrate_opts_t o = {.nb = 64, .quick = true};
    nt_profile_t *p;
    cr_assert_eq(nt_calibrate(t, &o, &p), NT_OK, "%s", nt_last_error());
    cr_assert_eq(p->ndomains, 2);
    cr_assert_eq(p->nb, 64);
    cr_assert_eq(p->ib, 32);
    cr_assert_eq(nt_profile_check(p, t), NT_OK);
    cr_assert_str_eq(p->kind, nt_topo_kind_name(nt_topo_get_kind(t)));
    cr_assert_eq(strlen(p->date), 20, "ISO date: %s", p->date);
    // A GEMM tile is 2 nb^3 flops: any machine does it in under a second and over a nanosecond.
    for (int d = 0; d < 2; d++)
        cr_assert(p->tile_seconds[NT_TK_GEMM][d] > 1e-9 && p->tile_seconds[NT_TK_GEMM][d] < 1);
    nt_profile_destroy(p);
    o.nb = 5000;
    cr_assert_eq(nt_calibrate(t, &o, &p), NT_EINVAL);
    cr_assert(strstr(nt_last_error(), "nb"));
    nt_topo_destroy(t);
    nt_topo_opts_t so = {.synthetic = "numa:2 core:2 pu:1"};
    cr_assert_eq(nt_topo_load(&so, &t), NT_OK, "%s", nt_last_error());
    cr_assert_eq(nt_calibrate(t, NULL, &p), NT_ENOTSUP);
    nt_topo_destroy(t);
}

// ---- bounded reads (issue 35): a profile is read whole only when it is a regular file no
// larger than a profile can be; /dev/zero, a FIFO, a directory are refused at once (before:
// /dev/zero grew a buffer to 2 GB, a FIFO blocked forever).

static char prof_fifo[64];

static void make_prof_fifo(void)
{
    snprintf(prof_fifo, sizeof prof_fifo, "/tmp/nt_prof_fifo_%d.xml", (int)getpid());
    unlink(prof_fifo);
    cr_assert_eq(mkfifo(prof_fifo, 0600), 0);
}

Test(profile, load_refuses_devices_fifos_directories_and_oversize, .timeout = 10)
{
    make_prof_fifo();
    const char *paths[] = {"/dev/zero", prof_fifo, "/tmp"};
    for (int k = 0; k < 3; k++) {
        nt_profile_t *p = NULL;
        double t0 = nt_now();
        cr_assert_eq(nt_profile_read(paths[k], NULL, &p), NT_EINVAL, "%s: %s", paths[k],
                     nt_last_error());
        cr_assert_lt(nt_now() - t0, 1.0);
        cr_assert_null(p);
    }
    unlink(prof_fifo);
    // A 2-domain topology: a profile of it is far below 10 MB.
    nt_topo_t *t;
    cr_assert_eq(nt_topo_load(&(nt_topo_opts_t){.domains = 2}, &t), NT_OK);
    char path[] = "/tmp/nt_prof_big_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_eq(ftruncate(fd, 10 << 20), 0);
    close(fd);
    nt_profile_t *p = NULL;
    cr_assert_eq(nt_profile_read(path, t, &p), NT_ERANGE, "%s", nt_last_error());
    cr_assert_not_null(strstr(nt_last_error(), "MiB"), "%s", nt_last_error());
    unlink(path);
    nt_topo_destroy(t);
}

// The tool's readers of files: --speeds measured:FILE (a profile) and --synthetic FILE.xml.
Test(profile, tool_refuses_unreadable_profile_and_xml_fast, .timeout = 10)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    make_prof_fifo();
    char speeds[96];
    const char *cases[][8] = {
        {"partition", "--speeds", "measured:/dev/zero", "--n", "100", NULL},
        {"partition", "--speeds", speeds, "--n", "100", NULL},
        {"partition", "--speeds", "measured:/tmp", "--n", "100", NULL},
        {"topo", "--synthetic", prof_fifo, NULL},
    };
    snprintf(speeds, sizeof speeds, "measured:%s", prof_fifo);
    for (int k = 0; k < 4; k++) {
        double t0 = nt_now();
        tool_result r = tool_run(cases[k]);
        double dt = nt_now() - t0;
        cr_assert_eq(r.status, 2, "%s %s: exit %d: %s", cases[k][1], cases[k][2], r.status,
                     r.err);
        cr_assert_lt(dt, 1.0, "%s %s took %.2f s", cases[k][1], cases[k][2], dt);
        tool_result_free(&r);
    }
    unlink(prof_fifo);
}
