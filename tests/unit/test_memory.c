/*
 * test_memory.c - memory accounting by structure class: static sizes by the
 * designs' formulas, dynamic memory that follows use (swap tables per cluster,
 * extend tables (4 KiB), XArray nodes at 576 B each, exactly 261 nodes for a dense
 * 64 MiB space) and comes back to the baseline once everything is freed;
 * vswap's per-cluster classes (cluster_info for physical clusters only).
 */
#include "testutil.h"

static struct sws_memory_usage usage(struct sws_sim *sim)
{
	struct sws_memory_usage mu;
	sws_sim_quiesce(sim);
	sws_sim_memory_usage(sim, &mu);
	return mu;
}

static void test_swap_table_memory(void **state)
{
	(void)state;
	struct sws_fixture f;
	const uint64_t nc = 64;
	sws_fixture_open(&f, SWS_BACKEND_SWAP_TABLE, nc * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	struct sws_memory_usage mu = usage(f.sim);
	assert_int_equal(mu.bytes[SWS_MEM_cluster_info], 24 * nc);
	assert_int_equal(mu.bytes[SWS_MEM_cluster_tables], 24 * nc);
	assert_int_equal(mu.static_bytes, 48 * nc); /* 0.094 B/slot */
	assert_int_equal(mu.bytes[SWS_MEM_swap_map] + mu.bytes[SWS_MEM_swap_cgroup] + mu.bytes[SWS_MEM_zeromap], 0);
	/* Cluster 0 holds the header: its table lives as long as the device. */
	assert_int_equal(mu.bytes[SWS_MEM_swap_table], 4096);
	assert_int_equal(mu.bytes[SWS_MEM_memcg_table], 1024);
	const uint64_t base_dynamic = mu.dynamic_bytes;

	/* Ten order-9 folios: ten clusters, each with a 4 KiB table and a 1 KiB memcg table. */
	sws_entry_t e[10];
	for (int i = 0; i < 10; i++)
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 1 + (uint64_t)i, 9, &e[i]));
	mu = usage(f.sim);
	assert_int_equal(mu.bytes[SWS_MEM_swap_table], 11 * 4096);
	assert_int_equal(mu.bytes[SWS_MEM_memcg_table], 11 * 1024);
	/* A count above 14 needs the cluster's extend table: 4 KiB (an unsigned
	 * long per slot, as posted), allocated with ci->lock dropped, installed
	 * under it, and the dup run again: three cluster-lock acquisitions for
	 * the dup that needs it, one for each other. */
	struct sws_stats w0, w1;
	for (int k = 0; k < 14; k++)
		assert_sws(0, sws_swap_dup(f.cpu, e[0], 1));
	sws_stats_snapshot(f.sim, &w0);
	assert_sws(0, sws_swap_dup(f.cpu, e[0], 1));
	sws_stats_snapshot(f.sim, &w1);
	uint64_t locks = 0, allocs = 0;
	for (unsigned c = 0; c < SWS_NR_WORK_CTX; c++) {
		locks += w1.work[c][SWS_WORK_lock_cluster] - w0.work[c][SWS_WORK_lock_cluster];
		allocs += w1.work[c][SWS_WORK_meta_alloc] - w0.work[c][SWS_WORK_meta_alloc];
	}
	assert_int_equal(locks, 3);
	assert_int_equal(allocs, 1);
	assert_int_equal(w1.counters[SWS_CTR_swap_extend_table_alloc] - w0.counters[SWS_CTR_swap_extend_table_alloc], 1);
	mu = usage(f.sim);
	assert_int_equal(mu.bytes[SWS_MEM_extend_table], 4096);
	assert_sws(0, sws_swap_dup(f.cpu, e[0] + 1, 1));
	for (int k = 0; k < 15; k++)
		assert_sws(0, sws_swap_put(f.cpu, e[0], 1));
	/* swap_extend_table_try_free(): gone once no count in the cluster needs it. */
	assert_int_equal(usage(f.sim).bytes[SWS_MEM_extend_table], 0);
	assert_sws(0, sws_swap_put(f.cpu, e[0] + 1, 1));
	for (int i = 0; i < 10; i++)
		assert_sws(0, sws_swap_cache_del(f.cpu, e[i], 512, 1 + (uint64_t)i, 0));
	mu = usage(f.sim);
	assert_int_equal(mu.dynamic_bytes, base_dynamic);
	struct sws_stats st;
	sws_stats_snapshot(f.sim, &st);
	assert_int_equal(st.counters[SWS_CTR_swap_table_free], 10);
	assert_int_equal(st.mem_peak[SWS_MEM_swap_table], 11 * 4096);
	sws_fixture_close(&f);
}

