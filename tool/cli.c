#include "cli.h"

#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
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

// What cli_getopt could not take, said in full; cli_common_option prints it for CLI_OPT_BAD.
static char bad_option[512];

// The option NAME (up to '=' or its end) names: its index in opts, exact or as a prefix of
// one option, as getopt_long takes it; -1 when none matches; -2 when it is a prefix of several
// that differ (getopt_long refuses those as ambiguous; an empty name matches nothing).
static int option_index(const struct option *opts, const char *name)
{
    size_t len = strcspn(name, "=");
    int first = -1; // the first option NAME abbreviates
    bool ambiguous = false;
    if (len == 0)
        return -1;
    for (int k = 0; opts[k].name; k++) {
        if (strncmp(opts[k].name, name, len))
            continue;
        if (strlen(opts[k].name) == len)
            return k;
        if (first < 0)
            first = k;
        else if (opts[first].has_arg != opts[k].has_arg || opts[first].flag != opts[k].flag ||
                 opts[first].val != opts[k].val)
            ambiguous = true; // keep looking: an exact match later still wins
    }
    return ambiguous ? -2 : first;
}

// Edit distance between a (length la) and b, capped: enough to tell a typo from a stranger.
static int edit_distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b);
    if (la > 32 || lb > 32)
        return 99;
    int row[33];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

// " (did you mean --X?)" for the option NAME most likely meant, or "" when none is close:
// the option it names or abbreviates (typed with one dash), else one within two typos.
static void suggest(const struct option *opts, const char *name, char *buf, size_t cap)
{
    size_t len = strcspn(name, "=");
    int k = option_index(opts, name), best = 3;
    for (int i = 0; k < 0 && opts[i].name; i++) {
        int d = edit_distance(name, len, opts[i].name);
        if (d < best && (size_t)d < len) {
            best = d;
            k = i;
        }
    }
    if (k >= 0)
        snprintf(buf, cap, " (did you mean --%s?)", opts[k].name);
    else
        buf[0] = '\0';
}

// "option '--fr' is ambiguous (--from, --from-layout)": every option ARG abbreviates.
static void say_ambiguous(const struct option *opts, const char *arg)
{
    size_t len = strcspn(arg + 2, "="), at;
    at = (size_t)snprintf(bad_option, sizeof bad_option, "option '%.*s' is ambiguous (",
                          (int)(len + 2), arg);
    const char *sep = "";
    for (int k = 0; opts[k].name && at < sizeof bad_option; k++)
        if (!strncmp(opts[k].name, arg + 2, len)) {
            at += (size_t)snprintf(bad_option + at, sizeof bad_option - at, "%s--%s", sep,
                                   opts[k].name);
            sep = ", ";
        }
    if (at < sizeof bad_option)
        snprintf(bad_option + at, sizeof bad_option - at, ")");
}

// Why getopt_long answered '?' to the element ARG: an unknown, ambiguous or valueless long
// option, or a short one (only -h exists; getopt says which character it stopped at).
static void say_refused(const struct option *opts, const char *arg)
{
    char hint[128];
    if (arg[0] == '-' && arg[1] == '-') {
        int k = option_index(opts, arg + 2);
        if (k == -2) {
            say_ambiguous(opts, arg);
            return;
        }
        if (k >= 0 && strchr(arg, '=')) {
            snprintf(bad_option, sizeof bad_option, "option '--%s' takes no value (in '%s')",
                     opts[k].name, arg);
            return;
        }
        suggest(opts, arg + 2, hint, sizeof hint);
        snprintf(bad_option, sizeof bad_option, "unknown option '%s'%s", arg, hint);
        return;
    }
    // Long option names written with one dash ("-json") are the likely slip.
    suggest(opts, arg + 1, hint, sizeof hint);
    snprintf(bad_option, sizeof bad_option, "unknown option '%s'%s", arg, hint);
}

// The argv element getopt_long refused after returning '?' with optopt set, for a short option.
// glibc moves optind past a one-character element ("-x") but leaves it on a longer one ("-json")
// whose first character failed (every short option but -h fails, and -h ends the parse).
static const char *short_element(int argc, char **argv)
{
    const char *prev = argv[optind - 1];
    if (prev[0] == '-' && prev[1] == optopt && prev[2] == '\0')
        return prev;
    if (optind < argc && argv[optind][0] == '-' && argv[optind][1] == optopt)
        return argv[optind];
    return prev;
}

