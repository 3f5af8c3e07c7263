/*
 * test_mm.c - the memory model: the exact-LRU property against a textbook LRU
 * cache, swap-out/swap-in round trips verified byte for byte, fork and COW
 * swap counts, the free path, zero pages, readahead, mTHP, its fallback and
 * its splits (dirty in the swap cache, shared since a fork),
 * memcg limits, determinism across runs and backends, errors, the OOM
 * reaper's time apart from the faulting task's, no leaks.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <swapsim/zswap.h>

#include "testutil.h"
#include "mm/mm_internal.h"

struct env {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	int type;
	uint64_t base_dynamic;
};

static void env_open(struct env *e, enum sws_backend b, uint64_t swap_slots, uint32_t dev_flags,
		     enum sws_backing backing, const struct sws_mm_config *mc)
{
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &e->sim));
	assert_sws(0, sws_cpu_attach(e->sim, &e->cpu));
	struct sws_device_config dc = {.nr_slots = swap_slots, .flags = dev_flags, .backing = backing};
	assert_sws(0, sws_swapon(e->sim, &dc, &e->type));
	struct sws_memory_usage mu;
	sws_sim_memory_usage(e->sim, &mu);
	e->base_dynamic = mu.dynamic_bytes;
	assert_sws(0, sws_mm_create(e->sim, mc, &e->mm));
}

/* Tear down and check nothing leaked: every slot free, metadata back to baseline. */
static void env_close(struct env *e)
{
	assert_consistent(e->sim);
	sws_test_mm_destroy(e->sim, e->mm);
	struct sws_stats st;
	sws_stats_snapshot(e->sim, &st);
	assert_int_equal(st.nr_swapcache, 0);
	assert_consistent(e->sim);
	sws_cpu_detach(e->cpu);
	sws_sim_destroy(e->sim);
}

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x10000000ull)

/* An access succeeded: 0 (hit) or 1 (fault). */
#define assert_access(call)                                                        \
	do {                                                                       \
		int a__rc = (call);                                                \
		if (a__rc != 0 && a__rc != 1)                                      \
			fail_msg("%s: got %s", #call, sws_error_name(a__rc));      \
	} while (0)

/* With one thread, no readahead and M pages of RAM, faults == textbook LRU misses. */
static void test_exact_lru_property(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	enum { M = 64, N = 160, ACCESSES = 20000 };
	struct sws_mm_config mc = {.ram_pages = M, .policy = SWS_RECLAIM_LRU, .page_cluster = 1};
	struct env e;
	env_open(&e, b, 1024, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &asid));

	/* The reference: an LRU cache of M pages, by access stamps. */
	uint64_t stamp[N] = {0}, now = 0, misses = 0;
	bool in[N] = {false};
	unsigned resident = 0;
	uint64_t seed = 42;
	for (int i = 0; i < ACCESSES; i++) {
		/* a skewed pattern: a hot set and a cold tail */
		uint64_t r = sws_test_rand(&seed);
		unsigned p = (r & 3) ? (unsigned)((r >> 8) % 40) : (unsigned)((r >> 8) % N);
		if (!in[p]) {
			misses++;
			if (resident == M) {
				unsigned victim = N;
				for (unsigned q = 0; q < N; q++)
					if (in[q] && (victim == N || stamp[q] < stamp[victim]))
						victim = q;
				in[victim] = false;
				resident--;
			}
			in[p] = true;
			resident++;
		}
		stamp[p] = ++now;
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	}
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pgfault], misses);
	assert_true(s.counters[SWS_MM_pswpout] > 0 && s.counters[SWS_MM_pswpin] > 0);
	assert_int_equal(s.counters[SWS_MM_swap_ra], 0);
	env_close(&e);
}

/* Every page swapped out and back comes back byte-identical (memory and file). */
static void roundtrip(enum sws_backend b, enum sws_backing backing, uint64_t *faults_out)
{
	struct sws_mm_config mc = {.ram_pages = 128, .flags = SWS_MM_VERIFY, .seed = 7,
				   .content_weight = {1, 1, 3, 2, 2}};
	struct env e;
	char path[256];
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &e.sim));
	assert_sws(0, sws_cpu_attach(e.sim, &e.cpu));
	struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE, .backing = backing,
				       .path = sws_test_path(path, sizeof(path), "mmswap")};
	unlink(path); /* swapon creates its file new */
	assert_sws(0, sws_swapon(e.sim, &dc, &e.type));
	assert_sws(0, sws_mm_create(e.sim, &mc, &e.mm));
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &asid));
	for (int pass = 0; pass < 3; pass++)
		for (unsigned p = 0; p < 600; p++)
			assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), pass != 1));
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_true(s.counters[SWS_MM_verify_ok] > 100);
	assert_true(s.counters[SWS_MM_pswpout] > 100);
	assert_true(s.counters[SWS_MM_swpout_zero] > 0); /* the mix has zero pages */
	assert_true(s.counters[SWS_MM_swpin_zero] > 0);
	*faults_out = s.counters[SWS_MM_pgfault];
	env_close(&e);
	if (backing == SWS_BACKING_FILE)
		unlink(path);
}

static void test_roundtrip_verified(void **state)
{
	(void)state;
	uint64_t f1, f2, f3;
	roundtrip(SWS_BACKEND_SWAP_TABLE, SWS_BACKING_MEMORY, &f1);
	roundtrip(SWS_BACKEND_XARRAY, SWS_BACKING_MEMORY, &f2);
	roundtrip(SWS_BACKEND_SWAP_TABLE, SWS_BACKING_FILE, &f3);
	/* The design decides the metadata, not which pages fault. */
	assert_int_equal(f1, f2);
	assert_int_equal(f1, f3);
}

static uint32_t slot_count_of(struct env *e, uint32_t asid, uint64_t addr)
{
	(void)asid;
	(void)addr;
	(void)e;
	return 0;
}

/* fork shares swap entries (counts 2), COW copies on write, exits put everything back. */
static void test_fork_cow(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 256, .seed = 3, .flags = SWS_MM_VERIFY};
	struct env e;
	env_open(&e, b, 2048, SWS_SWP_SOLIDSTATE, SWS_BACKING_MEMORY, &mc);
	uint32_t parent, child;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &parent));
	for (unsigned p = 0; p < 100; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, parent, PG(p), true));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, parent, PG(0), 50 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pswpout], 50);
	uint64_t total, free0, free1;
	sws_swap_totals(e.sim, &total, &free0);
	assert_int_equal(total - free0, 50);
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, parent, &child));
	(void)slot_count_of;
	/* Child reads a swapped page: swap-in; the slot stays for the parent. */
	assert_access(sws_mm_access(e.cpu, e.mm, child, PG(3), false));
	sws_swap_totals(e.sim, &total, &free1);
	assert_int_equal(total - free1, 50);
	/* Writes on both sides of shared present pages copy. */
	uint64_t cow0 = sws_test_mm_stats(e.mm).counters[SWS_MM_cow_fault];
	assert_access(sws_mm_access(e.cpu, e.mm, child, PG(70), true));
	assert_access(sws_mm_access(e.cpu, e.mm, parent, PG(71), true));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_cow_fault], cow0 + 2);
	/* The child writes its swapped-in page: it copies, the parent keeps the slot. */
	assert_access(sws_mm_access(e.cpu, e.mm, child, PG(3), true));
	/* Neither side sees the other's writes since the fork (verify mode checks
	 * every access against what the space itself wrote or inherited). */
	for (unsigned p = 50; p < 100; p++) { /* the pages that stayed present, shared */
		assert_access(sws_mm_access(e.cpu, e.mm, child, PG(p), false));
		assert_access(sws_mm_access(e.cpu, e.mm, parent, PG(p), false));
	}
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_verify_fail], 0);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, child));
	sws_swap_totals(e.sim, &total, &free1);
	assert_int_equal(total - free1, 50); /* the parent's swap entries */
	assert_consistent(e.sim);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, parent, PG(0), 100 * SWS_PAGE_SIZE));
	sws_swap_totals(e.sim, &total, &free1);
	assert_int_equal(total, free1);
	s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_free_slots_batched] >= 50);
	assert_int_equal(s.anon_pages, 0);
	assert_sws(SWS_EINVAL, sws_mm_access(e.cpu, e.mm, child, PG(1), false));
	env_close(&e);
}

/* Readahead on a sequential swap-in; none with page-cluster 0 or a SYNCHRONOUS_IO device. */
static void ra_run(enum sws_backend b, uint32_t page_cluster, uint32_t dev_flags, uint32_t mmflags,
		   struct sws_mm_stats *out)
{
	struct sws_mm_config mc = {.ram_pages = 512, .page_cluster = page_cluster, .flags = mmflags};
	struct env e;
	env_open(&e, b, 4096, dev_flags, SWS_BACKING_NONE, &mc);
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &asid));
	for (unsigned p = 0; p < 256; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, asid, PG(0), 256 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	for (unsigned p = 0; p < 256; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), false));
	*out = sws_test_mm_stats(e.mm);
	env_close(&e);
}

static void test_readahead(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_stats vma, cluster, none, sync;
	ra_run(b, 0, SWS_SWP_SOLIDSTATE, 0, &vma);
	ra_run(b, 0, SWS_SWP_SOLIDSTATE, SWS_MM_NO_VMA_RA, &cluster);
	ra_run(b, 1, SWS_SWP_SOLIDSTATE, 0, &none);
	ra_run(b, 0, SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO, 0, &sync);
	for (int k = 0; k < 2; k++) {
		struct sws_mm_stats *s = k ? &cluster : &vma;
		assert_true(s->counters[SWS_MM_swap_ra] > 100);
		assert_true(s->counters[SWS_MM_swap_ra_hit] > 100);
		assert_true(s->counters[SWS_MM_pgmajfault] < 100); /* most came read ahead */
		assert_int_equal(s->counters[SWS_MM_pswpin], 256);
	}
	assert_int_equal(none.counters[SWS_MM_swap_ra], 0);
	assert_int_equal(none.counters[SWS_MM_pgmajfault], 256);
	assert_int_equal(sync.counters[SWS_MM_swap_ra], 0);
	assert_int_equal(sync.counters[SWS_MM_pgmajfault], 256);
}

static uint64_t lookups(struct env *e)
{
	struct sws_stats st;
	sws_stats_snapshot(e->sim, &st);
	return st.counters[SWS_CTR_swap_cache_find_total];
}

