/*
 * madvise.c - madvise(2) (mm/madvise.c): MADV_PAGEOUT reclaims the range's
 * pages now (madvise_cold_or_pageout_pte_range), MADV_DONTNEED zaps it,
 * MADV_FREE frees its swap entries and makes its exclusive pages lazily freed
 * (madvise_free_pte_range: reclaim drops them without a write unless they are
 * written again first), MADV_HUGEPAGE and MADV_NOHUGEPAGE set the regions'
 * VM_HUGEPAGE / VM_NOHUGEPAGE (hugepage_madvise()), which memory.c's fault
 * order reads.
 * Callers: the replay (MADV_* records), library users.
 */
#include "mm_internal.h"

/* MADV_PAGEOUT: reclaim the range's exclusively mapped folios now; those
 * reclaimed are freed in batches (reclaim_pages() -> shrink_folio_list()). */
static int madv_pageout(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t addr,
			uint64_t end)
{
	struct sws__folio_batch freed = {0};
	sws__mm_lru_add_drain(cpu, mm); /* madvise_pageout(): lru_add_drain() first */
	for (uint64_t va = addr; va < end; va += SWS_PAGE_SIZE) {
		mm_lock(mm, pte_lockptr(sp, va), SWS_MM_lock_ptl_contended);
		uint64_t *pte = sws___pte_lookup(sp, va);
		uint64_t v = pte ? *pte : 0;
		sws_spin_unlock(pte_lockptr(sp, va));
		if (!pte_present(v) || (v & PTE_ZEROPAGE) || pte_sub(v))
			continue;
		uint64_t pfn = pte_pfn(v);
		struct sws_folio *f = mm_folio(mm, pfn);
		if (f->mapcount != 1 || !folio_trylock(f))
			continue;
		if (folio_test(f, PG_free) || !folio_test(f, PG_lru)) {
			folio_unlock(f);
			continue;
		}
		sws__mm_lru_del(mm, pfn);
		folio_clear(f, PG_young | PG_referenced);
		int rc = sws__mm_pageout_folio(cpu, mm, pfn);
		if (rc == 0 && !folio_batch_add(&freed, pfn))
			sws__mm_folio_batch_free(cpu, mm, &freed);
		if (rc == SWS_EAGAIN) {
			va -= SWS_PAGE_SIZE; /* split: take its pages one by one */
			continue;
		}
		if (rc) {
			sws__mm_lru_add(mm, pfn, false);
			folio_unlock(f);
		}
	}
	sws__mm_folio_batch_free(cpu, mm, &freed);
	return 0;
}

/*
 * madvise_free_pte_range(), ptl held: a swap entry is put as a zap puts it
 * (free_swap_and_cache_nr()); a page mapped only here becomes lazily freed
 * (folio_mark_lazyfree(): clean, not young, off the swap cache when no swap
 * PTE needs it, at the young end of the inactive list; the kernel's is the
 * inactive file list). Shared pages, and folios someone else holds, stay.
 */
static void lazyfree_pte(void *ctx, uint64_t vaddr, uint64_t *pte)
{
	struct sws__zap *z = ctx;
	struct sws_mm *mm = z->mm;
	uint64_t v = *pte;
	(void)vaddr;
	if (pte_is_swap(v)) {
		*pte = 0;
		sws__mm_zap_swap_pte(z, v);
		return;
	}
	if (!pte_present(v) || (v & PTE_ZEROPAGE) || pte_sub(v) != 0)
		return; /* a large folio is taken at its first page */
	uint64_t pfn = pte_pfn(v);
	struct sws_folio *f = mm_folio(mm, pfn);
	if (f->mapcount != 1 || !folio_trylock(f))
		return;
	unsigned nr = 1u << f->order;
	bool ok = !folio_test(f, PG_free) && folio_test(f, PG_lru) && !folio_test(f, PG_lazyfree);
	if (ok && folio_test(f, PG_swapcache)) { /* folio_free_swap(): only with no swap PTE left */
		for (unsigned i = 0; i < nr && ok; i++) {
			uint32_t count = 1;
			ok = sws_swap_count(z->cpu, f->swap + i, &count) == 0 && !count;
		}
		ok = ok && sws_swap_cache_del(z->cpu, f->swap, nr, pfn, 0) == 0;
		if (ok)
			folio_clear(f, PG_swapcache);
	}
	if (ok) {
		folio_clear(f, PG_dirty | PG_young | PG_referenced);
		sws__mm_folio_mark_lazyfree(z->cpu, mm, pfn); /* pglazyfree when its batch moves */
	}
	folio_unlock(f);
}

