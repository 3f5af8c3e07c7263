/*
 * test_report.c - what a printed replay report says about itself and how it
 * compares (lib/replay/report.c, report_compare.c), on reports made by hand so
 * that every figure is known: the table's five header lines, the counters left
 * out, the verdicts, the JSON's first keys, the mmtests and lkp rows with
 * values worked out by hand; the setup a real replay reports; the errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define STR2(x) #x
#define STR(x) STR2(x)

/* The line of @text that starts with @prefix (copied into @line), or NULL. */
static const char *line_of(const char *text, const char *prefix, char *line, size_t len)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, prefix, strlen(prefix))) {
			size_t n = strcspn(p, "\n");
			snprintf(line, len, "%.*s", (int)n, p);
			return line;
		}
	}
	return NULL;
}

/* The line of @text that starts with @prefix is @want. */
static void assert_line(const char *text, const char *prefix, const char *want)
{
	char line[512];
	assert_non_null(line_of(text, prefix, line, sizeof(line)));
	assert_string_equal(line, want);
}

/* A run of @backend on the machine below: @elapsed and @sys seconds, @meta bytes of
 * metadata at the peak, 4 tasks. */
static struct sws_replay_report mk(enum sws_backend backend, double elapsed, double sys, uint64_t meta)
{
	struct sws_replay_report r;
	memset(&r, 0, sizeof(r));
	r.backend = backend;
	r.threads = 1;
	r.nr_tasks = 4;
	r.time.elapsed_ns = (uint64_t)(elapsed * 1e9 + 0.5);
	r.time.sys_ns = (uint64_t)(sys * 1e9 + 0.5);
	r.peaks.static_bytes = meta;
	r.setup = (struct sws_replay_setup){
		.clock = SWS_REPLAY_CLOCK_HOST,
		.cpus = 1,
		.ram_pages = 262144,
		.mem_limit_pages = 131072,
		.cgroup = 2,
		.page_cluster = 3,
		.seed = 1,
		.user_bandwidth = SWS_REPLAY_USER_BANDWIDTH,
		.nr_swap = 1,
		.swap = {{.pages = 524288, .kind = SWS_REPLAY_SWAP_PMEM, .prio = -1, .read_ns = 1000, .write_ns = 2000}},
	};
	return r;
}

static char *print(const struct sws_replay_print_config *pc, const struct sws_replay_series *s, unsigned n)
{
	struct sws_test_buf b = {0};
	assert_sws(0, sws_replay_print(pc, s, n, sws_test_buf_write, &b));
	return b.p;
}

