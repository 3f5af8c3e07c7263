/*
 * alloc.c - the slot allocator: folio_alloc_swap() for every order 0..9.
 *
 * HOW IT WORKS (mm/swapfile.c, 6.15+ shape, unchanged in phases II-IV)
 *
 * A folio of order k needs 2^k contiguous, naturally aligned free slots inside
 * one 512-slot cluster. Each CPU caches, per order, the device and the next
 * offset to try (percpu_swap_cluster). The fast path locks that cluster and, if
 * it still serves this order, scans it from the cached offset. Rotational
 * devices keep one device-wide next[order] instead, under global_cluster_lock,
 * so their allocation stays sequential.
 *
 * The slow path walks the devices by priority (rotating equals: round robin)
 * and for each one tries, in order:
 *   discard devices: the free list first (to keep discard effective),
 *   nonfull[k]: every cluster on it (k < 9),
 *   free: one new cluster (its swap table is allocated here),
 *   frag[k]: one cluster,
 *   order 0 only: steal from frag[o] then nonfull[o] for o = 1..9, which keeps
 *   free clusters free for large folios.
 * A large order that finds nothing on the first device it tries fails with
 * SWS_ENOSPC (lower-priority devices are not tried); the caller splits the
 * folio and retries at order 0 (swpout_fallback). An order-0 allocation that
 * finds nothing anywhere runs the pending discards synchronously and tries
 * once more (swap_sync_discard()).
 *
 * Each scan takes the cluster off its list (isolate: flag NONE) under the
 * device lock with a trylock of the cluster, scans under ci->lock, then
 * relocate_cluster() files it by its new count: full, or frag[k] if partial.
 *
 * Devices belong to an allocation space: every design allocates entries from
 * SWS_SPACE_ENTRY; vswap puts its virtual device there and its physical
 * devices in SWS_SPACE_PHYS, which it allocates from itself for the pages it
 * writes (sws__swap_alloc()). Each space has its avail list and per-CPU
 * cached clusters.
 *
 * Swap tiers (Youngjun Park's series, v9): the caller passes the memcg's
 * allowed tiers (folio_tier_effective_mask()). The fast path gives up when the
 * CPU's cached device is outside them; the slow path skips such devices
 * before trying any (so a large folio tries the first allowed device). With
 * no allowed device that has room the allocation fails with SWS_ENOSPC.
 * The virtual device of vswap, vswap-v3 and vswap-st is in every tier (the
 * series predates them), and their physical slots are allocated for every
 * tier (virtual_device.h): under them a mask chooses nothing.
 *
 * LIMITATIONS: cache-only slots are not reclaimed during the scan when swap is
 * more than half full (that needs folios; the memory model adds it).
 */
#include "design.h"
#include "swap_internal.h"

/* ci->lock held: cluster_is_usable(): may @ci serve an allocation of @order? */
static bool __cluster_is_usable(struct sws_cluster *ci, unsigned order)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (ci->flags > SWS_CLUSTER_USABLE || ci->flags == SWS_CLUSTER_FREE ||
	    ci->flags == SWS_CLUSTER_NONE)
		return false; /* free clusters have no table: the slow path takes them */
	return order == 0 || ci->order == order;
}

/* Rotational devices: dev->global_cluster_lock held. The next offset to try at
 * @order: the CPU's cached cluster, or the device's shared next[order]. */
static void __set_next(struct sws_cpu *cpu, struct sws_device *dev, unsigned order, uint64_t next)
{
	if (dev->h.flags & SWS_SWP_SOLIDSTATE) {
		struct sws_pcp *pcp = &cpu->pcp[dev->space][order];
		pcp->type = next ? dev->type : -1;
		pcp->gen = dev->gen;
		pcp->next = next;
	} else {
		SWS_ASSERT_HELD(&dev->global_cluster_lock);
		dev->global_next[order] = next;
	}
}

/*
 * ci->lock held, released on return: alloc_swap_scan_cluster(): scan @ci from
 * @start for a free aligned run of 2^order slots and allocate it to @pfn.
 * Relocates @ci. @return the offset found, or 0.
 */
