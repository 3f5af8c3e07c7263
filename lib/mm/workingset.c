/*
 * workingset.c - shadow entries and refaults (mm/workingset.c): the shadow a
 * reclaimed folio leaves in the swap cache or its file's page cache (memcg,
 * eviction age and PG_workingset, packed here and unpacked here only) and
 * workingset_refault(): a refault whose distance fits in the workingset it
 * competes with activates the folio.
 * Callers: vmscan.c and filemap.c (pack; a page zswap writes back leaves the
 * swap cache with no shadow), swap_state.c, memory.c and filemap.c (refault).
 */
#include "mm_internal.h"

#define SHADOW_AGE_BITS 40
#define SHADOW_AGE_MASK ((1ull << SHADOW_AGE_BITS) - 1)
#define SHADOW_MEMCG_MASK ((1ull << 14) - 1) /* bits 40..53 */
#define SHADOW_WORKINGSET (1ull << 54)

/* workingset_refault(): would the folio have stayed with this much more
 * memory? @return true when it goes on the active list. */
bool sws__mm_workingset_refault(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, uint16_t memcg,
				uint64_t shadow)
{
	bool file = folio_test(f, PG_file);
	const unsigned nr = 1u << f->order; /* the counts and the cost are in pages */
	mm_count(mm, cpu, file ? SWS_MM_workingset_refault_file : SWS_MM_workingset_refault, nr);
	uint64_t age = atomic_load(&mm->nonresident_age) & SHADOW_AGE_MASK;
	uint64_t distance = (age - (shadow & SHADOW_AGE_MASK)) & SHADOW_AGE_MASK;
	/* workingset_test_recent(): the workingset a refault competes with. An
	 * anonymous one: the file lists and, while swap has room, the active anon
	 * list (not the inactive anon list it was evicted from). A file one: the
	 * active file list and, while swap has room, both anon lists. */
	bool swap_room = sws__swap_has_room(mm->sim);
	/* The lists of the memcg that evicted it (the shadow's), not of the one
	 * refaulting it: page cache is shared. */
	uint64_t evicted = (shadow >> SHADOW_AGE_BITS) & SHADOW_MEMCG_MASK;
	struct sws_memcg *mc = &mm->memcgs[evicted < mm->nr_memcgs ? evicted : memcg];
	mm_lock(mm, &mc->lru_lock, SWS_MM_lock_lru_contended);
	const uint64_t *n = mc->lru.nr;
	uint64_t ws = file ? n[LRU_ACTIVE_FILE] : n[LRU_ACTIVE_FILE] + n[LRU_INACTIVE_FILE];
	if (swap_room)
		ws += file ? n[LRU_ACTIVE] + n[LRU_INACTIVE] : n[LRU_ACTIVE];
	bool recent = mm->cfg.policy == SWS_RECLAIM_KERNEL && distance <= ws;
	/* The refaulting folio's lruvec: its activation, and its cost when it was
	 * in the workingset before eviction (lru_note_cost_refault()), under the
	 * lock already held when it is the evicting memcg's. */
	struct sws_memcg *own = &mm->memcgs[memcg];
	bool cost = recent && (shadow & SHADOW_WORKINGSET);
	if (cost && own == mc)
		sws___mm_lru_note_cost(mm, own, file, nr, 0);
	sws_spin_unlock(&mc->lru_lock);
	if (!recent)
		return false;
	if (cost && own != mc) {
		mm_lock(mm, &own->lru_lock, SWS_MM_lock_lru_contended);
		sws___mm_lru_note_cost(mm, own, file, nr, 0);
		sws_spin_unlock(&own->lru_lock);
	}
	folio_set(f, PG_workingset);
	atomic_fetch_add_explicit(&own->workingset_activate[file], nr, memory_order_relaxed);
	if (file) {
		atomic_fetch_add(&mm->nonresident_age, 1); /* workingset_age_nonresident() */
		mm_count(mm, cpu, SWS_MM_workingset_activate_file, 1);
	} else {
		mm_count(mm, cpu, SWS_MM_workingset_activate, nr);
	}
	return true;
}

uint64_t sws__mm_shadow_pack(struct sws_mm *mm, uint16_t memcg, bool workingset)
{
	uint64_t age = atomic_fetch_add(&mm->nonresident_age, 1) & SHADOW_AGE_MASK;
	return ((uint64_t)memcg << SHADOW_AGE_BITS) | age | (workingset ? SHADOW_WORKINGSET : 0) |
	       (1ull << 55); /* never 0 */
}
