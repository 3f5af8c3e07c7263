/*
 * xarray_backend.h - the per-device data of the XArray baseline backend
 * (kernel 6.17), shared with the core's inlined swap-cache lookup. See
 * xarray_backend.c and docs/xarray-baseline.md.
 */
#ifndef SWS_XARRAY_BACKEND_H
#define SWS_XARRAY_BACKEND_H

#include "../common/spinlock.h"
#include "xarray.h"

#define SWAP_ADDRESS_SPACE_SHIFT 14
#define SWAP_ADDRESS_SPACE_MASK ((1u << SWAP_ADDRESS_SPACE_SHIFT) - 1)
#define MAP_PAGE_SLOTS SWS_PAGE_SIZE /* swap_map bytes per page */

/* One struct address_space, reduced to what the swap cache uses; one cache line. */
struct xa_space {
	_Alignas(SWS_CACHELINE) sws_spinlock_t lock; /* xa_lock */
	struct sws_xa tree;                          /* i_pages */
	uint64_t alloc_seen, retired_seen;           /* tree counters already counted (xa_lock) */
};

/* A continuation page: one digit per slot of one swap_map page. */
struct cont_page {
	uint8_t digit[MAP_PAGE_SLOTS];
	struct cont_page *next; /* the next, higher digit */
};

/* dev->cache */
struct xa_dev {
	struct xa_space *spaces;
	uint32_t nr_spaces;
	uint32_t nr_map_pages;
	_Atomic uint8_t *swap_map;
	uint16_t *memcg;            /* swap_cgroup; ci->lock */
	_Atomic uint64_t *zeromap;
	sws_spinlock_t cont_lock;   /* si->cont_lock: nests inside ci->lock */
	struct cont_page **cont;    /* [nr_map_pages] first digit pages; NULL until needed */
};

/*
 * filemap_get_folio() on the swap address space (swap_address_space(entry),
 * swap_cache_index(entry)): an RCU tree walk, no lock, from the device's
 * address spaces (dev->cache_index). RCU read lock held.
 * @return the PFN cached for slot @off, or 0.
 */
static inline uint64_t sws__xa_swap_lookup(struct xa_space *spaces, uint64_t off, unsigned *loads)
{
	uintptr_t e = sws__xa_load_counted(&spaces[off >> SWAP_ADDRESS_SPACE_SHIFT].tree,
					   off & SWAP_ADDRESS_SPACE_MASK, loads);
	return xa_is_pfn(e) ? xa_to_pfn(e) : 0;
}

#endif
