/*
 * test_alloc.c - the slot allocator and the cluster lists: alignment for every
 * order, fill and drain, fallback of large orders on fragmentation, order-0
 * stealing, list transitions, rotational sequential allocation, priorities and
 * round robin, discard (a real hole punched in a real file), avail-list
 * membership and swapoff. Every test runs on both backends.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;

#define NCL 8 /* clusters per test device */

static struct sws_fixture open_fixture(void **state, uint64_t nr_slots, uint32_t flags)
{
	struct sws_fixture f;
	sws_fixture_open(&f, *(enum sws_backend *)*state, nr_slots, flags);
	return f;
}

static struct sws_device_info info(struct sws_fixture *f, int type)
{
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(f->sim, type, &di));
	return di;
}

static uint64_t counter(struct sws_sim *sim, const char *name)
{
	struct sws_stats st;
	uint64_t v;
	sws_stats_snapshot(sim, &st);
	assert_sws(0, sws_stats_get(&st, name, &v));
	return v;
}

/* Every order: naturally aligned, inside one cluster, every slot cached. */
static void test_orders_aligned(void **state)
{
	struct sws_fixture f = open_fixture(state, 64 * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	for (unsigned order = 0; order < SWS_NR_ORDERS; order++) {
		for (int k = 0; k < 3; k++) {
			sws_entry_t e;
			uint64_t pfn = 1000 * (order + 1) + (uint64_t)k;
			unsigned nr = 1u << order;
			assert_sws(0, sws_folio_alloc_swap(f.cpu, pfn, order, &e));
			uint64_t off = sws_swp_offset(e);
			assert_int_equal(off % nr, 0);
			assert_int_equal(off / SWS_CLUSTER_SLOTS, (off + nr - 1) / SWS_CLUSTER_SLOTS);
			for (unsigned i = 0; i < nr; i++)
				assert_int_equal(sws_swap_cache_lookup(f.cpu, e + i), pfn);
		}
	}
	assert_int_equal(counter(f.sim, "swap_alloc[9]"), 3);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
}

/* Fill the device at order 0, see it full everywhere, drain it again. */
static void test_fill_and_drain(void **state)
{
	struct sws_fixture f = open_fixture(state, NCL * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	uint64_t pages = info(&f, f.type).pages;
	sws_entry_t *e = test_malloc(sizeof(*e) * pages);
	for (uint64_t i = 0; i < pages; i++)
		assert_sws(0, sws_folio_alloc_swap(f.cpu, i + 1, 0, &e[i]));
	sws_entry_t extra;
	assert_sws(SWS_ENOSPC, sws_folio_alloc_swap(f.cpu, 1, 0, &extra));
	assert_true(sws_swap_full(f.sim));
	uint64_t total, freeslots;
	sws_swap_totals(f.sim, &total, &freeslots);
	assert_int_equal(total, pages);
	assert_int_equal(freeslots, 0);
	struct sws_device_info di = info(&f, f.type);
	assert_int_equal(di.inuse_pages, pages);
	assert_int_equal(di.nr_full, NCL);
	assert_consistent(f.sim);
	/* Slots are distinct. */
	for (uint64_t i = 0; i < pages; i++)
		assert_int_equal(sws_swap_cache_lookup(f.cpu, e[i]), i + 1);
	for (uint64_t i = 0; i < pages; i++)
		assert_sws(0, sws_swap_cache_del(f.cpu, e[i], 1, i + 1, 0));
	di = info(&f, f.type);
	assert_int_equal(di.inuse_pages, 0);
	assert_int_equal(di.nr_free, NCL - 1); /* cluster 0 keeps the header */
	assert_int_equal(di.nr_nonfull[0], 1);
	assert_false(sws_swap_full(f.sim));
	/* The device came back on the avail list. */
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 1, 0, &extra));
	assert_sws(0, sws_swap_cache_del(f.cpu, extra, 1, 1, 0));
	assert_consistent(f.sim);
	test_free(e);
	sws_fixture_close(&f);
}

