// The subcommands of `numatile`, one file each in tool/ (plan and redist share cmd_plan.c);
// main.c's table lists them.
// Each takes the arguments after `numatile` (argv[0] is the subcommand's name) and returns the
// tool's exit code (cli.h).
#ifndef NUMATILE_TOOL_COMMANDS_H
#define NUMATILE_TOOL_COMMANDS_H

int cmd_topo(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_schedule(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_redist(int argc, char **argv);
int cmd_gemm(int argc, char **argv);
int cmd_qr(int argc, char **argv);
int cmd_stencil(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_advise(int argc, char **argv);

#endif
