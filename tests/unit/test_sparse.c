/*
 * test_sparse.c - cost follows use, not configuration: a 512 GiB machine with a
 * 4 TiB device starts at once and stays small (the folio map mapped section by
 * section as PFNs are first claimed, nothing per slot but the kernel's own
 * per-cluster metadata); the free-frame order is that of one stack of every
 * PFN; a section that cannot be mapped fails the allocation cleanly; the
 * slot seeds of a cluster exist while the cluster is in use and are given
 * back when it is free, under every design and on every kind of device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm/mm_internal.h"
#include "swap/swap_internal.h" /* white box: the device's mapped clusters */
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define RSS_MEASURABLE 0 /* the sanitizer's shadow and quarantine are resident too */
#else
#define RSS_MEASURABLE 1
#endif

#define GiB_PAGES (262144ull)
#define SECTION_BYTES ((uint64_t)SWS__MM_SECTION_PFNS * sizeof(struct sws_folio))

static uint64_t rss_kb(void) { return sws_test_proc_status_kb("VmRSS:"); }

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct sws_memory_usage usage(struct sws_sim *sim)
{
	struct sws_memory_usage mu;
	sws_sim_quiesce(sim);
	sws_sim_memory_usage(sim, &mu);
	return mu;
}

static size_t map_mapped(const struct sws_mm *mm) { return sws__arena_mapped(&mm->folio_map); }

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x10000000ull)

struct env {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	uint32_t asid;
	int type;
};

static void env_sim(struct env *e, enum sws_backend b)
{
	memset(e, 0, sizeof(*e));
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &e->sim));
	assert_sws(0, sws_cpu_attach(e->sim, &e->cpu));
}

/* The memory model on the simulation, with one address space. */
static void env_mm(struct env *e, const struct sws_mm_config *mc)
{
	assert_sws(0, sws_mm_create(e->sim, mc, &e->mm));
	assert_sws(0, sws_mm_space_create(e->mm, 0, &e->asid));
}

/* Exit, destroy: the memory model's memory all given back. */
static void env_close(struct env *e)
{
	assert_sws(0, sws_mm_exit(e->cpu, e->mm, e->asid));
	sws_mm_destroy(e->mm);
	assert_int_equal(usage(e->sim).bytes[SWS_MEM_mm], 0);
	sws_cpu_detach(e->cpu);
	sws_sim_destroy(e->sim);
}

/* ---- a big machine ------------------------------------------------------------------- */

/* 512 GiB of RAM and a 4 TiB device under @b: set-up costs what the kernel's
 * per-cluster metadata costs, the memory model next to nothing; a workload
 * maps the sections it touches. */
static void big_machine(enum sws_backend b)
{
	const uint64_t slots = 4096 * GiB_PAGES, ram = 512 * GiB_PAGES;
	const uint64_t clusters = slots / SWS_CLUSTER_SLOTS;
	uint64_t rss0 = rss_kb();
	double t0 = now_s();
	struct env e;
	env_sim(&e, b);
	struct sws_device_config dc = {.nr_slots = slots, .flags = SWS_SWP_SOLIDSTATE};
	assert_sws(0, sws_swapon(e.sim, &dc, &e.type));
	struct sws_mm_config mc = {.ram_pages = ram, .seed = 3};
	env_mm(&e, &mc);
	struct sws_mm *mm = e.mm;
	double setup = now_s() - t0;
	print_message("set-up %.3f s, resident +%llu kB\n", setup, (unsigned long long)(rss_kb() - rss0));
	assert_true(setup < 10.0); /* O(size) work would take minutes */

	/* The model: its root, 8 B of seed pointer per cluster, no descriptor yet. */
	struct sws_memory_usage mu = usage(e.sim);
	assert_int_equal(map_mapped(mm), 0);
	assert_true(mu.bytes[SWS_MEM_mm] < 8 * clusters + (1u << 20));
	const uint64_t mm0 = mu.bytes[SWS_MEM_mm];

	/* 1000 pages written: the first section of the folio map, nothing more. */
	for (unsigned p = 0; p < 1000; p++)
		assert_int_equal(sws_mm_access(e.cpu, mm, e.asid, PG(p), true), 1);
	assert_int_equal(map_mapped(mm), SECTION_BYTES);
	uint64_t used = usage(e.sim).bytes[SWS_MEM_mm] - mm0; /* and the implicit region */
	assert_true(used >= SECTION_BYTES && used < SECTION_BYTES + 4096);
	/* Past 2^15 PFNs: the second. */
	for (unsigned p = 1000; p < SWS__MM_SECTION_PFNS + 10; p++)
		assert_int_equal(sws_mm_access(e.cpu, mm, e.asid, PG(p), true), 1);
	assert_int_equal(map_mapped(mm), 2 * SECTION_BYTES);
	if (RSS_MEASURABLE) {
		/* cluster_info (24 B per cluster: 48 MiB) is written at swapon, as the
		 * kernel's setup_clusters() writes it; every other array sized by the
		 * device or the RAM stays untouched zero pages. */
		uint64_t grown = rss_kb() - rss0;
		assert_true(grown < 80 * 1024);
	}
	env_close(&e); /* (no sws_swap_check(): it would walk every slot) */
}

