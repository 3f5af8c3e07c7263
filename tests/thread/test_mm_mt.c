/*
 * test_mm_mt.c - the memory model on several threads: each thread faults in
 * its own address space under a RAM size that forces reclaim, so threads
 * unmap and swap out each other's pages, swap them back in, fork, munmap and
 * pageout concurrently. Afterwards the swap invariants hold, verify mode saw
 * only identical pages, and tearing down leaks no slot or byte; the same with
 * zswap in front of the device (stores, loads, writeback racing swap-ins;
 * half the threads in a limited memcg the pool is charged to, the shrink
 * worker run as soon as it is queued).
 * A second case runs threads of a forked pair of processes that copy on
 * write until the OOM killer takes one of them, while faults of the victim
 * are in flight on other threads: they must end with SWS_EKILLED, touching
 * nothing the reap freed (ASan), and the survivor goes on.
 * Run under TSan in CI.
 */
#include <pthread.h>
#include <string.h>

#include "testutil.h"

#define NTHREADS 4
#define PAGES 300
#define ROUNDS 3000

struct shared {
	struct sws_sim *sim;
	struct sws_mm *mm;
	uint16_t memcg; /* the even threads' (zswap runs: a limited memcg, the pool charged to it) */
	pthread_barrier_t start;
};

struct worker {
	struct shared *sh;
	unsigned id;
	int rc;
};

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x40000000ull)

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct sws_cpu *cpu;
	uint32_t asid, child = 0;
	bool have_child = false;
	if ((w->rc = sws_cpu_attach(sh->sim, &cpu)) != 0)
		return NULL;
	if ((w->rc = sws_mm_space_create(sh->mm, w->id % 2 ? 0 : sh->memcg, &asid)) != 0)
		return NULL;
	pthread_barrier_wait(&sh->start);
	uint64_t seed = 1000 + w->id;
	for (int i = 0; i < ROUNDS && !w->rc; i++) {
		uint64_t r = sws_test_rand(&seed);
		unsigned p = (unsigned)((r >> 16) % PAGES);
		switch (r % 64) {
		case 0: /* proactive reclaim of a range */
			w->rc = sws_mm_madvise(cpu, sh->mm, asid, PG(p & ~15u), 16 * SWS_PAGE_SIZE,
					       SWS_MADV_PAGEOUT);
			break;
		case 1: /* drop a range: pages and swap entries */
			w->rc = sws_mm_madvise(cpu, sh->mm, asid, PG(p & ~7u), 8 * SWS_PAGE_SIZE,
					       SWS_MADV_DONTNEED);
			break;
		case 2: /* a fork that reads some pages and exits */
			if (!have_child && (w->rc = sws_mm_fork(cpu, sh->mm, asid, &child)) == 0)
				have_child = true;
			break;
		case 3:
			if (have_child) {
				w->rc = sws_mm_exit(cpu, sh->mm, child);
				have_child = false;
			}
			break;
		case 4:
			sws_mm_kswapd(cpu, sh->mm, 64);
			sws_swap_do_deferred_work(sh->sim, 4);
			break;
		case 5: /* the shrink worker as a work item, when a refused store queued it */
			if (sws_mm_zswap_shrink_pending(sh->mm))
				sws_mm_zswap_shrink(cpu, sh->mm, UINT64_MAX);
			break;
		default:
			w->rc = sws_mm_access(cpu, sh->mm, have_child && (r & 8) ? child : asid, PG(p), r & 16);
			if (w->rc == SWS_ENOMEM || w->rc == 1)
				w->rc = 0; /* a fault, or an allowed oom: everything pinned at this instant */
		}
		if (w->rc == SWS_EKILLED) { /* the OOM killer chose this task: it exits */
			w->rc = 0;
			break;
		}
	}
	if (have_child && !w->rc)
		w->rc = sws_mm_exit(cpu, sh->mm, child);
	if (!w->rc)
		w->rc = sws_mm_exit(cpu, sh->mm, asid);
	sws_cpu_detach(cpu);
	return NULL;
}

