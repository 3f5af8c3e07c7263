/*
 * test_trace.c - trace readers and the native writer: every importer on the
 * samples (tests/data, and ../shared/samples when present) with counts taken
 * independently (grep/awk) and exact first and last records; native text,
 * binary and zstd round trips of random records; format detection; and
 * malformed input of every kind for every format, each giving the right code
 * and a message naming the file and the line or byte offset. Also allocation
 * failures (fail the Nth allocation) and no leaks.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "testutil.h"
#include "trace/trace_internal.h" /* sws__crc32c */

#define DATA SWS_TEST_DATA_DIR "/"

struct recs {
	struct sws_trace_record *v;
	size_t n, cap;
};

static void recs_push(struct recs *r, const struct sws_trace_record *x)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	r->v[r->n++] = *x;
}

/* Read a whole trace; @return the code that ended it (0 at a clean end). */
static int read_all(const char *path, const struct sws_trace_reader_config *cfg, struct recs *out,
		    char *msg, size_t msglen)
{
	struct sws_trace_reader *r;
	int rc = sws_trace_reader_open(path, cfg, &r, msg, msglen);
	if (rc) {
		assert_null(r);
		return rc;
	}
	struct sws_trace_record x;
	while ((rc = sws_trace_reader_next(r, &x)) == 1)
		if (out)
			recs_push(out, &x);
	if (rc < 0) {
		snprintf(msg, msglen, "%s", sws_trace_reader_error(r));
		struct sws_trace_record y;
		assert_int_equal(sws_trace_reader_next(r, &y), rc); /* sticky */
	}
	sws_trace_reader_close(r);
	return rc;
}

static struct recs load(const char *path, const struct sws_trace_reader_config *cfg)
{
	struct recs v = {0};
	char msg[600] = "";
	int rc = read_all(path, cfg, &v, msg, sizeof(msg));
	if (rc)
		fail_msg("%s: %s (%s)", path, msg, sws_error_name(rc));
	return v;
}

static void rec_eq(const struct sws_trace_record *x, uint64_t time_ns, uint64_t addr, uint64_t len,
		   uint32_t op, uint32_t flags, uint32_t pid, uint32_t tid, uint32_t cpu, uint32_t arg)
{
	assert_int_equal(x->time_ns, time_ns);
	assert_int_equal(x->addr, addr);
	assert_int_equal(x->len, len);
	assert_int_equal(x->op, op);
	assert_int_equal(x->flags, flags);
	assert_int_equal(x->pid, pid);
	assert_int_equal(x->tid, tid);
	assert_int_equal(x->cpu, cpu);
	assert_int_equal(x->arg, arg);
}

static size_t count_flag(const struct recs *v, uint32_t op, uint32_t mask, uint32_t want)
{
	size_t n = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].op == op && (v->v[i].flags & mask) == want)
			n++;
	return n;
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

static const char *tmp_file(char *buf, size_t len, const char *name, const void *data, size_t n)
{
	sws_test_path(buf, len, name);
	write_file(buf, data, n);
	return buf;
}

static const char *tmp_text(char *buf, size_t len, const char *name, const char *text)
{
	return tmp_file(buf, len, name, text, strlen(text));
}

/* The trace must fail with @code and a message holding the file name and @where. */
static void expect_error(const char *path, const struct sws_trace_reader_config *cfg, int code,
			 const char *where)
{
	char msg[600] = "";
	int rc = read_all(path, cfg, NULL, msg, sizeof(msg));
	if (rc != code)
		fail_msg("%s: got %s, want %s (%s)", path, sws_error_name(rc), sws_error_name(code), msg);
	if (!strstr(msg, path))
		fail_msg("message \"%s\" does not name the file %s", msg, path);
	if (where && !strstr(msg, where))
		fail_msg("message \"%s\" does not say \"%s\"", msg, where);
}

static struct sws_trace_reader_config with_format(enum sws_trace_format f)
{
	struct sws_trace_reader_config c = {.format = f};
	return c;
}

/* ---- names and configuration -------------------------------------------- */

static void test_names(void **state)
{
	(void)state;
	enum sws_trace_format f;
	for (unsigned i = 0; i < SWS_TRACE_NR_FORMATS; i++) {
		assert_sws(0, sws_trace_format_parse(sws_trace_format_name((enum sws_trace_format)i), &f));
		assert_int_equal(f, i);
	}
	assert_string_equal(sws_trace_format_name(SWS_TRACE_FORMAT_DAMON), "damon");
	assert_string_equal(sws_trace_format_name((enum sws_trace_format)77), "unknown");
	assert_sws(SWS_EINVAL, sws_trace_format_parse("pin", &f));
	uint32_t op;
	for (uint32_t i = 1; i <= SWS_TRACE_OP_MAX; i++) {
		assert_sws(0, sws_trace_op_parse(sws_trace_op_name(i), &op));
		assert_int_equal(op, i);
	}
	assert_string_equal(sws_trace_op_name(SWS_TRACE_MADV_PAGEOUT), "pageout");
	/* values are stored in binary traces: new ops only ever come after RECLAIM */
	assert_int_equal(SWS_TRACE_RECLAIM, 8);
	assert_int_equal(SWS_TRACE_EXEC, 9);
	assert_int_equal(SWS_TRACE_MADV_FREE, 10);
	assert_int_equal(SWS_TRACE_FILE, 11);
	assert_int_equal(SWS_TRACE_MADV_HUGEPAGE, 12);
	assert_int_equal(SWS_TRACE_MADV_NOHUGEPAGE, 13);
	assert_string_equal(sws_trace_op_name(SWS_TRACE_MADV_HUGEPAGE), "hugepage");
	assert_string_equal(sws_trace_op_name(SWS_TRACE_MADV_NOHUGEPAGE), "nohugepage");
	assert_string_equal(sws_trace_op_name(SWS_TRACE_EXEC), "exec");
	assert_string_equal(sws_trace_op_name(SWS_TRACE_MADV_FREE), "free");
	assert_string_equal(sws_trace_op_name(SWS_TRACE_FILE), "file");
	assert_string_equal(sws_trace_op_name(0), "?");
	assert_string_equal(sws_trace_op_name(99), "?");
	assert_sws(SWS_EINVAL, sws_trace_op_parse("read", &op));
	assert_int_equal(sizeof(struct sws_trace_record), 48);
	assert_string_equal(sws_error_name(SWS_EFORMAT), "SWS_EFORMAT");
}

static void test_config(void **state)
{
	(void)state;
	struct sws_trace_reader *r = (void *)1;
	char msg[600];
	const char *p = DATA "lackey_head.txt";
	assert_sws(SWS_EINVAL, sws_trace_reader_open(NULL, NULL, &r, msg, sizeof(msg)));
	assert_sws(SWS_EINVAL, sws_trace_reader_open(p, NULL, NULL, msg, sizeof(msg)));
	struct sws_trace_reader_config c = {.version = SWS_TRACE_READER_CONFIG_VERSION + 1};
	assert_sws(SWS_EVERSION, sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)));
	assert_null(r);
	c = (struct sws_trace_reader_config){.format = (enum sws_trace_format)9};
	assert_sws(SWS_EINVAL, sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)));
	c = (struct sws_trace_reader_config){.max_line = 10};
	assert_sws(SWS_EINVAL, sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)));
	c = (struct sws_trace_reader_config){.flags = 1u << 7};
	assert_sws(SWS_EINVAL, sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)));
	c = (struct sws_trace_reader_config){.damon_sample_us = 200000};
	assert_sws(SWS_EINVAL, sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "lackey_head.txt"));
	/* A file that does not exist: SWS_EIO, named. */
	assert_sws(SWS_EIO, sws_trace_reader_open("/nonexistent/trace.txt", NULL, &r, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "/nonexistent/trace.txt"));
	sws_trace_reader_close(NULL);

	struct sws_trace_writer *w = (void *)1;
	struct sws_trace_writer_config wc = {.encoding = (enum sws_trace_encoding)5};
	char path[256];
	sws_test_path(path, sizeof(path), "cfg.trace");
	assert_sws(SWS_EINVAL, sws_trace_writer_open(path, &wc, &w, msg, sizeof(msg)));
	assert_null(w);
	wc = (struct sws_trace_writer_config){.zstd_level = 30};
	assert_sws(SWS_EINVAL, sws_trace_writer_open(path, &wc, &w, msg, sizeof(msg)));
	wc = (struct sws_trace_writer_config){.version = 9};
	assert_sws(SWS_EVERSION, sws_trace_writer_open(path, &wc, &w, msg, sizeof(msg)));
	assert_sws(SWS_EIO, sws_trace_writer_open("/nonexistent/x.trace", NULL, &w, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "/nonexistent/x.trace"));
	assert_int_equal(sws_trace_writer_close(NULL, NULL, 0), 0);
	/* A bad op is refused and nothing is written for it. */
	assert_sws(0, sws_trace_writer_open(path, NULL, &w, msg, sizeof(msg)));
	struct sws_trace_record x = {.op = 0};
	assert_sws(SWS_EINVAL, sws_trace_writer_write(w, &x));
	x.op = SWS_TRACE_OP_MAX + 1;
	assert_sws(SWS_EINVAL, sws_trace_writer_write(w, &x));
	assert_sws(0, sws_trace_writer_close(w, NULL, 0));
	struct recs v = load(path, NULL);
	assert_int_equal(v.n, 0);
	free(v.v);
	unlink(path);
}

/* ---- importers on the samples ---------------------------------------------- */

/* perf -F comm,tid,time,event,addr,ip,sym of page-faults -d: 57 lines, 57 faults. */
static void test_perf_pagefaults(void **state)
{
	(void)state;
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	struct recs v = load(DATA "perf_pagefaults_addr.txt", &c);
	assert_int_equal(v.n, 57);
	rec_eq(&v.v[0], 256808771000ull, 0x563d373c3020ull, 0, SWS_TRACE_ACCESS, 0, 5766, 5766,
	       SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[56], 256811809000ull, 0x7fe25e3245e0ull, 0, SWS_TRACE_ACCESS, 0, 5766, 5766,
	       SWS_TRACE_CPU_ANY, 0);
	free(v.v);
}

/* exceptions:page_fault_user: 56 faults; error_code 0x6/0x7 (13+14=27) writes,
 * 0x14 (16) instruction fetches, 0x4 (13) reads; cpu from [000]. */
static void test_perf_pfuser(void **state)
{
	(void)state;
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	struct recs v = load(DATA "perf_pfuser.txt", &c);
	assert_int_equal(v.n, 56);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, SWS_TRACE_F_WRITE), 27);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH, SWS_TRACE_F_IFETCH), 16);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, ~0u, 0), 13);
	rec_eq(&v.v[0], 260491440000ull, 0x7f1dc8e92b70ull, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH,
	       5981, 5981, 0, 0);
	rec_eq(&v.v[1], 260491471000ull, 0x7f1dc8eabe06ull, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE,
	       5981, 5981, 0, 0);
	rec_eq(&v.v[55], 260494363000ull, 0x7f1dc8d555e0ull, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH,
	       5981, 5981, 0, 0);
	free(v.v);

	/* NO_IFETCH drops the 16 instruction fetches. */
	c.flags = SWS_TRACE_READ_NO_IFETCH;
	v = load(DATA "perf_pfuser.txt", &c);
	assert_int_equal(v.n, 40);
	free(v.v);
}

/* The swapping run excerpt (lines 1-120, 2460-2540 and the last 10 of the
 * sample): 159 page_fault_user lines, 3 memcg_reclaim_end (41 pages each);
 * write_folio, shrink_inactive, reclaim_begin and major-faults lines carry no
 * record (211 - 162 = 49 skipped). */
static void test_perf_swap(void **state)
{
	(void)state;
	struct sws_trace_reader *r;
	char msg[600];
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	assert_sws(0, sws_trace_reader_open(DATA "perf_swap_excerpt.txt", &c, &r, msg, sizeof(msg)));
	struct recs v = {0};
	struct sws_trace_record x;
	int rc;
	while ((rc = sws_trace_reader_next(r, &x)) == 1)
		recs_push(&v, &x);
	assert_int_equal(rc, 0);
	struct sws_trace_reader_stats st;
	sws_trace_reader_stats_get(r, &st);
	assert_int_equal(st.lines, 211);
	assert_int_equal(st.records, 162);
	assert_int_equal(st.skipped_lines, 49);
	sws_trace_reader_close(r);

	assert_int_equal(v.n, 162);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, 0, 0), 159);
	assert_int_equal(count_flag(&v, SWS_TRACE_RECLAIM, 0, 0), 3);
	rec_eq(&v.v[0], 480787805000ull, 0x7f4392794b70ull, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH,
	       7766, 7766, 1, 0);
	rec_eq(&v.v[161], 482574950000ull, 0x7f3b709e7000ull, 0, SWS_TRACE_ACCESS, 0, 7768, 7768, 0, 0);
	size_t nrec = 0;
	for (size_t i = 0; i < v.n; i++) {
		if (v.v[i].op != SWS_TRACE_RECLAIM)
			continue;
		if (nrec++ == 0)
			rec_eq(&v.v[i], 481145626000ull, 0, 41, SWS_TRACE_RECLAIM, SWS_TRACE_F_CHARGE, 7768, 7768, 0,
			       SWS_TRACE_MEMCG_TASK);
		assert_int_equal(v.v[i].len, 41);
	}
	free(v.v);
}

/* Other perf-script shapes: pid/tid, no cpu, :u modifiers, nanosecond times,
 * direct reclaim and kswapd, default layout (period, no address), call chains. */
static void test_perf_shapes(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_shapes.txt",
		 "# ========\n"
		 "# captured on: today\n"
		 "            prog   100/101 [003] 10.000000001: page-faults:u:  7f0000001000 [unknown] 401000 main\n"
		 "\t    401000 main (/bin/prog)\n"
		 "            prog   100/101 10.5: 1 major-faults:  401000 main+0x0 (/bin/prog)\n"
		 "    Web Content  200 [001]    11.000002: vmscan:mm_vmscan_direct_reclaim_end: nr_reclaimed=32\n"
		 "        kswapd0    77 [002]    12.000003: vmscan:mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=32 nr_reclaimed=30 priority=12 flags=RECLAIM_WB_ANON\n"
		 "            prog   100 [000]    13.000004: vmscan:mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=32 nr_reclaimed=30 priority=12 flags=RECLAIM_WB_ANON\n"
		 "            prog   100 [000]    14.000005: exceptions:page_fault_user: address=0x1000 ip=0x2000 error_code=0x7\n"
		 "\n");
	struct recs v = load(p, NULL); /* AUTO: perf */
	assert_int_equal(v.n, 4);
	rec_eq(&v.v[0], 10000000001ull, 0x7f0000001000ull, 0, SWS_TRACE_ACCESS, 0, 100, 101, 3, 0);
	rec_eq(&v.v[1], 11000002000ull, 0, 32, SWS_TRACE_RECLAIM, 0, 200, 200, 1, SWS_TRACE_MEMCG_ROOT);
	rec_eq(&v.v[2], 12000003000ull, 0, 30, SWS_TRACE_RECLAIM, SWS_TRACE_F_ANON_LRU, 77, 77, 2,
	       SWS_TRACE_MEMCG_ROOT);
	rec_eq(&v.v[3], 14000005000ull, 0x1000, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 100, 100, 0, 0);
	free(v.v);
	unlink(p);
}

/* ---- perf: processes, threads and memory maps ------------------------------ */

/* The records other than ACCESS and RECLAIM, in order. */
static struct recs life_of(const struct recs *v)
{
	struct recs out = {0};
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].op != SWS_TRACE_ACCESS && v->v[i].op != SWS_TRACE_RECLAIM)
			recs_push(&out, &v->v[i]);
	return out;
}

/* Read @path as perf with reader @flags: its records and the importer's counters. */
static struct recs load_perf_flags(const char *path, uint32_t flags, struct sws_trace_perf_stats *ps)
{
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	c.flags = flags;
	struct sws_trace_reader *r;
	char msg[600] = "";
	struct recs v = {0};
	struct sws_trace_record x;
	int rc = sws_trace_reader_open(path, &c, &r, msg, sizeof(msg));
	if (rc)
		fail_msg("%s: %s", path, msg);
	while ((rc = sws_trace_reader_next(r, &x)) == 1)
		recs_push(&v, &x);
	if (rc)
		fail_msg("%s: %s", path, sws_trace_reader_error(r));
	sws_trace_reader_perf_stats(r, ps);
	sws_trace_reader_close(r);
	return v;
}

static struct recs load_perf(const char *path, struct sws_trace_perf_stats *ps)
{
	return load_perf_flags(path, 0, ps);
}

/* sws_trace_reader_position(): the line each record came from, a held FORK's
 * its clone's, in the lifecycle sample (lines named in the test above; every
 * access the page_fault_user line of its address). */
static void test_perf_positions(void **state)
{
	(void)state;
	FILE *f = fopen(DATA "perf_lifecycle.txt", "r");
	assert_non_null(f);
	static char lines[400][1024];
	size_t nl = 0;
	while (nl < 400 && fgets(lines[nl], sizeof(lines[nl]), f))
		nl++;
	fclose(f);
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	struct sws_trace_reader *r;
	char msg[600] = "";
	assert_int_equal(sws_trace_reader_open(DATA "perf_lifecycle.txt", &c, &r, msg, sizeof(msg)), 0);
	assert_int_equal(sws_trace_reader_position(r), 0);
	struct sws_trace_record x;
	size_t accesses = 0;
	uint64_t fork_at = 0, exits[2] = {0}, first = 0;
	unsigned nexit = 0;
	while (sws_trace_reader_next(r, &x) == 1) {
		uint64_t pos = sws_trace_reader_position(r);
		assert_true(pos >= 1 && pos <= nl);
		if (!first)
			first = pos;
		if (x.op == SWS_TRACE_ACCESS) {
			char want[40];
			snprintf(want, sizeof(want), "address=0x%" PRIx64 " ", x.addr);
			if (!strstr(lines[pos - 1], "page_fault_user") || !strstr(lines[pos - 1], want))
				fail_msg("access 0x%" PRIx64 " named line %" PRIu64 ": %s", x.addr, pos, lines[pos - 1]);
			accesses++;
		} else if (x.op == SWS_TRACE_FORK) {
			fork_at = pos;
		} else if (x.op == SWS_TRACE_EXIT && nexit < 2) {
			exits[nexit++] = pos;
		}
	}
	sws_trace_reader_close(r);
	assert_int_equal(accesses, 234);
	assert_int_equal(first, 1); /* the exec */
	assert_int_equal(fork_at, 196);
	assert_int_equal(nexit, 2);
	assert_int_equal(exits[0], 333);
	assert_int_equal(exits[1], 388);

	/* A FORK held until its child's first line holds back the parent's
	 * accesses: each is still named by its own line (1 to 4), not by the
	 * child's line that let them out. */
	char p[512];
	tmp_text(p, sizeof(p), "held.perf",
		 "  a 100/100 [000] 1.000000: sched:sched_process_fork: comm=a pid=100 child_comm=a child_pid=101\n"
		 "  a 100/100 [000] 1.000001: exceptions:page_fault_user: address=0x1000 ip=0x1 error_code=0x6\n"
		 "  a 100/100 [000] 1.000002: exceptions:page_fault_user: address=0x2000 ip=0x1 error_code=0x6\n"
		 "  a 101/101 [001] 1.000003: exceptions:page_fault_user: address=0x3000 ip=0x1 error_code=0x6\n");
	assert_int_equal(sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)), 0);
	static const uint32_t ops[] = {SWS_TRACE_FORK, SWS_TRACE_ACCESS, SWS_TRACE_ACCESS, SWS_TRACE_ACCESS};
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(sws_trace_reader_next(r, &x), 1);
		assert_int_equal(x.op, ops[i]);
		assert_int_equal(sws_trace_reader_position(r), i + 1);
	}
	assert_int_equal(sws_trace_reader_next(r, &x), 0);
	sws_trace_reader_close(r);
}

/*
 * The lifecycle sample (../shared/samples/perf_script_lifecycle_sample.txt,
 * thread ids only, tracepoints only): a shell execs bgsave, which maps 128
 * MiB, forks, the child exits, the parent unmaps half and exits. 234
 * page_fault_user and 5 memcg_reclaim_end lines (grep -c); 17 mmap calls,
 * 7 anonymous (fd 0xffffffff, flags 0x22 or 0x32 = MAP_FIXED: unmapped
 * first), 10 of files; 3 munmap calls, each paired with its exit 0x0.
 */
