/*
 * folio.c - simulated RAM: folio descriptors, charging against RAM and memcg
 * limits (reclaiming when a limit is hit: direct reclaim), the per-memcg LRU
 * lists, and reverse maps.
 *
 * A folio of order k takes one PFN (a descriptor) and 2^k pages of RAM. The
 * LRU lists are doubly linked through PFNs; head = oldest. mm->lru_lock
 * protects the lists, the rmaps and mapcounts.
 */
#include <string.h>

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
	struct sws_mm_pcpu *p = &mm->pcpu[sws_cpu_id(cpu)];
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
static int charge(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr)
{
	struct sws_memcg *mc = &mm->memcgs[memcg];
	const uint64_t batch = mm->cfg.policy == SWS_RECLAIM_LRU ? nr : (nr > 32 ? nr : 32);
	uint32_t cur = cpu ? sws__mm_current(mm, cpu) : SWS__MM_NO_ASID;
	struct sws_space *cur_sp = cur != SWS__MM_NO_ASID ? sws__mm_space(mm, cur) : NULL;
	unsigned retries = MAX_RECLAIM_RETRIES;
	for (unsigned round = 0; round < MAX_CHARGE_ROUNDS; round++) {
		if (cur_sp && atomic_load_explicit(&cur_sp->oom_killed, memory_order_relaxed))
			return SWS_EKILLED; /* a dying task gets no more memory */
		bool memcg_full = !memcg_try_charge(mc, nr);
		if (!memcg_full) {
			if (atomic_fetch_sub(&mm->free_pages, (int64_t)nr) - (int64_t)nr >= 0)
				return 0;
			atomic_fetch_add(&mm->free_pages, (int64_t)nr);
			atomic_fetch_sub(&mc->usage, nr);
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

struct sws_folio *sws__mm_folio_claim(struct sws_mm *mm, uint64_t pfn, unsigned order, uint16_t memcg)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	folio_lock(f);
	atomic_store(&f->flags, PG_locked);
	f->order = (uint8_t)order;
	f->lru = LRU_NONE;
	f->memcg = memcg;
	f->prev = f->next = 0;
	atomic_store(&f->mapcount, 0);
	f->nr_rmap = 0; /* the overflow array (rmaps, cap_rmap) is kept for reuse */
	f->swap = 0;
	f->seed = 0;
	f->stamp = 0;
	return f;
}

int sws__mm_folio_alloc(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, unsigned order,
			uint64_t *pfn)
{
	int rc = charge(cpu, mm, memcg, 1ull << order);
	if (rc)
		return rc;
	sws_spin_lock(&mm->pfn_lock);
	uint32_t p = mm->nr_free_pfns ? mm->free_pfns[--mm->nr_free_pfns] : 0;
	sws_spin_unlock(&mm->pfn_lock);
	if (!p) { /* cannot happen: one PFN per page of RAM at least */
		atomic_fetch_add(&mm->free_pages, (int64_t)1 << order);
		atomic_fetch_sub(&mm->memcgs[memcg].usage, 1ull << order);
		return SWS_ENOMEM;
	}
	sws__mm_folio_claim(mm, p, order, memcg);
	if (cpu)
		mm_count(mm, cpu, SWS_MM_pgalloc, 1ull << order);
	*pfn = p;
	return 0;
}

#define MEMALLOC_RESERVE 64 /* pages reclaim itself may use beyond RAM (PF_MEMALLOC) */

int sws__mm_folio_alloc_noreclaim(struct sws_mm *mm, uint16_t memcg, uint64_t *pfn)
{
	/* Reclaim's own short-lived folios (zswap writeback) dip into the reserves,
	 * ignore the memcg limit and never reclaim. */
	if (atomic_fetch_sub(&mm->free_pages, 1) - 1 < -MEMALLOC_RESERVE) {
		atomic_fetch_add(&mm->free_pages, 1);
		return SWS_ENOMEM;
	}
	atomic_fetch_add(&mm->memcgs[memcg].usage, 1);
	sws_spin_lock(&mm->pfn_lock);
	uint32_t p = mm->nr_free_pfns ? mm->free_pfns[--mm->nr_free_pfns] : 0;
	sws_spin_unlock(&mm->pfn_lock);
	if (!p) {
		atomic_fetch_add(&mm->free_pages, 1);
		atomic_fetch_sub(&mm->memcgs[memcg].usage, 1);
		return SWS_ENOMEM;
	}
	sws__mm_folio_claim(mm, p, 0, memcg);
	*pfn = p;
	return 0;
}

void sws__mm_folio_free(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	uint64_t nr = folio_nr(f);
	f->nr_rmap = 0;
	atomic_store(&f->mapcount, 0);
	atomic_store(&f->flags, PG_free); /* also drops PG_locked */
	atomic_fetch_sub(&mm->memcgs[f->memcg].usage, nr);
	atomic_fetch_add(&mm->free_pages, (int64_t)nr);
	sws_spin_lock(&mm->pfn_lock);
	mm->free_pfns[mm->nr_free_pfns++] = (uint32_t)pfn;
	sws_spin_unlock(&mm->pfn_lock);
}

/* ---- LRU lists (mm->lru_lock held) ------------------------------------------------ */

static void list_append(struct sws_mm *mm, struct sws_lru *lru, unsigned which, uint32_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	f->prev = lru->tail[which];
	f->next = 0;
	if (lru->tail[which])
		mm_folio(mm, lru->tail[which])->next = pfn;
	else
		lru->head[which] = pfn;
	lru->tail[which] = pfn;
	lru->nr[which] += folio_nr(f);
	f->lru = (uint8_t)which;
}

static void list_unlink(struct sws_mm *mm, struct sws_lru *lru, uint32_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	unsigned which = f->lru;
	if (f->prev)
		mm_folio(mm, f->prev)->next = f->next;
	else
		lru->head[which] = f->next;
	if (f->next)
		mm_folio(mm, f->next)->prev = f->prev;
	else
		lru->tail[which] = f->prev;
	lru->nr[which] -= folio_nr(f);
	f->prev = f->next = 0;
	f->lru = LRU_NONE;
}

void sws__mm_lru_add(struct sws_mm *mm, uint64_t pfn, bool active)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	sws_spin_lock(&mm->lru_lock);
	if (f->lru == LRU_NONE) {
		list_append(mm, &mm->memcgs[f->memcg].lru, active ? LRU_ACTIVE : LRU_INACTIVE,
			    (uint32_t)pfn);
		folio_set(f, PG_lru | (active ? PG_active : 0));
	}
	sws_spin_unlock(&mm->lru_lock);
}

void sws__mm_lru_unlink_locked(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	if (f->lru != LRU_NONE)
		list_unlink(mm, &mm->memcgs[f->memcg].lru, (uint32_t)pfn);
	folio_clear(f, PG_lru | PG_active);
}

void sws__mm_lru_move_locked(struct sws_mm *mm, uint64_t pfn, unsigned which)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	struct sws_lru *lru = &mm->memcgs[f->memcg].lru;
	if (f->lru != LRU_NONE)
		list_unlink(mm, lru, (uint32_t)pfn);
	list_append(mm, lru, which, (uint32_t)pfn);
	folio_set(f, PG_lru);
	if (which == LRU_ACTIVE)
		folio_set(f, PG_active);
	else
		folio_clear(f, PG_active);
}

