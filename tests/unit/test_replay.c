/*
 * test_replay.c - the replay driver: per-task ordering across worker threads,
 * determinism with one thread, usemem's output lines, --compare fault counts,
 * the JSON report's shape and the CSV time series; backing files the replay
 * created are removed at its end and when its creation fails.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "replay/replay_internal.h"
#include "testutil.h"
#include <swapsim/replay.h>

/* ---- helpers ----------------------------------------------------------------------- */

static struct sws_replay_config small_config(enum sws_backend backend, uint32_t threads)
{
	struct sws_replay_config cfg = {
		.version = SWS_REPLAY_CONFIG_VERSION,
		.threads = threads,
		.backend = backend,
		.ram_pages = 1024,      /* 4 MiB */
		.mem_limit_pages = 512, /* 2 MiB memcg */
		.seed = 42,
		.deferred_every = 64,
	};
	return cfg;
}

static void run_workload(const struct sws_replay_config *cfg, const struct sws_workload_config *wc,
			 struct sws_replay_report *rep, struct sws_test_buf *lines)
{
	struct sws_workload *wl;
	struct sws_replay *r;
	struct sws_replay_config c = *cfg;
	assert_sws(0, sws_workload_create(wc, &wl));
	sws_workload_content(wl, c.content_weight);
	assert_sws(0, sws_replay_create(&c, &r));
	struct sws_replay_source src = sws_workload_source(wl);
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(SWS_EINVAL, sws_replay_run(r, &src)); /* once per replay */
	assert_sws(0, sws_replay_report_get(r, rep));
	assert_sws(0, sws_workload_figures(wl, r, rep));
	assert_int_equal(rep->events, sws_workload_total(wl));
	assert_consistent(sws_replay_sim(r));
	if (lines)
		assert_sws(0, sws_workload_print_results(wl, r, sws_test_buf_write, lines));
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
}

/* ---- ordering across workers -------------------------------------------------------- */

#define NTIDS 16
#define PER_TID 400

struct order_src {
	uint64_t i;
};

/* Records of NTIDS tasks (one pid each), interleaved; CPUs change every 7 records, so
 * tasks migrate between workers; time_ns carries the task's own sequence number. */
static int order_next(void *ctx, struct sws_trace_record *rec)
{
	struct order_src *s = ctx;
	if (s->i == (uint64_t)NTIDS * PER_TID)
		return 0;
	uint64_t i = s->i++;
	memset(rec, 0, sizeof(*rec));
	rec->op = SWS_TRACE_ACCESS;
	rec->tid = (uint32_t)(i % NTIDS) + 100;
	rec->pid = rec->tid;
	rec->time_ns = i / NTIDS;
	rec->addr = 0x10000000ull + (i / NTIDS % 64) * 4096;
	rec->flags = (i & 1) ? SWS_TRACE_F_WRITE : 0;
	rec->cpu = (i / 7) % 3 == 0 ? SWS_TRACE_CPU_ANY : (uint32_t)((i / 7) % 5);
	return 1;
}

struct order_check {
	_Atomic uint64_t next[NTIDS];
	_Atomic uint64_t violations, seen;
};

static void order_hook(void *ctx, unsigned worker, const struct sws_trace_record *rec)
{
	struct order_check *c = ctx;
	(void)worker;
	unsigned t = rec->tid - 100;
	uint64_t want = atomic_load_explicit(&c->next[t], memory_order_relaxed);
	if (rec->time_ns != want)
		atomic_fetch_add(&c->violations, 1);
	atomic_store_explicit(&c->next[t], rec->time_ns + 1, memory_order_relaxed);
	atomic_fetch_add(&c->seen, 1);
}

/* Latency quantiles: the bucket holding the sample of that rank, capped by the maximum. */
static void test_hist_quantile(void **state)
{
	(void)state;
	struct sws_replay_hist h = {0};
	assert_int_equal(sws_replay_hist_quantile(&h, 0.5), 0);
	h.count = 2;
	h.bucket[0] = 1; /* 1 ns */
	h.bucket[9] = 1; /* 600 ns: bucket [512, 1024) */
	h.max_ns = 600;
	assert_int_equal(sws_replay_hist_quantile(&h, 0.0), 2);
	assert_int_equal(sws_replay_hist_quantile(&h, 0.49), 2);
	assert_int_equal(sws_replay_hist_quantile(&h, 0.5), 600); /* rank 1 of 0..1 */
	assert_int_equal(sws_replay_hist_quantile(&h, 1.0), 600);
	h.max_ns = 5000;
	assert_int_equal(sws_replay_hist_quantile(&h, 0.99), 1024);
}

static void test_task_order(void **state)
{
	(void)state;
	for (unsigned threads = 1; threads <= 4; threads += 3) {
		struct order_check chk;
		memset(&chk, 0, sizeof(chk));
		struct order_src os = {0};
		struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, threads);
		cfg.on_record = order_hook;
		cfg.cb_ctx = &chk;
		cfg.queue_depth = 64; /* small rings: the dispatcher blocks often */
		struct sws_replay *r;
		assert_sws(0, sws_replay_create(&cfg, &r));
		struct sws_replay_source src = {.next = order_next, .ctx = &os};
		assert_sws(0, sws_replay_run(r, &src));
		struct sws_replay_report rep;
		assert_sws(0, sws_replay_report_get(r, &rep));
		assert_int_equal(rep.events, NTIDS * PER_TID);
		assert_int_equal(atomic_load(&chk.seen), NTIDS * PER_TID);
		assert_int_equal(atomic_load(&chk.violations), 0);
		assert_int_equal(sws_replay_nr_tasks(r), NTIDS);
		assert_int_equal(rep.mm.counters[SWS_MM_pgfault] >= NTIDS * 64, true);
		sws_replay_destroy(r);
	}
}

/* ---- determinism -------------------------------------------------------------------- */

static void test_determinism(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_ZIPF, .bytes = 6 << 20, .nr_tasks = 3,
					 .nr_accesses = 20000, .write_pct = 40, .seed = 5};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.pages = 8192, .prio = -1};
	struct sws_replay_report a, b;
	run_workload(&cfg, &wc, &a, NULL);
	run_workload(&cfg, &wc, &b, NULL);
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		assert_int_equal(a.mm.counters[c], b.mm.counters[c]);
	assert_true(sws_replay_counters_equal(&a, &b));
	/* The work report is exact: identical too, and not empty. */
	assert_memory_equal(a.swap.work, b.swap.work, sizeof(a.swap.work));
	assert_true(a.swap.work[SWS_WCTX_swapout][SWS_WORK_lock_cluster] > 0);
	/* Modelled times are exact as well; measured ones are not. */
	assert_int_equal(a.time.iowait_ns, b.time.iowait_ns);
	assert_int_equal(a.time.user_ns, b.time.user_ns);
	assert_true(a.time.iowait_ns > 0 && a.time.sys_ns > 0);
	assert_true(a.mm.counters[SWS_MM_pswpout] > 0);
	assert_memory_equal(a.mm.swpout, b.mm.swpout, sizeof(a.mm.swpout));
	assert_memory_equal(a.swap.counters, b.swap.counters, sizeof(a.swap.counters));
	assert_int_equal(a.mm.anon_pages, b.mm.anon_pages);
	assert_int_equal(a.mm.free_pages, b.mm.free_pages);
	assert_int_equal(a.swap.nr_swap_pages, b.swap.nr_swap_pages);
	assert_int_equal(a.accesses, b.accesses);
	assert_int_equal(a.errors, b.errors);
	assert_memory_equal(a.memory.bytes, b.memory.bytes, sizeof(a.memory.bytes));
}

/* ---- kbuild ----------------------------------------------------------------------------- */

/*
 * The kernel-build workload's shape: make (pid 1000) maps its region and writes
 * its cold data and its own memory first; jobs (pids 1001.. in order), at most
 * -j at once, each map a heap, read their source and headers, touch only the
 * heap (or make's window), write their object, unmap and exit; make goes
 * last. Seeded: the same seed gives the same records.
 */
static uint64_t kbuild_walk(uint64_t seed, uint64_t cold, uint64_t *records)
{
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_KBUILD, .bytes = 4u << 20, .nr_tasks = 4,
					 .repeat = 3, .seed = seed, .cold_bytes = cold};
	struct sws_workload *wl;
	assert_sws(0, sws_workload_create(&wc, &wl));
	struct sws_replay_source src = sws_workload_source(wl);
	struct sws_trace_record rec;
	uint64_t n = 0, hash = 1469598103934665603ull, make_pages = 0, heap[4096] = {0}, hdrs[4096] = {0};
	uint64_t files = 0;
	uint32_t live = 0, max_live = 0, next_pid = 1001, last_pid = 0;
	uint64_t pages = (4u << 20) / SWS_PAGE_SIZE, front = cold / SWS_PAGE_SIZE + pages / 8;
	while (src.next(src.ctx, &rec) == 1) {
		hash = (hash ^ (rec.op * 31 + rec.pid * 7 + rec.addr + rec.flags + rec.arg)) * 1099511628211ull;
		if (n == 0) {
			assert_int_equal(rec.op, SWS_TRACE_MMAP);
			assert_int_equal(rec.pid, 1000);
			make_pages = rec.len / SWS_PAGE_SIZE;
			assert_int_equal(make_pages, front + 3 * (pages / 8));
		} else if (n <= front) { /* the cold data, then make's own memory, written in order */
			assert_int_equal(rec.op, SWS_TRACE_ACCESS);
			assert_int_equal(rec.pid, 1000);
			assert_int_equal(rec.addr, 0x7f0000000000ull + (n - 1) * SWS_PAGE_SIZE);
			assert_true(rec.flags & SWS_TRACE_F_WRITE);
		} else if (rec.pid == 1000) {
			if (rec.op == SWS_TRACE_ACCESS) /* a window access: past make's cold memory */
				assert_true((rec.addr - 0x7f0000000000ull) / SWS_PAGE_SIZE >= front &&
					    (rec.addr - 0x7f0000000000ull) / SWS_PAGE_SIZE < make_pages);
			else
				assert_int_equal(live, 0); /* make's MUNMAP and EXIT come last */
		} else {
			uint32_t j = rec.pid - 1001;
			assert_true(j < 4096);
			if (rec.op == SWS_TRACE_MMAP) {
				assert_int_equal(rec.pid, next_pid++);
				heap[j] = rec.len / SWS_PAGE_SIZE;
				max_live = ++live > max_live ? live : max_live;
			} else if (rec.op == SWS_TRACE_ACCESS) {
				assert_true(heap[j] && (rec.addr - 0x7f0000000000ull) / SWS_PAGE_SIZE < heap[j]);
				assert_int_equal(hdrs[j], heap[j] / 8 + 1); /* its headers were read first */
			} else if (rec.op == SWS_TRACE_FILE && rec.arg == 0) { /* a header page */
				assert_true(heap[j] && !(rec.flags & SWS_TRACE_F_WRITE) && rec.len == 0);
				assert_true(rec.addr / SWS_PAGE_SIZE < pages / 8);
				hdrs[j]++;
			} else if (rec.op == SWS_TRACE_FILE && rec.arg == 1 + 2 * j) { /* its source, read whole */
				assert_true(heap[j] && !(rec.flags & SWS_TRACE_F_WRITE));
				assert_int_equal(rec.len, (heap[j] / 8 + 1) * SWS_PAGE_SIZE);
				files++;
			} else if (rec.op == SWS_TRACE_FILE) { /* its object, written whole as it exits */
				assert_int_equal(rec.arg, 2 + 2 * j);
				assert_true(rec.flags & SWS_TRACE_F_WRITE);
				assert_int_equal(rec.len, (heap[j] / 4 + 1) * SWS_PAGE_SIZE);
				files++;
			} else if (rec.op == SWS_TRACE_EXIT) {
				heap[j] = 0;
				live--;
			}
		}
		last_pid = rec.pid;
		n++;
	}
	assert_int_equal(n, sws_workload_total(wl));
	assert_int_equal(last_pid, 1000);
	assert_int_equal(max_live, 4);
	assert_int_equal(live, 0);
	assert_true(next_pid > 1001 + 5); /* more jobs than slots: short-lived */
	assert_int_equal(files, 2 * (next_pid - 1001)); /* a source and an object each */
	*records = n;
	sws_workload_destroy(wl);
	return hash;
}

static void test_kbuild_workload(void **state)
{
	(void)state;
	uint64_t n1, n2, n3, n4;
	uint64_t a = kbuild_walk(5, 0, &n1), b = kbuild_walk(5, 0, &n2), c = kbuild_walk(6, 0, &n3);
	assert_int_equal(a, b);
	assert_int_equal(n1, n2);
	assert_true(a != c);
	kbuild_walk(5, 2u << 20, &n4);
	assert_int_equal(n4, n1 + 512); /* the cold data: 512 more writes */
	/* It replays, and nothing fails. */
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.flags = SWS_REPLAY_ZSWAP;
	cfg.zswap.flags = SWS_ZSWAP_SHRINKER;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_KBUILD, .bytes = 3u << 20, .seed = 1};
	struct sws_replay_report rep;
	run_workload(&cfg, &wc, &rep, NULL);
	assert_int_equal(rep.errors, 0);
	assert_true(rep.mm.counters[SWS_MM_zswpout] > 0 && rep.mm.counters[SWS_MM_zswpin] > 0);
	/* Its file I/O goes through the page cache: sources and headers read, objects written. */
	assert_true(rep.mm.counters[SWS_MM_pgpgin_file] > 0 && rep.mm.counters[SWS_MM_nr_dirtied] > 0);
	struct sws_workload_config bad = {.kind = SWS_WORKLOAD_ZIPF, .bytes = 1u << 20, .cold_bytes = 4096};
	struct sws_workload *wl;
	assert_sws(SWS_EINVAL, sws_workload_create(&bad, &wl)); /* cold data is kbuild's */
}

