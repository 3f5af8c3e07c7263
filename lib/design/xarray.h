/*
 * xarray.h - the per-device data of the 6.17 design (xarray.c,
 * docs/design-xarray.md): the swap cache as one XArray per 64 MiB of swap.
 */
#ifndef SWS_DESIGN_XARRAY_H
#define SWS_DESIGN_XARRAY_H

#include "locked_xa.h"
#include "static_maps.h"
#include "swap_map.h"

#define SWAP_ADDRESS_SPACE_SHIFT 14
#define SWAP_ADDRESS_SPACE_MASK ((1u << SWAP_ADDRESS_SPACE_SHIFT) - 1)

/* One struct address_space, reduced to what the swap cache uses (i_pages
 * under its xa_lock); one cache line. */
struct xa_space {
	_Alignas(SWS_CACHELINE) struct locked_xa lx;
};

/* dev->design */
struct xa_dev {
	struct xa_space *spaces; /* swapper_spaces[type] */
	uint32_t nr_spaces;
	struct swap_map map;
	struct swap_cgroup cgroup;
	struct zeromap zeromap;
};

#endif
