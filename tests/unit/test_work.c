/*
 * test_work.c - the deterministic work report counts what each design does:
 * lock acquisitions by class, atomic read-modify-writes, metadata allocations
 * and frees, swap-cache lookups and their dependent loads, against values
 * counted by hand from the code of each design (docs/replay.md, "Reading the
 * report"), and in the context the caller set.
 */
#include <string.h>

#include "testutil.h"
#include "swap/swap_internal.h" /* white box: the work context a CPU is in */

struct work {
	uint64_t v[SWS_NR_WORK];
};

static struct work snap(struct sws_sim *sim, enum sws_work_ctx ctx)
{
	struct sws_stats st;
	struct work w;
	sws_stats_snapshot(sim, &st);
	memcpy(w.v, st.work[ctx], sizeof(w.v));
	return w;
}

/* The work done since @before, in context @ctx. */
static struct work since(struct sws_sim *sim, enum sws_work_ctx ctx, const struct work *before)
{
	struct work w = snap(sim, ctx);
	for (unsigned k = 0; k < SWS_NR_WORK; k++)
		w.v[k] -= before->v[k];
	return w;
}

#define assert_work(w, name, n) assert_int_equal((w).v[SWS_WORK_##name], (n))

/*
 * A lookup takes no lock and makes the design's dependent loads: the swap
 * table reads the cluster's table pointer and the entry (2); the XArray reads
 * the space's head and one slot per level: three levels once the space holds
 * an index at or above 4096 (64 x 64), one for a tree of the first 64.
 */
static void test_lookup(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_fixture f;
	sws_fixture_open(&f, b, 16384, SWS_SWP_SOLIDSTATE);
	sws_entry_t e, far;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 1, 0, &e)); /* slot 1 */
	struct work w0 = snap(f.sim, SWS_WCTX_other);
	assert_int_equal(sws_swap_cache_lookup(f.cpu, e), 1);
	struct work w = since(f.sim, SWS_WCTX_other, &w0);
	assert_work(w, lookup, 1);
	assert_work(w, lookup_loads, 2); /* table: pointer + entry; XArray: head + a lone leaf */
	assert_work(w, lock_cluster, 0);
	assert_work(w, lock_xa, 0);
	assert_work(w, atomic_rmw, 0);
	/* Fill the device up to slot 8193 (a 2-level, then 3-level XArray). */
	for (uint64_t p = 2; p < 8200; p++)
		assert_sws(0, sws_folio_alloc_swap(f.cpu, p, 0, &far));
	assert_true(sws_swp_offset(far) >= 4096);
	w0 = snap(f.sim, SWS_WCTX_other);
	assert_int_equal(sws_swap_cache_lookup(f.cpu, e), 1);
	w = since(f.sim, SWS_WCTX_other, &w0);
	assert_work(w, lookup_loads, b == SWS_BACKEND_XARRAY ? 4 : 2);
	/* A miss in a free cluster: the swap table stops at the NULL table pointer. */
	w0 = snap(f.sim, SWS_WCTX_other);
	assert_int_equal(sws_swap_cache_lookup(f.cpu, sws_swp_entry((unsigned)f.type, 16000)), 0);
	w = since(f.sim, SWS_WCTX_other, &w0);
	assert_work(w, lookup_loads, b == SWS_BACKEND_XARRAY ? 2 : 1); /* XArray: head, root slot empty */
	for (uint64_t p = 1; p < 8200; p++)
		assert_sws(0, sws_swap_cache_del(f.cpu, sws_swp_entry((unsigned)f.type, p), 1, p, 0));
	sws_fixture_close(&f);
}

/*
 * A page's life in the swap cache, operation by operation, in the swapout
 * and swapin contexts:
 *   dup             both: 1 cluster lock
 *   cache_del       table: 1 cluster lock; XArray: + 1 xa_lock (the shadow store)
 *   cache_add       table: 1 cluster lock; XArray: + 1 xa_lock (the folio store)
 *   set_zero        table: 1 cluster lock, a plain store in the word;
 *                   XArray: no lock, 1 atomic RMW on the zeromap (set_bit)
 *   put to 0 + del  frees the slot: 2 RMWs (inuse_pages, nr_swap_pages); the
 *                   XArray also clears the zero bit and the swap_cgroup id
 *                   (1 RMW each) and the shadow (1 xa_lock)
 * Each store of the cache walks to its slot as a lookup does (meta_walk): the
 * table's pointer and entry; the XArray's head and a lone leaf: 2 either way.
 */
