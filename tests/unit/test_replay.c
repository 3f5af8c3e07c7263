/*
 * test_replay.c - the replay driver: value parsing (sizes, swap specs, content
 * mixes, workload options), per-task ordering across worker threads,
 * determinism with one thread, usemem's output lines, --compare fault counts,
 * the JSON report's shape and the CSV time series.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include <swapsim/replay.h>

/* ---- helpers ----------------------------------------------------------------------- */

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_write(void *ctx, const char *text, size_t len)
{
	struct buf *b = ctx;
	if (b->len + len + 1 > b->cap) {
		b->cap = (b->len + len + 1) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, text, len);
	b->len += len;
	b->p[b->len] = 0;
	return 0;
}

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
			 struct sws_replay_report *rep, struct buf *lines)
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
	assert_sws(0, sws_replay_report(r, rep));
	assert_int_equal(rep->events, sws_workload_total(wl));
	assert_consistent(sws_replay_sim(r));
	if (lines)
		assert_sws(0, sws_workload_print_results(wl, r, buf_write, lines));
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
}

/* ---- parsing ----------------------------------------------------------------------- */

static void test_parse_size(void **state)
{
	(void)state;
	uint64_t v;
	static const struct {
		const char *s;
		uint64_t want;
	} ok[] = {{"0", 0},          {"10", 10},          {"4K", 4096},       {"4k", 4096},
		  {"1M", 1u << 20},   {"2G", 2ull << 30},  {"1T", 1ull << 40}, {"3p", 3 * 4096},
		  {"256p", 1u << 20}, {"1GiB", 1ull << 30}, {"16MB", 16u << 20}};
	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_sws(0, sws_replay_parse_size(ok[i].s, &v));
		assert_int_equal(v, ok[i].want);
	}
	static const char *const bad[] = {"", "12Q", "-1", "1.5G", "G", "p", "4K4",
					  "99999999999999999999", "17179869184G", " 1M", "1pB"};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_sws(SWS_EINVAL, sws_replay_parse_size(bad[i], &v));
	assert_sws(SWS_EINVAL, sws_replay_parse_size(NULL, &v));
}

static void test_parse_swap_and_content(void **state)
{
	(void)state;
	struct sws_replay_swap sw;
	char msg[128];
	char s1[] = "size=1G,type=zram,prio=5,file=/tmp/x.swap,rlat=100,wlat=200";
	assert_sws(0, sws_replay_parse_swap(s1, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.pages, (1ull << 30) / 4096);
	assert_int_equal(sw.kind, SWS_REPLAY_SWAP_ZRAM);
	assert_int_equal(sw.prio, 5);
	assert_string_equal(sw.path, "/tmp/x.swap");
	assert_int_equal(sw.read_ns, 100);
	assert_int_equal(sw.write_ns, 200);
	char s2[] = "size=512p";
	assert_sws(0, sws_replay_parse_swap(s2, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.pages, 512);
	assert_int_equal(sw.prio, -1);
	assert_int_equal(sw.kind, SWS_REPLAY_SWAP_SSD);
	char s3[] = "type=floppy";
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(s3, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "type=floppy"));
	char s4[] = "colour=blue";
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(s4, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "colour"));
	char s5[] = "prio=40000";
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(s5, &sw, msg, sizeof(msg)));
	char s6[] = "size";
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(s6, &sw, msg, sizeof(msg)));
	/* A file is created new unless reuse (and, for a symbolic link, follow) is said. */
	assert_int_equal(sw.file_flags, 0);
	char s7[] = "file=/tmp/x,reuse,follow";
	assert_sws(0, sws_replay_parse_swap(s7, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.file_flags, SWS_BACKING_REUSE | SWS_BACKING_FOLLOW);
	char s8[] = "size=8M,reuse";
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(s8, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "file=PATH"));

	uint32_t w[SWS_NR_CONTENT];
	assert_sws(0, sws_replay_parse_content("zero=1,index=3,random", w, msg, sizeof(msg)));
	assert_int_equal(w[SWS_CONTENT_ZERO], 1);
	assert_int_equal(w[SWS_CONTENT_INDEX], 3);
	assert_int_equal(w[SWS_CONTENT_RANDOM], 1);
	assert_int_equal(w[SWS_CONTENT_SAME], 0);
	assert_sws(SWS_EINVAL, sws_replay_parse_content("gold=1", w, msg, sizeof(msg)));
	assert_sws(SWS_EINVAL, sws_replay_parse_content("zero=0", w, msg, sizeof(msg)));
	assert_sws(SWS_EINVAL, sws_replay_parse_content("", w, msg, sizeof(msg)));
}

