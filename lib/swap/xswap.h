/*
 * xswap.h - extendable swap devices (the 2026 xswap series, v3, on swap-table
 * phase IV; kernel-swap-reference.md section 5, docs/xswap.md): a device with
 * no backing store whose per-cluster metadata lives in sparse arenas mapped
 * one chunk (85 clusters) at a time as allocation needs it and given back by
 * a deferred shrink when the tail of the mapped range is free.
 *
 * Per-cluster arrays. Every per-cluster array of a device (cluster_info, and
 * the backend's, e.g. the swap table's table and cold pointers) is created
 * through sws__cluster_array_create(): plain allocator memory on a regular
 * device; on an xswap device an arena reserved for every cluster the device
 * could ever have and mapped as far as nr_clusters_mapped, so an index is a
 * plain array access with no per-access branch.
 *
 * Locks (outer first): sim->xswap_mutex (create, destroy, limit, shrink work;
 * never taken inside an RCU read section, since the shrink waits for a grace
 * period under it), then xs->lock (grow and the two short steps of a shrink;
 * taken inside RCU readers by the allocator, so nothing waits for a grace
 * period under it), then the device's own locks.
 */
#ifndef SWS_SWAP_XSWAP_H
#define SWS_SWAP_XSWAP_H

#include "arena.h"
#include "swap_internal.h"

#define SWS_XSWAP_MAX_ARRAYS 4

/* One per-cluster array (see above). */
struct sws_cluster_array {
	struct sws_arena arena; /* xswap device */
	void *mem;              /* regular device: the allocation */
	size_t elem;            /* bytes per cluster */
	enum sws_mem_class cls; /* charged with the bytes mapped (or allocated) */
	size_t charged;
};

struct sws_xswap {
	pthread_mutex_t lock;    /* xswap_lock */
	_Atomic uint32_t limit;  /* the ceiling, in clusters */
	/* A shrink in its grace period isolated [nr_clusters_mapped, isolated_end):
	 * still mapped and initialised, maybe locked by a reader that saw the old
	 * bound. 0: none. (xs->lock) */
	uint32_t isolated_end;
	atomic_bool shrink_pending;
	struct sws_cluster_array ci; /* cluster_info */
	struct sws_cluster_array *arrays[SWS_XSWAP_MAX_ARRAYS];
	unsigned nr_arrays;
	uint64_t grow_fail_nth;  /* fault injection: the Nth grow from now fails to map */
	_Atomic uint64_t grows, grow_fails, shrinks, clusters_unmapped;
};

/* Per-cluster arrays: @return the array (zeroed), or NULL (SWS_ENOMEM). */
void *sws__cluster_array_create(struct sws_device *dev, struct sws_cluster_array *ca, size_t elem,
				enum sws_mem_class cls, size_t align);
void sws__cluster_array_destroy(struct sws_device *dev, struct sws_cluster_array *ca);

/* swapon of an xswap device: size it from @ram_pages, reserve and map the
 * first chunk of cluster_info (dev->max, nr_clusters are the reservation). */
int sws__xswap_setup(struct sws_device *dev, uint64_t ram_pages);
void sws__xswap_free(struct sws_device *dev);

/* Create a disabled xswap device (the caller enables it with
 * sws__device_enable() once its own per-device state exists). The caller
 * holds sim->xswap_mutex from here until the device is enabled. */
int sws__xswap_create(struct sws_sim *sim, int prio, uint64_t ram_pages, int *type);

/* The allocator found no cluster: map one more chunk if the limit allows.
 * @return 0 (retry: clusters are on the free list), SWS_ENOSPC (at the
 * limit) or SWS_ENOMEM (mapping failed; the device is unchanged). */
int sws__xswap_grow(struct sws_cpu *cpu, struct sws_device *dev, unsigned nr);

/* A cluster of @dev became free: the shrink work should look at it. */
static inline void sws__xswap_shrink_kick(struct sws_device *dev)
{
	if (atomic_load_explicit(&dev->writeok, memory_order_relaxed))
		atomic_store_explicit(&dev->xswap->shrink_pending, true, memory_order_relaxed);
}

/* Run pending shrink work of every xswap device (no RCU read lock held).
 * @return devices whose shrink must be tried again (a victim was busy). */
unsigned sws__xswap_do_shrink_work(struct sws_sim *sim);

/* Fault injection: the @nth grow from now of device @type fails to map. */
int sws__xswap_fail_grow(struct sws_sim *sim, int type, uint64_t nth);

#endif
