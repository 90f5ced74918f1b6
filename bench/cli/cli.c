#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void eprint_va(const char *fmt, va_list ap)
{
    char raw[1024], esc[sizeof raw];
    vsnprintf(raw, sizeof raw, fmt, ap);
    // Escape line by line so that the message's own line breaks stay line breaks.
    for (char *line = raw, *nl; line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        nt_escape(line, esc, sizeof esc);
        fputs(esc, stderr);
        if (nl)
            fputc('\n', stderr);
    }
}

void cli_eprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    eprint_va(fmt, ap);
    va_end(ap);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    cli_eprintf("numatile %s: ", cmd);
    va_start(ap, fmt);
    eprint_va(fmt, ap);
    va_end(ap);
    cli_eprintf("\n(see 'numatile %s --help')\n", cmd);
    return CLI_USAGE;
}

int cli_getopt(int argc, char **argv, const struct option *opts)
{
    opterr = 0;
    return getopt_long(argc, argv, "", opts, NULL);
}

int cli_common_option(cli_common *co, int id, char **argv)
{
    int64_t seed;
    switch (id) {
    case CLI_OPT_JSON: co->json = true; return CLI_OK;
    case CLI_OPT_VERIFY: co->verify = true; return CLI_OK;
    case CLI_OPT_DOMAINS:
        if (!cli_parse_int(optarg, 1, 4096, &co->domains))
            return cli_usage(co->cmd, "--domains: '%s' is not an integer in 1..4096", optarg);
        return CLI_OK;
    case CLI_OPT_SEED:
        if (!cli_parse_i64(optarg, 0, INT64_MAX, &seed))
            return cli_usage(co->cmd, "--seed: '%s' is not a non-negative integer", optarg);
        co->seed = (uint64_t)seed;
        return CLI_OK;
    case CLI_OPT_HELP: fputs(co->help, stdout); return CLI_HELP_SHOWN;
    default: return cli_usage(co->cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
    }
}

int cli_no_operands(const char *cmd, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    return CLI_OK;
}

int cli_status_exit(nt_status st)
{
    if (st == NT_OK)
        return CLI_OK;
    bool usage = st == NT_EINVAL || st == NT_ERANGE || st == NT_EIO || st == NT_ENOSPACE;
    return usage ? CLI_USAGE : CLI_RUNTIME;
}

int cli_load_topo(const char *cmd, int domains, nt_topo_t **t)
{
    nt_topo_opts_t to = {.domains = domains};
    nt_status st = nt_topo_load(&to, t);
    return st ? cli_lib_error(cmd, st) : CLI_OK;
}

int cli_lib_error(const char *cmd, nt_status st)
{
    cli_eprintf("numatile %s: %s: %s\n", cmd, nt_strerror(st), nt_last_error());
    return cli_status_exit(st);
}

bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool cli_parse_int(const char *s, int lo, int hi, int *out)
{
    int64_t v;
    if (!cli_parse_i64(s, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

bool cli_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

int cli_print_json(json_t *obj)
{
    if (!obj)
        return CLI_RUNTIME;
    int rc = json_dumpf(obj, stdout, JSON_COMPACT | JSON_REAL_PRECISION(10));
    json_decref(obj);
    if (rc != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0)
        return CLI_RUNTIME;
    return CLI_OK;
}

void cli_print_tilemap(FILE *f, const int *owner, int64_t mt, int64_t nt, bool compact)
{
    // Background colours of the 256-colour palette that stay apart from each other.
    static const int palette[] = {196, 46, 33, 226, 201, 51, 208, 129, 118, 27, 214, 160};
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const int npalette = (int)(sizeof palette / sizeof *palette);
    int maxd = 0;
    for (int64_t x = 0; x < mt * nt; x++)
        maxd = owner[x] > maxd ? owner[x] : maxd;
    bool chars = compact && maxd < 62;
    int width = snprintf(NULL, 0, "%d", maxd);
    bool colour = isatty(fileno(f)) && !getenv("NO_COLOR");
    for (int64_t i = 0; i < mt; i++) {
        fputs("  ", f);
        for (int64_t j = 0; j < nt; j++) {
            int d = owner[i * nt + j];
            if (colour)
                fprintf(f, "\033[30;48;5;%dm", palette[d % npalette]);
            if (chars)
                fputc(digits[d], f);
            else // coloured cells get a margin
                fprintf(f, "%s%*d", j || colour ? " " : "", width, d);
        }
        fputs(colour ? "\033[0m\n" : "\n", f);
    }
}
