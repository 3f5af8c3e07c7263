/*
 * rmap.c - reverse maps (mm/rmap.c): which address spaces map a folio, and
 * try_to_unmap(): every mapping of a folio becomes swap PTEs of its slots (a
 * swap count each), or, for a lazily freed folio, goes (PTEs none).
 * Callers: memory.c (add, delete), vmscan.c and huge_memory.c (unmap, walk).
 */
#include <string.h>

#include "mm_internal.h"

/* ---- reverse maps (under the folio's rmap lock, taken here) ------------------------- */

int sws__mm_rmap_add(struct sws_mm *mm, struct sws_folio *f, uint32_t asid, uint64_t vaddr)
{
	sws_spinlock_t *l = folio_rmap_lock(mm, f);
	mm_cost_here(SWS_COST_rmap, 1);
	mm_lock(mm, l, SWS_MM_lock_rmap_contended);
	if (f->nr_rmap == 0) {
		f->rmap1 = (struct sws_rmap){asid, vaddr};
	} else {
		uint32_t k = f->nr_rmap - 1;
		if (k == f->cap_rmap) {
			uint32_t cap = f->cap_rmap ? f->cap_rmap * 2 : 4;
			struct sws_rmap *n = sws__mem_alloc(sws__sim_mem(mm->sim), SWS_MEM_mm, sizeof(*n) * cap, 0);
			if (!n) {
				sws_spin_unlock(l);
				return SWS_ENOMEM;
			}
			if (f->rmaps)
				memcpy(n, f->rmaps, sizeof(*n) * f->cap_rmap);
			sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, f->rmaps, sizeof(*n) * f->cap_rmap);
			f->rmaps = n;
			f->cap_rmap = cap;
		}
		f->rmaps[k] = (struct sws_rmap){asid, vaddr};
	}
	f->nr_rmap++;
	atomic_fetch_add(&f->mapcount, 1);
	sws_spin_unlock(l);
	return 0;
}

bool sws__mm_rmap_del(struct sws_mm *mm, struct sws_folio *f, uint32_t asid, uint64_t vaddr, struct sws_rmap *next)
{
	sws_spinlock_t *l = folio_rmap_lock(mm, f);
	bool found = false;
	mm_cost_here(SWS_COST_rmap, 1);
	mm_lock(mm, l, SWS_MM_lock_rmap_contended);
	for (uint32_t i = 0; i < f->nr_rmap && !found; i++) {
		struct sws_rmap *r = i ? &f->rmaps[i - 1] : &f->rmap1;
		if (r->asid != asid || r->vaddr != vaddr)
			continue;
		struct sws_rmap *last = f->nr_rmap > 1 ? &f->rmaps[f->nr_rmap - 2] : &f->rmap1;
		*r = *last;
		f->nr_rmap--;
		found = true;
	}
	bool any = f->nr_rmap != 0;
	if (any && next)
		*next = f->rmap1;
	/* Last: a mapcount of 0 lets another CPU free the folio (it reads no
	 * rmap field after that). */
	if (found)
		atomic_fetch_sub(&f->mapcount, 1);
	sws_spin_unlock(l);
	return any;
}

/* ---- unmap ------------------------------------------------------------------------ */

/* The first mapping of @f left to undo (its rmap list is read under its lock). */
bool sws__mm_first_rmap(struct sws_mm *mm, struct sws_folio *f, struct sws_rmap *out)
{
	sws_spinlock_t *l = folio_rmap_lock(mm, f);
	mm_lock(mm, l, SWS_MM_lock_rmap_contended);
	bool any = f->nr_rmap != 0;
	if (any)
		*out = f->rmap1;
	sws_spin_unlock(l);
	return any;
}

