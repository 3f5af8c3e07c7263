/*
 * page_alloc.c - simulated RAM (mm/page_alloc.c): folio descriptors by PFN (a
 * folio of order k takes one PFN and 2^k pages of RAM), allocated charged
 * (memcontrol.c) or, for reclaim's own short-lived folios, from the
 * reserves without reclaim, and freed; the free PFNs and the sections that
 * map the descriptors (sparse memory, mm/sparse.c).
 * Callers: every path that needs a folio.
 *
 * FREE PFNS. The order PFNs are handed out in is that of one stack that held
 * every PFN at the start, PFN 1 on top: a freed PFN is pushed, a new folio
 * pops. Nothing of that stack is stored for PFNs never used: at any time it
 * is the PFNs freed since, last freed on top, above the never claimed PFNs
 * [pfn_hwm, nr_pfn) in order, lowest on top. So the freed ones are a list
 * linked through the descriptors' LRU link (a free descriptor is on no LRU
 * list; the kernel's free lists run through page->lru too), and a pop takes
 * the list's head, or else pfn_hwm++:
 *
 *    free_head ─▶ [pfn 7] ─next─▶ [pfn 3] ─next─▶ 0       then 12, 13, ... nr_pfn - 1
 *                 (freed last)                             (pfn_hwm = 12: never claimed)
 *
 * PER-CPU PAGE LISTS (struct per_cpu_pages). A CPU frees onto and allocates
 * from a list of its own, linked the same way, under its own pcp_lock, so the
 * shared pfn_lock is taken once per PCP_BATCH pages: an empty list is refilled
 * with a batch from the free list (rmqueue_bulk()), a list above PCP_HIGH gives
 * a batch back (free_pcppages_bulk()); its most recently freed first both ways
 * (the kernel gives back the coldest). When the free list and the never
 * claimed PFNs run dry every CPU's list is drained into it, one PFN taken for
 * the caller on the way (drain_all_pages() on the allocation slow path). The
 * RAM count is separate and moves at allocation and free, so the lists change
 * which PFN a folio gets (and so the stack order above holds only up to them),
 * never how much memory is free.
 *
 * THE RAM COUNT. free_pages less what each CPU took ahead: an allocation
 * takes its pages from its CPU's free stock, else FREE_STOCK_BATCH ahead from
 * free_pages into it, and a free gives them back to the stock (two batches at
 * most, the rest to free_pages), so CPUs touch the shared count once per
 * batch, as the kernel moves NR_FREE_PAGES once per batch of its per-CPU
 * lists. Unlike the kernel, the count readers see (kswapd's watermarks,
 * statistics: sws__mm_free_pages()) includes the stocks, and an allocation
 * that finds free_pages short makes RAM tight (no stock is refilled and frees
 * go to free_pages until it has four batches per CPU again), brings every
 * stock back and tries again: one CPU decides exactly as with one shared
 * count, several never fail while pages are free. A caller without a CPU
 * (NULL: white-box tests) uses the free list (and drains the lists when it
 * runs dry).
 *
 * THE KERNEL'S SWAP PAGES (SWS_MM_KERNEL_RAM). The swap metadata the design keeps (its static and
 * dynamic bytes, as sws_sim_memory_usage() and swapsim-overhead count them:
 * swap tables, cluster info, swap_map, XArray nodes, vswap descriptors,
 * zswap's trees) is kernel memory, and zsmalloc's pages come from the buddy
 * allocator: both are RAM. kernel_swap_sync() moves free_pages by the change
 * in their pages (the metadata's bytes rounded up to pages, plus the pool's
 * pages) whenever an allocation takes RAM and whenever free memory is read,
 * so they count in free memory and in global pressure. free_pages may go below
 * zero that way: the next allocation then reclaims. They are charged to no
 * memcg (the kernel charges zswap's compressed bytes to the memcg on cgroup
 * v2, which zswap_glue.c does, and none of the swap metadata).
 *
 * THE FOLIO MAP. Descriptors are one array indexed by PFN, so pfn_to_page() is
 * one load and an add, as the kernel's SPARSEMEM_VMEMMAP makes it: address
 * space for all nr_pfn descriptors is reserved at create (a sparse arena,
 * PROT_NONE), and mapped from its start by whole sections of 2^15 PFNs as the
 * pop of a never claimed PFN reaches them. Mapped anonymous pages read as zero
 * and cost nothing until a descriptor on them is written; a section stays
 * mapped until sws_mm_destroy(), as a section the kernel onlined stays. Only
 * PFNs below pfn_hwm can be held by any path, so the map follows the most
 * frames ever in use at once (and held in CPUs' lists), not the configured RAM:
 *
 *    folios ─▶ | section 0 | section 1 | ........... reserved, PROT_NONE ........... |
 *              |<- mapped (charged to SWS_MEM_mm) ->|
 *              PFN 0 .......... pfn_hwm ^           (whole sections: the last ends at nr_pfn)
 */
