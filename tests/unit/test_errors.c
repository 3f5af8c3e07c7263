/*
 * test_errors.c - error codes and names, entry packing, configuration
 * validation (sim, device, CPUs), backend names, stats lookup and printing.
 */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "swap/swap_internal.h" /* white box: to break an invariant on purpose */

static void test_error_names(void **state)
{
	(void)state;
	static const int codes[] = {
#define CODE(name, num, msg) SWS_##name,
		SWS_ERROR_LIST(CODE)
#undef CODE
	};
	assert_string_equal(sws_strerror(0), "success");
	assert_string_equal(sws_error_name(SWS_ENOSPC), "SWS_ENOSPC");
	for (unsigned i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_true(codes[i] < 0);
		assert_string_not_equal(sws_strerror(codes[i]), "unknown error");
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(codes[i], codes[j]);
	}
	assert_string_equal(sws_strerror(-9999), "unknown error");
	assert_string_equal(sws_error_name(12345), "SWS_E?");
}

static void test_entry_packing(void **state)
{
	(void)state;
	sws_entry_t e = sws_swp_entry(23, (1ull << 40) + 5);
	assert_int_equal(sws_swp_type(e), 23);
	assert_int_equal(sws_swp_offset(e), (1ull << 40) + 5);
	assert_int_equal(sws_swp_entry(1, 0), 1ull << 58);
	assert_int_equal(sws_swp_offset(sws_swp_entry(0, SWS_SWP_OFFSET_MASK)), SWS_SWP_OFFSET_MASK);
}

static void test_sim_config(void **state)
{
	(void)state;
	struct sws_sim *sim = (void *)1;
	assert_sws(SWS_EINVAL, sws_sim_create(NULL, NULL));
	struct sws_sim_config cfg = {.version = SWS_SIM_CONFIG_VERSION + 1};
	assert_sws(SWS_EVERSION, sws_sim_create(&cfg, &sim));
	assert_null(sim);
	cfg = (struct sws_sim_config){.backend = (enum sws_backend)SWS_NR_DESIGNS}; /* one past the registry */
	assert_sws(SWS_EINVAL, sws_sim_create(&cfg, &sim));
	cfg = (struct sws_sim_config){.flags = 1u << 1}; /* no such flag */
	assert_sws(SWS_EINVAL, sws_sim_create(&cfg, &sim));
	struct sws_env env = {.version = SWS_ENV_VERSION + 1};
	cfg = (struct sws_sim_config){.env = &env};
	assert_sws(SWS_EVERSION, sws_sim_create(&cfg, &sim));
	env = (struct sws_env){.reserved = 3};
	assert_sws(SWS_EINVAL, sws_sim_create(&cfg, &sim));

	assert_sws(0, sws_sim_create(NULL, &sim)); /* all defaults: the swap table */
	assert_int_equal(sws_sim_backend(sim), SWS_BACKEND_SWAP_TABLE);
	sws_sim_destroy(sim);
	sws_sim_destroy(NULL);
	sws_cpu_detach(NULL);
}

static void test_cpus(void **state)
{
	(void)state;
	struct sws_sim_config cfg = {.max_cpus = 2};
	struct sws_sim *sim;
	struct sws_cpu *a, *b, *c;
	assert_sws(0, sws_sim_create(&cfg, &sim));
	assert_sws(0, sws_cpu_attach(sim, &a));
	assert_sws(0, sws_cpu_attach(sim, &b));
	assert_int_not_equal(sws_cpu_id(a), sws_cpu_id(b));
	assert_sws(SWS_ENOCPU, sws_cpu_attach(sim, &c));
	sws_cpu_detach(a);
	assert_sws(0, sws_cpu_attach(sim, &c));
	assert_int_equal(sws_cpu_id(c), 0);
	sws_cpu_detach(b);
	sws_cpu_detach(c);
	sws_sim_destroy(sim);
#ifndef NDEBUG
	/* Debug builds: destroying with a CPU still attached aborts (in a child). */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fclose(stderr); /* the assertion's message is expected */
		struct sws_sim *s2;
		struct sws_cpu *d;
		if (sws_sim_create(&cfg, &s2) || sws_cpu_attach(s2, &d))
			_exit(1);
		sws_sim_destroy(s2);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#endif
}

