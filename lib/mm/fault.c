/*
 * fault.c - the access and fault paths (mm/memory.c: do_anonymous_page,
 * do_wp_page, do_swap_page; mm/swap_state.c: swapin_readahead).
 *
 * An access to a present, permitted PTE is a hit: the accessed bit (or, for
 * the exact-LRU reference, a move to the young end) and, on a write, a new
 * content version. Everything else is a fault (pgfault):
 *  - none: a read maps the shared zero page, a write a new folio (of the
 *    region's mTHP order when the aligned block is empty);
 *  - write to a read-only page: reuse when exclusive, else copy (COW);
 *  - swap PTE: swap-in. A swap-cache hit maps the folio (swap_ra_hit when it
 *    was read ahead); a miss (pgmajfault) reads the page, after reading ahead
 *    (cluster readahead, or VMA readahead when no rotational device is on)
 *    except on SYNCHRONOUS_IO devices, where designs up to 6.18 (and vswap)
 *    read a count-1 slot into a private folio instead (the bypass) and a
 *    shared one (count > 1) through readahead as elsewhere; from phase II on,
 *    they read without readahead whatever the count. The PTE's
 *    swap count is put; the slot is freed at once when swap is more than half
 *    full, on a write, and from swap table phase II on SYNCHRONOUS_IO
 *    devices (should_try_to_free_swap), else the clean folio stays in the swap
 *    cache and a later reclaim needs no write.
 * Allocation may reclaim, so it happens with no ptl held; the PTE is checked
 * again afterwards and the fault retried if it changed (pte_same).
 */
#include <string.h>

#include "../zswap/zswap_internal.h"
#include "mm_internal.h"


/* ---- per-slot content seeds (the bytes a slot holds, by the content model) ---------- */

static _Atomic uint64_t *seed_slot(struct sws_mm *mm, sws_entry_t e)
{
	unsigned type = sws_swp_type(e);
	uint64_t off = sws_swp_offset(e);
	if (type >= SWS_MAX_SWAPFILES || off >= mm->slot_seed_len[type] || !mm->slot_seed[type])
		return NULL;
	return &mm->slot_seed[type][off];
}

void sws__mm_slot_seed_set(struct sws_mm *mm, sws_entry_t e, uint64_t seed)
{
	_Atomic uint64_t *p = seed_slot(mm, e);
	if (p)
		sws_store_relaxed(p, seed);
}

uint64_t sws__mm_slot_seed_get(struct sws_mm *mm, sws_entry_t e)
{
	_Atomic uint64_t *p = seed_slot(mm, e);
	return p ? sws_load_relaxed(p) : 0;
}

/* ---- reading a slot ------------------------------------------------------------------ */

/* swap_read_folio() for one page into locked folio @f (its seed set from the slot).
 * @sync: the fault waits for this read (a read-ahead one is asynchronous). */