static void test_page_life(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	bool xa = b == SWS_BACKEND_XARRAY;
	struct sws_fixture f;
	sws_fixture_open(&f, b, 4096, SWS_SWP_SOLIDSTATE);
	sws_entry_t e, keep;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 9, 0, &keep)); /* the cluster stays in use */
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 10, 0, &e));

	enum sws_work_ctx old = sws__work_enter(f.cpu, SWS_WCTX_swapout);
	struct work w0 = snap(f.sim, SWS_WCTX_swapout);
	assert_sws(0, sws_swap_dup(f.cpu, e, 1));
	struct work w = since(f.sim, SWS_WCTX_swapout, &w0);
	assert_work(w, lock_cluster, 1);
	assert_work(w, atomic_rmw, 0);
	assert_work(w, meta_walk, 0);
	w0 = snap(f.sim, SWS_WCTX_swapout);
	assert_sws(0, sws_swap_set_zero(f.cpu, e, 1, true));
	w = since(f.sim, SWS_WCTX_swapout, &w0);
	assert_work(w, lock_cluster, xa ? 0 : 1);
	assert_work(w, atomic_rmw, xa ? 1 : 0);
	w0 = snap(f.sim, SWS_WCTX_swapout);
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 10, 77));
	w = since(f.sim, SWS_WCTX_swapout, &w0);
	assert_work(w, lock_cluster, 1);
	assert_work(w, lock_xa, xa ? 1 : 0);
	assert_work(w, lookup, 0);
	assert_work(w, meta_walk, 2);

	sws__work_enter(f.cpu, SWS_WCTX_swapin);
	w0 = snap(f.sim, SWS_WCTX_swapin);
	uint64_t shadow;
	assert_sws(0, sws_swap_cache_add(f.cpu, e, 1, 11, &shadow));
	w = since(f.sim, SWS_WCTX_swapin, &w0);
	assert_int_equal(shadow, 77);
	assert_work(w, lock_cluster, 1);
	assert_work(w, lock_xa, xa ? 1 : 0);
	assert_work(w, meta_alloc, 0); /* the XArray's leaf exists already */
	assert_work(w, meta_walk, 2);
	w0 = snap(f.sim, SWS_WCTX_swapin);
	assert_sws(0, sws_swap_put(f.cpu, e, 1)); /* count 0: cache-only */
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 11, 0)); /* the slot is freed */
	w = since(f.sim, SWS_WCTX_swapin, &w0);
	assert_work(w, lock_cluster, 2);
	assert_work(w, lock_xa, xa ? 2 : 0);   /* the store of the delete, the shadow clear */
	assert_work(w, atomic_rmw, xa ? 4 : 2); /* inuse_pages, nr_swap_pages (+ zeromap, swap_cgroup) */
	assert_work(w, meta_walk, 2);           /* the delete's store; a dup, a put or set_zero walk none */
	/* Nothing was counted elsewhere meanwhile. */
	struct work other = snap(f.sim, SWS_WCTX_free);
	for (unsigned k = 0; k < SWS_NR_WORK; k++)
		assert_int_equal(other.v[k], 0);
	sws__work_enter(f.cpu, old);
	assert_sws(0, sws_swap_cache_del(f.cpu, keep, 1, 9, 0));
	sws_fixture_close(&f);
}

/* A cluster's per-cluster tables: the swap table allocates its table and memcg
 * table when the cluster leaves the free list and releases them when it is free
 * again; the XArray allocates tree nodes on insert and releases them on erase. */
static void test_metadata(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_fixture f;
	sws_fixture_open(&f, b, 4096, SWS_SWP_SOLIDSTATE);
	struct work w0 = snap(f.sim, SWS_WCTX_other);
	sws_entry_t e;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 3, 0, &e)); /* cluster 0 has a table already */
	struct work w = since(f.sim, SWS_WCTX_other, &w0);
	assert_work(w, meta_alloc, b == SWS_BACKEND_XARRAY ? 1 : 0); /* XArray: the space's leaf */
	/* the folio's store into the cache: the table's pointer + entry; the XArray's
	 * head alone (its walk comes before the store, into an empty tree) */
	assert_work(w, meta_walk, b == SWS_BACKEND_XARRAY ? 1 : 2);
	sws_entry_t big;
	w0 = snap(f.sim, SWS_WCTX_other);
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 4, 9, &big)); /* a whole second cluster */
	w = since(f.sim, SWS_WCTX_other, &w0);
	/* table: its table + memcg table; XArray: a root above the first leaf, 8 leaves */
	assert_work(w, meta_alloc, b == SWS_BACKEND_XARRAY ? 9 : 2);
	w0 = snap(f.sim, SWS_WCTX_other);
	assert_sws(0, sws_swap_cache_del(f.cpu, big, 512, 4, 0));
	w = since(f.sim, SWS_WCTX_other, &w0);
	assert_work(w, meta_free, b == SWS_BACKEND_XARRAY ? 9 : 2); /* XArray: the tree shrinks back */
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 3, 0));
	sws_fixture_close(&f);
}