/*
 * Sizes and counts are bounded and never wrap: kbuild's -a beyond
 * SWS_WORKLOAD_MAX_ACCESSES, or making more than SWS_WORKLOAD_MAX_JOBS jobs,
 * is refused at once (it counted jobs ahead without end); a usemem step
 * beyond the size touches the first page of each pass (it wrapped to no
 * page at all and the run never ended); bgsave's total needs no loop over
 * a petabyte of pages.
 */
static void test_workload_bounds(void **state)
{
	(void)state;
	struct sws_workload *wl;
	struct sws_workload_config kb = {.kind = SWS_WORKLOAD_KBUILD, .bytes = 1u << 20,
					 .nr_accesses = UINT64_MAX};
	assert_sws(SWS_EINVAL, sws_workload_create(&kb, &wl));
	kb.nr_accesses = SWS_WORKLOAD_MAX_ACCESSES; /* allowed, but 2^40 accesses over 256 pages */
	assert_sws(SWS_EINVAL, sws_workload_create(&kb, &wl));
	kb.nr_accesses = 100000;
	assert_sws(0, sws_workload_create(&kb, &wl));
	sws_workload_destroy(wl);
	struct sws_workload_config um = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 1u << 20, .step = UINT64_MAX,
					 .repeat = 3};
	assert_sws(0, sws_workload_create(&um, &wl));
	assert_int_equal(sws_workload_total(wl), 3 + 3); /* MMAP, 3 touches, MUNMAP, EXIT */
	struct sws_replay_source src = sws_workload_source(wl);
	struct sws_trace_record rec;
	unsigned n = 0;
	while (n < 100 && src.next(src.ctx, &rec) == 1)
		n++;
	assert_int_equal(n, 6);
	sws_workload_destroy(wl);
	struct sws_workload_config bg = {.kind = SWS_WORKLOAD_BGSAVE, .bytes = SWS_WORKLOAD_MAX_BYTES,
					 .nr_accesses = SWS_WORKLOAD_MAX_ACCESSES};
	assert_sws(0, sws_workload_create(&bg, &wl)); /* 2^38 pages: the total in closed form */
	assert_int_equal(sws_workload_total(wl), 2 * (SWS_WORKLOAD_MAX_BYTES / 4096) + SWS_WORKLOAD_MAX_ACCESSES + 5);
	sws_workload_destroy(wl);
}

/* ---- usemem output -------------------------------------------------------------------- */

static void test_usemem_lines(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 1 << 20, .nr_tasks = 2,
					 .flags = SWS_USEMEM_INIT_TIME | SWS_USEMEM_READ_AGAIN |
						  SWS_USEMEM_SYNC_RW | SWS_USEMEM_SYNC_FREE};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	struct sws_replay_report rep;
	struct sws_test_buf out = {0};
	run_workload(&cfg, &wc, &rep, &out);
	/* 256 pages x (1 write + 1 read pass) per task, plus MMAP, MUNMAP, EXIT. */
	assert_int_equal(rep.events, 2 * (3 + 2 * 256));
	assert_int_equal(rep.mm.counters[SWS_MM_pgfault] >= 512, true);
	unsigned thr = 0, again = 0, freed = 0, init = 0;
	for (char *line = strtok(out.p, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long b, us, kbs, s;
		char tail[8];
		if (sscanf(line, "the initialization time is %lu secs %lu usecs%1s", &s, &us, tail) == 2) {
			init++;
		} else if (sscanf(line, "read again %lu bytes / %lu usecs = %lu KB/s%1s", &b, &us, &kbs, tail) == 3) {
			assert_int_equal(b, 1 << 20);
			again++;
		} else if (sscanf(line, "%lu bytes / %lu usecs = %lu KB/s%1s", &b, &us, &kbs, tail) == 3) {
			assert_int_equal(b, (1 << 20) + (1 << 17)); /* size + size/8 */
			assert_int_equal(kbs, ((b * 1000000ull) >> 10) / (us ? us : 1));
			thr++;
		} else if (sscanf(line, "%lu usecs to free memory%1s", &us, tail) == 1) {
			freed++;
		} else {
			fail_msg("unexpected usemem line '%s'", line);
		}
	}
	assert_int_equal(thr, 2);
	assert_int_equal(again, 2);
	assert_int_equal(freed, 2);
	assert_int_equal(init, 2);
	free(out.p);
}

/*
 * The replay's RAM holds the swap metadata and the zswap pool unless
 * SWS_REPLAY_USER_RAM says otherwise (SWS_MM_KERNEL_RAM by default). In a
 * memcg-limited run with no global pressure they only move free memory: the
 * same pages go out, and free memory is lower by exactly the kernel's pages.
 */
static void test_metadata_ram_default(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 2 << 20, .nr_tasks = 2};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	struct sws_replay_report on, off;
	run_workload(&cfg, &wc, &on, NULL);
	cfg.flags |= SWS_REPLAY_USER_RAM;
	run_workload(&cfg, &wc, &off, NULL);
	assert_int_equal(off.mm.kernel_swap_pages, 0);
	/* st-p4 on the default device (2 x RAM, 4 clusters) once the tasks exited: cluster
	 * info and table pointers, 24 B a cluster each (192 B), and cluster 0's swap
	 * table (4096 B) and memcg table (1024 B): 5312 B, two pages */
	assert_int_equal(on.mm.kernel_swap_pages, 2);
	assert_true(off.mm.counters[SWS_MM_pswpout] > 0);
	assert_int_equal(on.mm.counters[SWS_MM_pswpout], off.mm.counters[SWS_MM_pswpout]);
	assert_int_equal(on.mm.free_pages + on.mm.kernel_swap_pages, off.mm.free_pages);
	assert_int_equal(on.setup.flags & SWS_REPLAY_USER_RAM, 0);
}

/*
 * An OOM-killed usemem task did not do its work: no throughput or free line
 * (one "killed" line instead), left out of the figures, and its refused
 * accesses cost no user time (a page touched costs 1 us here).
 */
static void test_usemem_oom_killed(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 4 << 20, .nr_tasks = 2};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.mem_limit_pages = 0;
	cfg.user_bandwidth = SWS_PAGE_SIZE * 1000000ull;
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.pages = 256, .kind = SWS_REPLAY_SWAP_SSD, .prio = -1};
	struct sws_workload *wl;
	struct sws_replay *r;
	struct sws_replay_report rep;
	struct sws_test_buf out = {0};
	assert_sws(0, sws_workload_create(&wc, &wl));
	sws_workload_content(wl, cfg.content_weight);
	assert_sws(0, sws_replay_create(&cfg, &r));
	struct sws_replay_source src = sws_workload_source(wl);
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_sws(0, sws_workload_figures(wl, r, &rep));
	assert_sws(0, sws_workload_print_results(wl, r, sws_test_buf_write, &out));
	assert_int_equal(rep.mm.counters[SWS_MM_oom_kill], 1);
	assert_true(rep.errors > 0);
	unsigned killed = 0, alive = 0;
	for (uint32_t i = 0; i < sws_replay_nr_tasks(r); i++) {
		struct sws_replay_task t;
		assert_sws(0, sws_replay_task_get(r, i, &t));
		assert_int_equal(t.accesses, 1024); /* its records ran, refused or not */
		if (t.oom_killed) {
			killed++;
			/* one task only was refused: the run's errors are its refused pages */
			assert_int_equal(t.user_ns, (t.accesses - rep.errors) * 1000);
		} else {
			alive++;
			assert_int_equal(t.user_ns, t.accesses * 1000);
		}
	}
	assert_int_equal(killed, 1);
	assert_int_equal(alive, 1);
	assert_true(rep.workload.valid);
	assert_int_equal(rep.workload.tasks, 1);
	assert_int_equal(rep.workload.killed, 1);
	unsigned thr = 0, freed = 0, dead = 0;
	for (char *line = strtok(out.p, "\n"); line; line = strtok(NULL, "\n")) {
		if (strstr(line, " bytes / "))
			thr++;
		else if (strstr(line, "usecs to free memory"))
			freed++;
		else if (strstr(line, "killed by the OOM killer, no figures"))
			dead++;
		else
			fail_msg("unexpected usemem line '%s'", line);
	}
	assert_int_equal(thr, 1);
	assert_int_equal(freed, 1);
	assert_int_equal(dead, 1);
	free(out.p);
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
}

/* Discard is the device's option, off by default (swapon(8)); the table:
 * swap_discard counts discards with or without a backing store, so it is
 * shown either way; the page I/O counters of a store are left out without one. */
static void test_table_discard(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 8 << 20};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	struct sws_replay_report rep;
	struct sws_test_buf out = {0};
	run_workload(&cfg, &wc, &rep, NULL); /* the default device: an SSD, no discard */
	assert_true(rep.mm.counters[SWS_MM_pswpout] > 0);
	assert_int_equal(rep.swap.counters[SWS_CTR_swap_discard], 0);
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.kind = SWS_REPLAY_SWAP_SSD, .prio = -1,
					       .swap_flags = SWS_REPLAY_SWAP_DISCARD};
	run_workload(&cfg, &wc, &rep, NULL); /* swapon --discard=pages, no store */
	assert_true(rep.swap.counters[SWS_CTR_swap_discard] > 0);
	assert_int_equal(rep.swap.counters[SWS_CTR_swap_writepage], 0);
	const struct sws_replay_report *runs[1] = {&rep};
	assert_sws(0, sws_replay_report_print(runs, 1, SWS_REPLAY_REPORT_TABLE, sws_test_buf_write, &out));
	const char *row = strstr(out.p, "\nswap_discard ");
	assert_non_null(row);
	uint64_t shown = 0;
	assert_int_equal(sscanf(row, "\nswap_discard %" SCNu64, &shown), 1);
	assert_int_equal(shown, rep.swap.counters[SWS_CTR_swap_discard]);
	assert_null(strstr(out.p, "\nswap_writepage "));
	assert_non_null(strstr(out.p, "no device has a backing store here"));
	free(out.p);
	/* Not on a rotational disk, and no unknown flags. */
	struct sws_replay *r;
	cfg.swap[0].kind = SWS_REPLAY_SWAP_HDD;
	assert_sws(SWS_EINVAL, sws_replay_create(&cfg, &r));
	cfg.swap[0].kind = SWS_REPLAY_SWAP_SSD;
	cfg.swap[0].swap_flags = 1u << 5;
	assert_sws(SWS_EINVAL, sws_replay_create(&cfg, &r));
}


/* A replay of @n records on @cfg's machine, run: the caller reports and destroys it. */
static struct sws_replay *replay_records(const struct sws_replay_config *cfg, const struct sws_trace_record *recs,
					 size_t n)
{
	struct sws_test_vec vs = {recs, n, 0};
	struct sws_replay_source src = {.next = sws_test_vec_next, .ctx = &vs};
	struct sws_replay *r;
	assert_sws(0, sws_replay_create(cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	return r;
}

/* A stub clock: one tick per read, so kernel entries charge small exact times. */
static uint64_t tick_clock(void *ctx)
{
	return atomic_fetch_add((_Atomic uint64_t *)ctx, 1);
}

#define REC SWS_TEST_REC

/* @recs replayed with a 256-page memcg limit, shared or (@per_task) one per process: pswpout. */
static uint64_t per_task_pswpout(const struct sws_trace_record *recs, size_t n, bool per_task)
{
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.ram_pages = 4096;
	cfg.mem_limit_pages = 256;
	cfg.flags = per_task ? SWS_REPLAY_MEMCG_PER_TASK : 0;
	struct sws_replay *r = replay_records(&cfg, recs, n);
	struct sws_replay_report rep;
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_int_equal(rep.errors, 0);
	sws_replay_destroy(r);
	return rep.mm.counters[SWS_MM_pswpout];
}

/*
 * SWS_REPLAY_MEMCG_PER_TASK: two processes of 200 pages each fit two memcgs of
 * 256 pages, not one; a forked child is charged to its parent's memcg (200 +
 * 200 pages in one memcg of 256 swap). Without a limit the flag is refused.
 */
static void test_memcg_per_task(void **state)
{
	(void)state;
	const struct sws_trace_record two[] = {
		REC(SWS_TRACE_ACCESS, 1, 0x100000, 200 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_ACCESS, 2, 0x100000, 200 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_ACCESS, 1, 0x100000, 200 * 4096, 0, 0),
	};
	assert_true(per_task_pswpout(two, 3, false) > 0);
	assert_int_equal(per_task_pswpout(two, 3, true), 0);
	const struct sws_trace_record forked[] = {
		REC(SWS_TRACE_ACCESS, 1, 0x100000, 200 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_FORK, 1, 0, 0, 2, 0),
		REC(SWS_TRACE_ACCESS, 2, 0x1000000, 200 * 4096, 0, SWS_TRACE_F_WRITE),
	};
	assert_true(per_task_pswpout(forked, 3, true) > 0);
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.mem_limit_pages = 0;
	cfg.flags = SWS_REPLAY_MEMCG_PER_TASK;
	struct sws_replay *r;
	assert_sws(SWS_EINVAL, sws_replay_create(&cfg, &r));
}

/*
 * usemem -n 2 6M with a 4M memcg per task on one CPU (swapsim-replay --cpus 1
 * --ram 16M --memcg-per-task --mem-limit 4M --swap size=32M,type=ssd): each
 * task writes 1,536 pages into a memcg of 1,024, so each swaps out exactly
 * the 512 pages past its limit: pswpout 2 * 512 = 1,024, nothing swapped in,
 * nobody killed. The two memcgs take the CPU's charge stock over from each
 * other all along: a takeover that kept the old memcg charged gives 2,016.
 */
static void test_memcg_per_task_usemem(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 6 << 20, .nr_tasks = 2};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.cpus = 1;
	cfg.ram_pages = 4096;
	cfg.mem_limit_pages = 1024;
	cfg.flags = SWS_REPLAY_MEMCG_PER_TASK;
	cfg.deferred_every = 0;
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.pages = 8192, .kind = SWS_REPLAY_SWAP_SSD, .prio = -1};
	struct sws_replay_report rep;
	run_workload(&cfg, &wc, &rep, NULL);
	assert_int_equal(rep.errors, 0);
	assert_int_equal(rep.mm.counters[SWS_MM_pgfault], 2 * 1536);
	assert_int_equal(rep.mm.counters[SWS_MM_pswpout], 1024);
	assert_int_equal(rep.mm.counters[SWS_MM_pswpin], 0);
	assert_int_equal(rep.mm.counters[SWS_MM_oom_kill], 0);
}

