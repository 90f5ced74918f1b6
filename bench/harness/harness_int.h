// The run state the harness's files share among themselves (run.c, console.c, output.c); not
// for scenarios, which see only harness.h.
#ifndef NUMATILE_BENCH_HARNESS_INT_H
#define NUMATILE_BENCH_HARNESS_INT_H

#include "harness.h"

struct bench_state {
    json_t *params, *labels, *rows, *summary, *notices;
    FILE *txt;          // NAME.txt copy of the human output, or NULL
    double t0;          // start of the run
    double last_line;   // last plain progress line (non-terminal)
    int last_permille;  // last bar drawn (terminal)
    bool bar_open;      // a bar line is on the terminal without its newline
};

// fprintf to stderr with every non-printable byte of the result escaped (nt_escape; the
// format's own newlines kept): for messages that echo paths given on the command line (--out).
void bench_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// Close a progress bar left open on the terminal before anything else is written there.
void bench_close_bar(bench_run *r);

// Write NAME.json (the whole record: command and start time as given, wall seconds) and
// NAME.csv into the output directory. 0, or -1 after a message on stderr.
int bench_write_results(bench_run *r, const char *command, const char *started, double wall);

// The --json document of the run: the envelope (command "bench", the run's parameters), then
// "scenario", "notices" and the summary's fields (docs/json.md). New reference.
json_t *bench_summary_doc(const bench_run *r);

// Remove the keys that begin with '_' from v and every object or array inside it.
void bench_drop_display_keys(json_t *v);

#endif
