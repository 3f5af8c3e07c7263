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

#include "replay_internal.h"

struct out {
	int (*write)(void *ctx, const char *text, size_t len);
	void *ctx;
	int err;
};

static void pr(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void pr(struct out *o, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (o->err)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->err = o->write(o->ctx, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- figures: what is compared, with its statistics over the repeats ------------------- */

typedef double (*getter)(const struct sws_replay_report *r);

/* Without libm (libswapsim links none): |x|, x squared, and Newton's square root. */
static double absd(double x) { return x < 0 ? -x : x; }
static double sqd(double x) { return x * x; }
static double rootd(double x)
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
	st.stdev = s->nr_repeats > 1 ? rootd(sq / (s->nr_repeats - 1)) : 0; /* sample standard deviation */
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

static void cell(struct out *o, const char *text) { pr(o, " %*s", COLW, text); }

/* One figure: mean ±relative stdev, and for the others the difference from the first. */
static void print_figure(struct out *o, const struct figure *f, const struct sws_replay_series *s,
			 unsigned n)
{
	struct stat base = stat_of(&s[0], f->get);
	pr(o, "%-*s", NAMEW, f->label);
	for (unsigned i = 0; i < n; i++) {
		struct stat st = i ? stat_of(&s[i], f->get) : base;
		char c[96], v[40];
		snprintf(v, sizeof(v), f->fmt, st.mean / f->scale);
		int len = snprintf(c, sizeof(c), "%s", v);
		if (s[i].nr_repeats > 1 && st.mean)
			len += snprintf(c + len, sizeof(c) - (size_t)len, " ±%.1f%%", 100 * st.stdev / absd(st.mean));
		if (i && base.mean) {
			double ratio = st.mean / base.mean;
			double spread = absd(ratio) * rootd(sqd(base.stdev / base.mean) +
							    (st.mean ? sqd(st.stdev / st.mean) : 0));
			len += snprintf(c + len, sizeof(c) - (size_t)len, " (%+.2f%%", 100 * (ratio - 1));
			if (s[i].nr_repeats > 1 || s[0].nr_repeats > 1)
				len += snprintf(c + len, sizeof(c) - (size_t)len, " ±%.2f", 100 * spread);
			snprintf(c + len, sizeof(c) - (size_t)len, ")");
		}
		cell(o, c);
	}
	pr(o, "\n");
}

/* Work @w per base unit of context @c in repeat @k of @s. */
static double work_one(const struct sws_replay_series *s, unsigned k, enum sws_work_ctx c, enum sws_work w)
{
	double base = work_base(s->repeats[k], c);
	return base ? (double)s->repeats[k]->swap.work[c][w] / base : 0;
}

static void print_work(struct out *o, const struct sws_replay_series *s, unsigned n)
{
	char name[80], c[64];
	for (unsigned ctx = SWS_WCTX_swapout; ctx < SWS_NR_WORK_CTX; ctx++) {
		bool any = false;
		for (unsigned i = 0; i < n; i++)
			any |= work_base(s[i].repeats[0], ctx) > 0;
		if (!any)
			continue;
		pr(o, "-- work per %s (deterministic at one thread: the repeats' value; mean ±relative "
		      "spread where they differ)\n", work_base_name[ctx]);
		for (unsigned w = 0; w < SWS_NR_WORK; w++) {
			bool nonzero = false;
			for (unsigned i = 0; i < n; i++)
				nonzero |= work_per(&s[i], ctx, w) != 0;
			if (!nonzero)
				continue;
			snprintf(name, sizeof(name), "%s", sws_work_name((enum sws_work)w));
			pr(o, "%-*s", NAMEW, name);
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
						 mean ? 100 * rootd(sq / (s[i].nr_repeats - 1)) / mean : 0);
				cell(o, c);
			}
			pr(o, "\n");
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
static void row_counter(struct out *o, const char *name, const struct sws_replay_series *s, unsigned n,
			uget get, unsigned idx)
{
	char c[64];
	pr(o, "%-*s", NAMEW, name);
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
				 mean ? 100 * rootd(sq / (s[i].nr_repeats - 1)) / mean : 0);
		cell(o, c);
	}
	pr(o, "\n");
}

static uint64_t mm_ctr(const struct sws_replay_report *r, unsigned c) { return r->mm.counters[c]; }
static uint64_t swap_ctr(const struct sws_replay_report *r, unsigned c) { return r->swap.counters[c]; }
static uint64_t swpout(const struct sws_replay_report *r, unsigned o) { return r->mm.swpout[o]; }
static uint64_t swpout_fb(const struct sws_replay_report *r, unsigned o) { return r->mm.swpout_fallback[o]; }
static uint64_t wl_killed(const struct sws_replay_report *r, unsigned i) { (void)i; return r->workload.killed; }

static void print_counters(struct out *o, const struct sws_replay_series *s, unsigned n)
{
	char name[64];
	pr(o, "-- counters (the repeats' value; mean ±relative spread where they differ)\n");
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		row_counter(o, sws_mm_counter_name((enum sws_mm_counter)c), s, n, mm_ctr, c);
	for (unsigned ord = 0; ord < SWS_NR_ORDERS; ord++) {
		bool any = false;
		for (unsigned i = 0; i < n; i++)
			any |= s[i].repeats[0]->mm.swpout[ord] || s[i].repeats[0]->mm.swpout_fallback[ord];
		if (!any && ord)
			continue;
		snprintf(name, sizeof(name), "swpout[%u]", ord);
		row_counter(o, name, s, n, swpout, ord);
		snprintf(name, sizeof(name), "swpout_fallback[%u]", ord);
		row_counter(o, name, s, n, swpout_fb, ord);
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
		row_counter(o, sws_counter_name((enum sws_counter)c), s, n, swap_ctr, c);
	}
	if (!backing)
		pr(o, "(no device has a backing store here: pages are not stored, only their I/O time is\n"
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

static void row_state(struct out *o, const struct sws_replay_series *s, unsigned n, unsigned idx)
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
static void print_state(struct out *o, const struct sws_replay_series *s, unsigned n)
{
	char name[64];
	pr(o, "-- peaks (sampled every deferred-work step) and end of run (the repeats' value; mean "
	      "±relative spread where they differ)\n");
	for (unsigned st = ST_SWAP_PEAK; st <= ST_SWAPCACHE_END; st++)
		row_state(o, s, n, st);
	pr(o, "-- latency (simulated ns; p50 is a log2-bucket upper bound; the repeats' value, mean "
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
	pr(o, "-- metadata memory (bytes at the end / at the peak; the repeats' value, mean ±relative "
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
					pr(o, "%s (repeat %u): swap device %u: %" PRIu64 " page writes failed (errno %d)%s\n",
					   label_of(&s[i]), k + 1, d + 1, r->devices[d].write_errors,
					   r->devices[d].write_errno,
					   r->devices[d].write_failed ? "; it took no new slots after that" : "");
		}
}

static void print_table(struct out *o, const struct sws_replay_series *s, unsigned n)
{
	const struct sws_replay_report *first[SWS_REPLAY_MAX_SERIES];
	unsigned repeats = s[0].nr_repeats;
	bool same = true, identical = true;
	for (unsigned i = 0; i < n; i++) {
		first[i] = s[i].repeats[0];
		same &= s[i].nr_repeats == repeats;
		identical &= counters_identical(&s[i]);
	}
	if (repeats > 1 || !same)
		pr(o, "%u configuration%s, %u repeat%s each (interleaved); counters identical across repeats: %s\n",
		   n, n == 1 ? "" : "s", repeats, repeats == 1 ? "" : "s",
		   identical ? "yes" : first[0]->threads > 1 ? "no (expected with several threads)" : "NO");
	for (unsigned i = 0, said = 0; i < n && !said; i++)
		for (unsigned k = 0; k < s[i].nr_repeats && !said; k++)
			if ((said = s[i].repeats[k]->interrupted))
				pr(o, "INTERRUPTED: %s stopped before its input ended: every figure covers what ran\n",
				   label_of(&s[i]));
	pr(o, "%-*s", NAMEW, "");
	for (unsigned i = 0; i < n; i++)
		cell(o, label_of(&s[i]));
	pr(o, "\n");
	for (unsigned st = ST_THREADS; st <= ST_ERRORS; st++)
		row_state(o, s, n, st);
	pr(o, "%-*s", NAMEW, repeats > 1 ? "first_error (first repeat)" : "first_error");
	for (unsigned i = 0; i < n; i++)
		cell(o, first[i]->first_error ? sws_error_name(first[i]->first_error) : "-");
	pr(o, "\n");
	pr(o, "-- simulated time (mean%s; in parentheses the difference from %s)\n",
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
	pr(o, "-- host (the simulator's own speed on this machine, measured: not a figure of the design)\n");
	for (unsigned f = 0; f < NR_FIGURES; f++)
		if (figures[f].when == F_HOST)
			print_figure(o, &figures[f], s, n);
	print_work(o, s, n);
	print_counters(o, s, n);
	print_state(o, s, n);
}

/* ---- JSON --------------------------------------------------------------------------------- */

/* A JSON number that keeps every digit: an integral value as an integer (the ns
 * figures are), anything else with 17 significant digits (a double read back is
 * the same double). */
static void json_num(struct out *o, double v)
{
	if (v >= 0 && v < 9007199254740992.0 && v == (double)(uint64_t)v)
		pr(o, "%" PRIu64, (uint64_t)v);
	else
		pr(o, "%.17g", v);
}

static void json_hist(struct out *o, const struct sws_replay_hist *h)
{
	pr(o, "{\"count\":%" PRIu64 ",\"sum_ns\":%" PRIu64 ",\"mean_ns\":%" PRIu64
	      ",\"p50_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 ",\"buckets\":[",
	   h->count, h->sum_ns, h->count ? h->sum_ns / h->count : 0, sws_replay_hist_quantile(h, 0.5),
	   sws_replay_hist_quantile(h, 0.99), h->max_ns);
	unsigned last = 0;
	for (unsigned b = 0; b < SWS_REPLAY_HIST_BUCKETS; b++)
		if (h->bucket[b])
			last = b + 1;
	for (unsigned b = 0; b < last; b++)
		pr(o, "%s%" PRIu64, b ? "," : "", h->bucket[b]);
	pr(o, "]}");
}

static void json_orders(struct out *o, const char *name, const uint64_t *v)
{
	pr(o, "\"%s\":[", name);
	for (unsigned i = 0; i < SWS_NR_ORDERS; i++)
		pr(o, "%s%" PRIu64, i ? "," : "", v[i]);
	pr(o, "]");
}

static void json_counters(struct out *o, const struct sws_replay_report *r)
{
	pr(o, "\"counters\":{");
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mm_counter_name((enum sws_mm_counter)c),
		   r->mm.counters[c]);
	for (unsigned c = 0; c < SWS_NR_COUNTERS; c++)
		pr(o, ",\"%s\":%" PRIu64, sws_counter_name((enum sws_counter)c), r->swap.counters[c]);
	/* the workload memcg's stats under their memory.stat names */
	pr(o, ",\"zswap\":%" PRIu64 ",\"zswapped\":%" PRIu64 "}", r->memcg_zswap_bytes, r->memcg_zswapped_bytes);
}

/* One run: everything it measured and counted. */
static void json_run(struct out *o, const struct sws_replay_report *r)
{
	pr(o, "{\"events\":%" PRIu64 ",\"accesses\":%" PRIu64 ",\"errors\":%" PRIu64
	      ",\"first_error\":%s%s%s,\"verify_failures\":%" PRIu64 ",\"interrupted\":%s,\"tasks\":%" PRIu64 ",",
	   r->events, r->accesses, r->errors, r->first_error ? "\"" : "",
	   r->first_error ? sws_error_name(r->first_error) : "null", r->first_error ? "\"" : "",
	   r->verify_failures, r->interrupted ? "true" : "false", r->nr_tasks);
	for (unsigned f = 0; f < NR_FIGURES; f++) {
		if (!figure_in(&figures[f], r))
			continue;
		pr(o, "\"%s\":", figures[f].key);
		json_num(o, figures[f].get(r));
		pr(o, ",");
	}
	pr(o, "\"sys_modelled_ns\":%" PRIu64 ",", r->time.sys_modelled_ns);
	if (r->workload.valid || r->workload.killed)
		pr(o, "\"workload_tasks\":%u,\"workload_killed\":%u,", r->workload.tasks, r->workload.killed);
	json_counters(o, r);
	pr(o, ",\"order_counters\":{");
	json_orders(o, "swpout", r->mm.swpout);
	pr(o, ",");
	json_orders(o, "swpout_fallback", r->mm.swpout_fallback);
	pr(o, ",");
	json_orders(o, "zswpout", r->mm.zswpout_order);
	for (unsigned c = 0; c < SWS_NR_ORDER_COUNTERS; c++) {
		pr(o, ",");
		json_orders(o, sws_order_counter_name((enum sws_order_counter)c), r->swap.order_counters[c]);
	}
	pr(o, "},\"work\":{");
	for (unsigned c = 0; c < SWS_NR_WORK_CTX; c++) {
		pr(o, "%s\"%s\":{", c ? "," : "", sws_work_ctx_name((enum sws_work_ctx)c));
		for (unsigned w = 0; w < SWS_NR_WORK; w++)
			pr(o, "%s\"%s\":%" PRIu64, w ? "," : "", sws_work_name((enum sws_work)w), r->swap.work[c][w]);
		pr(o, "}");
	}
	pr(o, "},\"state\":{\"ram_pages\":%" PRIu64 ",\"free_pages\":%" PRIu64 ",\"anon_pages\":%" PRIu64
	      ",\"swapcache_pages\":%" PRIu64 ",\"total_swap_pages\":%" PRIu64
	      ",\"swap_used_pages\":%" PRIu64 ",\"nr_spaces\":%" PRIu64 "}",
	   r->mm.ram_pages, r->mm.free_pages, r->mm.anon_pages, r->mm.swapcache_pages,
	   r->swap.total_swap_pages, r->swap.total_swap_pages - r->swap.nr_swap_pages, r->mm.nr_spaces);
	pr(o, ",\"peaks\":{\"swap_used_pages\":%" PRIu64 ",\"pool_total_size\":%" PRIu64
	      ",\"compression_ratio\":%.17g}",
	   r->peaks.swap_used_pages, r->peaks.pool_total_size,
	   r->peaks.pool_total_size ? (double)(r->peaks.pool_stored_pages * SWS_PAGE_SIZE) / (double)r->peaks.pool_total_size
				    : 0.0);
	pr(o, ",\"zswap\":{\"stored_pages\":%" PRIu64 ",\"stored_incompressible_pages\":%" PRIu64
	      ",\"pool_total_size\":%" PRIu64 ",\"pool_limit_pages\":%" PRIu64
	      ",\"compression_ratio\":%.17g}",
	   r->mm.stored_pages, r->mm.stored_incompressible_pages, r->mm.pool_total_size,
	   r->mm.pool_limit_pages,
	   r->mm.pool_total_size ? (double)(r->mm.stored_pages * SWS_PAGE_SIZE) / (double)r->mm.pool_total_size
				 : 0.0);
	pr(o,
	   ",\"memory\":{\"static_bytes\":%" PRIu64 ",\"dynamic_bytes\":%" PRIu64 ",\"static_peak_bytes\":%" PRIu64
	   ",\"dynamic_peak_bytes\":%" PRIu64 ",\"classes\":{",
	   r->memory.static_bytes, r->memory.dynamic_bytes, r->peaks.static_bytes, r->peaks.dynamic_bytes);
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mem_class_name((enum sws_mem_class)c),
		   r->memory.bytes[c]);
	pr(o, "},\"peak\":{");
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mem_class_name((enum sws_mem_class)c),
		   r->swap.mem_peak[c]);
	pr(o, "}},\"devices\":[");
	for (uint32_t d = 0; d < r->nr_devices; d++) {
		const struct sws_replay_device *dv = &r->devices[d];
		pr(o, "%s{\"type\":%d,\"kind\":\"%s\",\"pages\":%" PRIu64 ",\"inuse_pages\":%" PRIu64
		      ",\"peak_inuse_pages\":%" PRIu64 ",\"write_errors\":%" PRIu64
		      ",\"write_errno\":%d,\"write_failed\":%s}",
		   d ? "," : "", dv->type, sws_replay_swap_kind_name(dv->kind), dv->pages, dv->inuse_pages,
		   dv->peak_inuse_pages,
		   dv->write_errors, dv->write_errno, dv->write_failed ? "true" : "false");
	}
	pr(o, "],\"latency\":{");
	for (unsigned l = 0; l < SWS_REPLAY_NR_LAT; l++) {
		pr(o, "%s\"%s\":", l ? "," : "", sws_replay_lat_name((enum sws_replay_lat)l));
		json_hist(o, &r->latency[l]);
	}
	pr(o, "}}");
}

/* ---- the counters format ---------------------------------------------------------------- */

/* One run's deterministic figures, one "key value" line each (no times: they
 * are measured). */
static void counters_run(struct out *o, const struct sws_replay_report *r)
{
	pr(o, "events %" PRIu64 "\naccesses %" PRIu64 "\nerrors %" PRIu64 "\nfirst_error %s\nverify_failures %" PRIu64
	      "\ntasks %" PRIu64 "\n",
	   r->events, r->accesses, r->errors, r->first_error ? sws_error_name(r->first_error) : "-",
	   r->verify_failures, r->nr_tasks);
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		pr(o, "mm.%s %" PRIu64 "\n", sws_mm_counter_name((enum sws_mm_counter)c), r->mm.counters[c]);
	for (unsigned k = 0; k < SWS_NR_ORDERS; k++)
		pr(o, "mm.swpout[%u] %" PRIu64 "\nmm.swpout_fallback[%u] %" PRIu64 "\nmm.zswpout[%u] %" PRIu64 "\n", k,
		   r->mm.swpout[k], k, r->mm.swpout_fallback[k], k, r->mm.zswpout_order[k]);
	pr(o, "mm.reclaim_count %" PRIu64 "\nmm.anon_pages %" PRIu64 "\nmm.free_pages %" PRIu64
	      "\nmm.swapcache_pages %" PRIu64 "\nmm.nr_spaces %" PRIu64 "\nmm.stored_pages %" PRIu64
	      "\nmm.stored_incompressible_pages %" PRIu64 "\nmm.pool_total_size %" PRIu64 "\n",
	   r->mm.reclaim_count, r->mm.anon_pages, r->mm.free_pages, r->mm.swapcache_pages, r->mm.nr_spaces,
	   r->mm.stored_pages, r->mm.stored_incompressible_pages, r->mm.pool_total_size);
	pr(o, "memcg.zswap %" PRIu64 "\nmemcg.zswapped %" PRIu64 "\n", r->memcg_zswap_bytes, r->memcg_zswapped_bytes);
	for (unsigned c = 0; c < SWS_NR_COUNTERS; c++)
		pr(o, "swap.%s %" PRIu64 "\n", sws_counter_name((enum sws_counter)c), r->swap.counters[c]);
	for (unsigned c = 0; c < SWS_NR_ORDER_COUNTERS; c++)
		for (unsigned k = 0; k < SWS_NR_ORDERS; k++)
			pr(o, "swap.%s[%u] %" PRIu64 "\n", sws_order_counter_name((enum sws_order_counter)c), k,
			   r->swap.order_counters[c][k]);
	for (unsigned c = 0; c < SWS_NR_WORK_CTX; c++)
		for (unsigned w = 0; w < SWS_NR_WORK; w++)
			pr(o, "work.%s.%s %" PRIu64 "\n", sws_work_ctx_name((enum sws_work_ctx)c),
			   sws_work_name((enum sws_work)w), r->swap.work[c][w]);
	pr(o, "swap.total_swap_pages %" PRIu64 "\nswap.swap_used_pages %" PRIu64 "\n", r->swap.total_swap_pages,
	   r->swap.total_swap_pages - r->swap.nr_swap_pages);
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		pr(o, "memory.%s %" PRIu64 "\n", sws_mem_class_name((enum sws_mem_class)c), r->memory.bytes[c]);
	for (uint32_t d = 0; d < r->nr_devices; d++)
		pr(o, "device%u.pages %" PRIu64 "\ndevice%u.inuse_pages %" PRIu64 "\n", d + 1, r->devices[d].pages, d + 1,
		   r->devices[d].inuse_pages);
	if (r->workload.valid || r->workload.killed)
		pr(o, "workload.tasks %u\nworkload.killed %u\n", r->workload.tasks, r->workload.killed);
}

static void json_series(struct out *o, const struct sws_replay_series *s)
{
	const struct sws_replay_report *r = s->repeats[0];
	pr(o, "{\"backend\":\"%s\",\"label\":\"%s\",\"threads\":%u,\"nr_repeats\":%u,"
	      "\"counters_identical\":%s,",
	   sws_backend_name(r->backend), label_of(s), r->threads, s->nr_repeats,
	   counters_identical(s) ? "true" : "false");
	json_counters(o, r); /* the first repeat's */
	pr(o, ",\"work_per_page\":{");
	bool first = true;
	for (unsigned c = SWS_WCTX_swapout; c < SWS_NR_WORK_CTX; c++) {
		pr(o, "%s\"%s\":{\"pages\":%.0f", first ? "" : ",", sws_work_ctx_name((enum sws_work_ctx)c),
		   work_base(r, c));
		for (unsigned w = 0; w < SWS_NR_WORK; w++) {
			pr(o, ",\"%s\":", sws_work_name((enum sws_work)w));
			json_num(o, work_per(s, c, w));
		}
		pr(o, "}");
		first = false;
	}
	pr(o, "},\"summary\":{");
	first = true;
	for (unsigned f = 0; f < NR_FIGURES; f++) {
		if (!figure_in(&figures[f], r))
			continue;
		struct stat st = stat_of(s, figures[f].get);
		pr(o, "%s\"%s\":{\"mean\":", first ? "" : ",", figures[f].key);
		json_num(o, st.mean);
		pr(o, ",\"stdev\":");
		json_num(o, st.stdev);
		pr(o, ",\"min\":");
		json_num(o, st.min);
		pr(o, ",\"max\":");
		json_num(o, st.max);
		pr(o, "}");
		first = false;
	}
	pr(o, "},\"repeats\":[");
	for (unsigned k = 0; k < s->nr_repeats; k++) {
		if (k)
			pr(o, ",");
		json_run(o, s->repeats[k]);
	}
	pr(o, "]}");
}

/* ---- entry points ---------------------------------------------------------------------- */

int sws_replay_series_print(const struct sws_replay_series *series, unsigned n,
			    enum sws_replay_format fmt,
			    int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct out o = {write, ctx, 0};
	if (!series || !write || !n || n > SWS_REPLAY_MAX_SERIES)
		return SWS_EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (!series[i].repeats || !series[i].nr_repeats)
			return SWS_EINVAL;
		for (unsigned k = 0; k < series[i].nr_repeats; k++)
			if (!series[i].repeats[k])
				return SWS_EINVAL;
	}
	if (fmt == SWS_REPLAY_REPORT_TABLE) {
		print_table(&o, series, n);
	} else if (fmt == SWS_REPLAY_REPORT_JSON) {
		pr(&o, "{\"runs\":[");
		for (unsigned i = 0; i < n; i++) {
			if (i)
				pr(&o, ",");
			json_series(&o, &series[i]);
		}
		pr(&o, "]}\n");
	} else if (fmt == SWS_REPLAY_REPORT_COUNTERS) {
		for (unsigned i = 0; i < n; i++)
			for (unsigned k = 0; k < series[i].nr_repeats; k++) {
				pr(&o, "# run %s", label_of(&series[i]));
				if (series[i].nr_repeats > 1)
					pr(&o, " repeat %u", k + 1);
				pr(&o, "\n");
				counters_run(&o, series[i].repeats[k]);
			}
	} else {
		return SWS_EINVAL;
	}
	return o.err;
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
	struct out o = {write, ctx, 0};
	pr(&o, "backend,events,time_s,pgfault,pgmajfault,pswpin,pswpout,pgsteal,resident_pages,"
	       "swap_used_pages,zswpout,zswpin,xswap_inuse_pages,xswap_mapped_clusters,"
	       "arena_mapped_bytes,arena_resident_bytes,zswap_pool_bytes,metadata_static_bytes,"
	       "metadata_dynamic_bytes,fault_count,fault_mean_ns,fault_p99_ns\n");
	return o.err;
}

int sws_replay_csv_row(enum sws_backend backend, const struct sws_replay_sample *s,
		       int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct out o = {write, ctx, 0};
	if (!s || !write)
		return SWS_EINVAL;
	pr(&o, "%s,%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
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