#include <sched.h>

#include "mm_internal.h"

/* Bytes of the folio map that hold PFNs below @end. */
static size_t map_bytes(uint64_t end) { return (size_t)end * sizeof(struct sws_folio); }

int sws__mm_folio_map_init(struct sws_mm *mm)
{
	if (sws__arena_reserve(&mm->folio_map, map_bytes(mm->nr_pfn)))
		return SWS_ENOMEM;
	mm->folios = (struct sws_folio *)(void *)mm->folio_map.base;
	return 0;
}

void sws__mm_folio_map_fini(struct sws_mm *mm)
{
	if (!mm->folios)
		return;
	sws__mem_charge(sws__sim_mem(mm->sim), SWS_MEM_mm, -(int64_t)sws__arena_mapped(&mm->folio_map));
	sws__arena_release(&mm->folio_map);
	mm->folios = NULL;
}

/* pfn_lock held: map the folio map far enough for PFNs below @end, by whole
 * sections (the last ends at nr_pfn). @return 0 or SWS_ENOMEM. */
static int __folio_map_grow(struct sws_mm *mm, uint64_t end)
{
	SWS_ASSERT_HELD(&mm->pfn_lock);
	size_t have = sws__arena_mapped(&mm->folio_map);
	if (map_bytes(end) <= have)
		return 0;
	uint64_t to = SWS_DIV_ROUND_UP(end, SWS__MM_SECTION_PFNS) * SWS__MM_SECTION_PFNS;
	if (to > mm->nr_pfn)
		to = mm->nr_pfn;
	if (sws__arena_grow(&mm->folio_map, map_bytes(to)))
		return SWS_ENOMEM;
	sws__mem_charge(sws__sim_mem(mm->sim), SWS_MEM_mm, (int64_t)(sws__arena_mapped(&mm->folio_map) - have));
	return 0;
}

/* pfn_lock held: one PFN off the free list, or a never claimed one. 0: none. */
static inline uint32_t __pfn_pop(struct sws_mm *mm)
{
	SWS_ASSERT_HELD(&mm->pfn_lock);
	uint32_t p = mm->free_head;
	if (sws_likely(p)) {
		mm->free_head = mm_folio(mm, p)->next;
		mm->nr_free_listed--;
	} else if (mm->pfn_hwm < mm->nr_pfn && !__folio_map_grow(mm, (uint64_t)mm->pfn_hwm + 1)) {
		p = mm->pfn_hwm++;
		/* Free until claimed, as a freed one (it may wait on a CPU's list). */
		atomic_store_explicit(&mm_folio(mm, p)->flags, PG_free, memory_order_relaxed);
	}
	return p;
}

/* pfn_lock held: @pfn onto the free list. */
static inline void __pfn_push(struct sws_mm *mm, uint32_t pfn)
{
	SWS_ASSERT_HELD(&mm->pfn_lock);
	mm_folio(mm, pfn)->next = mm->free_head;
	mm->free_head = pfn;
	mm->nr_free_listed++;
}

#define PCP_BATCH 63            /* pcp->batch of a large zone */
#define PCP_HIGH (4 * PCP_BATCH) /* pcp->high: above it a batch goes back */

