/*
 * swapsim-replay - replay a page-access trace or a synthetic workload (usemem,
 * memhog, zipf, uniform, bgsave) on a simulated machine, for one or several
 * swap-cache backends, and report kernel-named counters, throughput, latency
 * histograms and metadata memory (table, JSON or a CSV time series); or,
 * with --check, a recording of the real kernel (swapsim-record) on the
 * machine it recorded, its counters next to the kernel's (check.c).
 *
 * A thin program over the public API (swapsim/replay.h): it parses the command
 * line, builds one replay per compared configuration and repeat (interleaved:
 * A B A B ...), and prints. Exit status: 0 success, 1 a run failed (bad
 * trace, a device that cannot be set up or whose writes fail, verify
 * mismatch), 2 bad usage, 3 the model refused
 * accesses (OOM: see --allow-errors), 128+N stopped by signal N (SIGINT 130,
 * SIGTERM 143, SIGHUP 129).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <swapsim/swapsim.h>

#include "check.h"
#include "rerun.h"
#include "cli_designs.h"
#include "cli_output.h"
#include "cli_options.h"
#include "cli_parse.h"

#define MAX_WL_ARGS 64
_Static_assert(CLI_MAX_RUNS <= SWS_REPLAY_MAX_SERIES, "every run is a series of the report");
#define MAX_REPEAT 1000
#define MAX_JOBS 64
#define EXIT_ERRORS 3

static volatile sig_atomic_t interrupted; /* the signal that stops the run, 0 while none */

static void on_stop_signal(int sig) { interrupted = sig; }

/* SIGINT, SIGTERM and SIGHUP alike: stop at a record boundary, report, exit
 * 128+signal; one ignored when the program started (nohup) stays ignored. */
static void catch_stop_signals(void) { cli_catch_stop_signals(on_stop_signal); }

/* --help: its head and its end around the option table (which makes the workloads' synopses). */
#define USAGE_HEAD \
	"usage: swapsim-replay [OPTIONS] --trace FILE [--format FMT]\n" \
	"       swapsim-replay [OPTIONS] --workload NAME [WORKLOAD ARGS...]\n" \
	"       swapsim-replay [OPTIONS] --check DIR|FILE\n" \
	"\n" \
	"Replay a page-access trace or a synthetic workload on a simulated machine and report\n" \
	"what the swap subsystem did (kernel-named counters, events/s, latency, metadata memory).\n" \
	"\n"
#define USAGE_TAIL \
"Sizes take K, M, G, T suffixes (binary) or a page count with a p suffix (256p = 1M);\n" \
	"a bare number is bytes, at least 4096 (64 alone is refused: write 64M, 64K or 64p).\n" \
	"A progress bar goes to stderr when it is a terminal; Ctrl-C (SIGINT), SIGTERM or SIGHUP\n" \
	"stops the run and prints a summary of what ran. An option given twice with different\n" \
	"values is an error (--swap excepted: each adds a device), and so are --backend and\n" \
	"--compare together.\n" \
	"With several --swap devices the table lists them, as /proc/swaps, before its verdicts.\n" \
	"Exit: 0 ok, 1 run failed (unreadable trace, verify mismatch, a device that cannot be\n" \
	"set up or whose writes failed), 2 bad usage, 3 the model refused accesses (errors > 0:\n" \
	"the OOM killer, ...) or the OOM killer took tasks during --swapoff (--allow-errors\n" \
	"makes that 0), 128+N stopped by signal N\n" \
	"(SIGINT 130, SIGHUP 129, SIGTERM 143: the run stops at a record boundary and reports).\n"

/* A value option seen: one given again with another value is a contradiction. */
struct seen {
	char name[64], val[192];
};

struct opts {
	const char *trace;
	const char *check; /* --check DIR|FILE */
	bool accesses;     /* --check's --accesses: the recorded access stream */
	enum sws_trace_format format;
	struct sws_trace_reader_config rcfg; /* the reader options (format: above) */
	bool reader_opts;                    /* any of them given */
	bool have_workload;
	struct sws_workload_config wl;
	enum sws_backend backends[CLI_MAX_RUNS];
	unsigned nbackends;
	uint32_t threads, repeat, jobs;
	uint64_t seed, user_bandwidth;
	enum sws_replay_clock clock;
	uint32_t cpus;          /* --cpus; 0: the default for the input */
	uint64_t sync_quantum;  /* --sync-quantum + 1; 0: not given */
	int order;              /* --order: 0 not given, 1 trace, 2 cpu */
	struct sws_costs costs; /* --costs FILE */
	bool costs_set;
	const char *costs_path;
	bool allow_errors;
	const char *ram_arg, *mem_limit_arg; /* as given, for messages */
	bool memcg_per_task;
	int memcg_off;        /* --memcg: the choice's index, 1 for off */
	int metadata_ram_off; /* --metadata-ram: the choice's index, 1 for off */
	bool seed_set;
	uint64_t ram, mem_limit;
	struct sws_replay_swap swap[SWS_REPLAY_MAX_SWAP];
	unsigned nswap;
	enum sws_reclaim_policy policy;
	uint32_t page_cluster;
	uint32_t anon_orders; /* --mthp SIZE=always: bit k, folios of 2^k pages */
	uint32_t anon_orders_madvise; /* SIZE=madvise */
	uint32_t anon_orders_inherit; /* SIZE=inherit: as --thp */
	int thp;              /* --thp: the choice's index (never, always, madvise) */
	bool mthp_set;
	uint32_t thp_defrag;  /* --thp-defrag (enum sws_thp_defrag) */
	bool thp_defrag_set;
	uint64_t mem_high;    /* --mem-high, pages */
	const char *memcg_swap_tiers; /* --memcg-swap-tiers NAME[,NAME...] */
	uint32_t swapoff; /* --swapoff N */
	uint32_t content[SWS_NR_CONTENT];
	bool content_set, verify, quiet;
	bool zswap, read_zero, read_fault_set;
	bool shrinker_set; /* --zswap-shrinker given */
	struct sws_zswap_config zc;
	char zcomp[24];
	int report;           /* 0 table, 1 json, 2 csv, 3 counters, 4 mmtests, 5 lkp */
	bool all_counters;    /* --all-counters */
	const char *json_out; /* --json-out: the JSON report written here too */
	uint64_t interval;
	char *wl_args_copy;
	char *swap_str[SWS_REPLAY_MAX_SWAP]; /* the specs' text (paths point into it) */
	bool *argv_drop; /* --check: the arguments its equivalent command leaves out */
	struct seen seen[64]; /* the value options given so far (check_once()) */
	unsigned nseen;
};

#define bad(...) cli_bad("swapsim-replay", __VA_ARGS__)

/* The value options seen so far: one given again with another value is a
 * contradiction (--backend and --compare are one). */
static int check_once(struct seen *seen, unsigned *nseen, const char *name, const char *v)
{
	const char *key = !strcmp(name, "--compare") ? "--backend" : name;
	if (!strcmp(name, "--swap"))
		return 0; /* repeatable: each is a device */
	for (unsigned k = 0; k < *nseen; k++) {
		const char *pk = !strcmp(seen[k].name, "--compare") ? "--backend" : seen[k].name;
		if (strcmp(pk, key))
			continue;
		if (!strcmp(seen[k].name, name) && !strcmp(seen[k].val, v))
			return 0; /* the same again: no contradiction */
		return bad(name, "'%s' contradicts %s %s given before (give one)", v, seen[k].name, seen[k].val);
	}
	if (*nseen < 64) {
		snprintf(seen[*nseen].name, sizeof(seen[*nseen].name), "%s", name);
		snprintf(seen[*nseen].val, sizeof(seen[*nseen].val), "%s", v);
		(*nseen)++;
	}
	return 0;
}

/* --mthp SIZE=always|madvise|inherit|never[,...]: each size's policy, as
 * hugepages-<SIZE>kB/enabled (later sizes win). */
static int parse_mthp(const char *v, struct opts *o, char *msg, size_t len)
{
	static const char *const modes[] = {"never", "always", "madvise", "inherit"};
	char *copy = strdup(v), *save = NULL;
	int rc = copy ? 0 : -1;
	if (copy && !*copy) {
		snprintf(msg, len, "'': expected SIZE=always|madvise|inherit|never, SIZE 8K, 16K, ... 2M");
		rc = -1;
	}
	for (char *s = copy ? strtok_r(copy, ",", &save) : NULL; s && !rc; s = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(s, '=');
		uint64_t sz = 0;
		unsigned o_ = SWS_NR_ORDERS, m = 4; /* not a size of an mTHP order, not a mode */
		if (eq) {
			*eq = 0;
			if (!cli_parse_size(s, &sz))
				for (o_ = 1; o_ < SWS_NR_ORDERS && (uint64_t)SWS_PAGE_SIZE << o_ != sz; o_++)
					;
			for (m = 0; m < 4 && strcmp(eq + 1, modes[m]); m++)
				;
		}
		if (o_ == SWS_NR_ORDERS || m == 4) {
			snprintf(msg, len, "'%s': expected SIZE=always|madvise|inherit|never, SIZE 8K, 16K, ... 2M", v);
			rc = -1;
			break;
		}
		uint32_t bit = 1u << o_;
		o->anon_orders = (o->anon_orders & ~bit) | (m == 1 ? bit : 0);
		o->anon_orders_madvise = (o->anon_orders_madvise & ~bit) | (m == 2 ? bit : 0);
		o->anon_orders_inherit = (o->anon_orders_inherit & ~bit) | (m == 3 ? bit : 0);
	}
	if (!copy)
		snprintf(msg, len, "out of memory");
	free(copy);
	return rc;
}


/* --list-designs: every design's name, one a line, the registry's order (scripts read it). */
static int list_designs(void *opts, const char *name, const char *v)
{
	(void)opts, (void)name, (void)v;
	for (size_t i = 0; i < CLI_NR_DESIGNS; i++)
		puts(sws_design_name(cli_designs[i]));
	exit(cli_stdout_close("swapsim-replay", 0));
}

static const char *backend_help(char *buf, size_t len)
{
	char names[256];
	snprintf(buf, len, "the per-slot design, one of %s\n(default st-p4; --list-designs; docs/designs.md)",
		 cli_design_list(names, sizeof(names), ", ", " or "));
	return buf;
}

static int parse_workload(struct opts *o, int argc, char **argv)
{
	char msg[256], names[128];
	if (argc < 1)
		return bad("--workload", "missing workload name (%s)", cli_workload_names(names, sizeof(names)));
	if (sws_workload_parse(argv[0], &o->wl.kind))
		return bad("--workload", "unknown workload '%s' (%s)", argv[0], cli_workload_names(names, sizeof(names)));
	if (cli_parse_workload_args(&o->wl, argc - 1, argv + 1, msg, sizeof(msg)))
		return bad("--workload", "%s", msg);
	o->have_workload = true;
	return 0;
}

/* ---- the options' setters (CLI_CALL): each parses its value into struct opts ---------- */

static int set_workload(void *opts, int argc, char **argv) { return parse_workload(opts, argc, argv); }

static int set_workload_args(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char *words[MAX_WL_ARGS];
	int n = 0;
	free(o->wl_args_copy);
	o->wl_args_copy = strdup(v);
	if (!o->wl_args_copy)
		return bad(name, "out of memory");
	for (char *s = strtok(o->wl_args_copy, " \t"); s; s = strtok(NULL, " \t")) {
		if (n == MAX_WL_ARGS)
			return bad(name, "too many words");
		words[n++] = s;
	}
	return parse_workload(o, n, words);
}

