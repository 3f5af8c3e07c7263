/*
 * swap_ops.c - the public per-slot calls: check the entry and the range, hold
 * the RCU read lock for the call (swapoff waits for it), dispatch to the
 * backend, count the event on the calling CPU.
 */
#include <string.h>

#include "../cache/cache_ops.h"
#include "../cache/swap_table.h"
#include "../cache/xarray_backend.h"
#include "swap_internal.h"

/* Resolve @entry + @nr to a device. RCU read lock held. */
static int resolve(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, struct sws_device **devp,
		   uint64_t *offp)
{
	if (!cpu || !nr || nr > SWS_CLUSTER_SLOTS)
		return SWS_EINVAL;
	struct sws_device *dev = sws__device(cpu->sim, sws_swp_type(entry));
	uint64_t off = sws_swp_offset(entry);
	if (!dev)
		return SWS_EBADENTRY;
	uint64_t end = sws__slots_mapped(dev);
	if (off == 0 || off >= end || off + nr > end)
		return SWS_EBADENTRY;
	if (off / SWS_CLUSTER_SLOTS != (off + nr - 1) / SWS_CLUSTER_SLOTS)
		return SWS_EINVAL; /* a multi-slot call never crosses a cluster */
	*devp = dev;
	*offp = off;
	return 0;
}

static bool pfn_ok(uint64_t pfn) { return pfn && !(pfn >> SWS_PFN_BITS); }

/* Resolve, make @call under the RCU read lock, run @on_success if it worked. */
#define SWS__SLOT_CALL(cpu, entry, nr, call, on_success)            \
	do {                                                        \
		struct sws_device *dev;                             \
		uint64_t off;                                       \
		sws_rcu_read_lock();                                \
		int rc = resolve((cpu), (entry), (nr), &dev, &off); \
		if (!rc)                                            \
			rc = (call);                                \
		sws_rcu_read_unlock();                              \
		if (!rc) {                                          \
			on_success;                                 \
		}                                                   \
		return rc;                                          \
	} while (0)

int sws_swap_dup(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr)
{
	SWS__SLOT_CALL(cpu, entry, nr, cpu->sim->ops->dup(cpu, dev, off, nr),
		       sws__count(cpu, SWS_CTR_swap_dup_total, nr));
}

int sws_swap_put(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr)
{
	SWS__SLOT_CALL(cpu, entry, nr, cpu->sim->ops->put(cpu, dev, off, nr),
		       sws__count(cpu, SWS_CTR_swap_put_total, nr));
}

int sws_swap_count(struct sws_cpu *cpu, sws_entry_t entry, uint32_t *count)
{
	if (!count)
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, 1, cpu->sim->ops->count(cpu, dev, off, count), (void)0);
}

int sws_swap_cache_add(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t pfn,
		       uint64_t *shadow)
{
	uint64_t ignored;
	if (!pfn_ok(pfn))
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, nr,
		       cpu->sim->ops->cache_add(cpu, dev, off, nr, pfn, shadow ? shadow : &ignored),
		       sws__count(cpu, SWS_CTR_swap_cache_add_total, 1);
		       sws__swapcache_mod(cpu, nr));
}

/*
 * The backend's lookup, inlined for the two built-in backends (the kernel's
 * INDIRECT_CALL_2() idea: compare the target, then call it directly), both
 * alike so the comparison stays fair; any other backend by its ops table.
 */
static inline uint64_t cache_lookup(const struct sws_cache_ops *ops, struct sws_device *dev,
				    uint64_t off, unsigned *loads)
{
	if (ops == &sws__swap_table_ops)
		return sws__st_lookup(dev->cache_index, off, loads);
	if (ops == &sws__xarray_ops)
		return sws__xa_swap_lookup(dev->cache_index, off, loads);
	return ops->cache_lookup(dev, off, loads);
}

uint64_t sws_swap_cache_lookup(struct sws_cpu *cpu, sws_entry_t entry)
{
	uint64_t pfn = 0;
	unsigned loads = 0;
	if (sws_unlikely(!cpu))
		return 0;
	sws_rcu_read_lock();
	struct sws_device *dev = sws__device(cpu->sim, sws_swp_type(entry));
	uint64_t off = sws_swp_offset(entry);
	if (sws_likely(dev && sws__offset_mapped(dev, off)))
		pfn = cache_lookup(cpu->sim->ops, dev, off, &loads);
	sws_rcu_read_unlock();
	sws__count(cpu, SWS_CTR_swap_cache_find_total, 1);
	sws__work(cpu, SWS_WORK_lookup, 1);
	sws__work(cpu, SWS_WORK_lookup_loads, loads);
	if (pfn)
		sws__count(cpu, SWS_CTR_swap_cache_find_success, 1);
	return pfn;
}

int sws_swap_cache_get_shadow(struct sws_cpu *cpu, sws_entry_t entry, uint64_t *shadow)
{
	if (!shadow)
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, 1, cpu->sim->ops->cache_get_shadow(cpu, dev, off, shadow), (void)0);
}

int sws_swap_cache_del(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t pfn,
		       uint64_t shadow)
{
	if (!pfn_ok(pfn) || shadow >> SWS_SHADOW_BITS)
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, nr, cpu->sim->ops->cache_del(cpu, dev, off, nr, pfn, shadow),
		       sws__count(cpu, SWS_CTR_swap_cache_del_total, 1);
		       sws__swapcache_mod(cpu, -(int64_t)nr));
}

int sws_swap_cache_replace(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t old_pfn,
			   uint64_t new_pfn)
{
	if (!pfn_ok(old_pfn) || !pfn_ok(new_pfn))
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, nr,
		       cpu->sim->ops->cache_replace(cpu, dev, off, nr, old_pfn, new_pfn),
		       sws__count(cpu, SWS_CTR_swap_cache_replace_total, 1));
}

int sws_swap_set_zero(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, bool zero)
{
	SWS__SLOT_CALL(cpu, entry, nr, cpu->sim->ops->set_zero(cpu, dev, off, nr, zero), (void)0);
}

int sws_swap_set_memcg(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint16_t id)
{
	SWS__SLOT_CALL(cpu, entry, nr, cpu->sim->ops->set_memcg(cpu, dev, off, nr, id), (void)0);
}

void sws__slot_state_locked(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			    struct sws_slot_state *st)
{
	memset(st, 0, sizeof(*st));
	if (off == 0 || off >= dev->max) {
		st->bad = st->allocated = true;
		return;
	}
	dev->sim->ops->slot_state(dev, ci, off, st);
}

int sws_swap_slot_state(struct sws_sim *sim, sws_entry_t entry, struct sws_slot_state *st)
{
	if (!sim || !st)
		return SWS_EINVAL;
	sws__rcu_thread_get();
	sws_rcu_read_lock();
	struct sws_device *dev = sws__device(sim, sws_swp_type(entry));
	uint64_t off = sws_swp_offset(entry);
	int rc = 0;
	if (!dev)
		rc = SWS_ENODEV;
	else if (!sws__offset_mapped(dev, off))
		rc = SWS_EBADENTRY;
	if (!rc) {
		struct sws_cluster *ci = sws__offset_cluster(dev, off);
		sws__cluster_lock(NULL, ci);
		sws__slot_state_locked(dev, ci, off, st);
		sws__cluster_unlock(ci);
	}
	sws_rcu_read_unlock();
	sws__rcu_thread_put();
	return rc;
}