/* The table starts with the command, version, clock, input and machine. */
static void test_header(void **state)
{
	(void)state;
	struct sws_replay_report a = mk(SWS_BACKEND_XARRAY, 1, 0.5, 1024);
	const struct sws_replay_report *pa = &a;
	struct sws_replay_series s = {.repeats = &pa, .nr_repeats = 1};
	struct sws_replay_print_config pc = {.program = "prog", .program_version = "9.9",
					     .command = "prog --ram 1G 'a b'", .input = "workload usemem 1G (seed 1)"};
	char *t = print(&pc, &s, 1);
	const char *want =
		"command: prog --ram 1G 'a b'\n"
		"version: prog 9.9 (libswapsim " STR(SWS_VERSION_MAJOR) "." STR(SWS_VERSION_MINOR) "." STR(
			SWS_VERSION_PATCH) ")\n"
		"clock:   host (times are this host's CPU time measured around the model's kernel paths, plus "
		"modelled device and user time)\n"
		"input:   workload usemem 1G (seed 1)\n"
		"machine: RAM 1G, memcg 512M (cgroup v2), swap pmem 2G (1/2 us read/write), page-cluster 3, "
		"zswap off, 1 CPU, policy kernel, seed 1\n";
	assert_true(!strncmp(t, want, strlen(want)));
	free(t);
	/* Nothing given: the library's version, and it says what it was not told. */
	struct sws_replay_print_config zero = {0};
	a.setup.flags = SWS_REPLAY_ZSWAP | SWS_REPLAY_MEMCG_PER_TASK;
	snprintf(a.setup.zswap_compressor, sizeof(a.setup.zswap_compressor), "zstd");
	a.setup.zswap_max_pool_percent = 20;
	a.setup.zswap_accept_threshold_percent = 90;
	a.setup.zswap_flags = SWS_ZSWAP_SHRINKER | SWS_ZSWAP_OLD_SCHEME;
	a.setup.swap[0].prio = 5;
	a.setup.swap[0].read_ns = 1500;
	a.setup.anon_orders = 1u << 4 | 1u << 9;
	a.setup.mem_high_pages = 65536;
	t = print(&zero, &s, 1);
	assert_true(!strncmp(t, "command: (not given)\nversion: libswapsim ", 41));
	assert_line(t, "input:", "input:   (not given)");
	assert_line(t, "machine:", "machine: RAM 1G, memcg 512M high 256M per task (cgroup v2), swap pmem 2G (1.5/2 us "
				  "read/write) prio 5, page-cluster 3, mTHP 2048K 64K, zswap zstd (max_pool_percent 20, "
				  "accept_threshold 90, shrinker on, scheme old), 1 CPU, policy kernel, seed 1");
	free(t);
	zero.format = SWS_REPLAY_REPORT_JSON;
	t = print(&zero, &s, 1);
	assert_non_null(strstr(t, "\"page_cluster\":3,\"mthp_kb\":[2048,64],\"mthp_madvise_kb\":[],\"zswap\""));
	assert_non_null(strstr(t, "\"memcg_limit_bytes\":536870912,\"memcg_high_bytes\":268435456,"));
	free(t);
}

/* Repeats with seeds of their own (the modelled clock's): the machine line and the
 * lkp header name every repeat's, the JSON has each repeat's "seed". */
static void test_seeds_of_repeats(void **state)
{
	(void)state;
	struct sws_replay_report r[3] = {mk(SWS_BACKEND_XARRAY, 1, 0.5, 1024), mk(SWS_BACKEND_XARRAY, 1, 0.5, 1024),
					 mk(SWS_BACKEND_XARRAY, 1, 0.5, 1024)};
	const struct sws_replay_report *pr[3] = {&r[0], &r[1], &r[2]};
	struct sws_replay_series s = {.repeats = pr, .nr_repeats = 3};
	for (unsigned k = 0; k < 3; k++)
		r[k].setup.seed = 3 + k;
	struct sws_replay_print_config pc = {0};
	char *t = print(&pc, &s, 1), line[512];
	const char *tail = ", 1 CPU, policy kernel, seeds 3 to 5 (one a repeat)";
	assert_non_null(line_of(t, "machine:", line, sizeof(line)));
	assert_string_equal(line + strlen(line) - strlen(tail), tail);
	free(t);
	pc.format = SWS_REPLAY_REPORT_LKP;
	t = print(&pc, &s, 1);
	assert_non_null(strstr(t, "policy kernel, seeds 3 to 5 (one a repeat)\n"));
	free(t);
	pc.format = SWS_REPLAY_REPORT_JSON;
	t = print(&pc, &s, 1);
	const char *p = t;
	for (unsigned k = 0; k < 3; k++) {
		char want[32];
		snprintf(want, sizeof(want), "\"seed\":%u,", 3 + k);
		assert_non_null(p = strstr(p, want));
	}
	assert_non_null(strstr(t, "\"seeds\":{\"content\":3,")); /* setup: the first repeat's */
	free(t);
	/* Seeds that do not follow each other are listed. */
	r[2].setup.seed = 9;
	pc.format = SWS_REPLAY_REPORT_TABLE;
	t = print(&pc, &s, 1);
	tail = ", policy kernel, seeds (one a repeat) 3, 4, 9";
	assert_non_null(line_of(t, "machine:", line, sizeof(line)));
	assert_string_equal(line + strlen(line) - strlen(tail), tail);
	free(t);
}

