/*
 * test_slots.c - the per-slot state machine, every error of the per-slot
 * calls, swap counts beyond the inline maximum, zero flag, memcg, and page I/O
 * through memory and file backing stores. Every test runs on both backends.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;

static int setup(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_fixture *f = test_malloc(sizeof(*f));
	sws_fixture_open(f, b, 4 * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct sws_fixture *f = *state;
	sws_fixture_close(f);
	test_free(f);
	return 0;
}

static struct sws_slot_state slot(struct sws_fixture *f, sws_entry_t e)
{
	struct sws_slot_state st;
	assert_sws(0, sws_swap_slot_state(f->sim, e, &st));
	return st;
}

static void test_state_machine(void **state)
{
	struct sws_fixture *f = *state;
	sws_entry_t e;
	uint64_t shadow = 99;
	uint32_t count;

	assert_sws(0, sws_folio_alloc_swap(f->cpu, 1000, 0, &e));
	struct sws_slot_state st = slot(f, e);
	assert_true(st.allocated && st.cached && !st.bad);
	assert_int_equal(st.count, 0);
	assert_int_equal(st.pfn, 1000);
	assert_int_equal(sws_swap_cache_lookup(f->cpu, e), 1000);

	assert_sws(0, sws_swap_dup(f->cpu, e, 1)); /* unmap: one PTE holds it */
	assert_sws(0, sws_swap_count(f->cpu, e, &count));
	assert_int_equal(count, 1);

	assert_sws(0, sws_swap_cache_del(f->cpu, e, 1, 1000, 77)); /* evicted: shadow */
	st = slot(f, e);
	assert_true(st.allocated && !st.cached);
	assert_int_equal(st.shadow, 77);
	assert_int_equal(sws_swap_cache_lookup(f->cpu, e), 0);
	assert_sws(0, sws_swap_cache_get_shadow(f->cpu, e, &shadow));
	assert_int_equal(shadow, 77);

	assert_sws(0, sws_swap_cache_add(f->cpu, e, 1, 2000, &shadow)); /* swap-in */
	assert_int_equal(shadow, 77);
	assert_int_equal(sws_swap_cache_lookup(f->cpu, e), 2000);
	assert_sws(0, sws_swap_cache_get_shadow(f->cpu, e, &shadow));
	assert_int_equal(shadow, 0);

	assert_sws(0, sws_swap_put(f->cpu, e, 1)); /* cache-only now */
	st = slot(f, e);
	assert_true(st.allocated && st.cached);
	assert_int_equal(st.count, 0);
	assert_sws(0, sws_swap_cache_del(f->cpu, e, 1, 2000, 5)); /* count 0: freed */
	st = slot(f, e);
	assert_false(st.allocated);
	assert_sws(SWS_ENOENT, sws_swap_cache_get_shadow(f->cpu, e, &shadow));

	struct sws_stats s;
	sws_stats_snapshot(f->sim, &s);
	assert_int_equal(s.counters[SWS_CTR_swap_cache_add_total], 2);
	assert_int_equal(s.counters[SWS_CTR_swap_cache_del_total], 2);
	assert_int_equal(s.counters[SWS_CTR_swap_free_slots], 1);
	assert_int_equal(s.nr_swapcache, 0);
	assert_consistent(f->sim);
}

static void test_put_frees_shadow_slot(void **state)
{
	struct sws_fixture *f = *state;
	sws_entry_t e;
	uint64_t total, free0, free1;
	sws_swap_totals(f->sim, &total, &free0);
	assert_sws(0, sws_folio_alloc_swap(f->cpu, 5, 2, &e));
	assert_sws(0, sws_swap_dup(f->cpu, e, 4));
	assert_sws(0, sws_swap_dup(f->cpu, e, 4)); /* fork: count 2 */
	assert_sws(0, sws_swap_cache_del(f->cpu, e, 4, 5, 1234));
	sws_swap_totals(f->sim, &total, &free1);
	assert_int_equal(free0 - free1, 4);
	assert_sws(0, sws_swap_put(f->cpu, e, 4));
	assert_sws(0, sws_swap_put(f->cpu, e + 1, 3)); /* a partial range */
	assert_true(slot(f, e).allocated);
	assert_int_equal(slot(f, e).shadow, 1234);
	assert_false(slot(f, e + 1).allocated);
	assert_sws(0, sws_swap_put(f->cpu, e, 1));
	assert_false(slot(f, e).allocated);
	sws_swap_totals(f->sim, &total, &free1);
	assert_int_equal(free0, free1);
	assert_consistent(f->sim);
}

