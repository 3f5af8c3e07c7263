/*
 * test_zswap.c - zswap through the memory model: verified store/load round
 * trips, zero pages kept out, incompressible pages stored raw (or refused
 * without writeback, staying resident), the pool limit and its accept-
 * threshold hysteresis, second chance alone, the shrink worker's writeback,
 * invalidation on free, mTHP stores (limits once per folio), the compressor
 * switch, memcg zswap.max, cgroup v2 and v1 charging, pswpout against the
 * order counters, and the three shrinker schemes: the new ones must cut disk
 * swap-ins. Both backends; nothing leaks. Then zswap alone, with a fake
 * writeback that says what it wrote: the kernel's LRU walks (the shrink
 * worker's failures, the shrinker's batches), memory.zswap.max's one entry,
 * the shrinker's count, the worker queued on any refusal, the schemes and
 * the swap-ins.
 */
#include <string.h>

#include "testutil.h"
#include "zswap/zswap_mm.h"

struct env {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	uint32_t asid;
};

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x20000000ull)

#define assert_access(call)                                                   \
	do {                                                                  \
		int a__rc = (call);                                           \
		if (a__rc < 0)                                                \
			fail_msg("%s: got %s", #call, sws_error_name(a__rc)); \
	} while (0)

static void env_open(struct env *e, enum sws_backend b, uint64_t ram, const uint32_t weight[SWS_NR_CONTENT],
		     const struct sws_zswap_config *zc, uint32_t mmflags)
{
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &e->sim));
	assert_sws(0, sws_cpu_attach(e->sim, &e->cpu));
	int type;
	struct sws_device_config dc = {.nr_slots = 32768, .flags = SWS_SWP_SOLIDSTATE,
				       .backing = SWS_BACKING_MEMORY};
	assert_sws(0, sws_swapon(e->sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = ram, .seed = 9, .flags = SWS_MM_VERIFY | mmflags};
	if (weight)
		memcpy(mc.content_weight, weight, sizeof(mc.content_weight));
	assert_sws(0, sws_mm_create(e->sim, &mc, &e->mm));
	assert_sws(0, sws_mm_zswap_enable(e->mm, zc));
	assert_sws(0, sws_mm_space_create(e->mm, 0, &e->asid));
}

static void env_close(struct env *e)
{
	struct sws_mm_stats s;
	sws_mm_stats_get(e->mm, &s);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	/* count_swpout_vm_event() on every path that writes to a device, zswap's
	 * writeback included: pswpout is the order counters' pages. */
	uint64_t pages = 0;
	for (unsigned o = 0; o < SWS_NR_ORDERS; o++)
		pages += s.swpout[o] << o;
	assert_int_equal(s.counters[SWS_MM_pswpout], pages);
	assert_consistent(e->sim);
	sws_mm_destroy(e->mm);
	sws_sim_quiesce(e->sim);
	struct sws_memory_usage mu;
	sws_sim_memory_usage(e->sim, &mu);
	assert_int_equal(mu.bytes[SWS_MEM_zswap] + mu.bytes[SWS_MEM_zswap_tree] + mu.bytes[SWS_MEM_zspage] +
				 mu.bytes[SWS_MEM_zs_meta] + mu.bytes[SWS_MEM_compressor],
			 0);
	uint64_t total, freeslots;
	sws_swap_totals(e->sim, &total, &freeslots);
	assert_int_equal(total, freeslots);
	sws_cpu_detach(e->cpu);
	sws_sim_destroy(e->sim);
}

static void touch(struct env *e, unsigned from, unsigned to, bool write)
{
	for (unsigned p = from; p < to; p++)
		assert_access(sws_mm_access(e->cpu, e->mm, e->asid, PG(p), write));
}

static const uint32_t text_mix[SWS_NR_CONTENT] = {0, 0, 1, 2, 0};

/* env_open() with text pages, then a memcg of @limit pages (0: no limit) and an
 * address space in it. @return the memcg; *@asid the space. */
static uint16_t env_open_memcg(struct env *e, enum sws_backend b, uint64_t ram, const struct sws_zswap_config *zc,
			       uint64_t limit, uint32_t *asid)
{
	uint16_t cg;
	env_open(e, b, ram, text_mix, zc, 0);
	assert_sws(0, sws_mm_memcg_create(e->mm, limit, &cg));
	assert_sws(0, sws_mm_space_create(e->mm, cg, asid));
	return cg;
}

/* Everything swapped goes through zswap and comes back identical. */
static void test_roundtrip(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_zswap_config zc = {.max_pool_percent = 100};
	struct env e;
	env_open(&e, b, 256, text_mix, &zc, 0);
	touch(&e, 0, 600, true);
	touch(&e, 0, 600, false);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_zswpout] > 300);
	assert_true(s.counters[SWS_MM_zswpin] > 300);
	assert_int_equal(s.counters[SWS_MM_pswpout], 0); /* all fit the pool */
	assert_int_equal(s.counters[SWS_MM_pswpin], 0);
	assert_true(s.counters[SWS_MM_verify_ok] >= s.counters[SWS_MM_zswpin]);
	assert_true(s.stored_pages > 0 && s.pool_total_size > 0);
	/* compressed: lz4 gets about 1.7-1.8x on these text and index pages */
	assert_true(s.pool_total_size * 3 < s.stored_pages * SWS_PAGE_SIZE * 2);
	uint64_t bytes, pages;
	assert_sws(0, sws_mm_zswap_memcg_stats(e.mm, 0, &bytes, &pages));
	assert_int_equal(pages, s.stored_pages * SWS_PAGE_SIZE); /* zswapped: original bytes */
	assert_true(bytes > 0 && bytes < pages);
	/* freeing the slots invalidates their entries */
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, e.asid, PG(0), 600 * SWS_PAGE_SIZE));
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.stored_pages, 0);
	assert_int_equal(s.pool_total_size, 0);
	env_close(&e);
}

