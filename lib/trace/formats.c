/*
 * formats.c - the one list of trace formats: which formats exist, their
 * names, and how the reader picks one (by the first bytes of a binary file,
 * by the first lines of a text one). Each format is a file under format/
 * (struct sws__trace_format, trace_internal.h); adding one is a line here.
 */
#include <string.h>

#include "trace_internal.h"

/* In the order detection tries them: a binary format by its magic, then text
 * formats by a header line, then by the first data line. */
static const struct sws__trace_format *const formats[] = {
	&sws__trace_native_bin,
	&sws__trace_native_text,
	&sws__trace_lackey,
	&sws__trace_perf,
	&sws__trace_damon,
	&sws__trace_addr,
};
#define NR_FORMATS (sizeof(formats) / sizeof(formats[0]))

const char *sws_trace_format_name(enum sws_trace_format fmt)
{
	if (fmt == SWS_TRACE_FORMAT_AUTO)
		return "auto";
	for (size_t i = 0; i < NR_FORMATS; i++)
		if (formats[i]->id == fmt)
			return formats[i]->name;
	return "unknown";
}

int sws_trace_format_parse(const char *name, enum sws_trace_format *out)
{
	if (!name || !out)
		return SWS_EINVAL;
	if (!strcmp(name, "auto")) {
		*out = SWS_TRACE_FORMAT_AUTO;
		return 0;
	}
	for (size_t i = 0; i < NR_FORMATS; i++)
		if (!strcmp(name, formats[i]->name)) {
			*out = formats[i]->id;
			return 0;
		}
	return SWS_EINVAL;
}

const struct sws__trace_format *sws__trace_format_find(enum sws_trace_format id, int binary)
{
	for (size_t i = 0; i < NR_FORMATS; i++)
		if (formats[i]->id == id && !formats[i]->magic == !binary)
			return formats[i];
	return NULL;
}

const struct sws__trace_format *sws__trace_format_magic(const uint8_t *p, size_t n, int *prefix)
{
	*prefix = 0;
	for (size_t i = 0; i < NR_FORMATS; i++) {
		const char *m = formats[i]->magic;
		size_t mn = m ? strlen(m) : 0;
		if (!m)
			continue;
		if (n >= mn && !memcmp(p, m, mn))
			return formats[i];
		if (n < mn && !memcmp(p, m, n)) {
			*prefix = 1;
			return formats[i];
		}
	}
	return NULL;
}

/* The first format that takes @line for its header (@head) or for one of its
 * data lines, or NULL. */
static const struct sws__trace_format *detect_one(const struct sws_trace_reader *r, const char *line,
						  int head)
{
	for (size_t i = 0; i < NR_FORMATS; i++) {
		int (*probe)(const struct sws_trace_reader *, const char *) =
			head ? formats[i]->detect_head : formats[i]->detect;
		if (probe && probe(r, line))
			return formats[i];
	}
	return NULL;
}

const struct sws__trace_format *sws__trace_format_detect(struct sws_trace_reader *r, uint64_t *bad_line)
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
			return NULL;
		}
		p = nl ? nl + 1 : end;
		if (c && line[c - 1] == '\r')
			line[--c] = '\0';
		const struct sws__trace_format *f = no == 1 ? detect_one(r, line, 1) : NULL;
		if (f)
			return f;
		char *q = sws__skip_space(line);
		if (!*q || *q == '#')
			continue;
		if ((f = detect_one(r, line, 0)))
			return f;
		*bad_line = no;
		return NULL;
	}
	return NULL;
}
