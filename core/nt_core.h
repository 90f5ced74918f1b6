// Helpers every module shares: error reporting, checked arithmetic, a fixed PRNG, a clock.
// Not installed; only include/ is public.
#ifndef NUMATILE_CORE_H
#define NUMATILE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numatile/error.h"

// Record a printf-style message for nt_last_error() and return code, so callers can write
// `return nt_fail(NT_EINVAL, "domain %d out of range", d);`.
nt_status nt_fail(nt_status code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Read a whole regular file of at most max bytes (core/file.c), NUL-terminated (*text is the
// caller's to free). Never blocks: a FIFO, device or directory is refused (NT_EINVAL), a larger
// file too (NT_ERANGE), both before any allocation; `what` names the input in messages.
nt_status nt_read_file(const char *path, size_t max, const char *what, char **text, size_t *len);

// Write len bytes of text to path whole or not at all (core/outfile.c): a temporary file
// ".NAME.tmp-XXXXXX" beside it is written, synced, closed and renamed over path. NT_EIO: the
// temporary cannot be created (no such directory, not writable); NT_ESYS: a write, the sync,
// close or rename failed (full disk), the temporary is removed and path keeps its previous
// contents. A device or FIFO at path is written in place; a directory is refused (NT_EINVAL).
nt_status nt_write_file(const char *path, const char *text, size_t len, const char *what);

// Seconds on a monotonic clock: only differences of two calls mean anything.
double nt_now(void);

// a*b and a+b into *out; false (and *out untouched) on overflow.
static inline bool nt_mul_size(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return false;
    *out = r;
    return true;
}

static inline bool nt_add_size(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_add_overflow(a, b, &r))
        return false;
    *out = r;
    return true;
}

// Greatest common divisor of a, b >= 0 (a when b is 0).
static inline int64_t nt_gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static inline bool nt_mul_i64(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return false;
    *out = r;
    return true;
}

// splitmix64: a fixed generator so that a seed gives the same stream on every machine.
typedef struct nt_rng {
    uint64_t state;
} nt_rng;

static inline uint64_t nt_rng_next(nt_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// __extension__ keeps -Wpedantic quiet about the 128-bit product gcc and clang provide.
__extension__ typedef unsigned __int128 nt_u128;

// Uniform integer in [0, n) for n >= 1, without modulo bias (Lemire's rejection method).
static inline uint64_t nt_rng_below(nt_rng *r, uint64_t n)
{
    nt_u128 m = (nt_u128)nt_rng_next(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t t = (0 - n) % n;
        while (lo < t) {
            m = (nt_u128)nt_rng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

// Uniform double in [0, 1) with 53 random bits.
static inline double nt_rng_unit(nt_rng *r)
{
    return (double)(nt_rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
