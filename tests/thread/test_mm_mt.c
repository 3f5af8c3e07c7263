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
 * Every case runs on every design (mt_designs.h); under vswap the device is
 * physical and the totals count it alone. A vswap case of its own runs the
 * threads with zswap and a small pool, so that pages move between folio,
 * zswap and physical slots while other threads fault them: contents are
 * verified, zswap keeps no tree, the totals stay physical, and at the end
 * every used physical slot maps back (reverse map) to a virtual entry that
 * names it as its target.
 * The page cache case runs two CPUs on the same files under a memcg limit
 * that makes each one's reads and writes reclaim the other's pages.
 * Run under TSan in CI.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mt_designs.h"
#include "mm/mm_internal.h" /* white box: hold a space's ptl */

#define NTHREADS 4
#define PAGES 300
#define ROUNDS 3000

struct shared {
	struct sws_sim *sim;
	struct sws_mm *mm;
	uint16_t memcg; /* the even threads' (zswap runs: a limited memcg, the pool charged to it) */
	pthread_barrier_t start;
	pthread_barrier_t done; /* every worker finished its rounds: spaces may exit */
	atomic_uint running;    /* workers not yet done */
	bool keep;           /* workers leave their spaces to sws_mm_destroy() */
};

struct worker {
	struct shared *sh;
	unsigned id;
	int rc;
	uint32_t asid; /* its space, when kept */
};

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x40000000ull)

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct sws_cpu *cpu = NULL;
	uint32_t asid = 0, child = 0;
	bool have_child = false;
	w->rc = sws_cpu_attach(sh->sim, &cpu);
	if (!w->rc)
		w->rc = sws_mm_space_create(sh->mm, w->id % 2 ? 0 : sh->memcg, &asid);
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
	/* Every space lives until all workers are done, so that the memory pressure
	 * does not depend on how the threads happened to interleave. */
	pthread_barrier_wait(&sh->done);
	w->asid = asid;
	if (have_child && !w->rc && !sh->keep)
		w->rc = sws_mm_exit(cpu, sh->mm, child);
	if (!w->rc && !sh->keep)
		w->rc = sws_mm_exit(cpu, sh->mm, asid);
	sws_cpu_detach(cpu);
	atomic_fetch_sub(&sh->running, 1);
	return NULL;
}

/* One simulation: a memory-backed SSD, the memory model in verify mode; with zswap (@zc)
 * the even workers in a memcg limited to 250 pages. */
struct mt_run {
	struct shared sh;
	int type;  /* the device swapped on (physical under vswap) */
	int vtype; /* vswap's virtual device; -1 on the other designs */
	uint64_t pages; /* its usable slots: the totals, on every design */
	pthread_t t[NTHREADS];
	struct worker w[NTHREADS];
};

static void mt_open(struct mt_run *r, enum sws_backend b, const struct sws_mm_config *mc,
		    const struct sws_zswap_config *zc)
{
	memset(r, 0, sizeof(*r));
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &r->sh.sim));
	struct sws_device_config dc = {.nr_slots = 8192, .flags = SWS_SWP_SOLIDSTATE,
				       .backing = SWS_BACKING_MEMORY};
	assert_sws(0, sws_swapon(r->sh.sim, &dc, &r->type));
	r->vtype = mt_virtual_type(r->sh.sim);
	assert_int_equal(r->vtype >= 0, mt_design_virtual(b));
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(r->sh.sim, r->type, &di));
	r->pages = di.pages;
	uint64_t total, freeslots;
	sws_swap_totals(r->sh.sim, &total, &freeslots);
	assert_int_equal(total, r->pages); /* vswap: the virtual device is not counted */
	assert_sws(0, sws_mm_create(r->sh.sim, mc, &r->sh.mm));
	r->sh.memcg = 0;
	if (zc) {
		assert_sws(0, sws_mm_memcg_create(r->sh.mm, 250, &r->sh.memcg));
		assert_sws(0, sws_mm_zswap_enable(r->sh.mm, zc));
	}
}