/* Counters 0 in every run are left out and counted; SWS_REPLAY_PRINT_ALL_COUNTERS shows them. */
static void test_counters_left_out(void **state)
{
	(void)state;
	struct sws_replay_report a = mk(SWS_BACKEND_XARRAY, 1, 0.5, 1024), b = mk(SWS_BACKEND_ST_P1, 1, 0.5, 1024);
	a.mm.counters[SWS_MM_pgfault] = 5;
	b.swap.counters[SWS_CTR_swap_dup_total] = 7;
	const struct sws_replay_report *pa = &a, *pb = &b;
	struct sws_replay_series s[2] = {{.repeats = &pa, .nr_repeats = 1}, {.repeats = &pb, .nr_repeats = 1}};
	struct sws_replay_print_config pc = {0};
	char *t = print(&pc, s, 2), line[256], want[256];
	assert_non_null(line_of(t, "pgfault ", line, sizeof(line)));
	assert_non_null(line_of(t, "swap_dup_total ", line, sizeof(line)));
	assert_null(line_of(t, "pswpin ", line, sizeof(line)));
	assert_null(line_of(t, "swpout[0] ", line, sizeof(line)));
	/* every other row is 0: mm counters, the three anon fault rows of orders 1 to 9, both
	 * per-order swap-out rows of each order and the three swap-in rows of orders 1 to 8,
	 * the core's (less the three store counters, said apart without a store) */
	unsigned hidden = SWS_MM_NR_COUNTERS - 1 + 3 * (SWS_NR_ORDERS - 1) + 2 * SWS_NR_ORDERS +
			  3 * (SWS_NR_ORDERS - 2) + SWS_NR_COUNTERS - 3 - 1;
	snprintf(want, sizeof(want), "(%u counters are 0 in every run and left out: --all-counters shows them)",
		 hidden);
	assert_line(t, "(", want);
	free(t);
	pc.flags = SWS_REPLAY_PRINT_ALL_COUNTERS;
	t = print(&pc, s, 2);
	assert_non_null(line_of(t, "pswpin ", line, sizeof(line)));
	assert_non_null(line_of(t, "swpout_fallback[9] ", line, sizeof(line)));
	assert_non_null(line_of(t, "swpin_fallback_charge[8] ", line, sizeof(line)));
	assert_null(line_of(t, "swpin_fallback_charge[9] ", line, sizeof(line)));
	assert_null(strstr(t, "left out"));
	free(t);
}

/* One verdict line per configuration after the first, worked out by hand. */
static void test_verdicts(void **state)
{
	(void)state;
	char line[512];
	/* One run each: every difference counts. */
	struct sws_replay_report a = mk(SWS_BACKEND_XARRAY, 1.0, 0.5, 1024), b = mk(SWS_BACKEND_ST_P1, 0.9, 0.6, 2048),
				 c = mk(SWS_BACKEND_VSWAP, 1.0, 0.5, 1024);
	const struct sws_replay_report *pa = &a, *pb = &b, *pc_ = &c;
	struct sws_replay_series s[3] = {{.repeats = &pa, .nr_repeats = 1},
					 {.repeats = &pb, .nr_repeats = 1},
					 {.repeats = &pc_, .nr_repeats = 1}};
	struct sws_replay_print_config pc = {0};
	char *t = print(&pc, s, 3);
	assert_line(t, "verdict: st-p1", "verdict: st-p1 against xarray: faster by 10.00%, more system time by 20.00%, "
				  "more metadata memory by 100.00% (at the peak 2.0 KiB against 1.0 KiB)");
	assert_line(t, "verdict: vswap", "verdict: vswap against xarray: equal elapsed time (+0.00%), equal system time "
				  "(+0.00%), equal metadata memory (+0.00%, at the peak 1.0 KiB against 1.0 KiB)");
	assert_null(line_of(t, "verdict: xarray", line, sizeof(line)));
	/* the table's last line */
	const char *last = "\nverdict: vswap against xarray: equal elapsed time (+0.00%), equal system time "
			   "(+0.00%), equal metadata memory (+0.00%, at the peak 1.0 KiB against 1.0 KiB)\n";
	assert_string_equal(t + strlen(t) - strlen(last), last);
	free(t);
	/* Repeats: the first 1.0 and 1.2 s (mean 1.1, sample stdev 0.1414), the other 1.1 and
	 * 1.1: the same mean, "equal" with the spread 100 * sqrt((0.1414/1.1)^2) = 12.86; its
	 * system time 0.75 against 0.5 (no spread: both steady): more by 50.00%. */
	struct sws_replay_report a1 = mk(SWS_BACKEND_XARRAY, 1.0, 0.5, 1024), a2 = mk(SWS_BACKEND_XARRAY, 1.2, 0.5, 1024),
				 b1 = mk(SWS_BACKEND_ST_P4, 1.1, 0.75, 512), b2 = mk(SWS_BACKEND_ST_P4, 1.1, 0.75, 512);
	const struct sws_replay_report *ra[2] = {&a1, &a2}, *rb[2] = {&b1, &b2};
	struct sws_replay_series r[2] = {{.repeats = ra, .nr_repeats = 2}, {.repeats = rb, .nr_repeats = 2}};
	t = print(&pc, r, 2);
	assert_line(t, "verdict:", "verdict: st-p4 against xarray: equal elapsed time (+0.00%, within its spread "
				  "±12.86), more system time by 50.00%, less metadata memory by 50.00% (at the peak "
				  "512 B against 1.0 KiB)");
	free(t);
}

