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

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;
#define BOTH(fn) cmocka_unit_test_prestate(fn, &backend_table), cmocka_unit_test_prestate(fn, &backend_xarray)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_lookup),
		BOTH(test_page_life),
		BOTH(test_metadata),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
