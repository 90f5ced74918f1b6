// Copy kernels of the executors (stored segments in lib/redist/exec_segments.c, periodic
// plans): one call copies a 2D strided block between two column-major arrays and picks its own
// strategy.
// Implemented in copy.c.
#ifndef NUMATILE_COPY_INTERNAL_H
#define NUMATILE_COPY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

// How a block is copied. NT_COPY_AUTO is what callers want; the others force one strategy
// (unit tests of each path, the micro-benchmark, before/after comparisons).
typedef enum nt_copy_kind {
    NT_COPY_AUTO = 0,  // contiguous -> one copy; long columns -> one copy each; short columns
                       // -> the inline blocked loop; streaming stores only with NT_COPY_STREAM
    NT_COPY_COLUMNS,   // one memcpy per column (or one for a contiguous block): the old kernel
    NT_COPY_BLOCKED,   // inline small-chunk copy per column, no library call per column
    NT_COPY_NT         // non-temporal (streaming) stores where the cpu has them, then a fence
} nt_copy_kind;

// Flags of nt_copy_2d_ex().
enum {
    // The destination will not be read again soon (a redistribution much larger than the
    // caches): large blocks may bypass the caches with streaming stores, which saves the read
    // for ownership of every destination line. Only a hint; small blocks ignore it.
    NT_COPY_STREAM = 1u,
    // Leave out the store fence after streaming stores: the caller issues nt_copy_fence()
    // itself once after a series of copies (a fence per small block costs more than it is).
    NT_COPY_NOFENCE = 2u
};

// The store fence that orders earlier streaming stores of this thread before its later stores
// (nothing on cpus without streaming stores).
void nt_copy_fence(void);

// Copy a rows x cols block of elem_size-byte elements, column-major: element (i, j) of the
// block is at src + (j*lds + i)*elem_size and goes to dst + (j*ldd + i)*elem_size. Leading
// dimensions are in elements and must be >= rows when cols > 1 (any value when cols == 1).
// Any alignment of dst and src; the two blocks must not overlap. rows or cols <= 0 copies
// nothing. Thread-safe; the calling thread does all the work.
void nt_copy_2d(void *dst, int64_t ldd, const void *src, int64_t lds, int64_t rows,
                int64_t cols, size_t elem_size);

// The same with flags (NT_COPY_STREAM) and, for tests and benchmarks, a forced strategy.
// Streaming stores are weakly ordered: when this call used them it ends with a store fence
// (unless NT_COPY_NOFENCE), so its stores are visible to other threads after the usual
// synchronisation (task end, barrier), like ordinary stores.
void nt_copy_2d_ex(void *dst, int64_t ldd, const void *src, int64_t lds, int64_t rows,
                   int64_t cols, size_t elem_size, unsigned flags, nt_copy_kind kind);

// The strategy NT_COPY_AUTO takes for a rows x cols block of elem_size-byte elements with
// these flags when its columns are apart on either side: a caller that copies such a block
// column by column in several calls passes it to each, so that they copy as one call would.
nt_copy_kind nt_copy_kind_of(int64_t rows, int64_t cols, size_t elem_size, unsigned flags);

// Blocks of at least this many bytes take streaming stores under NT_COPY_STREAM (measured: a
// 10 KiB block of 288-byte columns already copies 1.8x faster streamed; below a few lines the
// fence and the partial lines are all there is).
#define NT_COPY_STREAM_MIN ((size_t)4 << 10)

// Executions that copy at least this many bytes in all ask for NT_COPY_STREAM: their target
// cannot stay in the caches (32 MiB of L3 on the machine we measured, most have less per
// domain), so reading each target line before writing it would only cost memory bandwidth.
// The same-run copy bound (exec_team.c) follows the same rule, so that it copies as fast as
// the library can copy contiguous bytes.
#define NT_COPY_STREAM_BYTES ((int64_t)32 << 20)

// The threshold in force: NT_COPY_STREAM_BYTES unless a test changed it.
int64_t nt_copy_stream_bytes(void);

// Test hook: stream executions from `bytes` copied on (0: all of them, so that small random
// executions run the streaming paths); bytes < 0 restores the default.
void nt_copy_test_stream_above(int64_t bytes);

// Columns shorter than a cache line keep ordinary stores even under NT_COPY_STREAM: they have
// no whole destination line to stream (measured: 64-byte columns still gain a little).
#define NT_COPY_STREAM_COL ((size_t)64)

// True when this cpu has the streaming-store path (x86-64 with SSE2; AVX2 widens it).
int nt_copy_has_stream(void);

#endif