/*
 * The spread of a figure over repeats is the sample standard deviation: the
 * elapsed times 2 and 4 s have mean 3 and stdev sqrt(((2-3)^2 + (4-3)^2) / (2-1))
 * = sqrt(2) = 1.4142 s, 47.1% of the mean (the population's, 1 s, would be
 * 33.3%). The other design's 3 and 3 s: no spread of its own, +0.00% with the
 * combined spread 100 * sqrt((1.4142/3)^2) = 47.14. The JSON's summary says
 * the same in nanoseconds.
 */
static void test_spread(void **state)
{
	(void)state;
	struct sws_replay_report a1 = mk(SWS_BACKEND_XARRAY, 2, 1, 0), a2 = mk(SWS_BACKEND_XARRAY, 4, 1, 0),
				 b1 = mk(SWS_BACKEND_VSWAP, 3, 1, 0), b2 = mk(SWS_BACKEND_VSWAP, 3, 1, 0);
	const struct sws_replay_report *ra[2] = {&a1, &a2}, *rb[2] = {&b1, &b2};
	struct sws_replay_series r[2] = {{.repeats = ra, .nr_repeats = 2}, {.repeats = rb, .nr_repeats = 2}};
	struct sws_replay_print_config pc = {0};
	char *t = print(&pc, r, 2), want[256];
	snprintf(want, sizeof(want), "%-36s %30s %30s", "Elapsed time (simulated, s)", "3.0000 ±47.1%",
		 "3.0000 ±0.0% (+0.00% ±47.14)");
	assert_line(t, "Elapsed time (simulated, s)", want);
	free(t);
	pc.format = SWS_REPLAY_REPORT_JSON;
	t = print(&pc, r, 2);
	const char *key = "\"summary\":{\"elapsed_ns\":{\"mean\":3000000000,\"stdev\":";
	const char *p = strstr(t, key);
	assert_non_null(p);
	char *end;
	double sd = strtod(p + strlen(key), &end);
	assert_true(sd > 1414213562.37 && sd < 1414213562.38); /* sqrt(2) s */
	const char *rest = ",\"min\":2000000000,\"max\":4000000000}";
	assert_true(!strncmp(end, rest, strlen(rest)));
	free(t);
}

/*
 * "counters identical across repeats": three repeats whose counters differ
 * only in the last one's pswpout are not identical ("NO" on the host clock
 * with one thread, "no (each repeat has its own seed)" on the modelled
 * clock; the JSON's counters_identical false); the same three made equal are.
 */