/* rmqueue_bulk(): @p's pcp_lock held, its list empty: refill up to a batch.
 * @return false when a section could not be mapped. */
static bool __rmqueue_bulk(struct sws_mm *mm, struct sws_mm_pcpu *p)
{
	SWS_ASSERT_HELD(&p->pcp_lock);
	bool mapped = true;
	mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
	for (unsigned i = 0; i < PCP_BATCH; i++) {
		uint32_t pfn = __pfn_pop(mm);
		if (!pfn) {
			mapped = mm->pfn_hwm >= mm->nr_pfn; /* used up, or a section failed */
			break;
		}
		mm_folio(mm, pfn)->next = p->pcp_head;
		p->pcp_head = pfn;
		p->pcp_count++;
	}
	sws_spin_unlock(&mm->pfn_lock);
	return mapped;
}

/* free_pcppages_bulk(): @p's pcp_lock and pfn_lock held: up to @nr of its
 * PFNs to the free list. @return how many. */
static uint32_t __free_pcppages_bulk(struct sws_mm *mm, struct sws_mm_pcpu *p, uint32_t nr)
{
	SWS_ASSERT_HELD(&p->pcp_lock);
	SWS_ASSERT_HELD(&mm->pfn_lock);
	uint32_t i = 0;
	for (; i < nr && p->pcp_head; i++) {
		uint32_t pfn = p->pcp_head;
		p->pcp_head = mm_folio(mm, pfn)->next;
		p->pcp_count--;
		__pfn_push(mm, pfn);
	}
	return i;
}

/* drain_all_pages(): every CPU's list back to the free list, and with @take
 * one PFN of it into *@take (0: none) before any other CPU can refill from
 * it. No lock held. @return the PFNs it moved. */
static uint64_t drain_all_pages(struct sws_mm *mm, uint32_t *take)
{
	uint64_t moved = 0;
	for (unsigned c = 0; c < mm->nr_cpus; c++) {
		struct sws_mm_pcpu *p = &mm->pcpu[c];
		mm_lock(mm, &p->pcp_lock, SWS_MM_lock_pfn_contended);
		if (p->pcp_count || (take && !*take)) {
			mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
			moved += __free_pcppages_bulk(mm, p, p->pcp_count);
			if (take && !*take)
				*take = __pfn_pop(mm);
			sws_spin_unlock(&mm->pfn_lock);
		}
		sws_spin_unlock(&p->pcp_lock);
	}
	return moved;
}

/* How often a take that finds every PFN taken drains the CPUs' lists while
 * the drains move some (other CPUs may refill from them meanwhile). */
#define DRAIN_TRIES 16

/* One free PFN for @cpu (NULL: from the free list): its list first. */
static inline int pfn_take_one(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t *pfn)
{
	uint32_t pf = 0;
	bool mapped = true;
	if (sws_likely(cpu != NULL)) {
		struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
		mm_lock(mm, &p->pcp_lock, SWS_MM_lock_pfn_contended);
		if (!p->pcp_count)
			mapped = __rmqueue_bulk(mm, p);
		pf = p->pcp_head;
		if (pf) {
			p->pcp_head = mm_folio(mm, pf)->next;
			p->pcp_count--;
		}
		sws_spin_unlock(&p->pcp_lock);
	}
	if (!pf && mapped) {
		/* The free list (another CPU may have given a batch back since);
		 * every PFN taken: what the CPUs' lists hold, one taken on the way.
		 * (A section that could not be mapped fails the take.) */
		mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
		pf = __pfn_pop(mm);
		bool exhausted = !pf && mm->pfn_hwm >= mm->nr_pfn;
		sws_spin_unlock(&mm->pfn_lock);
		for (unsigned tries = 0; exhausted && !pf && tries < DRAIN_TRIES; tries++)
			if (!drain_all_pages(mm, &pf))
				break;
	}
	*pfn = pf;
	return pf ? 0 : SWS_ENOMEM;
}

