/*
 * rerun.c - the command line a swapsim-replay JSON report records ("argv"),
 * read back for swapsim-replay --rerun REPORT.json. A small JSON reader of
 * its own: the top-level object's keys are skipped value by value (strings,
 * numbers, literals, nested objects and arrays) until "argv", an array of
 * strings. Bounded: the first REPORT_HEAD bytes of the file (argv comes
 * fourth in a report), RERUN_MAX_ARGS words, nesting RERUN_MAX_DEPTH deep.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rerun.h"

#define REPORT_HEAD (4u << 20)
#define RERUN_MAX_ARGS 4096
#define RERUN_MAX_DEPTH 64

struct parser {
	const char *p, *end;
	char *err;
	size_t errlen;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
		ps->p++;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int read_u4(struct parser *ps, unsigned *u)
{
	*u = 0;
	if (ps->end - ps->p < 4)
		return fail(ps, "a \\u escape cut short");
	for (int i = 0; i < 4; i++) {
		int h = hexval(*ps->p++);
		if (h < 0)
			return fail(ps, "a bad \\u escape");
		*u = *u << 4 | (unsigned)h;
	}
	return 0;
}

/* A JSON string at ps->p (its opening quote); @out (may be NULL: skipped) gets it
 * NUL-terminated, malloc'ed, with escapes decoded (\u as UTF-8). */
static int parse_string(struct parser *ps, char **out)
{
	size_t cap = 64, len = 0;
	char *s = out ? malloc(cap) : NULL;
	if (out && !s)
		return fail(ps, "out of memory");
	if (ps->p >= ps->end || *ps->p != '"') {
		free(s);
		return fail(ps, "expected a string");
	}
	ps->p++;
	for (;;) {
		if (ps->p >= ps->end) {
			free(s);
			return fail(ps, "a string cut short");
		}
		unsigned char c = (unsigned char)*ps->p++;
		unsigned u = c;
		if (c == '"')
			break;
		if (c < 0x20) {
			free(s);
			return fail(ps, "a control character in a string");
		}
		if (c == '\\') {
			if (ps->p >= ps->end) {
				free(s);
				return fail(ps, "a string cut short");
			}
			char e = *ps->p++;
			switch (e) {
			case '"': case '\\': case '/': u = (unsigned char)e; break;
			case 'b': u = '\b'; break;
			case 'f': u = '\f'; break;
			case 'n': u = '\n'; break;
			case 'r': u = '\r'; break;
			case 't': u = '\t'; break;
			case 'u':
				if (read_u4(ps, &u)) {
					free(s);
					return -1;
				}
				if (u >= 0xd800 && u < 0xdc00) { /* a surrogate pair */
					unsigned lo;
					if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u') {
						free(s);
						return fail(ps, "a lone surrogate in a \\u escape");
					}
					ps->p += 2;
					if (read_u4(ps, &lo) || lo < 0xdc00 || lo > 0xdfff) {
						free(s);
						return fail(ps, "a bad surrogate pair");
					}
					u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				}
				if (!u) {
					free(s);
					return fail(ps, "a NUL character in a string");
				}
				break;
			default:
				free(s);
				return fail(ps, "a bad escape \\%c", e);
			}
		}
		if (!out)
			continue;
		unsigned char b[4];
		size_t nb;
		if (c == '\\' && u >= 0x80) { /* the code point in UTF-8 */
			if (u < 0x800) {
				b[0] = (unsigned char)(0xc0 | u >> 6), b[1] = (unsigned char)(0x80 | (u & 0x3f)), nb = 2;
			} else if (u < 0x10000) {
				b[0] = (unsigned char)(0xe0 | u >> 12), b[1] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
				b[2] = (unsigned char)(0x80 | (u & 0x3f)), nb = 3;
			} else {
				b[0] = (unsigned char)(0xf0 | u >> 18), b[1] = (unsigned char)(0x80 | (u >> 12 & 0x3f));
				b[2] = (unsigned char)(0x80 | (u >> 6 & 0x3f)), b[3] = (unsigned char)(0x80 | (u & 0x3f));
				nb = 4;
			}
		} else {
			b[0] = (unsigned char)u, nb = 1;
		}
		if (len + nb + 1 > cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				return fail(ps, "out of memory");
			}
			s = t;
		}
		memcpy(s + len, b, nb);
		len += nb;
	}
	if (out) {
		s[len] = 0;
		*out = s;
	}
	return 0;
}