/*
 * vswap's free path by series, in the free context: 8 slots (an order-3
 * folio's) in a cluster that stays in use, each with count 1 and no folio,
 * put together (swap_put_entries_direct()). The put itself walks the map and
 * takes the virtual cluster's lock once (vswap_iter()). Then
 *   vswap (v4's batched free)  the run of 8 is freed under that lock: no
 *                              other acquisition, and 1 physical cluster
 *                              lock when a device backs the run (1 run);
 *   vswap-v3 (per-entry free)  each slot drops the lock: release_backing()
 *                              and mem_cgroup_clear_swap() look the cluster
 *                              up and lock it (2 walks, 2 acquisitions), the
 *                              relock of release_vswap_slot() a third; a
 *                              device's slot is given back alone (1
 *                              physical acquisition per slot).
 * The map is one level: a walk loads its head and the slot, then the
 * cluster's descriptor pointer (3 loads). vswap (v6) found the cluster in
 * its lookup cache (the calls before were in the same cluster): the cached
 * pointer and the descriptor pointer, 2 loads. Without a device: vswap 1
 * lock, 2 loads; vswap-v3 1 + 3 x 8 = 25 locks, 3 + 2 x 3 x 8 = 51 loads.
 * Written to the device first: vswap 2 locks, vswap-v3 25 + 8 = 33.
 */
static void test_vswap_free_by_series(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	bool v3 = b == SWS_DESIGN_VSWAP_V3;
	for (int written = 0; written < 2; written++) {
		struct sws_fixture f;
		sws_fixture_open(&f, b, 4096, SWS_SWP_SOLIDSTATE);
		sws_entry_t e, keep, phys;
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 7, 0, &keep)); /* the cluster stays in use */
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 8, 3, &e));
		if (written) {
			assert_sws(0, sws_swap_io_target(f.cpu, e, 8, true, &phys));
			assert_int_equal(sws_swp_type(phys), f.type);
		}
		assert_sws(0, sws_swap_dup(f.cpu, e, 8));
		assert_sws(0, sws_swap_cache_del(f.cpu, e, 8, 8, 0)); /* count 1, no folio */
		struct sws_device_info di;
		assert_sws(0, sws_device_info_get(f.sim, f.type, &di));
		assert_int_equal(di.inuse_pages, written ? 8 : 0);

		enum sws_work_ctx old = sws__work_enter(f.cpu, SWS_WCTX_free);
		struct work w0 = snap(f.sim, SWS_WCTX_free);
		uint64_t only_cache[SWS_CLUSTER_SLOTS / 64];
		assert_sws(0, sws_swap_put_entries_direct(f.cpu, e, 8, only_cache));
		struct work w = since(f.sim, SWS_WCTX_free, &w0);
		sws__work_enter(f.cpu, old);
		assert_work(w, lock_cluster, (v3 ? 1 + 3 * 8 : 1) + (written ? (v3 ? 8 : 1) : 0));
		assert_work(w, meta_walk, v3 ? 3 + 2 * 3 * 8 : 2);
		assert_int_equal(only_cache[0], 0);
		/* Freed either way: the virtual slots and the device's. */
		uint32_t count;
		assert_sws(SWS_ENOENT, sws_swap_count(f.cpu, e, &count));
		assert_sws(SWS_ENOENT, sws_swap_count(f.cpu, e + 7, &count));
		assert_sws(0, sws_device_info_get(f.sim, f.type, &di));
		assert_int_equal(di.inuse_pages, 0);
		assert_sws(0, sws_swap_cache_del(f.cpu, keep, 1, 7, 0));
		sws_fixture_close(&f);
	}
}

/*
 * munmap of N = 300 pages all held by zswap (no folio, no device; they fit
 * the pool of 256 pages compressed): the zap walks
 * their swap PTEs in address order. vswap puts each run of virtually
 * contiguous entries (of one cluster) at once: 1 cluster lock a run, so at
 * most N. Under vswap-v3 swap_pte_batch() asks swap_move() whether the next
 * entry extends the batch, and a zswap-backed one never does: every entry is
 * a batch of one, put (1 lock) and freed alone (3 more), plus 1 lock for
 * each swap_move() asked (an entry that follows the previous one in the same
 * cluster): 4 N + the times swap_move() was asked, at most 5 N - 1.
 */