void sws__mm_lru_del(struct sws_mm *mm, uint64_t pfn)
{
	sws_spin_lock(&mm->lru_lock);
	sws__mm_lru_unlink_locked(mm, pfn);
	sws_spin_unlock(&mm->lru_lock);
}

/* An access to a mapped folio: the hardware accessed bit, or for the exact-LRU
 * reference a move to the most recently used end. */
void sws__mm_mark_accessed(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	if (mm->cfg.policy != SWS_RECLAIM_LRU) {
		if (!folio_test(f, PG_young))
			folio_set(f, PG_young);
		return;
	}
	sws_spin_lock(&mm->lru_lock);
	if (f->lru != LRU_NONE)
		sws__mm_lru_move_locked(mm, pfn, LRU_INACTIVE);
	f->stamp = atomic_fetch_add(&mm->lru_clock, 1);
	sws_spin_unlock(&mm->lru_lock);
}

/* ---- reverse maps (mm->lru_lock held by the callers below) -------------------------- */

int sws__mm_rmap_add(struct sws_mm *mm, struct sws_folio *f, uint32_t asid, uint64_t vaddr)
{
	sws_spin_lock(&mm->lru_lock);
	if (f->nr_rmap == 0) {
		f->rmap1 = (struct sws_rmap){asid, vaddr};
	} else {
		uint32_t k = f->nr_rmap - 1;
		if (k == f->cap_rmap) {
			uint32_t cap = f->cap_rmap ? f->cap_rmap * 2 : 4;
			struct sws_rmap *n = sws__mem_alloc(&mm->sim->mem, SWS_MEM_mm, sizeof(*n) * cap, 0);
			if (!n) {
				sws_spin_unlock(&mm->lru_lock);
				return SWS_ENOMEM;
			}
			if (f->rmaps)
				memcpy(n, f->rmaps, sizeof(*n) * f->cap_rmap);
			sws__mem_free(&mm->sim->mem, SWS_MEM_mm, f->rmaps, sizeof(*n) * f->cap_rmap);
			f->rmaps = n;
			f->cap_rmap = cap;
		}
		f->rmaps[k] = (struct sws_rmap){asid, vaddr};
	}
	f->nr_rmap++;
	atomic_fetch_add(&f->mapcount, 1);
	sws_spin_unlock(&mm->lru_lock);
	return 0;
}

void sws__mm_rmap_del(struct sws_mm *mm, struct sws_folio *f, uint32_t asid, uint64_t vaddr)
{
	sws_spin_lock(&mm->lru_lock);
	for (uint32_t i = 0; i < f->nr_rmap; i++) {
		struct sws_rmap *r = i ? &f->rmaps[i - 1] : &f->rmap1;
		if (r->asid != asid || r->vaddr != vaddr)
			continue;
		struct sws_rmap *last = f->nr_rmap > 1 ? &f->rmaps[f->nr_rmap - 2] : &f->rmap1;
		*r = *last;
		f->nr_rmap--;
		atomic_fetch_sub(&f->mapcount, 1);
		break;
	}
	sws_spin_unlock(&mm->lru_lock);
}