static void test_counters_identical(void **state)
{
	(void)state;
	struct sws_replay_report r[3] = {mk(SWS_BACKEND_XARRAY, 1, 0.5, 0), mk(SWS_BACKEND_XARRAY, 1, 0.5, 0),
					 mk(SWS_BACKEND_XARRAY, 1, 0.5, 0)};
	const struct sws_replay_report *pr[3] = {&r[0], &r[1], &r[2]};
	struct sws_replay_series s = {.repeats = pr, .nr_repeats = 3};
	const char *head = "1 configuration, 3 repeats each (interleaved); counters identical across repeats: ";
	char want[256];
	for (unsigned k = 0; k < 3; k++) {
		r[k].clock = SWS_REPLAY_CLOCK_HOST;
		r[k].mm.counters[SWS_MM_pswpout] = k < 2 ? 100 : 101;
	}
	struct sws_replay_print_config pc = {0};
	char *t = print(&pc, &s, 1);
	snprintf(want, sizeof(want), "%sNO", head);
	assert_line(t, "1 configuration", want);
	free(t);
	pc.format = SWS_REPLAY_REPORT_JSON;
	t = print(&pc, &s, 1);
	assert_non_null(strstr(t, "\"counters_identical\":false"));
	free(t);
	for (unsigned k = 0; k < 3; k++)
		r[k].clock = r[k].setup.clock = SWS_REPLAY_CLOCK_MODEL;
	pc.format = SWS_REPLAY_REPORT_TABLE;
	t = print(&pc, &s, 1);
	snprintf(want, sizeof(want), "%sno (each repeat has its own seed)", head);
	assert_line(t, "1 configuration", want);
	free(t);
	r[2].mm.counters[SWS_MM_pswpout] = 100;
	t = print(&pc, &s, 1);
	snprintf(want, sizeof(want), "%syes", head);
	assert_line(t, "1 configuration", want);
	free(t);
	pc.format = SWS_REPLAY_REPORT_JSON;
	t = print(&pc, &s, 1);
	assert_non_null(strstr(t, "\"counters_identical\":true"));
	free(t);
}

/* The JSON's first keys; argv's words escaped. */
static void test_json_head(void **state)
{
	(void)state;
	struct sws_replay_report a = mk(SWS_BACKEND_XARRAY, 1, 0.5, 1024);
	const struct sws_replay_report *pa = &a;
	struct sws_replay_series s = {.repeats = &pa, .nr_repeats = 1};
	const char *argv[] = {"prog", "a\"b\\c\nd", NULL};
	struct sws_replay_print_config pc = {.format = SWS_REPLAY_REPORT_JSON, .program = "prog", .program_version = "9.9",
					     .command = "prog 'a\"b\\c'", .argv = argv, .input = "in",
					     .workload_seed = 77, .has_workload_seed = true};
	char *t = print(&pc, &s, 1);
	const char *want =
		"{\"version\":\"9.9\",\"library_version\":\"" STR(SWS_VERSION_MAJOR) "." STR(SWS_VERSION_MINOR) "." STR(
			SWS_VERSION_PATCH) "\",\"program\":\"prog\",\"command\":\"prog 'a\\\"b\\\\c'\","
		"\"argv\":[\"prog\",\"a\\\"b\\\\c\\u000ad\"],\"clock\":\"host\",\"setup\":{\"input\":\"in\","
		"\"ram_bytes\":1073741824,\"memcg_limit_bytes\":536870912,\"memcg_high_bytes\":null,\"memcg_per_task\":false,\"memcg\":\"on\",\"cgroup_version\":2,"
		"\"devices\":[{\"kind\":\"pmem\",\"bytes\":2147483648,\"prio\":-1,\"file\":null,\"read_ns\":1000,"
		"\"write_ns\":2000,\"discard\":false,\"limit_pages\":0,\"tier\":null}],\"memcg_swap_tiers\":[],"
		"\"page_cluster\":3,\"mthp_kb\":[],\"mthp_madvise_kb\":[],\"zswap\":{\"enabled\":false},"
		"\"cpus\":1,\"policy\":\"kernel\",\"seeds\":{\"content\":1,\"workload\":77},";
	assert_true(!strncmp(t, want, strlen(want)));
	assert_non_null(strstr(t, "}},\"runs\":[{\"backend\":\"xarray\""));
	free(t);
}

