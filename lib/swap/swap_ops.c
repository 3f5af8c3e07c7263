/*
 * swap_ops.c - the public per-slot calls: check the entry and the range, hold
 * the RCU read lock for the call (swapoff waits for it), dispatch to the
 * design through its ops table (design.h), count the event on the calling
 * CPU. Nothing here knows a design by name.
 */
#include <string.h>

#include "design.h"
#include "swap_internal.h"

/* Resolve @entry + @nr to a device. RCU read lock held. Inline in every
 * call: the checks are a few compares when they pass. */
static SWS_ALWAYS_INLINE int resolve(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr,
				     struct sws_device **devp, uint64_t *offp)
{
	if (sws_unlikely(!cpu || nr - 1 >= SWS_CLUSTER_SLOTS)) /* nr 0 wraps */
		return SWS_EINVAL;
	struct sws_device *dev = sws__device(cpu->h.sim, sws_swp_type(entry));
	uint64_t off = sws_swp_offset(entry);
	if (sws_unlikely(!dev))
		return SWS_EBADENTRY;
	/* off + nr > end covers off >= end (nr >= 1); vswap's physical slots
	 * are no entries (entries are virtual) */
	if (sws_unlikely(off == 0 || off + nr > sws__slots_mapped(dev) || dev->space != SWS_SPACE_ENTRY))
		return SWS_EBADENTRY;
	if (sws_unlikely((off ^ (off + nr - 1)) >= SWS_CLUSTER_SLOTS))
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
	SWS__SLOT_CALL(cpu, entry, nr, cpu->h.sim->ops->dup(cpu, dev, off, nr),
		       sws__count(cpu, SWS_CTR_swap_dup_total, nr));
}

int sws_swap_put(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr)
{
	SWS__SLOT_CALL(cpu, entry, nr, cpu->h.sim->ops->put(cpu, dev, off, nr, NULL),
		       sws__count(cpu, SWS_CTR_swap_put_total, nr));
}

int sws_swap_put_entries_direct(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr,
				uint64_t only_cache[SWS_CLUSTER_SLOTS / 64])
{
	if (!only_cache)
		return SWS_EINVAL;
	memset(only_cache, 0, sizeof(uint64_t) * (((nr > SWS_CLUSTER_SLOTS ? 0 : nr) + 63) / 64));
	SWS__SLOT_CALL(cpu, entry, nr, cpu->h.sim->ops->put(cpu, dev, off, nr, only_cache),
		       sws__count(cpu, SWS_CTR_swap_put_total, nr));
}

int sws_swap_count(struct sws_cpu *cpu, sws_entry_t entry, uint32_t *count)
{
	if (!count)
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, 1, cpu->h.sim->ops->count(cpu, dev, off, count), (void)0);
}

int sws_swap_cache_add(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t pfn,
		       uint64_t *shadow)
{
	uint64_t ignored;
	if (!pfn_ok(pfn))
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, nr,
		       cpu->h.sim->ops->cache_add(cpu, dev, off, nr, pfn, shadow ? shadow : &ignored),
		       sws__count(cpu, SWS_CTR_swap_cache_add_total, 1);
		       sws__swapcache_mod(cpu, nr));
}

uint64_t sws_swap_cache_lookup(struct sws_cpu *cpu, sws_entry_t entry)
{
	uint64_t pfn = 0;
	unsigned loads = 0;
	if (sws_unlikely(!cpu))
		return 0;
	sws_rcu_read_lock();
	struct sws_device *dev = sws__device(cpu->h.sim, sws_swp_type(entry));
	uint64_t off = sws_swp_offset(entry);
	if (sws_likely(dev && sws__offset_mapped(dev, off) && dev->space == SWS_SPACE_ENTRY))
		pfn = cpu->h.sim->ops->cache_lookup(cpu, dev, off, &loads);
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
	SWS__SLOT_CALL(cpu, entry, 1, cpu->h.sim->ops->cache_get_shadow(cpu, dev, off, shadow), (void)0);
}

