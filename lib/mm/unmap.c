/*
 * unmap.c - the free path (zap_pte_range: munmap, exit, MADV_DONTNEED), fork
 * (copy_pte_range), MADV_PAGEOUT, and tearing the model down.
 *
 * Zapping frees present pages (a folio goes when its last mapping does, unless
 * a slot still needs it in the swap cache) and puts swap entries in runs that
 * stay inside one cluster (swap_put_entries_direct: one cluster lock per run).
 * Only the slots a put left cache-only are looked up in the swap cache: the
 * folio is dropped at once when unmapped, or leaves the swap cache when swap
 * is more than half full (__try_to_reclaim_swap(TTRS_UNMAPPED | TTRS_FULL),
 * trylock only: the ptl is held). Each of these
 * calls is a kernel entry (sys time, struct sws_mm_cpu_time) and counts its
 * work in the free context: users compare free latency across designs.
 */
#include <string.h>

#include "mm_internal.h"

int sws__mm_space_new(struct sws_mm *mm, uint16_t memcg, uint32_t *asid, struct sws_space **out);
int sws__mm_region_insert(struct sws_mm *mm, struct sws_space *sp, uint64_t start, uint64_t end,
			  unsigned order);

/*
 * __try_to_reclaim_swap(TTRS_UNMAPPED | TTRS_FULL) of a slot the put left
 * cache-only (trylock only: the ptl is held). When none of the folio's slots
 * is referenced any more, it leaves the swap cache if nothing maps it (and is
 * freed) or if swap is more than half full (it stays mapped, dirty: the only
 * copy). @return the slots from @e it covered (the caller skips them).
 */
static unsigned try_to_reclaim_swap(struct sws_cpu *cpu, struct sws_mm *mm, sws_entry_t e)
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
			sws__mm_folio_free(mm, pfn);
			return covered;
		}
		folio_set(f, PG_dirty);
	}
	folio_unlock(f);
	return covered;
}

struct zap {
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	uint32_t asid;
	sws_entry_t run; /* a run of swap entries inside one cluster */
	unsigned nr;
};

/* swap_put_entries_direct(): put the run, then try to reclaim only the slots
 * it left cache-only (a swap-cache lookup each; the others need none). */
static void flush_run(struct zap *z)
{
	if (!z->nr)
		return;
	uint64_t only_cache[SWS_CLUSTER_SLOTS / 64];
	if (sws_swap_put_entries_direct(z->cpu, z->run, z->nr, only_cache))
		memset(only_cache, 0, sizeof(only_cache));
	mm_count(z->mm, z->cpu, SWS_MM_free_slots_batched, z->nr);
	for (unsigned i = 0; i < z->nr;)
		i += sws_bit_test(only_cache, i) ? try_to_reclaim_swap(z->cpu, z->mm, z->run + i) : 1;
	z->nr = 0;
}

/* A mapping gone: free the folio when nothing else holds it. */
static void drop_folio_mapping(struct zap *z, uint64_t pfn, uint64_t vaddr)
{
	struct sws_mm *mm = z->mm;
	struct sws_folio *f = mm_folio(mm, pfn);
	sws__mm_rmap_del(mm, f, z->asid, vaddr);
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
	sws__mm_lru_del(mm, pfn);
	sws__mm_folio_free(mm, pfn);
}

/* A swap PTE zapped: its entry joins the run (a new run when it does not extend it). */
static void zap_swap_pte(struct zap *z, uint64_t v)
{
	sws_entry_t e = pte_to_swp_entry(v);
	bool extends = z->nr && e == z->run + z->nr &&
		       sws_swp_offset(e) / SWS_CLUSTER_SLOTS == sws_swp_offset(z->run) / SWS_CLUSTER_SLOTS;
	if (!extends) {
		flush_run(z);
		z->run = e;
	}
	z->nr++;
}

