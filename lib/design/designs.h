/*
 * designs.h - every per-slot metadata design's ops table (docs/designs.md),
 * by the file that defines it. Only designs.c, the registry, includes this:
 * the core knows no design. The pieces several designs share have their own
 * headers: swap_map.h (swap_map.c), static_maps.h (static_maps.c),
 * locked_xa.h and virtual_device.h (inline only); xarray.h holds the 6.17 design's per-device
 * types.
 */
#ifndef SWS_DESIGN_DESIGNS_H
#define SWS_DESIGN_DESIGNS_H

#include "../swap/design.h"

/* swap_table/phase12.c, swap_table/phase34.c: sws__st_p1_ops .. sws__st_p4_ops
 * (phases I to IV), declared in the folder's index, swap_table/swap_table.h. */
#include "swap_table/swap_table.h"

/* xarray.c */
extern const struct sws_design_ops sws__xarray_ops; /* 6.17 */

/* vswap/vswap.c: sws__vswap (its ops table and its hooks in the shared
 * core, vswap/core.c), declared in the folder's index, vswap/vswap.h. */
#include "vswap/vswap.h"

#endif
