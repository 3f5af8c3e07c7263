/*
 * test_replay_mt.c - multi-threaded replays on every design (mt_designs.h; run
 * under TSan in CI): zipf tasks spread over 4 workers through the queues and
 * as per-task streams, usemem with synchronised start and free and as
 * streams whose tasks map and exit on their workers, and bgsave's fork +
 * copy-on-write, in verify mode; every record runs, the swap core stays
 * consistent, and the first-touch count of a workload whose pages each task
 * touches is the same on every design.
 */
#include <string.h>

#include "mt_designs.h"
#include <swapsim/replay.h>

/* The workload's records through next() only: the dispatcher's queues, no streams. */
static bool via_queues;

static void run_flags(enum sws_backend backend, const struct sws_workload_config *wc,
		      struct sws_replay_report *rep, uint32_t flags)
{
	struct sws_replay_config cfg = {
		.threads = 4,
		.backend = backend,
		.ram_pages = 2048,
		.mem_limit_pages = 768,
		.seed = 3,
		.flags = SWS_REPLAY_VERIFY | flags,
		.zswap = {.max_pool_percent = 10, .flags = SWS_ZSWAP_SHRINKER},
		.deferred_every = 128,
		.queue_depth = 256,
	};
	struct sws_workload *wl;
	struct sws_replay *r;
	assert_sws(0, sws_workload_create(wc, &wl));
	sws_workload_content(wl, cfg.content_weight);
	assert_sws(0, sws_replay_create(&cfg, &r));
	struct sws_replay_source src = sws_workload_source(wl);
	if (via_queues)
		src.streams = NULL, src.stream = NULL;
	assert_sws(0, sws_replay_run(r, &src));
	assert_sws(0, sws_replay_report_get(r, rep));
	assert_int_equal(rep->events, sws_workload_total(wl));
	assert_int_equal(rep->verify_failures, 0);
	assert_int_equal(rep->mm.counters[SWS_MM_verify_fail], 0);
	assert_consistent(sws_replay_sim(r));
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
}

static void run(enum sws_backend backend, const struct sws_workload_config *wc,
		struct sws_replay_report *rep)
{
	run_flags(backend, wc, rep, 0);
}

/* zswap in front of the device: stores, loads, writeback, all verified, on 4 threads. */
static void test_mt_zswap(void **state)
{
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_ZIPF, .bytes = 4 << 20, .nr_tasks = 6,
					 .nr_accesses = 30000, .write_pct = 50, .seed = 5};
	struct sws_replay_report rep;
	run_flags(*(enum sws_backend *)*state, &wc, &rep, SWS_REPLAY_ZSWAP);
	assert_true(rep.mm.counters[SWS_MM_zswpout] > 0 && rep.mm.counters[SWS_MM_zswpin] > 0);
}

/* zipf through the dispatcher's queues, and as per-task streams on the workers. */
static void test_mt_zipf(void **state)
{
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_ZIPF, .bytes = 2 << 20, .nr_tasks = 6,
					 .nr_accesses = 30000, .write_pct = 50, .seed = 9};
	struct sws_replay_report rep;
	via_queues = true;
	run(*(enum sws_backend *)*state, &wc, &rep);
	via_queues = false;
	assert_true(rep.mm.counters[SWS_MM_pswpout] > 0);
	run(*(enum sws_backend *)*state, &wc, &rep);
	assert_true(rep.mm.counters[SWS_MM_pswpout] > 0);
}

/* usemem streams on 4 workers: each task maps, unmaps and exits on its worker
 * while the others fault and reclaim in the shared memcg. */
static void test_mt_usemem_streams(void **state)
{
	/* tasks 0 and 4 share worker 0 (tid % 4): 1024 pages live at once in a
	 * 768-page memcg, so it swaps however the workers are timed */
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 2 << 20, .nr_tasks = 6,
					 .repeat = 2, .flags = SWS_USEMEM_RANDOM};
	struct sws_replay_report rep;
	run(*(enum sws_backend *)*state, &wc, &rep);
	assert_true(rep.mm.counters[SWS_MM_pswpout] > 0);
	assert_int_equal(rep.mm.counters[SWS_MM_first_touch], 6 * 512);
	assert_int_equal(rep.errors, 0);
}

static void test_mt_usemem_bgsave(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct sws_workload_config um = {.kind = SWS_WORKLOAD_USEMEM, .bytes = 1 << 20, .nr_tasks = 4,
					 .repeat = 2, .flags = SWS_USEMEM_SYNC_RW | SWS_USEMEM_SYNC_FREE |
							       SWS_USEMEM_READ_AGAIN | SWS_USEMEM_RANDOM};
	struct sws_workload_config bg = {.kind = SWS_WORKLOAD_BGSAVE, .bytes = 2 << 20, .seed = 4};
	struct sws_replay_report rep;
	run(b, &um, &rep);
	/* First touches are per page of each task, whatever the threads and the design do. */
	assert_int_equal(rep.mm.counters[SWS_MM_first_touch], 4 * 256);
	run(b, &bg, &rep);
	assert_int_equal(rep.nr_tasks, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ALL_DESIGNS(test_mt_zipf),
		ALL_DESIGNS(test_mt_usemem_bgsave),
		ALL_DESIGNS(test_mt_zswap),
		ALL_DESIGNS(test_mt_usemem_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