static int set_format(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	if (sws_trace_format_parse(v, &o->format) || o->format == SWS_TRACE_FORMAT_AUTO)
		return bad(name, "'%s': expected %s", v, cli_trace_format_list((char[128]){0}, 128, 0));
	return 0;
}

static int set_clock(void *opts, const char *name, const char *v)
{
	int k;
	if (cli_choice("swapsim-replay", name, v, "model|host", &k))
		return 2;
	((struct opts *)opts)->clock = k ? SWS_REPLAY_CLOCK_HOST : SWS_REPLAY_CLOCK_MODEL;
	return 0;
}

static int set_sync_quantum(void *opts, const char *name, const char *v)
{
	uint32_t q;
	if (cli_u32("swapsim-replay", name, v, 0, 1000000, &q))
		return 2;
	((struct opts *)opts)->sync_quantum = (uint64_t)q + 1;
	return 0;
}

static int set_order(void *opts, const char *name, const char *v)
{
	int k;
	if (cli_choice("swapsim-replay", name, v, "trace|cpu", &k))
		return 2;
	((struct opts *)opts)->order = k + 1;
	return 0;
}

static int set_page_cluster(void *opts, const char *name, const char *v)
{
	uint32_t pc;
	if (cli_u32("swapsim-replay", name, v, 0, 10, &pc))
		return 2;
	((struct opts *)opts)->page_cluster = pc + 1; /* sws_mm_config: page-cluster + 1 */
	return 0;
}

static int set_costs(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char msg[256];
	if (cli_read_costs(v, &o->costs, msg, sizeof(msg)))
		return bad(name, "%s", msg);
	o->costs_set = true;
	o->costs_path = v;
	return 0;
}

static int set_user_bandwidth(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char msg[160];
	if (cli_parse_size(v, &o->user_bandwidth))
		return bad(name, "'%s': expected bytes per second: %s", v, cli_size_hint(v, msg, sizeof(msg)));
	if (o->user_bandwidth < SWS_PAGE_SIZE)
		return bad(name, "'%s': expected bytes per second, at least 4K", v);
	return 0;
}

static int set_seed(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char *e;
	errno = 0;
	o->seed = strtoull(v, &e, 0);
	if (!*v || *e || errno || v[0] == '-')
		return bad(name, "'%s': expected a number", v);
	o->seed_set = true;
	return 0;
}

/* --ram, --mem-limit: a machine's size, 256K to 4T, in pages. */
static int set_machine_size(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char msg[160];
	uint64_t sz;
	if (cli_parse_size(v, &sz))
		return bad(name, "'%s': %s", v, cli_size_hint(v, msg, sizeof(msg)));
	if (sz < 64 * SWS_PAGE_SIZE)
		return bad(name, "'%s': below the smallest machine, 256K (64 pages)", v);
	if (sz / SWS_PAGE_SIZE > SWS_MM_MAX_RAM_PAGES)
		return bad(name, "'%s': above the limit of 4T", v);
	*(name[2] == 'r' ? &o->ram : &o->mem_limit) = sz / SWS_PAGE_SIZE;
	*(name[2] == 'r' ? &o->ram_arg : &o->mem_limit_arg) = v;
	return 0;
}

static int set_mem_high(void *opts, const char *name, const char *v)
{
	char msg[160];
	uint64_t sz;
	if (cli_parse_size(v, &sz))
		return bad(name, "'%s': %s", v, cli_size_hint(v, msg, sizeof(msg)));
	if (sz < 64 * SWS_PAGE_SIZE || sz / SWS_PAGE_SIZE > SWS_MM_MAX_RAM_PAGES)
		return bad(name, "'%s': expected 256K to 4T", v);
	((struct opts *)opts)->mem_high = sz / SWS_PAGE_SIZE;
	return 0;
}

static int set_swap(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char msg[256];
	if (o->nswap == SWS_REPLAY_MAX_SWAP)
		return bad(name, "at most %d devices", SWS_REPLAY_MAX_SWAP);
	o->swap_str[o->nswap] = strdup(v);
	if (!o->swap_str[o->nswap])
		return bad(name, "out of memory");
	if (cli_parse_swap(o->swap_str[o->nswap], &o->swap[o->nswap], msg, sizeof(msg)))
		return bad(name, "%s", msg);
	o->nswap++;
	return 0;
}

/* --backend D, --compare D1,D2,...: the designs to run. */
static int set_designs(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char *copy = strdup(v), *save = NULL;
	int rc = copy ? 0 : bad(name, "out of memory");
	o->nbackends = 0;
	for (char *s = copy ? strtok_r(copy, ",", &save) : NULL; s && !rc; s = strtok_r(NULL, ",", &save)) {
		if (o->nbackends == CLI_MAX_RUNS)
			rc = bad(name, "at most %d runs", CLI_MAX_RUNS);
		else if (sws_backend_parse(s, &o->backends[o->nbackends]))
			rc = bad(name, "'%s': expected %s (--list-designs)", s, cli_design_list((char[256]){0}, 256, ", ", " or "));
		else
			o->nbackends++;
	}
	free(copy);
	if (!rc && (!o->nbackends || (name[2] == 'b' && o->nbackends != 1)))
		rc = bad(name, "'%s': expected %s", v, name[2] == 'b' ? "one design" : "a list like xarray,st-p4,vswap");
	return rc;
}

static int set_policy(void *opts, const char *name, const char *v)
{
	static const enum sws_reclaim_policy policies[] = {SWS_RECLAIM_KERNEL, SWS_RECLAIM_LRU, SWS_RECLAIM_CLOCK};
	int k;
	if (cli_choice("swapsim-replay", name, v, "kernel|lru|clock", &k))
		return 2;
	((struct opts *)opts)->policy = policies[k];
	return 0;
}

static int set_thp_defrag(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	for (unsigned d = 0; d < SWS_THP_DEFRAG_NR; d++)
		if (!strcmp(v, sws_thp_defrag_name((enum sws_thp_defrag)d))) {
			o->thp_defrag = d;
			o->thp_defrag_set = true;
			return 0;
		}
	return bad(name, "'%s': expected always, defer, defer+madvise, madvise or never", v);
}

static int set_mthp(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char msg[256];
	if (parse_mthp(v, o, msg, sizeof(msg)))
		return bad(name, "%s", msg);
	o->mthp_set = true;
	return 0;
}

static int set_read_fault(void *opts, const char *name, const char *v)
{
	int k;
	if (cli_choice("swapsim-replay", name, v, "data|zero", &k))
		return 2;
	((struct opts *)opts)->read_zero = k == 1;
	((struct opts *)opts)->read_fault_set = true;
	return 0;
}

static int set_cgroup(void *opts, const char *name, const char *v)
{
	int k;
	if (cli_choice("swapsim-replay", name, v, "v1|v2", &k))
		return 2;
	((struct opts *)opts)->zc.cgroup = k == 0 ? SWS_ZSWAP_CGROUP_V1 : SWS_ZSWAP_CGROUP_V2;
	return 0;
}

static int set_zswap_compressor(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	if (strlen(v) >= sizeof(o->zcomp) || sws_zswap_compressor_check(v))
		return bad(name, "'%s': expected lz4, zstd or zstd:LEVEL (LEVEL 1..19)", v);
	snprintf(o->zcomp, sizeof(o->zcomp), "%s", v);
	o->zc.compressor = o->zcomp;
	return 0;
}

static int set_zswap_shrinker(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	int k;
	if (cli_choice("swapsim-replay", name, v, "on|off", &k))
		return 2;
	o->zc.flags = (o->zc.flags & ~SWS_ZSWAP_SHRINKER) | (k == 0 ? SWS_ZSWAP_SHRINKER : 0);
	o->shrinker_set = true;
	return 0;
}

static int set_zswap_scheme(void *opts, const char *name, const char *v)
{
	static const uint32_t schemes[] = {0, SWS_ZSWAP_SECOND_CHANCE_ONLY, SWS_ZSWAP_OLD_SCHEME};
	struct opts *o = opts;
	int k = 0;
	if (strcmp(v, "new") && cli_choice("swapsim-replay", name, v, "both|second-chance|old", &k))
		return 2; /* new: both's older name */
	o->zc.flags = (o->zc.flags & ~(SWS_ZSWAP_OLD_SCHEME | SWS_ZSWAP_SECOND_CHANCE_ONLY)) | schemes[k];
	return 0;
}

static int set_content(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char msg[256];
	if (cli_parse_content(v, o->content, msg, sizeof(msg)))
		return bad(name, "%s", msg);
	o->content_set = true;
	return 0;
}

static int set_interval(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char *e;
	errno = 0;
	o->interval = strtoull(v, &e, 10);
	if (!*v || *e || errno || v[0] == '-' || !o->interval)
		return bad(name, "'%s': expected a record count >= 1", v);
	return 0;
}

/* --rerun is read before the parse (rerun_expand()): here it is inside a report's command. */
static int set_rerun(void *opts, const char *name, const char *v)
{
	(void)opts;
	return bad(name, "'%s': a --rerun report's command holds no --rerun", v);
}