static uint64_t __scan_cluster(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			       uint64_t start, unsigned order, uint64_t pfn)
{
	SWS_ASSERT_HELD(&ci->lock);
	const struct sws_design_ops *ops = dev->sim->ops;
	const unsigned nr = 1u << order;
	const uint64_t base = (uint64_t)sws__cluster_idx(dev, ci) * SWS_CLUSTER_SLOTS;
	const uint64_t end = sws__cluster_end(dev, ci);

	if (!ci->count)
		ci->order = (uint8_t)order;
	if (start < base)
		start = base;
	start = (start + nr - 1) & ~(uint64_t)(nr - 1);
	uint64_t found = start + nr <= end ? ops->range_find(dev, ci, start, end, nr) : 0;
	if (found && !sws__swap_range_alloc(cpu, dev, nr))
		found = 0; /* an xswap device at its (lowered) limit */
	if (found) {
		ops->range_alloc(cpu, dev, ci, found, nr, pfn);
		ci->count += nr;
		__set_next(cpu, dev, order, found + nr < end ? found + nr : SWS_NO_OFFSET);
	} else {
		__set_next(cpu, dev, order, SWS_NO_OFFSET);
	}
	sws___relocate_cluster(cpu, dev, ci);
	sws__cluster_unlock(ci);
	return found;
}

/*
 * isolate_lock_cluster(): take the first cluster of @list that can be locked
 * without waiting off the list, locked. A cluster from the free list gets its
 * per-cluster tables here; on failure it goes back. @return it, or NULL.
 */
static struct sws_cluster *isolate_lock_cluster(struct sws_cpu *cpu, struct sws_device *dev,
						struct sws_list *list, unsigned order, int *err)
{
	struct sws_cluster *found = NULL;
	struct sws_list *pos;

	sws__dev_lock(cpu, dev);
	sws_list_for_each(pos, list)
	{
		struct sws_cluster *ci = sws_list_entry(pos, struct sws_cluster, list);
		if (!sws_spin_trylock(&ci->lock))
			continue;
		sws___cluster_unlist(dev, ci);
		found = ci;
		break;
	}
	sws_spin_unlock(&dev->lock);

	if (found && !found->count && dev->sim->ops->cluster_get) {
		int rc = dev->sim->ops->cluster_get(cpu, dev, found);
		if (rc) {
			*err = rc;
			sws___cluster_move(cpu, dev, found, &dev->free_clusters, SWS_CLUSTER_FREE);
			sws__cluster_unlock(found);
			return NULL;
		}
	}
	return found;
}

/* alloc_swap_scan_list(): scan clusters taken from @list (all, or one). */
static uint64_t scan_list(struct sws_cpu *cpu, struct sws_device *dev, struct sws_list *list,
			  uint32_t list_len, unsigned order, uint64_t pfn, bool scan_all, int *err)
{
	/* Bounded by the list's length when we started: relocated clusters go elsewhere. */
	for (uint32_t tries = scan_all ? list_len : 1; tries; tries--) {
		struct sws_cluster *ci = isolate_lock_cluster(cpu, dev, list, order, err);
		if (!ci)
			return 0;
		uint64_t base = (uint64_t)sws__cluster_idx(dev, ci) * SWS_CLUSTER_SLOTS;
		uint64_t found = __scan_cluster(cpu, dev, ci, base, order, pfn);
		if (found)
			return found;
	}
	return 0;
}

static uint32_t list_len(struct sws_cpu *cpu, struct sws_device *dev, const uint32_t *n)
{
	sws__dev_lock(cpu, dev);
	uint32_t v = *n;
	sws_spin_unlock(&dev->lock);
	return v;
}

