/*
 * native_text.c - the native text trace reader (the format is written down in
 * native.c and docs/trace-format.md): the header line, nine columns a record,
 * the end record with the count and the checksum.
 */
#include <string.h>

#include "../trace_internal.h"

/* The header line: "# swapsim-trace" and a version the reader knows. */
static int native_text_open(struct sws_trace_reader *r)
{
	struct sws__native_state *ns = r->state;
	char *line;
	size_t len;
	int rc = sws__stream_line(r, &line, &len);
	if (rc < 0)
		return rc;
	if (rc == 0 || strncmp(line, SWS_TRACE_TEXT_HEADER, strlen(SWS_TRACE_TEXT_HEADER)))
		return sws__trace_err_line(r, SWS_EFORMAT,
					   "not a swapsim text trace (want \"%s%d\" as the first line)",
					   SWS_TRACE_TEXT_HEADER, SWS_TRACE_TEXT_VERSION);
	const char *v = line + strlen(SWS_TRACE_TEXT_HEADER);
	size_t vn = strcspn(v, " \t");
	uint32_t ver;
	if (sws__parse_u32(v, vn, 0, &ver))
		return sws__trace_err_line(r, SWS_EFORMAT, "bad version in the header");
	if (ver < 1 || ver > SWS_TRACE_TEXT_VERSION)
		return sws__trace_err_line(r, SWS_EVERSION,
					   "unsupported swapsim-trace version %u (this reader knows 1 to %d)",
					   ver, SWS_TRACE_TEXT_VERSION);
	ns->version = ver;
	if (ver == 1)
		snprintf(r->warning, sizeof(r->warning),
			 "%s:1: swapsim-trace v1 text has no end record: a file cut short on a "
			 "line boundary reads as complete", r->path);
	r->st.skipped_lines++;
	return 0;
}

/* The end record "end records=N crc32c=XXXXXXXX" in tokens @t[0..n). @return 0 or an error. */
static int text_end(struct sws_trace_reader *r, char **t, int n)
{
	struct sws__native_state *ns = r->state;
	uint64_t count;
	uint32_t crc;
	const char *c = n == 3 ? t[2] : "";
	if (n != 3 || strncmp(t[1], "records=", 8) ||
	    sws__parse_u64(t[1] + 8, strlen(t[1] + 8), 0, &count) || strncmp(c, "crc32c=", 7) ||
	    strlen(c + 7) != 8 || (c[7] == '0' && (c[8] == 'x' || c[8] == 'X')) ||
	    sws__parse_u32(c + 7, 8, 1, &crc))
		return sws__trace_err_line(r, SWS_EFORMAT,
					   "bad end record (want \"end records=N crc32c=XXXXXXXX\")");
	if (count != ns->nrec)
		return sws__trace_err_line(r, SWS_EFORMAT, "end record counts %llu records, file holds %llu",
					   (unsigned long long)count, (unsigned long long)ns->nrec);
	if (crc != ns->crc)
		return sws__trace_err_line(r, SWS_EFORMAT,
					   "checksum mismatch: the end record says crc32c=%08x, "
					   "the records give %08x", crc, ns->crc);
	ns->end_seen = 1;
	return 0;
}

static int native_text_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	struct sws__native_state *ns = r->state;
	static const char *const col[] = {"time_ns", "pid", "tid", "cpu", "op",
					  "addr",    "len", "flags", "arg"};
	for (;;) {
		char *line;
		size_t len;
		int rc = sws__stream_line(r, &line, &len);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (ns->version >= 2 && !ns->end_seen)
				return sws__trace_err_line(r, SWS_EFORMAT,
							   "trace ends without its end record (cut short?)");
			return 0;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *p = line;
		char *t[10];
		int n = 0;
		while (n < 10 && (t[n] = sws__token(&p)))
			n++;
		if (n == 0) {
			r->st.skipped_lines++;
			continue;
		}
		if (ns->end_seen)
			return sws__trace_err_line(r, SWS_EFORMAT, "data after the end record");
		if (ns->version >= 2 && !strcmp(t[0], SWS_TRACE_TEXT_END)) {
			if ((rc = text_end(r, t, n)))
				return rc;
			r->st.skipped_lines++;
			continue;
		}
		if (n != 9)
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "%s columns: want 9 (%s)", n < 9 ? "too few" : "too many",
						   "time_ns pid tid cpu op addr len flags arg");
		struct sws_trace_record x;
		int bad = -1;
		if (sws__parse_u64(t[0], strlen(t[0]), 0, &x.time_ns))
			bad = 0;
		else if (sws__parse_u32(t[1], strlen(t[1]), 0, &x.pid))
			bad = 1;
		else if (sws__parse_u32(t[2], strlen(t[2]), 0, &x.tid))
			bad = 2;
		else if (strcmp(t[3], "-") ? sws__parse_u32(t[3], strlen(t[3]), 0, &x.cpu) != 0
					   : (x.cpu = SWS_TRACE_CPU_ANY, 0))
			bad = 3;
		else if (sws_trace_op_parse(t[4], &x.op))
			bad = 4;
		else if (sws__parse_u64(t[5], strlen(t[5]), 0, &x.addr))
			bad = 5;
		else if (sws__parse_u64(t[6], strlen(t[6]), 0, &x.len))
			bad = 6;
		else if (sws__flags_parse(t[7], &x.flags))
			bad = 7;
		else if (sws__parse_u32(t[8], strlen(t[8]), 0, &x.arg))
			bad = 8;
		if (bad >= 0)
			return sws__trace_err_line(r, SWS_EFORMAT, "bad %s \"%.40s\"", col[bad], t[bad]);
		sws__native_account(ns, &x);
		*rec = x;
		return 1;
	}
}

static int native_text_detect_head(const struct sws_trace_reader *r, const char *line)
{
	(void)r;
	return !strncmp(line, "# swapsim-trace", 15);
}

SWS__TRACE_FORMAT(sws__trace_native_text,
		  .id = SWS_TRACE_FORMAT_NATIVE,
		  .name = "native",
		  .state_size = sizeof(struct sws__native_state),
		  .detect_head = native_text_detect_head,
		  .open = native_text_open,
		  .next = native_text_next);