static void test_perf_lifecycle_sample(void **state)
{
	(void)state;
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(DATA "perf_lifecycle.txt", &ps);
	assert_int_equal(v.n, 274);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, 0, 0), 234);
	/* 4 begins (0 pages), 18 shrink lines inside them, the end whose begin
	 * came before the excerpt */
	assert_int_equal(count_flag(&v, SWS_TRACE_RECLAIM, 0, 0), 23);
	struct recs l = life_of(&v);
	assert_int_equal(l.n, 17);
	const uint32_t P = 22006, C = 22008, FD = SWS_TRACE_MUNMAP, M = SWS_TRACE_MMAP;
	/* runcg.sh: exec (line 1), its mmaps (the exit's time, the returned address,
	 * the requested length), the MAP_FIXED .bss, munmap of ld.so.cache (line 61/62) */
	rec_eq(&l.v[0], 3128268167000ull, 0, 0, SWS_TRACE_EXEC, 0, P, P, 1, 0);
	rec_eq(&l.v[1], 3128268406000ull, 0x7ffb1c229000ull, 0x2000, M, 0, P, P, 1, 0);
	rec_eq(&l.v[2], 3128268490000ull, 0x7ffb1c211000ull, 0xcf50, FD, 0, P, P, 1, 0);
	rec_eq(&l.v[3], 3128268490000ull, 0x7ffb1c211000ull, 0xcf50, M, 0, P, P, 1, 0);
	rec_eq(&l.v[4], 3128268515000ull, 0x7ffb1c039000ull, 0x3000, M, 0, P, P, 1, 0);
	rec_eq(&l.v[5], 3128268684000ull, 0x7ffb1c21e000ull, 0xaabf, FD, 0, P, P, 1, 0);
	/* bgsave: exec, the same loader calls, then the 128 MiB region */
	rec_eq(&l.v[6], 3128276146000ull, 0, 0, SWS_TRACE_EXEC, 0, P, P, 1, 0);
	rec_eq(&l.v[7], 3128276362000ull, 0x7f9258202000ull, 0x2000, M, 0, P, P, 1, 0);
	rec_eq(&l.v[8], 3128276441000ull, 0x7f92581ea000ull, 0xcf50, FD, 0, P, P, 1, 0);
	rec_eq(&l.v[9], 3128276441000ull, 0x7f92581ea000ull, 0xcf50, M, 0, P, P, 1, 0);
	rec_eq(&l.v[10], 3128276462000ull, 0x7f9258012000ull, 0x3000, M, 0, P, P, 1, 0);
	rec_eq(&l.v[11], 3128276582000ull, 0x7f92581f7000ull, 0xaabf, FD, 0, P, P, 1, 0);
	rec_eq(&l.v[12], 3128276622000ull, 0x7f9250000000ull, 128ull << 20, M, 0, P, P, 1, 0);
	/* fork (line 196), the child's exit on CPU 0 (line 333), the parent's munmap of the
	 * second half (enter at 3129.232285, exit at 3129.249177), its exit (line 388) */
	rec_eq(&l.v[13], 3128525481000ull, 0, 0, SWS_TRACE_FORK, 0, P, P, 1, C);
	rec_eq(&l.v[14], 3129223303000ull, 0, 0, SWS_TRACE_EXIT, 0, C, C, 0, 0);
	rec_eq(&l.v[15], 3129249177000ull, 0x7f9254000000ull, 64ull << 20, FD, 0, P, P, 1, 0);
	rec_eq(&l.v[16], 3129381983000ull, 0, 0, SWS_TRACE_EXIT, 0, P, P, 1, 0);
	/* the child's accesses name its own address space */
	size_t child = 0;
	for (size_t i = 0; i < v.n; i++)
		if (v.v[i].op == SWS_TRACE_ACCESS && v.v[i].tid == C) {
			assert_int_equal(v.v[i].pid, C);
			child++;
		}
	assert_int_equal(child, 32); /* grep -c 'bgsave 22008.*page_fault_user' */
	assert_int_equal(ps.forks, 1);
	assert_int_equal(ps.forks_assumed, 1); /* tid only, no PERF_RECORD_FORK */
	assert_int_equal(ps.mmap_file, 10);
	assert_int_equal(ps.threads + ps.thread_exits + ps.duplicates + ps.calls_failed, 0);
	assert_int_equal(ps.unpaired_exits + ps.unfinished_calls + ps.mmap_shared, 0);
	free(l.v);
	free(v.v);
}

/*
 * A recording of tests/kernel/lifecycle.c on this kernel (perf script
 * --show-task-events --show-mmap-events: thread ids, both perf's own
 * FORK/EXIT/COMM lines and the tracepoints): a thread (PERF_RECORD_FORK
 * (21865:21875):(21865:21865)) madvises its stack and exits; madvise FREE,
 * DONTNEED, PAGEOUT and WILLNEED; a MAP_SHARED anonymous mmap; a child that
 * exits, one that execs /bin/true; munmap twice.
 */
static void test_perf_threads(void **state)
{
	(void)state;
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(DATA "perf_threads.txt", &ps);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, 0, 0), 425); /* grep -c page_fault_user */
	struct recs l = life_of(&v);
	assert_int_equal(l.n, 25);
	const uint32_t P = 21865, T = 21875;
	/* perf's COMM exec comes first: the tracepoint's report of it is dropped */
	rec_eq(&l.v[0], 8967742978000ull, 0, 0, SWS_TRACE_EXEC, 0, P, P, 1, 0);
	/* the thread's madvise(DONTNEED) of its stack: the process's address space */
	rec_eq(&l.v[8], 8967749792000ull, 0x7fb4b4f0d000ull, 0x7fb000, SWS_TRACE_MADV_DONTNEED, 0, P, T, 1, 0);
	rec_eq(&l.v[9], 8967749872000ull, 0x7fb4b570e000ull, 4096, SWS_TRACE_MADV_FREE, 0, P, P, 1, 0);
	rec_eq(&l.v[10], 8967749876000ull, 0x7fb4b570f000ull, 4096, SWS_TRACE_MADV_DONTNEED, 0, P, P, 1, 0);
	rec_eq(&l.v[11], 8967749911000ull, 0x7fb4b5710000ull, 4096, SWS_TRACE_MADV_PAGEOUT, 0, P, P, 1, 0);
	/* no FORK or EXIT for the thread; the children: FORK at PERF_RECORD_FORK's time */
	rec_eq(&l.v[12], 8967750305000ull, 0, 0, SWS_TRACE_FORK, 0, P, P, 1, 21880);
	rec_eq(&l.v[13], 8967750423000ull, 0, 0, SWS_TRACE_EXIT, 0, 21880, 21880, 1, 0);
	rec_eq(&l.v[14], 8967750754000ull, 0, 0, SWS_TRACE_FORK, 0, P, P, 1, 21881);
	rec_eq(&l.v[15], 8967753249000ull, 0, 0, SWS_TRACE_EXEC, 0, 21881, 21881, 1, 0);
	rec_eq(&l.v[21], 8967753843000ull, 0, 0, SWS_TRACE_EXIT, 0, 21881, 21881, 1, 0);
	rec_eq(&l.v[22], 8967754027000ull, 0x7fb4b570e000ull, 1u << 20, SWS_TRACE_MUNMAP, 0, P, P, 1, 0);
	rec_eq(&l.v[24], 8967754041000ull, 0, 0, SWS_TRACE_EXIT, 0, P, P, 1, 0);
	size_t thread_faults = 0;
	for (size_t i = 0; i < v.n; i++) {
		if (v.v[i].op == SWS_TRACE_FORK)
			assert_int_not_equal(v.v[i].arg, T);
		if (v.v[i].tid == T) {
			assert_int_equal(v.v[i].pid, P);
			thread_faults += v.v[i].op == SWS_TRACE_ACCESS;
		}
	}
	assert_int_equal(thread_faults, 4);
	assert_int_equal(ps.forks, 2);
	assert_int_equal(ps.forks_assumed, 0);
	assert_int_equal(ps.threads, 1);
	assert_int_equal(ps.thread_exits, 1);
	assert_int_equal(ps.duplicates, 9); /* 3 forks, 4 exits, 2 execs reported twice */
	assert_int_equal(ps.mmap_shared, 1);
	assert_int_equal(ps.madvise_other, 1); /* MADV_WILLNEED */
	assert_int_equal(ps.mmap2_skipped, 8); /* the trace has sys_enter_mmap */
	free(l.v);
	free(v.v);
}

/*
 * PID/TID lines without perf's FORK records: a clone is held until its
 * child's first line shows its pid; the records after it wait, in order. A
 * thread's FORK is dropped; a child never seen is taken for a process.
 */
static void test_perf_pid_tid(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_pidtid.txt",
		 " t 100/100 [000] 1.000000: sched:sched_process_fork: comm=t pid=100 child_comm=t child_pid=101\n"
		 " t 100/100 [000] 1.000001: exceptions:page_fault_user: address=0x1000 ip=0x1 error_code=0x6\n"
		 " t 100/101 [001] 1.000002: exceptions:page_fault_user: address=0x2000 ip=0x1 error_code=0x6\n"
		 " t 100/100 [000] 1.000003: sched:sched_process_fork: comm=t pid=100 child_comm=t child_pid=102\n"
		 " t 100/100 [000] 1.000004: exceptions:page_fault_user: address=0x3000 ip=0x1 error_code=0x4\n"
		 " t 102/102 [001] 1.000005: exceptions:page_fault_user: address=0x4000 ip=0x1 error_code=0x6\n"
		 " t 100/101 [001] 1.000006: sched:sched_process_exit: comm=t pid=101 prio=120 group_dead=false\n"
		 " t 102/102 [001] 1.000007: sched:sched_process_exit: comm=t pid=102 prio=120 group_dead=true\n"
		 " t 100/100 [000] 1.000008: sched:sched_process_fork: comm=t pid=100 child_comm=t child_pid=103\n"
		 " t 100/100 [000] 1.000009: exceptions:page_fault_user: address=0x5000 ip=0x1 error_code=0x4\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	assert_int_equal(v.n, 8);
	const uint32_t A = SWS_TRACE_ACCESS, W = SWS_TRACE_F_WRITE;
	rec_eq(&v.v[0], 1000001000ull, 0x1000, 0, A, W, 100, 100, 0, 0);
	rec_eq(&v.v[1], 1000002000ull, 0x2000, 0, A, W, 100, 101, 1, 0); /* a thread: no FORK */
	rec_eq(&v.v[2], 1000003000ull, 0, 0, SWS_TRACE_FORK, 0, 100, 100, 0, 102);
	rec_eq(&v.v[3], 1000004000ull, 0x3000, 0, A, 0, 100, 100, 0, 0);
	rec_eq(&v.v[4], 1000005000ull, 0x4000, 0, A, W, 102, 102, 1, 0);
	rec_eq(&v.v[5], 1000007000ull, 0, 0, SWS_TRACE_EXIT, 0, 102, 102, 1, 0);
	rec_eq(&v.v[6], 1000008000ull, 0, 0, SWS_TRACE_FORK, 0, 100, 100, 0, 103); /* undecided */
	rec_eq(&v.v[7], 1000009000ull, 0x5000, 0, A, 0, 100, 100, 0, 0);
	assert_int_equal(ps.forks, 2);
	assert_int_equal(ps.forks_undecided, 1);
	assert_int_equal(ps.threads, 1);
	assert_int_equal(ps.thread_exits, 1);
	free(v.v);

	/* A child that never shows: the records behind its FORK are held up to
	 * SWS_TRACE_PERF_MAX_HELD, then it is taken for a process; memory stays bounded. */
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, " t 100/100 [000] 1.0: sched:sched_process_fork: comm=t pid=100 child_comm=t child_pid=101\n");
	for (unsigned i = 0; i < SWS_TRACE_PERF_MAX_HELD + 100; i++)
		fprintf(f, " t 100/100 [000] 2.0: exceptions:page_fault_user: address=0x%x ip=0x1 error_code=0x6\n",
			0x1000 + (i % 64) * 4096);
	fclose(f);
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	struct sws_trace_reader *r;
	char msg[600];
	assert_sws(0, sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)));
	struct sws_trace_record x;
	assert_int_equal(sws_trace_reader_next(r, &x), 1);
	assert_int_equal(x.op, SWS_TRACE_FORK);
	assert_true(sws_trace_reader_memory_usage(r) <=
		    ((size_t)1 << 20) + (size_t)SWS_TRACE_PERF_MAX_HELD * (sizeof(x) + 8)); /* a held record and its state */
	uint64_t n = 1;
	while (sws_trace_reader_next(r, &x) == 1) {
		assert_int_equal(x.op, SWS_TRACE_ACCESS);
		n++;
	}
	assert_int_equal(n, SWS_TRACE_PERF_MAX_HELD + 101);
	sws_trace_reader_perf_stats(r, &ps);
	assert_int_equal(ps.forks_undecided, 1);
	sws_trace_reader_close(r);
	unlink(p);
}

/* Thread ids only, no PERF_RECORD_FORK: a clone is taken for a process, and a
 * child that then exits as one thread of several is an error naming both lines. */
static void test_perf_assumed_thread(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_assumed.txt",
		 " t 100 [000] 1.0: sched:sched_process_fork: comm=t pid=100 child_comm=t child_pid=101\n"
		 " t 101 [001] 1.1: exceptions:page_fault_user: address=0x2000 ip=0x1 error_code=0x6\n"
		 " t 101 [001] 1.2: sched:sched_process_exit: comm=t pid=101 prio=120 group_dead=false\n");
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	expect_error(p, &c, SWS_EFORMAT, ":3: task 101 exits as one thread of several");
	expect_error(p, &c, SWS_EFORMAT, "its clone at line 1 was taken for a process: print the trace "
					 "with perf script -F +pid or --show-task-events");
	/* ... and a kernel without group_dead: the exit is the process's */
	tmp_text(p, sizeof(p), "perf_assumed.txt",
		 " t 100 [000] 1.0: sched:sched_process_fork: comm=t pid=100 child_comm=t child_pid=101\n"
		 " t 101 [001] 1.2: sched:sched_process_exit: comm=t pid=101 prio=120\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	assert_int_equal(v.n, 2);
	rec_eq(&v.v[1], 1200000000ull, 0, 0, SWS_TRACE_EXIT, 0, 101, 101, 1, 0);
	free(v.v);
	unlink(p);
}

/* One report of each fork, exit and exec from the tracepoints and perf's own
 * lines together, in either order; a thread's exec. */
static void test_perf_duplicates(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_dup.txt",
		 /* perf's own lines come first in a trace printed with them */
		 " perf-exec 0 [000] 0.0: PERF_RECORD_COMM: perf-exec:100/100\n"
		 /* exit: tracepoint first (the kernel's order), then perf's */
		 " a 100 [000] 1.0: sched:sched_process_exit: comm=a pid=100 prio=120 group_dead=true\n"
		 " a 100 [000] 1.1: PERF_RECORD_EXIT(100:100):(1:1)\n"
		 /* fork: perf's first, then the tracepoint; then in the other order */
		 " b 200 [000] 2.0: PERF_RECORD_FORK(201:201):(200:200)\n"
		 " b 200 [000] 2.1: sched:sched_process_fork: comm=b pid=200 child_comm=b child_pid=201\n"
		 " b 200 [000] 2.2: sched:sched_process_fork: comm=b pid=200 child_comm=b child_pid=202\n"
		 " b 200 [000] 2.3: PERF_RECORD_FORK(202:202):(200:200)\n"
		 /* exec: perf's COMM exec, then the tracepoint; a comm change is no exec */
		 " c 201 [000] 3.0: PERF_RECORD_COMM exec: c:201/201\n"
		 " c 201 [000] 3.1: sched:sched_process_exec: filename=/bin/c pid=201 old_pid=201\n"
		 " c 201 [000] 3.2: PERF_RECORD_COMM: renamed:201/201\n"
		 /* a thread of 202 (perf says so) execs: the process 202 is replaced */
		 " b 202 [000] 4.0: PERF_RECORD_FORK(202:203):(202:202)\n"
		 " b 203 [000] 4.1: exceptions:page_fault_user: address=0x1000 ip=0x1 error_code=0x6\n"
		 " b 202 [000] 4.2: sched:sched_process_exec: filename=/bin/d pid=202 old_pid=203\n"
		 /* a second exit from the same source is a new event (pid reused) */
		 " a 100 [000] 5.0: sched:sched_process_exit: comm=a pid=100 prio=120 group_dead=true\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	assert_int_equal(v.n, 7);
	rec_eq(&v.v[0], 1000000000ull, 0, 0, SWS_TRACE_EXIT, 0, 100, 100, 0, 0);
	rec_eq(&v.v[1], 2000000000ull, 0, 0, SWS_TRACE_FORK, 0, 200, 200, 0, 201);
	rec_eq(&v.v[2], 2200000000ull, 0, 0, SWS_TRACE_FORK, 0, 200, 200, 0, 202);
	rec_eq(&v.v[3], 3000000000ull, 0, 0, SWS_TRACE_EXEC, 0, 201, 201, 0, 0);
	rec_eq(&v.v[4], 4100000000ull, 0x1000, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 202, 203, 0, 0);
	rec_eq(&v.v[5], 4200000000ull, 0, 0, SWS_TRACE_EXEC, 0, 202, 202, 0, 0);
	rec_eq(&v.v[6], 5000000000ull, 0, 0, SWS_TRACE_EXIT, 0, 100, 100, 0, 0);
	assert_int_equal(ps.duplicates, 4);
	assert_int_equal(ps.threads, 1);
	free(v.v);
	unlink(p);
}

/* System calls: paired per thread, made into records when they succeed. */
static void test_perf_syscalls(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_calls.txt",
		 /* an exit whose enter came before the trace */
		 " a 1 [000] 1.00: syscalls:sys_exit_munmap: 0x0\n"
		 /* two threads inside munmap at once: each exit takes its own enter */
		 " a 1 [000] 1.01: syscalls:sys_enter_munmap: addr: 0x7f0000000000, len: 0x00002000\n"
		 " a 2 [001] 1.02: syscalls:sys_enter_munmap: addr: 0x7f0000100000, len: 0x00001000\n"
		 " a 2 [001] 1.03: syscalls:sys_exit_munmap: 0x0\n"
		 " a 1 [000] 1.04: syscalls:sys_exit_munmap: 0x0\n"
		 /* failures: munmap -EINVAL, mmap -ENOMEM */
		 " a 1 [000] 1.05: syscalls:sys_enter_munmap: addr: 0x7f0000000001, len: 0x00001000\n"
		 " a 1 [000] 1.06: syscalls:sys_exit_munmap: 0xffffffffffffffea\n"
		 " a 1 [000] 1.07: syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00001000, prot: 0x00000003, flags: 0x00000022, fd: 0xffffffff, off: 0x00000000\n"
		 " a 1 [000] 1.08: syscalls:sys_exit_mmap: 0xfffffffffffffff4\n"
		 /* a file, MAP_SHARED|MAP_ANONYMOUS, MAP_HUGETLB: no record */
		 " a 1 [000] 1.09: syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00001000, prot: 0x00000001, flags: 0x00000002, fd: 0x00000003, off: 0x00000000\n"
		 " a 1 [000] 1.10: syscalls:sys_exit_mmap: 0x7f0000200000\n"
		 " a 1 [000] 1.11: syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00002000, prot: 0x00000003, flags: 0x00000021, fd: 0xffffffff, off: 0x00000000\n"
		 " a 1 [000] 1.12: syscalls:sys_exit_mmap: 0x7f0000300000\n"
		 " a 1 [000] 1.13: syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00200000, prot: 0x00000003, flags: 0x00040022, fd: 0xffffffff, off: 0x00000000\n"
		 " a 1 [000] 1.14: syscalls:sys_exit_mmap: 0x7f0000400000\n"
		 /* anonymous private at the returned address; MAP_FIXED: unmapped first */
		 " a 1 [000] 1.15: syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00003000, prot: 0x00000003, flags: 0x00000022, fd: 0xffffffff, off: 0x00000000\n"
		 " a 1 [000] 1.16: syscalls:sys_exit_mmap: 0x7f0000500000\n"
		 " a 1 [000] 1.17: syscalls:sys_enter_mmap: addr: 0x7f0000600000, len: 0x00001000, prot: 0x00000003, flags: 0x00000032, fd: 0x00000000, off: 0x00000000\n"
		 " a 1 [000] 1.18: syscalls:sys_exit_mmap: 0x7f0000600000\n"
		 /* madvise: DONTNEED, FREE, PAGEOUT, DONTNEED_LOCKED; COLD and an empty range: nothing */
		 " a 1 [000] 1.19: syscalls:sys_enter_madvise: start: 0x7f0000500000, len_in: 0x00001000, behavior: 0x00000004\n"
		 " a 1 [000] 1.20: syscalls:sys_exit_madvise: 0x0\n"
		 " a 1 [000] 1.21: syscalls:sys_enter_madvise: start: 0x7f0000501000, len_in: 0x00001000, behavior: 0x00000008\n"
		 " a 1 [000] 1.22: syscalls:sys_exit_madvise: 0x0\n"
		 " a 1 [000] 1.23: syscalls:sys_enter_madvise: start: 0x7f0000502000, len_in: 0x00001000, behavior: 0x00000015\n"
		 " a 1 [000] 1.24: syscalls:sys_exit_madvise: 0x0\n"
		 " a 1 [000] 1.25: syscalls:sys_enter_madvise: start: 0x7f0000500000, len_in: 0x00003000, behavior: 0x00000018\n"
		 " a 1 [000] 1.26: syscalls:sys_exit_madvise: 0x0\n"
		 " a 1 [000] 1.27: syscalls:sys_enter_madvise: start: 0x7f0000500000, len_in: 0x00003000, behavior: 0x00000014\n"
		 " a 1 [000] 1.28: syscalls:sys_exit_madvise: 0x0\n"
		 " a 1 [000] 1.29: syscalls:sys_enter_madvise: start: 0x7f0000500000, len_in: 0x00000000, behavior: 0x00000004\n"
		 " a 1 [000] 1.30: syscalls:sys_exit_madvise: 0x0\n"
		 /* other calls are not used; an enter the trace ends inside */
		 " a 1 [000] 1.31: syscalls:sys_enter_brk: brk: 0x00000000\n"
		 " a 1 [000] 1.32: syscalls:sys_exit_brk: 0x55d000000000\n"
		 " a 2 [001] 1.33: syscalls:sys_enter_munmap: addr: 0x7f0000500000, len: 0x00003000\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	assert_int_equal(v.n, 9);
	rec_eq(&v.v[0], 1030000000ull, 0x7f0000100000ull, 0x1000, SWS_TRACE_MUNMAP, 0, 2, 2, 1, 0);
	rec_eq(&v.v[1], 1040000000ull, 0x7f0000000000ull, 0x2000, SWS_TRACE_MUNMAP, 0, 1, 1, 0, 0);
	rec_eq(&v.v[2], 1160000000ull, 0x7f0000500000ull, 0x3000, SWS_TRACE_MMAP, 0, 1, 1, 0, 0);
	rec_eq(&v.v[3], 1180000000ull, 0x7f0000600000ull, 0x1000, SWS_TRACE_MUNMAP, 0, 1, 1, 0, 0);
	rec_eq(&v.v[4], 1180000000ull, 0x7f0000600000ull, 0x1000, SWS_TRACE_MMAP, 0, 1, 1, 0, 0);
	rec_eq(&v.v[5], 1200000000ull, 0x7f0000500000ull, 0x1000, SWS_TRACE_MADV_DONTNEED, 0, 1, 1, 0, 0);
	rec_eq(&v.v[6], 1220000000ull, 0x7f0000501000ull, 0x1000, SWS_TRACE_MADV_FREE, 0, 1, 1, 0, 0);
	rec_eq(&v.v[7], 1240000000ull, 0x7f0000502000ull, 0x1000, SWS_TRACE_MADV_PAGEOUT, 0, 1, 1, 0, 0);
	/* MADV_DONTNEED_LOCKED is DONTNEED */
	rec_eq(&v.v[8], 1260000000ull, 0x7f0000500000ull, 0x3000, SWS_TRACE_MADV_DONTNEED, 0, 1, 1, 0, 0);
	assert_int_equal(ps.unpaired_exits, 1);
	assert_int_equal(ps.calls_failed, 2);
	assert_int_equal(ps.mmap_file, 1);
	assert_int_equal(ps.mmap_shared, 2);
	assert_int_equal(ps.madvise_other, 1);
	assert_int_equal(ps.unfinished_calls, 1);
	free(v.v);

	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	/* Errors: an exit of another call than the one entered, an enter while
	 * one is in progress, bad arguments, a call without a thread id. */
	tmp_text(p, sizeof(p), "perf_calls.txt",
		 " a 1 [000] 1.0: syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00001000, prot: 0x00000003, flags: 0x00000022, fd: 0xffffffff, off: 0x00000000\n"
		 " a 1 [000] 1.1: syscalls:sys_exit_munmap: 0x0\n");
	expect_error(p, &c, SWS_EFORMAT, ":2: sys_exit_munmap of thread 1, but the call it entered at line 1 is mmap");
	tmp_text(p, sizeof(p), "perf_calls.txt",
		 " a 1 [000] 1.0: syscalls:sys_enter_munmap: addr: 0x1000, len: 0x1000\n"
		 " a 1 [000] 1.1: syscalls:sys_enter_madvise: start: 0x1000, len_in: 0x1000, behavior: 0x4\n");
	expect_error(p, &c, SWS_EFORMAT, ":2: thread 1 enters madvise while its munmap entered at line 1");
	tmp_text(p, sizeof(p), "perf_calls.txt", " a 1 [000] 1.0: syscalls:sys_enter_munmap: addr: 0xzz, len: 0x1000\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sys_enter_munmap: bad or missing addr: or len:");
	tmp_text(p, sizeof(p), "perf_calls.txt", " a 1 [000] 1.0: syscalls:sys_exit_mmap:\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sys_exit_mmap: bad or missing return value");
	tmp_text(p, sizeof(p), "perf_calls.txt", " 1.0: syscalls:sys_enter_munmap: addr: 0x1000, len: 0x1000\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sys_enter_munmap without a thread id");
	unlink(p);
}

