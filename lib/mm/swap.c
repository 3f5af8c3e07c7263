/*
 * swap.c - the LRU lists (mm/swap.c: folio_add_lru, folio_mark_accessed, and
 * the list moves mm/vmscan.c makes). Per-memcg inactive and active lists,
 * doubly linked through PFNs, head = oldest, under the memcg's lru_lock.
 * Callers: the fault paths (add, accessed), vmscan.c (isolate, rotate,
 * activate), the free paths (delete).
 */
#include "mm_internal.h"

/* ---- LRU lists (the memcg's lru_lock held) ---------------------------------------- */

/* The list of @f's type (folio_lru_list()) for activeness @which. */
static inline unsigned folio_list(const struct sws_folio *f, unsigned which)
{
	return which + (sws_load_relaxed(&f->flags) & PG_file ? LRU_FILE : 0);
}

static void __list_append(struct sws_mm *mm, struct sws_lru *lru, unsigned which, uint32_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_HELD(folio_lru_lock(mm, f));
	which = folio_list(f, which);
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

static void __list_unlink(struct sws_mm *mm, struct sws_lru *lru, uint32_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_HELD(folio_lru_lock(mm, f));
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
	mm_lock(mm, folio_lru_lock(mm, f), SWS_MM_lock_lru_contended);
	if (f->lru == LRU_NONE) {
		__list_append(mm, &mm->memcgs[f->memcg].lru, active ? LRU_ACTIVE : LRU_INACTIVE,
			    (uint32_t)pfn);
		folio_set(f, PG_lru | (active ? PG_active : 0));
	}
	sws_spin_unlock(folio_lru_lock(mm, f));
}

void sws__mm_folio_rotate_reclaimable(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	struct sws_lru *lru = &mm->memcgs[f->memcg].lru;
	mm_lock(mm, folio_lru_lock(mm, f), SWS_MM_lock_lru_contended);
	if (f->lru != LRU_NONE)
		__list_unlink(mm, lru, (uint32_t)pfn);
	/* the oldest end of the inactive list: the next folio reclaim looks at */
	unsigned which = folio_list(f, LRU_INACTIVE);
	f->prev = 0;
	f->next = lru->head[which];
	if (f->next)
		mm_folio(mm, f->next)->prev = (uint32_t)pfn;
	else
		lru->tail[which] = (uint32_t)pfn;
	lru->head[which] = (uint32_t)pfn;
	lru->nr[which] += folio_nr(f);
	f->lru = (uint8_t)which;
	folio_clear(f, PG_active);
	folio_set(f, PG_lru);
	sws_spin_unlock(folio_lru_lock(mm, f));
}

void sws___mm_lru_unlink(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_HELD(folio_lru_lock(mm, f));
	if (f->lru != LRU_NONE)
		__list_unlink(mm, &mm->memcgs[f->memcg].lru, (uint32_t)pfn);
	folio_clear(f, PG_lru | PG_active | PG_lru_batch); /* a batch's entry for it goes stale */
}

void sws__mm_lru_add_drain(struct sws_cpu *cpu, struct sws_mm *mm)
{
	struct sws_mm_pcpu *pc = &mm->pcpu[sws__cpu_id(cpu)];
	sws_spinlock_t *held = NULL;
	for (unsigned i = 0; i < pc->nr_lru_add; i++) {
		struct sws_folio *f = mm_folio(mm, pc->lru_add[i].pfn);
		sws_spinlock_t *l = &mm->memcgs[pc->lru_add[i].memcg].lru_lock;
		if (l != held) { /* folio_batch_move_lru(): one lock hold per run of a lruvec */
			if (held)
				sws_spin_unlock(held);
			mm_lock(mm, l, SWS_MM_lock_lru_contended);
			held = l;
		}
		/* Freed (or taken off for a split) meanwhile: PG_lru_batch was
		 * cleared under this lock, and a claim since changed gen. */
		if (atomic_load_explicit(&f->gen, memory_order_relaxed) != pc->lru_add[i].gen ||
		    !folio_test(f, PG_lru_batch))
			continue;
		folio_clear(f, PG_lru_batch);
		if (f->lru == LRU_NONE) {
			bool active = pc->lru_add[i].active;
			__list_append(mm, &mm->memcgs[f->memcg].lru, active ? LRU_ACTIVE : LRU_INACTIVE,
				    pc->lru_add[i].pfn);
			folio_set(f, PG_lru | (active ? PG_active : 0));
		}
	}
	if (held)
		sws_spin_unlock(held);
	pc->nr_lru_add = 0;
}

void sws__mm_folio_add_lru(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn, bool active)
{
	if (mm->cfg.policy == SWS_RECLAIM_LRU) { /* the textbook reference stays exact */
		sws__mm_lru_add(mm, pfn, active);
		return;
	}
	struct sws_mm_pcpu *pc = &mm->pcpu[sws__cpu_id(cpu)];
	struct sws_folio *f = mm_folio(mm, pfn);
	folio_set(f, PG_lru_batch); /* the folio is new: nobody else looks at it yet */
	pc->lru_add[pc->nr_lru_add].pfn = (uint32_t)pfn;
	pc->lru_add[pc->nr_lru_add].gen = atomic_load_explicit(&f->gen, memory_order_relaxed);
	pc->lru_add[pc->nr_lru_add].memcg = f->memcg;
	pc->lru_add[pc->nr_lru_add].active = active;
	if (++pc->nr_lru_add == SWS__LRU_BATCH)
		sws__mm_lru_add_drain(cpu, mm);
}

bool sws__mm_lru_batch_activate(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	struct sws_mm_pcpu *pc = &mm->pcpu[sws__cpu_id(cpu)];
	uint32_t gen = atomic_load_explicit(&mm_folio(mm, pfn)->gen, memory_order_relaxed);
	for (unsigned i = pc->nr_lru_add; i-- > 0;)
		if (pc->lru_add[i].pfn == pfn && pc->lru_add[i].gen == gen) {
			pc->lru_add[i].active = true;
			return true;
		}
	return false;
}

void sws___mm_lru_move(struct sws_mm *mm, uint64_t pfn, unsigned which)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_HELD(folio_lru_lock(mm, f));
	struct sws_lru *lru = &mm->memcgs[f->memcg].lru;
	if (f->lru != LRU_NONE)
		__list_unlink(mm, lru, (uint32_t)pfn);
	__list_append(mm, lru, which, (uint32_t)pfn);
	/* PG_lru and PG_active change only under the lru_lock: test before the
	 * atomic RMW, which a move within one list never needs. */
	uint32_t want = PG_lru | (which == LRU_ACTIVE ? PG_active : 0);
	uint32_t have = sws_load_relaxed(&f->flags) & (PG_lru | PG_active);
	if (have & ~want)
		folio_clear(f, have & ~want);
	if (want & ~have)
		folio_set(f, want & ~have);
}

