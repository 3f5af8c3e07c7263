/*
 * reader.c - the public trace reader: configuration, format detection, and
 * dispatch to the per-format parsers (native.c, import.c). Errors are sticky:
 * once next() failed it keeps returning the same code and message.
 */
#include <string.h>

#include "trace_internal.h"

static const char *const format_names[SWS_TRACE_NR_FORMATS] = {
	"auto", "native", "perf", "lackey", "damon", "addr",
};

const char *sws_trace_format_name(enum sws_trace_format fmt)
{
	if ((unsigned)fmt < SWS_TRACE_NR_FORMATS)
		return format_names[fmt];
	return "unknown";
}

int sws_trace_format_parse(const char *name, enum sws_trace_format *out)
{
	if (!name || !out)
		return SWS_EINVAL;
	for (unsigned i = 0; i < SWS_TRACE_NR_FORMATS; i++)
		if (!strcmp(name, format_names[i])) {
			*out = (enum sws_trace_format)i;
			return 0;
		}
	return SWS_EINVAL;
}

static int check_config(const struct sws_trace_reader_config *c)
{
	if (c->version > SWS_TRACE_READER_CONFIG_VERSION ||
	    (c->env && c->env->version > SWS_ENV_VERSION))
		return SWS_EVERSION;
	if ((unsigned)c->format >= SWS_TRACE_NR_FORMATS ||
	    (c->flags & ~(SWS_TRACE_READ_ADDR_HEX | SWS_TRACE_READ_NO_IFETCH)) ||
	    (c->max_line && (c->max_line < 256 || c->max_line > SWS_TRACE_MAX_LINE_LIMIT)) ||
	    (c->env && c->env->reserved))
		return SWS_EINVAL;
	uint32_t sample = c->damon_sample_us ? c->damon_sample_us : 5000;
	uint32_t aggr = c->damon_aggr_us ? c->damon_aggr_us : 100000;
	if (aggr < sample)
		return SWS_EINVAL;
	return 0;
}

/*
 * Detection of a text format from the first lines held in the buffer (they
 * are copied, the stream is not consumed). @return the format, or AUTO when
 * no line says, with *bad_line set to the first line nothing recognises.
 */
static enum sws_trace_format detect_text(struct sws_trace_reader *r, uint64_t *bad_line)
{
	struct sws_trace_stream *s = &r->s;
	const char *p = (const char *)s->buf + s->pos;
	const char *end = (const char *)s->buf + s->len;
	char line[1024];
	*bad_line = 0;
	for (uint64_t no = 1; p < end && no <= 256; no++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t c = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
		memcpy(line, p, c);
		line[c] = '\0';
		if (memchr(line, '\0', c)) {
			*bad_line = no;
			return SWS_TRACE_FORMAT_AUTO;
		}
		p = nl ? nl + 1 : end;
		if (c && line[c - 1] == '\r')
			line[--c] = '\0';
		if (no == 1 && !strncmp(line, "# swapsim-trace", 15))
			return SWS_TRACE_FORMAT_NATIVE;
		char *q = sws__skip_space(line);
		if (!*q || *q == '#')
			continue;
		if (sws__lackey_line_ok(line))
			return SWS_TRACE_FORMAT_LACKEY;
		struct sws_perf_line pl;
		const char *why;
		char copy[sizeof(line)];
		memcpy(copy, line, c + 1);
		if (!sws__perf_split(copy, &pl, &why))
			return strcmp(pl.event, "damon:damon_aggregated") ? SWS_TRACE_FORMAT_PERF
									  : SWS_TRACE_FORMAT_DAMON;
		if (sws__addr_line_ok(line, !!(r->cfg.flags & SWS_TRACE_READ_ADDR_HEX)))
			return SWS_TRACE_FORMAT_ADDR;
		*bad_line = no;
		return SWS_TRACE_FORMAT_AUTO;
	}
	return SWS_TRACE_FORMAT_AUTO;
}