/* Two designs of three repeats each: xarray's elapsed 1, 2 and 3 s, vswap's 4 s
 * each, 1 s of system time every one; pswpout @a_swpout[k] in xarray's repeat k,
 * @b_swpout in each of vswap's. */
struct two_designs {
	struct sws_replay_report a[3], b[3];
	const struct sws_replay_report *pa[3], *pb[3];
	struct sws_replay_series s[2];
};

static void two_designs(struct two_designs *d, const uint64_t a_swpout[3], uint64_t b_swpout)
{
	for (unsigned k = 0; k < 3; k++) {
		d->a[k] = mk(SWS_BACKEND_XARRAY, 1 + k, 1, 0);
		d->b[k] = mk(SWS_BACKEND_VSWAP, 4, 1, 0);
		d->a[k].mm.counters[SWS_MM_pswpout] = a_swpout[k];
		d->b[k].mm.counters[SWS_MM_pswpout] = b_swpout;
		d->pa[k] = &d->a[k];
		d->pb[k] = &d->b[k];
	}
	d->s[0] = (struct sws_replay_series){.repeats = d->pa, .nr_repeats = 3};
	d->s[1] = (struct sws_replay_series){.repeats = d->pb, .nr_repeats = 3};
}

/*
 * mmtests: elapsed 1, 2, 3 s against 4, 4, 4 s: Amean 2.00 and 4.00, pndiff
 * 100 - 4 * 100 / 2 = -100.00%, significant (|4 - 2| > 1.96 * (1 + 0)); Stddev
 * 1.00 and 0.00: pndiff 100.00%; Duration Elapsed the sums 6.00 and 12.00;
 * Ops the whole benchmark's, the repeats' pswpout summed: 303 and 150.
 */
static void test_mmtests(void **state)
{
	(void)state;
	struct two_designs d;
	two_designs(&d, (const uint64_t[3]){100, 101, 102} /* 303 in all */, 50);
	struct sws_replay_print_config pc = {.format = SWS_REPLAY_REPORT_MMTESTS, .input_name = "usemem"};
	char *t = print(&pc, d.s, 2), line[256];
	assert_true(!strncmp(t, "usemem\n", 7));
	assert_line(t, "Amean    elsp-4", "Amean    elsp-4            2.00 (   0.00%)        4.00 *-100.00%*");
	assert_line(t, "Amean    syst-4", "Amean    syst-4            1.00 (   0.00%)        1.00 (   0.00%)");
	assert_line(t, "Stddev   elsp-4", "Stddev   elsp-4            1.00 (   0.00%)        0.00 ( 100.00%)");
	assert_line(t, "CoeffVar elsp-4", "CoeffVar elsp-4           50.00 (   0.00%)        0.00 ( 100.00%)");
	assert_line(t, "Max      elsp-4", "Max      elsp-4            3.00 (   0.00%)        4.00 ( -33.33%)");
	assert_line(t, "Duration Elapsed", "Duration Elapsed        6.00       12.00");
	assert_line(t, "Ops Swap Outs", "Ops Swap Outs         303.00         150.00");
	assert_null(line_of(t, "Ops Swap Ins", line, sizeof(line))); /* 0 in every run */
	free(t);
}

/*
 * mmtests when no repeat differs from the others (the modelled clock on an
 * input its seed does not change): Stddev 0 on both sides, so a difference is
 * exact and marked whatever its unit, 0.1 s as much as 2 s; equal means are not.
 */
