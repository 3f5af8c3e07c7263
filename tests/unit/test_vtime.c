/*
 * test_vtime.c - the modelled clock (docs/modelled-time.md): its event loop
 * against hand-computed virtual times (two CPUs and one lock, spinning and
 * sleeping), the cost file, and whole replays whose modelled time is the sum
 * of what they charged, identical from run to run; device queues against
 * their hand-computed waits.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/common/spinlock.h"
#include <sys/mman.h>

#include "../../lib/replay/fiber.h"
#include "../../lib/replay/replay_internal.h"
#include "../../lib/swap/swap_mm.h"
#include "testutil.h"

/* ---- the event loop ------------------------------------------------------------- */

/* A cost table with nothing but what a case sets. */
static struct sws_costs zero_costs(void)
{
	struct sws_costs c;
	memset(&c, 0, sizeof(c));
	c.llc_bytes = 1 << 20;
	return c;
}

struct two {
	struct sws__sched s;
	unsigned n;           /* CPUs: 2, or 3 (three_case) */
	struct sws_vcpu vc[3];
	struct sws__vcpu_run run[3];
	sws_spinlock_t lock;
	pthread_mutex_t mutex;
	bool sleep;           /* take the mutex (a sleeping lock) instead of the spinlock */
	uint64_t before[3];   /* page_zero units charged before the lock */
	uint64_t at_lock[3];  /* virtual time just after taking it */
	bool waited[3];
	bool done[3];
};

static struct two *the_two;

static void body(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;
	struct two *t = the_two;
	struct sws_vcpu *vc = &t->vc[i];
	sws__vt_charge(vc, SWS_COST_page_zero, t->before[i]);
	if (t->sleep) {
		uint64_t t0 = vc->now;
		sws_mutex_lock(&t->mutex);
		t->waited[i] = vc->now != t0;
	} else {
		t->waited[i] = sws_spin_lock(&t->lock);
	}
	t->at_lock[i] = vc->now;
	sws__vt_charge(vc, SWS_COST_page_copy, 1); /* the work done under the lock */
	if (t->sleep)
		sws_mutex_unlock(&t->mutex);
	else
		sws_spin_unlock(&t->lock);
	t->done[i] = true;
	for (;;)
		sws__sched_idle(&t->run[i]);
}

/* CPU i does @b0 / @b1 units of page_zero work before it asks for the lock. */
static struct two *two_case(bool sleep, uint64_t b0, uint64_t b1)
{
	static struct two t;
	memset(&t, 0, sizeof(t));
	t.n = 2;
	t.sleep = sleep;
	t.before[0] = b0;
	t.before[1] = b1;
	return &t;
}

/* Three CPUs and the spinlock: CPU i does @b[i] units of page_zero work first. */
static struct two *three_case(uint64_t b0, uint64_t b1, uint64_t b2)
{
	struct two *t = two_case(false, b0, b1);
	t->n = 3;
	t->before[2] = b2;
	return t;
}

static void run_two(struct two *t, const struct sws_costs *costs)
{
	struct sws_mem mem;
	sws__mem_init(&mem, NULL);
	the_two = t;
	sws_spin_init(&t->lock);
	pthread_mutex_init(&t->mutex, NULL);
	assert_sws(0, sws__sched_init(&t->s, &mem, t->n, 0));
	for (unsigned i = 0; i < t->n; i++) {
		memset(&t->vc[i], 0, sizeof(t->vc[i]));
		assert_sws(0, sws__sched_add(&t->s, i, &t->run[i], &t->vc[i], costs, 256 << 10, body,
					     (void *)(uintptr_t)i));
		sws__sched_wake(&t->run[i]);
	}
	sws__sched_run(&t->s, NULL, NULL);
	for (unsigned i = 0; i < t->n; i++)
		assert_true(t->done[i]);
	assert_false(sws_spin_is_locked(&t->lock));
	sws__sched_fini(&t->s);
	pthread_mutex_destroy(&t->mutex);
}

