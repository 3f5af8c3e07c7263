/*
 * vmscan.c - reclaim and the swap-out of a folio (mm/vmscan.c:
 * shrink_folio_list, shrink_lruvec, get_scan_count, inactive_is_low, shrink_node_memcgs,
 * kswapd as a deferred-work step).
 *
 * HOW IT WORKS. Victims come from the memcg's inactive list, oldest first:
 *  - lru:    the oldest page goes (accesses move pages to the young end);
 *  - clock:  a page whose accessed bit is set loses it and goes round again;
 *  - kernel: folio_check_references(): accessed once -> PG_referenced and
 *            rotate; accessed again while referenced -> activate. The active
 *            list is aged (deactivated) whenever the inactive one is low
 *            (inactive_is_low(): its ratio grows with the type's size).
 * Victims are isolated in batches of up to 32 under one hold of the memcg's
 * lru_lock (isolate_lru_folios()), then each is tried with it dropped
 * (shrink_folio_list()). A victim is locked (trylock) and isolated, gets
 * slots (folio_alloc_swap: slots and swap cache at once), is unmapped (each
 * PTE becomes a swap PTE and takes a swap count), written (or flagged zero:
 * no I/O), then deleted from
 * the swap cache leaving a workingset shadow, and freed. A large folio that
 * finds no slots of its order is split and its pages reclaimed one by one
 * (swpout_fallback). A lazily freed folio not written since is dropped with
 * no write. A page cache victim is written back if dirty and dropped,
 * leaving a shadow in its file (filemap.c). A pass splits its batches between
 * the anon and the file lists as get_scan_count() does (the cache trim mode,
 * else swappiness over the types' reclaim costs). After each LRU pass the
 * zswap shrinker runs in proportion.
 * Callers: memcontrol.c (direct reclaim of a charge), madvise.c (PAGEOUT),
 * sws_mm_reclaim (memory.reclaim), sws_mm_kswapd (the replay's deferred work).
 */
#include "../zswap/zswap_mm.h"
#include "mm_internal.h"

/*
 * Swap out locked, isolated @pfn. @return 0 when it is ready to be freed
 * (unmapped, out of the swap cache, still locked and charged: the caller frees
 * it, as shrink_folio_list() collects its free_folios); SWS_EAGAIN when
 * it was split (its pages are back on the LRU, its descriptor free: the caller
 * must not look at it again); an error when it stays (the caller puts it back).
 */
static int pageout_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);

/* The swap-out of one folio, its work counted in the swapout context. */
int sws__mm_pageout_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	SWS_ASSERT_FOLIO_LOCKED(mm_folio(mm, pfn));
	enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_swapout);
	int rc = pageout_folio(cpu, mm, pfn);
	sws__cpu_work_enter(cpu, wc);
	return rc;
}

static int pageout_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	const unsigned nr = 1u << f->order;
	if (folio_test(f, PG_lazyfree)) {
		/* MADV_FREE: a clean folio is dropped, no swap; one written again
		 * since is swap-backed once more, kept (activated) this time. */
		folio_clear(f, PG_lazyfree);
		if (folio_test(f, PG_dirty))
			return SWS_EBUSY;
		sws__mm_try_to_unmap_discard(mm, pfn);
		mm_count(mm, cpu, SWS_MM_pglazyfreed, nr);
		mm_count(mm, cpu, SWS_MM_pgsteal, nr);
		return 0;
	}
	if (!folio_test(f, PG_swapcache)) {
		sws_entry_t entry;
		uint32_t tiers = sws__mm_memcg_swap_tiers(mm, f->memcg); /* memory.swap.tiers.max */
		int rc = sws_folio_alloc_swap_tiers(cpu, pfn, f->order, tiers, &entry);
		if (rc == SWS_ENOSPC && f->order) {
			sws__mm_count_order(mm, cpu, &mm->pcpu[sws__cpu_id(cpu)].swpout_fallback[f->order]);
			if (f->order == SWS_NR_ORDERS - 1)
				mm_count(mm, cpu, SWS_MM_thp_swpout_fallback, 1);
			return sws__mm_split_folio(cpu, mm, pfn) ? SWS_ENOMEM : SWS_EAGAIN;
		}
		if (rc)
			return rc;
		f->swap = entry;
		folio_set(f, PG_swapcache | PG_dirty);
		sws_swap_set_memcg(cpu, entry, nr, f->memcg);
	}
	if (!sws__mm_try_to_unmap(cpu, mm, pfn, f->swap))
		return SWS_EBUSY;
	if (folio_test_clear(f, PG_dirty) && sws__mm_swap_writeout(cpu, mm, f, f->swap)) {
		folio_set(f, PG_dirty); /* re-dirtied: it stays in the swap cache */
		return SWS_EBUSY;
	}
	uint64_t shadow = sws__mm_shadow_pack(mm, f->memcg, folio_test(f, PG_workingset));
	int rc = sws_swap_cache_del(cpu, f->swap, nr, pfn, shadow);
	if (rc)
		return rc; /* cannot happen: the folio holds these slots */
	folio_clear(f, PG_swapcache);
	mm_count(mm, cpu, SWS_MM_pgsteal, nr);
	return 0;
}

