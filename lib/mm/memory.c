/*
 * memory.c - the access and fault paths (mm/memory.c: handle_mm_fault,
 * do_anonymous_page, do_wp_page, do_swap_page with its SYNCHRONOUS_IO bypass;
 * zap_pte_range; copy_page_range).
 *
 * An access to a present, permitted PTE is a hit: the accessed bit (or, for
 * the exact-LRU reference, a move to the young end) and, on a write, a new
 * content version. Everything else is a fault (pgfault):
 *  - none: a read maps the shared zero page, a write a new folio (of the
 *    largest mTHP order the region allows whose aligned block is empty: the
 *    "always" sizes, the "madvise" ones under MADV_HUGEPAGE, none under
 *    MADV_NOHUGEPAGE);
 *  - write to a read-only page: reuse when exclusive, else copy (COW);
 *  - swap PTE: do_swap_page() looks the device up once (get_swap_device())
 *    and passes it down; the swap cache is looked in (swap_state.c), and on a
 *    miss designs up to 6.18 (and vswap) read a count-1 slot of a
 *    SYNCHRONOUS_IO device into a private folio here (the bypass), every other
 *    slot being read ahead and read into the swap cache (swap_state.c's
 *    swapin_readahead()). On a SYNCHRONOUS_IO device a fault reads the
 *    largest mTHP order whose aligned range qualifies whole
 *    (swapin_orders(): thp_swapin_suitable_orders(), can_swapin_thp()) and
 *    maps it whole. The PTEs' swap counts are put; the
 *    slot is freed at once when swap is more than half full, on a write by
 *    the folio's only user (no other space maps it), and
 *    from swap table phase II on SYNCHRONOUS_IO devices
 *    (should_try_to_free_swap), else the clean folio stays in the swap cache
 *    and a later reclaim needs no write. The page is mapped writable only
 *    when exclusive.
 * Locks: a PTE is read and written under its PTE table's lock (the ptl,
 * pte_lockptr(): split page-table locks, so reclaim on another CPU unmapping
 * this space's old pages does not wait for a fault elsewhere in it); the
 * region of a first touch is read under the space's mmap_lock, taken before
 * the ptl. Allocation may reclaim, so it happens with no ptl held; the PTE is
 * checked again afterwards and the fault retried if it changed (pte_same).
 * Zapping (munmap, exit, MADV_DONTNEED) frees present pages (a folio goes when
 * its last mapping does, unless a slot still needs it in the swap cache) and
 * puts swap entries in runs that stay inside one cluster
 * (swap_put_entries_direct: one cluster lock per run); only slots a run left
 * cache-only are looked up again (swapfile.c). In verify mode every access
 * is checked against what its space wrote there (pte_expected()).
 * Callers: sws_mm_access (the replay's ACCESS records), mmap.c (munmap, exit,
 * fork), madvise.c, swapfile.c (swapoff), oom_kill.c (the reap).
 */
#include <string.h>

#include "mm_internal.h"

/* The room for a large folio's own page seeds (PG_page_seed), kept with the
 * descriptor for reuse. @return 0 or SWS_ENOMEM. */
static int page_seed_room(struct sws_mm *mm, struct sws_folio *f)
{
	if (f->page_seed && f->page_seed_order >= f->order)
		return 0;
	struct sws_mem *mem = sws__sim_mem(mm->sim);
	uint64_t *n = sws__mem_alloc(mem, SWS_MEM_mm, sizeof(*n) << f->order, 0);
	if (!n)
		return SWS_ENOMEM;
	if (f->page_seed)
		sws__mem_free(mem, SWS_MEM_mm, f->page_seed, sizeof(*n) << f->page_seed_order);
	f->page_seed = n;
	f->page_seed_order = f->order;
	return 0;
}

static unsigned thp_gfp(const struct sws_mm *mm, bool madvised);

int sws__mm_swapin_folio_alloc(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, unsigned order,
			       bool reclaim, uint64_t *pfnp)
{
	if (!order)
		return sws__mm_folio_alloc(cpu, mm, memcg, 0, pfnp);
	/* alloc_swap_folio(): the gfp of vma_thp_gfp_mask(), as a first write's */
	int rc = sws__mm_folio_alloc_gfp(cpu, mm, memcg, order, thp_gfp(mm, reclaim), pfnp);
	if (!rc && (rc = page_seed_room(mm, mm_folio(mm, *pfnp))) != 0)
		sws__mm_folio_free(cpu, mm, *pfnp);
	if (rc == SWS_ECHARGE_INTERNAL) { /* mem_cgroup_swapin_charge_folio() failed */
		sws__mm_count_swpin(mm, cpu, order, SWS__SWPIN_FALLBACK_CHARGE);
		rc = SWS_ENOMEM;
	}
	if (rc)
		sws__mm_count_swpin(mm, cpu, order, SWS__SWPIN_FALLBACK);
	return rc;
}

/*
 * do_swap_page()'s SWP_SYNCHRONOUS_IO bypass (designs up to 6.18, and vswap
 * for device-backed entries): slot @e is read from @si into a private folio
 * that never enters the swap cache, of the largest of @orders (bit o: order
 * o > 0, checked by swapin_orders()) whose allocation succeeds
 * (alloc_swap_folio(), sws__mm_swapin_folio_alloc(): @reclaim as its), else
 * of order 0;
 * a large folio takes the aligned range of @e's slots. The slots are pinned
 * meanwhile (swapcache_prepare()) and do_swap_page() unpins them, which frees
 * those left with no count. The kernel takes the bypass when the faulting
 * entry's count is 1 (__swap_count(entry) == 1): swapin_folio() tests it
 * before a large folio, the order-0 pin tests it itself; a large range's
 * other slots may have any count (a fork's child still holding some: they
 * stay, with the child's count, once the folio is mapped). An order-0 slot
 * is pinned before its folio is allocated: the
 * kernel tests the count first, without a lock, so a slot shared since a fork
 * allocates nothing here (it goes through the swap cache), and the one
 * cluster lock of the pin stands for swapcache_prepare()'s. @return 0 and the
 * locked folio (not in the swap cache, dirty: its slots go); SWS_EAGAIN or
 * SWS_EOPNOTSUPP (take the swap cache); SWS_EEXIST (someone else is swapping
 * it in); SWS_ENOMEM; SWS_ECORRUPT.
 */