/* The lists of one device in the kernel's order (see the top of this file). */
static uint64_t scan_device(struct sws_cpu *cpu, struct sws_device *dev, unsigned order, uint64_t pfn,
			    int *err)
{
	uint64_t found = 0;
	bool rotational = !(dev->h.flags & SWS_SWP_SOLIDSTATE);

	if (rotational) {
		sws__lock_counted(cpu, &dev->global_cluster_lock, SWS_WORK_lock_global_cluster,
				  SWS_CTR_lock_device_contended);
		uint64_t off = dev->global_next[order];
		if (off && sws__offset_mapped(dev, off)) {
			struct sws_cluster *ci = sws__offset_cluster(dev, off);
			sws__cluster_lock(cpu, ci);
			if (__cluster_is_usable(ci, order)) {
				found = __scan_cluster(cpu, dev, ci, off, order, pfn);
				if (found)
					goto done;
			} else {
				sws__cluster_unlock(ci);
			}
		}
	}
	if (dev->h.flags & SWS_SWP_PAGE_DISCARD) {
		found = scan_list(cpu, dev, &dev->free_clusters, 1, order, pfn, false, err);
		if (found)
			goto done;
	}
	if (order < SWS_NR_ORDERS - 1) {
		found = scan_list(cpu, dev, &dev->nonfull_clusters[order],
				  list_len(cpu, dev, &dev->nr_nonfull[order]), order, pfn, true, err);
		if (found)
			goto done;
	}
	if (!(dev->h.flags & SWS_SWP_PAGE_DISCARD)) {
		found = scan_list(cpu, dev, &dev->free_clusters, 1, order, pfn, false, err);
		if (found)
			goto done;
	}
	if (order < SWS_NR_ORDERS - 1) {
		found = scan_list(cpu, dev, &dev->frag_clusters[order], 1, order, pfn, false, err);
		if (found)
			goto done;
	}
	if (order)
		goto done;
	for (unsigned o = 1; o < SWS_NR_ORDERS; o++) {
		found = scan_list(cpu, dev, &dev->frag_clusters[o], list_len(cpu, dev, &dev->nr_frag[o]), 0,
				  pfn, true, err);
		if (!found)
			found = scan_list(cpu, dev, &dev->nonfull_clusters[o],
					  list_len(cpu, dev, &dev->nr_nonfull[o]), 0, pfn, true, err);
		if (found) {
			sws__count(cpu, SWS_CTR_swap_alloc_order0_steal, 1);
			break;
		}
	}
done:
	if (rotational)
		sws_spin_unlock(&dev->global_cluster_lock);
	return found;
}

/* cluster_alloc_swap_entry(): the slow path on one device. */
static uint64_t cluster_alloc_swap_entry(struct sws_cpu *cpu, struct sws_device *dev,
					 unsigned order, uint64_t pfn, int *err)
{
	uint64_t found = scan_device(cpu, dev, order, pfn, err);
	/* Every list failed: an extendable device below its limit maps more
	 * clusters and tries again (a few times: other CPUs may take them). */
	for (int tries = 0; !found && sws_unlikely(sws__is_ext(dev)) && tries < 4; tries++) {
		int rc = sws__ext_grow(cpu, dev, 1u << order);
		if (rc) {
			if (rc != SWS_ENOSPC)
				*err = rc;
			break;
		}
		found = scan_device(cpu, dev, order, pfn, err);
	}
	return found;
}

/* swap_alloc_fast(): the CPU's cached cluster for this order. */
static bool swap_alloc_fast(struct sws_cpu *cpu, unsigned space, unsigned order, uint64_t pfn,
			    uint32_t tiers, sws_entry_t *entry)
{
	struct sws_pcp *pcp = &cpu->pcp[space][order];
	int type = pcp->type;
	uint64_t off = pcp->next;
	if (type < 0 || !off)
		return false;
	struct sws_device *dev = sws__device(cpu->h.sim, (unsigned)type);
	if (!dev || dev->gen != pcp->gen || !sws__offset_mapped(dev, off) ||
	    !atomic_load_explicit(&dev->writeok, memory_order_relaxed) ||
	    !(dev->h.flags & SWS_SWP_SOLIDSTATE)) {
		pcp->type = -1;
		return false;
	}
	if (!(dev->h.tier_mask & tiers))
		return false; /* another memcg's tier: the slow path */
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	if (!__cluster_is_usable(ci, order)) {
		sws__cluster_unlock(ci);
		pcp->type = -1;
		return false;
	}
	uint64_t found = __scan_cluster(cpu, dev, ci, off, order, pfn);
	if (!found)
		return false;
	*entry = sws_swp_entry((unsigned)type, found);
	return true;
}

