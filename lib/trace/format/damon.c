/*
 * damon.c - the DAMON importer: damon:damon_aggregated perf-script lines,
 * expanded into accesses as `damo replay` does (docs/trace-format.md).
 */
#include <string.h>

#include "../trace_internal.h"

/*
 * HOW IT WORKS. DAMON prints one damon_aggregated line per region at the end
 * of each aggregation interval: "target_id=T nr_regions=N START-END: NR AGE".
 * A snapshot is the N consecutive lines of one target. Like damo replay, the
 * snapshot's aggregation interval is cut into aggr/sample slices; a region
 * with nr_accesses k (at most the slice count) is touched in the first k
 * slices, one read per 4 KiB page, regions in their order. So records come
 * slice by slice:
 *
 *   slice 0: every region with k >= 1, page by page
 *   slice 1: every region with k >= 2, ...
 *
 * The snapshot's lines all carry (nearly) the same time: the first one is
 * taken as the end of the interval, so slice s has time
 * end - aggr + s * sample (clamped at 0).
 *
 * Only slices up to the snapshot's largest nr_accesses are visited, and a
 * slice walks only the regions it touches (the others leave the list as it
 * ends), so a snapshot's work is its records plus its regions, whatever
 * aggr / sample is and however many regions are idle.
 *
 * LIMITATIONS. A snapshot is held whole (at most SWS_TRACE_DAMON_MAX_REGIONS
 * regions). One that stops short (the file ends, or a line of another target
 * or region count arrives) is replayed with the regions it has. pid is
 * default_pid + target_id; the kdamond's own pid/cpu are not the workload's.
 * The expansion is bounded by the input: a region with nr_accesses > 0 holds
 * at most SWS_TRACE_DAMON_MAX_REGION_PAGES pages (checked on its line), and
 * before a snapshot is expanded, the records of all snapshots so far, this
 * one included, must not exceed damon_max_expansion per byte of the file read
 * (compressed bytes for a zstd file, which could otherwise multiply the bound
 * by its ratio; checked before its first record, the error names its first
 * line).
 */

/* DAMON snapshot region. */
struct sws_damon_region {
	uint64_t start, end;
	uint32_t nr_accesses;
};

/* The snapshot being collected or expanded. */
struct damon_state {
	struct sws_damon_region *regions;
	uint32_t nr, cap;      /* regions held, array size */
	uint32_t expect;       /* nr_regions the lines announce */
	uint32_t target;
	uint64_t time_ns;      /* time of the snapshot's first line */
	uint64_t line;         /* number of the snapshot's first line */
	int ready;             /* snapshot complete: expanding */
	uint32_t slice, idx;
	uint32_t nslices;      /* slices this snapshot touches: its largest
	                          nr_accesses (clamped to aggr / sample) */
	uint64_t addr;         /* next page in regions[idx] */
	uint64_t expanded;     /* records of the snapshots so far, this one included */
	int have_pending;      /* a parsed line that starts the next snapshot */
	struct sws_damon_region pending;
	uint32_t pending_target, pending_expect;
	uint64_t pending_time, pending_line;
};

/* 4 KiB pages of [start, end), the last one partial. */
static uint64_t damon_pages(const struct sws_damon_region *g)
{
	uint64_t size = g->end - g->start;
	return (size / SWS_TRACE_PAGE) + (size % SWS_TRACE_PAGE != 0);
}