/*
 * The free path looks up the swap cache only for slots a put left
 * cache-only (free_swap_and_cache_nr()): unmapping swapped-out pages costs no
 * lookup; pages read ahead and never mapped are found and freed.
 */
static void test_free_path_lookups(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 512, .flags = SWS_MM_NO_VMA_RA}; /* cluster readahead */
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t a, c;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &a));
	assert_sws(0, sws_mm_space_create(e.mm, 0, &c));
	for (unsigned p = 0; p < 64; p++) {
		assert_access(sws_mm_access(e.cpu, e.mm, a, PG(p), true));
		assert_access(sws_mm_access(e.cpu, e.mm, c, PG(p), true));
	}
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 64 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, c, PG(0), 64 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout], 128);
	uint64_t l0 = lookups(&e);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, a, PG(0), 64 * SWS_PAGE_SIZE));
	assert_int_equal(lookups(&e), l0); /* 64 slots freed, none cached: no lookup */
	/* One fault reads its neighbours ahead into the swap cache, unmapped. */
	assert_access(sws_mm_access(e.cpu, e.mm, c, PG(20), false));
	uint64_t ra = sws_test_mm_stats(e.mm).counters[SWS_MM_swap_ra];
	assert_true(ra > 0);
	l0 = lookups(&e);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, c, PG(0), 64 * SWS_PAGE_SIZE));
	assert_int_equal(lookups(&e) - l0, ra); /* only the read-ahead ones */
	uint64_t total, freeslots;
	sws_swap_totals(e.sim, &total, &freeslots);
	assert_int_equal(total, freeslots); /* and their folios went with them */
	assert_int_equal(sws_test_mm_stats(e.mm).anon_pages, 0);
	env_close(&e);
}

/*
 * __try_to_reclaim_swap()'s TTRS_FULL: with swap more than half full, a slot
 * the free path leaves cache-only leaves the swap cache even while another
 * process maps its folio (which keeps the page, dirty).
 */
static void test_free_path_swap_full(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 256, .page_cluster = 1, .flags = SWS_MM_VERIFY};
	struct env e;
	env_open(&e, b, 16, SWS_SWP_SOLIDSTATE, SWS_BACKING_MEMORY, &mc); /* 15 slots */
	uint32_t parent, child;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &parent));
	for (unsigned p = 0; p < 10; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, parent, PG(p), true));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, parent, PG(0), 10 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_true(sws_swap_full(e.sim)); /* 5 free of 15 */
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, parent, &child));
	assert_access(sws_mm_access(e.cpu, e.mm, child, PG(3), false)); /* mapped, cached, count 1 */
	uint64_t total, freeslots;
	sws_swap_totals(e.sim, &total, &freeslots);
	assert_int_equal(total - freeslots, 10);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, parent, PG(0), 10 * SWS_PAGE_SIZE));
	sws_swap_totals(e.sim, &total, &freeslots);
	assert_int_equal(total - freeslots, 9); /* page 3's slot went too: its folio holds the page */
	struct sws_stats st;
	sws_stats_snapshot(e.sim, &st);
	assert_int_equal(st.nr_swapcache, 0);
	uint64_t faults = sws_test_mm_stats(e.mm).counters[SWS_MM_pgfault];
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(3), false), 0); /* still mapped */
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pgfault], faults);
	/* written out again from the dirty folio and read back intact */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, child, PG(3), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_access(sws_mm_access(e.cpu, e.mm, child, PG(3), false));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_verify_fail], 0);
	assert_true(sws_test_mm_stats(e.mm).counters[SWS_MM_verify_ok] > 0);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, child));
	env_close(&e);
}

/*
 * Cluster readahead skips a free slot before it allocates (and charges) a
 * folio for it (__read_swap_cache_async(): swap_entry_swapped() first): the
 * fault allocates one page, its own, none for its free neighbours.
 */
static void test_readahead_skips_free_slots(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 4096, .policy = SWS_RECLAIM_LRU, .flags = SWS_MM_NO_VMA_RA};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint16_t cg;
	uint32_t asid;
	assert_sws(0, sws_mm_memcg_create(e.mm, 32, &cg));
	assert_sws(0, sws_mm_space_create(e.mm, cg, &asid));
	for (unsigned p = 0; p < 40; p++) /* pages 0..7 go out first, to slots 1..8 */
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout], 8);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, asid, PG(1), 7 * SWS_PAGE_SIZE)); /* slots 2..8 free */
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, asid, PG(0), false), 1); /* the window: slots 1..7 */
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(s1.counters[SWS_MM_pgmajfault] - s0.counters[SWS_MM_pgmajfault], 1);
	assert_int_equal(s1.counters[SWS_MM_swap_ra] - s0.counters[SWS_MM_swap_ra], 0);
	assert_int_equal(s1.counters[SWS_MM_pgalloc] - s0.counters[SWS_MM_pgalloc], 1);
	assert_int_equal(s1.counters[SWS_MM_pgsteal] - s0.counters[SWS_MM_pgsteal], 1); /* the memcg was full */
	env_close(&e);
}

/*
 * swap_update_readahead(): with VMA readahead every swap-cache hit moves the
 * region's last-fault address, read ahead or not, so the next fault's window
 * is placed from it: a fault one page past a plain hit reads forward.
 */
static void test_vma_readahead_hit_address(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t a, c;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &a));
	for (unsigned p = 0; p < 64; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, a, PG(p), true));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 64 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, a, &c));
	/* The child brings page 40 into the swap cache (count 2: it stays cached). */
	assert_access(sws_mm_access(e.cpu, e.mm, c, PG(40), false));
	/* The parent faults at page 10 (its window state), then hits page 40 in the
	 * swap cache: not a readahead page, yet the hit's address counts. */
	assert_access(sws_mm_access(e.cpu, e.mm, a, PG(10), false));
	assert_access(sws_mm_access(e.cpu, e.mm, a, PG(40), false));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(s0.counters[SWS_MM_swap_ra_hit], 0);
	/* One page on from the hit: the window starts at the fault and reads on. */
	assert_access(sws_mm_access(e.cpu, e.mm, a, PG(41), false));
	uint64_t ra = sws_test_mm_stats(e.mm).counters[SWS_MM_swap_ra] - s0.counters[SWS_MM_swap_ra];
	assert_true(ra > 0);
	uint64_t hits = sws_test_mm_stats(e.mm).counters[SWS_MM_swap_ra_hit];
	for (unsigned p = 42; p < 42 + ra; p++) /* the pages read ahead were those after 41 */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(p), false), 1);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_swap_ra_hit], hits + ra);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, c));
	env_close(&e);
}

/*
 * MADV_FREE (madvise_free_pte_range()): swap entries in the range are freed
 * at once; pages only this process maps become lazily freed, and reclaim
 * drops them without a write (pglazyfreed) unless they were written again,
 * which makes them ordinary swap-backed pages. A dropped page reads as never
 * touched; a shared one is left alone.
 */
static void test_madv_free(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .page_cluster = 1};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t a, c;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &a));
	for (unsigned p = 0; p < 24; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, a, PG(p), true));
	/* pages 16..23 on swap; 20 read back: in the swap cache, count 0 */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(16), 8 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_access(sws_mm_access(e.cpu, e.mm, a, PG(20), false));
	uint64_t total, freeslots;
	sws_swap_totals(e.sim, &total, &freeslots);
	assert_int_equal(total - freeslots, 8);
	/* a child shares pages 0..1 until it exits */
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, a, &c));
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, c, PG(2), 22 * SWS_PAGE_SIZE));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 24 * SWS_PAGE_SIZE, SWS_MADV_FREE));
	sws_mm_lru_add_drain(e.cpu, e.mm); /* folio_mark_lazyfree()'s batch */
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(s1.counters[SWS_MM_pglazyfree] - s0.counters[SWS_MM_pglazyfree], 14 + 1); /* 2..15, 20 */
	sws_swap_totals(e.sim, &total, &freeslots);
	assert_int_equal(total, freeslots); /* every swap entry and the cached slot went */
	assert_int_equal(s1.counters[SWS_MM_pswpout], s0.counters[SWS_MM_pswpout]);
	/* page 3 written again (a write-protect fault since the fork: reused), page 5
	 * read: only the write keeps a page */
	assert_access(sws_mm_access(e.cpu, e.mm, a, PG(3), true));
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(5), false), 0);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 24 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s2 = sws_test_mm_stats(e.mm);
	assert_int_equal(s2.counters[SWS_MM_pglazyfreed] - s1.counters[SWS_MM_pglazyfreed], 13 + 1);
	/* the shared pages 0..1 stay put (mapped twice), page 3 is swap-backed again and kept once */
	assert_int_equal(s2.counters[SWS_MM_pswpout] - s1.counters[SWS_MM_pswpout], 0);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(3), false), 0); /* still mapped */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(3), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout] - s2.counters[SWS_MM_pswpout], 1);
	/* a dropped page is gone: a read maps the zero page, a write a new page,
	 * both first touches */
	uint64_t ft = sws_test_mm_stats(e.mm).counters[SWS_MM_first_touch], anon = sws_test_mm_stats(e.mm).anon_pages;
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(5), false), 1);
	assert_int_equal(sws_test_mm_stats(e.mm).anon_pages, anon);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(6), true), 1);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_first_touch], ft + 2);
	assert_int_equal(sws_test_mm_stats(e.mm).anon_pages, anon + 1);
	assert_sws(SWS_EINVAL, sws_mm_madvise(e.cpu, e.mm, a, PG(0), SWS_PAGE_SIZE, (enum sws_madvise)9));
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, c));
	env_close(&e);
}

/*
 * __swapin_nr_pages(): after a sequential run has opened the window, faults
 * with no readahead hits close it again, at most halving it each time, down
 * to no readahead at all (cluster readahead: the global window).
 */
static void test_readahead_window_shrinks(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .flags = SWS_MM_NO_VMA_RA};
	struct env e;
	env_open(&e, b, 8192, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t a;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &a));
	for (unsigned p = 0; p < 512; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, a, PG(p), true));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 512 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	for (unsigned p = 0; p < 64; p++) /* sequential: the window opens to 8 */
		assert_access(sws_mm_access(e.cpu, e.mm, a, PG(p), false));
	uint64_t ra[6];
	for (unsigned k = 0; k < 6; k++) { /* scattered, nothing read ahead is used */
		uint64_t r0 = sws_test_mm_stats(e.mm).counters[SWS_MM_swap_ra];
		assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(100 + 64 * k), false), 1);
		ra[k] = sws_test_mm_stats(e.mm).counters[SWS_MM_swap_ra] - r0;
	}
	assert_int_equal(ra[0], 3);               /* 8 -> 4: three neighbours */
	assert_int_equal(ra[1], 1);               /* 4 -> 2 */
	for (unsigned k = 2; k < 6; k++)          /* 2 -> 1 and stays: none */
		assert_int_equal(ra[k], 0);
	env_close(&e);
}

