/*
 * import.c - importers for traces users already have: perf script text (page
 * faults and vmscan reclaim), valgrind lackey, DAMON damon_aggregated lines
 * (expanded as `damo replay` does), and plain address lists. The rules are
 * written down in docs/trace-format.md; each parser is strict about the lines
 * it uses and says which line is wrong otherwise.
 */
#include <string.h>

#include "trace_internal.h"

static void rec_access(struct sws_trace_record *rec, uint64_t addr, uint64_t len, uint32_t flags,
		       uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t time_ns)
{
	rec->time_ns = time_ns;
	rec->addr = addr;
	rec->len = len;
	rec->op = SWS_TRACE_ACCESS;
	rec->flags = flags;
	rec->pid = pid;
	rec->tid = tid;
	rec->cpu = cpu;
	rec->arg = 0;
}

/* "key=value" in @rest: the value as a string (NUL-terminated in place), or NULL. */
static char *kv_find(char *rest, const char *key)
{
	size_t kn = strlen(key);
	char *p = rest;
	while ((p = strstr(p, key))) {
		if ((p == rest || sws__is_space(p[-1])) && p[kn] == '=') {
			char *v = p + kn + 1;
			char *e = v;
			while (*e && !sws__is_space(*e))
				e++;
			*e = '\0';
			return v;
		}
		p += kn;
	}
	return NULL;
}

/* ---- perf ------------------------------------------------------------------ */

/* The software fault events, with perf's optional ":u"/":k"/... modifiers. */
static int is_sw_fault_event(const char *ev)
{
	static const char *const names[] = {"page-faults", "faults", "minor-faults", "major-faults"};
	for (size_t i = 0; i < SWS_ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i]);
		if (!strncmp(ev, names[i], n) && (ev[n] == '\0' || ev[n] == ':'))
			return 1;
	}
	return 0;
}

static int perf_line(struct sws_trace_reader *r, char *line, struct sws_trace_record *rec)
{
	struct sws_perf_line pl;
	const char *why;
	if (sws__perf_split(line, &pl, &why))
		return sws__trace_err_line(r, SWS_EFORMAT, "not a perf script sample line: %s", why);
	uint32_t pid = pl.has_tid ? pl.pid : r->cfg.default_pid;
	uint32_t tid = pl.has_tid ? pl.tid : r->cfg.default_pid;

	if (!strcmp(pl.event, "exceptions:page_fault_user")) {
		char *a = kv_find(pl.rest, "address");
		char *rest2 = a ? a + strlen(a) + 1 : NULL;
		char *ec = rest2 ? kv_find(rest2, "error_code") : NULL;
		uint64_t addr, code;
		if (!a || sws__parse_u64(a, strlen(a), 1, &addr))
			return sws__trace_err_line(r, SWS_EFORMAT, "page_fault_user: bad or missing address=");
		if (!ec || sws__parse_u64(ec, strlen(ec), 1, &code))
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "page_fault_user: bad or missing error_code=");
		uint32_t flags = ((code & 0x2) ? SWS_TRACE_F_WRITE : 0) |
				 ((code & 0x10) ? SWS_TRACE_F_IFETCH : 0);
		rec_access(rec, addr, 0, flags, pid, tid, pl.cpu, pl.time_ns);
		return 1;
	}
	if (is_sw_fault_event(pl.event)) {
		/* With a period column this is perf script's default layout: the
		 * next field is the ip, not a data address. Nothing to replay. */
		if (pl.has_period)
			return 0;
		char *p = pl.rest;
		char *a = sws__token(&p);
		uint64_t addr;
		if (!a || sws__parse_u64(a, strlen(a), 1, &addr))
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "%s: bad or missing data address (record with -d, "
						   "print with -F ...,addr)",
						   pl.event);
		rec_access(rec, addr, 0, 0, pid, tid, pl.cpu, pl.time_ns);
		return 1;
	}
	if (!strncmp(pl.event, "vmscan:", 7)) {
		const char *ev = pl.event + 7;
		uint32_t memcg;
		const char *key = "nr_reclaimed";
		if (!strcmp(ev, "mm_vmscan_memcg_reclaim_end") ||
		    !strcmp(ev, "mm_vmscan_memcg_softlimit_reclaim_end"))
			memcg = SWS_TRACE_MEMCG_TASK;
		else if (!strcmp(ev, "mm_vmscan_direct_reclaim_end") ||
			 !strcmp(ev, "mm_vmscan_node_reclaim_end"))
			memcg = SWS_TRACE_MEMCG_ROOT;
		else if (!strcmp(ev, "mm_vmscan_lru_shrink_inactive") && pl.comm &&
			 !strncmp(pl.comm, "kswapd", 6))
			memcg = SWS_TRACE_MEMCG_ROOT; /* kswapd has no begin/end pair */
		else
			return 0;
		char *v = kv_find(pl.rest, key);
		uint64_t n;
		if (!v || sws__parse_u64(v, strlen(v), 0, &n))
			return sws__trace_err_line(r, SWS_EFORMAT, "%s: bad or missing %s=", ev, key);
		rec->time_ns = pl.time_ns;
		rec->addr = 0;
		rec->len = n;
		rec->op = SWS_TRACE_RECLAIM;
		rec->flags = 0;
		rec->pid = pid;
		rec->tid = tid;
		rec->cpu = pl.cpu;
		rec->arg = memcg;
		return 1;
	}
	return 0; /* another event: not used */
}