/*
 * Under the modelled clock a CPU runs the record at its ring's head in place
 * while the dispatcher, let in by another CPU's yield, fills the ring behind
 * it. Two tasks share CPU 0 (a 16-page record of one, then two 1-page records
 * of the other) while a third keeps CPU 1 busy, with rings of 64 records: every page is
 * still its own task's (a record overwritten while it ran would touch and
 * charge the next one's task).
 */
static void test_ring_record_runs_in_place(void **state)
{
	(void)state;
	enum { N = 3000 };
	struct sws_trace_record *recs = calloc(4 * N, sizeof(*recs));
	assert_non_null(recs);
	size_t n = 0;
	for (uint64_t i = 0; i < N; i++) { /* CPU 0's records: a period of 3, prime to the ring's 64 */
		recs[n] = REC(SWS_TRACE_ACCESS, 1, 0x10000000 + (i % 64) * 16 * 4096, 16 * 4096, 0, SWS_TRACE_F_WRITE);
		recs[n++].cpu = 0;
		for (uint64_t k = 0; k < 2; k++) {
			recs[n] = REC(SWS_TRACE_ACCESS, 2, 0x20000000 + ((2 * i + k) % 512) * 4096, 4096, 0,
				      SWS_TRACE_F_WRITE);
			recs[n++].cpu = 0;
		}
		recs[n] = REC(SWS_TRACE_ACCESS, 3, 0x30000000 + (i % 512) * 4096, 4096, 0, SWS_TRACE_F_WRITE);
		recs[n++].cpu = 1;
	}
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.cpus = 2;
	cfg.queue_depth = 64;
	cfg.mem_limit_pages = 0; /* 1,024 pages of RAM, 1,536 touched: swap */
	struct sws_test_vec vs = {recs, n, 0};
	struct sws_replay_source src = {.next = sws_test_vec_next, .ctx = &vs};
	struct sws_replay *r;
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	assert_int_equal(sws_replay_nr_tasks(r), 3);
	static const uint64_t pages[3] = {16 * N, 2 * N, N};
	for (uint32_t i = 0; i < 3; i++) {
		struct sws_replay_task t;
		assert_sws(0, sws_replay_task_get(r, i, &t));
		assert_int_equal(t.pid, i + 1);
		assert_int_equal(t.accesses, pages[i]);
	}
	struct sws_replay_report rep;
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_int_equal(rep.errors, 0);
	assert_true(rep.mm.counters[SWS_MM_pgfault] > 1536); /* pages came back from swap */
	sws_replay_destroy(r);
	free(recs);
}

/*
 * A FORK whose child pid is still alive (its EXIT was lost): that incarnation
 * exits first, and the exit is its own free time, not the forking parent's.
 */
static void test_fork_reused_pid(void **state)
{
	(void)state;
	_Atomic uint64_t now = 0;
	struct sws_env env = {.clock_ns = tick_clock, .clock_ctx = (void *)&now};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.env = &env;
	cfg.clock = SWS_REPLAY_CLOCK_HOST; /* the injected clock ticks once per read */
	const struct sws_trace_record recs[] = {
		REC(SWS_TRACE_ACCESS, 200, 0x100000, 64 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_ACCESS, 100, 0x100000, 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_FORK, 100, 0, 0, 200, 0), /* pid 200 is alive: its old life ends */
		REC(SWS_TRACE_EXIT, 200, 0, 0, 0, 0),
		REC(SWS_TRACE_EXIT, 100, 0, 0, 0, 0),
	};
	struct sws_test_vec vs = {recs, sizeof(recs) / sizeof(recs[0]), 0};
	struct sws_replay_source src = {.next = sws_test_vec_next, .ctx = &vs};
	struct sws_replay *r;
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	assert_int_equal(sws_replay_nr_tasks(r), 3);
	struct sws_replay_task old, parent, child;
	assert_sws(0, sws_replay_task_get(r, 0, &old));
	assert_sws(0, sws_replay_task_get(r, 1, &parent));
	assert_sws(0, sws_replay_task_get(r, 2, &child));
	assert_int_equal(old.pid, 200);
	assert_int_equal(parent.pid, 100);
	assert_int_equal(child.pid, 200);
	assert_true(old.exited);
	assert_true(old.free_ns > 0); /* its exit, charged to it */
	/* the parent: one fault, the fork, its exit, nothing else (1 tick each) */
	assert_int_equal(parent.sys_ns, 3);
	sws_replay_destroy(r);
}

/*
 * A pid that exits and comes back as a new process in the very next record,
 * under the modelled clock on two CPUs (each record through the tid's slot
 * and a CPU's ring): the remembered pid and tid answers must not send the
 * new life's accesses to the old one. Two tasks of pid 100, 4 and 8 pages.
 */
static void test_pid_reused_after_exit(void **state)
{
	(void)state;
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 2);
	const struct sws_trace_record recs[] = {
		REC(SWS_TRACE_ACCESS, 100, 0x100000, 4 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_EXIT, 100, 0, 0, 0, 0),
		REC(SWS_TRACE_ACCESS, 100, 0x100000, 8 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_ACCESS, 200, 0x100000, 2 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_EXIT, 100, 0, 0, 0, 0),
		REC(SWS_TRACE_EXIT, 200, 0, 0, 0, 0),
	};
	struct sws_replay *r = replay_records(&cfg, recs, sizeof(recs) / sizeof(recs[0]));
	assert_int_equal(sws_replay_nr_tasks(r), 3);
	struct sws_replay_task t[3];
	for (uint32_t i = 0; i < 3; i++)
		assert_sws(0, sws_replay_task_get(r, i, &t[i]));
	assert_int_equal(t[0].pid, 100);
	assert_int_equal(t[0].accesses, 4);
	assert_int_equal(t[1].pid, 100);
	assert_int_equal(t[1].accesses, 8);
	assert_int_equal(t[2].pid, 200);
	assert_int_equal(t[2].accesses, 2);
	assert_true(t[0].exited && t[1].exited && t[2].exited);
	sws_replay_destroy(r);
}

/*
 * The replay's own undo (an address space made for a new pid whose table
 * entry could not be allocated) is charged to nobody: not to the next task,
 * not to background reclaim at the end of the run.
 */
struct fail_alloc {
	size_t fail_size;
	bool armed; /* only while records run */
};

static void *fail_alloc_fn(void *ctx, size_t size, size_t align)
{
	struct fail_alloc *f = ctx;
	if (f->armed && size == f->fail_size)
		return NULL;
	void *p = NULL;
	return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1) ? NULL : p;
}

static void fail_free_fn(void *ctx, void *p, size_t size)
{
	(void)ctx;
	(void)size;
	free(p);
}

static void test_undo_charged_to_nobody(void **state)
{
	(void)state;
	uint64_t kswapd[2];
	for (int fail = 0; fail < 2; fail++) {
		_Atomic uint64_t now = 0;
		/* the pid table grows from 16 to 32 entries at the 17th pid (task.c) */
		struct fail_alloc fa = {.fail_size = fail ? 32 * sizeof(struct sws__proc) : SIZE_MAX};
		struct sws_env env = {.allocator = {fail_alloc_fn, fail_free_fn, &fa},
				      .clock_ns = tick_clock, .clock_ctx = (void *)&now};
		struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
		cfg.env = &env;
		struct sws_trace_record recs[17];
		for (unsigned i = 0; i < 17; i++)
			recs[i] = REC(SWS_TRACE_ACCESS, 300 + i, 0x100000, 4096, 0, 0); /* zero page: no alloc */
		struct sws_test_vec vs = {recs, fail ? 17 : 16, 0};
		struct sws_replay_source src = {.next = sws_test_vec_next, .ctx = &vs};
		struct sws_replay *r;
		struct sws_replay_report rep;
		assert_sws(0, sws_replay_create(&cfg, &r));
		fa.armed = true;
		assert_sws(fail ? SWS_ENOMEM : 0, sws_replay_run(r, &src));
		fa.armed = false;
		assert_sws(0, sws_replay_report_get(r, &rep));
		assert_int_equal(sws_replay_nr_tasks(r), 16);
		kswapd[fail] = rep.time.kswapd_ns;
		sws_replay_destroy(r);
	}
	assert_int_equal(kswapd[1], kswapd[0]); /* the undone exit is in neither */
}

/* The line of the table that starts with @name (then spaces), or NULL. */
static const char *table_row(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, name, n) && l[n] == ' ')
			return l;
	return NULL;
}

static bool row_has(const char *text, const char *name, const char *what)
{
	const char *l = table_row(text, name);
	assert_non_null(l);
	const char *end = strchr(l, '\n');
	size_t len = end ? (size_t)(end - l) : strlen(l);
	char line[512];
	snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), l);
	return strstr(line, what) != NULL;
}

/*
 * Repeats that differ (several threads, or measured latencies): the work rows,
 * peaks and latency show mean ±spread, not the first repeat alone; repeats that
 * agree show their value. sws_replay_counters_equal() tells them apart (times
 * and histograms are not counters). JSON keeps every digit.
 */
static void test_report_repeats(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 4 << 20};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	static struct sws_replay_report a, b, c;
	run_workload(&cfg, &wc, &a, NULL);
	assert_true(a.mm.counters[SWS_MM_pswpout] > 0);
	/* counters_equal: itself, measured times and histograms aside, but no counter */
	assert_true(sws_replay_counters_equal(&a, &a));
	c = a;
	c.time.sys_ns += 12345;
	c.latency[SWS_REPLAY_LAT_FAULT].max_ns += 7;
	c.wall_ns += 99;
	assert_true(sws_replay_counters_equal(&a, &c));
	c = a;
	c.mm.counters[SWS_MM_pgfault]++;
	assert_false(sws_replay_counters_equal(&a, &c));
	c = a;
	c.swap.counters[SWS_CTR_swap_discard]++;
	assert_false(sws_replay_counters_equal(&a, &c));
	c = a;
	c.swap.work[SWS_WCTX_swapout][SWS_WORK_lock_cluster]++;
	assert_false(sws_replay_counters_equal(&a, &c));
	c = a;
	c.errors++;
	assert_false(sws_replay_counters_equal(&a, &c));
	assert_false(sws_replay_counters_equal(&a, NULL));
	/* a second repeat that differs: work, a peak, a latency */
	b = a;
	b.swap.work[SWS_WCTX_swapout][SWS_WORK_lock_cluster] += b.mm.counters[SWS_MM_pswpout];
	b.peaks.swap_used_pages += 100;
	b.latency[SWS_REPLAY_LAT_FAULT].max_ns *= 3;
	const struct sws_replay_report *reps[2] = {&a, &b};
	struct sws_replay_series series = {.repeats = reps, .nr_repeats = 2};
	struct sws_test_buf out = {0};
	assert_sws(0, sws_replay_series_print(&series, 1, SWS_REPLAY_REPORT_TABLE, sws_test_buf_write, &out));
	assert_true(row_has(out.p, "lock_cluster", "±"));
	assert_true(row_has(out.p, "swap_used_pages.peak", "±"));
	assert_true(row_has(out.p, "fault.max", "±"));
	assert_false(row_has(out.p, "fault.count", "±")); /* the same in both */
	assert_false(row_has(out.p, "atomic_rmw", "±"));
	/* host measurements in a section of their own, after the simulated figures */
	const char *sim_sec = strstr(out.p, "\n-- simulated time"), *host_sec = strstr(out.p, "\n-- host");
	assert_non_null(sim_sec);
	assert_non_null(host_sec);
	assert_true(sim_sec < strstr(out.p, "\nElapsed time") && strstr(out.p, "\nElapsed time") < host_sec);
	assert_true(host_sec < strstr(out.p, "\nHost wall time") && host_sec < strstr(out.p, "\nHost events/s"));
	free(out.p);
	/* JSON: a figure of more than 6 digits is printed whole */
	a.time.elapsed_ns = 1234567891;
	const struct sws_replay_report *one[1] = {&a};
	struct sws_test_buf js = {0};
	assert_sws(0, sws_replay_report_print(one, 1, SWS_REPLAY_REPORT_JSON, sws_test_buf_write, &js));
	assert_non_null(strstr(js.p, "\"elapsed_ns\":1234567891,"));
	assert_non_null(strstr(js.p, "\"elapsed_ns\":{\"mean\":1234567891,"));
	free(js.p);
}

