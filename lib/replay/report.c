/*
 * report.c - printing replay reports through a write callback: configurations
 * side by side, each with its repeated runs, as an aligned table that reads
 * like a kernel cover letter (timing figures as mean ± standard deviation,
 * differences from the first configuration in percent with their spread, the
 * deterministic work per swapped page, counters, peaks, memory), one JSON
 * object {"runs": [...]} (repeats and summary statistics per configuration),
 * and CSV time-series rows. Counter names are the kernel's as the memory
 * model and the swap core define them; docs/replay.md ("Reading the report")
 * explains every row.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <swapsim/swapsim.h>

#include "replay_internal.h"

#define STR2(x) #x
#define STR(x) STR2(x)
/* libswapsim's version, "MAJOR.MINOR.PATCH" (swapsim/swapsim.h) */
#define LIB_VERSION STR(SWS_VERSION_MAJOR) "." STR(SWS_VERSION_MINOR) "." STR(SWS_VERSION_PATCH)

/* ---- figures: what is compared, with its statistics over the repeats ------------------- */

typedef double (*getter)(const struct sws_replay_report *r);

/* Without libm (libswapsim links none): x squared, and Newton's square root. */
static double sqd(double x) { return x * x; }
double sws__sqrt(double x)
{
	if (x <= 0)
		return 0;
	double r = x > 1 ? x : 1;
	for (int i = 0; i < 64; i++) {
		double next = 0.5 * (r + x / r);
		if (next == r)
			break;
		r = next;
	}
	return r;
}

static double hist_mean(const struct sws_replay_hist *h) { return h->count ? (double)h->sum_ns / (double)h->count : 0; }

static double g_elapsed(const struct sws_replay_report *r) { return (double)r->time.elapsed_ns; }
static double g_sys(const struct sws_replay_report *r) { return (double)r->time.sys_ns; }
static double g_user(const struct sws_replay_report *r) { return (double)r->time.user_ns; }
static double g_iowait(const struct sws_replay_report *r) { return (double)r->time.iowait_ns; }
static double g_kswapd(const struct sws_replay_report *r) { return (double)r->time.kswapd_ns; }
static double g_swapoff(const struct sws_replay_report *r) { return (double)r->time.swapoff_ns; }
static double g_swapoff_sys(const struct sws_replay_report *r) { return (double)r->time.swapoff_sys_ns; }
static double g_tput(const struct sws_replay_report *r) { return r->workload.throughput_kbs; }
static double g_task_tput(const struct sws_replay_report *r) { return r->workload.task_throughput_kbs; }
static double g_free_lat(const struct sws_replay_report *r) { return r->workload.free_latency_us; }
static double g_fault(const struct sws_replay_report *r) { return hist_mean(&r->latency[SWS_REPLAY_LAT_FAULT]); }
static double g_fault_p99(const struct sws_replay_report *r)
{
	return (double)sws_replay_hist_quantile(&r->latency[SWS_REPLAY_LAT_FAULT], 0.99);
}
static double g_free(const struct sws_replay_report *r) { return hist_mean(&r->latency[SWS_REPLAY_LAT_FREE]); }
static double g_reclaim(const struct sws_replay_report *r) { return hist_mean(&r->latency[SWS_REPLAY_LAT_RECLAIM]); }
static double g_wall(const struct sws_replay_report *r) { return (double)r->wall_ns; }
static double g_eps(const struct sws_replay_report *r) { return r->events_per_sec; }

enum { F_ALWAYS, F_WORKLOAD, F_HOST, F_SWAPOFF }; /* F_HOST: the simulator's speed, always shown */

static const struct figure {
	const char *key;   /* JSON summary key (unit in the name) */
	const char *label; /* table row */
	double scale;      /* table value = value / scale */
	const char *fmt;   /* table format of the mean */
	int when;
	getter get;
} figures[] = {
	{"elapsed_ns", "Elapsed time (simulated, s)", 1e9, "%.4f", F_ALWAYS, g_elapsed},
	{"sys_ns", "System time (s)", 1e9, "%.4f", F_ALWAYS, g_sys},
	{"user_ns", "User time (s)", 1e9, "%.4f", F_ALWAYS, g_user},
	{"iowait_ns", "I/O wait (s)", 1e9, "%.4f", F_ALWAYS, g_iowait},
	{"kswapd_ns", "Background reclaim (kswapd, s)", 1e9, "%.4f", F_ALWAYS, g_kswapd},
	{"swapoff_ns", "Swapoff at the end (simulated, s)", 1e9, "%.4f", F_SWAPOFF, g_swapoff},
	{"swapoff_sys_ns", "Swapoff system time (s)", 1e9, "%.4f", F_SWAPOFF, g_swapoff_sys},
	{"throughput_kbs", "Sum Throughput (MB/s)", 1024, "%.2f", F_WORKLOAD, g_tput},
	{"task_throughput_kbs", "Single process Throughput (MB/s)", 1024, "%.2f", F_WORKLOAD, g_task_tput},
	{"free_latency_us", "Free latency (us)", 1, "%.2f", F_WORKLOAD, g_free_lat},
	{"fault_mean_ns", "Fault latency, mean (us)", 1e3, "%.3f", F_ALWAYS, g_fault},
	{"fault_p99_ns", "Fault latency, p99 bucket (us)", 1e3, "%.3f", F_ALWAYS, g_fault_p99},
	{"free_mean_ns", "munmap/exit/DONTNEED, mean (us)", 1e3, "%.3f", F_ALWAYS, g_free},
	{"reclaim_mean_ns", "Direct reclaim round, mean (us)", 1e3, "%.3f", F_ALWAYS, g_reclaim},
	{"wall_ns", "Host wall time (s)", 1e9, "%.4f", F_HOST, g_wall},
	{"events_per_sec", "Host events/s (M)", 1e6, "%.3f", F_HOST, g_eps},
};
#define NR_FIGURES (sizeof(figures) / sizeof(figures[0]))

struct stat {
	double mean, stdev, min, max;
};

static struct stat stat_of(const struct sws_replay_series *s, getter get)
{
	struct stat st = {0, 0, 0, 0};
	double sum = 0, sq = 0;
	for (unsigned k = 0; k < s->nr_repeats; k++) {
		double v = get(s->repeats[k]);
		sum += v;
		if (!k || v < st.min)
			st.min = v;
		if (!k || v > st.max)
			st.max = v;
	}
	st.mean = sum / s->nr_repeats;
	for (unsigned k = 0; k < s->nr_repeats; k++) {
		double d = get(s->repeats[k]) - st.mean;
		sq += d * d;
	}
	st.stdev = s->nr_repeats > 1 ? sws__sqrt(sq / (s->nr_repeats - 1)) : 0; /* sample standard deviation */
	return st;
}

/* Does report @r have figure @f? (usemem figures, a swapoff's time) */
static bool figure_in(const struct figure *f, const struct sws_replay_report *r)
{
	return f->when == F_WORKLOAD ? r->workload.valid : f->when == F_SWAPOFF ? r->time.swapoff : true;
}

static bool figure_shown(const struct figure *f, const struct sws_replay_series *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!figure_in(f, s[i].repeats[0]))
			return false;
	return true;
}

int sws__figure_get(const struct sws_replay_report *r, const char *key, double *v)
{
	for (unsigned f = 0; f < NR_FIGURES; f++) {
		if (strcmp(figures[f].key, key))
			continue;
		if (!figure_in(&figures[f], r))
			return SWS_EINVAL;
		*v = figures[f].get(r) / figures[f].scale;
		return 0;
	}
	return SWS_EINVAL;
}

/* Are the deterministic counters of every repeat of @s the same? */
static bool counters_identical(const struct sws_replay_series *s)
{
	for (unsigned k = 1; k < s->nr_repeats; k++)
		if (!sws_replay_counters_equal(s->repeats[0], s->repeats[k]))
			return false;
	return true;
}

static const char *label_of(const struct sws_replay_series *s)
{
	return s->label ? s->label : sws_backend_name(s->repeats[0]->backend);
}

const char *sws__series_label(const struct sws_replay_series *s) { return label_of(s); }

bool sws__row_shown(const struct sws_replay_series *s, unsigned n, uint32_t flags,
		    uint64_t (*get)(const struct sws_replay_report *r, unsigned idx), unsigned idx)
{
	if (flags & SWS_REPLAY_PRINT_ALL_COUNTERS)
		return true;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < s[i].nr_repeats; k++)
			if (get(s[i].repeats[k], idx))
				return true;
	return false;
}

/* ---- the work report ---------------------------------------------------------------------- */

/* Pages that left RAM by swap-out, came back by swap-in, swap entries freed. */
static double work_base(const struct sws_replay_report *r, enum sws_work_ctx c)
{
	const uint64_t *m = r->mm.counters;
	switch (c) {
	case SWS_WCTX_swapout:
		return (double)(m[SWS_MM_pswpout] + m[SWS_MM_zswpout] + m[SWS_MM_swpout_zero]);
	case SWS_WCTX_swapin:
		return (double)(m[SWS_MM_pswpin] + m[SWS_MM_zswpin] + m[SWS_MM_swpin_zero]);
	case SWS_WCTX_free:
		return (double)m[SWS_MM_free_slots_batched];
	default:
		return 0;
	}
}

static const char *const work_base_name[SWS_NR_WORK_CTX] = {
	[SWS_WCTX_swapout] = "swapped-out page", [SWS_WCTX_swapin] = "swapped-in page",
	[SWS_WCTX_free] = "freed swap entry"};

/* Mean over the repeats of work @w per base unit in context @c. */
static double work_per(const struct sws_replay_series *s, enum sws_work_ctx c, enum sws_work w)
{
	double sum = 0;
	for (unsigned k = 0; k < s->nr_repeats; k++) {
		double base = work_base(s->repeats[k], c);
		sum += base ? (double)s->repeats[k]->swap.work[c][w] / base : 0;
	}
	return sum / s->nr_repeats;
}