/*
 * Two CPUs, one spinlock. page_zero 100 ps, page_copy 1000 ps, lock 10 ps,
 * line_transfer 5 ps. CPU 0 works 100 ps, takes the lock at 100 (paid: 110),
 * holds it for the 1000 ps of its work and releases it at 1110. CPU 1 works
 * 300 ps and asks for it at 300: it spins until 1110 (810 ps waited), takes
 * it (10 ps, and 5 ps for the line CPU 0 held last: 1125), works, releases
 * it at 2125. Its spin is busy time: it was never idle.
 */
static void test_two_cpus_one_lock(void **state)
{
	(void)state;
	struct sws_costs c = zero_costs();
	c.ps[SWS_COST_page_zero] = 100;
	c.ps[SWS_COST_page_copy] = 1000;
	c.ps[SWS_COST_lock] = 10;
	c.ps[SWS_COST_line_transfer] = 5;
	struct two *t = two_case(false, 1, 3);
	run_two(t, &c);
	assert_false(t->waited[0]);
	assert_true(t->waited[1]);
	assert_int_equal(t->at_lock[0], 110);
	assert_int_equal(t->at_lock[1], 1125);
	assert_int_equal(t->vc[0].now, 1110);
	assert_int_equal(t->vc[1].now, 2125);
	assert_int_equal(t->vc[1].lock_wait[SWS_LOCK_other], 810);
	assert_int_equal(t->vc[1].lock_waits[SWS_LOCK_other], 1);
	assert_int_equal(t->vc[0].lock_waits[SWS_LOCK_other], 0);
	assert_int_equal(t->vc[1].spin, 810);
	assert_int_equal(sws__vt_busy(&t->vc[1]), 2125); /* spinning is work */
	assert_int_equal(t->vc[1].line_transfers, 1);
	assert_int_equal(t->vc[0].line_transfers, 0);
	assert_int_equal(sws__vt_charged(&t->vc[1], SWS_COST_line_transfer), 5);
	assert_int_equal(t->vc[1].count[SWS_COST_lock], 1);
}

/*
 * The same with a mutex, a sleeping lock: CPU 1 sleeps from 300 until the
 * release at 1100 (mutexes cost no lock class here), idle meanwhile: busy
 * 300 + 1000.
 */
static void test_two_cpus_one_mutex(void **state)
{
	(void)state;
	struct sws_costs c = zero_costs();
	c.ps[SWS_COST_page_zero] = 100;
	c.ps[SWS_COST_page_copy] = 1000;
	struct two *t = two_case(true, 1, 3);
	run_two(t, &c);
	assert_true(t->waited[1]);
	assert_int_equal(t->at_lock[0], 100);
	assert_int_equal(t->at_lock[1], 1100);
	assert_int_equal(t->vc[1].now, 2100);
	assert_int_equal(sws__vt_busy(&t->vc[1]), 1300);
	assert_int_equal(t->vc[1].spin, 0);
}

/* A CPU that asks for the lock before the holder took it in virtual time is
 * not made to wait: CPU 1 (10 ps of work) takes it first, CPU 0 (100 ps) waits
 * for CPU 1's release at 1010 + lock costs. */
static void test_virtual_time_order(void **state)
{
	(void)state;
	struct sws_costs c = zero_costs();
	c.ps[SWS_COST_page_zero] = 10;
	c.ps[SWS_COST_page_copy] = 1000;
	struct two *t = two_case(false, 10, 1);
	run_two(t, &c);
	assert_false(t->waited[1]);
	assert_true(t->waited[0]);
	assert_int_equal(t->at_lock[1], 10);
	assert_int_equal(t->at_lock[0], 1010);
	assert_int_equal(t->vc[0].lock_wait[SWS_LOCK_other], 910);
}