#define O struct opts
static const struct cli_option options[] = {
	CLI_OPT_TEXT("Input (one of):\n"),
	CLI_OPT_STRING("--trace", "FILE", O, trace, "a trace file (optionally zstd-compressed)"),
	CLI_OPT_CALL("--format", "FMT", set_format,
		     "native|perf|lackey|damon|addr (default: detected)\n"
		     "FILE - reads standard input (one run: no --compare of\n"
		     "several designs, no --repeat)"),
	{.kind = CLI_REST, .name = "--workload", .arg = "NAME ARGS...", .rest = set_workload,
	 .help = "a synthetic workload; every word after NAME is its own\n"
		 "argument, so --workload comes last:"},
	{.kind = CLI_TEXT, .help_fn = cli_workload_help}, /* from the workloads' table */
	CLI_OPT_TEXT("      --zswap-writeback SIZE: between passes, after every N-th (default 1),\n"
		     "              memory.reclaim \"SIZE zswap_writeback_only\" on the task's memcg\n"
		     "      any workload: --keep  its tasks neither unmap nor exit at the end\n"),
	CLI_OPT_CALL("--workload-args", "\"NAME ARGS\"", set_workload_args, "the same as one string (may come anywhere)"),
	CLI_OPT_STRING("--check", "DIR|FILE", O, check,
		       "a recording of the kernel (swapsim-record's folder, or its\n"
		       "kernel.txt): replay its trace on the recorded machine (RAM,\n"
		       "memcg limit, swap devices, page-cluster, zswap, cgroup\n"
		       "version, the design of its kernel version; the options\n"
		       "below override each) and print the kernel's counters next\n"
		       "to the simulator's with the difference in percent (a table,\n"
		       "or JSON with --report json); exit 0 unless the run fails\n"
		       "(refused accesses are reported, not an error)"),
	CLI_OPT_FLAG("--accesses", O, accesses,
		     "with --check: replay the recording's access stream (every\n"
		     "load, store and fetch of its command under valgrind's lackey:\n"
		     "swapsim-record --accesses) in place of its perf trace"),
	CLI_OPT_TEXT("\nTrace reader (as swapsim-trace's; --trace only):\n"),
	CLI_OPT_U32("--pid", "N", O, rcfg.default_pid, 1, UINT32_MAX,
		    "pid/tid of records without one (lackey, addr; default 1)"),
	CLI_OPT_BITS("--addr-hex", O, rcfg.flags, SWS_TRACE_READ_ADDR_HEX, "addr format: bare digits are hex, not decimal"),
	CLI_OPT_BITS("--no-ifetch", O, rcfg.flags, SWS_TRACE_READ_NO_IFETCH, "drop instruction-fetch accesses"),
	CLI_OPT_BITS("--dirty-events", O, rcfg.flags, SWS_TRACE_READ_DIRTY_EVENTS,
		     "perf: the trace has writeback:writeback_dirty_folio; writes to a file\n"
		     "no write of which dirtied page cache (/dev/null, O_DIRECT) are no page\n"
		     "cache writes"),
	CLI_OPT_U32("--damon-sample-us", "N", O, rcfg.damon_sample_us, 1, UINT32_MAX,
		    "DAMON sampling interval (default 5000)"),
	CLI_OPT_U32("--damon-aggr-us", "N", O, rcfg.damon_aggr_us, 1, UINT32_MAX,
		    "DAMON aggregation interval (default 100000)"),
	CLI_OPT_U32("--damon-max-expansion", "N", O, rcfg.damon_max_expansion, 1, UINT32_MAX,
		    "DAMON records per input byte, at most (default 4096)"),
	CLI_OPT_U32("--max-line", "N", O, rcfg.max_line, 256, SWS_TRACE_MAX_LINE_LIMIT,
		    "longest accepted line in bytes (default 65536)"),
	CLI_OPT_TEXT("\nMachine:\n"),
	CLI_OPT_CALL("--ram", "SIZE", set_machine_size, "simulated RAM (default 1G)"),
	CLI_OPT_CALL("--mem-limit", "SIZE", set_machine_size, "memcg limit the workload runs in (default: none)"),
	CLI_OPT_CALL("--mem-high", "SIZE", set_mem_high,
		     "the memcg's memory.high: a charge above it reclaims the excess\n"
		     "(default: none; without --mem-limit, a memcg without limit)"),
	CLI_OPT_CALL("--mthp", "SIZE=always|madvise|inherit|never[,...]", set_mthp,
		     "anon mTHP sizes, as hugepages-<SIZE>kB/enabled: a first write\n"
		     "takes the largest enabled folio whose aligned block is empty;\n"
		     "madvise: only where the trace madvise()d MADV_HUGEPAGE;\n"
		     "inherit: as --thp (SIZE 8K..2M, a power of two; default: none)"),
	CLI_OPT_CHOICE("--thp", "never|always|madvise", O, thp, "never|always|madvise",
		       "transparent_hugepage/enabled, for the --mthp sizes set inherit\n"
		       "(default: never)"),
	CLI_OPT_CALL("--thp-defrag", "always|defer|defer+madvise|madvise|never", set_thp_defrag,
		     "transparent_hugepage/defrag: where a large folio's charge may\n"
		     "reclaim (always: everywhere; madvise, defer+madvise: under\n"
		     "MADV_HUGEPAGE; defer, never: nowhere); one that may not falls\n"
		     "back to the next smaller size (default: madvise)"),
	CLI_OPT_FLAG("--memcg-per-task", O, memcg_per_task,
		     "each process in a memcg of its own, each with --mem-limit\n"
		     "(a forked child stays in its parent's)"),
	CLI_OPT_CHOICE("--metadata-ram", "on|off", O, metadata_ram_off, "on|off",
		       "on (default): the design's swap metadata (as swapsim-overhead\n"
		       "counts it) and the zswap pool's pages take --ram, as kernel\n"
		       "memory does: they count in free memory and global pressure,\n"
		       "charged to no memcg; off: RAM holds user folios alone"),
	CLI_OPT_CHOICE("--memcg", "on|off", O, memcg_off, "on|off",
		     "off: the kernel booted with cgroup_disable=memory: no memcg\n"
		     "ids or tables in any design, nothing charged (not with\n"
		     "--mem-limit, --mem-high or --memcg-per-task; default on)"),
	CLI_OPT_CALL("--cgroup", "v1|v2", set_cgroup,
		     "the memcgs' cgroup version (default v2): v2 charges zswap's\n"
		     "compressed bytes to the memcg (they count against\n"
		     "--mem-limit, and the shrinker sees them); v1 charges nothing,\n"
		     "so the memcg shrinker finds nothing to write back"),
	CLI_OPT_CALL("--swap", "SPEC", set_swap,
		     "a swap device, repeatable; SPEC is key=value pairs:\n"
		     "size=SIZE,type=ssd|nvme|sata|hdd|zram|pmem,prio=N,file=PATH,\n"
		     "rlat=NS,wlat=NS,qd=N (the modelled clock's queue depth;\n"
		     "defaults ssd 32, sata 8, hdd 1); a file=PATH is created new: add the words\n"
		     "reuse (overwrite an existing file) and follow (PATH may be\n"
		     "a symbolic link) to allow those; a file the run created\n"
		     "is removed after it, a reused one stays; the word discard\n"
		     "discards freed clusters (swapon --discard=pages; off by\n"
		     "default; not hdd)\n"
		     "or an xswap device (needs --zswap and the st-p4 design):\n"
		     "type=xswap[,prio=N][,limit=PAGES]\n"
		     "tier=NAME puts the device in swap tier NAME (letters,\n"
		     "digits, _; at most 15; not xswap)\n"
		     "(default: one SSD of 2x RAM)"),
	CLI_OPT_STRING("--memcg-swap-tiers", "NAME[,NAME...]", O, memcg_swap_tiers,
		       "the swap tiers the memcg(s) may put pages on\n"
		       "(memory.swap.tiers.max; tiers of --swap ...,tier=NAME;\n"
		       "needs --mem-limit or --mem-high; default: every device;\n"
		       "chooses nothing under a vswap design, with a warning)"),
	{.kind = CLI_CALL, .name = "--backend", .arg = "D", .set = set_designs, .help_fn = backend_help},
	CLI_OPT_CALL("--compare", "D1,D2,...", set_designs,
		     "run the same input on each design, report side by side (a\n"
		     "design listed again is a control run: its column D#2)"),
	{.kind = CLI_CALL, .name = "--list-designs", .set = list_designs,
	 .help = "print every design's name, one a line, and exit"},
	CLI_OPT_CALL("--policy", "P", set_policy, "kernel|lru|clock reclaim policy (default kernel)"),
	CLI_OPT_U32("--swapoff", "N", O, swapoff, 1, SWS_REPLAY_MAX_SWAP,
		    "when the input ends, swap off the N-th --swap device with its\n"
		    "pages in use (try_to_unuse; vswap: through its reverse map)\n"
		    "and report its simulated time; pages that do not fit the\n"
		    "memcg or RAM make the OOM killer take tasks (exit 3)"),
	CLI_OPT_CALL("--page-cluster", "N", set_page_cluster, "vm.page-cluster (readahead 2^N pages; default 3)"),
	CLI_OPT_CALL("--content", "MIX", set_content,
		     "page contents: zero=W,same=W,index=W,text=W,random=W\n"
		     "(usemem: index, memhog: same; others default index)"),
	CLI_OPT_FLAG("--verify", O, verify, "check every page read back against the content model"),
	CLI_OPT_CALL("--read-fault", "data|zero", set_read_fault,
		     "a first read finds data that existed before the trace\n"
		     "(default: most traces cannot tell reads from writes)\n"
		     "or maps the shared zero page (the kernel's semantics)"),
	CLI_OPT_TEXT("\nzswap (any --zswap-* option turns it on):\n"),
	CLI_OPT_FLAG("--zswap", O, zswap, "a compressed pool in front of the swap devices"),
	CLI_OPT_CALL("--zswap-compressor", "C", set_zswap_compressor, "lz4 (default), zstd or zstd:LEVEL (1..19)"),
	CLI_OPT_U32("--zswap-max-pool-percent", "P", O, zc.max_pool_percent, 1, 100, "pool limit, % of RAM (default 20)"),
	CLI_OPT_U32("--zswap-accept-threshold", "P", O, zc.accept_threshold_percent, 1, 100,
		    "refill after a full pool below P% of it (default 90)"),
	CLI_OPT_CALL("--zswap-shrinker", "on|off", set_zswap_shrinker, "write back under memory pressure (default off)"),
	CLI_OPT_CALL("--zswap-scheme", "S", set_zswap_scheme,
		     "the shrinker's protection: both (default; also new): second\n"
		     "chance + disk-swapin protection (6.12+); second-chance: the\n"
		     "second chance, every swap-in counted (the first patch);\n"
		     "old: the protected size of 6.8-6.11, no second chance"),
	CLI_OPT_TEXT("\nTime (docs/modelled-time.md):\n"),
	CLI_OPT_CALL("--clock", "model|host", set_clock,
		     "model (default): modelled time on simulated CPUs, from a\n"
		     "cost table, with locks and device queues in virtual time:\n"
		     "every figure is the same on every run and every host;\n"
		     "host: the host's clock around the model's own code"),
	CLI_OPT_U32("--cpus", "N", O, cpus, 1, SWS_REPLAY_MAX_CPUS,
		    "simulated CPUs of the modelled clock, 1..254 (default: a\n"
		    "workload's tasks (kbuild: its jobs and make); --check: the\n"
		    "recorded machine's CPUs; a trace: 1); one host thread runs\n"
		    "them all"),
	CLI_OPT_CALL("--costs", "FILE", set_costs,
		     "the cost table (swapsim-calibrate's output; default: the\n"
		     "bundled table, docs/benchmarks.md)"),
	CLI_OPT_CALL("--sync-quantum", "NS", set_sync_quantum,
		     "how far past the earliest CPU another may run before it\n"
		     "yields at a lock (default 250; 0: exact virtual-time order)"),
	CLI_OPT_CALL("--order", "trace|cpu", set_order,
		     "a --trace's records: trace (default with --check): each\n"
		     "runs after every earlier record, whatever its CPU, so the\n"
		     "memory sees the recorded interleaving of the tasks; cpu\n"
		     "(default otherwise): each CPU runs its tasks' records in\n"
		     "order, the CPUs interleaving as their clocks say"),
	CLI_OPT_TEXT("\nRun and report:\n"),
	CLI_OPT_U32("--threads", "N", O, threads, 1, 128,
		    "host clock: worker threads standing for CPUs (default 1:\n"
		    "deterministic counters)"),
	CLI_OPT_U32("--repeat", "N", O, repeat, 1, MAX_REPEAT,
		    "run every compared configuration N times, interleaved\n"
		    "(A B A B ...); times are reported as mean and spread;\n"
		    "with the modelled clock repeat k adds k to the seeds\n"
		    "(the same seed gives the same figures)"),
	CLI_OPT_U32("--jobs", "N", O, jobs, 1, MAX_JOBS,
		    "modelled clock: up to N of the runs at once, each on a\n"
		    "host thread (default 1); the figures do not change, the\n"
		    "messages and workload lines come after the runs, in order\n"
		    "(not with --check: one run)"),
	CLI_OPT_CALL("--user-bandwidth", "SIZE", set_user_bandwidth,
		     "the user-time model: bytes per second a task touches memory\n"
		     "at (each page access costs 4 KiB of it; default 16000000000,\n"
		     "16 GB/s: 256 ns a page; suffixes are binary, 16G = 16 GiB/s)"),
	CLI_OPT_FLAG("--allow-errors", O, allow_errors, "exit 0 even when the model refused accesses (OOM kills)"),
	CLI_OPT_CALL("--seed", "S", set_seed, "seed of the content model and random workloads (default 1)"),
	CLI_OPT_CHOICE("--report", "table|json|csv|counters|mmtests|lkp", O, report, "table|json|csv|counters|mmtests|lkp",
		       "readable table (default: the command,\n"
		       "version, clock, input and machine first, a verdict per\n"
		       "compared design last), one JSON object {\"version\",\n"
		       "\"command\", \"argv\", \"clock\", \"setup\", \"runs\": [...]}, a CSV\n"
		       "time series (one row every --interval records), every\n"
		       "deterministic counter as \"key value\" lines per run (to\n"
		       "diff runs), mmtests' compare-kernels layout or lkp's\n"
		       "compare layout (%stddev %change %stddev)"),
	CLI_OPT_FLAG("--all-counters", O, all_counters,
		     "the table, mmtests and lkp show every counter (by default\n"
		     "those that are 0 in every run are left out)"),
	CLI_OPT_STRING("--json-out", "FILE", O, json_out, "also write the JSON report to FILE (table or json runs)"),
	CLI_OPT_CALL("--rerun", "REPORT.json", set_rerun,
		     "run again what a JSON report records (its \"argv\": the same\n"
		     "input, machine, designs, repeats and seeds); only --report,\n"
		     "--json-out, --quiet and --all-counters may go with it"),
	CLI_OPT_CALL("--interval", "K", set_interval, "records between CSV rows (default 100000)"),
	CLI_OPT_FLAG("--quiet", O, quiet, "no workload output lines, no progress bar"),
	CLI_OPT_HELP("this text"),
	CLI_OPT_VERSION("the program's version"),
	{0},
};
#undef O