static void test_mmtests_no_spread(void **state)
{
	(void)state;
	struct sws_replay_report a[2] = {mk(SWS_BACKEND_XARRAY, 1.0, 1, 0), mk(SWS_BACKEND_XARRAY, 1.0, 1, 0)};
	struct sws_replay_report b[2] = {mk(SWS_BACKEND_VSWAP, 1.1, 3, 0), mk(SWS_BACKEND_VSWAP, 1.1, 3, 0)};
	const struct sws_replay_report *pa[2] = {&a[0], &a[1]}, *pb[2] = {&b[0], &b[1]};
	struct sws_replay_series s[2] = {{.repeats = pa, .nr_repeats = 2}, {.repeats = pb, .nr_repeats = 2}};
	struct sws_replay_print_config pc = {.format = SWS_REPLAY_REPORT_MMTESTS};
	char *t = print(&pc, s, 2);
	assert_line(t, "Amean    elsp-4", "Amean    elsp-4            1.00 (   0.00%)        1.10 * -10.00%*");
	assert_line(t, "Amean    syst-4", "Amean    syst-4            1.00 (   0.00%)        3.00 *-200.00%*");
	assert_line(t, "Amean    user-4", "Amean    user-4            0.00 (   0.00%)        0.00 (   0.00%)");
	assert_line(t, "Stddev   elsp-4", "Stddev   elsp-4            0.00 (   0.00%)        0.00 (   0.00%)");
	free(t);
}

/*
 * lkp: the same runs. The first: mean 2.00, population stddev sqrt(2/3) =
 * 0.816, 40% of the mean; the other 4.00, +100.0%, no spread shown.
 */
static void test_lkp(void **state)
{
	(void)state;
	struct two_designs d;
	two_designs(&d, (const uint64_t[3]){2000000, 2000000, 2000000}, 1500000);
	struct sws_replay_print_config pc = {.format = SWS_REPLAY_REPORT_LKP};
	char *t = print(&pc, d.s, 2);
	assert_non_null(strstr(t, "\n          xarray                       vswap \n---------------- "
				  "--------------------------- \n         %stddev     %change         %stddev\n"
				  "             \\          |                \\  \n"));
	assert_line(t, "      2.00 ±", "      2.00 ± 40%    +100.0%       4.00        replay.time.elapsed_time");
	assert_line(t, "   2000000", "   2000000           -25.0%    1500000        proc-vmstat.pswpout");
	free(t);
	/* A counter /proc/vmstat has under another name, and one it has not. */
	for (unsigned k = 0; k < 3; k++) {
		d.a[k].mm.counters[SWS_MM_pgsteal] = d.b[k].mm.counters[SWS_MM_pgsteal] = 7;
		d.a[k].mm.counters[SWS_MM_cow_fault] = d.b[k].mm.counters[SWS_MM_cow_fault] = 5;
	}
	t = print(&pc, d.s, 2);
	char line[256];
	assert_non_null(strstr(t, " proc-vmstat.pgsteal_anon\n"));
	assert_non_null(strstr(t, " swapsim.cow_fault\n"));
	assert_null(strstr(t, "proc-vmstat.cow_fault"));
	assert_null(strstr(t, "proc-vmstat.pgsteal\n"));
	free(t);
	pc.format = SWS_REPLAY_REPORT_MMTESTS;
	t = print(&pc, d.s, 2);
	assert_non_null(line_of(t, "Ops pgsteal_anon", line, sizeof(line)));
	assert_non_null(line_of(t, "Ops swapsim.cow_fault", line, sizeof(line)));
	free(t);
}