/* A descriptor made from another by dup(), dup2(), dup3() or fcntl(F_DUPFD)
 * reaches the old one's file and shares its offset; dup2 onto an open
 * descriptor closes it; fcntl's other commands and a failed dup2 change
 * nothing; dup3's O_CLOEXEC closes at exec, dup()'s copy stays (and an
 * lseek of the old descriptor moves it); a dup of a descriptor no openat made
 * (stdin) is none either. Line N has time 1.N s. */
static void test_perf_dup(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_dup.txt",
		 " a 10 [000] 1.01: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x7ffd00000000, flags: 0x00000000, mode: 0x00000000\n"
		 " a 10 [000] 1.02: syscalls:sys_exit_openat: 0x3\n"
		 " a 10 [000] 1.03: syscalls:sys_enter_dup: fildes: 0x00000003\n"
		 " a 10 [000] 1.04: syscalls:sys_exit_dup: 0x4\n"
		 " a 10 [000] 1.05: syscalls:sys_enter_read: fd: 0x00000004, buf: 0x7ffd00001000, count: 0x00001000\n"
		 " a 10 [000] 1.06: syscalls:sys_exit_read: 0x1000\n"
		 " a 10 [000] 1.07: syscalls:sys_enter_read: fd: 0x00000003, buf: 0x7ffd00001000, count: 0x00001000\n"
		 " a 10 [000] 1.08: syscalls:sys_exit_read: 0x1000\n"
		 " a 10 [000] 1.09: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x7ffd00000100, flags: 0x00000241, mode: 0x000001b6\n"
		 " a 10 [000] 1.10: syscalls:sys_exit_openat: 0x5\n"
		 " a 10 [000] 1.11: syscalls:sys_enter_dup2: oldfd: 0x00000005, newfd: 0x00000001\n"
		 " a 10 [000] 1.12: syscalls:sys_exit_dup2: 0x1\n"
		 " a 10 [000] 1.13: syscalls:sys_enter_write: fd: 0x00000001, buf: 0x7ffd00001000, count: 0x00000800\n"
		 " a 10 [000] 1.14: syscalls:sys_exit_write: 0x800\n"
		 " a 10 [000] 1.15: syscalls:sys_enter_dup3: oldfd: 0x00000003, newfd: 0x00000005, flags: 0x00080000\n"
		 " a 10 [000] 1.16: syscalls:sys_exit_dup3: 0x5\n"
		 " a 10 [000] 1.17: syscalls:sys_enter_read: fd: 0x00000005, buf: 0x7ffd00001000, count: 0x00001000\n"
		 " a 10 [000] 1.18: syscalls:sys_exit_read: 0x1000\n"
		 " a 10 [000] 1.19: syscalls:sys_enter_fcntl: fd: 0x00000001, cmd: 0x00000000, arg: 0x0000000a\n"
		 " a 10 [000] 1.20: syscalls:sys_exit_fcntl: 0xa\n"
		 " a 10 [000] 1.21: syscalls:sys_enter_fcntl: fd: 0x00000004, cmd: 0x00000001, arg: 0x00000001\n"
		 " a 10 [000] 1.22: syscalls:sys_exit_fcntl: 0x0\n"
		 " a 10 [000] 1.23: syscalls:sys_enter_write: fd: 0x0000000a, buf: 0x7ffd00001000, count: 0x00000100\n"
		 " a 10 [000] 1.24: syscalls:sys_exit_write: 0x100\n"
		 " a 10 [000] 1.25: syscalls:sys_enter_dup: fildes: 0x00000000\n"
		 " a 10 [000] 1.26: syscalls:sys_exit_dup: 0x6\n"
		 " a 10 [000] 1.27: syscalls:sys_enter_read: fd: 0x00000006, buf: 0x7ffd00001000, count: 0x00000010\n"
		 " a 10 [000] 1.28: syscalls:sys_exit_read: 0x10\n"
		 " a 10 [000] 1.29: syscalls:sys_enter_dup2: oldfd: 0x00000009, newfd: 0x00000004\n"
		 " a 10 [000] 1.30: syscalls:sys_exit_dup2: 0xfffffffffffffff7\n"
		 " a 10 [000] 1.31: syscalls:sys_enter_read: fd: 0x00000004, buf: 0x7ffd00001000, count: 0x00001000\n"
		 " a 10 [000] 1.32: syscalls:sys_exit_read: 0x1000\n"
		 " b 10 [000] 1.33: sched:sched_process_exec: filename=/bin/b pid=10 old_pid=10\n"
		 " b 10 [000] 1.34: syscalls:sys_enter_read: fd: 0x00000005, buf: 0x7ffd00001000, count: 0x00001000\n"
		 " b 10 [000] 1.35: syscalls:sys_exit_read: 0x1000\n"
		 " b 10 [000] 1.36: syscalls:sys_enter_read: fd: 0x00000004, buf: 0x7ffd00001000, count: 0x00001000\n"
		 " b 10 [000] 1.37: syscalls:sys_exit_read: 0x1000\n"
		 " b 10 [000] 1.38: syscalls:sys_enter_lseek: fd: 0x00000003, offset: 0x00000100, whence: 0x00000000\n"
		 " b 10 [000] 1.39: syscalls:sys_exit_lseek: 0x100\n"
		 " b 10 [000] 1.40: syscalls:sys_enter_read: fd: 0x00000004, buf: 0x7ffd00001000, count: 0x00001000\n"
		 " b 10 [000] 1.41: syscalls:sys_exit_read: 0x1000\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	const uint32_t W = SWS_TRACE_F_WRITE, F = SWS_TRACE_FILE;
#define AT(line) (1000000000ull + (line) * 10000000ull)
	assert_int_equal(v.n, 9);
	rec_eq(&v.v[0], AT(6), 0, 0x1000, F, 0, 10, 10, 0, 1);       /* dup's fd 4: file 1 */
	rec_eq(&v.v[1], AT(8), 0x1000, 0x1000, F, 0, 10, 10, 0, 1);  /* fd 3: the offset fd 4 moved */
	rec_eq(&v.v[2], AT(14), 0, 0x800, F, W, 10, 10, 0, 2);       /* stdout made file 2 by dup2 */
	rec_eq(&v.v[3], AT(18), 0x2000, 0x1000, F, 0, 10, 10, 0, 1); /* fd 5 now file 1 (dup3) */
	rec_eq(&v.v[4], AT(24), 0x800, 0x100, F, W, 10, 10, 0, 2);   /* fcntl(F_DUPFD)'s fd 10 */
	rec_eq(&v.v[5], AT(32), 0x3000, 0x1000, F, 0, 10, 10, 0, 1); /* the failed dup2 changed nothing */
	rec_eq(&v.v[6], AT(33), 0, 0, SWS_TRACE_EXEC, 0, 10, 10, 0, 0);
	rec_eq(&v.v[7], AT(37), 0x4000, 0x1000, F, 0, 10, 10, 0, 1); /* dup()'s copy kept across exec */
	rec_eq(&v.v[8], AT(41), 0x100, 0x1000, F, 0, 10, 10, 0, 1);  /* lseek of fd 3 moved fd 4 */
#undef AT
	assert_int_equal(ps.files_opened, 2);
	assert_int_equal(ps.file_io, 8);
	assert_int_equal(ps.file_io_other_fd, 2); /* the dup of stdin; dup3's fd 5 after exec */
	assert_int_equal(ps.calls_failed, 1);
	free(v.v);

	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	tmp_text(p, sizeof(p), "perf_dup.txt", " a 1 [000] 1.0: syscalls:sys_enter_dup3: oldfd: 0x3, newfd: 0x4\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sys_enter_dup3: bad or missing oldfd: or flags:");
	tmp_text(p, sizeof(p), "perf_dup.txt", " a 1 [000] 1.0: syscalls:sys_enter_fcntl: fd: 0x3, arg: 0x4\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sys_enter_fcntl: bad or missing fd: or cmd:");
	unlink(p);
}

/*
 * Reclaim's victims: a fault's folio is the task's next movable allocation
 * (not a page table's, not one after a reclaim began: zsmalloc's); the write
 * of that folio's PFN by reclaim names it (RECLAIM v of the faulting
 * process's page, the large folio's first), and the reclaim's end keeps the
 * rest of its anon count. A PFN written that no fault allocated names
 * nothing; kswapd's writes name nothing (its shrink lines are its records).
 * A read's page cache allocations before a reclaim that begins inside it are
 * a FILE record then, the rest at its exit. Line N has time 3.N s.
 */
static void test_perf_victims(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_victims.txt",
		 " a 10 [000] 3.01: kmem:mm_page_alloc: page=0x99 pfn=0x99 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.02: exceptions:page_fault_user: address=0x7f0000001234 ip=0x1 error_code=0x6\n"
		 " a 10 [000] 3.03: kmem:mm_page_alloc: page=0x5 pfn=0x5 order=0 migratetype=0 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO\n"
		 " a 10 [000] 3.04: kmem:mm_page_alloc: page=0x100 pfn=0x100 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO\n"
		 " a 10 [000] 3.05: exceptions:page_fault_user: address=0x7f0000013000 ip=0x1 error_code=0x6\n"
		 " a 10 [000] 3.06: kmem:mm_page_alloc: page=0x200 pfn=0x200 order=4 migratetype=1 gfp_flags=GFP_TRANSHUGE_LIGHT\n"
		 " a 10 [000] 3.07: exceptions:page_fault_user: address=0x7f0000030000 ip=0x1 error_code=0x6\n"
		 " a 10 [000] 3.08: vmscan:mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.09: kmem:mm_page_alloc: page=0x300 pfn=0x300 order=0 migratetype=1 gfp_flags=__GFP_HIGHMEM|__GFP_MOVABLE\n"
		 " a 10 [000] 3.10: vmscan:mm_vmscan_write_folio: page=0x100 pfn=0x100 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.11: vmscan:mm_vmscan_write_folio: page=0x200 pfn=0x200 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.12: vmscan:mm_vmscan_write_folio: page=0x300 pfn=0x300 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.13: vmscan:mm_vmscan_memcg_reclaim_end: nr_reclaimed=32\n"
		 " kswapd0 77 [000] 3.14: vmscan:mm_vmscan_write_folio: page=0x99 pfn=0x99 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.15: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x7ffd00000000, flags: 0x00000000, mode: 0x00000000\n"
		 " a 10 [000] 3.16: syscalls:sys_exit_openat: 0x3\n"
		 " a 10 [000] 3.17: syscalls:sys_enter_read: fd: 0x00000003, buf: 0x7f0000040000, count: 0x00010000\n"
		 " a 10 [000] 3.18: kmem:mm_page_alloc: page=0x400 pfn=0x400 order=0 migratetype=1 gfp_flags=GFP_NOFS|__GFP_MOVABLE\n"
		 " a 10 [000] 3.19: kmem:mm_page_alloc: page=0x401 pfn=0x401 order=1 migratetype=1 gfp_flags=GFP_NOFS|__GFP_MOVABLE\n"
		 " a 10 [000] 3.20: exceptions:page_fault_kernel: address=0x7f0000040000 ip=_copy_to_iter error_code=0x2\n"
		 " a 10 [000] 3.21: kmem:mm_page_alloc: page=0x500 pfn=0x500 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO\n"
		 " a 10 [000] 3.22: vmscan:mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.23: vmscan:mm_vmscan_write_folio: page=0x500 pfn=0x500 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.24: vmscan:mm_vmscan_memcg_reclaim_end: nr_reclaimed=1\n"
		 " a 10 [000] 3.25: syscalls:sys_exit_read: 0x5000\n"
		 " a 10 [000] 3.26: exceptions:page_fault_user: address=0x7f0000050000 ip=0x1 error_code=0x6\n"
		 " a 10 [000] 3.27: kmem:mm_page_alloc: page=0x0 pfn=0x0 order=4 migratetype=1 gfp_flags=GFP_TRANSHUGE_LIGHT\n"
		 " a 10 [000] 3.28: kmem:mm_page_alloc: page=0x700 pfn=0x700 order=4 migratetype=1 gfp_flags=GFP_TRANSHUGE_LIGHT\n"
		 " a 10 [000] 3.29: kmem:mm_page_alloc: page=0x800 pfn=0x800 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.30: vmscan:mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.31: vmscan:mm_vmscan_write_folio: page=0x700 pfn=0x700 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.32: vmscan:mm_vmscan_write_folio: page=0x800 pfn=0x800 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.33: vmscan:mm_vmscan_memcg_reclaim_end: nr_reclaimed=2\n"
		 " a 10 [000] 3.34: exceptions:page_fault_user: address=0x7f0000060000 ip=0x1 error_code=0x6\n"
		 " a 10 [000] 3.35: kmem:mm_page_alloc: page=0x900 pfn=0x900 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.36: vmscan:mm_vmscan_write_folio: page=0x900 pfn=0x900 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.37: vmscan:mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.38: vmscan:mm_vmscan_write_folio: page=0x900 pfn=0x900 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.39: vmscan:mm_vmscan_memcg_reclaim_end: nr_reclaimed=1\n"
		 " a 10 [000] 3.40: exceptions:page_fault_user: address=0x7f0000070000 ip=0x1 error_code=0x6\n"
		 " a 10 [000] 3.41: kmem:mm_page_alloc: page=0xa00 pfn=0xa00 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.42: exceptions:page_fault_user: address=0x7f0000071000 ip=0x1 error_code=0x6\n"
		 " a 10 [000] 3.43: kmem:mm_page_alloc: page=0xa01 pfn=0xa01 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.44: vmscan:mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.45: vmscan:mm_vmscan_write_folio: page=0xa00 pfn=0xa00 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.46: vmscan:mm_vmscan_write_folio: page=0xa01 pfn=0xa01 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 10 [000] 3.47: vmscan:mm_vmscan_memcg_reclaim_end: nr_reclaimed=1\n"
		 " a 10 [000] 3.48: vmscan:mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 10 [000] 3.49: vmscan:mm_vmscan_memcg_reclaim_end: nr_reclaimed=3\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	const uint32_t A = SWS_TRACE_ACCESS, W = SWS_TRACE_F_WRITE, R = SWS_TRACE_RECLAIM, C = SWS_TRACE_F_CHARGE,
		       V = SWS_TRACE_F_VICTIM | C,
		       T = SWS_TRACE_MEMCG_TASK;
#define AT(line) (3000000000ull + (line) * 10000000ull)
	/* each order-0 memcg reclaim begin: RECLAIM c of 0 pages (the memcg is full) */
#define BEGIN(i, line) rec_eq(&v.v[i], AT(line), 0, 0, R, C, 10, 10, 0, T)
	/* a fault's ACCESS carries the order + 1 of the folio it tied (F0: order 0,
	 * F4: 64 KiB), and FB when that replaced a larger one (a fallback) */
	const uint32_t F0 = 1u << SWS_TRACE_F_FOLIO_SHIFT, F4 = 5u << SWS_TRACE_F_FOLIO_SHIFT,
		       FB = SWS_TRACE_F_FALLBACK;
	assert_int_equal(v.n, 26); /* the second end: its one page named, no record */
	rec_eq(&v.v[0], AT(2), 0x7f0000001234ull, 0, A, W | F0, 10, 10, 0, 0);
	rec_eq(&v.v[1], AT(5), 0x7f0000013000ull, 0, A, W | F4, 10, 10, 0, 0);
	rec_eq(&v.v[2], AT(7), 0x7f0000030000ull, 0, A, W, 10, 10, 0, 0); /* reclaim's own allocation */
	BEGIN(3, 8);
	rec_eq(&v.v[4], AT(10), 0x7f0000001000ull, 1, R, V, 10, 10, 0, T);
	rec_eq(&v.v[5], AT(11), 0x7f0000010000ull, 16, R, V, 10, 10, 0, T); /* the 64 KiB folio */
	rec_eq(&v.v[6], AT(13), 0, 15, R, C, 10, 10, 0, T);                 /* 32 less the 17 named */
	rec_eq(&v.v[7], AT(20), 0x7f0000040000ull, 0, A, W | F0, 10, 10, 0, 0);
	rec_eq(&v.v[8], AT(22), 0, 0x3000, SWS_TRACE_FILE, 0, 10, 10, 0, 1); /* 3 pages allocated so far */
	BEGIN(9, 22);
	rec_eq(&v.v[10], AT(23), 0x7f0000040000ull, 1, R, V, 10, 10, 0, T);
	rec_eq(&v.v[11], AT(25), 0x3000, 0x2000, SWS_TRACE_FILE, 0, 10, 10, 0, 1); /* the rest */
	/* a failed allocation (pfn 0) ties nothing; the 64 KiB folio's fallback to
	 * 4 KiB takes its place */
	rec_eq(&v.v[12], AT(26), 0x7f0000050000ull, 0, A, W | F0 | FB, 10, 10, 0, 0);
	BEGIN(13, 30);
	rec_eq(&v.v[14], AT(32), 0x7f0000050000ull, 1, R, V, 10, 10, 0, T);
	rec_eq(&v.v[15], AT(33), 0, 1, R, C, 10, 10, 0, T);
	/* a write outside a reclaim (MADV_PAGEOUT's) names nothing and unties the
	 * folio, so the next reclaim's end keeps its page */
	rec_eq(&v.v[16], AT(34), 0x7f0000060000ull, 0, A, W | F0, 10, 10, 0, 0);
	BEGIN(17, 37);
	rec_eq(&v.v[18], AT(39), 0, 1, R, C, 10, 10, 0, T);
	/* two named, one counted by the end (a disk frees the other in a later
	 * pass): the next end counts it */
	rec_eq(&v.v[19], AT(40), 0x7f0000070000ull, 0, A, W | F0, 10, 10, 0, 0);
	rec_eq(&v.v[20], AT(42), 0x7f0000071000ull, 0, A, W | F0, 10, 10, 0, 0);
	BEGIN(21, 44);
	rec_eq(&v.v[22], AT(45), 0x7f0000070000ull, 1, R, V, 10, 10, 0, T);
	rec_eq(&v.v[23], AT(46), 0x7f0000071000ull, 1, R, V, 10, 10, 0, T);
	BEGIN(24, 48);
	rec_eq(&v.v[25], AT(49), 0, 2, R, C, 10, 10, 0, T);
#undef BEGIN
#undef AT
	assert_int_equal(ps.victims, 6);
	assert_int_equal(ps.victims_untied, 3); /* 0x300: zsmalloc's; 0x700: the fallback; 0x900: untied */
	assert_int_equal(ps.file_io_pieces, 1);
	free(v.v);
	unlink(p);
}