/* Every per-slot error, and a failed call changes nothing. */
static void test_errors(void **state)
{
	struct sws_fixture *f = *state;
	sws_entry_t e, e2;
	uint64_t shadow;
	uint32_t count;

	assert_sws(0, sws_folio_alloc_swap(f->cpu, 10, 1, &e)); /* 2 slots, count 0 */
	assert_sws(SWS_ERANGE, sws_swap_put(f->cpu, e, 2));    /* cache-only: count 0 */
	assert_sws(SWS_EEXIST, sws_swap_cache_add(f->cpu, e, 2, 11, &shadow));
	assert_sws(SWS_EMISMATCH, sws_swap_cache_del(f->cpu, e, 2, 11, 0));
	assert_sws(SWS_EMISMATCH, sws_swap_cache_replace(f->cpu, e, 2, 11, 12));
	assert_sws(SWS_EINVAL, sws_swap_cache_del(f->cpu, e, 2, 10, 1ull << SWS_SHADOW_BITS));
	assert_sws(SWS_EINVAL, sws_swap_cache_add(f->cpu, e, 2, 0, &shadow));
	assert_sws(SWS_EINVAL, sws_swap_cache_add(f->cpu, e, 2, 1ull << SWS_PFN_BITS, &shadow));
	assert_sws(SWS_EINVAL, sws_folio_alloc_swap(f->cpu, 10, SWS_NR_ORDERS, &e2));
	assert_sws(SWS_EINVAL, sws_folio_alloc_swap(f->cpu, 0, 0, &e2));

	/* A free slot next to it. */
	sws_entry_t freeslot = e + 2;
	assert_false(slot(f, freeslot).allocated);
	assert_sws(SWS_EFREE, sws_swap_put(f->cpu, freeslot, 1));
	assert_sws(SWS_ENOENT, sws_swap_dup(f->cpu, freeslot, 1));
	assert_sws(SWS_ENOENT, sws_swap_count(f->cpu, freeslot, &count));
	assert_sws(SWS_ENOENT, sws_swap_cache_add(f->cpu, freeslot, 1, 3, &shadow));
	assert_sws(SWS_ENOTCACHED, sws_swap_cache_del(f->cpu, freeslot, 1, 3, 0));
	assert_sws(SWS_ENOTCACHED, sws_swap_cache_replace(f->cpu, freeslot, 1, 3, 4));
	assert_sws(SWS_ENOENT, sws_swap_set_zero(f->cpu, freeslot, 1, true));
	assert_sws(SWS_ENOENT, sws_swap_set_memcg(f->cpu, freeslot, 1, 3));

	/* Ranges that include the free slot fail as a whole and change nothing. */
	assert_sws(SWS_ENOENT, sws_swap_dup(f->cpu, e, 3));
	assert_int_equal(slot(f, e).count, 0);
	assert_sws(SWS_ENOTCACHED, sws_swap_cache_del(f->cpu, e, 3, 10, 0));
	assert_true(slot(f, e).cached);

	/* Mixed FREE and SHADOW for a swap-in: EBUSY. */
	assert_sws(0, sws_swap_dup(f->cpu, e, 2));
	assert_sws(0, sws_swap_cache_del(f->cpu, e, 2, 10, 9));
	assert_sws(SWS_EBUSY, sws_swap_cache_add(f->cpu, e, 3, 20, &shadow));
	assert_int_equal(slot(f, e).shadow, 9);
	/* Shadows with different zero flags or memcgs cannot be added as one folio. */
	assert_sws(0, sws_swap_set_zero(f->cpu, e + 1, 1, true));
	assert_sws(SWS_EBUSY, sws_swap_cache_add(f->cpu, e, 2, 20, &shadow));
	assert_sws(0, sws_swap_set_zero(f->cpu, e + 1, 1, false));
	assert_sws(0, sws_swap_set_memcg(f->cpu, e, 1, 7));
	assert_sws(SWS_EBUSY, sws_swap_cache_add(f->cpu, e, 2, 20, &shadow));
	assert_sws(0, sws_swap_set_memcg(f->cpu, e + 1, 1, 7));
	assert_sws(0, sws_swap_cache_add(f->cpu, e, 2, 20, &shadow));
	assert_int_equal(shadow, 9);
	assert_int_equal(slot(f, e + 1).memcg, 7);

	/* Bad entries and ranges. */
	unsigned t = (unsigned)f->type;
	assert_sws(SWS_EBADENTRY, sws_swap_dup(f->cpu, sws_swp_entry(t, 0), 1)); /* header */
	assert_sws(SWS_EBADENTRY, sws_swap_dup(f->cpu, sws_swp_entry(t, 4 * 512), 1));
	assert_sws(SWS_EBADENTRY, sws_swap_dup(f->cpu, sws_swp_entry(t + 1, 5), 1));
	assert_sws(SWS_EBADENTRY, sws_swap_dup(f->cpu, sws_swp_entry(SWS_MAX_SWAPFILES + 3, 5), 1));
	assert_sws(SWS_EINVAL, sws_swap_dup(f->cpu, sws_swp_entry(t, 511), 2)); /* crosses a cluster */
	assert_sws(SWS_EINVAL, sws_swap_dup(f->cpu, e, 0));
	assert_int_equal(sws_swap_cache_lookup(f->cpu, sws_swp_entry(t, 0)), 0);
	assert_int_equal(sws_swap_cache_lookup(f->cpu, sws_swp_entry(t + 5, 1)), 0);
	struct sws_slot_state st;
	assert_sws(SWS_ENODEV, sws_swap_slot_state(f->sim, sws_swp_entry(t + 1, 1), &st));
	assert_sws(SWS_EBADENTRY, sws_swap_slot_state(f->sim, sws_swp_entry(t, 4 * 512), &st));
	/* Entry 0 is "no entry"; offset 0 of another device is its header, a bad slot. */
	assert_sws(SWS_EBADENTRY, sws_swap_slot_state(f->sim, 0, &st));
	int t2;
	struct sws_device_config dc2 = {.nr_slots = 1024};
	assert_sws(0, sws_swapon(f->sim, &dc2, &t2));
	assert_true(t2 != 0);
	assert_sws(0, sws_swap_slot_state(f->sim, sws_swp_entry((unsigned)t2, 0), &st));
	assert_true(st.bad);
	assert_sws(0, sws_swapoff(f->sim, t2));

	assert_sws(0, sws_swap_cache_del(f->cpu, e, 2, 20, 0));
	assert_sws(0, sws_swap_put(f->cpu, e, 2));
	assert_consistent(f->sim);
}