static void run(enum sws_backend b, bool zswap)
{
	struct shared sh;
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &sh.sim));
	int type;
	struct sws_device_config dc = {.nr_slots = 8192, .flags = SWS_SWP_SOLIDSTATE,
				       .backing = SWS_BACKING_MEMORY};
	assert_sws(0, sws_swapon(sh.sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = 400, .flags = SWS_MM_VERIFY, .seed = 5,
				   .content_weight = {1, 1, 2, 1, 1}};
	assert_sws(0, sws_mm_create(sh.sim, &mc, &sh.mm));
	sh.memcg = 0;
	if (zswap)
		assert_sws(0, sws_mm_memcg_create(sh.mm, 250, &sh.memcg));
	if (zswap) { /* a small pool: stores, loads, limit hits, shrinker and worker writeback */
		struct sws_zswap_config zc = {.max_pool_percent = 15, .flags = SWS_ZSWAP_SHRINKER,
					      .compressor = "zstd:1"};
		assert_sws(0, sws_mm_zswap_enable(sh.mm, &zc));
	}
	pthread_barrier_init(&sh.start, NULL, NTHREADS);
	pthread_t t[NTHREADS];
	struct worker w[NTHREADS];
	for (unsigned i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){&sh, i, 0};
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (unsigned i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		if (w[i].rc)
			fail_msg("worker %u: %s", i, sws_error_name(w[i].rc));
	}
	pthread_barrier_destroy(&sh.start);
	struct sws_mm_stats s;
	sws_mm_stats(sh.mm, &s);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_true(s.counters[SWS_MM_pswpout] > 0);
	assert_true(s.counters[SWS_MM_pswpin] > 0);
	if (zswap)
		assert_true(s.counters[SWS_MM_zswpout] > 0 && s.counters[SWS_MM_zswpin] > 0 &&
			    s.counters[SWS_MM_zswpwb] > 0);
	assert_consistent(sh.sim);
	sws_mm_destroy(sh.mm);
	uint64_t total, freeslots;
	sws_swap_totals(sh.sim, &total, &freeslots);
	assert_int_equal(total, freeslots);
	sws_sim_quiesce(sh.sim);
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sh.sim, &mu);
	assert_int_equal(mu.bytes[SWS_MEM_mm] + mu.bytes[SWS_MEM_pgtable], 0);
	assert_consistent(sh.sim);
	sws_sim_destroy(sh.sim);
}

/* ---- fork, copy-on-write and the OOM killer -------------------------------------------- */

#define OOM_PAGES 200  /* written by the parent before the fork: every page shared */
#define OOM_RAM 256    /* RAM: a quarter of the copies fit, then the small swap fills */
#define OOM_ROUNDS 1500
#define OOM_TRIALS 100

struct oom_shared {
	struct sws_sim *sim;
	struct sws_mm *mm;
	uint32_t asid[2]; /* parent, child */
	pthread_barrier_t start;
};

struct oom_worker {
	struct oom_shared *sh;
	unsigned id;
	int rc;
	uint64_t killed_seen; /* accesses that found their space killed */
};

/* Threads of both processes write random pages (copy-on-write faults), some
 * read; each keeps touching a space after it was killed (SWS_EKILLED each time). */
static void *oom_worker_main(void *arg)
{
	struct oom_worker *w = arg;
	struct oom_shared *sh = w->sh;
	struct sws_cpu *cpu;
	if ((w->rc = sws_cpu_attach(sh->sim, &cpu)) != 0)
		return NULL;
	pthread_barrier_wait(&sh->start);
	uint64_t seed = 77 + w->id;
	for (int i = 0; i < OOM_ROUNDS && !w->rc; i++) {
		uint64_t r = sws_test_rand(&seed);
		uint32_t asid = sh->asid[(r >> 8) & 1];
		int rc = sws_mm_access(cpu, sh->mm, asid, PG((r >> 16) % OOM_PAGES), (r & 7) != 0);
		if (rc == SWS_EKILLED)
			w->killed_seen++;
		else if (rc != 0 && rc != 1 && rc != SWS_ENOMEM)
			w->rc = rc;
	}
	sws_cpu_detach(cpu);
	return NULL;
}