/* ---- table ------------------------------------------------------------------------------- */

#define NAMEW 36
#define COLW 30

static void cell(struct sws__out *o, const char *text) { sws__pr(o, " %*s", COLW, text); }

/* One figure: mean ±relative stdev, and for the others the difference from the first. */
static void print_figure(struct sws__out *o, const struct figure *f, const struct sws_replay_series *s,
			 unsigned n)
{
	struct stat base = stat_of(&s[0], f->get);
	sws__pr(o, "%-*s", NAMEW, f->label);
	for (unsigned i = 0; i < n; i++) {
		struct stat st = i ? stat_of(&s[i], f->get) : base;
		char c[96], v[40];
		snprintf(v, sizeof(v), f->fmt, st.mean / f->scale);
		int len = snprintf(c, sizeof(c), "%s", v);
		if (s[i].nr_repeats > 1 && st.mean)
			len += snprintf(c + len, sizeof(c) - (size_t)len, " ±%.1f%%", 100 * st.stdev / sws__absd(st.mean));
		if (i && base.mean) {
			double ratio = st.mean / base.mean;
			double spread = sws__absd(ratio) * sws__sqrt(sqd(base.stdev / base.mean) +
							    (st.mean ? sqd(st.stdev / st.mean) : 0));
			len += snprintf(c + len, sizeof(c) - (size_t)len, " (%+.2f%%", 100 * (ratio - 1));
			if (s[i].nr_repeats > 1 || s[0].nr_repeats > 1)
				len += snprintf(c + len, sizeof(c) - (size_t)len, " ±%.2f", 100 * spread);
			snprintf(c + len, sizeof(c) - (size_t)len, ")");
		}
		cell(o, c);
	}
	sws__pr(o, "\n");
}

/* Work @w per base unit of context @c in repeat @k of @s. */
static double work_one(const struct sws_replay_series *s, unsigned k, enum sws_work_ctx c, enum sws_work w)
{
	double base = work_base(s->repeats[k], c);
	return base ? (double)s->repeats[k]->swap.work[c][w] / base : 0;
}

static void print_work(struct sws__out *o, const struct sws_replay_series *s, unsigned n)
{
	char name[80], c[64];
	for (unsigned ctx = SWS_WCTX_swapout; ctx < SWS_NR_WORK_CTX; ctx++) {
		bool any = false;
		for (unsigned i = 0; i < n; i++)
			any |= work_base(s[i].repeats[0], ctx) > 0;
		if (!any)
			continue;
		sws__pr(o, "-- work per %s (deterministic for one seed: the repeats' value; mean ±relative "
		      "spread where they differ)\n", work_base_name[ctx]);
		for (unsigned w = 0; w < SWS_NR_WORK; w++) {
			bool nonzero = false;
			for (unsigned i = 0; i < n; i++)
				nonzero |= work_per(&s[i], ctx, w) != 0;
			if (!nonzero)
				continue;
			snprintf(name, sizeof(name), "%s", sws_work_name((enum sws_work)w));
			sws__pr(o, "%-*s", NAMEW, name);
			for (unsigned i = 0; i < n; i++) {
				double mean = work_per(&s[i], ctx, w), sq = 0, first = work_one(&s[i], 0, ctx, w);
				bool same = true;
				for (unsigned k = 0; k < s[i].nr_repeats; k++) {
					double v = work_one(&s[i], k, ctx, w);
					same &= v == first;
					sq += sqd(v - mean);
				}
				if (same)
					snprintf(c, sizeof(c), "%.3f", mean);
				else
					snprintf(c, sizeof(c), "%.3f ±%.2f%%", mean,
						 mean ? 100 * sws__sqrt(sq / (s[i].nr_repeats - 1)) / mean : 0);
				cell(o, c);
			}
			sws__pr(o, "\n");
		}
	}
}

static bool any_backing(const struct sws_replay_report *r)
{
	return r->swap.counters[SWS_CTR_swap_writepage] || r->swap.counters[SWS_CTR_swap_readpage] ||
	       r->swap.counters[SWS_CTR_swap_writepage_error];
}

typedef uint64_t (*uget)(const struct sws_replay_report *r, unsigned idx);

/* Value @get(idx) of every configuration: the repeats' value when they agree, else
 * their mean with the relative spread (several threads). */
static void row_counter(struct sws__out *o, const char *name, const struct sws_replay_series *s, unsigned n,
			uget get, unsigned idx)
{
	char c[64];
	sws__pr(o, "%-*s", NAMEW, name);
	for (unsigned i = 0; i < n; i++) {
		double sum = 0, sq = 0, first = (double)get(s[i].repeats[0], idx);
		bool same = true;
		for (unsigned k = 0; k < s[i].nr_repeats; k++) {
			double v = (double)get(s[i].repeats[k], idx);
			sum += v;
			same &= v == first;
		}
		double mean = sum / s[i].nr_repeats;
		for (unsigned k = 0; k < s[i].nr_repeats; k++)
			sq += sqd((double)get(s[i].repeats[k], idx) - mean);
		if (same)
			snprintf(c, sizeof(c), "%" PRIu64, get(s[i].repeats[0], idx));
		else
			snprintf(c, sizeof(c), "%.0f ±%.2f%%", mean,
				 mean ? 100 * sws__sqrt(sq / (s[i].nr_repeats - 1)) / mean : 0);
		cell(o, c);
	}
	sws__pr(o, "\n");
}

static uint64_t mm_ctr(const struct sws_replay_report *r, unsigned c) { return r->mm.counters[c]; }
static uint64_t swap_ctr(const struct sws_replay_report *r, unsigned c) { return r->swap.counters[c]; }
static uint64_t swpout(const struct sws_replay_report *r, unsigned o) { return r->mm.swpout[o]; }
static uint64_t swpout_fb(const struct sws_replay_report *r, unsigned o) { return r->mm.swpout_fallback[o]; }
static uint64_t swpin(const struct sws_replay_report *r, unsigned o) { return r->mm.swpin[o]; }
static uint64_t swpin_fb(const struct sws_replay_report *r, unsigned o) { return r->mm.swpin_fallback[o]; }
static uint64_t swpin_fb_charge(const struct sws_replay_report *r, unsigned o)
{
	return r->mm.swpin_fallback_charge[o];
}
static uint64_t af_alloc(const struct sws_replay_report *r, unsigned o) { return r->mm.anon_fault_alloc[o]; }
static uint64_t af_fb(const struct sws_replay_report *r, unsigned o) { return r->mm.anon_fault_fallback[o]; }
static uint64_t af_fb_charge(const struct sws_replay_report *r, unsigned o)
{
	return r->mm.anon_fault_fallback_charge[o];
}
static uint64_t wl_killed(const struct sws_replay_report *r, unsigned i) { (void)i; return r->workload.killed; }

/* The counters: rows that are 0 in every run left out, unless every row is asked for. */
static void print_counters(struct sws__out *o, const struct sws_replay_series *s, unsigned n, uint32_t flags)
{
	char name[64];
	unsigned hidden = 0;
	sws__pr(o, "-- counters (the repeats' value; mean ±relative spread where they differ%s)\n",
		flags & SWS_REPLAY_PRINT_ALL_COUNTERS ? "" : "; those 0 in every run left out");
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++) {
		if (sws__row_shown(s, n, flags, mm_ctr, c))
			row_counter(o, sws_mm_counter_name((enum sws_mm_counter)c), s, n, mm_ctr, c);
		else
			hidden++;
	}
	/* per folio order; a large swap-in is of an order from 1 to below the PMD's */
	static const struct {
		const char *name;
		uint64_t (*get)(const struct sws_replay_report *, unsigned);
		unsigned lo, hi;
	} per_order[] = {{"anon_fault_alloc", af_alloc, 1, SWS_NR_ORDERS},
			 {"anon_fault_fallback", af_fb, 1, SWS_NR_ORDERS},
			 {"anon_fault_fallback_charge", af_fb_charge, 1, SWS_NR_ORDERS},
			 {"swpout", swpout, 0, SWS_NR_ORDERS},
			 {"swpout_fallback", swpout_fb, 0, SWS_NR_ORDERS},
			 {"swpin", swpin, 1, SWS_NR_ORDERS - 1},
			 {"swpin_fallback", swpin_fb, 1, SWS_NR_ORDERS - 1},
			 {"swpin_fallback_charge", swpin_fb_charge, 1, SWS_NR_ORDERS - 1}};
	for (unsigned ord = 0; ord < SWS_NR_ORDERS; ord++) {
		for (unsigned k = 0; k < SWS_ARRAY_SIZE(per_order); k++) {
			if (ord < per_order[k].lo || ord >= per_order[k].hi)
				continue;
			if (!sws__row_shown(s, n, flags, per_order[k].get, ord)) {
				hidden++;
				continue;
			}
			snprintf(name, sizeof(name), "%s[%u]", per_order[k].name, ord);
			row_counter(o, name, s, n, per_order[k].get, ord);
		}
	}
	bool backing = false;
	for (unsigned i = 0; i < n; i++)
		backing |= any_backing(s[i].repeats[0]);
	for (unsigned c = 0; c < SWS_NR_COUNTERS; c++) {
		/* Page I/O to a store (swap_discard counts discarded clusters with or
		 * without one: it is always shown). */
		if (!backing && (c == SWS_CTR_swap_writepage || c == SWS_CTR_swap_readpage ||
				 c == SWS_CTR_swap_writepage_error))
			continue; /* said below */
		if (sws__row_shown(s, n, flags, swap_ctr, c))
			row_counter(o, sws_counter_name((enum sws_counter)c), s, n, swap_ctr, c);
		else
			hidden++;
	}
	if (hidden)
		sws__pr(o, "(%u counters are 0 in every run and left out: --all-counters shows them)\n", hidden);
	if (!backing)
		sws__pr(o, "(no device has a backing store here: pages are not stored, only their I/O time is\n"
		      " modelled, so swap_writepage, swap_readpage and swap_writepage_error count nothing;\n"
		      " --verify or file= give devices a store)\n");
}