/* After each option: the trace reader's and zswap's options say so, the
 * output options are marked for --check's equivalent command, and a value
 * option given again must say the same (--swap excepted; --backend and
 * --compare are one). */
static int seen_option(void *opts, const struct cli_option *opt, const char *v, int first, int last)
{
	struct opts *o = opts;
	if (opt->kind != CLI_CALL && opt->offset >= offsetof(struct opts, rcfg) &&
	    opt->offset < offsetof(struct opts, rcfg) + sizeof(o->rcfg))
		o->reader_opts = true;
	if (!strncmp(opt->name, "--zswap", 7))
		o->zswap = true;
	if (o->argv_drop && (!strcmp(opt->name, "--check") || !strcmp(opt->name, "--accesses") ||
			     !strcmp(opt->name, "--report") ||
			     !strcmp(opt->name, "--json-out") || !strcmp(opt->name, "--quiet")))
		for (int i = first; i <= last; i++)
			o->argv_drop[i] = true;
	return opt->arg ? check_once(o->seen, &o->nseen, opt->name, v) : 0;
}

static const struct cli_program program = {
	.name = "swapsim-replay",
	.usage = USAGE_HEAD,
	.tail = USAGE_TAIL,
	.options = options,
	.seen = seen_option,
};

static int parse_args(struct opts *o, int argc, char **argv)
{
	o->interval = 100000;
	o->seed = 1;
	return cli_options_parse(&program, o, argc, argv, 1);
}

/* Options of one clock given with the other. */
static int check_clock(const struct opts *o)
{
	if (o->clock == SWS_REPLAY_CLOCK_HOST && (o->cpus || o->costs_set || o->sync_quantum))
		return bad(o->cpus ? "--cpus" : o->costs_set ? "--costs" : "--sync-quantum",
			   "is the modelled clock's, and --clock host was given (its CPUs are --threads)");
	return 0;
}

/* ---- output ------------------------------------------------------------------------- */

static int write_file(void *ctx, const char *text, size_t len)
{
	return fwrite(text, 1, len, ctx) == len ? 0 : -1;
}

struct run_ctx {
	const struct opts *o;
	enum sws_backend backend;
	uint64_t total;        /* records expected (workload) or 0 */
	uint64_t trace_size;   /* bytes of the trace file */
	struct sws_trace_reader *reader;
	FILE *out, *err; /* the run's workload lines and messages */
	bool bar;
	int last_pct;
};

static void on_sample(void *ctx, const struct sws_replay_sample *s)
{
	struct run_ctx *rc = ctx;
	sws_replay_csv_row(rc->backend, s, write_file, stdout);
}

static int on_progress(void *ctx, uint64_t events)
{
	struct run_ctx *rc = ctx;
	if (rc->bar && !interrupted) {
		double f = 0;
		if (rc->total)
			f = (double)events / (double)rc->total;
		else if (rc->reader && rc->trace_size) {
			struct sws_trace_reader_stats st;
			sws_trace_reader_stats_get(rc->reader, &st);
			f = (double)st.bytes / (double)rc->trace_size;
		}
		if (f > 0.99)
			f = 0.99;
		int pct = (int)(f * 100);
		if (pct != rc->last_pct) {
			char bar[41];
			int fill = pct * 40 / 100;
			memset(bar, '#', (size_t)fill);
			memset(bar + fill, ' ', (size_t)(40 - fill));
			bar[40] = 0;
			fprintf(stderr, "\r%s [%s] %3d%% %llu records", sws_backend_name(rc->backend), bar,
				pct, (unsigned long long)events);
			rc->last_pct = pct;
		}
	}
	/* A CSV streamed into a full disk or a closed pipe: stop, nothing more can be told. */
	if (rc->o->report == 2 && ferror(stdout))
		return 1;
	return interrupted != 0;
}

static int trace_next(void *ctx, struct sws_trace_record *rec) { return sws_trace_reader_next(ctx, rec); }
static const char *trace_error(void *ctx) { return sws_trace_reader_error(ctx); }
static uint64_t trace_position(void *ctx) { return sws_trace_reader_position(ctx); }

/* The modelled clock's CPUs when --cpus is not given: one per task a workload
 * runs at once (kbuild: its jobs and make), one for a trace. */
static uint32_t default_cpus(const struct opts *o)
{
	if (!o->have_workload)
		return 1;
	uint32_t n = o->wl.nr_tasks ? o->wl.nr_tasks : 1;
	switch (o->wl.kind) {
	case SWS_WORKLOAD_MEMHOG:
		return 1;
	case SWS_WORKLOAD_BGSAVE:
		return 2;
	case SWS_WORKLOAD_KBUILD:
		return (o->wl.nr_tasks ? o->wl.nr_tasks : 8) + 1;
	default:
		return n;
	}
}

/* The replay's configuration of a run of @o on @backend with @seed; its
 * callbacks report to @rc, its errors go to @cerr. */
static void run_config(const struct opts *o, enum sws_backend backend, uint64_t seed, struct run_ctx *rc,
		       char *cerr, size_t cerrlen, struct sws_replay_config *cfg)
{
	*cfg = (struct sws_replay_config){
		.version = SWS_REPLAY_CONFIG_VERSION,
		.threads = o->threads,
		.clock = o->clock,
		.cpus = o->cpus ? o->cpus : default_cpus(o),
		.costs = o->costs_set ? &o->costs : NULL,
		.sync_quantum_ns = o->sync_quantum == 1 ? UINT64_MAX : o->sync_quantum ? o->sync_quantum - 1 : 0,
		.user_bandwidth = o->user_bandwidth,
		.backend = backend,
		.policy = o->policy,
		.ram_pages = o->ram,
		.mem_limit_pages = o->mem_limit,
		.page_cluster = o->page_cluster,
		.anon_orders = o->anon_orders | (o->thp == 1 ? o->anon_orders_inherit : 0),
		.anon_orders_madvise = o->anon_orders_madvise | (o->thp == 2 ? o->anon_orders_inherit : 0),
		.mem_high_pages = o->mem_high,
		.memcg_swap_tiers = o->memcg_swap_tiers,
		.thp_defrag = o->thp_defrag,
		.swapoff_device = o->swapoff,
		.flags = (o->verify ? SWS_REPLAY_VERIFY : 0) | (o->zswap ? SWS_REPLAY_ZSWAP : 0) |
			 (o->read_zero ? 0 : SWS_REPLAY_READ_POPULATES) |
			 (o->memcg_per_task ? SWS_REPLAY_MEMCG_PER_TASK : 0) | (o->memcg_off ? SWS_REPLAY_MEMCG_OFF : 0) |
			 (o->metadata_ram_off ? SWS_REPLAY_USER_RAM : 0) | (o->order == 1 ? SWS_REPLAY_TRACE_ORDER : 0),
		.zswap = o->zc,
		.seed = seed,
		.nr_swap = o->nswap,
		.progress = on_progress,
		.progress_every = 16384,
		.cb_ctx = rc,
		.errbuf = cerr,
		.errlen = cerrlen,
	};
	memcpy(cfg->swap, o->swap, sizeof(cfg->swap));
	if (o->content_set)
		memcpy(cfg->content_weight, o->content, sizeof(cfg->content_weight));
	if (o->report == 2) {
		cfg->sample = on_sample;
		cfg->sample_every = o->interval;
	}
}

/* The workload of @o with the run's @seed as the replay's source (its
 * content mix into @cfg unless --content). @return 0, or 2 said on stderr. */
static int open_workload(const struct opts *o, uint64_t seed, struct sws_replay_config *cfg, struct run_ctx *rc,
			 struct sws_workload **wl, struct sws_replay_source *src)
{
	struct sws_workload_config wc = o->wl;
	int e;
	wc.seed = (wc.seed ? wc.seed : o->seed) + (seed - o->seed);
	if ((e = sws_workload_create(&wc, wl))) {
		if (e == SWS_EINVAL && wc.kind == SWS_WORKLOAD_KBUILD) /* the rest was checked */
			fprintf(rc->err, "swapsim-replay: --workload: kbuild: its accesses (-a) over SIZE "
					"make more than %u jobs (processes): give fewer accesses, or a "
					"larger SIZE\n", SWS_WORKLOAD_MAX_JOBS);
		else
			fprintf(rc->err, "swapsim-replay: --workload: %s\n", sws_strerror(e));
		return 2;
	}
	if (!o->content_set)
		sws_workload_content(*wl, cfg->content_weight);
	*src = sws_workload_source(*wl);
	rc->total = sws_workload_total(*wl);
	return 0;
}

/* The trace of @o as the replay's source (@rc->reader). @return 0, or 1 said on stderr. */
static int open_trace(const struct opts *o, struct run_ctx *rc, struct sws_replay_source *src)
{
	struct sws_trace_reader_config tc = o->rcfg;
	struct stat st;
	char err[512];
	/* "-": standard input (the reader reads a stream front to back). */
	const char *path = strcmp(o->trace, "-") ? o->trace : "/dev/stdin";
	int e;
	tc.format = o->format;
	if ((e = sws_trace_reader_open(path, &tc, &rc->reader, err, sizeof(err)))) {
		if (!interrupted) /* else the signal made the open fail (EINTR) */
			fprintf(rc->err, "swapsim-replay: %s%s\n", *err ? err : sws_strerror(e),
				e == SWS_EINVAL ? " (a reader option out of range: see --help)" : "");
		return 1;
	}
	if (path == o->trace && !stat(o->trace, &st))
		rc->trace_size = (uint64_t)st.st_size;
	*src = (struct sws_replay_source){.next = trace_next, .error = trace_error, .ctx = rc->reader,
					  .position = trace_position,
					  .position_unit = sws_trace_reader_is_binary(rc->reader, NULL) ? "record" : "line"};
	return 0;
}

/* A run the input broke, with --format: the format the file reads as when
 * that is another, as a hint in @hint ("" when none). */
static void format_hint(const struct opts *o, const struct run_ctx *rc, char *hint, size_t len)
{
	*hint = 0;
	if (!rc->reader || o->format == SWS_TRACE_FORMAT_AUTO || !strcmp(o->trace, "-"))
		return;
	struct sws_trace_reader_config tc = o->rcfg;
	struct sws_trace_reader *probe = NULL;
	tc.format = SWS_TRACE_FORMAT_AUTO;
	if (!sws_trace_reader_open(o->trace, &tc, &probe, NULL, 0) && sws_trace_reader_format(probe) != o->format)
		snprintf(hint, len, " (it reads as %s: give --format %s, or leave --format out)",
			 sws_trace_format_name(sws_trace_reader_format(probe)),
			 sws_trace_format_name(sws_trace_reader_format(probe)));
	sws_trace_reader_close(probe);
}