static int swapin_skip_swapcache(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e,
				 struct sws_device *si, unsigned orders, bool reclaim, uint64_t *pfnp)
{
	uint64_t pfn = 0, shadow = 0;
	unsigned order = 0;
	int rc;
	while (orders) {
		order = 31 - (unsigned)__builtin_clz(orders); /* the largest order left first */
		if (!sws__mm_swapin_folio_alloc(cpu, mm, memcg, order, reclaim, &pfn))
			break;
		orders &= ~(1u << order);
		order = 0;
	}
	sws_entry_t first = e - (sws_swp_offset(e) & ((1u << order) - 1));
	rc = sws_swapin_bypass_start(cpu, first, 1u << order, &shadow);
	if (rc && order) {
		sws__mm_folio_free(cpu, mm, pfn);
		if (rc != SWS_EEXIST && rc != SWS_ENOENT)
			return swapin_skip_swapcache(cpu, mm, memcg, e, si, 0, true, pfnp);
	}
	if (rc)
		return rc;
	if (!order && (rc = sws__mm_folio_alloc(cpu, mm, memcg, 0, &pfn)) != 0) {
		sws_swapin_bypass_done(cpu, e, 1); /* the pin goes (and the slot, if unused now) */
		return rc;
	}
	struct sws_folio *f = mm_folio(mm, pfn); /* locked */
	rc = sws__mm_swap_read_folio(cpu, mm, f, first, true, si);
	folio_set(f, PG_dirty);
	sws__mm_folio_add_lru(cpu, mm, pfn, shadow && sws__mm_workingset_refault(cpu, mm, f, memcg, shadow));
	*pfnp = pfn;
	return rc;
}

static uint64_t new_seed(struct sws_space *sp, uint64_t vaddr, uint64_t old)
{
	return mm_mix(sp->seed ^ mm_mix(vaddr ^ old));
}

/* ptl of @base held, verify mode: @sp now expects @f's contents at its pages from @base. */
static void __expect_folio(struct sws_mm *mm, struct sws_space *sp, uint64_t base, const struct sws_folio *f)
{
	SWS_ASSERT_HELD(pte_lockptr(sp, base));
	if (!(mm->cfg.flags & SWS_MM_VERIFY))
		return;
	for (unsigned i = 0; i < (1u << f->order); i++) {
		uint64_t *pte = sws___pte_lookup(sp, base + (uint64_t)i * SWS_PAGE_SIZE);
		if (pte)
			*pte_expected(pte) = folio_page_seed(f, i);
	}
}

/* ptl of @vaddr held, verify mode: does page @sub of @f, mapped at @pte (of
 * @vaddr), hold what @sp wrote there last (or inherited)? A mismatch counts
 * verify_fail. */
static bool __expect_ok(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr,
			uint64_t *pte, const struct sws_folio *f, unsigned sub)
{
	SWS_ASSERT_HELD(pte_lockptr(sp, vaddr));
	if (!(mm->cfg.flags & SWS_MM_VERIFY) || *pte_expected(pte) == folio_page_seed(f, sub))
		return true;
	mm_count(mm, cpu, SWS_MM_verify_fail, 1);
	return false;
}

/* thp_vma_allowable_orders() for anonymous region @r: none under
 * VM_NOHUGEPAGE; the "always" orders (and a mapping's own), and under
 * VM_HUGEPAGE the "madvise" ones too. */
static unsigned region_orders(const struct sws_mm *mm, const struct sws_region *r)
{
	if (!r || (r->orders & REGION_VM_NOHUGEPAGE))
		return 0;
	unsigned o = r->orders & REGION_ORDERS;
	if (r->orders & REGION_VM_HUGEPAGE)
		o |= mm->cfg.anon_orders_madvise;
	return o;
}

/* mmap_lock of @sp and ptl of @vaddr held: the mTHP orders to try for a first
 * touch at @vaddr, bit o for order o: the largest the region allows whose
 * aligned block is empty, and every smaller one it allows (each block lies in
 * one PTE table); 0: order 0. */
static unsigned __fault_order(const struct sws_mm *mm, struct sws_space *sp, struct sws_region *r, uint64_t vaddr)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	SWS_ASSERT_HELD(pte_lockptr(sp, vaddr));
	unsigned left = region_orders(mm, r);
	while (left) {
		unsigned o = 31 - (unsigned)__builtin_clz(left); /* the largest order left first */
		left &= ~(1u << o);
		uint64_t span = (uint64_t)SWS_PAGE_SIZE << o, base = vaddr & ~(span - 1);
		if (base < r->start || base + span > r->end)
			continue;
		bool empty = true;
		for (uint64_t va = base; va < base + span && empty; va += SWS_PAGE_SIZE) {
			uint64_t *pte = sws___pte_lookup(sp, va);
			empty = !pte || !*pte; /* pte_range_none(): a zero-page PTE is not none */
		}
		if (empty)
			return left | 1u << o;
	}
	return 0;
}

const char *sws_thp_defrag_name(enum sws_thp_defrag d)
{
	static const char *const names[SWS_THP_DEFRAG_NR] = {"madvise", "always", "defer", "defer+madvise",
							     "never"};
	return (unsigned)d < SWS_THP_DEFRAG_NR ? names[d] : NULL;
}

/* vma_thp_gfp_mask(): how a large folio's charge in a region may reclaim,
 * by transparent_hugepage/defrag and whether the region is MADV_HUGEPAGE. */