static int swap_read(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, sws_entry_t e,
		     bool sync)
{
	unsigned type = sws_swp_type(e);
	f->seed = sws__mm_slot_seed_get(mm, e);
	if (sws_swap_test_zero(cpu, e)) {
		mm_count(mm, cpu, SWS_MM_swpin_zero, 1);
		return 0;
	}
	if (mm->zswap) {
		uint8_t page[SWS_PAGE_SIZE], want[SWS_PAGE_SIZE];
		int rc = sws__zswap_load(mm->zswap, cpu, e, page);
		if (rc == 0) {
			/* Exclusive load: the folio owns the only copy now, it must be
			 * written again should it be reclaimed. */
			folio_set(f, PG_dirty);
			if (!(mm->cfg.flags & SWS_MM_VERIFY))
				return 0;
			uint64_t t0 = mm_untimed_begin(mm, cpu, false); /* verifying: the simulator's */
			sws_mm_page_content(mm, f->seed, 0, want);
			bool same = !memcmp(page, want, SWS_PAGE_SIZE);
			mm_untimed_end(mm, cpu, t0, false);
			mm_count(mm, cpu, same ? SWS_MM_verify_ok : SWS_MM_verify_fail, 1);
			return same ? 0 : SWS_ECORRUPT;
		}
		if (rc != SWS_ENOENT)
			return rc; /* the kernel fails the read: SIGBUS */
		/* A miss that goes to the device: maybe zswap wrote back something hot. */
		sws__zswap_disk_swapin(mm->zswap, f->memcg);
		mm_count(mm, cpu, SWS_MM_nr_disk_swapins, 1);
	}
	sws_entry_t t; /* vswap: the physical slot behind the virtual entry */
	if (mm_io_target(cpu, mm, e, 1, false, &t))
		return SWS_EIO; /* no copy anywhere: the kernel's swap_read_folio() fails it */
	type = sws_swp_type(t);
	mm_count(mm, cpu, SWS_MM_pswpin, 1);
	mm_io(mm, cpu, type, mm->read_ns[type], sync);
	struct sws_device *dev = sws__device(mm->sim, type);
	if (!(mm->cfg.flags & SWS_MM_VERIFY) || !dev || dev->backing.kind == SWS_BACKING_NONE)
		return 0;
	/* The store's host I/O (the device time is the latency model's, above) and
	 * the check are the simulator's work: untimed. */
	uint8_t got[SWS_PAGE_SIZE], want[SWS_PAGE_SIZE];
	uint64_t t0 = mm_untimed_begin(mm, cpu, false);
	int rc = sws_swap_readpage(cpu, t, got) != 0 ? SWS_EIO : 0;
	if (!rc) {
		sws_mm_page_content(mm, f->seed, 0, want);
		rc = memcmp(got, want, SWS_PAGE_SIZE) ? SWS_ECORRUPT : 0;
	}
	mm_untimed_end(mm, cpu, t0, false);
	if (rc != SWS_EIO)
		mm_count(mm, cpu, rc ? SWS_MM_verify_fail : SWS_MM_verify_ok, 1);
	return rc;
}

/* workingset_refault(): would the folio have stayed with this much more
 * memory? @return true when it goes on the active list. */
static bool workingset_refault(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, uint16_t memcg,
			       uint64_t shadow)
{
	mm_count(mm, cpu, SWS_MM_workingset_refault, 1);
	uint64_t age = atomic_load(&mm->nonresident_age) & ((1ull << 40) - 1);
	uint64_t distance = (age - (shadow & ((1ull << 40) - 1))) & ((1ull << 40) - 1);
	sws_spin_lock(&mm->lru_lock);
	struct sws_lru *lru = &mm->memcgs[memcg].lru;
	uint64_t ws = lru->nr[LRU_ACTIVE] + lru->nr[LRU_INACTIVE];
	sws_spin_unlock(&mm->lru_lock);
	if (mm->cfg.policy != SWS_RECLAIM_KERNEL || distance > ws)
		return false;
	folio_set(f, PG_workingset);
	mm_count(mm, cpu, SWS_MM_workingset_activate, 1);
	return true;
}

/* A new folio for slot @e in the swap cache, read, on the LRU. @ra: read ahead.
 * @return 0 and the locked folio's PFN; SWS_EEXIST (someone else has it);
 * SWS_ENOENT (the slot was freed); SWS_ENOMEM; SWS_ECORRUPT. */
static int swapin_new(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e, bool ra,
		      uint64_t *pfnp)
{
	uint64_t pfn, shadow = 0;
	int rc = sws__mm_folio_alloc(cpu, mm, memcg, 0, &pfn);
	if (rc)
		return rc;
	struct sws_folio *f = mm_folio(mm, pfn); /* locked */
	rc = sws_swap_cache_add(cpu, e, 1, pfn, &shadow);
	if (rc) {
		sws__mm_folio_free(mm, pfn);
		return rc == SWS_EBUSY ? SWS_ENOENT : rc;
	}
	f->swap = e;
	folio_set(f, PG_swapcache | (ra ? PG_readahead : 0));
	rc = swap_read(cpu, mm, f, e, !ra);
	sws__mm_lru_add(mm, pfn, shadow && workingset_refault(cpu, mm, f, memcg, shadow));
	if (ra)
		mm_count(mm, cpu, SWS_MM_swap_ra, 1);
	*pfnp = pfn;
	return rc;
}