static void test_big_machine_default(void **state)
{
	(void)state;
	big_machine(SWS_BACKEND_DEFAULT);
}

/* A design whose kernel keeps per-slot arrays (swap_map, swap_cgroup, the
 * zeromap: 3.1 B per slot, 12.5 GiB here) is charged for them in full, but
 * they are zero pages until used. */
static void test_big_machine_per_slot_arrays(void **state)
{
	(void)state;
	big_machine(SWS_BACKEND_XARRAY);
}

/* ---- the free-frame order ------------------------------------------------------------ */

/* Give back PFNs taken with sws__mm_pfn_take() and never claimed. */
static void put_back(struct sws_mm *mm, const uint32_t *pfns, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		atomic_store(&mm_folio(mm, pfns[i])->flags, PG_free);
		sws__mm_pfn_put(NULL, mm, pfns[i]);
	}
}

static void test_pfn_order(void **state)
{
	(void)state;
	struct sws_sim *sim;
	struct sws_mm *mm;
	struct sws_sim_config cfg = {0};
	assert_sws(0, sws_sim_create(&cfg, &sim));
	/* 2^15 + 100 pages: PFNs 1 .. 2^15 + 164, two sections */
	struct sws_mm_config mc = {.ram_pages = SWS__MM_SECTION_PFNS + 100};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	const uint32_t nr_free = SWS__MM_SECTION_PFNS + 164;
	uint32_t p[512];

	/* One stack of every PFN, 1 on top: pops 1, 2, 3; pushes 2, then 1. */
	assert_sws(0, sws__mm_pfn_take(mm, 3, p));
	assert_int_equal(p[0], 1);
	assert_int_equal(p[1], 2);
	assert_int_equal(p[2], 3);
	assert_int_equal(map_mapped(mm), SECTION_BYTES);
	put_back(mm, &p[1], 1);
	put_back(mm, &p[0], 1);
	uint32_t q[3];
	assert_sws(0, sws__mm_pfn_take(mm, 3, q));
	assert_int_equal(q[0], 1); /* the last freed first */
	assert_int_equal(q[1], 2);
	assert_int_equal(q[2], 4); /* then the lowest never claimed */
	put_back(mm, q, 3);
	put_back(mm, &p[2], 1);

	/* Take everything, 512 at a time (a split's worth): the run that crosses
	 * into the second section maps it, the last section ends at nr_pfn. */
	uint32_t *all = malloc(sizeof(*all) * nr_free);
	assert_non_null(all);
	unsigned got = 0;
	while (nr_free - got >= 512) {
		assert_sws(0, sws__mm_pfn_take(mm, 512, all + got));
		got += 512;
	}
	const size_t whole = (size_t)(nr_free + 1) * sizeof(struct sws_folio); /* nr_pfn descriptors */
	assert_int_equal(map_mapped(mm), (whole + 4095) / 4096 * 4096);
	/* All or none: more than is left fails and takes nothing. */
	assert_sws(SWS_ENOMEM, sws__mm_pfn_take(mm, nr_free - got + 1, p));
	assert_sws(0, sws__mm_pfn_take(mm, nr_free - got, all + got));
	assert_sws(SWS_ENOMEM, sws__mm_pfn_take(mm, 1, p));
	/* Every PFN once. */
	uint8_t *seen = calloc(nr_free + 1, 1);
	assert_non_null(seen);
	for (unsigned i = 0; i < nr_free; i++) {
		assert_true(all[i] >= 1 && all[i] <= nr_free);
		assert_int_equal(seen[all[i]]++, 0);
	}
	free(seen);
	put_back(mm, all, nr_free);
	free(all);
	sws_mm_destroy(mm);
	assert_int_equal(usage(sim).bytes[SWS_MEM_mm], 0);
	sws_sim_destroy(sim);
}

/*
 * Per-CPU page lists: a CPU's first folio refills its list with a batch (63)
 * from the free list, its frees stay on its list up to 4 batches, above which
 * a batch goes back; when the free list and the never claimed PFNs run out
 * while RAM is free, another CPU's list is drained for it.
 */
