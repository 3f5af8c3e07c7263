/*
 * cli_options.c - the parser and the --help of an option table
 * (cli_options.h): one loop over the words that finds each option in the
 * program's table, takes its value and stores it as the entry's kind says,
 * and one printer that lays the table out as --help. The programs' own
 * grammar (sizes, device specs, lists) stays in their CLI_CALL setters.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <swapsim/swapsim.h>

#include "cli_options.h"
#include "cli_output.h"
#include "cli_parse.h"

#define HELP_COLUMN 26 /* where an option's help text starts */

const struct cli_option *cli_options_find(const struct cli_program *p, const char *name)
{
	for (const struct cli_option *o = p->options; o->kind != CLI_END; o++)
		if (o->name && (!strcmp(o->name, name) || (o->alias && !strcmp(o->alias, name))))
			return o;
	return NULL;
}

/* @v as an index of @choices ("a|b|c"). @return the index, or -1. */
static int choice_index(const char *choices, const char *v)
{
	size_t n = strlen(v);
	int k = 0;
	for (const char *c = choices; *c; k++) {
		size_t len = strcspn(c, "|");
		if (len == n && !strncmp(c, v, n))
			return k;
		c += len + (c[len] == '|');
	}
	return -1;
}

/* "a|b|c" as "a, b or c". */
static void choice_words(const char *choices, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (const char *c = choices; *c && at < len;) {
		size_t n = strcspn(c, "|");
		const char *sep = !at ? "" : strchr(c + n, '|') ? ", " : " or ";
		at += (size_t)snprintf(buf + at, len - at, "%s%.*s", sep, (int)n, c);
		c += n + (c[n] == '|');
	}
}

static int u32_base(const char *prog, const char *name, const char *v, uint32_t min, uint32_t max, uint32_t *out,
		    int base)
{
	char *e;
	errno = 0;
	unsigned long long n = strtoull(v, &e, base);
	if (!*v || *e || errno || v[0] == '-' || n < min || n > max)
		return cli_bad(prog, name, "'%s': expected a number in %u..%u", v, min, max);
	*out = (uint32_t)n;
	return 0;
}

int cli_u32(const char *prog, const char *name, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	return u32_base(prog, name, v, min, max, out, 10);
}

int cli_u32_c(const char *prog, const char *name, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	return u32_base(prog, name, v, min, max, out, 0);
}

int cli_choice(const char *prog, const char *name, const char *v, const char *choices, int *index)
{
	char words[256];
	if ((*index = choice_index(choices, v)) >= 0)
		return 0;
	choice_words(choices, words, sizeof(words));
	return cli_bad(prog, name, "'%s': expected %s", v, words);
}

/* Store @v (NULL for a kind without a value) by @o's kind. @return 0 or 2. */
static int apply(const struct cli_program *p, const struct cli_option *o, void *opts, const char *v)
{
	void *target = (char *)opts + o->offset;
	switch (o->kind) {
	case CLI_FLAG:
		*(bool *)target = true;
		return 0;
	case CLI_BITS:
		*(uint32_t *)target |= o->bits;
		return 0;
	case CLI_STRING:
		*(const char **)target = v;
		return 0;
	case CLI_U32:
		return (o->c_number ? cli_u32_c : cli_u32)(p->name, o->name, v, o->min, o->max, target);
	case CLI_CHOICE:
		return cli_choice(p->name, o->name, v, o->choices, target);
	case CLI_CALL:
		return o->set(opts, o->name, v);
	case CLI_HELP:
		cli_options_help(p, stdout);
		exit(cli_stdout_close(p->name, 0));
	case CLI_VERSION:
		printf("%s %s\n", p->name, SWS_TOOLS_VERSION);
		exit(cli_stdout_close(p->name, 0));
	default:
		return 0;
	}
}

static bool takes_value(const struct cli_option *o)
{
	return o->arg && o->kind != CLI_REST;
}

/* The option argv[*i] names, and its value (moving *i past it). @return the
 * option, or NULL after a message (*rc 2). */
static const struct cli_option *take(const struct cli_program *p, int argc, char **argv, int *i,
				     const char **v, int *rc)
{
	const char *a = argv[*i], *eq = strchr(a, '=');
	char name[64] = "";
	const struct cli_option *o = cli_options_find(p, a);
	*rc = 2;
	*v = NULL;
	if (!o && eq && a[1] == '-' && (size_t)(eq - a) < sizeof(name)) { /* --name=value */
		memcpy(name, a, (size_t)(eq - a));
		name[eq - a] = 0;
		o = cli_options_find(p, name);
		*v = eq + 1;
	} else if (!o && a[1] && a[1] != '-' && a[2]) { /* -nVALUE */
		snprintf(name, sizeof(name), "%.2s", a);
		o = cli_options_find(p, name);
		*v = a + 2;
	}
	if (!o || (*v && !takes_value(o))) {
		cli_bad(p->name, eq && a[1] == '-' && (size_t)(eq - a) < sizeof(name) ? name : a, "unknown option");
		return NULL;
	}
	if (takes_value(o) && !*v) {
		if (*i + 1 >= argc) {
			cli_bad(p->name, o->name, "missing value");
			return NULL;
		}
		*v = argv[++*i];
	}
	*rc = 0;
	return o;
}

