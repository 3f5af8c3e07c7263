/*
 * parse.c - small, strict text parsers shared by the trace readers: tokens,
 * numbers with overflow checks, perf's "secs.usecs" times, and the header of a
 * perf-script sample line, "key=value" fields.
 */
#include <stdio.h>
#include <string.h>

#include "trace_internal.h"

char *sws__token(char **p)
{
	char *s = sws__skip_space(*p);
	if (!*s) {
		*p = s;
		return NULL;
	}
	char *e = s;
	while (*e && !sws__is_space(*e))
		e++;
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sws__parse_u64(const char *s, size_t n, int hex, uint64_t *out)
{
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
		hex = 1;
	}
	if (!n)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		int d = hex ? hexval(s[i]) : (s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : -1);
		if (d < 0)
			return -1;
		if (hex) {
			if (v >> 60)
				return -1;
			v = (v << 4) | (uint64_t)d;
		} else {
			if (v > (UINT64_MAX - (uint64_t)d) / 10)
				return -1;
			v = v * 10 + (uint64_t)d;
		}
	}
	*out = v;
	return 0;
}

int sws__parse_u32(const char *s, size_t n, int hex, uint32_t *out)
{
	uint64_t v;
	if (sws__parse_u64(s, n, hex, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int sws__parse_time(const char *s, size_t n, uint64_t *ns)
{
	const char *dot = memchr(s, '.', n);
	size_t ni = dot ? (size_t)(dot - s) : n;
	uint64_t secs, frac = 0;
	if (sws__parse_u64(s, ni, 0, &secs) || secs > UINT64_MAX / 1000000000u - 1)
		return -1;
	if (dot) {
		size_t nf = n - ni - 1;
		if (nf == 0 || nf > 9 || sws__parse_u64(dot + 1, nf, 0, &frac))
			return -1;
		for (size_t i = nf; i < 9; i++)
			frac *= 10;
	}
	*ns = secs * 1000000000u + frac;
	return 0;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* "123.456789:" */
static int is_time_token(const char *t)
{
	size_t n = strlen(t);
	if (n < 3 || t[n - 1] != ':')
		return 0;
	const char *dot = memchr(t, '.', n - 1);
	if (!dot || dot == t)
		return 0;
	for (const char *p = t; p < t + n - 1; p++)
		if (p != dot && (*p < '0' || *p > '9'))
			return 0;
	return 1;
}

/*
 * A perf-script sample line is
 *     COMM [PID/]TID [CPU] SECS.USECS: [PERIOD] EVENT: REST
 * with COMM possibly holding spaces or absent (-F without comm). We find the
 * time token, read TID and [CPU] backwards from it, and the event forwards.
 * perf's own side-band records (--show-task-events, --show-mmap-events) take
 * the event's place with a token that starts with PERF_RECORD_ and may carry
 * no colon or its arguments ("PERF_RECORD_FORK(1:2):(3:3)",
 * "PERF_RECORD_COMM exec: ...", "PERF_RECORD_MMAP2 1/2: [...]"): the token
 * is the event (less a trailing ':'), the rest follows it.
 */
int sws__perf_split(char *line, struct sws_perf_line *pl, const char **why)
{
	char *tok[64];
	int nt = 0;
	char *p = line;
	char *t;
	int ti = -1;
	memset(pl, 0, sizeof(*pl));
	pl->cpu = SWS_TRACE_CPU_ANY;
	/* Tokenise up to the event: the payload stays one string. */
	while (nt < (int)SWS_ARRAY_SIZE(tok) && (t = sws__token(&p))) {
		tok[nt++] = t;
		if (ti < 0 && is_time_token(t)) {
			ti = nt - 1;
		} else if (ti >= 0) {
			size_t n = strlen(t);
			if (nt - 1 == ti + 1 && !strncmp(t, "PERF_RECORD_", 12)) {
				if (t[n - 1] == ':')
					t[n - 1] = '\0';
				pl->event = t;
				break;
			}
			if (n > 1 && t[n - 1] == ':') { /* the event */
				t[n - 1] = '\0';
				pl->event = t;
				break;
			}
			if (nt - 1 == ti + 1 && all_digits(t)) {
				pl->has_period = 1;
				continue;
			}
			*why = "no event name after the time";
			return -1;
		}
	}
	if (ti < 0) {
		*why = "no perf time stamp (secs.usecs:)";
		return -1;
	}
	if (!pl->event) {
		*why = "no event name after the time";
		return -1;
	}
	pl->rest = sws__skip_space(p);
	if (sws__parse_time(tok[ti], strlen(tok[ti]) - 1, &pl->time_ns)) {
		*why = "bad time stamp";
		return -1;
	}
	int i = ti - 1;
	if (i >= 0 && tok[i][0] == '[') {
		size_t n = strlen(tok[i]);
		if (n < 3 || tok[i][n - 1] != ']' || sws__parse_u32(tok[i] + 1, n - 2, 0, &pl->cpu) ||
		    pl->cpu == SWS_TRACE_CPU_ANY) {
			*why = "bad cpu field";
			return -1;
		}
		i--;
	}
	if (i >= 0) {
		char *slash = strchr(tok[i], '/');
		if (slash) {
			if (!sws__parse_u32(tok[i], (size_t)(slash - tok[i]), 0, &pl->pid) &&
			    !sws__parse_u32(slash + 1, strlen(slash + 1), 0, &pl->tid)) {
				pl->has_tid = 1;
				pl->has_pid = 1;
				i--;
			}
		} else if (!sws__parse_u32(tok[i], strlen(tok[i]), 0, &pl->tid)) {
			pl->pid = pl->tid; /* -F tid: the thread id only */
			pl->has_tid = 1;
			i--;
		}
	}
	pl->comm = i >= 0 ? tok[0] : NULL;
	return 0;
}

int sws__flags_parse(const char *s, uint32_t *out)
{
	size_t n = strlen(s);
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return sws__parse_u32(s, n, 1, out);
	if (!strcmp(s, "-")) {
		*out = 0;
		return 0;
	}
	uint32_t f = 0;
	for (; *s; s++) {
		uint32_t bit = *s == 'w' ? SWS_TRACE_F_WRITE
			       : *s == 'x' ? SWS_TRACE_F_IFETCH
			       : *s == 'h' ? SWS_TRACE_F_THP
			       : *s == 'z' ? SWS_TRACE_F_ZSWAP_WB
			       : *s == 'a' ? SWS_TRACE_F_ANON_LRU
			       : *s == 'f' ? SWS_TRACE_F_FILE_LRU
			       : *s == 'v' ? SWS_TRACE_F_VICTIM
			       : *s == 'c' ? SWS_TRACE_F_CHARGE
					   : 0;
		if (!bit || (f & bit))
			return -1;
		f |= bit;
	}
	*out = f;
	return 0;
}

char *sws__kv_find(char *rest, const char *key)
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

int sws__perf_line_is(const char *line, int damon)
{
	char copy[1024];
	snprintf(copy, sizeof(copy), "%s", line);
	struct sws_perf_line pl;
	const char *why;
	return !sws__perf_split(copy, &pl, &why) && !strcmp(pl.event, SWS__DAMON_EVENT) == !!damon;
}
