/*
 * rerun.c - swapsim-replay --rerun REPORT.json: the command line a JSON report
 * records ("argv") read back, and the command line it makes, the recorded one
 * with the output options given beside --rerun in place of its own. A small
 * JSON reader of its own: the top-level object's keys are skipped value by
 * value (strings, numbers, literals, nested objects and arrays) until "argv",
 * an array of strings. Bounded: the first REPORT_HEAD bytes of the file (argv
 * comes fourth in a report), RERUN_MAX_ARGS words, nesting RERUN_MAX_DEPTH deep.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_output.h"
#include "cli_parse.h"
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

/* The escape after a backslash at ps->p: *@u gets its code point (a \u surrogate
 * pair joined). @return 0 or -1 (said). */
static int parse_escape(struct parser *ps, unsigned *u)
{
	if (ps->p >= ps->end)
		return fail(ps, "a string cut short");
	char e = *ps->p++;
	switch (e) {
	case '"': case '\\': case '/': *u = (unsigned char)e; return 0;
	case 'b': *u = '\b'; return 0;
	case 'f': *u = '\f'; return 0;
	case 'n': *u = '\n'; return 0;
	case 'r': *u = '\r'; return 0;
	case 't': *u = '\t'; return 0;
	case 'u': break;
	default: return fail(ps, "a bad escape \\%c", e);
	}
	if (read_u4(ps, u))
		return -1;
	if (*u >= 0xd800 && *u < 0xdc00) { /* a surrogate pair */
		unsigned lo;
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
			return fail(ps, "a lone surrogate in a \\u escape");
		ps->p += 2;
		if (read_u4(ps, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return fail(ps, "a bad surrogate pair");
		*u = 0x10000 + ((*u - 0xd800) << 10) + (lo - 0xdc00);
	}
	return *u ? 0 : fail(ps, "a NUL character in a string");
}

/* Code point @u in UTF-8 into @b. @return its bytes. */
static size_t utf8(unsigned u, unsigned char b[4])
{
	if (u < 0x80) {
		b[0] = (unsigned char)u;
		return 1;
	}
	if (u < 0x800) {
		b[0] = (unsigned char)(0xc0 | u >> 6), b[1] = (unsigned char)(0x80 | (u & 0x3f));
		return 2;
	}
	if (u < 0x10000) {
		b[0] = (unsigned char)(0xe0 | u >> 12), b[1] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (u & 0x3f));
		return 3;
	}
	b[0] = (unsigned char)(0xf0 | u >> 18), b[1] = (unsigned char)(0x80 | (u >> 12 & 0x3f));
	b[2] = (unsigned char)(0x80 | (u >> 6 & 0x3f)), b[3] = (unsigned char)(0x80 | (u & 0x3f));
	return 4;
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
			fail(ps, "a string cut short");
			goto bad;
		}
		unsigned char c = (unsigned char)*ps->p++, b[4];
		unsigned u = c;
		if (c == '"')
			break;
		if (c < 0x20) {
			fail(ps, "a control character in a string");
			goto bad;
		}
		if (c == '\\' && parse_escape(ps, &u))
			goto bad;
		if (!out)
			continue;
		/* an escape is a code point; any other byte is the string's own UTF-8 */
		size_t nb = c == '\\' ? utf8(u, b) : (b[0] = c, 1);
		if (len + nb + 1 > cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				fail(ps, "out of memory");
				goto bad;
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
bad:
	free(s);
	return -1;
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

/* ---- the command line ------------------------------------------------------------------ */

static int bad(const char *opt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(const char *opt, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cli_bad("swapsim-replay", opt, "%s", msg);
}

/* Words an output option takes at @argv[i]: 2 ("--report json"), 1 ("--report=json",
 * "--quiet", "--all-counters"), 0: not one. */
static int output_option(char *const *argv, int argc, int i)
{
	const char *a = argv[i];
	if (!strcmp(a, "--quiet") || !strcmp(a, "--all-counters"))
		return 1;
	if (!strncmp(a, "--report=", 9) || !strncmp(a, "--json-out=", 11))
		return 1;
	if (!strcmp(a, "--report") || !strcmp(a, "--json-out"))
		return i + 1 < argc ? 2 : 1;
	return 0;
}

/* The words given beside --rerun (at @at): output options only, and no --json-out
 * that is the report itself. @return 0 or 2 (said). */
static int check_given(int argc, char **argv, int at, const char *path)
{
	for (int i = 1; i < argc; i++) {
		int n = i == at ? (argv[i][7] ? 1 : 2) : output_option(argv, argc, i);
		if (!n)
			return bad("--rerun", "'%s': only --report, --json-out, --quiet and --all-counters go "
					      "with it (the run is the report's: its input, machine, designs and seeds)",
				   argv[i]);
		const char *jo = !strcmp(argv[i], "--json-out") && n == 2 ? argv[i + 1]
				 : !strncmp(argv[i], "--json-out=", 11) ? argv[i] + 11 : NULL;
		if (jo && cli_same_file(path, jo)) /* never write over the report it reads */
			return bad("--json-out", "'%s' is the --rerun report (the new report would replace it)", jo);
		i += n - 1;
	}
	return 0;
}

/* The recorded words @rec less their output options, into @nv (a --workload's words
 * stay whole). @flag(word): the option takes no value. @return the words put;
 * *@tail: where the --workload's words start (or the end). */
static int recorded(char **rec, int rargc, char **nv, bool (*flag)(const char *word), int *tail)
{
	int n = 0;
	*tail = -1;
	for (int i = 1; i < rargc; i++) {
		const char *a = rec[i];
		if (!strcmp(a, "--workload")) {
			*tail = n;
			while (i < rargc)
				nv[n++] = rec[i++];
			break;
		}
		int out = output_option(rec, rargc, i);
		if (out) {
			i += out - 1;
			continue;
		}
		nv[n++] = rec[i];
		if (!flag(a) && !strchr(a, '=') && !strncmp(a, "--", 2) && i + 1 < rargc)
			nv[n++] = rec[++i]; /* its value, whatever it looks like */
	}
	if (*tail < 0)
		*tail = n;
	return n;
}

int rerun_expand(int *argcp, char ***argvp, char ***keep, bool (*flag)(const char *word))
{
	int argc = *argcp, at = -1;
	char **argv = *argvp;
	for (int i = 1; i < argc && strcmp(argv[i], "--workload"); i++)
		if (!strcmp(argv[i], "--rerun") || !strncmp(argv[i], "--rerun=", 8)) {
			at = i;
			break;
		}
	if (at < 0)
		return 0;
	const char *path = argv[at][7] ? argv[at] + 8 : at + 1 < argc ? argv[at + 1] : NULL;
	if (!path)
		return bad("--rerun", "missing value");
	int rc = check_given(argc, argv, at, path);
	if (rc)
		return rc;
	const char *const in[1] = {path};
	if (cli_stdout_is_input(in, 1) >= 0) { /* '>> REPORT.json': never write over the report it reads */
		fprintf(stderr, "swapsim-replay: standard output is the --rerun report, %s: the report would write over it\n",
			path);
		return 2;
	}
	char **rec, err[256];
	int rargc;
	if (rerun_load(path, &rec, &rargc, err, sizeof(err))) {
		fprintf(stderr, "swapsim-replay: --rerun %s: %s\n", path, err);
		return 1;
	}
	if (strcmp(rec[0], "swapsim-replay")) {
		fprintf(stderr, "swapsim-replay: --rerun %s: its command is %s's, not swapsim-replay's\n", path, rec[0]);
		rerun_free(rec);
		return 1;
	}
	char **nv = calloc((size_t)rargc + (size_t)argc + 1, sizeof(char *));
	if (!nv) {
		rerun_free(rec);
		return 1;
	}
	/* argv[0], the recorded words, and the output options given now (every word
	 * but --rerun's) before a --workload's words */
	int tail, n = 1 + recorded(rec, rargc, nv + 1, flag, &tail);
	int nout = argc - 1 - (argv[at][7] ? 1 : 2), k = ++tail;
	memmove(nv + tail + nout, nv + tail, (size_t)(n - tail) * sizeof(char *));
	for (int i = 1; i < argc; i++)
		if (i == at)
			i += argv[i][7] ? 0 : 1;
		else
			nv[k++] = argv[i];
	nv[0] = argv[0];
	*argcp = n + nout;
	*argvp = nv;
	*keep = rec;
	return 0;
}