static void oom_trial(enum sws_backend b, uint64_t *kills, uint64_t *cows)
{
	struct oom_shared sh;
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &sh.sim));
	int type;
	struct sws_device_config dc = {.nr_slots = 128, .flags = SWS_SWP_SOLIDSTATE};
	assert_sws(0, sws_swapon(sh.sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = OOM_RAM, .seed = 9};
	assert_sws(0, sws_mm_create(sh.sim, &mc, &sh.mm));
	struct sws_cpu *cpu;
	assert_sws(0, sws_cpu_attach(sh.sim, &cpu));
	assert_sws(0, sws_mm_space_create(sh.mm, 0, &sh.asid[0]));
	for (unsigned p = 0; p < OOM_PAGES; p++)
		assert_int_equal(sws_mm_access(cpu, sh.mm, sh.asid[0], PG(p), true), 1);
	assert_sws(0, sws_mm_fork(cpu, sh.mm, sh.asid[0], &sh.asid[1]));
	pthread_barrier_init(&sh.start, NULL, NTHREADS);
	pthread_t t[NTHREADS];
	struct oom_worker w[NTHREADS];
	for (unsigned i = 0; i < NTHREADS; i++) {
		w[i] = (struct oom_worker){&sh, i, 0, 0};
		pthread_create(&t[i], NULL, oom_worker_main, &w[i]);
	}
	for (unsigned i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		if (w[i].rc)
			fail_msg("worker %u: %s", i, sws_error_name(w[i].rc));
	}
	pthread_barrier_destroy(&sh.start);
	struct sws_mm_stats s;
	sws_mm_stats(sh.mm, &s);
	*kills += s.counters[SWS_MM_oom_kill];
	*cows += s.counters[SWS_MM_cow_fault];
	assert_consistent(sh.sim);
	/* Both processes exit: a killed one's page tables go now (exit_mmap). */
	assert_sws(0, sws_mm_exit(cpu, sh.mm, sh.asid[0]));
	assert_sws(0, sws_mm_exit(cpu, sh.mm, sh.asid[1]));
	sws_cpu_detach(cpu);
	sws_mm_destroy(sh.mm);
	uint64_t total, freeslots;
	sws_swap_totals(sh.sim, &total, &freeslots);
	assert_int_equal(total, freeslots);
	sws_sim_quiesce(sh.sim);
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sh.sim, &mu);
	assert_int_equal(mu.bytes[SWS_MEM_mm] + mu.bytes[SWS_MEM_pgtable], 0);
	sws_sim_destroy(sh.sim);
}

static void test_oom_cow(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	uint64_t kills = 0, cows = 0;
	for (int trial = 0; trial < OOM_TRIALS; trial++)
		oom_trial(b, &kills, &cows);
	assert_true(kills >= OOM_TRIALS); /* every trial ran out of memory */
	assert_true(cows > 0);
}

static void test_table(void **state)
{
	(void)state;
	run(SWS_BACKEND_SWAP_TABLE, false);
}

static void test_xarray(void **state)
{
	(void)state;
	run(SWS_BACKEND_XARRAY, false);
}

static void test_zswap_table(void **state)
{
	(void)state;
	run(SWS_BACKEND_SWAP_TABLE, true);
}

static void test_zswap_xarray(void **state)
{
	(void)state;
	run(SWS_BACKEND_XARRAY, true);
}

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_table), cmocka_unit_test(test_xarray),
					   cmocka_unit_test(test_zswap_table),
					   cmocka_unit_test(test_zswap_xarray),
					   cmocka_unit_test_prestate(test_oom_cow, &backend_table),
					   cmocka_unit_test_prestate(test_oom_cow, &backend_xarray)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