/* ---- victim selection -------------------------------------------------------------- */

/* @mc's lru_lock held: age the active list of @base's type (0 anon, LRU_FILE),
 * deactivate its oldest folio (shrink_active_list(): PG_workingset now). */
static void __shrink_active(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_memcg *mc, unsigned base)
{
	SWS_ASSERT_HELD(&mc->lru_lock);
	uint32_t pfn = mc->lru.head[LRU_ACTIVE + base];
	if (!pfn)
		return;
	struct sws_folio *f = mm_folio(mm, pfn);
	folio_clear(f, PG_young | PG_referenced);
	if (!folio_test(f, PG_workingset))
		folio_set(f, PG_workingset);
	sws___mm_lru_move(mm, pfn, LRU_INACTIVE);
	mm_count(mm, cpu, SWS_MM_pgdeactivate, folio_nr(f));
}

uint64_t sws__mm_inactive_ratio(uint64_t pages)
{
	uint64_t gb = pages >> 18, ratio = 1; /* GiB of 4 KiB pages */
	while (gb && (ratio + 1) * (ratio + 1) <= 10 * gb)
		ratio++;
	return ratio;
}

/* @mc's lru_lock held: inactive_is_low(), is the inactive list of @base's type
 * (0 anon, LRU_FILE) short against its active list? */
static bool __inactive_is_low(struct sws_memcg *mc, unsigned base)
{
	SWS_ASSERT_HELD(&mc->lru_lock);
	uint64_t inactive = mc->lru.nr[LRU_INACTIVE + base], active = mc->lru.nr[LRU_ACTIVE + base];
	return inactive * sws__mm_inactive_ratio(inactive + active) < active;
}

/* @memcg's lru_lock held: one scan step on the lists of @file's type.
 * @return the victim it isolated, locked, or 0 (@progress says whether a
 * scan step was made); an activation adds one to *@activated (the caller
 * ages the workingset clock for it). */