static void mt_start(struct mt_run *r, bool keep)
{
	r->sh.keep = keep;
	pthread_barrier_init(&r->sh.start, NULL, NTHREADS);
	pthread_barrier_init(&r->sh.done, NULL, NTHREADS);
	atomic_store(&r->sh.running, NTHREADS);
	for (unsigned i = 0; i < NTHREADS; i++) {
		r->w[i] = (struct worker){.sh = &r->sh, .id = i};
		pthread_create(&r->t[i], NULL, worker_main, &r->w[i]);
	}
}

static void mt_join(struct mt_run *r)
{
	for (unsigned i = 0; i < NTHREADS; i++)
		pthread_join(r->t[i], NULL);
	for (unsigned i = 0; i < NTHREADS; i++)
		if (r->w[i].rc)
			fail_msg("%s: worker %u: %s", sws_backend_name(sws_sim_backend(r->sh.sim)), i,
				 sws_error_name(r->w[i].rc));
	pthread_barrier_destroy(&r->sh.start);
	pthread_barrier_destroy(&r->sh.done);
}

/* Tear down: nothing of the model stays, every slot is free, the invariants hold. */
static void mt_close(struct mt_run *r)
{
	struct sws_sim *sim = r->sh.sim;
	assert_consistent(sim);
	sws_mm_destroy(r->sh.mm);
	uint64_t total, freeslots;
	sws_swap_totals(sim, &total, &freeslots);
	assert_int_equal(total, r->pages);
	assert_int_equal(total, freeslots);
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(sim, r->type, &di));
	assert_int_equal(di.inuse_pages, 0);
	if (r->vtype >= 0) {
		assert_sws(0, sws_device_info_get(sim, r->vtype, &di));
		assert_int_equal(di.inuse_pages, 0);
	}
	sws_test_assert_mm_freed(sim);
	assert_consistent(sim);
	sws_sim_destroy(sim);
}

static void run(enum sws_backend b, bool zswap)
{
	struct mt_run *r = test_malloc(sizeof(*r));
	struct sws_mm_config mc = {.ram_pages = 400, .flags = SWS_MM_VERIFY, .seed = 5,
				   .content_weight = {1, 1, 2, 1, 1}};
	/* a small pool: stores, loads, limit hits, shrinker and worker writeback */
	struct sws_zswap_config zc = {.max_pool_percent = 15, .flags = SWS_ZSWAP_SHRINKER, .compressor = "zstd:1"};
	mt_open(r, b, &mc, zswap ? &zc : NULL);
	mt_start(r, false);
	mt_join(r);
	struct sws_mm_stats s;
	sws_mm_stats_get(r->sh.mm, &s);
	if (s.counters[SWS_MM_verify_fail] || !s.counters[SWS_MM_pswpout] || !s.counters[SWS_MM_pswpin] ||
	    (zswap && (!s.counters[SWS_MM_zswpout] || !s.counters[SWS_MM_zswpin] || !s.counters[SWS_MM_zswpwb])))
		fail_msg("%s%s: verify_fail %llu pswpout %llu pswpin %llu zswpout %llu zswpin %llu zswpwb %llu",
			 sws_backend_name(b), zswap ? " zswap" : "", (unsigned long long)s.counters[SWS_MM_verify_fail],
			 (unsigned long long)s.counters[SWS_MM_pswpout], (unsigned long long)s.counters[SWS_MM_pswpin],
			 (unsigned long long)s.counters[SWS_MM_zswpout], (unsigned long long)s.counters[SWS_MM_zswpin],
			 (unsigned long long)s.counters[SWS_MM_zswpwb]);
	mt_close(r);
	test_free(r);
}

static void test_faults(void **state) { run(*(enum sws_backend *)*state, false); }

static void test_faults_zswap(void **state) { run(*(enum sws_backend *)*state, true); }

