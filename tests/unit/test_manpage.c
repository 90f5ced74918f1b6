// docs/numatile.1 against the tool itself: every subcommand `numatile --help` lists has a
// section in the man page (and every section is a subcommand), every long option that
// `numatile CMD --help` prints appears in that subcommand's section, the exit statuses agree
// and the version matches. The man page comes from $NT_MANPAGE (exported by the Makefile) or
// docs/numatile.1 relative to the repository root; the tool from $NT_TOOL.
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_run.h"

enum { MAX_CMDS = 64, MAX_SECTIONS = 64 };

typedef struct section {
    char name[64]; // first word after .SS, quotes removed
    char *text;    // the section's source, escapes removed (see plain_text)
} section;

typedef struct manpage {
    char *raw;
    int nsec;
    section sec[MAX_SECTIONS];
    char *exit_text; // the EXIT STATUS section, escapes removed
} manpage;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        char *b = cap - len < 2 ? realloc(buf, cap *= 2) : buf;
        if (!b)
            free(buf);
        buf = b;
    }
    fclose(f);
    if (buf)
        buf[len] = 0;
    return buf;
}

// roff source -> plain text: "\-" -> "-", font escapes (\fB \fI \fR \fP) dropped, "\e" -> "\".
static char *plain_text(const char *s, size_t len)
{
    char *out = malloc(len + 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && i + 1 < len) {
            if (s[i + 1] == '-') {
                out[k++] = '-';
                i++;
                continue;
            }
            if (s[i + 1] == 'f' && i + 2 < len) {
                i += 2;
                continue;
            }
            if (s[i + 1] == 'e') {
                out[k++] = '\\';
                i++;
                continue;
            }
        }
        out[k++] = s[i];
    }
    out[k] = 0;
    return out;
}

static bool starts_line(const char *p, const char *start, const char *macro)
{
    return (p == start || p[-1] == '\n') && !strncmp(p, macro, strlen(macro));
}

// Split the page into .SS sections (a section ends at the next .SS or .SH) and find the
// EXIT STATUS section.
static void parse_manpage(manpage *m)
{
    const char *s = m->raw;
    for (const char *p = s; *p; p++) {
        bool ss = starts_line(p, s, ".SS "), sh = starts_line(p, s, ".SH ");
        if (!ss && !sh)
            continue;
        const char *end = p + 1;
        while (*end && !starts_line(end, s, ".SS ") && !starts_line(end, s, ".SH "))
            end++;
        const char *q = p + 4;
        while (*q == ' ' || *q == '"')
            q++;
        if (ss && m->nsec < MAX_SECTIONS) {
            section *x = &m->sec[m->nsec++];
            size_t n = 0;
            while (q[n] && !isspace((unsigned char)q[n]) && q[n] != '"' && n < sizeof x->name - 1)
                n++;
            memcpy(x->name, q, n);
            x->name[n] = 0;
            x->text = plain_text(p, (size_t)(end - p));
        } else if (sh && !strncmp(q, "EXIT STATUS", 11)) {
            m->exit_text = plain_text(p, (size_t)(end - p));
        }
    }
}

static bool load_manpage(manpage *m)
{
    const char *path = getenv("NT_MANPAGE");
    if (!path || !*path)
        path = "docs/numatile.1";
    *m = (manpage){0};
    m->raw = read_file(path);
    if (!m->raw)
        return false;
    parse_manpage(m);
    return true;
}

static void free_manpage(manpage *m)
{
    for (int i = 0; i < m->nsec; i++)
        free(m->sec[i].text);
    free(m->exit_text);
    free(m->raw);
}

static const section *find_section(const manpage *m, const char *name)
{
    for (int i = 0; i < m->nsec; i++)
        if (!strcmp(m->sec[i].name, name))
            return &m->sec[i];
    return NULL;
}

static bool optchar(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_';
}

// Whether text holds opt ("--name") as a whole token (so "--from" is not found in
// "--from-layout").
static bool has_option(const char *text, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = strstr(text, opt); p; p = strstr(p + 1, opt))
        if ((p == text || !optchar(p[-1])) && !optchar(p[n]))
            return true;
    return false;
}

// Long options in a help text: "--x..." tokens not preceded by an option character. Returns
// the count; names[] get malloc'ed copies (caller frees).
static int long_options(const char *help, char **names, int cap)
{
    int k = 0;
    for (const char *p = help; (p = strstr(p, "--")) != NULL; p += 2) {
        if ((p != help && optchar(p[-1])) || !isalpha((unsigned char)p[2]))
            continue;
        size_t n = 2;
        while (optchar(p[n]))
            n++;
        while (n > 2 && p[n - 1] == '-')
            n--;
        bool seen = false;
        for (int i = 0; i < k; i++)
            seen |= strlen(names[i]) == n && !strncmp(names[i], p, n);
        if (!seen && k < cap) {
            names[k] = strndup(p, n);
            k++;
        }
    }
    return k;
}