/* What failed in a run that reported: device writes, pages read back
 * different. @return 1 when anything did, else 0. */
static int run_failures(const struct opts *o, enum sws_backend backend, const struct sws_replay_report *rep,
			FILE *err)
{
	int status = 0;
	for (uint32_t d = 0; d < rep->nr_devices; d++) {
		const struct sws_replay_device *dv = &rep->devices[d];
		if (!dv->write_errors)
			continue;
		fprintf(err, "swapsim-replay: swap device %u (%s): %llu page writes failed: %s%s\n", d + 1,
			o->swap[d].path ? o->swap[d].path : "no file", (unsigned long long)dv->write_errors,
			strerror(dv->write_errno),
			dv->write_failed ? "; the device took no new slots after that" : "");
		status = 1;
	}
	if (rep->verify_failures) {
		fprintf(err, "swapsim-replay: %s: %llu pages read back different\n",
			sws_backend_name(backend), (unsigned long long)rep->verify_failures);
		status = 1;
	}
	return status;
}

/* The workload's own lines (usemem's per-task lines, ...) of run @label, to
@rc's out (a table) or err (JSON and CSV keep stdout machine-readable). */
static void print_workload_lines(const struct opts *o, const struct run_ctx *rc, struct sws_workload *wl,
				 struct sws_replay *r, const char *label)
{
	FILE *f = o->report == 0 ? rc->out : rc->err;
	if (o->nbackends > 1 || o->repeat > 1)
		fprintf(f, "== %s%s\n", label, o->repeat > 1 ? " (first repeat)" : "");
	sws_workload_print_results(wl, r, write_file, f);
}

/* One run of the input on @backend; @lines: print the workload's own lines
 * (to @out; messages to @err). @return exit status contribution (0 or 1; 2
 * for a configuration error). */
static int run_one(const struct opts *o, enum sws_backend backend, const char *label,
		   struct sws_replay_report *rep, bool *have_rep, bool lines, unsigned repeat, FILE *out, FILE *err)
{
	/* The modelled clock gives the same figures for the same input: repeat k
	 * varies the seeds (seed + k); the host clock repeats to see its noise. */
	uint64_t seed = o->seed + (o->clock == SWS_REPLAY_CLOCK_MODEL ? repeat : 0);
	struct run_ctx rc = {.o = o, .backend = backend, .out = out, .err = err, .last_pct = -1};
	struct sws_workload *wl = NULL;
	struct sws_replay_source src;
	struct sws_replay_config cfg;
	struct sws_replay *r = NULL;
	char cerr[512];
	int status, e;

	*have_rep = false;
	run_config(o, backend, seed, &rc, cerr, sizeof(cerr), &cfg);
	status = o->have_workload ? open_workload(o, seed, &cfg, &rc, &wl, &src) : open_trace(o, &rc, &src);
	if (status)
		return status;
	rc.bar = !o->quiet && err == stderr && isatty(STDERR_FILENO);
	if ((e = sws_replay_create(&cfg, &r))) {
		fprintf(rc.err, "swapsim-replay: cannot build the machine (%s backend): %s\n",
			sws_backend_name(backend), *cerr ? cerr : sws_strerror(e));
		/* Every value was checked above (2 there): what fails here is the machine
		 * (a device's file: exists, not a regular file, cannot be created; memory). */
		status = 1;
		goto out;
	}
	e = sws_replay_run(r, &src);
	if (rc.bar)
		fprintf(stderr, "\r%*s\r", 80, "");
	/* What the trace's reader warned of (a lackey stream of several processes,
	 * a native v1 trace), once: from the first run of the first backend. */
	if (rc.reader && !repeat && backend == o->backends[0] && *sws_trace_reader_warning(rc.reader))
		fprintf(rc.err, "swapsim-replay: warning: %s\n", sws_trace_reader_warning(rc.reader));
	if (e) {
		/* The input is bad (a line the format does not read, a cut file): no
		 * report of it, only the message. */
		char hint[96];
		format_hint(o, &rc, hint, sizeof(hint));
		fprintf(rc.err, "swapsim-replay: %s%s\n", sws_replay_error(r), hint);
		status = 1;
		goto out; /* no report of a run the input broke */
	}
	sws_replay_report_get(r, rep);
	if (wl)
		sws_workload_figures(wl, r, rep);
	*have_rep = true;
	status = run_failures(o, backend, rep, rc.err);
	if (wl && !o->quiet && lines)
		print_workload_lines(o, &rc, wl, r, label);
out:
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
	sws_trace_reader_close(rc.reader);
	return status;
}

static void free_opts(struct opts *o)
{
	free(o->argv_drop);
	free(o->wl_args_copy);
	for (unsigned i = 0; i < SWS_REPLAY_MAX_SWAP; i++)
		free(o->swap_str[i]);
}

/* xswap devices need zswap and swap table phase IV: say so, or @return true. */
static bool xswap_usable(const struct opts *o)
{
	for (unsigned i = 0; i < o->nswap; i++) {
		if (o->swap[i].kind != SWS_REPLAY_SWAP_XSWAP)
			continue;
		if (!o->zswap) {
			fprintf(stderr, "swapsim-replay: --swap type=xswap: needs --zswap (its pages live "
					"in zswap) (try --help)\n");
			return false;
		}
		for (unsigned b = 0; b < o->nbackends; b++) {
			if (o->backends[b] != SWS_BACKEND_ST_P4) {
				fprintf(stderr, "swapsim-replay: --swap type=xswap: needs the st-p4 design, not %s "
						"(its per-slot arrays are static)\n", sws_backend_name(o->backends[b]));
				return false;
			}
		}
	}
	return true;
}

/* @return N when the @i-th compared design is the N-th listing of its design
 * (--compare st-p4,st-p4: 1, then 2). */
static unsigned design_nth(const struct opts *o, unsigned i)
{
	unsigned nth = 1;
	for (unsigned k = 0; k < i; k++)
		nth += o->backends[k] == o->backends[i];
	return nth;
}

/*
 * The name of the @i-th compared run: its design's, and "#N" after a design
 * listed before (--compare st-p4,st-p4: st-p4 and st-p4#2, a control whose
 * differences are the noise).
 */
static const char *run_label(const struct opts *o, unsigned i, char *buf, size_t len)
{
	unsigned nth = design_nth(o, i);
	if (nth == 1)
		snprintf(buf, len, "%s", sws_backend_name(o->backends[i]));
	else
		snprintf(buf, len, "%s#%u", sws_backend_name(o->backends[i]), nth);
	return buf;
}

/* The host decides the result when simulated CPUs outnumber real ones: say so. */
static void warn_cpus(const struct opts *o)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	unsigned cpus = (unsigned)CPU_COUNT(&set), threads = o->threads ? o->threads : 1;
	if (o->clock == SWS_REPLAY_CLOCK_HOST && threads > cpus)
		fprintf(stderr,
			"swapsim-replay: warning: --threads %u exceeds the %u CPUs this process may run on:\n"
			"  the host's scheduler, not the simulated design, decides the measured times\n",
			threads, cpus);
}

/*
 * No run writes over its own input: --json-out and standard output (a
 * regular file) must be none of the files the run reads (--trace, --check's
 * kernel.txt: @recording) or writes as a device (--swap file=). @return 1
 * (and the message) when one is.
 */
static int refuse_inputs(const struct opts *o, const char *recording)
{
	const char *in[3 + SWS_REPLAY_MAX_SWAP];
	char names[3 + SWS_REPLAY_MAX_SWAP][64];
	unsigned n = 0;
	in[n] = o->costs_path;
	snprintf(names[n++], sizeof(names[0]), "--costs file");
	in[n] = recording;
	snprintf(names[n++], sizeof(names[0]), "recording --check reads (kernel.txt)");
	in[n] = o->trace;
	snprintf(names[n++], sizeof(names[0]), "%s", recording ? "recorded trace --check replays" : "--trace input");
	for (unsigned i = 0; i < o->nswap; i++) {
		in[n] = o->swap[i].path;
		snprintf(names[n++], sizeof(names[0]), "file of --swap device %u", i + 1);
	}
	int k = o->json_out ? cli_output_is_input(o->json_out, in, n) : -1;
	if (k >= 0) {
		bad("--json-out", "'%s' is the %s (the report would replace it)", o->json_out, names[k]);
		return 1;
	}
	if ((k = cli_stdout_is_input(in, n)) >= 0) {
		fprintf(stderr, "swapsim-replay: standard output is the %s, %s: the report would write over it\n",
			names[k], in[k]);
		return 1;
	}
	return 0;
}

/* ---- --check: a recorded kernel run against its replay ---------------------------- */