// Whether getopt_long's '?' was about the long option just passed: it sets optopt to 0 for an
// unknown or ambiguous one, and to the option's id for a value given to one that takes none.
static bool long_refused(char **argv, const struct option *opts)
{
    const char *prev = argv[optind - 1];
    if (prev[0] != '-' || prev[1] != '-')
        return false;
    int k = optopt ? option_index(opts, prev + 2) : -1;
    return !optopt || (k >= 0 && opts[k].has_arg == no_argument && strchr(prev, '='));
}

// A required value that is itself one of the options ("--m --n 8"): the value was forgotten.
static bool is_option(const struct option *opts, const char *value)
{
    return value[0] == '-' && value[1] == '-' && option_index(opts, value + 2) != -1;
}

int cli_getopt(int argc, char **argv, const struct option *opts)
{
    opterr = 0;
    if (optind <= 1) // a new command line: its JSON envelope starts empty
        cli_json_reset();
    int k = -1;
    // ':' first: an option missing its value comes back as ':', told apart from an unknown
    // one; "h" makes -h a short spelling of --help in every subcommand.
    int c = getopt_long(argc, argv, ":h", opts, &k);
    if (c == 'h')
        return CLI_OPT_HELP;
    if (c == ':' || (c >= 0 && c != '?' && k >= 0 && opts[k].has_arg == required_argument &&
                     optarg == argv[optind - 1] && is_option(opts, optarg))) {
        // On ':', optind is past the option (and k unset); otherwise past its would-be value.
        if (c == ':')
            k = option_index(opts, argv[optind - 1] + 2);
        const char *name = k >= 0 ? opts[k].name : argv[optind - 1] + 2;
        if (c == ':')
            snprintf(bad_option, sizeof bad_option, "option '--%s' needs a value", name);
        else
            snprintf(bad_option, sizeof bad_option, "option '--%s' needs a value ('%s' is an "
                     "option)", name, optarg);
        return CLI_OPT_BAD;
    }
    if (c == '?') {
        say_refused(opts, long_refused(argv, opts) ? argv[optind - 1]
                                                   : short_element(argc, argv));
        return CLI_OPT_BAD;
    }
    if (c >= 0)
        cli_json_note_option(argv, opts, k, optarg);
    return c;
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
            return cli_usage(co->cmd, "--seed: '%s' is not an integer in 0..2^63-1", optarg);
        co->seed = (uint64_t)seed;
        return CLI_OK;
    case CLI_OPT_HELP: fputs(co->help, stdout); return CLI_HELP_SHOWN;
    case CLI_OPT_BAD: return cli_usage(co->cmd, "%s", bad_option);
    // An id of the subcommand's table that it forgot to handle: a bug of ours, said plainly.
    default: return cli_usage(co->cmd, "option '%s' is not handled", argv[optind - 1]);
    }
}

int cli_no_operands(const char *cmd, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    return CLI_OK;
}

int cli_check_synthetic(const char *cmd, const char *desc)
{
    size_t len = strlen(desc);
    if (len < 4 || strcasecmp(desc + len - 4, ".xml"))
        return CLI_OK;
    // Non-blocking: fopen of a FIFO waits for a writer forever. hwloc reads the file itself
    // (bounded by the library), this only says early what cannot be read.
    int fd = open(desc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return cli_usage(cmd, "--synthetic: cannot read '%s': %s", desc, strerror(errno));
    struct stat sb;
    bool regular = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
    close(fd);
    if (!regular)
        return cli_usage(cmd, "--synthetic: '%s' is not a regular file (a directory, device, "
                         "FIFO or socket)", desc);
    return CLI_OK;
}

int cli_check_out(const char *cmd, const char *opt, const char *path)
{
    char why[PATH_MAX + 64];
    if (bench_out_check_file(path, why, sizeof why) != 0)
        return cli_usage(cmd, "%s: cannot write there: %s", opt, why);
    return CLI_OK;
}

int cli_load_topo(const char *cmd, int domains, nt_topo_t **t)
{
    nt_topo_opts_t to = {.domains = domains};
    nt_status st = nt_topo_load(&to, t);
    if (st == NT_OK)
        cli_json_topology(*t);
    return st ? cli_lib_error(cmd, st) : CLI_OK;
}

int cli_lib_error(const char *cmd, nt_status st)
{
    cli_eprintf("numatile %s: %s: %s\n", cmd, nt_strerror(st), nt_last_error());
    return bench_status_exit(st);
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
    obj = cli_json_wrap(obj);
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
    // no-color.org: only a NO_COLOR that is set and not empty turns colour off.
    const char *no_colour = getenv("NO_COLOR");
    bool colour = isatty(fileno(f)) && !(no_colour && *no_colour);
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