/* free -> frag[o] (partial after a scan) -> full -> nonfull[o] (partial free) -> free. */
static void test_list_transitions(void **state)
{
	struct sws_fixture f = open_fixture(state, NCL * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	sws_entry_t e[128];
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 1, 2, &e[0]));
	struct sws_device_info di = info(&f, f.type);
	assert_int_equal(di.nr_frag[2], 1);
	assert_int_equal(di.nr_free, NCL - 2);
	for (int i = 1; i < 128; i++)
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 1 + (uint64_t)i, 2, &e[i]));
	di = info(&f, f.type);
	assert_int_equal(di.nr_frag[2], 0);
	assert_int_equal(di.nr_full, 1);
	/* All 128 order-2 folios share one cluster (the per-CPU cluster). */
	for (int i = 1; i < 128; i++)
		assert_int_equal(sws_swp_offset(e[i]) / 512, sws_swp_offset(e[0]) / 512);
	assert_sws(0, sws_swap_cache_del(f.cpu, e[5], 4, 6, 0));
	di = info(&f, f.type);
	assert_int_equal(di.nr_full, 0);
	assert_int_equal(di.nr_nonfull[2], 1);
	assert_consistent(f.sim);
	for (int i = 0; i < 128; i++)
		if (i != 5)
			assert_sws(0, sws_swap_cache_del(f.cpu, e[i], 4, 1 + (uint64_t)i, 0));
	di = info(&f, f.type);
	assert_int_equal(di.nr_free, NCL - 1);
	assert_int_equal(di.nr_nonfull[2], 0);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
}

/* Fragmented free space: order 1 fails (caller falls back), order 0 works. */
static void test_large_order_fallback(void **state)
{
	struct sws_fixture f = open_fixture(state, 2 * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	uint64_t pages = info(&f, f.type).pages;
	sws_entry_t *e = test_malloc(sizeof(*e) * pages);
	for (uint64_t i = 0; i < pages; i++)
		assert_sws(0, sws_folio_alloc_swap(f.cpu, i + 1, 0, &e[i]));
	for (uint64_t i = 0; i < pages; i++)
		if (sws_swp_offset(e[i]) % 2 == 0)
			assert_sws(0, sws_swap_cache_del(f.cpu, e[i], 1, i + 1, 0));
	sws_entry_t x;
	assert_sws(SWS_ENOSPC, sws_folio_alloc_swap(f.cpu, 7, 1, &x));
	assert_int_equal(counter(f.sim, "swap_alloc_fail[1]"), 1);
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 7, 0, &x));
	assert_int_equal(sws_swp_offset(x) % 2, 0);
	assert_consistent(f.sim);
	test_free(e);
	sws_fixture_close(&f);
}

/* With no free cluster left, order 0 steals space from an order-4 cluster. */
static void test_order0_steals(void **state)
{
	struct sws_fixture f = open_fixture(state, 3 * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	sws_entry_t e[64], x, y;
	int n = 0;
	/* Cluster 0 (header) is nonfull[0]: order 0 would use it first; fill it. */
	sws_entry_t small[511];
	for (int i = 0; i < 511; i++)
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 5000 + (uint64_t)i, 0, &small[i]));
	while (sws_folio_alloc_swap(f.cpu, 100 + (uint64_t)n, 4, &e[n]) == 0)
		n++;
	assert_int_equal(n, 64); /* clusters 1 and 2, 32 order-4 folios each */
	assert_sws(0, sws_swap_cache_del(f.cpu, e[3], 16, 103, 0));
	uint64_t before = counter(f.sim, "swap_alloc_order0_steal");
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 9, 0, &x));
	assert_int_equal(sws_swp_offset(x) / 512, sws_swp_offset(e[3]) / 512);
	assert_int_equal(counter(f.sim, "swap_alloc_order0_steal"), before + 1);
	/* The next order-0 allocation continues in that cluster through the per-CPU cache. */
	uint64_t fast = counter(f.sim, "swap_alloc_fastpath");
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 10, 0, &y));
	assert_int_equal(sws_swp_offset(y), sws_swp_offset(x) + 1);
	assert_int_equal(counter(f.sim, "swap_alloc_fastpath"), fast + 1);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
}

/* A rotational device allocates sequentially, even across CPUs. */
static void test_rotational_sequential(void **state)
{
	struct sws_fixture f = open_fixture(state, NCL * SWS_CLUSTER_SLOTS, 0);
	struct sws_cpu *cpu2;
	assert_sws(0, sws_cpu_attach(f.sim, &cpu2));
	sws_entry_t e, prev = 0;
	for (int i = 0; i < 1500; i++) {
		assert_sws(0, sws_folio_alloc_swap(i % 2 ? cpu2 : f.cpu, 1 + (uint64_t)i, 0, &e));
		if (i)
			assert_int_equal(sws_swp_offset(e), sws_swp_offset(prev) + 1);
		prev = e;
	}
	sws_cpu_detach(cpu2);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
}