static void test_vswap_zap_batch_by_series(void **state)
{
	(void)state;
	enum { N = 300 };
	const enum sws_backend designs[] = {SWS_DESIGN_VSWAP, SWS_DESIGN_VSWAP_V3};
	uint64_t locks[2], puts[2];
	for (unsigned k = 0; k < 2; k++) {
		struct sws_sim_config cfg = {.design = designs[k]};
		struct sws_sim *sim;
		struct sws_cpu *cpu;
		struct sws_mm *mm;
		uint32_t asid;
		int type;
		assert_sws(0, sws_sim_create(&cfg, &sim));
		assert_sws(0, sws_cpu_attach(sim, &cpu));
		struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE};
		assert_sws(0, sws_swapon(sim, &dc, &type));
		/* text and index pages: all compress, none is zero-filled */
		struct sws_mm_config mc = {.ram_pages = 256, .seed = 9, .content_weight = {0, 0, 1, 2, 0}};
		assert_sws(0, sws_mm_create(sim, &mc, &mm));
		struct sws_zswap_config zc = {.max_pool_percent = 100};
		assert_sws(0, sws_mm_zswap_enable(mm, &zc));
		assert_sws(0, sws_mm_space_create(mm, 0, &asid));
		for (unsigned p = 0; p < N; p++)
			assert_true(sws_mm_access(cpu, mm, asid, 0x20000000ull + (uint64_t)p * SWS_PAGE_SIZE, true) >= 0);
		while (sws_mm_reclaim(cpu, mm, 0, 64))
			; /* every page to zswap */
		struct sws_mm_stats ms = sws_test_mm_stats(mm);
		assert_int_equal(ms.stored_pages, N);
		assert_int_equal(ms.counters[SWS_MM_pswpout], 0);
		struct sws_stats st0, st;
		sws_stats_snapshot(sim, &st0);
		assert_sws(0, sws_mm_munmap(cpu, mm, asid, 0x20000000ull, (uint64_t)N * SWS_PAGE_SIZE));
		sws_stats_snapshot(sim, &st);
		locks[k] = st.work[SWS_WCTX_free][SWS_WORK_lock_cluster] - st0.work[SWS_WCTX_free][SWS_WORK_lock_cluster];
		puts[k] = st.counters[SWS_CTR_swap_put_total] - st0.counters[SWS_CTR_swap_put_total];
		assert_int_equal(puts[k], N); /* every entry put, in batches or alone */
		ms = sws_test_mm_stats(mm);
		assert_int_equal(ms.stored_pages, 0);
		assert_consistent(sim);
		sws_mm_destroy(mm);
		sws_cpu_detach(cpu);
		sws_sim_destroy(sim);
	}
	print_message("munmap of %d zswap-backed pages: cluster locks vswap %llu, vswap-v3 %llu\n", N,
		      (unsigned long long)locks[0], (unsigned long long)locks[1]);
	/* Reclaim gave the pages one contiguous run of one virtual cluster (the
	 * same on both: the allocator is shared): vswap puts it at once. */
	assert_int_equal(locks[0], 1);
	/* vswap-v3: 4 a page, and swap_move() asked at each of the N - 1 steps. */
	assert_int_equal(locks[1], 4 * N + (N - 1));
}

/* A fixture of design @d with two whole virtual clusters in use: an order-9
 * folio each, entries @a and @b (swap cache, count 0). */
static void two_clusters(struct sws_fixture *f, enum sws_backend d, sws_entry_t *a, sws_entry_t *b)
{
	sws_fixture_open(f, d, 4096, SWS_SWP_SOLIDSTATE);
	assert_sws(0, sws_folio_alloc_swap(f->cpu, 1, 9, a));
	assert_sws(0, sws_folio_alloc_swap(f->cpu, 1024, 9, b));
	assert_int_not_equal(sws_swp_offset(*a) / SWS_CLUSTER_SLOTS, sws_swp_offset(*b) / SWS_CLUSTER_SLOTS);
}

/*
 * v6's per-CPU cluster lookup cache, by hand: two virtual clusters A and B
 * (an order-9 folio each, whole clusters 1 and 2; the map is one level: a
 * walk is 2 loads, then the descriptor pointer). After one call in A, the
 * swap counts of A, B, A, A:
 *   vswap-v3 (no cache)   each call walks the map and locks its cluster:
 *                         4 x 3 = 12 loads, 4 locks;
 *   vswap (v6)            A hits: the cached pointer + the descriptor
 *                         pointer, 2 loads, 1 lock; B misses: 3 loads, the
 *                         cached A locked to drop it and B locked, 2 locks,
 *                         B cached; A misses the same way; A hits:
 *                         2 + 3 + 3 + 2 = 10 loads, 1 + 2 + 2 + 1 = 6 locks.
 * The cache trades walks for locks when calls alternate between clusters.
 */
