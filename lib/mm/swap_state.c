/*
 * swap_state.c - swap-in through the swap cache and readahead
 * (mm/swap_state.c: swap_cache_get_folio, swap_update_readahead,
 * __read_swap_cache_async, swapin_readahead, swap_cluster_readahead,
 * swap_vma_readahead, __swapin_nr_pages).
 *
 * A swap-cache hit updates the readahead state; a miss reads ahead (cluster
 * readahead, or VMA readahead while no rotational device is on; none on
 * SYNCHRONOUS_IO devices except, up to 6.18, a shared slot the bypass
 * declined, nor on xswap) and then reads the page into a new folio in the
 * swap cache; a SYNCHRONOUS_IO device's miss from phase II on reads without
 * readahead (swapin_sync()), a large folio where do_swap_page found the range
 * fit (phase IV checks it here, at the add). A large folio found in the swap
 * cache is split first.
 * Callers: memory.c (do_swap_page), swapfile.c (swapoff of vswap devices).
 */
#include "mm_internal.h"

/* __swap_cache_add_check() of the @nr slots from @first for a large folio,
 * before its allocation: another slot than @e in the swap cache, or zero
 * flags that differ (the memcgs are compared at the add). */
static bool range_busy(struct sws_cpu *cpu, sws_entry_t e, sws_entry_t first, unsigned nr)
{
	bool zero = sws_swap_test_zero(cpu, first);
	for (unsigned i = 0; i < nr; i++)
		if ((first + i != e && sws_swap_cache_lookup(cpu, first + i)) || sws_swap_test_zero(cpu, first + i) != zero)
			return true;
	return false;
}

/* A new folio of @order for slot @e (rounded down to the folio's first) in the
 * swap cache, read, on the LRU. @ra: read ahead. @reclaim: a large folio's
 * allocation may reclaim (sws__mm_swapin_folio_alloc()). @return 0 and the
 * locked folio's PFN; SWS_EEXIST (someone else has it); SWS_ENOENT (the slot
 * was freed); SWS_EBUSY (a large folio's range is in conflict: another slot in
 * the swap cache, zero flags or memcgs that differ); SWS_ENOMEM; SWS_ECORRUPT. */
static int swapin_new(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e, unsigned order,
		      bool ra, bool reclaim, struct sws_device *si, uint64_t *pfnp)
{
	const unsigned nr = 1u << order;
	sws_entry_t first = e - (sws_swp_offset(e) & (nr - 1));
	uint64_t pfn, shadow = 0;
	if (order && range_busy(cpu, e, first, nr))
		return SWS_EBUSY; /* checked before the allocation, and again at the add */
	int rc = sws__mm_swapin_folio_alloc(cpu, mm, memcg, order, reclaim, &pfn);
	if (rc)
		return rc;
	struct sws_folio *f = mm_folio(mm, pfn); /* locked */
	rc = sws_swap_cache_add(cpu, first, nr, pfn, &shadow);
	if (rc) {
		sws__mm_folio_free(cpu, mm, pfn);
		if (rc == SWS_EEXIST && order && !sws_swap_cache_lookup(cpu, e))
			return SWS_EBUSY; /* not the target's folio: the range conflicts */
		return rc == SWS_EBUSY && !order ? SWS_ENOENT : rc;
	}
	f->swap = first;
	folio_set(f, PG_swapcache | (ra ? PG_readahead : 0));
	rc = sws__mm_swap_read_folio(cpu, mm, f, first, !ra, si);
	sws__mm_folio_add_lru(cpu, mm, pfn, shadow && sws__mm_workingset_refault(cpu, mm, f, memcg, shadow));
	if (ra)
		mm_count(mm, cpu, SWS_MM_swap_ra, 1);
	*pfnp = pfn;
	return rc;
}

/* ---- readahead ---------------------------------------------------------------------- */

/* The lock of the state passed held (mm->ra_lock for cluster readahead, the
 * region's mmap_lock for VMA readahead): the adaptive window. */
static unsigned __swapin_nr_pages(sws_spinlock_t *lock, uint64_t offset, unsigned max_pages,
				uint32_t hits, uint64_t *prev_offset, uint32_t *prev_win)
{
	SWS_ASSERT_HELD(lock);
	unsigned pages = hits + 2;
	if (pages == 2) {
		if (offset != *prev_offset + 1 && offset != *prev_offset - 1)
			pages = 1;
	} else {
		unsigned roundup = 4;
		while (roundup < pages)
			roundup <<= 1;
		pages = roundup;
	}
	if (pages > max_pages)
		pages = max_pages;
	if (pages < *prev_win / 2)
		pages = *prev_win / 2; /* do not shrink the window too fast */
	if (!hits)
		*prev_offset = offset;
	*prev_win = pages;
	return pages;
}