int sws_swap_cache_del(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t pfn,
		       uint64_t shadow)
{
	if (!pfn_ok(pfn) || shadow >> SWS_SHADOW_BITS)
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, nr, cpu->h.sim->ops->cache_del(cpu, dev, off, nr, pfn, shadow),
		       sws__count(cpu, SWS_CTR_swap_cache_del_total, 1);
		       sws__swapcache_mod(cpu, -(int64_t)nr));
}

int sws_swap_cache_replace(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t old_pfn,
			   uint64_t new_pfn)
{
	if (!pfn_ok(old_pfn) || !pfn_ok(new_pfn))
		return SWS_EINVAL;
	SWS__SLOT_CALL(cpu, entry, nr,
		       cpu->h.sim->ops->cache_replace(cpu, dev, off, nr, old_pfn, new_pfn),
		       sws__count(cpu, SWS_CTR_swap_cache_replace_total, 1));
}

int sws_swap_set_zero(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, bool zero)
{
	SWS__SLOT_CALL(cpu, entry, nr, cpu->h.sim->ops->set_zero(cpu, dev, off, nr, zero), (void)0);
}

bool sws_swap_test_zero(struct sws_cpu *cpu, sws_entry_t entry)
{
	bool zero = false;
	if (sws_unlikely(!cpu))
		return false;
	sws_rcu_read_lock();
	struct sws_device *dev = sws__device(cpu->h.sim, sws_swp_type(entry));
	uint64_t off = sws_swp_offset(entry);
	if (sws_likely(dev && off && sws__offset_mapped(dev, off) && dev->space == SWS_SPACE_ENTRY))
		zero = cpu->h.sim->ops->zero_test(cpu, dev, off);
	sws_rcu_read_unlock();
	return zero;
}

int sws_swapin_bypass_start(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t *shadow)
{
	uint64_t ignored;
	if (cpu && !(cpu->h.sim->ops->flags & SWS_DESIGN_SYNC_BYPASS))
		return SWS_EOPNOTSUPP;
	SWS__SLOT_CALL(cpu, entry, nr, cpu->h.sim->ops->pin(cpu, dev, off, nr, shadow ? shadow : &ignored),
		       sws__count(cpu, SWS_CTR_swap_cache_bypass, 1));
}

int sws_swapin_bypass_done(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr)
{
	/* A design without the bypass never pinned a slot. */
	SWS__SLOT_CALL(cpu, entry, nr,
		       cpu->h.sim->ops->flags & SWS_DESIGN_SYNC_BYPASS ? cpu->h.sim->ops->unpin(cpu, dev, off, nr)
								    : SWS_ENOTCACHED,
		       (void)0);
}

int sws_swap_io_target(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, bool write, sws_entry_t *target)
{
	if (!target)
		return SWS_EINVAL;
	if (cpu && !(cpu->h.sim->ops->flags & SWS_DESIGN_VIRTUAL)) {
		*target = entry; /* the entry is its own physical slot */
		return 0;
	}
	SWS__SLOT_CALL(cpu, entry, nr,
		       (dev->h.flags & SWS_SWP_VIRTUAL) ? cpu->h.sim->ops->io_slot(cpu, dev, off, nr, write, target)
						    : SWS_EBADENTRY,
		       (void)0);
}

int sws_swap_io_release(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr)
{
	if (cpu && !(cpu->h.sim->ops->flags & SWS_DESIGN_VIRTUAL))
		return SWS_EOPNOTSUPP;
	SWS__SLOT_CALL(cpu, entry, nr, cpu->h.sim->ops->io_release(cpu, dev, off, nr), (void)0);
}

sws_entry_t sws_swap_rmap(struct sws_cpu *cpu, sws_entry_t phys)
{
	if (sws_unlikely(!cpu))
		return 0;
	if (!(cpu->h.sim->ops->flags & SWS_DESIGN_VIRTUAL))
		return phys;
	sws_entry_t v = 0;
	sws_rcu_read_lock();
	struct sws_device *dev = sws__device(cpu->h.sim, sws_swp_type(phys));
	uint64_t off = sws_swp_offset(phys);
	if (dev && !(dev->h.flags & SWS_SWP_VIRTUAL) && off && sws__offset_mapped(dev, off))
		v = cpu->h.sim->ops->rmap(cpu, dev, off);
	sws_rcu_read_unlock();
	return v;
}

