// `numatile`: the command-line tool. Each subcommand lives in its own file of bench/cli/.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"


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
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: numatile COMMAND [options]   (numatile COMMAND --help for its options)\n\n"
               "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nexit status: 0 ok, 1 a --verify check failed, 2 bad arguments, "
               "3 run-time failure\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("numatile %s\ntile kernels: %s\n", nt_version(), nt_blas_name());
        return CLI_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    cli_eprintf("numatile: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