static int damon_parse(struct sws_trace_reader *r, char *line, int *used, uint32_t *target,
		       uint32_t *expect, struct sws_damon_region *reg, uint64_t *time_ns)
{
	struct sws_perf_line pl;
	const char *why;
	*used = 0;
	if (sws__perf_split(line, &pl, &why))
		return sws__trace_err_line(r, SWS_EFORMAT, "not a perf script sample line: %s", why);
	if (strcmp(pl.event, SWS__DAMON_EVENT))
		return 0; /* damos_before_apply, intervals tuning, ...: not used */
	char *p = pl.rest;
	char *t_target = sws__token(&p);
	char *t_nr = sws__token(&p);
	char *t_range = sws__token(&p);
	char *t_acc = sws__token(&p);
	char *t_age = sws__token(&p); /* optional: old kernels omit it */
	char *t_more = sws__token(&p);
	if (!t_acc || t_more)
		return sws__trace_err_line(r, SWS_EFORMAT, "damon_aggregated: want "
							   "\"target_id=T nr_regions=N START-END: NR [AGE]\"");
	uint32_t age;
	if (strncmp(t_target, "target_id=", 10) ||
	    sws__parse_u32(t_target + 10, strlen(t_target + 10), 0, target))
		return sws__trace_err_line(r, SWS_EFORMAT, "damon_aggregated: bad target_id=");
	if (strncmp(t_nr, "nr_regions=", 11) || sws__parse_u32(t_nr + 11, strlen(t_nr + 11), 0, expect) ||
	    *expect == 0)
		return sws__trace_err_line(r, SWS_EFORMAT, "damon_aggregated: bad nr_regions=");
	if (*expect > SWS_TRACE_DAMON_MAX_REGIONS)
		return sws__trace_err_line(r, SWS_EFORMAT, "damon_aggregated: nr_regions=%u is above %u",
					   *expect, SWS_TRACE_DAMON_MAX_REGIONS);
	size_t rn = strlen(t_range);
	char *dash = strchr(t_range, '-');
	if (rn < 4 || t_range[rn - 1] != ':' || !dash ||
	    sws__parse_u64(t_range, (size_t)(dash - t_range), 0, &reg->start) ||
	    sws__parse_u64(dash + 1, (size_t)(t_range + rn - 1 - dash - 1), 0, &reg->end) ||
	    reg->end <= reg->start)
		return sws__trace_err_line(r, SWS_EFORMAT, "damon_aggregated: bad region \"%.60s\"", t_range);
	if (sws__parse_u32(t_acc, strlen(t_acc), 0, &reg->nr_accesses))
		return sws__trace_err_line(r, SWS_EFORMAT, "damon_aggregated: bad nr_accesses");
	if (t_age && sws__parse_u32(t_age, strlen(t_age), 0, &age))
		return sws__trace_err_line(r, SWS_EFORMAT, "damon_aggregated: bad age");
	if (reg->nr_accesses && damon_pages(reg) > SWS_TRACE_DAMON_MAX_REGION_PAGES)
		return sws__trace_err_line(r, SWS_EFORMAT,
					   "damon_aggregated: region of %llu pages exceeds the "
					   "per-region limit of %u",
					   (unsigned long long)damon_pages(reg),
					   SWS_TRACE_DAMON_MAX_REGION_PAGES);
	*time_ns = pl.time_ns;
	*used = 1;
	return 0;
}

static int damon_push(struct sws_trace_reader *r, const struct sws_damon_region *reg)
{
	struct damon_state *d = r->state;
	if (d->nr == d->cap) {
		uint32_t ncap = d->cap ? d->cap * 2 : 64;
		if (ncap > SWS_TRACE_DAMON_MAX_REGIONS)
			ncap = SWS_TRACE_DAMON_MAX_REGIONS;
		if (d->nr == ncap)
			return sws__trace_err_line(r, SWS_EFORMAT, "more than %u regions in a snapshot",
						   SWS_TRACE_DAMON_MAX_REGIONS);
		struct sws_damon_region *n =
			sws__mem_alloc(&r->mem, SWS__TRACE_MEM, ncap * sizeof(*n), 0);
		if (!n)
			return sws__trace_err_line(r, SWS_ENOMEM, "out of memory for DAMON regions");
		if (d->nr)
			memcpy(n, d->regions, d->nr * sizeof(*n));
		if (d->regions)
			sws__mem_free(&r->mem, SWS__TRACE_MEM, d->regions, d->cap * sizeof(*n));
		d->regions = n;
		d->cap = ncap;
	}
	d->regions[d->nr++] = *reg;
	return 0;
}

static void damon_free(struct sws_trace_reader *r)
{
	struct damon_state *d = r->state;
	if (d->regions)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, d->regions, d->cap * sizeof(*d->regions));
	d->regions = NULL;
}

/* The snapshot just collected: set the slices it touches, and check that the
 * trace's records with it stay within the expansion limit. @return 0 or an error. */
static int damon_budget(struct sws_trace_reader *r)
{
	struct damon_state *d = r->state;
	uint32_t slices = r->cfg.damon_aggr_us / r->cfg.damon_sample_us;
	uint64_t snap = 0;
	d->nslices = 0;
	for (uint32_t i = 0; i < d->nr; i++) {
		const struct sws_damon_region *g = &d->regions[i];
		uint32_t k = g->nr_accesses < slices ? g->nr_accesses : slices;
		/* k > 0: at most 2^20 pages (damon_parse), so at most 2^52 records */
		uint64_t n = k ? damon_pages(g) * k : 0;
		snap = snap > UINT64_MAX - n ? UINT64_MAX : snap + n;
		if (k > d->nslices)
			d->nslices = k;
	}
	uint64_t total = d->expanded > UINT64_MAX - snap ? UINT64_MAX : d->expanded + snap;
	uint64_t bytes = sws__stream_file_off(&r->s), budget;
	if (__builtin_mul_overflow(bytes, (uint64_t)r->cfg.damon_max_expansion, &budget))
		budget = UINT64_MAX;
	if (total > budget)
		return sws__trace_err_at(r, SWS_EFORMAT, d->line,
					 "DAMON expansion over its limit: this snapshot makes %llu "
					 "records, %llu in all from %llu bytes of the file, more than %u "
					 "per byte (damon_max_expansion, --damon-max-expansion)",
					 (unsigned long long)snap, (unsigned long long)total,
					 (unsigned long long)bytes, r->cfg.damon_max_expansion);
	d->expanded = total;
	return 0;
}

