/*
 * reader.c - the public trace reader: configuration, the choice of a format
 * (formats.c), and its calls through the format's table (format/). Errors are sticky:
 * once next() failed it keeps returning the same code and message.
 *
 * A binary format may decode records ahead in batches (next_batch): next()
 * then hands them out from the reader's array, a copy and a few counters
 * each, and calls the format only when the batch is through. The format's
 * own next() reads whatever the batch stopped before, so errors, positions
 * and the stats are those of reading one record at a time.
 */
#include <string.h>

#include "trace_internal.h"

static int check_config(const struct sws_trace_reader_config *c)
{
	if (c->version > SWS_TRACE_READER_CONFIG_VERSION ||
	    (c->env && c->env->version > SWS_ENV_VERSION))
		return SWS_EVERSION;
	if ((unsigned)c->format >= SWS_TRACE_NR_FORMATS ||
	    (c->flags & ~(SWS_TRACE_READ_ADDR_HEX | SWS_TRACE_READ_NO_IFETCH | SWS_TRACE_READ_DIRTY_EVENTS)) ||
	    (c->max_line && (c->max_line < 256 || c->max_line > SWS_TRACE_MAX_LINE_LIMIT)) ||
	    (c->env && c->env->reserved))
		return SWS_EINVAL;
	uint32_t sample = c->damon_sample_us ? c->damon_sample_us : 5000;
	uint32_t aggr = c->damon_aggr_us ? c->damon_aggr_us : 100000;
	if (aggr < sample)
		return SWS_EINVAL;
	return 0;
}

/* The format of the file at the start of the stream: the configured one, or
 * the one its first bytes or lines say. @return 0 (r->fmt set) or an error. */
static int reader_choose(struct sws_trace_reader *r)
{
	struct sws_trace_stream *s = &r->s;
	if (s->len == s->pos)
		return sws__trace_err_byte(r, SWS_EFORMAT, 0, "empty file (after decompression)");
	size_t avail = s->len - s->pos;
	enum sws_trace_format want = r->cfg.format;
	int prefix;
	const struct sws__trace_format *bin = sws__trace_format_magic(s->buf + s->pos, avail, &prefix);
	if (bin && prefix && (want == SWS_TRACE_FORMAT_AUTO || want == bin->id))
		return sws__trace_err_byte(r, SWS_EFORMAT, avail, "truncated header (%zu of %u bytes)",
					   avail, bin->header_size);
	if (prefix)
		bin = NULL;
	if (want == SWS_TRACE_FORMAT_AUTO) {
		uint64_t bad;
		r->fmt = bin ? bin : sws__trace_format_detect(r, &bad);
		if (r->fmt)
			return 0;
		r->line = bad;
		if (bad)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "cannot tell the trace format from this line; "
						   "give the format explicitly");
		return sws__trace_err_byte(r, SWS_EFORMAT, 0,
					   "cannot tell the trace format: no data "
					   "line at the start of the file");
	}
	r->fmt = sws__trace_format_find(want, bin != NULL);
	if (!r->fmt)
		return sws__trace_err_byte(r, SWS_EFORMAT, 0,
					   "this is a swapsim binary trace, not %s text",
					   sws_trace_format_name(want));
	return 0;
}

static int reader_setup(struct sws_trace_reader *r, const char *path)
{
	int rc = sws__stream_open(r, path);
	if (rc)
		return rc;
	/* Enough to see the binary header, and the first lines for detection. */
	rc = sws__stream_fill(r, r->cfg.format == SWS_TRACE_FORMAT_AUTO ? 65536 : 16);
	if (rc || (rc = reader_choose(r)))
		return rc;
	if (r->fmt->state_size &&
	    !(r->state = sws__mem_zalloc(&r->mem, SWS__TRACE_MEM, r->fmt->state_size, 0)))
		return sws__trace_err_byte(r, SWS_ENOMEM, 0, "out of memory");
	if (r->fmt->next_batch &&
	    (!(r->batch = sws__mem_alloc(&r->mem, SWS__TRACE_MEM, SWS__TRACE_BATCH * sizeof(*r->batch), 0)) ||
	     !(r->batch_end = sws__mem_alloc(&r->mem, SWS__TRACE_MEM, SWS__TRACE_BATCH * sizeof(*r->batch_end), 0))))
		return sws__trace_err_byte(r, SWS_ENOMEM, 0, "out of memory");
	return r->fmt->open ? r->fmt->open(r) : 0;
}