/*
 * do_swap_page()'s SWP_SYNCHRONOUS_IO bypass (designs up to 6.18, and vswap
 * for device-backed entries): a count-1 slot is read into a private folio
 * that never enters the swap cache; the slot is pinned meanwhile
 * (swapcache_prepare()) and freed when the caller unpins it. @return 0 and
 * the locked folio (not in the swap cache, dirty: its slot goes); SWS_EAGAIN
 * or SWS_EOPNOTSUPP (take the swap cache); SWS_EEXIST (someone else is
 * swapping it in); SWS_ENOMEM; SWS_ECORRUPT.
 */
static int swapin_bypass(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e, uint64_t *pfnp)
{
	uint64_t pfn, shadow = 0;
	int rc = sws__mm_folio_alloc(cpu, mm, memcg, 0, &pfn);
	if (rc)
		return rc;
	rc = sws_swapin_bypass_start(cpu, e, 1, &shadow);
	if (rc) {
		sws__mm_folio_free(mm, pfn);
		return rc;
	}
	struct sws_folio *f = mm_folio(mm, pfn); /* locked */
	rc = swap_read(cpu, mm, f, e, true);
	folio_set(f, PG_dirty);
	sws__mm_lru_add(mm, pfn, shadow && workingset_refault(cpu, mm, f, memcg, shadow));
	*pfnp = pfn;
	return rc;
}

/* ---- readahead ---------------------------------------------------------------------- */

/* __swapin_nr_pages(): the adaptive window (global state under lru_lock). */
static unsigned swapin_nr_pages(struct sws_mm *mm, uint64_t offset, unsigned max_pages,
				uint32_t hits, uint64_t *prev_offset, uint32_t *prev_win)
{
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
	(void)mm;
	return pages;
}

static void readahead_one(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e)
{
	uint64_t pfn = 0;
	struct sws_device *dev = sws__device(mm->sim, sws_swp_type(e));
	if (dev && (dev->flags & SWS_SWP_XSWAP))
		return; /* never read ahead from xswap (VMA readahead meets any device's entries) */
	if (sws_swap_cache_lookup(cpu, e))
		return;
	uint32_t count = 0;
	if (sws_swap_count(cpu, e, &count) || !count)
		return; /* swap_entry_swapped(): no folio (nor charge) for a slot nobody uses */
	swapin_new(cpu, mm, memcg, e, true, &pfn);
	if (pfn) /* read (a verify failure is counted, the folio stays) */
		folio_unlock(mm_folio(mm, pfn));
}

/* swap_cluster_readahead(): the aligned block of the window around the target. */
static void cluster_readahead(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e)
{
	unsigned max_pages = 1u << mm->page_cluster;
	if (max_pages <= 1)
		return;
	uint64_t off = sws_swp_offset(e);
	sws_spin_lock(&mm->lru_lock);
	unsigned win = swapin_nr_pages(mm, off, max_pages, atomic_exchange(&mm->ra_hits, 0),
				       &mm->ra_prev_offset, &mm->ra_prev_win);
	sws_spin_unlock(&mm->lru_lock);
	if (win <= 1)
		return;
	struct sws_device *dev = sws__device(mm->sim, sws_swp_type(e));
	uint64_t start = off & ~(uint64_t)(win - 1), end = start + win;
	for (uint64_t o = start ? start : 1; dev && o < end && o < dev->max; o++) {
		if (o == off)
			continue;
		/* vswap reads ahead in the physical space: the neighbours' virtual
		 * entries come from the reverse map (0: the slot backs nothing). */
		sws_entry_t n = sws_swap_rmap(cpu, sws_swp_entry(sws_swp_type(e), o));
		if (n)
			readahead_one(cpu, mm, memcg, n);
	}
}

