/*
 * test_memcg_swap.c - each memcg's swap usage (memory.swap.current) on every
 * design of the registry: charged once per folio when its slots get the
 * memcg's id (mem_cgroup_try_charge_swap()), moved when they get another,
 * uncharged when they are freed, as often as the design's kernel calls
 * mem_cgroup_uncharge_swap(): once per batch of one memcg (6.17's
 * swap_entries_free(), the swap table's __swap_cluster_free_entries()),
 * once per entry (vswap). sws_swap_check() compares the usage with the ids
 * the slots hold after every case (assert_consistent()).
 */
#include <string.h>

#include "testutil.h"

/* Every design of the registry. */
#define D(id, num, name, kernel, ops, help) SWS_DESIGN_##id,
static const enum sws_design designs[] = {SWS_DESIGN_LIST(D)};
#undef D
#define NR_DESIGNS (sizeof(designs) / sizeof(designs[0]))

/* The atomic read-modify-writes of every context so far. */
static uint64_t rmw(struct sws_sim *sim)
{
	struct sws_stats st;
	sws_stats_snapshot(sim, &st);
	uint64_t n = 0;
	for (unsigned c = 0; c < SWS_NR_WORK_CTX; c++)
		n += st.work[c][SWS_WORK_atomic_rmw];
	return n;
}

/* An order-2 folio swapped out by memcg @id and freed: @return the atomic
 * read-modify-writes of the set_memcg and of the free. */
static void folio_life(enum sws_design d, uint16_t id, uint64_t *charge_rmw, uint64_t *free_rmw)
{
	struct sws_fixture f;
	sws_fixture_open(&f, d, 4096, 0);
	sws_entry_t e;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 7, 2, &e));
	uint64_t r0 = rmw(f.sim);
	assert_sws(0, sws_swap_set_memcg(f.cpu, e, 4, id));
	*charge_rmw = rmw(f.sim) - r0;
	assert_int_equal(sws_swap_memcg_usage(f.sim, id), id ? 4 : 0);
	assert_consistent(f.sim);
	/* unmapped: one reference each, then the folio leaves the cache */
	assert_sws(0, sws_swap_dup(f.cpu, e, 4));
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 4, 7, 0));
	assert_int_equal(sws_swap_memcg_usage(f.sim, id), id ? 4 : 0); /* still swapped */
	r0 = rmw(f.sim);
	assert_sws(0, sws_swap_put(f.cpu, e, 4)); /* the last references: freed */
	*free_rmw = rmw(f.sim) - r0;
	assert_int_equal(sws_swap_memcg_usage(f.sim, id), 0);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
}

static void test_charge_and_uncharge(void **state)
{
	(void)state;
	for (unsigned k = 0; k < NR_DESIGNS; k++) {
		enum sws_design d = designs[k];
		uint64_t c5, f5, c0, f0;
		folio_life(d, 5, &c5, &f5);
		folio_life(d, 0, &c0, &f0);
		/* one charge per folio, whatever the design */
		if (c5 - c0 != 1)
			fail_msg("%s: set_memcg charged %llu times", sws_design_name(d), (unsigned long long)(c5 - c0));
		/* one uncharge per batch, vswap and vswap-v3 one per entry (vswap-st
		 * frees its ghost slots as phase IV: one per run) */
		uint64_t want = d == SWS_DESIGN_VSWAP || d == SWS_DESIGN_VSWAP_V3 ? 4 : 1;
		if (f5 - f0 != want)
			fail_msg("%s: the free uncharged %llu times, want %llu", sws_design_name(d),
				 (unsigned long long)(f5 - f0), (unsigned long long)want);
	}
}

/* An order-2 folio of memcg @id on @d whose slot 1 keeps a reference: the
 * uncharges of freeing slots 0, 2 and 3 by put (@by_put) or by the folio
 * leaving the swap cache. */
static uint64_t split_free_rmw(enum sws_design d, uint16_t id, bool by_put)
{
	struct sws_fixture f;
	sws_fixture_open(&f, d, 4096, 0);
	sws_entry_t e;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 7, 2, &e));
	assert_sws(0, sws_swap_set_memcg(f.cpu, e, 4, id));
	if (by_put)
		assert_sws(0, sws_swap_dup(f.cpu, e, 4));
	assert_sws(0, sws_swap_dup(f.cpu, e + 1, 1));
	uint64_t r0 = rmw(f.sim);
	if (by_put) {
		assert_sws(0, sws_swap_cache_del(f.cpu, e, 4, 7, 0));
		r0 = rmw(f.sim);
		assert_sws(0, sws_swap_put(f.cpu, e, 4));
	} else {
		assert_sws(0, sws_swap_cache_del(f.cpu, e, 4, 7, 0));
	}
	uint64_t r = rmw(f.sim) - r0;
	assert_int_equal(sws_swap_memcg_usage(f.sim, id), id ? 1 : 0);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
	return r;
}

