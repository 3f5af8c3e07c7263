/*
 * memcontrol.c - memcgs and charging (mm/memcontrol.c: try_charge): a charge
 * takes pages of the memcg's limit and of RAM, reclaiming from the memcg (at
 * its limit) or the machine (RAM short) and, when reclaim makes no progress
 * 16 times (MAX_RECLAIM_RETRIES), calling the OOM killer.
 * Uncharging a batch of freed folios (mem_cgroup_uncharge_folios) updates
 * each memcg's counter once per run of its folios.
 * Callers: page_alloc.c (every folio; a batch's in sws__mm_folio_batch_free),
 * sws_mm_memcg_create. Each memcg also keeps the swap tiers it may allocate
 * slots from (memory.swap.tiers.max; vmscan.c's swap-out passes them on).
 */
#include "mm_internal.h"

#define MAX_RECLAIM_RETRIES 16
#define MAX_CHARGE_ROUNDS 4096 /* a bound on the loop whatever other CPUs do */
#define MEMCG_CHARGE_BATCH 64u /* pages a charge takes ahead into the CPU's stock */

/* ---- the per-CPU charge stock (consume_stock, refill_stock, drain_all_stock) ------ */

static inline uint16_t stock_memcg(uint64_t v) { return (uint16_t)(v >> 32); }
static inline uint32_t stock_pages(uint64_t v) { return (uint32_t)v; }

/* consume_stock(): @nr pages of @memcg from this CPU's stock, if it has them. */
static bool consume_stock(struct sws_mm_pcpu *p, uint16_t memcg, uint64_t nr)
{
	uint64_t v = atomic_load_explicit(&p->stock, memory_order_relaxed);
	while (stock_memcg(v) == memcg && stock_pages(v) >= nr)
		if (atomic_compare_exchange_weak(&p->stock, &v, v - nr))
			return true;
	return false;
}

/* The pages of stock value @v back to their memcg's counter. */
static void stock_uncharge(struct sws_mm *mm, uint64_t v)
{
	if (stock_pages(v)) {
		mm_page_counter(&mm->memcgs[stock_memcg(v)]);
		atomic_fetch_sub(&mm->memcgs[stock_memcg(v)].usage, stock_pages(v));
	}
}

/* refill_stock(): @nr pages charged ahead to @memcg into this CPU's stock; a
 * stock of another memcg is drained first (drain_stock()), and one grown past
 * the batch goes back to its counter. */
static void refill_stock(struct sws_mm *mm, struct sws_mm_pcpu *p, uint16_t memcg, uint64_t nr)
{
	uint64_t v = atomic_load_explicit(&p->stock, memory_order_relaxed), total, want;
	do {
		total = (stock_memcg(v) == memcg ? stock_pages(v) : 0) + nr;
		want = (uint64_t)memcg << 32 | (total > MEMCG_CHARGE_BATCH ? 0 : total);
	} while (!atomic_compare_exchange_weak(&p->stock, &v, want));
	if (stock_memcg(v) != memcg)
		stock_uncharge(mm, v);
	if (total > MEMCG_CHARGE_BATCH) {
		mm_page_counter(&mm->memcgs[memcg]);
		atomic_fetch_sub(&mm->memcgs[memcg].usage, total);
	}
}

/* drain_all_stock(): every CPU's stock of @memcg back to its counter. */
static void drain_all_stock(struct sws_mm *mm, uint16_t memcg)
{
	for (unsigned i = 0; i < mm->nr_cpus; i++) {
		struct sws_mm_pcpu *p = &mm->pcpu[i];
		uint64_t v = atomic_load_explicit(&p->stock, memory_order_relaxed);
		while (stock_memcg(v) == memcg && stock_pages(v))
			if (atomic_compare_exchange_weak(&p->stock, &v, (uint64_t)memcg << 32)) {
				stock_uncharge(mm, v);
				break;
			}
	}
}