void sws__mm_lru_del(struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	mm_lock(mm, folio_lru_lock(mm, f), SWS_MM_lock_lru_contended);
	sws___mm_lru_unlink(mm, pfn);
	sws_spin_unlock(folio_lru_lock(mm, f));
}

void sws__mm_folios_put(struct sws_cpu *cpu, struct sws_mm *mm, struct sws__folio_batch *fb)
{
	sws_spinlock_t *held = NULL;
	for (unsigned i = 0; i < fb->nr; i++) {
		sws_spinlock_t *lock = folio_lru_lock(mm, mm_folio(mm, fb->pfn[i]));
		if (lock != held) { /* folio_lruvec_relock_irqsave() */
			if (held)
				sws_spin_unlock(held);
			mm_lock(mm, lock, SWS_MM_lock_lru_contended);
			held = lock;
		}
		sws___mm_lru_unlink(mm, fb->pfn[i]); /* also stales a CPU batch's entry */
	}
	if (held)
		sws_spin_unlock(held);
	sws__mm_folio_batch_free(cpu, mm, fb);
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
	mm_lock(mm, folio_lru_lock(mm, f), SWS_MM_lock_lru_contended);
	if (f->lru != LRU_NONE)
		sws___mm_lru_move(mm, pfn, LRU_INACTIVE);
	sws_spin_unlock(folio_lru_lock(mm, f));
}

void sws___mm_lru_note_cost(struct sws_mm *mm, struct sws_memcg *mc, bool file, uint64_t nr_io,
			    uint64_t nr_rotated)
{
	(void)mm;
	SWS_ASSERT_HELD(&mc->lru_lock);
	/* I/O weighs SWAP_CLUSTER_MAX rotations: reloads against CPU work */
	mc->cost[file] += nr_io * 32 + nr_rotated;
	const uint64_t *n = mc->lru.nr;
	uint64_t lrusize = n[LRU_INACTIVE] + n[LRU_ACTIVE] + n[LRU_INACTIVE_FILE] + n[LRU_ACTIVE_FILE];
	if (mc->cost[0] + mc->cost[1] > lrusize / 4) {
		mc->cost[0] /= 2;
		mc->cost[1] /= 2;
	}
}