static uint64_t __isolate_one(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, bool file, bool *progress,
			      unsigned *activated)
{
	SWS_ASSERT_HELD(&mm->memcgs[memcg].lru_lock);
	struct sws_lru *lru = &mm->memcgs[memcg].lru;
	const unsigned base = file ? LRU_FILE : 0;
	const bool kernel = mm->cfg.policy == SWS_RECLAIM_KERNEL;
	uint64_t victim = 0;
	*progress = false;
	if (kernel && __inactive_is_low(&mm->memcgs[memcg], base)) {
		__shrink_active(cpu, mm, &mm->memcgs[memcg], base);
		*progress = true;
	}
	uint32_t pfn = lru->head[LRU_INACTIVE + base];
	if (!pfn && kernel && lru->head[LRU_ACTIVE + base]) {
		__shrink_active(cpu, mm, &mm->memcgs[memcg], base);
		pfn = lru->head[LRU_INACTIVE + base];
	}
	if (pfn) {
		struct sws_folio *f = mm_folio(mm, pfn);
		*progress = true;
		mm_count(mm, cpu, SWS_MM_pgscan, folio_nr(f));
		mm_cost(cpu, SWS_COST_rmap, 1); /* folio_referenced(): its mappings' young bits */
		if (file)
			mm_count(mm, cpu, SWS_MM_pgscan_file, 1);
		/* folio_check_references(): an unmapped page cache folio has no PTE
		 * to be young; its PG_referenced goes (FOLIOREF_RECLAIM_CLEAN) and
		 * it is reclaimed, its promotion being folio_mark_accessed()'s. */
		bool young = mm->cfg.policy != SWS_RECLAIM_LRU && !(file && kernel) && folio_test_clear(f, PG_young);
		if (file && kernel)
			folio_clear(f, PG_referenced);
		if (young && kernel && folio_test_clear(f, PG_referenced)) {
			sws___mm_lru_move(mm, pfn, LRU_ACTIVE); /* used twice: activate */
			mm_count(mm, cpu, SWS_MM_pgactivate, folio_nr(f));
			(*activated)++;
		} else if (young) {
			if (kernel)
				folio_set(f, PG_referenced);
			sws___mm_lru_move(mm, pfn, LRU_INACTIVE); /* second chance */
		} else if (folio_trylock(f)) {
			sws___mm_lru_unlink(mm, pfn);
			victim = pfn;
		} else {
			sws___mm_lru_move(mm, pfn, LRU_INACTIVE); /* busy: try others */
		}
	}
	return victim;
}

#define ISOLATE_BATCH 32 /* SWAP_CLUSTER_MAX: isolate_lru_folios()'s batch */

/*
 * isolate_lru_folios(): up to ISOLATE_BATCH scan steps on the lists of
 * @file's type under one hold of @memcg's lru_lock, fewer when the victims
 * hold @want pages or @budget runs out. @return the victims (locked, off the
 * LRU) in @victims, with the activations the steps before each made in
 * @before (and all of them in *@activated); *@end when the lists had nothing
 * to scan for the first step.
 */
static unsigned isolate_victims(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, bool file, uint64_t want,
				uint64_t *budget, uint64_t *scanned, uint64_t *victims, unsigned *before,
				unsigned *activated, bool *end)
{
	unsigned n = 0;
	uint64_t pages = 0;
	mm_lock(mm, &mm->memcgs[memcg].lru_lock, SWS_MM_lock_lru_contended);
	for (unsigned step = 0; step < ISOLATE_BATCH && pages < want && *budget; step++) {
		bool progress;
		(*budget)--;
		uint64_t pfn = __isolate_one(cpu, mm, memcg, file, &progress, activated);
		if (!progress) {
			*end = !n; /* what this batch puts back is scanned again */
			break;
		}
		(*scanned)++;
		if (pfn) {
			before[n] = *activated;
			victims[n++] = pfn;
			pages += folio_nr(mm_folio(mm, pfn));
		}
	}
	sws_spin_unlock(&mm->memcgs[memcg].lru_lock);
	return n;
}

/* stat.nr_pageout: whether pageout() writes anon folio @f (to swap or
 * zswap): not a lazily freed one, not a clean swap-cache copy. */
static bool anon_pageout_writes(struct sws_folio *f)
{
	return !folio_test(f, PG_lazyfree) && (folio_test(f, PG_dirty) || !folio_test(f, PG_swapcache));
}

/*
 * Reclaim locked, isolated page cache folio @pfn: written back if dirty (the
 * flusher's work: the model has no flusher, so reclaim reaching a dirty
 * folio stands for it), removed from its file leaving a shadow
 * (__remove_mapping()). @return 0: ready to be freed (the caller frees it), or
 * SWS_EBUSY: written again, kept.
 */
static int reclaim_file_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	int rc = sws__mm_filemap_evict(cpu, mm, pfn);
	if (rc)
		return rc;
	mm_count(mm, cpu, SWS_MM_pgsteal, 1);
	mm_count(mm, cpu, SWS_MM_pgsteal_file, 1);
	return 0; /* the caller frees it, as pageout_folio()'s */
}

/* ---- scan balance (get_scan_count) ---------------------------------------------- */

#define SWAPPINESS 60      /* vm.swappiness's default */
#define MAX_SWAPPINESS 200
#define DEF_PRIORITY SWS__DEF_PRIORITY

