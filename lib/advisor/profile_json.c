// The machine profile's JSON file (format in numatile/profile.h), with jansson. The library
// links jansson for this: a profile is a library object (nt_advise() takes one, a user saves and
// loads it across runs), so its file format belongs beside it rather than in the tool.
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt_core.h"
#include "nt_profile.h"

// ---- JSON ---------------------------------------------------------------------------------------

static json_t *vec_json(const double *x, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_real(x[i]));
    return a;
}

static json_t *mat_json(const double *x, int D)
{
    json_t *a = json_array();
    for (int i = 0; i < D; i++)
        json_array_append_new(a, vec_json(x + (size_t)i * (size_t)D, D));
    return a;
}

nt_status nt_profile_dump(const nt_profile_t *p, char **text)
{
    if (!p || !text)
        return nt_fail(NT_EINVAL, "nt_profile_dump: NULL argument");
    nt_status st = nt_profile_check(p, NULL);
    if (st)
        return st;
    int D = p->ndomains;
    json_t *tiles = json_object();
    for (int k = 0; k < NT_TK_COUNT; k++)
        json_object_set_new(tiles, nt_tk_name(k), vec_json(p->tile_seconds[k], D));
    json_t *o = json_pack(
        "{s:i, s:i, s:i, s:I, s:I, s:o, s:o, s:f, s:f, s:o, s:o, s:f, s:f, s:f, s:f, s:f, "
        "s:{s:s, s:i, s:s}, s:s, s:s, s:s}",
        "format", NT_PROFILE_FORMAT, "domains", D, "threads_per_domain",
        p->threads_per_domain, "nb", (json_int_t)p->nb, "ib", (json_int_t)p->ib, "copy_gbs",
        mat_json(p->copy_gbs, D), "read_gbs", mat_json(p->read_gbs, D), "concurrent_gbs",
        p->concurrent_gbs, "migrate_gbs", p->migrate_gbs, "fault_gbs", vec_json(p->fault_gbs, D),
        "tile_seconds", tiles, "task_seconds", p->task_seconds, "exec_seconds",
        p->exec_seconds, "kernel_run_seconds", p->kernel_run_seconds, "stencil_item_seconds",
        p->stencil_item_seconds, "stencil_round_seconds", p->stencil_round_seconds, "machine", "topology", p->kind,
        "physical_nodes", p->nodes, "host", p->host, "version", p->version, "blas", p->blas, "date",
        p->date);
    char *s = o ? json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(o);
    if (!s)
        return nt_fail(NT_ENOMEM, "nt_profile_dump: out of memory");
    *text = s;
    return NT_OK;
}

static nt_status missing(const char *field, const char *want)
{
    return nt_fail(NT_EINVAL, "profile: field '%s' is missing or not %s", field, want);
}

static nt_status get_num(const json_t *o, const char *key, const char *field, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        return missing(field, "a number");
    *out = json_number_value(v);
    return NT_OK;
}

static nt_status get_int(const json_t *o, const char *key, int64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return missing(key, "an integer");
    *out = json_integer_value(v);
    return NT_OK;
}

static nt_status get_str(const json_t *o, const char *key, const char *field, char *out,
                         size_t cap)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        return missing(field, "a string");
    snprintf(out, cap, "%s", json_string_value(v));
    return NT_OK;
}

static nt_status get_vec(const json_t *a, const char *field, double *x, int n)
{
    if (!json_is_array(a))
        return missing(field, "an array");
    if (json_array_size(a) != (size_t)n)
        return nt_fail(NT_EINVAL, "profile: field '%s' has %zu entries, ndomains is %d", field,
                       json_array_size(a), n);
    for (int i = 0; i < n; i++) {
        json_t *v = json_array_get(a, (size_t)i);
        if (!json_is_number(v))
            return nt_fail(NT_EINVAL, "profile: %s[%d] is not a number", field, i);
        x[i] = json_number_value(v);
    }
    return NT_OK;
}