int sws__perf_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	for (;;) {
		char *line;
		size_t len;
		int rc = sws__stream_line(r, &line, &len);
		if (rc <= 0)
			return rc;
		/* comments (perf script --header), blank lines, call-chain lines */
		char *p = sws__skip_space(line);
		if (!*p || *p == '#' || line[0] == '\t') {
			r->st.skipped_lines++;
			continue;
		}
		rc = perf_line(r, line, rec);
		if (rc)
			return rc;
		r->st.skipped_lines++;
	}
}

/* ---- lackey ----------------------------------------------------------------- */

/* "I  04001234,3" or " S 1fff000608,8": @return the op letter, or 0. Fills addr/size. */
static int lackey_parse(const char *line, uint64_t *addr, uint64_t *size)
{
	const char *p = line;
	while (*p == ' ')
		p++;
	char op = *p;
	if (op != 'I' && op != 'L' && op != 'S' && op != 'M')
		return 0;
	if (p - line > 1 || (op == 'I' && p != line) || !sws__is_space(p[1]))
		return 0;
	p = sws__skip_space((char *)p + 1);
	const char *comma = strchr(p, ',');
	if (!comma)
		return 0;
	const char *e = comma + 1;
	while (*e >= '0' && *e <= '9')
		e++;
	const char *t = sws__skip_space((char *)e);
	if (*t)
		return 0;
	if (sws__parse_u64(p, (size_t)(comma - p), 1, addr) ||
	    sws__parse_u64(comma + 1, (size_t)(e - comma - 1), 0, size))
		return 0;
	return op;
}

int sws__lackey_line_ok(const char *line)
{
	uint64_t a, s;
	return !strncmp(line, "==", 2) || lackey_parse(line, &a, &s);
}

int sws__lackey_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	for (;;) {
		char *line;
		size_t len;
		int rc = sws__stream_line(r, &line, &len);
		if (rc <= 0)
			return rc;
		if (!strncmp(line, "==", 2) || !*sws__skip_space(line)) {
			r->st.skipped_lines++;
			continue;
		}
		uint64_t addr, size;
		int op = lackey_parse(line, &addr, &size);
		if (!op)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "not a lackey line (want \"I  ADDR,SIZE\" or "
						   "\" L|S|M ADDR,SIZE\" with ADDR in hex)");
		uint32_t flags = op == 'I' ? SWS_TRACE_F_IFETCH
			       : (op == 'S' || op == 'M') ? SWS_TRACE_F_WRITE
							  : 0;
		uint32_t pid = r->cfg.default_pid;
		rec_access(rec, addr, size, flags, pid, pid, SWS_TRACE_CPU_ANY, 0);
		return 1;
	}
}

/* ---- addr ------------------------------------------------------------------ */

