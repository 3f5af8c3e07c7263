/*
 * addr.c - the address-list importer: one address a line, optionally R or W
 * and a task id; '#' starts a comment (docs/trace-format.md).
 */
#include <stdio.h>
#include <string.h>

#include "../trace_internal.h"

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

/* A line of addresses (comments removed), read as READ_ADDR_HEX says. */
static int addr_detect(const struct sws_trace_reader *r, const char *line)
{
	int hex = !!(r->cfg.flags & SWS_TRACE_READ_ADDR_HEX);
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

static int addr_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
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
		sws__rec_access(rec, addr, 0, write ? SWS_TRACE_F_WRITE : 0, tid, tid, SWS_TRACE_CPU_ANY, 0);
		return 1;
	}
}

SWS__TRACE_FORMAT(sws__trace_addr,
		  .id = SWS_TRACE_FORMAT_ADDR,
		  .name = "addr",
		  .detect = addr_detect,
		  .next = addr_next);