static uint64_t ratio_x100(uint64_t stored_pages, uint64_t bytes)
{
	return bytes ? stored_pages * SWS_PAGE_SIZE * 100 / bytes : 0;
}

/* The state rows: value @idx of one report. */
enum {
	ST_SWAP_PEAK, ST_SWAP_END, ST_TOTAL_SWAP, ST_POOL_PEAK, ST_RATIO_PEAK, ST_POOL_END, ST_STORED_END,
	ST_INCOMP_END, ST_RAM, ST_FREE_END, ST_ANON_END, ST_SWAPCACHE_END, ST_STATIC, ST_STATIC_PEAK,
	ST_DYNAMIC, ST_DYNAMIC_PEAK, ST_THREADS, ST_TASKS, ST_EVENTS, ST_ACCESSES, ST_ERRORS, NR_ST
};
static const char *const state_name[NR_ST] = {
	"swap_used_pages.peak", "swap_used_pages.end", "total_swap_pages", "pool_total_size.peak",
	"compression_ratio_x100.peak", "pool_total_size.end", "stored_pages.end",
	"stored_incompressible_pages.end", "ram_pages", "free_pages.end", "anon_pages.end",
	"swapcache_pages.end", "static.end", "static.peak", "dynamic.end", "dynamic.peak", "threads", "tasks", "events", "accesses", "errors"};

static uint64_t state_val(const struct sws_replay_report *r, unsigned idx)
{
	switch (idx) {
	case ST_SWAP_PEAK: return r->peaks.swap_used_pages;
	case ST_SWAP_END: return r->swap.total_swap_pages - r->swap.nr_swap_pages;
	case ST_TOTAL_SWAP: return r->swap.total_swap_pages;
	case ST_POOL_PEAK: return r->peaks.pool_total_size;
	case ST_RATIO_PEAK: return ratio_x100(r->peaks.pool_stored_pages, r->peaks.pool_total_size);
	case ST_POOL_END: return r->mm.pool_total_size;
	case ST_STORED_END: return r->mm.stored_pages;
	case ST_INCOMP_END: return r->mm.stored_incompressible_pages;
	case ST_RAM: return r->mm.ram_pages;
	case ST_FREE_END: return r->mm.free_pages;
	case ST_ANON_END: return r->mm.anon_pages;
	case ST_SWAPCACHE_END: return r->mm.swapcache_pages;
	case ST_STATIC: return r->memory.static_bytes;
	case ST_STATIC_PEAK: return r->peaks.static_bytes;
	case ST_DYNAMIC: return r->memory.dynamic_bytes;
	case ST_DYNAMIC_PEAK: return r->peaks.dynamic_bytes;
	case ST_THREADS: return r->threads;
	case ST_TASKS: return r->nr_tasks;
	case ST_EVENTS: return r->events;
	case ST_ACCESSES: return r->accesses;
	case ST_ERRORS: return r->errors;
	default: return 0;
	}
}

static void row_state(struct sws__out *o, const struct sws_replay_series *s, unsigned n, unsigned idx)
{
	row_counter(o, state_name[idx], s, n, state_val, idx);
}

static uint64_t lat_count(const struct sws_replay_report *r, unsigned l) { return r->latency[l].count; }
static uint64_t lat_p50(const struct sws_replay_report *r, unsigned l)
{
	return sws_replay_hist_quantile(&r->latency[l], 0.5);
}
static uint64_t lat_max(const struct sws_replay_report *r, unsigned l) { return r->latency[l].max_ns; }
static uint64_t mem_end(const struct sws_replay_report *r, unsigned c) { return r->memory.bytes[c]; }
static uint64_t mem_peak(const struct sws_replay_report *r, unsigned c) { return r->swap.mem_peak[c]; }

/* Peaks, end state, latency and memory: every row is the repeats' value, or their
 * mean ±relative spread where they differ (as the counters). */
static void print_state(struct sws__out *o, const struct sws_replay_series *s, unsigned n)
{
	char name[64];
	sws__pr(o, "-- peaks (sampled every deferred-work step) and end of run (the repeats' value; mean "
	      "±relative spread where they differ)\n");
	for (unsigned st = ST_SWAP_PEAK; st <= ST_SWAPCACHE_END; st++)
		row_state(o, s, n, st);
	sws__pr(o, "-- latency (simulated ns; p50 is a log2-bucket upper bound; the repeats' value, mean "
	      "±relative spread where they differ)\n");
	for (unsigned l = 0; l < SWS_REPLAY_NR_LAT; l++) {
		const char *ln = sws_replay_lat_name((enum sws_replay_lat)l);
		snprintf(name, sizeof(name), "%s.count", ln);
		row_counter(o, name, s, n, lat_count, l);
		snprintf(name, sizeof(name), "%s.p50", ln);
		row_counter(o, name, s, n, lat_p50, l);
		snprintf(name, sizeof(name), "%s.max", ln);
		row_counter(o, name, s, n, lat_max, l);
	}
	sws__pr(o, "-- metadata memory (bytes at the end / at the peak; the repeats' value, mean ±relative "
	      "spread where they differ)\n");
	for (unsigned st = ST_STATIC; st <= ST_DYNAMIC_PEAK; st++)
		row_state(o, s, n, st); /* the sums' peaks: sampled every deferred-work step */
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++) {
		bool any = false;
		for (unsigned i = 0; i < n; i++)
			for (unsigned k = 0; k < s[i].nr_repeats; k++)
				any |= s[i].repeats[k]->swap.mem_peak[c] != 0;
		if (!any)
			continue;
		snprintf(name, sizeof(name), "%s.end", sws_mem_class_name((enum sws_mem_class)c));
		row_counter(o, name, s, n, mem_end, c);
		snprintf(name, sizeof(name), "%s.peak", sws_mem_class_name((enum sws_mem_class)c));
		row_counter(o, name, s, n, mem_peak, c);
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < s[i].nr_repeats; k++) {
			const struct sws_replay_report *r = s[i].repeats[k];
			for (uint32_t d = 0; d < r->nr_devices; d++)
				if (r->devices[d].write_errors)
					sws__pr(o, "%s (repeat %u): swap device %u: %" PRIu64 " page writes failed (errno %d)%s\n",
					   label_of(&s[i]), k + 1, d + 1, r->devices[d].write_errors,
					   r->devices[d].write_errno,
					   r->devices[d].write_failed ? "; it took no new slots after that" : "");
		}
}

static uint64_t r_cpus(const struct sws_replay_report *r, unsigned i) { (void)i; return r->cpus; }
static uint64_t m_cost(const struct sws_replay_report *r, unsigned c) { return r->model.cost_ps[c]; }
static uint64_t m_wait(const struct sws_replay_report *r, unsigned l) { return r->model.lock_wait_ps[l]; }
static uint64_t m_waits(const struct sws_replay_report *r, unsigned l) { return r->model.lock_waits[l]; }
static uint64_t m_other(const struct sws_replay_report *r, unsigned k)
{
	const struct sws_replay_model *m = &r->model;
	const uint64_t v[] = {m->spin_ps, m->device_cpu_ps, m->user_ps, m->busy_ps, m->io_wait_ps};
	return v[k];
}

/* A row of picoseconds shown as milliseconds, @get(idx) of the first repeat (the
 * modelled clock's figures do not vary between repeats with the same seed). */
static void row_ms(struct sws__out *o, const char *name, const struct sws_replay_series *s, unsigned n, uget get,
		   unsigned idx)
{
	char c[64];
	bool any = false;
	for (unsigned i = 0; i < n; i++)
		any |= get(s[i].repeats[0], idx) != 0;
	if (!any)
		return;
	sws__pr(o, "%-*s", NAMEW, name);
	for (unsigned i = 0; i < n; i++) {
		snprintf(c, sizeof(c), "%.3f", (double)get(s[i].repeats[0], idx) / 1e9);
		cell(o, c);
	}
	sws__pr(o, "\n");
}

/* Where the modelled time went, per design: CPU time by cost class, and waits. */
static void print_model(struct sws__out *o, const struct sws_replay_series *s, unsigned n)
{
	static const char *const other[] = {"lock spinning", "device work on the CPU (pmem, zram)",
					    "user (the tasks' own code)", "CPU time, all of the above",
					    "waiting for devices"};
	sws__pr(o, "-- modelled CPU time by cost class (ms, all CPUs; docs/modelled-time.md)\n");
	for (unsigned c = 0; c < SWS_NR_COSTS; c++)
		row_ms(o, sws_cost_name((enum sws_cost)c), s, n, m_cost, c);
	for (unsigned k = 0; k < 5; k++)
		row_ms(o, other[k], s, n, m_other, k);
	sws__pr(o, "-- lock waits (ms waited, all CPUs; then the acquisitions that waited)\n");
	char name[64];
	for (unsigned l = 0; l < SWS_NR_LOCK_CLASSES; l++) {
		bool any = false;
		for (unsigned i = 0; i < n; i++)
			any |= s[i].repeats[0]->model.lock_waits[l] != 0;
		if (!any)
			continue;
		snprintf(name, sizeof(name), "%s", sws_lock_class_name((enum sws_lock_class)l));
		row_ms(o, name, s, n, m_wait, l);
		snprintf(name, sizeof(name), "%s (waits)", sws_lock_class_name((enum sws_lock_class)l));
		row_counter(o, name, s, n, m_waits, l);
	}
}

/* ---- what the report says about itself ------------------------------------------ */