static void readahead_one(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e)
{
	uint64_t pfn = 0;
	struct sws_device *dev = sws__get_swap_device(mm->sim, sws_swp_type(e));
	if (dev && (sws__device_flags(dev) & SWS_SWP_XSWAP))
		return; /* never read ahead from xswap (VMA readahead meets any device's entries) */
	if (sws_swap_cache_lookup(cpu, e))
		return;
	uint32_t count = 0;
	if (sws_swap_count(cpu, e, &count) || !count)
		return; /* swap_entry_swapped(): no folio (nor charge) for a slot nobody uses */
	swapin_new(cpu, mm, memcg, e, 0, true, true, NULL, &pfn);
	if (pfn) /* read (a verify failure is counted, the folio stays) */
		folio_unlock(mm_folio(mm, pfn));
}

/* swap_cluster_readahead(): the aligned block of the window around the
 * target. @return whether the window was more than the target (the kernel then
 * drains the CPU's LRU batches). */
static bool cluster_readahead(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e,
			      struct sws_device *si)
{
	unsigned max_pages = 1u << mm->page_cluster;
	if (max_pages <= 1)
		return false;
	uint64_t off = sws_swp_offset(e);
	mm_lock(mm, &mm->ra_lock, SWS_MM_lock_mm_other_contended);
	unsigned win = __swapin_nr_pages(&mm->ra_lock, off, max_pages, atomic_exchange(&mm->ra_hits, 0),
				       &mm->ra_prev_offset, &mm->ra_prev_win);
	sws_spin_unlock(&mm->ra_lock);
	if (win <= 1)
		return false;
	uint64_t start = off & ~(uint64_t)(win - 1), end = start + win;
	for (uint64_t o = start ? start : 1; si && o < end && o < sws__device_max(si); o++) {
		if (o == off)
			continue;
		/* vswap reads ahead in the physical space: the neighbours' virtual
		 * entries come from the reverse map (0: the slot backs nothing). */
		sws_entry_t n = sws_swap_rmap(cpu, sws_swp_entry(sws_swp_type(e), o));
		if (n)
			readahead_one(cpu, mm, memcg, n);
	}
	return true;
}

/* swap_vma_readahead(): the swap PTEs of the window around the faulting
 * address. @return whether the window was more than the faulting page. */
static bool vma_readahead(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr)
{
	unsigned pc = mm->page_cluster < 5 ? mm->page_cluster : 5;
	unsigned max_pages = 1u << pc;
	if (max_pages <= 1)
		return false;
	sws_entry_t found[32];
	unsigned n = 0;
	mm_lock(mm, &sp->mmap_lock, SWS_MM_lock_mm_other_contended);
	struct sws_region *r = sws___mm_region(sp, vaddr);
	if (!r) {
		sws_spin_unlock(&sp->mmap_lock);
		return false;
	}
	uint64_t prev = r->ra_addr;
	uint32_t prev_win = r->ra_win;
	uint64_t vpn = vaddr / SWS_PAGE_SIZE, pvpn = prev / SWS_PAGE_SIZE;
	unsigned win = __swapin_nr_pages(&sp->mmap_lock, vpn, max_pages, r->ra_hits, &pvpn, &prev_win);
	r->ra_hits = 0;
	r->ra_addr = vaddr;
	r->ra_win = win;
	sws_spinlock_t *ptl = pte_lockptr(sp, vaddr); /* the window stays in its PTE table */
	mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
	if (win > 1) {
		uint64_t lo, pmd_lo = vaddr & ~((2ull << 20) - 1), pmd_hi = pmd_lo + (2ull << 20);
		if (vpn == prev / SWS_PAGE_SIZE + 1)
			lo = vaddr; /* moving forward: the window starts here */
		else if (vpn + 1 == prev / SWS_PAGE_SIZE)
			lo = vaddr - (uint64_t)(win - 1) * SWS_PAGE_SIZE; /* backward: ends here */
		else
			lo = vaddr - (uint64_t)((win - 1) / 2) * SWS_PAGE_SIZE;
		for (uint64_t va = lo; va < lo + (uint64_t)win * SWS_PAGE_SIZE && n < 32; va += SWS_PAGE_SIZE) {
			if (va == vaddr || va < r->start || va >= r->end || va < pmd_lo || va >= pmd_hi)
				continue;
			uint64_t *pte = sws___pte_lookup(sp, va);
			if (pte && pte_is_swap(*pte))
				found[n++] = pte_to_swp_entry(*pte);
		}
	}
	uint16_t memcg = sp->memcg;
	sws_spin_unlock(ptl);
	sws_spin_unlock(&sp->mmap_lock);
	for (unsigned i = 0; i < n; i++)
		readahead_one(cpu, mm, memcg, found[i]);
	return win > 1;
}

static bool any_rotational(struct sws_mm *mm)
{
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *d = sws__get_swap_device(mm->sim, t);
		if (d && !(sws__device_flags(d) & SWS_SWP_SOLIDSTATE))
			return true;
	}
	return false;
}

/* swap_use_vma_readahead(): VMA readahead while no rotational device is on. */
static bool use_vma_readahead(struct sws_mm *mm)
{
	return !(mm->cfg.flags & SWS_MM_NO_VMA_RA) && !any_rotational(mm);
}