/* ---- vswap: zswap, writeback and physical slots under threads -------------------------- */

static void test_vswap_zswap_writeback(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state; /* vswap or vswap-v3 */
	struct mt_run *r = test_malloc(sizeof(*r));
	/* Half the pages compress well, a fifth not at all (zswap rejects them: straight to
	 * a physical slot), zero pages take neither; a pool of 5% of RAM is full at once. */
	struct sws_mm_config mc = {.ram_pages = 400, .flags = SWS_MM_VERIFY, .seed = 17,
				   .content_weight = {1, 1, 2, 3, 2}};
	struct sws_zswap_config zc = {.max_pool_percent = 5, .flags = SWS_ZSWAP_SHRINKER};
	mt_open(r, b, &mc, &zc);
	assert_true(r->vtype >= 0 && r->vtype != r->type);
	mt_start(r, true);
	/* Meanwhile: the totals are the physical device's, zswap has no tree
	 * (the first violation is reported once the workers are joined). */
	uint64_t samples = 0, max_virt = 0, max_phys = 0;
	char bad[256] = "";
	while (atomic_load(&r->sh.running)) {
		struct sws_stats st;
		sws_stats_snapshot(r->sh.sim, &st);
		struct sws_device_info pd, vd;
		int rc1 = sws_device_info_get(r->sh.sim, r->type, &pd);
		int rc2 = sws_device_info_get(r->sh.sim, r->vtype, &vd);
		struct sws_memory_usage mu;
		sws_sim_memory_usage(r->sh.sim, &mu);
		if (!bad[0] && (st.total_swap_pages != r->pages || st.nr_swap_pages > st.total_swap_pages || rc1 ||
				rc2 || pd.inuse_pages > pd.pages ||
				mu.bytes[SWS_MEM_zswap_trees] + mu.bytes[SWS_MEM_zswap_tree]))
			snprintf(bad, sizeof(bad),
				 "sample %llu: total %llu (device %llu) free %llu; info %s %s, physical in use %llu; "
				 "zswap tree bytes %llu",
				 (unsigned long long)samples, (unsigned long long)st.total_swap_pages,
				 (unsigned long long)r->pages, (unsigned long long)st.nr_swap_pages, sws_error_name(rc1),
				 sws_error_name(rc2), (unsigned long long)pd.inuse_pages,
				 (unsigned long long)(mu.bytes[SWS_MEM_zswap_trees] + mu.bytes[SWS_MEM_zswap_tree]));
		if (!rc1 && pd.inuse_pages > max_phys)
			max_phys = pd.inuse_pages;
		if (!rc2 && vd.inuse_pages > max_virt)
			max_virt = vd.inuse_pages;
		samples++;
		sched_yield();
	}
	mt_join(r);
	if (bad[0])
		fail_msg("vswap: %s", bad);
	struct sws_mm_stats s;
	sws_mm_stats_get(r->sh.mm, &s);
	struct sws_stats st;
	sws_stats_snapshot(r->sh.sim, &st);
	print_message("vswap: %llu samples, peak %llu virtual and %llu physical slots in use; zswpout %llu "
		      "zswpin %llu zswpwb %llu pswpout %llu pswpin %llu; %llu physical slots given, %llu freed\n",
		      (unsigned long long)samples, (unsigned long long)max_virt, (unsigned long long)max_phys,
		      (unsigned long long)s.counters[SWS_MM_zswpout], (unsigned long long)s.counters[SWS_MM_zswpin],
		      (unsigned long long)s.counters[SWS_MM_zswpwb], (unsigned long long)s.counters[SWS_MM_pswpout],
		      (unsigned long long)s.counters[SWS_MM_pswpin],
		      (unsigned long long)st.counters[SWS_CTR_vswap_phys_alloc],
		      (unsigned long long)st.counters[SWS_CTR_vswap_phys_free]);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_true(s.counters[SWS_MM_verify_ok] > 0);
	assert_true(s.counters[SWS_MM_zswpout] > 0 && s.counters[SWS_MM_zswpin] > 0);
	assert_true(s.counters[SWS_MM_zswpwb] > 0); /* writeback happened */
	assert_true(s.counters[SWS_MM_pswpout] > 0 && s.counters[SWS_MM_pswpin] > 0);
	/* Only pages written to the device took a physical slot. */
	assert_true(st.counters[SWS_CTR_vswap_phys_alloc] > 0);
	assert_true(st.counters[SWS_CTR_vswap_phys_alloc] <= s.counters[SWS_MM_pswpout]);
	assert_consistent(r->sh.sim);

	/* What the workers left in their spaces: each used physical slot backs a
	 * virtual entry whose I/O target is that slot. */
	struct sws_cpu *cpu;
	assert_sws(0, sws_cpu_attach(r->sh.sim, &cpu));
	struct sws_device_info pd, vd;
	assert_sws(0, sws_device_info_get(r->sh.sim, r->type, &pd));
	assert_sws(0, sws_device_info_get(r->sh.sim, r->vtype, &vd));
	uint64_t backed = 0;
	for (uint64_t off = 1; off < pd.max; off++) {
		sws_entry_t phys = sws_swp_entry((unsigned)r->type, off);
		sws_entry_t v = sws_swap_rmap(cpu, phys);
		if (!v)
			continue;
		backed++;
		assert_int_equal(sws_swp_type(v), r->vtype);
		sws_entry_t t = 0;
		assert_sws(0, sws_swap_io_target(cpu, v, 1, false, &t));
		assert_int_equal(t, phys);
	}
	assert_int_equal(backed, pd.inuse_pages);
	assert_true(backed > 0);
	assert_true(vd.inuse_pages >= pd.inuse_pages);
	/* Every page of every space reads back as last written, wherever it is. */
	uint64_t ok0 = s.counters[SWS_MM_verify_ok];
	for (unsigned i = 0; i < NTHREADS; i++)
		for (unsigned p = 0; p < PAGES; p++) {
			int rc = sws_mm_access(cpu, r->sh.mm, r->w[i].asid, PG(p), false);
			if (rc < 0)
				fail_msg("vswap: reading page %u of space %u: %s", p, r->w[i].asid, sws_error_name(rc));
		}
	sws_mm_stats_get(r->sh.mm, &s);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_true(s.counters[SWS_MM_verify_ok] > ok0);
	assert_consistent(r->sh.sim);
	sws_cpu_detach(cpu);
	mt_close(r);
	test_free(r);
}