/* The setup a real replay reports: every default filled in. */
static void test_setup_of_a_run(void **state)
{
	(void)state;
	struct sws_replay_config cfg = {.ram_pages = 1024, .nr_swap = 1, .flags = SWS_REPLAY_ZSWAP, .seed = 9,
					.swap = {{.kind = SWS_REPLAY_SWAP_PMEM, .prio = -1}}};
	struct sws_replay *r;
	struct sws_replay_report rep;
	assert_sws(0, sws_replay_create(&cfg, &r));
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_MEMHOG, .bytes = 1 << 20};
	struct sws_workload *wl;
	assert_sws(0, sws_workload_create(&wc, &wl));
	struct sws_replay_source src = sws_workload_source(wl);
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, &rep));
	const struct sws_replay_setup *st = &rep.setup;
	assert_int_equal(st->clock, SWS_REPLAY_CLOCK_MODEL);
	assert_int_equal(st->cpus, 1);
	assert_int_equal(st->ram_pages, 1024);
	assert_int_equal(st->mem_limit_pages, 0);
	assert_int_equal(st->cgroup, 2);
	assert_int_equal(st->page_cluster, 3);
	assert_int_equal(st->seed, 9);
	assert_int_equal(st->user_bandwidth, SWS_REPLAY_USER_BANDWIDTH);
	assert_int_equal(st->nr_swap, 1);
	assert_int_equal(st->swap[0].pages, 2048); /* 2x RAM */
	assert_int_equal(st->swap[0].read_ns, 1000);
	assert_int_equal(st->swap[0].write_ns, 2000);
	assert_string_equal(st->zswap_compressor, "lz4");
	assert_int_equal(st->zswap_max_pool_percent, 20);
	assert_int_equal(st->zswap_accept_threshold_percent, 90);
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
	/* The CPUs: the modelled clock's simulated ones, the host clock's worker threads. */
	cfg.cpus = 3;
	cfg.threads = 2;
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_int_equal(rep.setup.cpus, 3);
	sws_replay_destroy(r);
	cfg.clock = SWS_REPLAY_CLOCK_HOST;
	assert_sws(0, sws_replay_create(&cfg, &r));
	assert_sws(0, sws_replay_report_get(r, &rep));
	assert_int_equal(rep.setup.clock, SWS_REPLAY_CLOCK_HOST);
	assert_int_equal(rep.setup.cpus, 2);
	sws_replay_destroy(r);
	cfg.cpus = cfg.threads = 0;
	assert_string_equal(sws_replay_clock_name(SWS_REPLAY_CLOCK_HOST), "host");
	assert_string_equal(sws_replay_clock_name(SWS_REPLAY_CLOCK_MODEL), "model");
	assert_string_equal(sws_replay_clock_name((enum sws_replay_clock)2), "");
	/* A clock the library does not have is refused. */
	cfg.clock = (enum sws_replay_clock)2;
	assert_sws(SWS_EINVAL, sws_replay_create(&cfg, &r));
	assert_null(r);
}

static void test_print_errors(void **state)
{
	(void)state;
	struct sws_replay_report a = mk(SWS_BACKEND_XARRAY, 1, 0.5, 1024);
	const struct sws_replay_report *pa = &a;
	struct sws_replay_series s = {.repeats = &pa, .nr_repeats = 1};
	struct sws_test_buf b = {0};
	struct sws_replay_print_config pc = {.version = SWS_REPLAY_PRINT_CONFIG_VERSION + 1};
	assert_sws(SWS_EVERSION, sws_replay_print(&pc, &s, 1, sws_test_buf_write, &b));
	pc = (struct sws_replay_print_config){.flags = 1u << 7};
	assert_sws(SWS_EINVAL, sws_replay_print(&pc, &s, 1, sws_test_buf_write, &b));
	pc = (struct sws_replay_print_config){.format = (enum sws_replay_format)99};
	assert_sws(SWS_EINVAL, sws_replay_print(&pc, &s, 1, sws_test_buf_write, &b));
	assert_sws(SWS_EINVAL, sws_replay_print(NULL, &s, 1, sws_test_buf_write, &b));
	pc = (struct sws_replay_print_config){0};
	assert_sws(SWS_EINVAL, sws_replay_print(&pc, &s, 0, sws_test_buf_write, &b));
	assert_null(b.p); /* nothing written */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),	    cmocka_unit_test(test_seeds_of_repeats),
		cmocka_unit_test(test_counters_left_out),
		cmocka_unit_test(test_verdicts), cmocka_unit_test(test_spread), cmocka_unit_test(test_counters_identical),    cmocka_unit_test(test_json_head),
		cmocka_unit_test(test_mmtests),	    cmocka_unit_test(test_mmtests_no_spread),
		cmocka_unit_test(test_lkp),
		cmocka_unit_test(test_setup_of_a_run), cmocka_unit_test(test_print_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