/* swap_vma_readahead(): the swap PTEs of the window around the faulting address. */
static void vma_readahead(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr)
{
	unsigned pc = mm->page_cluster < 5 ? mm->page_cluster : 5;
	unsigned max_pages = 1u << pc;
	if (max_pages <= 1)
		return;
	sws_entry_t found[32];
	unsigned n = 0;
	sws_spin_lock(&sp->ptl);
	struct sws_region *r = sws__mm_region(sp, vaddr);
	if (!r) {
		sws_spin_unlock(&sp->ptl);
		return;
	}
	uint64_t prev = r->ra_addr;
	uint32_t prev_win = r->ra_win;
	uint64_t vpn = vaddr / SWS_PAGE_SIZE, pvpn = prev / SWS_PAGE_SIZE;
	unsigned win = swapin_nr_pages(mm, vpn, max_pages, r->ra_hits, &pvpn, &prev_win);
	r->ra_hits = 0;
	r->ra_addr = vaddr;
	r->ra_win = win;
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
			uint64_t *pte = sws__pte_lookup(sp, va);
			if (pte && pte_is_swap(*pte))
				found[n++] = pte_to_swp_entry(*pte);
		}
	}
	uint16_t memcg = sp->memcg;
	sws_spin_unlock(&sp->ptl);
	for (unsigned i = 0; i < n; i++)
		readahead_one(cpu, mm, memcg, found[i]);
}

static bool any_rotational(struct sws_mm *mm)
{
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *d = sws__device(mm->sim, t);
		if (d && !(d->flags & SWS_SWP_SOLIDSTATE))
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
		sws_spin_lock(&sp->ptl);
		struct sws_region *r = sws__mm_region(sp, vaddr);
		if (r) {
			r->ra_addr = vaddr;
			if (readahead && r->ra_hits < 63)
				r->ra_hits++;
		}
		sws_spin_unlock(&sp->ptl);
	}
	if (readahead) {
		mm_count(mm, cpu, SWS_MM_swap_ra_hit, 1);
		if (!vma_ra)
			atomic_fetch_add(&mm->ra_hits, 1);
	}
}

/* ---- the fault paths ------------------------------------------------------------------ */