int sws_trace_reader_open(const char *path, const struct sws_trace_reader_config *cfg,
			  struct sws_trace_reader **out, char *errbuf, size_t errlen)
{
	static const struct sws_trace_reader_config defaults = {0};
	if (out)
		*out = NULL;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!path || !out)
		return SWS_EINVAL;
	if (!cfg)
		cfg = &defaults;
	int rc = check_config(cfg);
	if (rc) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: %s", path,
				 rc == SWS_EVERSION ? "unsupported reader config version"
						    : "invalid reader configuration");
		return rc;
	}
	struct sws_mem mem;
	sws__mem_init(&mem, cfg->env ? &cfg->env->allocator : NULL);
	struct sws_trace_reader *r = sws__mem_zalloc(&mem, SWS__TRACE_MEM, sizeof(*r), 0);
	if (!r) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s: out of memory", path);
		return SWS_ENOMEM;
	}
	r->mem = mem;
	r->cfg = *cfg;
	if (!r->cfg.max_line)
		r->cfg.max_line = SWS_TRACE_MAX_LINE_DEFAULT;
	if (!r->cfg.default_pid)
		r->cfg.default_pid = 1;
	if (!r->cfg.damon_sample_us)
		r->cfg.damon_sample_us = 5000;
	if (!r->cfg.damon_aggr_us)
		r->cfg.damon_aggr_us = 100000;
	if (!r->cfg.damon_max_expansion)
		r->cfg.damon_max_expansion = SWS_TRACE_DAMON_EXPANSION_DEFAULT;
	r->skip_ifetch = (r->cfg.flags & SWS_TRACE_READ_NO_IFETCH) != 0;
	snprintf(r->path, sizeof(r->path), "%s", path);
	rc = reader_setup(r, path);
	if (rc) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s", r->msg);
		sws_trace_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* An instruction fetch the configuration leaves out (SWS_TRACE_READ_NO_IFETCH). */
static inline int skipped(const struct sws_trace_reader *r, const struct sws_trace_record *rec)
{
	return sws_unlikely(r->skip_ifetch) && rec->op == SWS_TRACE_ACCESS && (rec->flags & SWS_TRACE_F_IFETCH);
}

/* The next record of the decoded batch into *@rec: @return 1, or 0 when it
 * has none left. */
static inline int batch_take(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	while (r->bpos < r->bn) {
		const struct sws_trace_record *x = &r->batch[r->bpos];
		r->st.bytes = r->batch_end[r->bpos++];
		r->rec_line = ++r->read; /* a binary format: the record's number */
		if (skipped(r, x))
			continue;
		*rec = *x;
		r->st.records++;
		return 1;
	}
	return 0;
}

/* The next record when the batch has none left: a new batch, or one record
 * through the format's next(), which reports every error. */
__attribute__((noinline)) static int reader_next_slow(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	if (r->err)
		return r->err;
	if (r->done)
		return 0;
	for (;;) {
		if (r->fmt->next_batch) {
			r->bpos = 0;
			r->bn = r->fmt->next_batch(r, r->batch, r->batch_end, SWS__TRACE_BATCH);
			if (batch_take(r, rec))
				return 1;
			if (r->bn) /* every one of them skipped */
				continue;
		}
		r->rec_line = 0;
		int rc = r->fmt->next(r, rec);
		if (rc < 0)
			return r->err ? r->err : rc;
		if (rc == 0) {
			r->done = 1;
			r->st.bytes = sws__stream_off(&r->s);
			return 0;
		}
		r->read++;
		if (!r->rec_line) /* the format named none: this line, or this record's number */
			r->rec_line = r->fmt->magic ? r->read : r->line;
		if (skipped(r, rec))
			continue;
		r->st.records++;
		return 1;
	}
}

/* The fast path: a record of the decoded batch; the rest out of line. */
int sws_trace_reader_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	if (!r || !rec)
		return SWS_EINVAL;
	if (sws_likely(batch_take(r, rec)))
		return 1;
	return reader_next_slow(r, rec);
}

uint64_t sws_trace_reader_position(const struct sws_trace_reader *r)
{
	return r ? r->rec_line : 0;
}

const char *sws_trace_reader_error(const struct sws_trace_reader *r)
{
	return r ? r->msg : "";
}

const char *sws_trace_reader_warning(const struct sws_trace_reader *r)
{
	return r ? r->warning : "";
}

enum sws_trace_format sws_trace_reader_format(const struct sws_trace_reader *r)
{
	return r->fmt->id;
}

int sws_trace_reader_is_binary(const struct sws_trace_reader *r, int *zstd)
{
	if (zstd)
		*zstd = r->s.zstd;
	return r->fmt->magic != NULL;
}

void sws_trace_reader_stats_get(const struct sws_trace_reader *r, struct sws_trace_reader_stats *out)
{
	*out = r->st;
}

size_t sws_trace_reader_memory_usage(const struct sws_trace_reader *r)
{
	return r ? (size_t)sws_load_relaxed(&r->mem.bytes[SWS__TRACE_MEM]) : 0;
}

void sws_trace_reader_close(struct sws_trace_reader *r)
{
	if (!r)
		return;
	sws__stream_close(r);
	if (r->batch)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, r->batch, SWS__TRACE_BATCH * sizeof(*r->batch));
	if (r->batch_end)
		sws__mem_free(&r->mem, SWS__TRACE_MEM, r->batch_end, SWS__TRACE_BATCH * sizeof(*r->batch_end));
	if (r->state) {
		if (r->fmt->free)
			r->fmt->free(r);
		sws__mem_free(&r->mem, SWS__TRACE_MEM, r->state, r->fmt->state_size);
	}
	struct sws_mem mem = r->mem;
	sws__mem_free(&mem, SWS__TRACE_MEM, r, sizeof(*r));
}

/* The obsolete name (swapsim/trace.h), for callers built against it. */
void sws_trace_reader_stats(const struct sws_trace_reader *r, struct sws_trace_reader_stats *out)
{
	sws_trace_reader_stats_get(r, out);
}
