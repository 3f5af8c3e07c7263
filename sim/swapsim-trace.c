/*
 * swapsim-trace - convert and inspect traces for libswapsim.
 *
 *   swapsim-trace convert --in FILE [--format FMT] --out FILE [--binary] [--zstd]
 *   swapsim-trace stats FILE [--format FMT]
 *   swapsim-trace head FILE [-n N] [--format FMT]
 *
 * FILE "-" is standard input, --out "-" standard output.
 *
 * Any error (bad option, unreadable or malformed input) prints one message
 * naming the file and the line or byte offset, and exits non-zero: 2 for
 * usage errors (an output that is the input among them), 1 for everything
 * else. convert writes its output atomically (the writer's contract in
 * swapsim/trace.h): on an error, or when SIGTERM, SIGINT or SIGHUP stops it
 * (at a record boundary; exit 128 + the signal), an existing output is left
 * as it was. Uses the public API only.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <swapsim/swapsim.h>

#include "cli_options.h"
#include "cli_output.h"
#include "cli_parse.h"

#define USAGE_HEAD                                                                               \
	"usage: swapsim-trace convert --in FILE [--format FMT] --out FILE [--binary] [--zstd]\n"         \
	"                             [READER OPTIONS]\n"                                               \
	"       swapsim-trace stats FILE [--format FMT] [READER OPTIONS]\n"                              \
	"       swapsim-trace head FILE [-n N] [--format FMT] [READER OPTIONS]\n"                        \
	"       swapsim-trace --help | --version\n"                                                      \
	"\n"                                                                                            \
	"Commands:\n"                                                                                   \
	"  convert   read a trace in any supported format and write it in the native\n"                 \
	"            format: text (default), --binary (varint-delta records), --zstd\n"                 \
	"            (zstd-compress the output, text or binary)\n"                                      \
	"  stats     print record counts of every op, tasks, address range, pages touched\n"            \
	"            (distinct pages counted up to 2097152, 8 GiB; 2^20 per record)\n"                  \
	"            (perf: also what the importer made of processes, threads and calls)\n"             \
	"  head      print the first N records (default 10) of any trace, binary and\n"                 \
	"            compressed ones included, as native text (a valid trace of them)\n"                \
	"\n"                                                                                            \
	"FILE (and --in) \"-\" reads standard input; --out \"-\" writes standard output.\n"             \
	"\n"                                                                                            \
	"Formats (--format, default auto):\n"                                                           \
	"  auto      detect from the header and the first lines\n"                                      \
	"  native    swapsim-trace text or binary, optionally zstd-compressed\n"                        \
	"  perf      perf script: page-faults with -d (-F comm,tid,time,event,addr,...),\n"             \
	"            exceptions:page_fault_user, vmscan:*_reclaim_end (reclaim records),\n"             \
	"            sched:sched_process_{fork,exit,exec}, syscalls:sys_{enter,exit}_\n"                \
	"            {mmap,munmap,madvise}, PERF_RECORD_FORK/EXIT/COMM exec/MMAP2 lines\n"              \
	"            (perf script --show-task-events --show-mmap-events)\n"                             \
	"  lackey    valgrind --tool=lackey --trace-mem=yes output\n"                                   \
	"  damon     damon:damon_aggregated perf-script lines, expanded like damo replay\n"             \
	"  addr      one access per line: ADDR [R|W] [TASK], '#' comments\n"                           \
	"\n"

/* The command line: the command, its options, the FILE words. */
struct trace_opts {
	const char *cmd;
	struct sws_trace_reader_config rcfg;
	struct sws_trace_writer_config wcfg;
	const char *in, *out;
	uint32_t nhead;
	bool binary;
	const char *words[2]; /* FILE, and one too many */
	unsigned nwords;
};

#define bad(...) cli_bad("swapsim-trace", __VA_ARGS__)

static int set_format(void *opts, const char *name, const char *v)
{
	struct trace_opts *o = opts;
	if (sws_trace_format_parse(v, &o->rcfg.format))
		return bad(name, "'%s': expected %s", v, cli_trace_format_list((char[128]){0}, 128, 1));
	return 0;
}