/*
 * Waiters take a released lock in the order they asked for it (virtual
 * time), not in CPU order. Costs as above; CPU 0 takes the lock at 100 (paid:
 * 110) and releases it at 1110; CPU 2 asks at 300, CPU 1 at 500. CPU 2 goes
 * first: 1110 + 10 + 5 (the line CPU 0 held) = 1125, release at 2125 (810 ps
 * waited); then CPU 1: 2125 + 15 = 2140 (1625 ps waited), release at 3140.
 */
static void test_waiters_in_order(void **state)
{
	(void)state;
	struct sws_costs c = zero_costs();
	c.ps[SWS_COST_page_zero] = 100;
	c.ps[SWS_COST_page_copy] = 1000;
	c.ps[SWS_COST_lock] = 10;
	c.ps[SWS_COST_line_transfer] = 5;
	struct two *t = three_case(1, 5, 3);
	run_two(t, &c);
	assert_int_equal(t->at_lock[0], 110);
	assert_int_equal(t->at_lock[2], 1125);
	assert_int_equal(t->at_lock[1], 2140);
	assert_int_equal(t->vc[2].lock_wait[SWS_LOCK_other], 810);
	assert_int_equal(t->vc[1].lock_wait[SWS_LOCK_other], 1625);
	assert_int_equal(t->vc[1].now, 3140);
	assert_int_equal(sws__vt_busy(&t->vc[1]), 3140); /* spinning all along */
}

/*
 * A release at virtual time 0 wakes the lock's waiter. page_zero 1 ps, every
 * other cost 0, quantum 1000 ps. CPU 0 takes the lock at 0, works 2000 ps and
 * passes the others' horizon holding it; CPUs 1 and 2 ask for it at 0 and
 * wait. CPU 0 releases it at 2000, which wakes CPU 1 (the first to ask; it
 * goes on at 2000). CPU 3, woken then at the global time 0 (CPU 2's), takes
 * the free lock at 0 and releases it at 0: CPU 2 takes it at 0, before CPU 1.
 */
static struct {
	struct sws__sched s;
	struct sws_vcpu vc[4];
	struct sws__vcpu_run run[4];
	sws_spinlock_t lock;
	uint64_t at_lock[4];
	bool released;
} zt;

static void zero_time_body(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;
	struct sws_vcpu *vc = &zt.vc[i];
	sws_spin_lock(&zt.lock);
	zt.at_lock[i] = vc->now;
	if (i == 0) {
		sws__vt_charge(vc, SWS_COST_page_zero, 2000);
		sws__vt_sync(vc); /* past the horizon: CPUs 1 and 2 run and wait */
	}
	sws_spin_unlock(&zt.lock);
	zt.released |= i == 0;
	for (;;)
		sws__sched_idle(&zt.run[i]);
}

static bool zero_time_released(const void *arg)
{
	(void)arg;
	return zt.released;
}

static void test_release_at_time_zero(void **state)
{
	(void)state;
	struct sws_costs c = zero_costs();
	c.ps[SWS_COST_page_zero] = 1;
	struct sws_mem mem;
	sws__mem_init(&mem, NULL);
	memset(&zt, 0, sizeof(zt));
	sws_spin_init(&zt.lock);
	assert_sws(0, sws__sched_init(&zt.s, &mem, 4, 1000));
	for (unsigned i = 0; i < 4; i++)
		assert_sws(0, sws__sched_add(&zt.s, i, &zt.run[i], &zt.vc[i], &c, 256 << 10, zero_time_body,
					     (void *)(uintptr_t)i));
	for (unsigned i = 0; i < 3; i++)
		sws__sched_wake(&zt.run[i]);
	sws__sched_run(&zt.s, zero_time_released, NULL);
	assert_int_equal(zt.vc[2].now, 0); /* still waiting */
	sws__sched_wake(&zt.run[3]);
	assert_int_equal(zt.vc[3].now, 0);
	sws__sched_run(&zt.s, NULL, NULL);
	assert_int_equal(zt.at_lock[0], 0);
	assert_int_equal(zt.at_lock[3], 0);
	assert_int_equal(zt.at_lock[2], 0);
	assert_int_equal(zt.at_lock[1], 2000);
	assert_false(sws_spin_is_locked(&zt.lock));
	sws__sched_fini(&zt.s);
}

