// The environment checks every subcommand gets before it runs (cli_env.c).
#ifndef NUMATILE_TOOL_CLI_ENV_H
#define NUMATILE_TOOL_CLI_ENV_H

// Once at start of a command that runs threads: print why OMP_PLACES / OMP_PROC_BIND are not
// followed, if they are not; refuse (CLI_USAGE, the cause named) a command that places memory or
// binds threads when hwloc's environment describes another machine. CLI_OK otherwise, also when
// the topology cannot be loaded (the command then reports that itself).
int cli_env_check(const char *cmd, int argc, char **argv);

#endif