int cli_options_parse(const struct cli_program *p, void *opts, int argc, char **argv, int first)
{
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *v;
		int rc, at = i;
		if (a[0] != '-' || !a[1]) {
			if (!p->word)
				return cli_bad(p->name, a, "unexpected argument (options start with --; see --help)");
			if ((rc = p->word(opts, a)))
				return rc;
			continue;
		}
		const struct cli_option *o = take(p, argc, argv, &i, &v, &rc);
		if (!o)
			return rc;
		if (o->kind == CLI_REST)
			return o->rest(opts, argc - i - 1, argv + i + 1);
		if ((rc = apply(p, o, opts, v)) || (p->seen && (rc = p->seen(opts, o, v, at, i))))
			return rc;
	}
	return 0;
}

/* @text's lines, the first from the current column, the others at @indent. */
static void help_lines(FILE *f, const char *text, int indent)
{
	for (const char *s = text; *s;) {
		size_t n = strcspn(s, "\n");
		fprintf(f, "%.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
		if (*s)
			fprintf(f, "%*s", indent, "");
	}
}

void cli_options_help(const struct cli_program *p, FILE *f)
{
	fputs(p->usage, f);
	for (const struct cli_option *o = p->options; o->kind != CLI_END; o++) {
		char left[96], text[4096];
		if (o->kind == CLI_TEXT) {
			fputs(o->help_fn ? o->help_fn(text, sizeof(text)) : o->help, f);
			continue;
		}
		const char *help = o->help_fn ? o->help_fn(text, sizeof(text)) : o->help;
		if (!help)
			continue;
		int n = snprintf(left, sizeof(left), "  %s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		if (n > HELP_COLUMN - 2) /* too long for the column: the help on the next line */
			fprintf(f, "%s\n%*s", left, HELP_COLUMN, "");
		else
			fprintf(f, "%-*s", HELP_COLUMN, left);
		help_lines(f, help, HELP_COLUMN);
	}
	if (p->tail)
		fputs(p->tail, f);
}

/* ---- the workloads' synopses, from their table (sws_workload_params()) ---- */

#define WL_INDENT 14 /* where a workload's options and help start */
#define WL_WIDTH 90  /* the synopsis lines' length */

/* snprintf() at *@at of @buf (of @len), moving *@at on; what does not fit is dropped. */
__attribute__((format(printf, 4, 5))) static void buf_add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	if (*at >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	*at += n > 0 ? (size_t)n : 0;
}

const char *cli_workload_names(char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (int k = 1; sws_workload_help((enum sws_workload_kind)k); k++)
		buf_add(buf, len, &at, "%s%s", k > 1 ? ", " : "", sws_workload_name((enum sws_workload_kind)k));
	return buf;
}

const char *cli_workload_help(char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (int k = 1; sws_workload_help((enum sws_workload_kind)k); k++) {
		enum sws_workload_kind kind = (enum sws_workload_kind)k;
		size_t col = WL_INDENT;
		buf_add(buf, len, &at, "      %-*s", WL_INDENT - 6, sws_workload_name(kind));
		for (const struct sws_workload_param *p = sws_workload_params(kind);; p++) {
			char word[64];
			if (!p->name) /* the one word that is not an option comes last */
				snprintf(word, sizeof(word), "SIZE");
			else if (p->kind == SWS_WORKLOAD_PARAM_FLAG && p->flag == SWS_WORKLOAD_KEEP)
				continue; /* every workload's: the line after the list */
			else if (p->arg)
				snprintf(word, sizeof(word), "[%s %s]", p->name, p->arg);
			else
				snprintf(word, sizeof(word), "[%s]", p->name);
			bool first = col == WL_INDENT;
			if (!first && col + 1 + strlen(word) > WL_WIDTH) {
				buf_add(buf, len, &at, "\n%*s", WL_INDENT, "");
				col = WL_INDENT, first = true;
			}
			buf_add(buf, len, &at, "%s%s", first ? "" : " ", word);
			col += !first + strlen(word);
			if (!p->name)
				break;
		}
		/* What it does, its lines under the options. */
		for (const char *h = sws_workload_help(kind); *h;) {
			int n = (int)strcspn(h, "\n");
			buf_add(buf, len, &at, "\n%*s%.*s", WL_INDENT, "", n, h);
			h += n + (h[n] == '\n');
		}
		buf_add(buf, len, &at, "\n");
	}
	return buf;
}