/* st-p3 and st-p4 free only runs of consecutive slots in one
 * __swap_cluster_free_entries() call: a put's pending batch ends at a slot
 * that stays (swap_put_entries_cluster()), and a folio leaving the swap
 * cache with a slot still swapped frees the others one by one
 * (__swap_cache_do_del_folio()): slots 0 and 2-3 are two uncharges by put,
 * three by the cache. */
static void test_uncharge_runs(void **state)
{
	(void)state;
	static const enum sws_design phases[] = {SWS_DESIGN_ST_P3, SWS_DESIGN_ST_P4};
	for (unsigned k = 0; k < 2; k++) {
		uint64_t put = split_free_rmw(phases[k], 5, true) - split_free_rmw(phases[k], 0, true);
		uint64_t del = split_free_rmw(phases[k], 5, false) - split_free_rmw(phases[k], 0, false);
		if (put != 2 || del != 3)
			fail_msg("%s: %llu uncharges by put (want 2), %llu by the cache (want 3)",
				 sws_design_name(phases[k]), (unsigned long long)put, (unsigned long long)del);
	}
}

/* Slots that take another memcg's id move their charge; the same id again
 * charges nothing. */
static void test_move(void **state)
{
	(void)state;
	struct sws_fixture f;
	sws_fixture_open(&f, SWS_DESIGN_ST_P4, 4096, 0);
	sws_entry_t e;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 9, 3, &e));
	assert_sws(0, sws_swap_set_memcg(f.cpu, e, 8, 3));
	assert_sws(0, sws_swap_set_memcg(f.cpu, e, 8, 3));
	assert_int_equal(sws_swap_memcg_usage(f.sim, 3), 8);
	assert_sws(0, sws_swap_set_memcg(f.cpu, e + 2, 2, 4));
	assert_int_equal(sws_swap_memcg_usage(f.sim, 3), 6);
	assert_int_equal(sws_swap_memcg_usage(f.sim, 4), 2);
	assert_consistent(f.sim);
	assert_int_equal(sws_swap_memcg_usage(NULL, 3), 0);
	assert_int_equal(sws_swap_memcg_usage(f.sim, 0), 0);
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 8, 9, 0)); /* no references: freed */
	assert_int_equal(sws_swap_memcg_usage(f.sim, 3) + sws_swap_memcg_usage(f.sim, 4), 0);
	assert_consistent(f.sim);
	sws_fixture_close(&f);
}

/* SWS_SIM_MEMCG_OFF (cgroup_disable=memory): no swap_cgroup map, no phase IV
 * memcg table, no ids but 0, no memcgs in the memory model. */
static void test_memcg_off(void **state)
{
	(void)state;
	for (unsigned k = 0; k < NR_DESIGNS; k++) {
		struct sws_sim_config cfg = {.design = designs[k], .flags = SWS_SIM_MEMCG_OFF};
		struct sws_sim *sim;
		struct sws_cpu *cpu;
		assert_sws(0, sws_sim_create(&cfg, &sim));
		assert_sws(0, sws_cpu_attach(sim, &cpu));
		int type;
		struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE};
		assert_sws(0, sws_swapon(sim, &dc, &type));
		sws_entry_t e;
		assert_sws(0, sws_folio_alloc_swap(cpu, 3, 2, &e));
		assert_sws(SWS_EINVAL, sws_swap_set_memcg(cpu, e, 4, 5));
		assert_sws(0, sws_swap_set_memcg(cpu, e, 4, 0));
		struct sws_memory_usage mu;
		sws_sim_memory_usage(sim, &mu);
		if (mu.bytes[SWS_MEM_swap_cgroup] || mu.bytes[SWS_MEM_memcg_table])
			fail_msg("%s: memcg off keeps %llu B of swap_cgroup and %llu B of memcg tables",
				 sws_design_name(designs[k]), (unsigned long long)mu.bytes[SWS_MEM_swap_cgroup],
				 (unsigned long long)mu.bytes[SWS_MEM_memcg_table]);
		assert_consistent(sim);
		struct sws_mm_config mc = {.ram_pages = 64};
		struct sws_mm *mm;
		assert_sws(0, sws_mm_create(sim, &mc, &mm));
		uint16_t id;
		assert_sws(SWS_EOPNOTSUPP, sws_mm_memcg_create(mm, 0, &id));
		sws_mm_destroy(mm);
		assert_sws(0, sws_swap_cache_del(cpu, e, 4, 3, 0));
		sws_cpu_detach(cpu);
		sws_sim_destroy(sim);
	}
	/* with memcg on, the same costs the maps */
	struct sws_fixture f;
	sws_fixture_open(&f, SWS_DESIGN_XARRAY, 4096, 0);
	struct sws_memory_usage mu;
	sws_sim_memory_usage(f.sim, &mu);
	assert_int_equal(mu.bytes[SWS_MEM_swap_cgroup], 4096 * 2);
	sws_fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charge_and_uncharge),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_uncharge_runs),
		cmocka_unit_test(test_memcg_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