/*
 * The LLC model: random loads into a footprint of 4 MiB with a 1 MiB cache
 * miss 1 - 1/4 of the time (750,000 per million). load_hit 10 ps, load_miss
 * 110 ps: a walk of 3 loads costs 3 x 10 + (110 - 10) x 0.75 = 105 ps, the 75
 * of misses counted as load_miss. A footprint that fits misses never: 2 loads,
 * 20 ps more.
 */
static void test_llc_model(void **state)
{
	(void)state;
	struct sws_costs c = zero_costs(); /* llc_bytes 1 MiB */
	c.ps[SWS_COST_load_hit] = 10;
	c.ps[SWS_COST_load_miss] = 110;
	struct sws_vcpu vc;
	memset(&vc, 0, sizeof(vc));
	vc.costs = &c;
	sws__vt_set_footprint(&vc, 4 << 20);
	assert_int_equal(vc.llc_miss_ppm, 750000);
	sws__vt_loads(&vc, 3);
	assert_int_equal(vc.now, 105);
	assert_int_equal(sws__vt_busy(&vc), 105);
	assert_int_equal(sws__vt_charged(&vc, SWS_COST_load_hit), 30);
	assert_int_equal(sws__vt_charged(&vc, SWS_COST_load_miss), 75);
	assert_int_equal(vc.count[SWS_COST_load_hit], 3);
	sws__vt_set_footprint(&vc, 1 << 20);
	assert_int_equal(vc.llc_miss_ppm, 0);
	sws__vt_loads(&vc, 2);
	assert_int_equal(vc.now, 125);
	assert_int_equal(sws__vt_charged(&vc, SWS_COST_load_miss), 75);
}

/* ---- the cost file ---------------------------------------------------------------- */

static int to_buf(void *ctx, const char *text, size_t len)
{
	char *b = ctx;
	size_t l = strlen(b);
	assert_true(l + len < 16384);
	memcpy(b + l, text, len);
	b[l + len] = 0;
	return 0;
}