static void test_device_config(void **state)
{
	(void)state;
	struct sws_sim *sim;
	int type;
	assert_sws(0, sws_sim_create(NULL, &sim));
	struct sws_device_config dc = {.nr_slots = 1};
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type));
	dc.nr_slots = SWS_DEVICE_MAX_SLOTS + 1;
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type));
	dc = (struct sws_device_config){.nr_slots = 1024, .flags = 1u << 9};
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type));
	dc = (struct sws_device_config){.nr_slots = 1024, .flags = SWS_SWAP_FLAG_PREFER, .prio = 40000};
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type));
	dc = (struct sws_device_config){.nr_slots = 1024, .flags = SWS_SWAP_FLAG_PREFER, .prio = -2};
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type));
	dc = (struct sws_device_config){.nr_slots = 1024, .backing = SWS_BACKING_FILE};
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type));
	dc = (struct sws_device_config){.nr_slots = 1024, .backing = (enum sws_backing)9};
	assert_sws(SWS_EINVAL, sws_swapon(sim, &dc, &type));
	dc = (struct sws_device_config){.version = 99, .nr_slots = 1024};
	assert_sws(SWS_EVERSION, sws_swapon(sim, &dc, &type));
	dc = (struct sws_device_config){.nr_slots = 1024, .backing = SWS_BACKING_FILE,
					.path = "/nonexistent-dir/swapfile"};
	assert_sws(SWS_EIO, sws_swapon(sim, &dc, &type));
	assert_sws(SWS_EINVAL, sws_swapon(sim, NULL, &type));
	struct sws_device_info di;
	assert_sws(SWS_ENODEV, sws_device_info_get(sim, 0, &di));
	assert_sws(SWS_ENODEV, sws_swapoff(sim, -1));
	assert_sws(SWS_ENODEV, sws_swapoff(sim, SWS_MAX_SWAPFILES));
	uint64_t total, freeslots;
	sws_swap_totals(sim, &total, &freeslots);
	assert_int_equal(total, 0); /* nothing half-made was left behind */
	assert_consistent(sim);
	/* Entry 0 is "no entry", even with a device of type 0 in place. */
	dc = (struct sws_device_config){.nr_slots = 1024};
	assert_sws(0, sws_swapon(sim, &dc, &type));
	assert_int_equal(type, 0);
	struct sws_slot_state st;
	assert_sws(SWS_EBADENTRY, sws_swap_slot_state(sim, 0, &st));
	assert_sws(0, sws_swap_slot_state(sim, sws_swp_entry(0, 1), &st));
	sws_sim_destroy(sim);
}

static void test_backend_names(void **state)
{
	(void)state;
	enum sws_backend b;
	assert_sws(0, sws_backend_parse("table", &b));
	assert_int_equal(b, SWS_BACKEND_SWAP_TABLE);
	assert_sws(0, sws_backend_parse("swap_table", &b));
	assert_sws(0, sws_backend_parse("xarray", &b));
	assert_int_equal(b, SWS_BACKEND_XARRAY);
	assert_sws(SWS_EINVAL, sws_backend_parse("st-p5", &b));
	assert_sws(SWS_EINVAL, sws_backend_parse(NULL, &b));
	assert_string_equal(sws_backend_name(SWS_BACKEND_XARRAY), "xarray");
	assert_string_equal(sws_backend_name(SWS_BACKEND_DEFAULT), "st-p4");
	assert_string_equal(sws_backend_name(SWS_BACKEND_SWAP_TABLE), "st-p4");
	assert_sws(0, sws_backend_parse("st-p4", &b));
	assert_int_equal(b, SWS_BACKEND_ST_P4);
	assert_string_equal(sws_backend_name((enum sws_backend)42), "unknown");
	assert_true(!strcmp(sws_default_allocator_name(), "jemalloc") ||
		    !strcmp(sws_default_allocator_name(), "libc"));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The default clock keeps CLOCK_MONOTONIC's rate (a wrong TSC calibration
 * would scale every simulated system time) and never goes back. */