/* @bytes as a size option takes it: the largest binary unit that divides it. */
static const char *size_str(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	unsigned u = 0;
	if (!bytes || bytes % 1024) {
		snprintf(buf, len, "%" PRIu64, bytes);
		return buf;
	}
	uint64_t v = bytes / 1024;
	while (u + 1 < sizeof(units) - 1 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", v, units[u]);
	return buf;
}

static const char *policy_name(enum sws_reclaim_policy p)
{
	return p == SWS_RECLAIM_LRU ? "lru" : p == SWS_RECLAIM_CLOCK ? "clock" : "kernel";
}

static const char *zswap_scheme_name(uint32_t flags)
{
	return flags & SWS_ZSWAP_OLD_SCHEME ? "old" : flags & SWS_ZSWAP_SECOND_CHANCE_ONLY ? "second-chance" : "both";
}

void sws__setup_line(const struct sws_replay_series *s, char *buf, size_t len)
{
	const struct sws_replay_setup *st = &s->repeats[0]->setup;
	char a[32];
	size_t at = 0;
#define ADD(...)                                                                  \
	do {                                                                      \
		if (at < len)                                                     \
			at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__); \
	} while (0)
	buf[0] = 0;
	ADD("RAM %s", size_str(st->ram_pages * SWS_PAGE_SIZE, a, sizeof(a)));
	if (st->mem_limit_pages || st->mem_high_pages) {
		ADD(", memcg %s", st->mem_limit_pages ? size_str(st->mem_limit_pages * SWS_PAGE_SIZE, a, sizeof(a))
						      : "without limit");
		if (st->mem_high_pages)
			ADD(" high %s", size_str(st->mem_high_pages * SWS_PAGE_SIZE, a, sizeof(a)));
		ADD("%s (cgroup v%u)", st->flags & SWS_REPLAY_MEMCG_PER_TASK ? " per task" : "", st->cgroup);
	} else {
		ADD(st->flags & SWS_REPLAY_MEMCG_OFF ? ", memcg off (cgroup_disable=memory)" : ", no memcg");
	}
	for (uint32_t i = 0; i < st->nr_swap; i++) {
		const struct sws_replay_swap *sw = &st->swap[i];
		ADD("%s %s", i ? " +" : ", swap", sws_replay_swap_kind_name(sw->kind));
		if (sw->kind == SWS_REPLAY_SWAP_XSWAP) {
			if (sw->limit_pages)
				ADD(" limit %" PRIu64 "p", sw->limit_pages);
		} else {
			ADD(" %s (%g/%g us read/write)", size_str(sw->pages * SWS_PAGE_SIZE, a, sizeof(a)),
			    (double)sw->read_ns / 1e3, (double)sw->write_ns / 1e3);
		}
		if (sw->prio >= 0)
			ADD(" prio %d", sw->prio);
		if (sw->path)
			ADD(" file %s", sw->path);
		if (sw->swap_flags & SWS_REPLAY_SWAP_DISCARD)
			ADD(" discard");
		if (sw->tier)
			ADD(" tier %s", sw->tier);
	}
	if (st->memcg_swap_tiers)
		ADD(", memcg swap tiers %s", st->memcg_swap_tiers);
	ADD(", page-cluster %u", st->page_cluster);
	if (st->anon_orders) {
		ADD(", mTHP");
		for (unsigned k = SWS_NR_ORDERS; k-- > 1;)
			if (st->anon_orders & 1u << k)
				ADD(" %uK", 4u << k);
	}
	if (st->anon_orders_madvise) {
		ADD(", mTHP madvise");
		for (unsigned k = SWS_NR_ORDERS; k-- > 1;)
			if (st->anon_orders_madvise & 1u << k)
				ADD(" %uK", 4u << k);
	}
	if (st->thp_defrag) /* the default, madvise, unsaid */
		ADD(", THP defrag %s", sws_thp_defrag_name((enum sws_thp_defrag)st->thp_defrag));
	if (st->flags & SWS_REPLAY_ZSWAP)
		ADD(", zswap %s (max_pool_percent %u, accept_threshold %u, shrinker %s, scheme %s)",
		    st->zswap_compressor, st->zswap_max_pool_percent, st->zswap_accept_threshold_percent,
		    st->zswap_flags & SWS_ZSWAP_SHRINKER ? "on" : "off", zswap_scheme_name(st->zswap_flags));
	else
		ADD(", zswap off");
	ADD(", %u CPU%s, policy %s", st->cpus, st->cpus == 1 ? "" : "s", policy_name(st->policy));
	/* Each repeat's own seed where they differ (the modelled clock's repeats). */
	bool one_seed = true, consecutive = true;
	for (unsigned k = 1; k < s->nr_repeats; k++) {
		one_seed &= s->repeats[k]->setup.seed == st->seed;
		consecutive &= s->repeats[k]->setup.seed == st->seed + k;
	}
	if (one_seed)
		ADD(", seed %" PRIu64, st->seed);
	else if (consecutive)
		ADD(", seeds %" PRIu64 " to %" PRIu64 " (one a repeat)", st->seed, st->seed + s->nr_repeats - 1);
	else
		for (unsigned k = 0; k < s->nr_repeats; k++)
			ADD("%s%" PRIu64, k ? ", " : ", seeds (one a repeat) ", s->repeats[k]->setup.seed);
	if (st->flags & SWS_REPLAY_VERIFY)
		ADD(", verify");
	if (st->flags & SWS_REPLAY_USER_RAM)
		ADD(", RAM for user pages only (swap metadata and zswap pool outside it)");
	if (st->swapoff_device)
		ADD(", swapoff of device %u at the end", st->swapoff_device);
#undef ADD
}

static const char *clock_meaning(enum sws_replay_clock c)
{
	return c == SWS_REPLAY_CLOCK_HOST ? "times are this host's CPU time measured around the model's kernel "
					    "paths, plus modelled device and user time"
	       : c == SWS_REPLAY_CLOCK_MODEL ? "modelled times on simulated CPUs from the cost table, the same on "
					       "every run and host"
					     : "";
}

/* The five lines that say what made the report: command, version, clock, input, machine. */
static void print_header(struct sws__out *o, const struct sws_replay_print_config *pc,
			 const struct sws_replay_series *s)
{
	const struct sws_replay_setup *st = &s[0].repeats[0]->setup;
	char line[1024];
	sws__pr(o, "command: %s\n", pc->command ? pc->command : "(not given)");
	if (pc->program)
		sws__pr(o, "version: %s %s (libswapsim %s)\n", pc->program,
			pc->program_version ? pc->program_version : LIB_VERSION, LIB_VERSION);
	else
		sws__pr(o, "version: libswapsim %s\n", LIB_VERSION);
	sws__pr(o, "clock:   %s (%s)\n", sws_replay_clock_name(st->clock), clock_meaning(st->clock));
	sws__pr(o, "input:   %s\n", pc->input ? pc->input : "(not given)");
	sws__setup_line(&s[0], line, sizeof(line));
	sws__pr(o, "machine: %s\n", line);
}

/* Figure @get's mean over the repeats of @s. */
static double mean_of(const struct sws_replay_series *s, getter get) { return stat_of(s, get).mean; }

static double g_meta_peak(const struct sws_replay_report *r)
{
	return (double)(r->peaks.static_bytes + r->peaks.dynamic_bytes);
}

/*
 * One verdict part: @what of @s against @base, the difference in percent with
 * its spread; a difference within its spread (several repeats) is "equal".
 */
static void verdict_part(struct sws__out *o, const struct sws_replay_series *s, const struct sws_replay_series *base,
			 getter get, const char *less, const char *more, const char *what, const char *detail)
{
	struct stat a = stat_of(s, get), b = stat_of(base, get);
	double diff = b.mean ? 100 * (a.mean / b.mean - 1) : 0;
	double spread = b.mean && a.mean ? 100 * sws__absd(a.mean / b.mean) *
						  sws__sqrt(sqd(b.stdev / b.mean) + sqd(a.stdev / a.mean))
					 : 0;
	bool noisy = (s->nr_repeats > 1 || base->nr_repeats > 1) && spread > 0;
	bool equal = a.mean == b.mean || (noisy && sws__absd(diff) <= spread);
	const char *sep = equal ? ", " : " (";
	if (equal)
		sws__pr(o, "equal %s (%+.2f%%", what, diff);
	else
		sws__pr(o, "%s by %.2f%%", diff < 0 ? less : more, sws__absd(diff));
	if (noisy) {
		sws__pr(o, "%s%s±%.2f", sep, equal ? "within its spread " : "", spread);
		sep = ", ";
	}
	if (detail) {
		sws__pr(o, "%s%s", sep, detail);
		sep = ", ";
	}
	if (sep[0] == ',')
		sws__pr(o, ")");
}