/* @ndev devices at the default priority (-1) share 3 * @ndev clusters' worth of
 * order-0 allocations round robin by cluster: each gets 2-4 clusters' worth. */
static void round_robin(enum sws_backend b, int ndev)
{
	struct sws_sim_config cfg = {.backend = b};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	int t[3];
	for (int i = 0; i < ndev; i++) {
		struct sws_device_config dc = {.nr_slots = 8 * SWS_CLUSTER_SLOTS, .flags = SWS_SWP_SOLIDSTATE};
		assert_sws(0, sws_swapon(sim, &dc, &t[i]));
	}
	unsigned used[SWS_MAX_SWAPFILES] = {0};
	sws_entry_t e;
	for (int i = 0; i < 3 * ndev * 512; i++) {
		assert_sws(0, sws_folio_alloc_swap(cpu, 1 + (uint64_t)i, 0, &e));
		used[sws_swp_type(e)]++;
	}
	for (int i = 0; i < ndev; i++) {
		struct sws_device_info di;
		assert_sws(0, sws_device_info_get(sim, t[i], &di));
		assert_int_equal(di.prio, -1);
		assert_in_range(used[t[i]], 1024, 2048);
	}
	assert_consistent(sim);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

/* Higher priority first; equal priorities share round robin by cluster. */
static void test_priorities(void **state)
{
	struct sws_fixture f = open_fixture(state, 2 * SWS_CLUSTER_SLOTS,
					    SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER);
	struct sws_device_config hi = {.nr_slots = 2 * SWS_CLUSTER_SLOTS,
				       .flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER, .prio = 10};
	int thi;
	assert_sws(0, sws_swapon(f.sim, &hi, &thi));
	assert_int_equal(info(&f, thi).prio, 10);
	assert_int_equal(info(&f, f.type).prio, 0);
	sws_entry_t e;
	for (int i = 0; i < 1023; i++) {
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 1 + (uint64_t)i, 0, &e));
		assert_int_equal(sws_swp_type(e), (unsigned)thi);
	}
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 5000, 0, &e));
	assert_int_equal(sws_swp_type(e), (unsigned)f.type); /* hi is full */
	sws_fixture_close(&f);

	/* Three devices at the default priority (-1): round robin. */
	round_robin(*(enum sws_backend *)*state, 3);
}

/* Two devices of one priority: round robin too (plist_requeue with only two). */
static void test_round_robin_two(void **state) { round_robin(*(enum sws_backend *)*state, 2); }

/*
 * Equal priorities keep their order (the kernel's plist: a device joins behind
 * its equal-priority peers, at swapon and when it has room again). Two devices
 * of two clusters each (1,023 usable slots: slot 0 holds the header) at the
 * default priority, order 0 on one CPU: the first device swapped on is tried
 * first and keeps its cluster through the per-CPU cache, so slots 1-511 of the
 * first device, then (the list rotated) 1-511 of the second, then all of the
 * first's cluster 1 (512-1023), which leaves it full and off the list. A slot
 * of it freed puts it back behind the second device: the next allocation takes
 * the second device's cluster 1 (offset 512), not the freed slot.
 */
static void test_equal_priority_order(void **state)
{
	struct sws_sim_config cfg = {.backend = *(enum sws_backend *)*state};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	int t[2];
	for (int i = 0; i < 2; i++) {
		struct sws_device_config dc = {.nr_slots = 2 * SWS_CLUSTER_SLOTS, .flags = SWS_SWP_SOLIDSTATE};
		assert_sws(0, sws_swapon(sim, &dc, &t[i]));
	}
	static const struct {
		int dev;
		uint64_t first, n;
	} runs[] = {{0, 1, 511}, {1, 1, 511}, {0, 512, 512}};
	uint64_t pfn = 1;
	sws_entry_t e, first = 0;
	for (unsigned r = 0; r < 3; r++)
		for (uint64_t i = 0; i < runs[r].n; i++, pfn++) {
			assert_sws(0, sws_folio_alloc_swap(cpu, pfn, 0, &e));
			assert_int_equal(sws_swp_type(e), (unsigned)t[runs[r].dev]);
			assert_int_equal(sws_swp_offset(e), runs[r].first + i);
			if (pfn == 1)
				first = e;
		}
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(sim, t[0], &di));
	assert_int_equal(di.inuse_pages, di.pages); /* full: off the avail list */
	assert_sws(0, sws_swap_cache_del(cpu, first, 1, 1, 0));
	assert_sws(0, sws_folio_alloc_swap(cpu, pfn, 0, &e));
	assert_int_equal(sws_swp_type(e), (unsigned)t[1]);
	assert_int_equal(sws_swp_offset(e), 512);
	assert_consistent(sim);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

