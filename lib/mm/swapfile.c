/*
 * swapfile.c - the memory model's half of mm/swapfile.c: swapoff(2) of a
 * device that still holds pages (try_to_unuse(), sws_mm_swapoff()) and
 * __try_to_reclaim_swap() of a slot the free path left cache-only.
 *
 * Swapoff, every design but vswap: the device takes no new slots, then every
 * address space's page table is walked (unuse_mm(): swapoff_pte_scan counts
 * the entries looked at) and each swap entry of the device is swapped in and
 * mapped as a fault would (unuse_pte(), swapoff_swapin); the slots left only
 * in the swap cache are dropped from it (find_next_to_unuse() and
 * folio_free_swap()), their folios dirty (the only copy is in memory); then
 * the empty device goes. vswap: page tables hold virtual entries, so nothing
 * walks them. The physical device's allocated slots are found in its bitmap
 * and mapped back to their virtual entries (sws_swap_rmap()); each page is
 * read into the swap cache and the descriptor's backend becomes the folio
 * (vswap_store_folio(): sws_swap_io_release()), dirty, to be written again
 * on reclaim wherever there is room.
 * Callers: the replay (its --swapoff) and library users (swapoff); memory.c
 * (the reclaim of cache-only slots).
 */
#include <string.h>

#include "mm_internal.h"

#define UNUSE_ROUNDS 16

struct unuse_ctx {
	unsigned type;
	uint64_t scanned;
	uint64_t *vaddrs;
	sws_entry_t *entries;
	size_t n, cap;
	struct sws_mem *mem;
	int rc;
};

/* The whole space locked: remember the swap PTEs of the device (swapping in needs the ptl dropped). */
static void collect_pte(void *ctx, uint64_t vaddr, uint64_t *pte)
{
	struct unuse_ctx *u = ctx;
	u->scanned++;
	if (!pte_is_swap(*pte) || sws_swp_type(pte_to_swp_entry(*pte)) != u->type || u->rc)
		return;
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 256;
		uint64_t *v = sws__mem_alloc(u->mem, SWS_MEM_mm, sizeof(*v) * cap, 0);
		sws_entry_t *e = sws__mem_alloc(u->mem, SWS_MEM_mm, sizeof(*e) * cap, 0);
		if (!v || !e) {
			sws__mem_free(u->mem, SWS_MEM_mm, v, sizeof(*v) * cap);
			sws__mem_free(u->mem, SWS_MEM_mm, e, sizeof(*e) * cap);
			u->rc = SWS_ENOMEM;
			return;
		}
		if (u->n) {
			memcpy(v, u->vaddrs, sizeof(*v) * u->n);
			memcpy(e, u->entries, sizeof(*e) * u->n);
		}
		sws__mem_free(u->mem, SWS_MEM_mm, u->vaddrs, sizeof(*v) * u->cap);
		sws__mem_free(u->mem, SWS_MEM_mm, u->entries, sizeof(*e) * u->cap);
		u->vaddrs = v;
		u->entries = e;
		u->cap = cap;
	}
	u->vaddrs[u->n] = vaddr;
	u->entries[u->n++] = pte_to_swp_entry(*pte);
}

/*
 * folio_free_swap() of the folio cached for @e, as unuse_pte_range() calls
 * it after each PTE it maps and find_next_to_unuse() for what is left: when
 * none of the folio's slots is referenced any more, the folio leaves the
 * swap cache, dirty (the only copy is in memory now), and the slots go.
 * Without it a swapped-in page stays a clean swap-cache folio that reclaim
 * may drop again, putting its PTEs back on the device being emptied.
 */
static void unuse_free_swap(struct sws_cpu *cpu, struct sws_mm *mm, sws_entry_t e)
{
	uint64_t pfn = sws_swap_cache_lookup(cpu, e);
	if (!pfn)
		return;
	struct sws_folio *f = mm_folio(mm, pfn);
	folio_lock(f);
	if (folio_test(f, PG_swapcache) && f->swap <= e && e < f->swap + (1u << f->order)) {
		unsigned nr = 1u << f->order;
		uint32_t count = 0;
		bool unused = true;
		for (unsigned i = 0; i < nr && unused; i++)
			unused = sws_swap_count(cpu, f->swap + i, &count) == 0 && count == 0;
		if (unused && sws_swap_cache_del(cpu, f->swap, nr, pfn, 0) == 0) {
			folio_clear(f, PG_swapcache);
			folio_set(f, PG_dirty);
		}
	}
	folio_unlock(f);
}

/* unuse_mm() of one address space. */
static int unuse_space(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct unuse_ctx *u)
{
	struct sws_space *sp = sws__mm_space(mm, asid);
	if (!sp || !sp->alive)
		return 0;
	u->n = 0;
	sws__mm_space_lock(mm, sp);
	sws___pte_walk(sp, 0, 1ull << 48, collect_pte, u);
	sws__mm_space_unlock(sp);
	for (size_t i = 0; i < u->n && !u->rc; i++) {
		int rc = sws__mm_swapin_pte(cpu, mm, asid, sp, u->vaddrs[i], u->entries[i]);
		if (rc == 0 || rc == SWS_ECORRUPT) {
			mm_count(mm, cpu, SWS_MM_swapoff_swapin, 1);
			unuse_free_swap(cpu, mm, u->entries[i]);
		} else if (rc != SWS_EAGAIN_INTERNAL) { /* the PTE changed meanwhile: nothing to do */
			u->rc = rc;
		}
	}
	return u->rc;
}

/* Drop the device's slots left only in the swap cache (count 0): their
 * folios keep the pages, dirty. Slots still referenced (reclaim unmapped a
 * page of the device meanwhile) wait for the next round. */