/* ---- compare, JSON, CSV -------------------------------------------------------------- */

static void test_compare_json(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_BGSAVE, .bytes = 3 << 20, .seed = 11};
	struct sws_replay_report reps[2];
	const struct sws_replay_report *ptrs[2] = {&reps[0], &reps[1]};
	enum sws_backend bk[2] = {SWS_BACKEND_SWAP_TABLE, SWS_BACKEND_XARRAY};
	for (unsigned i = 0; i < 2; i++) {
		struct sws_replay_config cfg = small_config(bk[i], 1);
		run_workload(&cfg, &wc, &reps[i], NULL);
	}
	assert_int_equal(reps[0].backend, SWS_BACKEND_SWAP_TABLE);
	assert_int_equal(reps[1].backend, SWS_BACKEND_XARRAY);
	/* The metadata's peaks, sampled during the run: the swap table's tables
	 * and the XArray's nodes came and went; the static floor stayed. */
	for (unsigned i = 0; i < 2; i++) {
		assert_true(reps[i].peaks.dynamic_bytes > reps[i].memory.dynamic_bytes);
		assert_int_equal(reps[i].peaks.static_bytes, reps[i].memory.static_bytes);
	}
	assert_true(reps[1].peaks.dynamic_bytes >= 576); /* XArray nodes, 576 B each */
	/* Fault counts do not depend on the swap-cache design. */
	assert_int_equal(reps[0].mm.counters[SWS_MM_pgfault], reps[1].mm.counters[SWS_MM_pgfault]);
	assert_int_equal(reps[0].mm.counters[SWS_MM_cow_fault], reps[1].mm.counters[SWS_MM_cow_fault]);
	assert_int_equal(reps[0].events, reps[1].events);

	struct sws_test_buf js = {0};
	assert_sws(0, sws_replay_report_print(ptrs, 2, SWS_REPLAY_REPORT_JSON, sws_test_buf_write, &js));
	/* What the report says about itself first (no command or input given here), then the runs. */
	assert_true(!strncmp(js.p, "{\"version\":\"", 12));
	assert_non_null(strstr(js.p, "\"program\":null,\"command\":null,\"argv\":null,\"clock\":\"model\",\"setup\":{"));
	assert_non_null(strstr(js.p, "}},\"runs\":[{\"backend\":\"st-p4\""));
	int depth = 0, max_depth = 0, objects_at_1 = 0;
	bool in_str = false;
	/* The runs: two objects in the array; the whole: one object. */
	for (const char *p = strstr(js.p, "\"runs\":[") + 7, *q = js.p; q < p; q++)
		depth += (*q == '{' || *q == '[') - (*q == '}' || *q == ']'); /* no brackets in its strings */
	assert_int_equal(depth, 1);
	for (const char *p = strstr(js.p, "\"runs\":[") + 7; *p; p++) {
		if (in_str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_str = false;
			continue;
		}
		if (*p == '"')
			in_str = true;
		else if (*p == '{' || *p == '[') {
			if (depth == 2 && *p == '{')
				objects_at_1++; /* elements of "runs" */
			depth++;
			max_depth = depth > max_depth ? depth : max_depth;
		} else if (*p == '}' || *p == ']') {
			depth--;
			assert_true(depth >= 0);
			if (!depth)
				assert_string_equal(p + 1, "\n"); /* exactly one object */
		}
	}
	assert_int_equal(depth, 0);
	assert_int_equal(objects_at_1, 2);
	static const char *const keys[] = {"\"counters\":{", "\"pgfault\":", "\"pswpout\":",
					   "\"swap_ra_hit\":", "\"events_per_sec\":", "\"memory\":{",
					   "\"latency\":{", "\"fault\":{", "\"swpout\":[",
					   "\"swpout_fallback\":[", "\"modelled_io_ns\":",
					   "\"backend\":\"xarray\"", "\"xa_node\":"};
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strstr(js.p, keys[i]))
			fail_msg("key %s missing from the JSON report", keys[i]);
	struct sws_test_buf tb = {0};
	assert_sws(0, sws_replay_report_print(ptrs, 2, SWS_REPLAY_REPORT_TABLE, sws_test_buf_write, &tb));
	assert_non_null(strstr(tb.p, "swap_table"));
	assert_non_null(strstr(tb.p, "pgmajfault"));
	free(js.p);
	free(tb.p);
}

struct csv_ctx {
	struct sws_test_buf b;
	unsigned rows;
};

static void csv_sample(void *ctx, const struct sws_replay_sample *s)
{
	struct csv_ctx *c = ctx;
	c->rows++;
	assert_sws(0, sws_replay_csv_row(SWS_BACKEND_XARRAY, s, sws_test_buf_write, &c->b));
}

/* ---- real traces, end to end ------------------------------------------------------ */

struct reader_src {
	struct sws_trace_reader *r;
};

static int reader_next(void *ctx, struct sws_trace_record *rec)
{
	return sws_trace_reader_next(((struct reader_src *)ctx)->r, rec);
}

static const char *reader_error(void *ctx)
{
	return sws_trace_reader_error(((struct reader_src *)ctx)->r);
}

/* Replay trace file @path on @cfg's machine; the invariants hold at the end. */
static void replay_file(const struct sws_replay_config *cfg, const char *path,
			struct sws_replay_report *rep)
{
	struct sws_replay *r;
	assert_sws(0, sws_replay_create(cfg, &r));
	struct reader_src rs;
	char err[256];
	assert_sws(0, sws_trace_reader_open(path, NULL, &rs.r, err, sizeof(err)));
	struct sws_replay_source src = {.next = reader_next, .error = reader_error, .ctx = &rs};
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, rep));
	assert_consistent(sws_replay_sim(r));
	sws_trace_reader_close(rs.r);
	sws_replay_destroy(r);
}

/* Replay a real trace excerpt with pages verified, on both backends: same faults
 * at equal user RAM, nothing refused, every page read back identical, no slot left at exit. */
static void replay_trace_file(const char *name, uint32_t threads, bool must_swap)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", SWS_TEST_DATA_DIR, name);
	uint64_t faults[2];
	for (int k = 0; k < 2; k++) {
		struct sws_replay_config cfg = small_config(k ? SWS_BACKEND_XARRAY : SWS_BACKEND_SWAP_TABLE,
							    threads);
		cfg.ram_pages = 64; /* far below the traces' footprint: they swap */
		cfg.mem_limit_pages = 0;
		cfg.nr_swap = 1;
		cfg.swap[0] = (struct sws_replay_swap){.pages = 16384, .kind = SWS_REPLAY_SWAP_SSD, .prio = -1};
		/* RAM for user pages alone: the faults compared below are the same on both
		 * backends only where their metadata (which differs) takes no RAM */
		cfg.flags |= SWS_REPLAY_VERIFY | SWS_REPLAY_READ_POPULATES | SWS_REPLAY_USER_RAM;
		cfg.content_weight[SWS_CONTENT_ZERO] = 1;
		cfg.content_weight[SWS_CONTENT_TEXT] = 2;
		cfg.content_weight[SWS_CONTENT_RANDOM] = 1;
		struct sws_replay_report rep;
		replay_file(&cfg, path, &rep);
		assert_int_equal(rep.errors, 0);
		assert_int_equal(rep.verify_failures, 0);
		assert_true(rep.accesses > 0);
		/* the larger excerpts swap, and what came back was checked */
		if (must_swap) {
			assert_true(rep.mm.counters[SWS_MM_pswpout] > 0);
			assert_true(rep.mm.counters[SWS_MM_verify_ok] > 0);
		}
		faults[k] = rep.mm.counters[SWS_MM_pgfault];
	}
	if (threads == 1)
		assert_int_equal(faults[0], faults[1]);
}

static void test_replay_traces(void **state)
{
	(void)state;
	replay_trace_file("perf_swap_excerpt.txt", 1, true);
	replay_trace_file("lackey_head.txt", 1, false);
	replay_trace_file("damon_head.txt", 1, true);
	replay_trace_file("perf_pagefaults_addr.txt", 2, false);
}

/* Device kinds and their latency defaults (the model's modelled time differs). */
static void test_swap_kinds(void **state)
{
	(void)state;
	enum sws_replay_swap_kind kind;
	assert_sws(0, sws_replay_swap_kind_parse("sata", &kind));
	assert_int_equal(kind, SWS_REPLAY_SWAP_SATA);
	assert_sws(0, sws_replay_swap_kind_parse("nvme", &kind));
	assert_int_equal(kind, SWS_REPLAY_SWAP_SSD);
	assert_sws(SWS_EINVAL, sws_replay_swap_kind_parse("floppy", &kind));
	assert_string_equal(sws_replay_swap_kind_name(SWS_REPLAY_SWAP_PMEM), "pmem");
	uint64_t ns[2];
	for (int k = 0; k < 2; k++) {
		struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
		cfg.nr_swap = 1;
		cfg.swap[0] = (struct sws_replay_swap){.kind = k ? SWS_REPLAY_SWAP_SATA : SWS_REPLAY_SWAP_SSD,
						       .prio = -1};
		struct sws_workload_config wc = {.kind = SWS_WORKLOAD_MEMHOG, .bytes = 4u << 20};
		struct sws_replay_report rep;
		run_workload(&cfg, &wc, &rep, NULL);
		ns[k] = rep.mm.counters[SWS_MM_modelled_io_ns];
		assert_true(rep.mm.counters[SWS_MM_pswpout] > 0);
	}
	assert_true(ns[1] > 2 * ns[0]); /* SATA is several times slower than NVMe per page */
}

static void test_csv(void **state)
{
	(void)state;
	struct csv_ctx c = {{0}, 0};
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_UNIFORM, .bytes = 1 << 20,
					 .nr_accesses = 1000, .seed = 3};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_XARRAY, 1);
	cfg.sample = csv_sample;
	cfg.sample_every = 100;
	cfg.cb_ctx = &c;
	assert_sws(0, sws_replay_csv_header(sws_test_buf_write, &c.b));
	struct sws_replay_report rep;
	run_workload(&cfg, &wc, &rep, NULL);
	assert_int_equal(rep.events, 1003); /* MMAP + 1000 + MUNMAP + EXIT */
	assert_int_equal(c.rows, (1003 + 99) / 100);
	unsigned lines = 0, commas_header = 0;
	for (char *line = strtok(c.b.p, "\n"); line; line = strtok(NULL, "\n"), lines++) {
		unsigned commas = 0;
		for (char *p = line; *p; p++)
			commas += *p == ',';
		if (!lines) {
			assert_true(!strncmp(line, "backend,events,time_s,pgfault", 29));
			commas_header = commas;
		} else {
			assert_int_equal(commas, commas_header);
			assert_true(!strncmp(line, "xarray,", 7));
		}
	}
	assert_int_equal(lines, 1 + c.rows);
	free(c.b.p);
}

/* The samples and progress calls of a run, by the events each saw; the
 * progress call at stop_at returns non-zero (0: never). */
struct countdown_ctx {
	uint64_t samples[200], progress[400], stop_at;
	unsigned nsamples, nprogress;
};

static void countdown_sample(void *ctx, const struct sws_replay_sample *s)
{
	struct countdown_ctx *c = ctx;
	assert_true(c->nsamples < 200);
	c->samples[c->nsamples++] = s->events;
}

static int countdown_progress(void *ctx, uint64_t events)
{
	struct countdown_ctx *c = ctx;
	assert_true(c->nprogress < 400);
	c->progress[c->nprogress++] = events;
	return c->stop_at && events == c->stop_at;
}

/* A sample every 7 records and a progress call every 3, counted down
 * together: each at its own multiples, the last sample at the run's end;
 * a progress call that says stop ends the run at its record. */
