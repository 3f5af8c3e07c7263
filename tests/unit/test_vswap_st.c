/*
 * test_vswap_st.c - vswap on the swap table ("vswap-st"): physical slots
 * allocated lazily (at writeout or zswap writeback, never at swap-out), the
 * reverse map and its cache-only bit, the free path releasing both the
 * virtual and the physical slot, swapoff without a page-table walk, and the
 * pages' bytes through it all (verify mode). Exact values by hand.
 */
#include "testutil.h"
#include "swap/swap_internal.h" /* white box: the work context a CPU is in */

#define PG(p) (0x20000000ull + (uint64_t)(p) * SWS_PAGE_SIZE)

static uint64_t ctr(struct sws_sim *sim, enum sws_counter c)
{
	struct sws_stats st;
	sws_stats_snapshot(sim, &st);
	return st.counters[c];
}

static uint64_t inuse(struct sws_sim *sim, int type)
{
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(sim, type, &di));
	return di.inuse_pages;
}

static uint64_t locks(struct sws_sim *sim, enum sws_work_ctx ctx)
{
	struct sws_stats st;
	sws_stats_snapshot(sim, &st);
	return st.work[ctx][SWS_WORK_lock_cluster];
}

/* A vswap-st simulation with @ndev devices (types in type[]), one CPU and a
 * memory model of 256 pages of text and index content (all compress, none
 * zero-filled), checked on every read, and one address space. */
struct world {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	uint32_t asid;
	int type[2];
};

static void world_open(struct world *w, const struct sws_device_config *dc, unsigned ndev, uint64_t seed)
{
	struct sws_sim_config cfg = {.design = SWS_DESIGN_VSWAP_ST};
	assert_sws(0, sws_sim_create(&cfg, &w->sim));
	assert_sws(0, sws_cpu_attach(w->sim, &w->cpu));
	for (unsigned i = 0; i < ndev; i++)
		assert_sws(0, sws_swapon(w->sim, &dc[i], &w->type[i]));
	struct sws_mm_config mc = {.ram_pages = 256, .seed = seed, .content_weight = {0, 0, 1, 2, 0},
				   .flags = SWS_MM_VERIFY};
	assert_sws(0, sws_mm_create(w->sim, &mc, &w->mm));
	assert_sws(0, sws_mm_space_create(w->mm, 0, &w->asid));
}

static void world_close(struct world *w)
{
	assert_consistent(w->sim);
	sws_mm_destroy(w->mm);
	sws_cpu_detach(w->cpu);
	sws_sim_destroy(w->sim);
}

/*
 * One slot by hand, at the swap layer: folio_alloc_swap() takes a virtual
 * slot and no physical one; the writeout (sws_swap_io_target(), write)
 * allocates one, whose Pointer entry maps back to the virtual slot and is
 * marked cache-only while the count is 0 (checked by the design's
 * invariants, assert_consistent); the put of the last reference frees both:
 * the ghost cluster's lock and the physical cluster's, 2 acquisitions
 * (st-p4: 1).
 */
static void test_lazy_slot(void **state)
{
	(void)state;
	struct sws_fixture f;
	sws_fixture_open(&f, SWS_DESIGN_VSWAP_ST, 4096, SWS_SWP_SOLIDSTATE);
	sws_entry_t e, phys;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 5, 0, &e));
	assert_int_not_equal(sws_swp_type(e), f.type); /* a ghost-device entry */
	assert_int_equal(inuse(f.sim, f.type), 0);
	assert_int_equal(ctr(f.sim, SWS_CTR_vswap_phys_alloc), 0);
	assert_sws(SWS_ENOENT, sws_swap_io_target(f.cpu, e, 1, false, &phys)); /* nothing to read from */
	assert_sws(0, sws_swap_io_target(f.cpu, e, 1, true, &phys));
	assert_int_equal(sws_swp_type(phys), f.type);
	assert_int_equal(inuse(f.sim, f.type), 1);
	assert_int_equal(ctr(f.sim, SWS_CTR_vswap_phys_alloc), 1);
	assert_int_equal(sws_swap_rmap(f.cpu, phys), e);
	sws_entry_t again;
	assert_sws(0, sws_swap_io_target(f.cpu, e, 1, true, &again)); /* already backed: the same slot */
	assert_int_equal(again, phys);
	assert_int_equal(ctr(f.sim, SWS_CTR_vswap_phys_alloc), 1);
	assert_consistent(f.sim); /* count 0, cached: cache-only */
	assert_sws(0, sws_swap_dup(f.cpu, e, 1));
	assert_consistent(f.sim); /* count 1: no longer */
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 5, 42)); /* evicted: count 1, a shadow */
	assert_consistent(f.sim);

	enum sws_work_ctx old = sws__work_enter(f.cpu, SWS_WCTX_free);
	uint64_t l0 = locks(f.sim, SWS_WCTX_free);
	uint64_t only_cache[SWS_CLUSTER_SLOTS / 64] = {0};
	assert_sws(0, sws_swap_put_entries_direct(f.cpu, e, 1, only_cache));
	assert_int_equal(locks(f.sim, SWS_WCTX_free) - l0, 2);
	sws__work_enter(f.cpu, old);
	uint32_t count;
	assert_sws(SWS_ENOENT, sws_swap_count(f.cpu, e, &count));
	assert_int_equal(inuse(f.sim, f.type), 0);
	assert_int_equal(ctr(f.sim, SWS_CTR_vswap_phys_free), 1);
	assert_int_equal(sws_swap_rmap(f.cpu, phys), 0);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
}

