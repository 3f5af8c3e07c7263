/*
 * design.h - the interface the swap core owns and every per-slot metadata
 * design implements (lib/design/: the XArray baseline of 6.17, the swap table
 * phases I to IV, vswap).
 *
 * The swap core (devices, clusters, allocator, lists) is the same for every
 * design; what differs is where a slot's state lives: swap count, swap cache
 * (folio or shadow), zero flag and memcg id, and with which locks. A design
 * owns that state and implements the per-slot operations with the locking of
 * the kernel version it models. The core calls designs only through this
 * table and never names one; a design reaches the core only through these
 * helpers of swap_internal.h:
 *   locks and counting: sws__cluster_lock/unlock, sws__lock_counted,
 *     sws__count, sws__count_sim, sws__work, sws__work_maybe, sws__swapcache_mod;
 *   slots (ci->lock held): sws___swap_range_free, sws___slot_free_notify,
 *     sws___zswap_release;
 *   geometry: sws__offset_cluster, sws__cluster_idx, sws__cluster_end,
 *     sws__nr_clusters_mapped, sws__device;
 *   memory: sws__cluster_array_create/destroy, sws__mem_* (common/mem.h);
 *   vswap only: sws__device_add (its virtual device, with struct
 *     sws_ext_setup), sws__swap_alloc (physical slots).
 * and it reads, never writes, the device's geometry and flags (max,
 * nr_clusters, flags, cluster_info[]). The table starts with a version field
 * (SQLite-style plug-in interface).
 *
 * Conventions: a member whose comment starts "ci->lock held" is called with
 * the lock of cluster @ci held, and every implementation asserts it
 * (SWS_ASSERT_HELD); functions called by name with a lock held are named
 * __name (docs/design.md, "Threading, locking and RCU"). Offsets are device offsets;
 * multi-slot calls never cross a cluster (the caller checked). Every "whole operation" validates
 * all slots before changing any, and frees slots through sws___swap_range_free() while holding
 * ci->lock.
 *
 * THE CONTRACT every design implements (tests compare them call by call).
 * A slot is FREE (no count, no folio), CACHED (folio, count >= 0) or SHADOW
 * (no folio, count >= 1, shadow value possibly 0). Checks, per call, over all
 * @nr slots, first failing rule wins:
 *   dup:      any FREE -> ENOENT; any count + 1 > SWS_SWAP_COUNT_MAX -> EOVERFLOW;
 *             overflow storage cannot be allocated -> ENOMEM.
 *   put:      any FREE -> EFREE; any count == 0 -> ERANGE. A slot reaching
 *             count 0 without a folio is freed (shadow, zero flag, memcg cleared).
 *   count:    FREE -> ENOENT.
 *   cache_add: all FREE -> ENOENT; any CACHED (or pinned) -> EEXIST; FREE and
 *             SHADOW mixed -> EBUSY; SHADOW slots whose zero flags or memcg ids
 *             differ -> EBUSY. Success keeps counts, zero flags and memcg;
 *             *shadow gets the first slot's shadow (0: none).
 *   get_shadow: FREE -> ENOENT; CACHED -> shadow 0.
 *   cache_del: any slot not CACHED -> ENOTCACHED; any other folio -> EMISMATCH.
 *             Slots with count 0 are freed; others become SHADOW(@shadow).
 *   replace:  any slot not CACHED -> ENOTCACHED; any other folio than @old -> EMISMATCH.
 *   set_zero, set_memcg: any FREE -> ENOENT. The caller holds the slots (its
 *             folio in the swap cache): a design may check and update them
 *             without a lock (6.17's lock-free maps).
 *   pin (SWS_DESIGN_SYNC_BYPASS only): one slot (@nr 1), allocated, without
 *             a folio, whose count is not 1 -> EAGAIN (do_swap_page()'s
 *             __swap_count() == 1 test, made under the lock); a range's counts
 *             are not looked at (swapcache_prepare(): the caller tested the
 *             faulting entry's). Then as cache_add, but no folio enters the
 *             cache (SWAP_HAS_CACHE alone).
 *   unpin:    any slot not pinned (FREE, SHADOW, or CACHED with a folio) ->
 *             ENOTCACHED; drops the pin and frees slots left with count 0.
 *             A pinned slot (no folio, count 1, or 0 once the caller put its
 *             reference) is a legal state for check_cluster.
 * Newly allocated slots are CACHED with count 0, zero flag clear, memcg 0.
 */
#ifndef SWS_SWAP_DESIGN_H
#define SWS_SWAP_DESIGN_H

#include "swap_internal.h"

#define SWS_DESIGN_OPS_VERSION 3

/* The SWS_DESIGN_* flags (what a design changes beyond its metadata) are in
 * swap_internal.h; the memory model asks for those it follows through
 * swap_mm.h (sws__design_sync_bypass(), ...). */

struct sws_design_ops {
	uint32_t version; /* SWS_DESIGN_OPS_VERSION */
	const char *name;
	uint32_t flags;   /* SWS_DESIGN_* */

	/* Optional: once the simulation exists / before it goes (vswap creates
	 * its virtual device here). */
	int (*sim_init)(struct sws_sim *sim);
	void (*sim_fini)(struct sws_sim *sim);

	/* swapon: build static per-device structures and mark slot 0 and the
	 * tail of the last cluster bad. swapoff: free everything. */
	int (*device_init)(struct sws_device *dev);
	void (*device_fini)(struct sws_device *dev);

