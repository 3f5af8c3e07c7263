/*
 * zswap_glue.c - the memory model's side of zswap: enabling it, storing a
 * folio page by page (all or nothing, mTHP stores), and the writeback
 * callbacks zswap calls: pin the slot with a new swap-cache folio, write the
 * page to the device, leave the clean folio at the reclaim end of the inactive
 * list (zswap_writeback_entry's mm half).
 */
#include "../common/rcu.h"
#include "../zswap/zswap_mm.h"
#include "mm_internal.h"

static void count_cb(void *ctx, struct sws_cpu *cpu, enum sws_mm_counter c, uint64_t n)
{
	mm_count(ctx, cpu, c, n);
}

static void slot_free_cb(void *ctx, unsigned type, uint64_t off, unsigned nr)
{
	struct sws_mm *mm = ctx;
	sws__zswap_invalidate(mm->zswap, type, off, nr);
}

static void zswap_release_cb(void *ctx, void *entry)
{
	struct sws_mm *mm = ctx;
	sws__zswap_entry_release(mm->zswap, entry);
}

/* obj_cgroup_charge_zswap()'s page counter: the pool's pages of @memcg
 * (cgroup v2), beyond its limit if need be (the store runs in reclaim). */
static void charge_cb(void *ctx, uint16_t memcg, int64_t pages)
{
	struct sws_mm *mm = ctx;
	if (pages > 0)
		atomic_fetch_add(&mm->memcgs[memcg].usage, (uint64_t)pages);
	else
		atomic_fetch_sub(&mm->memcgs[memcg].usage, (uint64_t)-pages);
}

/* Pin @e with a new folio in the swap cache (no reclaim: we are reclaim). */
static int wb_begin(void *ctx, struct sws_cpu *cpu, sws_entry_t e, uint16_t memcg, uint64_t *token)
{
	struct sws_mm *mm = ctx;
	uint64_t pfn;
	int rc = sws__mm_folio_alloc_noreclaim(cpu, mm, memcg, &pfn);
	if (rc)
		return rc;
	mm_count(mm, cpu, SWS_MM_pgalloc, 1);
	rc = sws_swap_cache_add(cpu, e, 1, pfn, NULL);
	if (rc) {
		sws__mm_folio_free(cpu, mm, pfn);
		return rc;
	}
	struct sws_folio *f = mm_folio(mm, pfn);
	f->swap = e;
	f->seed = sws__mm_slot_seed_get(mm, e);
	folio_set(f, PG_swapcache);
	*token = pfn;
	return 0;
}

/* Write the page out and keep the folio for reclaim, or (@page NULL: the
 * entry went meanwhile) let it go. */
static bool wb_end(void *ctx, struct sws_cpu *cpu, sws_entry_t e, uint64_t token, const void *page)
{
	struct sws_mm *mm = ctx;
	struct sws_folio *f = mm_folio(mm, token);
	sws_entry_t t = e;
	if (page && mm_io_target(cpu, mm, e, 1, true, &t)) {
		/* vswap: no physical slot for it; the folio keeps the page, dirty */
		folio_set(f, PG_dirty);
		sws__mm_lru_add(mm, token, false);
		folio_unlock(f);
		return false;
	}
	if (page) {
		sws__mm_cost_zcomp(cpu, mm, f->seed, true); /* zswap_writeback_entry() decompresses */
		/* __swap_writepage() of the decompressed page; writeback waits for the write */
		if (sws__mm_swap_writepage(cpu, mm, f, t, 1, page)) {
			/* The write failed: the folio keeps the only copy. It stays in the swap
			 * cache, dirty, on the LRU, for reclaim to write again later. */
			folio_set(f, PG_dirty);
			sws__mm_lru_add(mm, token, false);
			folio_unlock(f);
			return false;
		}
		/* zswap_writeback_entry(): the folio, clean and PG_reclaim, stays in the
		 * swap cache on the LRU; the write's end rotates it to the inactive
		 * list's reclaim end (folio_rotate_reclaimable()). A fault meanwhile
		 * finds it there; otherwise reclaim drops it, clean: no second store. */
		sws__mm_folio_rotate_reclaimable(mm, token);
		folio_unlock(f);
		return true;
	}
	sws_swap_cache_del(cpu, e, 1, token, 0);
	folio_clear(f, PG_swapcache);
	sws__mm_folio_free(cpu, mm, token);
	return false;
}

void sws__mm_cost_zcomp(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t seed, bool decompress)
{
	struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
	if (!vc)
		return;
	/* SWS_COST_LIST: per compressor, SWS_NR_CONTENT compress classes then as
	 * many decompress classes, in the content classes' order */
	_Static_assert(SWS_COST_decompress_lz4_zero == SWS_COST_compress_lz4_zero + SWS_NR_CONTENT &&
			       SWS_COST_compress_zstd_zero == SWS_COST_compress_lz4_zero + 2 * SWS_NR_CONTENT &&
			       SWS_COST_compress_lz4_random == SWS_COST_compress_lz4_zero + SWS_CONTENT_RANDOM,
		       "the compression classes follow the content classes");
	unsigned c = SWS_COST_compress_lz4_zero + (sws__zswap_alg(mm->zswap) == SWS_ZCOMP_ZSTD ? 2 * SWS_NR_CONTENT : 0) +
		     (decompress ? SWS_NR_CONTENT : 0) + sws__mm_content_class(mm, seed);
	sws__vt_charge(vc, (enum sws_cost)c, SWS_PAGE_SIZE);
}