/* How a pass splits its scan between the anon and the file lists (enum
 * scan_balance as a pair of weights): by weight while both types can be
 * scanned, a type of weight 0 only once the other ran out. */
struct scan_split {
	double w[2];   /* [0] anon, [1] file */
	bool can[2];   /* pages of the type on the lists (anon: and swap room) */
	double target; /* the pass's inactive scan target at priority 0: each type's
			* inactive list times its fraction (what get_scan_count() shifts
			* by the priority and shrink_inactive_list() scans) */
};

/*
 * get_scan_count() with prepare_scan_control()'s cache trim mode, for @memcg
 * (its lru_lock held): without page cache, or without swap room, one type
 * only; while the inactive file list is large (inactive_file >> DEF_PRIORITY)
 * and neither low nor refaulting (no file activation since reclaim last
 * looked: DEACTIVATE_FILE clear), the file lists only (SCAN_FILE); otherwise
 * SCAN_FRACT: each type's size weighted by swappiness over its reclaim cost
 * (lru_note_cost()).
 */
static struct scan_split __get_scan_count(struct sws_mm *mm, uint16_t memcg)
{
	struct sws_memcg *mc = &mm->memcgs[memcg];
	SWS_ASSERT_HELD(&mc->lru_lock);
	const uint64_t *n = mc->lru.nr;
	double anon = (double)(n[LRU_INACTIVE] + n[LRU_ACTIVE]);
	double file = (double)(n[LRU_INACTIVE_FILE] + n[LRU_ACTIVE_FILE]);
	/* Without page cache the pass scans the anon lists as they are; memcg
	 * reclaim still weighs them by SCAN_FRACT's fraction, which with a file
	 * cost of 0 and any anon I/O noted is 60 x 3/2 against 140 x 3: 3/17. */
	struct scan_split s = {{anon, 0}, {anon > 0, file > 0}, (double)n[LRU_INACTIVE] * 3 / 17};
	s.can[0] = anon > 0 && sws__swap_has_room(mm->sim); /* can_reclaim_anon_pages() */
	if (!file)
		return s;
	bool refaulting = atomic_load_explicit(&mc->workingset_activate[1], memory_order_relaxed) !=
			  mc->refaults[1];
	bool file_low = __inactive_is_low(mc, LRU_FILE);
	if (!s.can[0] || ((n[LRU_INACTIVE_FILE] >> DEF_PRIORITY) && !refaulting && !file_low)) {
		s.w[0] = 0;
		s.w[1] = file;
		s.target = (double)n[LRU_INACTIVE_FILE];
		return s;
	}
	double total = (double)mc->cost[0] + (double)mc->cost[1];
	double anon_cost = total + (double)mc->cost[0], file_cost = total + (double)mc->cost[1];
	total = anon_cost + file_cost;
	double ap = SWAPPINESS * (total + 1) / (anon_cost + 1);
	double fp = (MAX_SWAPPINESS - SWAPPINESS) * (total + 1) / (file_cost + 1);
	s.w[0] = anon * ap;
	s.w[1] = file * fp;
	s.target = ((double)n[LRU_INACTIVE] * ap + (double)n[LRU_INACTIVE_FILE] * fp) / (ap + fp);
	return s;
}

static uint64_t lru_pages(struct sws_mm *mm, uint16_t memcg, struct scan_split *split)
{
	mm_lock(mm, &mm->memcgs[memcg].lru_lock, SWS_MM_lock_lru_contended);
	const uint64_t *nr = mm->memcgs[memcg].lru.nr;
	uint64_t n = nr[LRU_INACTIVE] + nr[LRU_ACTIVE] + nr[LRU_INACTIVE_FILE] + nr[LRU_ACTIVE_FILE];
	*split = __get_scan_count(mm, memcg);
	sws_spin_unlock(&mm->memcgs[memcg].lru_lock);
	return n;
}