static void test_default_clock(void **state)
{
	(void)state;
	const char *name = sws_default_clock_name();
	assert_true(!strcmp(name, "tsc") || !strcmp(name, "clock_monotonic"));
	uint64_t c0 = sws_default_clock_ns(), m0 = mono_ns();
	uint64_t prev = c0;
	for (int i = 0; i < 100000; i++) {
		uint64_t t = sws_default_clock_ns();
		assert_true(t >= prev);
		prev = t;
	}
	struct timespec d = {.tv_nsec = 50000000};
	nanosleep(&d, NULL);
	uint64_t c1 = sws_default_clock_ns(), m1 = mono_ns();
	double ratio = (double)(c1 - c0) / (double)(m1 - m0);
	assert_true(ratio > 0.99 && ratio < 1.01);
	/* in step with CLOCK_MONOTONIC, not only at its rate */
	assert_true(c1 + 1000000 > m1 && c1 < m1 + 1000000);
}

struct buf {
	char text[1 << 16];
	size_t len;
	int fail_after;
};

static int collect(void *ctx, const char *text, size_t len)
{
	struct buf *b = ctx;
	if (b->fail_after && --b->fail_after == 0)
		return -77;
	assert_true(b->len + len < sizeof(b->text));
	memcpy(b->text + b->len, text, len);
	b->len += len;
	b->text[b->len] = 0;
	return 0;
}

static void test_stats(void **state)
{
	(void)state;
	struct sws_fixture f;
	sws_fixture_open(&f, SWS_BACKEND_SWAP_TABLE, 2048, SWS_SWP_SOLIDSTATE);
	sws_entry_t e;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 9, 3, &e));
	assert_int_equal(sws_swap_cache_lookup(f.cpu, e), 9);
	struct sws_stats st;
	sws_stats_snapshot(f.sim, &st);
	uint64_t v;
	assert_sws(0, sws_stats_get(&st, "swap_alloc[3]", &v));
	assert_int_equal(v, 1);
	assert_sws(0, sws_stats_get(&st, "swap_cache_find_success", &v));
	assert_int_equal(v, 1);
	assert_sws(0, sws_stats_get(&st, "nr_swapcache", &v));
	assert_int_equal(v, 8);
	assert_sws(0, sws_stats_get(&st, "total_swap_pages", &v));
	assert_int_equal(v, 2047);
	assert_sws(SWS_EINVAL, sws_stats_get(&st, "swap_alloc[10]", &v));
	assert_sws(SWS_EINVAL, sws_stats_get(&st, "swap_alloc[3]x", &v));
	assert_sws(SWS_EINVAL, sws_stats_get(&st, "no_such_counter", &v));
	assert_string_equal(sws_counter_name(SWS_CTR_swap_cache_add_total), "swap_cache_add_total");
	assert_string_equal(sws_counter_name(SWS_NR_COUNTERS), "");
	assert_string_equal(sws_order_counter_name(SWS_OCTR_swap_alloc), "swap_alloc");
	assert_string_equal(sws_mem_class_name(SWS_MEM_swap_table), "swap_table");
	assert_int_equal(sws_mem_class_is_static(SWS_MEM_cluster_info), 1);
	assert_int_equal(sws_mem_class_is_static(SWS_MEM_xa_node), 0);

	static struct buf b;
	b.len = 0;
	b.fail_after = 0;
	assert_sws(0, sws_stats_print(&st, SWS_PRINT_JSON, collect, &b));
	assert_true(b.text[0] == '{' && b.text[b.len - 2] == '}' && b.text[b.len - 1] == '\n');
	assert_non_null(strstr(b.text, "\"swap_alloc\":[0,0,0,1,0,0,0,0,0,0]"));
	assert_non_null(strstr(b.text, "\"swap_table\":{\"bytes\":"));
	b.len = 0;
	assert_sws(0, sws_stats_print(&st, SWS_PRINT_TABLE, collect, &b));
	assert_non_null(strstr(b.text, "swap_alloc[3]"));
	b.len = 0;
	b.fail_after = 3;
	assert_int_equal(sws_stats_print(&st, SWS_PRINT_JSON, collect, &b), -77);
	assert_sws(SWS_EINVAL, sws_stats_print(&st, (enum sws_print_format)5, collect, &b));
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 8, 9, 0));
	sws_fixture_close(&f);
}

