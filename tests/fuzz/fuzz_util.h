// What the libFuzzer harnesses of tests/fuzz share: reading bounded values from the fuzzer's
// bytes, the size bound on synthetic topology descriptions, scratch files, and the checks'
// failure report (abort, so libFuzzer keeps the input).
#ifndef NUMATILE_FUZZ_UTIL_H
#define NUMATILE_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile.h"

// The fuzzer's input, consumed from the front.
typedef struct fuzz_in {
    const uint8_t *p;
    size_t n;
} fuzz_in;

// One byte (0 once the input is used up).
uint8_t fuzz_byte(fuzz_in *in);
// A value in lo..hi (inclusive) from the next bytes; lo once the input is used up.
int64_t fuzz_range(fuzz_in *in, int64_t lo, int64_t hi);
// The rest of the input as a NUL-terminated string (embedded NULs cut it short); never NULL.
char *fuzz_rest_string(fuzz_in *in);

// A failed check: print the reason (and nt_last_error()) and abort, so that libFuzzer records
// the input as a crash.
_Noreturn void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define FUZZ_CHECK(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond))                                                                           \
            fuzz_fail(__VA_ARGS__);                                                            \
    } while (0)

// Whether a synthetic description stays small enough to load in a fuzzing run: no hexadecimal
// numbers (hwloc reads arities with base 0) and the product of every number in it (each at
// least 1) at most max_objects. This bounds what hwloc builds: unbounded descriptions hang it
// (issue 13), which the harnesses report separately, not on every input. Each number is also
// at most FUZZ_WIDEST_LEVEL: hwloc inserts siblings in quadratic time, so one wide level
// ("4080", "core:4080 pu:1": 3-7 s alone) timed out a fuzzing run on a loaded machine.
#define FUZZ_WIDEST_LEVEL 512
bool fuzz_synthetic_bounded(const char *desc, uint64_t max_objects);

// Write len bytes to a scratch file named NAME (in a per-process directory on tmpfs when
// available, removed at exit) and return its path (static storage, valid until the next
// call); NULL if it cannot be written.
const char *fuzz_scratch_file(const char *name, const void *data, size_t len);

// The per-process scratch directory (created on first use, removed at exit with its files).
const char *fuzz_scratch_dir(void);

#endif