/*
 * The kernel policy keeps the active list no larger than the inactive one
 * (inactive_is_low()): while active is the smaller list reclaim deactivates
 * nothing; once it is the larger, every scan deactivates its oldest page.
 */
static void test_active_inactive_balance(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 4096, .policy = SWS_RECLAIM_KERNEL, .page_cluster = 1};
	struct env e;
	env_open(&e, b, 8192, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint16_t cg;
	uint32_t a;
	assert_sws(0, sws_mm_memcg_create(e.mm, 1024, &cg));
	assert_sws(0, sws_mm_space_create(e.mm, cg, &a));
	for (unsigned p = 0; p < 64; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, a, PG(p), true));
	/* One pass marks every page referenced (young once); page 0 goes. */
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, cg, 1), 1);
	for (unsigned p = 1; p <= 8; p++) /* used again: the next pass activates them */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(p), false), 0);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, cg, 1), 1);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(s0.counters[SWS_MM_pgactivate], 8);
	assert_int_equal(s0.counters[SWS_MM_pgdeactivate], 0);
	/* 8 active, 54 inactive: taking 40 of the inactive deactivates nothing */
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, cg, 40), 40);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pgdeactivate], 0);
	/* 8 active, 14 inactive: once the inactive list is the smaller, reclaim ages the active one */
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, cg, 12), 12);
	assert_true(sws_test_mm_stats(e.mm).counters[SWS_MM_pgdeactivate] > 0);
	env_close(&e);
}

/* A verified mm on @state's backend whose @parent wrote PG(0) and swapped it
 * out; the fork is the caller's. */
static void swapped_page_open(void **state, struct env *e, uint32_t *parent)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 256, .page_cluster = 1, .flags = SWS_MM_VERIFY};
	env_open(e, b, 1024, SWS_SWP_SOLIDSTATE, SWS_BACKING_MEMORY, &mc);
	assert_sws(0, sws_mm_space_create(e->mm, 0, parent));
	assert_access(sws_mm_access(e->cpu, e->mm, *parent, PG(0), true));
	assert_sws(0, sws_mm_madvise(e->cpu, e->mm, *parent, PG(0), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
}

/*
 * A page shared since a fork and swapped out is swapped in by both sides: the
 * second swap-in drops the last swap count but the folio is mapped twice, so
 * it is mapped read-only and a write copies it (do_swap_page()'s exclusive
 * test); the other side keeps its contents.
 */
static void test_swapin_shared_readonly(void **state)
{
	struct env e;
	uint32_t parent, child;
	swapped_page_open(state, &e, &parent);
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, parent, &child));
	assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(0), false), 1); /* count 2 -> 1 */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(0), false), 1);  /* swap cache hit, count 0 */
	uint64_t cow = sws_test_mm_stats(e.mm).counters[SWS_MM_cow_fault];
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(0), true), 1);   /* not a hit: a copy */
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_cow_fault], cow + 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(0), false), 0); /* its own contents */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(0), false), 0);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_verify_fail], 0);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, child));
	env_close(&e);
}

/*
 * A write swap-in frees the slot (should_try_to_free_swap()) only when the
 * writer is the folio's only user: here a fork's child swapped the shared page
 * in first and still maps it, so the parent's write copies it and the child's
 * folio keeps its slot, clean in the swap cache: reclaiming it writes nothing
 * (bgsave's child reading while the parent rewrites).
 */
static void test_swapin_write_keeps_shared_slot(void **state)
{
	struct env e;
	uint32_t parent, child;
	swapped_page_open(state, &e, &parent);
	uint64_t out = sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout];
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, parent, &child));
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(0), false), 1); /* count 2 -> 1 */
	uint64_t cow = sws_test_mm_stats(e.mm).counters[SWS_MM_cow_fault];
	assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(0), true), 1); /* cache hit, count 0 */
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_cow_fault], cow + 1);
	struct sws_stats st;
	sws_stats_snapshot(e.sim, &st);
	assert_int_equal(st.nr_swapcache, 1); /* the child's folio kept its slot */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, child, PG(0), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout], out); /* clean: dropped, not written */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(0), false), 1); /* read back intact */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(0), false), 0);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_verify_fail], 0);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, child));
	env_close(&e);
}

/*
 * A read fault maps an exclusive page writable but clean (do_swap_page():
 * pte_mkwrite() without pte_mkdirty()): reclaimed again, it is dropped from
 * the swap cache without a write; a write to it while resident (no fault)
 * dirties it, and the next reclaim writes it.
 */
static void test_swapin_read_maps_clean(void **state)
{
	struct env e;
	uint32_t a;
	swapped_page_open(state, &e, &a);
	uint64_t out = sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout];
	assert_int_equal(out, 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(0), false), 1); /* read fault: swap-in */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(0), false), 0);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout], 1); /* clean: no write */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(0), false), 1);     /* read back intact */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(0), true), 0);      /* writable: a hit, now dirty */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout], 2);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(0), false), 1);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_verify_fail], 0);
	env_close(&e);
}

/* Pages [@from, @to) of space @a written for the first time: a fault each. */
static void first_writes(struct env *e, uint32_t a, unsigned from, unsigned to)
{
	for (unsigned p = from; p < to; p++)
		assert_int_equal(sws_mm_access(e->cpu, e->mm, a, PG(p), true), 1);
}

/* An SSD environment with a second CPU, a memcg and a space in it: the
 * per-CPU batch tests. */
struct batch_env {
	struct env e;
	struct sws_cpu *other; /* the second CPU */
	uint16_t cg;
	uint32_t a;
};

static void batch_env_open(struct batch_env *t, enum sws_backend b, struct sws_mm_config *mc)
{
	env_open(&t->e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, mc);
	assert_sws(0, sws_cpu_attach(t->e.sim, &t->other));
	assert_sws(0, sws_mm_memcg_create(t->e.mm, 0, &t->cg));
	assert_sws(0, sws_mm_space_create(t->e.mm, t->cg, &t->a));
}

static void batch_env_close(struct batch_env *t)
{
	sws_cpu_detach(t->other);
	env_close(&t->e);
}

/*
 * folio_add_lru(): a CPU's new folios wait in its batch (31) until it fills or
 * the CPU drains it (lru_add_drain(): its own reclaim, munmap, exit,
 * MADV_PAGEOUT); reclaim on another CPU cannot see them yet.
 */
static void test_lru_add_batch(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024};
	struct batch_env t;
	batch_env_open(&t, b, &mc);
	first_writes(&t.e, t.a, 0, 10);
	assert_int_equal(sws_mm_reclaim(t.other, t.e.mm, t.cg, 100), 0); /* all ten in t.e.cpu's batch */
	assert_int_equal(sws_mm_reclaim(t.e.cpu, t.e.mm, t.cg, 100), 10); /* drained, then reclaimed */
	first_writes(&t.e, t.a, 10, 10 + 31); /* a full batch drains itself */
	assert_int_equal(sws_mm_reclaim(t.other, t.e.mm, t.cg, 100), 31);
	batch_env_close(&t);
}

/*
 * The other moves wait in their CPU's batches too and go with lru_add_drain():
 * MADV_FREE's folios become lazily freed (pglazyfree) when the batch moves; a
 * swap-in that reads ahead drains before it reads the faulting page, so the
 * pages read ahead (and the batch before them) are on the LRU for every CPU;
 * a large folio never waits in a batch.
 */