static void test_xarray_memory(void **state)
{
	(void)state;
	struct sws_fixture f;
	const uint64_t max = 16384; /* one dense 64 MiB space: its 32 clusters in order */
	sws_fixture_open(&f, SWS_BACKEND_XARRAY, max, SWS_SWP_SOLIDSTATE);
	struct sws_memory_usage mu = usage(f.sim);
	uint64_t nc = (max + 511) / 512;
	assert_int_equal(mu.bytes[SWS_MEM_cluster_info], 24 * nc);
	assert_int_equal(mu.bytes[SWS_MEM_swap_map], max);
	assert_int_equal(mu.bytes[SWS_MEM_swap_cgroup], 2 * max);
	assert_int_equal(mu.bytes[SWS_MEM_zeromap], (max + 63) / 64 * 8);
	assert_true(mu.bytes[SWS_MEM_xa_spaces] > 0 && mu.bytes[SWS_MEM_xa_spaces] % 2 == 0);
	assert_int_equal(mu.bytes[SWS_MEM_swap_table] + mu.bytes[SWS_MEM_cluster_tables], 0);
	assert_int_equal(mu.bytes[SWS_MEM_xa_node], 0);

	/* Fill the first space: slots 1..16383 (0 is the header), index = offset & 0x3fff. */
	static sws_entry_t e[16383];
	for (int i = 0; i < 16383; i++) {
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 1 + (uint64_t)i, 0, &e[i]));
		assert_true(sws_swp_offset(e[i]) < 16384);
	}
	mu = usage(f.sim);
	/* Root at shift 12 (4 used slots), 4 nodes at shift 6, 256 leaves: 261 x 576 B. */
	assert_int_equal(mu.bytes[SWS_MEM_xa_node], 261 * 576);
	/* Shadows keep the nodes; freeing the slots erases them and the nodes go. */
	for (int i = 0; i < 16383; i++) {
		assert_sws(0, sws_swap_dup(f.cpu, e[i], 1));
		assert_sws(0, sws_swap_cache_del(f.cpu, e[i], 1, 1 + (uint64_t)i, 5));
	}
	assert_int_equal(usage(f.sim).bytes[SWS_MEM_xa_node], 261 * 576);
	for (int i = 0; i < 16383; i++)
		assert_sws(0, sws_swap_put(f.cpu, e[i], 1));
	mu = usage(f.sim);
	assert_int_equal(mu.bytes[SWS_MEM_xa_node], 0);
	assert_int_equal(mu.dynamic_bytes, 0);
	sws_fixture_close(&f);
}

/*
 * vswap: the class cluster_info counts the physical devices' clusters only (24 B
 * each, static, as in every design). A virtual cluster's header is its 24-byte
 * entry in the virtual device's cluster_info (an arena mapped in whole pages as
 * far as the device grew, 64 clusters at first) and its struct vswap_cluster
 * (104 B: RCU head 16, simulation 8, id 8, bitmap 64, descriptor pointer 8),
 * both charged to vswap_cluster with the allocator's cluster pointers (8 B
 * each, an arena too) and the cluster map's nodes. A page written to a device
 * thus has one cluster_info entry of each kind behind it, and none twice.
 */