/* Skip one value of any kind. */
static int skip_value(struct parser *ps, int depth)
{
	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "the report is cut short");
	if (depth > RERUN_MAX_DEPTH)
		return fail(ps, "nested more than %d deep", RERUN_MAX_DEPTH);
	char c = *ps->p;
	if (c == '"')
		return parse_string(ps, NULL);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		ps->p++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return 0;
		}
		for (;;) {
			if (c == '{') {
				skip_ws(ps);
				if (parse_string(ps, NULL))
					return -1;
				skip_ws(ps);
				if (ps->p >= ps->end || *ps->p++ != ':')
					return fail(ps, "expected ':'");
			}
			if (skip_value(ps, depth + 1))
				return -1;
			skip_ws(ps);
			if (ps->p >= ps->end)
				return fail(ps, "the report is cut short");
			if (*ps->p == close) {
				ps->p++;
				return 0;
			}
			if (*ps->p++ != ',')
				return fail(ps, "expected ',' or '%c'", close);
		}
	}
	/* a number or a literal: up to the next delimiter */
	const char *start = ps->p;
	while (ps->p < ps->end && !strchr(",}] \n\r\t", *ps->p))
		ps->p++;
	if (ps->p == start)
		return fail(ps, "not JSON at '%.10s'", start);
	for (const char *q = start; q < ps->p; q++)
		if (!strchr("0123456789+-.eEtruefalsn", *q) || !*q)
			return fail(ps, "not JSON at '%.*s'", (int)(ps->p - start < 10 ? ps->p - start : 10), start);
	return 0;
}

static int parse_argv(struct parser *ps, char ***argv, int *argc)
{
	char **v = NULL;
	int n = 0;
	skip_ws(ps);
	if (ps->end - ps->p >= 4 && !memcmp(ps->p, "null", 4))
		return fail(ps, "it records no command line (argv is null: the program that wrote it did not give one)");
	if (ps->p >= ps->end || *ps->p++ != '[')
		return fail(ps, "argv is not an array");
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']')
		return fail(ps, "argv is empty");
	for (;;) {
		char *word;
		if (n == RERUN_MAX_ARGS) {
			fail(ps, "argv has more than %d words", RERUN_MAX_ARGS);
			goto bad;
		}
		skip_ws(ps);
		if (parse_string(ps, &word))
			goto bad;
		char **t = realloc(v, (size_t)(n + 2) * sizeof(*v));
		if (!t) {
			free(word);
			fail(ps, "out of memory");
			goto bad;
		}
		v = t;
		v[n++] = word;
		v[n] = NULL;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ']')
			break;
		if (ps->p >= ps->end || *ps->p++ != ',') {
			fail(ps, "argv: expected ',' or ']'");
			goto bad;
		}
	}
	*argv = v;
	*argc = n;
	return 0;
bad:
	rerun_free(v);
	return -1;
}

int rerun_load(const char *path, char ***argv, int *argc, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	char *buf = malloc(REPORT_HEAD);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t len = fread(buf, 1, REPORT_HEAD, f);
	int rerr = ferror(f);
	fclose(f);
	struct parser ps = {buf, buf + len, err, errlen};
	int rc = -1;
	if (rerr) {
		fail(&ps, "%s", strerror(EIO));
		goto out;
	}
	skip_ws(&ps);
	if (ps.p >= ps.end || *ps.p++ != '{') {
		fail(&ps, "not a JSON report (swapsim-replay --report json or --json-out)");
		goto out;
	}
	for (;;) {
		char *key;
		skip_ws(&ps);
		if (ps.p < ps.end && *ps.p == '}') {
			fail(&ps, "no argv: not a report that records its command line");
			goto out;
		}
		if (parse_string(&ps, &key))
			goto out;
		skip_ws(&ps);
		if (ps.p >= ps.end || *ps.p++ != ':') {
			free(key);
			fail(&ps, "expected ':'");
			goto out;
		}
		bool is_argv = !strcmp(key, "argv");
		free(key);
		if (is_argv) {
			rc = parse_argv(&ps, argv, argc);
			goto out;
		}
		if (skip_value(&ps, 0))
			goto out;
		skip_ws(&ps);
		if (ps.p < ps.end && *ps.p == ',')
			ps.p++;
	}
out:
	if (rc && len == REPORT_HEAD && ps.p >= ps.end)
		snprintf(err, errlen, "no argv in its first %u MiB", REPORT_HEAD >> 20);
	free(buf);
	return rc;
}

void rerun_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}