/* Take @nr pages of @memcg's limit, or report that it is full. */
static bool memcg_try_charge(struct sws_memcg *mc, uint64_t nr)
{
	mm_page_counter(mc);
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

/* One round of direct reclaim, into the CPU's reclaim latency histogram: its
 * virtual time under the modelled clock; else sys measured around it, less
 * its untimed regions, plus the modelled device time it charged. */
static uint64_t reclaim_round(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr,
			      bool memcg_only)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
	uint64_t t0 = vc ? vc->now : sws__sim_clock_ns(mm->sim), m0 = p->sys_modelled_ns + p->iowait_ns,
		 u0 = p->untimed_ns;
	uint64_t by_type[2] = {0, 0};
	uint64_t got = sws__mm_shrink(cpu, mm, memcg, nr, memcg_only, by_type);
	/* what the trace's next records of the charges' reclaim count first */
	for (int t = 0; memcg_only && t < 2; t++)
		if (by_type[t])
			atomic_fetch_add_explicit(&mm->memcgs[memcg].reclaim_credit[t], by_type[t],
						  memory_order_relaxed);
	uint64_t ns = vc ? (vc->now - t0) / 1000
			 : sws__sim_clock_ns(mm->sim) - t0 - (p->untimed_ns - u0) + p->sys_modelled_ns + p->iowait_ns - m0;
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
 * mem_cgroup_handle_over_high(), at once rather than on the way back to user
 * space: a charge that left @memcg above memory.high reclaims the excess from
 * it (reclaim_high()); the throttling sleep that follows in the kernel while
 * it stays above is not modelled.
 */
static void handle_over_high(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg)
{
	struct sws_memcg *mc = &mm->memcgs[memcg];
	uint64_t u = atomic_load(&mc->usage);
	if (!cpu || u <= mc->high)
		return;
	mm_count(mm, cpu, SWS_MM_memcg_high, 1);
	reclaim_round(cpu, mm, memcg, u - mc->high, true);
}

/* try_charge_memcg()'s first step: @nr pages from this CPU's @stock (NULL:
 * none), else a batch ahead, else just @nr. @return false: @memcg is full. */
static bool charge_fast(struct sws_mm *mm, struct sws_mm_pcpu *stock, uint16_t memcg, uint64_t nr)
{
	struct sws_memcg *mc = &mm->memcgs[memcg];
	if (stock && consume_stock(stock, memcg, nr))
		return true;
	uint64_t ahead = stock && nr < MEMCG_CHARGE_BATCH ? MEMCG_CHARGE_BATCH - nr : 0;
	if (ahead && memcg_try_charge(mc, nr + ahead)) {
		refill_stock(mm, stock, memcg, ahead);
		return true;
	}
	return memcg_try_charge(mc, nr);
}

/*
 * A memcg whose reclaim the trace records: the kernel's charge that found it
 * full reclaimed, and the trace's RECLAIM record of that reclaim comes after
 * the fault. So a charge that finds @mc full takes @nr pages over its limit
 * and leaves the reclaim to the record, the kernel's amount of the kernel's
 * LRU types; one that finds it over its limit still (no record came) does not.
 * When the trace records each reclaim's begin too (the memcg's usage is set
 * to its limit there, vmscan.c), every charge goes over: the records reclaim.
 */
static bool charge_for_record(struct sws_memcg *mc, uint64_t nr)
{
	if (!atomic_load_explicit(&mc->reclaim_recorded, memory_order_relaxed))
		return false;
	mm_page_counter(mc);
	if (atomic_load_explicit(&mc->reclaim_begins, memory_order_relaxed)) {
		atomic_fetch_add(&mc->usage, nr);
		return true;
	}
	uint64_t u = atomic_load(&mc->usage);
	while (u <= mc->limit)
		if (atomic_compare_exchange_weak(&mc->usage, &u, u + nr))
			return true;
	return false;
}

/*
 * A recorded reclaim's begin (vmscan.c): the kernel's charge found @memcg
 * full, its usage at the limit. Below it, the model lacks memory the kernel
 * charged (page tables, slab: kernel_pages); above it
 * by more than the charge's page, the kernel held less of that than the model
 * took, or less of the model's own pages (a trace that names no victims, a
 * read whose page cache comes at its exit).
 */
uint64_t sws__mm_memcg_full(struct sws_mm *mm, uint16_t memcg)
{
	struct sws_memcg *mc = &mm->memcgs[memcg];
	uint64_t u = atomic_load(&mc->usage);
	if (u < mc->limit) {
		atomic_fetch_add(&mc->kernel_pages, mc->limit - u);
		atomic_fetch_add(&mc->usage, mc->limit - u);
		return 0;
	}
	uint64_t over = u - mc->limit > 1 ? u - mc->limit - 1 : 0;
	uint64_t k = atomic_load(&mc->kernel_pages), give;
	do
		give = over < k ? over : k;
	while (give && !atomic_compare_exchange_weak(&mc->kernel_pages, &k, k - give));
	atomic_fetch_sub(&mc->usage, give);
	return over - give;
}

/* A charge to @memcg done: its cost, and the excess over memory.high reclaimed. */
static void charged(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg)
{
	mm_cost(cpu, SWS_COST_memcg_charge, 1);
	if (sws_unlikely(mm->memcgs[memcg].high))
		handle_over_high(cpu, mm, memcg);
}

/*
 * try_charge_memcg() and the page allocator's slow path, reduced: charge @nr
 * pages to @memcg and to RAM. Over either limit, reclaim from that memcg (or,
 * for RAM, from all memcgs); a round that reclaimed something retries at
 * once, MAX_RECLAIM_RETRIES rounds that reclaimed nothing invoke the OOM
 * killer (oom_kill.c), after which the charge retries with the memory the kill
 * returned. A task that was killed takes no more memory (SWS_EKILLED).
 * A large anonymous folio's charge (@gfp, enum sws__gfp) never kills:
 * SWS__GFP_LIGHT fails as soon as the stock and the counter have no room
 * (!gfpflags_allow_blocking(): nomem); the others reclaim, retry at once only
 * while a round left the margin for the whole folio (reclaim that freed less
 * counts against the retries: nr_reclaimed retries only up to
 * PAGE_ALLOC_COSTLY_ORDER), drain the stocks once, and fail after one round
 * (SWS__GFP_NORETRY) or MAX_RECLAIM_RETRIES (mem_cgroup_oom() refuses orders
 * above PAGE_ALLOC_COSTLY_ORDER).
 */
int sws__mm_charge(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr)
{
	return sws__mm_charge_gfp(cpu, mm, memcg, nr, SWS__GFP_KERNEL);
}

int sws__mm_charge_gfp(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr, unsigned gfp)
{
	struct sws_memcg *mc = &mm->memcgs[memcg];
	const uint64_t batch = mm->cfg.policy == SWS_RECLAIM_LRU ? nr : (nr > 32 ? nr : 32);
	uint32_t cur = cpu ? sws__mm_current(mm, cpu) : SWS__MM_NO_ASID;
	struct sws_space *cur_sp = cur != SWS__MM_NO_ASID ? mm_space(mm, cpu, cur) : NULL;
	/* The exact-LRU reference charges page by page: no stock. */
	struct sws_mm_pcpu *stock = cpu && mm->cfg.policy != SWS_RECLAIM_LRU ? &mm->pcpu[sws__cpu_id(cpu)] : NULL;
	unsigned retries = MAX_RECLAIM_RETRIES;
	bool drained = false;
	for (unsigned round = 0; round < MAX_CHARGE_ROUNDS; round++) {
		if (cur_sp && atomic_load_explicit(&cur_sp->oom_killed, memory_order_relaxed))
			return SWS_EKILLED; /* a dying task gets no more memory */
		/* try_charge_memcg(): the stock, else a batch ahead, else just @nr.
		 * Without a stock, a memcg without a limit is never full: with RAM
		 * short, go straight to reclaim (no charge to take back). */
		bool memcg_full = false;
		if (stock || mc->limit || sws__mm_free_pages(mm) >= (int64_t)nr) {
			memcg_full = !charge_fast(mm, stock, memcg, nr) &&
				     !(gfp == SWS__GFP_KERNEL && charge_for_record(mc, nr));
			if (!memcg_full) {
				if (sws__mm_ram_take(cpu, mm, nr)) {
					charged(cpu, mm, memcg);
					return 0;
				}
				atomic_fetch_sub(&mc->usage, nr);
			}
		}
		const int nomem = memcg_full ? SWS_ECHARGE_INTERNAL : SWS_ENOMEM;
		if (gfp == SWS__GFP_LIGHT)
			return nomem;
		if (!cpu)
			return SWS_ENOMEM;
		uint16_t target = memcg_full ? memcg : 0;
		uint64_t got = reclaim_round(cpu, mm, target, batch, memcg_full);
		if (gfp == SWS__GFP_KERNEL || !memcg_full ? got != 0 : atomic_load(&mc->usage) + nr <= mc->limit)
			continue; /* a large charge: mem_cgroup_margin() >= nr_pages */
		if (memcg_full && !drained) { /* other CPUs' stocks hold some of the limit */
			drain_all_stock(mm, memcg);
			drained = true;
			continue;
		}
		if (gfp == SWS__GFP_NORETRY)
			return nomem;
		if (retries--)
			continue;
		if (gfp != SWS__GFP_KERNEL)
			return nomem;
		int rc = sws__mm_out_of_memory(cpu, mm, target);
		if (rc)
			return rc;
		retries = MAX_RECLAIM_RETRIES;
	}
	return SWS_ENOMEM;
}

void sws__mm_uncharge_folios(struct sws_mm *mm, const uint32_t *pfn, unsigned n)
{
	uint64_t pages = 0;
	uint16_t memcg = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct sws_folio *f = mm_folio(mm, pfn[i]);
		if (pages && f->memcg != memcg) { /* uncharge_batch() of the run so far */
			mm_cost_here(SWS_COST_memcg_uncharge, 1);
			mm_page_counter(&mm->memcgs[memcg]);
			atomic_fetch_sub(&mm->memcgs[memcg].usage, pages);
			pages = 0;
		}
		memcg = f->memcg;
		pages += folio_nr(f);
	}
	if (pages) {
		mm_cost_here(SWS_COST_memcg_uncharge, 1);
		mm_page_counter(&mm->memcgs[memcg]);
		atomic_fetch_sub(&mm->memcgs[memcg].usage, pages);
	}
}

