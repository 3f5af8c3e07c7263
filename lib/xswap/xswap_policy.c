/*
 * xswap_policy.c - xswap sizing rules (see xswap_policy.h). Written from the
 * series' description; the numbers are the kernel's.
 */
#include "xswap_policy.h"
#include <swapsim/device.h>

static uint64_t div_up(uint64_t v, uint64_t d) { return v / d + (v % d != 0); /* no overflow */ }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

uint32_t sws__xswap_max_clusters(uint64_t ram_pages)
{
	uint64_t slots = ram_pages > UINT32_MAX / 2 ? UINT32_MAX : 2 * ram_pages;
	return (uint32_t)(slots / SWS_CLUSTER_SLOTS);
}

uint32_t sws__xswap_initial_clusters(uint64_t ram_pages)
{
	return (uint32_t)min64(div_up(ram_pages, SWS_CLUSTER_SLOTS), sws__xswap_max_clusters(ram_pages));
}

uint32_t sws__xswap_limit_clusters(uint64_t value, uint64_t inuse_pages, uint32_t max_clusters)
{
	uint64_t c = min64(div_up(value, SWS_CLUSTER_SLOTS), max_clusters);
	uint64_t floor = div_up(inuse_pages + 1, SWS_CLUSTER_SLOTS); /* the header slot too */
	return (uint32_t)(c > floor ? c : floor);
}

uint64_t sws__xswap_pages(uint32_t clusters, uint32_t max_clusters, uint64_t inuse_pages)
{
	uint64_t slots = min64((uint64_t)clusters, max_clusters) * SWS_CLUSTER_SLOTS;
	uint64_t pages = slots ? slots - 1 : 0;
	return pages > inuse_pages ? pages : inuse_pages;
}

uint32_t sws__xswap_grow_step(uint32_t mapped, uint32_t limit)
{
	if (mapped >= limit)
		return 0;
	return (uint32_t)min64(limit - mapped, SWS_XSWAP_CHUNK_CLUSTERS);
}

uint32_t sws__xswap_shrink_count(uint32_t mapped, uint32_t limit, uint64_t inuse_pages,
				 uint32_t free_tail)
{
	if (mapped <= 1)
		return 0; /* cluster 0 (the header) always stays */
	if (limit < mapped)
		return mapped - (limit ? limit : 1);
	if (inuse_pages * 2 > (uint64_t)mapped * SWS_CLUSTER_SLOTS)
		return 0; /* more than half in use: keep it all */
	if (free_tail > mapped - 1)
		free_tail = mapped - 1;
	if (free_tail < SWS_XSWAP_SHRINK_SLACK + SWS_XSWAP_SHRINK_MIN)
		return 0;
	return (free_tail - SWS_XSWAP_SHRINK_SLACK) / SWS_XSWAP_CHUNK_CLUSTERS * SWS_XSWAP_CHUNK_CLUSTERS;
}