static int set_zstd_level(void *opts, const char *name, const char *v)
{
	uint32_t level;
	if (cli_u32_c("swapsim-trace", name, v, 1, 19, &level))
		return 2;
	((struct trace_opts *)opts)->wcfg.zstd_level = (int32_t)level;
	return 0;
}

static int set_nhead(void *opts, const char *name, const char *v)
{
	struct trace_opts *o = opts;
	if (strcmp(o->cmd, "head"))
		return bad(name, "unknown option (head's: the records to print)");
	if (cli_u32_c("swapsim-trace", name, v, 0, UINT32_MAX, &o->nhead))
		return 2;
	return o->nhead ? 0 : bad("head -n", "want 1 or more records");
}

/* A word that is not an option: the FILE of stats and head. */
static int trace_word(void *opts, const char *word)
{
	struct trace_opts *o = opts;
	if (o->nwords < 2)
		o->words[o->nwords++] = word;
	return 0;
}

#define O struct trace_opts
#define READER_U32(n, f, lo, h) \
	{.kind = CLI_U32, .name = (n), .arg = "N", .offset = offsetof(O, rcfg.f), .min = (lo), .max = UINT32_MAX, \
	 .c_number = true, .help = (h)}
static const struct cli_option options[] = {
	CLI_OPT_TEXT("Options:\n"),
	CLI_OPT_STRING("--in", "FILE", O, in, "convert: the input"),
	CLI_OPT_STRING("--out", "FILE", O, out, "convert: the output"),
	CLI_OPT_CALL("--format", "FMT", set_format, "the input's format (above; default auto)"),
	CLI_OPT_CALL("-n", "N", set_nhead, "head: the records to print (default 10)"),
	CLI_OPT_TEXT("\nReader options:\n"),
	{.kind = CLI_U32, .name = "--max-line", .arg = "N", .offset = offsetof(O, rcfg.max_line), .min = 256,
	 .max = SWS_TRACE_MAX_LINE_LIMIT, .c_number = true, .help = "longest accepted line in bytes (default 65536)"},
	READER_U32("--pid", default_pid, 0, "pid/tid for records without one (default 1)"),
	READER_U32("--damon-sample-us", damon_sample_us, 0, "DAMON sampling interval (default 5000)"),
	READER_U32("--damon-aggr-us", damon_aggr_us, 0, "DAMON aggregation interval (default 100000)"),
	READER_U32("--damon-max-expansion", damon_max_expansion, 1, "DAMON records per input byte, at most (default 4096)"),
	CLI_OPT_BITS("--addr-hex", O, rcfg.flags, SWS_TRACE_READ_ADDR_HEX, "addr format: bare digits are hex, not decimal"),
	CLI_OPT_BITS("--no-ifetch", O, rcfg.flags, SWS_TRACE_READ_NO_IFETCH, "drop instruction-fetch accesses"),
	CLI_OPT_BITS("--dirty-events", O, rcfg.flags, SWS_TRACE_READ_DIRTY_EVENTS,
		     "perf: the trace has writeback:writeback_dirty_folio; writes to a file\n"
		     "no write of which dirtied page cache (/dev/null, O_DIRECT) are no page\n"
		     "cache writes"),
	CLI_OPT_TEXT("\nConverter options:\n"),
	CLI_OPT_FLAG("--binary", O, binary, "write the binary encoding (varint-delta records)"),
	CLI_OPT_BITS("--zstd", O, wcfg.flags, SWS_TRACE_WRITE_ZSTD, "zstd-compress the output"),
	CLI_OPT_CALL("--zstd-level", "N", set_zstd_level, "zstd level 1..19 (default 3)"),
	CLI_OPT_TEXT("\n"),
	CLI_OPT_HELP("this text"),
	CLI_OPT_VERSION("the program's version"),
	{0},
};
#undef READER_U32
#undef O