static void zap_pte(void *ctx, uint64_t vaddr, uint64_t *pte)
{
	struct zap *z = ctx;
	uint64_t v = *pte;
	*pte = 0;
	if (pte_is_swap(v)) {
		zap_swap_pte(z, v);
		return;
	}
	if ((v & PTE_ZEROPAGE) || pte_sub(v) != 0)
		return; /* a large folio's mapping goes with its first page */
	drop_folio_mapping(z, pte_pfn(v), vaddr);
}

void sws__mm_zap_range(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
		       uint64_t start, uint64_t end)
{
	struct zap z = {cpu, mm, asid, 0, 0};
	sws__pte_walk(sp, start, end, zap_pte, &z);
	flush_run(&z);
}

/* Split every large folio that straddles @start or @end, so zaps take whole folios. */
static void split_edges(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t start, uint64_t end)
{
	uint64_t edges[2] = {start, end};
	for (int k = 0; k < 2; k++) {
		for (int tries = 0; tries < 4; tries++) {
			sws_spin_lock(&sp->ptl);
			uint64_t *pte = sws__pte_lookup(sp, edges[k]);
			uint64_t v = pte ? *pte : 0;
			sws_spin_unlock(&sp->ptl);
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

static int range_ok(struct sws_space *sp, uint64_t addr, uint64_t len)
{
	return sp && sp->alive && len && !((addr | len) & (SWS_PAGE_SIZE - 1)) && addr + len > addr &&
	       !((addr + len - 1) >> 48);
}

int sws_mm_munmap(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr, uint64_t len)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	if (!cpu || !range_ok(sp, addr, len))
		return SWS_EINVAL;
	uint64_t t0 = mm_kernel_enter(mm, cpu), end = addr + len;
	enum sws_work_ctx wc = sws__work_enter(cpu, SWS_WCTX_free);
	split_edges(cpu, mm, sp, addr, end);
	sws_spin_lock(&sp->ptl);
	sws__mm_zap_range(cpu, mm, asid, sp, addr, end);
	/* Cut the regions. */
	for (uint32_t i = 0; i < sp->nr_regions; i++) {
		struct sws_region *r = &sp->regions[i];
		if (r->end <= addr || r->start >= end)
			continue;
		if (r->start >= addr && r->end <= end) {
			memmove(r, r + 1, sizeof(*r) * (sp->nr_regions - i - 1));
			sp->nr_regions--;
			i--;
		} else if (r->start < addr && r->end > end) {
			struct sws_region tail = *r;
			r->end = addr;
			tail.start = end;
			sws__mm_region_insert(mm, sp, tail.start, tail.end, tail.order);
		} else if (r->start < addr) {
			r->end = addr;
		} else {
			r->start = end;
		}
	}
	sws_spin_unlock(&sp->ptl);
	sws__work_enter(cpu, wc);
	mm_kernel_exit(mm, cpu, t0);
	return 0;
}

int sws_mm_exit(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	if (!cpu || !sp || !sp->alive)
		return SWS_EINVAL;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	enum sws_work_ctx wc = sws__work_enter(cpu, SWS_WCTX_free);
	sws_spin_lock(&sp->ptl);
	sp->alive = false;
	sws__mm_zap_range(cpu, mm, asid, sp, 0, 1ull << 48);
	sws__pgtable_free(mm, sp);
	sws__mem_free(&mm->sim->mem, SWS_MEM_mm, sp->regions, sizeof(*sp->regions) * sp->cap_regions);
	sp->regions = NULL;
	sp->nr_regions = sp->cap_regions = 0;
	sws_spin_unlock(&sp->ptl);
	sws__work_enter(cpu, wc);
	mm_kernel_exit(mm, cpu, t0);
	return 0;
}

/* MADV_PAGEOUT: reclaim the range's exclusively mapped folios now. */
static int madv_pageout(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t addr,
			uint64_t end)
{
	for (uint64_t va = addr; va < end; va += SWS_PAGE_SIZE) {
		sws_spin_lock(&sp->ptl);
		uint64_t *pte = sws__pte_lookup(sp, va);
		uint64_t v = pte ? *pte : 0;
		sws_spin_unlock(&sp->ptl);
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
		if (rc == SWS_EBUSY && folio_test(f, PG_free)) {
			va -= SWS_PAGE_SIZE; /* split: take its pages one by one */
			continue;
		}
		if (rc) {
			sws__mm_lru_add(mm, pfn, false);
			folio_unlock(f);
		}
	}
	return 0;
}

/*
 * madvise_free_pte_range(), ptl held: a swap entry is put as a zap puts it
 * (free_swap_and_cache_nr()); a page mapped only here becomes lazily freed
 * (folio_mark_lazyfree(): clean, not young, off the swap cache when no swap
 * PTE needs it, at the young end of the inactive list; the kernel's is the
 * inactive file list). Shared pages, and folios someone else holds, stay.
 */
struct lazyfree {
	struct zap z;
	uint64_t marked;
};

static void lazyfree_pte(void *ctx, uint64_t vaddr, uint64_t *pte)
{
	struct lazyfree *l = ctx;
	struct sws_mm *mm = l->z.mm;
	uint64_t v = *pte;
	(void)vaddr;
	if (pte_is_swap(v)) {
		*pte = 0;
		zap_swap_pte(&l->z, v);
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
			ok = sws_swap_count(l->z.cpu, f->swap + i, &count) == 0 && !count;
		}
		ok = ok && sws_swap_cache_del(l->z.cpu, f->swap, nr, pfn, 0) == 0;
		if (ok)
			folio_clear(f, PG_swapcache);
	}
	if (ok) {
		folio_clear(f, PG_dirty | PG_young | PG_referenced);
		folio_set(f, PG_lazyfree);
		sws_spin_lock(&mm->lru_lock);
		sws__mm_lru_move_locked(mm, pfn, LRU_INACTIVE);
		sws_spin_unlock(&mm->lru_lock);
		l->marked += nr;
	}
	folio_unlock(f);
}

static void madv_free(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp, uint64_t addr,
		      uint64_t end)
{
	struct lazyfree l = {.z = {cpu, mm, asid, 0, 0}};
	split_edges(cpu, mm, sp, addr, end);
	sws_spin_lock(&sp->ptl);
	sws__pte_walk(sp, addr, end, lazyfree_pte, &l);
	flush_run(&l.z);
	sws_spin_unlock(&sp->ptl);
	mm_count(mm, cpu, SWS_MM_pglazyfree, l.marked);
}

int sws_mm_madvise(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr,
		   uint64_t len, enum sws_madvise advice)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	if (!cpu || !range_ok(sp, addr, len))
		return SWS_EINVAL;
	if (advice != SWS_MADV_PAGEOUT && advice != SWS_MADV_DONTNEED && advice != SWS_MADV_FREE)
		return SWS_EINVAL;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	if (advice == SWS_MADV_PAGEOUT) {
		madv_pageout(cpu, mm, sp, addr, addr + len);
	} else if (advice == SWS_MADV_FREE) {
		enum sws_work_ctx wc = sws__work_enter(cpu, SWS_WCTX_free);
		madv_free(cpu, mm, asid, sp, addr, addr + len);
		sws__work_enter(cpu, wc);
	} else {
		enum sws_work_ctx wc = sws__work_enter(cpu, SWS_WCTX_free);
		split_edges(cpu, mm, sp, addr, addr + len);
		sws_spin_lock(&sp->ptl);
		sws__mm_zap_range(cpu, mm, asid, sp, addr, addr + len);
		sws_spin_unlock(&sp->ptl);
		sws__work_enter(cpu, wc);
	}
	mm_kernel_exit(mm, cpu, t0);
	return 0;
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
	if (c->rc || (c->rc = sws__pte_alloc(c->mm, c->child, vaddr, &cpte)) != 0)
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

/* dup_mmap(): the child's regions and page tables (copy_page_range). */
static int dup_mmap(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint32_t *child)
{
	struct sws_space *cp;
	int rc = sws__mm_space_new(mm, sp->memcg, child, &cp);
	if (rc)
		return rc;
	sws_spin_lock(&sp->ptl);
	for (uint32_t i = 0; i < sp->nr_regions && !rc; i++)
		rc = sws__mm_region_insert(mm, cp, sp->regions[i].start, sp->regions[i].end,
					   sp->regions[i].order);
	struct copy c = {cpu, mm, cp, *child, rc};
	if (!rc)
		sws__pte_walk(sp, 0, 1ull << 48, copy_pte, &c);
	sws_spin_unlock(&sp->ptl);
	if (c.rc) { /* undo: the child goes as a whole */
		sws_mm_exit(cpu, mm, *child);
		return c.rc;
	}
	return 0;
}

int sws_mm_fork(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t parent, uint32_t *child)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, parent) : NULL;
	if (!cpu || !sp || !sp->alive || !child)
		return SWS_EINVAL;
	if (atomic_load(&sp->oom_killed))
		return SWS_EKILLED; /* a dying task does not fork */
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	int rc = dup_mmap(cpu, mm, sp, child);
	mm_kernel_exit(mm, cpu, t0);
	return rc;
}