/* @s as one shell word. */
static void put_word(FILE *f, const char *s)
{
	fputc(' ', f);
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=,:+-%@") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void put_opt(FILE *f, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put_opt(FILE *f, const char *name, const char *fmt, ...)
{
	char v[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	put_word(f, name);
	put_word(f, v);
}

/* A size in pages as an option value: M where whole, else K. */
static const char *pages_str(uint64_t pages, char *buf, size_t len)
{
	if (pages % 256)
		snprintf(buf, len, "%lluK", (unsigned long long)pages * 4);
	else
		snprintf(buf, len, "%lluM", (unsigned long long)pages / 256);
	return buf;
}

/* The recorded swap devices, when the command line gave none. */
static void merge_swap(struct opts *o, const struct check_machine *m, FILE *cmd)
{
	char b[48];
	if (o->nswap)
		return;
	o->nswap = m->nswap;
	memcpy(o->swap, m->swap, sizeof(o->swap));
	for (unsigned i = 0; i < m->nswap; i++) {
		char prio[24] = "";
		if (m->swap[i].prio >= 0)
			snprintf(prio, sizeof(prio), ",prio=%d", m->swap[i].prio);
		put_opt(cmd, "--swap", "size=%s,type=%s%s", pages_str(m->swap[i].pages, b, sizeof(b)),
			sws_replay_swap_kind_name(m->swap[i].kind), prio);
	}
}

/* The recorded trace, memory sizes, swap devices and page-cluster. */
static void merge_memory(struct opts *o, const struct check_recording *rec, const struct check_machine *m,
			 FILE *cmd)
{
	char b[48];
	if (!o->trace) {
		o->trace = rec->trace;
		put_opt(cmd, "--trace", "%s", rec->trace);
	}
	if (!o->ram && m->ram_pages) {
		o->ram = m->ram_pages;
		put_opt(cmd, "--ram", "%s", pages_str(o->ram, b, sizeof(b)));
	}
	if (!o->mem_limit && m->mem_limit_pages) {
		o->mem_limit = m->mem_limit_pages;
		put_opt(cmd, "--mem-limit", "%s", pages_str(o->mem_limit, b, sizeof(b)));
	}
	merge_swap(o, m, cmd);
	if (!o->page_cluster && m->page_cluster) {
		o->page_cluster = m->page_cluster;
		put_opt(cmd, "--page-cluster", "%u", m->page_cluster - 1);
	}
	if (!o->mem_high && m->mem_high_pages) {
		o->mem_high = m->mem_high_pages;
		put_opt(cmd, "--mem-high", "%s", pages_str(o->mem_high, b, sizeof(b)));
	}
}

/* The recorded mTHP sizes and CPUs (the modelled clock's). */
static void merge_mthp_cpus(struct opts *o, const struct check_machine *m, FILE *cmd)
{
	if (!o->mthp_set && (m->anon_orders || m->anon_orders_madvise)) {
		char list[320] = "";
		size_t at = 0;
		for (unsigned k = 1; k < SWS_NR_ORDERS; k++)
			if ((m->anon_orders | m->anon_orders_madvise) & 1u << k)
				at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%uK=%s", at ? "," : "", 4u << k,
						       m->anon_orders & 1u << k ? "always" : "madvise");
		o->anon_orders = m->anon_orders;
		o->anon_orders_madvise = m->anon_orders_madvise;
		put_opt(cmd, "--mthp", "%s", list);
	}
	if (!o->thp_defrag_set && m->thp_defrag) {
		o->thp_defrag = m->thp_defrag;
		put_opt(cmd, "--thp-defrag", "%s", sws_thp_defrag_name((enum sws_thp_defrag)m->thp_defrag));
	}
	if (!o->cpus && m->cpus && o->clock == SWS_REPLAY_CLOCK_MODEL) {
		o->cpus = m->cpus;
		put_opt(cmd, "--cpus", "%u", m->cpus);
	}
}

/* The kernel's design, unless --backend chose another (then @m says both). */
static void merge_design(struct opts *o, struct check_machine *m, FILE *cmd)
{
	if (!o->nbackends) {
		o->backends[0] = m->backend;
		o->nbackends = 1;
		put_opt(cmd, "--backend", "%s", sws_backend_name(m->backend));
	} else if (o->backends[0] != m->backend) {
		char why[sizeof(m->backend_why) + 64];
		snprintf(why, sizeof(why), "%s (--backend); the kernel's: %s", sws_backend_name(o->backends[0]),
			 m->backend_why);
		snprintf(m->backend_why, sizeof(m->backend_why), "%.*s", (int)sizeof(m->backend_why) - 1, why);
	}
}

/* zswap as recorded, when it was enabled, and the cgroup version. */
static void merge_zswap(struct opts *o, const struct check_machine *m, FILE *cmd)
{
	if (m->zswap) {
		if (!o->zswap)
			put_word(cmd, "--zswap");
		o->zswap = true;
		if (!o->zc.compressor) {
			snprintf(o->zcomp, sizeof(o->zcomp), "%s", m->zswap_compressor);
			o->zc.compressor = o->zcomp;
			put_opt(cmd, "--zswap-compressor", "%s", o->zcomp);
		}
		if (!o->zc.max_pool_percent && m->zswap_max_pool_percent) {
			o->zc.max_pool_percent = m->zswap_max_pool_percent;
			put_opt(cmd, "--zswap-max-pool-percent", "%u", o->zc.max_pool_percent);
		}
		if (!o->zc.accept_threshold_percent && m->zswap_accept_threshold) {
			o->zc.accept_threshold_percent = m->zswap_accept_threshold;
			put_opt(cmd, "--zswap-accept-threshold", "%u", o->zc.accept_threshold_percent);
		}
		if (!o->shrinker_set) {
			o->zc.flags = (o->zc.flags & ~SWS_ZSWAP_SHRINKER) | (m->zswap_shrinker ? SWS_ZSWAP_SHRINKER : 0);
			put_opt(cmd, "--zswap-shrinker", "%s", m->zswap_shrinker ? "on" : "off");
		}
	}
	if (!o->zc.cgroup && m->cgroup) {
		o->zc.cgroup = m->cgroup;
		if (o->zswap) /* it changes nothing else */
			put_opt(cmd, "--cgroup", "v%u", m->cgroup == SWS_ZSWAP_CGROUP_V1 ? 1 : 2);
	}
}

/*
 * The recorded machine into @o where the command line did not say otherwise,
 * and the equivalent swapsim-replay command into @cmd: the derived options,
 * then the user's own (less --check, --report, --json-out and --quiet).
 */
static void check_merge(struct opts *o, const struct check_recording *rec, struct check_machine *m,
			int argc, char **argv, FILE *cmd)
{
	fputs("swapsim-replay", cmd);
	merge_memory(o, rec, m, cmd);
	merge_mthp_cpus(o, m, cmd);
	merge_design(o, m, cmd);
	merge_zswap(o, m, cmd);
	/* An access stream tells reads from writes: a first read maps the zero page,
	 * as in the kernel (the perf trace's faults cannot tell; see --read-fault). */
	if (m->dirty_events && !(o->rcfg.flags & SWS_TRACE_READ_DIRTY_EVENTS)) {
		o->rcfg.flags |= SWS_TRACE_READ_DIRTY_EVENTS;
		put_word(cmd, "--dirty-events");
	}
	if (rec->accesses && !o->read_fault_set) {
		o->read_zero = true;
		put_word(cmd, "--read-fault");
		put_word(cmd, "zero");
	}
	if (!o->order) { /* the recorded reclaim follows the recorded interleaving */
		o->order = 1;
		put_word(cmd, "--order");
		put_word(cmd, "trace");
	}
	if (!o->allow_errors)
		put_word(cmd, "--allow-errors");
	o->allow_errors = true; /* refused accesses are information here */
	for (int i = 1; i < argc; i++)
		if (!o->argv_drop[i])
			put_word(cmd, argv[i]);
}

static int write_mem(void *ctx, const char *text, size_t len)
{
	return fwrite(text, 1, len, ctx) == len ? 0 : -1;
}

/* swapsim-replay --check: @return the exit status. */
static int run_check(struct opts *o, int argc, char **argv)
{
	struct check_recording rec;
	struct check_machine m;
	char err[CHECK_PATH_MAX + 256];
	char *cmd = NULL, *json = NULL;
	size_t cmd_len = 0, json_len = 0;
	int status;
	if (check_recording_load(o->check, o->trace, o->accesses, &rec, err, sizeof(err), &interrupted) ||
	    check_machine_get(&rec, &m, err, sizeof(err))) {
		if (interrupted)
			fprintf(stderr, "swapsim-replay: interrupted (%s) while --check read the recording: "
					"nothing to report\n", strsignal(interrupted));
		else
			fprintf(stderr, "swapsim-replay: --check: %s\n", err);
		check_recording_free(&rec);
		return 1;
	}
	FILE *cf = open_memstream(&cmd, &cmd_len);
	if (!cf) {
		check_recording_free(&rec);
		return 1;
	}
	check_merge(o, &rec, &m, argc, argv, cf);
	fclose(cf);
	if (refuse_inputs(o, rec.path)) {
		status = 2;
		goto out;
	}
	if (!xswap_usable(o)) {
		status = 2;
		goto out;
	}
	warn_cpus(o);
	struct sws_replay_report rep;
	bool have = false;
	status = run_one(o, o->backends[0], sws_backend_name(o->backends[0]), &rep, &have, false, 0, stdout, stderr);
	if (!have)
		goto out;
	if (interrupted)
		fprintf(stderr, "swapsim-replay: interrupted (%s); the comparison of what ran:\n", strsignal(interrupted));
	if (o->report == 1 || o->json_out) {
		const struct sws_replay_report *one = &rep;
		struct sws_replay_series series = {.repeats = &one, .nr_repeats = 1};
		FILE *jf = open_memstream(&json, &json_len);
		if (!jf || sws_replay_series_print(&series, 1, SWS_REPLAY_REPORT_JSON, write_mem, jf)) {
			if (jf)
				fclose(jf);
			fprintf(stderr, "swapsim-replay: out of memory for the JSON report\n");
			status = 1;
			goto out;
		}
		fclose(jf);
		while (json_len && (json[json_len - 1] == '\n' || json[json_len - 1] == ' '))
			json[--json_len] = 0;
	}
	if (check_print(&rec, &m, cmd, &rep, o->report == 1, json, stdout))
		status = status ? status : 1;
	if (o->json_out) { /* written whole or not at all (cli_output.h) */
		struct cli_output jo;
		int jrc = cli_output_open(&jo, o->json_out);
		if (!jrc && check_print(&rec, &m, cmd, &rep, true, json, jo.f)) {
			int e = errno;
			cli_output_abort(&jo);
			errno = e ? e : EIO;
			jrc = -1;
		} else if (!jrc) {
			jrc = cli_output_commit(&jo);
		}
		if (jrc) {
			fprintf(stderr, "swapsim-replay: --json-out %s: %s\n", o->json_out, cli_output_strerror(errno));
			status = status ? status : 1;
		}
	}
out:
	free(cmd);
	free(json);
	check_recording_free(&rec);
	return status;
}

/* ---- what a report says about itself, and --rerun ---------------------------------- */

/* The options that take no value (every other one takes one: --name VALUE or --name=VALUE). */
/* Does option @a take no value? (--rerun's reading of a command line) */
static bool flag_option(const char *a)
{
	const struct cli_option *o = cli_options_find(&program, a);
	return o && !o->arg;
}

/* @p made absolute against the working directory (malloc'ed). */
static char *abs_path(const char *p)
{
	char cwd[4096], *out;
	if (p[0] == '/' || !strcmp(p, "-") || !getcwd(cwd, sizeof(cwd)))
		return strdup(p);
	if (asprintf(&out, "%s/%s", cwd, p) < 0)
		return NULL;
	return out;
}

/* A --swap spec with its file=PATH made absolute (malloc'ed). */
static char *abs_swap_spec(const char *spec)
{
	const char *f = !strncmp(spec, "file=", 5) ? spec : strstr(spec, ",file=");
	if (!f)
		return strdup(spec);
	const char *path = f + (*f == ',' ? 6 : 5);
	size_t plen = strcspn(path, ",");
	char *rel = strndup(path, plen), *abs = rel ? abs_path(rel) : NULL, *out = NULL;
	if (abs && asprintf(&out, "%.*s%s%s", (int)(path - spec), spec, abs, path + plen) < 0)
		out = NULL;
	free(rel);
	free(abs);
	return out;
}

/* What the report says about the command that made it. */
struct self_description {
	char **words;  /* the command's words, paths absolute, NULL-terminated */
	char *command; /* the same as one shell line */
	char input[1024];
	char input_name[32];
};

/*
 * The command as a report records it: this program's name, then the words as
 * given, with the --trace file and --swap file=PATH made absolute so that the
 * command runs again from any directory (swapsim-replay --rerun).
 */
static void record_command(struct self_description *d, int argc, char **argv)
{
	size_t len = 0;
	d->words = calloc((size_t)argc + 1, sizeof(char *));
	if (!d->words)
		return;
	d->words[0] = strdup("swapsim-replay");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *prev = argv[i - 1];
		bool workload_tail = false;
		for (int k = 1; k < i; k++)
			workload_tail |= !strcmp(argv[k], "--workload");
		if (!workload_tail && !strncmp(a, "--trace=", 8)) {
			char *abs = abs_path(a + 8);
			if (abs && asprintf(&d->words[i], "--trace=%s", abs) < 0)
				d->words[i] = NULL;
			free(abs);
		} else if (!workload_tail && !strncmp(a, "--swap=", 7)) {
			char *abs = abs_swap_spec(a + 7);
			if (abs && asprintf(&d->words[i], "--swap=%s", abs) < 0)
				d->words[i] = NULL;
			free(abs);
		} else if (!workload_tail && !strcmp(prev, "--trace")) {
			d->words[i] = abs_path(a);
		} else if (!workload_tail && !strcmp(prev, "--swap")) {
			d->words[i] = abs_swap_spec(a);
		} else {
			d->words[i] = strdup(a);
		}
	}
	for (int i = 0; i < argc; i++)
		if (!d->words[i]) { /* out of memory: no command */
			for (int k = 0; k < argc; k++)
				free(d->words[k]);
			free(d->words);
			d->words = NULL;
			return;
		}
	FILE *f = open_memstream(&d->command, &len);
	if (!f)
		return;
	fputs(d->words[0], f);
	for (int i = 1; i < argc; i++)
		put_word(f, d->words[i]);
	fclose(f);
}