/* swap_update_readahead() on a swap-cache hit at @vaddr: with VMA readahead
 * every hit moves the region's last-fault address (a read-ahead one adds a
 * hit too); cluster readahead counts read-ahead hits globally. */
static void swap_update_readahead(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr,
				  bool readahead)
{
	bool vma_ra = use_vma_readahead(mm);
	if (vma_ra) {
		mm_lock(mm, &sp->mmap_lock, SWS_MM_lock_mm_other_contended);
		struct sws_region *r = sws___mm_region(sp, vaddr);
		if (r) {
			r->ra_addr = vaddr;
			if (readahead && r->ra_hits < 63)
				r->ra_hits++;
		}
		sws_spin_unlock(&sp->mmap_lock);
	}
	if (readahead) {
		mm_count(mm, cpu, SWS_MM_swap_ra_hit, 1);
		if (!vma_ra)
			atomic_fetch_add(&mm->ra_hits, 1);
	}
}

/* ---- the fault paths ------------------------------------------------------------------ */

int sws__mm_swap_cache_get_folio(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr,
				 sws_entry_t e, uint64_t *pfnp)
{
	uint64_t pfn = sws_swap_cache_lookup(cpu, e);
	if (!pfn)
		return SWS_ENOENT;
	struct sws_folio *f = mm_folio(mm, pfn);
	folio_lock(f);
	if (folio_test(f, PG_swapcache) && f->order && f->swap <= e && e < f->swap + (1u << f->order)) {
		/* A large folio kept in the swap cache (its write-out was
		 * refused): split it, then take this page's folio. */
		sws__mm_lru_del(mm, pfn);
		int rc = sws__mm_split_folio(cpu, mm, pfn);
		if (rc) {
			sws__mm_lru_add(mm, pfn, false);
			folio_unlock(f);
			return rc;
		}
		return SWS_EAGAIN; /* look again: this page's folio now */
	}
	if (!folio_test(f, PG_swapcache) || f->swap != e || f->order) {
		folio_unlock(f);
		return SWS_EAGAIN;
	}
	swap_update_readahead(cpu, mm, sp, vaddr, folio_test_clear(f, PG_readahead));
	mm_count(mm, cpu, SWS_MM_swapcache_hit, 1);
	*pfnp = pfn;
	return 0;
}

int sws__mm_swapin_readahead(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr,
			     sws_entry_t e, const struct sws__swapin_dev *sd, bool readahead, uint64_t *pfnp)
{
	/* No readahead on xswap (each page is its own zswap entry: a read of it
	 * costs the same later), nor (cluster readahead) for a vswap page on no
	 * device. */
	if (readahead && mm->page_cluster && !(sd->si && (sws__device_flags(sd->si) & SWS_SWP_XSWAP))) {
		bool window = use_vma_readahead(mm) ? vma_readahead(cpu, mm, sp, vaddr)
						    : sd->on_device && cluster_readahead(cpu, mm, sp->memcg, sd->t, sd->si);
		if (window) /* the read-ahead folios onto the LRU now (lru_add_drain()) */
			sws__mm_lru_add_drain(cpu, mm);
	}
	return swapin_new(cpu, mm, sp->memcg, e, 0, false, true, sd->si, pfnp);
}

int sws__mm_swapin_sync(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr, sws_entry_t e,
			const struct sws__swapin_dev *sd, unsigned orders, bool reclaim, uint64_t *pfnp)
{
	(void)vaddr; /* the folio's first entry follows from @e: do_swap_page checked the alignment */
	const bool cache_alloc = sws__design_cache_alloc(mm->sim);
	while (orders) {
		unsigned o = 31 - (unsigned)__builtin_clz(orders); /* the largest order left first */
		orders &= ~(1u << o);
		int rc = swapin_new(cpu, mm, sp->memcg, e, o, false, reclaim, sd->si, pfnp);
		if (rc == 0 || rc == SWS_ECORRUPT)
			return rc;
		/* An allocation that failed takes the next order (swpin_fallback,
		 * counted with it); phase IV's __swap_cache_alloc_folio() too when
		 * the range's state conflicts (SWS_EBUSY), and goes back to the lookup
		 * when the target slot is cached or freed. Up to phase III the range
		 * was checked before (can_swapin_thp()): a conflict found at the add
		 * is a race, and the model reads order 0. */
		if (cache_alloc && rc == SWS_EBUSY)
			sws__mm_count_swpin(mm, cpu, o, SWS__SWPIN_FALLBACK);
		else if (rc == SWS_ENOMEM)
			continue;
		else if (cache_alloc)
			return rc;
		else
			break;
	}
	return swapin_new(cpu, mm, sp->memcg, e, 0, false, true, sd->si, pfnp);
}

int sws__mm_swapin_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e, uint64_t *pfnp)
{
	enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_swapin);
	int rc = swapin_new(cpu, mm, memcg, e, 0, false, true, NULL, pfnp);
	sws__cpu_work_enter(cpu, wc);
	return rc;
}
