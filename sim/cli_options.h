/*
 * cli_options.h - the option tables of the command-line programs in sim/
 * (swapsim-replay, swapsim-overhead, swapsim-trace): each program declares
 * one table of its options (name, kind, target, bounds, help line), and
 * cli_options_parse() and cli_options_help() are its parser and its --help.
 *
 * A table is an array of struct cli_option ending with a zeroed entry. Its
 * entries are options (a name starting with "-") and, for --help, prose
 * (CLI_TEXT: section headings and notes, printed as they are, in table
 * order). An option's value is the next word or follows "=" (--name=value);
 * a one-letter option ("-n") also takes a value glued to it ("-n5").
 *
 * Errors name the option and the bad value ("PROG: --cpus: '0': expected a
 * number in 1..254", cli_bad()) and make the parse return 2, the exit status
 * of bad usage. --help and --version (CLI_HELP, CLI_VERSION) print and end
 * the program (exit 0, or 1 when standard output cannot be written).
 */
#ifndef SWAPSIM_CLI_OPTIONS_H
#define SWAPSIM_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cli_kind {
	CLI_END,     /* the zeroed entry that ends a table */
	CLI_TEXT,    /* --help prose: @help as it is (a heading, a note) */
	CLI_FLAG,    /* no value: the bool at @offset becomes true */
	CLI_BITS,    /* no value: @bits are set in the uint32_t at @offset */
	CLI_STRING,  /* the value as given: the const char * at @offset */
	CLI_U32,     /* a decimal number in @min..@max: the uint32_t at @offset */
	CLI_CHOICE,  /* one of @choices ("a|b|c"): its index, the int at @offset */
	CLI_CALL,    /* the value (with @arg; without, NULL) goes to @set */
	CLI_REST,    /* every word after it goes to @rest (the parse ends there) */
	CLI_HELP,    /* print --help, exit */
	CLI_VERSION, /* print "PROG VERSION", exit */
};

struct cli_option {
	enum cli_kind kind;
	const char *name;    /* "--ram" (CLI_TEXT: NULL) */
	const char *arg;     /* the value's name in --help ("SIZE"); NULL: the option takes none */
	const char *help;    /* --help's text; lines after the first are indented */
	/* --help's text made when printed (a list from a registry); NULL: @help. */
	const char *(*help_fn)(char *buf, size_t len);
	size_t offset;       /* of the target in the program's options struct */
	uint32_t min, max;   /* CLI_U32 */
	bool c_number;       /* CLI_U32: as C writes numbers too (0x1f hex, 017 octal) */
	uint32_t bits;       /* CLI_BITS */
	const char *choices; /* CLI_CHOICE: "table|json" */
	const char *alias;   /* another name, not shown by --help ("-h") */
	/* CLI_CALL: parse @value into @opts. @return 0, or 2 after cli_bad(). */
	int (*set)(void *opts, const char *name, const char *value);
	/* CLI_REST: the @argc words after the option. @return 0 or 2. */
	int (*rest)(void *opts, int argc, char **argv);
};

struct cli_program {
	const char *name;                 /* "swapsim-replay": messages, --version */
	const char *usage;                /* --help's head (usage lines, a summary) */
	const char *tail;                 /* --help's end; NULL: none */
	const struct cli_option *options; /* the table */
	/* A word that is not an option. NULL: an error. @return 0 or 2. */
	int (*word)(void *opts, const char *word);
	/* After each option is read, from argv[@first] to argv[@last]. NULL:
	 * nothing. @return 0 or 2. */
	int (*seen)(void *opts, const struct cli_option *opt, const char *value, int first, int last);
};

/**
 * Parse @argv[@first..@argc) into @opts by @p's table, in order (a bad
 * value stops the parse at once; --help after it is not reached).
 * @return 0, or 2 after a message on stderr.
 */
int cli_options_parse(const struct cli_program *p, void *opts, int argc, char **argv, int first);

/** Write @p's --help to @f: usage, the table (options with their help in a
 *  column), tail. */
void cli_options_help(const struct cli_program *p, FILE *f);

/** @return the option of @p's table named @name (or its alias), or NULL. */
const struct cli_option *cli_options_find(const struct cli_program *p, const char *name);

/**
 * @v as one of @choices ("a|b|c"): its index into *@index. @return 0, or 2
 * after "PROG: NAME: 'V': expected a, b or c".
 */
int cli_choice(const char *prog, const char *name, const char *v, const char *choices, int *index);

/** @v as a decimal number in @min..@max. @return 0, or 2 after "PROG: NAME:
 *  'V': expected a number in MIN..MAX". */
int cli_u32(const char *prog, const char *name, const char *v, uint32_t min, uint32_t max, uint32_t *out);
/** As cli_u32(), the number also as C writes it (0x1f, 017). */
int cli_u32_c(const char *prog, const char *name, const char *v, uint32_t min, uint32_t max, uint32_t *out);

/** The synthetic workloads' synopses for --help (a CLI_TEXT entry's help_fn),
 *  made from their table: per workload its name, its options (sws_workload_params(),
 *  less --keep, which every workload has), SIZE, then what it does
 *  (sws_workload_help()). @return @buf. */
const char *cli_workload_help(char *buf, size_t len);
/** The workloads' names, "usemem, memhog, ...", into @buf. @return @buf. */
const char *cli_workload_names(char *buf, size_t len);

/* A table's entries, by kind (T: the options struct; F: its field). */
#define CLI_OPT_TEXT(text) {.kind = CLI_TEXT, .help = (text)}
#define CLI_OPT_FLAG(n, T, F, h) {.kind = CLI_FLAG, .name = (n), .offset = offsetof(T, F), .help = (h)}
#define CLI_OPT_BITS(n, T, F, b, h) \
	{.kind = CLI_BITS, .name = (n), .offset = offsetof(T, F), .bits = (b), .help = (h)}
#define CLI_OPT_STRING(n, a, T, F, h) \
	{.kind = CLI_STRING, .name = (n), .arg = (a), .offset = offsetof(T, F), .help = (h)}
#define CLI_OPT_U32(n, a, T, F, lo, hi, h) \
	{.kind = CLI_U32, .name = (n), .arg = (a), .offset = offsetof(T, F), .min = (lo), .max = (hi), .help = (h)}
#define CLI_OPT_CHOICE(n, a, T, F, c, h) \
	{.kind = CLI_CHOICE, .name = (n), .arg = (a), .offset = offsetof(T, F), .choices = (c), .help = (h)}
#define CLI_OPT_CALL(n, a, fn, h) {.kind = CLI_CALL, .name = (n), .arg = (a), .set = (fn), .help = (h)}
#define CLI_OPT_HELP(h) {.kind = CLI_HELP, .name = "--help", .alias = "-h", .help = (h)}
#define CLI_OPT_VERSION(h) {.kind = CLI_VERSION, .name = "--version", .help = (h)}

#endif