static const struct cli_program program = {
	.name = "swapsim-trace",
	.usage = USAGE_HEAD,
	.tail = "\nTrace formats are described in docs/trace-format.md.\n",
	.options = options,
	.word = trace_word,
};

static void die_usage(const char *msg)
{
	fprintf(stderr, "swapsim-trace: %s\n", msg);
	cli_options_help(&program, stderr);
	exit(2);
}

/* ---- a small open-addressing set of (a, b) pairs (stats) -------------- */

struct set {
	uint64_t (*keys)[2]; /* keys[i][0] == 0: empty; stores a + 1 */
	size_t cap, n;
};

static size_t set_slot(uint64_t a, uint64_t b, size_t cap)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xbf58476d1ce4e5b9ull);
	h ^= h >> 29;
	return (size_t)(h & (cap - 1));
}

static void set_add(struct set *s, uint64_t a, uint64_t b)
{
	a += 1; /* a is a pid (32 bits): a + 1 is never 0 */
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1024;
		uint64_t(*nk)[2] = calloc(ncap, sizeof(*nk));
		if (!nk) {
			fprintf(stderr, "swapsim-trace: out of memory\n");
			exit(1);
		}
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->keys[i][0])
				continue;
			size_t j = set_slot(s->keys[i][0], s->keys[i][1], ncap);
			while (nk[j][0])
				j = (j + 1) & (ncap - 1);
			nk[j][0] = s->keys[i][0];
			nk[j][1] = s->keys[i][1];
		}
		free(s->keys);
		s->keys = nk;
		s->cap = ncap;
	}
	size_t j = set_slot(a, b, s->cap);
	while (s->keys[j][0]) {
		if (s->keys[j][0] == a && s->keys[j][1] == b)
			return;
		j = (j + 1) & (s->cap - 1);
	}
	s->keys[j][0] = a;
	s->keys[j][1] = b;
	s->n++;
}

/* Pages counted per record at most (a bound on the work for huge ranges), and
 * distinct pages counted in all (a bound on the set's memory, 64 MiB, and on
 * the time: a few records of huge ranges made 3 GB and minutes of work). */
#define STATS_MAX_PAGES_PER_RECORD (1u << 20)
#define STATS_MAX_PAGES (1u << 21)

/* ---- commands ------------------------------------------------------------ */

/* The signal that stops a convert (0: none yet). */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/*
 * SIGTERM, SIGINT and SIGHUP stop a convert at the next record boundary. A
 * signal found ignored (nohup, a background job's SIGINT) stays ignored. No
 * SA_RESTART: a read blocked on a FIFO fails with EINTR, and the loop sees
 * the flag.
 */
static void catch_stop_signals(void) { cli_catch_stop_signals(on_stop_signal); }