/* try_to_unmap(): every mapping of locked @pfn becomes swap PTEs of @entry. */
bool sws__mm_try_to_unmap(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn, sws_entry_t entry)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_FOLIO_LOCKED(f);
	const unsigned nr = 1u << f->order;
	struct sws_rmap r;
	bool more = sws__mm_first_rmap(mm, f, &r);
	while (more) {
		struct sws_space *sp = mm_space(mm, cpu, r.asid);
		sws_spinlock_t *ptl = pte_lockptr(sp, r.vaddr); /* the folio lies in one PTE table */
		mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
		bool ok = true;
		uint64_t *pte0 = sws___pte_lookup(sp, r.vaddr), *pte = pte0;
		for (unsigned i = 0; i < nr && ok; i++) {
			if (i)
				pte = __pte_next(sp, pte, r.vaddr + (uint64_t)i * SWS_PAGE_SIZE);
			ok = pte && pte_present(*pte) && pte_pfn(*pte) == pfn && pte_sub(*pte) == i;
		}
		if (ok && sws_swap_dup(cpu, entry, nr) == 0) {
			if (sws__cpu_vcpu(cpu)) /* the flush is batched (TTU_BATCH_FLUSH) */
				sws__mm_tlb_pending(cpu, mm, sp, r.asid);
			pte = pte0;
			for (unsigned i = 0; i < nr; i++) {
				if (i)
					pte = __pte_next(sp, pte, r.vaddr + (uint64_t)i * SWS_PAGE_SIZE);
				/* No PTE dirty bit to move: every write the trace
				 * records set PG_dirty already (a writable PTE is not
				 * a dirty one: a read fault maps an exclusive page
				 * writable and clean, do_swap_page()). */
				*pte = swp_entry_to_pte(entry + i);
			}
		} else if (ok) {
			sws_spin_unlock(ptl);
			return false; /* no swap count to give (ENOMEM / overflow): keep it */
		}
		/* A stale rmap (the PTEs changed under us) is dropped as well. */
		more = sws__mm_rmap_del(mm, f, r.asid, r.vaddr, &r);
		sws_spin_unlock(ptl);
	}
	return true;
}

/*
 * The TLB flush of reclaim's unmaps (the modelled clock): try_to_unmap()
 * with TTU_BATCH_FLUSH notes every CPU that runs the space (mm_cpumask:
 * the CPUs whose last task ran it), and try_to_unmap_flush() flushes them
 * once per batch, before the batch is freed: a local flush, and an IPI to
 * each other CPU.
 */
void sws__mm_tlb_pending(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint32_t asid)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	sws_bit_set(p->tlb_pending, sws__cpu_id(cpu));
	/* the CPUs that ran @sp and have not run another space since */
	for (uint64_t w = atomic_load_explicit(&sp->cpumask, memory_order_relaxed); w; w &= w - 1) {
		unsigned c = (unsigned)__builtin_ctzll(w);
		if (mm->pcpu[c].loaded == asid)
			sws_bit_set(p->tlb_pending, c);
	}
	for (unsigned c = 64; c < mm->nr_cpus && c < 256; c++)
		if (mm->pcpu[c].loaded == asid)
			sws_bit_set(p->tlb_pending, c);
}

void sws__mm_tlb_flush_pending(struct sws_cpu *cpu, struct sws_mm *mm)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	unsigned self = sws__cpu_id(cpu), others = 0;
	if (!sws_bit_test(p->tlb_pending, self))
		return; /* nothing unmapped since the last flush */
	/* the words that can hold a CPU's bit (sws__mm_tlb_pending() notes at most 256) */
	unsigned words = ((mm->nr_cpus < 256 ? mm->nr_cpus : 256) + 63) / 64;
	for (unsigned i = 0; i < words; i++) {
		/* a bit at a time: a batch notes few CPUs (no popcnt instruction in
		 * the baseline x86-64, and the library call costs more) */
		for (uint64_t w = p->tlb_pending[i]; w; w &= w - 1)
			others++;
		p->tlb_pending[i] = 0;
	}
	mm_cost(cpu, SWS_COST_tlb_flush, 1);
	mm_cost(cpu, SWS_COST_tlb_shootdown, others - 1);
}

/* try_to_unmap() of a lazily freed folio (locked): every mapping goes, its PTEs
 * none (the next access finds the page never touched). */
void sws__mm_try_to_unmap_discard(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_FOLIO_LOCKED(f);
	const unsigned nr = 1u << f->order;
	struct sws_rmap r;
	while (sws__mm_first_rmap(mm, f, &r)) {
		struct sws_space *sp = sws__mm_space(mm, r.asid);
		sws_spinlock_t *ptl = pte_lockptr(sp, r.vaddr);
		mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
		for (unsigned i = 0; i < nr; i++) {
			uint64_t *pte = sws___pte_lookup(sp, r.vaddr + (uint64_t)i * SWS_PAGE_SIZE);
			if (pte && pte_present(*pte) && pte_pfn(*pte) == pfn)
				*pte = 0;
		}
		sws__mm_rmap_del(mm, f, r.asid, r.vaddr, NULL);
		sws_spin_unlock(ptl);
	}
}
