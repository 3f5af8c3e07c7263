/*
 * test_designs.c - where the designs differ in behaviour, through the memory
 * model (docs/designs.md, "Behaviour that differs between designs"):
 *
 *  - the SWP_SYNCHRONOUS_IO swap-cache bypass: on a pmem-like device a
 *    swap-in of a count-1 slot skips the swap cache on xarray and st-p1 (and
 *    vswap, whose pages are on that device), and not on st-p2..st-p4; the
 *    data and every other counter are the same;
 *  - vswap's physical slots: only pages written to a device get one; zswap
 *    keeps no tree; zero pages take no slot anywhere;
 *  - the same input gives the same counters on every design without the
 *    bypass (one thread), so designs can be compared on the same trace;
 *  - from swap table phase II on, a swap-in on a SYNCHRONOUS_IO device frees
 *    the slot even when it came from the swap cache.
 */
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE)

/* Every design of the registry, oldest first (st-p4 is all[4]). */
#define DESIGN_ID(id, num, name, kernel, ops, help) SWS_DESIGN_##id,
static const enum sws_backend all[] = {SWS_DESIGN_LIST(DESIGN_ID)};
#undef DESIGN_ID
#define NDESIGNS (sizeof(all) / sizeof(all[0]))

/* vswap's variants: virtual entries, pages on a device only when written there. */
static bool virt(enum sws_backend b)
{
	return b == SWS_DESIGN_VSWAP || b == SWS_DESIGN_VSWAP_V3 || b == SWS_DESIGN_VSWAP_ST;
}

struct result {
	struct sws_mm_stats mm;
	struct sws_stats st;
	struct sws_device_info di;
};

struct run_cfg {
	uint32_t dev_flags;
	bool zswap;
	uint32_t weights[SWS_NR_CONTENT];
};

/*
 * 600 pages written on 128 pages of RAM, read back twice (verified against
 * the content model: page contents survive every design), then freed.
 */
