/*
 * report.c - printing replay reports through a write callback: an aligned
 * table with one column per run (--compare prints backends side by side), one
 * JSON object {"runs": [...]}, and CSV time-series rows. Counter names are the
 * kernel's (/proc/vmstat, mTHP stats) as the memory model and the swap core
 * define them; nothing here knows a counter by hand except the CSV columns.
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
	char buf[512];
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

/* ---- table -------------------------------------------------------------------------- */

#define NAMEW 28
#define COLW 18

static void row_u64(struct out *o, const char *name, const struct sws_replay_report *const *runs,
		    unsigned n, size_t off)
{
	pr(o, "%-*s", NAMEW, name);
	for (unsigned i = 0; i < n; i++)
		pr(o, " %*" PRIu64, COLW, *(const uint64_t *)((const char *)runs[i] + off));
	pr(o, "\n");
}

static void row_vals(struct out *o, const char *name, const uint64_t *v, unsigned n)
{
	pr(o, "%-*s", NAMEW, name);
	for (unsigned i = 0; i < n; i++)
		pr(o, " %*" PRIu64, COLW, v[i]);
	pr(o, "\n");
}

#define MAXRUNS 8

static void print_table(struct out *o, const struct sws_replay_report *const *runs, unsigned n)
{
	uint64_t v[MAXRUNS];
	char name[64];

	pr(o, "%-*s", NAMEW, "backend");
	for (unsigned i = 0; i < n; i++)
		pr(o, " %*s", COLW, sws_backend_name(runs[i]->backend));
	pr(o, "\n");
#define ROW(label, field) row_u64(o, label, runs, n, offsetof(struct sws_replay_report, field))
	for (unsigned i = 0; i < n; i++)
		v[i] = runs[i]->threads;
	row_vals(o, "threads", v, n);
	ROW("events", events);
	ROW("accesses", accesses);
	ROW("errors", errors);
	ROW("wall_ns", wall_ns);
	pr(o, "%-*s", NAMEW, "events_per_sec");
	for (unsigned i = 0; i < n; i++)
		pr(o, " %*.0f", COLW, runs[i]->events_per_sec);
	pr(o, "\n");
	ROW("tasks", nr_tasks);
#undef ROW
	pr(o, "-- counters\n");
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++) {
		for (unsigned i = 0; i < n; i++)
			v[i] = runs[i]->mm.counters[c];
		row_vals(o, sws_mm_counter_name((enum sws_mm_counter)c), v, n);
	}
	for (unsigned ord = 0; ord < SWS_NR_ORDERS; ord++) {
		bool any = false;
		for (unsigned i = 0; i < n; i++)
			any |= runs[i]->mm.swpout[ord] || runs[i]->mm.swpout_fallback[ord];
		if (!any && ord)
			continue;
		for (unsigned i = 0; i < n; i++)
			v[i] = runs[i]->mm.swpout[ord];
		snprintf(name, sizeof(name), "swpout[%u]", ord);
		row_vals(o, name, v, n);
		for (unsigned i = 0; i < n; i++)
			v[i] = runs[i]->mm.swpout_fallback[ord];
		snprintf(name, sizeof(name), "swpout_fallback[%u]", ord);
		row_vals(o, name, v, n);
	}
	for (unsigned c = 0; c < SWS_NR_COUNTERS; c++) {
		for (unsigned i = 0; i < n; i++)
			v[i] = runs[i]->swap.counters[c];
		row_vals(o, sws_counter_name((enum sws_counter)c), v, n);
	}
	pr(o, "-- state\n");
