/*
 * swap.c - the LRU lists (mm/swap.c: folio_add_lru, folio_mark_accessed, and
 * the list moves mm/vmscan.c makes). Per-memcg inactive and active lists,
 * doubly linked through PFNs, head = oldest, under the memcg's lru_lock.
 * Callers: the fault paths (add, accessed), vmscan.c (isolate, rotate,
 * activate), the free paths (delete).
 */
#include "mm_internal.h"

/* ---- LRU lists (the memcg's lru_lock held) ---------------------------------------- */

static void list_append(struct sws_mm *mm, struct sws_lru *lru, unsigned which, uint32_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	f->prev = lru->tail[which];
	f->next = 0;
	if (lru->tail[which])
		mm_folio(mm, lru->tail[which])->next = pfn;
	else
		lru->head[which] = pfn;
	lru->tail[which] = pfn;
	lru->nr[which] += folio_nr(f);
	f->lru = (uint8_t)which;
}

static void list_unlink(struct sws_mm *mm, struct sws_lru *lru, uint32_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	unsigned which = f->lru;
	if (f->prev)
		mm_folio(mm, f->prev)->next = f->next;
	else
		lru->head[which] = f->next;
	if (f->next)
		mm_folio(mm, f->next)->prev = f->prev;
	else
		lru->tail[which] = f->prev;
	lru->nr[which] -= folio_nr(f);
	f->prev = f->next = 0;
	f->lru = LRU_NONE;
}

void sws__mm_lru_add(struct sws_mm *mm, uint64_t pfn, bool active)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	sws_spin_lock(folio_lru_lock(mm, f));
	if (f->lru == LRU_NONE) {
		list_append(mm, &mm->memcgs[f->memcg].lru, active ? LRU_ACTIVE : LRU_INACTIVE,
			    (uint32_t)pfn);
		folio_set(f, PG_lru | (active ? PG_active : 0));
	}
	sws_spin_unlock(folio_lru_lock(mm, f));
}

void sws__mm_lru_unlink_locked(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	if (f->lru != LRU_NONE)
		list_unlink(mm, &mm->memcgs[f->memcg].lru, (uint32_t)pfn);
	folio_clear(f, PG_lru | PG_active);
}

void sws__mm_lru_move_locked(struct sws_mm *mm, uint64_t pfn, unsigned which)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	struct sws_lru *lru = &mm->memcgs[f->memcg].lru;
	if (f->lru != LRU_NONE)
		list_unlink(mm, lru, (uint32_t)pfn);
	list_append(mm, lru, which, (uint32_t)pfn);
	folio_set(f, PG_lru);
	if (which == LRU_ACTIVE)
		folio_set(f, PG_active);
	else
		folio_clear(f, PG_active);
}

void sws__mm_lru_del(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	sws_spin_lock(folio_lru_lock(mm, f));
	sws__mm_lru_unlink_locked(mm, pfn);
	sws_spin_unlock(folio_lru_lock(mm, f));
}

/* An access to a mapped folio: the hardware accessed bit, or for the exact-LRU
 * reference a move to the most recently used end. */
void sws__mm_mark_accessed(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	if (mm->cfg.policy != SWS_RECLAIM_LRU) {
		if (!folio_test(f, PG_young))
			folio_set(f, PG_young);
		return;
	}
	sws_spin_lock(folio_lru_lock(mm, f));
	if (f->lru != LRU_NONE)
		sws__mm_lru_move_locked(mm, pfn, LRU_INACTIVE);
	f->stamp = atomic_fetch_add(&mm->lru_clock, 1);
	sws_spin_unlock(folio_lru_lock(mm, f));
}
