/*
 * vmstat.c - the counters (mm/vmstat.c): per-CPU, folded on read into
 * sws_mm_stats with the gauges (RAM, anon pages, swap cache, zswap pool), and
 * each CPU's simulated time.
 * Callers: the replay's report and samples, library users.
 */
#include <string.h>

#include "../zswap/zswap_mm.h"
#include "mm_internal.h"

const char *sws_mm_counter_name(enum sws_mm_counter c)
{
	static const char *const names[] = {
#define SWS__MMNAME(name, desc) #name,
		SWS_MM_COUNTER_LIST(SWS__MMNAME)
#undef SWS__MMNAME
	};
	return (unsigned)c < SWS_MM_NR_COUNTERS ? names[c] : "";
}

/* ---- stats ------------------------------------------------------------------------------ */

void sws_mm_cpu_time_get(const struct sws_mm *mm, const struct sws_cpu *cpu, struct sws_mm_cpu_time *out)
{
	const struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	out->sys_ns = sws_load_relaxed(&p->sys_ns);
	out->sys_modelled_ns = sws_load_relaxed(&p->sys_modelled_ns);
	out->iowait_ns = sws_load_relaxed(&p->iowait_ns);
	out->background_ns = sws_load_relaxed(&p->background_ns);
}

void sws_mm_stats_get(struct sws_mm *mm, struct sws_mm_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned c = 0; c < mm->nr_cpus; c++) {
		struct sws_mm_pcpu *p = &mm->pcpu[c];
		for (int k = 0; k < SWS_MM_NR_COUNTERS; k++)
			st->counters[k] += sws_load_relaxed(&p->ctr[k]);
		for (int o = 0; o < SWS_NR_ORDERS; o++) {
			st->swpout[o] += sws_load_relaxed(&p->swpout[o]);
			st->swpout_fallback[o] += sws_load_relaxed(&p->swpout_fallback[o]);
		}
	}
	for (unsigned c = 0; c < mm->nr_cpus; c++)
		for (unsigned o = 1; o < SWS_NR_ORDERS - 1; o++) {
			const struct sws_mm_pcpu *p = &mm->pcpu[c];
			st->swpin[o] += sws_load_relaxed(&p->swpin[SWS__SWPIN][o - 1]);
			st->swpin_fallback[o] += sws_load_relaxed(&p->swpin[SWS__SWPIN_FALLBACK][o - 1]);
		}
	for (unsigned o = 1; o < SWS_NR_ORDERS - 1; o++)
		st->swpin_fallback_charge[o] = sws_load_relaxed(&mm->swpin_fallback_charge[o - 1]);
	for (unsigned c = 0; c < mm->nr_cpus; c++)
		for (unsigned o = 1; o < SWS_NR_ORDERS; o++) {
			st->anon_fault_alloc[o] += sws_load_relaxed(&mm->pcpu[c].anon_fault_alloc[o - 1]);
			st->anon_fault_fallback[o] += sws_load_relaxed(&mm->pcpu[c].anon_fault_fallback[o - 1]);
			st->anon_fault_fallback_charge[o] +=
				sws_load_relaxed(&mm->pcpu[c].anon_fault_fallback_charge[o - 1]);
		}
	for (unsigned c = 0; c < mm->nr_cpus; c++)
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			st->zswpout_order[o] += sws_load_relaxed(&mm->pcpu[c].zswpout_order[o]);
	for (unsigned c = 0; c < mm->nr_cpus; c++)
		for (int t = 0; t < SWS_SWAP_NR_TIERS; t++) {
			st->tier_swpout[t] += sws_load_relaxed(&mm->pcpu[c].tier_swpout[t]);
			st->tier_swpin[t] += sws_load_relaxed(&mm->pcpu[c].tier_swpin[t]);
		}
	for (unsigned c = 0; c < mm->nr_cpus; c++) {
		struct sws_mm_pcpu *p = &mm->pcpu[c];
		for (int b = 0; b < SWS_MM_LAT_BUCKETS; b++)
			st->reclaim_lat[b] += sws_load_relaxed(&p->reclaim_lat[b]);
		st->reclaim_count += sws_load_relaxed(&p->reclaim_count);
		st->reclaim_sum_ns += sws_load_relaxed(&p->reclaim_sum_ns);
		uint64_t mx = sws_load_relaxed(&p->reclaim_max_ns);
		if (mx > st->reclaim_max_ns)
			st->reclaim_max_ns = mx;
		st->time.sys_ns += sws_load_relaxed(&p->sys_ns);
		st->time.sys_modelled_ns += sws_load_relaxed(&p->sys_modelled_ns);
		st->time.iowait_ns += sws_load_relaxed(&p->iowait_ns);
		st->time.background_ns += sws_load_relaxed(&p->background_ns);
	}
	for (unsigned k = 0; k < sizeof(mm->lock_contended) / sizeof(mm->lock_contended[0]); k++)
		st->counters[SWS_MM_lock_ptl_contended + k] += sws_load_relaxed(&mm->lock_contended[k]);
	if (mm->zswap)
		sws__zswap_stats(mm->zswap, st);
	st->ram_pages = mm->cfg.ram_pages;
	int64_t fp = sws__mm_free_pages(mm);
	st->free_pages = fp > 0 ? (uint64_t)fp : 0;
	st->kernel_swap_pages = (uint64_t)atomic_load_explicit(&mm->kernel_swap_pages, memory_order_relaxed);
	st->anon_pages = st->ram_pages - st->free_pages - st->kernel_swap_pages;
	struct sws_stats ss;
	sws_stats_snapshot(mm->sim, &ss);
	st->swapcache_pages = ss.nr_swapcache;
	st->nr_spaces = mm->nr_spaces;
}

