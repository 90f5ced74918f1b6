// The shared option parser of every subcommand (tool/cli.c) and `numatile help`: help by
// -h, --help and `help CMD`; wrong invocations named precisely (missing value, unknown option,
// ambiguous prefix, value on a flag), exit 2; NO_COLOR as no-color.org defines it.
#include <criterion/criterion.h>
#include <jansson.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool_run.h"

enum { MAX_CMDS = 32 };

// The subcommands `numatile --help` lists (indented lines after "commands:"), so that a new
// one is covered without touching this file. Returns how many; names are malloc'ed.
static int subcommands(char **names)
{
    tool_result r = tool_run((const char *[]){"--help", NULL});
    cr_assert_eq(r.status, 0, "numatile --help: exit %d", r.status);
    const char *p = strstr(r.out, "commands:\n");
    cr_assert_not_null(p, "numatile --help has no 'commands:' list");
    int n = 0;
    for (p = strchr(p, '\n') + 1; p[0] == ' ' && p[1] == ' ' && n < MAX_CMDS;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " \n");
        names[n++] = strndup(p, len);
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    tool_result_free(&r);
    cr_assert_geq(n, 10, "expected at least the 10 subcommands of the contract, got %d", n);
    return n;
}

// The tool exits 2, prints nothing on stdout, and stderr's first line is exactly `line`.
static void expect_usage(const char *const *args, const char *line)
{
    tool_result r = tool_run(args);
    size_t len = strcspn(r.err, "\n");
    cr_expect_eq(r.status, 2, "%s ...: exit %d, want 2 (%s)", args[0], r.status, r.err);
    cr_expect_str_empty(r.out, "%s ...: stdout not empty: %s", args[0], r.out);
    cr_expect(strlen(line) == len && !strncmp(r.err, line, len),
              "stderr starts\n  %.*s\nwant\n  %s", (int)len, r.err, line);
    tool_result_free(&r);
}

Test(cli_usage, every_subcommand_prints_its_help_for_h_help_and_help_cmd)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char *cmds[MAX_CMDS];
    int n = subcommands(cmds);
    for (int i = 0; i < n; i++) {
        tool_result lng = tool_run((const char *[]){cmds[i], "--help", NULL});
        tool_result sht = tool_run((const char *[]){cmds[i], "-h", NULL});
        tool_result hlp = tool_run((const char *[]){"help", cmds[i], NULL});
        cr_expect_eq(lng.status, 0, "%s --help: exit %d", cmds[i], lng.status);
        cr_expect_eq(sht.status, 0, "%s -h: exit %d: %s", cmds[i], sht.status, sht.err);
        cr_expect_eq(hlp.status, 0, "help %s: exit %d: %s", cmds[i], hlp.status, hlp.err);
        char want[64];
        snprintf(want, sizeof want, "usage: numatile %s", cmds[i]);
        cr_expect(!strncmp(lng.out, want, strlen(want)), "%s --help starts: %.60s", cmds[i],
                  lng.out);
        cr_expect_str_eq(sht.out, lng.out, "%s -h differs from --help", cmds[i]);
        cr_expect_str_eq(hlp.out, lng.out, "help %s differs from %s --help", cmds[i], cmds[i]);
        cr_expect_str_empty(sht.err);
        cr_expect_str_empty(hlp.err);
        tool_result_free(&lng), tool_result_free(&sht), tool_result_free(&hlp);
        free(cmds[i]);
    }
}

Test(cli_usage, help_alone_is_the_general_usage_and_help_of_a_stranger_is_refused)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    tool_result top = tool_run((const char *[]){"--help", NULL});
    tool_result hlp = tool_run((const char *[]){"help", NULL});
    cr_expect_eq(hlp.status, 0);
    cr_expect_str_eq(hlp.out, top.out);
    tool_result_free(&top), tool_result_free(&hlp);
    expect_usage((const char *[]){"help", "bogus", NULL}, "numatile help: unknown command 'bogus'");
    expect_usage((const char *[]){"help", "topo", "plan", NULL},
                 "numatile help: one command at a time (unexpected 'plan')");
}

Test(cli_usage, a_missing_value_is_named)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    expect_usage((const char *[]){"plan", "--m", NULL},
                 "numatile plan: option '--m' needs a value");
    expect_usage((const char *[]){"plan", "--m", "8", "--n", NULL},
                 "numatile plan: option '--n' needs a value");
    // The value forgotten in the middle: the next option is not taken as the value.
    expect_usage((const char *[]){"plan", "--m", "--n", "8", NULL},
                 "numatile plan: option '--m' needs a value ('--n' is an option)");
    expect_usage((const char *[]){"topo", "--synthetic", "--json", NULL},
                 "numatile topo: option '--synthetic' needs a value ('--json' is an option)");
    // An abbreviation is named by the option it stands for.
    expect_usage((const char *[]){"gemm", "--dis", NULL},
                 "numatile gemm: option '--dist' needs a value");
    expect_usage((const char *[]){"bench", "--out", NULL},
                 "numatile bench: option '--out' needs a value");
    // A value glued with '=' is the user's explicit choice: judged as a value.
    expect_usage((const char *[]){"plan", "--m=--n", NULL},
                 "numatile plan: --m: '--n' is not a size in 1..2^31-1");
}