/* sws_swap_check() notices a broken invariant, names it, and SWS_ECORRUPT comes back. */
static void test_check_detects_corruption(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_fixture f;
	sws_fixture_open(&f, b, 4 * SWS_CLUSTER_SLOTS, SWS_SWP_SOLIDSTATE);
	sws_entry_t e;
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 5, 0, &e));
	assert_consistent(f.sim);
	struct sws_device *dev = sws__device(f.sim, (unsigned)f.type);
	struct sws_cluster *ci = sws__offset_cluster(dev, sws_swp_offset(e));
	char msg[256];
	ci->count++; /* a cluster count that no slot backs */
	assert_sws(SWS_ECORRUPT, sws_swap_check(f.sim, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "cluster"));
	ci->count--;
	uint8_t flags = ci->flags;
	ci->flags = SWS_CLUSTER_FULL; /* a flag that does not match its list */
	assert_sws(SWS_ECORRUPT, sws_swap_check(f.sim, msg, sizeof(msg)));
	ci->flags = flags;
	atomic_fetch_add(&f.sim->h.nr_swap_pages, 1); /* free + in use != total */
	assert_sws(SWS_ECORRUPT, sws_swap_check(f.sim, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "nr_swap_pages"));
	atomic_fetch_sub(&f.sim->h.nr_swap_pages, 1);
	assert_sws(0, sws_swap_cache_del(f.cpu, e, 1, 5, 0));
	sws_fixture_close(&f);
}

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;

/*
 * A second sws_sim_destroy() of the same simulation is caught in every build
 * (the magic number destroy leaves behind): the process aborts with a
 * message instead of freeing the memory again. Run in a child process.
 */
static void test_sim_destroy_twice(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* a fresh process (liburcu's threads do not survive a fork) */
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		alarm(60);
		execl("/proc/self/exe", "test_errors", "--destroy-twice", (char *)NULL);
		_exit(4);
	}
	close(fds[1]);
	char buf[4096];
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(buf) - 1 && (r = read(fds[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
#if defined(__SANITIZE_ADDRESS__)
	/* AddressSanitizer reports the use after free first. */
	assert_false(WIFEXITED(st) && WEXITSTATUS(st) == 0);
#else
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
		fail_msg("a second sws_sim_destroy: child %s %d, want SIGABRT (stderr: %s)",
			 WIFSIGNALED(st) ? "killed by signal" : "exit status",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), buf);
	assert_non_null(strstr(buf, "sws_sim_destroy: this simulation was destroyed already"));
#endif
}

/* test_sim_destroy_twice's child: destroy one simulation twice. */
static int destroy_twice(void)
{
	struct sws_sim_config cfg = {0};
	struct sws_sim *sim;
	if (sws_sim_create(&cfg, &sim))
		return 3;
	sws_sim_destroy(sim);
	sws_sim_destroy(sim);
	return 0; /* not caught */
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--destroy-twice"))
		return destroy_twice();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_names),   cmocka_unit_test(test_entry_packing),
		cmocka_unit_test(test_sim_config),    cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_device_config), cmocka_unit_test(test_backend_names),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_default_clock),
		cmocka_unit_test(test_sim_destroy_twice),
		cmocka_unit_test_prestate(test_check_detects_corruption, &backend_table),
		cmocka_unit_test_prestate(test_check_detects_corruption, &backend_xarray),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
