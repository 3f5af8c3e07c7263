/*
 * huge_memory.c - splitting large folios (mm/huge_memory.c: split_folio): a
 * locked, isolated folio of order > 0 becomes order-0 folios, each mapping
 * re-pointed page by page and each swap-cache slot keeping its page; and the
 * split of folios that straddle the edges of a range about to be unmapped,
 * freed or made lazily freed.
 * Callers: vmscan.c (no slots of the order), memory.c (COW of one page),
 * swap_state.c (a large folio in the swap cache), mmap.c and madvise.c (edges).
 */
#include "mm_internal.h"

/* ---- split ---------------------------------------------------------------------- */

int sws__mm_split_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_FOLIO_LOCKED(f);
	const unsigned nr = 1u << f->order;
	uint32_t news[512];
	if (sws__mm_pfn_take(mm, nr, news))
		return SWS_ENOMEM;
	uint32_t flags = sws_load_relaxed(&f->flags) & (PG_dirty | PG_young | PG_referenced | PG_lazyfree | PG_swapcache);
	for (unsigned i = 0; i < nr; i++) {
		struct sws_folio *n = sws__mm_folio_claim(mm, news[i], 0, f->memcg);
		folio_set(n, flags);
		n->seed = folio_page_seed(f, i);
		n->swap = f->swap + i;
	}
	/* In the swap cache, each slot takes its own page's folio. Cannot fail:
	 * the locked folio holds these slots. */
	for (unsigned i = 0; (flags & PG_swapcache) && i < nr; i++)
		sws_swap_cache_replace(cpu, f->swap + i, 1, pfn, news[i]);
	/* Re-point every mapping, page by page. */
	struct sws_rmap r;
	while (sws__mm_first_rmap(mm, f, &r)) {
		struct sws_space *sp = sws__mm_space(mm, r.asid);
		sws_spinlock_t *ptl = pte_lockptr(sp, r.vaddr); /* the folio lies in one PTE table */
		mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
		/* A write through this mapping (its ptl) may have given the folio a
		 * new version since: the pages take the latest (only an exclusive
		 * mapping writes; the kernel's split unmaps first, so writers wait). */
		for (unsigned i = 0; i < nr; i++)
			mm_folio(mm, news[i])->seed = folio_page_seed(f, i);
		for (unsigned i = 0; i < nr; i++) {
			uint64_t va = r.vaddr + (uint64_t)i * SWS_PAGE_SIZE;
			uint64_t *pte = sws___pte_lookup(sp, va);
			if (!pte || !pte_present(*pte) || pte_pfn(*pte) != pfn)
				continue;
			*pte = mk_pte(news[i], 0, *pte & PTE_WRITE);
			sws__mm_rmap_add(mm, mm_folio(mm, news[i]), r.asid, va);
		}
		sws__mm_rmap_del(mm, f, r.asid, r.vaddr, NULL);
		sws_spin_unlock(ptl);
	}
	for (unsigned i = 0; i < nr; i++) {
		sws__mm_lru_add(mm, news[i], false);
		folio_unlock(mm_folio(mm, news[i]));
	}
	/* The old descriptor goes; its pages now belong to the new folios. */
	folio_set_free(f); /* also drops PG_locked */
	sws__mm_pfn_put(cpu, mm, pfn);
	return 0;
}

/* Split every large folio that straddles @start or @end, so zaps take whole folios. */
void sws__mm_split_edges(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t start, uint64_t end)
{
	uint64_t edges[2] = {start, end};
	for (int k = 0; k < 2; k++) {
		for (int tries = 0; tries < 4; tries++) {
			mm_lock(mm, pte_lockptr(sp, edges[k]), SWS_MM_lock_ptl_contended);
			uint64_t *pte = sws___pte_lookup(sp, edges[k]);
			uint64_t v = pte ? *pte : 0;
			sws_spin_unlock(pte_lockptr(sp, edges[k]));
			if (!pte_present(v) || (v & PTE_ZEROPAGE) || !pte_sub(v))
				break; /* not inside a large folio (or at its first page) */
			uint64_t pfn = pte_pfn(v);
			struct sws_folio *f = mm_folio(mm, pfn);
			if (!f->order || !folio_trylock(f))
				continue;
			sws__mm_lru_del(mm, pfn);
			if (sws__mm_split_folio(cpu, mm, pfn)) {
				sws__mm_lru_add(mm, pfn, false);
				folio_unlock(f);
			}
		}
	}
}