static void test_pcp_lists(void **state)
{
	(void)state;
	struct sws_sim *sim;
	struct sws_mm *mm;
	struct sws_cpu *c0, *c1;
	struct sws_sim_config cfg = {0};
	assert_sws(0, sws_sim_create(&cfg, &sim));
	struct sws_mm_config mc = {.ram_pages = 1000}; /* PFNs 1 .. 1064 */
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	assert_sws(0, sws_cpu_attach(sim, &c0));
	assert_sws(0, sws_cpu_attach(sim, &c1));
	struct sws_mm_pcpu *p0 = &mm->pcpu[sws__cpu_id(c0)], *p1 = &mm->pcpu[sws__cpu_id(c1)];
	uint64_t *pf = malloc(sizeof(*pf) * 1000);
	assert_non_null(pf);

	assert_sws(0, sws__mm_folio_alloc(c0, mm, 0, 0, &pf[0]));
	folio_unlock(mm_folio(mm, pf[0]));
	assert_int_equal(mm->pfn_hwm, 64); /* one batch of 63 claimed */
	assert_int_equal(p0->pcp_count, 62);
	assert_int_equal(pf[0], 63);        /* the list's head: the batch's last */
	/* Never claimed, yet free like a freed one (sws_mm_destroy() skips them). */
	for (uint32_t q = p0->pcp_head; q; q = mm_folio(mm, q)->next)
		assert_true(folio_test(mm_folio(mm, q), PG_free));
	sws__mm_folio_free(c0, mm, pf[0]);
	assert_int_equal(p0->pcp_count, 63);
	assert_int_equal(mm->nr_free_listed, 0); /* the shared list never saw it */

	/* Every page of RAM on CPU 0, then 252 freed: the list stays at most 4 batches. */
	for (unsigned i = 0; i < 1000; i++) {
		assert_sws(0, sws__mm_folio_alloc(c0, mm, 0, 0, &pf[i]));
		folio_unlock(mm_folio(mm, pf[i]));
	}
	for (unsigned i = 0; i < 252; i++) {
		sws__mm_folio_free(c0, mm, pf[i]);
		assert_true(p0->pcp_count <= 4 * 63);
	}
	assert_true(mm->nr_free_listed > 0); /* batches went back */
	uint32_t held = p0->pcp_count;
	assert_true(held > 65);
	/* CPU 1 takes the 252 free pages of RAM: the free list and the never
	 * claimed PFNs do not hold that many, CPU 0's list does. */
	for (unsigned i = 0; i < 252; i++) {
		assert_sws(0, sws__mm_folio_alloc(c1, mm, 0, 0, &pf[i]));
		folio_unlock(mm_folio(mm, pf[i]));
	}
	assert_true(p0->pcp_count < held); /* drained */
	struct sws_mm_stats st;
	sws_mm_stats_get(mm, &st);
	assert_int_equal(st.free_pages, 0);
	for (unsigned i = 0; i < 1000; i++)
		sws__mm_folio_free(i < 252 ? c1 : c0, mm, pf[i]);
	assert_true(p1->pcp_count <= 4 * 63);
	free(pf);
	sws_cpu_detach(c1);
	sws_cpu_detach(c0);
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
}

/* A section that cannot be mapped: the fault fails with SWS_ENOMEM, nothing is
 * charged, and the next fault maps it. */
static void test_section_map_failure(void **state)
{
	(void)state;
	struct env e;
	env_sim(&e, SWS_BACKEND_DEFAULT);
	struct sws_mm_config mc = {.ram_pages = GiB_PAGES};
	env_mm(&e, &mc);
	e.mm->folio_map.grow_fail_nth = 1;
	assert_sws(SWS_ENOMEM, sws_mm_access(e.cpu, e.mm, e.asid, PG(0), true));
	assert_int_equal(map_mapped(e.mm), 0);
	struct sws_mm_stats s;
	sws_mm_stats_get(e.mm, &s);
	assert_int_equal(s.free_pages, GiB_PAGES); /* the charge was undone */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(0), true), 1);
	assert_int_equal(map_mapped(e.mm), SECTION_BYTES);
	env_close(&e);
}

/* ---- slot seeds per cluster in use ------------------------------------------------------ */

/* Seed tables the memory model holds, over every device. */
static unsigned seed_tables(struct sws_mm *mm, struct sws_sim *sim, unsigned *in_cluster0)
{
	unsigned n = 0;
	*in_cluster0 = 0;
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *dev = sws__device(sim, t);
		if (!dev || !mm->slot_seed[t])
			continue;
		for (uint32_t c = 0; c < sws__nr_clusters_mapped(dev); c++) {
			if (!atomic_load(&mm->slot_seed[t][c]))
				continue;
			n++;
			*in_cluster0 += c == 0;
		}
	}
	return n;
}

enum kind { K_PLAIN, K_MEMORY, K_XSWAP, NR_KINDS };

