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
 *   --quick      tiny sizes, threads 1 and 2 (a smoke test: no timing claims)
 *   --threads N  the largest thread count (1, 2, 4, ... up to N; default 4)
 *   --accesses N zipf accesses (default 4000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swapsim/swapsim.h>

/* Runs alternate table, xarray for the same case: each xarray row is compared
 * with the swap-table row just before it (same run, same input). */
static double table_eps;

static int run(enum sws_backend backend, const struct sws_workload_config *wc, unsigned threads,
	       uint64_t ram_pages, uint64_t limit_pages, bool *first)
{
	struct sws_replay_config cfg = {.threads = threads, .backend = backend, .ram_pages = ram_pages,
					.mem_limit_pages = limit_pages, .seed = 1};
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
		sws_replay_report(r, &rep);
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

int main(int argc, char **argv)
{
	bool quick = false;
	unsigned max_threads = 4;
	uint64_t accesses = 4000000;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
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
			fprintf(stderr, "usage: swapsim-bench-replay [--quick] [--threads N] [--accesses N]\n");
			return 2;
		}
	}
	if (quick) {
		max_threads = max_threads < 2 ? max_threads : 2;
		accesses = 20000;
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