/*
 * A fault's ACCESS waits for its folio: a system call (a), the task's exit
 * (a), the end of the input (b: a 64 KiB folio's fallback) let it go with
 * the folio's order; in a read (c) a kernel-mode fault's first folio is its
 * own, the call's next allocation no fallback. The ACCESS of b, held, keeps
 * c's behind it: the order is the trace's. Line N has time 4.N s.
 */
static void test_perf_fault_folio(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_fault_folio.txt",
		 " a 20 [000] 4.01: kmem:mm_page_alloc: page=0x10 pfn=0x10 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"
		 " a 20 [000] 4.02: exceptions:page_fault_user: address=0x7f0000001000 ip=0x1 error_code=0x6\n"
		 " a 20 [000] 4.03: kmem:mm_page_alloc: page=0x100 pfn=0x100 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 20 [000] 4.04: syscalls:sys_enter_read: fd: 0x00000009, buf: 0x7f0000001000, count: 0x00001000\n"
		 " a 20 [000] 4.05: syscalls:sys_exit_read: 0x0\n"
		 " a 20 [000] 4.06: exceptions:page_fault_user: address=0x7f0000010000 ip=0x1 error_code=0x6\n"
		 " a 20 [000] 4.07: kmem:mm_page_alloc: page=0x200 pfn=0x200 order=4 migratetype=1 gfp_flags=GFP_TRANSHUGE_LIGHT\n"
		 " a 20 [000] 4.08: sched:sched_process_exit: comm=a pid=20 prio=120 group_dead=true\n"
		 " b 21 [001] 4.09: exceptions:page_fault_user: address=0x7f0000020000 ip=0x1 error_code=0x6\n"
		 " b 21 [001] 4.10: kmem:mm_page_alloc: page=0x300 pfn=0x300 order=4 migratetype=1 gfp_flags=GFP_TRANSHUGE_LIGHT\n"
		 " b 21 [001] 4.11: kmem:mm_page_alloc: page=0x310 pfn=0x310 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " c 22 [000] 4.12: syscalls:sys_enter_read: fd: 0x00000009, buf: 0x7f0000030000, count: 0x00001000\n"
		 " c 22 [000] 4.13: exceptions:page_fault_kernel: address=0x7f0000030000 ip=_copy_to_iter error_code=0x2\n"
		 " c 22 [000] 4.14: kmem:mm_page_alloc: page=0x400 pfn=0x400 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " c 22 [000] 4.15: kmem:mm_page_alloc: page=0x500 pfn=0x500 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " c 22 [000] 4.16: syscalls:sys_exit_read: 0x1000\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	const uint32_t A = SWS_TRACE_ACCESS, W = SWS_TRACE_F_WRITE, F0 = 1u << SWS_TRACE_F_FOLIO_SHIFT,
		       F4 = 5u << SWS_TRACE_F_FOLIO_SHIFT, FB = SWS_TRACE_F_FALLBACK;
#define AT(line) (4000000000ull + (line) * 10000000ull)
	assert_int_equal(v.n, 5);
	rec_eq(&v.v[0], AT(2), 0x7f0000001000ull, 0, A, W | F0, 20, 20, 0, 0);
	rec_eq(&v.v[1], AT(6), 0x7f0000010000ull, 0, A, W | F4, 20, 20, 0, 0);
	rec_eq(&v.v[2], AT(8), 0, 0, SWS_TRACE_EXIT, 0, 20, 20, 0, 0);
	rec_eq(&v.v[3], AT(9), 0x7f0000020000ull, 0, A, W | F0 | FB, 21, 21, 1, 0);
	rec_eq(&v.v[4], AT(13), 0x7f0000030000ull, 0, A, W | F0, 22, 22, 0, 0);
#undef AT
	free(v.v);
	unlink(p);
}

/* The process the first named victim of a pid/tid trace names: folio 0x100
 * tied at 0x7f0000001000 of process 30, which clones 31 at line 4, then
 * @mid (lines 5 to 7), then a reclaim that writes 0x100 out. */
static uint32_t cow_victim_pid(const char *mid)
{
	char p[256], text[4096];
	snprintf(text, sizeof(text), "%s%s%s",
		 " a 30/30 [000] 5.01: kmem:mm_page_alloc: page=0x10 pfn=0x10 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"
		 " a 30/30 [000] 5.02: exceptions:page_fault_user: address=0x7f0000001000 ip=0x1 error_code=0x6\n"
		 " a 30/30 [000] 5.03: kmem:mm_page_alloc: page=0x100 pfn=0x100 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 30/30 [000] 5.04: sched:sched_process_fork: comm=a pid=30 child_comm=a child_pid=31\n",
		 mid,
		 " a 30/30 [000] 5.08: vmscan:mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 30/30 [000] 5.09: vmscan:mm_vmscan_write_folio: page=0x100 pfn=0x100 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 30/30 [000] 5.10: vmscan:mm_vmscan_memcg_reclaim_end: nr_reclaimed=1\n");
	tmp_text(p, sizeof(p), "perf_cow_victims2.txt", text);
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	size_t k = 0;
	while (k < v.n && !(v.v[k].op == SWS_TRACE_RECLAIM && v.v[k].len))
		k++;
	assert_true(k < v.n);
	assert_int_equal(v.v[k].addr, 0x7f0000001000ull);
	assert_int_equal(v.v[k].flags, SWS_TRACE_F_VICTIM | SWS_TRACE_F_CHARGE);
	uint32_t pid = v.v[k].pid;
	free(v.v);
	unlink(p);
	return pid;
}

/*
 * A page shared at fork that the parent copies on its write (error_code 0x7:
 * a write to a present page) stays the child's: the kernel's write of the old
 * folio names the child's page, of the copy the parent's. A child's own copy
 * leaves the parent's tie alone. Line N has time 5.N s.
 */
static void test_perf_cow_victims(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_cow_victims.txt",
		 " a 30 [000] 5.01: kmem:mm_page_alloc: page=0x10 pfn=0x10 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"
		 " a 30 [000] 5.02: exceptions:page_fault_user: address=0x7f0000001000 ip=0x1 error_code=0x6\n"
		 " a 30 [000] 5.03: kmem:mm_page_alloc: page=0x100 pfn=0x100 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 30 [000] 5.04: exceptions:page_fault_user: address=0x7f0000002000 ip=0x1 error_code=0x6\n"
		 " a 30 [000] 5.05: kmem:mm_page_alloc: page=0x101 pfn=0x101 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 30 [000] 5.06: sched:sched_process_fork: comm=a pid=30 child_comm=a child_pid=31\n"
		 " a 30 [000] 5.07: exceptions:page_fault_user: address=0x7f0000001008 ip=0x1 error_code=0x7\n"
		 " a 30 [000] 5.08: kmem:mm_page_alloc: page=0x200 pfn=0x200 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 31 [001] 5.09: exceptions:page_fault_user: address=0x7f0000002008 ip=0x1 error_code=0x7\n"
		 " a 31 [001] 5.10: kmem:mm_page_alloc: page=0x300 pfn=0x300 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 30 [000] 5.11: vmscan:mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
		 " a 30 [000] 5.12: vmscan:mm_vmscan_write_folio: page=0x100 pfn=0x100 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 30 [000] 5.13: vmscan:mm_vmscan_write_folio: page=0x200 pfn=0x200 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 30 [000] 5.14: vmscan:mm_vmscan_write_folio: page=0x101 pfn=0x101 flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC\n"
		 " a 30 [000] 5.15: vmscan:mm_vmscan_memcg_reclaim_end: nr_reclaimed=3\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	const uint32_t R = SWS_TRACE_RECLAIM, V = SWS_TRACE_F_VICTIM | SWS_TRACE_F_CHARGE, T = SWS_TRACE_MEMCG_TASK;
	size_t k = 0;
	while (k < v.n && !(v.v[k].op == R && v.v[k].len))
		k++;
	assert_true(k + 3 <= v.n);
	assert_int_equal(v.v[k].addr, 0x7f0000001000ull); /* the old folio: the child's */
	assert_int_equal(v.v[k].pid, 31);
	assert_int_equal(v.v[k].flags, V);
	assert_int_equal(v.v[k].arg, T);
	assert_int_equal(v.v[k + 1].addr, 0x7f0000001000ull); /* the copy: the parent's */
	assert_int_equal(v.v[k + 1].pid, 30);
	assert_int_equal(v.v[k + 2].addr, 0x7f0000002000ull); /* the child copied: the parent's stays */
	assert_int_equal(v.v[k + 2].pid, 30);
	assert_int_equal(ps.victims, 3);
	free(v.v);
	unlink(p);

	/* pid/tid lines: the fork is held until the child shows (process or
	 * thread), and the parent copies before that: the child's, though the
	 * fork was undecided then */
	assert_int_equal(cow_victim_pid(" a 30/30 [000] 5.05: exceptions:page_fault_user: address=0x7f0000001008 ip=0x1 error_code=0x7\n"
					" a 30/30 [000] 5.06: kmem:mm_page_alloc: page=0x200 pfn=0x200 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
					" a 31/31 [001] 5.07: exceptions:page_fault_user: address=0x7f0000003000 ip=0x1 error_code=0x6\n"),
			 31);
	/* a clone that turns out a thread is no child: the parent's copy keeps
	 * the old page tied to the parent */
	assert_int_equal(cow_victim_pid(" a 30/31 [001] 5.05: exceptions:page_fault_user: address=0x7f0000003000 ip=0x1 error_code=0x6\n"
					" a 30/30 [000] 5.06: exceptions:page_fault_user: address=0x7f0000001008 ip=0x1 error_code=0x7\n"
					" a 30/30 [000] 5.07: kmem:mm_page_alloc: page=0x200 pfn=0x200 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"),
			 30);
}

/* tests/data/perf_file_io.txt: file I/O through descriptors openat() made (the
 * offsets read and write advance, pread64/pwrite64 at their own, lseek, EOF, a
 * failed call, a descriptor no openat made), descriptors copied by fork and
 * closed by exec (O_CLOEXEC), close and exit; kernel-mode faults on user
 * memory; a memcg reclaim split by its shrink_inactive lines, one without
 * them, and kswapd's. Line N has time 2.N s. */
static void test_perf_file_io(void **state)
{
	(void)state;
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(DATA "perf_file_io.txt", &ps);
	const uint32_t W = SWS_TRACE_F_WRITE, F = SWS_TRACE_FILE, T = SWS_TRACE_MEMCG_TASK;
#define AT(line) (2000000000ull + (line) * 10000000ull)
	assert_int_equal(v.n, 21);
	rec_eq(&v.v[0], AT(4), 0, 0x2000, F, 0, 10, 10, 0, 1);
	rec_eq(&v.v[1], AT(6), 0x2000, 0x1800, F, 0, 10, 10, 0, 1);
	rec_eq(&v.v[2], AT(10), 0x10000, 0x1000, F, 0, 10, 10, 0, 1); /* pread64: its pos */
	rec_eq(&v.v[3], AT(14), 0x100, 0x200, F, 0, 10, 10, 0, 1);    /* after lseek */
	rec_eq(&v.v[4], AT(18), 0, 0x1000, F, W, 10, 10, 0, 2);
	rec_eq(&v.v[5], AT(20), 0x1000, 0x1000, F, W, 10, 10, 0, 2);
	rec_eq(&v.v[6], AT(22), 0x8000, 0x10, F, W, 10, 10, 0, 2);
	rec_eq(&v.v[7], AT(27), 0x7f0000001000ull, 0, SWS_TRACE_ACCESS, W, 10, 10, 0, 0);
	rec_eq(&v.v[8], AT(29), 0x7f0000002000ull, 0, SWS_TRACE_ACCESS, 0, 10, 10, 0, 0);
	rec_eq(&v.v[9], AT(30), 0, 0, SWS_TRACE_FORK, 0, 10, 10, 0, 11);
	rec_eq(&v.v[10], AT(32), 0x300, 0x1000, F, 0, 11, 11, 0, 1);   /* the parent's offset */
	rec_eq(&v.v[11], AT(33), 0, 0, SWS_TRACE_EXEC, 0, 11, 11, 0, 0);
	rec_eq(&v.v[12], AT(37), 0x2000, 0x1000, F, W, 11, 11, 0, 2);  /* kept across exec */
	rec_eq(&v.v[13], AT(42), 0, 0, SWS_TRACE_EXIT, 0, 11, 11, 0, 0);
	/* a memcg's (flag c): its begin (0 pages: the memcg is full), each shrink
	 * line's pages of its LRU type at once, and the end's 16 less the lines'
	 * 15 (slab) */
	const uint32_t R = SWS_TRACE_RECLAIM, C = SWS_TRACE_F_CHARGE;
	rec_eq(&v.v[14], AT(43), 0, 0, R, C, 10, 10, 0, T);
	rec_eq(&v.v[15], AT(44), 0, 5, R, SWS_TRACE_F_ANON_LRU | C, 10, 10, 0, T);
	rec_eq(&v.v[16], AT(45), 0, 7, R, SWS_TRACE_F_FILE_LRU | C, 10, 10, 0, T);
	rec_eq(&v.v[17], AT(46), 0, 3, R, SWS_TRACE_F_ANON_LRU | C, 10, 10, 0, T);
	rec_eq(&v.v[18], AT(47), 0, 1, R, C, 10, 10, 0, T);
	rec_eq(&v.v[19], AT(48), 0, 4, R, C, 10, 10, 0, T); /* an end with no begin or lines */
	rec_eq(&v.v[20], AT(49), 0, 9, R, SWS_TRACE_F_FILE_LRU, 50, 50, 0, SWS_TRACE_MEMCG_ROOT);
#undef AT
	assert_int_equal(ps.files_opened, 2);
	assert_int_equal(ps.file_io, 9);
	assert_int_equal(ps.file_io_other_fd, 3); /* stdout; fd 3 after exec; fd 4 after close */
	assert_int_equal(ps.calls_failed, 1);
	assert_int_equal(ps.kernel_faults, 2);
	assert_int_equal(ps.reclaim_split, 0);
	assert_int_equal(ps.reclaim_lines, 3);
	assert_int_equal(ps.fds_untracked, 0);
	assert_int_equal(ps.unfinished_calls, 0);
	free(v.v);

	/* madvise MADV_HUGEPAGE (14) and MADV_NOHUGEPAGE (15) */
	char p[256];
	tmp_text(p, sizeof(p), "perf_fio.txt",
		 " a 1 [000] 1.0: syscalls:sys_enter_madvise: start: 0x7f0000200000, len_in: 0x00200000, behavior: 0x0000000e\n"
		 " a 1 [000] 1.1: syscalls:sys_exit_madvise: 0x0\n"
		 " a 1 [000] 1.2: syscalls:sys_enter_madvise: start: 0x7f0000300000, len_in: 0x00010000, behavior: 0x0000000f\n"
		 " a 1 [000] 1.3: syscalls:sys_exit_madvise: 0x0\n");
	v = load_perf(p, &ps);
	assert_int_equal(v.n, 2);
	rec_eq(&v.v[0], 1100000000ull, 0x7f0000200000ull, 0x200000, SWS_TRACE_MADV_HUGEPAGE, 0, 1, 1, 0, 0);
	rec_eq(&v.v[1], 1300000000ull, 0x7f0000300000ull, 0x10000, SWS_TRACE_MADV_NOHUGEPAGE, 0, 1, 1, 0, 0);
	assert_int_equal(ps.madvise_other, 0);
	free(v.v);

	/* writeback:writeback_dirty_folio (SWS_TRACE_READ_DIRTY_EVENTS): fd 3's first
	 * write dirtied page cache, so its later one (a rewrite of dirty pages)
	 * is a FILE record too; fd 4's writes (/dev/null) dirtied none and are left
	 * out; an event outside a write changes nothing. fd 5, a dup of fd 3 made
	 * before that write, reaches the same open file: its write into the dirty
	 * pages (no event) is a FILE record too. Without the flag every write is a
	 * FILE record. */
	const char *dirty_text =
	    " a 1 [000] 1.00: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x1000, flags: 0x241, mode: 0x1b6\n"
	    " a 1 [000] 1.01: syscalls:sys_exit_openat: 0x3\n"
	    " a 1 [000] 1.011: syscalls:sys_enter_dup: fildes: 0x00000003\n"
	    " a 1 [000] 1.012: syscalls:sys_exit_dup: 0x5\n"
	    " a 1 [000] 1.02: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x2000, flags: 0x241, mode: 0x1b6\n"
	    " a 1 [000] 1.03: syscalls:sys_exit_openat: 0x4\n"
	    " a 1 [000] 1.04: writeback:writeback_dirty_folio: bdi 254:0: ino=12 index=0\n"
	    " a 1 [000] 1.05: syscalls:sys_enter_write: fd: 0x00000004, buf: 0x7ffd00001000, count: 0x00002000\n"
	    " a 1 [000] 1.06: syscalls:sys_exit_write: 0x2000\n"
	    " a 1 [000] 1.07: syscalls:sys_enter_write: fd: 0x00000003, buf: 0x7ffd00001000, count: 0x00002000\n"
	    " a 1 [000] 1.08: writeback:writeback_dirty_folio: bdi 254:0: ino=12 index=0\n"
	    " a 1 [000] 1.09: syscalls:sys_exit_write: 0x2000\n"
	    " a 1 [000] 1.10: syscalls:sys_enter_pwrite64: fd: 0x00000003, buf: 0x7ffd00001000, count: 0x00001000, pos: 0x0\n"
	    " a 1 [000] 1.11: syscalls:sys_exit_pwrite64: 0x1000\n"
	    " a 1 [000] 1.12: syscalls:sys_enter_write: fd: 0x00000004, buf: 0x7ffd00001000, count: 0x00001000\n"
	    " a 1 [000] 1.13: syscalls:sys_exit_write: 0x1000\n"
	    " a 1 [000] 1.14: syscalls:sys_enter_write: fd: 0x00000005, buf: 0x7ffd00001000, count: 0x00000100\n"
	    " a 1 [000] 1.15: syscalls:sys_exit_write: 0x100\n";
	tmp_text(p, sizeof(p), "perf_dirty.txt", dirty_text);
	v = load_perf_flags(p, SWS_TRACE_READ_DIRTY_EVENTS, &ps);
	assert_int_equal(v.n, 3);
	rec_eq(&v.v[0], 1090000000ull, 0, 0x2000, SWS_TRACE_FILE, SWS_TRACE_F_WRITE, 1, 1, 0, 1);
	rec_eq(&v.v[1], 1110000000ull, 0, 0x1000, SWS_TRACE_FILE, SWS_TRACE_F_WRITE, 1, 1, 0, 1);
	rec_eq(&v.v[2], 1150000000ull, 0x2000, 0x100, SWS_TRACE_FILE, SWS_TRACE_F_WRITE, 1, 1, 0, 1);
	assert_int_equal(ps.writes_no_pagecache, 2);
	assert_int_equal(ps.file_io, 3);
	free(v.v);
	v = load_perf(p, &ps);
	assert_int_equal(v.n, 5);
	assert_int_equal(v.v[0].arg, 2); /* fd 4's first write */
	assert_int_equal(ps.writes_no_pagecache, 0);
	free(v.v);

	/* Bad arguments name the call. */
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	tmp_text(p, sizeof(p), "perf_fio.txt", " a 1 [000] 1.0: syscalls:sys_enter_pread64: fd: 0x3, buf: 0x0, count: 0x10\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sys_enter_pread64: bad or missing fd: or pos:");
	tmp_text(p, sizeof(p), "perf_fio.txt", " a 1 [000] 1.0: syscalls:sys_enter_read: buf: 0x0, count: 0x10\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sys_enter_read: bad or missing fd:");
	tmp_text(p, sizeof(p), "perf_fio.txt",
		 " a 1 [000] 1.0: syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x0, flags: 0x0, mode: 0x0\n"
		 " a 1 [000] 1.1: syscalls:sys_exit_openat: 0x80000000\n");
	expect_error(p, &c, SWS_EFORMAT, ":2: sys_exit_openat: descriptor 0x80000000 out of range");
	unlink(p);
}

/* perf's PERF_RECORD_MMAP2 lines: anonymous private VMAs become MMAP, unless
 * the trace has the mmap system calls; malformed side-band lines are errors. */