static void drop_cache_only(struct sws_cpu *cpu, struct sws_mm *mm, unsigned type, uint64_t max)
{
	for (uint64_t off = 1; off < max; off++) {
		struct sws_slot_state st;
		sws_entry_t e = sws_swp_entry(type, off);
		if (sws_swap_slot_state(mm->sim, e, &st) || !st.allocated || st.bad)
			continue;
		if (!st.count && st.cached)
			unuse_free_swap(cpu, mm, e);
	}
}

/* vswap: the physical device's pages into the swap cache, the folio their backend. */
static int unuse_physical(struct sws_cpu *cpu, struct sws_mm *mm, unsigned type, uint64_t max)
{
	for (uint64_t off = 1; off < max; off++) {
		sws_entry_t v = sws_swap_rmap(cpu, sws_swp_entry(type, off));
		if (!v)
			continue;
		struct sws_slot_state st;
		if (sws_swap_slot_state(mm->sim, v, &st) || !st.allocated)
			continue;
		uint64_t pfn = sws_swap_cache_lookup(cpu, v);
		int rc = 0;
		if (pfn) {
			folio_lock(mm_folio(mm, pfn));
		} else {
			rc = sws__mm_swapin_folio(cpu, mm, st.memcg, v, &pfn); /* locked, on the LRU */
			if (rc == SWS_EEXIST || rc == SWS_ENOENT)
				continue; /* someone else has it, or it went meanwhile */
			if (rc && rc != SWS_ECORRUPT)
				return rc;
			mm_count(mm, cpu, SWS_MM_swapoff_swapin, 1);
		}
		struct sws_folio *f = mm_folio(mm, pfn);
		rc = sws_swap_io_release(cpu, v, 1);
		if (!rc)
			folio_set(f, PG_dirty); /* the only copy is in memory now */
		folio_unlock(f);
		if (rc && rc != SWS_ENOENT)
			return rc;
	}
	return 0;
}

int sws_mm_swapoff(struct sws_cpu *cpu, struct sws_mm *mm, int type)
{
	if (!cpu || !mm)
		return SWS_EINVAL;
	struct sws_sim *sim = mm->sim;
	struct sws_device *dev = type >= 0 && type < SWS_MAX_SWAPFILES ? sws__get_swap_device(sim, (unsigned)type) : NULL;
	if (!dev)
		return SWS_ENODEV;
	if (sws__device_flags(dev) & (SWS_SWP_XSWAP | SWS_SWP_VIRTUAL))
		return SWS_EINVAL;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	sws__device_swapoff_begin(dev); /* its room leaves nr_swap_pages: reclaim has only the others' */
	int rc = 0;
	/* try_to_unuse() goes round until the device is empty: reclaim may unmap
	 * a page of it (a folio still cached on it) while the walk runs. */
	for (unsigned round = 0; !rc && round < UNUSE_ROUNDS && sws__device_inuse_pages(dev);
	     round++) {
		if (sws__design_virtual(sim)) {
			rc = unuse_physical(cpu, mm, (unsigned)type, sws__device_max(dev));
			continue;
		}
		struct unuse_ctx u = {.type = (unsigned)type, .mem = sws__sim_mem(sim)};
		uint32_t n = mm->nr_spaces;
		for (uint32_t a = 0; a < n && !u.rc; a++)
			unuse_space(cpu, mm, a, &u);
		mm_count(mm, cpu, SWS_MM_swapoff_pte_scan, u.scanned);
		sws__mem_free(u.mem, SWS_MEM_mm, u.vaddrs, sizeof(*u.vaddrs) * u.cap);
		sws__mem_free(u.mem, SWS_MEM_mm, u.entries, sizeof(*u.entries) * u.cap);
		rc = u.rc;
		if (!rc)
			drop_cache_only(cpu, mm, (unsigned)type, sws__device_max(dev));
	}
	mm_kernel_exit(mm, cpu, t0);
	if (!rc)
		rc = sws_swapoff(sim, type);
	if (rc)
		sws__device_swapoff_cancel(dev); /* the device stays, usable */
	return rc;
}

/*
 * __try_to_reclaim_swap(TTRS_UNMAPPED | TTRS_FULL) of a slot the put left
 * cache-only (trylock only: the ptl is held). When none of the folio's slots
 * is referenced any more, it leaves the swap cache if nothing maps it (and is
 * freed) or if swap is more than half full (it stays mapped, dirty: the only
 * copy). @return the slots from @e it covered (the caller skips them).
 */
unsigned sws__mm_try_to_reclaim_swap(struct sws_cpu *cpu, struct sws_mm *mm, sws_entry_t e)
{
	uint64_t pfn = sws_swap_cache_lookup(cpu, e);
	if (!pfn)
		return 1;
	struct sws_folio *f = mm_folio(mm, pfn);
	if (!folio_trylock(f))
		return 1;
	unsigned nr = 1u << f->order, covered = 1;
	bool ours = folio_test(f, PG_swapcache) && f->swap <= e && e < f->swap + nr;
	if (ours)
		covered = (unsigned)(f->swap + nr - e);
	bool unmapped = !f->mapcount && folio_test(f, PG_lru);
	bool unused = ours && (unmapped || (f->mapcount && sws_swap_full(mm->sim)));
	for (unsigned i = 0; i < nr && unused; i++) {
		uint32_t count = 1;
		unused = sws_swap_count(cpu, f->swap + i, &count) == 0 && !count;
	}
	if (unused && sws_swap_cache_del(cpu, f->swap, nr, pfn, 0) == 0) {
		folio_clear(f, PG_swapcache);
		if (unmapped) {
			sws__mm_lru_del(mm, pfn);
			sws__mm_folio_free(cpu, mm, pfn);
			return covered;
		}
		folio_set(f, PG_dirty);
	}
	folio_unlock(f);
	return covered;
}