int sws__mm_pfn_take(struct sws_mm *mm, unsigned nr, uint32_t *pfns)
{
	/* Short of PFNs: drain the CPUs' lists and look again. */
	for (unsigned tries = 0;; tries++) {
		mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
		uint32_t fresh = nr > mm->nr_free_listed ? nr - mm->nr_free_listed : 0;
		if (fresh <= mm->nr_pfn - mm->pfn_hwm &&
		    !(fresh && __folio_map_grow(mm, (uint64_t)mm->pfn_hwm + fresh)))
			break;
		bool short_of_pfns = fresh > mm->nr_pfn - mm->pfn_hwm;
		sws_spin_unlock(&mm->pfn_lock);
		if (!short_of_pfns || tries == DRAIN_TRIES || !drain_all_pages(mm, NULL))
			return SWS_ENOMEM;
	}
	for (unsigned i = 0; i < nr; i++) {
		if (mm->nr_free_listed) {
			pfns[i] = mm->free_head;
			mm->free_head = mm_folio(mm, pfns[i])->next;
			mm->nr_free_listed--;
		} else {
			pfns[i] = mm->pfn_hwm++;
		}
	}
	sws_spin_unlock(&mm->pfn_lock);
	return 0;
}

static inline void pfn_put(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	if (sws_likely(cpu != NULL)) {
		struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
		mm_lock(mm, &p->pcp_lock, SWS_MM_lock_pfn_contended);
		mm_folio(mm, pfn)->next = p->pcp_head;
		p->pcp_head = (uint32_t)pfn;
		if (++p->pcp_count > PCP_HIGH) {
			mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
			__free_pcppages_bulk(mm, p, PCP_BATCH);
			sws_spin_unlock(&mm->pfn_lock);
		}
		sws_spin_unlock(&p->pcp_lock);
		return;
	}
	mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
	__pfn_push(mm, (uint32_t)pfn);
	sws_spin_unlock(&mm->pfn_lock);
}

void sws__mm_pfn_put(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn) { pfn_put(cpu, mm, pfn); }

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
	atomic_fetch_add_explicit(&f->gen, 1, memory_order_relaxed); /* an entry a CPU batch still holds for the old folio is stale */
	return f;
}

int sws__mm_folio_alloc(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, unsigned order,
			uint64_t *pfn)
{
	return sws__mm_folio_alloc_gfp(cpu, mm, memcg, order, SWS__GFP_KERNEL, pfn);
}

int sws__mm_folio_alloc_gfp(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, unsigned order,
			    unsigned gfp, uint64_t *pfn)
{
	int rc = sws__mm_charge_gfp(cpu, mm, memcg, 1ull << order, gfp);
	if (rc)
		return rc;
	uint32_t p;
	if (pfn_take_one(cpu, mm, &p)) { /* a section not mapped (one PFN per page of RAM at least) */
		sws__mm_ram_give(cpu, mm, 1ull << order);
		atomic_fetch_sub(&mm->memcgs[memcg].usage, 1ull << order);
		return SWS_ENOMEM;
	}
	sws__mm_folio_claim(mm, p, order, memcg);
	if (cpu) {
		mm_count(mm, cpu, SWS_MM_pgalloc, 1ull << order);
		mm_cost(cpu, SWS_COST_page_alloc, 1);
	}
	*pfn = p;
	return 0;
}

#define MEMALLOC_RESERVE 64 /* pages reclaim itself may use beyond RAM (PF_MEMALLOC) */
#define FREE_STOCK_BATCH 64 /* RAM pages an allocation takes ahead into its CPU's free stock */

/* @cpu's free stock, when the policy keeps one. */
static _Atomic int64_t *free_stock(struct sws_cpu *cpu, struct sws_mm *mm)
{
	return cpu && mm->cfg.policy != SWS_RECLAIM_LRU ? &mm->pcpu[sws__cpu_id(cpu)].free_stock : NULL;
}

/* RAM is tight from an allocation that found free_pages short until free_pages
 * has a few batches per CPU again: meanwhile frees go to free_pages and no
 * stock is refilled, so what is free stays where every CPU sees it. */
static bool ram_tight(struct sws_mm *mm) { return atomic_load_explicit(&mm->ram_tight, memory_order_relaxed); }

