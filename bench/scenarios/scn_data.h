// Reading the papers' data files under bench/data (shared by the scenarios that print a paper's
// values beside theirs): whitespace-separated fields, '#' to the end of a line is a comment,
// blank lines skipped; errors name the file and the line.
#ifndef NUMATILE_BENCH_SCN_DATA_H
#define NUMATILE_BENCH_SCN_DATA_H

#include <stdbool.h>

#include "harness.h"

enum { SCN_DATA_MAXF = 32 }; // fields per line

typedef struct scn_data_row {
    int line;                  // 1-based line number in the file
    int nf;                    // fields on the line
    char *f[SCN_DATA_MAXF];    // the fields (pointers into the file's text)
} scn_data_row;

typedef struct scn_data {
    char *path;         // the file read
    char *text;         // its text, cut into fields
    scn_data_row *rows; // the non-blank lines
    int nrows;
} scn_data;

// The directory of the data files: $NUMATILE_DATA if set, else the source tree's bench/data
// compiled in (NT_DATA_DIR) if it exists, else the installed copy (NT_DATA_INSTALL_DIR).
const char *scn_data_dir(void);

// Read NAME from scn_data_dir() into *d (scn_data_free it). 0, or the tool's exit code 3 after
// printing "numatile bench SCENARIO: PATH: why".
int scn_data_load(const bench_run *r, const char *name, scn_data *d);

void scn_data_free(scn_data *d);

// Print "numatile bench SCENARIO: PATH:LINE: message" and return the exit code 3.
int scn_data_error(const bench_run *r, const scn_data *d, const scn_data_row *row,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

// Field k of row as a finite number into *v; false after printing the file:line error.
bool scn_data_num(const bench_run *r, const scn_data *d, const scn_data_row *row, int k,
                  double *v);

#endif
