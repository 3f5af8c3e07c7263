/*
 * xswap_policy.h - the sizing rules of an xswap device (docs/xswap.md; the
 * 2026 xswap series, v3) as pure functions of
 * cluster counts, so the device code only carries them out: the reserved and
 * initial size, the limit write, the grow step and the shrink decision.
 * Counts are clusters of 512 slots unless named pages.
 */
#ifndef SWS_SWAP_XSWAP_POLICY_H
#define SWS_SWAP_XSWAP_POLICY_H

#include <stdint.h>

/* XSWAP_GROW_CLUSTERS: one 4 KiB page of the kernel's 48-byte cluster_info. */
#define SWS_XSWAP_CHUNK_CLUSTERS 85u
/* Shrink keeps one chunk of slack and gives back at least four chunks at a time. */
#define SWS_XSWAP_SHRINK_SLACK SWS_XSWAP_CHUNK_CLUSTERS
#define SWS_XSWAP_SHRINK_MIN (4u * SWS_XSWAP_CHUNK_CLUSTERS)

/* Reserved address space: min(2 x RAM, UINT_MAX) slots, in whole clusters. */
uint32_t sws__xswap_max_clusters(uint64_t ram_pages);
/* The starting limit: one RAM, rounded up to a cluster, within the reservation. */
uint32_t sws__xswap_initial_clusters(uint64_t ram_pages);
/* A limit write of @value pages: clusters covering it, at most @max_clusters, at
 * least those covering the pages in use plus the header slot. */
uint32_t sws__xswap_limit_clusters(uint64_t value, uint64_t inuse_pages, uint32_t max_clusters);
/* Usable pages under a limit of @clusters (slot 0 is the header), never below use. */
uint64_t sws__xswap_pages(uint32_t clusters, uint32_t max_clusters, uint64_t inuse_pages);
/* Clusters to map when an allocation found none free: one chunk, up to the limit. */
uint32_t sws__xswap_grow_step(uint32_t mapped, uint32_t limit);
/* Clusters to unmap from the end of the mapped range: the excess over a lowered
 * limit, else (when at most half the mapped slots are in use and the free tail
 * of @free_tail clusters is long enough) whole chunks above one chunk of slack. */
uint32_t sws__xswap_shrink_count(uint32_t mapped, uint32_t limit, uint64_t inuse_pages,
				 uint32_t free_tail);

#endif