/* Discard: a freed cluster waits on the discard list, then its range is punched out. */
static void test_discard(void **state)
{
	char path[256];
	struct sws_sim_config cfg = {.backend = *(enum sws_backend *)*state};
	struct sws_fixture f;
	assert_sws(0, sws_sim_create(&cfg, &f.sim));
	assert_sws(0, sws_cpu_attach(f.sim, &f.cpu));
	struct sws_device_config dc = {.nr_slots = 4 * SWS_CLUSTER_SLOTS,
				       .flags = SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD,
				       .backing = SWS_BACKING_FILE,
				       .path = sws_test_path(path, sizeof(path), "discard")};
	unlink(path); /* swapon creates its file new */
	assert_sws(0, sws_swapon(f.sim, &dc, &f.type));
	static unsigned char page[SWS_PAGE_SIZE];
	memset(page, 0x5a, sizeof(page));
	sws_entry_t e[16];
	for (int i = 0; i < 16; i++) {
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 1 + (uint64_t)i, 5, &e[i]));
		for (int k = 0; k < 32; k++)
			assert_sws(0, sws_swap_writepage(f.cpu, e[i] + (uint64_t)k, page));
	}
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	blkcnt_t written = st.st_blocks;
	assert_true(written >= 2 * 1024 * 1024 / 512); /* 2 MiB really written */
	for (int i = 0; i < 16; i++)
		assert_sws(0, sws_swap_cache_del(f.cpu, e[i], 32, 1 + (uint64_t)i, 0));
	assert_int_equal(info(&f, f.type).nr_discard, 1);
	assert_consistent(f.sim);
	assert_int_equal(sws_swap_do_deferred_work(f.sim, 8), 0);
	assert_int_equal(info(&f, f.type).nr_discard, 0);
	assert_int_equal(counter(f.sim, "swap_discard"), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_blocks < written / 4);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
	unlink(path);
}

/* An order-0 allocation that finds nothing runs the pending discards itself
 * (swap_sync_discard()); a large folio does not wait for them: it fails and
 * is split. */
static void test_discard_sync(void **state)
{
	struct sws_fixture f = open_fixture(state, 2 * SWS_CLUSTER_SLOTS,
					    SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD);
	sws_entry_t e, small[SWS_CLUSTER_SLOTS - 1];
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 1, 9, &e)); /* cluster 1 */
	for (unsigned i = 0; i < SWS_CLUSTER_SLOTS - 1; i++) /* cluster 0 full (its header) */
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 10 + i, 0, &small[i]));
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 512, 1, 0));
	assert_int_equal(info(&f, f.type).nr_discard, 1);
	assert_sws(SWS_ENOSPC, sws_folio_alloc_swap(f.cpu, 2, 9, &e));
	assert_int_equal(counter(f.sim, "swap_discard"), 0);
	assert_int_equal(info(&f, f.type).nr_discard, 1);
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 2, 0, &e)); /* discards, then takes the cluster */
	assert_int_equal(counter(f.sim, "swap_discard"), 1);
	assert_int_equal(info(&f, f.type).nr_discard, 0);
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 2, 0));
	for (unsigned i = 0; i < SWS_CLUSTER_SLOTS - 1; i++)
		assert_sws(0, sws_swap_cache_del(f.cpu, small[i], 1, 10 + i, 0));
	sws_swap_do_deferred_work(f.sim, 8);
	sws_fixture_close(&f);
}

/* A large folio tries only the first device that can take it (swap_alloc_slow()
 * returns after one for order > 0); an order-0 one goes on down the list. */
