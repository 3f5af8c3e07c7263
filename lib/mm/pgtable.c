/*
 * pgtable.c - page tables of the simulated address spaces: a 4-level radix of
 * 512-entry tables over 48-bit virtual addresses, like x86-64's (PGD, PUD, PMD,
 * PTE). Tables are allocated on first use and freed when the space goes; in
 * verify mode a leaf table carries each PTE's expected content seed after its
 * 512 PTEs (pte_expected()). A lookup (sws___pte_lookup(), inline in
 * mm_internal.h: every access walks it) or a table's allocation holds the PTE
 * lock of the address (pte_lockptr()); as two tables' locks differ, a slot of
 * an upper table is filled by compare-and-swap and read with acquire. Walks
 * and freeing hold the whole space (every PTE lock): tables are freed only
 * when the space goes, so a lookup under its lock never sees a freed one.
 */
#include "mm_internal.h"

#define LEVEL_BITS 9 /* pt_index()'s */
#define TABLE_BYTES (512 * sizeof(void *))

/* A leaf table in verify mode holds the expected seeds too. */
static size_t table_bytes(const struct sws_mm *mm, int level)
{
	return !level && (mm->cfg.flags & SWS_MM_VERIFY) ? 2 * TABLE_BYTES : TABLE_BYTES;
}

typedef _Atomic(void *) slot_t;

int sws___pte_alloc(struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr, uint64_t **ptep)
{
	SWS_ASSERT_HELD(pte_lockptr(sp, vaddr));
	if (vaddr >> 48)
		return SWS_EINVAL;
	slot_t *slot = &sp->pgd;
	for (int level = 3;; level--) {
		void *t = atomic_load_explicit(slot, memory_order_acquire);
		if (!t) {
			void *n = sws__mem_zalloc(sws__sim_mem(mm->sim), SWS_MEM_pgtable, table_bytes(mm, level), 4096);
			if (!n)
				return SWS_ENOMEM;
			if (atomic_compare_exchange_strong_explicit(slot, &t, n, memory_order_acq_rel,
								    memory_order_acquire)) {
				t = n;
				atomic_fetch_add_explicit(&sp->nr_tables, 1, memory_order_relaxed);
			} else { /* another CPU's table is there (t): ours goes */
				sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_pgtable, n, table_bytes(mm, level));
			}
		}
		if (level == 0) {
			*ptep = &((uint64_t *)t)[pt_index(vaddr, 0)];
			return 0;
		}
		slot = &((slot_t *)t)[pt_index(vaddr, level)];
	}
}

static void walk(void *t, int level, uint64_t base, uint64_t start, uint64_t end,
		 void (*fn)(void *, uint64_t, uint64_t *), void *ctx)
{
	uint64_t span = 1ull << (12 + LEVEL_BITS * level);
	for (unsigned i = 0; i < 512; i++) {
		uint64_t lo = base + i * span, hi = lo + span;
		if (hi <= start || lo >= end)
			continue;
		if (level == 0) {
			uint64_t *pte = &((uint64_t *)t)[i];
			if (*pte)
				fn(ctx, lo, pte);
			continue;
		}
		void *next = atomic_load_explicit(&((slot_t *)t)[i], memory_order_relaxed);
		if (next)
			walk(next, level - 1, lo, start, end, fn, ctx);
	}
}

void sws___pte_walk(struct sws_space *sp, uint64_t start, uint64_t end,
		    void (*fn)(void *ctx, uint64_t vaddr, uint64_t *pte), void *ctx)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	SWS_ASSERT_HELD(pte_lockptr(sp, start));
	void *pgd = atomic_load_explicit(&sp->pgd, memory_order_relaxed);
	if (pgd)
		walk(pgd, 3, 0, start, end, fn, ctx);
}

static void free_level(struct sws_mm *mm, void *t, int level)
{
	if (!t)
		return;
	if (level > 0)
		for (unsigned i = 0; i < 512; i++)
			free_level(mm, atomic_load_explicit(&((slot_t *)t)[i], memory_order_relaxed), level - 1);
	sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_pgtable, t, table_bytes(mm, level));
}

void sws___pgtable_free(struct sws_mm *mm, struct sws_space *sp)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	SWS_ASSERT_HELD(pte_lockptr(sp, 0));
	free_level(mm, atomic_load_explicit(&sp->pgd, memory_order_relaxed), 3);
	atomic_store_explicit(&sp->pgd, NULL, memory_order_relaxed);
	atomic_store_explicit(&sp->nr_tables, 0, memory_order_relaxed);
}