static void test_perf_mmap2(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "perf_mmap2.txt",
		 " t 100 [000] 1.0: PERF_RECORD_MMAP2 100/100: [0x7f0000000000(0x2000) @ 0x7f0000000000 00:00 0 0]: rw-p //anon\n"
		 " t 100 [000] 1.1: PERF_RECORD_MMAP2 100/100: [0x7f0000010000(0x2000) @ 0x1000 fe:00 12 0]: r-xp /bin/true\n"
		 " t 100 [000] 1.2: PERF_RECORD_MMAP2 100/100: [0x7f0000020000(0x2000) @ 0 00:01 4625 0]: rw-s /dev/zero (deleted)\n"
		 " t 100 [000] 1.3: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x120bb08) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
		 " t 100 [000] 1.4: PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:     0/0\n"
		 " t 100 [000] 1.5: syscalls:sys_enter_mmap: addr: 0x00000000, len: 0x00001000, prot: 0x00000003, flags: 0x00000022, fd: 0xffffffff, off: 0x00000000\n"
		 " t 100 [000] 1.6: PERF_RECORD_MMAP2 100/100: [0x7f0000030000(0x1000) @ 0x7f0000030000 00:00 0 0]: rw-p //anon\n"
		 " t 100 [000] 1.7: syscalls:sys_exit_mmap: 0x7f0000030000\n");
	struct sws_trace_perf_stats ps;
	struct recs v = load_perf(p, &ps);
	assert_int_equal(v.n, 2);
	rec_eq(&v.v[0], 1000000000ull, 0x7f0000000000ull, 0x2000, SWS_TRACE_MMAP, 0, 100, 100, 0, 0);
	rec_eq(&v.v[1], 1700000000ull, 0x7f0000030000ull, 0x1000, SWS_TRACE_MMAP, 0, 100, 100, 0, 0);
	assert_int_equal(ps.mmap2_skipped, 3);
	free(v.v);
	/* a trace that starts with perf's own lines is detected as perf */
	v = load(p, NULL);
	assert_int_equal(v.n, 2);
	free(v.v);

	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_PERF);
	tmp_text(p, sizeof(p), "perf_mmap2.txt", " t 1 [000] 1.0: PERF_RECORD_MMAP2 1/1: [0x7f(zz) @ 0]: rw-p //anon\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: PERF_RECORD_MMAP2: want PID/TID: [0xSTART(0xLEN) @ ...]: PROT NAME");
	tmp_text(p, sizeof(p), "perf_mmap2.txt", " t 1 [000] 1.0: PERF_RECORD_FORK(1:2):(3)\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: PERF_RECORD_FORK: want (PID:TID):(PPID:PTID)");
	tmp_text(p, sizeof(p), "perf_mmap2.txt", " t 1 [000] 1.0: PERF_RECORD_COMM exec: nopid\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: PERF_RECORD_COMM exec: want COMM:PID/TID");
	tmp_text(p, sizeof(p), "perf_mmap2.txt", " t 1 [000] 1.0: sched:sched_process_fork: comm=t pid=1\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sched_process_fork: want");
	tmp_text(p, sizeof(p), "perf_mmap2.txt", " t 1 [000] 1.0: sched:sched_process_exit: comm=t pid=1 prio=120 group_dead=maybe\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sched_process_exit: want");
	tmp_text(p, sizeof(p), "perf_mmap2.txt", " t 1 [000] 1.0: sched:sched_process_exec: filename=x pid=1\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: sched_process_exec: want");
	tmp_text(p, sizeof(p), "perf_mmap2.txt", " t 1 [000] 1.0: PERF_RECORD_FORK(0:0):(1:1)\n");
	expect_error(p, &c, SWS_EFORMAT, ":1: clone of task 0");
	unlink(p);
}

/* lackey: first 200 lines: 158 I, 27 S/M (26 S + 1 M) writes, 15 L reads. */
static void test_lackey(void **state)
{
	(void)state;
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_LACKEY);
	struct recs v = load(DATA "lackey_head.txt", &c);
	assert_int_equal(v.n, 200);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH, SWS_TRACE_F_IFETCH), 158);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, SWS_TRACE_F_WRITE), 27);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, ~0u, 0), 15);
	rec_eq(&v.v[0], 0, 0x0401ab70, 3, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH, 1, 1,
	       SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[2], 0, 0x1fff000608ull, 8, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 1, 1,
	       SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[199], 0, 0x0401b836, 4, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH, 1, 1,
	       SWS_TRACE_CPU_ANY, 0);
	free(v.v);

	/* `==` banners and blank lines are skipped; M is a write; default_pid applies. */
	char p[256];
	tmp_text(p, sizeof(p), "lackey_banner.txt",
		 "==123== Lackey, an example Valgrind tool\n\n M 04a1c9f0,4\n L 10,8\n==123== \n");
	c.default_pid = 9;
	v = load(p, &c);
	assert_int_equal(v.n, 2);
	rec_eq(&v.v[0], 0, 0x04a1c9f0, 4, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 9, 9,
	       SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[1], 0, 0x10, 8, SWS_TRACE_ACCESS, 0, 9, 9, SWS_TRACE_CPU_ANY, 0);
	free(v.v);
	unlink(p);
}

/* lackey with --trace-syscalls: the memory-map calls become records in their
 * place; failed calls, other calls, a blocked call's lines and valgrind's own
 * messages are skipped. */
static void test_lackey_syscalls(void **state)
{
	(void)state;
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_LACKEY);
	char p[256];
	tmp_text(p, sizeof(p), "lackey_syscalls.txt",
		 "==5== Lackey, an example Valgrind tool\n"
		 "SYSCALL[5,1](12) sys_brk ( 0x0 ) --> [pre-success] Success(0x4035000) \n"
		 "SYSCALL[5,1](12) sys_brk ( 0x4077000 ) --> [pre-success] Success(0x4077000) \n"
		 " S 04035008,8\n"
		 "SYSCALL[5,1](12) sys_brk ( 0x4056000 ) --> [pre-success] Success(0x4056000) \n"
		 "SYSCALL[5,1](9) sys_mmap ( 0x0, 8192, 3, 34, 4294967295, 0 ) --> [pre-success] Success(0x4835000) \n"
		 "SYSCALL[5,1](9) sys_mmap ( 0x0, 16400, 1, 2050, 3, 0 ) --> [pre-success] Success(0x4837000) \n"
		 "SYSCALL[5,1](9) sys_mmap ( 0x4838000, 4096, 5, 2066, 3, 4096 ) --> [pre-success] Success(0x4838000) \n"
		 "SYSCALL[5,1](9) sys_mmap ( 0x483a000, 8192, 3, 50, -1, 0 ) --> [pre-success] Success(0x483a000) \n"
		 "SYSCALL[5,1](11) sys_munmap ( 0x483c000, 43839 )[sync] --> Success(0x0) \n"
		 "SYSCALL[5,1](25) sys_mremap ( 0x5000000, 1048576, 4096, 0x0, 0x0 ) --> [pre-success] Success(0x5000000) \n"
		 "SYSCALL[5,1](25) sys_mremap ( 0x5000000, 4096, 2097152, 0x1, 0x0 ) --> [pre-success] Success(0x6000000) \n"
		 /* madvise may block: valgrind prints its result on a later line */
		 "SYSCALL[5,1](28) sys_madvise ( 0x6000000, 8192, 4 ) --> [async] ... \n"
		 "SYSCALL[5,1](28) ... [async] --> Success(0x0) \n"
		 "SYSCALL[5,1](28) sys_madvise ( 0x6000000, 8192, 8 ) --> [async] ... \n"
		 " S 06000010,8\n" /* another thread's, while it blocked */
		 "SYSCALL[5,2](28) ... [async] --> Success(0x0) \n"
		 "SYSCALL[5,1](28) ... [async] --> Success(0x0) \n"
		 "SYSCALL[5,1](28) sys_madvise ( 0x8000000, 8192, 4 ) --> [async] ... \n"
		 "SYSCALL[5,1](28) ... [async] --> Failure(0x16) \n"
		 "SYSCALL[5,1](28) sys_madvise ( 0x6000000, 8192, 9 ) [sync] --> Success(0x0) \n"
		 "SYSCALL[5,1](11) sys_munmap ( 0x7000000, 4096 )[sync] --> Failure(0x16) \n"
		 "SYSCALL[5,1](0) sys_read ( 3, 0x1ffefff000, 4096 ) --> [async] ... \n"
		 "SYSCALL[5,1](0) ... [async] --> Success(0x1000) \n"
		 " --> [pre-fail] Failure(0x26) \n"
		 "--5-- WARNING: unhandled amd64-linux syscall: 334\n"
		 " L 06000000,8\n");
	struct recs v = load(p, &c);
	assert_int_equal(v.n, 13);
	const uint32_t A = SWS_TRACE_CPU_ANY;
	rec_eq(&v.v[0], 0, 0x4035008, 8, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 1, 1, A, 0);
	rec_eq(&v.v[1], 0, 0x4056000, 0x21000, SWS_TRACE_MUNMAP, 0, 1, 1, A, 0); /* brk down */
	rec_eq(&v.v[2], 0, 0x4835000, 8192, SWS_TRACE_MMAP, 0, 1, 1, A, 0);
	rec_eq(&v.v[3], 0, 0x4838000, 4096, SWS_TRACE_MUNMAP, 0, 1, 1, A, 0); /* fixed, a file's */
	rec_eq(&v.v[4], 0, 0x483a000, 8192, SWS_TRACE_MUNMAP, 0, 1, 1, A, 0); /* fixed, anon */
	rec_eq(&v.v[5], 0, 0x483a000, 8192, SWS_TRACE_MMAP, 0, 1, 1, A, 0);
	rec_eq(&v.v[6], 0, 0x483c000, 43839, SWS_TRACE_MUNMAP, 0, 1, 1, A, 0);
	rec_eq(&v.v[7], 0, 0x5001000, 1044480, SWS_TRACE_MUNMAP, 0, 1, 1, A, 0); /* shrunk */
	rec_eq(&v.v[8], 0, 0x5000000, 4096, SWS_TRACE_MUNMAP, 0, 1, 1, A, 0);	 /* moved */
	rec_eq(&v.v[9], 0, 0x6000000, 8192, SWS_TRACE_MADV_DONTNEED, 0, 1, 1, A, 0);
	rec_eq(&v.v[10], 0, 0x6000010, 8, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 1, 1, A, 0);
	rec_eq(&v.v[11], 0, 0x6000000, 8192, SWS_TRACE_MADV_FREE, 0, 1, 1, A, 0);
	rec_eq(&v.v[12], 0, 0x6000000, 8, SWS_TRACE_ACCESS, 0, 1, 1, A, 0);
	free(v.v);
	unlink(p);
}

/* lackey with --trace-children=yes: the lines of several processes in one
 * stream. A blocked call's two lines are paired by pid and thread, whatever
 * other processes' and threads' lines come between; the stream is read as the
 * first process's (the only one whose memory-map calls count), a reader
 * warning names the line where a second pid appears, and lines the two
 * processes' writes tore apart are skipped from then on. */
static void test_lackey_processes(void **state)
{
	(void)state;
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_LACKEY);
	const uint32_t A = SWS_TRACE_CPU_ANY;
	char p[256];
	tmp_text(p, sizeof(p), "lackey_processes.txt",
		 "==5== Lackey, an example Valgrind tool\n"
		 "SYSCALL[5,1](28) sys_madvise ( 0x6000000, 8192, 4 ) --> [async] ... \n"
		 "==6== Lackey, an example Valgrind tool\n" /* line 3: the exec'd child */
		 "SYSCALL[6,1](28) sys_madvise ( 0x7000000, 4096, 4 ) --> [async] ... \n"
		 "SYSCALL[6,1](9) sys_mmap ( 0x0, 8192, 3, 34, 4294967295, 0 ) --> [pre-success] Success(0x4a2c000) \n"
		 "SYSCALL[6,1](12) sys_brk ( 0x0 ) --> [pre-success] Success(0x4035000) \n"
		 "SYSCALL[5,2](28) sys_madvise ( 0x9000000, 4096, 8 ) --> [async] ... \n"
		 "SYSCALL[6,1](28) ... [async] --> Success(0x0) \n"
		 "SYSCALL[5,1](28) ... [async] --> Success(0x0) \n"
		 " S 04a2c000,8\n"
		 "SYSCALL[5,2](28) ... [async] --> Success(0x0) \n"
		 " --> [pre-success] Success(0x4a16000) S 04a4d9a4,1\n" /* torn */
		 "sys_mmap ( 0x4a1c000, 53072, 3, 50, 4294967295, 0 )I  0499a54a,2\n"
		 "SYSCALL[5,1](12) sys_brk ( 0x0 ) --> [pre-success] Success(0x4040000) \n"
		 "SYSCALL[5,1](12) sys_brk ( 0x4030000 ) --> [pre-success] Success(0x4030000) \n"
		 "==6== \n"
		 " L 06000000,8\n");
	struct sws_trace_reader *r;
	char msg[600] = "";
	struct recs v = {0};
	struct sws_trace_record x;
	int rc = sws_trace_reader_open(p, &c, &r, msg, sizeof(msg));
	assert_int_equal(rc, 0);
	assert_string_equal(sws_trace_reader_warning(r), "");
	while ((rc = sws_trace_reader_next(r, &x)) == 1)
		recs_push(&v, &x);
	if (rc)
		fail_msg("%s", sws_trace_reader_error(r));
	const char *w = sws_trace_reader_warning(r);
	assert_non_null(strstr(w, p));
	assert_non_null(strstr(w, ":3: a line of pid 6 in the lackey stream of pid 5"));
	assert_non_null(strstr(w, "pid 6"));
	assert_non_null(strstr(w, "pid 5"));
	struct sws_trace_reader_stats st;
	sws_trace_reader_stats_get(r, &st);
	assert_int_equal(st.lines, 17);
	assert_int_equal(st.skipped_lines, 17 - 5);
	sws_trace_reader_close(r);
	assert_int_equal(v.n, 5);
	rec_eq(&v.v[0], 0, 0x6000000, 8192, SWS_TRACE_MADV_DONTNEED, 0, 1, 1, A, 0); /* pid 5, thread 1 */
	rec_eq(&v.v[1], 0, 0x4a2c000, 8, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 1, 1, A, 0);
	rec_eq(&v.v[2], 0, 0x9000000, 4096, SWS_TRACE_MADV_FREE, 0, 1, 1, A, 0); /* pid 5, thread 2 */
	rec_eq(&v.v[3], 0, 0x4030000, 0x10000, SWS_TRACE_MUNMAP, 0, 1, 1, A, 0); /* pid 5's own break */
	rec_eq(&v.v[4], 0, 0x6000000, 8, SWS_TRACE_ACCESS, 0, 1, 1, A, 0);
	free(v.v);

	/* One process: no warning, and a line that is no lackey line is still an
	 * error; thread 0 (valgrind's start at 1) waits for nothing. */
	tmp_text(p, sizeof(p), "lackey_processes.txt",
		 "==5== Lackey\nSYSCALL[5,0](0) ... [async] --> Success(0x0) \n"
		 "SYSCALL[5,1](28) sys_madvise ( 0x6000000, 8192, 4 ) --> [async] ... \n"
		 "SYSCALL[5,1](28) ... [async] --> Success(0x0) \n"
		 "sys_mmap ( 0x4a1c000, 53072, 3, 50, 4294967295, 0 )I  0499a54a,2\n");
	assert_int_equal(sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)), 0);
	assert_int_equal(sws_trace_reader_next(r, &x), 1);
	assert_int_equal(x.op, SWS_TRACE_MADV_DONTNEED);
	assert_int_equal(sws_trace_reader_next(r, &x), SWS_EFORMAT);
	assert_non_null(strstr(sws_trace_reader_error(r), ":5: not a lackey line"));
	assert_string_equal(sws_trace_reader_warning(r), "");
	sws_trace_reader_close(r);
	unlink(p);
}

/* An independent DAMON expansion, straight from the text with sscanf. */
static size_t damon_expected(const char *path, uint32_t nslices, uint64_t *last_addr,
			     uint32_t *last_slice)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[512];
	struct {
		unsigned long long s, e;
		unsigned k;
	} reg[2048];
	size_t nr = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "nr_regions=");
		assert_non_null(p);
		p = strchr(p, ' ');
		assert_int_equal(sscanf(p, " %llu-%llu: %u", &reg[nr].s, &reg[nr].e, &reg[nr].k), 3);
		if (reg[nr].k > nslices)
			reg[nr].k = nslices;
		nr++;
	}
	fclose(f);
	size_t total = 0;
	for (uint32_t s = 0; s < nslices; s++)
		for (size_t i = 0; i < nr; i++)
			if (reg[i].k > s) {
				size_t pages = (size_t)((reg[i].e - reg[i].s + 4095) / 4096);
				total += pages;
				*last_addr = reg[i].s + (pages - 1) * 4096;
				*last_slice = s;
			}
	return total;
}

/* damon_aggregated, first 200 lines (one partial snapshot): 2953 page reads
 * (awk: sum of min(nr_accesses, 20) * pages); the first region touched is
 * line 15 (nr_accesses 7); the last read is in slice 7 (max nr_accesses 8). */
static void test_damon(void **state)
{
	(void)state;
	const char *p = DATA "damon_head.txt";
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_DAMON);
	struct recs v = load(p, &c);
	uint64_t last_addr = 0;
	uint32_t last_slice = 0;
	assert_int_equal(v.n, 2953);
	assert_int_equal(damon_expected(p, 20, &last_addr, &last_slice), 2953);
	uint64_t t0 = 615794406000ull - 100000000ull;
	rec_eq(&v.v[0], t0, 4324544512ull, 0, SWS_TRACE_ACCESS, 0, 1, 1, SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[v.n - 1], t0 + 7 * 5000000ull, 0x102173000ull, 0, SWS_TRACE_ACCESS, 0, 1, 1,
	       SWS_TRACE_CPU_ANY, 0);
	assert_int_equal(last_addr, 0x102173000ull);
	assert_int_equal(last_slice, 7);
	for (size_t i = 1; i < v.n; i++)
		assert_true(v.v[i].time_ns >= v.v[i - 1].time_ns);
	free(v.v);

	/* Coarser sampling: 4 slices of 25 ms; nr_accesses clamp at 4. */
	c.damon_sample_us = 25000;
	v = load(p, &c);
	assert_int_equal(v.n, damon_expected(p, 4, &last_addr, &last_slice));
	assert_int_equal(v.v[v.n - 1].time_ns, t0 + last_slice * 25000000ull);
	assert_int_equal(v.v[v.n - 1].addr, last_addr);
	free(v.v);

	/* Two snapshots of two targets, and damos lines that are not used. */
	char q[256];
	tmp_text(q, sizeof(q), "damon_two.txt",
		 "kdamond.0 76 [000] 1.000000: damon:damon_aggregated: target_id=0 nr_regions=2 4096-12288: 2 1\n"
		 "kdamond.0 76 [000] 1.000001: damon:damon_aggregated: target_id=0 nr_regions=2 12288-16384: 1 1\n"
		 "kdamond.0 76 [000] 1.000002: damon:damos_before_apply: ctx_idx=0 scheme_idx=0 target_idx=0 nr_regions=1 4096-8192: 1 1\n"
		 "kdamond.0 76 [000] 1.100000: damon:damon_aggregated: target_id=1 nr_regions=1 8192-8193: 3\n");
	struct sws_trace_reader_config c2 = {0}; /* AUTO detects damon */
	v = load(q, &c2);
	/* target 0: slice 0: 4096, 8192, 12288; slice 1: 4096, 8192. target 1: 3 slices x 1 page */
	assert_int_equal(v.n, 8);
	uint64_t want[] = {4096, 8192, 12288, 4096, 8192, 8192, 8192, 8192};
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(v.v[i].addr, want[i]);
	assert_int_equal(v.v[3].time_ns, 900000000ull + 5000000ull);
	assert_int_equal(v.v[5].pid, 2);
	assert_int_equal(v.v[7].time_ns, 1000000000ull + 2 * 5000000ull);
	free(v.v);
	unlink(q);
}

/* Read at most @cap records of @path into *count. @return the code that ended
 * the reading (1: the cap was reached first). */
static int read_capped(const char *path, const struct sws_trace_reader_config *cfg, size_t cap,
		       size_t *count, char *msg, size_t msglen)
{
	struct sws_trace_reader *r;
	*count = 0;
	int rc = sws_trace_reader_open(path, cfg, &r, msg, msglen);
	if (rc)
		return rc;
	struct sws_trace_record x;
	while (*count < cap && (rc = sws_trace_reader_next(r, &x)) == 1)
		(*count)++;
	if (rc < 0)
		snprintf(msg, msglen, "%s", sws_trace_reader_error(r));
	sws_trace_reader_close(r);
	return rc;
}

/* @path must fail with SWS_EFORMAT and @where before @cap records. */
static void expect_capped_error(const char *path, const struct sws_trace_reader_config *cfg,
				size_t cap, size_t want_records, const char *where)
{
	char msg[600] = "";
	size_t n;
	int rc = read_capped(path, cfg, cap, &n, msg, sizeof(msg));
	if (rc != SWS_EFORMAT || n != want_records || !strstr(msg, where))
		fail_msg("%s: %s after %zu records (want SWS_EFORMAT after %zu, \"%s\"): %s", path,
			 rc == 1 ? "still reading" : sws_error_name(rc), n, want_records, where, msg);
}

struct bounded_read {
	const char *path;
	struct sws_trace_reader_config cfg;
	size_t want;
};

/* In a child process (no cmocka there): read it all. @return 0 when it gave @want records. */
static int bounded_read_child(const struct bounded_read *b)
{
	size_t n;
	char msg[600];
	return read_capped(b->path, &b->cfg, b->want + 1, &n, msg, sizeof(msg)) == 0 && n == b->want
		       ? 0 : 1;
}

/* The read of @b must end within @seconds, with the records it wants. */
static void expect_read_within(const struct bounded_read *b, unsigned seconds)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(seconds);
		_exit(bounded_read_child(b));
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("%s: killed by signal %d (SIGALRM: not done in %u s)", b->path,
			 WTERMSIG(status), seconds);
	if (WEXITSTATUS(status))
		fail_msg("%s: did not give %zu records", b->path, b->want);
}

#define DAMON_LINE "kdamond.0 76 [000] 1.000000: damon:damon_aggregated: target_id=0 "

/* DAMON expansion is bounded: a region touched at all holds at most
 * SWS_TRACE_DAMON_MAX_REGION_PAGES pages, and a trace expands to at most
 * damon_max_expansion records per byte of input read so far. */