/* The change in the kernel's swap pages since the last call, out of (or back
 * to) free_pages. Lock-free: the exchange hands each change to one caller. */
static void kernel_swap_sync(struct sws_mm *mm)
{
	if (!(mm->cfg.flags & SWS_MM_KERNEL_RAM))
		return;
	int64_t want = (int64_t)sws__sim_kernel_swap_pages(mm->sim);
	int64_t had = atomic_exchange(&mm->kernel_swap_pages, want);
	if (had != want)
		atomic_fetch_add(&mm->free_pages, had - want);
}

void sws__mm_kernel_swap_sync(struct sws_mm *mm) { kernel_swap_sync(mm); }

/* A move of pages between free_pages and a stock: for a moment they are in
 * neither, so a failing allocation that saw one begin retries. */
static void ram_move_begin(struct sws_mm *mm) { atomic_fetch_add(&mm->ram_moves_started, 1); }
static void ram_move_end(struct sws_mm *mm) { atomic_fetch_add(&mm->ram_moves_done, 1); }

/* Every CPU's free stock back to free_pages. */
static void ram_drain(struct sws_mm *mm)
{
	ram_move_begin(mm);
	for (unsigned i = 0; i < mm->nr_cpus; i++) {
		int64_t v = atomic_exchange(&mm->pcpu[i].free_stock, 0);
		if (v)
			atomic_fetch_add(&mm->free_pages, v);
	}
	ram_move_end(mm);
}

/* @nr pages from free_pages, leaving at least -@floor (compare-and-swap: a
 * take that fails never shows others a count it has not left). */
static bool ram_take_shared(struct sws_mm *mm, int64_t nr, int64_t floor)
{
	int64_t v = atomic_load_explicit(&mm->free_pages, memory_order_relaxed);
	while (v - nr >= -floor)
		if (atomic_compare_exchange_weak(&mm->free_pages, &v, v - nr))
			return true;
	return false;
}

/* @nr pages from @stock, if it has them. */
static bool stock_take(_Atomic int64_t *stock, int64_t nr)
{
	int64_t v = atomic_load_explicit(stock, memory_order_relaxed);
	while (v >= nr)
		if (atomic_compare_exchange_weak(stock, &v, v - nr))
			return true;
	return false;
}

/*
 * The RAM of an allocation, leaving at least -@floor in free_pages (reclaim's
 * own folios may dip into the reserves). The stock serves only while
 * free_pages is not below zero (then the stock is free RAM on top of it), and
 * only an allocation that stays out of the reserves takes a batch ahead.
 */
static bool ram_take(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t n, int64_t floor)
{
	kernel_swap_sync(mm);
	_Atomic int64_t *stock = free_stock(cpu, mm);
	int64_t nr = (int64_t)n;
	if (stock && atomic_load_explicit(&mm->free_pages, memory_order_relaxed) >= 0 && stock_take(stock, nr))
		return true;
	if (stock && !floor && nr < FREE_STOCK_BATCH && !ram_tight(mm) &&
	    atomic_load_explicit(&mm->free_pages, memory_order_relaxed) >= FREE_STOCK_BATCH) {
		ram_move_begin(mm);
		bool ok = !ram_tight(mm) && ram_take_shared(mm, FREE_STOCK_BATCH, 0);
		if (ok)
			atomic_fetch_add(stock, FREE_STOCK_BATCH - nr);
		ram_move_end(mm);
		if (ok)
			return true;
	}
	if (ram_take_shared(mm, nr, floor))
		return true;
	/* The stocks hold the rest of what is free: RAM is tight, and the stocks
	 * go back to free_pages until the take succeeds or fails with no move in
	 * flight and no page in a stock (RAM is then full). */
	if (stock)
		atomic_store(&mm->ram_tight, true);
	/* One CPU at a time (ram_lock, a leaf): no drain overlaps another, and
	 * while RAM is tight no move begins, so the moves in flight end. */
	mm_lock(mm, &mm->ram_lock, SWS_MM_lock_mm_other_contended);
	bool ok;
	for (;;) {
		while (atomic_load(&mm->ram_moves_started) != atomic_load(&mm->ram_moves_done))
			sched_yield();
		ram_drain(mm);
		uint64_t done = atomic_load(&mm->ram_moves_done);
		if ((ok = ram_take_shared(mm, nr, floor)))
			break;
		if (atomic_load(&mm->ram_moves_started) == done && sws__mm_free_pages(mm) - nr < -floor)
			break;
	}
	sws_spin_unlock(&mm->ram_lock);
	return ok;
}