/* Counts far beyond the inline maxima (14 in the table, 62 in swap_map). */
static void test_large_counts(void **state)
{
	struct sws_fixture *f = *state;
	sws_entry_t e;
	uint32_t count;
	const uint32_t top = 70000;

	assert_sws(0, sws_folio_alloc_swap(f->cpu, 1, 0, &e));
	for (uint32_t c = 1; c <= top; c++) {
		assert_sws(0, sws_swap_dup(f->cpu, e, 1));
		if (c < 300 || c % 997 == 0) {
			assert_sws(0, sws_swap_count(f->cpu, e, &count));
			assert_int_equal(count, c);
		}
	}
	assert_sws(0, sws_swap_cache_del(f->cpu, e, 1, 1, 3));
	assert_consistent(f->sim);
	for (uint32_t c = top; c > 0; c--) {
		if (c < 300 || c % 991 == 0) {
			assert_sws(0, sws_swap_count(f->cpu, e, &count));
			assert_int_equal(count, c);
		}
		assert_sws(0, sws_swap_put(f->cpu, e, 1));
	}
	assert_false(slot(f, e).allocated);
	assert_consistent(f->sim);
}

static void test_overflow(void **state)
{
	struct sws_fixture *f = *state;
	sws_entry_t e;
	uint32_t count;
	assert_sws(0, sws_folio_alloc_swap(f->cpu, 1, 0, &e));
	for (uint32_t c = 1; c <= SWS_SWAP_COUNT_MAX; c++)
		if (sws_swap_dup(f->cpu, e, 1))
			fail_msg("dup failed at count %u", c);
	assert_sws(SWS_EOVERFLOW, sws_swap_dup(f->cpu, e, 1));
	assert_sws(0, sws_swap_count(f->cpu, e, &count));
	assert_int_equal(count, SWS_SWAP_COUNT_MAX);
	assert_consistent(f->sim);
}