static void test_sample_progress_countdown(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_UNIFORM, .bytes = 1 << 20,
					 .nr_accesses = 1000, .seed = 3};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_XARRAY, 1);
	struct countdown_ctx c = {0};
	struct sws_replay_report rep;
	cfg.sample = countdown_sample;
	cfg.sample_every = 7;
	cfg.progress = countdown_progress;
	cfg.progress_every = 3;
	cfg.cb_ctx = &c;
	run_workload(&cfg, &wc, &rep, NULL);
	assert_int_equal(rep.events, 1003); /* MMAP + 1000 + MUNMAP + EXIT */
	assert_int_equal(c.nsamples, 1003 / 7 + 1);
	for (unsigned i = 0; i + 1 < c.nsamples; i++)
		assert_int_equal(c.samples[i], 7 * (i + 1));
	assert_int_equal(c.samples[c.nsamples - 1], 1003);
	assert_int_equal(c.nprogress, 1003 / 3);
	for (unsigned i = 0; i < c.nprogress; i++)
		assert_int_equal(c.progress[i], 3 * (i + 1));

	c = (struct countdown_ctx){.stop_at = 21};
	struct sws_workload *wl;
	struct sws_replay *r;
	assert_sws(0, sws_workload_create(&wc, &wl));
	assert_sws(0, sws_replay_create(&cfg, &r));
	struct sws_replay_source src = sws_workload_source(wl);
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, &rep));
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
	assert_true(rep.interrupted);
	assert_int_equal(rep.events, 21);
	assert_int_equal(c.nprogress, 7);
	assert_int_equal(c.nsamples, 3); /* 7, 14, 21 */
	assert_int_equal(c.samples[2], 21);
}

/* xswap through the replay: the spec, its errors, and the CSV series showing
 * the arena following the device up, one chunk at a time. */
struct xswap_series {
	unsigned rows;
	uint64_t max_clusters, max_mapped_bytes, max_inuse;
	struct sws_replay_sample last;
};

static void xswap_sample(void *ctx, const struct sws_replay_sample *s)
{
	struct xswap_series *x = ctx;
	struct sws_test_buf b = {0};
	assert_sws(0, sws_replay_csv_row(SWS_BACKEND_SWAP_TABLE, s, sws_test_buf_write, &b));
	free(b.p);
	x->rows++;
	if (s->xswap_mapped_clusters > x->max_clusters)
		x->max_clusters = s->xswap_mapped_clusters;
	if (s->arena_mapped_bytes > x->max_mapped_bytes)
		x->max_mapped_bytes = s->arena_mapped_bytes;
	if (s->xswap_inuse_pages > x->max_inuse)
		x->max_inuse = s->xswap_inuse_pages;
	assert_true(s->arena_resident_bytes <= s->arena_mapped_bytes);
	assert_true(s->arena_resident_bytes >= 3 * 4096); /* each array's first page is in use */
	x->last = *s;
}

static void test_xswap_replay(void **state)
{
	(void)state;

	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.ram_pages = 65536; /* 256 MiB: one chunk (85 clusters) is less than the device */
	cfg.mem_limit_pages = 0;
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.kind = SWS_REPLAY_SWAP_XSWAP, .prio = -1, .limit_pages = 131072};
	struct sws_replay *r;
	assert_sws(SWS_EOPNOTSUPP, sws_replay_create(&cfg, &r)); /* no zswap */
	cfg.flags = SWS_REPLAY_ZSWAP;
	cfg.backend = SWS_BACKEND_XARRAY;
	assert_sws(SWS_EOPNOTSUPP, sws_replay_create(&cfg, &r));
	cfg.backend = SWS_BACKEND_SWAP_TABLE;
	cfg.swap[0].path = "x";
	assert_sws(SWS_EINVAL, sws_replay_create(&cfg, &r));
	cfg.swap[0].path = NULL;

	struct xswap_series x = {0};
	cfg.zswap.max_pool_percent = 50;
	cfg.sample = xswap_sample;
	cfg.sample_every = 4096;
	cfg.cb_ctx = &x;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_MEMHOG, .bytes = 720ull << 20};
	struct sws_replay_report rep;
	run_workload(&cfg, &wc, &rep, NULL);
	assert_true(rep.mm.counters[SWS_MM_zswpout] > 40000);
	assert_int_equal(rep.mm.counters[SWS_MM_pswpout], 0);
	assert_true(x.rows > 10);
	assert_true(x.max_inuse > 2 * 43520);    /* more than two chunks hold */
	assert_true(x.max_clusters > 85);        /* so it grew ... */
	assert_true(x.max_mapped_bytes > 12288); /* ... and its arenas with it (past 170 clusters) */
	assert_int_equal(x.last.xswap_inuse_pages, 0); /* the workload exited */
	/* A free tail under five chunks stays mapped (test_xswap shows the shrink). */
	assert_int_equal(x.last.xswap_mapped_clusters, x.max_clusters);
}

/*
 * A workload that does not fit: a memcg limit, an xswap device whose zswap
 * pool is full, so nothing can leave RAM (pool_limit_hit on every scanned
 * page). A fault that rescanned the whole LRU in vain would make the repro take
 * 135 M scans (8,000 per page access, 30 s); MAX_RECLAIM_RETRIES fruitless
 * rounds end in the OOM killer, which reaps the largest task, so the scans per
 * access stay bounded whatever the trace's length.
 */
static void test_oom_bounds_reclaim(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof(path), "%s/repro/slow_replay.swt", SWS_TEST_DATA_DIR);
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.ram_pages = 4096;       /* 16 MiB */
	cfg.mem_limit_pages = 2048; /* 8 MiB memcg */
	cfg.flags = SWS_REPLAY_ZSWAP;
	cfg.zswap.max_pool_percent = 10;
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.kind = SWS_REPLAY_SWAP_XSWAP, .prio = -1};
	struct sws_replay_report rep;
	replay_file(&cfg, path, &rep);
	assert_true(rep.accesses > 10000);
	assert_true(rep.mm.counters[SWS_MM_pool_limit_hit] > 0);
	assert_true(rep.mm.counters[SWS_MM_oom_kill] > 0);
	assert_true(rep.errors > 0);
	assert_int_equal(rep.first_error, SWS_EINVAL); /* the trace also has accesses beyond 48 bits */
	assert_true(rep.mm.counters[SWS_MM_pgscan] < 200 * rep.accesses);
}

/*
 * zswap's shrink worker is a work item: queued by a store refused while the
 * pool is full, it runs right after that record, not at the next kswapd step.
 * Deferred work never comes during this run (deferred_every is larger than the
 * run), yet the pool is written back while the run goes on.
 */
struct wb_watch {
	struct sws_replay *r;
	uint64_t zswpwb;
};

static void wb_hook(void *ctx, unsigned worker, const struct sws_trace_record *rec)
{
	struct wb_watch *w = ctx;
	(void)worker, (void)rec;
	struct sws_mm_stats st;
	sws_mm_stats_get(sws_replay_mm(w->r), &st);
	w->zswpwb = st.counters[SWS_MM_zswpwb];
}

static void test_zswap_worker_prompt(void **state)
{
	(void)state;
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.deferred_every = 1u << 30;
	cfg.flags = SWS_REPLAY_ZSWAP;
	cfg.zswap.max_pool_percent = 4; /* 40 pages */
	struct wb_watch w = {0};
	cfg.on_record = wb_hook;
	cfg.cb_ctx = &w;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 8u << 20, .repeat = 2};
	struct sws_workload *wl;
	assert_sws(0, sws_workload_create(&wc, &wl));
	sws_workload_content(wl, cfg.content_weight);
	assert_sws(0, sws_replay_create(&cfg, &w.r));
	struct sws_replay_source src = sws_workload_source(wl);
	assert_sws(0, sws_replay_run(w.r, &src));
	struct sws_replay_report rep;
	assert_sws(0, sws_replay_report_get(w.r, &rep));
	assert_true(rep.mm.counters[SWS_MM_pool_limit_hit] > 0);
	assert_true(w.zswpwb > 0); /* seen before the last record: written back during the run */
	assert_true(rep.time.kswapd_ns > 0); /* charged to background, not to the task */
	sws_replay_destroy(w.r);
	sws_workload_destroy(wl);
}

/*
 * Simulated time: the same usemem input on an HDD and on an NVMe device. The
 * writes reclaim waits for and the reads faults wait for are modelled device
 * time (iowait); on pmem, a SYNCHRONOUS_IO device, the same modelled time is
 * the CPU's work (sys) and nobody waits. usemem's throughput follows: the HDD
 * run is slower by about the ratio of the latencies (5 ms vs 20-25 us).
 */
static void test_simulated_time(void **state)
{
	(void)state;
	enum sws_replay_swap_kind kinds[3] = {SWS_REPLAY_SWAP_SSD, SWS_REPLAY_SWAP_HDD, SWS_REPLAY_SWAP_PMEM};
	struct sws_replay_report rep[3];
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 4 << 20,
					 .flags = SWS_USEMEM_READ_AGAIN};
	for (int k = 0; k < 3; k++) {
		struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
		cfg.clock = SWS_REPLAY_CLOCK_HOST; /* every write waited for: the host clock's model */
		cfg.nr_swap = 1;
		cfg.swap[0] = (struct sws_replay_swap){.pages = 8192, .kind = kinds[k], .prio = -1};
		run_workload(&cfg, &wc, &rep[k], NULL);
		assert_true(rep[k].workload.valid);
		assert_int_equal(rep[k].workload.tasks, 1);
		/* a task's clock is its sys + user + iowait; one task: the run's elapsed time */
		assert_int_equal(rep[k].time.elapsed_ns,
				 rep[k].time.sys_ns + rep[k].time.user_ns + rep[k].time.iowait_ns);
		assert_int_equal(rep[k].time.user_ns, 2048 * (SWS_PAGE_SIZE * 1000000000ull / SWS_REPLAY_USER_BANDWIDTH));
	}
	/* about the same I/O (rotational devices read ahead by cluster, SSDs by VMA) */
	uint64_t out0 = rep[0].mm.counters[SWS_MM_pswpout], out1 = rep[1].mm.counters[SWS_MM_pswpout];
	assert_true(out0 > 500 && out1 * 20 > out0 * 19 && out1 * 19 < out0 * 20);
	assert_true(rep[1].time.iowait_ns > 100 * rep[0].time.iowait_ns);
	double ratio = rep[0].workload.throughput_kbs / rep[1].workload.throughput_kbs;
	assert_true(ratio > 50 && ratio < 400);
	/* pmem: no wait, the modelled time is CPU time */
	assert_int_equal(rep[2].time.iowait_ns, 0);
	assert_true(rep[2].time.sys_modelled_ns > 0);
	assert_true(rep[2].time.sys_ns >= rep[2].time.sys_modelled_ns);
	assert_true(rep[2].workload.throughput_kbs > rep[0].workload.throughput_kbs);
}

/* Backing files: what the replay created is scratch, removed when it is destroyed,
 * and on every failure of sws_replay_create after a device was swapped on. */
static void test_backing_files(void **state)
{
	(void)state;
	char p1[256], p2[256], err[256];
	struct stat st;
	struct sws_replay *r;
	sws_test_path(p1, sizeof(p1), "replay-dev1");
	sws_test_path(p2, sizeof(p2), "replay-dev2");
	unlink(p1);
	unlink(p2);
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.nr_swap = 2;
	cfg.swap[0] = (struct sws_replay_swap){.pages = 1024, .kind = SWS_REPLAY_SWAP_SSD, .prio = -1, .path = p1};
	cfg.swap[1] = (struct sws_replay_swap){.pages = 1024, .kind = SWS_REPLAY_SWAP_SSD, .prio = -1, .path = p2};
	cfg.errbuf = err;
	cfg.errlen = sizeof(err);
	/* The second device's file exists (no reuse): the first one's, created, goes again. */
	int fd = open(p2, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	assert_sws(SWS_EFILEEXIST, sws_replay_create(&cfg, &r));
	assert_null(r);
	assert_non_null(strstr(err, p2));
	assert_int_equal(lstat(p1, &st), -1);
	assert_int_equal(stat(p2, &st), 0);
	assert_int_equal(st.st_size, 4); /* untouched */
	/* A later step fails (the memory model: RAM beyond its limit): both files go. */
	unlink(p2);
	cfg.ram_pages = (1ull << 30) + 1;
	assert_sws(SWS_EINVAL, sws_replay_create(&cfg, &r));
	assert_int_equal(lstat(p1, &st), -1);
	assert_int_equal(lstat(p2, &st), -1);
	/* A run: the files exist while it lasts and go with the replay. */
	cfg.ram_pages = 1024;
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_int_equal(stat(p1, &st), 0);
	assert_int_equal(stat(p2, &st), 0);
	sws_replay_destroy(r);
	assert_int_equal(lstat(p1, &st), -1);
	assert_int_equal(lstat(p2, &st), -1);
	/* A reused file stays. */
	fd = open(p1, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	cfg.nr_swap = 1;
	cfg.swap[0].file_flags = SWS_BACKING_REUSE;
	assert_sws(0, sws_replay_create(&cfg, &r));
	sws_replay_destroy(r);
	assert_int_equal(stat(p1, &st), 0);
	unlink(p1);
}

/* Repeats: the JSON keeps them under "repeats", the statistics under "summary". */
static void test_repeats_json(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 3 << 20, .nr_tasks = 2};
	struct sws_replay_report reps[3];
	const struct sws_replay_report *ptrs[3] = {&reps[0], &reps[1], &reps[2]};
	for (int k = 0; k < 3; k++) {
		struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
		run_workload(&cfg, &wc, &reps[k], NULL);
	}
	assert_true(sws_replay_counters_equal(&reps[0], &reps[1]));
	assert_true(sws_replay_counters_equal(&reps[0], &reps[2]));
	struct sws_replay_series s = {.repeats = ptrs, .nr_repeats = 3};
	struct sws_test_buf js = {0}, tb = {0};
	assert_sws(0, sws_replay_series_print(&s, 1, SWS_REPLAY_REPORT_JSON, sws_test_buf_write, &js));
	static const char *const keys[] = {"\"repeats\":[{", "\"summary\":{", "\"counters_identical\":true",
					   "\"elapsed_ns\":{\"mean\":", "\"free_latency_us\":{\"mean\":",
					   "\"throughput_kbs\":{\"mean\":", "\"stdev\":", "\"min\":", "\"max\":",
					   "\"work_per_page\":{\"swapout\":{", "\"lock_cluster\":"};
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strstr(js.p, keys[i]))
			fail_msg("key %s missing from the JSON report", keys[i]);
	/* three repeat objects, each with its own counters */
	unsigned n = 0;
	for (const char *p = strstr(js.p, "\"repeats\":["); (p = strstr(p + 1, "{\"events\":"));)
		n++;
	assert_int_equal(n, 3);
	assert_sws(0, sws_replay_series_print(&s, 1, SWS_REPLAY_REPORT_TABLE, sws_test_buf_write, &tb));
	assert_non_null(strstr(tb.p, "3 repeats each (interleaved); counters identical across repeats: yes"));
	assert_non_null(strstr(tb.p, "Free latency (us)"));
	assert_non_null(strstr(tb.p, "-- work per swapped-out page"));
	free(js.p);
	free(tb.p);
}