static uint64_t shrink_memcg(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr,
			     unsigned types, uint64_t *scanned, uint64_t *target, uint64_t by_type[2])
{
	uint64_t reclaimed = 0;
	sws__mm_lru_add_drain(cpu, mm); /* shrink_inactive_list(): this CPU's new folios first */
	struct scan_split split;
	uint64_t eligible = lru_pages(mm, memcg, &split);
	*target = (uint64_t)split.target;
	*scanned = 0;
	/* Every page may take a few rounds (second chance, activation); bound the scan. */
	uint64_t budget = 4 * eligible + 64;
	/* Per type: done (its lists ran out, or swap is full), the scan credit
	 * that picks each batch's type, and what lru_note_cost() is told. */
	bool done[2] = {!split.can[0] || !(types & SWS_MM_LRU_ANON), !split.can[1] || !(types & SWS_MM_LRU_FILE)};
	double credit[2] = {0, 0};
	uint64_t io[2] = {0, 0}, rotated[2] = {0, 0};
	while (reclaimed < nr && budget && !(done[0] && done[1])) {
		bool file;
		if (done[0] || done[1] || split.w[0] <= 0 || split.w[1] <= 0) {
			/* one type: the other is out, or has no weight (SCAN_FILE: anon only
			 * once the file lists ran out) */
			file = done[0] || (!done[1] && split.w[1] > 0);
		} else { /* SCAN_FRACT: a smooth weighted round robin of batches */
			credit[0] += split.w[0];
			credit[1] += split.w[1];
			file = credit[1] > credit[0];
			credit[file] -= split.w[0] + split.w[1];
		}
		uint64_t victims[ISOLATE_BATCH], scanned0 = *scanned, got0 = reclaimed;
		struct sws__folio_batch freed; /* shrink_folio_list()'s free_folios */
		freed.nr = 0;
		unsigned before[ISOLATE_BATCH], activated = 0, aged = 0;
		bool end = false;
		unsigned n = isolate_victims(cpu, mm, memcg, file, nr - reclaimed, &budget, scanned, victims, before,
					     &activated, &end);
		if (end)
			done[file] = true;
		/* shrink_folio_list(): every isolated folio is tried, the workingset
		 * clock aged for each activation in scan order, as if one scan step
		 * and its folio's reclaim came at a time. */
		for (unsigned i = 0; i < n; i++) {
			uint64_t pfn = victims[i];
			if (before[i] > aged) {
				atomic_fetch_add(&mm->nonresident_age, before[i] - aged);
				aged = before[i];
			}
			struct sws_folio *f = mm_folio(mm, pfn);
			uint64_t nr_pages = folio_nr(f);
			/* a dirty file page is the flusher's write, not reclaim's */
			bool writes = !file && anon_pageout_writes(f);
			int rc = file ? reclaim_file_folio(cpu, mm, pfn) : sws__mm_pageout_folio(cpu, mm, pfn);
			if (rc == 0) {
				reclaimed += nr_pages;
				io[file] += writes ? nr_pages : 0;
				if (!folio_batch_add(&freed, pfn))
					sws__mm_folio_batch_free(cpu, mm, &freed);
				continue;
			}
			if (rc == SWS_EAGAIN)
				continue; /* split: its pages are back on the list */
			sws__mm_lru_add(mm, pfn, true); /* could not reclaim it: keep, activated */
			folio_unlock(f);
			if (rc == SWS_ENOSPC)
				done[0] = true; /* swap is full: scanning anon on will not help */
		}
		sws__mm_folio_batch_free(cpu, mm, &freed);
		if (activated > aged)
			atomic_fetch_add(&mm->nonresident_age, activated - aged);
		uint64_t steps = *scanned - scanned0, got = reclaimed - got0;
		rotated[file] += steps > got ? steps - got : 0;
		by_type[file] += got;
	}
	if (atomic_load_explicit(&mm->file_used, memory_order_relaxed)) {
		struct sws_memcg *mc = &mm->memcgs[memcg];
		mm_lock(mm, &mc->lru_lock, SWS_MM_lock_lru_contended);
		for (int t = 0; t < 2; t++) {
			if (io[t] || rotated[t])
				sws___mm_lru_note_cost(mm, mc, t, io[t], rotated[t]);
			/* snapshot_refaults() */
			mc->refaults[t] = atomic_load_explicit(&mc->workingset_activate[t], memory_order_relaxed);
		}
		sws_spin_unlock(&mc->lru_lock);
	}
	return reclaimed;
}