static void test_cost_file(void **state)
{
	(void)state;
	struct sws_costs c, d;
	char err[256];
	static char buf[16384];
	sws_costs_default(&c);
	/* derived classes follow their formulas */
	assert_int_equal(c.ps[SWS_COST_kernel_entry], c.ps[SWS_COST_syscall]);
	assert_int_equal(c.ps[SWS_COST_lru_move], 4 * c.ps[SWS_COST_load_hit]);
	assert_int_equal(c.ps[SWS_COST_rmap], c.ps[SWS_COST_atomic] + c.ps[SWS_COST_load_hit]);
	/* printed and read back: the same table */
	c.ps[SWS_COST_lock] = 12345;
	c.llc_bytes = 777;
	buf[0] = 0;
	assert_int_equal(sws_costs_print(&c, "a header\nof two lines", to_buf, buf), 0);
	assert_non_null(strstr(buf, "# a header\n# of two lines\n"));
	sws_costs_default(&d);
	assert_sws(0, sws_costs_parse(&d, buf, strlen(buf), err, sizeof(err)));
	assert_memory_equal(&c, &d, sizeof(c));
	/* a primitive given, its derived classes left out: they follow it */
	const char *f = "# comment\n\nload_hit 1000   # ps\n";
	assert_sws(0, sws_costs_parse(&d, f, strlen(f), err, sizeof(err)));
	assert_int_equal(d.ps[SWS_COST_load_hit], 1000);
	assert_int_equal(d.ps[SWS_COST_lru_move], 4000);
	assert_int_equal(d.ps[SWS_COST_pt_level], 1000);
	/* bad lines name the line */
	const char *bad[][2] = {
		{"lock 10\nnosuch 5\n", "line 2: unknown cost class 'nosuch'"},
		{"lock ten\n", "line 1: expected 'name picoseconds', got 'lock ten'"},
		{"lock 1\nlock 2\n", "line 2: given twice: 'lock'"},
		{"llc_bytes 0\n", "line 1: must be at least 1: 'llc_bytes'"},
		{"lock -3\n", "line 1: expected 'name picoseconds', got 'lock -3'"},
		/* 1e18 ps a lock wrapped a usemem 1M run's time to 16837455 s */
		{"lock 1000000000000000000\n",
		 "line 1: above the limit of 1000000000 ps (1 ms) a unit, where the run's times could wrap: "
		 "'lock 1000000000000000000'"},
		{"lock 10\ncompress_lz4_text 1000000001\n",
		 "line 2: above the limit of 1000000000 ps (1 ms) a unit, where the run's times could wrap: "
		 "'compress_lz4_text 1000000001'"},
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_sws(SWS_EINVAL, sws_costs_parse(&d, bad[i][0], strlen(bad[i][0]), err, sizeof(err)));
		assert_string_equal(err, bad[i][1]);
	}
	const char *at_limit = "lock 1000000000\n";
	assert_sws(0, sws_costs_parse(&d, at_limit, strlen(at_limit), err, sizeof(err)));
	assert_int_equal(d.ps[SWS_COST_lock], SWS_COST_MAX_PS);
	enum sws_cost k;
	assert_sws(0, sws_cost_parse("tlb_shootdown", &k));
	assert_int_equal(k, SWS_COST_tlb_shootdown);
	assert_sws(SWS_EINVAL, sws_cost_parse("nope", &k));
	assert_string_equal(sws_cost_name(SWS_NR_COSTS), "");
	assert_string_equal(sws_lock_class_name(SWS_LOCK_xa), "xa");
}

/* ---- whole replays --------------------------------------------------------------- */

#define REC(op_, pid_, addr_, len_, fl_) SWS_TEST_REC(op_, pid_, addr_, len_, 0, fl_)

/*
 * Four pages written by one process, then its exit, on two designs. Only
 * kernel_entry (1 ns), page_zero (100 ns) and the user time (1 us a page) cost
 * anything: the mmap, four faults and the exit enter the kernel, four pages
 * are zeroed, four touched. Elapsed: 6 x 1 + 4 x 100 + 4 x 1000 = 4406 ns, on
 * either design (no swap).
 */
static void test_small_case_by_hand(void **state)
{
	(void)state;
	const struct sws_trace_record recs[] = {
		REC(SWS_TRACE_MMAP, 7, 0x400000, 4 * 4096, 0),
		REC(SWS_TRACE_ACCESS, 7, 0x400000, 4 * 4096, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_EXIT, 7, 0, 0, 0),
	};
	enum sws_backend designs[2] = {SWS_BACKEND_XARRAY, SWS_BACKEND_ST_P4};
	struct sws_costs c = zero_costs();
	c.ps[SWS_COST_kernel_entry] = 1000;
	c.ps[SWS_COST_page_zero] = 100000;
	for (int d = 0; d < 2; d++) {
		struct sws_replay_config cfg = {.backend = designs[d], .ram_pages = 1024, .cpus = 1, .costs = &c,
						.user_bandwidth = 4096000000ull /* 1 us a page */};
		struct sws_test_vec vs = {recs, 3, 0};
		struct sws_replay_source src = {.next = sws_test_vec_next, .ctx = &vs};
		struct sws_replay *r;
		struct sws_replay_report rep;
		assert_sws(0, sws_replay_create(&cfg, &r));
		assert_sws(0, sws_replay_run(r, &src));
		assert_sws(0, sws_replay_report_get(r, &rep));
		assert_int_equal(rep.clock, SWS_REPLAY_CLOCK_MODEL);
		assert_int_equal(rep.model.cost_count[SWS_COST_kernel_entry], 6);
		assert_int_equal(rep.model.cost_count[SWS_COST_page_zero], 4);
		assert_int_equal(rep.time.user_ns, 4000);
		assert_int_equal(rep.time.elapsed_ns, 4406);
		assert_int_equal(rep.time.sys_ns + rep.time.user_ns, 4406);
		assert_int_equal(rep.model.busy_ps, 4406000);
		sws_replay_destroy(r);
	}
}