/* Get locked, up-to-date folio for @e: from the swap cache or read. */
static int swapin(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr,
		  sws_entry_t e, uint64_t *pfnp, bool *bypassed)
{
	/* The device the page would be read from (vswap: the physical one; none
	 * when the page is zero or in zswap: then nothing is read ahead). */
	sws_entry_t t = e;
	bool on_device = !mm_io_target(cpu, mm, e, 1, false, &t);
	struct sws_device *dev = sws__device(mm->sim, sws_swp_type(t));
	bool sync = dev && (dev->flags & SWS_SWP_SYNCHRONOUS_IO);
	/* SYNCHRONOUS_IO devices read without readahead, except, up to 6.18, a
	 * slot the bypass declined (count > 1: shared since a fork), which goes
	 * through swapin_readahead() like any other device's. */
	bool readahead = !sync;
	*bypassed = false;
	for (int tries = 0;; tries++) {
		uint64_t pfn = sws_swap_cache_lookup(cpu, e);
		if (pfn) {
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
				continue;
			}
			if (!folio_test(f, PG_swapcache) || f->swap != e || f->order) {
				folio_unlock(f);
				if (tries > 1000)
					return SWS_ENOENT;
				continue;
			}
			swap_update_readahead(cpu, mm, sp, vaddr, folio_test_clear(f, PG_readahead));
			mm_count(mm, cpu, SWS_MM_swapcache_hit, 1);
			*pfnp = pfn;
			return 0;
		}
		if (sync && (mm->sim->design_flags & SWS_DESIGN_SYNC_BYPASS)) {
			int rc = swapin_bypass(cpu, mm, sp->memcg, e, pfnp);
			if (rc == 0 || rc == SWS_ECORRUPT) {
				*bypassed = true;
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
		if (!tries) {
			/* No readahead on SYNCHRONOUS_IO devices (but see above), nor on
			 * xswap (each page is its own zswap entry: a read of it costs the
			 * same later), nor (cluster readahead) for a vswap page on no device. */
			if (readahead && mm->page_cluster && !(dev && (dev->flags & SWS_SWP_XSWAP))) {
				if (!use_vma_readahead(mm)) {
					if (on_device)
						cluster_readahead(cpu, mm, sp->memcg, t);
				} else {
					vma_readahead(cpu, mm, sp, vaddr);
				}
			}
		}
		int rc = swapin_new(cpu, mm, sp->memcg, e, false, pfnp);
		if (rc == 0 || rc == SWS_ECORRUPT) /* read from the device or zswap: a major fault */
			mm_count(mm, cpu, SWS_MM_pgmajfault, 1);
		if (rc != SWS_EEXIST)
			return rc;
		if (tries > 1000)
			return SWS_ENOENT;
	}
}

static uint64_t new_seed(struct sws_space *sp, uint64_t vaddr, uint64_t old)
{
	return mm_mix(sp->seed ^ mm_mix(vaddr ^ old));
}

/* Verify mode, ptl held: @sp now expects @f's contents at its pages from @base. */
static void expect_folio(struct sws_mm *mm, struct sws_space *sp, uint64_t base, const struct sws_folio *f)
{
	if (!(mm->cfg.flags & SWS_MM_VERIFY))
		return;
	for (unsigned i = 0; i < (1u << f->order); i++) {
		uint64_t *pte = sws__pte_lookup(sp, base + (uint64_t)i * SWS_PAGE_SIZE);
		if (pte)
			*pte_expected(pte) = folio_page_seed(f, i);
	}
}

/* Verify mode, ptl held: does page @sub of @f, mapped at @pte, hold what its
 * space wrote there last (or inherited)? A mismatch counts verify_fail. */
static bool expect_ok(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t *pte, const struct sws_folio *f, unsigned sub)
{
	if (!(mm->cfg.flags & SWS_MM_VERIFY) || *pte_expected(pte) == folio_page_seed(f, sub))
		return true;
	mm_count(mm, cpu, SWS_MM_verify_fail, 1);
	return false;
}

/* The mTHP order to use for a first touch at @vaddr (ptl held). */
static unsigned fault_order(struct sws_space *sp, struct sws_region *r, uint64_t vaddr)
{
	for (unsigned o = r ? r->order : 0; o > 0; o--) {
		uint64_t span = (uint64_t)SWS_PAGE_SIZE << o, base = vaddr & ~(span - 1);
		if (base < r->start || base + span > r->end)
			continue;
		bool empty = true;
		for (uint64_t va = base; va < base + span && empty; va += SWS_PAGE_SIZE) {
			uint64_t *pte = sws__pte_lookup(sp, va);
			empty = !pte || !*pte || (*pte & PTE_ZEROPAGE);
		}
		if (empty)
			return o;
	}
	return 0;
}

static int do_anonymous_page(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid,
			     struct sws_space *sp, uint64_t vaddr, unsigned order)
{
	uint64_t span = (uint64_t)SWS_PAGE_SIZE << order, base = vaddr & ~(span - 1), pfn;
	int rc = sws__mm_folio_alloc(cpu, mm, sp->memcg, order, &pfn);
	if (rc)
		return rc;
	struct sws_folio *f = mm_folio(mm, pfn); /* locked */
	folio_set(f, PG_dirty | PG_young);
	f->seed = new_seed(sp, base, 0);
	sws_spin_lock(&sp->ptl);
	bool ok = !atomic_load(&sp->oom_killed); /* reaped meanwhile: map nothing more */
	if (!ok)
		rc = SWS_EKILLED;
	for (uint64_t va = base; va < base + span && ok; va += SWS_PAGE_SIZE) {
		uint64_t *pte = sws__pte_lookup(sp, va);
		ok = !pte || !*pte || (*pte & PTE_ZEROPAGE);
	}
	for (uint64_t va = base, i = 0; va < base + span && ok; va += SWS_PAGE_SIZE, i++) {
		uint64_t *pte;
		if (sws__pte_alloc(mm, sp, va, &pte)) {
			/* undo what was mapped so far */
			for (uint64_t v2 = base; v2 < va; v2 += SWS_PAGE_SIZE)
				*sws__pte_lookup(sp, v2) = 0;
			ok = false;
			rc = SWS_ENOMEM;
			break;
		}
		*pte = mk_pte(pfn, (unsigned)i, true);
	}
	if (ok && (rc = sws__mm_rmap_add(mm, f, asid, base)) != 0) {
		for (uint64_t va = base; va < base + span; va += SWS_PAGE_SIZE)
			*sws__pte_lookup(sp, va) = 0;
		ok = false;
	}
	if (ok)
		expect_folio(mm, sp, base, f);
	sws_spin_unlock(&sp->ptl);
	if (!ok) {
		sws__mm_folio_free(mm, pfn);
		return rc ? rc : SWS_EAGAIN_INTERNAL;
	}
	sws__mm_lru_add(mm, pfn, false);
	folio_unlock(f);
	mm_count(mm, cpu, SWS_MM_first_touch, 1);
	return 0;
}

/* do_wp_page(): write to a read-only present page. ptl held on entry, dropped;
 * @pte is valid only while it is held. */
static int do_wp_page(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
		      uint64_t vaddr, uint64_t *pte)
{
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
		expect_folio(mm, sp, vaddr, f);
		folio_set(f, PG_dirty | PG_young);
		sws_spin_unlock(&sp->ptl);
		return 0;
	}
	sws_spin_unlock(&sp->ptl);
	if (f->order) { /* COW of one page of a large folio: split it first */
		if (folio_trylock(f)) {
			sws__mm_lru_del(mm, pfn);
			if (sws__mm_split_folio(cpu, mm, pfn) != 0) {
				sws__mm_lru_add(mm, pfn, false);
				folio_unlock(f);
			}
		}
		return SWS_EAGAIN_INTERNAL;
	}
	uint64_t npfn;
	int rc = sws__mm_folio_alloc(cpu, mm, sp->memcg, 0, &npfn);
	if (rc)
		return rc;
	struct sws_folio *n = mm_folio(mm, npfn); /* locked until it is on the LRU */
	folio_set(n, PG_dirty | PG_young);
	sws_spin_lock(&sp->ptl);
	/* wp_page_copy(): the PTE again, under the lock (pte_offset_map_lock),
	 * and nothing more mapped into a space the OOM killer reaped meanwhile. */
	bool killed = atomic_load(&sp->oom_killed);
	pte = sws__pte_lookup(sp, vaddr);
	if (killed || !pte || *pte != old) {
		sws_spin_unlock(&sp->ptl);
		sws__mm_folio_free(mm, npfn);
		return killed ? SWS_EKILLED : SWS_EAGAIN_INTERNAL;
	}
	n->seed = new_seed(sp, vaddr, f->seed);
	if (sws__mm_rmap_add(mm, n, asid, vaddr)) {
		sws_spin_unlock(&sp->ptl);
		sws__mm_folio_free(mm, npfn);
		return SWS_ENOMEM;
	}
	*pte = mk_pte(npfn, 0, true);
	expect_folio(mm, sp, vaddr, n);
	sws__mm_rmap_del(mm, f, asid, vaddr);
	sws_spin_unlock(&sp->ptl);
	sws__mm_lru_add(mm, npfn, false);
	folio_unlock(n);
	mm_count(mm, cpu, SWS_MM_cow_fault, 1);
	/* The old folio, if nobody maps it and no slot keeps it, goes now. */
	if (!f->mapcount && !folio_test(f, PG_swapcache) && folio_trylock(f)) {
		if (!f->mapcount && !folio_test(f, PG_free) && !folio_test(f, PG_swapcache)) {
			sws__mm_lru_del(mm, pfn);
			sws__mm_folio_free(mm, pfn);
		} else {
			folio_unlock(f);
		}
	}
	return 0;
}