/* Zero pages never reach zswap; random pages are stored raw, or refused without writeback. */
static void test_zero_and_incompressible(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	static const uint32_t zero_mix[SWS_NR_CONTENT] = {1, 0, 0, 0, 0};
	static const uint32_t random_mix[SWS_NR_CONTENT] = {0, 0, 0, 0, 1};
	struct sws_zswap_config zc = {.max_pool_percent = 100};
	struct env e;
	env_open(&e, b, 128, zero_mix, &zc, 0);
	touch(&e, 0, 512, true);
	touch(&e, 0, 512, false);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_zswpout], 0);
	assert_true(s.counters[SWS_MM_swpout_zero] > 300);
	assert_true(s.counters[SWS_MM_swpin_zero] > 300);
	env_close(&e);

	env_open(&e, b, 128, random_mix, &zc, 0);
	touch(&e, 0, 512, true);
	s = sws_test_mm_stats(e.mm);
	assert_true(s.stored_incompressible_pages >= 100); /* raw pages fill the 128-page pool fast */
	assert_int_equal(s.stored_incompressible_pages, s.stored_pages);
	touch(&e, 0, 512, false);
	env_close(&e);

	/* memory.zswap.writeback = 0: incompressible pages are refused and stay resident. */
	env_open(&e, b, 128, random_mix, &zc, 0);
	assert_sws(0, sws_mm_zswap_memcg(e.mm, 0, 0, false));
	int rc = 0;
	for (unsigned p = 0; p < 512 && rc >= 0; p++)
		rc = sws_mm_access(e.cpu, e.mm, e.asid, PG(p), true);
	assert_sws(SWS_EKILLED, rc); /* nothing can leave RAM: the OOM killer takes the task */
	s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_reject_compress_poor] > 0);
	assert_int_equal(s.counters[SWS_MM_pswpout], 0);
	assert_int_equal(s.stored_pages, 0);
	env_close(&e);
}

/* The pool limit, its accept threshold, and the shrink worker's writeback. */
static void test_limit_and_writeback(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_zswap_config zc = {.max_pool_percent = 10, .accept_threshold_percent = 50};
	struct env e;
	env_open(&e, b, 512, text_mix, &zc, 0);
	touch(&e, 0, 4096, true);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_pool_limit_hit] > 0);
	assert_true(s.pool_total_size <= s.pool_limit_pages * SWS_PAGE_SIZE);
	assert_true(s.counters[SWS_MM_pswpout] > 0); /* refused stores went to the device */
	/* Every entry on the LRU is fresh: a run of the worker gives 16 of them their
	 * second chance (16 failures) and gives up. Each store refused while the pool
	 * is full queues it again, and it gets further each time, until it writes back
	 * down to the accept threshold. */
	uint64_t wb = 0, accept = s.pool_limit_pages * SWS_PAGE_SIZE / 2;
	assert_int_equal(sws_mm_zswap_shrink(e.cpu, e.mm, 1u << 20), 0);
	for (unsigned p = 4095; sws_test_mm_stats(e.mm).pool_total_size > accept && p > 3800; p--) {
		assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(p), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
		wb += sws_mm_zswap_shrink(e.cpu, e.mm, 1u << 20);
	}
	s = sws_test_mm_stats(e.mm);
	assert_true(wb > 0);
	assert_int_equal(s.counters[SWS_MM_zswpwb], wb);
	assert_int_equal(s.counters[SWS_MM_written_back_pages], wb);
	assert_true(s.pool_total_size <= s.pool_limit_pages * SWS_PAGE_SIZE / 2 + 8 * SWS_PAGE_SIZE);
	/* Everything reads back right, from zswap or from the device. */
	touch(&e, 0, 4096, false);
	s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_zswpin] > 0 && s.counters[SWS_MM_pswpin] > 0);
	assert_true(s.counters[SWS_MM_nr_disk_swapins] > 0);
	env_close(&e);
}

static void pageout(struct env *e, uint32_t asid, unsigned p)
{
	assert_sws(0, sws_mm_madvise(e->cpu, e->mm, asid, PG(p), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
}

/*
 * zswap_writeback_entry(): the folio written back stays in the swap cache,
 * clean, at the reclaim end of the inactive list. A fault on it meanwhile is a
 * swap-cache hit (no disk read); reclaim then drops it clean (no second store,
 * no second write).
 */
static void test_writeback_folio_kept(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_zswap_config zc = {.max_pool_percent = 1, .accept_threshold_percent = 50};
	struct env e;
	env_open(&e, b, 512, text_mix, &zc, 0);
	touch(&e, 0, 64, true);
	for (unsigned p = 0; p < 40; p++)
		pageout(&e, e.asid, p); /* the pool fills: the shrink worker is queued */
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_true(s0.counters[SWS_MM_pool_limit_hit] > 0);
	uint64_t wb = 0;
	for (int i = 0; i < 20 && !wb; i++)
		wb += sws_mm_zswap_shrink(e.cpu, e.mm, 1u << 20);
	assert_true(wb >= 2);
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(s1.swapcache_pages, s0.swapcache_pages + wb);
	assert_int_equal(s1.counters[SWS_MM_pswpout], s0.counters[SWS_MM_pswpout] + wb);
	/* Reclaim takes one of them first: clean, nothing stored or written. */
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, 0, 1), 1);
	struct sws_mm_stats s2 = sws_test_mm_stats(e.mm);
	assert_int_equal(s2.counters[SWS_MM_zswpout], s1.counters[SWS_MM_zswpout]);
	assert_int_equal(s2.counters[SWS_MM_pswpout], s1.counters[SWS_MM_pswpout]);
	assert_int_equal(s2.swapcache_pages, s1.swapcache_pages - 1);
	/* The others (the pool's oldest entries: the first pages stored) fault
	 * back from the swap cache, neither from the device nor from zswap. */
	uint64_t hits = 0;
	for (unsigned p = 0; p < wb; p++) {
		struct sws_mm_stats x = sws_test_mm_stats(e.mm);
		touch(&e, p, p + 1, false);
		struct sws_mm_stats y = sws_test_mm_stats(e.mm);
		assert_int_equal(y.counters[SWS_MM_zswpin], x.counters[SWS_MM_zswpin]);
		hits += y.counters[SWS_MM_swapcache_hit] > x.counters[SWS_MM_swapcache_hit] &&
			y.counters[SWS_MM_pswpin] == x.counters[SWS_MM_pswpin];
	}
	assert_int_equal(hits, wb - 1);
	touch(&e, 0, 64, false);
	env_close(&e);
}

static void unmap(struct env *e, unsigned p)
{
	assert_sws(0, sws_mm_munmap(e->cpu, e->mm, e->asid, PG(p), SWS_PAGE_SIZE));
}

/*
 * The accept-threshold hysteresis alone (no shrink worker runs): once the pool
 * hit its limit, stores stay refused while it is between the accept threshold
 * and the limit, and those refusals are not pool_limit_hit; below the
 * threshold stores are taken again.
 */