/* @bytes for a reader: B, KiB, MiB or GiB. */
static const char *bytes_str(double bytes, char *buf, size_t len)
{
	if (bytes < 1024)
		snprintf(buf, len, "%.0f B", bytes);
	else if (bytes < 1024.0 * 1024)
		snprintf(buf, len, "%.1f KiB", bytes / 1024);
	else if (bytes < 1024.0 * 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", bytes / (1024.0 * 1024));
	else
		snprintf(buf, len, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
	return buf;
}

/* One line per configuration after the first: how it compares with the first. */
static void print_verdicts(struct sws__out *o, const struct sws_replay_series *s, unsigned n)
{
	char a[32], b[32], detail[96];
	for (unsigned i = 1; i < n; i++) {
		sws__pr(o, "verdict: %s against %s: ", label_of(&s[i]), label_of(&s[0]));
		verdict_part(o, &s[i], &s[0], g_elapsed, "faster", "slower", "elapsed time", NULL);
		sws__pr(o, ", ");
		verdict_part(o, &s[i], &s[0], g_sys, "less system time", "more system time", "system time", NULL);
		sws__pr(o, ", ");
		snprintf(detail, sizeof(detail), "at the peak %s against %s",
			 bytes_str(mean_of(&s[i], g_meta_peak), a, sizeof(a)),
			 bytes_str(mean_of(&s[0], g_meta_peak), b, sizeof(b)));
		verdict_part(o, &s[i], &s[0], g_meta_peak, "less metadata memory", "more metadata memory",
			     "metadata memory", detail);
		sws__pr(o, "\n");
	}
}

/*
 * With several swap devices: one line per device and configuration, in
 * /proc/swaps' columns (Filename, Type, Size and Used in KiB, Priority) and
 * the peak of Used, from the first repeat. A device without a file is named
 * by its place in the configuration; Priority -1 is none.
 */
static void print_devices(struct sws__out *o, const struct sws_replay_series *s, unsigned n)
{
	if (s[0].repeats[0]->setup.nr_swap < 2)
		return;
	sws__pr(o, "-- swap devices (as /proc/swaps, KiB; Used at the end of the first repeat, Peak its largest)\n");
	sws__pr(o, "%-10s %-32s %-8s %12s %12s %12s %8s\n", "run", "Filename", "Type", "Size", "Used", "Peak",
		"Priority");
	for (unsigned i = 0; i < n; i++) {
		const struct sws_replay_report *r = s[i].repeats[0];
		for (uint32_t d = 0; d < r->nr_devices && d < r->setup.nr_swap; d++) {
			const struct sws_replay_device *dv = &r->devices[d];
			char fname[40];
			if (r->setup.swap[d].path)
				snprintf(fname, sizeof(fname), "%.32s", r->setup.swap[d].path);
			else
				snprintf(fname, sizeof(fname), "(--swap %u, no file)", d + 1);
			sws__pr(o, "%-10s %-32s %-8s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %8d\n",
				label_of(&s[i]), fname, sws_replay_swap_kind_name(dv->kind), dv->pages * 4,
				dv->inuse_pages * 4, dv->peak_inuse_pages * 4, r->setup.swap[d].prio);
		}
	}
}

/*
 * With swap tiers: per tier and configuration, its devices and the pages
 * written to and read from them (pswpout, pswpin by tier), from the first
 * repeat. Devices without a tier are left out.
 */
static void print_tiers(struct sws__out *o, const struct sws_replay_series *s, unsigned n)
{
	const struct sws_replay_setup *st0 = &s[0].repeats[0]->setup;
	const char *names[SWS_SWAP_NR_TIERS];
	if (!sws__replay_tiers(st0->swap, st0->nr_swap, names))
		return;
	sws__pr(o, "-- swap tiers (pages written to and read from each tier's devices, first repeat)\n");
	sws__pr(o, "%-10s %-16s %-16s %12s %12s\n", "run", "tier", "devices", "swpout", "swpin");
	for (unsigned i = 0; i < n; i++) {
		const struct sws_replay_report *r = s[i].repeats[0];
		unsigned nt = sws__replay_tiers(r->setup.swap, r->setup.nr_swap, names);
		for (unsigned k = 0; k < nt; k++) {
			char devs[17] = "";
			for (uint32_t d = 0, at = 0; d < r->setup.nr_swap && at < sizeof(devs); d++)
				if (r->setup.swap[d].tier && !strcmp(r->setup.swap[d].tier, names[k]))
					at += (uint32_t)snprintf(devs + at, sizeof(devs) - at, "%s%u", at ? "," : "",
								 d + 1);
			sws__pr(o, "%-10s %-16s %-16s %12" PRIu64 " %12" PRIu64 "\n", label_of(&s[i]), names[k], devs,
				r->mm.tier_swpout[k + 1], r->mm.tier_swpin[k + 1]);
		}
	}
}

static void print_table(struct sws__out *o, const struct sws_replay_print_config *pc,
			const struct sws_replay_series *s, unsigned n)
{
	const struct sws_replay_report *first[SWS_REPLAY_MAX_SERIES];
	unsigned repeats = s[0].nr_repeats;
	bool same = true, identical = true;
	for (unsigned i = 0; i < n; i++) {
		first[i] = s[i].repeats[0];
		same &= s[i].nr_repeats == repeats;
		identical &= counters_identical(&s[i]);
	}
	print_header(o, pc, s);
	if (repeats > 1 || !same)
		sws__pr(o, "%u configuration%s, %u repeat%s each (interleaved); counters identical across repeats: %s\n",
		   n, n == 1 ? "" : "s", repeats, repeats == 1 ? "" : "s",
		   identical ? "yes"
		   : s[0].repeats[0]->clock == SWS_REPLAY_CLOCK_MODEL ? "no (each repeat has its own seed)"
		   : first[0]->threads > 1 ? "no (expected with several threads)" : "NO");
	for (unsigned i = 0, said = 0; i < n && !said; i++)
		for (unsigned k = 0; k < s[i].nr_repeats && !said; k++)
			if ((said = s[i].repeats[k]->interrupted))
				sws__pr(o, "INTERRUPTED: %s stopped before its input ended: every figure covers what ran\n",
					label_of(&s[i]));
	sws__pr(o, "%-*s", NAMEW, "");
	for (unsigned i = 0; i < n; i++)
		cell(o, label_of(&s[i]));
	sws__pr(o, "\n");
	if (s[0].repeats[0]->clock == SWS_REPLAY_CLOCK_MODEL)
		row_counter(o, "cpus (simulated)", s, n, r_cpus, 0);
	for (unsigned st = ST_THREADS; st <= ST_ERRORS; st++)
		row_state(o, s, n, st);
	sws__pr(o, "%-*s", NAMEW, repeats > 1 ? "first_error (first repeat)" : "first_error");
	for (unsigned i = 0; i < n; i++)
		cell(o, first[i]->first_error ? sws_error_name(first[i]->first_error) : "-");
	sws__pr(o, "\n");
	for (unsigned i = 0; i < n; i++)
		for (uint32_t k = 0; k < first[i]->nr_refused; k++) {
			sws__pr(o, "refused (%s): ", label_of(&s[i]));
			sws_replay_refused_print(first[i], k, o->write, o->ctx);
		}
	sws__pr(o, "-- simulated time (mean%s; in parentheses the difference from %s)\n",
	   repeats > 1 ? " ±relative standard deviation" : "", label_of(&s[0]));
	for (unsigned f = 0; f < NR_FIGURES; f++)
		if (figures[f].when != F_HOST && figure_shown(&figures[f], s, n))
			print_figure(o, &figures[f], s, n);
	bool killed = false;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < s[i].nr_repeats; k++)
			killed |= s[i].repeats[k]->workload.killed != 0;
	if (killed) /* usemem's figures are those of the tasks that completed */
		row_counter(o, "usemem tasks OOM-killed (no figures)", s, n, wl_killed, 0);
	if (s[0].repeats[0]->clock == SWS_REPLAY_CLOCK_MODEL)
		print_model(o, s, n);
	sws__pr(o, "-- host (the simulator's own speed on this machine, measured: not a figure of the design)\n");
	for (unsigned f = 0; f < NR_FIGURES; f++)
		if (figures[f].when == F_HOST)
			print_figure(o, &figures[f], s, n);
	print_work(o, s, n);
	print_counters(o, s, n, pc->flags);
	print_state(o, s, n);
	print_devices(o, s, n);
	print_tiers(o, s, n);
	print_verdicts(o, s, n);
}

/* A JSON string (NULL: null). */
static void json_str(struct sws__out *o, const char *v)
{
	char buf[256];
	size_t at = 0;
	if (!v) {
		sws__pr(o, "null");
		return;
	}
	sws__pr(o, "\"");
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;
		if (at > sizeof(buf) - 8) {
			sws__pr(o, "%.*s", (int)at, buf);
			at = 0;
		}
		if (c == '"' || c == '\\')
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "\\%c", c);
		else if (c < 0x20)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "\\u%04x", c);
		else
			buf[at++] = (char)c;
	}
	sws__pr(o, "%.*s\"", (int)at, buf);
}

/* ---- JSON --------------------------------------------------------------------------------- */

/* A JSON number that keeps every digit: an integral value as an integer (the ns
 * figures are), anything else with 17 significant digits (a double read back is
 * the same double). */
static void json_num(struct sws__out *o, double v)
{
	if (v >= 0 && v < 9007199254740992.0 && v == (double)(uint64_t)v)
		sws__pr(o, "%" PRIu64, (uint64_t)v);
	else
		sws__pr(o, "%.17g", v);
}

static void json_hist(struct sws__out *o, const struct sws_replay_hist *h)
{
	sws__pr(o, "{\"count\":%" PRIu64 ",\"sum_ns\":%" PRIu64 ",\"mean_ns\":%" PRIu64
	      ",\"p50_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 ",\"buckets\":[",
	   h->count, h->sum_ns, h->count ? h->sum_ns / h->count : 0, sws_replay_hist_quantile(h, 0.5),
	   sws_replay_hist_quantile(h, 0.99), h->max_ns);
	unsigned last = 0;
	for (unsigned b = 0; b < SWS_REPLAY_HIST_BUCKETS; b++)
		if (h->bucket[b])
			last = b + 1;
	for (unsigned b = 0; b < last; b++)
		sws__pr(o, "%s%" PRIu64, b ? "," : "", h->bucket[b]);
	sws__pr(o, "]}");
}

static void json_orders(struct sws__out *o, const char *name, const uint64_t *v)
{
	sws__pr(o, "\"%s\":[", name);
	for (unsigned i = 0; i < SWS_NR_ORDERS; i++)
		sws__pr(o, "%s%" PRIu64, i ? "," : "", v[i]);
	sws__pr(o, "]");
}

static void json_counters(struct sws__out *o, const struct sws_replay_report *r)
{
	sws__pr(o, "\"counters\":{");
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		sws__pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mm_counter_name((enum sws_mm_counter)c),
		   r->mm.counters[c]);
	for (unsigned c = 0; c < SWS_NR_COUNTERS; c++)
		sws__pr(o, ",\"%s\":%" PRIu64, sws_counter_name((enum sws_counter)c), r->swap.counters[c]);
	/* the workload memcg's stats under their memory.stat names */
	sws__pr(o, ",\"zswap\":%" PRIu64 ",\"zswapped\":%" PRIu64 "}", r->memcg_zswap_bytes, r->memcg_zswapped_bytes);
}

