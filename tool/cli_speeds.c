// The --speeds parser that `numatile partition` and `numatile gemm` share.
#include "cli_speeds.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "numatile/hetero.h"
#include "numatile/profile.h"

// "measured[:FILE]": the GEMM speeds of a profile (read from FILE, or measured now on t, or on
// this machine's default topology when t is NULL).
static int measured_speeds(const char *cmd, const char *arg, const nt_topo_t *t, double *s,
                           int *m)
{
    nt_profile_t *p = NULL;
    nt_topo_t *own = NULL;
    nt_status st = NT_OK;
    if (arg[8] == ':') {
        st = nt_profile_read(arg + 9, NULL, &p);
    } else {
        nt_calibrate_opts_t co = {.quick = true};
        if (!t && (st = nt_topo_load(NULL, &own)) == NT_OK)
            t = own;
        if (st == NT_OK)
            st = nt_calibrate(t, &co, &p);
    }
    if (!st && p->ndomains > SPEEDS_MAX)
        st = NT_ERANGE;
    if (!st)
        st = nt_profile_speeds(p, s);
    if (!st)
        *m = p->ndomains;
    nt_profile_destroy(p);
    nt_topo_destroy(own);
    return st ? cli_usage(cmd, "--speeds %s: %s", arg, nt_last_error()) : CLI_OK;
}

// "topo": speeds proportional to the cpus of t's domains (this machine's when t is NULL).
static int topo_speeds(const char *cmd, const nt_topo_t *t, double *s, int *m)
{
    nt_topo_t *own = NULL;
    if (!t) {
        nt_status st = nt_topo_load(NULL, &own);
        if (st)
            return cli_lib_error(cmd, st);
        t = own;
    }
    nt_status st = nt_hetero_speeds_from_topo(t, SPEEDS_MAX, m, s);
    nt_topo_destroy(own);
    return st ? cli_usage(cmd, "--speeds topo: %s", nt_last_error()) : CLI_OK;
}

int speeds_parse(const char *cmd, const char *arg, const nt_topo_t *t, double *s, int *m)
{
    if (nt_hetero_platform(arg, SPEEDS_MAX, m, s) == NT_OK)
        return CLI_OK;
    if (!strcmp(arg, "measured") || !strncmp(arg, "measured:", 9))
        return measured_speeds(cmd, arg, t, s, m);
    if (strcmp(arg, "topo") == 0)
        return topo_speeds(cmd, t, s, m);
    size_t len = strlen(arg);
    char *buf = malloc(len + 1);
    if (!buf)
        return CLI_RUNTIME;
    memcpy(buf, arg, len + 1);
    int k = 0, rc = CLI_OK;
    char *p = buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        double v;
        if (k == SPEEDS_MAX) {
            rc = cli_usage(cmd, "--speeds: more than %d speeds", SPEEDS_MAX);
            break;
        }
        if (!cli_parse_double(p, &v) || !(v > 0)) {
            rc = cli_usage(cmd, "--speeds: item %d '%s' is not a positive number", k + 1, p);
            break;
        }
        s[k++] = v;
        if (!comma)
            break;
        p = comma + 1;
    }
    free(buf);
    *m = k;
    return rc;
}