static void test_accept_hysteresis(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_zswap_config zc = {.max_pool_percent = 4, .accept_threshold_percent = 50};
	struct env e;
	env_open(&e, b, 1024, text_mix, &zc, 0);
	touch(&e, 0, 400, true);
	unsigned next = 0;
	while (sws_test_mm_stats(e.mm).counters[SWS_MM_pool_limit_hit] == 0 && next < 400)
		pageout(&e, e.asid, next++);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pool_limit_hit], 1);
	assert_int_equal(s.counters[SWS_MM_pswpout], 1); /* the refused page went to the device */
	uint64_t limit = s.pool_limit_pages * SWS_PAGE_SIZE, accept = limit / 2;
	assert_true(s.pool_total_size >= limit);
	/* Free stored pages, oldest first, until the pool is just below its limit. */
	unsigned freed = 0;
	while (sws_test_mm_stats(e.mm).pool_total_size >= limit && freed < next - 1)
		unmap(&e, freed++);
	s = sws_test_mm_stats(e.mm);
	assert_true(s.pool_total_size < limit && s.pool_total_size > accept);
	uint64_t zswpout = s.counters[SWS_MM_zswpout], pswpout = s.counters[SWS_MM_pswpout];
	pageout(&e, e.asid, next++); /* in the band: still refused, not a limit hit */
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_zswpout], zswpout);
	assert_int_equal(s.counters[SWS_MM_pswpout], pswpout + 1);
	assert_int_equal(s.counters[SWS_MM_pool_limit_hit], 1);
	/* Below the accept threshold the pool takes stores again. */
	while (sws_test_mm_stats(e.mm).pool_total_size > accept && freed < next - 2)
		unmap(&e, freed++);
	assert_true(sws_test_mm_stats(e.mm).pool_total_size <= accept);
	pageout(&e, e.asid, next++);
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_zswpout], zswpout + 1);
	touch(&e, freed, 400, false); /* the rest reads back identical */
	env_close(&e);
}

/*
 * Second chance alone: the memcg at zswap.max writes back one entry before it
 * stores. Every entry on the LRU is freshly stored (referenced), so under the
 * new scheme that entry only loses its bit and the store is refused; the old
 * scheme writes back the oldest entry at once and stores.
 */
static void second_chance_run(enum sws_backend b, bool old_scheme)
{
	struct sws_zswap_config zc = {.max_pool_percent = 100,
				      .flags = old_scheme ? SWS_ZSWAP_OLD_SCHEME : 0};
	struct env e;
	uint32_t asid;
	uint16_t cg = env_open_memcg(&e, b, 1024, &zc, 0, &asid);
	assert_sws(0, sws_mm_zswap_memcg(e.mm, cg, 400 * 1024, true)); /* ~160 entries */
	for (unsigned p = 0; p < 600; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	unsigned next = 0;
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	while (s.counters[SWS_MM_zswpwb] == 0 && s.counters[SWS_MM_pswpout] == 0 && next < 600) {
		pageout(&e, asid, next++);
		s = sws_test_mm_stats(e.mm);
	}
	assert_true(next > 100 && next < 600); /* the LRU is longer than one writeback pass */
	if (old_scheme) {
		assert_true(s.counters[SWS_MM_zswpwb] > 0);
		assert_int_equal(s.counters[SWS_MM_zswpout], next); /* room made: the page went in */
	} else {
		assert_int_equal(s.counters[SWS_MM_zswpwb], 0);
		assert_int_equal(s.counters[SWS_MM_pswpout], 1); /* refused: to the device */
		assert_int_equal(s.counters[SWS_MM_zswpout], next - 1);
	}
	for (unsigned p = 0; p < 600; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), false));
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, asid));
	env_close(&e);
}

static void test_second_chance(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	second_chance_run(b, false);
	second_chance_run(b, true);
}

/* A large folio goes in whole: per-order zswpout; the compressor can change under way. */
static void test_mthp_and_compressor_switch(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_zswap_config zc = {.max_pool_percent = 100, .compressor = "lz4"};
	struct env e;
	env_open(&e, b, 1024, text_mix, &zc, 0);
	assert_sws(0, sws_mm_mmap(e.mm, e.asid, PG(0), 256 * SWS_PAGE_SIZE, SWS_MM_MAP_ORDER(4)));
	touch(&e, 0, 256, true);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(0), 128 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.zswpout_order[4], 8);
	assert_int_equal(s.counters[SWS_MM_zswpout], 128);
	assert_sws(SWS_EINVAL, sws_mm_zswap_set_compressor(e.mm, "lzma"));
	assert_sws(0, sws_mm_zswap_set_compressor(e.mm, "zstd:3"));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(128), 128 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_zswpout], 256);
	touch(&e, 0, 256, false); /* the lz4 pool's entries still load */
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_zswpin], 256);
	assert_int_equal(s.stored_pages, 0);
	env_close(&e);
}

/*
 * Large folios and the limits: checked once per folio, as the kernel does, so a
 * folio that finds room goes in whole even when it takes the pool over its
 * limit (by up to 511 pages); the next one is refused whole and goes to the
 * device. A folio with a page that cannot go in (incompressible, and the
 * memcg may not write back) leaves nothing in zswap: all or nothing.
 */
static void test_mthp_all_or_nothing(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	static const uint32_t random_mix[SWS_NR_CONTENT] = {0, 0, 0, 0, 1};
	struct sws_zswap_config zc = {.max_pool_percent = 5}; /* 12 pages of pool for 16 raw pages */
	struct env e;
	env_open(&e, b, 256, random_mix, &zc, 0);
	assert_sws(0, sws_mm_mmap(e.mm, e.asid, PG(0), 32 * SWS_PAGE_SIZE, SWS_MM_MAP_ORDER(4)));
	touch(&e, 0, 32, true);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.stored_pages, 16); /* over the 12-page limit: checked before the folio */
	assert_int_equal(s.counters[SWS_MM_zswpout], 16);
	assert_int_equal(s.zswpout_order[4], 1);
	assert_int_equal(s.counters[SWS_MM_pool_limit_hit], 0);
	assert_true(s.pool_total_size > s.pool_limit_pages * SWS_PAGE_SIZE);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(16), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.stored_pages, 16); /* the next folio is refused whole */
	assert_int_equal(s.counters[SWS_MM_pool_limit_hit], 1);
	assert_int_equal(s.swpout[4], 1);
	assert_int_equal(s.counters[SWS_MM_pswpout], 16);
	touch(&e, 0, 32, false);
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pswpin], 16);
	assert_int_equal(s.counters[SWS_MM_zswpin], 16);
	assert_int_equal(s.counters[SWS_MM_verify_ok], 32);
	env_close(&e);

	/* Half the pages do not compress and the memcg may not write back: the folio
	 * goes nowhere (it stays in RAM), and nothing of it stays in zswap. */
	static const uint32_t half_mix[SWS_NR_CONTENT] = {0, 0, 0, 1, 1};
	zc.max_pool_percent = 100;
	env_open(&e, b, 256, half_mix, &zc, 0);
	assert_sws(0, sws_mm_zswap_memcg(e.mm, 0, 0, false));
	assert_sws(0, sws_mm_mmap(e.mm, e.asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MM_MAP_ORDER(4)));
	touch(&e, 0, 16, true);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_reject_compress_poor] >= 1);
	assert_int_equal(s.stored_pages, 0);
	assert_int_equal(s.counters[SWS_MM_zswpout], 0);
	assert_int_equal(s.counters[SWS_MM_pswpout], 0);
	env_close(&e);
}

