/*
 * workingset.c - shadow entries and refaults (mm/workingset.c): the shadow a
 * reclaimed folio leaves in the swap cache (memcg and eviction age, packed
 * here and unpacked here only) and workingset_refault(): a refault within the
 * memcg's active anon list (while swap has room) activates the folio.
 * Callers: vmscan.c and zswap's writeback (pack), swap_state.c and memory.c (refault).
 */
#include "mm_internal.h"

/* workingset_refault(): would the folio have stayed with this much more
 * memory? @return true when it goes on the active list. */
bool sws__mm_workingset_refault(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, uint16_t memcg,
			       uint64_t shadow)
{
	mm_count(mm, cpu, SWS_MM_workingset_refault, 1);
	uint64_t age = atomic_load(&mm->nonresident_age) & ((1ull << 40) - 1);
	uint64_t distance = (age - (shadow & ((1ull << 40) - 1))) & ((1ull << 40) - 1);
	/* workingset_test_recent(), an anonymous refault: the workingset it competes
	 * with is the file lists (none here) and, while swap has room, the active
	 * anon list; the inactive anon list it was evicted from is not in it. */
	uint64_t swap_free;
	sws_swap_totals(mm->sim, NULL, &swap_free);
	uint64_t ws = 0;
	if (swap_free) {
		mm_lock(mm, &mm->memcgs[memcg].lru_lock, SWS_MM_lock_lru_contended);
		ws = mm->memcgs[memcg].lru.nr[LRU_ACTIVE];
		sws_spin_unlock(&mm->memcgs[memcg].lru_lock);
	}
	if (mm->cfg.policy != SWS_RECLAIM_KERNEL || distance > ws)
		return false;
	folio_set(f, PG_workingset);
	mm_count(mm, cpu, SWS_MM_workingset_activate, 1);
	return true;
}
#define SHADOW_AGE_BITS 40

uint64_t sws__mm_shadow_pack(struct sws_mm *mm, uint16_t memcg)
{
	uint64_t age = atomic_fetch_add(&mm->nonresident_age, 1) & ((1ull << SHADOW_AGE_BITS) - 1);
	return ((uint64_t)memcg << SHADOW_AGE_BITS) | age | (1ull << 55); /* never 0 */
}
