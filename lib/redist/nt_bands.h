// Source bands of stored segments (exec_bands.c), for the stored-segment strategy
// (exec_segments.c) in source order: the segments of one source tile that share its columns
// (pieces of each of its columns for several targets), listed one after the other by rows and
// copied column by column, so that every source column is read once, top to bottom, instead of
// every other piece of it per pass.
#ifndef NUMATILE_BANDS_INTERNAL_H
#define NUMATILE_BANDS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "numatile/matrix.h"
#include "numatile/plan.h"

// What the band copies read: whether there are bands (source order), the matrices, the plan's
// segments, one work list (indices into seg) and the execution's copy flags (nt_copy.h). Set
// by the executor; the band functions only read it.
typedef struct nt_bands {
    bool on;
    const nt_matrix_t *src;
    nt_matrix_t *dst;
    const nt_segment_t *seg;
    const int64_t *list;
    unsigned copy_flags;
} nt_bands;

// The order in which the segments are listed for bands: by source tile (counting sort of the
// ntiles tiles of the source), within a tile by source column, then row. NULL when memory is
// short (the plan's order then: only slower). The caller frees the result.
int64_t *nt_bands_order(const nt_segment_t *seg, int64_t nseg, int64_t ntiles);

// End of the unit of work that starts at list[k] (k < hi): with bands, the next entries of the
// same band (same source tile, same columns; at most NT_BAND_MAX in all), else k + 1.
enum { NT_BAND_MAX = 32 };
int64_t nt_band_end(const nt_bands *b, int64_t k, int64_t hi);

// Copy columns [c0, c1) (relative to the band's columns) of the band list[lo..hi), each piece
// with the strategy of its whole segment (nt_copy_kind_of), without a final store fence (the
// task fences). Returns the bytes copied.
int64_t nt_band_copy(const nt_bands *b, int64_t lo, int64_t hi, int64_t c0, int64_t c1);

#endif