	/* Optional. ci->lock held: a free cluster is about to serve allocations
	 * (may allocate its per-cluster tables: SWS_ENOMEM leaves nothing behind). */
	int (*cluster_get)(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);
	/* Optional. ci->lock held: a cluster became empty: release per-cluster
	 * tables (through RCU). @cpu (may be NULL) counts the work. */
	void (*cluster_put)(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);

	/* ci->lock held: cluster_scan_range() over @ci: the first offset off of
	 * @start, @start + @nr, ... with off + @nr <= @end whose @nr slots are all
	 * free, or 0 (none). @start is aligned to @nr and inside @ci; @end is at
	 * most the cluster's end. One call scans the whole range. */
	uint64_t (*range_find)(struct sws_device *dev, struct sws_cluster *ci, uint64_t start, uint64_t end,
			       unsigned nr);
	/* ci->lock held: mark @nr free slots allocated, cached by @pfn with count 0. */
	void (*range_alloc)(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			    unsigned nr, uint64_t pfn);
	/* After ci->lock was dropped (add_to_swap_cache() of the designs that add
	 * the folio in a second step). On failure the design has undone the
	 * allocation itself. NULL: nothing to do. */
	int (*alloc_finish)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			    uint64_t pfn);

	/* Whole operations (they lock what the design locks). */
	int (*dup)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
	/* @only_cache (NULL: not wanted, else zeroed by the caller): bit i set
	 * when slot off + i was left cache-only (count 0, a folio in the cache),
	 * the slots swap_put_entries_direct() then tries to reclaim. */
	int (*put)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *only_cache);
	int (*count)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count);
	int (*cache_add)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			 uint64_t pfn, uint64_t *shadow);
	/* RCU read lock held (a design may lock, as vswap's cluster lock).
	 * @return PFN or 0, and in *loads the dependent metadata loads made (the
	 * work report's lookup_loads). */
	uint64_t (*cache_lookup)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned *loads);
	int (*cache_get_shadow)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
				uint64_t *shadow);
	int (*cache_del)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			 uint64_t pfn, uint64_t shadow);
	int (*cache_replace)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			     uint64_t old_pfn, uint64_t new_pfn);
	/* SWS_DESIGN_SYNC_BYPASS only (else NULL). */
	int (*pin)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *shadow);
	int (*unpin)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
	int (*set_zero)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			bool zero);
	/* RCU read lock held, no lock taken: the zero flag of an allocated slot
	 * (swap_read_folio()'s zeromap / Z-bit test). */
	bool (*zero_test)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
	int (*set_memcg)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			 uint16_t id);
	/* ci->lock held: one slot's state (off < dev->max). */
	void (*slot_state)(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			   struct sws_slot_state *st);
	/* ci->lock held: design-specific per-cluster invariants (tables present
	 * iff in use, ...). @return 0 or SWS_ECORRUPT with @msg filled. */
	int (*check_cluster)(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len);

	/* SWS_DESIGN_VIRTUAL only (else NULL). The physical slots behind @nr
	 * virtual slots from @off (one run on one device): @write allocates a
	 * run when they have none (releasing what else backs them). @return 0
	 * and the first physical entry; SWS_ENOENT (no physical slot: zero,
	 * zswap or only in memory); SWS_ENOSPC; SWS_EBUSY (backed by mixed
	 * physical slots: the caller splits). */
	int (*io_slot)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool write,
		       sws_entry_t *phys);
	/* SWS_DESIGN_VIRTUAL only: vswap_store_folio(): the folio in the swap
	 * cache holds the page of @nr slots from @off now; what else backs them
	 * (a physical slot, a zswap entry) goes and the folio is their backend.
	 * @return 0, SWS_ENOENT (a slot free), SWS_ENOTCACHED (no folio cached). */
	int (*io_release)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
	/* SWS_DESIGN_VIRTUAL only: the virtual entry a physical slot of @pdev
	 * backs (the reverse map), or 0. */
	sws_entry_t (*rmap)(struct sws_cpu *cpu, struct sws_device *pdev, uint64_t poff);
	/* SWS_DESIGN_VIRTUAL only: zswap's entries live in the descriptors (no
	 * tree): store (the entry replaced, if any, in *old), load, erase.
	 * Freeing a slot that holds one hands it to sws___zswap_release(). */
	int (*zswap_store)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, void *entry, void **old);
	void *(*zswap_load)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
	void *(*zswap_erase)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
	/* Hand every entry left on virtual device @dev to @fn, forgetting it. */
	void (*zswap_drain)(struct sws_device *dev, void (*fn)(void *ctx, void *entry), void *ctx);
	/* NULL, or vswap v3's swap_move() (pte_next_swp_offset()): may a zap
	 * batch that ends at slot @off extend to @off + 1? The design resolves
	 * both slots' backends (it locks what it locks): true when they match.
	 * NULL: any next slot of the cluster extends it. */
	bool (*zap_batch_extends)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
};

/* cache_add's (and pin's) verdict, as the contract above orders it, from a
 * design's scan of @nr slots: @nfree FREE, @ncached CACHED or pinned, @differ
 * SHADOW slots whose zero flags or memcg ids differ. @return 0 or the error. */
static inline int sws__cache_add_verdict(unsigned nr, unsigned nfree, unsigned ncached, bool differ)
{
	if (nfree == nr)
		return SWS_ENOENT;
	if (ncached)
		return SWS_EEXIST;
	if (nfree || differ)
		return SWS_EBUSY;
	return 0;
}

#endif