/* memory.zswap.max holds. */
static void test_memcg_zswap_max(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_zswap_config zc = {.max_pool_percent = 100};
	struct env e;
	uint32_t asid;
	uint16_t cg = env_open_memcg(&e, b, 256, &zc, 0, &asid);
	assert_sws(0, sws_mm_zswap_memcg(e.mm, cg, 64 * 1024, true));
	for (unsigned p = 0; p < 2048; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	uint64_t bytes, pages;
	assert_sws(0, sws_mm_zswap_memcg_stats(e.mm, cg, &bytes, &pages));
	assert_true(bytes <= 64 * 1024 + SWS_PAGE_SIZE);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_reject_reclaim_fail] + s.counters[SWS_MM_zswpwb] > 0);
	assert_sws(SWS_EINVAL, sws_mm_zswap_memcg(e.mm, 200, 0, true));
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, asid));
	env_close(&e);
}

/*
 * Memcg charging of the pool. Cgroup v2 (the default): the compressed bytes
 * are charged to the memcg (obj_cgroup_charge_zswap), so its pages in RAM and
 * its pool together stay within memory.max. Cgroup v1: nothing is charged,
 * the memcg keeps its whole limit in RAM and the pool comes on top.
 */
static void cgroup_charge_run(enum sws_backend b, uint32_t cgroup, uint64_t *ram, uint64_t *pool)
{
	struct sws_zswap_config zc = {.max_pool_percent = 100, .cgroup = cgroup};
	struct env e;
	uint32_t asid;
	uint16_t cg = env_open_memcg(&e, b, 4096, &zc, 512, &asid);
	for (unsigned p = 0; p < 800; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	uint64_t bytes, orig;
	assert_sws(0, sws_mm_zswap_memcg_stats(e.mm, cg, &bytes, &orig));
	*ram = s.anon_pages; /* the memcg's: nothing else runs */
	*pool = s.pool_total_size / SWS_PAGE_SIZE;
	if (cgroup == SWS_ZSWAP_CGROUP_V1) {
		assert_int_equal(bytes, 0); /* not charged: no zswap stats */
	} else {
		assert_int_equal(orig, s.stored_pages * SWS_PAGE_SIZE);
		assert_true(*ram + SWS_DIV_ROUND_UP(bytes, SWS_PAGE_SIZE) <= 512 + 32);
	}
	assert_true(s.stored_pages > 250);
	for (unsigned p = 0; p < 800; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), false));
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, asid));
	env_close(&e);
}

static void test_cgroup_charging(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	uint64_t ram2, pool2, ram1, pool1;
	cgroup_charge_run(b, 0, &ram2, &pool2);
	cgroup_charge_run(b, SWS_ZSWAP_CGROUP_V1, &ram1, &pool1);
	print_message("cgroup v2: %llu pages in RAM + %llu pool pages; v1: %llu + %llu\n",
		      (unsigned long long)ram2, (unsigned long long)pool2, (unsigned long long)ram1,
		      (unsigned long long)pool1);
	assert_true(ram1 > 512 - 64);           /* v1: the whole limit in RAM */
	assert_true(ram1 + pool1 > 512 + 100);  /* and the pool beyond it */
	assert_true(ram2 + 200 < ram1);         /* v2: the pool's bytes took RAM's place */
}

/*
 * The memory-pressure shrinker on cgroup v1 finds nothing to write back (its
 * count scales by the memcg's zswap stats, which v1 never charges), as the
 * kernel; on v2 the same run writes back. v1 has no memory.zswap.* files.
 */
static uint64_t shrinker_cgroup_run(enum sws_backend b, uint32_t cgroup)
{
	struct sws_zswap_config zc = {.max_pool_percent = 100, .flags = SWS_ZSWAP_SHRINKER, .cgroup = cgroup};
	struct env e;
	uint32_t asid;
	uint16_t cg = env_open_memcg(&e, b, 2048, &zc, 256, &asid);
	if (cgroup == SWS_ZSWAP_CGROUP_V1) {
		assert_sws(SWS_EOPNOTSUPP, sws_mm_zswap_memcg(e.mm, cg, 4096, true));
		assert_sws(SWS_EOPNOTSUPP, sws_mm_zswap_memcg(e.mm, cg, 0, false));
		assert_sws(0, sws_mm_zswap_memcg(e.mm, cg, 0, true));
	}
	for (int pass = 0; pass < 3; pass++)
		for (unsigned p = 0; p < 1024; p++)
			assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), pass == 0));
	uint64_t wb = sws_test_mm_stats(e.mm).counters[SWS_MM_zswpwb];
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, asid));
	env_close(&e);
	return wb;
}

static void test_cgroup_v1_shrinker(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	assert_int_equal(shrinker_cgroup_run(b, SWS_ZSWAP_CGROUP_V1), 0);
	assert_true(shrinker_cgroup_run(b, SWS_ZSWAP_CGROUP_V2) > 0);
	struct sws_sim *sim;
	struct sws_mm *mm;
	assert_sws(0, sws_sim_create(NULL, &sim));
	struct sws_mm_config mc = {.ram_pages = 128};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	struct sws_zswap_config bad = {.cgroup = 3};
	assert_sws(SWS_EINVAL, sws_mm_zswap_enable(mm, &bad));
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
}

/*
 * shrink_slab() after each priority a pass reached: a reclaim that falls short
 * of what it was asked for ran every priority down to 0, where the pressure is
 * twice the count, so the shrinker writes back even from a pool far too small
 * to be walked at DEF_PRIORITY (count >> 12 is 0). The old scheme, so that no
 * second chance comes first.
 */
static void test_shrinker_fell_short(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_zswap_config zc = {.max_pool_percent = 100,
				      .flags = SWS_ZSWAP_SHRINKER | SWS_ZSWAP_OLD_SCHEME};
	struct env e;
	uint32_t asid;
	uint16_t cg = env_open_memcg(&e, b, 2048, &zc, 1024, &asid);
	for (unsigned p = 0; p < 512; p++) /* under the limit: nothing reclaimed yet */
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_zswpout], 0);
	/* Everything it holds and more: all 512 go to zswap, then the pass falls short. */
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, cg, 4096), 512);
	struct sws_mm_stats st = sws_test_mm_stats(e.mm);
	assert_int_equal(st.counters[SWS_MM_zswpout], 512);
	assert_true(st.counters[SWS_MM_zswpwb] > 0);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, asid));
	env_close(&e);
}

/*
 * The experiment: a hot set that does not fit in RAM, visited again and again,
 * and a stream of cold pages, with the memory-pressure shrinker writing back
 * (the pool never at its limit: the schemes are the shrinker's; at the limit
 * the shrink worker would write back instead). The second chance keeps recently stored (hot)
 * entries in the pool, and the disk-swapin feedback throttles writeback: the
 * new scheme must cut disk swap-ins.
 */