/* --swapoff: a device swapped off when the input ends, its pages brought
 * back (the tasks keep their memory: --keep); its time reported apart. */
/* bgsave under --verify: the child reads the snapshot while the parent writes
 * (copy-on-write, pages swapped with count 2); no side ever sees the other's
 * writes, on any design. */
static void test_bgsave_verified(void **state)
{
	(void)state;
	static const enum sws_backend bk[] = {SWS_BACKEND_XARRAY, SWS_BACKEND_ST_P4, SWS_BACKEND_VSWAP};
	for (unsigned b = 0; b < 3; b++) {
		struct sws_workload_config wc = {.kind = SWS_WORKLOAD_BGSAVE, .bytes = 3 << 20, .seed = 9};
		struct sws_replay_config cfg = small_config(bk[b], 1);
		cfg.flags |= SWS_REPLAY_VERIFY;
		cfg.nr_swap = 1;
		cfg.swap[0] = (struct sws_replay_swap){.kind = SWS_REPLAY_SWAP_ZRAM, .pages = 4096, .prio = -1};
		struct sws_replay_report rep;
		run_workload(&cfg, &wc, &rep, NULL);
		assert_int_equal(rep.errors, 0);
		assert_true(rep.mm.counters[SWS_MM_cow_fault] > 0);
		assert_true(rep.mm.counters[SWS_MM_pswpin] > 0);
		assert_true(rep.mm.counters[SWS_MM_verify_ok] > 0);
		assert_int_equal(rep.mm.counters[SWS_MM_verify_fail], 0);
		assert_int_equal(rep.verify_failures, 0);
	}
}

/* The hook of test_verify_failure_counted: before the record that reads the
 * page back, every byte of the swap file is overwritten. */
struct corrupt_ctx {
	const char *path;
	_Atomic unsigned done;
};

static void corrupt_hook(void *ctx, unsigned worker, const struct sws_trace_record *rec)
{
	struct corrupt_ctx *c = ctx;
	(void)worker;
	if (rec->op != SWS_TRACE_ACCESS || (rec->flags & SWS_TRACE_F_WRITE) || atomic_load(&c->done))
		return;
	struct stat st;
	int fd = open(c->path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	uint8_t junk[SWS_PAGE_SIZE];
	memset(junk, 0xa5, sizeof(junk));
	for (off_t at = 0; at < st.st_size; at += SWS_PAGE_SIZE)
		assert_int_equal(pwrite(fd, junk, sizeof(junk), at), (ssize_t)sizeof(junk));
	close(fd);
	atomic_store(&c->done, 1);
}

/*
 * One page corrupted on the device is one verify failure, counted once: a
 * task writes one page, pages it out (the only slot in use), and reads it
 * back after its swap file was overwritten. The read returns SWS_ECORRUPT:
 * the report's verify_failures is 1, equal to the memory model's verify_fail
 * counter, and the only error; with one worker and with three (the
 * failure seen on a worker thread, summed with the dispatcher's none).
 */
static void test_verify_failure_counted(void **state)
{
	(void)state;
	char path[256];
	sws_test_path(path, sizeof(path), "replay-verify");
	for (uint32_t threads = 1; threads <= 3; threads += 2) {
		unlink(path);
		struct corrupt_ctx cc = {.path = path};
		struct sws_replay_config cfg = small_config(SWS_BACKEND_ST_P4, threads);
		cfg.flags |= SWS_REPLAY_VERIFY;
		cfg.content_weight[SWS_CONTENT_RANDOM] = 1; /* a page that is not zero */
		cfg.nr_swap = 1;
		cfg.swap[0] = (struct sws_replay_swap){.pages = 1024, .kind = SWS_REPLAY_SWAP_SSD, .prio = -1, .path = path};
		cfg.on_record = corrupt_hook;
		cfg.cb_ctx = &cc;
		const struct sws_trace_record recs[] = {
			REC(SWS_TRACE_ACCESS, 400, 0x200000, 4096, 0, SWS_TRACE_F_WRITE),
			REC(SWS_TRACE_MADV_PAGEOUT, 400, 0x200000, 4096, 0, 0),
			REC(SWS_TRACE_ACCESS, 400, 0x200000, 4096, 0, 0),
		};
		struct sws_test_vec vs = {recs, sizeof(recs) / sizeof(recs[0]), 0};
		struct sws_replay_source src = {.next = sws_test_vec_next, .ctx = &vs};
		struct sws_replay *r;
		struct sws_replay_report rep;
		assert_sws(0, sws_replay_create(&cfg, &r));
		assert_sws(0, sws_replay_run(r, &src));
		assert_sws(0, sws_replay_report_get(r, &rep));
		assert_int_equal(atomic_load(&cc.done), 1);
		assert_int_equal(rep.mm.counters[SWS_MM_pswpout], 1);
		assert_int_equal(rep.mm.counters[SWS_MM_pswpin], 1);
		assert_int_equal(rep.mm.counters[SWS_MM_verify_fail], 1);
		assert_int_equal(rep.mm.counters[SWS_MM_verify_ok], 0);
		assert_int_equal(rep.verify_failures, 1);
		assert_int_equal(rep.errors, 1);
		assert_int_equal(rep.first_error, SWS_ECORRUPT);
		sws_replay_destroy(r);
	}
}

static void test_swapoff_at_end(void **state)
{
	(void)state;
	static const enum sws_backend bk[] = {SWS_BACKEND_ST_P4, SWS_BACKEND_XARRAY, SWS_BACKEND_VSWAP};
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_UNIFORM, .bytes = 3 << 20, .nr_tasks = 2,
					 .nr_accesses = 4000, .write_pct = 30, .seed = 5,
					 .flags = SWS_WORKLOAD_KEEP};
	for (unsigned b = 0; b < 3; b++) {
		struct sws_replay_config cfg = small_config(bk[b], 1);
		cfg.mem_limit_pages = 0;
		cfg.nr_swap = 2;
		cfg.swap[0] = (struct sws_replay_swap){.kind = SWS_REPLAY_SWAP_SSD, .pages = 4096, .prio = 5};
		cfg.swap[1] = (struct sws_replay_swap){.kind = SWS_REPLAY_SWAP_SSD, .pages = 4096, .prio = 1};
		cfg.swapoff_device = 1;
		cfg.flags |= SWS_REPLAY_READ_POPULATES; /* reads fault pages in too: the set is 1.5x RAM */
		struct sws_replay_report rep;
		run_workload(&cfg, &wc, &rep, NULL);
		assert_int_equal(rep.errors, 0);
		assert_true(rep.time.swapoff);
		assert_true(rep.time.swapoff_ns > 0);
		assert_true(rep.mm.counters[SWS_MM_swapoff_swapin] > 0);
		/* device 1 is gone: the report has no figures for it */
		assert_int_equal(rep.devices[0].pages, 0);
		assert_true(rep.devices[1].pages > 0);
		if (bk[b] == SWS_BACKEND_VSWAP)
			assert_int_equal(rep.mm.counters[SWS_MM_swapoff_pte_scan], 0);
		else
			assert_true(rep.mm.counters[SWS_MM_swapoff_pte_scan] >= 1536);
	}
	/* A device that is not there, or an xswap one, is refused at create. */
	struct sws_replay_config bad = small_config(SWS_BACKEND_ST_P4, 1);
	bad.swapoff_device = 2;
	struct sws_replay *r;
	assert_sws(SWS_EINVAL, sws_replay_create(&bad, &r));
}

/* ---- exec, MADV_FREE, and a recorded kernel run ------------------------------------- */

struct op_count {
	_Atomic uint64_t by_op[SWS_TRACE_OP_MAX + 1];
};

static void count_hook(void *ctx, unsigned worker, const struct sws_trace_record *rec)
{
	struct op_count *c = ctx;
	(void)worker;
	atomic_fetch_add(&c->by_op[rec->op], 1);
}

/* Replay @n records on @cfg's machine: the replay (to destroy) and its report. */
static struct sws_replay *replay_recs(const struct sws_replay_config *cfg, const struct sws_trace_record *recs,
				      size_t n, struct sws_replay_report *rep)
{
	struct sws_test_vec vs = {recs, n, 0};
	struct sws_replay_source src = {.next = sws_test_vec_next, .ctx = &vs};
	struct sws_replay *r;
	assert_sws(0, sws_replay_create(cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, rep));
	assert_int_equal(rep->errors, 0);
	return r;
}

/* Lifecycle records a trace may hold without harm: an EXIT of a pid never seen,
 * a MUNMAP of a range nothing mapped, a second EXIT. None is an error. */
static void test_lifecycle_tolerated(void **state)
{
	(void)state;
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	const struct sws_trace_record recs[] = {
		REC(SWS_TRACE_EXIT, 77, 0, 0, 0, 0),
		REC(SWS_TRACE_ACCESS, 1, 0x100000, 8 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_MUNMAP, 1, 0x40000000, 16 * 4096, 0, 0),
		REC(SWS_TRACE_ACCESS, 1, 0x100000, 8 * 4096, 0, 0),
		REC(SWS_TRACE_EXIT, 1, 0, 0, 0, 0),
		REC(SWS_TRACE_EXIT, 1, 0, 0, 0, 0),
	};
	struct sws_replay *r = replay_records(&cfg, recs, sizeof(recs) / sizeof(recs[0]));
	struct sws_replay_report rep;
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_int_equal(rep.errors, 0);
	assert_int_equal(rep.mm.counters[SWS_MM_first_touch], 8); /* the munmap took none of them */
	assert_int_equal(rep.mm.anon_pages, 0);                 /* all gone with the exit */
	sws_replay_destroy(r);
}

/*
 * An mmap over a range the model already maps takes the range and keeps its
 * pages: the 2 MiB region the model assumed around faults seen before any
 * mmap record (the perf sample's first refusal: a mapping returned next to
 * such pages) yields, and a VMA a trace reports again whole (perf's MMAP2
 * after it grows, merges or has its protection changed) keeps what was
 * written in it. None is an error, and no page is touched anew.
 */
static void test_mmap_replaces(void **state)
{
	(void)state;
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	const struct sws_trace_record recs[] = {
		REC(SWS_TRACE_ACCESS, 1, 0x200000, 4 * 4096, 0, SWS_TRACE_F_WRITE), /* implicit [2M, 4M) */
		REC(SWS_TRACE_MMAP, 1, 0x204000, 8 * 4096, 0, 0),                   /* next to those pages */
		REC(SWS_TRACE_ACCESS, 1, 0x204000, 8 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_MMAP, 1, 0x202000, 4 * 4096, 0, 0), /* reported again, over 2 + 2 pages */
		REC(SWS_TRACE_ACCESS, 1, 0x200000, 12 * 4096, 0, 0),
	};
	struct sws_replay *r = replay_records(&cfg, recs, sizeof(recs) / sizeof(recs[0]));
	struct sws_replay_report rep;
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_int_equal(rep.errors, 0);
	assert_int_equal(rep.mm.counters[SWS_MM_first_touch], 12); /* the last read hits all 12 */
	assert_int_equal(rep.mm.anon_pages, 12);
	sws_replay_destroy(r);
}

/*
 * EXEC: the address space goes as at EXIT (its pages freed, its time the old
 * life's free phase) and an empty one takes its place under the same pid, a
 * new task of the report: touching the same pages again faults them in anew.
 * An EXEC of a pid never seen only creates it. The hook sees each EXEC once.
 */