static void madv_free(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp, uint64_t addr,
		      uint64_t end)
{
	struct sws__zap z = {cpu, mm, asid, 0, 0, {0}};
	sws__mm_lru_add_drain(cpu, mm); /* madvise_free_single_vma(): lru_add_drain() first */
	sws__mm_split_edges(cpu, mm, sp, addr, end);
	sws__mm_space_lock(mm, sp);
	sws___pte_walk(sp, addr, end, lazyfree_pte, &z);
	sws__mm_zap_flush(&z);
	sws__mm_space_unlock(sp);
}

/* mmap_lock of @sp held: the region across @at, if any, becomes two that
 * meet at @at (split_vma()); both keep its orders and VM_* bits. */
static int __region_split(struct sws_mm *mm, struct sws_space *sp, uint64_t at)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	struct sws_region *r = sws___mm_region(sp, at);
	if (!r || r->start == at)
		return 0;
	uint64_t end = r->end;
	unsigned orders = r->orders;
	r->end = at;
	int rc = sws___mm_region_insert(mm, sp, at, end, orders);
	if (rc) /* (the insert failed before it moved anything: r still points at it) */
		r->end = end;
	return rc;
}

/* MADV_HUGEPAGE (@huge) or MADV_NOHUGEPAGE over [@addr, @end): each region
 * there, split at the range's edges, takes its flag and loses the other's;
 * ranges no region covers are left alone. */
static int madv_hugepage(struct sws_mm *mm, struct sws_space *sp, uint64_t addr, uint64_t end, bool huge)
{
	unsigned set = huge ? REGION_VM_HUGEPAGE : REGION_VM_NOHUGEPAGE;
	unsigned clear = huge ? REGION_VM_NOHUGEPAGE : REGION_VM_HUGEPAGE;
	mm_lock(mm, &sp->mmap_lock, SWS_MM_lock_mm_other_contended);
	int rc = __region_split(mm, sp, addr);
	if (!rc)
		rc = __region_split(mm, sp, end);
	for (uint32_t i = 0; !rc && i < sp->nr_regions; i++) {
		struct sws_region *r = &sp->regions[i];
		if (r->start >= addr && r->end <= end)
			r->orders = (uint16_t)((r->orders & ~clear) | set);
	}
	sws_spin_unlock(&sp->mmap_lock);
	return rc;
}

int sws_mm_madvise(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr,
		   uint64_t len, enum sws_madvise advice)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	if (!cpu || !sws__mm_range_ok(sp, addr, len))
		return SWS_EINVAL;
	if (advice < SWS_MADV_DONTNEED || advice > SWS_MADV_NOHUGEPAGE)
		return SWS_EINVAL;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	int rc = 0;
	if (advice == SWS_MADV_HUGEPAGE || advice == SWS_MADV_NOHUGEPAGE) {
		rc = madv_hugepage(mm, sp, addr, addr + len, advice == SWS_MADV_HUGEPAGE);
	} else if (advice == SWS_MADV_PAGEOUT) {
		madv_pageout(cpu, mm, sp, addr, addr + len);
	} else if (advice == SWS_MADV_FREE) {
		enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_free);
		madv_free(cpu, mm, asid, sp, addr, addr + len);
		sws__cpu_work_enter(cpu, wc);
	} else {
		enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_free);
		sws__mm_lru_add_drain(cpu, mm); /* zap_page_range_single(): lru_add_drain() first */
		sws__mm_split_edges(cpu, mm, sp, addr, addr + len);
		sws__mm_space_lock(mm, sp);
		sws___mm_zap_range(cpu, mm, asid, sp, addr, addr + len);
		sws__mm_space_unlock(sp);
		sws__cpu_work_enter(cpu, wc);
	}
	mm_kernel_exit(mm, cpu, t0);
	return rc;
}