static int reader_setup(struct sws_trace_reader *r, const char *path)
{
	int rc = sws__stream_open(r, path);
	if (rc)
		return rc;
	/* Enough to see the binary header, and the first lines for detection. */
	rc = sws__stream_fill(r, r->cfg.format == SWS_TRACE_FORMAT_AUTO ? 65536 : 16);
	if (rc)
		return rc;
	struct sws_trace_stream *s = &r->s;
	if (s->len == s->pos)
		return sws__trace_err_byte(r, SWS_EFORMAT, 0, "empty file (after decompression)");
	size_t avail = s->len - s->pos;
	int is_bin = avail >= 8 && !memcmp(s->buf + s->pos, SWS_TRACE_BIN_MAGIC, 8);
	enum sws_trace_format f = r->cfg.format;
	if (avail < 8 && !memcmp(s->buf + s->pos, SWS_TRACE_BIN_MAGIC, avail) &&
	    (f == SWS_TRACE_FORMAT_AUTO || f == SWS_TRACE_FORMAT_NATIVE))
		return sws__trace_err_byte(r, SWS_EFORMAT, avail,
					   "truncated header (%zu of %d bytes)", avail,
					   SWS_TRACE_BIN_HEADER);
	if (f == SWS_TRACE_FORMAT_AUTO) {
		if (is_bin) {
			f = SWS_TRACE_FORMAT_NATIVE;
		} else {
			uint64_t bad;
			f = detect_text(r, &bad);
			if (f == SWS_TRACE_FORMAT_AUTO) {
				r->line = bad;
				if (bad)
					return sws__trace_err_line(
						r, SWS_EFORMAT,
						"cannot tell the trace format from this line; "
						"give the format explicitly");
				return sws__trace_err_byte(r, SWS_EFORMAT, 0,
							   "cannot tell the trace format: no data "
							   "line at the start of the file");
			}
		}
	}
	r->format = f;
	if (f == SWS_TRACE_FORMAT_NATIVE)
		return is_bin ? sws__native_bin_open(r) : sws__native_text_open(r);
	if (is_bin)
		return sws__trace_err_byte(r, SWS_EFORMAT, 0,
					   "this is a swapsim binary trace, not %s text",
					   sws_trace_format_name(f));
	return 0;
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

static int next_raw(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	switch (r->format) {
	case SWS_TRACE_FORMAT_NATIVE:
		return r->binary ? sws__native_bin_next(r, rec) : sws__native_text_next(r, rec);
	case SWS_TRACE_FORMAT_PERF:
		return sws__perf_next(r, rec);
	case SWS_TRACE_FORMAT_LACKEY:
		return sws__lackey_next(r, rec);
	case SWS_TRACE_FORMAT_DAMON:
		return sws__damon_next(r, rec);
	case SWS_TRACE_FORMAT_ADDR:
		return sws__addr_next(r, rec);
	default:
		return SWS_EINVAL;
	}
}

int sws_trace_reader_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	if (!r || !rec)
		return SWS_EINVAL;
	if (r->err)
		return r->err;
	if (r->done)
		return 0;
	for (;;) {
		int rc = next_raw(r, rec);
		if (rc < 0)
			return r->err ? r->err : rc;
		if (rc == 0) {
			r->done = 1;
			r->st.bytes = sws__stream_off(&r->s);
			return 0;
		}
		if ((r->cfg.flags & SWS_TRACE_READ_NO_IFETCH) && rec->op == SWS_TRACE_ACCESS &&
		    (rec->flags & SWS_TRACE_F_IFETCH))
			continue;
		r->st.records++;
		return 1;
	}
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
	return r->format;
}

int sws_trace_reader_is_binary(const struct sws_trace_reader *r, int *zstd)
{
	if (zstd)
		*zstd = r->s.zstd;
	return r->binary;
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
	sws__damon_free(r);
	sws__perf_free(r);
	struct sws_mem mem = r->mem;
	sws__mem_free(&mem, SWS__TRACE_MEM, r, sizeof(*r));
}

/* The obsolete name (swapsim/trace.h), for callers built against it. */
void sws_trace_reader_stats(const struct sws_trace_reader *r, struct sws_trace_reader_stats *out)
{
	sws_trace_reader_stats_get(r, out);
}