struct folio_pages {
	struct sws_mm *mm;
	const struct sws_folio *f;
	struct sws_cpu *cpu;
};

/* The page's bytes exist in a real folio: making them is the simulator's
 * work, outside the task's time. Compressing them is zswap_store()'s. */
static void fill_subpage(void *ctx, unsigned i, void *page)
{
	const struct folio_pages *fp = ctx;
	uint64_t t0 = mm_untimed_begin(fp->mm, fp->cpu, false);
	sws_mm_page_content(fp->mm, folio_page_seed(fp->f, i), 0, page);
	mm_untimed_end(fp->mm, fp->cpu, t0, false);
}

int sws__mm_zswap_store_folio(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f,
			      sws_entry_t entry)
{
	SWS_ASSERT_FOLIO_LOCKED(f);
	const unsigned nr = 1u << f->order;
	struct folio_pages fp = {mm, f, cpu};
	for (unsigned i = 0; i < nr; i++) /* zswap_compress() of each page */
		sws__mm_cost_zcomp(cpu, mm, folio_page_seed(f, i), false);
	int rc = sws__zswap_store_folio(mm->zswap, cpu, entry, nr, f->memcg, fill_subpage, &fp);
	if (rc)
		return rc;
	mm_count(mm, cpu, SWS_MM_zswpout, nr); /* counted once the whole folio is in */
	_Atomic uint64_t *o = &mm->pcpu[sws__cpu_id(cpu)].zswpout_order[f->order];
	sws_store_relaxed(o, sws_load_relaxed(o) + 1);
	return 0;
}

int sws_mm_zswap_enable(struct sws_mm *mm, const struct sws_zswap_config *cfg)
{
	static const struct sws_zswap_config defaults = {0};
	if (!mm)
		return SWS_EINVAL;
	if (!cfg)
		cfg = &defaults;
	if (cfg->version > SWS_ZSWAP_CONFIG_VERSION)
		return SWS_EVERSION;
	if (mm->zswap)
		return SWS_EEXIST;
	struct sws_zswap_wb_ops wb = {wb_begin, wb_end, mm, charge_cb};
	int rc = sws__zswap_create(mm->sim, cfg, mm->cfg.ram_pages, &wb, count_cb, mm, &mm->zswap);
	if (rc)
		return rc;
	sws__sim_hook_slot_free(mm->sim, mm, slot_free_cb, zswap_release_cb);
	return 0;
}

void sws__mm_zswap_destroy(struct sws_mm *mm)
{
	if (!mm->zswap)
		return;
	sws__sim_hook_slot_free(mm->sim, mm, NULL, NULL);
	sws_synchronize_rcu(); /* no slot free is still inside the hook */
	sws__zswap_destroy(mm->zswap);
	mm->zswap = NULL;
}

int sws_mm_zswap_set_compressor(struct sws_mm *mm, const char *name)
{
	if (!mm || !name)
		return SWS_EINVAL;
	return mm->zswap ? sws__zswap_set_compressor(mm->zswap, name) : SWS_ENODEV;
}

int sws_mm_zswap_memcg(struct sws_mm *mm, uint16_t memcg, uint64_t max_bytes, bool writeback)
{
	if (!mm || memcg >= mm->nr_memcgs)
		return SWS_EINVAL;
	return mm->zswap ? sws__zswap_memcg_set(mm->zswap, memcg, max_bytes, writeback) : SWS_ENODEV;
}

int sws_mm_zswap_memcg_stats(struct sws_mm *mm, uint16_t memcg, uint64_t *zswap_bytes,
			     uint64_t *zswapped_bytes)
{
	if (!mm || memcg >= mm->nr_memcgs)
		return SWS_EINVAL;
	if (!mm->zswap) {
		if (zswap_bytes)
			*zswap_bytes = 0;
		if (zswapped_bytes)
			*zswapped_bytes = 0;
		return zswap_bytes && zswapped_bytes ? 0 : SWS_EINVAL;
	}
	return sws__zswap_memcg_stats(mm->zswap, memcg, zswap_bytes, zswapped_bytes);
}

uint64_t sws_mm_zswap_writeback_only(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr_pages)
{
	if (!cpu || !mm || !mm->zswap || memcg >= mm->nr_memcgs || !nr_pages)
		return 0;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	uint64_t done = sws__zswap_writeback_only(mm->zswap, cpu, memcg, nr_pages);
	mm_kernel_exit(mm, cpu, t0);
	return done;
}

bool sws_mm_zswap_shrink_pending(const struct sws_mm *mm)
{
	return mm && mm->zswap && sws__zswap_shrink_queued(mm->zswap);
}

uint64_t sws_mm_zswap_shrink(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t budget)
{
	if (!cpu || !mm || !mm->zswap || !sws__zswap_shrink_queued(mm->zswap))
		return 0; /* nothing queued: no clock read */
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	uint64_t done = sws__zswap_shrink_worker(mm->zswap, cpu, budget);
	mm_kernel_exit(mm, cpu, t0);
	return done;
}