static nt_status get_mat(const json_t *o, const char *key, double *x, int D)
{
    json_t *a = json_object_get(o, key);
    if (!json_is_array(a))
        return missing(key, "an array");
    if (json_array_size(a) != (size_t)D)
        return nt_fail(NT_EINVAL, "profile: field '%s' has %zu rows, ndomains is %d", key,
                       json_array_size(a), D);
    nt_status st = NT_OK;
    char f[64];
    for (int i = 0; i < D && !st; i++) {
        snprintf(f, sizeof f, "%s[%d]", key, i);
        st = get_vec(json_array_get(a, (size_t)i), f, x + (size_t)i * (size_t)D, D);
    }
    return st;
}

static nt_status parse_fields(const json_t *o, nt_profile_t *p)
{
    int D = p->ndomains;
    int64_t v = 0;
    nt_status st;
    if ((st = get_int(o, "threads_per_domain", &v)) != NT_OK)
        return st;
    p->threads_per_domain = v < 1 || v > 1024 ? -1 : (int)v;
    if ((st = get_int(o, "nb", &p->nb)) != NT_OK || (st = get_int(o, "ib", &p->ib)) != NT_OK ||
        (st = get_mat(o, "copy_gbs", p->copy_gbs, D)) != NT_OK ||
        (st = get_mat(o, "read_gbs", p->read_gbs, D)) != NT_OK ||
        (st = get_num(o, "concurrent_gbs", "concurrent_gbs", &p->concurrent_gbs)) != NT_OK ||
        (st = get_num(o, "migrate_gbs", "migrate_gbs", &p->migrate_gbs)) != NT_OK ||
        (st = get_vec(json_object_get(o, "fault_gbs"), "fault_gbs", p->fault_gbs, D)) != NT_OK ||
        (st = get_num(o, "task_seconds", "task_seconds", &p->task_seconds)) != NT_OK ||
        (st = get_num(o, "exec_seconds", "exec_seconds", &p->exec_seconds)) != NT_OK ||
        (st = get_num(o, "kernel_run_seconds", "kernel_run_seconds",
                      &p->kernel_run_seconds)) != NT_OK ||
        (st = get_num(o, "stencil_item_seconds", "stencil_item_seconds",
                      &p->stencil_item_seconds)) != NT_OK ||
        (st = get_num(o, "stencil_round_seconds", "stencil_round_seconds",
                      &p->stencil_round_seconds)) != NT_OK)
        return st;
    json_t *tiles = json_object_get(o, "tile_seconds");
    if (!json_is_object(tiles))
        return missing("tile_seconds", "an object");
    char f[64];
    for (int k = 0; k < NT_TK_COUNT; k++) {
        snprintf(f, sizeof f, "tile_seconds.%s", nt_tk_name(k));
        if ((st = get_vec(json_object_get(tiles, nt_tk_name(k)), f, p->tile_seconds[k], D)))
            return st;
    }
    json_t *m = json_object_get(o, "machine");
    if (!json_is_object(m))
        return missing("machine", "an object");
    if ((st = get_str(m, "topology", "machine.topology", p->kind, sizeof p->kind)) != NT_OK ||
        (st = get_str(m, "host", "machine.host", p->host, sizeof p->host)) != NT_OK ||
        (st = get_str(o, "version", "version", p->version, sizeof p->version)) != NT_OK ||
        (st = get_str(o, "blas", "blas", p->blas, sizeof p->blas)) != NT_OK ||
        (st = get_str(o, "date", "date", p->date, sizeof p->date)) != NT_OK)
        return st;
    json_t *nodes = json_object_get(m, "physical_nodes");
    if (!json_is_integer(nodes) || json_integer_value(nodes) < 1 ||
        json_integer_value(nodes) > NT_TOPO_MAX_DOMAINS)
        return missing("machine.physical_nodes", "an integer in 1..4096");
    p->nodes = (int)json_integer_value(nodes);
    if (p->threads_per_domain < 0)
        return nt_fail(NT_EINVAL, "profile: threads_per_domain = %lld: must be in 1..1024",
                       (long long)v);
    return NT_OK;
}