static unsigned thp_gfp(const struct sws_mm *mm, bool madvised)
{
	switch (mm->cfg.thp_defrag) {
	case SWS_THP_DEFRAG_ALWAYS:
		return madvised ? SWS__GFP_TRANSHUGE : SWS__GFP_NORETRY;
	case SWS_THP_DEFRAG_MADVISE:
	case SWS_THP_DEFRAG_DEFER_MADVISE:
		return madvised ? SWS__GFP_TRANSHUGE : SWS__GFP_LIGHT;
	default: /* defer, never */
		return SWS__GFP_LIGHT;
	}
}

/* alloc_anon_folio(): a locked folio for a first write, of the largest of
 * @orders (__fault_order()) that is allocated and charged as thp_gfp() allows,
 * each order that fails counting anon_fault_fallback (and
 * anon_fault_fallback_charge when the memcg was full); else of order 0,
 * charged with reclaim as any page. @return 0 and its order in *@orderp;
 * SWS_ENOMEM, SWS_EKILLED. */
static int alloc_anon_folio(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, unsigned orders,
			    bool madvised, unsigned *orderp, uint64_t *pfnp)
{
	unsigned gfp = thp_gfp(mm, madvised);
	/* the trace's folio (sws_mm_access_folio()): order + 1, bit 8 a fallback */
	const uint32_t traced = mm->pcpu[sws__cpu_id(cpu)].fault_folio, kernel = traced & 0xff;
	while (orders) {
		unsigned o = 31 - (unsigned)__builtin_clz(orders); /* the largest order left first */
		if (kernel && o + 1 != kernel) { /* not the kernel's: above it, failed or not tried */
			if (o + 1 > kernel && (traced >> 8))
				sws__mm_count_anon_fault(mm, cpu, o, true, true);
			orders &= ~(1u << o);
			continue;
		}
		int rc = sws__mm_folio_alloc_gfp(cpu, mm, sp->memcg, o, kernel ? SWS__GFP_KERNEL : gfp, pfnp);
		if (!rc || rc == SWS_EKILLED) {
			*orderp = o;
			return rc;
		}
		sws__mm_count_anon_fault(mm, cpu, o, true, rc == SWS_ECHARGE_INTERNAL);
		orders &= ~(1u << o);
	}
	*orderp = 0;
	return sws__mm_folio_alloc(cpu, mm, sp->memcg, 0, pfnp);
}

/* A first write at @vaddr: a new folio of the largest of @orders that can be
 * had (alloc_anon_folio()), its order in *@orderp, mapped whole. */
static int do_anonymous_page(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
			     uint64_t vaddr, unsigned orders, bool madvised, unsigned *orderp)
{
	uint64_t pfn;
	int rc = alloc_anon_folio(cpu, mm, sp, orders, madvised, orderp, &pfn);
	if (rc)
		return rc;
	unsigned order = *orderp;
	uint64_t span = (uint64_t)SWS_PAGE_SIZE << order, base = vaddr & ~(span - 1);
	struct sws_folio *f = mm_folio(mm, pfn); /* locked */
	mm_cost(cpu, SWS_COST_page_zero, 1ull << order); /* clear_highpage() of each page */
	folio_set(f, PG_dirty | PG_young);
	f->seed = new_seed(sp, base, 0);
	sws_spinlock_t *ptl = pte_lockptr(sp, base); /* the block lies in one PTE table */
	mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
	bool ok = !atomic_load(&sp->oom_killed); /* reaped meanwhile: map nothing more */
	if (!ok)
		rc = SWS_EKILLED;
	for (uint64_t va = base; va < base + span && ok; va += SWS_PAGE_SIZE) {
		uint64_t *pte = sws___pte_lookup(sp, va);
		ok = !pte || !*pte || (*pte & PTE_ZEROPAGE);
	}
	for (uint64_t va = base, i = 0; va < base + span && ok; va += SWS_PAGE_SIZE, i++) {
		uint64_t *pte;
		if (sws___pte_alloc(mm, sp, va, &pte)) {
			/* undo what was mapped so far */
			for (uint64_t v2 = base; v2 < va; v2 += SWS_PAGE_SIZE)
				*sws___pte_lookup(sp, v2) = 0;
			ok = false;
			rc = SWS_ENOMEM;
			break;
		}
		*pte = mk_pte(pfn, (unsigned)i, true);
	}
	if (ok && (rc = sws__mm_rmap_add(mm, f, asid, base)) != 0) {
		for (uint64_t va = base; va < base + span; va += SWS_PAGE_SIZE)
			*sws___pte_lookup(sp, va) = 0;
		ok = false;
	}
	if (ok)
		__expect_folio(mm, sp, base, f);
	sws_spin_unlock(ptl);
	if (!ok) {
		sws__mm_folio_free(cpu, mm, pfn);
		return rc ? rc : SWS_EAGAIN_INTERNAL;
	}
	sws__mm_folio_add_lru(cpu, mm, pfn, false);
	folio_unlock(f);
	mm_count(mm, cpu, SWS_MM_first_touch, 1);
	if (order)
		sws__mm_count_anon_fault(mm, cpu, order, false, false);
	return 0;
}

/* ptl of @vaddr held, and dropped here: do_wp_page(), a write to a read-only
 * present page. @pte is valid only while the ptl is held. */