static void test_lru_move_batches(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .page_cluster = 3};
	struct batch_env t;
	batch_env_open(&t, b, &mc);
	/* MADV_FREE drains first (madvise_free_single_vma()), so the pages just
	 * written, still in the add batch, are taken; nothing is counted until
	 * the lazyfree batch moves */
	first_writes(&t.e, t.a, 0, 8);
	struct sws_mm_stats s0 = sws_test_mm_stats(t.e.mm);
	assert_sws(0, sws_mm_madvise(t.e.cpu, t.e.mm, t.a, PG(0), 8 * SWS_PAGE_SIZE, SWS_MADV_FREE));
	struct sws_mm_stats s1 = sws_test_mm_stats(t.e.mm);
	assert_int_equal(s1.counters[SWS_MM_pglazyfree], s0.counters[SWS_MM_pglazyfree]);
	sws_mm_lru_add_drain(NULL, t.e.mm); /* no CPU: nothing */
	sws_mm_lru_add_drain(t.other, t.e.mm); /* another CPU's batches: not these */
	s1 = sws_test_mm_stats(t.e.mm);
	assert_int_equal(s1.counters[SWS_MM_pglazyfree], s0.counters[SWS_MM_pglazyfree]);
	sws_mm_lru_add_drain(t.e.cpu, t.e.mm);
	s1 = sws_test_mm_stats(t.e.mm);
	assert_int_equal(s1.counters[SWS_MM_pglazyfree] - s0.counters[SWS_MM_pglazyfree], 8);
	assert_int_equal(sws_mm_reclaim(t.other, t.e.mm, t.cg, 8), 8); /* dropped, not written */
	struct sws_mm_stats s2 = sws_test_mm_stats(t.e.mm);
	assert_int_equal(s2.counters[SWS_MM_pglazyfreed] - s1.counters[SWS_MM_pglazyfreed], 8);
	assert_int_equal(s2.counters[SWS_MM_pswpout], s1.counters[SWS_MM_pswpout]);
	/* a full lazyfree batch (31) moves by itself */
	first_writes(&t.e, t.a, 200, 240);
	assert_sws(0, sws_mm_madvise(t.e.cpu, t.e.mm, t.a, PG(200), 40 * SWS_PAGE_SIZE, SWS_MADV_FREE));
	s1 = sws_test_mm_stats(t.e.mm);
	assert_int_equal(s1.counters[SWS_MM_pglazyfree] - s2.counters[SWS_MM_pglazyfree], 31);
	/* MADV_DONTNEED drains first (zap_page_range_single()): the other 9 count */
	assert_sws(0, sws_mm_madvise(t.e.cpu, t.e.mm, t.a, PG(200), 40 * SWS_PAGE_SIZE, SWS_MADV_DONTNEED));
	s2 = sws_test_mm_stats(t.e.mm);
	assert_int_equal(s2.counters[SWS_MM_pglazyfree] - s1.counters[SWS_MM_pglazyfree], 9);
	/* readahead: swap 64 pages out, fault one back in */
	first_writes(&t.e, t.a, 100, 164);
	assert_sws(0, sws_mm_madvise(t.e.cpu, t.e.mm, t.a, PG(100), 64 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	s1 = sws_test_mm_stats(t.e.mm);
	assert_int_equal(sws_mm_access(t.e.cpu, t.e.mm, t.a, PG(132), false), 1); /* no readahead yet */
	assert_int_equal(sws_mm_access(t.e.cpu, t.e.mm, t.a, PG(133), false), 1); /* page 134 read ahead */
	s2 = sws_test_mm_stats(t.e.mm);
	assert_int_equal(s2.counters[SWS_MM_swap_ra] - s1.counters[SWS_MM_swap_ra], 1);
	/* the drain moved page 132's folio and page 134's; page 133's waits */
	assert_int_equal(sws_mm_reclaim(t.other, t.e.mm, t.cg, 100), 2);
	/* a large folio goes to the LRU at once, with the batch before it (page 133's) */
	assert_sws(0, sws_mm_mmap(t.e.mm, t.a, PG(512), 16 * SWS_PAGE_SIZE, SWS_MM_MAP_ORDER(4)));
	assert_int_equal(sws_mm_access(t.e.cpu, t.e.mm, t.a, PG(512), true), 1);
	assert_int_equal(sws_mm_reclaim(t.other, t.e.mm, t.cg, 100), 16 + 1);
	batch_env_close(&t);
}

/*
 * munmap frees its folios in batches (folios_put(): 31, then the rest) and
 * uncharges them (mem_cgroup_uncharge_folios()): a memcg at its limit gets
 * the room back, so as many new pages fit again without reclaim.
 */
static void test_munmap_uncharges(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint16_t cg;
	uint32_t a;
	assert_sws(0, sws_mm_memcg_create(e.mm, 128, &cg));
	assert_sws(0, sws_mm_space_create(e.mm, cg, &a));
	first_writes(&e, a, 0, 128);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(s0.counters[SWS_MM_pgscan], 0);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, a, PG(0), 40 * SWS_PAGE_SIZE));
	first_writes(&e, a, 300, 340);
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(s1.counters[SWS_MM_pgscan], 0);
	first_writes(&e, a, 340, 341); /* one more: the memcg reclaims */
	s1 = sws_test_mm_stats(e.mm);
	assert_true(s1.counters[SWS_MM_pgscan] > 0);
	env_close(&e);
}

/* sws_mm_create() on a @b simulation refuses @mc with SWS_EINVAL. */
static void mm_config_refused(enum sws_backend b, const struct sws_mm_config *mc)
{
	struct sws_sim_config cfg = {.backend = b};
	struct sws_sim *sim;
	struct sws_mm *mm;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(SWS_EINVAL, sws_mm_create(sim, mc, &mm));
	sws_sim_destroy(sim);
}

/* mTHP regions swap out whole folios; with no room for them, they are split. */
static void test_mthp(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &asid));
	assert_sws(0, sws_mm_mmap(e.mm, asid, PG(0), 256 * SWS_PAGE_SIZE, SWS_MM_MAP_ORDER(4)));
	for (unsigned p = 0; p < 256; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, asid, PG(0), 256 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.swpout[4], 16);
	assert_int_equal(s.counters[SWS_MM_pswpout], 256);
	/* Read back, then fragment swap with single pages so order 4 finds nothing. */
	for (unsigned p = 0; p < 256; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, asid, PG(0), 256 * SWS_PAGE_SIZE));
	uint32_t other;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &other));
	for (unsigned p = 0; p < 4000; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, other, PG(p), true));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, other, PG(0), 4000 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	for (unsigned p = 0; p < 4000; p += 2)
		assert_sws(0, sws_mm_madvise(e.cpu, e.mm, other, PG(p), SWS_PAGE_SIZE, SWS_MADV_DONTNEED));
	assert_sws(0, sws_mm_mmap(e.mm, asid, PG(0), 64 * SWS_PAGE_SIZE, SWS_MM_MAP_ORDER(4)));
	for (unsigned p = 0; p < 64; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, asid, PG(0), 64 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	s = sws_test_mm_stats(e.mm);
	assert_true(s.swpout_fallback[4] >= 1);
	assert_int_equal(s.swpout[4], 16); /* no new order-4 swap-out */
	env_close(&e);
}

/*
 * The anon mTHP policy (hugepages-64kB/enabled "always": anon_orders bit 4)
 * applies to every anonymous region, the implicit ones too: a first touch
 * takes a 64 KiB folio where the aligned block fits the region and is empty,
 * else order 0 — never an order the policy does not enable (MAP_ORDER(4), the
 * largest of several, would take order 3 in the 8-page region).
 */
static void test_mthp_policy(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders = 1u << 4};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t a;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &a));
	uint64_t alloc0 = sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc];
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(1), true), 1); /* no mmap: implicit region */
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc], alloc0 + 16);
	for (unsigned p = 0; p < 16; p++)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(p), true), 0); /* all mapped by the one fault */
	assert_sws(0, sws_mm_mmap(e.mm, a, PG(1024), 8 * SWS_PAGE_SIZE, 0)); /* past the implicit 2 MiB */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(1024), true), 1);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc], alloc0 + 17);
	/* A zero-page PTE is not none (pte_range_none()): a block holding one
	 * takes no 64 KiB folio, and a write to it copies into 4 KiB. */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(4096), false), 1); /* the zero page */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(4097), true), 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(4096), true), 1);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc], alloc0 + 19);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats st = sws_test_mm_stats(e.mm);
	assert_int_equal(st.swpout[4], 1);
	assert_int_equal(st.counters[SWS_MM_pswpout], 16);
	env_close(&e);

	mc.anon_orders = 1u; /* order 0 is no mTHP size */
	mm_config_refused(b, &mc);
	mc.anon_orders = 1u << SWS_NR_ORDERS;
	mm_config_refused(b, &mc);
}

/* A write at PG(@pg) of @a faults and allocates @pages pages (pgalloc, from *@alloc on). */
static void fault_allocs(struct env *e, uint32_t a, unsigned pg, uint64_t pages, uint64_t *alloc)
{
	assert_int_equal(sws_mm_access(e->cpu, e->mm, a, PG(pg), true), 1);
	uint64_t now = sws_test_mm_stats(e->mm).counters[SWS_MM_pgalloc];
	assert_int_equal(now - *alloc, pages);
	*alloc = now;
}

/*
 * mTHP "madvise" (anon_orders_madvise): 16 KiB "always", 64 KiB "madvise".
 * A first write takes 16 KiB outside the ranges madvise()d MADV_HUGEPAGE and
 * 64 KiB inside (the region is split at the range's edges); MADV_NOHUGEPAGE
 * takes order 0 whatever the policy; MADV_HUGEPAGE again clears it. Each
 * figure is the pages allocated by one fault.
 */
static void test_mthp_madvise(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders = 1u << 2, .anon_orders_madvise = 1u << 4};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t a;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &a));
	assert_sws(0, sws_mm_mmap(e.mm, a, PG(0), 64 * SWS_PAGE_SIZE, 0));
	uint64_t alloc = sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc];
#define FAULT(pg, pages) fault_allocs(&e, a, pg, pages, &alloc)
	FAULT(0, 4); /* "always": 16 KiB */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(16), 32 * SWS_PAGE_SIZE, SWS_MADV_HUGEPAGE));
	FAULT(16, 16); /* "madvise" under VM_HUGEPAGE: 64 KiB */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(20), true), 0); /* mapped by it */
	FAULT(48, 4);  /* past the range: the region's other part, 16 KiB */
	FAULT(12, 4);  /* before it */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(32), 16 * SWS_PAGE_SIZE, SWS_MADV_NOHUGEPAGE));
	FAULT(32, 1);  /* VM_NOHUGEPAGE: order 0, not even the "always" 16 KiB */
	FAULT(40, 1);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(32), 16 * SWS_PAGE_SIZE, SWS_MADV_HUGEPAGE));
	FAULT(36, 4);  /* 64 KiB block holds PG(32): the largest that fits, 16 KiB */
	/* a range no region covers is left alone; a bad advice is refused */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(8192), 16 * SWS_PAGE_SIZE, SWS_MADV_HUGEPAGE));
	assert_sws(SWS_EINVAL, sws_mm_madvise(e.cpu, e.mm, a, PG(0), SWS_PAGE_SIZE, (enum sws_madvise)6));
	/* fork copies the regions with their VM_ flags; a new mmap has none */
	assert_sws(0, sws_mm_mmap(e.mm, a, PG(64), 32 * SWS_PAGE_SIZE, 0));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(64), 32 * SWS_PAGE_SIZE, SWS_MADV_HUGEPAGE));
	uint32_t c;
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, a, &c));
	alloc = sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc];
	a = c;
	FAULT(64, 16);
	assert_sws(0, sws_mm_mmap(e.mm, c, PG(80), 16 * SWS_PAGE_SIZE, 0));
	FAULT(80, 4);
#undef FAULT
	env_close(&e);

	mc.anon_orders_madvise = 1u; /* order 0 is no mTHP size */
	mm_config_refused(b, &mc);
}

/* @s's mTHP anon fault counts of @order: anon_fault_alloc, _fallback, _fallback_charge. */
static void assert_anon_faults(const struct sws_mm_stats *s, unsigned order, uint64_t alloc, uint64_t fallback,
			       uint64_t charge)
{
	assert_int_equal(s->anon_fault_alloc[order], alloc);
	assert_int_equal(s->anon_fault_fallback[order], fallback);
	assert_int_equal(s->anon_fault_fallback_charge[order], charge);
}