static void test_vswap_memory(void **state)
{
	(void)state;
	struct sws_fixture f;
	const uint64_t nc = 64, page = 4096, header = 104, desc = 512 * 24, rmap = 512 * 8,
		       node = 576;
	sws_fixture_open(&f, SWS_BACKEND_VSWAP, nc * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	struct sws_memory_usage mu = usage(f.sim);
	assert_int_equal(mu.bytes[SWS_MEM_cluster_info], 24 * nc);
	/* The header's virtual cluster 0 is the only one in use (alone in the
	 * map: no node); one page of virtual cluster_info, one of pointers. */
	assert_int_equal(mu.bytes[SWS_MEM_vswap_cluster], 2 * page + header);
	assert_int_equal(mu.bytes[SWS_MEM_vswap_desc], desc);
	assert_int_equal(mu.bytes[SWS_MEM_swap_rmap], rmap); /* physical cluster 0: the header's */
	const uint64_t base_dynamic = mu.dynamic_bytes;

	/* Ten order-9 folios take ten more virtual clusters, and written to the
	 * device, ten physical ones. */
	sws_entry_t e[10], p[10];
	for (int i = 0; i < 10; i++) {
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 1 + (uint64_t)i, 9, &e[i]));
		assert_sws(0, sws_swap_io_target(f.cpu, e[i], 512, true, &p[i]));
	}
	mu = usage(f.sim);
	assert_int_equal(mu.bytes[SWS_MEM_cluster_info], 24 * nc);
	/* Clusters 0 to 10 in one leaf node of the map. */
	assert_int_equal(mu.bytes[SWS_MEM_vswap_cluster], 2 * page + 11 * header + node);
	assert_int_equal(mu.bytes[SWS_MEM_vswap_desc], 11 * desc);
	assert_int_equal(mu.bytes[SWS_MEM_swap_rmap], 11 * rmap);

	for (int i = 0; i < 10; i++)
		assert_sws(0, sws_swap_cache_del(f.cpu, e[i], 512, 1 + (uint64_t)i, 0));
	mu = usage(f.sim);
	assert_int_equal(mu.bytes[SWS_MEM_vswap_cluster], 2 * page + header);
	assert_int_equal(mu.dynamic_bytes, base_dynamic);
	sws_fixture_close(&f);
}

/* The injected allocator sees every byte, and gets every byte back. */
static void test_injected_allocator(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_test_alloc ta;
	sws_test_alloc_init(&ta);
	struct sws_env env = {.allocator = ta.a};
	struct sws_sim_config cfg = {.backend = b, .env = &env};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	struct sws_device_config dc = {.nr_slots = 20000, .flags = SWS_SWP_SOLIDSTATE,
				       .backing = SWS_BACKING_MEMORY};
	assert_sws(0, sws_swapon(sim, &dc, &type));
	sws_entry_t e;
	static unsigned char page[SWS_PAGE_SIZE];
	assert_sws(0, sws_folio_alloc_swap(cpu, 3, 4, &e));
	assert_sws(0, sws_swap_writepage(cpu, e, page));
	struct sws_memory_usage mu = usage(sim);
	assert_int_equal(mu.bytes[SWS_MEM_backing], 2u << 20);
	uint64_t accounted = 0;
	for (int c = 0; c < SWS_NR_MEM_CLASSES; c++)
		accounted += mu.bytes[c];
	assert_int_equal((uint64_t)ta.live_bytes, accounted); /* every byte charged to a class */
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim); /* destroy drops a device that still holds slots */
	assert_int_equal(ta.live_bytes, 0);
	assert_true(ta.calls > 5);
}

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_table_memory),
		cmocka_unit_test(test_xarray_memory),
		cmocka_unit_test(test_vswap_memory),
		cmocka_unit_test_prestate(test_injected_allocator, &backend_table),
		cmocka_unit_test_prestate(test_injected_allocator, &backend_xarray),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