static void run(enum sws_backend b, const struct run_cfg *rc, struct result *r)
{
	struct sws_sim_config sc = {.backend = b};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	int type;
	assert_sws(0, sws_sim_create(&sc, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	struct sws_device_config dc = {.nr_slots = 4096, .flags = rc->dev_flags, .backing = SWS_BACKING_MEMORY};
	assert_sws(0, sws_swapon(sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = 128, .flags = SWS_MM_VERIFY, .seed = 11};
	memcpy(mc.content_weight, rc->weights, sizeof(mc.content_weight));
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	if (rc->zswap) {
		struct sws_zswap_config zc = {.max_pool_percent = 50};
		assert_sws(0, sws_mm_zswap_enable(mm, &zc));
	}
	uint32_t asid;
	assert_sws(0, sws_mm_space_create(mm, 0, &asid));
	for (int pass = 0; pass < 3; pass++)
		for (unsigned p = 0; p < 600; p++) {
			int a = sws_mm_access(cpu, mm, asid, PG(p), pass == 0);
			if (a < 0)
				fail_msg("%s: access: %s", sws_backend_name(b), sws_error_name(a));
		}
	assert_consistent(sim);
	sws_mm_stats_get(mm, &r->mm);
	sws_sim_quiesce(sim);
	sws_stats_snapshot(sim, &r->st);
	assert_sws(0, sws_device_info_get(sim, type, &r->di));
	assert_sws(0, sws_mm_exit(cpu, mm, asid));
	assert_consistent(sim);
	sws_mm_destroy(mm);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

static bool bypasses(enum sws_backend b)
{
	return b == SWS_BACKEND_XARRAY || b == SWS_BACKEND_ST_P1 || b == SWS_DESIGN_VSWAP ||
	       b == SWS_DESIGN_VSWAP_V3; /* not vswap-st, on phase IV */
}

static uint64_t mmc(const struct result *r, enum sws_mm_counter c) { return r->mm.counters[c]; }
static uint64_t swc(const struct result *r, enum sws_counter c) { return r->st.counters[c]; }

/* The bypass on a SYNCHRONOUS_IO device: fewer swap-cache adds, same faults and data. */
static void test_sync_io_bypass(void **state)
{
	(void)state;
	struct run_cfg rc = {.dev_flags = SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO, .weights = {1, 1, 3, 2, 2}};
	struct result r[NDESIGNS];
	for (unsigned i = 0; i < NDESIGNS; i++)
		run(all[i], &rc, &r[i]);
	const struct result *p4 = &r[4];
	assert_int_equal(swc(p4, SWS_CTR_swap_cache_bypass), 0);
	assert_true(mmc(p4, SWS_MM_pswpin) > 100);
	for (unsigned i = 0; i < NDESIGNS; i++) {
		const struct result *x = &r[i];
		const char *n = sws_backend_name(all[i]);
		assert_int_equal(mmc(x, SWS_MM_verify_fail), 0);
		assert_int_equal(mmc(x, SWS_MM_verify_ok), mmc(x, SWS_MM_pswpin)); /* every read checked */
		if (virt(all[i])) {
			/* A zero page is on no device under vswap: its swap-in does not
			 * bypass and reads ahead (the "readahead of zero pages" of the
			 * series' discussion), so faults differ; device pages bypass
			 * (not under vswap-st: phase IV has no bypass). */
			assert_true((swc(x, SWS_CTR_swap_cache_bypass) > 0) == bypasses(all[i]));
			assert_true(mmc(x, SWS_MM_swap_ra) > 0);
			assert_int_equal(mmc(p4, SWS_MM_swap_ra), 0);
			continue;
		}
		/* The same pages fault, are read and verified, whatever the design. */
		static const enum sws_mm_counter same[] = {SWS_MM_pgfault, SWS_MM_pgmajfault, SWS_MM_pswpin,
							   SWS_MM_pswpout, SWS_MM_swpin_zero, SWS_MM_swpout_zero,
							   SWS_MM_verify_ok, SWS_MM_pgsteal};
		for (unsigned k = 0; k < sizeof(same) / sizeof(same[0]); k++)
			if (mmc(x, same[k]) != mmc(p4, same[k]))
				fail_msg("%s: %s %llu, st-p4 %llu", n, sws_mm_counter_name(same[k]),
					 (unsigned long long)mmc(x, same[k]), (unsigned long long)mmc(p4, same[k]));
		assert_int_equal(swc(x, SWS_CTR_swap_free_slots), swc(p4, SWS_CTR_swap_free_slots));
		uint64_t bypassed = swc(x, SWS_CTR_swap_cache_bypass);
		if (!bypasses(all[i])) {
			assert_int_equal(bypassed, 0);
			assert_int_equal(swc(x, SWS_CTR_swap_cache_add_total), swc(p4, SWS_CTR_swap_cache_add_total));
			continue;
		}
		/* Every swap-in from the device is a count-1 slot here: each one
		 * bypasses (zero pages are not read from it but bypass too). */
		if (bypassed < mmc(x, SWS_MM_pswpin))
			fail_msg("%s: %llu bypassed swap-ins, %llu reads", n, (unsigned long long)bypassed,
				 (unsigned long long)mmc(x, SWS_MM_pswpin));
		assert_int_equal(swc(x, SWS_CTR_swap_cache_add_total) + bypassed,
				 swc(p4, SWS_CTR_swap_cache_add_total));
	}
}

/* On an SSD nothing bypasses, and every design gives the same counters (vswap's zero
 * pages aside). */
static void test_same_input_same_counters(void **state)
{
	(void)state;
	struct run_cfg rc = {.dev_flags = SWS_SWP_SOLIDSTATE, .weights = {1, 1, 3, 2, 2}};
	struct result r[NDESIGNS];
	for (unsigned i = 0; i < NDESIGNS; i++)
		run(all[i], &rc, &r[i]);
	for (unsigned i = 0; i < NDESIGNS; i++) {
		/* A zero page read back keeps its zero-flagged slot and is dropped
		 * clean when reclaimed again, but under vswap, where it is on no
		 * device, the swap-in frees its virtual slot (should_try_to_free_swap()
		 * there) and the next reclaim stores it as a zero page again. */
		bool vswap = virt(all[i]);
		if (vswap && mmc(&r[i], SWS_MM_swpout_zero) <= mmc(&r[4], SWS_MM_swpout_zero))
			fail_msg("%s: swpout_zero %llu, not above st-p4's %llu", sws_backend_name(all[i]),
				 (unsigned long long)mmc(&r[i], SWS_MM_swpout_zero),
				 (unsigned long long)mmc(&r[4], SWS_MM_swpout_zero));
		for (int c = 0; c < SWS_MM_NR_COUNTERS; c++)
			if (r[i].mm.counters[c] != r[4].mm.counters[c] && c != SWS_MM_swap_ra &&
			    c != SWS_MM_swap_ra_hit && c != SWS_MM_swapcache_hit && !(vswap && c == SWS_MM_swpout_zero))
				fail_msg("%s: %s %llu, st-p4 %llu", sws_backend_name(all[i]),
					 sws_mm_counter_name((enum sws_mm_counter)c),
					 (unsigned long long)r[i].mm.counters[c], (unsigned long long)r[4].mm.counters[c]);
		assert_int_equal(swc(&r[i], SWS_CTR_swap_cache_bypass), 0);
		if (virt(all[i]))
			continue; /* vswap reads ahead in the physical space: checked below */
		for (int c = 0; c < SWS_MM_NR_COUNTERS; c++)
			assert_int_equal(r[i].mm.counters[c], r[4].mm.counters[c]);
		/* The swap core's counters too, but those of structures a design has
		 * or lacks (docs/designs.md, (c)). */
		for (int c = 0; c < SWS_NR_COUNTERS; c++) {
			switch (c) {
			case SWS_CTR_swap_table_alloc:
			case SWS_CTR_swap_table_free:
			case SWS_CTR_swap_extend_table_alloc:
			case SWS_CTR_swap_cont_alloc:
			case SWS_CTR_xa_node_alloc:
			case SWS_CTR_xa_node_free:
			case SWS_CTR_swap_free_fallback:
				continue;
			}
			if (r[i].st.counters[c] != r[4].st.counters[c])
				fail_msg("%s: %s %llu, st-p4 %llu", sws_backend_name(all[i]),
					 sws_counter_name((enum sws_counter)c), (unsigned long long)r[i].st.counters[c],
					 (unsigned long long)r[4].st.counters[c]);
		}
	}
	/* Under vswap a page gets a physical slot when it is first written to
	 * the device and keeps it after a swap-in from it (a clean folio is
	 * written again to the same slot): never more slots than writes. */
	for (unsigned i = 0; i < NDESIGNS; i++) {
		const struct result *v = &r[i];
		if (!virt(all[i]))
			continue;
		assert_true(swc(v, SWS_CTR_vswap_phys_alloc) > 0);
		assert_true(swc(v, SWS_CTR_vswap_phys_alloc) <= mmc(v, SWS_MM_pswpout));
		assert_int_equal(swc(v, SWS_CTR_vswap_phys_free), swc(v, SWS_CTR_vswap_phys_alloc) - v->di.inuse_pages);
	}
	assert_int_equal(swc(&r[4], SWS_CTR_vswap_phys_alloc), 0);
}

/* With zswap, vswap gives physical slots only to what zswap wrote back or
 * refused; the others hold a slot for every page zswap holds. zswap keeps no
 * tree under vswap. */
static void test_vswap_zswap_without_slots(void **state)
{
	(void)state;
	struct run_cfg rc = {.dev_flags = SWS_SWP_SOLIDSTATE, .zswap = true, .weights = {1, 1, 3, 2, 2}};
	struct result r4, v;
	run(SWS_BACKEND_ST_P4, &rc, &r4);
	run(SWS_BACKEND_VSWAP, &rc, &v);
	assert_true(mmc(&v, SWS_MM_zswpout) > 100);
	assert_int_equal(mmc(&v, SWS_MM_zswpout), mmc(&r4, SWS_MM_zswpout));
	assert_int_equal(mmc(&v, SWS_MM_pswpout), mmc(&r4, SWS_MM_pswpout));
	/* Physical slots only for pages written to the device (refused by zswap
	 * or written back), none for pages only in zswap or zero: fewer than
	 * the virtual slots, which every swapped-out page takes. */
	assert_true(swc(&v, SWS_CTR_vswap_phys_alloc) <= mmc(&v, SWS_MM_pswpout));
	assert_true(swc(&v, SWS_CTR_swap_alloc_fastpath) + swc(&v, SWS_CTR_swap_alloc_slowpath) >
		    swc(&v, SWS_CTR_vswap_phys_alloc) + mmc(&v, SWS_MM_zswpout) / 2);
	/* zswap's trees: st-p4 has them (one per 64 MiB, nodes while in use); vswap none. */
	assert_true(r4.st.mem_peak[SWS_MEM_zswap_trees] > 0);
	assert_true(r4.st.mem_peak[SWS_MEM_zswap_tree] > 0);
	assert_int_equal(v.st.mem_peak[SWS_MEM_zswap_trees], 0);
	assert_int_equal(v.st.mem_peak[SWS_MEM_zswap_tree], 0);
	assert_true(v.st.mem_peak[SWS_MEM_vswap_desc] > 0);
}

/*
 * should_try_to_free_swap()'s SYNCHRONOUS_IO clause came with swap table phase
 * II: a swap-cache hit that drops a slot's last reference on a zram/pmem
 * device frees the slot from st-p2 on, and leaves it cached on 6.17 and
 * phase I (and vswap, on 6.19). Pages shared by a fork (count 2) are read by
 * the child (no bypass: count 2), then hit in the swap cache by the parent.
 * Up to 6.18 (and vswap) the child's reads go through swapin_readahead() and
 * read ahead, as on any device; from phase II on a SYNCHRONOUS_IO device
 * never reads ahead.
 */
static void test_sync_io_free(void **state)
{
	(void)state;
	for (unsigned d = 0; d < NDESIGNS; d++) {
		struct sws_sim_config sc = {.backend = all[d]};
		struct sws_sim *sim;
		struct sws_cpu *cpu;
		struct sws_mm *mm;
		int type;
		assert_sws(0, sws_sim_create(&sc, &sim));
		assert_sws(0, sws_cpu_attach(sim, &cpu));
		struct sws_device_config dc = {.nr_slots = 4096,
					       .flags = SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO};
		assert_sws(0, sws_swapon(sim, &dc, &type));
		struct sws_mm_config mc = {.ram_pages = 1024, .seed = 3};
		mc.content_weight[SWS_CONTENT_INDEX] = 1;
		assert_sws(0, sws_mm_create(sim, &mc, &mm));
		uint32_t parent, child;
		assert_sws(0, sws_mm_space_create(mm, 0, &parent));
		for (unsigned p = 0; p < 64; p++)
			assert_true(sws_mm_access(cpu, mm, parent, PG(p), true) >= 0);
		assert_int_equal(sws_mm_reclaim(cpu, mm, 0, 64), 64);
		assert_sws(0, sws_mm_fork(cpu, mm, parent, &child));
		for (unsigned p = 0; p < 64; p++) {
			assert_true(sws_mm_access(cpu, mm, child, PG(p), false) >= 0);
			assert_true(sws_mm_access(cpu, mm, parent, PG(p), false) >= 0);
		}
		struct sws_device_info di;
		assert_sws(0, sws_device_info_get(sim, type, &di));
		bool frees = all[d] == SWS_BACKEND_ST_P2 || all[d] == SWS_BACKEND_ST_P3 || all[d] == SWS_BACKEND_ST_P4 ||
			     all[d] == SWS_DESIGN_VSWAP_ST;
		if (di.inuse_pages != (frees ? 0 : 64))
			fail_msg("%s: %llu slots in use after the hits, want %u", sws_backend_name(all[d]),
				 (unsigned long long)di.inuse_pages, frees ? 0 : 64);
		struct sws_mm_stats ms;
		sws_mm_stats_get(mm, &ms);
		if ((ms.counters[SWS_MM_swap_ra] > 0) == frees)
			fail_msg("%s: %llu pages read ahead from the shared slots", sws_backend_name(all[d]),
				 (unsigned long long)ms.counters[SWS_MM_swap_ra]);
		assert_consistent(sim);
		assert_sws(0, sws_mm_exit(cpu, mm, child));
		assert_sws(0, sws_mm_exit(cpu, mm, parent));
		sws_mm_destroy(mm);
		sws_cpu_detach(cpu);
		sws_sim_destroy(sim);
	}
}

/*
 * swapoff of a device that holds pages (sws_mm_swapoff): every design brings
 * them back, contents intact; all but vswap walk the page tables to do it,
 * vswap walks the device's slots through its reverse map and leaves the page
 * tables (their virtual entries) as they are.
 */
static void test_swapoff(void **state)
{
	(void)state;
	for (unsigned d = 0; d < NDESIGNS; d++) {
		struct sws_sim_config sc = {.backend = all[d]};
		struct sws_sim *sim;
		struct sws_cpu *cpu;
		struct sws_mm *mm;
		int a, b;
		const char *n = sws_backend_name(all[d]);
		assert_sws(0, sws_sim_create(&sc, &sim));
		assert_sws(0, sws_cpu_attach(sim, &cpu));
		struct sws_device_config dc = {.nr_slots = 2048, .flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER,
					       .prio = 10, .backing = SWS_BACKING_MEMORY};
		assert_sws(0, sws_swapon(sim, &dc, &a)); /* preferred: the pages go here */
		dc.prio = 5;
		assert_sws(0, sws_swapon(sim, &dc, &b));
		struct sws_mm_config mc = {.ram_pages = 512, .flags = SWS_MM_VERIFY, .seed = 5};
		mc.content_weight[SWS_CONTENT_INDEX] = 3;
		mc.content_weight[SWS_CONTENT_ZERO] = 1;
		assert_sws(0, sws_mm_create(sim, &mc, &mm));
		uint32_t asid;
		assert_sws(0, sws_mm_space_create(mm, 0, &asid));
		for (unsigned p = 0; p < 400; p++)
			assert_true(sws_mm_access(cpu, mm, asid, PG(p), true) >= 0);
		assert_int_equal(sws_mm_reclaim(cpu, mm, 0, 300), 300);
		struct sws_device_info di;
		assert_sws(0, sws_device_info_get(sim, a, &di));
		assert_true(di.inuse_pages > 100);
		assert_sws(SWS_ENODEV, sws_mm_swapoff(cpu, mm, 17));
		struct sws_mm_stats before, after;
		sws_mm_stats_get(mm, &before);
		int rc = sws_mm_swapoff(cpu, mm, a);
		if (rc)
			fail_msg("%s: swapoff: %s", n, sws_error_name(rc));
		assert_sws(SWS_ENODEV, sws_device_info_get(sim, a, &di));
		sws_mm_stats_get(mm, &after);
		uint64_t scanned = after.counters[SWS_MM_swapoff_pte_scan] - before.counters[SWS_MM_swapoff_pte_scan];
		uint64_t in = after.counters[SWS_MM_swapoff_swapin] - before.counters[SWS_MM_swapoff_swapin];
		if (virt(all[d])) {
			assert_int_equal(scanned, 0); /* no page table walked */
			assert_true(in > 0);
		} else {
			assert_true(scanned >= 400); /* every present and swapped PTE */
			assert_true(in > 100);
		}
		/* Every page reads back as written (VERIFY), from memory or device b. */
		for (unsigned p = 0; p < 400; p++)
			assert_true(sws_mm_access(cpu, mm, asid, PG(p), false) >= 0);
		sws_mm_stats_get(mm, &after);
		if (after.counters[SWS_MM_verify_fail])
			fail_msg("%s: %llu pages read back wrong", n, (unsigned long long)after.counters[SWS_MM_verify_fail]);
		assert_consistent(sim);
		assert_sws(0, sws_mm_exit(cpu, mm, asid));
		sws_mm_destroy(mm);
		sws_cpu_detach(cpu);
		sws_sim_destroy(sim);
	}
}

/* Every design counts a slot up to SWS_SWAP_COUNT_MAX and refuses one more. */
static void test_count_max(void **state)
{
	(void)state;
	for (unsigned d = 0; d < NDESIGNS; d++) {
		struct sws_sim_config sc = {.backend = all[d]};
		struct sws_sim *sim;
		struct sws_cpu *cpu;
		int type;
		assert_sws(0, sws_sim_create(&sc, &sim));
		assert_sws(0, sws_cpu_attach(sim, &cpu));
		struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE};
		assert_sws(0, sws_swapon(sim, &dc, &type));
		sws_entry_t e;
		uint32_t count;
		assert_sws(0, sws_folio_alloc_swap(cpu, 1, 0, &e));
		for (uint32_t c = 1; c <= SWS_SWAP_COUNT_MAX; c++)
			if (sws_swap_dup(cpu, e, 1))
				fail_msg("design %u: dup failed at count %u", d, c);
		assert_sws(SWS_EOVERFLOW, sws_swap_dup(cpu, e, 1));
		assert_sws(0, sws_swap_count(cpu, e, &count));
		assert_int_equal(count, SWS_SWAP_COUNT_MAX);
		assert_consistent(sim);
		sws_cpu_detach(cpu);
		sws_sim_destroy(sim);
	}
}

/* A slot's state, compared whole (a refused call changes nothing). */
static bool same_slot(const struct sws_slot_state *a, const struct sws_slot_state *b)
{
	return a->allocated == b->allocated && a->cached == b->cached && a->count == b->count && a->pfn == b->pfn &&
	       a->shadow == b->shadow && a->zero == b->zero && a->memcg == b->memcg;
}

static struct sws_slot_state slot_of(struct sws_sim *sim, sws_entry_t e)
{
	struct sws_slot_state st;
	assert_sws(0, sws_swap_slot_state(sim, e, &st));
	return st;
}

/*
 * The bypass's pin, by the contract of lib/swap/design.h on every design:
 * sws_swapin_bypass_done() on a slot that was never pinned (a folio in the
 * swap cache, a shadow, a free slot) is refused with SWS_ENOTCACHED and
 * changes nothing; a pinned slot (count 1, then 0 once the caller put its
 * reference) is a legal state for sws_swap_check(), and the unpin frees it.
 */
static void test_bypass_contract(void **state)
{
	(void)state;
	for (unsigned d = 0; d < NDESIGNS; d++) {
		const char *n = sws_backend_name(all[d]);
		struct sws_sim_config sc = {.backend = all[d]};
		struct sws_sim *sim;
		struct sws_cpu *cpu;
		int type;
		assert_sws(0, sws_sim_create(&sc, &sim));
		assert_sws(0, sws_cpu_attach(sim, &cpu));
		struct sws_device_config dc = {.nr_slots = 4096, .flags = SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO};
		assert_sws(0, sws_swapon(sim, &dc, &type));
		sws_entry_t e, target;
		uint64_t shadow = 0;
		/* A folio in the swap cache, count 0: not pinned. */
		assert_sws(0, sws_folio_alloc_swap(cpu, 1, 0, &e));
		struct sws_slot_state before = slot_of(sim, e);
		int rc = sws_swapin_bypass_done(cpu, e, 1);
		if (rc != SWS_ENOTCACHED)
			fail_msg("%s: unpin of a cached folio's slot: %s, want SWS_ENOTCACHED", n, sws_error_name(rc));
		struct sws_slot_state after = slot_of(sim, e);
		if (!same_slot(&before, &after))
			fail_msg("%s: a refused unpin changed the slot (allocated %d cached %d pfn %llu)", n,
				 after.allocated, after.cached, (unsigned long long)after.pfn);
		assert_consistent(sim);
		/* Unmapped and evicted: count 1, a shadow; written to the device (vswap: a physical slot). */
		assert_sws(0, sws_swap_dup(cpu, e, 1));
		assert_sws(0, sws_swap_io_target(cpu, e, 1, true, &target));
		assert_sws(0, sws_swap_cache_del(cpu, e, 1, 1, 42));
		before = slot_of(sim, e);
		rc = sws_swapin_bypass_done(cpu, e, 1);
		if (rc != SWS_ENOTCACHED)
			fail_msg("%s: unpin of a shadow slot: %s, want SWS_ENOTCACHED", n, sws_error_name(rc));
		after = slot_of(sim, e);
		assert_true(same_slot(&before, &after));
		assert_consistent(sim);
		if (bypasses(all[d])) {
			/* The bypassed swap-in: pinned (legal), reference put (legal), unpinned: free. */
			assert_sws(0, sws_swapin_bypass_start(cpu, e, 1, &shadow));
			assert_int_equal(shadow, 42);
			assert_consistent(sim);
			assert_sws(SWS_EEXIST, sws_swapin_bypass_start(cpu, e, 1, &shadow));
			assert_sws(0, sws_swap_put(cpu, e, 1));
			assert_consistent(sim);
			assert_sws(0, sws_swapin_bypass_done(cpu, e, 1));
			assert_false(slot_of(sim, e).allocated);
			assert_consistent(sim);
		} else {
			assert_sws(SWS_EOPNOTSUPP, sws_swapin_bypass_start(cpu, e, 1, &shadow));
			assert_sws(0, sws_swap_put(cpu, e, 1));
		}
		/* A free slot is not pinned either. */
		assert_sws(SWS_ENOTCACHED, sws_swapin_bypass_done(cpu, e, 1));
		assert_consistent(sim);
		sws_cpu_detach(cpu);
		sws_sim_destroy(sim);
	}
}

/* The registry (SWS_DESIGN_LIST): each design round-trips through its name,
 * has its kernel and help line, and runs as a simulation's design; the
 * deprecated "backend" names are the same; anything else is refused. */
static void test_registry(void **state)
{
	(void)state;
	static const struct {
		enum sws_design d;
		const char *name, *kernel, *help;
	} list[] = {
#define ENTRY(id, num, name, kernel, ops, help) {SWS_DESIGN_##id, name, kernel, help},
		SWS_DESIGN_LIST(ENTRY)
#undef ENTRY
	};
	assert_int_equal(sizeof(list) / sizeof(list[0]), SWS_NR_DESIGNS - 1);
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		enum sws_design d = SWS_DESIGN_DEFAULT;
		assert_string_equal(sws_design_name(list[i].d), list[i].name);
		assert_string_equal(sws_backend_name(list[i].d), list[i].name);
		assert_string_equal(sws_design_kernel(list[i].d), list[i].kernel);
		assert_string_equal(sws_design_help(list[i].d), list[i].help);
		assert_true(strlen(list[i].help) > 0);
		assert_int_equal(sws_design_parse(list[i].name, &d), 0);
		assert_int_equal(d, list[i].d);
		struct sws_sim_config cfg = {.design = list[i].d};
		struct sws_sim *sim;
		assert_int_equal(sws_sim_create(&cfg, &sim), 0);
		assert_int_equal(sws_sim_design(sim), list[i].d);
		assert_int_equal(sws_sim_backend(sim), list[i].d);
		sws_sim_destroy(sim);
	}
	/* By hand: the default, an alias, versions, the old numbers. */
	enum sws_design d;
	assert_string_equal(sws_design_name(SWS_DESIGN_DEFAULT), "st-p4");
	assert_int_equal(sws_design_parse("table", &d), 0);
	assert_int_equal(d, SWS_DESIGN_ST_P4);
	assert_int_equal(sws_backend_parse("st-p1", &d), 0);
	assert_int_equal(d, SWS_DESIGN_ST_P1);
	assert_string_equal(sws_design_kernel(SWS_DESIGN_XARRAY), "6.17");
	assert_string_equal(sws_design_kernel(SWS_DESIGN_ST_P3), "~7.1");
	assert_string_equal(sws_design_kernel(SWS_DESIGN_DEFAULT), "~7.2");
	assert_int_equal(SWS_BACKEND_SWAP_TABLE, 1);
	assert_int_equal(SWS_BACKEND_VSWAP, 6);
	assert_int_equal(SWS_DESIGN_VSWAP_V3, 7); /* a new design takes the next number */
	assert_int_equal(SWS_DESIGN_VSWAP_ST, 8);
	assert_int_equal(SWS_NR_BACKENDS, 9);
	assert_int_equal(sws_design_parse("vswap-v3", &d), 0);
	assert_int_equal(d, SWS_DESIGN_VSWAP_V3);
	assert_string_equal(sws_design_kernel(SWS_DESIGN_VSWAP_V3), "vswap v3");
	assert_string_equal(sws_design_kernel(SWS_DESIGN_VSWAP), "vswap v6");
	assert_string_equal(sws_design_kernel(SWS_DESIGN_VSWAP_ST), "vswap RFC (swap table)");
	/* Oldest first: vswap-v3, vswap, then vswap-st, the list's last. */
	assert_int_equal(all[NDESIGNS - 3], SWS_DESIGN_VSWAP_V3);
	assert_int_equal(all[NDESIGNS - 2], SWS_DESIGN_VSWAP);
	assert_int_equal(all[NDESIGNS - 1], SWS_DESIGN_VSWAP_ST);
	/* Unknown. */
	assert_int_equal(sws_design_parse("st-p9", &d), SWS_EINVAL);
	assert_int_equal(sws_design_parse(NULL, &d), SWS_EINVAL);
	assert_string_equal(sws_design_name((enum sws_design)SWS_NR_DESIGNS), "unknown");
	assert_string_equal(sws_design_kernel((enum sws_design)SWS_NR_DESIGNS), "");
	assert_string_equal(sws_design_help((enum sws_design)-1), "");
	struct sws_sim_config bad = {.design = (enum sws_design)SWS_NR_DESIGNS};
	struct sws_sim *sim;
	assert_int_equal(sws_sim_create(&bad, &sim), SWS_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_sync_io_bypass),
		cmocka_unit_test(test_same_input_same_counters),
		cmocka_unit_test(test_vswap_zswap_without_slots),
		cmocka_unit_test(test_sync_io_free),
		cmocka_unit_test(test_swapoff),
		cmocka_unit_test(test_count_max),
		cmocka_unit_test(test_bypass_contract),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
