/*
 * test_cli.c - the command line's value grammar (sim/cli_parse.c): sizes, swap
 * device specs (xswap ones too), content mixes, workload options; each error
 * names the option.
 */
#include <string.h>

#include "testutil.h"
#include "cli_parse.h"

/* ---- parsing ----------------------------------------------------------------------- */

static void test_parse_size(void **state)
{
	(void)state;
	uint64_t v;
	static const struct {
		const char *s;
		uint64_t want;
	} ok[] = {{"4096", 4096},    {"10000", 10000},    {"4K", 4096},       {"4k", 4096},
		  {"0K", 0},          {"1p", 4096},
		  {"1M", 1u << 20},   {"2G", 2ull << 30},  {"1T", 1ull << 40}, {"3p", 3 * 4096},
		  {"256p", 1u << 20}, {"1GiB", 1ull << 30}, {"16MB", 16u << 20}};
	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_sws(0, cli_parse_size(ok[i].s, &v));
		assert_int_equal(v, ok[i].want);
	}
	static const char *const bad[] = {"", "12Q", "-1", "1.5G", "G", "p", "4K4",
					  "99999999999999999999", "17179869184G", " 1M", "1pB",
					  /* a bare number below a page: a slip for a unit */
					  "0", "10", "64", "4095"};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_sws(SWS_EINVAL, cli_parse_size(bad[i], &v));
	assert_sws(SWS_EINVAL, cli_parse_size(NULL, &v));
}

/* What the messages say: a bare number below a page is told to take a unit or p. */
static void test_size_hint(void **state)
{
	(void)state;
	char buf[192];
	assert_string_equal(cli_size_hint("64", buf, sizeof(buf)),
			    "64 bytes is less than one page: add a unit or p (64M, 64K, or 64p for 64 pages of 4 KiB)");
	assert_non_null(strstr(cli_size_hint("4095", buf, sizeof(buf)), "4095 bytes is less than one page"));
	assert_string_equal(cli_size_hint("1.5G", buf, sizeof(buf)), "sizes are whole numbers: 1.5G is 1536M");
	assert_null(strstr(cli_size_hint("12Q", buf, sizeof(buf)), "less than one page"));
	/* usemem's -j is a stride in bytes, as usemem's own: 8 and 64 stay bytes */
	struct sws_workload_config cfg = {.kind = SWS_WORKLOAD_USEMEM};
	char *args[] = {"-j", "64", "1M"};
	assert_sws(0, cli_parse_workload_args(&cfg, 3, args, buf, sizeof(buf)));
	assert_int_equal(cfg.step, 64);
	/* the issue's slip: usemem 64 is refused with the hint, not 64 bytes */
	char *slip[] = {"64"};
	cfg.kind = SWS_WORKLOAD_USEMEM;
	assert_sws(SWS_EINVAL, cli_parse_workload_args(&cfg, 1, slip, buf, sizeof(buf)));
	assert_string_equal(buf, "usemem: bad size '64': 64 bytes is less than one page: add a unit or p (64M, 64K, "
				 "or 64p for 64 pages of 4 KiB)");
	char *pages[] = {"64p"};
	cfg.kind = SWS_WORKLOAD_USEMEM;
	assert_sws(0, cli_parse_workload_args(&cfg, 1, pages, buf, sizeof(buf)));
	assert_int_equal(cfg.bytes, 64 * 4096);
	char *cold[] = {"--cold", "100", "1M"};
	cfg.kind = SWS_WORKLOAD_KBUILD;
	assert_sws(SWS_EINVAL, cli_parse_workload_args(&cfg, 3, cold, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "kbuild --cold: '100': 100 bytes is less than one page"));
	char sw[] = "size=512";
	struct sws_replay_swap dev;
	assert_sws(SWS_EINVAL, cli_parse_swap(sw, &dev, buf, sizeof(buf)));
	assert_string_equal(buf, "size=512: 512 bytes is less than one page: add a unit or p (512M, 512K, or 512p "
				 "for 512 pages of 4 KiB)");
}

/* The hint for a refused fraction: the whole number of a smaller unit, or
 * "about" one; a fraction beyond 2^64 of that unit is no undefined conversion
 * (-fsanitize=float-cast-overflow, which the sanitizer build turns on). */