/* What was replayed, one line, and its short name. */
static void describe_input(struct self_description *d, const struct opts *o, int argc, char **argv)
{
	size_t at = 0;
	if (o->have_workload) {
		snprintf(d->input_name, sizeof(d->input_name), "%s", sws_workload_name(o->wl.kind));
		at = (size_t)snprintf(d->input, sizeof(d->input), "workload");
		for (int i = 1; i < argc && at < sizeof(d->input); i++) {
			if (!strcmp(argv[i], "--workload")) {
				for (int k = i + 1; k < argc && at < sizeof(d->input); k++)
					at += (size_t)snprintf(d->input + at, sizeof(d->input) - at, " %s", argv[k]);
				break;
			}
			if (!strncmp(argv[i], "--workload-args", 15)) {
				const char *v = argv[i][15] == '=' ? argv[i] + 16 : i + 1 < argc ? argv[i + 1] : "";
				at += (size_t)snprintf(d->input + at, sizeof(d->input) - at, " %s", v);
			}
		}
		/* the modelled clock's repeat k runs with seed + k (run_one) */
		unsigned long long seed = o->wl.seed ? o->wl.seed : o->seed;
		unsigned last = o->clock == SWS_REPLAY_CLOCK_MODEL && o->repeat > 1 ? o->repeat - 1 : 0;
		if (at < sizeof(d->input) && last)
			snprintf(d->input + at, sizeof(d->input) - at, " (seeds %llu to %llu, one a repeat)", seed,
				 seed + last);
		else if (at < sizeof(d->input))
			snprintf(d->input + at, sizeof(d->input) - at, " (seed %llu)", seed);
		return;
	}
	snprintf(d->input_name, sizeof(d->input_name), "trace");
	if (!strcmp(o->trace, "-")) {
		snprintf(d->input, sizeof(d->input), "trace - (standard input, %s)",
			 o->format ? sws_trace_format_name(o->format) : "format detected");
		return;
	}
	/* The format the reader takes the file as, and its size. */
	struct sws_trace_reader_config tc = o->rcfg;
	struct sws_trace_reader *rd = NULL;
	struct stat st;
	const char *fmt = o->format ? sws_trace_format_name(o->format) : "?";
	tc.format = o->format;
	if (!o->format && !sws_trace_reader_open(o->trace, &tc, &rd, NULL, 0))
		fmt = sws_trace_format_name(sws_trace_reader_format(rd));
	sws_trace_reader_close(rd);
	char *abs = abs_path(o->trace);
	snprintf(d->input, sizeof(d->input), "trace %s (%s, %lld bytes)", abs ? abs : o->trace, fmt,
		 stat(o->trace, &st) ? -1LL : (long long)st.st_size);
	free(abs);
}

static void describe_self(struct self_description *d, const struct opts *o, int argc, char **argv,
			  struct sws_replay_print_config *pc)
{
	memset(d, 0, sizeof(*d));
	record_command(d, argc, argv);
	describe_input(d, o, argc, argv);
	*pc = (struct sws_replay_print_config){
		.version = SWS_REPLAY_PRINT_CONFIG_VERSION,
		.flags = o->all_counters ? SWS_REPLAY_PRINT_ALL_COUNTERS : 0,
		.program = "swapsim-replay",
		.program_version = SWS_TOOLS_VERSION,
		.command = d->command,
		.argv = (const char *const *)d->words,
		.input = d->input,
		.input_name = d->input_name,
		.workload_seed = o->wl.seed ? o->wl.seed : o->seed,
		.has_workload_seed = o->have_workload,
	};
}

static void free_self(struct self_description *d)
{
	for (char **w = d->words; w && *w; w++)
		free(*w);
	free(d->words);
	free(d->command);
}

/* Each design's first refused records (its first repeat's), on stderr. */
static void print_refused(const struct opts *o, const struct sws_replay_report *const *ptrs, unsigned nrep)
{
	for (unsigned i = 0; i < o->nbackends; i++) {
		const struct sws_replay_report *rep = ptrs[(size_t)i * nrep];
		for (uint32_t k = 0; rep && k < rep->nr_refused; k++) {
			char label[32];
			fprintf(stderr, "swapsim-replay: %s: refused %s", run_label(o, i, label, sizeof(label)),
				o->trace ? o->trace : "");
			fputs(o->trace ? ": " : "", stderr);
			sws_replay_refused_print(rep, k, write_file, stderr);
		}
		if (rep && rep->errors > rep->nr_refused && rep->nr_refused == SWS_REPLAY_MAX_REFUSED)
			fprintf(stderr, "swapsim-replay: %s: (only the first %d refused records are named)\n",
				run_label(o, i, (char[32]){0}, 32), SWS_REPLAY_MAX_REFUSED);
	}
}

/* --jobs N with what needs one run at a time: say so. @return 0 or 2. */
static int jobs_refused(const struct opts *o)
{
	bool file = false;
	for (unsigned d = 0; d < o->nswap; d++)
		file = file || o->swap[d].path;
	const char *why = o->jobs <= 1			       ? NULL
			  : o->clock == SWS_REPLAY_CLOCK_HOST ? "--clock host (runs at once share the CPUs whose "
								"time it measures)"
			  : o->report == 2 ? "--report csv (its rows go out while the runs make them)"
			  : file	   ? "a --swap file= (every run makes and removes that file)"
					   : NULL;
	return why ? bad("--jobs", "%u: not with %s", o->jobs, why) : 0;
}

/* --check with an option it cannot go with: say so. @return 0 or 2. */
static int check_usage(const struct opts *o)
{
	const char *why = o->have_workload			? "--workload (the recording is the input)"
			  : o->report == 2			? "--report csv (a table, or --report json)"
			  : o->report == 3			? "--report counters (a table, or --report json)"
			  : o->report >= 4			? "--report mmtests or lkp (a table, or --report json)"
			  : o->nbackends > 1			? "--compare (one design: --backend)"
			  : o->repeat > 1			? "--repeat (one run)"
			  : o->jobs > 1				? "--jobs (one run)"
			  : o->trace && !strcmp(o->trace, "-") ? "--trace - (a file)"
			  : o->trace && o->accesses		? "--trace and --accesses together (one input)"
							       : NULL;
	if (why)
		fprintf(stderr, "swapsim-replay: --check: not with %s (try --help)\n", why);
	return why ? 2 : 0;
}

/* --memcg-swap-tiers: each name a --swap device's tier=, and a memcg to apply to.
 * @return 0, or 2 after a message. */
static int bad_swap_tiers(const struct opts *o)
{
	const char *n = "--memcg-swap-tiers", *s = o->memcg_swap_tiers;
	if (o->memcg_off || (!o->mem_limit && !o->mem_high))
		return bad(n, "needs a memcg: --mem-limit or --mem-high (and --memcg on)");
	if (!*s)
		return bad(n, "'': expected NAME[,NAME...]");
	while (*s) {
		size_t len = strcspn(s, ",");
		bool found = false;
		for (unsigned i = 0; i < o->nswap && !found; i++)
			found = o->swap[i].tier && strlen(o->swap[i].tier) == len && !strncmp(o->swap[i].tier, s, len);
		if (!found)
			return bad(n, "'%.*s': no --swap device has tier=%.*s", (int)len, s, (int)len, s);
		s += len + (s[len] == ',');
	}
	return 0;
}

/* The memcg options of a replay that do not go together, and warnings (a
 * limit above RAM; swap tiers under a design whose virtual device is in every
 * tier). @return 0 or 2 (said). */
static int check_memcg_usage(const struct opts *o)
{
	if (o->memcg_per_task && !o->mem_limit)
		return bad("--memcg-per-task", "needs --mem-limit (the limit of each task's memcg)");
	if (o->memcg_off && (o->mem_limit || o->mem_high || o->memcg_per_task))
		return bad("--memcg", "off: no memcgs, so no %s", o->mem_limit ? "--mem-limit" : o->mem_high ? "--mem-high"
													 : "--memcg-per-task");
	if (o->memcg_swap_tiers && bad_swap_tiers(o))
		return 2;
	for (unsigned i = 0; o->memcg_swap_tiers && i < o->nbackends; i++)
		if (design_nth(o, i) == 1 && cli_design_virtual(o->backends[i]))
			fprintf(stderr, "swapsim-replay: warning: --memcg-swap-tiers chooses nothing under %s: its "
					"virtual device is in every swap tier (pages go to the highest-priority device "
					"with room)\n", sws_design_name(o->backends[i]));
	if (o->mem_limit && o->ram && o->mem_limit > o->ram)
		fprintf(stderr, "swapsim-replay: warning: --mem-limit %s%s is above --ram %s%s: the limit never binds\n",
			o->mem_limit_arg ? o->mem_limit_arg : "", o->mem_limit_arg ? "" : "(recorded)",
			o->ram_arg ? o->ram_arg : "", o->ram_arg ? "" : "(recorded)");
	return 0;
}

/* The options of a replay (not --check) that do not go together, the
 * defaults they leave, and a warning (check_memcg_usage()). @return 0 or 2
 * (said). */
static int check_replay_usage(struct opts *o)
{
	if (o->accesses) {
		fprintf(stderr, "swapsim-replay: --accesses goes with --check (try --help)\n");
		return 2;
	}
	if (!!o->trace == o->have_workload) {
		fprintf(stderr, "swapsim-replay: give exactly one of --trace FILE or --workload NAME "
				"(try --help)\n");
		return 2;
	}
	if (!o->nbackends) {
		o->backends[0] = SWS_BACKEND_SWAP_TABLE;
		o->nbackends = 1;
	}
	if (o->reader_opts && !o->trace) {
		fprintf(stderr, "swapsim-replay: the trace reader options (--pid, --addr-hex, --no-ifetch, "
				"--dirty-events, --damon-*, --max-line) read a --trace; --workload has none (try --help)\n");
		return 2;
	}
	if (o->order && !o->trace) {
		fprintf(stderr, "swapsim-replay: --order orders a --trace's records; a --workload's tasks each "
				"run their own stream (try --help)\n");
		return 2;
	}
	if (refuse_inputs(o, NULL))
		return 2;
	if (o->trace && !strcmp(o->trace, "-") && (o->nbackends > 1 || o->repeat > 1)) {
		char what[64];
		if (o->nbackends > 1)
			snprintf(what, sizeof(what), "no --compare of %u designs", o->nbackends);
		else
			snprintf(what, sizeof(what), "no --repeat %u", o->repeat);
		fprintf(stderr, "swapsim-replay: --trace -: standard input can be read once, so one run: "
				"%s (save the trace to a file) (try --help)\n", what);
		return 2;
	}
	if (!xswap_usable(o))
		return 2;
	if (jobs_refused(o))
		return 2;
	if (o->swapoff > (o->nswap ? o->nswap : 1) ||
	    (o->swapoff && o->nswap && o->swap[o->swapoff - 1].kind == SWS_REPLAY_SWAP_XSWAP))
		return bad("--swapoff", "%u: not one of the %u --swap devices (an xswap one goes with its "
					"own interface)", o->swapoff, o->nswap ? o->nswap : 1);
	return check_memcg_usage(o);
}

/* The runs of a replay: every configuration once per round, rounds repeated
 * (A B A B ...); report [i * nrep + k] is configuration i's round k. */
struct rounds {
	unsigned nrep, ran; /* rounds asked for, rounds run (the last in part when a signal stopped it) */
	struct sws_replay_report *reps;
	const struct sws_replay_report **ptrs; /* the reports of runs that reported, else NULL */
	uint64_t errors, swapoff_kills;
};

