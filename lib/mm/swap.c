/*
 * swap.c - the LRU lists (mm/swap.c: folio_add_lru, folio_mark_accessed, and
 * the list moves mm/vmscan.c makes). Per-memcg inactive and active lists,
 * doubly linked through PFNs, head = oldest, under the memcg's lru_lock.
 * Callers: the fault paths (add, accessed), vmscan.c (isolate, rotate,
 * activate), the free paths (delete).
 */
#include "mm_internal.h"

/* ---- LRU lists (the memcg's lru_lock held) ---------------------------------------- */

/* @n list links or unlinks (SWS_COST_lru_move each): none for the exact
 * LRU's hit, the hardware's work (vc->hw). */
static inline void lru_move_cost(uint64_t n)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (vc)
		sws__vt_charge_nohw(vc, SWS_COST_lru_move, n);
}

/* The list of @f's type (folio_lru_list()) for activeness @which. */
static inline unsigned folio_list(const struct sws_folio *f, unsigned which)
{
	return which + (sws_load_relaxed(&f->flags) & PG_file ? LRU_FILE : 0);
}

/* The links alone (__list_link(), __list_cut()): the caller charges them
 * (lru_move_cost()); __list_append() and __list_unlink() charge their own. */
static SWS_ALWAYS_INLINE void __list_link(struct sws_mm *mm, struct sws_lru *lru, unsigned which, uint32_t pfn)
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

static SWS_ALWAYS_INLINE void __list_cut(struct sws_mm *mm, struct sws_lru *lru, uint32_t pfn)
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

static SWS_ALWAYS_INLINE void __list_append(struct sws_mm *mm, struct sws_lru *lru, unsigned which, uint32_t pfn)
{
	lru_move_cost(1);
	__list_link(mm, lru, which, pfn);
}

static SWS_ALWAYS_INLINE void __list_unlink(struct sws_mm *mm, struct sws_lru *lru, uint32_t pfn)
{
	lru_move_cost(1);
	__list_cut(mm, lru, pfn);
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

/* ---- the per-CPU folio batches (cpu_fbatches) --------------------------------------- */

/* The move of one current batch entry, the folio's lru_lock held; it checks
 * the folio is still where the move applies. */
typedef void (*lru_move_fn)(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, uint32_t pfn,
			    bool active);

/* lru_add_fn(): a new folio, still PG_lru_batch (a free or a split clears it
 * under this lock), onto its list. */
static void __lru_add_fn(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, uint32_t pfn, bool active)
{
	(void)cpu;
	SWS_ASSERT_HELD(folio_lru_lock(mm, f));
	folio_clear(f, PG_lru_batch);
	if (f->lru != LRU_NONE)
		return;
	__list_append(mm, &mm->memcgs[f->memcg].lru, active ? LRU_ACTIVE : LRU_INACTIVE, pfn);
	folio_set(f, PG_lru | (active ? PG_active : 0));
}

/* lru_lazyfree_fn(): an anon folio MADV_FREE left clean, not in the swap
 * cache and still on an anon list, goes to the young end of the inactive list
 * lazily freed (the kernel's inactive file list; here the anon one). */
static void __lru_lazyfree_fn(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, uint32_t pfn,
			      bool active)
{
	(void)active;
	SWS_ASSERT_HELD(folio_lru_lock(mm, f));
	if ((f->lru != LRU_INACTIVE && f->lru != LRU_ACTIVE) || folio_test(f, PG_lazyfree | PG_swapcache))
		return;
	folio_clear(f, PG_referenced);
	folio_set(f, PG_lazyfree);
	sws___mm_lru_move(mm, pfn, LRU_INACTIVE);
	mm_count(mm, cpu, SWS_MM_pglazyfree, folio_nr(f));
}

/* folio_activate_fn(): a folio still on an inactive list to the active one. */
static void __lru_activate_fn(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, uint32_t pfn,
			      bool active)
{
	(void)active;
	SWS_ASSERT_HELD(folio_lru_lock(mm, f));
	if (f->lru != LRU_INACTIVE && f->lru != LRU_INACTIVE_FILE)
		return;
	sws___mm_lru_move(mm, pfn, LRU_ACTIVE);
	mm_count(mm, cpu, SWS_MM_pgactivate, folio_nr(f));
}

/* Each batch's move and the flag a folio needs for it: an add batch's
 * folio is PG_lru_batch, the others' are on a list (PG_lru; the kernel's
 * folio_test_clear_lru() in folio_batch_move_lru()). */
struct lru_move {
	lru_move_fn fn;
	uint32_t need;
};
static const struct lru_move lru_add = {__lru_add_fn, PG_lru_batch};
static const struct lru_move lru_lazyfree = {__lru_lazyfree_fn, PG_lru};
static const struct lru_move lru_activate = {__lru_activate_fn, PG_lru};

/* folio_batch_move_lru(): every current entry of @fb moved by @fn, one hold
 * of each lruvec's lock per run of its entries; the batch is empty after. */
static void folio_batch_move_lru(struct sws_cpu *cpu, struct sws_mm *mm, struct sws__lru_fbatch *fb,
				 const struct lru_move *mv)
{
	sws_spinlock_t *held = NULL;
	for (unsigned i = 0; i < fb->nr; i++) {
		struct sws_folio *f = mm_folio(mm, fb->e[i].pfn);
		sws_spinlock_t *l = &mm->memcgs[fb->e[i].memcg].lru_lock;
		if (l != held) {
			if (held)
				sws_spin_unlock(held);
			mm_lock(mm, l, SWS_MM_lock_lru_contended);
			held = l;
		}
		/* The folio must still be where the move applies (on a list, or in
		 * an add batch) and be the one the entry was made for: a claim since
		 * changed gen. The flags first, with acquire: a new owner's PG_lru or
		 * PG_lru_batch seen here follows its claim's gen, so a stale entry
		 * never reads a folio another memcg's lock guards. */
		uint32_t fl = atomic_load_explicit(&f->flags, memory_order_acquire);
		if ((fl & mv->need) && atomic_load_explicit(&f->gen, memory_order_relaxed) == fb->e[i].gen)
			mv->fn(cpu, mm, f, fb->e[i].pfn, fb->e[i].active);
	}
	if (held)
		sws_spin_unlock(held);
	fb->nr = 0;
}

/* folio_batch_add_and_move(): @pfn joins @fb, which moves when it is full,
 * the folio is large, or the policy is the exact-LRU reference. */
static void folio_batch_add_and_move(struct sws_cpu *cpu, struct sws_mm *mm, struct sws__lru_fbatch *fb,
				     uint64_t pfn, bool active, const struct lru_move *mv)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	fb->e[fb->nr].pfn = (uint32_t)pfn;
	fb->e[fb->nr].gen = atomic_load_explicit(&f->gen, memory_order_relaxed);
	fb->e[fb->nr].memcg = f->memcg;
	fb->e[fb->nr].active = active;
	if (++fb->nr == SWS__PAGEVEC_SIZE || f->order || mm->cfg.policy == SWS_RECLAIM_LRU)
		folio_batch_move_lru(cpu, mm, fb, mv); /* the exact-LRU reference moves at once */
}

