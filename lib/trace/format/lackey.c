/*
 * lackey.c - the valgrind lackey importer (valgrind --tool=lackey
 * --trace-mem=yes): one access per instruction, load, store or modify line,
 * at the configured default pid; "==" banners are skipped
 * (docs/trace-format.md).
 */
#include <string.h>

#include "../trace_internal.h"

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

/* A lackey line or one of its "==" banners. */
static int lackey_detect(const struct sws_trace_reader *r, const char *line)
{
	(void)r;
	uint64_t a, s;
	return !strncmp(line, "==", 2) || lackey_parse(line, &a, &s);
}

static int lackey_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
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
		sws__rec_access(rec, addr, size, flags, pid, pid, SWS_TRACE_CPU_ANY, 0);
		return 1;
	}
}

SWS__TRACE_FORMAT(sws__trace_lackey,
		  .id = SWS_TRACE_FORMAT_LACKEY,
		  .name = "lackey",
		  .detect = lackey_detect,
		  .next = lackey_next);