/* The runs of the rounds (run w is configuration w % nbackends of round
 * w / nbackends: A B A B ...), --jobs of them at once. */
struct jobs {
	const struct opts *o;
	struct rounds *r;
	pthread_mutex_t lock;
	unsigned next, n; /* the next run to start, the runs */
	bool stop;        /* a run failed to start: start no more */
	struct job {
		int status;
		bool ran, have;
		char *out, *err; /* what it printed (--jobs > 1) */
		size_t out_len, err_len;
	} *job;
};

/* Run @w of @js, printing to @out and @err. */
static void run_job(struct jobs *js, unsigned w, FILE *out, FILE *err)
{
	const struct opts *o = js->o;
	unsigned i = w % o->nbackends, k = w / o->nbackends;
	struct job *j = &js->job[w];
	char label[32];
	j->status = run_one(o, o->backends[i], run_label(o, i, label, sizeof(label)),
			    &js->r->reps[(size_t)i * js->r->nrep + k], &j->have, k == 0, k, out, err);
	j->ran = true;
}

/* A --jobs worker: runs until none is left, one failed to start, or a signal.
 * Each run prints into its own memory files, shown in order at the end. */
static void *job_worker(void *arg)
{
	struct jobs *js = arg;
	for (;;) {
		pthread_mutex_lock(&js->lock);
		unsigned w = js->stop || interrupted ? js->n : js->next++;
		pthread_mutex_unlock(&js->lock);
		if (w >= js->n)
			return NULL;
		struct job *j = &js->job[w];
		FILE *out = open_memstream(&j->out, &j->out_len), *err = open_memstream(&j->err, &j->err_len);
		if (!out || !err) {
			if (out)
				fclose(out);
			if (err)
				fclose(err);
			j->status = 1; /* said when shown */
			j->ran = true;
		} else {
			run_job(js, w, out, err);
			fclose(out);
			fclose(err);
		}
		if (j->status == 2 || !j->have) {
			pthread_mutex_lock(&js->lock);
			js->stop = true;
			pthread_mutex_unlock(&js->lock);
		}
	}
}

/* Run the rounds until done, a run fails to start, or a signal: one run at
 * a time, or --jobs of them on host threads (the modelled clock's figures
 * do not depend on the host). @return 0, 1 (a run failed) or 2 (a
 * configuration error: nothing is reported). */
static int run_rounds(const struct opts *o, struct rounds *r)
{
	struct jobs js = {.o = o, .r = r, .n = r->nrep * o->nbackends};
	unsigned nthreads = o->jobs < js.n ? o->jobs : js.n;
	pthread_t tid[MAX_JOBS];
	unsigned started = 0;
	int status = 0;
	js.job = calloc(js.n, sizeof(*js.job));
	if (!js.job) {
		fprintf(stderr, "swapsim-replay: out of memory for %u runs\n", js.n);
		return 1;
	}
	if (nthreads <= 1) {
		for (unsigned w = 0; w < js.n && !interrupted; w++) {
			run_job(&js, w, stdout, stderr);
			if (js.job[w].status == 2 || !js.job[w].have)
				break;
		}
	} else {
		pthread_mutex_init(&js.lock, NULL);
		while (started < nthreads && !pthread_create(&tid[started], NULL, job_worker, &js))
			started++;
		if (!started) /* no thread to be had: run them here */
			job_worker(&js);
		for (unsigned t = 0; t < started; t++)
			pthread_join(tid[t], NULL);
		pthread_mutex_destroy(&js.lock);
	}
	/* What ran, in order: a run that did not start ends the rounds there. */
	for (unsigned w = 0; w < js.n && js.job[w].ran; w++) {
		struct job *j = &js.job[w];
		unsigned i = w % o->nbackends, k = w / o->nbackends;
		struct sws_replay_report *rep = &r->reps[(size_t)i * r->nrep + k];
		if (nthreads > 1) {
			if (!j->out || !j->err)
				fprintf(stderr, "swapsim-replay: --jobs: no memory for run %u's output\n", w + 1);
			fwrite(j->err ? j->err : "", 1, j->err_len, stderr);
			fwrite(j->out ? j->out : "", 1, j->out_len, stdout);
		}
		if (j->status == 2) {
			status = 2;
			break;
		}
		if (j->status)
			status = 1;
		if (!j->have) /* a run that did not start: report nothing of that round */
			break;
		r->ptrs[(size_t)i * r->nrep + k] = rep;
		r->errors += rep->errors;
		r->swapoff_kills += rep->time.swapoff_oom_kills;
		if (i == o->nbackends - 1 || interrupted) /* a signal: the round as far as it ran */
			r->ran = k + 1;
	}
	for (unsigned w = 0; w < js.n; w++) {
		free(js.job[w].out);
		free(js.job[w].err);
	}
	free(js.job);
	return status;
}

/* --json-out FILE: the report as JSON, written whole or not at all
 * (cli_output.h). @return 0, or 1 said on stderr. */
static int write_json_out(const char *path, struct sws_replay_print_config *pc,
			  const struct sws_replay_series *series, unsigned n)
{
	struct cli_output jo;
	int jrc = cli_output_open(&jo, path);
	if (!jrc) {
		pc->format = SWS_REPLAY_REPORT_JSON;
		if (sws_replay_print(pc, series, n, write_file, jo.f)) {
			int e = errno;
			cli_output_abort(&jo); /* the file keeps what it had */
			errno = e ? e : EIO;
			jrc = -1;
		} else {
			jrc = cli_output_commit(&jo);
		}
	}
	if (!jrc)
		return 0;
	fprintf(stderr, "swapsim-replay: --json-out %s: %s\n", path, cli_output_strerror(errno));
	return 1;
}

/* The report of the rounds that ran (not with --report csv: its rows went
 * out as they came), and --json-out. @return 0, or 1 when --json-out failed. */
static int print_reports(const struct opts *o, int argc, char **argv, const struct rounds *r)
{
	static const enum sws_replay_format formats[] = {
		SWS_REPLAY_REPORT_TABLE, SWS_REPLAY_REPORT_JSON,    SWS_REPLAY_REPORT_TABLE,
		SWS_REPLAY_REPORT_COUNTERS, SWS_REPLAY_REPORT_MMTESTS, SWS_REPLAY_REPORT_LKP};
	struct sws_replay_series series[CLI_MAX_RUNS];
	char labels[CLI_MAX_RUNS][32];
	struct sws_replay_print_config pc;
	struct self_description self;
	int status = 0;
	if (!r->ran || o->report == 2)
		return 0;
	/* Each configuration's runs that reported: all r->ran rounds, fewer (or
	 * none) in a last round a signal stopped part way. */
	unsigned n = 0;
	for (unsigned i = 0; i < o->nbackends; i++) {
		const struct sws_replay_report **reps = &r->ptrs[(size_t)i * r->nrep];
		unsigned k = 0;
		while (k < r->ran && reps[k])
			k++;
		if (!k)
			continue;
		series[n] = (struct sws_replay_series){.repeats = reps, .nr_repeats = k,
						       .label = run_label(o, i, labels[n], sizeof(labels[n]))};
		n++;
	}
	describe_self(&self, o, argc, argv, &pc);
	pc.format = formats[o->report];
	sws_replay_print(&pc, series, n, write_file, stdout);
	if (o->json_out)
		status = write_json_out(o->json_out, &pc, series, n);
	free_self(&self);
	return status;
}

/* A signal stopped the replay: say what is reported. */
static void say_interrupted(const struct opts *o, unsigned ran)
{
	if (interrupted && ran)
		fprintf(stderr, "swapsim-replay: interrupted (%s); summary of what ran:\n", strsignal(interrupted));
	else if (interrupted)
		fprintf(stderr, "swapsim-replay: interrupted (%s) before the first run began%s: nothing to report\n",
			strsignal(interrupted), o->trace ? " (while its trace was opened)" : "");
}

/* Tasks the OOM killer took during --swapoff, and accesses the model
 * refused: said, and exit status 3 unless --allow-errors. @return the status. */
static int errors_status(const struct opts *o, const struct rounds *r, int status)
{
	if (r->swapoff_kills && !status) {
		fprintf(stderr, "swapsim-replay: --swapoff %u: the OOM killer killed %llu task%s while the device "
				"was swapped off (the pages it brought back did not fit the memcg or RAM; "
				"oom_kill)%s\n", o->swapoff, (unsigned long long)r->swapoff_kills,
			r->swapoff_kills == 1 ? "" : "s", o->allow_errors ? "; allowed (--allow-errors)" : "");
		if (!o->allow_errors)
			status = EXIT_ERRORS;
	}
	if (r->errors && status != 1 && status != 2) {
		print_refused(o, r->ptrs, r->nrep);
		fprintf(stderr, "swapsim-replay: the model refused %llu accesses or records (first error: see "
				"first_error; OOM kills: oom_kill)%s\n",
			(unsigned long long)r->errors, o->allow_errors ? "; allowed (--allow-errors)" : "");
		if (!o->allow_errors)
			status = EXIT_ERRORS;
	}
	return status;
}

/* A replay (not --check): the rounds, their report. @return the exit status. */
static int replay(struct opts *o, int argc, char **argv)
{
	catch_stop_signals();
	warn_cpus(o);
	/* A backing file a run creates is scratch: the library removes it at the end of
	 * that run (sws_replay_destroy, or a failed sws_replay_create), and only if the
	 * path still names the file it created. Nothing here removes anything. */
	struct rounds r = {.nrep = o->repeat ? o->repeat : 1};
	r.reps = calloc((size_t)r.nrep * o->nbackends, sizeof(*r.reps));
	r.ptrs = calloc((size_t)r.nrep * o->nbackends, sizeof(*r.ptrs));
	int status = 1;
	if (!r.reps || !r.ptrs) {
		fprintf(stderr, "swapsim-replay: out of memory for %u reports\n", r.nrep * o->nbackends);
		goto out;
	}
	if (o->report == 2)
		sws_replay_csv_header(write_file, stdout);
	status = run_rounds(o, &r);
	if (status == 2)
		goto out;
	say_interrupted(o, r.ran);
	if (print_reports(o, argc, argv, &r))
		status = status ? status : 1;
	status = errors_status(o, &r, status);
out:
	free(r.reps);
	free(r.ptrs);
	return status;
}

static int replay_main(int argc, char **argv)
{
	struct opts o;
	memset(&o, 0, sizeof(o));
	o.argv_drop = calloc((size_t)argc + 1, sizeof(bool));
	int rc = o.argv_drop ? parse_args(&o, argc, argv) : 1;
	if (!rc)
		rc = check_clock(&o) ? 2 : 0;
	if (rc) {
		free_opts(&o);
		return rc;
	}
	if (o.check) {
		rc = check_usage(&o);
		if (!rc) {
			catch_stop_signals(); /* and compare what ran */
			rc = run_check(&o, argc, argv);
		}
	} else {
		rc = check_replay_usage(&o);
		if (!rc)
			rc = replay(&o, argc, argv);
	}
	free_opts(&o);
	fflush(stdout);
	return interrupted ? 128 + interrupted : rc;
}

int main(int argc, char **argv)
{
	char **rerun_words = NULL, **args = argv;
	int rc = rerun_expand(&argc, &args, &rerun_words, flag_option);
	if (rc)
		return rc;
	/* Every report goes to standard output: a write that failed is an error. */
	cli_stdout_init();
	rc = cli_stdout_close("swapsim-replay", replay_main(argc, args));
	if (args != argv)
		free(args);
	rerun_free(rerun_words);
	return rc;
}
