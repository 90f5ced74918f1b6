// `numatile`: the command-line tool. Each subcommand lives in its own file of tool/.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_env.h"
#include "commands.h"
#include "harness.h"

static const cli_cmd commands[] = {
    {"topo", "domains, cpus, memory and distances of this (or a described) machine", cmd_topo},
    {"match", "optimal relabelling of a target partition (instance file)", cmd_match},
    {"schedule", "one-port step schedule of the matched redistribution", cmd_schedule},
    {"plan", "plan a tiled-matrix redistribution (no memory touched)", cmd_plan},
    {"redist", "plan and execute a redistribution, measure it", cmd_redist},
    {"gemm", "owner-computes tiled GEMM on placed tiles", cmd_gemm},
    {"qr", "owner-computes tiled QR on placed tiles", cmd_qr},
    {"stencil", "1D stencil on domains, with or without repartitioning", cmd_stencil},
    {"partition", "heterogeneous partitions for matrix products", cmd_partition},
    {"bench", "benchmark scenarios (--list)", cmd_bench},
    {"calibrate", "measure the machine profile the advisor uses", cmd_calibrate},
    {"advise", "redistribute or not, and to what: ranked predictions", cmd_advise},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: numatile COMMAND [options]   (numatile help COMMAND: its options)\n\n"
               "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nexit status: 0 ok, 1 a --verify check failed, 2 bad arguments, "
               "3 run-time failure\n");
}

static const cli_cmd *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

// `numatile help [CMD]`: the general usage, or CMD's own help exactly as `CMD --help` prints it
// (the subcommand prints it, so the two cannot drift apart).
static int help(int argc, char **argv)
{
    if (argc < 3 || !strcmp(argv[2], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (argc > 3) {
        cli_eprintf("numatile help: one command at a time (unexpected '%s')\n", argv[3]);
        return CLI_USAGE;
    }
    const cli_cmd *c = find_command(argv[2]);
    if (!c) {
        cli_eprintf("numatile help: unknown command '%s'\n", argv[2]);
        usage(stderr);
        return CLI_USAGE;
    }
    char name[32], opt[] = "--help";
    snprintf(name, sizeof name, "%s", c->name);
    char *hargv[] = {name, opt, NULL};
    return c->run(2, hargv);
}

// An interrupted run leaves no partial file: the temporaries of the files being written are
// removed, then the signal takes its default course (the shell sees the usual status).
static void on_signal(int sig)
{
    bench_atomic_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        // A signal ignored by the parent (nohup, `cmd &` without job control) stays ignored.
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

// What the command printed must have reached stdout: a full disk or a closed pipe behind it is
// a run-time failure (exit 3), not a success with half the output.
static int check_stdout(int rc)
{
    errno = 0;
    bool bad = fflush(stdout) != 0 || ferror(stdout);
    int err = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    if (!bad)
        return rc;
    cli_eprintf("numatile: cannot write the standard output: %s\n",
                err ? strerror(err) : "write error");
    return rc == CLI_OK || rc == CLI_HELP_SHOWN ? CLI_RUNTIME : rc;
}

// Commands whose --out names a file written at the end of a long run (calibrate): checked
// before the run, so a wrong directory costs no measurement. The command checks its options
// itself; only "--out FILE" and "--out=FILE" are looked at here.
static int check_out_first(const char *cmd, int argc, char **argv)
{
    if (strcmp(cmd, "calibrate") != 0)
        return CLI_OK;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            return cli_check_out(cmd, "--out", argv[i + 1]);
        if (!strncmp(argv[i], "--out=", 6))
            return cli_check_out(cmd, "--out", argv[i] + 6);
    }
    return CLI_OK;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "help"))
        return help(argc, argv);
    if (!strcmp(argv[1], "--version")) {
        printf("numatile %s\ntile kernels: %s\n", nt_version(), nt_blas_name());
        return CLI_OK;
    }
    const cli_cmd *c = find_command(argv[1]);
    if (c) {
        int rc = cli_env_check(c->name, argc - 1, argv + 1);
        if (rc == CLI_OK)
            rc = check_out_first(c->name, argc - 1, argv + 1);
        return rc != CLI_OK ? rc : c->run(argc - 1, argv + 1);
    }
    cli_eprintf("numatile: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}

int main(int argc, char **argv)
{
    catch_signals();
    return check_stdout(run(argc, argv));
}
