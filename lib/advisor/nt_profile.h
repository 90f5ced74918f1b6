// What lib/advisor/profile.c (the profile object) and lib/advisor/profile_json.c (its file
// format) share: the tile kernels' names come from the registry. Internal; not installed.
#ifndef NUMATILE_PROFILE_INTERNAL_H
#define NUMATILE_PROFILE_INTERNAL_H

#include "lib/kernels/tile/nt_tile_registry.h"
#include "numatile/profile.h"

#endif