static void test_zero_memcg_replace(void **state)
{
	struct sws_fixture *f = *state;
	sws_entry_t e;
	uint64_t shadow;
	assert_sws(0, sws_folio_alloc_swap(f->cpu, 42, 3, &e));
	assert_sws(0, sws_swap_set_zero(f->cpu, e, 8, true));
	assert_sws(0, sws_swap_set_memcg(f->cpu, e, 8, 65535));
	assert_sws(0, sws_swap_dup(f->cpu, e, 8));
	assert_sws(0, sws_swap_cache_replace(f->cpu, e, 8, 42, 43));
	assert_int_equal(sws_swap_cache_lookup(f->cpu, e + 7), 43);
	assert_sws(0, sws_swap_cache_del(f->cpu, e, 8, 43, 11));
	struct sws_slot_state st = slot(f, e + 5);
	assert_true(st.zero);
	assert_int_equal(st.memcg, 65535);
	assert_int_equal(st.shadow, 11);
	assert_sws(0, sws_swap_cache_add(f->cpu, e, 8, 44, &shadow));
	assert_true(slot(f, e + 5).zero);
	assert_sws(0, sws_swap_set_zero(f->cpu, e, 4, false));
	assert_false(slot(f, e + 3).zero);
	assert_true(slot(f, e + 4).zero);
	assert_sws(0, sws_swap_put(f->cpu, e, 8));
	assert_sws(0, sws_swap_cache_del(f->cpu, e, 8, 44, 0));
	st = slot(f, e + 5); /* freed: zero flag and memcg gone */
	assert_false(st.allocated || st.zero);
	assert_int_equal(st.memcg, 0);
	assert_sws(0, sws_folio_alloc_swap(f->cpu, 45, 3, &e));
	st = slot(f, e + 5);
	assert_false(st.zero);
	assert_int_equal(st.memcg, 0);
	assert_sws(0, sws_swap_cache_del(f->cpu, e, 8, 45, 0));
	assert_consistent(f->sim);
}