/*
 * Through the memory model, with zswap: N = 64 compressible pages reclaimed
 * go to zswap and take N virtual slots and no physical one (zswpout N,
 * pswpout 0, the device empty). Writing back W = 16 of them
 * (memory.reclaim "zswap_writeback_only") gives exactly those W a physical
 * slot each (vswap_phys_alloc W, the device W in use, pswpout W); their
 * folios then leave the swap cache. munmap frees the N virtual slots and
 * the W physical ones: the zap puts the run of virtual slots (reclaim gave
 * them one contiguous run) under one ghost cluster lock, and gives each
 * physical slot back under its cluster's lock: 1 + W acquisitions in the
 * free context. Then N more pages go to zswap and read back intact.
 */
static void test_lazy_through_zswap(void **state)
{
	(void)state;
	enum { N = 64, W = 16 };
	struct world w;
	const struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE};
	world_open(&w, &dc, 1, 9);
	struct sws_sim *sim = w.sim;
	struct sws_cpu *cpu = w.cpu;
	struct sws_mm *mm = w.mm;
	uint32_t asid = w.asid;
	int type = w.type[0];
	struct sws_zswap_config zc = {.max_pool_percent = 100};
	assert_sws(0, sws_mm_zswap_enable(mm, &zc));
	for (unsigned p = 0; p < N; p++)
		assert_true(sws_mm_access(cpu, mm, asid, PG(p), true) >= 0);
	while (sws_mm_reclaim(cpu, mm, 0, 64))
		; /* every page to zswap */
	struct sws_mm_stats ms = sws_test_mm_stats(mm);
	assert_int_equal(ms.counters[SWS_MM_zswpout], N);
	assert_int_equal(ms.counters[SWS_MM_pswpout], 0);
	assert_int_equal(ms.stored_pages, N);
	assert_int_equal(ctr(sim, SWS_CTR_vswap_phys_alloc), 0);
	assert_int_equal(inuse(sim, type), 0);

	assert_int_equal(sws_mm_zswap_writeback_only(cpu, mm, 0, W), W);
	ms = sws_test_mm_stats(mm);
	assert_int_equal(ms.counters[SWS_MM_zswpwb], W);
	assert_int_equal(ms.counters[SWS_MM_pswpout], W);
	assert_int_equal(ms.stored_pages, N - W);
	assert_int_equal(ctr(sim, SWS_CTR_vswap_phys_alloc), W);
	assert_int_equal(inuse(sim, type), W);
	assert_consistent(sim);

	while (sws_mm_reclaim(cpu, mm, 0, 64))
		; /* the W written-back folios leave the swap cache (clean: no write) */
	ms = sws_test_mm_stats(mm);
	assert_int_equal(ms.counters[SWS_MM_pswpout], W);
	assert_int_equal(ctr(sim, SWS_CTR_vswap_phys_alloc), W);

	uint64_t l0 = locks(sim, SWS_WCTX_free);
	assert_sws(0, sws_mm_munmap(cpu, mm, asid, PG(0), (uint64_t)N * SWS_PAGE_SIZE));
	uint64_t l = locks(sim, SWS_WCTX_free) - l0;
	ms = sws_test_mm_stats(mm);
	assert_int_equal(ms.stored_pages, 0);
	assert_int_equal(inuse(sim, type), 0);
	assert_int_equal(ctr(sim, SWS_CTR_vswap_phys_free), W);
	print_message("munmap of %d pages (%d on the device): %llu cluster locks\n", N, W, (unsigned long long)l);
	assert_int_equal(l, 1 + W);
	assert_consistent(sim);
	for (unsigned p = N; p < 2 * N; p++)
		assert_true(sws_mm_access(cpu, mm, asid, PG(p), true) >= 0);
	while (sws_mm_reclaim(cpu, mm, 0, 64))
		;
	for (unsigned p = N; p < 2 * N; p++) /* back from zswap, bytes checked */
		assert_true(sws_mm_access(cpu, mm, asid, PG(p), false) >= 0);
	ms = sws_test_mm_stats(mm);
	assert_int_equal(ms.counters[SWS_MM_verify_fail], 0);
	assert_int_equal(ms.counters[SWS_MM_verify_ok], N);
	assert_int_equal(ms.counters[SWS_MM_zswpin], N);
	assert_int_equal(ctr(sim, SWS_CTR_vswap_phys_alloc), W); /* zswap took them all: no physical slot */
	world_close(&w);
}