static uint64_t experiment(enum sws_backend b, uint32_t scheme)
{
	struct sws_zswap_config zc = {.max_pool_percent = 100, .flags = SWS_ZSWAP_SHRINKER | scheme};
	struct env e;
	env_open(&e, b, 512, text_mix, &zc, 0);
	uint64_t seed = 77;
	unsigned cold = 2000;
	for (int round = 0; round < 40; round++) {
		for (int i = 0; i < 600; i++) { /* hot: 700 pages, RAM 512 */
			uint64_t r = sws_test_rand(&seed);
			assert_access(sws_mm_access(e.cpu, e.mm, e.asid, PG(r % 700), r & 1));
		}
		for (int i = 0; i < 100; i++) /* cold: touched once */
			assert_access(sws_mm_access(e.cpu, e.mm, e.asid, PG(cold++), true));
		sws_mm_kswapd(e.cpu, e.mm, 256);
	}
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	uint64_t pswpin = s.counters[SWS_MM_pswpin];
	assert_true(s.counters[SWS_MM_zswpwb] > 0);
	env_close(&e);
	return pswpin;
}

static void test_shrinker_schemes(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	uint64_t old_in = experiment(b, SWS_ZSWAP_OLD_SCHEME);
	uint64_t sc_in = experiment(b, SWS_ZSWAP_SECOND_CHANCE_ONLY), new_in = experiment(b, 0);
	print_message("disk swap-ins: old scheme %llu, second chance %llu, both %llu\n",
		      (unsigned long long)old_in, (unsigned long long)sc_in, (unsigned long long)new_in);
	assert_true(sc_in < old_in);
	assert_true(new_in < old_in);
}

/*
 * Fail the Nth allocation through a zswap scenario (stores, limit, writeback,
 * loads), for N along the whole run: every failure is absorbed (the page goes
 * to the device or stays resident, or the access reports SWS_ENOMEM), what is
 * read back is always identical, and nothing leaks.
 */
static uint64_t failnth_run(enum sws_backend b, uint64_t fail_nth, struct sws_test_alloc *ta)
{
	sws_test_alloc_init(ta);
	struct sws_env env = {.allocator = ta->a};
	struct sws_sim_config cfg = {.backend = b, .env = &env};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	int type;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE,
				       .backing = SWS_BACKING_MEMORY};
	assert_sws(0, sws_swapon(sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = 96, .seed = 2, .flags = SWS_MM_VERIFY,
				   .content_weight = {1, 0, 2, 2, 1}};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	struct sws_zswap_config zc = {.max_pool_percent = 20, .flags = SWS_ZSWAP_SHRINKER};
	assert_sws(0, sws_mm_zswap_enable(mm, &zc));
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(mm, 0, &asid));
	ta->fail_nth = fail_nth ? ta->calls + fail_nth : 0; /* count from here */
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned p = 0; p < 300; p++) {
			int rc = sws_mm_access(cpu, mm, asid, PG(p), pass == 0);
			if (rc < 0 && rc != SWS_ENOMEM)
				fail_msg("access: %s (fail_nth %llu)", sws_error_name(rc),
					 (unsigned long long)fail_nth);
		}
		sws_mm_zswap_shrink(cpu, mm, 64);
	}
	uint64_t calls = ta->calls;
	struct sws_mm_stats s;
	sws_mm_stats_get(mm, &s);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_consistent(sim);
	sws_mm_destroy(mm);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
	assert_int_equal(ta->live_bytes, 0);
	return calls;
}

static void test_failnth(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_test_alloc ta;
	uint64_t total = failnth_run(b, 0, &ta);
	uint64_t stride = total / 150 ? total / 150 : 1; /* about 150 runs */
	for (uint64_t n = 1; n <= total; n += stride)
		failnth_run(b, n, &ta);
}

static void test_errors(void **state)
{
	(void)state;
	struct sws_sim *sim;
	struct sws_mm *mm;
	assert_sws(0, sws_sim_create(NULL, &sim));
	struct sws_mm_config mc = {.ram_pages = 128};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	assert_sws(SWS_ENODEV, sws_mm_zswap_set_compressor(mm, "lz4"));
	assert_sws(SWS_ENODEV, sws_mm_zswap_memcg(mm, 0, 0, true));
	struct sws_zswap_config bad = {.max_pool_percent = 101};
	assert_sws(SWS_EINVAL, sws_mm_zswap_enable(mm, &bad));
	bad = (struct sws_zswap_config){.compressor = "zstd:99"};
	assert_sws(SWS_EINVAL, sws_mm_zswap_enable(mm, &bad));
	bad = (struct sws_zswap_config){.version = 7};
	assert_sws(SWS_EVERSION, sws_mm_zswap_enable(mm, &bad));
	assert_sws(0, sws_mm_zswap_enable(mm, NULL));
	assert_sws(SWS_EEXIST, sws_mm_zswap_enable(mm, NULL));
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
}


/* ---- zswap alone: a pool whose writeback is a fake that says where it wrote ------------- */

struct pool_env {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_zswap *zs;
	int type;
	uint64_t ctr[SWS_MM_NR_COUNTERS];
	uint64_t written;      /* pages the fake writeback wrote */
	int fail_memcg;        /* begin() refuses this memcg's slots with SWS_EEXIST (-1: none) */
};

static int pe_begin(void *ctx, struct sws_cpu *cpu, sws_entry_t e, uint16_t memcg, uint64_t *token)
{
	struct pool_env *pe = ctx;
	(void)cpu;
	*token = e;
	return (int)memcg == pe->fail_memcg ? SWS_EEXIST : 0;
}

static bool pe_end(void *ctx, struct sws_cpu *cpu, sws_entry_t e, uint64_t token, const void *page)
{
	struct pool_env *pe = ctx;
	(void)cpu, (void)e, (void)token;
	pe->written += page != NULL;
	return page != NULL;
}

static void pe_count(void *ctx, struct sws_cpu *cpu, enum sws_mm_counter c, uint64_t n)
{
	(void)cpu;
	((struct pool_env *)ctx)->ctr[c] += n;
}

static void pool_open(struct pool_env *pe, uint64_t ram_pages, const struct sws_zswap_config *zc)
{
	memset(pe, 0, sizeof(*pe));
	pe->fail_memcg = -1;
	assert_sws(0, sws_sim_create(NULL, &pe->sim));
	assert_sws(0, sws_cpu_attach(pe->sim, &pe->cpu));
	struct sws_device_config dc = {.nr_slots = 8192, .flags = SWS_SWP_SOLIDSTATE};
	assert_sws(0, sws_swapon(pe->sim, &dc, &pe->type));
	struct sws_zswap_wb_ops wb = {.begin = pe_begin, .end = pe_end, .ctx = pe};
	assert_sws(0, sws__zswap_create(pe->sim, zc, ram_pages, &wb, pe_count, pe, &pe->zs));
}