/* Read lines until a snapshot is complete (ready) or the input ends. @return 0 or error. */
static int damon_collect(struct sws_trace_reader *r)
{
	struct damon_state *d = r->state;
	d->nr = 0;
	if (d->have_pending) {
		d->have_pending = 0;
		d->target = d->pending_target;
		d->expect = d->pending_expect;
		d->time_ns = d->pending_time;
		d->line = d->pending_line;
		int rc = damon_push(r, &d->pending);
		if (rc)
			return rc;
	}
	while (!(d->nr && d->nr == d->expect)) {
		char *line;
		size_t len;
		int rc = sws__stream_line(r, &line, &len);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		char *p = sws__skip_space(line);
		if (!*p || *p == '#') {
			r->st.skipped_lines++;
			continue;
		}
		int used;
		uint32_t target, expect;
		struct sws_damon_region reg;
		uint64_t t;
		if ((rc = damon_parse(r, line, &used, &target, &expect, &reg, &t)))
			return rc;
		if (!used) {
			r->st.skipped_lines++;
			continue;
		}
		if (d->nr && (target != d->target || expect != d->expect)) {
			d->have_pending = 1; /* a new snapshot starts: this one stops short */
			d->pending = reg;
			d->pending_target = target;
			d->pending_expect = expect;
			d->pending_time = t;
			d->pending_line = r->line;
			break;
		}
		if (!d->nr) {
			d->target = target;
			d->expect = expect;
			d->time_ns = t;
			d->line = r->line;
		}
		if ((rc = damon_push(r, &reg)))
			return rc;
	}
	d->ready = d->nr > 0;
	d->slice = 0;
	d->idx = 0;
	d->addr = d->nr ? d->regions[0].start : 0;
	return d->ready ? damon_budget(r) : 0;
}

static int damon_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	struct damon_state *d = r->state;
	uint64_t sample_ns = (uint64_t)r->cfg.damon_sample_us * 1000u;
	uint64_t aggr_ns = (uint64_t)r->cfg.damon_aggr_us * 1000u;
	for (;;) {
		if (!d->ready) {
			int rc = damon_collect(r);
			if (rc)
				return rc;
			if (!d->ready)
				return 0;
		}
		/* Find the next region touched in this slice, page by page. */
		while (d->slice < d->nslices) {
			while (d->idx < d->nr) {
				struct sws_damon_region *g = &d->regions[d->idx];
				if (g->nr_accesses > d->slice && d->addr < g->end) {
					uint64_t start = d->time_ns > aggr_ns ? d->time_ns - aggr_ns : 0;
					uint32_t pid = r->cfg.default_pid + d->target;
					sws__rec_access(rec, d->addr, 0, 0, pid, pid, SWS_TRACE_CPU_ANY,
						   start + d->slice * sample_ns);
					r->rec_line = d->line;
					if (g->end - d->addr > SWS_TRACE_PAGE)
						d->addr += SWS_TRACE_PAGE;
					else
						d->addr = g->end;
					return 1;
				}
				if (++d->idx < d->nr)
					d->addr = d->regions[d->idx].start;
			}
			/* Only the regions the next slice touches stay, in their
			 * order: each region is walked once more than it is
			 * touched, so a snapshot costs its records plus its
			 * regions, never its slices times its regions. */
			uint32_t keep = 0;
			for (uint32_t i = 0; i < d->nr; i++)
				if (d->regions[i].nr_accesses > d->slice + 1)
					d->regions[keep++] = d->regions[i];
			d->nr = keep;
			d->slice++;
			d->idx = 0;
			d->addr = d->nr ? d->regions[0].start : 0;
		}
		d->ready = 0;
	}
}

/* A perf-script sample line of damon:damon_aggregated. */
static int damon_detect(const struct sws_trace_reader *r, const char *line)
{
	(void)r;
	return sws__perf_line_is(line, 1);
}

SWS__TRACE_FORMAT(sws__trace_damon,
		  .id = SWS_TRACE_FORMAT_DAMON,
		  .name = "damon",
		  .state_size = sizeof(struct damon_state),
		  .detect = damon_detect,
		  .next = damon_next,
		  .free = damon_free);