bool sws__mm_ram_take(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t nr) { return ram_take(cpu, mm, nr, 0); }

void sws__mm_ram_give(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t nr)
{
	_Atomic int64_t *stock = free_stock(cpu, mm);
	if (!stock || ram_tight(mm)) {
		int64_t v = atomic_fetch_add(&mm->free_pages, (int64_t)nr) + (int64_t)nr;
		if (stock && v >= 4 * FREE_STOCK_BATCH * (int64_t)mm->nr_cpus)
			atomic_store_explicit(&mm->ram_tight, false, memory_order_relaxed);
		return;
	}
	int64_t v = atomic_fetch_add(stock, (int64_t)nr) + (int64_t)nr;
	if (v > 2 * FREE_STOCK_BATCH) {
		ram_move_begin(mm);
		if (!ram_tight(mm) && stock_take(stock, v - FREE_STOCK_BATCH))
			atomic_fetch_add(&mm->free_pages, v - FREE_STOCK_BATCH);
		ram_move_end(mm);
	}
}

int sws__mm_folio_alloc_noreclaim(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t *pfn)
{
	/* Reclaim's own short-lived folios (zswap writeback) dip into the reserves,
	 * ignore the memcg limit and never reclaim. */
	if (!ram_take(cpu, mm, 1, MEMALLOC_RESERVE))
		return SWS_ENOMEM;
	atomic_fetch_add(&mm->memcgs[memcg].usage, 1);
	uint32_t p;
	if (pfn_take_one(cpu, mm, &p)) {
		sws__mm_ram_give(cpu, mm, 1);
		atomic_fetch_sub(&mm->memcgs[memcg].usage, 1);
		return SWS_ENOMEM;
	}
	sws__mm_folio_claim(mm, p, 0, memcg);
	*pfn = p;
	return 0;
}

/* free_unref_folio(): @pfn's descriptor and RAM back (@uncharge: its memcg's
 * pages too, else the caller uncharged them). */
static void free_unref_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn, bool uncharge)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	if (folio_test(f, PG_lru_batch)) { /* still in a CPU's batch: its entry goes stale */
		mm_lock(mm, folio_lru_lock(mm, f), SWS_MM_lock_lru_contended);
		folio_clear(f, PG_lru_batch);
		sws_spin_unlock(folio_lru_lock(mm, f));
	}
	uint64_t nr = folio_nr(f);
	mm_cost_here(SWS_COST_page_free, 1);
	f->nr_rmap = 0;
	atomic_store(&f->mapcount, 0);
	folio_set_free(f); /* also drops PG_locked */
	if (uncharge) {
		mm_cost_here(SWS_COST_memcg_uncharge, 1);
		mm_page_counter(&mm->memcgs[f->memcg]);
		atomic_fetch_sub(&mm->memcgs[f->memcg].usage, nr);
	}
	sws__mm_ram_give(cpu, mm, nr);
	pfn_put(cpu, mm, pfn);
}

void sws__mm_folio_free(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	free_unref_folio(cpu, mm, pfn, true);
}

void sws__mm_folio_batch_free(struct sws_cpu *cpu, struct sws_mm *mm, struct sws__folio_batch *fb)
{
	if (cpu && sws__cpu_vcpu(cpu))
		sws__mm_tlb_flush_pending(cpu, mm); /* try_to_unmap_flush() before the frees */
	sws__mm_uncharge_folios(mm, fb->pfn, fb->nr);
	for (unsigned i = 0; i < fb->nr; i++) /* free_unref_folios() */
		free_unref_folio(cpu, mm, fb->pfn[i], false);
	fb->nr = 0;
}