/* ---- fork, copy-on-write and the OOM killer -------------------------------------------- */

#define OOM_PAGES 200  /* written by the parent before the fork: every page shared */
#define OOM_RAM 256    /* RAM: a quarter of the copies fit, then the small swap fills */
#define OOM_ROUNDS 1500
#define OOM_TRIALS 40 /* per design (100 when it ran on two) */

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

static void oom_trial(enum sws_backend b, int trial, uint64_t *kills, uint64_t *cows)
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
	for (unsigned i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (unsigned i = 0; i < NTHREADS; i++)
		if (w[i].rc)
			fail_msg("%s: trial %d: worker %u: %s", sws_backend_name(b), trial, i, sws_error_name(w[i].rc));
	pthread_barrier_destroy(&sh.start);
	struct sws_mm_stats s;
	sws_mm_stats_get(sh.mm, &s);
	*kills += s.counters[SWS_MM_oom_kill];
	*cows += s.counters[SWS_MM_cow_fault];
	assert_consistent(sh.sim);
	/* Both processes exit: a killed one's page tables go now (exit_mmap). */
	assert_sws(0, sws_mm_exit(cpu, sh.mm, sh.asid[0]));
	assert_sws(0, sws_mm_exit(cpu, sh.mm, sh.asid[1]));
	sws_cpu_detach(cpu);
	sws_test_mm_destroy(sh.sim, sh.mm);
	sws_sim_destroy(sh.sim);
}

