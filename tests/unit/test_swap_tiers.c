/*
 * test_swap_tiers.c - swap tiers (Youngjun Park's series, v9): named tiers,
 * a device's tier at swapon, slot allocation limited to a mask of tiers
 * (sws_folio_alloc_swap_tiers(), the allocator of every design), and a
 * memcg's memory.swap.tiers.max honoured and counted by the memory model's
 * swap-out (tier_swpout, tier_swpin), with exact counts.
 */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* Every design of the registry. */
#define D(id, num, name, kernel, ops, help) SWS_DESIGN_##id,
static const enum sws_design designs[] = {SWS_DESIGN_LIST(D)};
#undef D
#define NR_DESIGNS (sizeof(designs) / sizeof(designs[0]))

/* A simulation with two SSDs: "fast" (prio 10, @fast_slots) and "slow" (prio 5,
 * @slow_slots), tier ids in *fast, *slow, device types in *tf, *ts. */
static void two_tiers(struct sws_sim **sim, enum sws_design b, uint64_t fast_slots, uint64_t slow_slots,
		      unsigned *fast, unsigned *slow, int *tf, int *ts)
{
	struct sws_sim_config cfg = {.design = b};
	assert_sws(0, sws_sim_create(&cfg, sim));
	assert_sws(0, sws_swap_tier_add(*sim, "fast", fast));
	assert_sws(0, sws_swap_tier_add(*sim, "slow", slow));
	struct sws_device_config dc = {.nr_slots = fast_slots, .flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER,
				       .prio = 10, .tier = *fast};
	assert_sws(0, sws_swapon(*sim, &dc, tf));
	dc.nr_slots = slow_slots;
	dc.prio = 5;
	dc.tier = *slow;
	assert_sws(0, sws_swapon(*sim, &dc, ts));
}

static uint64_t inuse(struct sws_sim *sim, int type)
{
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(sim, type, &di));
	return di.inuse_pages;
}

/* Names, ids and their errors; a device's tier at swapon and in its info. */
static void test_tier_names(void **state)
{
	(void)state;
	struct sws_sim *sim;
	struct sws_sim_config cfg = {0};
	assert_sws(0, sws_sim_create(&cfg, &sim));
	unsigned id, first;
	assert_sws(SWS_EINVAL, sws_swap_tier_add(sim, "", &id));
	assert_sws(SWS_EINVAL, sws_swap_tier_add(sim, "a-b", &id));
	assert_sws(SWS_EINVAL, sws_swap_tier_add(sim, "sixteen_chars_xx", &id)); /* 16: too long */
	assert_sws(SWS_EINVAL, sws_swap_tier_add(sim, NULL, &id));
	assert_sws(0, sws_swap_tier_add(sim, "fifteen_chars_x", &first));
	assert_int_equal(first, 1);
	assert_sws(SWS_EINVAL, sws_swap_tier_add(sim, "fifteen_chars_x", &id)); /* taken */
	char name[8];
	for (unsigned k = 2; k < SWS_SWAP_NR_TIERS; k++) {
		snprintf(name, sizeof(name), "t%u", k);
		assert_sws(0, sws_swap_tier_add(sim, name, &id));
		assert_int_equal(id, k);
	}
	assert_sws(SWS_ETOOMANY, sws_swap_tier_add(sim, "one_more", &id));
	assert_int_equal(sws_swap_tier_lookup(sim, "t3"), 3);
	assert_int_equal(sws_swap_tier_lookup(sim, "nope"), SWS_ENOENT);
	assert_string_equal(sws_swap_tier_name(sim, 3), "t3");
	assert_string_equal(sws_swap_tier_name(sim, 0), "");
	assert_string_equal(sws_swap_tier_name(sim, SWS_SWAP_NR_TIERS), "");

	struct sws_device_config dc = {.nr_slots = 1024, .tier = SWS_SWAP_NR_TIERS};
	int type;
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type)); /* no such id */
	dc.tier = 3;
	assert_sws(0, sws_swapon(sim, &dc, &type));
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(sim, type, &di));
	assert_int_equal(di.tier, 3);
	sws_sim_destroy(sim);

	assert_sws(0, sws_sim_create(&cfg, &sim));
	dc.tier = 1; /* never added */
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type));
	sws_sim_destroy(sim);
}

/* vswap's entries come from its virtual device, in every tier. */
static bool is_vswap(enum sws_design d) { return !strncmp(sws_design_name(d), "vswap", 5); }

/*
 * The allocator of every design but vswap: a mask of tier "slow" never takes a slot of
 * "fast" (higher priority, room to spare), order 0 and large orders; every
 * tier takes "fast" first; "slow" full fails with SWS_ENOSPC though "fast"
 * has room.
 */