/* env_open() with swap, a memcg @cg of 64 pages, a space in it and 256 pages mmap()ed at PG(0). */
static uint32_t env_open_memcg64(struct env *e, enum sws_backend b, const struct sws_mm_config *mc, uint16_t *cg)
{
	uint32_t a;
	env_open(e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, mc);
	assert_sws(0, sws_mm_memcg_create(e->mm, 64, cg));
	assert_sws(0, sws_mm_space_create(e->mm, *cg, &a));
	assert_sws(0, sws_mm_mmap(e->mm, a, PG(0), 256 * SWS_PAGE_SIZE, 0));
	return a;
}

/*
 * A large folio's charge at the memcg limit (vma_thp_gfp_mask(), defrag
 * "madvise"): 64 KiB and 16 KiB "always", a memcg of 64 pages. The first
 * 64 KiB fault charges 64 pages (16 and 48 ahead into the CPU's stock), the
 * next three take theirs from the stock: the memcg is full. A fault at PG(64)
 * may not reclaim for 64 KiB nor for 16 KiB (each counts anon_fault_fallback
 * and anon_fault_fallback_charge) and maps one page, charged with reclaim;
 * reclaim took 32 pages (two 64 KiB folios swapped out whole), so with room
 * again the rest of that block takes 16 KiB at PG(68) and the next block
 * 64 KiB at PG(80) (anon_fault_alloc).
 */
static void test_mthp_charge_fallback(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders = 1u << 4 | 1u << 2};
	struct env e;
	uint16_t cg;
	uint32_t a = env_open_memcg64(&e, b, &mc, &cg);
	uint64_t alloc = sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc];
#define FAULT(pg, pages) fault_allocs(&e, a, pg, pages, &alloc)
	for (unsigned p = 0; p < 64; p += 16)
		FAULT(p, 16);
	assert_int_equal(atomic_load(&e.mm->memcgs[cg].usage), 64);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_anon_faults(&s, 4, 4, 0, 0);
	assert_int_equal(s.counters[SWS_MM_pgsteal], 0);
	FAULT(64, 1);
	s = sws_test_mm_stats(e.mm);
	assert_anon_faults(&s, 4, 4, 1, 1);
	assert_anon_faults(&s, 2, 0, 1, 1);
	assert_int_equal(s.counters[SWS_MM_pgsteal], 32);
	assert_int_equal(s.swpout[4], 2);
	FAULT(68, 4);
	FAULT(80, 16);
	s = sws_test_mm_stats(e.mm);
	assert_anon_faults(&s, 2, 1, 1, 1);
	assert_anon_faults(&s, 4, 5, 1, 1);
#undef FAULT
	env_close(&e);

	mc.thp_defrag = SWS_THP_DEFRAG_NR;
	mm_config_refused(b, &mc);
}

/*
 * A traced fault's folio (sws_mm_access_folio()): 64 KiB and 16 KiB "always",
 * a memcg of 64 pages. The kernel's order 0 after a fallback: one page, each
 * larger order a failed charge; order 0 with no fallback: one page, nothing
 * counted (the kernel did not try); 16 KiB after a fallback: 64 KiB's charge
 * failed. A 64 KiB folio the kernel had is charged as a page is: with the
 * memcg full, with reclaim (of 32 pages, folios whole), where the model's own
 * light charge would fall back.
 */
static void test_mthp_traced_folio(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders = 1u << 4 | 1u << 2};
	struct env e;
	uint16_t cg;
	uint32_t a = env_open_memcg64(&e, b, &mc, &cg);
	uint64_t alloc = sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc];
#define TRACED(pg, order, fb, pages)                                                                       \
	do {                                                                                                  \
		assert_int_equal(sws_mm_access_folio(e.cpu, e.mm, a, PG(pg), true, order, fb), 1);          \
		uint64_t now = sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc];                             \
		assert_int_equal(now - alloc, pages);                                                         \
		alloc = now;                                                                                  \
	} while (0)
	TRACED(0, 0, true, 1);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_anon_faults(&s, 4, 0, 1, 1);
	assert_anon_faults(&s, 2, 0, 1, 1);
	TRACED(16, 0, false, 1);
	TRACED(32, 2, true, 4);
	s = sws_test_mm_stats(e.mm);
	assert_anon_faults(&s, 4, 0, 2, 2);
	assert_anon_faults(&s, 2, 1, 1, 1);
	for (unsigned p = 64; p < 112; p += 16) /* the stock's 58 pages: 10 left */
		TRACED(p, 4, false, 16);
	assert_int_equal(s.counters[SWS_MM_pgsteal], 0);
	TRACED(112, 4, false, 16);
	s = sws_test_mm_stats(e.mm);
	assert_anon_faults(&s, 4, 4, 2, 2);
	assert_int_equal(s.counters[SWS_MM_pgsteal], 38); /* 32 asked: the oldest 1 + 1 + 4, two 64 KiB whole */
	assert_int_equal(sws_mm_access_folio(e.cpu, e.mm, a, PG(200), true, SWS_NR_ORDERS, false), SWS_EINVAL);
	/* the kernel's 64 KiB where the model's block is not empty: order 0, not 16 KiB */
	TRACED(136, 0, false, 1);
	TRACED(128, 4, false, 1);
#undef TRACED
	env_close(&e);
}

/*
 * A named victim once the trace records its reclaims' begins: the model's
 * 64 KiB folio over a 1-page record goes whole, its 15 other pages counting
 * against the next records (a record of 10 reclaims nothing more); a named
 * page the model does not hold takes no other page (the next begin settles
 * the memcg's usage).
 */
static void test_mthp_victim_excess(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders = 1u << 4};
	struct env e;
	uint16_t cg;
	uint32_t a = env_open_memcg64(&e, b, &mc, &cg);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(0), true), 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(16), true), 1);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, cg, 0, SWS_MM_LRU_ANON), 0); /* a begin */
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_folio_at(e.cpu, e.mm, a, PG(3), cg, 1), 16);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout] - s0.counters[SWS_MM_pswpout], 16);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, cg, 10, SWS_MM_LRU_ANON), 10);
	assert_int_equal(sws_mm_reclaim_folio_at(e.cpu, e.mm, a, PG(100), cg, 1), 0);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout] - s0.counters[SWS_MM_pswpout], 16);
	env_close(&e);
}

/* The pages the fault at PG(64) allocates once 4 64 KiB folios fill a memcg
 * of 64 pages, with transparent_hugepage/defrag @defrag, the region
 * MADV_HUGEPAGE or not (@madvised); its anon_fault_fallback_charge in *@fb. */
static uint64_t mthp_fault_at_limit(enum sws_backend b, enum sws_thp_defrag defrag, bool madvised, uint64_t *fb)
{
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders_madvise = 1u << 4, .thp_defrag = defrag};
	if (!madvised)
		mc = (struct sws_mm_config){.ram_pages = 1024, .anon_orders = 1u << 4, .thp_defrag = defrag};
	struct env e;
	uint16_t cg;
	uint32_t a = env_open_memcg64(&e, b, &mc, &cg);
	if (madvised)
		assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 256 * SWS_PAGE_SIZE, SWS_MADV_HUGEPAGE));
	for (unsigned p = 0; p < 64; p += 16)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(p), true), 1);
	uint64_t alloc = sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc];
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(64), true), 1);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	*fb = s.anon_fault_fallback_charge[4];
	env_close(&e);
	return s.counters[SWS_MM_pgalloc] - alloc;
}

/*
 * Which large charges may reclaim (vma_thp_gfp_mask()): "always" everywhere
 * (__GFP_NORETRY outside MADV_HUGEPAGE: one round is enough here), "madvise"
 * and "defer+madvise" in MADV_HUGEPAGE regions only, "defer" and "never"
 * nowhere. One that may reclaims and maps 64 KiB; one that may not falls back
 * to a page.
 */
static void test_mthp_thp_defrag(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	static const struct {
		enum sws_thp_defrag defrag;
		bool madvised;
		uint64_t pages, fallback_charge;
	} cases[] = {
		{SWS_THP_DEFRAG_MADVISE, false, 1, 1},      {SWS_THP_DEFRAG_MADVISE, true, 16, 0},
		{SWS_THP_DEFRAG_ALWAYS, false, 16, 0},      {SWS_THP_DEFRAG_ALWAYS, true, 16, 0},
		{SWS_THP_DEFRAG_DEFER, true, 1, 1},         {SWS_THP_DEFRAG_DEFER_MADVISE, false, 1, 1},
		{SWS_THP_DEFRAG_DEFER_MADVISE, true, 16, 0}, {SWS_THP_DEFRAG_NEVER, true, 1, 1},
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t fb;
		assert_int_equal(mthp_fault_at_limit(b, cases[i].defrag, cases[i].madvised, &fb), cases[i].pages);
		assert_int_equal(fb, cases[i].fallback_charge);
	}
}

/*
 * A dirty 64 KiB folio split in the swap cache keeps every page dirty
 * (split_folio() carries PG_dirty over). zswap refuses the folio
 * (incompressible, memory.zswap.writeback 0): reclaim has unmapped it, it
 * stays in the swap cache holding its 16 slots, its only copy in RAM. A munmap
 * of its last 4 pages drops their swap PTEs; the first fault on the rest finds
 * the large folio in the swap cache and splits it. With writeback allowed, the
 * pageout of the 12 pages writes each to zswap (kept uncompressed), and the
 * reads compare them byte for byte. A page that came out of the split clean
 * would leave the swap cache unwritten: its data lost.
 */
static void test_mthp_split_dirty(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders = 1u << 4, .flags = SWS_MM_VERIFY,
				   .seed = 5, .content_weight = {0, 0, 0, 0, 1}};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_MEMORY, &mc);
	assert_sws(0, sws_mm_zswap_enable(e.mm, NULL));
	assert_sws(0, sws_mm_zswap_memcg(e.mm, 0, 0, false));
	uint32_t a;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &a));
	assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(0), true), 1);
	for (unsigned p = 1; p < 16; p++)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(p), true), 0); /* the one 64 KiB folio */
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	struct sws_stats st;
	sws_stats_snapshot(e.sim, &st);
	assert_int_equal(s.counters[SWS_MM_reject_compress_poor], 1); /* its first page refused */
	assert_int_equal(s.counters[SWS_MM_zswpout], 0);
	assert_int_equal(s.counters[SWS_MM_pswpout], 0);
	assert_int_equal(st.nr_swapcache, 16);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, a, PG(12), 4 * SWS_PAGE_SIZE));
	assert_sws(0, sws_mm_zswap_memcg(e.mm, 0, 0, true));
	for (unsigned p = 0; p < 12; p++) /* swap-cache hits: the first splits the folio */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(p), false), 1);
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_swapcache_hit], 12);
	assert_int_equal(s.counters[SWS_MM_pswpin] + s.counters[SWS_MM_zswpin], 0);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, a, PG(0), 12 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	s = sws_test_mm_stats(e.mm);
	sws_stats_snapshot(e.sim, &st);
	assert_int_equal(s.counters[SWS_MM_zswpout], 12);
	assert_int_equal(s.zswpout_order[0], 12);
	/* Left in the swap cache: the unmapped pages' folios (their slots' only
	 * reference; the zap could not free a large folio whose other slots were
	 * in use, free_swap_and_cache()). */
	assert_int_equal(st.nr_swapcache, 4);
	for (unsigned p = 0; p < 12; p++)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, a, PG(p), false), 1);
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_zswpin], 12);
	assert_int_equal(s.counters[SWS_MM_pswpin], 0);
	assert_int_equal(s.counters[SWS_MM_verify_ok], 12);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	env_close(&e);
}

