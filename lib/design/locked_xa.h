/*
 * locked_xa.h - an XArray under its own spinlock (an address space's
 * xa_lock: the 6.17 swap cache's spaces, vswap's cluster map), counting in
 * the work report the lock and the nodes the tree allocates and retires
 * while it is held.
 */
#ifndef SWS_DESIGN_LOCKED_XA_H
#define SWS_DESIGN_LOCKED_XA_H

#include "../common/xarray.h"
#include "../swap/swap_internal.h"

struct locked_xa {
	sws_spinlock_t lock;               /* xa_lock */
	struct sws_xa xa;
	uint64_t alloc_seen, retired_seen; /* tree counters already counted (lock held) */
};

static inline void locked_xa_lock(struct sws_cpu *cpu, struct locked_xa *lx)
{
	sws__lock_counted(cpu, &lx->lock, SWS_WORK_lock_xa, SWS_CTR_lock_xa_contended);
}

/* Unlock, counting the nodes allocated (and as @alloc_ctr, unless it is
 * SWS_NR_COUNTERS) and retired under the lock. Lock holders without a CPU
 * change nothing. */
static inline void locked_xa_unlock(struct sws_cpu *cpu, struct locked_xa *lx, enum sws_counter alloc_ctr)
{
	uint64_t allocs = lx->xa.nr_alloc - lx->alloc_seen, retired = lx->xa.nr_retired - lx->retired_seen;
	if (cpu && (allocs | retired)) {
		lx->alloc_seen = lx->xa.nr_alloc;
		lx->retired_seen = lx->xa.nr_retired;
		if (alloc_ctr != SWS_NR_COUNTERS)
			sws__count(cpu, alloc_ctr, allocs);
		sws__work(cpu, SWS_WORK_meta_alloc, allocs);
		sws__work(cpu, SWS_WORK_meta_free, retired);
	}
	sws_spin_unlock(&lx->lock);
}

#endif
