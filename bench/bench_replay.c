/*
 * bench_replay.c - swapsim-bench-replay: replay throughput (records per second)
 * per backend and thread count, on a synthetic zipf trace (random access over a
 * working set twice the memcg limit: a steady stream of faults and swap-outs)
 * and a usemem workload (sequential writes of N tasks through a limit well below
 * their total, then a read-again pass: swap-in). Prints one JSON array of
 * objects {backend, workload, threads, events, events_per_sec, pgfault,
 * pswpin, pswpout, wall_ms}.
 *
 * Usage: swapsim-bench-replay [--quick] [--threads N] [--accesses N]
 *        swapsim-bench-replay --timing-cost [--workload W] [--accesses N] [--reps N]
 *        swapsim-bench-replay --timing-run real|stub [--workload W] [--accesses N]
 *   --quick      tiny sizes, threads 1 and 2 (a smoke test: no timing claims)
 *   --threads N  the largest thread count (1, 2, 4, ... up to N; default 4)
 *   --accesses N zipf accesses (default 4000000)
 *   --timing-cost  what the simulated-time accounting costs a single-thread
 *                replay: runs it with the host clock and with a stub clock (no
 *                clock read), interleaved --reps times (default 5), and prints
 *                {clock_reads_per_event, events_per_sec_clock, events_per_sec_stub,
 *                overhead_pct, derived_overhead_pct} from the medians, one JSON
 *                object per workload
 *   --workload W zipf (--accesses accesses, default 4 M, over 64 Ki pages in a
 *                16 Ki-page memcg: mostly hits), main (the main job of
 *                scripts/main.sh: usemem --init-time -O -y -x -n 4 1G in a
 *                2 GiB memcg on 4 GiB of RAM, 8 GiB of pmem: every access a
 *                fault), or both (the default)
 *   --timing-run real|stub  one such run, to profile by itself (perf record, or
 *                callgrind: which sees the vDSO clock as a system call, so it
 *                counts the accounting's instructions but not the clock's price);
 *                it also prints the clock reads a stub run made
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <swapsim/swapsim.h>

/* Runs alternate table, xarray for the same case: each xarray row is compared
 * with the swap-table row just before it (same run, same input). */
static double table_eps;

static int run(enum sws_backend backend, const struct sws_workload_config *wc, unsigned threads,
	       uint64_t ram_pages, uint64_t limit_pages, bool *first)
{
	struct sws_replay_config cfg = {.threads = threads, .backend = backend, .ram_pages = ram_pages,
					.mem_limit_pages = limit_pages, .seed = 1,
					.clock = SWS_REPLAY_CLOCK_HOST}; /* host threads */
	struct sws_workload *wl;
	struct sws_replay *r;
	struct sws_replay_report rep;
	int err = sws_workload_create(wc, &wl);
	if (err)
		return err;
	sws_workload_content(wl, cfg.content_weight);
	if ((err = sws_replay_create(&cfg, &r))) {
		sws_workload_destroy(wl);
		return err;
	}
	struct sws_replay_source src = sws_workload_source(wl);
	err = sws_replay_run(r, &src);
	if (!err) {
		sws_replay_report_get(r, &rep);
		printf("%s\n  {\"backend\": \"%s\", \"workload\": \"%s\", \"threads\": %u, "
		       "\"events\": %llu, \"events_per_sec\": %.0f, \"pgfault\": %llu, "
		       "\"pswpin\": %llu, \"pswpout\": %llu, \"errors\": %llu, \"wall_ms\": %.1f, "
		       "\"vs_swap_table\": %.3f}",
		       *first ? "" : ",", sws_backend_name(backend), sws_workload_name(wc->kind),
		       threads, (unsigned long long)rep.events, rep.events_per_sec,
		       (unsigned long long)rep.mm.counters[SWS_MM_pgfault],
		       (unsigned long long)rep.mm.counters[SWS_MM_pswpin],
		       (unsigned long long)rep.mm.counters[SWS_MM_pswpout],
		       (unsigned long long)rep.errors, (double)rep.wall_ns / 1e6,
		       backend == SWS_BACKEND_SWAP_TABLE || table_eps <= 0 ? 1.0
								 : rep.events_per_sec / table_eps);
		if (backend == SWS_BACKEND_SWAP_TABLE)
			table_eps = rep.events_per_sec;
		*first = false;
	} else {
		fprintf(stderr, "swapsim-bench-replay: %s\n", sws_replay_error(r));
	}
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
	return err;
}

/* ---- the cost of simulated time ----------------------------------------------- */