int sws_mm_memcg_set_high(struct sws_mm *mm, uint16_t id, uint64_t high_pages)
{
	if (!mm || id >= mm->nr_memcgs)
		return SWS_EINVAL;
	mm->memcgs[id].high = high_pages;
	return 0;
}

int sws_mm_memcg_set_swap_tiers(struct sws_mm *mm, uint16_t id, uint32_t tiers)
{
	if (!mm || !id || id >= mm->nr_memcgs || (tiers & ~SWS_SWAP_TIERS_ALL))
		return SWS_EINVAL;
	mm->memcgs[id].swap_tiers = tiers;
	return 0;
}

uint32_t sws__mm_memcg_swap_tiers(const struct sws_mm *mm, uint16_t id)
{
	uint32_t t = id < mm->nr_memcgs ? mm->memcgs[id].swap_tiers : 0;
	return t ? t : SWS_SWAP_TIERS_ALL;
}

int sws_mm_memcg_create(struct sws_mm *mm, uint64_t limit_pages, uint16_t *id)
{
	if (!mm || !id)
		return SWS_EINVAL;
	if (sws__sim_memcg_off(mm->sim))
		return SWS_EOPNOTSUPP; /* cgroup_disable=memory: the root alone */
	mm_lock(mm, &mm->memcg_lock, SWS_MM_lock_mm_other_contended);
	int rc = SWS_ENOMEM; /* the array is fixed: readers index it without a lock */
	if (mm->nr_memcgs < mm->cap_memcgs) {
		mm->memcgs[mm->nr_memcgs].limit = limit_pages;
		*id = (uint16_t)mm->nr_memcgs++;
		rc = 0;
	}
	sws_spin_unlock(&mm->memcg_lock);
	return rc;
}
