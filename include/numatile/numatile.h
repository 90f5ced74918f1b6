/**
 * \file numatile/numatile.h
 * \brief Umbrella header under the numatile/ directory: `#include <numatile/numatile.h>` is
 *        the same as `#include <numatile.h>` (every public header; either or both may be
 *        included).
 */
#ifndef NUMATILE_NUMATILE_H
#define NUMATILE_NUMATILE_H

// Relative to this file, so it works from the source tree and from any installed prefix.
#include "../numatile.h"

#endif