int sws__mm_reclaim_priority(uint64_t scanned, uint64_t target, bool fell_short)
{
	if (fell_short)
		return 0;
	uint64_t sum = 0;
	int priority = DEF_PRIORITY;
	for (; priority > 0; priority--) {
		sum += target >> priority;
		if (sum >= scanned)
			break;
	}
	return priority;
}

/* shrink_slab() after each priority of do_try_to_free_pages()'s loop, from
 * DEF_PRIORITY down to the one the pass over @memcg reached. */
static void shrink_slab(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, int lowest)
{
	for (int priority = DEF_PRIORITY; priority >= lowest; priority--)
		sws__zswap_shrinker_scan(mm->zswap, cpu, memcg, priority);
}

/* One LRU pass over @memcg, then shrink_slab() at the priorities it took, the
 * lowest not below @floor (kswapd's balance_pgdat() stops at 1). */
static uint64_t shrink_node_memcg(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr,
				  unsigned types, int floor, uint64_t by_type[2])
{
	uint64_t scanned, target;
	uint64_t got = shrink_memcg(cpu, mm, memcg, nr, types, &scanned, &target, by_type);
	if (mm->zswap) {
		int lowest = sws__mm_reclaim_priority(scanned, target, got < nr);
		shrink_slab(cpu, mm, memcg, lowest > floor ? lowest : floor);
	}
	return got;
}

/* Reclaim @nr pages of the LRU @types from @memcg (@memcg_only), or from
 * every memcg in turn; @by_type[file] adds up what came of each type. */
static uint64_t shrink(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr, bool memcg_only,
		       unsigned types, int floor, uint64_t by_type[2])
{
	if (memcg_only)
		return shrink_node_memcg(cpu, mm, memcg, nr, types, floor, by_type);
	/* Global reclaim: memcgs in turn (round robin), until enough came back. */
	uint64_t reclaimed = 0;
	for (uint32_t tries = 0; tries < mm->nr_memcgs && reclaimed < nr; tries++) {
		uint32_t m = atomic_fetch_add((_Atomic uint32_t *)&mm->reclaim_memcg_rr, 1);
		m = mm->nr_memcgs > 1 ? m % mm->nr_memcgs : 0; /* no division for the root alone */
		reclaimed += shrink_node_memcg(cpu, mm, (uint16_t)m, nr - reclaimed, types, floor, by_type);
	}
	return reclaimed;
}

uint64_t sws__mm_shrink(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr,
			bool memcg_only, uint64_t by_type[2])
{
	/* direct reclaim: do_try_to_free_pages() */
	return shrink(cpu, mm, memcg, nr, memcg_only, SWS_MM_LRU_ANON | SWS_MM_LRU_FILE, 0, by_type);
}

uint64_t sws_mm_reclaim_lru(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr, unsigned types)
{
	if (!cpu || !mm || memcg >= mm->nr_memcgs)
		return 0;
	uint64_t t0 = mm_kernel_enter(mm, cpu), by_type[2] = {0, 0};
	uint64_t got = shrink(cpu, mm, memcg, nr, memcg != 0, types, 0, by_type);
	mm_kernel_exit(mm, cpu, t0);
	return got;
}

/*
 * A recorded reclaim of @nr pages of @types from @memcg (not the root): from
 * now on its charges leave their reclaim to the records (memcontrol.c). What
 * its own charges reclaimed of the record's LRU type (the first charge that
 * found it full, or one that found no record) counts first; a record of both
 * types uses either. @return the pages so counted.
 */
static uint64_t recorded_credit(struct sws_mm *mm, uint16_t memcg, uint64_t nr, unsigned types)
{
	struct sws_memcg *mc = &mm->memcgs[memcg];
	atomic_store_explicit(&mc->reclaim_recorded, true, memory_order_relaxed);
	uint64_t taken = 0;
	for (int t = 0; t < 2 && taken < nr; t++) {
		if (!(types & (t ? SWS_MM_LRU_FILE : SWS_MM_LRU_ANON)))
			continue;
		uint64_t credit = atomic_load_explicit(&mc->reclaim_credit[t], memory_order_relaxed), take;
		do
			take = credit < nr - taken ? credit : nr - taken;
		while (!atomic_compare_exchange_weak(&mc->reclaim_credit[t], &credit, credit - take));
		taken += take;
	}
	return taken;
}

