/*
 * memcontrol.c - memcgs and charging (mm/memcontrol.c: try_charge): a charge
 * takes pages of the memcg's limit and of RAM, reclaiming from the memcg (at
 * its limit) or the machine (RAM short) and, when reclaim makes no progress
 * 16 times (MAX_RECLAIM_RETRIES), calling the OOM killer.
 * Callers: page_alloc.c (every folio), sws_mm_memcg_create.
 */
#include "mm_internal.h"

#define MAX_RECLAIM_RETRIES 16
#define MAX_CHARGE_ROUNDS 4096 /* a bound on the loop whatever other CPUs do */

/* Take @nr pages of @memcg's limit, or report that it is full. */
static bool memcg_try_charge(struct sws_memcg *mc, uint64_t nr)
{
	if (!mc->limit) {
		atomic_fetch_add(&mc->usage, nr);
		return true;
	}
	uint64_t u = atomic_load(&mc->usage);
	while (u + nr <= mc->limit)
		if (atomic_compare_exchange_weak(&mc->usage, &u, u + nr))
			return true;
	return false;
}

/* One round of direct reclaim, into the CPU's reclaim latency histogram
 * (sys measured around it, less its untimed regions, plus the modelled time
 * it charged). */
static uint64_t reclaim_round(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr,
			      bool memcg_only)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	uint64_t t0 = sws__clock_ns(mm->sim), m0 = p->sys_modelled_ns + p->iowait_ns, u0 = p->untimed_ns;
	uint64_t got = sws__mm_shrink(cpu, mm, memcg, nr, memcg_only);
	uint64_t ns = sws__clock_ns(mm->sim) - t0 - (p->untimed_ns - u0) + p->sys_modelled_ns +
		      p->iowait_ns - m0;
	unsigned b = ns ? 63u - (unsigned)__builtin_clzll(ns) : 0;
	if (b >= SWS_MM_LAT_BUCKETS)
		b = SWS_MM_LAT_BUCKETS - 1;
	mm_time_add(&p->reclaim_lat[b], 1);
	mm_time_add(&p->reclaim_count, 1);
	mm_time_add(&p->reclaim_sum_ns, ns);
	if (ns > sws_load_relaxed(&p->reclaim_max_ns))
		sws_store_relaxed(&p->reclaim_max_ns, ns);
	return got;
}

/*
 * try_charge_memcg() and the page allocator's slow path, reduced: charge @nr
 * pages to @memcg and to RAM. Over either limit, reclaim from that memcg (or,
 * for RAM, from all memcgs); a round that reclaimed something retries at
 * once, MAX_RECLAIM_RETRIES rounds that reclaimed nothing invoke the OOM
 * killer (oom_kill.c), after which the charge retries with the memory the kill
 * returned. A task that was killed takes no more memory (SWS_EKILLED).
 */
int sws__mm_charge(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr)
{
	struct sws_memcg *mc = &mm->memcgs[memcg];
	const uint64_t batch = mm->cfg.policy == SWS_RECLAIM_LRU ? nr : (nr > 32 ? nr : 32);
	uint32_t cur = cpu ? sws__mm_current(mm, cpu) : SWS__MM_NO_ASID;
	struct sws_space *cur_sp = cur != SWS__MM_NO_ASID ? mm_space(mm, cpu, cur) : NULL;
	unsigned retries = MAX_RECLAIM_RETRIES;
	for (unsigned round = 0; round < MAX_CHARGE_ROUNDS; round++) {
		if (cur_sp && atomic_load_explicit(&cur_sp->oom_killed, memory_order_relaxed))
			return SWS_EKILLED; /* a dying task gets no more memory */
		/* A memcg without a limit is never full: with RAM short, go
		 * straight to reclaim (no charge to take back). */
		bool memcg_full = false;
		if (mc->limit || atomic_load_explicit(&mm->free_pages, memory_order_relaxed) >= (int64_t)nr) {
			memcg_full = !memcg_try_charge(mc, nr);
			if (!memcg_full) {
				if (atomic_fetch_sub(&mm->free_pages, (int64_t)nr) - (int64_t)nr >= 0)
					return 0;
				atomic_fetch_add(&mm->free_pages, (int64_t)nr);
				atomic_fetch_sub(&mc->usage, nr);
			}
		}
		if (!cpu)
			return SWS_ENOMEM;
		uint16_t target = memcg_full ? memcg : 0;
		if (reclaim_round(cpu, mm, target, batch, memcg_full))
			continue;
		if (retries--)
			continue;
		int rc = sws__mm_out_of_memory(cpu, mm, target);
		if (rc)
			return rc;
		retries = MAX_RECLAIM_RETRIES;
	}
	return SWS_ENOMEM;
}

int sws_mm_memcg_create(struct sws_mm *mm, uint64_t limit_pages, uint16_t *id)
{
	if (!mm || !id)
		return SWS_EINVAL;
	sws_spin_lock(&mm->memcg_lock);
	int rc = SWS_ENOMEM; /* the array is fixed: readers index it without a lock */
	if (mm->nr_memcgs < mm->cap_memcgs) {
		mm->memcgs[mm->nr_memcgs].limit = limit_pages;
		*id = (uint16_t)mm->nr_memcgs++;
		rc = 0;
	}
	sws_spin_unlock(&mm->memcg_lock);
	return rc;
}