/* The modelled clock's breakdown: "cpus", and "model" with each cost class's
 * units and ps, each lock class's waits and ps, and the other parts. */
static void json_model(struct sws__out *o, const struct sws_replay_report *r)
{
	const struct sws_replay_model *m = &r->model;
	sws__pr(o, "\"cpus\":%u,\"model\":{\"costs\":{", r->cpus);
	for (unsigned c = 0; c < SWS_NR_COSTS; c++)
		sws__pr(o, "%s\"%s\":{\"count\":%" PRIu64 ",\"ps\":%" PRIu64 "}", c ? "," : "",
		   sws_cost_name((enum sws_cost)c), m->cost_count[c], m->cost_ps[c]);
	sws__pr(o, "},\"lock_waits\":{");
	for (unsigned l = 0; l < SWS_NR_LOCK_CLASSES; l++)
		sws__pr(o, "%s\"%s\":{\"count\":%" PRIu64 ",\"ps\":%" PRIu64 "}", l ? "," : "",
		   sws_lock_class_name((enum sws_lock_class)l), m->lock_waits[l], m->lock_wait_ps[l]);
	sws__pr(o, "},\"spin_ps\":%" PRIu64 ",\"device_cpu_ps\":%" PRIu64 ",\"user_ps\":%" PRIu64 ",\"busy_ps\":%" PRIu64
	      ",\"io_wait_ps\":%" PRIu64 ",\"line_transfers\":%" PRIu64 "},",
	   m->spin_ps, m->device_cpu_ps, m->user_ps, m->busy_ps, m->io_wait_ps, m->line_transfers);
}

/* One run: everything it measured and counted. */
static void json_run(struct sws__out *o, const struct sws_replay_report *r)
{
	sws__pr(o, "{\"events\":%" PRIu64 ",\"accesses\":%" PRIu64 ",\"errors\":%" PRIu64
	      ",\"first_error\":%s%s%s,\"verify_failures\":%" PRIu64 ",\"interrupted\":%s,\"tasks\":%" PRIu64 ",",
	   r->events, r->accesses, r->errors, r->first_error ? "\"" : "",
	   r->first_error ? sws_error_name(r->first_error) : "null", r->first_error ? "\"" : "",
	   r->verify_failures, r->interrupted ? "true" : "false", r->nr_tasks);
	sws__pr(o, "\"refused\":[");
	for (uint32_t k = 0; k < r->nr_refused; k++) {
		const struct sws_replay_refused *f = &r->refused[k];
		sws__pr(o, "%s{\"%s\":%" PRIu64 ",\"op\":\"%s\",\"pid\":%" PRIu32 ",\"addr\":\"0x%" PRIx64
			   "\",\"error\":\"%s\"}",
			k ? "," : "", r->position_unit ? r->position_unit : "record", f->position,
			sws_trace_op_name(f->op), f->pid, f->addr, sws_error_name(f->error));
	}
	sws__pr(o, "],");
	for (unsigned f = 0; f < NR_FIGURES; f++) {
		if (!figure_in(&figures[f], r))
			continue;
		sws__pr(o, "\"%s\":", figures[f].key);
		json_num(o, figures[f].get(r));
		sws__pr(o, ",");
	}
	sws__pr(o, "\"sys_modelled_ns\":%" PRIu64 ",", r->time.sys_modelled_ns);
	if (r->workload.valid || r->workload.killed)
		sws__pr(o, "\"workload_tasks\":%u,\"workload_killed\":%u,", r->workload.tasks, r->workload.killed);
	sws__pr(o, "\"clock\":\"%s\",\"seed\":%" PRIu64 ",", sws_replay_clock_name(r->clock), r->setup.seed);
	if (r->clock == SWS_REPLAY_CLOCK_MODEL)
		json_model(o, r);
	json_counters(o, r);
	sws__pr(o, ",\"order_counters\":{");
	const struct {
		const char *name;
		const uint64_t *v;
	} mm_orders[] = {{"swpout", r->mm.swpout},
			 {"swpout_fallback", r->mm.swpout_fallback},
			 {"zswpout", r->mm.zswpout_order},
			 {"swpin", r->mm.swpin},
			 {"swpin_fallback", r->mm.swpin_fallback},
			 {"swpin_fallback_charge", r->mm.swpin_fallback_charge},
			 {"anon_fault_alloc", r->mm.anon_fault_alloc},
			 {"anon_fault_fallback", r->mm.anon_fault_fallback},
			 {"anon_fault_fallback_charge", r->mm.anon_fault_fallback_charge}};
	for (unsigned k = 0; k < SWS_ARRAY_SIZE(mm_orders); k++) {
		sws__pr(o, k ? "," : "");
		json_orders(o, mm_orders[k].name, mm_orders[k].v);
	}
	for (unsigned c = 0; c < SWS_NR_ORDER_COUNTERS; c++) {
		sws__pr(o, ",");
		json_orders(o, sws_order_counter_name((enum sws_order_counter)c), r->swap.order_counters[c]);
	}
	sws__pr(o, "},\"work\":{");
	for (unsigned c = 0; c < SWS_NR_WORK_CTX; c++) {
		sws__pr(o, "%s\"%s\":{", c ? "," : "", sws_work_ctx_name((enum sws_work_ctx)c));
		for (unsigned w = 0; w < SWS_NR_WORK; w++)
			sws__pr(o, "%s\"%s\":%" PRIu64, w ? "," : "", sws_work_name((enum sws_work)w), r->swap.work[c][w]);
		sws__pr(o, "}");
	}
	sws__pr(o, "},\"state\":{\"ram_pages\":%" PRIu64 ",\"free_pages\":%" PRIu64 ",\"anon_pages\":%" PRIu64
	      ",\"swapcache_pages\":%" PRIu64 ",\"total_swap_pages\":%" PRIu64
	      ",\"swap_used_pages\":%" PRIu64 ",\"nr_spaces\":%" PRIu64 ",\"kernel_swap_pages\":%" PRIu64 "}",
	   r->mm.ram_pages, r->mm.free_pages, r->mm.anon_pages, r->mm.swapcache_pages,
	   r->swap.total_swap_pages, r->swap.total_swap_pages - r->swap.nr_swap_pages, r->mm.nr_spaces,
	   r->mm.kernel_swap_pages);
	sws__pr(o, ",\"peaks\":{\"swap_used_pages\":%" PRIu64 ",\"pool_total_size\":%" PRIu64
	      ",\"compression_ratio\":%.17g}",
	   r->peaks.swap_used_pages, r->peaks.pool_total_size,
	   r->peaks.pool_total_size ? (double)(r->peaks.pool_stored_pages * SWS_PAGE_SIZE) / (double)r->peaks.pool_total_size
				    : 0.0);
	sws__pr(o, ",\"zswap\":{\"stored_pages\":%" PRIu64 ",\"stored_incompressible_pages\":%" PRIu64
	      ",\"pool_total_size\":%" PRIu64 ",\"pool_limit_pages\":%" PRIu64
	      ",\"compression_ratio\":%.17g}",
	   r->mm.stored_pages, r->mm.stored_incompressible_pages, r->mm.pool_total_size,
	   r->mm.pool_limit_pages,
	   r->mm.pool_total_size ? (double)(r->mm.stored_pages * SWS_PAGE_SIZE) / (double)r->mm.pool_total_size
				 : 0.0);
	sws__pr(o,
	   ",\"memory\":{\"static_bytes\":%" PRIu64 ",\"dynamic_bytes\":%" PRIu64 ",\"static_peak_bytes\":%" PRIu64
	   ",\"dynamic_peak_bytes\":%" PRIu64 ",\"classes\":{",
	   r->memory.static_bytes, r->memory.dynamic_bytes, r->peaks.static_bytes, r->peaks.dynamic_bytes);
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		sws__pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mem_class_name((enum sws_mem_class)c),
		   r->memory.bytes[c]);
	sws__pr(o, "},\"peak\":{");
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		sws__pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mem_class_name((enum sws_mem_class)c),
		   r->swap.mem_peak[c]);
	sws__pr(o, "}},\"devices\":[");
	for (uint32_t d = 0; d < r->nr_devices; d++) {
		const struct sws_replay_device *dv = &r->devices[d];
		sws__pr(o, "%s{\"type\":%d,\"kind\":\"%s\",\"pages\":%" PRIu64 ",\"inuse_pages\":%" PRIu64
		      ",\"peak_inuse_pages\":%" PRIu64 ",\"write_errors\":%" PRIu64
		      ",\"write_errno\":%d,\"write_failed\":%s}",
		   d ? "," : "", dv->type, sws_replay_swap_kind_name(dv->kind), dv->pages, dv->inuse_pages,
		   dv->peak_inuse_pages,
		   dv->write_errors, dv->write_errno, dv->write_failed ? "true" : "false");
	}
	sws__pr(o, "],\"swap_tiers\":{");
	const char *names[SWS_SWAP_NR_TIERS];
	unsigned nt = sws__replay_tiers(r->setup.swap, r->setup.nr_swap, names);
	for (unsigned k = 0; k < nt; k++) {
		sws__pr(o, "%s", k ? "," : "");
		json_str(o, names[k]);
		sws__pr(o, ":{\"swpout\":%" PRIu64 ",\"swpin\":%" PRIu64 "}", r->mm.tier_swpout[k + 1],
			r->mm.tier_swpin[k + 1]);
	}
	sws__pr(o, "},\"latency\":{");
	for (unsigned l = 0; l < SWS_REPLAY_NR_LAT; l++) {
		sws__pr(o, "%s\"%s\":", l ? "," : "", sws_replay_lat_name((enum sws_replay_lat)l));
		json_hist(o, &r->latency[l]);
	}
	sws__pr(o, "}}");
}

/* ---- the counters format ---------------------------------------------------------------- */