/* The report's time is what its classes charged: busy = the cost classes'
 * picoseconds (each count x its cost) + spinning + device work + user. */
static void check_sum(const struct sws_replay_report *rep, const struct sws_costs *c)
{
	uint64_t sum = rep->model.spin_ps + rep->model.device_cpu_ps + rep->model.user_ps;
	for (unsigned k = 0; k < SWS_NR_COSTS; k++) {
		if (k != SWS_COST_load_hit && k != SWS_COST_load_miss) /* the LLC model splits loads */
			assert_int_equal(rep->model.cost_ps[k], rep->model.cost_count[k] * c->ps[k]);
		sum += rep->model.cost_ps[k];
	}
	assert_int_equal(rep->model.busy_ps, sum);
}

static void run_usemem(enum sws_backend b, uint32_t cpus, struct sws_replay_report *rep)
{
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 2 << 20, .nr_tasks = 4};
	struct sws_replay_config cfg = {.backend = b, .ram_pages = 4096, .mem_limit_pages = 1024, .cpus = cpus,
					.nr_swap = 1};
	cfg.swap[0] = (struct sws_replay_swap){.pages = 8192, .kind = SWS_REPLAY_SWAP_PMEM, .prio = -1};
	struct sws_workload *wl;
	struct sws_replay *r;
	assert_sws(0, sws_workload_create(&wc, &wl));
	sws_workload_content(wl, cfg.content_weight);
	struct sws_replay_source src = sws_workload_source(wl);
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, rep));
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
}

/* Four tasks swapping in one memcg on four CPUs: twice the same figures, to
 * the picosecond; the time is the sum of what was charged; the xa_lock is
 * waited for on 6.17 only, whose swap cache has it. */
static void test_deterministic_contended(void **state)
{
	(void)state;
	static struct sws_replay_report a, b, x;
	struct sws_costs c;
	sws_costs_default(&c);
	run_usemem(SWS_BACKEND_ST_P1, 4, &a);
	run_usemem(SWS_BACKEND_ST_P1, 4, &b);
	assert_true(a.mm.counters[SWS_MM_pswpout] > 500);
	assert_memory_equal(&a.model, &b.model, sizeof(a.model));
	assert_memory_equal(&a.time, &b.time, sizeof(a.time));
	assert_true(sws_replay_counters_equal(&a, &b));
	assert_int_equal(a.cpus, 4);
	check_sum(&a, &c);
	assert_true(a.model.lock_waits[SWS_LOCK_lru] > 0); /* one memcg: one lruvec */
	assert_int_equal(a.model.lock_waits[SWS_LOCK_xa], 0);
	run_usemem(SWS_BACKEND_XARRAY, 4, &x);
	check_sum(&x, &c);
	assert_true(x.model.lock_waits[SWS_LOCK_xa] > 0);
	/* elapsed: the last CPU's end; the tasks ran in parallel */
	assert_true(a.time.elapsed_ns < a.time.sys_ns + a.time.user_ns);
}

/*
 * Device queues (docs/modelled-time.md "Devices with queues"): one task
 * writing 8 MiB through a 1 MiB memcg onto an SSD whose writes take 25 us,
 * with every CPU cost zero and the user time too. The CPU's clock moves only
 * when the reclaimer waits for a free queue slot, so the k-th write (from 0)
 * starts at floor(k / qd) x 25 us and the task ends when it submits its last:
 * elapsed = floor((pswpout - 1) / qd) x 25 us, all of it I/O wait. At qd 1
 * every write waits for the one before (the host clock's upper bound); at 32
 * they overlap (1,792 writes: 44.775, 11.175 and 1.375 ms at qd 1, 4 and 32).
 */