/* An address: 0x → hex; digits only → decimal (hex with READ_ADDR_HEX); hex letters → hex. */
static int addr_parse(const char *t, int hex, uint64_t *out)
{
	size_t n = strlen(t);
	if (n >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
		return sws__parse_u64(t, n, 1, out);
	if (!hex)
		for (size_t i = 0; i < n; i++)
			if (t[i] < '0' || t[i] > '9') {
				hex = 1;
				break;
			}
	return sws__parse_u64(t, n, hex, out);
}

/* Parse one addr line (comments already removed). @return 1 ok, 0 blank, -1 bad (why). */
static int addr_line(char *line, int hex, uint64_t *addr, int *write, int *has_tid,
		     uint32_t *tid, const char **why)
{
	char *p = line;
	char *t[4];
	int n = 0;
	while (n < 4 && (t[n] = sws__token(&p)))
		n++;
	if (n == 0)
		return 0;
	if (n > 3) {
		*why = "too many fields (want ADDR [R|W] [TASK])";
		return -1;
	}
	if (addr_parse(t[0], hex, addr)) {
		*why = "bad address";
		return -1;
	}
	*write = 0;
	*has_tid = 0;
	int i = 1;
	if (i < n && (!strcmp(t[i], "R") || !strcmp(t[i], "r") || !strcmp(t[i], "W") ||
		      !strcmp(t[i], "w"))) {
		*write = t[i][0] == 'W' || t[i][0] == 'w';
		i++;
	}
	if (i < n) {
		if (sws__parse_u32(t[i], strlen(t[i]), 0, tid)) {
			*why = i == 1 ? "second field is neither R, W nor a task id" : "bad task id";
			return -1;
		}
		*has_tid = 1;
		i++;
	}
	if (i < n) {
		*why = "too many fields (want ADDR [R|W] [TASK])";
		return -1;
	}
	return 1;
}

int sws__addr_line_ok(const char *line, int hex)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", line);
	char *hash = strchr(buf, '#');
	if (hash)
		*hash = '\0';
	uint64_t a;
	int w, ht;
	uint32_t tid;
	const char *why;
	return addr_line(buf, hex, &a, &w, &ht, &tid, &why) == 1;
}

int sws__addr_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	for (;;) {
		char *line;
		size_t len;
		int rc = sws__stream_line(r, &line, &len);
		if (rc <= 0)
			return rc;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		uint64_t addr;
		int write, has_tid;
		uint32_t tid;
		const char *why;
		rc = addr_line(line, !!(r->cfg.flags & SWS_TRACE_READ_ADDR_HEX), &addr, &write,
			       &has_tid, &tid, &why);
		if (rc < 0)
			return sws__trace_err_line(r, SWS_EFORMAT, "%s", why);
		if (rc == 0) {
			r->st.skipped_lines++;
			continue;
		}
		if (!has_tid)
			tid = r->cfg.default_pid;
		rec_access(rec, addr, 0, write ? SWS_TRACE_F_WRITE : 0, tid, tid, SWS_TRACE_CPU_ANY, 0);
		return 1;
	}
}

/* ---- damon ------------------------------------------------------------------ */

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
 * Only slices up to the snapshot's largest nr_accesses are visited, so every
 * call either returns a record or moves on through the regions: its work is
 * bounded by the snapshot, whatever aggr / sample is.
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
	if (strcmp(pl.event, "damon:damon_aggregated"))
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
	typeof(r->damon) *d = &r->damon;
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

void sws__damon_free(struct sws_trace_reader *r)
{
	if (r->damon.regions)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, r->damon.regions,
			      r->damon.cap * sizeof(*r->damon.regions));
	r->damon.regions = NULL;
}

/* The snapshot just collected: set the slices it touches, and check that the
 * trace's records with it stay within the expansion limit. @return 0 or an error. */
static int damon_budget(struct sws_trace_reader *r)
{
	typeof(r->damon) *d = &r->damon;
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
	typeof(r->damon) *d = &r->damon;
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

int sws__damon_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	typeof(r->damon) *d = &r->damon;
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
					rec_access(rec, d->addr, 0, 0, pid, pid, SWS_TRACE_CPU_ANY,
						   start + d->slice * sample_ns);
					if (g->end - d->addr > SWS_TRACE_PAGE)
						d->addr += SWS_TRACE_PAGE;
					else
						d->addr = g->end;
					return 1;
				}
				if (++d->idx < d->nr)
					d->addr = d->regions[d->idx].start;
			}
			d->slice++;
			d->idx = 0;
			d->addr = d->regions[0].start;
		}
		d->ready = 0;
	}
}