static int stopped(const char *out)
{
	int sig = stop_signal;
	fprintf(stderr, "swapsim-trace: stopped by %s; %s left as it was\n",
		sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGHUP", out);
	return 128 + sig;
}

/* The reader's warning, on stderr once: *@shown says it was. A warning comes
 * at open (a native v1 trace) or while reading (a lackey stream of several
 * processes), so both call this. */
static void show_warning(const struct sws_trace_reader *r, bool *shown)
{
	const char *warning = sws_trace_reader_warning(r);
	if (warning[0] && !*shown)
		fprintf(stderr, "swapsim-trace: warning: %s\n", warning);
	*shown = *shown || warning[0];
}

static int open_reader(const char *path, const struct sws_trace_reader_config *cfg,
		       struct sws_trace_reader **r, bool *warned)
{
	char err[600];
	int rc = sws_trace_reader_open(path, cfg, r, err, sizeof(err));
	if (rc) {
		if (!stop_signal) /* else the error is the signal's doing */
			fprintf(stderr, "swapsim-trace: %s (%s)\n", err[0] ? err : path,
				sws_error_name(rc));
		return 1;
	}
	show_warning(*r, warned);
	return 0;
}

static int read_error(struct sws_trace_reader *r, int rc)
{
	fprintf(stderr, "swapsim-trace: %s (%s)\n", sws_trace_reader_error(r), sws_error_name(rc));
	sws_trace_reader_close(r);
	return 1;
}

/* "-" is standard input: the reader opens /dev/stdin (it reads a stream
 * front to back, so a pipe does). */
static const char *in_path(const char *in)
{
	return strcmp(in, "-") ? in : "/dev/stdin";
}

/*
 * Where --out "-" is written. A pipe or a terminal is written in place
 * (/dev/stdout: the writer writes what is not a regular file in place). A
 * regular file behind standard output is another matter: the writer would
 * rename a new file over it, which an append (>>) or a shared redirection
 * must not see; so the trace goes to a temporary file first, copied to
 * standard output once complete (copy_out()).
 */
static int stdout_target(char *tmp, size_t len)
{
	struct stat st;
	if (fstat(STDOUT_FILENO, &st) || !S_ISREG(st.st_mode)) {
		snprintf(tmp, len, "/dev/stdout");
		return 0;
	}
	const char *dir = getenv("TMPDIR");
	snprintf(tmp, len, "%s/swapsim-trace.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "swapsim-trace: --out -: cannot create a temporary file in %s: %s\n",
			dir && *dir ? dir : "/tmp", strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

static int copy_out(const char *tmp)
{
	FILE *f = fopen(tmp, "rb");
	char buf[65536];
	size_t n;
	int rc = 0;
	if (!f) {
		fprintf(stderr, "swapsim-trace: %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n) {
			fprintf(stderr, "swapsim-trace: --out -: write error: %s\n", strerror(errno));
			rc = 1;
			break;
		}
	if (ferror(f) || fclose(f) || fflush(stdout)) {
		if (!rc)
			fprintf(stderr, "swapsim-trace: --out -: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}

/* Convert @in to @out ("-": standard output), at most @limit records (0: all);
 * @quiet: no "N records written" line (head). */
static int convert(const char *in, const char *out, const struct sws_trace_reader_config *rcfg,
		   const struct sws_trace_writer_config *wcfg, uint64_t limit, int quiet);

static int cmd_convert(const char *in, const char *out, const struct sws_trace_reader_config *rcfg,
		       const struct sws_trace_writer_config *wcfg, uint64_t limit, int quiet)
{
	char tmp[4096];
	int to_stdout = !strcmp(out, "-"), rc;
	if (!to_stdout)
		return convert(in, out, rcfg, wcfg, limit, quiet);
	if (stdout_target(tmp, sizeof(tmp)))
		return 1;
	rc = convert(in, tmp, rcfg, wcfg, limit, 1);
	if (strcmp(tmp, "/dev/stdout")) {
		if (!rc)
			rc = copy_out(tmp);
		unlink(tmp);
	}
	return rc;
}

static int convert(const char *in, const char *out, const struct sws_trace_reader_config *rcfg,
		   const struct sws_trace_writer_config *wcfg, uint64_t limit, int quiet)
{
	struct sws_trace_reader *r;
	struct sws_trace_writer *w;
	char err[600];
	in = in_path(in);
	if (strcmp(in, "/dev/stdin") && strcmp(out, "/dev/stdout") && cli_same_file(in, out)) {
		fprintf(stderr, "swapsim-trace: --out %s is the same file as --in %s: "
				"converting it in place would destroy it\n", out, in);
		return 2;
	}
	catch_stop_signals();
	bool warned = false;
	if (open_reader(in, rcfg, &r, &warned))
		return stop_signal ? stopped(out) : 1;
	int rc = sws_trace_writer_open(out, wcfg, &w, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "swapsim-trace: %s (%s)\n", err, sws_error_name(rc));
		sws_trace_reader_close(r);
		return 1;
	}
	struct sws_trace_record rec;
	uint64_t nrec = 0;
	while (!stop_signal && (!limit || nrec < limit) && (rc = sws_trace_reader_next(r, &rec)) == 1) {
		nrec++;
		if ((rc = sws_trace_writer_write(w, &rec)) && !stop_signal) {
			fprintf(stderr, "swapsim-trace: %s (%s)\n",
				sws_trace_writer_error(w)[0] ? sws_trace_writer_error(w) : out,
				sws_error_name(rc));
			sws_trace_writer_abort(w);
			sws_trace_reader_close(r);
			return 1;
		}
	}
	show_warning(r, &warned);
	if (stop_signal) { /* also when it made a read or a write fail (EINTR) */
		sws_trace_writer_abort(w);
		sws_trace_reader_close(r);
		return stopped(out);
	}
	if (rc < 0) {
		sws_trace_writer_abort(w); /* the output stays as it was */
		return read_error(r, rc);
	}
	struct sws_trace_reader_stats st;
	sws_trace_reader_stats_get(r, &st);
	sws_trace_reader_close(r);
	if ((rc = sws_trace_writer_close(w, err, sizeof(err)))) {
		fprintf(stderr, "swapsim-trace: %s (%s)\n", err, sws_error_name(rc));
		return 1;
	}
	if (!quiet)
		fprintf(stderr, "swapsim-trace: %" PRIu64 " records written to %s\n", st.records, out);
	return 0;
}

/* What the perf importer made of fork, exit, exec and the memory-map calls,
 * and what it left out (docs/trace-format.md). */
static void print_perf_stats(const struct sws_trace_reader *r)
{
	struct sws_trace_perf_stats p;
	sws_trace_reader_perf_stats(r, &p);
	printf("processes:       %" PRIu64 " forks (%" PRIu64 " assumed: the trace did not say "
	       "process or thread; %" PRIu64 " undecided), %" PRIu64 " threads, %" PRIu64
	       " thread exits, %" PRIu64 " duplicate reports dropped\n",
	       p.forks, p.forks_assumed, p.forks_undecided, p.threads, p.thread_exits, p.duplicates);
	printf("calls left out:  mmap of files %" PRIu64 ", shared/hugetlb %" PRIu64
	       ", MMAP2 lines %" PRIu64 ", failed %" PRIu64 ", other madvise %" PRIu64
	       ", exits without enter %" PRIu64 ", unfinished %" PRIu64 "\n",
	       p.mmap_file, p.mmap_shared, p.mmap2_skipped, p.calls_failed, p.madvise_other,
	       p.unpaired_exits, p.unfinished_calls);
	printf("files:           %" PRIu64 " opened, %" PRIu64 " reads and writes imported, %" PRIu64
	       " on other descriptors left out, %" PRIu64 " opened past the table; %" PRIu64
	       " kernel-mode faults on user memory, %" PRIu64 " reclaims split anon/file, %" PRIu64
	       " writes that dirtied no page cache left out\n",
	       p.files_opened, p.file_io, p.file_io_other_fd, p.fds_untracked, p.kernel_faults,
	       p.reclaim_split, p.writes_no_pagecache);
	printf("reclaim:         %" PRIu64 " folios written out tied to the fault that allocated them, %" PRIu64
	       " not tied, %" PRIu64 " allocations past the folio table; %" PRIu64
	       " page cache pieces of reads cut at a reclaim; %" PRIu64
	       " shrink_inactive lines made reclaim at once\n",
	       p.victims, p.victims_untied, p.pfns_untracked, p.file_io_pieces, p.reclaim_lines);
}

/* What stats counts of a trace. */
struct trace_stats {
	uint64_t by_op[SWS_TRACE_OP_MAX + 1];
	uint64_t reads, writes, ifetch, reclaim_pages;
	uint64_t amin, amax, tmin, tmax;
	struct set pids, tids, pages;
};

/* An access record's pages touched: distinct (pid, 4 KiB page) pairs, up to the limit. */
static void stats_add_pages(struct trace_stats *s, const struct sws_trace_record *rec, uint64_t last)
{
	uint64_t first_pg = rec->addr >> 12, last_pg = last >> 12;
	if (last_pg - first_pg >= STATS_MAX_PAGES_PER_RECORD)
		last_pg = first_pg + STATS_MAX_PAGES_PER_RECORD - 1;
	for (uint64_t pg = first_pg; pg <= last_pg && s->pages.n < STATS_MAX_PAGES; pg++)
		set_add(&s->pages, rec->pid, pg);
}

static void stats_add(struct trace_stats *s, const struct sws_trace_record *rec)
{
	s->by_op[rec->op <= SWS_TRACE_OP_MAX ? rec->op : 0]++;
	set_add(&s->pids, rec->pid, 0);
	set_add(&s->tids, rec->pid, rec->tid);
	if (rec->time_ns < s->tmin)
		s->tmin = rec->time_ns;
	if (rec->time_ns > s->tmax)
		s->tmax = rec->time_ns;
	if (rec->op == SWS_TRACE_RECLAIM) {
		s->reclaim_pages += rec->len;
		return;
	}
	if (rec->op == SWS_TRACE_FORK || rec->op == SWS_TRACE_EXIT || rec->op == SWS_TRACE_EXEC)
		return;
	uint64_t last = rec->len ? rec->addr + (rec->len - 1) : rec->addr;
	if (last < rec->addr)
		last = UINT64_MAX;
	if (rec->addr < s->amin)
		s->amin = rec->addr;
	if (last > s->amax)
		s->amax = last;
	if (rec->op != SWS_TRACE_ACCESS)
		return;
	if (rec->flags & SWS_TRACE_F_IFETCH)
		s->ifetch++;
	else if (rec->flags & SWS_TRACE_F_WRITE)
		s->writes++;
	else
		s->reads++;
	stats_add_pages(s, rec, last);
}

static void stats_free(struct trace_stats *s)
{
	free(s->pids.keys);
	free(s->tids.keys);
	free(s->pages.keys);
}

/* The trace's format line: its name, text or binary for the native one, zstd. */
static void print_format(struct sws_trace_reader *r)
{
	int zstd;
	int bin = sws_trace_reader_is_binary(r, &zstd);
	printf("format:          %s%s%s\n", sws_trace_format_name(sws_trace_reader_format(r)),
	       sws_trace_reader_format(r) == SWS_TRACE_FORMAT_NATIVE ? (bin ? " binary" : " text") : "",
	       zstd ? " (zstd)" : "");
}

static void stats_print(const struct trace_stats *s, const char *in, struct sws_trace_reader *r)
{
	struct sws_trace_reader_stats st;
	sws_trace_reader_stats_get(r, &st);
	uint64_t total = 0;
	for (unsigned i = 0; i <= SWS_TRACE_OP_MAX; i++)
		total += s->by_op[i];
	printf("file:            %s\n", in);
	print_format(r);
	printf("records:         %" PRIu64 "\n", total);
	for (unsigned i = 1; i <= SWS_TRACE_OP_MAX; i++)
		printf("  %-14s %" PRIu64 "\n", sws_trace_op_name(i), s->by_op[i]);
	if (s->by_op[SWS_TRACE_ACCESS])
		printf("accesses:        reads %" PRIu64 ", writes %" PRIu64 ", ifetch %" PRIu64 "\n",
		       s->reads, s->writes, s->ifetch);
	if (s->by_op[SWS_TRACE_RECLAIM])
		printf("reclaimed pages: %" PRIu64 "\n", s->reclaim_pages);
	printf("tasks:           %zu pids, %zu tids\n", s->pids.n, s->tids.n);
	if (s->amin <= s->amax)
		printf("address range:   0x%" PRIx64 " - 0x%" PRIx64 "\n", s->amin, s->amax);
	else
		printf("address range:   none\n");
	if (s->pages.n >= STATS_MAX_PAGES) {
		printf("pages touched:   at least %zu (distinct 4 KiB pages per pid; the count stops at %u, "
		       "8 GiB)\n", s->pages.n, STATS_MAX_PAGES);
		fprintf(stderr, "swapsim-trace: warning: %s: more than %u distinct pages touched: stats counts "
				"them up to that limit (every record is counted)\n", in, STATS_MAX_PAGES);
	} else {
		printf("pages touched:   %zu (distinct 4 KiB pages per pid)\n", s->pages.n);
	}
	if (total)
		printf("time:            %" PRIu64 " - %" PRIu64 " ns\n", s->tmin, s->tmax);
	printf("lines:           %" PRIu64 " (%" PRIu64 " without a record)\n", st.lines, st.skipped_lines);
	if (sws_trace_reader_format(r) == SWS_TRACE_FORMAT_PERF)
		print_perf_stats(r);
}

static int cmd_stats(const char *in, const struct sws_trace_reader_config *rcfg)
{
	struct sws_trace_reader *r;
	bool warned = false;
	if (open_reader(in_path(in), rcfg, &r, &warned))
		return 1;
	struct trace_stats s = {.amin = UINT64_MAX, .tmin = UINT64_MAX};
	struct sws_trace_record rec;
	int rc;
	while ((rc = sws_trace_reader_next(r, &rec)) == 1)
		stats_add(&s, &rec);
	show_warning(r, &warned);
	if (rc < 0) {
		stats_free(&s);
		return read_error(r, rc);
	}
	stats_print(&s, in, r);
	stats_free(&s);
	sws_trace_reader_close(r);
	return 0;
}

/* Standard output onto the input ('stats X > X' has emptied X already,
 * '>> X' would grow it while it is read): refused. @return 0 or 2. */
static int refuse_stdout_input(const char *in)
{
	const char *inputs[] = {in};
	if (cli_stdout_is_input(inputs, 1) < 0)
		return 0;
	fprintf(stderr, "swapsim-trace: standard output is %s, the input: the output would write over it\n", in);
	return 2;
}

/* FILE of stats and head: the one word, or --in. */
static const char *one_input(const struct trace_opts *o)
{
	char msg[64];
	const char *in = o->in ? o->in : o->words[0];
	snprintf(msg, sizeof(msg), "%s: %s", o->cmd, in ? "too many arguments" : "missing FILE");
	if (!in || o->nwords > (o->in ? 0u : 1u))
		die_usage(msg);
	return in;
}

static int trace_main(int argc, char **argv)
{
	struct trace_opts o = {.nhead = 10};
	if (argc < 2)
		die_usage("missing command");
	if (!strcmp(argv[1], "help")) {
		cli_options_help(&program, stdout);
		return 0;
	}
	if (argv[1][0] == '-') /* --help, --version, or a mistake */
		return cli_options_parse(&program, &o, 2, argv, 1) ? 2 : (die_usage("missing command"), 2);
	o.cmd = argv[1];
	if (strcmp(o.cmd, "convert") && strcmp(o.cmd, "stats") && strcmp(o.cmd, "head"))
		die_usage("unknown command (want convert, stats or head)");
	if (cli_options_parse(&program, &o, argc, argv, 2))
		return 2;
	if (o.binary)
		o.wcfg.encoding = SWS_TRACE_BINARY;
	if (!strcmp(o.cmd, "stats")) {
		const char *in = one_input(&o);
		return refuse_stdout_input(in) ? 2 : cmd_stats(in, &o.rcfg);
	}
	if (!strcmp(o.cmd, "head")) {
		const char *in = one_input(&o);
		if (o.out || o.wcfg.encoding || o.wcfg.flags || o.wcfg.zstd_level)
			die_usage("head: prints text to standard output (no --out, --binary, --zstd; "
				  "convert writes files)");
		return refuse_stdout_input(in) ? 2 : cmd_convert(in, "-", &o.rcfg, &o.wcfg, o.nhead, 1);
	}
	if (!o.in || !o.out)
		die_usage("convert: --in FILE and --out FILE are required");
	if (o.nwords)
		die_usage("convert: too many arguments");
	if (!strcmp(o.out, "-") && refuse_stdout_input(o.in))
		return 2;
	return cmd_convert(o.in, o.out, &o.rcfg, &o.wcfg, 0, 0);
}

int main(int argc, char **argv)
{
	/* stats, head and convert --out - write standard output: a failed write is an error. */
	cli_stdout_init();
	return cli_stdout_close("swapsim-trace", trace_main(argc, argv));
}