#define STATE(label, expr)                                \
	do {                                              \
		for (unsigned i = 0; i < n; i++)          \
			v[i] = (expr);                    \
		row_vals(o, label, v, n);                 \
	} while (0)
	STATE("ram_pages", runs[i]->mm.ram_pages);
	STATE("free_pages", runs[i]->mm.free_pages);
	STATE("anon_pages", runs[i]->mm.anon_pages);
	STATE("swapcache_pages", runs[i]->mm.swapcache_pages);
	STATE("total_swap_pages", runs[i]->swap.total_swap_pages);
	STATE("swap_used_pages", runs[i]->swap.total_swap_pages - runs[i]->swap.nr_swap_pages);
	STATE("modelled_io_ns", runs[i]->mm.counters[SWS_MM_modelled_io_ns]);
	STATE("stored_pages", runs[i]->mm.stored_pages);
	STATE("stored_incompressible_pages", runs[i]->mm.stored_incompressible_pages);
	STATE("pool_total_size", runs[i]->mm.pool_total_size);
	/* compression ratio x100: original bytes over pool bytes */
	STATE("compression_ratio_x100", runs[i]->mm.pool_total_size
						? runs[i]->mm.stored_pages * SWS_PAGE_SIZE * 100 /
							  runs[i]->mm.pool_total_size
						: 0);
	pr(o, "-- latency (ns; p50/p99 are log2-bucket upper bounds)\n");
	for (unsigned l = 0; l < SWS_REPLAY_NR_LAT; l++) {
		const char *ln = sws_replay_lat_name((enum sws_replay_lat)l);
		snprintf(name, sizeof(name), "%s.count", ln);
		STATE(name, runs[i]->latency[l].count);
		snprintf(name, sizeof(name), "%s.mean", ln);
		STATE(name, runs[i]->latency[l].count ? runs[i]->latency[l].sum_ns / runs[i]->latency[l].count : 0);
		snprintf(name, sizeof(name), "%s.p50", ln);
		STATE(name, sws_replay_hist_quantile(&runs[i]->latency[l], 0.5));
		snprintf(name, sizeof(name), "%s.p99", ln);
		STATE(name, sws_replay_hist_quantile(&runs[i]->latency[l], 0.99));
		snprintf(name, sizeof(name), "%s.max", ln);
		STATE(name, runs[i]->latency[l].max_ns);
	}
	pr(o, "-- metadata memory (bytes)\n");
	STATE("static", runs[i]->memory.static_bytes);
	STATE("dynamic", runs[i]->memory.dynamic_bytes);
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		STATE(sws_mem_class_name((enum sws_mem_class)c), runs[i]->memory.bytes[c]);
#undef STATE
}

/* ---- JSON ----------------------------------------------------------------------------- */

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