/* do_swap_page(): the PTE holds @e; ptl dropped by the caller. */
static int do_swap_page(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
			uint64_t vaddr, sws_entry_t e, bool write)
{
	uint64_t pfn = 0;
	bool bypassed;
	int rc = swapin(cpu, mm, sp, vaddr, e, &pfn, &bypassed);
	if (rc && rc != SWS_ECORRUPT)
		return rc == SWS_ENOENT ? SWS_EAGAIN_INTERNAL : rc;
	int read_rc = rc;
	struct sws_folio *f = mm_folio(mm, pfn);
	sws_spin_lock(&sp->ptl);
	uint64_t *pte = sws__pte_lookup(sp, vaddr);
	if (!pte || *pte != swp_entry_to_pte(e) || sws__mm_rmap_add(mm, f, asid, vaddr)) {
		/* !pte_same: someone else did it (or no memory for the rmap) */
		bool nomem = pte && *pte == swp_entry_to_pte(e);
		sws_spin_unlock(&sp->ptl);
		if (bypassed) { /* the private folio goes, the pin too */
			sws__mm_lru_del(mm, pfn);
			sws__mm_folio_free(mm, pfn);
			sws_swapin_bypass_done(cpu, e, 1);
		} else {
			folio_unlock(f);
		}
		return nomem ? SWS_ENOMEM : SWS_EAGAIN_INTERNAL;
	}
	sws_swap_put(cpu, e, 1); /* the PTE no longer holds the slot */
	if (bypassed) {
		/* A private folio: the slot (count 0 now) goes with the pin. */
		*pte = mk_pte(pfn, 0, true);
		if (!expect_ok(cpu, mm, pte, f, 0))
			read_rc = SWS_ECORRUPT;
		folio_set(f, PG_young);
		sws_spin_unlock(&sp->ptl);
		sws_swapin_bypass_done(cpu, e, 1);
		folio_unlock(f);
		return read_rc;
	}
	uint32_t count = 1;
	sws_swap_count(cpu, e, &count);
	/* should_try_to_free_swap(): a write, swap more than half full; from swap
	 * table phase II on, a SYNCHRONOUS_IO device too; vswap adds: a page on no
	 * device (zero, zswap, memory) has no slot worth keeping for a swap-out. */
	sws_entry_t t;
	bool on_device = !mm_io_target(cpu, mm, e, 1, false, &t);
	struct sws_device *dev = on_device ? sws__device(mm->sim, sws_swp_type(t)) : NULL;
	bool sync_free = (mm->sim->design_flags & SWS_DESIGN_SYNC_FREE) && dev &&
			 (dev->flags & SWS_SWP_SYNCHRONOUS_IO);
	bool free_swap = !count && (write || sws_swap_full(mm->sim) || !on_device || sync_free);
	/* Writable only when exclusive: no swap PTE left and no other mapping
	 * (a page shared since a fork, swapped in by both, stays read-only: a
	 * write copies it, do_wp_page()). */
	*pte = mk_pte(pfn, 0, !count && folio_mapcount(f) == 1);
	if (!expect_ok(cpu, mm, pte, f, 0))
		read_rc = SWS_ECORRUPT;
	folio_set(f, PG_young);
	if (free_swap && sws_swap_cache_del(cpu, e, 1, pfn, 0) == 0) {
		folio_clear(f, PG_swapcache);
		folio_set(f, PG_dirty); /* the only copy is in memory now */
	}
	sws_spin_unlock(&sp->ptl);
	folio_unlock(f);
	return read_rc;
}

