/*
 * page_alloc.c - simulated RAM (mm/page_alloc.c): folio descriptors by PFN (a
 * folio of order k takes one PFN and 2^k pages of RAM), allocated charged
 * (memcontrol.c) or, for reclaim's own short-lived folios, from the
 * reserves without reclaim, and freed.
 * Callers: every path that needs a folio.
 */
#include "mm_internal.h"

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
	mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
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
	mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
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
	mm_lock(mm, &mm->pfn_lock, SWS_MM_lock_pfn_contended);
	mm->free_pfns[mm->nr_free_pfns++] = (uint32_t)pfn;
	sws_spin_unlock(&mm->pfn_lock);
}