static void test_exec_fresh_space(void **state)
{
	(void)state;
	for (uint32_t threads = 1; threads <= 3; threads += 2) {
		_Atomic uint64_t now = 0;
		struct sws_env env = {.clock_ns = tick_clock, .clock_ctx = (void *)&now};
		struct sws_replay_config cfg = small_config(SWS_BACKEND_ST_P1, threads);
		struct op_count oc;
		memset(&oc, 0, sizeof(oc));
		cfg.env = &env;
		cfg.on_record = count_hook;
		cfg.cb_ctx = &oc;
		const struct sws_trace_record recs[] = {
			REC(SWS_TRACE_EXEC, 300, 0, 0, 0, 0), /* never seen: created */
			REC(SWS_TRACE_ACCESS, 300, 0x100000, 64 * 4096, 0, SWS_TRACE_F_WRITE),
			REC(SWS_TRACE_EXEC, 300, 0, 0, 0, 0),
			REC(SWS_TRACE_ACCESS, 300, 0x100000, 64 * 4096, 0, SWS_TRACE_F_WRITE),
			REC(SWS_TRACE_EXIT, 300, 0, 0, 0, 0),
		};
		struct sws_replay_report rep;
		struct sws_replay *r = replay_recs(&cfg, recs, sizeof(recs) / sizeof(recs[0]), &rep);
		assert_int_equal(rep.mm.counters[SWS_MM_first_touch], 128); /* 64 pages, twice */
		assert_int_equal(rep.mm.counters[SWS_MM_pgfault], 128);
		assert_int_equal(rep.mm.nr_spaces, 2); /* one address space per life */
		assert_int_equal(sws_replay_nr_tasks(r), 2);
		struct sws_replay_task old, cur;
		assert_sws(0, sws_replay_task_get(r, 0, &old));
		assert_sws(0, sws_replay_task_get(r, 1, &cur));
		assert_int_equal(old.pid, 300);
		assert_int_equal(cur.pid, 300);
		assert_true(old.exited && cur.exited);
		assert_true(old.free_ns > 0); /* the exec's teardown: the old life's time */
		assert_int_equal(old.accesses, 64);
		assert_int_equal(cur.accesses, 64);
		assert_int_equal(atomic_load(&oc.by_op[SWS_TRACE_EXEC]), 2);
		assert_int_equal(atomic_load(&oc.by_op[SWS_TRACE_EXIT]), 1);
		assert_consistent(sws_replay_sim(r));
		sws_replay_destroy(r);
	}
}

/* FILE records reach the page cache (sws_mm_file_io()), with one thread and on
 * worker threads: a read of 10 pages misses them all, a second task's read of
 * the same pages hits (the cache outlives the first task), a write of 3 new
 * pages reads nothing and dirties them, a byte range covers the pages it
 * touches. */
static void test_file_dispatch(void **state)
{
	(void)state;
	for (uint32_t threads = 1; threads <= 3; threads += 2) {
		struct sws_replay_config cfg = small_config(SWS_BACKEND_ST_P4, threads);
		const struct sws_trace_record recs[] = {
			REC(SWS_TRACE_FILE, 500, 0, 10 * 4096, 7, 0),
			REC(SWS_TRACE_EXIT, 500, 0, 0, 0, 0),
			REC(SWS_TRACE_FILE, 501, 100, 10 * 4096 - 200, 7, 0), /* pages 0..9 */
			REC(SWS_TRACE_FILE, 501, 20 * 4096, 3 * 4096, 8, SWS_TRACE_F_WRITE),
			REC(SWS_TRACE_FILE, 501, 4096 - 1, 2, 9, 0), /* bytes across pages 0 and 1 */
			REC(SWS_TRACE_FILE, 501, 0, 0, 9, 0),          /* len 0: one page, page 0 */
		};
		struct sws_replay_report rep;
		struct sws_replay *r = replay_recs(&cfg, recs, sizeof(recs) / sizeof(recs[0]), &rep);
		assert_int_equal(rep.mm.counters[SWS_MM_pgpgin_file], 12);
		assert_int_equal(rep.mm.counters[SWS_MM_nr_dirtied], 3);
		sws_replay_destroy(r);
	}
}

/* MADV_FREE reaches sws_mm_madvise(SWS_MADV_FREE): the range's pages are lazily
 * freed (pglazyfree), with one thread and on worker threads. */
static void test_madv_free_dispatch(void **state)
{
	(void)state;
	for (uint32_t threads = 1; threads <= 3; threads += 2) {
		struct sws_replay_config cfg = small_config(SWS_BACKEND_ST_P4, threads);
		const struct sws_trace_record recs[] = {
			REC(SWS_TRACE_ACCESS, 400, 0x200000, 32 * 4096, 0, SWS_TRACE_F_WRITE),
			REC(SWS_TRACE_MADV_FREE, 400, 0x200000 + 8 * 4096, 16 * 4096 - 100, 0, 0),
		};
		struct sws_replay_report rep;
		struct sws_replay *r = replay_recs(&cfg, recs, sizeof(recs) / sizeof(recs[0]), &rep);
		assert_int_equal(rep.mm.counters[SWS_MM_pglazyfree], 16);
		struct sws_replay_task t;
		assert_sws(0, sws_replay_task_get(r, 0, &t));
		assert_true(t.free_ns > 0 || rep.time.sys_ns == 0);
		sws_replay_destroy(r);
	}
}

/* Read the kernel's counter @key from a swapsim-record kernel.txt (its first
 * "key value" line of that key: the setup section has no counter names). */
static uint64_t kernel_counter(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[256], k[128];
	unsigned long long v;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %llu", k, &v) == 2 && !strcmp(k, key)) {
			fclose(f);
			return v;
		}
	fclose(f);
	fail_msg("%s: no %s", path, key);
	return 0;
}

static void within(uint64_t got, uint64_t want, unsigned pct, const char *what)
{
	if (got * 100 < want * (100 - pct) || got * 100 > want * (100 + pct))
		fail_msg("%s: %llu, the kernel's %llu (more than %u%% apart)", what,
			 (unsigned long long)got, (unsigned long long)want, pct);
}

/* What of a recording the replay reads (the three commands of docs/trace-format.md). */
enum rec_filter { REC_ALL, REC_NO_RECLAIM, REC_FAULTS_ONLY };

struct filter_src {
	struct sws_trace_reader *r;
	enum rec_filter filter;
};

static int filter_next(void *ctx, struct sws_trace_record *rec)
{
	struct filter_src *f = ctx;
	for (;;) {
		int rc = sws_trace_reader_next(f->r, rec);
		if (rc <= 0 || f->filter == REC_ALL)
			return rc;
		if (rec->op == SWS_TRACE_RECLAIM)
			continue;
		if (f->filter == REC_FAULTS_ONLY && rec->op != SWS_TRACE_ACCESS)
			continue;
		return rc;
	}
}

static const char *filter_error(void *ctx) { return sws_trace_reader_error(((struct filter_src *)ctx)->r); }

static void replay_recording(enum rec_filter filter, struct sws_replay_report *rep, uint32_t *tasks)
{
	char trace[512];
	snprintf(trace, sizeof(trace), "%s/bgsave32_perf.txt.zst", SWS_TEST_DATA_DIR);
	struct sws_replay_config cfg = small_config(SWS_BACKEND_ST_P1, 1);
	cfg.ram_pages = 0; /* 1 GiB: the memcg decides */
	cfg.mem_limit_pages = 16u << 8;
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.pages = 128u << 8, .kind = SWS_REPLAY_SWAP_ZRAM, .prio = -1};
	cfg.flags = SWS_REPLAY_READ_POPULATES;
	cfg.deferred_every = 0;
	struct sws_replay *r;
	assert_sws(0, sws_replay_create(&cfg, &r));
	struct filter_src fs = {.filter = filter};
	char err[256];
	struct sws_trace_reader_config tc = {.format = SWS_TRACE_FORMAT_PERF};
	assert_sws(0, sws_trace_reader_open(trace, &tc, &fs.r, err, sizeof(err)));
	struct sws_replay_source src = {.next = filter_next, .error = filter_error, .ctx = &fs};
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, rep));
	sws_trace_reader_close(fs.r);
	*tasks = sws_replay_nr_tasks(r);
	sws_replay_destroy(r);
}

/*
 * A recorded kernel run (swapsim-record --mem-limit 16M --zram 128M -- bgsave 32:
 * 32 MiB written, fork, the child reads it all, the parent rewrites half,
 * unmaps the other half; Linux 6.18, zram lz4) replayed on its shape (a 16 MiB
 * memcg, zram, 6.18's design st-p1), with its reclaim events and without: the swap
 * counters come within 5% of the kernel's (measured: pswpin +0.3%, pswpout
 * +1.6%, swap_ra +0.1%, pgmajfault +0.4%). Read as page faults only, the
 * child's reads were first touches and the child never shared a swap entry:
 * a third fewer swap-ins, no readahead (docs/trace-format.md). A page the
 * child swapped in and the parent then rewrote must keep its slot (pswpout
 * +21% otherwise). swapsim-replay --check replays the same recording from its
 * setup section (test replay_cli_check).
 */
static void test_kernel_recording(void **state)
{
	(void)state;
	char kernel[512];
	snprintf(kernel, sizeof(kernel), "%s/bgsave32_kernel.txt", SWS_TEST_DATA_DIR);
	const uint64_t k_in = kernel_counter(kernel, "pswpin"), k_out = kernel_counter(kernel, "pswpout");
	const uint64_t k_ra = kernel_counter(kernel, "swap_ra"), k_maj = kernel_counter(kernel, "pgmajfault");
	/* With the trace's reclaim events, and with the model's own reclaim only. */
	for (enum rec_filter f = REC_ALL; f <= REC_NO_RECLAIM; f++) {
		struct sws_replay_report rep;
		uint32_t tasks;
		replay_recording(f, &rep, &tasks);
		const uint64_t *c = rep.mm.counters;
		within(c[SWS_MM_pswpin], k_in, 5, "pswpin");
		within(c[SWS_MM_pswpout], k_out, 5, "pswpout");
		within(c[SWS_MM_swap_ra], k_ra, 5, "swap_ra");
		within(c[SWS_MM_pgmajfault], k_maj, 5, "pgmajfault");
		/* 32 MiB touched once, by the parent: the child's reads are of inherited pages */
		assert_true(c[SWS_MM_first_touch] >= 8192 && c[SWS_MM_first_touch] < 8192 + 512);
		assert_int_equal(tasks, 3); /* sh, bgsave after its exec, the child */
	}
	/* Page faults only: the child is a process of its own whose reads are first
	 * touches; no swap entry is ever shared, so no readahead on zram, and a
	 * third fewer swap-ins. */
	struct sws_replay_report rep;
	uint32_t tasks;
	replay_recording(REC_FAULTS_ONLY, &rep, &tasks);
	const uint64_t *c = rep.mm.counters;
	assert_int_equal(c[SWS_MM_swap_ra], 0);
	assert_true(c[SWS_MM_first_touch] > 2 * 8192 - 512);
	assert_true(c[SWS_MM_pswpin] * 10 < k_in * 8); /* below 80% of the kernel's */
}

/* ---- per-task streams ---------------------------------------------------------------- */

/* A record's content (not time_ns) folded into a per-pid FNV hash. */
static uint64_t rec_fold(uint64_t h, const struct sws_trace_record *rec)
{
	uint64_t v[] = {rec->op, rec->pid, rec->tid, rec->cpu, rec->addr, rec->len, rec->flags, rec->arg};
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return h;
}

#define ST_TASKS 4
struct per_pid {
	uint64_t hash[ST_TASKS], n[ST_TASKS];
	uint64_t other; /* records of no workload task */
};

static void per_pid_add(struct per_pid *p, const struct sws_trace_record *rec)
{
	unsigned t = rec->pid - 1000;
	if (t >= ST_TASKS) {
		p->other++;
		return;
	}
	p->hash[t] = rec_fold(p->hash[t] ? p->hash[t] : 1469598103934665603ull, rec);
	p->n[t]++;
}

/*
 * Read workload @wc whole through next(), and again with its access phase
 * read as streams (after @skip records of the phase through next()): every
 * task's records are the same, in the same order, and streams() says so
 * once, with one stream per task, each of them one task's.
 */
static void streams_match(const struct sws_workload_config *wc, unsigned skip)
{
	struct sws_workload *a, *b;
	struct sws_trace_record rec;
	struct per_pid serial = {{0}, {0}, 0}, split = {{0}, {0}, 0};
	assert_sws(0, sws_workload_create(wc, &a));
	assert_sws(0, sws_workload_create(wc, &b));
	struct sws_replay_source sa = sws_workload_source(a), sb = sws_workload_source(b);
	uint64_t na = 0, nb = 0;
	while (sa.next(sa.ctx, &rec) == 1) {
		per_pid_add(&serial, &rec);
		na++;
	}
	assert_int_equal(na, sws_workload_total(a));
	unsigned announced = 0, seen_phase = 0;
	for (;;) {
		uint32_t n = sb.streams(sb.ctx);
		if (n && seen_phase++ >= skip) {
			assert_int_equal(n, wc->nr_tasks);
			announced++;
			for (uint32_t s = 0; s < n; s++)
				while (sb.stream(sb.ctx, s, &rec) == 1) {
					assert_int_equal(rec.pid, 1000 + s); /* a stream is one task's */
					per_pid_add(&split, &rec);
					nb++;
				}
			assert_int_equal(sb.streams(sb.ctx), 0); /* through */
			continue;
		}
		if (sb.next(sb.ctx, &rec) != 1)
			break;
		per_pid_add(&split, &rec);
		nb++;
	}
	assert_int_equal(announced, 1);
	assert_int_equal(nb, na);
	assert_memory_equal(&serial, &split, sizeof(serial));
	sws_workload_destroy(a);
	sws_workload_destroy(b);
}