static void test_large_first_device(void **state)
{
	struct sws_sim_config cfg = {.backend = *(enum sws_backend *)*state};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int hi, lo;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	struct sws_device_config dc = {.nr_slots = SWS_CLUSTER_SLOTS, .flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER,
				       .prio = 10};
	assert_sws(0, sws_swapon(sim, &dc, &hi)); /* one cluster with the header: no order 9 */
	dc.nr_slots = 4 * SWS_CLUSTER_SLOTS;
	dc.prio = 5;
	assert_sws(0, sws_swapon(sim, &dc, &lo));
	sws_entry_t e;
	assert_sws(SWS_ENOSPC, sws_folio_alloc_swap(cpu, 1, 9, &e)); /* lo had room */
	sws_entry_t small[SWS_CLUSTER_SLOTS];
	unsigned n = 0;
	while (n < SWS_CLUSTER_SLOTS && sws_folio_alloc_swap(cpu, 100 + n, 0, &small[n]) == 0 &&
	       (int)sws_swp_type(small[n]) == hi)
		n++;
	assert_int_equal(n, SWS_CLUSTER_SLOTS - 1); /* then order 0 goes on to the next */
	assert_int_equal(sws_swp_type(small[n]), lo);
	/* hi is full: it left the avail list, so a large folio starts at lo */
	assert_sws(0, sws_folio_alloc_swap(cpu, 1, 9, &e));
	assert_int_equal(sws_swp_type(e), lo);
	assert_sws(0, sws_swap_cache_del(cpu, e, 512, 1, 0));
	for (unsigned i = 0; i <= n; i++)
		assert_sws(0, sws_swap_cache_del(cpu, small[i], 1, 100 + i, 0));
	assert_consistent(sim);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

static void test_swapon_swapoff(void **state)
{
	struct sws_fixture f = open_fixture(state, 2 * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	sws_entry_t e;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 1, 0, &e));
	assert_sws(SWS_EBUSY, sws_swapoff(f.sim, f.type));
	assert_int_equal(sws_swap_cache_lookup(f.cpu, e), 1); /* still there */
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 1, 0));
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 2, 0, &e)); /* back on the avail list */
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 2, 0));
	assert_sws(0, sws_swapoff(f.sim, f.type));
	assert_sws(SWS_ENODEV, sws_swapoff(f.sim, f.type));
	assert_sws(SWS_ENOSPC, sws_folio_alloc_swap(f.cpu, 3, 0, &e));
	assert_int_equal(sws_swap_cache_lookup(f.cpu, e), 0);

	struct sws_device_config dc = {.nr_slots = 600, .flags = SWS_SWP_SOLIDSTATE};
	int types[SWS_MAX_SWAPFILES];
	for (int i = 0; i < SWS_MAX_SWAPFILES; i++)
		assert_sws(0, sws_swapon(f.sim, &dc, &types[i]));
	int t;
	assert_sws(SWS_ETOOMANY, sws_swapon(f.sim, &dc, &t));
	/* A device of 600 slots: 599 usable, the tail of cluster 1 is bad. */
	uint64_t total, freeslots;
	sws_swap_totals(f.sim, &total, &freeslots);
	assert_int_equal(total, 599 * SWS_MAX_SWAPFILES);
	for (int i = 0; i < SWS_MAX_SWAPFILES; i++)
		assert_sws(0, sws_swapoff(f.sim, types[i]));
	sws_swap_totals(f.sim, &total, &freeslots);
	assert_int_equal(total, 0);
	assert_int_equal(freeslots, 0);
	sws_fixture_close(&f);
}

/* Tail slots of a partial last cluster are never handed out. */
static void test_partial_last_cluster(void **state)
{
	struct sws_fixture f = open_fixture(state, SWS_CLUSTER_SLOTS + 100, SWS_SWP_SOLIDSTATE);
	uint64_t got = 0;
	sws_entry_t e;
	while (sws_folio_alloc_swap(f.cpu, 1 + got, 0, &e) == 0) {
		assert_true(sws_swp_offset(e) < SWS_CLUSTER_SLOTS + 100);
		got++;
	}
	assert_int_equal(got, SWS_CLUSTER_SLOTS + 99);
	/* Orders that need the tail fail. */
	assert_consistent(f.sim);
	sws_fixture_close(&f);
}