nt_status nt_profile_parse(const char *text, const nt_topo_t *topo, nt_profile_t **out)
{
    if (!text || !out)
        return nt_fail(NT_EINVAL, "nt_profile_parse: NULL argument");
    json_error_t e;
    json_t *o = json_loads(text, 0, &e);
    if (!o)
        return nt_fail(NT_EINVAL, "profile: not JSON (line %d: %s)", e.line, e.text);
    nt_status st = NT_OK;
    int64_t fmt = 0, D = 0;
    nt_profile_t *p = NULL;
    if (!json_is_object(o))
        st = nt_fail(NT_EINVAL, "profile: not a JSON object");
    else if ((st = get_int(o, "format", &fmt)) == NT_OK && fmt != NT_PROFILE_FORMAT)
        st = nt_fail(NT_EINVAL, "profile: format %lld, this library reads format %d",
                     (long long)fmt, NT_PROFILE_FORMAT);
    if (!st && (st = get_int(o, "domains", &D)) == NT_OK &&
        (D < 1 || D > NT_TOPO_MAX_DOMAINS))
        st = nt_fail(NT_EINVAL, "profile: ndomains = %lld: must be in 1..%d", (long long)D,
                     NT_TOPO_MAX_DOMAINS);
    if (!st && topo && nt_topo_ndomains(topo) != D)
        st = nt_fail(NT_EINVAL, "profile: ndomains = %lld but the topology has %d domains "
                                "(calibrate with the same --domains)", (long long)D,
                     nt_topo_ndomains(topo));
    if (!st)
        st = nt_profile_create((int)D, &p);
    if (!st)
        st = parse_fields(o, p);
    if (!st)
        st = nt_profile_check(p, topo);
    json_decref(o);
    if (st) {
        nt_profile_destroy(p);
        return st;
    }
    *out = p;
    return NT_OK;
}

nt_status nt_profile_save(const nt_profile_t *prof, const char *path)
{
    if (!path)
        return nt_fail(NT_EINVAL, "nt_profile_save: path is NULL");
    char *text;
    nt_status st = nt_profile_dump(prof, &text);
    if (st)
        return st;
    // Whole or not at all: a full disk leaves the previous profile as it was.
    size_t len = strlen(text);
    text[len] = '\n'; // json_dumps' NUL becomes the final newline
    st = nt_write_file(path, text, len + 1, "profile");
    free(text);
    return st;
}

// The largest file a profile of D domains can be: two D x D tables of numbers written with 17
// digits (about 30 bytes a value, counted twice for slack), a few KB per domain for the tile
// times and the rest, and some fixed text.
static size_t profile_cap(int D)
{
    size_t d = (size_t)D;
    return 64 * 1024 + 8 * 1024 * d + 2 * 2 * 32 * d * d;
}

nt_status nt_profile_read(const char *path, const nt_topo_t *topo, nt_profile_t **out)
{
    if (!path || !out)
        return nt_fail(NT_EINVAL, "nt_profile_read: NULL argument");
    // Bounded and non-blocking (a FIFO, /dev/zero or a directory refused before any read); for
    // a topology, a profile of its domains, else of the most domains a profile can have.
    int D = topo ? nt_topo_ndomains(topo) : NT_TOPO_MAX_DOMAINS;
    char *buf;
    size_t len;
    nt_status st = nt_read_file(path, profile_cap(D), "profile", &buf, &len);
    if (st == NT_EIO) {
        // Said as before ("cannot read FILE: reason"); the reason ends nt_read_file's message.
        const char *why = strrchr(nt_last_error(), ':');
        char reason[128];
        snprintf(reason, sizeof reason, "%s", why ? why + 2 : "error");
        return nt_fail(NT_EIO, "profile: cannot read %s: %s", path, reason);
    }
    if (st)
        return st;
    st = nt_profile_parse(buf, topo, out);
    free(buf);
    return st;
}