static uint64_t stub_reads;

/* A clock that reads nothing: the accounting's own cost without the host clock's. */
static uint64_t stub_clock(void *ctx)
{
	(void)ctx;
	return 1000 * ++stub_reads;
}

static uint64_t host_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

enum timing_workload { TW_ZIPF, TW_MAIN };
static const char *const tw_name[] = {"zipf", "main"};

/* A timing replay on 1 thread: the zipf replay of the speed comparison, or the
 * main job (scripts/main.sh, on the table backend); @return events/s (host time). */
static double timing_run(bool stub, enum timing_workload tw, uint64_t accesses, uint64_t *events)
{
	struct sws_env env = {.clock_ns = stub ? stub_clock : NULL};
	struct sws_replay_config cfg = {.ram_pages = 65536, .mem_limit_pages = 16384, .seed = 1, .env = &env,
					.clock = SWS_REPLAY_CLOCK_HOST}; /* what the host clock costs */
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_ZIPF, .bytes = 256ull << 20,
					 .nr_accesses = accesses, .write_pct = 30, .seed = 1};
	if (tw == TW_MAIN) {
		cfg.ram_pages = (4ull << 30) / 4096;
		cfg.mem_limit_pages = (2ull << 30) / 4096;
		cfg.nr_swap = 1;
		cfg.swap[0] = (struct sws_replay_swap){.pages = (8ull << 30) / 4096, .kind = SWS_REPLAY_SWAP_PMEM,
						       .prio = -1};
		wc = (struct sws_workload_config){.kind = SWS_WORKLOAD_USEMEM, .bytes = 1ull << 30, .nr_tasks = 4,
						  .flags = SWS_USEMEM_INIT_TIME | SWS_USEMEM_SYNC_RW |
							   SWS_USEMEM_SYNC_FREE, .seed = 1};
	}
	struct sws_workload *wl;
	struct sws_replay *r;
	struct sws_replay_report rep;
	if (sws_workload_create(&wc, &wl)) {
		fprintf(stderr, "swapsim-bench-replay: cannot set the timing run up\n");
		exit(1);
	}
	sws_workload_content(wl, cfg.content_weight);
	if (sws_replay_create(&cfg, &r)) {
		fprintf(stderr, "swapsim-bench-replay: cannot set the timing run up\n");
		exit(1);
	}
	struct sws_replay_source src = sws_workload_source(wl);
	uint64_t t0 = host_ns();
	if (sws_replay_run(r, &src)) {
		fprintf(stderr, "swapsim-bench-replay: %s\n", sws_replay_error(r));
		exit(1);
	}
	uint64_t dt = host_ns() - t0;
	sws_replay_report_get(r, &rep);
	*events = rep.events;
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
	return (double)rep.events * 1e9 / (double)dt;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int timing_cost(enum timing_workload tw, uint64_t accesses, unsigned reps)
{
	double real[64], stub[64];
	uint64_t events = 0, reads = 0;
	for (unsigned k = 0; k < reps; k++) { /* interleaved: noise falls on both alike */
		real[k] = timing_run(false, tw, accesses, &events);
		uint64_t before = stub_reads;
		stub[k] = timing_run(true, tw, accesses, &events);
		reads = stub_reads - before;
	}
	qsort(real, reps, sizeof(real[0]), cmp_double);
	qsort(stub, reps, sizeof(stub[0]), cmp_double);
	double r = real[reps / 2], st = stub[reps / 2];
	/* The default clock's own price, to derive the overhead without the runs'
	 * noise, and CLOCK_MONOTONIC's beside it. */
	enum { N = 10000000 };
	uint64_t sink = 0, c0 = host_ns();
	for (unsigned i = 0; i < N; i++)
		sink += sws_default_clock_ns();
	uint64_t c1 = host_ns();
	for (unsigned i = 0; i < N; i++)
		sink += host_ns();
	double read_ns = (double)(c1 - c0) / N, mono_ns = (double)(host_ns() - c1) / N;
	double per_event = (double)reads / (double)events;
	/* overhead_pct: the stub runs' speed over the clock runs', less one (the
	 * medians); derived: the reads' count times their price, as a share of the
	 * clock runs' time per event. */
	printf("{\"bench\":\"timing_cost\",\"workload\":\"%s\",\"reps\":%u,\"events\":%llu,"
	       "\"clock\":\"%s\",\"clock_reads_per_event\":%.3f,\"clock_read_ns\":%.1f,\"clock_monotonic_read_ns\":%.1f,\"events_per_sec_clock\":%.0f,"
	       "\"events_per_sec_stub\":%.0f,\"overhead_pct\":%.2f,\"derived_overhead_pct\":%.2f,"
	       "\"events_per_sec_clock_min_max\":[%.0f,%.0f],\"events_per_sec_stub_min_max\":[%.0f,%.0f]}\n",
	       tw_name[tw], reps, (unsigned long long)events, sws_default_clock_name(), per_event, read_ns,
	       mono_ns, r, st, 100 * (st / r - 1),
	       100 * per_event * read_ns * r / 1e9 + 0 * (double)(sink & 1), real[0], real[reps - 1],
	       stub[0], stub[reps - 1]);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	bool quick = false;
	unsigned max_threads = 4, reps = 5;
	uint64_t accesses = 4000000;
	const char *timing = NULL;
	bool cost = false;
	int tw = -1; /* both */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--timing-cost")) {
			cost = true;
		} else if (!strcmp(argv[i], "--workload") && i + 1 < argc) {
			const char *w = argv[++i];
			tw = !strcmp(w, "zipf") ? TW_ZIPF : !strcmp(w, "main") ? TW_MAIN : !strcmp(w, "both") ? -1 : -2;
			if (tw == -2) {
				fprintf(stderr, "swapsim-bench-replay: --workload: expected zipf, main or both\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--timing-run") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "real") || !strcmp(argv[i + 1], "stub"))) {
			timing = argv[++i];
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = (unsigned)strtoul(argv[++i], NULL, 10);
			if (!reps || reps > 64) {
				fprintf(stderr, "swapsim-bench-replay: --reps: expected 1..64\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			max_threads = (unsigned)strtoul(argv[++i], NULL, 10);
			if (!max_threads || max_threads > 128) {
				fprintf(stderr, "swapsim-bench-replay: --threads: expected 1..128\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--accesses") && i + 1 < argc) {
			accesses = strtoull(argv[++i], NULL, 10);
			if (!accesses) {
				fprintf(stderr, "swapsim-bench-replay: --accesses: expected a count >= 1\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: swapsim-bench-replay [--quick] [--threads N] [--accesses N]\n"
					"       swapsim-bench-replay --timing-cost | --timing-run real|stub "
					"[--workload zipf|main|both] [--accesses N] [--reps N]\n");
			return 2;
		}
	}
	if (quick) {
		max_threads = max_threads < 2 ? max_threads : 2;
		accesses = 20000;
	}
	if (cost) {
		for (int w = TW_ZIPF; w <= TW_MAIN; w++)
			if (tw < 0 || tw == w)
				timing_cost((enum timing_workload)w, accesses, reps);
		return 0;
	}
	if (timing) {
		uint64_t events;
		enum timing_workload w = tw == TW_MAIN ? TW_MAIN : TW_ZIPF;
		double eps = timing_run(!strcmp(timing, "stub"), w, accesses, &events);
		printf("{\"bench\":\"timing_run\",\"workload\":\"%s\",\"clock\":\"%s\",\"events\":%llu,"
		       "\"clock_reads\":%llu,\"events_per_sec\":%.0f}\n",
		       tw_name[w], timing, (unsigned long long)events, (unsigned long long)stub_reads, eps);
		return 0;
	}
	/* zipf: 4 tasks x 64 MiB (quick: 4 MiB) in a memcg of half of that. */
	uint64_t ws = quick ? 4ull << 20 : 64ull << 20;
	struct sws_workload_config zipf = {.kind = SWS_WORKLOAD_ZIPF, .bytes = ws, .nr_tasks = 4,
					   .nr_accesses = accesses, .write_pct = 30, .seed = 1};
	struct sws_workload_config usemem = {.kind = SWS_WORKLOAD_USEMEM, .bytes = ws, .nr_tasks = 4,
					     .flags = SWS_USEMEM_SYNC_RW | SWS_USEMEM_SYNC_FREE |
						      SWS_USEMEM_READ_AGAIN};
	uint64_t ram = 4 * ws / 4096, limit = 2 * ws / 4096;
	const enum sws_backend backends[] = {SWS_BACKEND_SWAP_TABLE, SWS_BACKEND_XARRAY};
	bool first = true;
	int status = 0;
	printf("[");
	for (unsigned w = 0; w < 2; w++)
		for (unsigned t = 1; t <= max_threads; t *= 2)
			for (unsigned b = 0; b < 2; b++)
				if (run(backends[b], w ? &usemem : &zipf, t, ram, limit, &first))
					status = 1;
	printf("\n]\n");
	return status;
}