/*
 * A split large folio shared since a fork stays write-protected in both spaces
 * (split_folio() keeps each PTE's write bit): a write on either side copies.
 * The parent's 64 KiB folio at page 0 is split by a partial munmap, the one at
 * page 16 by the child's copy-on-write of one page; every later write to a
 * shared page is a COW fault of its own, and verify mode checks that neither
 * space sees the other's writes.
 */
static void test_mthp_split_fork_cow(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders = 1u << 4, .flags = SWS_MM_VERIFY, .seed = 9};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t parent, child;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &parent));
	assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(0), true), 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(16), true), 1);
	for (unsigned p = 0; p < 32; p++)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(p), true), 0); /* two 64 KiB folios */
	uint64_t alloc0 = sws_test_mm_stats(e.mm).counters[SWS_MM_pgalloc];
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, parent, &child));
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, parent, PG(12), 4 * SWS_PAGE_SIZE)); /* splits the first */
	/* Writes to shared pages of the split folio: a copy each. */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(5), true), 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(6), true), 1);
	/* The child's write into the second folio splits it, then copies one page. */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(20), true), 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(21), true), 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(22), true), 1);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_cow_fault], 5);
	assert_int_equal(s.counters[SWS_MM_pgalloc], alloc0 + 5);
	for (unsigned p = 0; p < 32; p++) {
		if (p < 12 || p >= 16)
			assert_int_equal(sws_mm_access(e.cpu, e.mm, parent, PG(p), false), 0);
		assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(p), false), 0);
	}
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_int_equal(s.counters[SWS_MM_cow_fault], 5);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, child));
	env_close(&e);
}

/*
 * memory.high: every charge that leaves the memcg above it reclaims the excess
 * at once. Exact LRU charges page by page (no stock), so writing 128 pages
 * under a high of 64 (and no limit) exceeds it 64 times by one page: 64
 * reclaims of one page each, usage back at 64, no OOM.
 */
static void test_memcg_high(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024, .policy = SWS_RECLAIM_LRU};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint16_t cg;
	uint32_t a;
	assert_sws(0, sws_mm_memcg_create(e.mm, 0, &cg));
	assert_sws(0, sws_mm_memcg_set_high(e.mm, cg, 64));
	assert_sws(SWS_EINVAL, sws_mm_memcg_set_high(e.mm, (uint16_t)(cg + 1), 64));
	assert_sws(0, sws_mm_space_create(e.mm, cg, &a));
	first_writes(&e, a, 0, 128);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_memcg_high], 64);
	assert_int_equal(s.counters[SWS_MM_pswpout], 64);
	assert_int_equal(s.counters[SWS_MM_oom], 0);
	assert_int_equal(atomic_load(&e.mm->memcgs[cg].usage), 64);
	env_close(&e);
}

/* A memcg limit holds while the workload is four times larger. */
static void test_memcg_limit(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 4096};
	struct env e;
	env_open(&e, b, 8192, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint16_t cg;
	uint32_t asid;
	assert_sws(0, sws_mm_memcg_create(e.mm, 256, &cg));
	assert_sws(0, sws_mm_space_create(e.mm, cg, &asid));
	for (unsigned p = 0; p < 1024; p++) {
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
		struct sws_mm_stats s = sws_test_mm_stats(e.mm);
		assert_true(s.anon_pages <= 256);
	}
	assert_true(sws_test_mm_stats(e.mm).counters[SWS_MM_pswpout] >= 1024 - 256);
	assert_true(sws_mm_reclaim(e.cpu, e.mm, cg, 100) > 0);
	env_close(&e);
}

/* The kernel policy activates re-used pages and refaults within the workingset. */
static void test_kernel_policy_and_kswapd(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 512, .seed = 11};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &asid));
	uint64_t seed = 5;
	for (int i = 0; i < 20000; i++) {
		uint64_t r = sws_test_rand(&seed);
		unsigned p = (r & 1) ? (unsigned)((r >> 8) % 200) : (unsigned)((r >> 8) % 1200);
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), (r >> 4) & 1));
		if (i % 256 == 0)
			sws_mm_kswapd(e.cpu, e.mm, 64);
	}
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_pgactivate] > 0);
	assert_true(s.counters[SWS_MM_workingset_refault] > 0);
	assert_true(s.counters[SWS_MM_workingset_activate] > 0);
	assert_true(s.counters[SWS_MM_pgsteal] > 0);
	assert_int_equal(sws_mm_kswapd(e.cpu, e.mm, 1u << 20), 0);
	assert_true(s.free_pages <= 512);
	env_close(&e);
}

/*
 * workingset_test_recent() for an anonymous refault: the workingset it
 * competes with is the active anon list (and the file lists, none here), not
 * the inactive list it was evicted from. With every resident page inactive, a
 * refault at distance 10 does not activate, however long the inactive list.
 */
static void test_refault_distance_active_only(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 512, .seed = 3};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(e.mm, 0, &asid));
	for (unsigned p = 0; p < 100; p++)
		assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(p), true));
	for (unsigned p = 0; p <= 10; p++) /* page 0 first: ten evictions after it */
		assert_sws(0, sws_mm_madvise(e.cpu, e.mm, asid, PG(p), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_access(sws_mm_access(e.cpu, e.mm, asid, PG(0), false));
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(s1.counters[SWS_MM_workingset_refault], s0.counters[SWS_MM_workingset_refault] + 1);
	assert_int_equal(s1.counters[SWS_MM_workingset_activate], s0.counters[SWS_MM_workingset_activate]);
	env_close(&e);
}

/*
 * The per-CPU charge stock: a charge takes MEMCG_CHARGE_BATCH pages ahead into
 * its CPU's stock. Another CPU at the limit, once reclaim finds nothing (no
 * swap here), drains every CPU's stock of the memcg (drain_all_stock()) and
 * gets those pages instead of calling the OOM killer.
 */
static void test_charge_stock_drained(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_sim_config cfg = {.backend = b, .max_cpus = 2};
	struct sws_sim *sim;
	struct sws_cpu *c0, *c1;
	struct sws_mm *mm;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &c0));
	assert_sws(0, sws_cpu_attach(sim, &c1));
	struct sws_mm_config mc = {.ram_pages = 4096, .seed = 1};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	uint16_t cg;
	uint32_t asid;
	assert_sws(0, sws_mm_memcg_create(mm, 100, &cg));
	assert_sws(0, sws_mm_space_create(mm, cg, &asid));
	assert_access(sws_mm_access(c0, mm, asid, PG(0), true)); /* 1 page, 63 more in c0's stock */
	for (unsigned p = 1; p < 100; p++)
		assert_access(sws_mm_access(c1, mm, asid, PG(p), true));
	struct sws_mm_stats s;
	sws_mm_stats_get(mm, &s);
	assert_int_equal(s.anon_pages, 100);
	assert_int_equal(s.counters[SWS_MM_oom_kill], 0);
	/* The limit holds: the 101st page has nowhere to go. */
	assert_int_equal(sws_mm_access(c1, mm, asid, PG(100), true), SWS_EKILLED);
	assert_sws(0, sws_mm_exit(c0, mm, asid)); /* a killed space's page tables go at exit */
	sws_mm_destroy(mm);
	sws_cpu_detach(c0);
	sws_cpu_detach(c1);
	sws_sim_destroy(sim);
}

/* @cg's page counter (charged pages, the CPUs' stocks of it included). */
static uint64_t memcg_usage(struct sws_mm *mm, uint16_t cg) { return atomic_load(&mm->memcgs[cg].usage); }

/*
 * One CPU's charge stock serves one memcg at a time: a charge of another memcg
 * drains it (drain_stock(): the pages go back to their memcg's counter) before
 * it takes MEMCG_CHARGE_BATCH (64) pages ahead. Worked out by hand, memcgs A
 * and B without limits on one CPU: A's first page charges 64 (63 in the
 * stock); B's charges 64 and gives A its 63 back (A 1); A's second page
 * charges 64 more and gives B its 63 back (A 65, B 1); A's third comes from
 * the stock (A 65). Unmapped, A holds only its stock (62) and B nothing; a
 * page of the root memcg takes the stock over: both back to 0.
 */
static void test_charge_stock_two_memcgs(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_config mc = {.ram_pages = 1024};
	struct env e;
	env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
	uint16_t ca, cb;
	uint32_t a, bs, root;
	assert_sws(0, sws_mm_memcg_create(e.mm, 0, &ca));
	assert_sws(0, sws_mm_memcg_create(e.mm, 0, &cb));
	assert_sws(0, sws_mm_space_create(e.mm, ca, &a));
	assert_sws(0, sws_mm_space_create(e.mm, cb, &bs));
	assert_sws(0, sws_mm_space_create(e.mm, 0, &root));
	first_writes(&e, a, 0, 1);
	assert_int_equal(memcg_usage(e.mm, ca), 64);
	assert_int_equal(memcg_usage(e.mm, cb), 0);
	first_writes(&e, bs, 0, 1);
	assert_int_equal(memcg_usage(e.mm, ca), 1);
	assert_int_equal(memcg_usage(e.mm, cb), 64);
	first_writes(&e, a, 1, 2);
	assert_int_equal(memcg_usage(e.mm, ca), 65);
	assert_int_equal(memcg_usage(e.mm, cb), 1);
	first_writes(&e, a, 2, 3);
	assert_int_equal(memcg_usage(e.mm, ca), 65);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, a, PG(0), 3 * SWS_PAGE_SIZE));
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, bs, PG(0), SWS_PAGE_SIZE));
	assert_int_equal(memcg_usage(e.mm, ca), 62);
	assert_int_equal(memcg_usage(e.mm, cb), 0);
	first_writes(&e, root, 0, 1);
	assert_int_equal(memcg_usage(e.mm, ca), 0);
	assert_int_equal(memcg_usage(e.mm, cb), 0);
	env_close(&e);
}