static void test_alloc_honours_tiers(void **state)
{
	(void)state;
	for (unsigned k = 0; k < NR_DESIGNS; k++) {
		if (is_vswap(designs[k]))
			continue;
		struct sws_sim *sim;
		struct sws_cpu *cpu;
		unsigned fast, slow;
		int tf, ts;
		/* slow: 1024 slots, the header and 1023 usable */
		two_tiers(&sim, designs[k], 4096, 1024, &fast, &slow, &tf, &ts);
		assert_sws(0, sws_cpu_attach(sim, &cpu));
		const uint32_t m_slow = 1u << slow;
		sws_entry_t e;
		assert_sws(SWS_EINVAL, sws_folio_alloc_swap_tiers(cpu, 1, 0, 0, &e));
		assert_sws(SWS_EINVAL, sws_folio_alloc_swap_tiers(cpu, 1, 0, 1u << SWS_SWAP_NR_TIERS, &e));
		/* the CPU's cached cluster is fast's: a slow-only folio must not use it */
		assert_sws(0, sws_folio_alloc_swap(cpu, 1, 0, &e));
		if (sws_swp_type(e) != (unsigned)tf)
			fail_msg("%s: every tier: not the fast device first", sws_design_name(designs[k]));
		uint64_t pfn = 2, n = 1;
		assert_sws(0, sws_folio_alloc_swap_tiers(cpu, pfn++, 4, m_slow, &e)); /* 16 slots */
		n += 16;
		for (; sws_folio_alloc_swap_tiers(cpu, pfn, 0, m_slow, &e) == 0; pfn++)
			n++;
		/* exactly slow's 1023 usable slots went to slow-only folios, on slow */
		if (inuse(sim, ts) != 1023 || inuse(sim, tf) != 1)
			fail_msg("%s: slow %llu, fast %llu slots in use, want 1023 and 1", sws_design_name(designs[k]),
				 (unsigned long long)inuse(sim, ts), (unsigned long long)inuse(sim, tf));
		assert_int_equal(n, 1024);
		assert_sws(SWS_ENOSPC, sws_folio_alloc_swap_tiers(cpu, pfn, 0, m_slow, &e));
		assert_sws(0, sws_folio_alloc_swap_tiers(cpu, pfn, 0, m_slow | 1u << fast, &e));
		assert_int_equal(sws_swp_type(e), tf);
		sws_cpu_detach(cpu);
		sws_sim_destroy(sim);
	}
}

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x10000000ull)

/* two_tiers() of 4096 slots each, a CPU, and a memory model of 4096 pages
 * (exact LRU, page-cluster 0: no readahead). */
struct tiers_world {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	unsigned fast, slow;
	int tf, ts;
};

static void tiers_world_open(struct tiers_world *w, enum sws_design d)
{
	two_tiers(&w->sim, d, 4096, 4096, &w->fast, &w->slow, &w->tf, &w->ts);
	assert_sws(0, sws_cpu_attach(w->sim, &w->cpu));
	struct sws_mm_config mc = {.ram_pages = 4096, .policy = SWS_RECLAIM_LRU, .flags = SWS_MM_NO_VMA_RA,
				   .page_cluster = 1};
	assert_sws(0, sws_mm_create(w->sim, &mc, &w->mm));
}

/*
 * The memory model: a memcg of 32 pages (exact LRU) limited to tier "slow"
 * touches 40 pages: its 8 oldest go out, all to slow, none to fast (which
 * has the higher priority); read back, they come in from slow. Counted per
 * tier, exactly.
 */