static int __do_wp_page(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
			uint64_t vaddr, uint64_t *pte)
{
	sws_spinlock_t *ptl = pte_lockptr(sp, vaddr);
	SWS_ASSERT_HELD(ptl);
	uint64_t old = *pte, pfn = pte_pfn(old);
	struct sws_folio *f = mm_folio(mm, pfn);
	uint32_t swapcount = 0;
	bool exclusive = f->mapcount == 1 && !f->order;
	if (exclusive && folio_test(f, PG_swapcache)) {
		/* wp_can_reuse_anon_folio(): f->swap is stable only under the folio lock
		 * (reclaim may drop the folio from the swap cache and add it again
		 * with another entry); if someone holds the lock, copy instead. */
		exclusive = folio_trylock(f);
		if (exclusive) {
			exclusive = !folio_test(f, PG_swapcache) ||
				    (sws_swap_count(cpu, f->swap, &swapcount) == 0 && !swapcount);
			folio_unlock(f);
		}
	}
	if (exclusive) {
		*pte |= PTE_WRITE; /* reuse */
		f->seed = new_seed(sp, vaddr, f->seed);
		__expect_folio(mm, sp, vaddr, f);
		folio_set(f, PG_dirty | PG_young);
		sws_spin_unlock(ptl);
		return 0;
	}
	bool large = f->order != 0; /* read under the ptl: once it drops, the folio may go */
	sws_spin_unlock(ptl);
	if (large) { /* COW of one page of a large folio: split it first */
		if (folio_trylock(f)) {
			if (!f->order || folio_test(f, PG_free)) { /* freed (and reused) meanwhile */
				folio_unlock(f);
			} else {
				sws__mm_lru_del(mm, pfn);
				if (sws__mm_split_folio(cpu, mm, pfn) != 0) {
					sws__mm_lru_add(mm, pfn, false);
					folio_unlock(f);
				}
			}
		}
		return SWS_EAGAIN_INTERNAL;
	}
	/* wp_page_copy() holds a reference on the old folio while it allocates the
	 * copy: reclaim then cannot free it (__remove_mapping() fails on the extra
	 * reference). Modelled by its lock, which reclaim's trylock skips; without
	 * it, direct reclaim could take the very page being copied, every round. */
	bool pinned = folio_trylock(f);
	uint64_t npfn;
	int rc = sws__mm_folio_alloc(cpu, mm, sp->memcg, 0, &npfn);
	struct sws_folio *n = rc ? NULL : mm_folio(mm, npfn); /* locked until it is on the LRU */
	mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
	/* The PTE again, under the lock (pte_offset_map_lock), and nothing more
	 * mapped into a space the OOM killer reaped meanwhile. */
	bool killed = atomic_load(&sp->oom_killed);
	pte = sws___pte_lookup(sp, vaddr);
	if (!rc && (killed || !pte || *pte != old))
		rc = killed ? SWS_EKILLED : SWS_EAGAIN_INTERNAL;
	if (!rc && sws__mm_rmap_add(mm, n, asid, vaddr))
		rc = SWS_ENOMEM;
	if (!rc) {
		mm_cost(cpu, SWS_COST_page_copy, 1); /* copy_user_highpage() */
		folio_set(n, PG_dirty | PG_young);
		n->seed = new_seed(sp, vaddr, f->seed);
		*pte = mk_pte(npfn, 0, true);
		__expect_folio(mm, sp, vaddr, n);
		sws__mm_rmap_del(mm, f, asid, vaddr, NULL);
	}
	sws_spin_unlock(ptl);
	if (n && rc) {
		sws__mm_folio_free(cpu, mm, npfn);
	} else if (n) {
		sws__mm_folio_add_lru(cpu, mm, npfn, false);
		folio_unlock(n);
		mm_count(mm, cpu, SWS_MM_cow_fault, 1);
	}
	/* The old folio, if nobody maps it and no slot keeps it, goes now (an
	 * unmap that found it locked left it to the lock's holder). */
	if (pinned || (!f->mapcount && !folio_test(f, PG_swapcache) && folio_trylock(f))) {
		if (!f->mapcount && !folio_test(f, PG_free) && !folio_test(f, PG_swapcache)) {
			sws__mm_lru_del(mm, pfn);
			sws__mm_folio_free(cpu, mm, pfn);
		} else {
			folio_unlock(f);
		}
	}
	return rc;
}

/* The ptl of @vaddr held: can_swapin_thp() for the 2^@order pages around
 * @vaddr, whose PTE holds @e: their PTEs hold consecutive entries of one
 * device (swap_pte_batch()) and, up to phase III (@range_checks), their slots
 * share the zero flag (swap_zeromap_batch()) and none is in the swap cache
 * (non_swapcache_batch()); phase IV checks these when it adds the folio
 * (swapin_sync()). The slots' counts are not looked at (a neighbour a fork's
 * child still shares is read with the rest). swap_pte_batch() also asks for
 * the first PTE's exclusive, soft-dirty and uffd-wp bits on every PTE and, up
 * to phase III, one swap cgroup id: the model's swap PTE is the entry alone
 * (no such bits), and a space's slots all carry its own memcg's id (a fork's
 * child shares its memcg), so neither test could fail here; where the
 * kernel's exclusive bits differ along a range (some order-0 folios shared
 * since a fork when they went out, others not) the model reads large where
 * the kernel reads order 0. How the slots were written does not matter:
 * slots that separate folios filled are read into one folio whose pages keep
 * their own seeds (PG_page_seed). */
static bool __can_swapin_thp(struct sws_cpu *cpu, struct sws_space *sp, uint64_t vaddr, sws_entry_t e,
			     unsigned order, bool range_checks)
{
	SWS_ASSERT_HELD(pte_lockptr(sp, vaddr));
	const unsigned nr = 1u << order;
	uint64_t base = vaddr & ~(((uint64_t)SWS_PAGE_SIZE << order) - 1);
	sws_entry_t first = e - (vaddr - base) / SWS_PAGE_SIZE;
	bool zero = sws_swap_test_zero(cpu, first);
	for (unsigned i = 0; i < nr; i++) {
		uint64_t *pte = sws___pte_lookup(sp, base + (uint64_t)i * SWS_PAGE_SIZE);
		if (!pte || *pte != swp_entry_to_pte(first + i))
			return false;
		if (range_checks && (sws_swap_test_zero(cpu, first + i) != zero || sws_swap_cache_lookup(cpu, first + i)))
			return false;
	}
	return true;
}

/* thp_swapin_suitable_orders() for a SYNCHRONOUS_IO device's swap-in of @e at
 * @vaddr: the largest order whose range passes can_swapin_thp(), with the
 * orders below it (bit o: order o > 0). None while zswap is on
 * (zswap_never_enabled(): zswap cannot load a large folio), nor under vswap
 * (its series' rules for a large swap-in are not modelled); else of the
 * region's mTHP orders below the PMD order (thp_vma_allowable_orders()) those
 * whose aligned block lies in the region (thp_vma_suitable_orders()) and whose
 * entries align as the addresses do (thp_swap_suitable_orders(): as the folio
 * was swapped out); for a traced fault, none above the kernel's folio. *@reclaim: the region is madvise()d MADV_HUGEPAGE (the
 * large folio's gfp may reclaim: sws__mm_swapin_folio_alloc()). */
