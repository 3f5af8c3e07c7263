/*
 * cache_ops.h - the interface every per-slot metadata backend implements.
 *
 * The swap core (devices, clusters, allocator, lists) is the same for every
 * design; what differs is where a slot's state lives: swap count, swap cache
 * (folio or shadow), zero flag and memcg id. A backend owns that state and
 * implements the per-slot operations with the locking of the design it models.
 * The table starts with a version field (SQLite-style plug-in interface), so a
 * later backend (vswap) can be added without breaking the others.
 *
 * Conventions: "__" in a comment means the caller holds ci->lock. Offsets are
 * device offsets; multi-slot calls never cross a cluster (the caller checked).
 * Every "whole operation" validates all slots before changing any, and frees
 * slots through sws__swap_range_free() while holding ci->lock.
 *
 * THE CONTRACT both backends implement (tests compare them call by call).
 * A slot is FREE (no count, no folio), CACHED (folio, count >= 0) or SHADOW
 * (no folio, count >= 1, shadow value possibly 0). Checks, per call, over all
 * @nr slots, first failing rule wins:
 *   dup:      any FREE -> ENOENT; any count + 1 > SWS_SWAP_COUNT_MAX -> EOVERFLOW;
 *             overflow storage cannot be allocated -> ENOMEM.
 *   put:      any FREE -> EFREE; any count == 0 -> ERANGE. A slot reaching
 *             count 0 without a folio is freed (shadow, zero flag, memcg cleared).
 *   count:    FREE -> ENOENT.
 *   cache_add: all FREE -> ENOENT; any CACHED -> EEXIST; FREE and SHADOW mixed
 *             -> EBUSY; SHADOW slots whose zero flags or memcg ids differ ->
 *             EBUSY. Success keeps counts, zero flags and memcg; *shadow gets
 *             the first slot's shadow (0: none).
 *   get_shadow: FREE -> ENOENT; CACHED -> shadow 0.
 *   cache_del: any slot not CACHED -> ENOTCACHED; any other folio -> EMISMATCH.
 *             Slots with count 0 are freed; others become SHADOW(@shadow).
 *   replace:  any slot not CACHED -> ENOTCACHED; any other folio than @old -> EMISMATCH.
 *   set_zero, set_memcg: any FREE -> ENOENT.
 * Newly allocated slots are CACHED with count 0, zero flag clear, memcg 0.
 */
#ifndef SWS_CACHE_OPS_H
#define SWS_CACHE_OPS_H

#include "../swap/swap_internal.h"

#define SWS_CACHE_OPS_VERSION 1

struct sws_cache_ops {
	uint32_t version; /* SWS_CACHE_OPS_VERSION */
	const char *name;
	/* Can serve xswap devices: every per-cluster array comes from
	 * sws__cluster_array_create() and no per-slot array is static. */
	bool xswap;
	/* RCU callbacks touch per-device data: swapoff waits for them (rcu_barrier). */
	bool swapoff_barrier;

	/* swapon: build static per-device structures and mark slot 0 and the
	 * tail of the last cluster bad. swapoff: free everything. */
	int (*device_init)(struct sws_device *dev);
	void (*device_fini)(struct sws_device *dev);

	/* __ A free cluster is about to serve allocations (may allocate its
	 * per-cluster tables: SWS_ENOMEM leaves nothing behind). */
	int (*cluster_get)(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);
	/* __ A cluster became empty: release per-cluster tables (through RCU).
	 * @cpu (may be NULL) counts the work. */
	void (*cluster_put)(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);

	/* __ Are all @nr slots from @off free? */
	bool (*range_free)(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, unsigned nr);
	/* __ Mark @nr free slots allocated, cached by @pfn with count 0. */
	void (*range_alloc)(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, unsigned nr,
			    uint64_t pfn);
	/* After ci->lock was dropped (XArray: the tree insert). On failure the
	 * backend has undone the allocation itself. NULL: nothing to do. */
	int (*alloc_finish)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			    uint64_t pfn);

	/* Whole operations (they lock what the design locks). */
	int (*dup)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
	int (*put)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
	int (*count)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count);
	int (*cache_add)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			 uint64_t pfn, uint64_t *shadow);
	/* RCU read lock held; no lock taken. @return PFN or 0, and in *loads the
	 * dependent metadata loads made (the work report's lookup_loads). */
	uint64_t (*cache_lookup)(struct sws_device *dev, uint64_t off, unsigned *loads);
	int (*cache_get_shadow)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
				uint64_t *shadow);
	int (*cache_del)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			 uint64_t pfn, uint64_t shadow);
	int (*cache_replace)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			     uint64_t old_pfn, uint64_t new_pfn);
	int (*set_zero)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			bool zero);
	int (*set_memcg)(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			 uint16_t id);
	/* __ One slot's state (off < dev->max). */
	void (*slot_state)(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			   struct sws_slot_state *st);
	/* __ Backend-specific per-cluster invariants (tables present iff in use,
	 * ...). @return 0 or SWS_ECORRUPT with @msg filled. */
	int (*check_cluster)(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len);
};

extern const struct sws_cache_ops sws__swap_table_ops;
extern const struct sws_cache_ops sws__xarray_ops;

#endif