static void print_json_run(struct out *o, const struct sws_replay_report *r)
{
	pr(o, "{\"backend\":\"%s\",\"threads\":%u,\"events\":%" PRIu64 ",\"accesses\":%" PRIu64
	      ",\"errors\":%" PRIu64 ",\"first_error\":%s%s%s,\"verify_failures\":%" PRIu64
	      ",\"wall_ns\":%" PRIu64 ",\"events_per_sec\":%.1f,\"interrupted\":%s,\"tasks\":%" PRIu64,
	   sws_backend_name(r->backend), r->threads, r->events, r->accesses, r->errors,
	   r->first_error ? "\"" : "", r->first_error ? sws_error_name(r->first_error) : "null",
	   r->first_error ? "\"" : "", r->verify_failures, r->wall_ns,
	   r->events_per_sec, r->interrupted ? "true" : "false", r->nr_tasks);
	pr(o, ",\"counters\":{");
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mm_counter_name((enum sws_mm_counter)c),
		   r->mm.counters[c]);
	for (unsigned c = 0; c < SWS_NR_COUNTERS; c++)
		pr(o, ",\"%s\":%" PRIu64, sws_counter_name((enum sws_counter)c), r->swap.counters[c]);
	/* zswap's debugfs gauges and memcg stats under their kernel names, in the same object */
	pr(o, ",\"stored_pages\":%" PRIu64 ",\"stored_incompressible_pages\":%" PRIu64
	      ",\"pool_total_size\":%" PRIu64 ",\"zswap\":%" PRIu64 ",\"zswapped\":%" PRIu64,
	   r->mm.stored_pages, r->mm.stored_incompressible_pages, r->mm.pool_total_size,
	   r->memcg_zswap_bytes, r->memcg_zswapped_bytes);
	pr(o, "},\"order_counters\":{");
	json_orders(o, "swpout", r->mm.swpout);
	pr(o, ",");
	json_orders(o, "swpout_fallback", r->mm.swpout_fallback);
	pr(o, ",");
	json_orders(o, "zswpout", r->mm.zswpout_order);
	for (unsigned c = 0; c < SWS_NR_ORDER_COUNTERS; c++) {
		pr(o, ",");
		json_orders(o, sws_order_counter_name((enum sws_order_counter)c), r->swap.order_counters[c]);
	}
	pr(o, "},\"state\":{\"ram_pages\":%" PRIu64 ",\"free_pages\":%" PRIu64 ",\"anon_pages\":%" PRIu64
	      ",\"swapcache_pages\":%" PRIu64 ",\"total_swap_pages\":%" PRIu64
	      ",\"swap_used_pages\":%" PRIu64 ",\"nr_spaces\":%" PRIu64 "}",
	   r->mm.ram_pages, r->mm.free_pages, r->mm.anon_pages, r->mm.swapcache_pages,
	   r->swap.total_swap_pages, r->swap.total_swap_pages - r->swap.nr_swap_pages, r->mm.nr_spaces);
	pr(o, ",\"modelled_io_ns\":%" PRIu64, r->mm.counters[SWS_MM_modelled_io_ns]);
	pr(o, ",\"zswap\":{\"stored_pages\":%" PRIu64 ",\"stored_incompressible_pages\":%" PRIu64
	      ",\"pool_total_size\":%" PRIu64 ",\"pool_limit_pages\":%" PRIu64
	      ",\"compression_ratio\":%.3f}",
	   r->mm.stored_pages, r->mm.stored_incompressible_pages, r->mm.pool_total_size,
	   r->mm.pool_limit_pages,
	   r->mm.pool_total_size ? (double)(r->mm.stored_pages * SWS_PAGE_SIZE) / (double)r->mm.pool_total_size
				 : 0.0);
	pr(o, ",\"memory\":{\"static_bytes\":%" PRIu64 ",\"dynamic_bytes\":%" PRIu64 ",\"classes\":{",
	   r->memory.static_bytes, r->memory.dynamic_bytes);
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mem_class_name((enum sws_mem_class)c),
		   r->memory.bytes[c]);
	pr(o, "},\"peak\":{");
	for (unsigned c = 0; c < SWS_NR_MEM_CLASSES; c++)
		pr(o, "%s\"%s\":%" PRIu64, c ? "," : "", sws_mem_class_name((enum sws_mem_class)c),
		   r->swap.mem_peak[c]);
	pr(o, "}},\"latency\":{");
	for (unsigned l = 0; l < SWS_REPLAY_NR_LAT; l++) {
		pr(o, "%s\"%s\":", l ? "," : "", sws_replay_lat_name((enum sws_replay_lat)l));
		json_hist(o, &r->latency[l]);
	}
	pr(o, "}}");
}

int sws_replay_report_print(const struct sws_replay_report *const *runs, unsigned n,
			    enum sws_replay_format fmt,
			    int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct out o = {write, ctx, 0};
	if (!runs || !write || n > MAXRUNS)
		return SWS_EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (!runs[i])
			return SWS_EINVAL;
	if (fmt == SWS_REPLAY_REPORT_TABLE) {
		print_table(&o, runs, n);
	} else if (fmt == SWS_REPLAY_REPORT_JSON) {
		pr(&o, "{\"runs\":[");
		for (unsigned i = 0; i < n; i++) {
			if (i)
				pr(&o, ",");
			print_json_run(&o, runs[i]);
		}
		pr(&o, "]}\n");
	} else {
		return SWS_EINVAL;
	}
	return o.err;
}

int sws_replay_csv_header(int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct out o = {write, ctx, 0};
	pr(&o, "backend,events,time_s,pgfault,pgmajfault,pswpin,pswpout,pgsteal,resident_pages,"
	       "swap_used_pages,zswpout,zswpin,xswap_inuse_pages,xswap_mapped_clusters,"
	       "arena_mapped_bytes,arena_resident_bytes\n");
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
	       ",%" PRIu64 "\n",
	   sws_backend_name(backend), s->events, (double)s->time_ns / 1e9,
	   s->mm.counters[SWS_MM_pgfault], s->mm.counters[SWS_MM_pgmajfault],
	   s->mm.counters[SWS_MM_pswpin], s->mm.counters[SWS_MM_pswpout],
	   s->mm.counters[SWS_MM_pgsteal], s->mm.anon_pages, s->swap_used,
	   s->mm.counters[SWS_MM_zswpout], s->mm.counters[SWS_MM_zswpin], s->xswap_inuse_pages,
	   s->xswap_mapped_clusters, s->arena_mapped_bytes, s->arena_resident_bytes);
	return o.err;
}