void sws__mm_count_tier(struct sws_mm *mm, struct sws_cpu *cpu, unsigned type, bool write, uint64_t nr)
{
	const struct sws_device *dev = sws__get_swap_device(mm->sim, type);
	if (!dev)
		return;
	unsigned t = sws__device_tier(dev);
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	_Atomic uint64_t *c = write ? &p->tier_swpout[t] : &p->tier_swpin[t];
	sws_store_relaxed(c, sws_load_relaxed(c) + nr); /* single writer: this CPU */
}

void sws__mm_count_swpin(struct sws_mm *mm, struct sws_cpu *cpu, unsigned order, enum sws__swpin_stat stat)
{
	if (stat == SWS__SWPIN_FALLBACK_CHARGE) {
		atomic_fetch_add_explicit(&mm->swpin_fallback_charge[order - 1], 1, memory_order_relaxed);
		return;
	}
	_Atomic uint32_t *c = &mm->pcpu[sws__cpu_id(cpu)].swpin[stat][order - 1];
	sws_store_relaxed(c, sws_load_relaxed(c) + 1); /* single writer: this CPU */
}

void sws__mm_count_anon_fault(struct sws_mm *mm, struct sws_cpu *cpu, unsigned order, bool fallback, bool charge)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	_Atomic uint32_t *c = fallback ? &p->anon_fault_fallback[order - 1] : &p->anon_fault_alloc[order - 1];
	sws_store_relaxed(c, sws_load_relaxed(c) + 1); /* single writer: this CPU */
	if (charge) /* count_mthp_stat(MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE) */
		sws_store_relaxed(&p->anon_fault_fallback_charge[order - 1],
				  sws_load_relaxed(&p->anon_fault_fallback_charge[order - 1]) + 1);
}

/* The obsolete names (swapsim/mm.h), for callers built against them. */
void sws_mm_stats(struct sws_mm *mm, struct sws_mm_stats *out) { sws_mm_stats_get(mm, out); }

void sws_mm_cpu_time(const struct sws_mm *mm, const struct sws_cpu *cpu, struct sws_mm_cpu_time *out)
{
	sws_mm_cpu_time_get(mm, cpu, out);
}