uint64_t sws_mm_reclaim_recorded(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr,
				 unsigned types)
{
	if (!cpu || !mm || memcg >= mm->nr_memcgs)
		return 0;
	if (!nr) { /* a reclaim's begin */
		if (!memcg || !mm->memcgs[memcg].limit)
			return 0; /* memory.high's reclaim: its usage is not the limit's */
		atomic_store_explicit(&mm->memcgs[memcg].reclaim_recorded, true, memory_order_relaxed);
		atomic_store_explicit(&mm->memcgs[memcg].reclaim_begins, true, memory_order_relaxed);
		uint64_t over = sws__mm_memcg_full(mm, memcg);
		return over ? sws_mm_reclaim_lru(cpu, mm, memcg, over, SWS_MM_LRU_ANON | SWS_MM_LRU_FILE) : 0;
	}
	uint64_t taken = memcg ? recorded_credit(mm, memcg, nr, types) : 0;
	if (!memcg || taken == nr)
		return taken + (nr > taken ? sws_mm_reclaim_lru(cpu, mm, memcg, nr - taken, types) : 0);
	uint64_t t0 = mm_kernel_enter(mm, cpu), by_type[2] = {0, 0}, want = nr - taken;
	uint64_t got = shrink(cpu, mm, memcg, want, true, types, 0, by_type);
	mm_kernel_exit(mm, cpu, t0);
	/* a large folio gave more pages than the record counts: the next records' */
	uint64_t excess = got > want ? got - want : 0;
	for (int t = 0; t < 2 && excess; t++) {
		uint64_t e = excess < by_type[t] ? excess : by_type[t];
		atomic_fetch_add_explicit(&mm->memcgs[memcg].reclaim_credit[t], e, memory_order_relaxed);
		excess -= e;
	}
	return taken + got;
}

/*
 * The anonymous folio mapped at @addr of @sp, when it is on @memcg's LRU
 * lists: isolated and paged out as shrink_folio_list() does a victim (its
 * scan and its write noted as a pass notes them). A large folio reclaim
 * splits is taken again at @addr. @return the pages reclaimed, 0 for none.
 */
static uint64_t reclaim_folio_at(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t addr,
				 uint16_t memcg)
{
	for (int tries = 0; tries < 2; tries++) {
		sws_spinlock_t *ptl = pte_lockptr(sp, addr);
		mm_lock(mm, ptl, SWS_MM_lock_ptl_contended);
		uint64_t *pte = sws___pte_lookup(sp, addr);
		uint64_t v = pte ? *pte : 0;
		sws_spin_unlock(ptl);
		if (!pte_present(v) || (v & PTE_ZEROPAGE))
			return 0;
		uint64_t pfn = pte_pfn(v);
		struct sws_folio *f = mm_folio(mm, pfn);
		if (!folio_trylock(f))
			return 0;
		mm_lock(mm, ptl, SWS_MM_lock_ptl_contended); /* still mapped there (not freed and reused)? */
		bool same = pte_present(*pte) && pte_pfn(*pte) == pfn;
		sws_spin_unlock(ptl);
		if (!same || folio_test(f, PG_free) || folio_test(f, PG_file) || !folio_test(f, PG_lru) ||
		    f->memcg != memcg) {
			folio_unlock(f);
			return 0;
		}
		sws__mm_lru_del(mm, pfn);
		uint64_t nr = folio_nr(f);
		mm_count(mm, cpu, SWS_MM_pgscan, nr);
		mm_cost(cpu, SWS_COST_rmap, 1); /* folio_referenced() */
		folio_clear(f, PG_young | PG_referenced);
		bool writes = anon_pageout_writes(f);
		int rc = sws__mm_pageout_folio(cpu, mm, pfn);
		if (rc == SWS_EAGAIN)
			continue; /* split: its pages are back on the list */
		if (rc) {
			sws__mm_lru_add(mm, pfn, true);
			folio_unlock(f);
			return 0;
		}
		struct sws__folio_batch freed;
		freed.nr = 0;
		folio_batch_add(&freed, pfn);
		sws__mm_folio_batch_free(cpu, mm, &freed);
		if (atomic_load_explicit(&mm->file_used, memory_order_relaxed) && writes) {
			struct sws_memcg *mc = &mm->memcgs[memcg];
			mm_lock(mm, &mc->lru_lock, SWS_MM_lock_lru_contended);
			sws___mm_lru_note_cost(mm, mc, 0, nr, 0);
			sws_spin_unlock(&mc->lru_lock);
		}
		return nr;
	}
	return 0;
}