int sws_swap_set_memcg(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint16_t id)
{
	if (cpu && id && cpu->h.sim->memcg_off)
		return SWS_EINVAL; /* no memcgs: nothing to record */
	SWS__SLOT_CALL(cpu, entry, nr, cpu->h.sim->ops->set_memcg(cpu, dev, off, nr, id), (void)0);
}

uint64_t sws_swap_memcg_usage(const struct sws_sim *sim, uint16_t id)
{
	return sim && id < SWS__SWAP_MEMCGS ? atomic_load_explicit(&sim->memcg_swap[id], memory_order_relaxed) : 0;
}

void sws___slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
		      struct sws_slot_state *st)
{
	SWS_ASSERT_HELD(&ci->lock);
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
	if (!entry)
		rc = SWS_EBADENTRY; /* "no entry": never a slot */
	else if (!dev)
		rc = SWS_ENODEV;
	else if (!sws__offset_mapped(dev, off))
		rc = SWS_EBADENTRY;
	if (!rc) {
		struct sws_cluster *ci = sws__offset_cluster(dev, off);
		sws__cluster_lock(NULL, ci);
		sws___slot_state(dev, ci, off, st);
		sws__cluster_unlock(ci);
	}
	sws_rcu_read_unlock();
	sws__rcu_thread_put();
	return rc;
}

/* ---- zswap's entries in the design (vswap) ---------------------------------------------- */

bool sws__zswap_in_design(const struct sws_sim *sim) { return sim->ops->flags & SWS_DESIGN_VIRTUAL; }

/* RCU read lock held: the virtual device of @e, or NULL. */
static struct sws_device *virtual_dev(struct sws_cpu *cpu, sws_entry_t e)
{
	struct sws_device *dev = sws__device(cpu->h.sim, sws_swp_type(e));
	uint64_t off = sws_swp_offset(e);
	return dev && (dev->h.flags & SWS_SWP_VIRTUAL) && off && sws__offset_mapped(dev, off) ? dev : NULL;
}

int sws__swap_zswap_store(struct sws_cpu *cpu, sws_entry_t e, void *entry, void **old)
{
	sws_rcu_read_lock();
	struct sws_device *dev = virtual_dev(cpu, e);
	int rc = dev ? cpu->h.sim->ops->zswap_store(cpu, dev, sws_swp_offset(e), entry, old) : SWS_EBADENTRY;
	sws_rcu_read_unlock();
	return rc;
}

void *sws__swap_zswap_load(struct sws_cpu *cpu, sws_entry_t e)
{
	sws_rcu_read_lock();
	struct sws_device *dev = virtual_dev(cpu, e);
	void *en = dev ? cpu->h.sim->ops->zswap_load(cpu, dev, sws_swp_offset(e)) : NULL;
	sws_rcu_read_unlock();
	return en;
}

void *sws__swap_zswap_erase(struct sws_cpu *cpu, sws_entry_t e)
{
	sws_rcu_read_lock();
	struct sws_device *dev = virtual_dev(cpu, e);
	void *en = dev ? cpu->h.sim->ops->zswap_erase(cpu, dev, sws_swp_offset(e)) : NULL;
	sws_rcu_read_unlock();
	return en;
}

bool sws__swap_zap_batch_extends(struct sws_cpu *cpu, sws_entry_t last)
{
	if (!cpu->h.sim->ops->zap_batch_extends)
		return true;
	sws_rcu_read_lock();
	struct sws_device *dev = virtual_dev(cpu, last);
	bool ok = dev && cpu->h.sim->ops->zap_batch_extends(cpu, dev, sws_swp_offset(last));
	sws_rcu_read_unlock();
	return ok;
}

void sws__swap_zswap_drain(struct sws_sim *sim, void (*fn)(void *ctx, void *entry), void *ctx)
{
	sws_rcu_read_lock();
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *dev = sws__device(sim, t);
		if (dev && (dev->h.flags & SWS_SWP_VIRTUAL))
			sim->ops->zswap_drain(dev, fn, ctx);
	}
	sws_rcu_read_unlock();
}