static void test_size_hint_fractions(void **state)
{
	(void)state;
	char buf[200];
	assert_string_equal(cli_size_hint("1.5G", buf, sizeof(buf)), "sizes are whole numbers: 1.5G is 1536M");
	assert_string_equal(cli_size_hint("0.5K", buf, sizeof(buf)), "sizes are whole numbers: 0.5K is 512 (bytes)");
	assert_string_equal(cli_size_hint("18446744073709370.5M", buf, sizeof(buf)),
			    "sizes are whole numbers: 18446744073709370.5M is about 18889465931478396928K");
	assert_string_equal(cli_size_hint("9e99999.5K", buf, sizeof(buf)),
			    "a size is a whole number with K, M, G or T (binary) or p (4 KiB pages): "
			    "512M, 2G, 65536p");
	assert_string_equal(cli_size_hint("20000000000000000000.5K", buf, sizeof(buf)),
			    "sizes are whole numbers: 20000000000000000000.5K is about 20480000000000000000000 (bytes)");
}

static void test_parse_swap_and_content(void **state)
{
	(void)state;
	struct sws_replay_swap sw;
	char msg[128];
	char s1[] = "size=1G,type=zram,prio=5,file=/tmp/x.swap,rlat=100,wlat=200";
	assert_sws(0, cli_parse_swap(s1, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.pages, (1ull << 30) / 4096);
	assert_int_equal(sw.kind, SWS_REPLAY_SWAP_ZRAM);
	assert_int_equal(sw.prio, 5);
	assert_string_equal(sw.path, "/tmp/x.swap");
	assert_int_equal(sw.read_ns, 100);
	assert_int_equal(sw.write_ns, 200);
	char s2[] = "size=512p";
	assert_sws(0, cli_parse_swap(s2, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.pages, 512);
	assert_int_equal(sw.prio, -1);
	assert_int_equal(sw.kind, SWS_REPLAY_SWAP_SSD);
	char s3[] = "type=floppy";
	assert_sws(SWS_EINVAL, cli_parse_swap(s3, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "type=floppy"));
	char s4[] = "colour=blue";
	assert_sws(SWS_EINVAL, cli_parse_swap(s4, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "colour"));
	char s5[] = "prio=40000";
	assert_sws(SWS_EINVAL, cli_parse_swap(s5, &sw, msg, sizeof(msg)));
	char s6[] = "size";
	assert_sws(SWS_EINVAL, cli_parse_swap(s6, &sw, msg, sizeof(msg)));
	/* A file is created new unless reuse (and, for a symbolic link, follow) is said. */
	assert_int_equal(sw.file_flags, 0);
	char s7[] = "file=/tmp/x,reuse,follow";
	assert_sws(0, cli_parse_swap(s7, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.file_flags, SWS_BACKING_REUSE | SWS_BACKING_FOLLOW);
	char s8[] = "size=8M,reuse";
	assert_sws(SWS_EINVAL, cli_parse_swap(s8, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "file=PATH"));
	/* Discard is off unless the spec says it (swapon --discard=pages); not on a rotational disk. */
	assert_int_equal(sw.swap_flags, 0);
	char s9[] = "type=nvme,discard";
	assert_sws(0, cli_parse_swap(s9, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.swap_flags, SWS_REPLAY_SWAP_DISCARD);
	char s10[] = "type=hdd,discard";
	assert_sws(SWS_EINVAL, cli_parse_swap(s10, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "discard"));
	char s11[] = "type=xswap,discard";
	assert_sws(SWS_EINVAL, cli_parse_swap(s11, &sw, msg, sizeof(msg)));

	uint32_t w[SWS_NR_CONTENT];
	assert_sws(0, cli_parse_content("zero=1,index=3,random", w, msg, sizeof(msg)));
	assert_int_equal(w[SWS_CONTENT_ZERO], 1);
	assert_int_equal(w[SWS_CONTENT_INDEX], 3);
	assert_int_equal(w[SWS_CONTENT_RANDOM], 1);
	assert_int_equal(w[SWS_CONTENT_SAME], 0);
	assert_sws(SWS_EINVAL, cli_parse_content("gold=1", w, msg, sizeof(msg)));
	assert_sws(SWS_EINVAL, cli_parse_content("zero=0", w, msg, sizeof(msg)));
	assert_sws(SWS_EINVAL, cli_parse_content("", w, msg, sizeof(msg)));
}

static void test_parse_workload_args(void **state)
{
	(void)state;
	struct sws_workload_config c = {.kind = SWS_WORKLOAD_USEMEM};
	char msg[128];
	char *argv1[] = {"--init-time", "-O", "-y", "-x", "-R", "--random-seed", "3", "-Z",
			 "-n", "31", "-r2", "-j", "4096", "1G"};
	assert_sws(0, cli_parse_workload_args(&c, 14, argv1, msg, sizeof(msg)));
	assert_int_equal(c.kind, SWS_WORKLOAD_USEMEM);
	assert_int_equal(c.bytes, 1ull << 30);
	assert_int_equal(c.nr_tasks, 31);
	assert_int_equal(c.repeat, 2);
	assert_int_equal(c.step, 4096);
	assert_int_equal(c.seed, 3);
	assert_int_equal(c.flags, SWS_USEMEM_INIT_TIME | SWS_USEMEM_SYNC_RW | SWS_USEMEM_SYNC_FREE |
					  SWS_USEMEM_RANDOM | SWS_USEMEM_READ_AGAIN);
	char *argv2[] = {"-n", "0", "1M"};
	assert_sws(SWS_EINVAL, cli_parse_workload_args(&c, 3, argv2, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "-n"));
	c.kind = SWS_WORKLOAD_USEMEM;
	char *argv3[] = {"-y"};
	assert_sws(SWS_EINVAL, cli_parse_workload_args(&c, 1, argv3, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "SIZE"));
	c.kind = SWS_WORKLOAD_USEMEM;
	char *argv4[] = {"--bogus", "1M"};
	assert_sws(SWS_EINVAL, cli_parse_workload_args(&c, 2, argv4, msg, sizeof(msg)));
	c.kind = SWS_WORKLOAD_MEMHOG;
	char *argv5[] = {"-r3", "64p"};
	assert_sws(0, cli_parse_workload_args(&c, 2, argv5, msg, sizeof(msg)));
	assert_int_equal(c.repeat, 3);
	assert_int_equal(c.bytes, 64 * 4096);
	c.kind = SWS_WORKLOAD_ZIPF;
	char *argv6[] = {"-s", "1.2", "-w", "50", "-a", "1000", "--seed", "9", "8M"};
	assert_sws(0, cli_parse_workload_args(&c, 9, argv6, msg, sizeof(msg)));
	assert_true(c.zipf_s > 1.19 && c.zipf_s < 1.21);
	assert_int_equal(c.write_pct, 50);
	assert_int_equal(c.nr_accesses, 1000);
	c.kind = SWS_WORKLOAD_ZIPF;
	char *argv7[] = {"-w", "101", "8M"};
	assert_sws(SWS_EINVAL, cli_parse_workload_args(&c, 3, argv7, msg, sizeof(msg)));
	c.kind = SWS_WORKLOAD_KBUILD;
	char *argv8[] = {"-j", "16", "-p4", "-a", "5000", "--cold", "32M", "--seed", "2", "64M"};
	assert_sws(0, cli_parse_workload_args(&c, 10, argv8, msg, sizeof(msg)));
	assert_int_equal(c.nr_tasks, 16);
	assert_int_equal(c.repeat, 4);
	assert_int_equal(c.nr_accesses, 5000);
	assert_int_equal(c.cold_bytes, 32u << 20);
	assert_int_equal(c.seed, 2);
	assert_int_equal(c.bytes, 64u << 20);
	c.kind = SWS_WORKLOAD_KBUILD;
	char *argv9[] = {"-j", "0", "64M"};
	assert_sws(SWS_EINVAL, cli_parse_workload_args(&c, 3, argv9, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "-j"));
	enum sws_workload_kind k;
	assert_sws(0, sws_workload_parse("kbuild", &k));
	assert_int_equal(k, SWS_WORKLOAD_KBUILD);
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

/* The workload grammar is read from each workload's table (sws_workload_params()):
 * every workload has one with --keep, the start values apply, a one-letter
 * option takes its value glued, and the messages name workload, option and value. */
static void test_workload_params_table(void **state)
{
	(void)state;
	char msg[192];
	for (int k = SWS_WORKLOAD_USEMEM; k <= SWS_WORKLOAD_KBUILD; k++) {
		const struct sws_workload_param *p = sws_workload_params((enum sws_workload_kind)k);
		assert_non_null(p);
		bool keep = false;
		for (; p->name; p++)
			keep |= !strcmp(p->name, "--keep") && p->flag == SWS_WORKLOAD_KEEP;
		assert_true(keep);
		struct sws_workload_config c = {.kind = (enum sws_workload_kind)k};
		char *argv[] = {"--keep", "1M"};
		assert_sws(0, cli_parse_workload_args(&c, 2, argv, msg, sizeof(msg)));
		assert_int_equal(c.flags, SWS_WORKLOAD_KEEP);
		assert_int_equal(c.write_pct, k == SWS_WORKLOAD_ZIPF || k == SWS_WORKLOAD_UNIFORM ? 30 : 0);
		assert_non_null(sws_workload_help((enum sws_workload_kind)k)); /* --help's line for it */
	}
	assert_null(sws_workload_params((enum sws_workload_kind)99));
	/* the kinds run from 1 with no gap: the help lists them while they have help */
	assert_null(sws_workload_help((enum sws_workload_kind)0));
	assert_null(sws_workload_help((enum sws_workload_kind)(SWS_WORKLOAD_KBUILD + 1)));
	struct sws_workload_config c = {.kind = SWS_WORKLOAD_UNIFORM};
	char *glued[] = {"-n4", "-w=7", "-a", "99", "2M"};
	assert_sws(0, cli_parse_workload_args(&c, 5, glued, msg, sizeof(msg)));
	assert_int_equal(c.nr_tasks, 4);
	assert_int_equal(c.write_pct, 7);
	assert_int_equal(c.nr_accesses, 99);
	static const struct {
		enum sws_workload_kind kind;
		const char *argv[3];
		const char *msg;
	} bad[] = {
		{SWS_WORKLOAD_UNIFORM, {"-s", "1.5", "2M"}, "uniform: unknown option '-s'"}, /* zipf's alone */
		{SWS_WORKLOAD_KBUILD, {"-j", "0", "2M"}, "kbuild -j 0: expected 1..65536 jobs"},
		{SWS_WORKLOAD_BGSAVE, {"-a", "0", "2M"}, "bgsave -a 0: expected a count from 1 to 1099511627776"},
		{SWS_WORKLOAD_USEMEM, {"--step", "4", "2M"}, "usemem -j 4: expected a step of at least 8 bytes"},
		{SWS_WORKLOAD_USEMEM, {"2M", "--random-seed"}, "usemem --random-seed: expected a number"},
		{SWS_WORKLOAD_MEMHOG, {"2M", "-r"}, "memhog -r: missing value"},
		{SWS_WORKLOAD_ZIPF, {"-s", "101", "2M"}, "zipf -s 101: expected an exponent in (0, 100]"},
		{SWS_WORKLOAD_KBUILD, {"--cold", "2048T", "2M"}, "kbuild --cold: size '2048T' is above the limit of 1P"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = bad[i].argv[2] ? 3 : 2;
		c.kind = bad[i].kind;
		assert_sws(SWS_EINVAL, cli_parse_workload_args(&c, n, (char *const *)bad[i].argv, msg, sizeof(msg)));
		assert_string_equal(msg, bad[i].msg);
	}
}

static void test_parse_xswap_spec(void **state)
{
	(void)state;
	char msg[256];
	struct sws_replay_swap sw;
	char a[] = "type=xswap,prio=3,limit=131072", b[] = "type=xswap,size=1G", c[] = "size=1G,limit=5",
	     d[] = "limit=0,type=xswap";
	assert_sws(0, cli_parse_swap(a, &sw, msg, sizeof(msg)));
	assert_int_equal(sw.kind, SWS_REPLAY_SWAP_XSWAP);
	assert_int_equal(sw.prio, 3);
	assert_int_equal(sw.limit_pages, 131072);
	assert_sws(SWS_EINVAL, cli_parse_swap(b, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "type=xswap"));
	assert_sws(SWS_EINVAL, cli_parse_swap(c, &sw, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "limit="));
	assert_sws(SWS_EINVAL, cli_parse_swap(d, &sw, msg, sizeof(msg)));
}

/* --format's messages name every format of the library, in its numbering. */
static void test_trace_format_list(void **state)
{
	(void)state;
	char buf[128], small[12];
	assert_string_equal(cli_trace_format_list(buf, sizeof(buf), 0), "native, perf, lackey, damon or addr");
	assert_string_equal(cli_trace_format_list(buf, sizeof(buf), 1), "auto, native, perf, lackey, damon or addr");
	assert_string_equal(cli_trace_format_list(small, sizeof(small), 0), "native, per");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_size_hint),
		cmocka_unit_test(test_size_hint_fractions),
		cmocka_unit_test(test_trace_format_list),
		cmocka_unit_test(test_parse_swap_and_content),
		cmocka_unit_test(test_parse_workload_args),
		cmocka_unit_test(test_parse_xswap_spec),
		cmocka_unit_test(test_workload_params_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