/* Page contents survive a round trip through memory and file backing stores. */
static void io_roundtrip(enum sws_backend b, enum sws_backing backing)
{
	char path[256];
	struct sws_fixture f;
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &f.sim));
	assert_sws(0, sws_cpu_attach(f.sim, &f.cpu));
	struct sws_device_config dc = {.nr_slots = 3 * 512 + 7, .flags = SWS_SWP_SOLIDSTATE,
				       .backing = backing, .path = sws_test_path(path, sizeof(path), "io")};
	unlink(path); /* swapon creates its file new */
	assert_sws(0, sws_swapon(f.sim, &dc, &f.type));

	enum { N = 600 };
	static sws_entry_t e[N];
	static unsigned char page[SWS_PAGE_SIZE], back[SWS_PAGE_SIZE];
	uint64_t seed = 7;
	for (int i = 0; i < N; i++) {
		assert_sws(0, sws_folio_alloc_swap(f.cpu, (uint64_t)i + 1, 0, &e[i]));
		uint64_t s = (uint64_t)i * 31 + 1;
		for (unsigned k = 0; k < SWS_PAGE_SIZE; k += 8) {
			uint64_t v = sws_test_rand(&s);
			memcpy(page + k, &v, 8);
		}
		assert_sws(0, sws_swap_writepage(f.cpu, e[i], page));
	}
	(void)seed;
	for (int i = N - 1; i >= 0; i--) {
		uint64_t s = (uint64_t)i * 31 + 1;
		for (unsigned k = 0; k < SWS_PAGE_SIZE; k += 8) {
			uint64_t v = sws_test_rand(&s);
			memcpy(page + k, &v, 8);
		}
		assert_sws(0, sws_swap_readpage(f.cpu, e[i], back));
		assert_memory_equal(page, back, SWS_PAGE_SIZE);
	}
	/* A cluster that became free drops its memory buffer: its slots read zeros
	 * when allocated again (files keep stale bytes, as disks do). */
	if (backing == SWS_BACKING_MEMORY) {
		sws_entry_t big;
		static unsigned char ones[SWS_PAGE_SIZE];
		memset(ones, 0xab, sizeof(ones));
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 7777, 9, &big));
		assert_sws(0, sws_swap_writepage(f.cpu, big + 5, ones));
		assert_sws(0, sws_swap_cache_del(f.cpu, big, 512, 7777, 0));
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 7778, 9, &big));
		assert_sws(0, sws_swap_readpage(f.cpu, big + 5, back));
		memset(page, 0, sizeof(page));
		assert_memory_equal(page, back, SWS_PAGE_SIZE);
		assert_sws(0, sws_swap_cache_del(f.cpu, big, 512, 7778, 0));
	}
	/* A slot never written reads as zeros; free slots and the header refuse I/O. */
	sws_entry_t fresh;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 9999, 0, &fresh));
	memset(back, 0xaa, sizeof(back));
	assert_sws(0, sws_swap_readpage(f.cpu, fresh, back));
	memset(page, 0, sizeof(page));
	assert_memory_equal(page, back, SWS_PAGE_SIZE);
	assert_sws(0, sws_swap_cache_del(f.cpu, fresh, 1, 9999, 0));
	assert_sws(SWS_ENOENT, sws_swap_readpage(f.cpu, fresh, back));
	assert_sws(SWS_ENOENT, sws_swap_writepage(f.cpu, fresh, page));
	assert_sws(SWS_EBADENTRY, sws_swap_readpage(f.cpu, sws_swp_entry((unsigned)f.type, 0), back));
	for (int i = 0; i < N; i++)
		assert_sws(0, sws_swap_cache_del(f.cpu, e[i], 1, (uint64_t)i + 1, 0));
	sws_fixture_close(&f);
	if (backing == SWS_BACKING_FILE)
		unlink(path);
}

static void test_io_memory(void **state) { io_roundtrip(*(enum sws_backend *)*state, SWS_BACKING_MEMORY); }
static void test_io_file(void **state) { io_roundtrip(*(enum sws_backend *)*state, SWS_BACKING_FILE); }

static void test_io_none(void **state)
{
	struct sws_fixture *f = *state;
	sws_entry_t e;
	unsigned char page[SWS_PAGE_SIZE] = {0};
	assert_sws(0, sws_folio_alloc_swap(f->cpu, 1, 0, &e));
	assert_sws(SWS_ENOBACKING, sws_swap_writepage(f->cpu, e, page));
	assert_sws(SWS_ENOBACKING, sws_swap_readpage(f->cpu, e, page));
	assert_sws(SWS_EINVAL, sws_swap_readpage(f->cpu, e, NULL));
	assert_sws(0, sws_swap_cache_del(f->cpu, e, 1, 1, 0));
}

#define BOTH(fn)                                                                       \
	cmocka_unit_test_prestate_setup_teardown(fn, setup, teardown, &backend_table), \
		cmocka_unit_test_prestate_setup_teardown(fn, setup, teardown, &backend_xarray)
#define BOTH_BARE(fn) cmocka_unit_test_prestate(fn, &backend_table), cmocka_unit_test_prestate(fn, &backend_xarray)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_state_machine), BOTH(test_put_frees_shadow_slot), BOTH(test_errors),
		BOTH(test_large_counts), BOTH(test_overflow), BOTH(test_zero_memcg_replace),
		BOTH(test_io_none), BOTH_BARE(test_io_memory), BOTH_BARE(test_io_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