/* The deferred-work budget is shared by all devices, not given to each. */
static void test_deferred_budget(void **state)
{
	struct sws_sim_config cfg = {.backend = *(enum sws_backend *)*state};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	for (int d = 0; d < 3; d++) {
		int type;
		struct sws_device_config dc = {.nr_slots = 4 * SWS_CLUSTER_SLOTS,
					       .flags = SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD |
							SWS_SWAP_FLAG_PREFER,
					       .prio = 10 + d}; /* first in line: its own clusters */
		assert_sws(0, sws_swapon(sim, &dc, &type));
		sws_entry_t e[3];
		for (int i = 0; i < 3; i++)
			assert_sws(0, sws_folio_alloc_swap(cpu, 1 + (uint64_t)i, 9, &e[i]));
		for (int i = 0; i < 3; i++)
			assert_sws(0, sws_swap_cache_del(cpu, e[i], 512, 1 + (uint64_t)i, 0));
	}
	assert_int_equal(sws_swap_do_deferred_work(sim, 1), 8);
	assert_int_equal(counter(sim, "swap_discard"), 1);
	assert_int_equal(sws_swap_do_deferred_work(sim, 100), 0);
	assert_int_equal(counter(sim, "swap_discard"), 9);
	assert_consistent(sim);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

/* A CPU's cached cluster of a device that was swapped off is not reused on a new
 * device of the same type number: priorities decide again. */
static void test_pcp_after_swapoff(void **state)
{
	struct sws_fixture f = open_fixture(state, 4 * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	sws_entry_t e;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 1, 0, &e));
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 1, 0));
	assert_sws(0, sws_swapoff(f.sim, f.type));
	struct sws_device_config lo = {.nr_slots = 4 * SWS_CLUSTER_SLOTS,
				       .flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER, .prio = 1};
	struct sws_device_config hi = lo;
	hi.prio = 50;
	int tlo, thi;
	assert_sws(0, sws_swapon(f.sim, &lo, &tlo)); /* takes the old type number */
	assert_int_equal(tlo, f.type);
	assert_sws(0, sws_swapon(f.sim, &hi, &thi));
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 2, 0, &e));
	assert_int_equal(sws_swp_type(e), (unsigned)thi);
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 2, 0));
	sws_fixture_close(&f);
}

/* Devices whose arrays are not a multiple of their alignment, created and freed
 * again and again through the default allocator (jemalloc in release builds). */
static void test_odd_sizes_default_allocator(void **state)
{
	for (int round = 0; round < 4; round++) {
		struct sws_fixture f = open_fixture(state, 9 * SWS_CLUSTER_SLOTS + 3, SWS_SWP_SOLIDSTATE);
		sws_entry_t e;
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 1, 0, &e));
		assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 1, 0));
		assert_sws(0, sws_swapoff(f.sim, f.type));
		sws_fixture_close(&f);
	}
}

/*
 * 6.17 (xarray) files the free clusters SWS_CLUSTER_COLS (32) apart at swapon,
 * so a CPU's next fresh cluster lies in the next 64 MiB swap-cache space: on
 * 64 clusters, cluster 0 (slots 1..511, the header in slot 0), then cluster 32.
 * The swap table (phase I on) takes them in order: cluster 1.
 */
static void test_cluster_columns(void **state)
{
	(void)state;
	const enum sws_backend designs[2] = {SWS_BACKEND_XARRAY, SWS_BACKEND_ST_P1};
	const uint64_t next[2] = {32 * 512, 512};
	for (int d = 0; d < 2; d++) {
		struct sws_fixture f;
		sws_fixture_open(&f, designs[d], 64 * 512, SWS_SWP_SOLIDSTATE);
		sws_entry_t e;
		for (uint64_t i = 1; i < 512; i++) {
			assert_sws(0, sws_folio_alloc_swap(f.cpu, i, 0, &e));
			assert_int_equal(sws_swp_offset(e), i);
		}
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 512, 0, &e));
		assert_int_equal(sws_swp_offset(e), next[d]);
		sws_fixture_close(&f);
	}
}

#define BOTH(fn) cmocka_unit_test_prestate(fn, &backend_table), cmocka_unit_test_prestate(fn, &backend_xarray)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster_columns),
		BOTH(test_orders_aligned),     BOTH(test_fill_and_drain),   BOTH(test_list_transitions),
		BOTH(test_large_order_fallback), BOTH(test_order0_steals),  BOTH(test_rotational_sequential),
		BOTH(test_priorities),         BOTH(test_round_robin_two),  BOTH(test_equal_priority_order),         BOTH(test_discard),          BOTH(test_discard_sync),
		BOTH(test_large_first_device),
		BOTH(test_swapon_swapoff),     BOTH(test_partial_last_cluster),
		BOTH(test_deferred_budget),    BOTH(test_pcp_after_swapoff),
		BOTH(test_odd_sizes_default_allocator),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
