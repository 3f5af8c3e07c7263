/*
 * bench_xswap.c - xswap's two costs, machine-readable.
 *
 *   alloc     The allocation path (folio_alloc_swap at order 0 through the
 *             per-CPU cluster, order 9 through the lists, and the frees that
 *             empty clusters) on a regular SSD device, with no xswap device.
 *             This file is built twice: against libswapsim and against the
 *             same sources with xswap compiled out (SWS_CONFIG_XSWAP=0);
 *             bench/xswap_cost.sh runs both under callgrind and compares
 *             instructions per operation in one run. Prints one JSON object.
 *   resident  An xswap device filled cluster by cluster and emptied again:
 *             after each step, pages in use, clusters mapped, and the arenas'
 *             mapped and resident bytes (mincore), with the swap tables' bytes
 *             and the process's VmRSS beside them. Prints CSV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swap/swap_internal.h"
#include "xswap/xswap.h"

#ifndef SWS_CONFIG_XSWAP
#define SWS_CONFIG_XSWAP 1
#endif

#define BATCH 256

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void check(int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "swapsim-bench-xswap: %s: %s\n", what, sws_strerror(rc));
		exit(1);
	}
}

/* The measured loop (callgrind --toggle-collect=bench_alloc_loop): @ops
 * allocations, order 0 in batches freed together, one order-9 folio (a
 * whole cluster from the free list, freed at once) every 64. */
static __attribute__((noinline)) uint64_t bench_alloc_loop(struct sws_cpu *cpu, uint64_t ops)
{
	sws_entry_t held[BATCH];
	uint64_t pfn = 1, done = 0;
	while (done < ops) {
		unsigned n = 0;
		for (; n < BATCH && done < ops; n++, done++)
			check(sws_folio_alloc_swap(cpu, pfn + n, 0, &held[n]), "order-0 alloc");
		for (unsigned i = 0; i < n; i++)
			check(sws_swap_cache_del(cpu, held[i], 1, pfn + i, 0), "order-0 free");
		pfn += n;
		if (done % (64 * BATCH) < BATCH && done < ops) {
			sws_entry_t big;
			check(sws_folio_alloc_swap(cpu, pfn, 9, &big), "order-9 alloc");
			check(sws_swap_cache_del(cpu, big, 512, pfn, 0), "order-9 free");
			done++;
		}
	}
	return done;
}

static int run_alloc(uint64_t ops)
{
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type;
	struct sws_sim_config cfg = {.backend = SWS_BACKEND_SWAP_TABLE};
	check(sws_sim_create(&cfg, &sim), "sim");
	check(sws_cpu_attach(sim, &cpu), "cpu");
	struct sws_device_config dc = {.nr_slots = 1u << 20, .flags = SWS_SWP_SOLIDSTATE};
	check(sws_swapon(sim, &dc, &type), "swapon");
	bench_alloc_loop(cpu, 4 * BATCH); /* warm: tables, per-CPU cluster */
	uint64_t t0 = now_ns();
	uint64_t done = bench_alloc_loop(cpu, ops);
	uint64_t ns = now_ns() - t0;
	printf("{\"bench\":\"alloc\",\"xswap_support\":%s,\"ops\":%llu,\"ns_per_op\":%.2f}\n",
	       SWS_CONFIG_XSWAP ? "true" : "false", (unsigned long long)done, (double)ns / (double)done);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
	return 0;
}

#if SWS_CONFIG_XSWAP
static uint64_t vmrss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	uint64_t v = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			v = strtoull(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static void row(struct sws_sim *sim, int type, const char *phase)
{
	struct sws_xswap_info xi;
	check(sws_xswap_info_get(sim, type, &xi), "info");
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sim, &mu);
	printf("%s,%llu,%u,%llu,%llu,%lld,%llu\n", phase, (unsigned long long)xi.inuse_pages,
	       xi.nr_clusters_mapped, (unsigned long long)xi.arena_mapped_bytes,
	       (unsigned long long)xi.arena_resident_bytes, (long long)mu.bytes[SWS_MEM_swap_table],
	       (unsigned long long)vmrss_kb());
}

static int run_resident(bool quick)
{
	const uint64_t ram = quick ? 1ull << 20 : 1ull << 22; /* 4 GiB or 16 GiB of simulated RAM */
	const unsigned steps = 8;
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type;
	struct sws_sim_config cfg = {.backend = SWS_BACKEND_SWAP_TABLE};
	check(sws_sim_create(&cfg, &sim), "sim");
	check(sws_cpu_attach(sim, &cpu), "cpu");
	/* The swap core's half of sws_mm_xswap_create(): no memory model needed. */
	pthread_mutex_lock(&sim->ext_mutex);
	check(sws__xswap_create(sim, -1, ram, &type), "xswap create");
	sws__device_enable(sws__device(sim, (unsigned)type));
	pthread_mutex_unlock(&sim->ext_mutex);
	check(sws_xswap_limit_set(sim, type, 2 * ram), "limit");
	struct sws_xswap_info xi;
	check(sws_xswap_info_get(sim, type, &xi), "info");
	uint32_t target = xi.nr_clusters_max * 3 / 4, per_step = target / steps;
	sws_entry_t *held = malloc(sizeof(*held) * target);
	if (!held)
		return 1;
	printf("phase,inuse_pages,mapped_clusters,arena_mapped_bytes,arena_resident_bytes,"
	       "swap_table_bytes,vmrss_kb\n");
	row(sim, type, "start");
	uint32_t n = 0;
	for (unsigned s = 0; s < steps; s++) {
		for (uint32_t i = 0; i < per_step; i++, n++)
			check(sws_folio_alloc_swap(cpu, 1 + n, 9, &held[n]), "alloc");
		sws_swap_do_deferred_work(sim, 64);
		row(sim, type, "up");
	}
	for (unsigned s = 0; s < steps; s++) { /* newest first: the tail empties */
		for (uint32_t i = 0; i < per_step; i++) {
			n--;
			check(sws_swap_cache_del(cpu, held[n], 512, 1 + n, 0), "free");
		}
		sws_swap_do_deferred_work(sim, 64);
		sws_sim_quiesce(sim); /* the swap tables' RCU frees have run */
		row(sim, type, "down");
	}
	free(held);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
	return 0;
}
#else
static int run_resident(bool quick)
{
	(void)quick;
	fprintf(stderr, "swapsim-bench-xswap: built without xswap support\n");
	return 1;
}
#endif

int main(int argc, char **argv)
{
	uint64_t ops = 2000000;
	bool quick = false;
	const char *mode = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "alloc") || !strcmp(argv[i], "resident"))
			mode = argv[i];
		else {
			fprintf(stderr, "usage: swapsim-bench-xswap [--ops N] [--quick] alloc|resident\n");
			return 2;
		}
	}
	if (!mode || !ops) {
		fprintf(stderr, "usage: swapsim-bench-xswap [--ops N] [--quick] alloc|resident\n");
		return 2;
	}
	if (quick && ops == 2000000)
		ops = 20000;
	return !strcmp(mode, "alloc") ? run_alloc(ops) : run_resident(quick);
}