static unsigned swapin_orders(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr,
			      sws_entry_t e, bool *reclaim)
{
	*reclaim = false;
	const unsigned below_pmd = (1u << (SWS_NR_ORDERS - 1)) - 2;
	unsigned any = mm->cfg.anon_orders | mm->cfg.anon_orders_madvise |
		       atomic_load_explicit(&mm->swapin_orders_any, memory_order_relaxed);
	if (!(any & below_pmd) || mm->zswap || sws__design_virtual(mm->sim))
		return 0;
	mm_lock(mm, &sp->mmap_lock, SWS_MM_lock_mm_other_contended);
	struct sws_region *r = sws___mm_region(sp, vaddr);
	unsigned orders = region_orders(mm, r) & below_pmd;
	/* a traced fault's folio (sws_mm_access_folio()): none larger than the kernel's */
	const uint32_t traced = mm->pcpu[sws__cpu_id(cpu)].fault_folio & 0xff;
	if (traced)
		orders &= (2u << (traced - 1)) - 1;
	*reclaim = r && (r->orders & REGION_VM_HUGEPAGE);
	for (unsigned o = 1; o < SWS_NR_ORDERS - 1; o++) {
		uint64_t nr = 1ull << o, span = SWS_PAGE_SIZE * nr, base = vaddr & ~(span - 1);
		if ((orders & (1u << o)) && (base < r->start || base + span > r->end ||
					     (vaddr / SWS_PAGE_SIZE) % nr != sws_swp_offset(e) % nr))
			orders &= ~(1u << o);
	}
	if (orders) {
		sws_spinlock_t *ptl = pte_lockptr(sp, vaddr);
		mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
		const bool range_checks = !sws__design_cache_alloc(mm->sim);
		while (orders) {
			unsigned o = 31 - (unsigned)__builtin_clz(orders);
			if (__can_swapin_thp(cpu, sp, vaddr, e, o, range_checks))
				break;
			orders &= ~(1u << o);
		}
		sws_spin_unlock(ptl);
	}
	sws_spin_unlock(&sp->mmap_lock);
	return orders;
}

/* The locked, up-to-date folio of @e for a fault at @vaddr: from the swap
 * cache, or read into a private folio (*@skip_swapcache: the bypass), or read
 * into the swap cache after readahead. @sd: the fault's device. */
static int swapin_folio(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr, sws_entry_t e,
			const struct sws__swapin_dev *sd, uint64_t *pfnp, bool *skip_swapcache)
{
	bool sync = sd->si && (sws__device_flags(sd->si) & SWS_SWP_SYNCHRONOUS_IO);
	/* SYNCHRONOUS_IO devices read without readahead, except, up to 6.18, a
	 * slot the bypass declined (count > 1: shared since a fork), which goes
	 * through swapin_readahead() like any other device's. */
	bool readahead = !sync, reclaim = true;
	for (int tries = 0;; tries++) {
		int rc = sws__mm_swap_cache_get_folio(cpu, mm, sp, vaddr, e, pfnp);
		if (rc != SWS_ENOENT && rc != SWS_EAGAIN)
			return rc; /* a hit (or the split of a large one failed) */
		if (rc == SWS_EAGAIN) {
			if (tries > 1000)
				return SWS_ENOENT;
			continue;
		}
		if (sync && sws__design_sync_bypass(mm->sim)) {
			/* alloc_swap_folio() only for the bypass's slot: __swap_count() 1 */
			unsigned orders = sd->fault ? swapin_orders(cpu, mm, sp, vaddr, e, &reclaim) : 0;
			uint32_t count = 0;
			if (orders && (sws_swap_count(cpu, e, &count) || count != 1))
				orders = 0;
			rc = swapin_skip_swapcache(cpu, mm, sp->memcg, e, sd->si, orders, reclaim, pfnp);
			if (rc == 0 || rc == SWS_ECORRUPT) {
				*skip_swapcache = true;
				mm_count(mm, cpu, SWS_MM_pgmajfault, 1);
				return rc;
			}
			if (rc == SWS_EEXIST) { /* the kernel waits a tick and faults again */
				if (tries > 1000)
					return SWS_ENOENT;
				continue;
			}
			if (rc != SWS_EAGAIN && rc != SWS_EOPNOTSUPP)
				return rc == SWS_EBUSY ? SWS_ENOENT : rc;
			readahead |= rc == SWS_EAGAIN;
		}
		if (sync && !sws__design_sync_bypass(mm->sim)) { /* phase II on: swapin_sync() */
			unsigned orders = sd->fault ? swapin_orders(cpu, mm, sp, vaddr, e, &reclaim) : 0;
			rc = sws__mm_swapin_sync(cpu, mm, sp, vaddr, e, sd, orders, reclaim, pfnp);
		} else {
			rc = sws__mm_swapin_readahead(cpu, mm, sp, vaddr, e, sd, readahead && !tries, pfnp);
		}
		if (rc == 0 || rc == SWS_ECORRUPT) /* read from the device or zswap: a major fault */
			mm_count(mm, cpu, SWS_MM_pgmajfault, 1);
		if (rc != SWS_EEXIST)
			return rc;
		if (tries > 1000)
			return SWS_ENOENT;
	}
}

/* ptl of @base held: do the @nr PTEs from @base still hold the entries from
 * @first on (pte_same() of each; for a large folio the kernel's
 * swap_pte_batch())? */