static void pool_close(struct pool_env *pe)
{
	sws__zswap_destroy(pe->zs);
	sws_cpu_detach(pe->cpu);
	sws_sim_destroy(pe->sim);
}

/* Store slot @slot for @memcg: random bytes (stored raw, one pool page each). */
static int pool_store(struct pool_env *pe, unsigned slot, uint16_t memcg)
{
	uint64_t page[SWS_PAGE_SIZE / 8], seed = slot;
	for (unsigned i = 0; i < SWS_PAGE_SIZE / 8; i++)
		page[i] = sws_test_rand(&seed);
	return sws__zswap_store(pe->zs, pe->cpu, sws_swp_entry((unsigned)pe->type, slot), memcg, page);
}

/*
 * The shrink worker's walk: one entry per shrink_memcg(), and a referenced
 * entry given its second chance is a failure. With every entry freshly stored
 * the worker clears 16 bits and gives up, writing nothing; queued again it
 * passes the 4 entries it had not reached (failures 1-4), then writes back the
 * ones that lost their bit until the pool is at the accept threshold.
 */
static void test_worker_second_chance_fails(void **state)
{
	(void)state;
	struct sws_zswap_config zc = {.max_pool_percent = 2}; /* 20 pages of 1000, accept at 18 */
	struct pool_env pe;
	pool_open(&pe, 1000, &zc);
	for (unsigned s = 1; s <= 20; s++)
		assert_sws(0, pool_store(&pe, s, 0));
	assert_sws(SWS_ENOSPC, pool_store(&pe, 21, 0)); /* full: the worker is queued */
	assert_true(sws__zswap_shrink_queued(pe.zs));
	assert_int_equal(sws__zswap_shrink_worker(pe.zs, pe.cpu, UINT64_MAX), 0);
	assert_int_equal(pe.written, 0);
	assert_false(sws__zswap_shrink_queued(pe.zs)); /* it gave up */
	assert_sws(SWS_ENOSPC, pool_store(&pe, 22, 0));
	assert_int_equal(sws__zswap_shrink_worker(pe.zs, pe.cpu, UINT64_MAX), 2);
	assert_int_equal(pe.written, 2);
	assert_int_equal(pe.ctr[SWS_MM_zswpwb], 2);
	assert_int_equal(pe.ctr[SWS_MM_written_back_pages], 2);
	struct sws_mm_stats st;
	sws__zswap_stats(pe.zs, &st);
	assert_int_equal(st.stored_pages, 18);
	pool_close(&pe);
}

/*
 * MAX_RECLAIM_RETRIES counts failures in total: progress in between does not
 * reset it. Memcg 1's writebacks succeed, memcg 0's always fail (its slots are
 * being swapped in); round robin (memcg 0 first), each pass is one failure and
 * one page written, so the worker gives up at its 16th failure having written 15
 * pages, although the pool is still above the accept threshold.
 */
static void test_worker_failures_in_total(void **state)
{
	(void)state;
	struct sws_zswap_config zc = {.max_pool_percent = 6, .accept_threshold_percent = 1,
				      .flags = SWS_ZSWAP_OLD_SCHEME}; /* no second chance here */
	struct pool_env pe;
	pool_open(&pe, 1000, &zc); /* 60 pages, accept at 0 */
	for (unsigned s = 1; s <= 20; s++)
		assert_sws(0, pool_store(&pe, s, 0));
	for (unsigned s = 21; s <= 60; s++)
		assert_sws(0, pool_store(&pe, s, 1));
	assert_sws(SWS_ENOSPC, pool_store(&pe, 61, 1));
	pe.fail_memcg = 0;
	assert_int_equal(sws__zswap_shrink_worker(pe.zs, pe.cpu, UINT64_MAX), 15);
	assert_int_equal(pe.written, 15);
	assert_int_equal(pe.ctr[SWS_MM_reject_reclaim_fail], 16);
	pool_close(&pe);
}

/*
 * The memory-pressure shrinker walks in batches of 128 (do_shrink_slab with
 * zswap's batch 0), every entry looked at using one unit, a second chance
 * included; a batch that writes nothing back is SHRINK_STOP. With 300 fresh
 * raw entries (count 300, the pass at full pressure, priority 0: 600 to scan)
 * the first call clears 128 bits and stops, the second the next 128, the
 * third passes the last 44 and then writes back everything. Before that,
 * @light_rounds rounds of light pressure (DEF_PRIORITY and priority 6) walk
 * nothing: the pressure is the count >> priority (x 4 / DEFAULT_SEEKS), and a
 * call walks only once it, with the deferred work >> priority, reaches a batch
 * or the whole count.
 */
static void walk_budget_run(unsigned light_rounds)
{
	struct sws_zswap_config zc = {.max_pool_percent = 100, .flags = SWS_ZSWAP_SHRINKER};
	struct pool_env pe;
	pool_open(&pe, 4096, &zc);
	for (unsigned s = 1; s <= 300; s++)
		assert_sws(0, pool_store(&pe, s, 0));
	for (unsigned i = 0; i < light_rounds; i++) {
		assert_int_equal(sws__zswap_shrinker_scan(pe.zs, pe.cpu, 0, SWS__DEF_PRIORITY), 0);
		assert_int_equal(sws__zswap_shrinker_scan(pe.zs, pe.cpu, 0, 6), 0);
	}
	assert_int_equal(sws__zswap_shrinker_scan(pe.zs, pe.cpu, 0, 0), 0);
	assert_int_equal(sws__zswap_shrinker_scan(pe.zs, pe.cpu, 0, 0), 0);
	assert_int_equal(pe.written, 0);
	assert_int_equal(sws__zswap_shrinker_scan(pe.zs, pe.cpu, 0, 0), 300);
	assert_int_equal(pe.written, 300);
	pool_close(&pe);
}

static void test_shrinker_walk_budget(void **state)
{
	(void)state;
	walk_budget_run(0);
}

static void test_shrinker_priority(void **state)
{
	(void)state;
	walk_budget_run(100);
}

/*
 * memory.zswap.max as the kernel: a store finding the memcg at its limit writes
 * back one entry of it (shrink_memcg) and then stores without looking again;
 * it is refused only when that entry was not written back (here: its second
 * chance). The refusal counts nothing. Ten fresh entries at a 10-page limit:
 * ten stores are refused, each clearing one bit; then each store writes back
 * exactly one entry and goes in.
 */