static void test_oom_cow(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	uint64_t kills = 0, cows = 0;
	for (int trial = 0; trial < OOM_TRIALS; trial++)
		oom_trial(b, trial, &kills, &cows);
	assert_true(kills >= OOM_TRIALS); /* every trial ran out of memory */
	assert_true(cows > 0);
}

/* ---- lock contention by class ------------------------------------------------------ */

struct ptl_waiter {
	struct sws_sim *sim;
	struct sws_mm *mm;
	uint32_t asid;
	uint64_t vaddr; /* 0: PG(1) */
	_Atomic int started, done;
	int rc;
};

static void *ptl_waiter_main(void *arg)
{
	struct ptl_waiter *w = arg;
	struct sws_cpu *cpu;
	if ((w->rc = sws_cpu_attach(w->sim, &cpu)) != 0)
		return NULL;
	atomic_store(&w->started, 1);
	w->rc = sws_mm_access(cpu, w->mm, w->asid, w->vaddr ? w->vaddr : PG(1), true);
	atomic_store(&w->done, 1);
	sws_cpu_detach(cpu);
	return NULL;
}

/* A fault that has to wait for the lock of its PTE table is counted as
 * lock_ptl_contended; nothing else is. */
static void test_lock_contention_counted(void **state)
{
	(void)state;
	struct sws_sim_config cfg = {.max_cpus = 4};
	struct ptl_waiter w = {0};
	assert_sws(0, sws_sim_create(&cfg, &w.sim));
	struct sws_mm_config mc = {.ram_pages = 1024, .seed = 1};
	assert_sws(0, sws_mm_create(w.sim, &mc, &w.mm));
	assert_sws(0, sws_mm_space_create(w.mm, 0, &w.asid));
	struct sws_space *sp = sws__mm_space(w.mm, w.asid);
	sws_spin_lock(pte_lockptr(sp, PG(1)));
	pthread_t t;
	pthread_create(&t, NULL, ptl_waiter_main, &w);
	while (!atomic_load(&w.started))
		sched_yield();
	struct timespec ts = {0, 50 * 1000 * 1000};
	nanosleep(&ts, NULL); /* long enough for the fault to reach the lock */
	sws_spin_unlock(pte_lockptr(sp, PG(1)));
	pthread_join(t, NULL);
	assert_int_equal(w.rc, 1);
	struct sws_mm_stats s;
	sws_mm_stats_get(w.mm, &s);
	assert_true(s.counters[SWS_MM_lock_ptl_contended] >= 1);
	assert_int_equal(s.counters[SWS_MM_lock_pfn_contended], 0);
	assert_int_equal(s.counters[SWS_MM_lock_rmap_contended], 0);
	sws_mm_destroy(w.mm);
	sws_sim_destroy(w.sim);
}

/*
 * Split page-table locks: with the lock of one PTE table held (a reclaim
 * unmapping old pages there), a fault in another table of the same space
 * (2 MiB away, the next PMD) runs through without waiting.
 */