/*
 * 2048 pages written, paged out (verify mode: every page read back is
 * checked against its slot's seed), read back, written and paged out again,
 * then unmapped: the seed tables follow the clusters holding slots, and once
 * every slot is free only cluster 0 (the header slot keeps it in use) may
 * still hold one.
 */
static void seeds_follow_clusters(enum sws_backend b, enum kind k)
{
	enum { N = 2048 };
	struct env e;
	env_sim(&e, b);
	/* Random pages only where a device can take what zswap refuses. */
	struct sws_mm_config mc = {.ram_pages = 4 * N, .seed = 11, .flags = SWS_MM_VERIFY,
				   .content_weight = {1, 1, 3, 2, k == K_XSWAP ? 0 : 2}};
	if (k != K_XSWAP) {
		struct sws_device_config dc = {.nr_slots = 64 * SWS_CLUSTER_SLOTS, .flags = SWS_SWP_SOLIDSTATE,
					       .backing = k == K_MEMORY ? SWS_BACKING_MEMORY : SWS_BACKING_NONE};
		assert_sws(0, sws_swapon(e.sim, &dc, &e.type));
	}
	env_mm(&e, &mc);
	struct sws_mm *mm = e.mm;
	if (k == K_XSWAP) {
		assert_sws(0, sws_mm_zswap_enable(mm, NULL));
		assert_sws(0, sws_mm_xswap_create(mm, -1, &e.type));
	}
	unsigned c0;
	for (unsigned p = 0; p < N; p++)
		assert_int_equal(sws_mm_access(e.cpu, mm, e.asid, PG(p), true), 1);
	assert_int_equal(seed_tables(mm, e.sim, &c0), 0);
	const uint64_t mm0 = usage(e.sim).bytes[SWS_MEM_mm];

	for (int round = 0; round < 2; round++) {
		assert_sws(0, sws_mm_madvise(e.cpu, mm, e.asid, PG(0), (uint64_t)N * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
		struct sws_mm_stats s;
		sws_mm_stats_get(mm, &s);
		assert_true(s.counters[SWS_MM_pgsteal] >= (uint64_t)N * (round + 1));
		/* N slots span at least N / 512 clusters, each with its table */
		unsigned n = seed_tables(mm, e.sim, &c0);
		assert_true(n >= N / SWS_CLUSTER_SLOTS && n <= N / SWS_CLUSTER_SLOTS + 3);
		assert_int_equal(usage(e.sim).bytes[SWS_MEM_mm], mm0 + (uint64_t)n * sizeof(struct sws_seed_table));
		for (unsigned p = 0; p < N; p++)
			assert_int_equal(sws_mm_access(e.cpu, mm, e.asid, PG(p), round == 0), 1);
		sws_mm_stats_get(mm, &s);
		assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
		/* every page came back: checked byte for byte, or from the zero flag
		 * (a device with no store holds no bytes to check) */
		if (k != K_PLAIN && s.counters[SWS_MM_verify_ok] + s.counters[SWS_MM_swpin_zero] < (uint64_t)N * (round + 1))
			fail_msg("design %d kind %d round %d: %llu verified, %llu zero", (int)b, (int)k, round,
				 (unsigned long long)s.counters[SWS_MM_verify_ok],
				 (unsigned long long)s.counters[SWS_MM_swpin_zero]);
	}
	assert_sws(0, sws_mm_munmap(e.cpu, mm, e.asid, PG(0), (uint64_t)N * SWS_PAGE_SIZE));
	sws_swap_do_deferred_work(e.sim, 1024); /* discards, an xswap device's shrink */
	unsigned n = seed_tables(mm, e.sim, &c0);
	assert_true(n == c0 && c0 <= 1);
	assert_true(usage(e.sim).bytes[SWS_MEM_mm] <= mm0 + sizeof(struct sws_seed_table));
	assert_consistent(e.sim);
	env_close(&e);
}

static void test_seeds_follow_clusters(void **state)
{
	(void)state;
	static const enum sws_backend designs[] = {
#define DESIGN_ID(id, num, name, kernel, ops, help) SWS_DESIGN_##id,
		SWS_DESIGN_LIST(DESIGN_ID) /* every design of the registry */
#undef DESIGN_ID
	};
	for (unsigned d = 0; d < sizeof(designs) / sizeof(designs[0]); d++)
		for (enum kind k = K_PLAIN; k < NR_KINDS; k++)
			if (k != K_XSWAP || designs[d] == SWS_BACKEND_ST_P4) /* xswap: the swap table's */
				seeds_follow_clusters(designs[d], k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_big_machine_default),   cmocka_unit_test(test_big_machine_per_slot_arrays),
		cmocka_unit_test(test_pfn_order),             cmocka_unit_test(test_pcp_lists),             cmocka_unit_test(test_section_map_failure),
		cmocka_unit_test(test_seeds_follow_clusters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