static void test_zswap_max_one_entry(void **state)
{
	(void)state;
	struct sws_zswap_config zc = {.max_pool_percent = 100};
	struct pool_env pe;
	pool_open(&pe, 4096, &zc);
	assert_sws(0, sws__zswap_memcg_set(pe.zs, 1, 10 * SWS_PAGE_SIZE + 100, true)); /* 10 pages */
	for (unsigned s = 1; s <= 10; s++)
		assert_sws(0, pool_store(&pe, s, 1));
	for (unsigned s = 11; s <= 20; s++)
		assert_sws(SWS_ENOSPC, pool_store(&pe, s, 1));
	assert_int_equal(pe.written, 0);
	for (unsigned s = 21; s <= 25; s++) {
		assert_sws(0, pool_store(&pe, s, 1));
		assert_int_equal(pe.written, s - 20);
	}
	uint64_t bytes, orig;
	assert_sws(0, sws__zswap_memcg_stats(pe.zs, 1, &bytes, &orig));
	assert_int_equal(bytes, 10 * SWS_PAGE_SIZE);
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++) /* nothing counts the refusals */
		if (c != SWS_MM_zswpwb && c != SWS_MM_written_back_pages)
			assert_int_equal(pe.ctr[c], 0);
	/* A failed writeback refuses the store too, and that counts reject_reclaim_fail. */
	pe.fail_memcg = 1;
	assert_sws(SWS_ENOSPC, pool_store(&pe, 26, 1));
	assert_int_equal(pe.ctr[SWS_MM_reject_reclaim_fail], 1);
	pool_close(&pe);
}


/* Store slot @slot for @memcg: one 8-byte value repeated (compresses to a few bytes). */
static int pool_store_small(struct pool_env *pe, unsigned slot, uint16_t memcg)
{
	uint64_t page[SWS_PAGE_SIZE / 8];
	for (unsigned i = 0; i < SWS_PAGE_SIZE / 8; i++)
		page[i] = 0x0123456789abcdefull * slot;
	return sws__zswap_store(pe->zs, pe->cpu, sws_swp_entry((unsigned)pe->type, slot), memcg, page);
}

/*
 * The shrinker's count is scaled by the memcg's own compression (MEMCG_ZSWAP_B
 * pages over MEMCG_ZSWAPPED), not the pool's. Memcg 1 holds 200 raw pages (a
 * count of 200); memcg 2 holds 2000 pages that compress ~100x, which would
 * scale memcg 1's count down to ~20 with the pool-wide ratio. At full pressure
 * the first call gives 128 second chances and stops; the second writes memcg 1
 * back entirely (a count of 20 could walk 40 + 80 entries at most).
 */
static void test_shrinker_count_memcg_ratio(void **state)
{
	(void)state;
	struct sws_zswap_config zc = {.max_pool_percent = 100, .flags = SWS_ZSWAP_SHRINKER};
	struct pool_env pe;
	pool_open(&pe, 8192, &zc);
	for (unsigned s = 1; s <= 200; s++)
		assert_sws(0, pool_store(&pe, s, 1));
	for (unsigned s = 201; s <= 2200; s++)
		assert_sws(0, pool_store_small(&pe, s, 2));
	assert_int_equal(sws__zswap_shrinker_scan(pe.zs, pe.cpu, 1, 0), 0);
	assert_int_equal(sws__zswap_shrinker_scan(pe.zs, pe.cpu, 1, 0), 200);
	assert_int_equal(pe.written, 200);
	pool_close(&pe);
}


/*
 * zswap_store() queues the shrink worker on every store it refuses while the
 * pool is full, whatever refused it: here a memcg at its memory.zswap.max with
 * nothing to write back, after the worker had run and given up.
 */
static void test_worker_queued_on_any_refusal(void **state)
{
	(void)state;
	struct sws_zswap_config zc = {.max_pool_percent = 2}; /* 20 pages of 1000 */
	struct pool_env pe;
	pool_open(&pe, 1000, &zc);
	for (unsigned s = 1; s <= 20; s++)
		assert_sws(0, pool_store(&pe, s, 0));
	assert_sws(SWS_ENOSPC, pool_store(&pe, 21, 0)); /* the pool is full */
	assert_int_equal(sws__zswap_shrink_worker(pe.zs, pe.cpu, UINT64_MAX), 0); /* gives up */
	assert_false(sws__zswap_shrink_queued(pe.zs));
	assert_sws(0, sws__zswap_memcg_set(pe.zs, 1, 100, true)); /* zswap.max: 0 pages */
	assert_sws(SWS_ENOSPC, pool_store(&pe, 22, 1));
	assert_int_equal(pe.ctr[SWS_MM_pool_limit_hit], 1); /* refused before the pool's check */
	assert_true(sws__zswap_shrink_queued(pe.zs));
	pool_close(&pe);
}


/*
 * The schemes and the swap-ins. 100 fresh raw entries, 60 of them loaded back
 * (zswap hits), then the shrinker at full pressure on the 40 left:
 *   old (6.8-6.11)   every swap-in raised the protected size past the LRU:
 *                    a count of 0, nothing written back;
 *   second-chance    every swap-in was counted in nr_disk_swapins, zswap hits
 *                    included, consumed by the count: 0 as well;
 *   both (6.12+)     only reads from the device count: 40 to write back, each
 *                    passed once (its second chance), then written back.
 * A read from the device counts in every scheme.
 */
static uint64_t scheme_swapin_run(uint32_t flags, unsigned disk_reads)
{
	struct sws_zswap_config zc = {.max_pool_percent = 100, .flags = SWS_ZSWAP_SHRINKER | flags};
	struct pool_env pe;
	pool_open(&pe, 4096, &zc);
	for (unsigned s = 1; s <= 100; s++)
		assert_sws(0, pool_store(&pe, s, 0));
	uint8_t page[SWS_PAGE_SIZE];
	for (unsigned s = 1; s <= 60; s++)
		assert_sws(0, sws__zswap_load(pe.zs, pe.cpu, sws_swp_entry((unsigned)pe.type, s), page));
	for (unsigned i = 0; i < disk_reads; i++)
		sws__zswap_disk_swapin(pe.zs, 0);
	uint64_t wb = sws__zswap_shrinker_scan(pe.zs, pe.cpu, 0, 0);
	pool_close(&pe);
	return wb;
}