uint64_t sws_mm_reclaim_folio_at(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr,
				 uint16_t memcg, uint64_t nr)
{
	if (!cpu || !mm || memcg >= mm->nr_memcgs || !nr)
		return 0;
	struct sws_space *sp = sws__mm_space(mm, asid);
	addr &= ~(uint64_t)(SWS_PAGE_SIZE - 1);
	/* With the reclaim's begins recorded, the named folio goes whatever the
	 * credit (its charges reclaimed nothing on their own) */
	const bool begins = memcg && atomic_load_explicit(&mm->memcgs[memcg].reclaim_begins, memory_order_relaxed);
	uint64_t taken = memcg && !begins ? recorded_credit(mm, memcg, nr, SWS_MM_LRU_ANON) : 0, got = 0;
	if (taken == nr)
		return nr;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	sws__mm_lru_add_drain(cpu, mm); /* shrink_inactive_list(): this CPU's new folios first */
	/* the model's folios over the kernel's, page by page, up to what is left */
	if (nr <= (UINT64_MAX >> 12) && sws__mm_range_ok(sp, addr, nr * SWS_PAGE_SIZE))
		for (uint64_t i = 0; i < nr && taken + got < nr; i++)
			got += reclaim_folio_at(cpu, mm, sp, addr + i * SWS_PAGE_SIZE, memcg);
	/* not the model's to take: as its reclaim picks them; with the begins
	 * recorded, the next begin settles the memcg's usage instead */
	if (taken + got < nr && !begins) {
		uint64_t by_type[2] = {0, 0};
		got += shrink(cpu, mm, memcg, nr - taken - got, memcg != 0, SWS_MM_LRU_ANON, 0, by_type);
	}
	mm_kernel_exit(mm, cpu, t0);
	if (memcg && taken + got > nr) /* a model folio larger than the kernel's: the next records' */
		atomic_fetch_add_explicit(&mm->memcgs[memcg].reclaim_credit[0], taken + got - nr, memory_order_relaxed);
	return taken + got;
}

uint64_t sws_mm_reclaim(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr)
{
	return sws_mm_reclaim_lru(cpu, mm, memcg, nr, SWS_MM_LRU_ANON | SWS_MM_LRU_FILE);
}

static uint64_t kswapd(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t budget)
{
	if (mm->zswap) /* the zswap shrink worker is deferred work too */
		sws__zswap_shrink_worker(mm->zswap, cpu, budget);
	if (mm->cfg.policy == SWS_RECLAIM_LRU)
		return 0; /* the exact-LRU reference reclaims on demand only */
	int64_t free_pages = sws__mm_free_pages(mm);
	if (free_pages >= (int64_t)mm->cfg.wmark_low)
		return 0;
	uint64_t want = mm->cfg.wmark_high - (uint64_t)free_pages;
	uint64_t by_type[2] = {0, 0};
	uint64_t got = shrink(cpu, mm, 0, want < budget ? want : budget, false, SWS_MM_LRU_ANON | SWS_MM_LRU_FILE, 1,
			      by_type);
	return got >= want ? 0 : want - got;
}

bool sws_mm_kswapd_wanted(struct sws_mm *mm)
{
	return mm && ((mm->zswap && sws__zswap_shrink_queued(mm->zswap)) ||
		      (mm->cfg.policy != SWS_RECLAIM_LRU && sws__mm_free_pages(mm) < (int64_t)mm->cfg.wmark_low));
}

uint64_t sws_mm_kswapd(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t budget)
{
	if (!cpu || !mm)
		return 0;
	/* Cheap when idle: no clock read unless there is work. */
	if (!sws_mm_kswapd_wanted(mm))
		return 0;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	uint64_t left = kswapd(cpu, mm, budget);
	mm_kernel_exit(mm, cpu, t0);
	return left;
}