static void run_queue(uint32_t qd, struct sws_replay_report *rep)
{
	struct sws_costs c = zero_costs();
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 8 << 20, .nr_tasks = 1};
	struct sws_replay_config cfg = {.ram_pages = 8192, .mem_limit_pages = 256, .cpus = 1, .nr_swap = 1,
					.costs = &c, .user_bandwidth = 1ull << 62 /* 0 ns a page */};
	cfg.swap[0] = (struct sws_replay_swap){.pages = 8192, .kind = SWS_REPLAY_SWAP_SSD, .prio = -1,
					       .write_ns = 25000, .queue_depth = qd};
	struct sws_workload *wl;
	struct sws_replay *r;
	assert_sws(0, sws_workload_create(&wc, &wl));
	sws_workload_content(wl, cfg.content_weight);
	struct sws_replay_source src = sws_workload_source(wl);
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, rep));
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
}

static void test_device_queue(void **state)
{
	(void)state;
	static struct sws_replay_report rep;
	const uint32_t qds[] = {1, 4, 32};
	for (unsigned i = 0; i < 3; i++) {
		run_queue(qds[i], &rep);
		uint64_t n = rep.mm.counters[SWS_MM_pswpout];
		assert_true(n > 1000);
		assert_int_equal(rep.time.elapsed_ns, (n - 1) / qds[i] * 25000);
		assert_int_equal(rep.time.iowait_ns, rep.time.elapsed_ns);
	}
}

/*
 * The queue itself (sws__device_submit()), depth 3, requests of unequal
 * service times: each takes the slot that frees first and starts then, or at
 * its submission when one is free already. Slots free at {0, 0, 0}:
 *   t 0,  100 ps: starts 0, ends 100;  slots {0, 0, 100}
 *   t 0,   50:     0,  50;                   {0, 50, 100}
 *   t 0,   10:     0,  10;                   {10, 50, 100}
 *   t 0,    5:    10,  15 (waits for 10);    {15, 50, 100}
 *   t 20,   1:    20,  21;                   {21, 50, 100}
 *   t 20, 200:    21, 221;                   {50, 100, 221}
 *   t 30,  60:    50, 110 (ends between);    {100, 110, 221}
 *   t 30,   1:   100, 101 (ends first);      {101, 110, 221}
 *   t 300,  7:   300, 307 (all free);        {110, 221, 307}
 *   t 300,  1:   300, 301;                   {221, 301, 307}
 *   t 300,  1:   300, 301;                   {301, 301, 307}
 *   t 300,  2:   301, 303.
 */
static void test_device_queue_order(void **state)
{
	(void)state;
	struct sws_sim_config scfg = {.backend = SWS_BACKEND_ST_P4};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type;
	assert_sws(0, sws_sim_create(&scfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &cpu));
	struct sws_device_config dc = {.nr_slots = SWS_CLUSTER_SLOTS, .flags = SWS_SWP_SOLIDSTATE};
	assert_sws(0, sws_swapon(sim, &dc, &type));
	assert_sws(0, sws_device_set_queue(sim, type, 3));
	struct sws_costs c = zero_costs();
	const uint64_t never = UINT64_MAX;
	const unsigned none = 0;
	struct sws_vcpu vc;
	memset(&vc, 0, sizeof(vc));
	vc.costs = &c;
	vc.horizon = &never;
	vc.nr_blocked = &none;
	vc.limit = &never;
	sws__cpu_set_vcpu(cpu, &vc);
	static const uint64_t req[][4] = {
		/* submitted at, service, start, end */
		{0, 100, 0, 100}, {0, 50, 0, 50},    {0, 10, 0, 10},     {0, 5, 10, 15},
		{20, 1, 20, 21},  {20, 200, 21, 221}, {30, 60, 50, 110},  {30, 1, 100, 101},
		{300, 7, 300, 307}, {300, 1, 300, 301}, {300, 1, 300, 301}, {300, 2, 301, 303},
	};
	for (unsigned i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		uint64_t start = 0;
		vc.now = req[i][0];
		assert_int_equal(sws__device_submit(cpu, (unsigned)type, req[i][1], &start), req[i][3]);
		assert_int_equal(start, req[i][2]);
	}
	sws__cpu_set_vcpu(cpu, NULL);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
}