static bool __swap_ptes_same(struct sws_space *sp, uint64_t base, sws_entry_t first, unsigned nr)
{
	SWS_ASSERT_HELD(pte_lockptr(sp, base));
	for (unsigned i = 0; i < nr; i++) {
		uint64_t *pte = sws___pte_lookup(sp, base + (uint64_t)i * SWS_PAGE_SIZE);
		if (!pte || *pte != swp_entry_to_pte(first + i))
			return false;
	}
	return true;
}

/* do_swap_page(): the PTE holds @e; ptl dropped by the caller. A large folio
 * (a SYNCHRONOUS_IO swap-in, swapin_orders()) is mapped whole when its PTEs
 * still hold its entries. */
static int do_swap_page(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
			uint64_t vaddr, sws_entry_t e, bool write, bool fault)
{
	/* get_swap_device(), once for the fault: the device the page is read
	 * from (vswap: the physical one behind @e; none when the page is zero,
	 * in zswap or in memory: then nothing is read ahead from a device). */
	struct sws__swapin_dev sd = {.t = e, .fault = fault};
	sd.on_device = !mm_io_target(cpu, mm, e, 1, false, &sd.t);
	sd.si = sws__get_swap_device(mm->sim, sws_swp_type(sd.t));
	uint64_t pfn = 0;
	bool skip_swapcache = false;
	int rc = swapin_folio(cpu, mm, sp, vaddr, e, &sd, &pfn, &skip_swapcache);
	if (rc && rc != SWS_ECORRUPT)
		return rc == SWS_ENOENT ? SWS_EAGAIN_INTERNAL : rc;
	int read_rc = rc;
	struct sws_folio *f = mm_folio(mm, pfn);
	const unsigned nr = 1u << f->order;
	/* the folio's first page, PTE and entry (a large folio covers the aligned range) */
	uint64_t base = vaddr & ~((uint64_t)SWS_PAGE_SIZE * nr - 1);
	sws_entry_t first = e - (vaddr - base) / SWS_PAGE_SIZE;
	sws_spinlock_t *ptl = pte_lockptr(sp, vaddr); /* the folio lies in one PTE table */
	mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
	bool same = __swap_ptes_same(sp, base, first, nr);
	bool mapped = same && !sws__mm_rmap_add(mm, f, asid, base);
	if (!mapped) {
		/* !pte_same: someone else did it (or no memory for the rmap) */
		rc = same ? SWS_ENOMEM : SWS_EAGAIN_INTERNAL;
	} else {
		sws_swap_put(cpu, first, nr); /* the PTEs no longer hold the slots */
		/* A private folio is exclusive: its slots (count 0 now) go with the
		 * pin. A swap-cache folio: should_try_to_free_swap(): a write by the
		 * folio's only user (the kernel's refcount test: a folio another space
		 * maps, such as one a fork's child swapped in first, keeps its slot
		 * and stays clean), swap more than half full; from swap table phase
		 * II on, a SYNCHRONOUS_IO device too; vswap adds: a page on no device
		 * (zero, zswap, memory) has no slot worth keeping for a swap-out. */
		uint32_t count = 0;
		bool sole = true, free_swap = false;
		if (!skip_swapcache) {
			for (unsigned i = 0; i < nr; i++) {
				uint32_t c = 1;
				sws_swap_count(cpu, first + i, &c);
				count += c;
			}
			sws_entry_t t;
			bool on_device = !mm_io_target(cpu, mm, e, 1, false, &t);
			bool sync_free = sws__design_sync_free(mm->sim) && sd.si &&
					 (sws__device_flags(sd.si) & SWS_SWP_SYNCHRONOUS_IO);
			sole = folio_mapcount(f) == 1; /* our own mapping only (rmap added above) */
			free_swap = !count && ((write && sole) || sws_swap_full(mm->sim) || !on_device || sync_free);
		}
		/* Writable only when exclusive: no swap PTE left and no other mapping
		 * (a page shared since a fork, swapped in by both, stays read-only: a
		 * write copies it, do_wp_page()). */
		for (unsigned i = 0; i < nr; i++) {
			uint64_t va = base + (uint64_t)i * SWS_PAGE_SIZE, *pte = sws___pte_lookup(sp, va);
			*pte = mk_pte(pfn, i, !count && sole);
			if (!__expect_ok(cpu, mm, sp, va, pte, f, i))
				read_rc = SWS_ECORRUPT;
		}
		folio_set(f, PG_young);
		if (free_swap && sws_swap_cache_del(cpu, first, nr, pfn, 0) == 0) {
			folio_clear(f, PG_swapcache);
			folio_set(f, PG_dirty); /* the only copy is in memory now */
		}
		rc = read_rc;
	}
	sws_spin_unlock(ptl);
	if (!mapped && skip_swapcache) { /* the private folio goes */
		sws__mm_lru_del(mm, pfn);
		sws__mm_folio_free(cpu, mm, pfn);
	} else {
		folio_unlock(f);
	}
	if (skip_swapcache) /* swapcache_clear(): the pin goes (and the slots, once unused) */
		sws_swapin_bypass_done(cpu, first, nr);
	return rc;
}

int sws__mm_swapin_pte(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp, uint64_t vaddr,
		       sws_entry_t e)
{
	enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_swapin);
	int rc = do_swap_page(cpu, mm, asid, sp, vaddr, e, false, false); /* unuse_pte(): order 0 */
	sws__cpu_work_enter(cpu, wc);
	return rc;
}

