// Micro-benchmark behind the MPI executor's column walks (mpi/walk.c): a 2048 x 2048 matrix of
// doubles is written from 4 packed messages (2 x 2 process grid, pieces of P rows and blocks of P
// columns alternating between the messages), once message by message (each message's pieces in
// turn: every column written in strided pieces, once per message) and once column by column (each
// column's pieces in row order, taken from whichever message holds them), beside a plain memcpy of
// the same bytes. Prints GB/s of each, per repetition. Not part of the tool: `make micro` builds it
// (build/bin/); by hand:
//   cc -O2 bench/micro/column_order.c -o build/bin/column_order
//   build/bin/column_order [P] [reps]      (P rows per piece, default 32)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const int n = 2048;
    int p = argc > 1 ? atoi(argv[1]) : 32, reps = argc > 2 ? atoi(argv[2]) : 7;
    if (p < 1 || n % (2 * p) || reps < 1) {
        fprintf(stderr, "column_order: P must divide %d / 2, reps >= 1\n", n);
        return 2;
    }
    size_t count = (size_t)n * n, bytes = count * sizeof(double);
    double *b = malloc(bytes), *msg = malloc(bytes);
    if (!b || !msg)
        return 1;
    memset(b, 1, bytes);
    memset(msg, 2, bytes);
    printf("column_order: %d x %d doubles from 4 messages, pieces of %d rows; GB/s\n", n, n, p);
    for (int rep = 0; rep < reps; rep++) {
        // Message (i, j) holds rows with (row / p) % 2 == i of columns with (col / p) % 2 == j,
        // packed column after column.
        double t0 = now();
        size_t off = 0;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                for (int c = 0; c < n; c++) {
                    if ((c / p) % 2 != j)
                        continue;
                    for (int r = i * p; r < n; r += 2 * p, off += (size_t)p)
                        memcpy(b + (size_t)c * n + r, msg + off, (size_t)p * sizeof(double));
                }
        double t1 = now();
        size_t at[4] = {0, count / 4, count / 2, 3 * count / 4};
        for (int c = 0; c < n; c++)
            for (int r = 0; r < n; r += p) {
                int m = ((r / p) % 2) * 2 + (c / p) % 2;
                memcpy(b + (size_t)c * n + r, msg + at[m], (size_t)p * sizeof(double));
                at[m] += (size_t)p;
            }
        double t2 = now();
        memcpy(b, msg, bytes);
        double t3 = now();
        printf("message by message %6.2f   column by column %6.2f   plain copy %6.2f\n",
               (double)bytes / (t1 - t0) / 1e9, (double)bytes / (t2 - t1) / 1e9,
               (double)bytes / (t3 - t2) / 1e9);
    }
    free(b);
    free(msg);
    return 0;
}
