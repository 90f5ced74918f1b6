// What lib/advisor/profile.c (the profile object) and lib/advisor/profile_json.c (its file format) share.
// Internal; not installed.
#ifndef NUMATILE_PROFILE_INTERNAL_H
#define NUMATILE_PROFILE_INTERNAL_H

#include "numatile/profile.h"

// Name of tile kernel k in messages and in the JSON object "tile_seconds".
static inline const char *nt_tk_name(int k)
{
    static const char *const names[NT_TK_COUNT] = {"gemm", "geqrt", "unmqr", "tsqrt", "tsmqr"};
    return k >= 0 && k < NT_TK_COUNT ? names[k] : "unknown";
}

#endif