int sws_replay_refused_print(const struct sws_replay_report *r, uint32_t k,
			     int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	if (!r || k >= r->nr_refused || !write)
		return SWS_EINVAL;
	const struct sws_replay_refused *f = &r->refused[k];
	struct sws__out o = {.write = write, .ctx = ctx};
	if (f->position)
		sws__pr(&o, "%s %" PRIu64 ": ", r->position_unit ? r->position_unit : "record", f->position);
	else
		sws__pr(&o, "a stream's record: ");
	sws__pr(&o, "%s pid %" PRIu32 " addr 0x%" PRIx64 ": %s (%s)\n", sws_trace_op_name(f->op), f->pid, f->addr,
		sws_error_name(f->error), sws_strerror(f->error));
	return o.err;
}

/* One run's deterministic figures, one "key value" line each (no times: they
 * are measured). */
static void counters_run(struct sws__out *o, const struct sws_replay_report *r)
{
	sws__pr(o, "events %" PRIu64 "\naccesses %" PRIu64 "\nerrors %" PRIu64 "\nfirst_error %s\nverify_failures %" PRIu64
	      "\ntasks %" PRIu64 "\n",
	   r->events, r->accesses, r->errors, r->first_error ? sws_error_name(r->first_error) : "-",
	   r->verify_failures, r->nr_tasks);
	for (uint32_t k = 0; k < r->nr_refused; k++) {
		sws__pr(o, "refused ");
		sws_replay_refused_print(r, k, o->write, o->ctx);
	}
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		sws__pr(o, "mm.%s %" PRIu64 "\n", sws_mm_counter_name((enum sws_mm_counter)c), r->mm.counters[c]);
	for (unsigned k = 0; k < SWS_NR_ORDERS; k++)
		sws__pr(o, "mm.swpout[%u] %" PRIu64 "\nmm.swpout_fallback[%u] %" PRIu64 "\nmm.zswpout[%u] %" PRIu64 "\n", k,
		   r->mm.swpout[k], k, r->mm.swpout_fallback[k], k, r->mm.zswpout_order[k]);
	sws__pr(o, "mm.reclaim_count %" PRIu64 "\nmm.anon_pages %" PRIu64 "\nmm.free_pages %" PRIu64
	      "\nmm.swapcache_pages %" PRIu64 "\nmm.nr_spaces %" PRIu64 "\nmm.stored_pages %" PRIu64
	      "\nmm.stored_incompressible_pages %" PRIu64 "\nmm.pool_total_size %" PRIu64 "\n",
	   r->mm.reclaim_count, r->mm.anon_pages, r->mm.free_pages, r->mm.swapcache_pages, r->mm.nr_spaces,
	   r->mm.stored_pages, r->mm.stored_incompressible_pages, r->mm.pool_total_size);
	sws__pr(o, "memcg.zswap %" PRIu64 "\nmemcg.zswapped %" PRIu64 "\n", r->memcg_zswap_bytes, r->memcg_zswapped_bytes);
	for (unsigned c = 0; c < SWS_NR_COUNTERS; c++)
		sws__pr(o, "swap.%s %" PRIu64 "\n", sws_counter_name((enum sws_counter)c), r->swap.counters[c]);
	for (unsigned c = 0; c < SWS_NR_ORDER_COUNTERS; c++)
		for (unsigned k = 0; k < SWS_NR_ORDERS; k++)
			sws__pr(o, "swap.%s[%u] %" PRIu64 "\n", sws_order_counter_name((enum sws_order_counter)c), k,
			   r->swap.order_counters[c][k]);
	for (unsigned c = 0; c < SWS_NR_WORK_CTX; c++)
		for (unsigned w = 0; w < SWS_NR_WORK; w++)
			sws__pr(o, "work.%s.%s %" PRIu64 "\n", sws_work_ctx_name((enum sws_work_ctx)c),
			   sws_work_name((enum sws_work)w), r->swap.work[c][w]);
	sws__pr(o, "swap.total_swap_pages %" PRIu64 "\nswap.swap_used_pages %" PRIu64 "\n", r->swap.total_swap_pages,
	   r->swap.total_swap_pages - r->swap.nr_swap_pages);
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		sws__pr(o, "memory.%s %" PRIu64 "\n", sws_mem_class_name((enum sws_mem_class)c), r->memory.bytes[c]);
	for (uint32_t d = 0; d < r->nr_devices; d++)
		sws__pr(o, "device%u.pages %" PRIu64 "\ndevice%u.inuse_pages %" PRIu64 "\n", d + 1, r->devices[d].pages, d + 1,
		   r->devices[d].inuse_pages);
	const char *names[SWS_SWAP_NR_TIERS];
	unsigned nt = sws__replay_tiers(r->setup.swap, r->setup.nr_swap, names);
	for (unsigned k = 0; k < nt; k++)
		sws__pr(o, "tier.%s.swpout %" PRIu64 "\ntier.%s.swpin %" PRIu64 "\n", names[k], r->mm.tier_swpout[k + 1],
			names[k], r->mm.tier_swpin[k + 1]);
	if (!(r->setup.flags & SWS_REPLAY_USER_RAM))
		sws__pr(o, "mm.kernel_swap_pages %" PRIu64 "\n", r->mm.kernel_swap_pages);
	if (r->workload.valid || r->workload.killed)
		sws__pr(o, "workload.tasks %u\nworkload.killed %u\n", r->workload.tasks, r->workload.killed);
	if (r->clock != SWS_REPLAY_CLOCK_MODEL)
		return;
	/* The modelled clock's figures are as deterministic as the counters. */
	sws__pr(o, "time.elapsed_ns %" PRIu64 "\ntime.sys_ns %" PRIu64 "\ntime.user_ns %" PRIu64 "\ntime.iowait_ns %" PRIu64
	      "\ntime.kswapd_ns %" PRIu64 "\n",
	   r->time.elapsed_ns, r->time.sys_ns, r->time.user_ns, r->time.iowait_ns, r->time.kswapd_ns);
	const struct sws_replay_model *m = &r->model;
	for (unsigned c = 0; c < SWS_NR_COSTS; c++)
		sws__pr(o, "model.%s %" PRIu64 " %" PRIu64 "\n", sws_cost_name((enum sws_cost)c), m->cost_count[c],
		   m->cost_ps[c]);
	for (unsigned l = 0; l < SWS_NR_LOCK_CLASSES; l++)
		sws__pr(o, "model.wait.%s %" PRIu64 " %" PRIu64 "\n", sws_lock_class_name((enum sws_lock_class)l),
		   m->lock_waits[l], m->lock_wait_ps[l]);
	sws__pr(o, "model.spin_ps %" PRIu64 "\nmodel.device_cpu_ps %" PRIu64 "\nmodel.user_ps %" PRIu64
	      "\nmodel.busy_ps %" PRIu64 "\nmodel.io_wait_ps %" PRIu64 "\nmodel.line_transfers %" PRIu64 "\n",
	   m->spin_ps, m->device_cpu_ps, m->user_ps, m->busy_ps, m->io_wait_ps, m->line_transfers);
}

static void json_series(struct sws__out *o, const struct sws_replay_series *s)
{
	const struct sws_replay_report *r = s->repeats[0];
	sws__pr(o, "{\"backend\":\"%s\",\"label\":\"%s\",\"threads\":%u,\"nr_repeats\":%u,"
	      "\"counters_identical\":%s,",
	   sws_backend_name(r->backend), label_of(s), r->threads, s->nr_repeats,
	   counters_identical(s) ? "true" : "false");
	json_counters(o, r); /* the first repeat's */
	sws__pr(o, ",\"work_per_page\":{");
	bool first = true;
	for (unsigned c = SWS_WCTX_swapout; c < SWS_NR_WORK_CTX; c++) {
		sws__pr(o, "%s\"%s\":{\"pages\":%.0f", first ? "" : ",", sws_work_ctx_name((enum sws_work_ctx)c),
		   work_base(r, c));
		for (unsigned w = 0; w < SWS_NR_WORK; w++) {
			sws__pr(o, ",\"%s\":", sws_work_name((enum sws_work)w));
			json_num(o, work_per(s, c, w));
		}
		sws__pr(o, "}");
		first = false;
	}
	sws__pr(o, "},\"summary\":{");
	first = true;
	for (unsigned f = 0; f < NR_FIGURES; f++) {
		if (!figure_in(&figures[f], r))
			continue;
		struct stat st = stat_of(s, figures[f].get);
		sws__pr(o, "%s\"%s\":{\"mean\":", first ? "" : ",", figures[f].key);
		json_num(o, st.mean);
		sws__pr(o, ",\"stdev\":");
		json_num(o, st.stdev);
		sws__pr(o, ",\"min\":");
		json_num(o, st.min);
		sws__pr(o, ",\"max\":");
		json_num(o, st.max);
		sws__pr(o, "}");
		first = false;
	}
	sws__pr(o, "},\"repeats\":[");
	for (unsigned k = 0; k < s->nr_repeats; k++) {
		if (k)
			sws__pr(o, ",");
		json_run(o, s->repeats[k]);
	}
	sws__pr(o, "]}");
}

/* ---- JSON: what the report says about itself ------------------------------------ */


/* enum sws_content's names, as --content spells them */
static const char *const content_names[SWS_NR_CONTENT] = {"zero", "same", "index", "text", "random"};