/* ---- teardown --------------------------------------------------------------------------- */

void sws_mm_destroy(struct sws_mm *mm)
{
	if (!mm)
		return;
	struct sws_mem *mem = &mm->sim->mem;
	struct sws_cpu *cpu = NULL;
	if (mm->spare_cpu && sws__cpu_attach_mem(mm->sim, mm->spare_cpu, &cpu) != 0)
		cpu = NULL; /* every CPU slot taken (the memory went with the refusal) */
	for (uint32_t a = 0; cpu && a < mm->nr_spaces; a++)
		if (mm->spaces[a]->alive)
			sws_mm_exit(cpu, mm, a);
	/* Folios still in the swap cache (read ahead, or kept clean) go too. */
	for (uint32_t p = 1; cpu && mm->folios && p < mm->nr_pfn; p++) {
		struct sws_folio *f = &mm->folios[p];
		if (folio_test(f, PG_free))
			continue;
		if (folio_test(f, PG_swapcache))
			sws_swap_cache_del(cpu, f->swap, 1u << f->order, p, 0);
		sws__mm_lru_del(mm, p);
		sws__mm_folio_free(mm, p);
	}
	sws_cpu_detach(cpu);
	sws__mm_zswap_destroy(mm);
	for (uint32_t a = 0; a < mm->nr_spaces; a++)
		sws__mem_free(mem, SWS_MEM_mm, mm->spaces[a], sizeof(struct sws_space));
	sws__mem_free(mem, SWS_MEM_mm, mm->spaces, sizeof(*mm->spaces) * mm->cap_spaces);
	for (uint32_t p = 0; mm->folios && p < mm->nr_pfn; p++)
		sws__mem_free(mem, SWS_MEM_mm, mm->folios[p].rmaps,
			      sizeof(struct sws_rmap) * mm->folios[p].cap_rmap);
	sws__mem_free(mem, SWS_MEM_mm, mm->folios, sizeof(*mm->folios) * mm->nr_pfn);
	sws__mem_free(mem, SWS_MEM_mm, mm->free_pfns, sizeof(*mm->free_pfns) * mm->nr_pfn);
	sws__mem_free(mem, SWS_MEM_mm, mm->memcgs, sizeof(*mm->memcgs) * mm->cap_memcgs);
	sws__mem_free(mem, SWS_MEM_mm, mm->pcpu, sizeof(*mm->pcpu) * mm->sim->max_cpus);
	struct sws_sim *sim = mm->sim;
	sws_spin_lock(&sim->swap_lock); /* no device comes or goes meanwhile */
	if (sim->device_ctx == mm) {
		sim->device_added = NULL;
		sim->device_removed = NULL;
		sim->device_ctx = NULL;
	}
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *d = sws__device(sim, t);
		if (d && mm->slot_seed[t])
			sws__mm_device_removed(mm, d);
	}
	sws_spin_unlock(&sim->swap_lock);
	sws__mem_free(mem, SWS_MEM_mm, mm, sizeof(*mm));
}