static void test_workload_streams(void **state)
{
	(void)state;
	const struct sws_workload_config cases[] = {
		{.kind = SWS_WORKLOAD_ZIPF, .bytes = 1 << 20, .nr_tasks = 3, .nr_accesses = 1000, .write_pct = 30, .seed = 7},
		{.kind = SWS_WORKLOAD_UNIFORM, .bytes = 1 << 20, .nr_tasks = 2, .nr_accesses = 999, .seed = 2},
		{.kind = SWS_WORKLOAD_USEMEM, .bytes = 200 << 10, .nr_tasks = 3, .repeat = 2},
		{.kind = SWS_WORKLOAD_USEMEM, .bytes = 200 << 10, .nr_tasks = 4, .repeat = 2,
		 .flags = SWS_USEMEM_SYNC_RW | SWS_USEMEM_SYNC_FREE | SWS_USEMEM_RANDOM},
		{.kind = SWS_WORKLOAD_USEMEM, .bytes = 100 << 10, .nr_tasks = 2, .flags = SWS_WORKLOAD_KEEP},
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		streams_match(&cases[i], 0);
		streams_match(&cases[i], 17); /* from the middle of the phase */
	}
	/* A task's own random stream: the tasks of zipf do not repeat each other. */
	struct sws_workload *wl;
	struct sws_workload_config z = cases[0];
	z.nr_tasks = 2;
	assert_sws(0, sws_workload_create(&z, &wl));
	struct sws_replay_source src = sws_workload_source(wl);
	struct sws_trace_record rec;
	while (!src.streams(src.ctx))
		assert_int_equal(src.next(src.ctx, &rec), 1);
	uint64_t same = 0;
	for (unsigned k = 0; k < 500; k++) {
		struct sws_trace_record r0, r1;
		assert_int_equal(src.stream(src.ctx, 0, &r0), 1);
		assert_int_equal(src.stream(src.ctx, 1, &r1), 1);
		same += r0.addr == r1.addr;
	}
	assert_true(same < 250);
	/* kbuild and bgsave fork or share: never streams */
	sws_workload_destroy(wl);
	struct sws_workload_config bg = {.kind = SWS_WORKLOAD_BGSAVE, .bytes = 1 << 20};
	assert_sws(0, sws_workload_create(&bg, &wl));
	src = sws_workload_source(wl);
	do
		assert_int_equal(src.streams(src.ctx), 0);
	while (src.next(src.ctx, &rec) == 1);
	sws_workload_destroy(wl);
}

static void no_sample(void *ctx, const struct sws_replay_sample *s)
{
	(void)ctx;
	(void)s;
}

struct stream_seen {
	uint64_t hash[ST_TASKS], n[ST_TASKS]; /* each written by the one worker that runs the task */
	unsigned worker[ST_TASKS];
	_Atomic uint64_t structural_on_dispatcher, wrong_worker;
	unsigned nthreads;
};

static void stream_hook(void *ctx, unsigned worker, const struct sws_trace_record *rec)
{
	struct stream_seen *c = ctx;
	unsigned t = rec->pid - 1000;
	if (t >= ST_TASKS)
		return;
	c->hash[t] = rec_fold(c->hash[t] ? c->hash[t] : 1469598103934665603ull, rec);
	c->n[t]++;
	bool structural = rec->op == SWS_TRACE_MMAP || rec->op == SWS_TRACE_MUNMAP || rec->op == SWS_TRACE_EXIT;
	if (structural && worker == c->nthreads)
		atomic_fetch_add(&c->structural_on_dispatcher, 1);
	else if (worker != rec->tid % c->nthreads)
		atomic_fetch_add(&c->wrong_worker, 1);
}

/*
 * A workload's access phase on two workers runs as per-task streams: every
 * task's records run once, in its order, on the worker its tid maps to, its
 * MMAP, MUNMAP and EXIT included (not on the dispatcher, as outside
 * streams); what each task touches is the same as with one thread.
 */
static void test_replay_streams(void **state)
{
	(void)state;
	/* tasks 0 and 2 share worker 0: 1024 pages live at once in the 512-page memcg */
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 2 << 20, .nr_tasks = 3, .repeat = 2};
	struct sws_workload *wl;
	struct sws_trace_record rec;
	struct per_pid want = {{0}, {0}, 0};
	assert_sws(0, sws_workload_create(&wc, &wl));
	struct sws_replay_source src = sws_workload_source(wl);
	while (src.next(src.ctx, &rec) == 1)
		per_pid_add(&want, &rec);
	sws_workload_destroy(wl);

	struct sws_replay_report one, two;
	struct stream_seen seen;
	memset(&seen, 0, sizeof(seen));
	seen.nthreads = 2;
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 2);
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.pages = 4096, .prio = -1};
	cfg.on_record = stream_hook;
	cfg.cb_ctx = &seen;
	run_workload(&cfg, &wc, &two, NULL);
	assert_memory_equal(seen.hash, want.hash, sizeof(want.hash));
	assert_memory_equal(seen.n, want.n, sizeof(want.n));
	assert_int_equal(seen.structural_on_dispatcher, 0);
	assert_int_equal(seen.wrong_worker, 0);
	assert_int_equal(two.errors, 0);
	assert_true(two.mm.counters[SWS_MM_pswpout] > 0);
	cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.pages = 4096, .prio = -1};
	run_workload(&cfg, &wc, &one, NULL);
	assert_int_equal(one.events, two.events);
	assert_int_equal(one.accesses, two.accesses);
	assert_int_equal(one.mm.counters[SWS_MM_first_touch], two.mm.counters[SWS_MM_first_touch]);

	/* With samples (cut at record counts) the dispatcher hands out every record:
	 * the structural ones run on its CPU. */
	memset(&seen, 0, sizeof(seen));
	seen.nthreads = 2;
	cfg = small_config(SWS_BACKEND_SWAP_TABLE, 2);
	cfg.clock = SWS_REPLAY_CLOCK_HOST; /* the modelled clock runs barriers on the task's CPU */
	cfg.nr_swap = 1;
	cfg.swap[0] = (struct sws_replay_swap){.pages = 4096, .prio = -1};
	cfg.on_record = stream_hook;
	cfg.cb_ctx = &seen;
	cfg.sample_every = 100000;
	cfg.sample = no_sample;
	run_workload(&cfg, &wc, &two, NULL);
	assert_memory_equal(seen.hash, want.hash, sizeof(want.hash));
	assert_int_equal(seen.structural_on_dispatcher, 3 * 3);
}

/* Two streams of fixed records; @fail: the index at which a stream's read fails (-1: never). */
struct two_streams {
	const struct sws_trace_record *recs[2];
	int64_t n[2], pos[2], fail[2];
	bool started;
};

static int ts_stream(void *ctx, uint32_t s, struct sws_trace_record *rec)
{
	struct two_streams *t = ctx;
	t->started = true;
	if (t->pos[s] == t->fail[s])
		return SWS_EIO;
	if (t->pos[s] == t->n[s])
		return 0;
	*rec = t->recs[s][t->pos[s]++];
	return 1;
}

static uint32_t ts_streams(void *ctx) { return ((struct two_streams *)ctx)->started ? 0 : 2; }

static int ts_next(void *ctx, struct sws_trace_record *rec)
{
	int rc = ts_stream(ctx, 0, rec);
	return rc ? rc : ts_stream(ctx, 1, rec);
}

static const char *ts_error(void *ctx)
{
	(void)ctx;
	return "two streams: read error";
}

static int stop_at_once(void *ctx, uint64_t events)
{
	(void)ctx;
	(void)events;
	return 1;
}

/*
 * A stream's records are its process's: another pid's record, a FORK, and
 * anything after its EXIT are errors of those records; a stream the source
 * fails to read is the run's error, with the source's message; progress()
 * stops a run in the middle of its streams.
 */
static void test_stream_errors(void **state)
{
	(void)state;
	const struct sws_trace_record s0[] = {
		REC(SWS_TRACE_ACCESS, 7, 0x100000, 4 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_ACCESS, 7, 0x100000, 4096, 0, 0),
		REC(SWS_TRACE_ACCESS, 8, 0x100000, 4096, 0, 0), /* not its pid */
		REC(SWS_TRACE_FORK, 7, 0, 0, 70, 0),             /* streams do not fork */
		REC(SWS_TRACE_EXIT, 7, 0, 0, 0, 0),
		REC(SWS_TRACE_ACCESS, 7, 0x100000, 4096, 0, 0),  /* after its EXIT */
	};
	const struct sws_trace_record s1[] = {
		REC(SWS_TRACE_MMAP, 9, 0x200000, 16 * 4096, 0, 0),
		REC(SWS_TRACE_ACCESS, 9, 0x200000, 16 * 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_MUNMAP, 9, 0x200000, 16 * 4096, 0, 0),
		REC(SWS_TRACE_EXIT, 9, 0, 0, 0, 0),
	};
	struct two_streams t = {{s0, s1}, {6, 4}, {0, 0}, {-1, -1}, false};
	struct sws_replay_source src = {
		.next = ts_next, .error = ts_error, .ctx = &t, .streams = ts_streams, .stream = ts_stream};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 2);
	struct sws_replay *r;
	struct sws_replay_report rep;
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_int_equal(rep.events, 10);
	assert_int_equal(rep.errors, 3);
	assert_int_equal(rep.accesses, 4 + 1 + 16);
	assert_int_equal(sws_replay_nr_tasks(r), 2);
	sws_replay_destroy(r);

	/* A first record no stream may carry is that record's error; a second
	 * stream of one pid is refused (one process, one worker). */
	const struct sws_trace_record d0[] = {
		REC(SWS_TRACE_FORK, 7, 0, 0, 70, 0),
		REC(SWS_TRACE_ACCESS, 7, 0x100000, 4096, 0, SWS_TRACE_F_WRITE),
		REC(SWS_TRACE_ACCESS, 7, 0x101000, 4096, 0, SWS_TRACE_F_WRITE),
	};
	const struct sws_trace_record d1[] = {
		REC(SWS_TRACE_ACCESS, 7, 0x100000, 4096, 0, 0),
		REC(SWS_TRACE_ACCESS, 7, 0x100000, 4096, 0, 0),
		REC(SWS_TRACE_EXIT, 7, 0, 0, 0, 0),
	};
	struct two_streams dup = {{d0, d1}, {3, 3}, {0, 0}, {-1, -1}, false};
	src.ctx = &dup;
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_int_equal(rep.events, 6);
	assert_int_equal(rep.errors, 1 + 3);
	assert_int_equal(rep.accesses, 2);
	assert_int_equal(sws_replay_nr_tasks(r), 1);
	sws_replay_destroy(r);

	struct two_streams bad = {{s0, s1}, {6, 4}, {0, 0}, {-1, 2}, false};
	src.ctx = &bad;
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(SWS_EIO, sws_replay_run(r, &src));
	assert_non_null(strstr(sws_replay_error(r), "read error"));
	sws_replay_destroy(r);

	/* Interrupted in the middle of the streams: the run stops cleanly. */
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_ZIPF, .bytes = 4 << 20, .nr_tasks = 2,
					 .nr_accesses = 20000000, .seed = 1};
	struct sws_workload *wl;
	assert_sws(0, sws_workload_create(&wc, &wl));
	cfg.progress = stop_at_once;
	assert_sws(0, sws_replay_create(&cfg, &r));
	src = sws_workload_source(wl);
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_true(rep.interrupted);
	assert_true(rep.events > 2 && rep.events < sws_workload_total(wl));
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_quantile),
		cmocka_unit_test(test_task_order),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_usemem_lines),
		cmocka_unit_test(test_metadata_ram_default),
		cmocka_unit_test(test_compare_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_replay_traces),
		cmocka_unit_test(test_swap_kinds),
		cmocka_unit_test(test_xswap_replay),
		cmocka_unit_test(test_oom_bounds_reclaim),
		cmocka_unit_test(test_zswap_worker_prompt),
		cmocka_unit_test(test_kbuild_workload),
		cmocka_unit_test(test_workload_bounds),
		cmocka_unit_test(test_file_dispatch),
		cmocka_unit_test(test_simulated_time),
		cmocka_unit_test(test_repeats_json),
		cmocka_unit_test(test_backing_files),
		cmocka_unit_test(test_usemem_oom_killed),
		cmocka_unit_test(test_table_discard),
		cmocka_unit_test(test_fork_reused_pid),
		cmocka_unit_test(test_sample_progress_countdown),
		cmocka_unit_test(test_pid_reused_after_exit),
		cmocka_unit_test(test_ring_record_runs_in_place),
		cmocka_unit_test(test_undo_charged_to_nobody),
		cmocka_unit_test(test_report_repeats),
		cmocka_unit_test(test_swapoff_at_end),
		cmocka_unit_test(test_bgsave_verified), cmocka_unit_test(test_verify_failure_counted),
		cmocka_unit_test(test_exec_fresh_space),
		cmocka_unit_test(test_madv_free_dispatch),
		cmocka_unit_test(test_kernel_recording),
		cmocka_unit_test(test_memcg_per_task), cmocka_unit_test(test_memcg_per_task_usemem),
		cmocka_unit_test(test_lifecycle_tolerated),
		cmocka_unit_test(test_mmap_replaces),
		cmocka_unit_test(test_workload_streams),
		cmocka_unit_test(test_replay_streams),
		cmocka_unit_test(test_stream_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