/*
 * Swap writes that fail (a backing file that may not grow past RLIMIT_FSIZE:
 * EFBIG, as a full file system gives ENOSPC): the folio keeps the only copy,
 * dirty in the swap cache; reclaim moves on, the device stops taking slots
 * once it keeps failing, the run ends (OOM at worst), and every page the
 * workload wrote reads back right.
 */
static void test_swap_write_failure(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	char path[256];
	sws_test_path(path, sizeof(path), "mm-fsize");
	unlink(path);
	struct sws_sim_config cfg = {.backend = b};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	int type;
	struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE, .backing = SWS_BACKING_FILE,
				       .path = path, .backing_flags = SWS_BACKING_UNLINK};
	assert_sws(0, sws_swapon(sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = 256, .seed = 4, .flags = SWS_MM_VERIFY};
	struct sws_mm *mm;
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(mm, 0, &asid));
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 128 * SWS_PAGE_SIZE; /* slots 1..127 can be written */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	unsigned written = 0;
	for (unsigned p = 0; p < 1024; p++) {
		int rc = sws_mm_access(cpu, mm, asid, PG(p), true);
		if (rc < 0) {
			assert_true(rc == SWS_EKILLED || rc == SWS_ENOMEM);
			break;
		}
		written++;
	}
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	struct sws_stats st;
	sws_stats_snapshot(sim, &st);
	assert_true(st.counters[SWS_CTR_swap_writepage_error] > 0);
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(sim, type, &di));
	assert_true(di.write_failed);
	assert_int_equal(di.write_errno, EFBIG);
	assert_true(written > 256); /* what fit on the device left RAM */
	if (!sws_mm_oom_killed(mm, asid))
		for (unsigned p = 0; p < written; p++)
			assert_true(sws_mm_access(cpu, mm, asid, PG(p), false) >= 0);
	struct sws_mm_stats s;
	sws_mm_stats_get(mm, &s);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	sws_mm_destroy(mm);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

/* Same input, same seed, one thread: identical counters. */
static void test_deterministic(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_mm_stats s[2];
	for (int run = 0; run < 2; run++) {
		struct sws_mm_config mc = {.ram_pages = 300, .seed = 99};
		struct env e;
		env_open(&e, b, 4096, SWS_SWP_SOLIDSTATE, SWS_BACKING_NONE, &mc);
		uint32_t asid;
		assert_sws(0, sws_mm_space_create(e.mm, 0, &asid));
		uint64_t seed = 1;
		for (int i = 0; i < 8000; i++) {
			uint64_t r = sws_test_rand(&seed);
			assert_access(sws_mm_access(e.cpu, e.mm, asid, PG((r >> 8) % 900), r & 1));
			if (i % 500 == 0)
				sws_mm_kswapd(e.cpu, e.mm, 32);
		}
		s[run] = sws_test_mm_stats(e.mm);
		/* measured times differ; modelled ones do not */
		memset(s[run].reclaim_lat, 0, sizeof(s[run].reclaim_lat));
		s[run].reclaim_sum_ns = s[run].reclaim_max_ns = 0;
		assert_true(s[run].time.sys_ns >= s[run].time.sys_modelled_ns);
		s[run].time.sys_ns = 0;
		env_close(&e);
	}
	assert_memory_equal(&s[0], &s[1], sizeof(s[0]));
}

/*
 * The priority a reclaim pass reached, for shrink_slab(): the first at which
 * the kernel's per-priority scan targets (target >> priority, summed from
 * DEF_PRIORITY) cover what the pass scanned; 0 when it fell short.
 */
static void test_reclaim_priority(void **state)
{
	(void)state;
	const uint64_t t = 100 << 12; /* 100 pages at DEF_PRIORITY, 200 at 11, 400 at 10 */
	assert_int_equal(sws__mm_reclaim_priority(0, t, false), 12);
	assert_int_equal(sws__mm_reclaim_priority(100, t, false), 12);
	assert_int_equal(sws__mm_reclaim_priority(101, t, false), 11);
	assert_int_equal(sws__mm_reclaim_priority(300, t, false), 11);
	assert_int_equal(sws__mm_reclaim_priority(301, t, false), 10);
	assert_int_equal(sws__mm_reclaim_priority(32, t, true), 0);
	/* A small memcg (4096 pages to scan at priority 0): 1, 2, 4, 8, 16, 32
	 * from DEF_PRIORITY down, so SWAP_CLUSTER_MAX scanned reaches priority 7. */
	assert_int_equal(sws__mm_reclaim_priority(32, 4096, false), 7);
	assert_int_equal(sws__mm_reclaim_priority(5000, 4096, false), 0);
	assert_int_equal(sws__mm_reclaim_priority(1, 0, false), 0);
}

/* inactive_is_low()'s ratio: 1 under 1 GiB of a type's pages, then
 * int_sqrt(10 x GiB). */
static void test_inactive_ratio(void **state)
{
	(void)state;
	const uint64_t gib = 1 << 18; /* 4 KiB pages */
	assert_int_equal(sws__mm_inactive_ratio(0), 1);
	assert_int_equal(sws__mm_inactive_ratio(gib - 1), 1);
	assert_int_equal(sws__mm_inactive_ratio(gib), 3);
	assert_int_equal(sws__mm_inactive_ratio(2 * gib), 4);
	assert_int_equal(sws__mm_inactive_ratio(3 * gib), 5);
	assert_int_equal(sws__mm_inactive_ratio(10 * gib), 10);
	assert_int_equal(sws__mm_inactive_ratio(100 * gib), 31);
}

static void test_errors(void **state)
{
	(void)state;
	struct sws_sim *sim;
	struct sws_mm *mm;
	assert_sws(0, sws_sim_create(NULL, &sim));
	struct sws_mm_config mc = {.ram_pages = 10};
	assert_sws(SWS_EINVAL, sws_mm_create(sim, &mc, &mm));
	mc = (struct sws_mm_config){.ram_pages = 100, .version = 9};
	assert_sws(SWS_EVERSION, sws_mm_create(sim, &mc, &mm));
	mc = (struct sws_mm_config){.ram_pages = 100, .policy = (enum sws_reclaim_policy)7};
	assert_sws(SWS_EINVAL, sws_mm_create(sim, &mc, &mm));
	mc = (struct sws_mm_config){.ram_pages = 100};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	struct sws_cpu *cpu;
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	uint32_t asid;
	assert_sws(SWS_EINVAL, sws_mm_space_create(mm, 5, &asid)); /* no such memcg */
	assert_sws(0, sws_mm_space_create(mm, 0, &asid));
	assert_sws(SWS_EINVAL, sws_mm_access(cpu, mm, asid + 1, 0, false));
	assert_sws(SWS_EINVAL, sws_mm_access(cpu, mm, asid, 1ull << 50, false));
	assert_sws(SWS_EINVAL, sws_mm_mmap(mm, asid, 123, 4096, 0));
	assert_sws(0, sws_mm_mmap(mm, asid, PG(0), 8 * SWS_PAGE_SIZE, 0));
	assert_sws(0, sws_mm_mmap(mm, asid, PG(4), 8 * SWS_PAGE_SIZE, 0)); /* overlap: it takes the range */
	assert_sws(SWS_EINVAL, sws_mm_madvise(cpu, mm, asid, PG(0), 4096, (enum sws_madvise)9));
	/* No swap at all: a write beyond RAM finds nothing to reclaim, the OOM killer
	 * kills the task (the only one: the largest) and reaps its memory; its
	 * accesses fail from then on, counted as oom_refused (the fault that ran out
	 * of memory as oom), and it can still exit. */
	int rc = 0;
	unsigned p;
	for (p = 0; p < 200 && rc >= 0; p++)
		rc = sws_mm_access(cpu, mm, asid, PG(p), true);
	assert_sws(SWS_EKILLED, rc);
	assert_true(p > 64 && p < 200);
	assert_sws(SWS_EKILLED, sws_mm_access(cpu, mm, asid, PG(0), false));
	uint32_t child;
	assert_sws(SWS_EKILLED, sws_mm_fork(cpu, mm, asid, &child));
	struct sws_mm_stats s;
	sws_mm_stats_get(mm, &s);
	assert_int_equal(s.counters[SWS_MM_oom_kill], 1);
	assert_int_equal(s.counters[SWS_MM_oom], 1);
	assert_int_equal(s.counters[SWS_MM_oom_refused], 1);
	assert_int_equal(s.free_pages, s.ram_pages); /* reaped: every page back */
	/* The reaper unmaps; the page tables stay until the task exits (exit_mmap),
	 * so a fault of it in flight elsewhere never reads freed tables. */
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sim, &mu);
	assert_true(mu.bytes[SWS_MEM_pgtable] > 0);
	assert_sws(0, sws_mm_exit(cpu, mm, asid));
	sws_sim_memory_usage(sim, &mu);
	assert_int_equal(mu.bytes[SWS_MEM_pgtable], 0);
	/* Two tasks: the larger one is killed, the smaller one goes on. */
	uint32_t small, big;
	assert_sws(0, sws_mm_space_create(mm, 0, &small));
	assert_sws(0, sws_mm_space_create(mm, 0, &big));
	for (p = 0; p < 20; p++)
		assert_int_equal(sws_mm_access(cpu, mm, small, PG(p), true), 1);
	rc = 0;
	for (p = 0; p < 200 && rc >= 0; p++)
		rc = sws_mm_access(cpu, mm, big, PG(p), true);
	assert_sws(SWS_EKILLED, rc);
	assert_int_equal(sws_mm_access(cpu, mm, small, PG(0), true), 0); /* still mapped */
	assert_sws(0, sws_mm_exit(cpu, mm, big));
	/* A tie: oom_evaluate_task() lets an equal score replace the chosen task, so the
	 * newer of two equal spaces is the victim. */
	uint32_t older, newer;
	assert_sws(0, sws_mm_space_create(mm, 0, &older));
	assert_sws(0, sws_mm_space_create(mm, 0, &newer));
	sws_mm_stats_get(mm, &s);
	uint64_t room = s.free_pages;
	for (p = 0; p < room / 2; p++) {
		assert_int_equal(sws_mm_access(cpu, mm, older, PG(p), true), 1);
		assert_int_equal(sws_mm_access(cpu, mm, newer, PG(p), true), 1);
	}
	/* RAM is full: the small task (20 pages) asks for one more; older and newer tie */
	rc = 0;
	for (p = 20; p < 200 && rc >= 0 && !sws_mm_oom_killed(mm, older) && !sws_mm_oom_killed(mm, newer); p++)
		rc = sws_mm_access(cpu, mm, small, PG(p), true);
	assert_true(rc >= 0);
	assert_true(sws_mm_oom_killed(mm, newer));
	assert_false(sws_mm_oom_killed(mm, older));
	assert_sws(0, sws_mm_exit(cpu, mm, older));
	assert_sws(0, sws_mm_exit(cpu, mm, newer));
	/* The exited spaces' descriptors go at a trim (not before @min are waiting);
	 * what the OOM killer did stays, and the asids are not used again. */
	struct sws_memory_usage mu0, mu1;
	sws_sim_memory_usage(sim, &mu0);
	assert_int_equal(sws_mm_spaces_trim(mm, 1000), 0);
	uint32_t trimmed = sws_mm_spaces_trim(mm, 0); /* big, older, newer and earlier ones */
	assert_true(trimmed >= 3);
	assert_int_equal(sws_mm_spaces_trim(mm, 0), 0);
	sws_sim_memory_usage(sim, &mu1);
	if (mu0.bytes[SWS_MEM_mm] - mu1.bytes[SWS_MEM_mm] < (int64_t)trimmed * 4096)
		fail_msg("a trim of %u spaces gave back %lld bytes", trimmed,
			 (long long)(mu0.bytes[SWS_MEM_mm] - mu1.bytes[SWS_MEM_mm]));
	assert_true(sws_mm_oom_killed(mm, big));
	assert_true(sws_mm_oom_killed(mm, newer));
	assert_false(sws_mm_oom_killed(mm, older));
	assert_false(sws_mm_oom_killed(mm, small));
	assert_sws(SWS_EINVAL, sws_mm_exit(cpu, mm, newer));
	assert_sws(SWS_EINVAL, sws_mm_access(cpu, mm, older, PG(0), true));
	uint32_t again;
	assert_sws(0, sws_mm_space_create(mm, 0, &again));
	assert_true(again > newer);
	assert_sws(0, sws_mm_exit(cpu, mm, again));
	asid = small;
	/* hits and faults say which they were */
	assert_int_equal(sws_mm_access(cpu, mm, asid, PG(0), true), 0);
	assert_int_equal(sws_mm_access(cpu, mm, asid, PG(1000), false), 1); /* zero page */
	assert_int_equal(sws_mm_access(cpu, mm, asid, PG(1000), false), 0);
	sws_mm_stats_get(mm, &s);
	assert_int_equal(s.counters[SWS_MM_oom_kill], 3);
	assert_string_equal(sws_mm_counter_name(SWS_MM_pswpin), "pswpin");
	sws_cpu_detach(cpu);
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
}