/*
 * Swapoff of the physical device walks no page table: its Pointer entries
 * lead to the virtual slots, whose pages are read into the swap cache and
 * left backed by the folio alone (dirty), and the page tables keep their
 * virtual entries. N pages written to the first device (no zswap):
 * swapoff reads N (swapoff_swapin), scans 0 PTEs; reclaimed again, the pages
 * go to the second device (new physical slots, the same virtual entries)
 * and read back intact.
 */
static void test_swapoff(void **state)
{
	(void)state;
	enum { N = 48 };
	struct world w;
	const struct sws_device_config dc[2] = {
		{.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER, .prio = 5,
		 .backing = SWS_BACKING_MEMORY},
		{.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE, .backing = SWS_BACKING_MEMORY},
	};
	world_open(&w, dc, 2, 5);
	struct sws_sim *sim = w.sim;
	struct sws_cpu *cpu = w.cpu;
	struct sws_mm *mm = w.mm;
	uint32_t asid = w.asid;
	int type = w.type[0], type2 = w.type[1];
	for (unsigned p = 0; p < N; p++)
		assert_true(sws_mm_access(cpu, mm, asid, PG(p), true) >= 0);
	while (sws_mm_reclaim(cpu, mm, 0, 64))
		;
	struct sws_mm_stats ms = sws_test_mm_stats(mm);
	assert_int_equal(ms.counters[SWS_MM_pswpout], N);
	assert_int_equal(inuse(sim, type), N);
	assert_int_equal(ctr(sim, SWS_CTR_vswap_phys_alloc), N);

	assert_sws(0, sws_mm_swapoff(cpu, mm, type));
	ms = sws_test_mm_stats(mm);
	assert_int_equal(ms.counters[SWS_MM_swapoff_pte_scan], 0);
	assert_int_equal(ms.counters[SWS_MM_swapoff_swapin], N);
	assert_int_equal(ctr(sim, SWS_CTR_vswap_phys_free), N);
	struct sws_device_info di;
	assert_sws(SWS_ENODEV, sws_device_info_get(sim, type, &di));
	assert_consistent(sim);
	while (sws_mm_reclaim(cpu, mm, 0, 64))
		; /* the dirty folios written again, to the second device */
	assert_int_equal(inuse(sim, type2), N);
	assert_int_equal(ctr(sim, SWS_CTR_vswap_phys_alloc), 2 * N);
	for (unsigned p = 0; p < N; p++)
		assert_true(sws_mm_access(cpu, mm, asid, PG(p), false) >= 0);
	ms = sws_test_mm_stats(mm);
	assert_int_equal(ms.counters[SWS_MM_verify_fail], 0);
	assert_int_equal(ms.counters[SWS_MM_verify_ok], ms.counters[SWS_MM_pswpin]);
	assert_true(ms.counters[SWS_MM_pswpin] >= N); /* every page, some read ahead */
	assert_sws(0, sws_mm_exit(cpu, mm, asid));
	world_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lazy_slot),
		cmocka_unit_test(test_lazy_through_zswap),
		cmocka_unit_test(test_swapoff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
