/*
 * designs.h - every per-slot metadata design's ops table (docs/designs.md).
 * Only designs.c, the registry, includes this: the core knows no design.
 */
#ifndef SWS_DESIGN_DESIGNS_H
#define SWS_DESIGN_DESIGNS_H

#include "../swap/design.h"

#include "swap_table/swap_table.h" /* sws__st_p1_ops .. sws__st_p4_ops (phases I to IV) */

extern const struct sws_design_ops sws__xarray_ops; /* 6.17 (xarray.c) */
extern const struct sws_design_ops sws__vswap_ops;  /* vswap v3 to v5 (vswap.c) */

#endif
