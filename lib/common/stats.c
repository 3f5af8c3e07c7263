/*
 * stats.c - the names of counters, work items and memory classes, and the
 * printing of a snapshot as a table or JSON through a callback. Taking a
 * snapshot is the swap core's (swap/stats.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <swapsim/error.h>

#include "mem.h"
#include "out.h"

static const char *const counter_names[] = {
#define SWS__CTR_NAME(name, desc) #name,
	SWS_COUNTER_LIST(SWS__CTR_NAME)
#undef SWS__CTR_NAME
};

static const char *const order_counter_names[] = {
#define SWS__OCTR_NAME(name, desc) #name,
	SWS_ORDER_COUNTER_LIST(SWS__OCTR_NAME)
#undef SWS__OCTR_NAME
};

static const char *const mem_class_names[] = {
#define SWS__MEM_NAME(name, is_static, desc) #name,
	SWS_MEM_CLASS_LIST(SWS__MEM_NAME)
#undef SWS__MEM_NAME
};

static const unsigned char mem_class_static[] = {
#define SWS__MEM_STATIC(name, is_static, desc) is_static,
	SWS_MEM_CLASS_LIST(SWS__MEM_STATIC)
#undef SWS__MEM_STATIC
};

static const char *const work_names[] = {
#define SWS__WORK_NAME(name, desc) #name,
	SWS_WORK_LIST(SWS__WORK_NAME)
#undef SWS__WORK_NAME
};

static const char *const work_ctx_names[] = {
#define SWS__WCTX_NAME(name) #name,
	SWS_WORK_CTX_LIST(SWS__WCTX_NAME)
#undef SWS__WCTX_NAME
};

const char *sws_work_name(enum sws_work w) { return (unsigned)w < SWS_NR_WORK ? work_names[w] : ""; }

const char *sws_work_ctx_name(enum sws_work_ctx c)
{
	return (unsigned)c < SWS_NR_WORK_CTX ? work_ctx_names[c] : "";
}

const char *sws_counter_name(enum sws_counter c)
{
	return (unsigned)c < SWS_NR_COUNTERS ? counter_names[c] : "";
}

const char *sws_order_counter_name(enum sws_order_counter c)
{
	return (unsigned)c < SWS_NR_ORDER_COUNTERS ? order_counter_names[c] : "";
}

const char *sws_mem_class_name(enum sws_mem_class c)
{
	return (unsigned)c < SWS_NR_MEM_CLASSES ? mem_class_names[c] : "";
}

int sws_mem_class_is_static(enum sws_mem_class c)
{
	return (unsigned)c < SWS_NR_MEM_CLASSES && mem_class_static[c] == 1;
}

enum sws_mem_kind sws_mem_class_kind(enum sws_mem_class c)
{
	return (unsigned)c < SWS_NR_MEM_CLASSES ? (enum sws_mem_kind)mem_class_static[c] : SWS_MEM_KIND_OTHER;
}

int sws_stats_get(const struct sws_stats *st, const char *name, uint64_t *value)
{
	if (!st || !name || !value)
		return SWS_EINVAL;
	for (int c = 0; c < SWS_NR_COUNTERS; c++) {
		if (!strcmp(name, counter_names[c])) {
			*value = st->counters[c];
			return 0;
		}
	}
	for (int c = 0; c < SWS_NR_ORDER_COUNTERS; c++) {
		size_t n = strlen(order_counter_names[c]);
		unsigned order;
		char close;
		if (!strncmp(name, order_counter_names[c], n) &&
		    sscanf(name + n, "[%u%c", &order, &close) == 2 && close == ']' &&
		    order < SWS_NR_ORDERS && name[n + 3 + (order > 9)] == 0) {
			*value = st->order_counters[c][order];
			return 0;
		}
	}
	struct {
		const char *name;
		uint64_t v;
	} gauges[] = {{"total_swap_pages", st->total_swap_pages},
		      {"nr_swap_pages", st->nr_swap_pages},
		      {"nr_swapcache", st->nr_swapcache}};
	for (unsigned g = 0; g < SWS_ARRAY_SIZE(gauges); g++) {
		if (!strcmp(name, gauges[g].name)) {
			*value = gauges[g].v;
			return 0;
		}
	}
	return SWS_EINVAL;
}

/* ---- printing ----------------------------------------------------------------- */