static void test_damon_limits(void **state)
{
	(void)state;
	char p[256];
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_DAMON);
	/* The reproducers: one region of 2^52 - 1 pages; a 4.9 KB file with one
	 * region of 1055842 pages touched 5 times (5.28 M records). Refused on
	 * the region's line, before any record. */
	expect_capped_error(DATA "repro/damon_huge_region.txt", NULL, 1u << 22, 0,
			    "damon_huge_region.txt:1: damon_aggregated: region of 4503599627370495 "
			    "pages exceeds the per-region limit of 1048576");
	expect_capped_error(DATA "repro/damon_amplification.txt", NULL, 1u << 22, 0,
			    "damon_amplification.txt:25: damon_aggregated: region of 1055842 pages "
			    "exceeds the per-region limit of 1048576");
	/* The largest region (2^20 pages) is allowed, but one access to it in a
	 * 96-byte file is more than 4096 records per byte: raise the limit. */
	tmp_text(p, sizeof(p), "damon_max.txt", DAMON_LINE "nr_regions=1 0-4294967296: 1 0\n");
	expect_capped_error(p, &c, 1u << 22, 0,
			    ":1: DAMON expansion over its limit: this snapshot makes 1048576 records");
	c.damon_max_expansion = 20000;
	struct recs v = load(p, &c);
	assert_int_equal(v.n, 1u << 20);
	assert_int_equal(v.v[v.n - 1].addr, 4294967296ull - 4096);
	free(v.v);
	tmp_text(p, sizeof(p), "damon_max.txt", DAMON_LINE "nr_regions=1 0-4294967297: 1 0\n");
	expect_capped_error(p, &c, 1u << 22, 0,
			    ":1: damon_aggregated: region of 1048577 pages exceeds the per-region "
			    "limit of 1048576");
	/* A region never touched costs nothing: no limit on its size. */
	tmp_text(p, sizeof(p), "damon_idle.txt",
		 DAMON_LINE "nr_regions=2 0-18446744073709547520: 0 9\n"
		 DAMON_LINE "nr_regions=2 18446744073709547520-18446744073709551615: 2 0\n");
	v = load(p, NULL);
	assert_int_equal(v.n, 2);
	free(v.v);
	/* The limit is over the whole input: 100 one-page snapshots (9.3 KB),
	 * then one of 50 pages x 20 accesses: 1100 records, under 1 per byte.
	 * The last snapshot alone is over it. */
	char *text = malloc(120 * 101);
	assert_non_null(text);
	text[0] = '\0';
	for (int i = 0; i < 100; i++)
		strcat(text, DAMON_LINE "nr_regions=1 4096-8192: 1 0\n");
	strcat(text, DAMON_LINE "nr_regions=3 0-204800: 20 0\n");
	tmp_text(p, sizeof(p), "damon_budget.txt", text);
	c.damon_max_expansion = 1;
	v = load(p, &c);
	assert_int_equal(v.n, 1100);
	free(v.v);
	tmp_text(p, sizeof(p), "damon_budget.txt", text + 100 * strlen(DAMON_LINE "nr_regions=1 4096-8192: 1 0\n"));
	expect_capped_error(p, &c, 1u << 22, 0, ":1: DAMON expansion over its limit: this snapshot "
				     "makes 1000 records, 1000 in all from 93 bytes of the file, more than 1 "
				     "per byte");
	free(text);
	/* Compressed, the same bound holds per byte of the file: 1000 lines of
	 * 81920 records each (87 KB) compress to a few hundred bytes. */
	text = malloc(100 * 1000 + 1);
	assert_non_null(text);
	text[0] = '\0';
	for (int i = 0; i < 1000; i++)
		strcat(text, "k 76 [000] 1.000000: damon:damon_aggregated: target_id=0 nr_regions=1 "
			     "0-16777216: 20 0\n");
	size_t tn = strlen(text), zcap = ZSTD_compressBound(tn);
	char *z = malloc(zcap);
	assert_non_null(z);
	size_t zn = ZSTD_compress(z, zcap, text, tn, 19);
	assert_false(ZSTD_isError(zn));
	assert_true(zn < 1000);
	tmp_file(p, sizeof(p), "damon_zstd.txt.zst", z, zn);
	expect_capped_error(p, NULL, 1u << 22, 81920 * (4096 * zn / 81920),
			    ": DAMON expansion over its limit: this snapshot makes 81920 records");
	free(z);
	free(text);
	/* 4e9 slices of 1 us, regions touched 3 times: 3 slices are expanded,
	 * not 4e9 (each read must take bounded time). */
	tmp_text(p, sizeof(p), "damon_slices.txt",
		 DAMON_LINE "nr_regions=2 0-8192: 3 0\n" DAMON_LINE "nr_regions=2 8192-12288: 1 0\n");
	struct bounded_read b = {p, {.format = SWS_TRACE_FORMAT_DAMON, .damon_sample_us = 1,
				     .damon_aggr_us = 4000000000u}, 7};
	expect_read_within(&b, 5);
	/* A page touched in each of 1,000,000 slices beside 40,000 regions never
	 * touched: 1,000,000 records, and the idle regions are walked once, not in
	 * every slice (4e10 steps). */
	enum { IDLE = 40000 };
	text = malloc((size_t)(IDLE + 1) * 128);
	assert_non_null(text);
	size_t at = (size_t)sprintf(text, DAMON_LINE "nr_regions=%d 0-4096: 1000000 0\n", IDLE + 1);
	for (unsigned i = 1; i <= IDLE; i++)
		at += (size_t)sprintf(text + at, DAMON_LINE "nr_regions=%d %u-%u: 0 9\n", IDLE + 1, i * 8192,
				      i * 8192 + 4096);
	tmp_text(p, sizeof(p), "damon_idle_regions.txt", text);
	free(text);
	struct bounded_read idle = {p, {.format = SWS_TRACE_FORMAT_DAMON, .damon_sample_us = 1,
					.damon_aggr_us = 1000000}, 1000000};
	expect_read_within(&idle, 20); /* the old walk: about a minute */
	unlink(p);
}

static void test_addr(void **state)
{
	(void)state;
	char p[256];
	tmp_text(p, sizeof(p), "addr.txt",
		 "# a teaching-simulator address list\n"
		 "0x1000\n"
		 "4096 W\n"
		 "7fff0000 r 12   # hex letters: hex\n"
		 "\n"
		 "0X2a w 3\n"
		 "100 5\n");
	struct recs v = load(p, NULL); /* AUTO: addr */
	assert_int_equal(v.n, 5);
	rec_eq(&v.v[0], 0, 0x1000, 0, SWS_TRACE_ACCESS, 0, 1, 1, SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[1], 0, 4096, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 1, 1, SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[2], 0, 0x7fff0000, 0, SWS_TRACE_ACCESS, 0, 12, 12, SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[3], 0, 0x2a, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 3, 3, SWS_TRACE_CPU_ANY, 0);
	rec_eq(&v.v[4], 0, 100, 0, SWS_TRACE_ACCESS, 0, 5, 5, SWS_TRACE_CPU_ANY, 0);
	free(v.v);
	struct sws_trace_reader_config c = {.format = SWS_TRACE_FORMAT_ADDR,
					    .flags = SWS_TRACE_READ_ADDR_HEX};
	v = load(p, &c);
	assert_int_equal(v.v[1].addr, 0x4096);
	assert_int_equal(v.v[4].addr, 0x100);
	free(v.v);
	unlink(p);
}

/* The full samples in ../shared/samples, when the checkout has them. */
static void test_shared_samples(void **state)
{
	(void)state;
	struct stat sb;
	if (stat(SWS_SAMPLES_DIR "/lackey_sample.txt", &sb)) {
		skip();
		return;
	}
	struct recs v = load(SWS_SAMPLES_DIR "/lackey_sample.txt", NULL);
	assert_int_equal(v.n, 400);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH, SWS_TRACE_F_IFETCH), 309);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, SWS_TRACE_F_WRITE), 43);
	rec_eq(&v.v[399], 0, 0x0401ba0e, 3, SWS_TRACE_ACCESS, SWS_TRACE_F_IFETCH, 1, 1,
	       SWS_TRACE_CPU_ANY, 0);
	free(v.v);

	uint64_t la;
	uint32_t ls;
	const char *dp = SWS_SAMPLES_DIR "/perf_damon_aggregated_sample.txt";
	v = load(dp, NULL);
	assert_int_equal(v.n, 8029);
	assert_int_equal(damon_expected(dp, 20, &la, &ls), 8029);
	assert_int_equal(v.v[v.n - 1].addr, la);
	free(v.v);

	v = load(SWS_SAMPLES_DIR "/perf_pagefaults_addr_sample.txt", NULL);
	assert_int_equal(v.n, 57);
	free(v.v);
	v = load(SWS_SAMPLES_DIR "/perf_tracepoint_pfuser_sample.txt", NULL);
	assert_int_equal(v.n, 56);
	free(v.v);

	/* 3306 page_fault_user; 22 memcg_reclaim_end (902 pages in all), 21 of
	 * them after their begin (0 pages each) and 50 shrink lines with pages,
	 * 940 in all: this sample's lines count more than their ends (a 6.18
	 * recording's match them exactly, docs/tools.md) */
	v = load(SWS_SAMPLES_DIR "/perf_script_swap_sample.txt", NULL);
	assert_int_equal(v.n, 3380);
	assert_int_equal(count_flag(&v, SWS_TRACE_RECLAIM, 0, 0), 74);
	assert_int_equal(count_flag(&v, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, SWS_TRACE_F_WRITE), 2575);
	uint64_t pages = 0;
	for (size_t i = 0; i < v.n; i++)
		if (v.v[i].op == SWS_TRACE_RECLAIM)
			pages += v.v[i].len;
	assert_int_equal(pages, 940);
	rec_eq(&v.v[v.n - 1], 482574950000ull, 0x7f3b709e7000ull, 0, SWS_TRACE_ACCESS, 0, 7768, 7768,
	       0, 0);
	free(v.v);
}

/* ---- native round trips ------------------------------------------------------ */

/* CRC-32C bit by bit: the reference the library's table and hardware paths match. */
static uint32_t ref_crc32c(uint32_t crc, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

/* The documented checksum of a trace: CRC-32C of each record's 48 canonical
 * bytes (the fields in order, little endian). */
static uint32_t ref_records_crc(const struct recs *v)
{
	uint32_t crc = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct sws_trace_record *x = &v->v[i];
		const uint64_t f64[3] = {x->time_ns, x->addr, x->len};
		const uint32_t f32[6] = {x->op, x->flags, x->pid, x->tid, x->cpu, x->arg};
		uint8_t b[48], *p = b;
		for (int k = 0; k < 3; k++)
			for (int j = 0; j < 8; j++)
				*p++ = (uint8_t)(f64[k] >> (8 * j));
		for (int k = 0; k < 6; k++)
			for (int j = 0; j < 4; j++)
				*p++ = (uint8_t)(f32[k] >> (8 * j));
		crc = ref_crc32c(crc, b, sizeof(b));
	}
	return crc;
}


static void random_records(struct recs *v, size_t n, uint64_t seed)
{
	uint64_t s = seed;
	struct sws_trace_record x = {0};
	for (size_t i = 0; i < n; i++) {
		uint64_t r = sws_test_rand(&s);
		x.op = 1 + (uint32_t)(r % SWS_TRACE_OP_MAX);
		switch ((r >> 8) % 4) { /* mostly small deltas, sometimes anything */
		case 0:
			x.time_ns = sws_test_rand(&s);
			x.addr = sws_test_rand(&s);
			break;
		case 1:
			x.time_ns -= sws_test_rand(&s) % 1000;
			x.addr -= 4096;
			break;
		default:
			x.time_ns += sws_test_rand(&s) % 100000;
			x.addr += 4096 * (sws_test_rand(&s) % 16);
		}
		if ((r >> 12) % 8 == 0)
			x.len = sws_test_rand(&s) >> ((r >> 16) % 64);
		if ((r >> 20) % 8 == 0)
			x.flags = (uint32_t)sws_test_rand(&s) >> ((r >> 24) % 32);
		if ((r >> 28) % 16 == 0)
			x.pid = (uint32_t)sws_test_rand(&s);
		if ((r >> 32) % 4 == 0)
			x.tid = (r >> 36) % 3 ? x.pid : (uint32_t)sws_test_rand(&s);
		if ((r >> 40) % 4 == 0)
			x.cpu = (r >> 44) % 3 ? SWS_TRACE_CPU_ANY : (uint32_t)sws_test_rand(&s);
		if ((r >> 48) % 8 == 0)
			x.arg = (uint32_t)sws_test_rand(&s);
		recs_push(v, &x);
	}
	/* the extremes */
	x = (struct sws_trace_record){UINT64_MAX, UINT64_MAX, UINT64_MAX, SWS_TRACE_OP_MAX,
				      UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
	recs_push(v, &x);
	x = (struct sws_trace_record){0, 0, 0, 1, 0, 0, 0, 0, 0};
	recs_push(v, &x);
}

static void write_all(const char *path, const struct sws_trace_writer_config *wc,
		      const struct recs *v)
{
	struct sws_trace_writer *w;
	char msg[600];
	assert_sws(0, sws_trace_writer_open(path, wc, &w, msg, sizeof(msg)));
	for (size_t i = 0; i < v->n; i++)
		assert_sws(0, sws_trace_writer_write(w, &v->v[i]));
	assert_sws(0, sws_trace_writer_close(w, msg, sizeof(msg)));
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)len + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return b;
}

static void roundtrip(enum sws_trace_encoding enc, uint32_t flags, size_t n)
{
	struct recs v = {0};
	random_records(&v, n, 42 + enc * 2 + flags);
	struct sws_trace_writer_config wc = {.encoding = enc, .flags = flags};
	char p1[256], p2[256];
	sws_test_path(p1, sizeof(p1), "rt1.trace");
	sws_test_path(p2, sizeof(p2), "rt2.trace");
	write_all(p1, &wc, &v);

	struct sws_trace_reader *r;
	char msg[600];
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_NATIVE);
	assert_sws(0, sws_trace_reader_open(p1, &c, &r, msg, sizeof(msg)));
	int zstd;
	assert_int_equal(sws_trace_reader_is_binary(r, &zstd), enc == SWS_TRACE_BINARY);
	assert_int_equal(zstd, !!(flags & SWS_TRACE_WRITE_ZSTD));
	assert_true(sws_trace_reader_memory_usage(r) > 0);
	struct recs back = {0};
	struct sws_trace_record x;
	int rc;
	while ((rc = sws_trace_reader_next(r, &x)) == 1)
		recs_push(&back, &x);
	if (rc)
		fail_msg("%s", sws_trace_reader_error(r));
	sws_trace_reader_close(r);
	assert_int_equal(back.n, v.n);
	assert_memory_equal(back.v, v.v, v.n * sizeof(*v.v));

	/* Writing what was read gives the same bytes. */
	write_all(p2, &wc, &back);
	size_t n1, n2;
	char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(b1, b2, n1);
	if (enc == SWS_TRACE_BINARY && !flags)
		assert_true(n1 < v.n * sizeof(struct sws_trace_record) / 2); /* compact */
	free(b1);
	free(b2);
	free(v.v);
	free(back.v);
	unlink(p1);
	unlink(p2);
}

static void test_roundtrip_text(void **state)
{
	(void)state;
	roundtrip(SWS_TRACE_TEXT, 0, 5000);
	roundtrip(SWS_TRACE_TEXT, SWS_TRACE_WRITE_ZSTD, 5000);
}

static void test_roundtrip_binary(void **state)
{
	(void)state;
	roundtrip(SWS_TRACE_BINARY, 0, 20000);
	roundtrip(SWS_TRACE_BINARY, SWS_TRACE_WRITE_ZSTD, 200000); /* several zstd blocks */
}

/*
 * A binary trace is decoded ahead in batches, and its records still come
 * out one at a time as read singly: each named by its number, st.bytes just
 * past it (a file of its first k records, less its end marker), the
 * instruction fetches NO_IFETCH leaves out skipped in both. 20,000 records
 * make many batches and several buffer refills.
 */
static void test_binary_batches(void **state)
{
	(void)state;
	struct recs v = {0};
	random_records(&v, 20000, 7);
	for (size_t i = 0; i < v.n; i += 3) {
		v.v[i].op = SWS_TRACE_ACCESS;
		v.v[i].flags |= SWS_TRACE_F_IFETCH;
	}
	struct sws_trace_writer_config wc = {.encoding = SWS_TRACE_BINARY};
	char p[256], pk[256];
	sws_test_path(p, sizeof(p), "batches.trace");
	sws_test_path(pk, sizeof(pk), "batches-k.trace");
	write_all(p, &wc, &v);
	static const size_t ks[] = {1, 2, 255, 256, 257, 258, 4097, 12345, 19999, 20000};
	uint64_t want_bytes[sizeof(ks) / sizeof(ks[0])];
	for (unsigned j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
		struct recs pre = {.v = v.v, .n = ks[j]};
		write_all(pk, &wc, &pre);
		size_t n;
		free(slurp(pk, &n));
		unsigned varint = 1;
		for (size_t k = ks[j]; k >= 0x80; k >>= 7)
			varint++;
		want_bytes[j] = n - (1 + varint + 4); /* end marker: 0, varint count, crc32c */
	}

	struct sws_trace_reader *r;
	char msg[600];
	struct sws_trace_reader_config c = with_format(SWS_TRACE_FORMAT_NATIVE);
	c.flags = SWS_TRACE_READ_NO_IFETCH;
	assert_sws(0, sws_trace_reader_open(p, &c, &r, msg, sizeof(msg)));
	struct sws_trace_record x;
	struct sws_trace_reader_stats st;
	uint64_t last = 0, got = 0, checked = 0;
	int rc;
	while ((rc = sws_trace_reader_next(r, &x)) == 1) {
		uint64_t pos = sws_trace_reader_position(r);
		assert_true(pos > last && pos <= v.n);
		for (uint64_t i = last; i + 1 < pos; i++) /* what was left out: fetches only */
			assert_true(v.v[i].op == SWS_TRACE_ACCESS && (v.v[i].flags & SWS_TRACE_F_IFETCH));
		assert_memory_equal(&x, &v.v[pos - 1], sizeof(x));
		assert_false(x.op == SWS_TRACE_ACCESS && (x.flags & SWS_TRACE_F_IFETCH));
		sws_trace_reader_stats_get(r, &st);
		for (unsigned j = 0; j < sizeof(ks) / sizeof(ks[0]); j++)
			if (ks[j] == pos) {
				assert_int_equal(st.bytes, want_bytes[j]);
				checked++;
			}
		last = pos;
		got++;
	}
	if (rc)
		fail_msg("%s", sws_trace_reader_error(r));
	assert_true(checked >= 5);
	assert_true(got > v.n / 2 && got < v.n * 2 / 3 + 1);
	sws_trace_reader_stats_get(r, &st);
	assert_int_equal(st.records, got);
	size_t size;
	free(slurp(p, &size));
	assert_int_equal(st.bytes, size);
	sws_trace_reader_close(r);
	free(v.v);
	unlink(p);
	unlink(pk);
}

/* The text form is the documented one, and hand edits read back. */
static void test_text_layout(void **state)
{
	(void)state;
	char p[256];
	struct recs v = {0};
	struct sws_trace_record x = {1000, 0x7f0000001000ull, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE,
				     42, 43, 0, 0};
	recs_push(&v, &x);
	x = (struct sws_trace_record){2000, 0, 64, SWS_TRACE_RECLAIM, 0, 42, 42, SWS_TRACE_CPU_ANY,
				      SWS_TRACE_MEMCG_TASK};
	recs_push(&v, &x);
	x = (struct sws_trace_record){3000, 0x1000, 8192, SWS_TRACE_MMAP, SWS_TRACE_F_THP | 0x100,
				      1, 1, 2, 0};
	recs_push(&v, &x);
	sws_test_path(p, sizeof(p), "layout.trace");
	write_all(p, NULL, &v);
	size_t n;
	char *b = slurp(p, &n);
	b[n] = '\0';
	char want[400];
	snprintf(want, sizeof(want),
		 "# swapsim-trace v2\n"
		 "# time_ns pid tid cpu op addr len flags arg\n"
		 "1000 42 43 0 access 0x7f0000001000 0 w 0\n"
		 "2000 42 42 - reclaim 0x0 64 - 4294967295\n"
		 "3000 1 1 2 mmap 0x1000 8192 0x104 0\n"
		 "end records=3 crc32c=%08x\n",
		 ref_records_crc(&v));
	assert_string_equal(b, want);
	free(b);
	free(v.v);
	tmp_text(p, sizeof(p), "edited.trace",
		 "# swapsim-trace v1\n"
		 "\n"
		 "  5 7 7 - fork 0 0 - 8   # pid 7 forks pid 8\n"
		 "6 8 8 1 dontneed 0x2000 4096 - 0\n"
		 "7 8 9 1 access 8192 0 wx 0\n");
	v = load(p, NULL);
	assert_int_equal(v.n, 3);
	rec_eq(&v.v[0], 5, 0, 0, SWS_TRACE_FORK, 0, 7, 7, SWS_TRACE_CPU_ANY, 8);
	rec_eq(&v.v[1], 6, 0x2000, 4096, SWS_TRACE_MADV_DONTNEED, 0, 8, 8, 1, 0);
	rec_eq(&v.v[2], 7, 8192, 0, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE | SWS_TRACE_F_IFETCH, 8, 9, 1, 0);
	free(v.v);
	unlink(p);
}

/* ---- end records and checksums --------------------------------------------------- */