void sws__mm_lru_add_drain(struct sws_cpu *cpu, struct sws_mm *mm)
{
	/* lru_add_drain_cpu()'s order: lru_add, then lru_lazyfree, then activate */
	struct sws_mm_pcpu *pc = &mm->pcpu[sws__cpu_id(cpu)];
	if (pc->lru_add.nr)
		folio_batch_move_lru(cpu, mm, &pc->lru_add, &lru_add);
	if (pc->lru_lazyfree.nr)
		folio_batch_move_lru(cpu, mm, &pc->lru_lazyfree, &lru_lazyfree);
	if (pc->lru_activate.nr)
		folio_batch_move_lru(cpu, mm, &pc->lru_activate, &lru_activate);
}

void sws_mm_lru_add_drain(struct sws_cpu *cpu, struct sws_mm *mm)
{
	if (cpu && mm)
		sws__mm_lru_add_drain(cpu, mm);
}

void sws__mm_folio_add_lru(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn, bool active)
{
	if (mm->cfg.policy == SWS_RECLAIM_LRU) { /* the textbook reference stays exact */
		sws__mm_lru_add(mm, pfn, active);
		return;
	}
	folio_set(mm_folio(mm, pfn), PG_lru_batch); /* the folio is new: nobody else looks at it yet */
	folio_batch_add_and_move(cpu, mm, &mm->pcpu[sws__cpu_id(cpu)].lru_add, pfn, active, &lru_add);
}

void sws__mm_folio_mark_lazyfree(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	folio_batch_add_and_move(cpu, mm, &mm->pcpu[sws__cpu_id(cpu)].lru_lazyfree, pfn, false, &lru_lazyfree);
}

void sws__mm_folio_activate(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	folio_batch_add_and_move(cpu, mm, &mm->pcpu[sws__cpu_id(cpu)].lru_activate, pfn, true, &lru_activate);
}

void sws__mm_lru_batch_activate(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	struct sws__lru_fbatch *fb = &mm->pcpu[sws__cpu_id(cpu)].lru_add;
	uint32_t gen = atomic_load_explicit(&mm_folio(mm, pfn)->gen, memory_order_relaxed);
	for (unsigned i = fb->nr; i-- > 0;)
		if (fb->e[i].pfn == pfn && fb->e[i].gen == gen) {
			fb->e[i].active = true;
			return;
		}
}

/* The body of sws___mm_lru_move(), inline in the exact LRU's hit (sws__mm_mark_accessed()). */
static SWS_ALWAYS_INLINE void __lru_move(struct sws_mm *mm, uint64_t pfn, unsigned which)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_HELD(folio_lru_lock(mm, f));
	struct sws_lru *lru = &mm->memcgs[f->memcg].lru;
	bool listed = f->lru != LRU_NONE;
	lru_move_cost(1 + listed); /* the unlink and the link, charged together */
	if (listed)
		__list_cut(mm, lru, (uint32_t)pfn);
	__list_link(mm, lru, which, (uint32_t)pfn);
	/* PG_lru and PG_active change only under the lru_lock: test before the
	 * atomic RMW, which a move within one list never needs. */
	uint32_t want = PG_lru | (which == LRU_ACTIVE ? PG_active : 0);
	uint32_t have = sws_load_relaxed(&f->flags) & (PG_lru | PG_active);
	if (have & ~want)
		folio_clear(f, have & ~want);
	if (want & ~have)
		folio_set(f, want & ~have);
}

void sws___mm_lru_move(struct sws_mm *mm, uint64_t pfn, unsigned which) { __lru_move(mm, pfn, which); }

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
	sws_spinlock_t *lock = folio_lru_lock(mm, f);
	mm_lock(mm, lock, SWS_MM_lock_lru_contended);
	if (f->lru != LRU_NONE)
		__lru_move(mm, pfn, LRU_INACTIVE);
	sws_spin_unlock(lock);
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