static void test_scheme_swapins(void **state)
{
	(void)state;
	assert_int_equal(scheme_swapin_run(SWS_ZSWAP_OLD_SCHEME, 0), 0);
	assert_int_equal(scheme_swapin_run(SWS_ZSWAP_SECOND_CHANCE_ONLY, 0), 0);
	assert_int_equal(scheme_swapin_run(0, 0), 40);
	assert_int_equal(scheme_swapin_run(0, 40), 0);  /* 40 disk reads: the count is 0 */
	/* The old scheme's protection also grows with stores and decays: 100 stores
	 * leave a quarter of the LRU or less protected; 40 entries of 100 go. */
	struct sws_zswap_config zc = {.max_pool_percent = 100, .flags = SWS_ZSWAP_SHRINKER | SWS_ZSWAP_OLD_SCHEME};
	struct pool_env pe;
	pool_open(&pe, 4096, &zc);
	uint64_t prot = 0;
	for (unsigned s = 1; s <= 100; s++) {
		assert_sws(0, pool_store(&pe, s, 0));
		prot = prot + 1 > s / 4 ? (prot + 1) / 2 : prot + 1; /* zswap_lru_add()'s decay */
	}
	/* count 100 - prot, full pressure: 2 x count to walk, one batch (< 128), which
	 * would reach into the protected region unless prot < 100 - 2 x count. */
	uint64_t count = 100 - prot, walk = 2 * count < 128 ? 2 * count : 128;
	uint64_t want = prot >= (uint64_t)(100 - walk) ? 0 : (walk < 100 ? walk : 100);
	assert_int_equal(sws__zswap_shrinker_scan(pe.zs, pe.cpu, 0, 0), want);
	pool_close(&pe);
	struct sws_sim *sim;
	struct sws_mm *mm;
	assert_sws(0, sws_sim_create(NULL, &sim));
	struct sws_mm_config mc = {.ram_pages = 128};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	struct sws_zswap_config bad = {.flags = SWS_ZSWAP_OLD_SCHEME | SWS_ZSWAP_SECOND_CHANCE_ONLY};
	assert_sws(SWS_EINVAL, sws_mm_zswap_enable(mm, &bad));
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
}

/*
 * memory.reclaim "SIZE zswap_writeback_only": exactly the pages asked for go
 * from the memcg's pool to the device (zswpwb = zswpwb_proactive = pswpout =
 * the count), nothing else is reclaimed, and they read back identical (verify
 * mode); asking for more than the pool holds writes the whole pool; another
 * memcg's entries stay; memory.zswap.writeback = 0 writes nothing.
 */
static void test_writeback_only(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_zswap_config zc = {.max_pool_percent = 100};
	struct env e;
	uint32_t asid, other;
	uint16_t cg = env_open_memcg(&e, b, 4096, &zc, 256, &asid);
	uint16_t cg2;
	assert_sws(0, sws_mm_memcg_create(e.mm, 128, &cg2));
	assert_sws(0, sws_mm_space_create(e.mm, cg2, &other));
	for (unsigned p = 0; p < 400; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	for (unsigned p = 0; p < 200; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, other, PG(p), true));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(s0.counters[SWS_MM_pswpout], 0); /* all in the pool */
	uint64_t b0, o0, b2, o2;
	assert_sws(0, sws_mm_zswap_memcg_stats(e.mm, cg, &b0, &o0));
	assert_sws(0, sws_mm_zswap_memcg_stats(e.mm, cg2, &b2, &o2));
	uint64_t mine = o0 / SWS_PAGE_SIZE;
	assert_true(mine > 100 && o2 > 0);

	uint64_t got = sws_mm_zswap_writeback_only(e.cpu, e.mm, cg, 100);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(got, 100);
	assert_int_equal(s.counters[SWS_MM_zswpwb], 100);
	assert_int_equal(s.counters[SWS_MM_zswpwb_proactive], 100);
	assert_int_equal(s.counters[SWS_MM_pswpout], 100);
	assert_int_equal(s.counters[SWS_MM_zswpout], s0.counters[SWS_MM_zswpout]);
	assert_int_equal(s.counters[SWS_MM_pgsteal], s0.counters[SWS_MM_pgsteal]); /* no reclaim */
	assert_int_equal(s.stored_pages, s0.stored_pages - 100);
	uint64_t b1, o1;
	assert_sws(0, sws_mm_zswap_memcg_stats(e.mm, cg, &b1, &o1));
	assert_int_equal(o1, o0 - 100 * SWS_PAGE_SIZE);
	assert_sws(0, sws_mm_zswap_memcg_stats(e.mm, cg2, &b1, &o1));
	assert_int_equal(o1, o2); /* the other memcg's stay */

	/* more than it holds: the rest of its pool, then it stops */
	assert_int_equal(sws_mm_zswap_writeback_only(e.cpu, e.mm, cg, 1u << 20), mine - 100);
	assert_sws(0, sws_mm_zswap_memcg_stats(e.mm, cg, &b1, &o1));
	assert_int_equal(o1, 0);
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_zswpwb_proactive], mine);

	/* writeback off: nothing; bad arguments: nothing */
	assert_sws(0, sws_mm_zswap_memcg(e.mm, cg2, 0, false));
	assert_int_equal(sws_mm_zswap_writeback_only(e.cpu, e.mm, cg2, 10), 0);
	assert_int_equal(sws_mm_zswap_writeback_only(e.cpu, e.mm, 200, 10), 0);
	assert_int_equal(sws_mm_zswap_writeback_only(NULL, e.mm, cg, 10), 0);

	/* The written folios stay in the swap cache (force-charged: the memcg
	 * is above its limit), as the kernel's do until reclaim drops them,
	 * clean; then every page reads back identical from the device (verify
	 * mode, checked at close). */
	sws_mm_reclaim(e.cpu, e.mm, cg, 400);
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(s1.counters[SWS_MM_pswpout], s.counters[SWS_MM_pswpout]); /* dropped, not written */
	for (unsigned p = 0; p < 400; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), false));
	s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_verify_ok] > s1.counters[SWS_MM_verify_ok]);
	assert_true(s.counters[SWS_MM_pswpin] > s1.counters[SWS_MM_pswpin]); /* from the device */
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, asid));
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, other));
	env_close(&e);
}

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;
#define BOTH(fn) cmocka_unit_test_prestate(fn, &backend_table), cmocka_unit_test_prestate(fn, &backend_xarray)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_roundtrip),           BOTH(test_zero_and_incompressible),
		BOTH(test_limit_and_writeback), BOTH(test_mthp_and_compressor_switch),
		BOTH(test_memcg_zswap_max),     BOTH(test_shrinker_schemes),
		BOTH(test_failnth),             BOTH(test_mthp_all_or_nothing),
		BOTH(test_accept_hysteresis),       BOTH(test_second_chance),
		BOTH(test_cgroup_charging),         BOTH(test_cgroup_v1_shrinker),
		BOTH(test_writeback_folio_kept),   BOTH(test_shrinker_fell_short),
		BOTH(test_writeback_only),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_worker_second_chance_fails),
		cmocka_unit_test(test_worker_failures_in_total),
		cmocka_unit_test(test_shrinker_walk_budget),
		cmocka_unit_test(test_shrinker_priority),
		cmocka_unit_test(test_zswap_max_one_entry),
		cmocka_unit_test(test_shrinker_count_memcg_ratio),
		cmocka_unit_test(test_worker_queued_on_any_refusal),
		cmocka_unit_test(test_scheme_swapins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