int sws__mm_swapin_pte(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp, uint64_t vaddr,
		       sws_entry_t e)
{
	enum sws_work_ctx wc = sws__work_enter(cpu, SWS_WCTX_swapin);
	int rc = do_swap_page(cpu, mm, asid, sp, vaddr, e, false);
	sws__work_enter(cpu, wc);
	return rc;
}

int sws__mm_swapin_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e, uint64_t *pfnp)
{
	enum sws_work_ctx wc = sws__work_enter(cpu, SWS_WCTX_swapin);
	int rc = swapin_new(cpu, mm, memcg, e, false, pfnp);
	sws__work_enter(cpu, wc);
	return rc;
}

/* handle_mm_fault() and the hit path, for the page at @vaddr. */
static int do_access(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
		     uint64_t vaddr, bool write, uint64_t *t0)
{
	int faulted = 0;
	for (int tries = 0; tries < 1000; tries++) {
		sws_spin_lock(&sp->ptl);
		if (sws_unlikely(atomic_load_explicit(&sp->oom_killed, memory_order_relaxed))) {
			sws_spin_unlock(&sp->ptl);
			mm_count(mm, cpu, faulted ? SWS_MM_oom : SWS_MM_oom_refused, 1);
			return SWS_EKILLED;
		}
		uint64_t *pte = sws__pte_lookup(sp, vaddr);
		uint64_t v = pte ? *pte : 0;
		if (pte_present(v) && (v & PTE_ZEROPAGE) && !write) {
			sws_spin_unlock(&sp->ptl);
			return faulted; /* a read of the shared zero page */
		}
		if (pte_present(v) && !(v & PTE_ZEROPAGE) && (!write || (v & PTE_WRITE))) {
			uint64_t pfn = pte_pfn(v);
			struct sws_folio *f = mm_folio(mm, pfn);
			bool same = expect_ok(cpu, mm, pte, f, pte_sub(v));
			if (write) {
				f->seed = new_seed(sp, vaddr, f->seed); /* a new write version */
				/* a large folio's pages all change with its seed */
				expect_folio(mm, sp, vaddr - (uint64_t)pte_sub(v) * SWS_PAGE_SIZE, f);
				folio_set(f, PG_dirty);
			}
			sws__mm_mark_accessed(mm, pfn);
			sws_spin_unlock(&sp->ptl);
			return same ? faulted : SWS_ECORRUPT;
		}
		if (!faulted) {
			mm_count(mm, cpu, SWS_MM_pgfault, 1);
			faulted = 1;
			*t0 = mm_kernel_enter(mm, cpu); /* the fault enters the kernel; a hit does not */
		}
		int rc;
		if (pte_present(v) && !(v & PTE_ZEROPAGE)) {
			rc = do_wp_page(cpu, mm, asid, sp, vaddr, pte); /* drops the ptl */
		} else if (pte_is_swap(v)) {
			sws_spin_unlock(&sp->ptl);
			enum sws_work_ctx wc = sws__work_enter(cpu, SWS_WCTX_swapin);
			rc = do_swap_page(cpu, mm, asid, sp, vaddr, pte_to_swp_entry(v), write);
			sws__work_enter(cpu, wc);
			if (rc == 0 && write)
				continue; /* mapped; the write itself is the next round */
		} else if (!write && !(mm->cfg.flags & SWS_MM_READ_POPULATES)) {
			/* Read of a never-written page: map the shared zero page. */
			rc = sws__pte_alloc(mm, sp, vaddr, &pte);
			if (!rc) {
				*pte = PTE_PRESENT | PTE_ZEROPAGE;
				mm_count(mm, cpu, SWS_MM_first_touch, 1);
			}
			sws_spin_unlock(&sp->ptl);
			return rc ? rc : 1;
		} else {
			if (!sws__mm_region(sp, vaddr))
				sws_mm_mmap_locked_implicit(mm, sp, vaddr);
			unsigned order = fault_order(sp, sws__mm_region(sp, vaddr), vaddr);
			sws_spin_unlock(&sp->ptl);
			rc = do_anonymous_page(cpu, mm, asid, sp, vaddr, order);
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

int sws_mm_access(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr, bool write)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	if (!cpu || !sp || !sp->alive || addr >> 48)
		return SWS_EINVAL;
	uint64_t vaddr = addr & ~(uint64_t)(SWS_PAGE_SIZE - 1);
	uint32_t *current = &mm->pcpu[sws_cpu_id(cpu)].current;
	uint64_t t0 = UINT64_MAX;
	*current = asid;
	int rc = do_access(cpu, mm, asid, sp, vaddr, write, &t0);
	*current = SWS__MM_NO_ASID;
	if (t0 != UINT64_MAX)
		mm_kernel_exit(mm, cpu, t0);
	return rc;
}