static void test_vswap_lookup_cache(void **state)
{
	(void)state;
	const enum sws_backend designs[] = {SWS_DESIGN_VSWAP, SWS_DESIGN_VSWAP_V3};
	for (unsigned k = 0; k < 2; k++) {
		struct sws_fixture f;
		sws_entry_t a, b;
		two_clusters(&f, designs[k], &a, &b);
		uint32_t count;
		assert_sws(0, sws_swap_count(f.cpu, a, &count));
		struct work w0 = snap(f.sim, SWS_WCTX_other);
		const sws_entry_t seq[] = {a + 1, b + 2, a + 3, a + 4};
		for (unsigned i = 0; i < 4; i++)
			assert_sws(0, sws_swap_count(f.cpu, seq[i], &count));
		struct work w = since(f.sim, SWS_WCTX_other, &w0);
		bool v6 = designs[k] == SWS_DESIGN_VSWAP;
		assert_work(w, meta_walk, v6 ? 10 : 12);
		assert_work(w, lock_cluster, v6 ? 6 : 4);
		assert_sws(0, sws_swap_cache_del(f.cpu, a, 512, 1, 0));
		assert_sws(0, sws_swap_cache_del(f.cpu, b, 512, 1024, 0));
		assert_consistent(f.sim);
		sws_fixture_close(&f);
	}
}

/*
 * v6: a virtual cluster that becomes free leaves every CPU's lookup cache
 * before its RCU-delayed free (a stale pointer would be read after the free,
 * and a lookup of the cluster reused would find the old one and miss). Two
 * CPUs look up cluster A (each caches it); A is freed; each then looks up B:
 * an empty cache, a plain miss each (3 loads, 1 lock), 6 loads and 2 locks.
 * Were A left in a cache, that CPU's miss would lock A to drop it (3 locks,
 * or 4 when neither cache was cleared). A cluster allocated in A's place is
 * found by both.
 */
static void test_vswap_lookup_cache_free(void **state)
{
	(void)state;
	struct sws_fixture f;
	sws_entry_t a, b;
	two_clusters(&f, SWS_DESIGN_VSWAP, &a, &b);
	struct sws_cpu *cpu2;
	assert_sws(0, sws_cpu_attach(f.sim, &cpu2));
	uint32_t count;
	assert_sws(0, sws_swap_count(f.cpu, a, &count));
	assert_sws(0, sws_swap_count(cpu2, a + 1, &count));
	assert_sws(0, sws_swap_cache_del(f.cpu, a, 512, 1, 0)); /* A's slots and A go */
	assert_sws(SWS_ENOENT, sws_swap_count(f.cpu, a, &count));
	struct work w0 = snap(f.sim, SWS_WCTX_other);
	assert_sws(0, sws_swap_count(f.cpu, b + 1, &count));
	assert_sws(0, sws_swap_count(cpu2, b + 2, &count));
	struct work w = since(f.sim, SWS_WCTX_other, &w0);
	assert_work(w, meta_walk, 6);
	assert_work(w, lock_cluster, 2);
	sws_entry_t a2;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 2048, 9, &a2));
	assert_sws(0, sws_swap_count(f.cpu, a2 + 3, &count));
	assert_sws(0, sws_swap_count(cpu2, a2 + 4, &count));
	assert_sws(0, sws_swap_cache_del(f.cpu, a2, 512, 2048, 0));
	assert_sws(0, sws_swap_cache_del(f.cpu, b, 512, 1024, 0));
	assert_consistent(f.sim);
	sws_cpu_detach(cpu2);
	sws_fixture_close(&f);
}

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;
static enum sws_backend backend_vswap_v3 = SWS_DESIGN_VSWAP_V3;
static enum sws_backend backend_vswap = SWS_BACKEND_VSWAP;
#define BOTH(fn) cmocka_unit_test_prestate(fn, &backend_table), cmocka_unit_test_prestate(fn, &backend_xarray)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_lookup),
		BOTH(test_page_life),
		BOTH(test_metadata),
		cmocka_unit_test_prestate(test_vswap_free_by_series, &backend_vswap_v3),
		cmocka_unit_test_prestate(test_vswap_free_by_series, &backend_vswap),
		cmocka_unit_test(test_vswap_zap_batch_by_series),
		cmocka_unit_test(test_vswap_lookup_cache),
		cmocka_unit_test(test_vswap_lookup_cache_free),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