static void test_memcg_tiers_counted(void **state)
{
	(void)state;
	struct tiers_world w;
	tiers_world_open(&w, SWS_DESIGN_ST_P4);
	struct sws_sim *sim = w.sim;
	struct sws_cpu *cpu = w.cpu;
	struct sws_mm *mm = w.mm;
	unsigned fast = w.fast, slow = w.slow;
	int tf = w.tf, ts = w.ts;
	uint16_t cg, cg2;
	uint32_t asid, asid2;
	assert_sws(0, sws_mm_memcg_create(mm, 32, &cg));
	assert_sws(SWS_EINVAL, sws_mm_memcg_set_swap_tiers(mm, 0, 1u << slow)); /* the root */
	assert_sws(SWS_EINVAL, sws_mm_memcg_set_swap_tiers(mm, cg, 1u << SWS_SWAP_NR_TIERS));
	assert_sws(SWS_EINVAL, sws_mm_memcg_set_swap_tiers(mm, cg + 1, 1u << slow));
	assert_sws(0, sws_mm_memcg_set_swap_tiers(mm, cg, 1u << slow));
	assert_sws(0, sws_mm_space_create(mm, cg, &asid));
	for (unsigned p = 0; p < 40; p++)
		assert_int_equal(sws_mm_access(cpu, mm, asid, PG(p), true), 1);
	struct sws_mm_stats st = sws_test_mm_stats(mm);
	assert_int_equal(st.counters[SWS_MM_pswpout], 8);
	assert_int_equal(st.tier_swpout[slow], 8);
	assert_int_equal(st.tier_swpout[fast], 0);
	assert_int_equal(inuse(sim, ts), 8);
	assert_int_equal(inuse(sim, tf), 0);
	for (unsigned p = 0; p < 4; p++) /* 4 back in, 4 more out: to slow */
		assert_int_equal(sws_mm_access(cpu, mm, asid, PG(p), false), 1);
	st = sws_test_mm_stats(mm);
	assert_int_equal(st.tier_swpin[slow], 4);
	assert_int_equal(st.tier_swpin[fast], 0);
	assert_int_equal(st.tier_swpout[slow], 12);
	assert_int_equal(st.tier_swpout[fast], 0);

	/* A memcg without a mask may use every tier: the CPU's cached cluster
	 * (slow's) serves it first, as the kernel's swap_alloc_fast() does. */
	assert_sws(0, sws_mm_memcg_create(mm, 32, &cg2));
	assert_sws(0, sws_mm_space_create(mm, cg2, &asid2));
	for (unsigned p = 0; p < 40; p++)
		assert_int_equal(sws_mm_access(cpu, mm, asid2, PG(p), true), 1);
	st = sws_test_mm_stats(mm);
	assert_int_equal(st.tier_swpout[fast], 0);
	assert_int_equal(st.tier_swpout[slow], 20);
	assert_int_equal(st.tier_swpout[0], 0);
	assert_int_equal(st.counters[SWS_MM_pswpout], 20);
	assert_sws(0, sws_mm_exit(cpu, mm, asid));
	assert_sws(0, sws_mm_exit(cpu, mm, asid2));
	sws_test_mm_destroy(sim, mm);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

/*
 * vswap, vswap-v3 and vswap-st: a memcg's mask chooses nothing. Its entries
 * come from the virtual device (in every tier) and the physical slots behind
 * them are allocated at writeout for every tier, so the memcg of 32 pages
 * limited to "slow" puts its 8 oldest pages on "fast" (the higher priority),
 * counted under fast's tier: the physical device's.
 */
static void test_vswap_mask_chooses_nothing(void **state)
{
	(void)state;
	unsigned nv = 0;
	for (unsigned k = 0; k < NR_DESIGNS; k++) {
		if (!is_vswap(designs[k]))
			continue;
		nv++;
		struct tiers_world w;
		tiers_world_open(&w, designs[k]);
		uint16_t cg;
		uint32_t asid;
		assert_sws(0, sws_mm_memcg_create(w.mm, 32, &cg));
		assert_sws(0, sws_mm_memcg_set_swap_tiers(w.mm, cg, 1u << w.slow));
		assert_sws(0, sws_mm_space_create(w.mm, cg, &asid));
		for (unsigned p = 0; p < 40; p++)
			assert_int_equal(sws_mm_access(w.cpu, w.mm, asid, PG(p), true), 1);
		struct sws_mm_stats st = sws_test_mm_stats(w.mm);
		if (st.counters[SWS_MM_pswpout] != 8 || st.tier_swpout[w.fast] != 8 || st.tier_swpout[w.slow] ||
		    inuse(w.sim, w.tf) != 8 || inuse(w.sim, w.ts))
			fail_msg("%s: pswpout %llu, fast %llu (%llu in use), slow %llu (%llu), want 8 on fast",
				 sws_design_name(designs[k]), (unsigned long long)st.counters[SWS_MM_pswpout],
				 (unsigned long long)st.tier_swpout[w.fast], (unsigned long long)inuse(w.sim, w.tf),
				 (unsigned long long)st.tier_swpout[w.slow], (unsigned long long)inuse(w.sim, w.ts));
		assert_sws(0, sws_mm_exit(w.cpu, w.mm, asid));
		sws_test_mm_destroy(w.sim, w.mm);
		sws_cpu_detach(w.cpu);
		sws_sim_destroy(w.sim);
	}
	assert_int_equal(nv, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tier_names),
		cmocka_unit_test(test_alloc_honours_tiers),
		cmocka_unit_test(test_memcg_tiers_counted),
		cmocka_unit_test(test_vswap_mask_chooses_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