Test(cli_usage, an_unknown_option_is_named_in_every_subcommand)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char *cmds[MAX_CMDS];
    int n = subcommands(cmds);
    for (int i = 0; i < n; i++) {
        char want[128];
        snprintf(want, sizeof want, "numatile %s: unknown option '--bogus'", cmds[i]);
        expect_usage((const char *[]){cmds[i], "--bogus", NULL}, want);
        snprintf(want, sizeof want, "numatile %s: unknown option '-x'", cmds[i]);
        expect_usage((const char *[]){cmds[i], "-x", NULL}, want);
        snprintf(want, sizeof want, "numatile %s: option '--json' takes no value (in "
                 "'--json=1')", cmds[i]);
        expect_usage((const char *[]){cmds[i], "--json=1", NULL}, want);
        free(cmds[i]);
    }
}

Test(cli_usage, a_near_miss_or_a_single_dash_gets_a_suggestion)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    expect_usage((const char *[]){"topo", "--jsno", NULL},
                 "numatile topo: unknown option '--jsno' (did you mean --json?)");
    expect_usage((const char *[]){"topo", "-json", NULL},
                 "numatile topo: unknown option '-json' (did you mean --json?)");
    expect_usage((const char *[]){"plan", "-m", "8", NULL},
                 "numatile plan: unknown option '-m' (did you mean --m?)");
    expect_usage((const char *[]){"topo", "-xj", NULL}, "numatile topo: unknown option '-xj'");
    // Nothing close: no guess.
    expect_usage((const char *[]){"topo", "--fr", NULL}, "numatile topo: unknown option '--fr'");
}

// Unique prefixes are accepted (getopt_long's rule, which scripts may rely on); a prefix of
// several options is refused with the candidates.
Test(cli_usage, an_ambiguous_prefix_lists_the_candidates)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    expect_usage((const char *[]){"plan", "--fr", NULL},
                 "numatile plan: option '--fr' is ambiguous (--from, --from-layout)");
    expect_usage((const char *[]){"plan", "--fr=4x4@bc1d:2", NULL},
                 "numatile plan: option '--fr' is ambiguous (--from, --from-layout)");
    // Four candidates: every one is listed.
    expect_usage((const char *[]){"redist", "--t", NULL},
                 "numatile redist: option '--t' is ambiguous (--to, --to-layout, --threads, "
                 "--type)");
    expect_usage((const char *[]){"redist", "--s", NULL},
                 "numatile redist: option '--s' is ambiguous (--synthetic, --sub, --schedule, "
                 "--seed)");
    json_t *j = tool_json((const char *[]){"topo", "--dom", "3", "--js", NULL});
    cr_expect_eq(json_array_size(json_object_get(j, "domain_list")), 3);
    json_decref(j);
}

// Run `numatile ARGS` on a pseudo-terminal with NO_COLOR set to `no_color` (NULL: unset);
// whether the output has an escape sequence.
static bool coloured(const char *no_color, const char *const *args)
{
    int master;
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    cr_assert_neq(pid, -1, "forkpty failed");
    if (pid == 0) {
        if (no_color)
            setenv("NO_COLOR", no_color, 1);
        else
            unsetenv("NO_COLOR");
        char *argv[16] = {(char *)tool_path()};
        for (int i = 0; args[i] && i < 14; i++)
            argv[i + 1] = (char *)args[i];
        execv(argv[0], argv);
        _exit(127);
    }
    char buf[4096];
    size_t len = 0;
    ssize_t k;
    // Read until the child is gone (EIO on Linux once the slave side is closed).
    while ((k = read(master, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)k;
    buf[len] = '\0';
    close(master);
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "tool failed on a terminal: %s", buf);
    cr_assert_not_null(strstr(buf, "tiles per domain"), "unexpected output: %s", buf);
    return strchr(buf, '\033') != NULL;
}

Test(cli_usage, only_a_non_empty_no_color_turns_colour_off)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    const char *const args[] = {"partition", "--speeds", "2,1", "--n", "4", "--algo", "column",
                                "--dump", NULL};
    cr_expect(coloured(NULL, args), "no colour on a terminal without NO_COLOR");
    cr_expect(coloured("", args), "NO_COLOR= (empty) turned colour off");
    cr_expect(!coloured("1", args), "NO_COLOR=1 left colour on");
}

// An XML file that is not there is named as missing (any case of ".xml"), not as invalid XML.
Test(cli_usage, a_missing_xml_file_is_said_to_be_missing)
{
    if (!tool_path())
        cr_skip("NT_TOOL not set");
    char dir[] = "/tmp/nt_cli_usage_XXXXXX", path[64], want[160];
    cr_assert_not_null(mkdtemp(dir));
    for (int upper = 0; upper < 2; upper++) {
        snprintf(path, sizeof path, "%s/none.%s", dir, upper ? "XML" : "xml");
        snprintf(want, sizeof want, "numatile topo: --synthetic: cannot read '%s': No such file "
                 "or directory", path);
        expect_usage((const char *[]){"topo", "--synthetic", path, NULL}, want);
    }
    rmdir(dir);
}
