/*
 * check.c - sws_swap_check(): the invariants docs/design.md lists (under
 * "The per-slot state machine") over every device, for tests and debugging.
 * Meant for a quiescent simulation.
 */
#include <stdio.h>

#include "design.h"
#include "swap_internal.h"

/* dev->lock held: flag and count class of every cluster on @list, its length
 * in *n. @return 0 or SWS_ECORRUPT. */
static int __check_list(struct sws_device *dev, struct sws_list *list, enum sws_cluster_flag flag,
			int order, char *msg, size_t len, uint32_t *n)
{
	SWS_ASSERT_HELD(&dev->lock);
	struct sws_list *pos;
	*n = 0;
	sws_list_for_each(pos, list)
	{
		struct sws_cluster *ci = sws_list_entry(pos, struct sws_cluster, list);
		uint32_t idx = sws__cluster_idx(dev, ci);
		if (ci->flags != flag)
			SWS__CORRUPT(msg, len, "device %d cluster %u: flag %u on list of flag %u", dev->type, idx,
				ci->flags, flag);
		if (order >= 0 && ci->order != order)
			SWS__CORRUPT(msg, len, "device %d cluster %u: order %u on the order-%d list", dev->type, idx,
				ci->order, order);
		bool ok = flag == SWS_CLUSTER_FREE || flag == SWS_CLUSTER_DISCARD ? ci->count == 0
			  : flag == SWS_CLUSTER_FULL ? ci->count == SWS_CLUSTER_SLOTS
						     : ci->count > 0 && ci->count < SWS_CLUSTER_SLOTS;
		if (!ok)
			SWS__CORRUPT(msg, len, "device %d cluster %u: count %u does not fit list flag %u", dev->type,
				idx, ci->count, flag);
		(*n)++;
	}
	return 0;
}

static int check_device(struct sws_device *dev, uint64_t *memcg_slots, char *msg, size_t len)
{
	uint32_t n, on_lists = 0;
	int rc = 0;

	sws_spin_lock(&dev->lock);
	struct {
		struct sws_list *list;
		enum sws_cluster_flag flag;
		int order;
		uint32_t expect;
	} lists[3 + 2 * SWS_NR_ORDERS] = {
		{&dev->free_clusters, SWS_CLUSTER_FREE, -1, dev->nr_free},
		{&dev->full_clusters, SWS_CLUSTER_FULL, -1, dev->nr_full},
		{&dev->discard_clusters, SWS_CLUSTER_DISCARD, -1, dev->nr_discard},
	};
	for (int o = 0; o < SWS_NR_ORDERS; o++) {
		lists[3 + 2 * o] = (typeof(lists[0])){&dev->nonfull_clusters[o], SWS_CLUSTER_NONFULL, o,
						      dev->nr_nonfull[o]};
		lists[4 + 2 * o] = (typeof(lists[0])){&dev->frag_clusters[o], SWS_CLUSTER_FRAG, o,
						      dev->nr_frag[o]};
	}
	for (unsigned k = 0; k < SWS_ARRAY_SIZE(lists) && !rc; k++) {
		rc = __check_list(dev, lists[k].list, lists[k].flag, lists[k].order, msg, len, &n);
		if (!rc && n != lists[k].expect) {
			snprintf(msg, len, "device %d: list of flag %u has %u clusters, counter says %u",
				 dev->type, lists[k].flag, n, lists[k].expect);
			rc = SWS_ECORRUPT;
		}
		on_lists += n;
	}
	sws_spin_unlock(&dev->lock);
	if (rc)
		return rc;
	uint32_t mapped = sws__nr_clusters_mapped(dev);
	if (on_lists != mapped)
		SWS__CORRUPT(msg, len, "device %d: %u of %u clusters on lists (some isolated while quiescent)",
			dev->type, on_lists, mapped);

	uint64_t used = 0;
	for (uint32_t c = 0; c < mapped && !rc; c++) {
		struct sws_cluster *ci = &dev->cluster_info[c];
		sws__cluster_lock(NULL, ci);
		used += ci->count;
		rc = dev->sim->ops->check_cluster(dev, ci, msg, len);
		/* each allocated slot's memcg id, for the memcgs' swap usage */
		uint64_t end = sws__cluster_end(dev, ci);
		for (uint64_t off = (uint64_t)c * SWS_CLUSTER_SLOTS; off < end && !rc; off++) {
			struct sws_slot_state st;
			sws___slot_state(dev, ci, off, &st);
			if (st.allocated && !st.bad && st.memcg && st.memcg < SWS__SWAP_MEMCGS)
				memcg_slots[st.memcg]++;
		}
		sws__cluster_unlock(ci);
	}
	if (rc)
		return rc;
	uint64_t bad = 1 + (uint64_t)dev->nr_clusters * SWS_CLUSTER_SLOTS - dev->max;
	uint64_t inuse = atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
	if (used - bad != inuse)
		SWS__CORRUPT(msg, len, "device %d: clusters count %llu slots in use, inuse_pages is %llu", dev->type,
			(unsigned long long)(used - bad), (unsigned long long)inuse);
	if (inuse > dev->pages)
		SWS__CORRUPT(msg, len, "device %d: %llu slots in use, more than its %llu pages", dev->type,
			(unsigned long long)inuse, (unsigned long long)dev->pages);
	bool full = inuse == dev->pages;
	if (dev->on_avail == full && atomic_load(&dev->writeok))
		SWS__CORRUPT(msg, len, "device %d: %s but %s the avail list", dev->type, full ? "full" : "not full",
			dev->on_avail ? "on" : "off");
	return 0;
}

int sws_swap_check(struct sws_sim *sim, char *msg, size_t len)
{
	char dummy[1];
	if (!msg || !len) {
		msg = dummy;
		len = sizeof(dummy);
	}
	msg[0] = 0;
	if (!sim)
		return SWS_EINVAL;
	int64_t inuse = 0;
	int rc = 0;
	uint64_t memcg_slots[SWS__SWAP_MEMCGS] = {0};
	sws__rcu_thread_get();
	sws_rcu_read_lock();
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES && !rc; t++) {
		struct sws_device *dev = sws__device(sim, t);
		if (!dev)
			continue;
		rc = check_device(dev, memcg_slots, msg, len);
		if (sws__in_totals(dev))
			inuse += (int64_t)(atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST);
	}
	sws_rcu_read_unlock();
	sws__rcu_thread_put();
	if (rc)
		return rc;
	int64_t free_slots = atomic_load(&sim->h.nr_swap_pages), total = atomic_load(&sim->h.total_swap_pages);
	if (free_slots + inuse != total)
		SWS__CORRUPT(msg, len, "nr_swap_pages %lld + inuse %lld != total_swap_pages %lld", (long long)free_slots,
			(long long)inuse, (long long)total);
	for (unsigned id = 1; id < SWS__SWAP_MEMCGS; id++) {
		uint64_t charged = atomic_load(&sim->memcg_swap[id]);
		if (charged != memcg_slots[id])
			SWS__CORRUPT(msg, len, "memcg %u: %llu slots hold its id, its swap usage is %llu", id,
				(unsigned long long)memcg_slots[id], (unsigned long long)charged);
	}
	return 0;
}
