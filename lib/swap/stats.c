/*
 * stats.c - snapshots of the simulation's counters (sim-level atomics plus
 * every attached CPU's private counters, summed without stopping them, like
 * vmstat) and of its memory use per structure class (common/mem.h).
 */
#include <string.h>

#include "swap_internal.h"

/* Each class's kind (SWS_MEM_CLASS_LIST's middle column), known here at compile
 * time. */
#define SWS__MEM_KIND(name, kind, desc) kind,
static const unsigned char mem_kind[SWS_NR_MEM_CLASSES] = {SWS_MEM_CLASS_LIST(SWS__MEM_KIND)};
#undef SWS__MEM_KIND

/* A class's bytes now (a count that went below zero for a moment reads 0). */
static inline uint64_t mem_class_bytes(struct sws_sim *sim, enum sws_mem_class c)
{
	int64_t b = atomic_load(&sim->mem.bytes[c]);
	return b > 0 ? (uint64_t)b : 0;
}

void sws_sim_memory_usage(struct sws_sim *sim, struct sws_memory_usage *out)
{
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < SWS_NR_MEM_CLASSES; c++) {
		out->bytes[c] = mem_class_bytes(sim, (enum sws_mem_class)c);
		if (mem_kind[c] == SWS_MEM_KIND_OTHER)
			continue; /* bookkeeping of the simulator itself, not swap metadata */
		if (mem_kind[c] == SWS_MEM_KIND_STATIC)
			out->static_bytes += out->bytes[c];
		else
			out->dynamic_bytes += out->bytes[c];
	}
}

void sws_stats_snapshot(struct sws_sim *sim, struct sws_stats *st)
{
	memset(st, 0, sizeof(*st));
	int64_t swapcache = atomic_load(&sim->nr_swapcache);
	sws_spin_lock(&sim->cpu_lock);
	for (int c = 0; c < SWS_NR_COUNTERS; c++)
		st->counters[c] = atomic_load(&sim->ctr[c]);
	for (int c = 0; c < SWS_NR_ORDER_COUNTERS; c++)
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			st->order_counters[c][o] = atomic_load(&sim->octr[c][o]);
	for (int x = 0; x < SWS_NR_WORK_CTX; x++)
		for (int w = 0; w < SWS_NR_WORK; w++)
			st->work[x][w] = atomic_load(&sim->work[x][w]);
	for (unsigned i = 0; i < sim->max_cpus; i++) {
		struct sws_cpu *cpu = sim->cpus[i];
		if (!cpu)
			continue;
		for (int c = 0; c < SWS_NR_COUNTERS; c++)
			st->counters[c] += sws_load_relaxed(&cpu->ctr[c]);
		for (int c = 0; c < SWS_NR_ORDER_COUNTERS; c++)
			for (int o = 0; o < SWS_NR_ORDERS; o++)
				st->order_counters[c][o] += sws_load_relaxed(&cpu->octr[c][o]);
		for (int x = 0; x < SWS_NR_WORK_CTX; x++)
			for (int w = 0; w < SWS_NR_WORK; w++)
				st->work[x][w] += sws_load_relaxed(&cpu->work[x][w]);
		swapcache += sws_load_relaxed(&cpu->nr_swapcache);
	}
	sws_spin_unlock(&sim->cpu_lock);

	struct sws_memory_usage mu;
	sws_sim_memory_usage(sim, &mu);
	for (int c = 0; c < SWS_NR_MEM_CLASSES; c++) {
		st->mem_bytes[c] = mu.bytes[c];
		int64_t p = atomic_load(&sim->mem.peak[c]);
		st->mem_peak[c] = p > 0 ? (uint64_t)p : 0;
	}
	st->mem_static = mu.static_bytes;
	st->mem_dynamic = mu.dynamic_bytes;
	sws_swap_totals(sim, &st->total_swap_pages, &st->nr_swap_pages);
	st->nr_swapcache = swapcache > 0 ? (uint64_t)swapcache : 0;
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++)
		st->nr_devices += sws__device(sim, t) != NULL;
}

/* The swap metadata's bytes as sws_sim_memory_usage() sums them (static +
 * dynamic: the sum mem.c keeps with the classes) and the zsmalloc pool's
 * pages. A sum that went below zero for a moment reads 0. */
uint64_t sws__sim_kernel_swap_pages(struct sws_sim *sim)
{
	int64_t meta = atomic_load_explicit(&sim->mem.metadata, memory_order_relaxed);
	uint64_t pages = SWS_DIV_ROUND_UP(meta > 0 ? (uint64_t)meta : 0, SWS_PAGE_SIZE);
	return pages + mem_class_bytes(sim, SWS_MEM_zspage) / SWS_PAGE_SIZE;
}