static uint64_t counting_clock(void *ctx)
{
	uint64_t *n = ctx;
	return ++*n * 1000;
}

/* The modelled clock reads no host clock per event: a replay of thousands of
 * faults and swap-outs reads the injected clock at its start and end only (the
 * host wall time it reports). */
static void test_no_host_clock(void **state)
{
	(void)state;
	uint64_t reads = 0;
	struct sws_env env = {.clock_ns = counting_clock, .clock_ctx = &reads};
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 2 << 20, .nr_tasks = 2};
	struct sws_replay_config cfg = {.ram_pages = 1024, .mem_limit_pages = 256, .cpus = 2, .env = &env};
	struct sws_workload *wl;
	struct sws_replay *r;
	struct sws_replay_report rep;
	assert_sws(0, sws_workload_create(&wc, &wl));
	struct sws_replay_source src = sws_workload_source(wl);
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_true(rep.mm.counters[SWS_MM_pswpout] > 500);
	assert_true(reads <= 2);
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
}

/* ---- the fibers ------------------------------------------------------------------ */

struct parked {
	struct sws__fiber main, f;
};

/* Switches back for good from inside a frame whose array AddressSanitizer
 * guards with poisoned redzones. */
static void park_in_frame(void *arg)
{
	struct parked *p = arg;
	volatile char buf[512];
	buf[0] = 1;
	buf[sizeof(buf) - 1] = buf[0];
	sws__fiber_switch(&p->f, &p->main);
	__builtin_trap();
}

/* A fiber destroyed while parked leaves its stack's memory as fresh memory:
 * whatever is mapped at that address next is written without a report (under
 * ASan the parked frame's redzones must not outlive the stack). */
static void test_fiber_parked_stack_reused(void **state)
{
	(void)state;
	struct parked p;
	sws__fiber_main(&p.main);
	assert_int_equal(0, sws__fiber_create(&p.f, 64 << 10, park_in_frame, &p));
	sws__fiber_switch(&p.main, &p.f);
	uint8_t *base = p.f.stack.base;
	size_t len = p.f.stack.reserved;
	sws__fiber_destroy(&p.f);
	uint8_t *m = mmap(base, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		skip(); /* something else took the address meanwhile */
	assert_ptr_equal(base, m);
	for (size_t i = 0; i < len; i += sizeof(uint64_t))
		*(volatile uint64_t *)(m + i) = i;
	assert_int_equal(len - sizeof(uint64_t), *(volatile uint64_t *)(m + len - sizeof(uint64_t)));
	munmap(m, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cpus_one_lock),
		cmocka_unit_test(test_two_cpus_one_mutex),
		cmocka_unit_test(test_virtual_time_order),
		cmocka_unit_test(test_waiters_in_order),
		cmocka_unit_test(test_llc_model),
		cmocka_unit_test(test_cost_file),
		cmocka_unit_test(test_small_case_by_hand),
		cmocka_unit_test(test_deterministic_contended),
		cmocka_unit_test(test_device_queue),
		cmocka_unit_test(test_device_queue_order),
		cmocka_unit_test(test_release_at_time_zero),
		cmocka_unit_test(test_no_host_clock),
		cmocka_unit_test(test_fiber_parked_stack_reused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
