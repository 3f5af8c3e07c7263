/*
 * test_kernel_ram.c - SWS_MM_KERNEL_RAM: the design's swap metadata and the
 * zswap pool take simulated RAM (page_alloc.c, "THE KERNEL'S SWAP PAGES"), so
 * they count in free memory and in global pressure; no memcg is charged.
 *
 * Hand-computed for st-p4 on a 64 MiB device (16384 slots, 32 clusters):
 * at swapon cluster_info (24 B a cluster) and the per-cluster table pointers
 * (24 B a cluster) are 768 + 768 B, and cluster 0, kept in use by the header
 * slot, has its swap table (512 x 8 B) and memcg table (512 x 2 B): 6656 B,
 * two pages. Its 511 free slots take the first swap-outs; the 512th needs
 * cluster 1's tables: 11776 B, three pages.
 */
#include <string.h>

#include "common/rcu.h"   /* white box: a grace period held open */
#include "swap/swap_mm.h" /* white box: sws__sim_kernel_swap_pages() */
#include "testutil.h"

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x10000000ull)
#define RAM 1024u

struct run {
	struct sws_mm_stats before; /* after 100 pages, no pressure yet */
	struct sws_mm_stats after;  /* after RAM + 600 pages: global reclaim */
};

static void one_run(uint32_t flags, struct run *out)
{
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	struct sws_sim_config cfg = {.design = SWS_DESIGN_ST_P4};
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	struct sws_device_config dc = {.nr_slots = 16384, .flags = SWS_SWP_SOLIDSTATE};
	int type;
	assert_sws(0, sws_swapon(sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = RAM, .policy = SWS_RECLAIM_LRU, .flags = flags,
				   .page_cluster = 1};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	uint16_t cg;
	uint32_t asid;
	assert_sws(0, sws_mm_memcg_create(mm, 0, &cg)); /* no limit: global pressure only */
	assert_sws(0, sws_mm_space_create(mm, cg, &asid));
	for (unsigned p = 0; p < 100; p++)
		assert_int_equal(sws_mm_access(cpu, mm, asid, PG(p), true), 1);
	out->before = sws_test_mm_stats(mm);
	for (unsigned p = 100; p < RAM + 600; p++)
		assert_int_equal(sws_mm_access(cpu, mm, asid, PG(p), true), 1);
	out->after = sws_test_mm_stats(mm);
	assert_sws(0, sws_mm_exit(cpu, mm, asid));
	sws_test_mm_destroy(sim, mm);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

static void test_metadata_in_free_memory(void **state)
{
	(void)state;
	struct run off, on;
	one_run(0, &off);
	one_run(SWS_MM_KERNEL_RAM, &on);
	/* no pressure yet: the swapon's 6656 B of metadata take two pages */
	assert_int_equal(off.before.kernel_swap_pages, 0);
	assert_int_equal(on.before.kernel_swap_pages, 2);
	assert_int_equal(off.before.free_pages, RAM - 100);
	assert_int_equal(on.before.free_pages, RAM - 100 - 2);
	assert_int_equal(on.before.anon_pages, off.before.anon_pages);
	/* under global pressure, two clusters in use: three pages of metadata,
	 * so exactly three more pages go out to make room for the same folios */
	assert_int_equal(on.after.kernel_swap_pages, 3);
	assert_int_equal(off.after.counters[SWS_MM_pswpout], 600);
	assert_int_equal(on.after.counters[SWS_MM_pswpout], 603);
	assert_int_equal(on.after.anon_pages, off.after.anon_pages - 3);
	assert_int_equal(on.after.free_pages, off.after.free_pages);
}

/* The kernel's swap pages (mem.c's running sum of the metadata classes)
 * against the classes' bytes summed now. @return the pages. */
static uint64_t kernel_pages_checked(struct sws_sim *sim)
{
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sim, &mu);
	uint64_t pages = sws__sim_kernel_swap_pages(sim);
	assert_int_equal(pages, (mu.static_bytes + mu.dynamic_bytes + SWS_PAGE_SIZE - 1) / SWS_PAGE_SIZE +
				    mu.bytes[SWS_MEM_zspage] / SWS_PAGE_SIZE);
	return pages;
}

/* Swap out @n pages on a 64 MiB device of @design (a slot each, mapped
 * once, written, evicted); then free every slot of cluster 1 while a grace
 * period is held open. @return the bytes of class @c before and after, and
 * the kernel's swap pages before, after and once swapoff is done (@kp). */
static void cluster_freed(enum sws_design design, enum sws_mem_class c, int64_t *before, int64_t *after,
			  uint64_t kp[3])
{
	enum { N = 1000 };
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_sim_config cfg = {.design = design};
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	struct sws_device_config dc = {.nr_slots = 16384, .flags = SWS_SWP_SOLIDSTATE};
	int type;
	assert_sws(0, sws_swapon(sim, &dc, &type));
	sws_entry_t e[N], target;
	for (unsigned i = 0; i < N; i++) {
		assert_sws(0, sws_folio_alloc_swap(cpu, i + 1, 0, &e[i]));
		assert_sws(0, sws_swap_dup(cpu, e[i], 1));
		assert_sws(0, sws_swap_io_target(cpu, e[i], 1, true, &target));
		assert_sws(0, sws_swap_cache_del(cpu, e[i], 1, i + 1, i + 1));
	}
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sim, &mu);
	*before = mu.bytes[c];
	kp[0] = kernel_pages_checked(sim);
	sws_rcu_read_lock(); /* no RCU callback can run until the unlock */
	for (unsigned i = 0; i < N; i++)
		if (sws_swp_offset(e[i]) / SWS_CLUSTER_SLOTS == 1)
			assert_sws(0, sws_swap_put(cpu, e[i], 1));
	sws_sim_memory_usage(sim, &mu);
	*after = mu.bytes[c];
	kp[1] = kernel_pages_checked(sim);
	sws_rcu_read_unlock();
	for (unsigned i = 0; i < N; i++)
		if (sws_swp_offset(e[i]) / SWS_CLUSTER_SLOTS != 1)
			assert_sws(0, sws_swap_put(cpu, e[i], 1));
	kernel_pages_checked(sim);
	assert_sws(0, sws_swapoff(sim, type));
	kp[2] = kernel_pages_checked(sim);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

/*
 * Metadata unlinked and waiting for its RCU grace period is no longer
 * counted (sws__mem_retire()): the bytes, and with SWS_MM_KERNEL_RAM the
 * free pages, move when the model frees it, not when the host's RCU thread
 * runs, so counters are the same on every run. Cluster 1 of st-p4 loses its
 * 4 KiB swap table, of vswap its 12 KiB of descriptors, at the last put.
 * st-p4's metadata (see the top) goes from 11776 B, three pages, to 6656 B
 * (or 7680 B with cluster 1's memcg table kept), two pages; swapoff gives
 * every byte back (vswap's virtual space outlives the device).
 */
static void test_metadata_freed_at_the_put(void **state)
{
	(void)state;
	int64_t before, after;
	uint64_t kp[3];
	cluster_freed(SWS_DESIGN_ST_P4, SWS_MEM_swap_table, &before, &after, kp);
	assert_int_equal(before, 2 * 4096);
	assert_int_equal(after, 4096);
	assert_int_equal(kp[0], 3);
	assert_int_equal(kp[1], 2);
	assert_int_equal(kp[2], 0);
	cluster_freed(SWS_DESIGN_VSWAP, SWS_MEM_vswap_desc, &before, &after, kp);
	assert_int_equal(before - after, 512 * 24);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metadata_in_free_memory),
		cmocka_unit_test(test_metadata_freed_at_the_put),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
