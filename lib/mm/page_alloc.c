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
 * THE FOLIO MAP. Descriptors are one array indexed by PFN, so pfn_to_page() is
 * one load and an add, as the kernel's SPARSEMEM_VMEMMAP makes it: address
 * space for all nr_pfn descriptors is reserved at create (a sparse arena,
 * PROT_NONE), and mapped from its start by whole sections of 2^15 PFNs as the
 * pop of a never claimed PFN reaches them. Mapped anonymous pages read as zero
 * and cost nothing until a descriptor on them is written; a section stays
 * mapped until sws_mm_destroy(), as a section the kernel onlined stays. Only
 * PFNs below pfn_hwm can be held by any path, so the map follows the most
 * frames ever in use at once, not the configured RAM:
 *
 *    folios ─▶ | section 0 | section 1 | ........... reserved, PROT_NONE ........... |
 *              |<- mapped (charged to SWS_MEM_mm) ->|
 *              PFN 0 .......... pfn_hwm ^           (whole sections: the last ends at nr_pfn)
 */
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
	sws__mem_charge(&mm->sim->mem, SWS_MEM_mm, -(int64_t)sws__arena_mapped(&mm->folio_map));
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
	sws__mem_charge(&mm->sim->mem, SWS_MEM_mm, (int64_t)(sws__arena_mapped(&mm->folio_map) - have));
	return 0;
}

/* One free PFN (sws__mm_pfn_take() of one, inline for the fault path). */
static inline int pfn_take_one(struct sws_mm *mm, uint32_t *pfn)
{
	mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
	uint32_t p = mm->free_head;
	if (sws_likely(p)) {
		mm->free_head = mm_folio(mm, p)->next;
		mm->nr_free_listed--;
	} else if (mm->pfn_hwm < mm->nr_pfn && !__folio_map_grow(mm, (uint64_t)mm->pfn_hwm + 1)) {
		p = mm->pfn_hwm++;
	}
	sws_spin_unlock(&mm->pfn_lock);
	*pfn = p;
	return p ? 0 : SWS_ENOMEM;
}

int sws__mm_pfn_take(struct sws_mm *mm, unsigned nr, uint32_t *pfns)
{
	mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
	uint32_t fresh = nr > mm->nr_free_listed ? nr - mm->nr_free_listed : 0;
	if (fresh > mm->nr_pfn - mm->pfn_hwm || (fresh && __folio_map_grow(mm, (uint64_t)mm->pfn_hwm + fresh))) {
		sws_spin_unlock(&mm->pfn_lock);
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

static inline void pfn_put(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
	f->next = mm->free_head;
	mm->free_head = (uint32_t)pfn;
	mm->nr_free_listed++;
	sws_spin_unlock(&mm->pfn_lock);
}

void sws__mm_pfn_put(struct sws_mm *mm, uint64_t pfn) { pfn_put(mm, pfn); }

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
	atomic_fetch_add_explicit(&f->gen, 1, memory_order_relaxed); /* an entry a CPU batch still holds for the old folio is stale */
	return f;
}

int sws__mm_folio_alloc(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, unsigned order,
			uint64_t *pfn)
{
	int rc = sws__mm_charge(cpu, mm, memcg, 1ull << order);
	if (rc)
		return rc;
	uint32_t p;
	if (pfn_take_one(mm, &p)) { /* a section not mapped (one PFN per page of RAM at least) */
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
	uint32_t p;
	if (pfn_take_one(mm, &p)) {
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
	if (folio_test(f, PG_lru_batch)) { /* still in a CPU's batch: its entry goes stale */
		mm_lock(mm, folio_lru_lock(mm, f), SWS_MM_lock_lru_contended);
		folio_clear(f, PG_lru_batch);
		sws_spin_unlock(folio_lru_lock(mm, f));
	}
	uint64_t nr = folio_nr(f);
	f->nr_rmap = 0;
	atomic_store(&f->mapcount, 0);
	atomic_store(&f->flags, PG_free); /* also drops PG_locked */
	atomic_fetch_sub(&mm->memcgs[f->memcg].usage, nr);
	atomic_fetch_add(&mm->free_pages, (int64_t)nr);
	pfn_put(mm, pfn);
}
