/**
 * \file numatile.h
 * \brief Umbrella header: includes every public numatile header.
 */
#ifndef NUMATILE_H
#define NUMATILE_H

#include "numatile/error.h"
#include "numatile/version.h"
#include "numatile/topo.h"
#include "numatile/mem.h"
#include "numatile/dist.h"
#include "numatile/instance.h"
#include "numatile/match.h"
#include "numatile/sched.h"
#include "numatile/stencil_model.h"
#include "numatile/hetero.h"
#include "numatile/matrix.h"
#include "numatile/pool.h"
#include "numatile/plan.h"
#include "numatile/kernels.h"
#include "numatile/profile.h"
#include "numatile/advise.h"
#include "numatile/tiers.h"
#include "numatile/task.h"
#include "numatile/wrap.h"
#include "numatile/convert.h"

#endif