/* swap_alloc_slow(): walk the devices of @space with free slots by priority. */
static int swap_alloc_slow(struct sws_cpu *cpu, unsigned space, unsigned order, uint64_t pfn,
			   uint32_t tiers, sws_entry_t *entry)
{
	struct sws_sim *sim = cpu->h.sim;
	struct sws_list *head = &sim->avail_head[space];
	struct sws_device *order_list[SWS_MAX_SWAPFILES];
	unsigned n = 0;
	int err = 0;

	sws__lock_counted(cpu, &sim->avail_lock, SWS_WORK_lock_avail, SWS_CTR_lock_device_contended);
	struct sws_list *pos;
	sws_list_for_each(pos, head)
		order_list[n++] = sws_list_entry(pos, struct sws_device, avail_node);
	/* plist_requeue(): the first device goes behind its equal-priority peers. */
	if (n > 1 && order_list[1]->prio == order_list[0]->prio) {
		struct sws_device *first = order_list[0];
		struct sws_list *after = &first->avail_node;
		while (after->next != head &&
		       sws_list_entry(after->next, struct sws_device, avail_node)->prio == first->prio)
			after = after->next;
		sws_list_del_init(&first->avail_node);
		sws_list_add(&first->avail_node, after);
	}
	sws_spin_unlock(&sim->avail_lock);

	for (unsigned i = 0; i < n; i++) {
		struct sws_device *dev = order_list[i];
		if (!atomic_load(&dev->writeok) || !(dev->h.tier_mask & tiers))
			continue;
		uint64_t found = cluster_alloc_swap_entry(cpu, dev, order, pfn, &err);
		if (found) {
			*entry = sws_swp_entry((unsigned)dev->type, found);
			return 0;
		}
		if (order)
			break; /* a large folio tries one device, then is split */
	}
	return err ? err : SWS_ENOSPC;
}

/* Run pending discards synchronously (swap_sync_discard). @return true if any ran. */
static bool swap_sync_discard(struct sws_cpu *cpu, struct sws_sim *sim)
{
	bool any = false;
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *dev = sws__device(sim, t);
		if (dev && list_len(cpu, dev, &dev->nr_discard)) {
			sws__device_do_discard(dev, UINT32_MAX);
			any = true;
		}
	}
	return any;
}

int sws__swap_alloc(struct sws_cpu *cpu, unsigned space, unsigned order, uint64_t owner, uint32_t tiers,
		    sws_entry_t *entry, bool *fast)
{
	*fast = swap_alloc_fast(cpu, space, order, owner, tiers, entry);
	if (*fast)
		return 0;
	int rc = swap_alloc_slow(cpu, space, order, owner, tiers, entry);
	if (rc == SWS_ENOSPC && !order && swap_sync_discard(cpu, cpu->h.sim)) /* order 0 only */
		rc = swap_alloc_slow(cpu, space, order, owner, tiers, entry);
	return rc;
}

int sws_folio_alloc_swap(struct sws_cpu *cpu, uint64_t pfn, unsigned order, sws_entry_t *entry)
{
	return sws_folio_alloc_swap_tiers(cpu, pfn, order, SWS_SWAP_TIERS_ALL, entry);
}

int sws_folio_alloc_swap_tiers(struct sws_cpu *cpu, uint64_t pfn, unsigned order, uint32_t tiers,
			       sws_entry_t *entry)
{
	if (!cpu || !entry || order >= SWS_NR_ORDERS || !pfn || pfn >> SWS_PFN_BITS || !tiers ||
	    (tiers & ~SWS_SWAP_TIERS_ALL))
		return SWS_EINVAL;
	struct sws_sim *sim = cpu->h.sim;
	bool fast;

	sws_rcu_read_lock();
	int rc = sws__swap_alloc(cpu, SWS_SPACE_ENTRY, order, pfn, tiers, entry, &fast);
	sws__count(cpu, fast ? SWS_CTR_swap_alloc_fastpath : SWS_CTR_swap_alloc_slowpath, 1);
	if (!rc && sim->ops->alloc_finish) {
		struct sws_device *dev = sws__device(sim, sws_swp_type(*entry));
		rc = sim->ops->alloc_finish(cpu, dev, sws_swp_offset(*entry), 1u << order, pfn);
	}
	sws_rcu_read_unlock();

	if (rc) {
		sws__count_order(cpu, SWS_OCTR_swap_alloc_fail, order);
		return rc;
	}
	sws__count_order(cpu, SWS_OCTR_swap_alloc, order);
	sws__count(cpu, SWS_CTR_swap_cache_add_total, 1);
	sws__swapcache_mod(cpu, (int64_t)1 << order);
	return 0;
}