static void test_split_ptl(void **state)
{
	(void)state;
	struct sws_sim_config cfg = {.max_cpus = 4};
	struct ptl_waiter w = {.vaddr = (2ull << 20) + PG(1)};
	assert_sws(0, sws_sim_create(&cfg, &w.sim));
	struct sws_mm_config mc = {.ram_pages = 1024, .seed = 1};
	assert_sws(0, sws_mm_create(w.sim, &mc, &w.mm));
	assert_sws(0, sws_mm_space_create(w.mm, 0, &w.asid));
	struct sws_space *sp = sws__mm_space(w.mm, w.asid);
	assert_ptr_not_equal(pte_lockptr(sp, PG(1)), pte_lockptr(sp, w.vaddr));
	sws_spin_lock(pte_lockptr(sp, PG(1)));
	pthread_t t;
	pthread_create(&t, NULL, ptl_waiter_main, &w);
	for (int i = 0; i < 2000 && !atomic_load(&w.done); i++) { /* up to 2 s */
		struct timespec ts = {0, 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	bool done = atomic_load(&w.done);
	sws_spin_unlock(pte_lockptr(sp, PG(1)));
	pthread_join(t, NULL);
	assert_true(done);
	assert_int_equal(w.rc, 1);
	struct sws_mm_stats s;
	sws_mm_stats_get(w.mm, &s);
	assert_int_equal(s.counters[SWS_MM_lock_ptl_contended], 0);
	sws_mm_destroy(w.mm);
	sws_sim_destroy(w.sim);
}

/*
 * Two CPUs allocate and free folios with RAM never full (at most 990 of 1000
 * pages held, so no reclaim): every allocation succeeds although PFNs sit in
 * each CPU's page list, including when the shared list runs dry and one CPU
 * drains the other's (drain_all_pages(), racing with the owner's frees and
 * refills).
 */
struct pcp_worker {
	struct sws_sim *sim;
	struct sws_mm *mm;
	_Atomic long *held;
	unsigned want, rounds;
	long allocs, fails;
	int attach_rc;
};

static void *pcp_worker_main(void *arg)
{
	struct pcp_worker *w = arg;
	struct sws_cpu *cpu;
	if ((w->attach_rc = sws_cpu_attach(w->sim, &cpu)) != 0)
		return NULL;
	static _Thread_local uint64_t pf[1000];
	for (unsigned it = 0; it < w->rounds; it++) {
		unsigned got = 0;
		while (got < w->want) {
			if (atomic_fetch_add(w->held, 1) >= 990) {
				atomic_fetch_sub(w->held, 1);
				break;
			}
			if (sws__mm_folio_alloc(cpu, w->mm, 0, 0, &pf[got])) {
				w->fails++;
				atomic_fetch_sub(w->held, 1);
				continue;
			}
			folio_unlock(mm_folio(w->mm, pf[got]));
			got++;
			w->allocs++;
		}
		for (unsigned i = 0; i < got; i++) {
			sws__mm_folio_free(cpu, w->mm, pf[i]);
			atomic_fetch_sub(w->held, 1);
		}
	}
	sws_cpu_detach(cpu);
	return NULL;
}

static void test_pcp_lists_never_fail(void **state)
{
	(void)state;
	struct sws_sim *sim;
	struct sws_mm *mm;
	struct sws_sim_config cfg = {.max_cpus = 4};
	assert_sws(0, sws_sim_create(&cfg, &sim));
	struct sws_mm_config mc = {.ram_pages = 1000};
	assert_sws(0, sws_mm_create(sim, &mc, &mm));
	_Atomic long held = 0;
	/* About the same length of work each, so the two mostly overlap. */
	struct pcp_worker w[2] = {{sim, mm, &held, 200, 15000, 0, 0, 0}, {sim, mm, &held, 1000, 3000, 0, 0, 0}};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, pcp_worker_main, &w[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(w[0].attach_rc, 0);
	assert_int_equal(w[1].attach_rc, 0);
	assert_true(w[0].allocs > 0 && w[1].allocs > 0);
	assert_int_equal(w[0].fails + w[1].fails, 0);
	struct sws_mm_stats s;
	sws_mm_stats_get(mm, &s);
	assert_int_equal(s.free_pages, 1000);
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
}

/* ---- the page cache on two CPUs ------------------------------------------------------ */

/*
 * Two threads read and write overlapping ranges of the same three files
 * (and write some anonymous pages of their own) as two tasks of one memcg
 * limited to 200 pages, so that each one's misses reclaim (evict, write
 * back) pages the other is reading or writing: both miss the same page at
 * once (one folio stays, the other's goes back), a write dirties a page
 * reclaim has isolated, refaults race evictions; memory.reclaim and kswapd
 * run too. No call fails; every read miss is one pgpgin_file and nothing
 * else is; a page is written back at most as often as it was dirtied; the
 * limit holds, and every page left cached can be reclaimed; teardown leaves
 * nothing (ASan) and TSan sees no race.
 */
#define FC_FILES 3
#define FC_PAGES 256  /* per file: the three hold 768 pages against a limit of 200 */
#define FC_LIMIT 200
#define FC_ROUNDS 4000

struct fc_shared {
	struct sws_sim *sim;
	struct sws_mm *mm;
	uint16_t memcg;
	pthread_barrier_t start;
};

struct fc_worker {
	struct fc_shared *sh;
	unsigned id;
	int rc;
	uint64_t read_missed, write_missed, pages_read, pages_written;
};

static void *fc_worker_main(void *arg)
{
	struct fc_worker *w = arg;
	struct fc_shared *sh = w->sh;
	struct sws_cpu *cpu = NULL;
	uint32_t asid = 0;
	w->rc = sws_cpu_attach(sh->sim, &cpu);
	if (!w->rc)
		w->rc = sws_mm_space_create(sh->mm, sh->memcg, &asid);
	pthread_barrier_wait(&sh->start);
	uint64_t seed = 4242 + w->id;
	for (int i = 0; i < FC_ROUNDS && !w->rc; i++) {
		uint64_t r = sws_test_rand(&seed);
		uint32_t file = (uint32_t)(r % FC_FILES);
		uint64_t index = (r >> 8) % FC_PAGES, nr = 1 + (r >> 20) % 8;
		if (index + nr > FC_PAGES)
			nr = FC_PAGES - index;
		switch ((r >> 32) % 32) {
		case 0:
			sws_mm_reclaim(cpu, sh->mm, sh->memcg, 16);
			break;
		case 1:
			sws_mm_kswapd(cpu, sh->mm, 32);
			sws_swap_do_deferred_work(sh->sim, 4);
			break;
		case 2:
		case 3: { /* anonymous pages: reclaim swaps too (SCAN_FRACT) */
			int rc = sws_mm_access(cpu, sh->mm, asid, PG((r >> 40) % 48), r & 1);
			if (rc < 0)
				w->rc = rc;
			break;
		}
		default: {
			bool write = ((r >> 40) & 3) == 0;
			int64_t missed = sws_mm_file_io(cpu, sh->mm, asid, file, index, nr, write);
			if (missed < 0 || (uint64_t)missed > nr) {
				w->rc = missed < 0 ? (int)missed : SWS_EINVAL;
				break;
			}
			if (write) {
				w->write_missed += (uint64_t)missed;
				w->pages_written += nr;
			} else {
				w->read_missed += (uint64_t)missed;
				w->pages_read += nr;
			}
		}
		}
	}
	if (!w->rc)
		w->rc = sws_mm_exit(cpu, sh->mm, asid);
	sws_cpu_detach(cpu);
	return NULL;
}

static void test_page_cache_two_cpus(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct fc_shared sh;
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &sh.sim));
	int type;
	struct sws_device_config dc = {.nr_slots = 1024, .flags = SWS_SWP_SOLIDSTATE};
	assert_sws(0, sws_swapon(sh.sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = 2048, .seed = 3};
	assert_sws(0, sws_mm_create(sh.sim, &mc, &sh.mm));
	assert_sws(0, sws_mm_memcg_create(sh.mm, FC_LIMIT, &sh.memcg));
	pthread_barrier_init(&sh.start, NULL, 2);
	pthread_t t[2];
	struct fc_worker w[2];
	for (unsigned i = 0; i < 2; i++) {
		w[i] = (struct fc_worker){.sh = &sh, .id = i};
		pthread_create(&t[i], NULL, fc_worker_main, &w[i]);
	}
	for (unsigned i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&sh.start);
	for (unsigned i = 0; i < 2; i++)
		if (w[i].rc)
			fail_msg("%s: worker %u: %s", sws_backend_name(b), i, sws_error_name(w[i].rc));
	struct sws_mm_stats s;
	sws_mm_stats_get(sh.mm, &s);
	uint64_t read_missed = w[0].read_missed + w[1].read_missed;
	uint64_t write_missed = w[0].write_missed + w[1].write_missed;
	uint64_t pages = w[0].pages_read + w[1].pages_read + w[0].pages_written + w[1].pages_written;
	print_message("%s: %llu pages read/written, %llu read misses, %llu write misses; pgsteal_file %llu "
		      "nr_written %llu refaults %llu (%llu activated) pswpout %llu\n",
		      sws_backend_name(b), (unsigned long long)pages, (unsigned long long)read_missed,
		      (unsigned long long)write_missed, (unsigned long long)s.counters[SWS_MM_pgsteal_file],
		      (unsigned long long)s.counters[SWS_MM_nr_written],
		      (unsigned long long)s.counters[SWS_MM_workingset_refault_file],
		      (unsigned long long)s.counters[SWS_MM_workingset_activate_file],
		      (unsigned long long)s.counters[SWS_MM_pswpout]);
	/* each read miss read its page once, no more (a page both missed is one read) */
	assert_int_equal(s.counters[SWS_MM_pgpgin_file], read_missed);
	assert_true(read_missed > 0 && read_missed < w[0].pages_read + w[1].pages_read);
	/* every write miss dirtied its new page; hits dirtied clean pages at most once each */
	assert_true(s.counters[SWS_MM_nr_dirtied] >= write_missed);
	assert_true(s.counters[SWS_MM_nr_dirtied] <= w[0].pages_written + w[1].pages_written);
	assert_true(s.counters[SWS_MM_nr_written] <= s.counters[SWS_MM_nr_dirtied]);
	assert_true(s.counters[SWS_MM_nr_written] > 0);
	/* reclaim evicted page cache, and it came back */
	assert_true(s.counters[SWS_MM_pgsteal_file] > 0);
	assert_true(s.counters[SWS_MM_pgsteal_file] <= s.counters[SWS_MM_pgsteal]);
	assert_true(s.counters[SWS_MM_pgscan_file] >= s.counters[SWS_MM_pgsteal_file]);
	assert_true(s.counters[SWS_MM_workingset_refault_file] > 0);
	assert_true(s.counters[SWS_MM_workingset_refault_file] <= read_missed + write_missed);
	assert_true(s.counters[SWS_MM_workingset_activate_file] <= s.counters[SWS_MM_workingset_refault_file]);
	assert_true(s.counters[SWS_MM_pgalloc] >= read_missed + write_missed);
	/* the memcg limit held: the page cache left after both exited is within it */
	assert_true(s.ram_pages - s.free_pages <= FC_LIMIT);
	/* and all of it can be reclaimed: one folio per cached page, each its
	 * file's (a page two tasks missed together left no second folio behind) */
	struct sws_cpu *cpu;
	assert_sws(0, sws_cpu_attach(sh.sim, &cpu));
	for (int i = 0; i < 100 && sws_mm_reclaim(cpu, sh.mm, sh.memcg, UINT64_MAX / 2); i++)
		;
	sws_mm_stats_get(sh.mm, &s);
	assert_int_equal(s.free_pages, s.ram_pages);
	sws_cpu_detach(cpu);
	assert_consistent(sh.sim);
	sws_test_mm_destroy(sh.sim, sh.mm);
	sws_sim_destroy(sh.sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {ALL_DESIGNS(test_faults), ALL_DESIGNS(test_faults_zswap),
					   MT_DESIGN_TEST(test_vswap_zswap_writeback, vswap_v3),
					   MT_DESIGN_TEST(test_vswap_zswap_writeback, vswap), ALL_DESIGNS(test_oom_cow),
					   cmocka_unit_test(test_lock_contention_counted),
					   cmocka_unit_test(test_split_ptl),
					   cmocka_unit_test(test_pcp_lists_never_fail), ALL_DESIGNS(test_page_cache_two_cpus)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