static const char *const mem_kind[] = {"dynamic", "static", "other"};

static void print_json(struct sws__out *p, const struct sws_stats *st)
{
	sws__pr(p, "{\"counters\":{");
	for (int c = 0; c < SWS_NR_COUNTERS; c++)
		sws__pr(p, "%s\"%s\":%llu", c ? "," : "", counter_names[c],
		    (unsigned long long)st->counters[c]);
	sws__pr(p, ",\"total_swap_pages\":%llu,\"nr_swap_pages\":%llu,\"nr_swapcache\":%llu},",
	    (unsigned long long)st->total_swap_pages, (unsigned long long)st->nr_swap_pages,
	    (unsigned long long)st->nr_swapcache);
	sws__pr(p, "\"order_counters\":{");
	for (int c = 0; c < SWS_NR_ORDER_COUNTERS; c++) {
		sws__pr(p, "%s\"%s\":[", c ? "," : "", order_counter_names[c]);
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			sws__pr(p, "%s%llu", o ? "," : "", (unsigned long long)st->order_counters[c][o]);
		sws__pr(p, "]");
	}
	sws__pr(p, "},\"memory\":{\"static_bytes\":%llu,\"dynamic_bytes\":%llu,\"classes\":{",
	    (unsigned long long)st->mem_static, (unsigned long long)st->mem_dynamic);
	for (int c = 0; c < SWS_NR_MEM_CLASSES; c++)
		sws__pr(p, "%s\"%s\":{\"bytes\":%llu,\"peak\":%llu,\"kind\":\"%s\"}", c ? "," : "",
		    mem_class_names[c], (unsigned long long)st->mem_bytes[c],
		    (unsigned long long)st->mem_peak[c], mem_kind[mem_class_static[c]]);
	sws__pr(p, "}}}\n");
}

static void print_table(struct sws__out *p, const struct sws_stats *st)
{
	sws__pr(p, "%-32s %20s\n", "counter", "value");
	for (int c = 0; c < SWS_NR_COUNTERS; c++)
		sws__pr(p, "%-32s %20llu\n", counter_names[c], (unsigned long long)st->counters[c]);
	sws__pr(p, "%-32s %20llu\n", "total_swap_pages", (unsigned long long)st->total_swap_pages);
	sws__pr(p, "%-32s %20llu\n", "nr_swap_pages", (unsigned long long)st->nr_swap_pages);
	sws__pr(p, "%-32s %20llu\n", "nr_swapcache", (unsigned long long)st->nr_swapcache);
	for (int c = 0; c < SWS_NR_ORDER_COUNTERS; c++)
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			if (st->order_counters[c][o])
				sws__pr(p, "%s[%d]%*s %20llu\n", order_counter_names[c], o,
				    (int)(29 - strlen(order_counter_names[c])), "",
				    (unsigned long long)st->order_counters[c][o]);
	sws__pr(p, "%-32s %20s %20s\n", "memory class", "bytes", "peak");
	for (int c = 0; c < SWS_NR_MEM_CLASSES; c++)
		sws__pr(p, "%-24s %-7s %20llu %20llu\n", mem_class_names[c], mem_kind[mem_class_static[c]],
		    (unsigned long long)st->mem_bytes[c],
		    (unsigned long long)st->mem_peak[c]);
	sws__pr(p, "%-32s %20llu\n%-32s %20llu\n", "static metadata bytes",
	    (unsigned long long)st->mem_static, "dynamic metadata bytes",
	    (unsigned long long)st->mem_dynamic);
}

int sws_stats_print(const struct sws_stats *st, enum sws_print_format fmt,
		    int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	if (!st || !write)
		return SWS_EINVAL;
	struct sws__out p = {write, ctx, 0};
	if (fmt == SWS_PRINT_JSON)
		print_json(&p, st);
	else if (fmt == SWS_PRINT_TABLE)
		print_table(&p, st);
	else
		return SWS_EINVAL;
	return p.err;
}