// Subcommands listed by `numatile --help`: the indented lines after "commands:".
static int subcommands(char names[][32], int cap)
{
    const char *args[] = {"--help", NULL};
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, 0, "numatile --help: exit %d: %s", r.status, r.err);
    const char *p = strstr(r.out, "commands:\n");
    cr_assert_not_null(p, "numatile --help has no 'commands:' list:\n%s", r.out);
    p = strchr(p, '\n') + 1;
    int k = 0;
    while (p[0] == ' ' && p[1] == ' ' && k < cap) {
        const char *q = p + 2;
        size_t n = 0;
        while (q[n] && !isspace((unsigned char)q[n]) && n < 31)
            n++;
        memcpy(names[k], q, n);
        names[k][n] = 0;
        k++;
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    tool_result_free(&r);
    return k;
}

#define NEED_TOOL_AND_PAGE(m)                                                                 \
    do {                                                                                      \
        if (!tool_path())                                                                     \
            cr_skip("NT_TOOL is not set (make test-unit sets it)");                           \
        if (!load_manpage(m))                                                                 \
            cr_skip("man page not readable (NT_MANPAGE or docs/numatile.1 from the repo "      \
                    "root)");                                                                 \
    } while (0)

Test(manpage, every_subcommand_has_a_section)
{
    manpage m;
    NEED_TOOL_AND_PAGE(&m);
    char cmds[MAX_CMDS][32];
    int n = subcommands(cmds, MAX_CMDS);
    cr_assert_geq(n, 1, "numatile --help lists no subcommand");
    for (int i = 0; i < n; i++) {
        cr_expect_not_null(find_section(&m, cmds[i]), "subcommand '%s' has no '.SS %s' section",
                           cmds[i], cmds[i]);
        char synopsis[64];
        snprintf(synopsis, sizeof synopsis, "numatile %.31s", cmds[i]);
        const section *s = find_section(&m, cmds[i]);
        if (s)
            cr_expect_not_null(strstr(s->text, synopsis), "section %s lacks its synopsis '%s'",
                               cmds[i], synopsis);
    }
    // And no section for a subcommand the tool does not have.
    for (int k = 0; k < m.nsec; k++) {
        bool found = false;
        for (int i = 0; i < n; i++)
            found |= !strcmp(m.sec[k].name, cmds[i]);
        cr_expect(found, "man page section '%s' is not a subcommand of numatile --help",
                  m.sec[k].name);
    }
    free_manpage(&m);
}

Test(manpage, every_long_option_is_documented_in_its_section)
{
    manpage m;
    NEED_TOOL_AND_PAGE(&m);
    char cmds[MAX_CMDS][32];
    int n = subcommands(cmds, MAX_CMDS);
    for (int i = 0; i < n; i++) {
        const char *args[] = {cmds[i], "--help", NULL};
        tool_result r = tool_run(args);
        cr_assert_eq(r.status, 0, "numatile %s --help: exit %d: %s", cmds[i], r.status, r.err);
        char *opts[128];
        int k = long_options(r.out, opts, 128);
        // Every subcommand prints at least --json in its help: an empty list means the
        // extraction is broken, not that the page is right.
        cr_expect_geq(k, 1, "no long option found in 'numatile %s --help'", cmds[i]);
        const section *s = find_section(&m, cmds[i]);
        for (int j = 0; j < k; j++) {
            if (s)
                cr_expect(has_option(s->text, opts[j]),
                          "'numatile %s --help' prints %s, the man page section '%s' does not "
                          "mention it", cmds[i], opts[j], cmds[i]);
            free(opts[j]);
        }
        if (s)
            cr_expect(has_option(s->text, "--help"), "section %s does not mention --help",
                      cmds[i]);
        tool_result_free(&r);
    }
    free_manpage(&m);
}

Test(manpage, exit_statuses_and_version_agree)
{
    manpage m;
    NEED_TOOL_AND_PAGE(&m);
    cr_assert_not_null(m.exit_text, "the man page has no EXIT STATUS section");
    // "exit status: 0 ok, 1 a --verify check failed, 2 bad arguments, 3 run-time failure"
    const char *args[] = {"--help", NULL};
    tool_result r = tool_run(args);
    const char *p = strstr(r.out, "exit status:");
    cr_assert_not_null(p, "numatile --help does not state the exit statuses");
    int seen = 0;
    for (p += 12; *p && *p != '\n'; p++) {
        if (!isdigit((unsigned char)p[0]) || isdigit((unsigned char)p[1]) ||
            isdigit((unsigned char)p[-1]))
            continue;
        char tag[16];
        snprintf(tag, sizeof tag, "\n.B %c\n", p[0]);
        cr_expect_not_null(strstr(m.exit_text, tag), "exit status %c is not in EXIT STATUS",
                           p[0]);
        seen++;
    }
    cr_expect_geq(seen, 4, "expected exit statuses 0..3 in numatile --help");
    tool_result_free(&r);

    const char *vargs[] = {"--version", NULL};
    r = tool_run(vargs);
    cr_assert_eq(r.status, 0);
    char *nl = strchr(r.out, '\n');
    if (nl)
        *nl = 0;
    // .TH NUMATILE 1 "date" "numatile X.Y.Z" ...
    char *th = strstr(m.raw, ".TH ");
    cr_assert_not_null(th);
    char *eol = strchr(th, '\n');
    cr_assert_not_null(eol);
    *eol = 0;
    cr_expect_not_null(strstr(th, r.out), "'%s' not in the man page's title line: %s", r.out,
                       th);
    *eol = '\n';
    tool_result_free(&r);
    free_manpage(&m);
}