/* handle_mm_fault() and the hit path, for the page at @vaddr. */
static int do_access(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
		     uint64_t vaddr, bool write, uint64_t *t0)
{
	int faulted = 0;
	sws_spinlock_t *ptl = pte_lockptr(sp, vaddr);
	for (int tries = 0; tries < 1000; tries++) {
		mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
		if (sws_unlikely(atomic_load_explicit(&sp->oom_killed, memory_order_relaxed))) {
			sws_spin_unlock(ptl);
			mm_count(mm, cpu, faulted ? SWS_MM_oom : SWS_MM_oom_refused, 1);
			return SWS_EKILLED;
		}
		uint64_t *pte = sws___pte_lookup(sp, vaddr);
		uint64_t v = pte ? *pte : 0;
		if (pte_present(v) && (v & PTE_ZEROPAGE) && !write) {
			sws_spin_unlock(ptl);
			return faulted; /* a read of the shared zero page */
		}
		if (pte_present(v) && !(v & PTE_ZEROPAGE) && (!write || (v & PTE_WRITE))) {
			uint64_t pfn = pte_pfn(v);
			struct sws_folio *f = mm_folio(mm, pfn);
			bool same = __expect_ok(cpu, mm, sp, vaddr, pte, f, pte_sub(v));
			if (write) {
				f->seed = new_seed(sp, vaddr, f->seed); /* a new write version */
				/* a large folio's pages all change with its seed */
				__expect_folio(mm, sp, vaddr - (uint64_t)pte_sub(v) * SWS_PAGE_SIZE, f);
				/* PG_dirty is cleared only with this PTE's ptl held or
				 * after the PTE was unmapped: a set bit needs no RMW. */
				if (!folio_test(f, PG_dirty))
					folio_set(f, PG_dirty);
			}
			sws__mm_mark_accessed(mm, pfn);
			sws_spin_unlock(ptl);
			return same ? faulted : SWS_ECORRUPT;
		}
		if (!faulted) {
			mm_count(mm, cpu, SWS_MM_pgfault, 1);
			faulted = 1;
			/* The fault enters the kernel, a hit does not: what ran so far was
			 * the hardware's walk; the kernel walks the tables and takes the ptl. */
			struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
			if (vc)
				vc->hw = 0;
			*t0 = mm_kernel_enter(mm, cpu);
			mm_cost(cpu, SWS_COST_pt_level, 4);
			mm_cost(cpu, SWS_COST_lock, 1);
		}
		int rc;
		if (pte_present(v) && !(v & PTE_ZEROPAGE)) {
			rc = __do_wp_page(cpu, mm, asid, sp, vaddr, pte); /* drops the ptl */
		} else if (pte_is_swap(v)) {
			sws_spin_unlock(ptl);
			enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_swapin);
			rc = do_swap_page(cpu, mm, asid, sp, vaddr, pte_to_swp_entry(v), write, true);
			sws__cpu_work_enter(cpu, wc);
			if (rc == 0 && write)
				continue; /* mapped; the write itself is the next round */
		} else if (!write && !(mm->cfg.flags & SWS_MM_READ_POPULATES)) {
			/* Read of a never-written page: map the shared zero page. */
			rc = sws___pte_alloc(mm, sp, vaddr, &pte);
			if (!rc) {
				*pte = PTE_PRESENT | PTE_ZEROPAGE;
				mm_count(mm, cpu, SWS_MM_first_touch, 1);
			}
			sws_spin_unlock(ptl);
			return rc ? rc : 1;
		} else {
			/* The region (its mTHP order): under the mmap_lock, which
			 * comes before the ptl; the PTE is checked again when mapped. */
			sws_spin_unlock(ptl);
			mm_lock(mm, &sp->mmap_lock, SWS_MM_lock_mm_other_contended);
			struct sws_region *r = sws___mm_region(sp, vaddr);
			if (!r) {
				sws___mm_mmap_implicit(mm, sp, vaddr);
				r = sws___mm_region(sp, vaddr);
			}
			mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
			unsigned orders = __fault_order(mm, sp, r, vaddr), order;
			bool madvised = r && (r->orders & REGION_VM_HUGEPAGE);
			sws_spin_unlock(ptl);
			sws_spin_unlock(&sp->mmap_lock);
			rc = do_anonymous_page(cpu, mm, asid, sp, vaddr, orders, madvised, &order);
			if (rc == 0 && order == 0)
				return 1;
			if (rc == 0)
				continue; /* large folio mapped: the write lands next round */
		}
		if (rc == SWS_EAGAIN_INTERNAL)
			continue;
		if (rc == SWS_ENOMEM || rc == SWS_EKILLED)
			mm_count(mm, cpu, SWS_MM_oom, 1);
		if (rc)
			return rc;
		return 1; /* a read fault done (swap-in, COW) */
	}
	return SWS_EBUSY;
}

int sws_mm_access_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr, bool write,
			unsigned order, bool fallback)
{
	if (!cpu || !mm || order >= SWS_NR_ORDERS)
		return SWS_EINVAL;
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	p->fault_folio = (order + 1) | (fallback ? 1u << 8 : 0);
	int rc = sws_mm_access(cpu, mm, asid, addr, write);
	p->fault_folio = 0;
	return rc;
}

int sws_mm_access(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr, bool write)
{
	struct sws_space *sp = mm && cpu ? mm_space(mm, cpu, asid) : NULL;
	if (!sp || !sp->alive || addr >> 48)
		return SWS_EINVAL;
	uint64_t vaddr = addr & ~(uint64_t)(SWS_PAGE_SIZE - 1);
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	uint64_t t0 = UINT64_MAX;
	if (p->loaded != asid) { /* switch_mm(): this CPU's TLB holds @asid's entries from now on */
		unsigned id = sws__cpu_id(cpu);
		p->loaded = asid;
		if (id < 64 && !((atomic_load_explicit(&sp->cpumask, memory_order_relaxed) >> id) & 1))
			atomic_fetch_or_explicit(&sp->cpumask, 1ull << id, memory_order_relaxed);
	}
	p->current = asid;
	struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
	if (vc)
		vc->hw = 1; /* a hit is the hardware's: no kernel cost */
	int rc = do_access(cpu, mm, asid, sp, vaddr, write, &t0);
	if (vc)
		vc->hw = 0;
	p->current = SWS__MM_NO_ASID;
	if (t0 != UINT64_MAX)
		mm_kernel_exit(mm, cpu, t0);
	return rc;
}

/* free_pages_and_swap_cache(): this CPU's LRU batches drained, then the
 * zapped folios freed together (folios_put()). */
static void free_pages_and_swap_cache(struct sws__zap *z)
{
	sws__mm_lru_add_drain(z->cpu, z->mm);
	sws__mm_folios_put(z->cpu, z->mm, &z->fb);
}

