/*
 * cli_parse.h - the value grammar of the command-line programs in sim/
 * (swapsim-replay and its tests): sizes, swap device specs, content mixes,
 * workload options. Not part of the library: a program's grammar is its own.
 */
#ifndef SWAPSIM_CLI_PARSE_H
#define SWAPSIM_CLI_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <swapsim/swapsim.h>

/**
 * Report a bad option of program @prog on stderr ("PROG: OPT: message" and a
 * pointer to --help). @return 2, the exit status of bad usage.
 */
int cli_bad(const char *prog, const char *opt, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Configurations one --compare may list (every design, and room for repeats of one). */
#define CLI_MAX_RUNS 8

/**
 * Parse a size: digits with an optional suffix K, M, G, T (binary, any case,
 * an optional trailing B/iB), or a page count with a "p" suffix (x 4096).
 * No suffix: bytes, at least one page (4096): a bare number below that is a
 * slip for a unit (64 for 64M) and refused. @return 0, SWS_EINVAL (empty,
 * junk, overflow, a bare number below a page; cli_size_hint() says which).
 */
int cli_parse_size(const char *s, uint64_t *bytes);

/**
 * What is wrong with @s, a string cli_parse_size() refused, for a message:
 * a bare number below a page is bytes ("add a unit or p"), a decimal
 * fraction gets the whole number of a smaller unit it is ("1.5G is 1536M"),
 * anything else the grammar. Written into @buf. @return @buf.
 */
const char *cli_size_hint(const char *s, char *buf, size_t len);

/**
 * The trace formats' names (sws_trace_format_name(), in their numbering:
 * "auto" first when @with_auto) joined by ", " with " or " before the last
 * ("native, perf, ... or addr"), in @buf (cut to @len): a format added to
 * the library shows up in --format's messages with no change here.
 * @return @buf.
 */
const char *cli_trace_format_list(char *buf, size_t len, int with_auto);

/**
 * Parse a swap device spec: comma-separated key=value pairs: size=SIZE,
 * type=ssd|nvme|sata|hdd|zram|pmem|xswap, prio=N (0..32767), file=PATH,
 * rlat=NS, wlat=NS, limit=PAGES (xswap), and the bare words reuse (an
 * existing file=PATH may be reused: its contents are lost) and follow
 * (file=PATH may be a symbolic link). @p path points into @s (the caller
 * keeps @s alive). @return 0 or SWS_EINVAL with a message naming the bad key
 * in @msg.
 */
int cli_parse_swap(char *s, struct sws_replay_swap *out, char *msg, size_t msg_len);

/**
 * Parse a workload's own arguments (the words after "--workload NAME"): the
 * options its table lists (sws_workload_params(@cfg->kind): a flag, or a
 * value as the next word, or glued to a one-letter option, -n4) and one SIZE.
 * @cfg->kind must be set; other fields are filled (from the table's start
 * values first). @return 0 or SWS_EINVAL with a message naming the workload,
 * the option and the bad value in @msg ("kbuild -j 0: expected 1..65536 jobs").
 */
int cli_parse_workload_args(struct sws_workload_config *cfg, int argc, char *const *argv, char *msg,
			    size_t msg_len);

/**
 * Parse a content mix: "index", or weights "zero=1,same=1,index=2,text=3,random=1".
 * @return 0 or SWS_EINVAL (message in @msg).
 */
/* Read a cost file (swapsim-calibrate's) over the defaults. @return 0, or SWS_EINVAL
 * with a message naming the file (and line). */
int cli_read_costs(const char *path, struct sws_costs *c, char *msg, size_t msg_len);
int cli_parse_content(const char *s, uint32_t weight[SWS_NR_CONTENT], char *msg, size_t msg_len);

#endif