static void test_crc32c(void **state)
{
	(void)state;
	assert_int_equal(sws__crc32c(0, "123456789", 9), 0xe3069283u); /* the check value */
	assert_int_equal(sws__crc32c_sw(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(sws__crc32c(0, "", 0), 0);
	uint8_t buf[512];
	uint64_t seed = 77;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)sws_test_rand(&seed);
	for (int i = 0; i < 300; i++) {
		size_t off = sws_test_rand(&seed) % 8, n = sws_test_rand(&seed) % 300;
		size_t cut = n ? sws_test_rand(&seed) % n : 0;
		uint32_t want = ref_crc32c(0, buf + off, n);
		assert_int_equal(sws__crc32c(0, buf + off, n), want);
		assert_int_equal(sws__crc32c_sw(0, buf + off, n), want);
		/* incremental */
		assert_int_equal(sws__crc32c(sws__crc32c(0, buf + off, cut), buf + off + cut, n - cut), want);
	}
}

/* @nrec random records (seed @seed) in @v, written to the scratch file @name
 * (path in @p) with @wc. @return the file's bytes (*n of them; to free). */
static char *write_random(char *p, size_t plen, const char *name,
			  const struct sws_trace_writer_config *wc, size_t nrec, uint64_t seed,
			  struct recs *v, size_t *n)
{
	*v = (struct recs){0};
	random_records(v, nrec, seed);
	sws_test_path(p, plen, name);
	write_all(p, wc, v);
	return slurp(p, n);
}

/* @return the warning of the reader of @path ("" when none), in @out. */
static void warning_of(const char *path, char *out, size_t len)
{
	struct sws_trace_reader *r;
	char msg[600];
	assert_sws(0, sws_trace_reader_open(path, NULL, &r, msg, sizeof(msg)));
	snprintf(out, len, "%s", sws_trace_reader_warning(r));
	sws_trace_reader_close(r);
}

/* Text v2 ends with "end records=N crc32c=X": a file cut on any line boundary,
 * a record changed, a wrong count and data after the end are errors. A v1
 * file (no end record) still reads, with a warning. */
static void test_text_end(void **state)
{
	(void)state;
	struct sws_trace_reader_config nat = with_format(SWS_TRACE_FORMAT_NATIVE);
	struct recs v;
	char p[256], q[256], line[600];
	size_t n;
	char *b = write_random(p, sizeof(p), "end.trace", NULL, 200, 31, &v, &n);
	snprintf(line, sizeof(line), "\nend records=%zu crc32c=%08x\n", v.n, ref_records_crc(&v));
	assert_true(n > strlen(line));
	assert_memory_equal(b + n - strlen(line), line, strlen(line));
	warning_of(p, line, sizeof(line));
	assert_string_equal(line, "");
	size_t lines = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (b[i] != '\n')
			continue;
		lines++;
		tmp_file(q, sizeof(q), "cut.trace", b, i + 1);
		snprintf(line, sizeof(line), ":%zu: trace ends without its end record (cut short?)",
			 lines);
		expect_error(q, &nat, SWS_EFORMAT, line);
	}
	assert_int_equal(lines, v.n + 2);
	free(b);
	free(v.v);

	/* By hand: comments and blank lines anywhere, before and after the end. */
	v = (struct recs){0};
	struct sws_trace_record x = {1, 0x10, 0, SWS_TRACE_ACCESS, 0, 2, 3, SWS_TRACE_CPU_ANY, 0};
	recs_push(&v, &x);
	uint32_t crc = ref_records_crc(&v);
	snprintf(line, sizeof(line),
		 "# swapsim-trace v2\n\n1 2 3 - access 0x10 0 - 0  # one\n# note\n"
		 "end records=1 crc32c=%08X\n\n# after\n", crc);
	tmp_text(q, sizeof(q), "hand.trace", line);
	struct recs back = load(q, NULL);
	assert_int_equal(back.n, 1);
	assert_memory_equal(back.v, v.v, sizeof(x));
	free(back.v);
	static const struct {
		const char *text; /* %08x: the right checksum */
		const char *where;
	} bad[] = {
		{"1 2 3 - access 0x11 0 - 0\nend records=1 crc32c=%08x\n",
		 ":3: checksum mismatch: the end record says crc32c="},
		{"1 2 3 - access 0x10 0 - 0\nend records=2 crc32c=%08x\n",
		 ":3: end record counts 2 records, file holds 1"},
		{"1 2 3 - access 0x10 0 - 0\nend records=1 crc32c=%08x\n1 2 3 - access 0x10 0 - 0\n",
		 ":4: data after the end record"},
		{"1 2 3 - access 0x10 0 - 0\nend records=1 crc32c=%08x\nend records=1 crc32c=0\n",
		 ":4: data after the end record"},
		{"1 2 3 - access 0x10 0 - 0\nend records=1\n", ":3: bad end record"},
		{"1 2 3 - access 0x10 0 - 0\nend records=1 crc32c=1234567\n", ":3: bad end record"},
		{"1 2 3 - access 0x10 0 - 0\nend records=1 crc32c=0x123456\n", ":3: bad end record"},
		{"1 2 3 - access 0x10 0 - 0\nend records=x1 crc32c=%08x\n", ":3: bad end record"},
		{"1 2 3 - access 0x10 0 - 0\nend records=1 crc32c=%08x x\n", ":3: bad end record"},
		{"1 2 3 - access 0x10 0 - 0\nend crc32c=%08x records=1\n", ":3: bad end record"},
		{"1 2 3 - access 0x10 0 - 0\n", ":2: trace ends without its end record"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char body[300];
		snprintf(body, sizeof(body), bad[i].text, crc);
		snprintf(line, sizeof(line), "# swapsim-trace v2\n%s", body);
		tmp_text(q, sizeof(q), "bad_end.trace", line);
		expect_error(q, &nat, SWS_EFORMAT, bad[i].where);
	}
	free(v.v);
	/* Version 1: no end record, read as it is, with a warning. */
	const char *cut = DATA "repro/cut.swt";
	warning_of(cut, line, sizeof(line));
	assert_non_null(strstr(line, "cut.swt:1: swapsim-trace v1 text has no end record"));
	v = load(cut, NULL);
	assert_int_equal(v.n, 998);
	free(v.v);
	/* A later version is refused. */
	tmp_text(q, sizeof(q), "v3.trace", "# swapsim-trace v3\n");
	expect_error(q, &nat, SWS_EVERSION, ":1: unsupported swapsim-trace version 3");
	unlink(p);
	unlink(q);
}

/* Binary v2's end marker carries the checksum: flipping any bit of the records
 * is an error. Version 1 (count only) still reads, with a warning. */
static void test_binary_end(void **state)
{
	(void)state;
	struct sws_trace_reader_config nat = with_format(SWS_TRACE_FORMAT_NATIVE);
	struct recs v;
	char p[256], q[256], msg[600];
	struct sws_trace_writer_config wc = {.encoding = SWS_TRACE_BINARY};
	size_t n;
	uint8_t *b = (uint8_t *)write_random(p, sizeof(p), "end.bin", &wc, 300, 37, &v, &n);
	assert_int_equal(b[8], 2);
	uint32_t crc = ref_records_crc(&v);
	assert_int_equal(b[n - 4] | b[n - 3] << 8 | b[n - 2] << 16 | (uint32_t)b[n - 1] << 24, crc);
	warning_of(p, msg, sizeof(msg));
	assert_string_equal(msg, "");
	for (size_t i = 16; i < n; i++) {
		for (int bit = 0; bit < 8; bit += 3) {
			b[i] ^= (uint8_t)(1u << bit);
			tmp_file(q, sizeof(q), "flip.bin", b, n);
			int rc = read_all(q, &nat, NULL, msg, sizeof(msg));
			if (rc != SWS_EFORMAT || !strstr(msg, q))
				fail_msg("bit %d of byte %zu flipped: %s %s", bit, i, sws_error_name(rc), msg);
			b[i] ^= (uint8_t)(1u << bit);
		}
	}
	b[n - 1] ^= 0x80;
	tmp_file(q, sizeof(q), "flip.bin", b, n);
	snprintf(msg, sizeof(msg), "checksum mismatch: the end marker says crc32c=%08x, the records give %08x",
		 crc ^ 0x80000000u, crc);
	expect_error(q, &nat, SWS_EFORMAT, msg);
	tmp_file(q, sizeof(q), "short.bin", b, n - 2);
	expect_error(q, &nat, SWS_EFORMAT, "truncated: the file ends inside the end marker");
	free(b);
	free(v.v);
	/* Version 1: one record, the end marker with its count and no checksum. */
	const uint8_t v1[] = {'S', 'W', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0,
			      0x11, 0x04, 0x00, 0x01};
	tmp_file(q, sizeof(q), "v1.bin", v1, sizeof(v1));
	warning_of(q, msg, sizeof(msg));
	assert_non_null(strstr(msg, q));
	assert_non_null(strstr(msg, "byte 8: swapsim binary trace v1 has no checksum"));
	v = load(q, NULL);
	assert_int_equal(v.n, 1);
	rec_eq(&v.v[0], 2, 0, 0, SWS_TRACE_ACCESS, 0, 0, 0, 0, 0);
	free(v.v);
	unlink(p);
	unlink(q);
}

/* Reproducers with extreme lengths (a replay refuses them): they read exactly,
 * as version 1 traces, and survive a round trip through both encodings. */
static void test_repro_huge_len(void **state)
{
	(void)state;
	const uint64_t big = 0xfffffffffff00000ull;
	struct recs v = load(DATA "repro/access_huge_len.swt", NULL);
	assert_int_equal(v.n, 1);
	rec_eq(&v.v[0], 1000, 0x1000, big, SWS_TRACE_ACCESS, SWS_TRACE_F_WRITE, 1, 1, 0, 0);
	free(v.v);
	v = load(DATA "repro/ops_huge_len.swt", NULL);
	assert_int_equal(v.n, 5);
	rec_eq(&v.v[0], 1000, 0x1000, big, SWS_TRACE_MMAP, 0, 1, 1, 0, 0);
	rec_eq(&v.v[1], 2000, 0x1000, big, SWS_TRACE_MADV_PAGEOUT, 0, 1, 1, 0, 0);
	rec_eq(&v.v[2], 3000, 0x1000, big, SWS_TRACE_MADV_DONTNEED, 0, 1, 1, 0, 0);
	rec_eq(&v.v[3], 3000, 0, UINT64_MAX, SWS_TRACE_MUNMAP, 0, 1, 1, 0, 0);
	rec_eq(&v.v[4], 4000, 0, UINT64_MAX, SWS_TRACE_RECLAIM, 0, 1, 1, SWS_TRACE_CPU_ANY, 0);
	char p[256];
	sws_test_path(p, sizeof(p), "huge_len.trace");
	for (int enc = 0; enc < 2; enc++) {
		struct sws_trace_writer_config wc = {.encoding = enc ? SWS_TRACE_BINARY : SWS_TRACE_TEXT};
		write_all(p, &wc, &v);
		struct recs back = load(p, NULL);
		assert_int_equal(back.n, v.n);
		assert_memory_equal(back.v, v.v, v.n * sizeof(*v.v));
		free(back.v);
	}
	free(v.v);
	unlink(p);
}

/* Empty lines are counted in bulk (a zstd RLE block makes 128 KiB of them from
 * 4 bytes): the counts and line numbers are those of reading them one by one,
 * and 512 MiB of them (tests/data/zstd_blank_lines.zst, 16 KB) take well
 * under a second. */
static void test_blank_lines(void **state)
{
	(void)state;
	char p[256], msg[600];
	struct sws_trace_reader_config addr = with_format(SWS_TRACE_FORMAT_ADDR);
	tmp_text(p, sizeof(p), "blank.txt", "\n\n\n0x1000\n\n\n\n\n0x2000\n\n");
	struct sws_trace_reader *r;
	assert_sws(0, sws_trace_reader_open(p, &addr, &r, msg, sizeof(msg)));
	struct sws_trace_record x;
	int n = 0;
	while (sws_trace_reader_next(r, &x) == 1)
		n++;
	struct sws_trace_reader_stats st;
	sws_trace_reader_stats_get(r, &st);
	assert_int_equal(n, 2);
	assert_int_equal(st.lines, 10);
	assert_int_equal(st.skipped_lines, 8);
	assert_int_equal(st.bytes, 22);
	sws_trace_reader_close(r);
	tmp_text(p, sizeof(p), "blank.txt", "0x1000\n\n\n\n\n\nzzz\n");
	expect_error(p, &addr, SWS_EFORMAT, ":7: bad address");
	/* The first line is handed out as it is: a native header must be there. */
	struct sws_trace_reader_config nat = with_format(SWS_TRACE_FORMAT_NATIVE);
	tmp_text(p, sizeof(p), "blank.txt", "\n# swapsim-trace v1\n");
	expect_error(p, &nat, SWS_EFORMAT, ":1: not a swapsim text trace");
	struct bounded_read b = {DATA "zstd_blank_lines.zst", {.format = SWS_TRACE_FORMAT_LACKEY}, 0};
	expect_read_within(&b, 5);
	assert_sws(0, sws_trace_reader_open(b.path, &b.cfg, &r, msg, sizeof(msg)));
	assert_int_equal(sws_trace_reader_next(r, &x), 0);
	sws_trace_reader_stats_get(r, &st);
	assert_int_equal(st.lines, 4094u << 17);
	assert_int_equal(st.skipped_lines, 4094u << 17);
	sws_trace_reader_close(r);
	unlink(p);
}

/* ---- detection ---------------------------------------------------------------- */

static void detect_is(const char *path, enum sws_trace_format want, int binary)
{
	struct sws_trace_reader *r;
	char msg[600];
	assert_sws(0, sws_trace_reader_open(path, NULL, &r, msg, sizeof(msg)));
	assert_int_equal(sws_trace_reader_format(r), want);
	assert_int_equal(sws_trace_reader_is_binary(r, NULL), binary);
	sws_trace_reader_close(r);
}

static void test_detect(void **state)
{
	(void)state;
	detect_is(DATA "perf_pagefaults_addr.txt", SWS_TRACE_FORMAT_PERF, 0);
	detect_is(DATA "perf_pfuser.txt", SWS_TRACE_FORMAT_PERF, 0);
	detect_is(DATA "perf_swap_excerpt.txt", SWS_TRACE_FORMAT_PERF, 0);
	detect_is(DATA "lackey_head.txt", SWS_TRACE_FORMAT_LACKEY, 0);
	detect_is(DATA "damon_head.txt", SWS_TRACE_FORMAT_DAMON, 0);
	char p[256];
	struct recs v = {0};
	random_records(&v, 100, 7);
	sws_test_path(p, sizeof(p), "detect.trace");
	struct sws_trace_writer_config wc = {0};
	for (int i = 0; i < 4; i++) {
		wc.encoding = i & 1 ? SWS_TRACE_BINARY : SWS_TRACE_TEXT;
		wc.flags = i & 2 ? SWS_TRACE_WRITE_ZSTD : 0;
		write_all(p, &wc, &v);
		detect_is(p, SWS_TRACE_FORMAT_NATIVE, i & 1);
	}
	free(v.v);
	tmp_text(p, sizeof(p), "detect_lackey.txt", "==1== Lackey\n==1== Copyright\nI  0401ab70,3\n");
	detect_is(p, SWS_TRACE_FORMAT_LACKEY, 0);
	tmp_text(p, sizeof(p), "detect_addr.txt", "# comment\n\n0x7f001000 W 3\n");
	detect_is(p, SWS_TRACE_FORMAT_ADDR, 0);
	/* Any text trace compressed with zstd (as `zstd` would) is detected inside. */
	size_t n;
	char *b = slurp(DATA "lackey_head.txt", &n);
	size_t cap = ZSTD_compressBound(n);
	char *z = malloc(cap);
	assert_non_null(z);
	size_t zn = ZSTD_compress(z, cap, b, n, 3);
	assert_false(ZSTD_isError(zn));
	tmp_file(p, sizeof(p), "lackey.txt.zst", z, zn);
	detect_is(p, SWS_TRACE_FORMAT_LACKEY, 0);
	struct recs lz = load(p, NULL);
	assert_int_equal(lz.n, 200);
	free(lz.v);
	free(z);
	free(b);
	unlink(p);
}

/* ---- malformed input ------------------------------------------------------------ */

static void test_malformed_text(void **state)
{
	(void)state;
	char p[256];
	struct sws_trace_reader_config perf = with_format(SWS_TRACE_FORMAT_PERF);
	struct sws_trace_reader_config lackey = with_format(SWS_TRACE_FORMAT_LACKEY);
	struct sws_trace_reader_config damon = with_format(SWS_TRACE_FORMAT_DAMON);
	struct sws_trace_reader_config addr = with_format(SWS_TRACE_FORMAT_ADDR);
	struct sws_trace_reader_config native = with_format(SWS_TRACE_FORMAT_NATIVE);
	struct sws_trace_reader_config autodet = {0};

	/* garbage */
	expect_error(DATA "bad_perf.txt", &perf, SWS_EFORMAT, "bad_perf.txt:3:");
	tmp_text(p, sizeof(p), "g.txt", "hello world, this is not a trace\n");
	expect_error(p, &lackey, SWS_EFORMAT, ":1:");
	expect_error(p, &damon, SWS_EFORMAT, ":1:");
	expect_error(p, &addr, SWS_EFORMAT, ":1:");
	expect_error(p, &native, SWS_EFORMAT, ":1:");
	expect_error(p, &autodet, SWS_EFORMAT, ":1:");
	/* binary garbage in a text format */
	tmp_file(p, sizeof(p), "nul.txt", "0x1000\n0x20\0\0\n", 13);
	expect_error(p, &addr, SWS_EFORMAT, ":2: NUL");
	/* truncated lines */
	tmp_text(p, sizeof(p), "t.txt",
		 "touch  5766   256.808771: page-faults:     563d373c3020 x 1 y\n"
		 "touch  5766   256.80");
	expect_error(p, &perf, SWS_EFORMAT, ":2:");
	tmp_text(p, sizeof(p), "t.txt", "touch  5766 [000]  260.491440: exceptions:page_fault_user: address=0x7f1dc8e92b70 ip=0x7f1dc8e92b70\n");
	expect_error(p, &perf, SWS_EFORMAT, ":1: page_fault_user: bad or missing error_code");
	tmp_text(p, sizeof(p), "t.txt", "touch  5766   256.808771: page-faults:\n");
	expect_error(p, &perf, SWS_EFORMAT, ":1:");
	tmp_text(p, sizeof(p), "t.txt", "I  0401ab70,3\n S 1fff0006");
	expect_error(p, &lackey, SWS_EFORMAT, ":2:");
	tmp_text(p, sizeof(p), "t.txt",
		 "k 76 [000] 615.794406: damon:damon_aggregated: target_id=0 nr_regions=2 4096-8192: 1 5\n"
		 "k 76 [000] 615.794406: damon:damon_aggregated: target_id=0 nr_regions=2 8192-\n");
	expect_error(p, &damon, SWS_EFORMAT, ":2:");
	tmp_text(p, sizeof(p), "t.txt", "# swapsim-trace v1\n1 2 3 - access 0x1000\n");
	expect_error(p, &native, SWS_EFORMAT, ":2: too few columns");
	/* bad numbers / hex */
	tmp_text(p, sizeof(p), "h.txt", "touch 5766 [000] 260.49: exceptions:page_fault_user: address=0x7g ip=0x1 error_code=0x4\n");
	expect_error(p, &perf, SWS_EFORMAT, ":1: page_fault_user: bad or missing address");
	tmp_text(p, sizeof(p), "h.txt", "touch  5766   256.808771: page-faults:     563zz73c3020 x 1 y\n");
	expect_error(p, &perf, SWS_EFORMAT, ":1:");
	tmp_text(p, sizeof(p), "h.txt", "I  0401ab70,3\n L 04g1,8\n");
	expect_error(p, &lackey, SWS_EFORMAT, ":2:");
	tmp_text(p, sizeof(p), "h.txt", "0x1000\n0xfffffffffffffffff\n");
	expect_error(p, &addr, SWS_EFORMAT, ":2: bad address");
	tmp_text(p, sizeof(p), "h.txt", "0x1000 R 99999999999\n");
	expect_error(p, &addr, SWS_EFORMAT, ":1: bad task id");
	tmp_text(p, sizeof(p), "h.txt", "0x1000 Q\n");
	expect_error(p, &addr, SWS_EFORMAT, ":1:");
	tmp_text(p, sizeof(p), "h.txt", "# swapsim-trace v1\n1 2 3 - access 0xZZ 0 - 0\n");
	expect_error(p, &native, SWS_EFORMAT, ":2: bad addr");
	tmp_text(p, sizeof(p), "h.txt", "# swapsim-trace v1\n1 2 3 - read 0x10 0 - 0\n");
	expect_error(p, &native, SWS_EFORMAT, ":2: bad op");
	tmp_text(p, sizeof(p), "h.txt", "# swapsim-trace v1\n1 2 3 - access 0x10 0 wq 0\n");
	expect_error(p, &native, SWS_EFORMAT, ":2: bad flags");
	tmp_text(p, sizeof(p), "h.txt", "k 76 [000] 615.794406: damon:damon_aggregated: target_id=0 nr_regions=2 8192-4096: 1 5\n");
	expect_error(p, &damon, SWS_EFORMAT, ":1: damon_aggregated: bad region");
	tmp_text(p, sizeof(p), "h.txt", "k 76 [000] 615.794406: damon:damon_aggregated: target_id=0 nr_regions=99999999 0-4096: 1 5\n");
	expect_error(p, &damon, SWS_EFORMAT, ":1: damon_aggregated: nr_regions=");
	tmp_text(p, sizeof(p), "h.txt", "touch 5766 [0x] 260.49: exceptions:page_fault_user: address=0x1 ip=0x1 error_code=0x4\n");
	expect_error(p, &perf, SWS_EFORMAT, ":1: not a perf script sample line: bad cpu");
	tmp_text(p, sizeof(p), "h.txt", "touch 5766 260.1234567891: exceptions:page_fault_user: address=0x1 ip=0x1 error_code=0x4\n");
	expect_error(p, &perf, SWS_EFORMAT, ":1: not a perf script sample line: bad time");

	/* over-long lines, in every text format, also in the middle of a file */
	size_t big = 70000;
	char *buf = malloc(big + 64);
	assert_non_null(buf);
	strcpy(buf, "0x1000\n");
	memset(buf + 7, '1', big);
	strcpy(buf + 7 + big, "\n0x2000\n");
	tmp_text(p, sizeof(p), "long.txt", buf);
	expect_error(p, &addr, SWS_EFORMAT, ":2: line longer than 65536 bytes");
	tmp_text(p, sizeof(p), "long.txt", buf + 7);
	expect_error(p, &perf, SWS_EFORMAT, ":1: line longer than 65536 bytes");
	expect_error(p, &lackey, SWS_EFORMAT, ":1: line longer than 65536 bytes");
	expect_error(p, &damon, SWS_EFORMAT, ":1: line longer than 65536 bytes");
	expect_error(p, &native, SWS_EFORMAT, ":1: line longer than 65536 bytes");
	struct sws_trace_reader_config small = {.format = SWS_TRACE_FORMAT_ADDR, .max_line = 300};
	memset(buf + 7, '1', 400);
	strcpy(buf + 7 + 400, "\n");
	tmp_text(p, sizeof(p), "long.txt", buf);
	expect_error(p, &small, SWS_EFORMAT, ":2: line longer than 300 bytes");
	/* over-long last line without a newline */
	memset(buf, '2', big);
	buf[big] = '\0';
	tmp_text(p, sizeof(p), "long.txt", buf);
	expect_error(p, &addr, SWS_EFORMAT, ":1: line longer than 65536 bytes");
	free(buf);

	/* empty file, every format */
	tmp_text(p, sizeof(p), "empty.txt", "");
	expect_error(p, &perf, SWS_EFORMAT, "empty file");
	expect_error(p, &lackey, SWS_EFORMAT, "empty file");
	expect_error(p, &damon, SWS_EFORMAT, "empty file");
	expect_error(p, &addr, SWS_EFORMAT, "empty file");
	expect_error(p, &native, SWS_EFORMAT, "empty file");
	expect_error(p, &autodet, SWS_EFORMAT, "empty file");
	/* only comments: nothing to detect; with a format, zero records */
	tmp_text(p, sizeof(p), "comments.txt", "# nothing here\n\n");
	expect_error(p, &autodet, SWS_EFORMAT, "cannot tell the trace format");
	struct recs v = load(p, &addr);
	assert_int_equal(v.n, 0);
	free(v.v);

	/* wrong version */
	tmp_text(p, sizeof(p), "v3.txt", "# swapsim-trace v3\n1 2 3 - access 0x10 0 - 0\n");
	expect_error(p, &native, SWS_EVERSION, ":1: unsupported swapsim-trace version 3");
	expect_error(p, &autodet, SWS_EVERSION, ":1:");
	tmp_text(p, sizeof(p), "vX.txt", "# swapsim-trace vX\n");
	expect_error(p, &native, SWS_EFORMAT, ":1: bad version");
	/* a binary trace given as text */
	const uint8_t bin[] = {'S', 'W', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	tmp_file(p, sizeof(p), "bin.txt", bin, sizeof(bin));
	expect_error(p, &perf, SWS_EFORMAT, "byte 0: this is a swapsim binary trace");
	unlink(p);
}

static void test_malformed_binary(void **state)
{
	(void)state;
	char p[256], q[256];
	struct recs v = {0};
	random_records(&v, 300, 99);
	struct sws_trace_writer_config wc = {.encoding = SWS_TRACE_BINARY};
	sws_test_path(p, sizeof(p), "good.bin");
	write_all(p, &wc, &v);
	size_t n;
	char *b = slurp(p, &n);

	/* Every truncation of the file is an error naming a byte offset. */
	for (size_t len = 0; len < n; len++) {
		tmp_file(q, sizeof(q), "trunc.bin", b, len);
		struct sws_trace_reader_config c = with_format(len % 2 ? SWS_TRACE_FORMAT_NATIVE
									: SWS_TRACE_FORMAT_AUTO);
		char msg[600];
		int rc = read_all(q, &c, NULL, msg, sizeof(msg));
		if (rc != SWS_EFORMAT || !strstr(msg, q) || (len && !strstr(msg, "byte ")))
			fail_msg("truncated at %zu: %s %s", len, sws_error_name(rc), msg);
	}
	struct sws_trace_reader_config nat = with_format(SWS_TRACE_FORMAT_NATIVE);
	/* the cut right after the last record: the end marker (0, count 302, checksum) is missing */
	tmp_file(q, sizeof(q), "trunc.bin", b, n - 7);
	expect_error(q, &nat, SWS_EFORMAT, "no end marker");
	/* Bad version, bad magic, reserved bytes. */
	b[8] = 3;
	tmp_file(q, sizeof(q), "v3.bin", b, n);
	expect_error(q, &nat, SWS_EVERSION, "byte 8: unsupported swapsim-trace binary version 3");
	b[8] = 2;
	b[12] = 1;
	tmp_file(q, sizeof(q), "res.bin", b, n);
	expect_error(q, &nat, SWS_EFORMAT, "byte 12: reserved");
	b[12] = 0;
	b[0] = 'X';
	tmp_file(q, sizeof(q), "magic.bin", b, n);
	expect_error(q, &nat, SWS_EFORMAT, ":1:"); /* read as text: not a swapsim text trace */
	b[0] = 'S';
	/* A bad op, a bad ext bit, an overlong varint, data after the end, a wrong count. */
	uint8_t rec1[] = {'S', 'W', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0, 0x0e};
	tmp_file(q, sizeof(q), "op.bin", rec1, sizeof(rec1));
	expect_error(q, &nat, SWS_EFORMAT, "byte 16: unknown op 14");
	uint8_t rec2[] = {'S', 'W', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0, 0x81, 0x40};
	tmp_file(q, sizeof(q), "ext.bin", rec2, sizeof(rec2));
	expect_error(q, &nat, SWS_EFORMAT, "byte 17: unknown field bits");
	uint8_t rec3[] = {'S', 'W', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0, 0x11,
			  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	tmp_file(q, sizeof(q), "varint.bin", rec3, sizeof(rec3));
	expect_error(q, &nat, SWS_EFORMAT, "byte 17: varint");
	uint8_t rec4[] = {'S', 'W', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x01, 0x00};
	tmp_file(q, sizeof(q), "after.bin", rec4, sizeof(rec4));
	expect_error(q, &nat, SWS_EFORMAT, "byte 19: data after the end marker");
	uint8_t rec5[] = {'S', 'W', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x05};
	tmp_file(q, sizeof(q), "count.bin", rec5, sizeof(rec5));
	expect_error(q, &nat, SWS_EFORMAT, "byte 17: end marker counts 5 records, file holds 1");
	uint8_t rec6[] = {'S', 'W', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0, 0x81, 0x02,
			  0x80, 0x80, 0x80, 0x80, 0x10};
	tmp_file(q, sizeof(q), "pid.bin", rec6, sizeof(rec6));
	expect_error(q, &nat, SWS_EFORMAT, "byte 18: pid does not fit in 32 bits");
	free(b);

	/* zstd: truncated frames and corrupted bytes. */
	wc.flags = SWS_TRACE_WRITE_ZSTD;
	write_all(p, &wc, &v);
	b = slurp(p, &n);
	for (size_t len = 4; len < n; len += 1 + len / 8) {
		tmp_file(q, sizeof(q), "ztrunc.bin", b, len);
		char msg[600];
		int rc = read_all(q, NULL, NULL, msg, sizeof(msg));
		if (rc != SWS_EFORMAT || !strstr(msg, q) || !strstr(msg, "byte "))
			fail_msg("zstd truncated at %zu: %s %s", len, sws_error_name(rc), msg);
	}
	tmp_file(q, sizeof(q), "ztrunc.bin", b, n - 1);
	expect_error(q, &nat, SWS_EFORMAT, "truncated zstd stream");
	uint64_t seed = 5;
	for (int i = 0; i < 200; i++) {
		char *c = malloc(n);
		memcpy(c, b, n);
		size_t at = 4 + sws_test_rand(&seed) % (n - 4);
		c[at] ^= (char)(1 + sws_test_rand(&seed) % 255);
		tmp_file(q, sizeof(q), "zcorrupt.bin", c, n);
		char msg[600];
		int rc = read_all(q, &nat, NULL, msg, sizeof(msg));
		/* The frame checksum catches what the format does not. */
		if (rc != SWS_EFORMAT || !strstr(msg, q) || !strstr(msg, "byte "))
			fail_msg("zstd corrupted at %zu: %s %s", at, sws_error_name(rc), msg);
		free(c);
	}
	b[n / 2] ^= 0x55;
	tmp_file(q, sizeof(q), "zcorrupt.bin", b, n);
	expect_error(q, &nat, SWS_EFORMAT, "byte ");
	/* zstd magic and nothing else */
	tmp_file(q, sizeof(q), "zmagic.bin", b, 4);
	expect_error(q, &nat, SWS_EFORMAT, "byte 4: truncated zstd stream");
	free(b);
	free(v.v);
	unlink(p);
	unlink(q);
}

/* Random bytes and mutated real traces never crash any reader, and always end. */
static void test_fuzz_smoke(void **state)
{
	(void)state;
	const char *srcs[] = {DATA "perf_swap_excerpt.txt", DATA "lackey_head.txt",
			      DATA "damon_head.txt", DATA "perf_pagefaults_addr.txt"};
	uint64_t seed = 11;
	char q[256];
	for (int i = 0; i < 120; i++) {
		size_t n;
		char *b = slurp(srcs[i % 4], &n);
		for (int k = 0; k < 1 + i % 5; k++) {
			size_t at = sws_test_rand(&seed) % n;
			b[at] = (char)sws_test_rand(&seed);
		}
		if (i % 7 == 0)
			n = sws_test_rand(&seed) % n;
		tmp_file(q, sizeof(q), "fuzz.txt", b, n);
		for (unsigned f = 0; f < SWS_TRACE_NR_FORMATS; f++) {
			struct sws_trace_reader_config c = with_format((enum sws_trace_format)f);
			char msg[600];
			int rc = read_all(q, &c, NULL, msg, sizeof(msg));
			assert_true(rc == 0 || rc == SWS_EFORMAT || rc == SWS_EVERSION);
			if (rc)
				assert_non_null(strstr(msg, q));
		}
		free(b);
	}
	unlink(q);
}

/* ---- atomic writes --------------------------------------------------------------- */

/* A fresh scratch directory @dir (under the test directory) for one test,
 * and in @file the path of @fname in it. */
static void scratch_dir(char *dir, size_t len, const char *name, char *file, size_t flen,
			const char *fname)
{
	sws_test_path(dir, len, name);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(file, flen, "%s/%s", dir, fname);
}

/* The names in @dir other than "." and "..", sorted, joined by spaces. */
static void dir_list(const char *dir, char *out, size_t len)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "",
				 ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

static void assert_dir_is(const char *dir, const char *want)
{
	char got[1024];
	dir_list(dir, got, sizeof(got));
	if (strcmp(got, want))
		fail_msg("%s holds \"%s\", want \"%s\"", dir, got, want);
}

static void assert_file_is(const char *path, const char *want)
{
	size_t n;
	char *b = slurp(path, &n);
	b[n] = '\0';
	if (strcmp(b, want))
		fail_msg("%s holds \"%.80s\", want \"%s\"", path, b, want);
	free(b);
}

/* The output appears only when close() succeeds; until then (and after an
 * abort) an existing file keeps its content. Its mode is kept; a symbolic
 * link is followed; a file that is not a regular one is written in place. */
static void test_writer_atomic(void **state)
{
	(void)state;
	char dir[256], p[300], q[300], msg[600];
	scratch_dir(dir, sizeof(dir), "atomic", p, sizeof(p), "out.swt");
	struct recs v = {0};
	random_records(&v, 3000, 17);
	for (int enc = 0; enc < 2; enc++) {
		write_file(p, "OLD\n", 4);
		assert_int_equal(chmod(p, 0640), 0);
		struct sws_trace_writer_config wc = {.encoding = enc ? SWS_TRACE_BINARY : SWS_TRACE_TEXT};
		struct sws_trace_writer *w;
		assert_sws(0, sws_trace_writer_open(p, &wc, &w, msg, sizeof(msg)));
		for (size_t i = 0; i < v.n; i++)
			assert_sws(0, sws_trace_writer_write(w, &v.v[i]));
		assert_file_is(p, "OLD\n");
		assert_sws(0, sws_trace_writer_close(w, msg, sizeof(msg)));
		struct recs back = load(p, NULL);
		assert_int_equal(back.n, v.n);
		assert_memory_equal(back.v, v.v, v.n * sizeof(*v.v));
		free(back.v);
		struct stat st;
		assert_int_equal(stat(p, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0640);
		assert_dir_is(dir, "out.swt");

		/* abort: the existing file stays, the temporary goes */
		write_file(p, "OLD\n", 4);
		assert_sws(0, sws_trace_writer_open(p, &wc, &w, msg, sizeof(msg)));
		for (size_t i = 0; i < v.n; i++)
			assert_sws(0, sws_trace_writer_write(w, &v.v[i]));
		sws_trace_writer_abort(w);
		assert_file_is(p, "OLD\n");
		assert_dir_is(dir, "out.swt");
	}
	sws_trace_writer_abort(NULL);

	/* A new file: created at close only, with the umask's mode. */
	snprintf(q, sizeof(q), "%s/new.swt", dir);
	mode_t um = umask(022);
	struct sws_trace_writer *w;
	assert_sws(0, sws_trace_writer_open(q, NULL, &w, msg, sizeof(msg)));
	assert_int_equal(access(q, F_OK), -1);
	assert_sws(0, sws_trace_writer_close(w, msg, sizeof(msg)));
	umask(um);
	struct stat st;
	assert_int_equal(stat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	unlink(q);

	/* Through a symbolic link: the target is replaced, the link stays. */
	write_file(p, "OLD\n", 4);
	snprintf(q, sizeof(q), "%s/link.swt", dir);
	assert_int_equal(symlink("out.swt", q), 0);
	assert_sws(0, sws_trace_writer_open(q, NULL, &w, msg, sizeof(msg)));
	assert_sws(0, sws_trace_writer_write(w, &v.v[0]));
	assert_sws(0, sws_trace_writer_close(w, msg, sizeof(msg)));
	assert_int_equal(lstat(q, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	struct recs back = load(p, NULL);
	assert_int_equal(back.n, 1);
	free(back.v);
	assert_dir_is(dir, "link.swt out.swt");

	/* Not a regular file: written in place (nothing to rename). */
	assert_sws(0, sws_trace_writer_open("/dev/null", NULL, &w, msg, sizeof(msg)));
	assert_sws(0, sws_trace_writer_write(w, &v.v[0]));
	assert_sws(0, sws_trace_writer_close(w, msg, sizeof(msg)));
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* A directory is refused, named; so is a dangling symbolic link. */
	assert_sws(SWS_EIO, sws_trace_writer_open(dir, NULL, &w, msg, sizeof(msg)));
	assert_null(w);
	assert_non_null(strstr(msg, dir));
	snprintf(q, sizeof(q), "%s/dangling.swt", dir);
	assert_int_equal(symlink("nowhere/x.swt", q), 0);
	assert_sws(SWS_EIO, sws_trace_writer_open(q, NULL, &w, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "dangling.swt: cannot follow the symbolic link"));
	unlink(q);
	/* The rename fails (a directory took the name meanwhile): SWS_EIO, the
	 * temporary is gone. */
	snprintf(q, sizeof(q), "%s/late.swt", dir);
	assert_sws(0, sws_trace_writer_open(q, NULL, &w, msg, sizeof(msg)));
	assert_int_equal(mkdir(q, 0755), 0);
	assert_sws(SWS_EIO, sws_trace_writer_close(w, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "late.swt: cannot rename the temporary file over it"));
	assert_int_equal(rmdir(q), 0);
	/* A file this process may not write is refused (root may write anything). */
	if (geteuid() != 0) {
		assert_int_equal(chmod(p, 0444), 0);
		assert_sws(SWS_EIO, sws_trace_writer_open(p, NULL, &w, msg, sizeof(msg)));
		assert_non_null(strstr(msg, p));
		assert_int_equal(chmod(p, 0644), 0);
	}
	assert_dir_is(dir, "link.swt out.swt");
	free(v.v);
}

/* A write that fails (the file size limit) or a process killed while it
 * writes leaves an existing output as it was. */
static void test_writer_failures(void **state)
{
	(void)state;
	char dir[256], p[300], msg[600];
	scratch_dir(dir, sizeof(dir), "atomic_fail", p, sizeof(p), "out.swt");
	struct recs v = {0};
	random_records(&v, 20000, 23);
	for (int kill_it = 0; kill_it < 2; kill_it++) {
		write_file(p, "OLD\n", 4);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			if (!kill_it) {
				struct rlimit rl = {.rlim_cur = 8192, .rlim_max = 8192};
				signal(SIGXFSZ, SIG_IGN);
				if (setrlimit(RLIMIT_FSIZE, &rl))
					_exit(3);
			}
			struct sws_trace_writer *w;
			if (sws_trace_writer_open(p, NULL, &w, msg, sizeof(msg)))
				_exit(4);
			int rc = 0;
			for (size_t i = 0; i < v.n && !rc; i++)
				rc = sws_trace_writer_write(w, &v.v[i]);
			if (kill_it)
				raise(SIGKILL);
			int rc2 = sws_trace_writer_close(w, msg, sizeof(msg));
			_exit((rc ? rc : rc2) == SWS_EIO && strstr(msg, p) ? 0 : 5);
		}
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (kill_it) {
			assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		} else {
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 0);
		}
		assert_file_is(p, "OLD\n");
		if (!kill_it)
			assert_dir_is(dir, "out.swt");
	}
	/* The killed writer left its temporary: ".out.swt.XXXXXX". */
	char got[1024];
	dir_list(dir, got, sizeof(got));
	assert_int_equal(strncmp(got, ".out.swt.", 9), 0);
	assert_non_null(strstr(got, " out.swt"));
	free(v.v);
}

/* Allocation failures anywhere give SWS_ENOMEM and leak nothing. */
static void test_fail_nth(void **state)
{
	(void)state;
	char p[300];
	struct recs v = {0};
	random_records(&v, 1000, 3);
	sws_test_path(p, sizeof(p), "failnth.bin");
	struct sws_trace_writer_config wc = {.encoding = SWS_TRACE_BINARY, .flags = SWS_TRACE_WRITE_ZSTD};
	write_all(p, &wc, &v);
	const char *inputs[] = {p, DATA "damon_head.txt"};
	for (int in = 0; in < 2; in++) {
		int ok = 0;
		for (uint64_t nth = 1; nth < 200 && !ok; nth++) {
			struct sws_test_alloc ta;
			sws_test_alloc_init(&ta);
			ta.fail_nth = nth;
			struct sws_env env = {.allocator = ta.a};
			struct sws_trace_reader_config c = {.env = &env};
			char msg[600];
			int rc = read_all(inputs[in], &c, NULL, msg, sizeof(msg));
			assert_true(rc == 0 || rc == SWS_ENOMEM);
			assert_int_equal(ta.live_bytes, 0);
			ok = rc == 0 && ta.calls < nth;
		}
		assert_true(ok);
	}
	/* The writer too; an existing output survives every failure. */
	char dir[256];
	scratch_dir(dir, sizeof(dir), "failnth", p, sizeof(p), "out.bin");
	int ok = 0;
	for (uint64_t nth = 1; nth < 100 && !ok; nth++) {
		write_file(p, "OLD\n", 4);
		struct sws_test_alloc ta;
		sws_test_alloc_init(&ta);
		ta.fail_nth = nth;
		struct sws_env env = {.allocator = ta.a};
		wc.env = &env;
		struct sws_trace_writer *w;
		char msg[600];
		int rc = sws_trace_writer_open(p, &wc, &w, msg, sizeof(msg));
		if (!rc) {
			for (size_t i = 0; i < v.n && !rc; i++)
				rc = sws_trace_writer_write(w, &v.v[i]);
			int rc2 = sws_trace_writer_close(w, msg, sizeof(msg));
			if (!rc)
				rc = rc2;
		}
		assert_true(rc == 0 || rc == SWS_ENOMEM);
		assert_int_equal(ta.live_bytes, 0);
		if (rc)
			assert_file_is(p, "OLD\n");
		assert_dir_is(dir, "out.bin");
		ok = rc == 0 && ta.calls < nth;
	}
	assert_true(ok);
	free(v.v);
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_perf_pagefaults),
		cmocka_unit_test(test_perf_pfuser),
		cmocka_unit_test(test_perf_swap),
		cmocka_unit_test(test_perf_shapes),
		cmocka_unit_test(test_perf_lifecycle_sample),
		cmocka_unit_test(test_perf_positions),
		cmocka_unit_test(test_perf_threads),
		cmocka_unit_test(test_perf_pid_tid),
		cmocka_unit_test(test_perf_assumed_thread),
		cmocka_unit_test(test_perf_duplicates),
		cmocka_unit_test(test_perf_syscalls),
		cmocka_unit_test(test_perf_file_io),
		cmocka_unit_test(test_perf_victims),
		cmocka_unit_test(test_perf_fault_folio),
		cmocka_unit_test(test_perf_cow_victims),
		cmocka_unit_test(test_perf_dup),
		cmocka_unit_test(test_perf_mmap2),
		cmocka_unit_test(test_lackey),
		cmocka_unit_test(test_lackey_syscalls),
		cmocka_unit_test(test_lackey_processes),
		cmocka_unit_test(test_damon),
		cmocka_unit_test(test_damon_limits),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_shared_samples),
		cmocka_unit_test(test_roundtrip_text),
		cmocka_unit_test(test_roundtrip_binary),
		cmocka_unit_test(test_binary_batches),
		cmocka_unit_test(test_text_layout),
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_text_end),
		cmocka_unit_test(test_binary_end),
		cmocka_unit_test(test_repro_huge_len),
		cmocka_unit_test(test_blank_lines),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_malformed_text),
		cmocka_unit_test(test_malformed_binary),
		cmocka_unit_test(test_fuzz_smoke),
		cmocka_unit_test(test_writer_atomic),
		cmocka_unit_test(test_writer_failures),
		cmocka_unit_test(test_fail_nth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