static void json_setup(struct sws__out *o, const struct sws_replay_print_config *pc,
		       const struct sws_replay_setup *st)
{
	sws__pr(o, "\"setup\":{\"input\":");
	json_str(o, pc->input);
	sws__pr(o, ",\"ram_bytes\":%" PRIu64 ",\"memcg_limit_bytes\":", st->ram_pages * SWS_PAGE_SIZE);
	if (st->mem_limit_pages)
		sws__pr(o, "%" PRIu64, st->mem_limit_pages * SWS_PAGE_SIZE);
	else
		sws__pr(o, "null");
	sws__pr(o, ",\"memcg_high_bytes\":");
	if (st->mem_high_pages)
		sws__pr(o, "%" PRIu64, st->mem_high_pages * SWS_PAGE_SIZE);
	else
		sws__pr(o, "null");
	sws__pr(o, ",\"memcg_per_task\":%s,\"memcg\":\"%s\",\"cgroup_version\":%u,\"devices\":[",
		st->flags & SWS_REPLAY_MEMCG_PER_TASK ? "true" : "false", st->flags & SWS_REPLAY_MEMCG_OFF ? "off" : "on",
		st->cgroup);
	for (uint32_t i = 0; i < st->nr_swap; i++) {
		const struct sws_replay_swap *sw = &st->swap[i];
		sws__pr(o, "%s{\"kind\":\"%s\",\"bytes\":%" PRIu64 ",\"prio\":%d,\"file\":", i ? "," : "",
			sws_replay_swap_kind_name(sw->kind), sw->pages * SWS_PAGE_SIZE, sw->prio);
		json_str(o, sw->path);
		sws__pr(o, ",\"read_ns\":%" PRIu64 ",\"write_ns\":%" PRIu64 ",\"discard\":%s,\"limit_pages\":%" PRIu64
			   ",\"tier\":",
			sw->read_ns, sw->write_ns, sw->swap_flags & SWS_REPLAY_SWAP_DISCARD ? "true" : "false",
			sw->limit_pages);
		json_str(o, sw->tier);
		sws__pr(o, "}");
	}
	sws__pr(o, "],\"memcg_swap_tiers\":[");
	for (const char *t = st->memcg_swap_tiers; t && *t;) {
		size_t len = strcspn(t, ",");
		sws__pr(o, "%s\"%.*s\"", t == st->memcg_swap_tiers ? "" : ",", (int)len, t);
		t += len + (t[len] == ',');
	}
	sws__pr(o, "],\"page_cluster\":%u,\"mthp_kb\":[", st->page_cluster);
	for (unsigned k = SWS_NR_ORDERS, n = 0; k-- > 1;)
		if (st->anon_orders & 1u << k)
			sws__pr(o, "%s%u", n++ ? "," : "", 4u << k);
	sws__pr(o, "],\"mthp_madvise_kb\":[");
	for (unsigned k = SWS_NR_ORDERS, n = 0; k-- > 1;)
		if (st->anon_orders_madvise & 1u << k)
			sws__pr(o, "%s%u", n++ ? "," : "", 4u << k);
	sws__pr(o, "],\"zswap\":{\"enabled\":%s", st->flags & SWS_REPLAY_ZSWAP ? "true" : "false");
	if (st->flags & SWS_REPLAY_ZSWAP)
		sws__pr(o, ",\"compressor\":\"%s\",\"max_pool_percent\":%u,\"accept_threshold_percent\":%u,"
			   "\"shrinker\":%s,\"scheme\":\"%s\"",
			st->zswap_compressor, st->zswap_max_pool_percent, st->zswap_accept_threshold_percent,
			st->zswap_flags & SWS_ZSWAP_SHRINKER ? "true" : "false", zswap_scheme_name(st->zswap_flags));
	sws__pr(o, "},\"cpus\":%u,\"policy\":\"%s\",\"seeds\":{\"content\":%" PRIu64 ",\"workload\":", st->cpus,
		policy_name(st->policy), st->seed);
	if (pc->has_workload_seed)
		sws__pr(o, "%" PRIu64, pc->workload_seed);
	else
		sws__pr(o, "null");
	sws__pr(o, "},\"metadata_ram\":%s", st->flags & SWS_REPLAY_USER_RAM ? "false" : "true");
	sws__pr(o, ",\"user_bandwidth\":%" PRIu64 ",\"verify\":%s,\"read_fault\":\"%s\",\"swapoff_device\":%u,"
		   "\"content_weight\":{",
		st->user_bandwidth, st->flags & SWS_REPLAY_VERIFY ? "true" : "false",
		st->flags & SWS_REPLAY_READ_POPULATES ? "data" : "zero", st->swapoff_device);
	for (unsigned c = 0; c < SWS_NR_CONTENT; c++)
		sws__pr(o, "%s\"%s\":%u", c ? "," : "", content_names[c], st->content_weight[c]);
	sws__pr(o, "}}");
}

/* The report's first keys: version, program, command, argv, clock, setup. */
static void json_head(struct sws__out *o, const struct sws_replay_print_config *pc, const struct sws_replay_series *s)
{
	const struct sws_replay_setup *st = &s[0].repeats[0]->setup;
	sws__pr(o, "\"version\":");
	json_str(o, pc->program_version ? pc->program_version : LIB_VERSION);
	sws__pr(o, ",\"library_version\":\"%s\",\"program\":", LIB_VERSION);
	json_str(o, pc->program);
	sws__pr(o, ",\"command\":");
	json_str(o, pc->command);
	sws__pr(o, ",\"argv\":");
	if (pc->argv) {
		sws__pr(o, "[");
		for (unsigned i = 0; pc->argv[i]; i++) {
			sws__pr(o, "%s", i ? "," : "");
			json_str(o, pc->argv[i]);
		}
		sws__pr(o, "]");
	} else {
		sws__pr(o, "null");
	}
	sws__pr(o, ",\"clock\":\"%s\",", sws_replay_clock_name(st->clock));
	json_setup(o, pc, st);
	sws__pr(o, ",");
}

/* ---- entry points ---------------------------------------------------------------------- */

int sws_replay_print(const struct sws_replay_print_config *pc, const struct sws_replay_series *series,
		     unsigned n, int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct sws__out o = {write, ctx, 0};
	if (!pc || !series || !write || !n || n > SWS_REPLAY_MAX_SERIES ||
	    pc->version > SWS_REPLAY_PRINT_CONFIG_VERSION || (pc->flags & ~SWS_REPLAY_PRINT_ALL_COUNTERS))
		return pc && pc->version > SWS_REPLAY_PRINT_CONFIG_VERSION ? SWS_EVERSION : SWS_EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (!series[i].repeats || !series[i].nr_repeats)
			return SWS_EINVAL;
		for (unsigned k = 0; k < series[i].nr_repeats; k++)
			if (!series[i].repeats[k])
				return SWS_EINVAL;
	}
	switch (pc->format) {
	case SWS_REPLAY_REPORT_TABLE:
		print_table(&o, pc, series, n);
		break;
	case SWS_REPLAY_REPORT_JSON:
		sws__pr(&o, "{");
		json_head(&o, pc, series);
		sws__pr(&o, "\"runs\":[");
		for (unsigned i = 0; i < n; i++) {
			if (i)
				sws__pr(&o, ",");
			json_series(&o, &series[i]);
		}
		sws__pr(&o, "]}\n");
		break;
	case SWS_REPLAY_REPORT_COUNTERS:
		for (unsigned i = 0; i < n; i++)
			for (unsigned k = 0; k < series[i].nr_repeats; k++) {
				sws__pr(&o, "# run %s", label_of(&series[i]));
				if (series[i].nr_repeats > 1)
					sws__pr(&o, " repeat %u", k + 1);
				sws__pr(&o, "\n# clock %s\n", sws_replay_clock_name(series[i].repeats[k]->clock));
				counters_run(&o, series[i].repeats[k]);
			}
		break;
	case SWS_REPLAY_REPORT_MMTESTS:
		sws__print_mmtests(&o, pc, series, n);
		break;
	case SWS_REPLAY_REPORT_LKP:
		sws__print_lkp(&o, pc, series, n);
		break;
	default:
		return SWS_EINVAL;
	}
	return o.err;
}

int sws_replay_series_print(const struct sws_replay_series *series, unsigned n,
			    enum sws_replay_format fmt,
			    int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct sws_replay_print_config pc = {.version = SWS_REPLAY_PRINT_CONFIG_VERSION, .format = fmt};
	return sws_replay_print(&pc, series, n, write, ctx);
}

int sws_replay_report_print(const struct sws_replay_report *const *runs, unsigned n,
			    enum sws_replay_format fmt,
			    int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct sws_replay_series s[SWS_REPLAY_MAX_SERIES];
	if (!runs || n > SWS_REPLAY_MAX_SERIES)
		return SWS_EINVAL;
	for (unsigned i = 0; i < n; i++)
		s[i] = (struct sws_replay_series){.repeats = &runs[i], .nr_repeats = 1};
	return sws_replay_series_print(s, n, fmt, write, ctx);
}

int sws_replay_csv_header(int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct sws__out o = {write, ctx, 0};
	sws__pr(&o, "backend,events,time_s,pgfault,pgmajfault,pswpin,pswpout,pgsteal,resident_pages,"
	       "swap_used_pages,zswpout,zswpin,xswap_inuse_pages,xswap_mapped_clusters,"
	       "arena_mapped_bytes,arena_resident_bytes,zswap_pool_bytes,metadata_static_bytes,"
	       "metadata_dynamic_bytes,fault_count,fault_mean_ns,fault_p99_ns\n");
	return o.err;
}

int sws_replay_csv_row(enum sws_backend backend, const struct sws_replay_sample *s,
		       int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct sws__out o = {write, ctx, 0};
	if (!s || !write)
		return SWS_EINVAL;
	sws__pr(&o, "%s,%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
	   sws_backend_name(backend), s->events, (double)s->time_ns / 1e9,
	   s->mm.counters[SWS_MM_pgfault], s->mm.counters[SWS_MM_pgmajfault],
	   s->mm.counters[SWS_MM_pswpin], s->mm.counters[SWS_MM_pswpout],
	   s->mm.counters[SWS_MM_pgsteal], s->mm.anon_pages, s->swap_used,
	   s->mm.counters[SWS_MM_zswpout], s->mm.counters[SWS_MM_zswpin], s->xswap_inuse_pages,
	   s->xswap_mapped_clusters, s->arena_mapped_bytes, s->arena_resident_bytes, s->zswap_pool_bytes,
	   s->metadata_static_bytes, s->metadata_dynamic_bytes, s->fault_count, s->fault_mean_ns,
	   s->fault_p99_ns);
	return o.err;
}