/*
 * The OOM reaper's work is the oom_reaper kthread's, not the allocating task's:
 * a small task's fault that kills a large one is charged the selection and its
 * reclaim, while the reap of the victim's pages goes to the CPU's background
 * time. The reap of 60000 pages is a large part of that fault's host time; a
 * trial the host disturbs (preemption inflating either part) is run again.
 */
static bool oom_reap_trial(void)
{
	struct sws_sim *sim;
	struct sws_mm *mm;
	struct sws_cpu *cpu;
	const unsigned big_pages = 60000;
	assert_sws(0, sws_sim_create(NULL, &sim));
	struct sws_mm_config mc = {.ram_pages = big_pages + 64};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	uint32_t big, small;
	assert_sws(0, sws_mm_space_create(mm, 0, &big));
	assert_sws(0, sws_mm_space_create(mm, 0, &small));
	for (unsigned p = 0; p < big_pages; p++)
		assert_int_equal(sws_mm_access(cpu, mm, big, PG(p), true), 1);
	struct sws_mm_cpu_time t0, t1;
	struct timespec w0, w1;
	int rc = 1;
	for (unsigned p = 0; p < 200 && rc == 1; p++) {
		sws_mm_cpu_time_get(mm, cpu, &t0);
		clock_gettime(CLOCK_MONOTONIC, &w0);
		rc = sws_mm_access(cpu, mm, small, PG(p), true);
		clock_gettime(CLOCK_MONOTONIC, &w1);
		sws_mm_cpu_time_get(mm, cpu, &t1);
		if (sws_mm_oom_killed(mm, big))
			break; /* this access killed big */
	}
	assert_int_equal(rc, 1); /* the small task's fault went on with the memory returned */
	assert_true(sws_mm_oom_killed(mm, big));
	uint64_t wall = (uint64_t)(w1.tv_sec - w0.tv_sec) * 1000000000ull + (uint64_t)w1.tv_nsec -
			(uint64_t)w0.tv_nsec;
	uint64_t sys = t1.sys_ns - t0.sys_ns, bg = t1.background_ns - t0.background_ns;
	print_message("the killing fault: %llu ns of host time, %llu sys, %llu background\n",
		      (unsigned long long)wall, (unsigned long long)sys, (unsigned long long)bg);
	assert_true(bg > 0);
	assert_true(sys + bg <= wall); /* the reap is not in the task's sys */
	assert_sws(0, sws_mm_exit(cpu, mm, big));
	assert_sws(0, sws_mm_exit(cpu, mm, small));
	sws_cpu_detach(cpu);
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
	return 4 * bg >= wall; /* a large part of it: the zap of 60000 pages */
}

static void test_oom_reap_background(void **state)
{
	(void)state;
	bool ok = false;
	for (int trial = 0; trial < 5 && !ok; trial++)
		ok = oom_reap_trial();
	assert_true(ok);
}

/*
 * Simulator-only work is no task's time: the bytes of a page written to a
 * backing store, the store's host I/O, the verification of what is read back.
 * A stub clock that ticks 1 ns per read and jumps one second whenever the
 * memory store allocates a cluster's buffer (its host "I/O") shows it: the
 * jumps land in untimed regions, so sys stays far below a second although
 * several buffers were allocated inside faults.
 */
struct jump_env {
	_Atomic uint64_t now;
	_Atomic uint64_t jumps;
};

static uint64_t jump_clock(void *ctx)
{
	struct jump_env *j = ctx;
	return atomic_fetch_add(&j->now, 1);
}

static void *jump_alloc(void *ctx, size_t size, size_t align)
{
	struct jump_env *j = ctx;
	if (size == (size_t)SWS_CLUSTER_SLOTS * SWS_PAGE_SIZE) { /* a memory store's cluster */
		atomic_fetch_add(&j->now, 1000000000ull);
		atomic_fetch_add(&j->jumps, 1);
	}
	void *p = NULL;
	return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1) ? NULL : p;
}

static void jump_free(void *ctx, void *p, size_t size)
{
	(void)ctx;
	(void)size;
	free(p);
}

static void test_untimed_store_io(void **state)
{
	(void)state;
	struct jump_env j = {0};
	struct sws_env env = {.allocator = {jump_alloc, jump_free, &j}, .clock_ns = jump_clock, .clock_ctx = &j};
	struct sws_sim_config cfg = {.env = &env};
	struct sws_sim *sim;
	struct sws_mm *mm;
	struct sws_cpu *cpu;
	int type;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE,
				       .backing = SWS_BACKING_MEMORY};
	assert_sws(0, sws_swapon(sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = 256, .flags = SWS_MM_VERIFY, .page_cluster = 1};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(mm, 0, &asid));
	for (unsigned round = 0; round < 2; round++) /* written out, then read back and verified */
		for (unsigned p = 0; p < 2000; p++)
			assert_int_equal(sws_mm_access(cpu, mm, asid, PG(p), true), 1);
	struct sws_mm_stats s;
	sws_mm_stats_get(mm, &s);
	assert_true(s.counters[SWS_MM_pswpout] > 1000);
	assert_true(s.counters[SWS_MM_verify_ok] > 1000);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_true(atomic_load(&j.jumps) >= 2); /* buffers allocated inside faults */
	assert_true(s.time.sys_ns < 1000000000ull);
	assert_sws(0, sws_mm_exit(cpu, mm, asid));
	sws_cpu_detach(cpu);
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
}

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;
#define BOTH(fn) cmocka_unit_test_prestate(fn, &backend_table), cmocka_unit_test_prestate(fn, &backend_xarray)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_exact_lru_property), cmocka_unit_test(test_roundtrip_verified),
		BOTH(test_fork_cow),           BOTH(test_readahead),
		BOTH(test_mthp),               BOTH(test_memcg_limit),  BOTH(test_charge_stock_two_memcgs),
		BOTH(test_kernel_policy_and_kswapd), BOTH(test_deterministic),
		BOTH(test_refault_distance_active_only), BOTH(test_charge_stock_drained),
		BOTH(test_swap_write_failure),
		cmocka_unit_test(test_errors),     cmocka_unit_test(test_oom_reap_background),
		cmocka_unit_test(test_reclaim_priority), cmocka_unit_test(test_inactive_ratio),
		cmocka_unit_test(test_untimed_store_io),
		BOTH(test_free_path_lookups),  BOTH(test_free_path_swap_full),
		BOTH(test_readahead_skips_free_slots), BOTH(test_vma_readahead_hit_address),
		BOTH(test_madv_free),          BOTH(test_readahead_window_shrinks),
		BOTH(test_lru_move_batches),
		BOTH(test_munmap_uncharges),
		BOTH(test_active_inactive_balance), BOTH(test_swapin_shared_readonly),
		BOTH(test_swapin_write_keeps_shared_slot),
		BOTH(test_swapin_read_maps_clean), BOTH(test_mthp_policy), BOTH(test_mthp_madvise),
		BOTH(test_memcg_high),       BOTH(test_mthp_split_dirty), BOTH(test_mthp_split_fork_cow),
		BOTH(test_lru_add_batch),    BOTH(test_mthp_charge_fallback), BOTH(test_mthp_traced_folio), BOTH(test_mthp_victim_excess), BOTH(test_mthp_thp_defrag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