static void test_parse_workload_args(void **state)
{
	(void)state;
	struct sws_workload_config c = {.kind = SWS_WORKLOAD_USEMEM};
	char msg[128];
	char *argv1[] = {"--init-time", "-O", "-y", "-x", "-R", "--random-seed", "3", "-Z",
			 "-n", "31", "-r2", "-j", "4096", "1G"};
	assert_sws(0, sws_workload_parse_args(&c, 14, argv1, msg, sizeof(msg)));
	assert_int_equal(c.kind, SWS_WORKLOAD_USEMEM);
	assert_int_equal(c.bytes, 1ull << 30);
	assert_int_equal(c.nr_tasks, 31);
	assert_int_equal(c.repeat, 2);
	assert_int_equal(c.step, 4096);
	assert_int_equal(c.seed, 3);
	assert_int_equal(c.flags, SWS_USEMEM_INIT_TIME | SWS_USEMEM_SYNC_RW | SWS_USEMEM_SYNC_FREE |
					  SWS_USEMEM_RANDOM | SWS_USEMEM_READ_AGAIN);
	char *argv2[] = {"-n", "0", "1M"};
	assert_sws(SWS_EINVAL, sws_workload_parse_args(&c, 3, argv2, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "-n"));
	c.kind = SWS_WORKLOAD_USEMEM;
	char *argv3[] = {"-y"};
	assert_sws(SWS_EINVAL, sws_workload_parse_args(&c, 1, argv3, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "SIZE"));
	c.kind = SWS_WORKLOAD_USEMEM;
	char *argv4[] = {"--bogus", "1M"};
	assert_sws(SWS_EINVAL, sws_workload_parse_args(&c, 2, argv4, msg, sizeof(msg)));
	c.kind = SWS_WORKLOAD_MEMHOG;
	char *argv5[] = {"-r3", "64p"};
	assert_sws(0, sws_workload_parse_args(&c, 2, argv5, msg, sizeof(msg)));
	assert_int_equal(c.repeat, 3);
	assert_int_equal(c.bytes, 64 * 4096);
	c.kind = SWS_WORKLOAD_ZIPF;
	char *argv6[] = {"-s", "1.2", "-w", "50", "-a", "1000", "--seed", "9", "8M"};
	assert_sws(0, sws_workload_parse_args(&c, 9, argv6, msg, sizeof(msg)));
	assert_true(c.zipf_s > 1.19 && c.zipf_s < 1.21);
	assert_int_equal(c.write_pct, 50);
	assert_int_equal(c.nr_accesses, 1000);
	c.kind = SWS_WORKLOAD_ZIPF;
	char *argv7[] = {"-w", "101", "8M"};
	assert_sws(SWS_EINVAL, sws_workload_parse_args(&c, 3, argv7, msg, sizeof(msg)));
	enum sws_workload_kind k;
	assert_sws(0, sws_workload_parse("bgsave", &k));
	assert_int_equal(k, SWS_WORKLOAD_BGSAVE);
	assert_sws(SWS_EINVAL, sws_workload_parse("stream", &k));

	/* Configuration validation. */
	struct sws_workload *wl = NULL;
	struct sws_workload_config bad = {.kind = SWS_WORKLOAD_ZIPF};
	assert_sws(SWS_EINVAL, sws_workload_create(&bad, &wl)); /* bytes 0 */
	bad = (struct sws_workload_config){.kind = SWS_WORKLOAD_ZIPF, .bytes = 4096, .write_pct = 200};
	assert_sws(SWS_EINVAL, sws_workload_create(&bad, &wl));
	bad = (struct sws_workload_config){.version = 9, .kind = SWS_WORKLOAD_ZIPF, .bytes = 4096};
	assert_sws(SWS_EVERSION, sws_workload_create(&bad, &wl));
	struct sws_replay *r = NULL;
	struct sws_replay_config rc = {.threads = 1000};
	assert_sws(SWS_EINVAL, sws_replay_create(&rc, &r));
	rc = (struct sws_replay_config){.ram_pages = 10};
	assert_sws(SWS_EINVAL, sws_replay_create(&rc, &r));
	rc = (struct sws_replay_config){.version = 99};
	assert_sws(SWS_EVERSION, sws_replay_create(&rc, &r));
	assert_null(r);
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
		assert_sws(0, sws_replay_report(r, &rep));
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
		if (c != SWS_MM_free_ns) /* measured time */
			assert_int_equal(a.mm.counters[c], b.mm.counters[c]);
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

/* ---- usemem output -------------------------------------------------------------------- */

static void test_usemem_lines(void **state)
{
	(void)state;
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 1 << 20, .nr_tasks = 2,
					 .flags = SWS_USEMEM_INIT_TIME | SWS_USEMEM_READ_AGAIN |
						  SWS_USEMEM_SYNC_RW | SWS_USEMEM_SYNC_FREE};
	struct sws_replay_config cfg = small_config(SWS_BACKEND_SWAP_TABLE, 1);
	struct sws_replay_report rep;
	struct buf out = {0};
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
	/* Fault counts do not depend on the swap-cache design. */
	assert_int_equal(reps[0].mm.counters[SWS_MM_pgfault], reps[1].mm.counters[SWS_MM_pgfault]);
	assert_int_equal(reps[0].mm.counters[SWS_MM_cow_fault], reps[1].mm.counters[SWS_MM_cow_fault]);
	assert_int_equal(reps[0].events, reps[1].events);

	struct buf js = {0};
	assert_sws(0, sws_replay_report_print(ptrs, 2, SWS_REPLAY_REPORT_JSON, buf_write, &js));
	assert_true(!strncmp(js.p, "{\"runs\":[{\"backend\":\"swap_table\"", 32));
	int depth = 0, max_depth = 0, objects_at_1 = 0;
	bool in_str = false;
	for (const char *p = js.p; *p; p++) {
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
	struct buf tb = {0};
	assert_sws(0, sws_replay_report_print(ptrs, 2, SWS_REPLAY_REPORT_TABLE, buf_write, &tb));
	assert_non_null(strstr(tb.p, "swap_table"));
	assert_non_null(strstr(tb.p, "pgmajfault"));
	free(js.p);
	free(tb.p);
}

struct csv_ctx {
	struct buf b;
	unsigned rows;
};

static void csv_sample(void *ctx, const struct sws_replay_sample *s)
{
	struct csv_ctx *c = ctx;
	c->rows++;
	assert_sws(0, sws_replay_csv_row(SWS_BACKEND_XARRAY, s, buf_write, &c->b));
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
	assert_sws(0, sws_replay_report(r, rep));
	assert_consistent(sws_replay_sim(r));
	sws_trace_reader_close(rs.r);
	sws_replay_destroy(r);
}

/* Replay a real trace excerpt with pages verified, on both backends: same faults,
 * nothing refused, every page read back identical, no slot left at exit. */
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
		cfg.flags |= SWS_REPLAY_VERIFY | SWS_REPLAY_READ_POPULATES;
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
	char msg[128];
	struct sws_replay_swap sw;
	char a[] = "type=sata", b[] = "type=nvme,size=1G", c[] = "type=floppy";
	assert_sws(0, sws_replay_parse_swap(a, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.kind, SWS_REPLAY_SWAP_SATA);
	assert_sws(0, sws_replay_parse_swap(b, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.kind, SWS_REPLAY_SWAP_SSD);
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(c, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "sata"));
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
	assert_sws(0, sws_replay_csv_header(buf_write, &c.b));
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
	struct buf b = {0};
	assert_sws(0, sws_replay_csv_row(SWS_BACKEND_SWAP_TABLE, s, buf_write, &b));
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
	char msg[256];
	struct sws_replay_swap sw;
	char a[] = "type=xswap,prio=3,limit=131072", b[] = "type=xswap,size=1G", c[] = "size=1G,limit=5",
	     d[] = "limit=0,type=xswap";
	assert_sws(0, sws_replay_parse_swap(a, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.kind, SWS_REPLAY_SWAP_XSWAP);
	assert_int_equal(sw.prio, 3);
	assert_int_equal(sw.limit_pages, 131072);
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(b, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "type=xswap"));
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(c, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "limit="));
	assert_sws(SWS_EINVAL, sws_replay_parse_swap(d, &sw, msg, sizeof(msg)));

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
 * page). Each fault used to rescan the whole LRU in vain (the repro took 135 M
 * scans, 8,000 per page access, 30 s); now MAX_RECLAIM_RETRIES fruitless
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_swap_and_content),
		cmocka_unit_test(test_parse_workload_args),
		cmocka_unit_test(test_task_order),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_usemem_lines),
		cmocka_unit_test(test_compare_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_replay_traces),
		cmocka_unit_test(test_swap_kinds),
		cmocka_unit_test(test_xswap_replay),
		cmocka_unit_test(test_oom_bounds_reclaim),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