// The checker itself can fail: an option missing from a section is caught, a longer option
// does not stand in for a shorter one, and escapes are removed before matching.
Test(manpage, checker_detects_a_missing_option)
{
    const char *src = ".SS plan\n.BI \\-\\-from\\-layout \" L\"\n.B \\-\\-json\n";
    char *text = plain_text(src, strlen(src));
    cr_expect(has_option(text, "--json"));
    cr_expect(has_option(text, "--from-layout"));
    cr_expect(!has_option(text, "--from"), "--from must not match inside --from-layout");
    cr_expect(!has_option(text, "--dump"));
    char *opts[8];
    int k = long_options("  --m M, --n N  --from-layout L (see 'x --help'); a--b no --", opts, 8);
    cr_assert_eq(k, 4);
    cr_expect_str_eq(opts[0], "--m");
    cr_expect_str_eq(opts[1], "--n");
    cr_expect_str_eq(opts[2], "--from-layout");
    cr_expect_str_eq(opts[3], "--help");
    for (int i = 0; i < k; i++)
        free(opts[i]);
    free(text);
}

// The range the tool states when it refuses an integer option ("is not an integer in A..B")
// is the one the option's entry in the command's section gives: the first ".BI --OPT" line
// and the text up to the next entry.
static void limit_agrees(const manpage *m, const char *cmd, const char *const *args,
                         const char *opt)
{
    tool_result r = tool_run(args);
    cr_assert_eq(r.status, 2, "%s %s: exit %d", cmd, opt, r.status);
    const char *in = strstr(r.err, "is not an integer in ");
    cr_assert_not_null(in, "%s %s: %s", cmd, opt, r.err);
    char range[64];
    cr_assert_eq(sscanf(in + strlen("is not an integer in "), "%63[0-9^.-]", range), 1);
    const section *s = find_section(m, cmd);
    cr_assert_not_null(s, "no section %s", cmd);
    char entry[64];
    snprintf(entry, sizeof entry, ".BI %s ", opt);
    const char *e = strstr(s->text, entry);
    cr_assert_not_null(e, "section %s has no entry %s", cmd, opt);
    const char *end = strstr(e + 1, "\n.TP");
    size_t len = end ? (size_t)(end - e) : strlen(e);
    char *text = strndup(e, len);
    cr_expect_not_null(strstr(text, range), "%s %s: the tool says %s, the man page: %s", cmd,
                       opt, range, text);
    free(text);
    tool_result_free(&r);
}

Test(manpage, stated_limits_agree_with_the_tool)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    manpage m;
    cr_assert(load_manpage(&m), "man page not found");
    const char *redist_seed[] = {"redist", "--m", "8", "--n", "8", "--from", "2@bc2d:1x1", "--to",
                                 "4@bc2d:1x1", "--seed", "9223372036854775808", NULL};
    const char *redist_threads[] = {"redist", "--m", "8", "--n", "8", "--from", "2@bc2d:1x1",
                                    "--to", "4@bc2d:1x1", "--threads", "100000", NULL};
    const char *gemm_seed[] = {"gemm", "--n", "64", "--nb", "32", "--seed", "-1", NULL};
    const char *gemm_threads[] = {"gemm", "--n", "64", "--nb", "32", "--threads", "0", NULL};
    const char *gemm_domains[] = {"gemm", "--n", "64", "--nb", "32", "--domains", "5000", NULL};
    const char *gemm_n[] = {"gemm", "--n", "3000000000", "--nb", "32", NULL};
    const char *qr_seed[] = {"qr", "--n", "64", "--nb", "32", "--seed", "x", NULL};
    const char *bench_repeat[] = {"bench", "match", "--repeat", "0", NULL};
    const char *bench_seed[] = {"bench", "match", "--seed", "-2", NULL};
    const char *part_n[] = {"partition", "--n", "9000", NULL};
    const char *cal_nb[] = {"calibrate", "--nb", "5000", NULL};
    const char *topo_domains[] = {"topo", "--domains", "0", NULL};
    limit_agrees(&m, "redist", redist_seed, "--seed");
    limit_agrees(&m, "redist", redist_threads, "--threads");
    limit_agrees(&m, "gemm", gemm_seed, "--seed");
    limit_agrees(&m, "gemm", gemm_threads, "--threads");
    limit_agrees(&m, "gemm", gemm_domains, "--domains");
    limit_agrees(&m, "gemm", gemm_n, "--n");
    limit_agrees(&m, "qr", qr_seed, "--seed");
    limit_agrees(&m, "bench", bench_repeat, "--repeat");
    limit_agrees(&m, "bench", bench_seed, "--seed");
    limit_agrees(&m, "partition", part_n, "--n");
    limit_agrees(&m, "calibrate", cal_nb, "--nb");
    limit_agrees(&m, "topo", topo_domains, "--domains");
    free_manpage(&m);
}