/* swap_put_entries_direct(): put the run, then try to reclaim only the slots
 * it left cache-only (a swap-cache lookup each; the others need none). */
void sws__mm_zap_flush(struct sws__zap *z)
{
	if (z->fb.nr) /* first: the folios were zapped before the run's entries were put */
		free_pages_and_swap_cache(z);
	if (!z->nr)
		return;
	uint64_t only_cache[SWS_CLUSTER_SLOTS / 64];
	if (sws_swap_put_entries_direct(z->cpu, z->run, z->nr, only_cache))
		memset(only_cache, 0, sizeof(only_cache));
	mm_count(z->mm, z->cpu, SWS_MM_free_slots_batched, z->nr);
	for (unsigned i = 0; i < z->nr;)
		i += sws_bit_test(only_cache, i) ? sws__mm_try_to_reclaim_swap(z->cpu, z->mm, z->run + i) : 1;
	z->nr = 0;
}

/* Under the zap's ptl (a walk's callback, or the zap of one PTE): a mapping
 * gone frees the folio when nothing else holds it; the folio is only
 * trylocked (its lock ranks above the ptl). */
static void drop_folio_mapping(struct sws__zap *z, uint64_t pfn, uint64_t vaddr)
{
	struct sws_mm *mm = z->mm;
	struct sws_folio *f = mm_folio(mm, pfn);
	sws__mm_rmap_del(mm, f, z->asid, vaddr, NULL);
	if (f->mapcount || !folio_trylock(f))
		return; /* mapped elsewhere, or reclaim has it and will finish it */
	if (folio_test(f, PG_free) || f->mapcount) {
		folio_unlock(f);
		return;
	}
	uint32_t count = 0;
	if (folio_test(f, PG_swapcache)) {
		unsigned nr = 1u << f->order;
		for (unsigned i = 0; i < nr && !count; i++) {
			uint32_t c = 0;
			sws_swap_count(z->cpu, f->swap + i, &c);
			count += c;
		}
		if (count) { /* another process's swap PTE still needs this copy */
			folio_unlock(f);
			return;
		}
		sws_swap_cache_del(z->cpu, f->swap, nr, pfn, 0);
	}
	/* Locked, unmapped, out of the swap cache: nobody else finds it, and reclaim's
	 * trylock skips it until the batch frees it (tlb_flush_mmu()). */
	if (!folio_batch_add(&z->fb, pfn))
		free_pages_and_swap_cache(z);
}

/* A swap PTE zapped: its entry joins the run (a new run when it does not
 * extend it: not the next slot of the run's cluster, or, under vswap v3,
 * swap_pte_batch()'s swap_move() found the two slots' backends differ). */
void sws__mm_zap_swap_pte(struct sws__zap *z, uint64_t v)
{
	sws_entry_t e = pte_to_swp_entry(v);
	bool extends = z->nr && e == z->run + z->nr &&
		       sws_swp_offset(e) / SWS_CLUSTER_SLOTS == sws_swp_offset(z->run) / SWS_CLUSTER_SLOTS &&
		       sws__swap_zap_batch_extends(z->cpu, e - 1);
	if (!extends) {
		sws__mm_zap_flush(z);
		z->run = e;
	}
	z->nr++;
}

static void zap_pte(void *ctx, uint64_t vaddr, uint64_t *pte)
{
	struct sws__zap *z = ctx;
	uint64_t v = *pte;
	*pte = 0;
	if (pte_is_swap(v)) {
		sws__mm_zap_swap_pte(z, v);
		return;
	}
	if ((v & PTE_ZEROPAGE) || pte_sub(v) != 0)
		return; /* a large folio's mapping goes with its first page */
	drop_folio_mapping(z, pte_pfn(v), vaddr);
}

void sws___mm_zap_range(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
			uint64_t start, uint64_t end)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	struct sws__zap z = {cpu, mm, asid, 0, 0, {0}};
	sws___pte_walk(sp, start, end, zap_pte, &z);
	mm_cost(cpu, SWS_COST_tlb_flush, 1); /* tlb_finish_mmu(): one flush of the range */
	sws__mm_zap_flush(&z);
}

/* ---- fork ------------------------------------------------------------------------------ */

struct copy {
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	struct sws_space *child;
	uint32_t child_asid;
	int rc;
};

static void copy_pte(void *ctx, uint64_t vaddr, uint64_t *pte)
{
	struct copy *c = ctx;
	uint64_t *cpte;
	if (c->rc || (c->rc = sws___pte_alloc(c->mm, c->child, vaddr, &cpte)) != 0)
		return;
	uint64_t v = *pte;
	if (c->mm->cfg.flags & SWS_MM_VERIFY) /* the child expects what the parent had */
		*pte_expected(cpte) = *pte_expected(pte);
	if (pte_is_swap(v)) {
		c->rc = sws_swap_dup(c->cpu, pte_to_swp_entry(v), 1);
		if (!c->rc)
			*cpte = v;
		return;
	}
	/* Present: both sides read-only now, the folio shared (copy-on-write). */
	*pte = v & ~PTE_WRITE;
	*cpte = *pte;
	if (!(v & PTE_ZEROPAGE) && pte_sub(v) == 0)
		c->rc = sws__mm_rmap_add(c->mm, mm_folio(c->mm, pte_pfn(v)), c->child_asid, vaddr);
	if (c->rc)
		*cpte = 0;
}
/* The ptls of @sp and of @cp held: copy_page_range(), @sp's page tables into
 * @cp's (the child @child_asid). @return 0 or the first error (the caller
 * undoes the child). */
int sws___mm_copy_page_range(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, struct sws_space *cp,
			     uint32_t child_asid)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	SWS_ASSERT_HELD(&cp->mmap_lock);
	struct copy c = {cpu, mm, cp, child_asid, 0};
	sws___pte_walk(sp, 0, 1ull << 48, copy_pte, &c);
	return c.rc;
}
