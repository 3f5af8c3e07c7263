/*
 * cli_output.h - the output discipline of the command-line programs in sim/
 * (swapsim-replay, swapsim-trace, swapsim-overhead, swapsim-calibrate; the
 * scripts follow the same rules, docs/tools.md "Output files"). Not part of
 * the library; the trace writer (swapsim/trace.h) follows the same rules for
 * the traces it writes.
 *
 * An output file is written whole or not at all:
 *   - to a temporary ".NAME.XXXXXX" in the destination's own directory
 *     (rename() is atomic only within one file system), every write, the
 *     flush, the fsync and the close checked; then renamed over NAME and the
 *     directory fsynced. Any error, or cli_output_abort(), removes the
 *     temporary and leaves NAME as it was.
 *   - An existing file keeps its permission bits; a new one gets 0666 less
 *     the umask (open()'s own rule: the umask is never changed or read).
 *     A file this process could not write is not replaced.
 *   - Symbolic links are followed: the file a link names is replaced in its
 *     own directory and the link stays (as the trace writer does); a link
 *     that names nothing is refused.
 *   - A path that exists and is not a regular file (a FIFO, /dev/stdout on a
 *     pipe, /dev/null) cannot be replaced: it is written in place.
 *   - No run writes over its own input: cli_output_is_input() compares the
 *     device and inode of an output (or of standard output) with each input
 *     of the run, so a hard or symbolic link to an input is caught too.
 * Standard output is checked at exit (cli_stdout_close()): a failed write
 * (a full disk, /dev/full, a closed pipe with SIGPIPE ignored) is an error.
 */
#ifndef SWAPSIM_CLI_OUTPUT_H
#define SWAPSIM_CLI_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* @return 1 when @a and @b name the same file (hard and symbolic links
 * included); 0 when they do not, or when either does not exist. */
int cli_same_file(const char *a, const char *b);

/* @return the index in @inputs (NULL entries and "-" skipped) of the file
 * @path is, or -1 when it is none of them (or does not exist yet). */
int cli_output_is_input(const char *path, const char *const *inputs, unsigned n);

/* @return the index in @inputs of the file standard output is (a regular
 * file opened on one of them: '> INPUT' or '>> INPUT'), or -1. */
int cli_stdout_is_input(const char *const *inputs, unsigned n);

struct cli_output {
	FILE *f;             /* write here */
	const char *path;    /* the name given, for messages */
	char final[PATH_MAX]; /* where the file goes: @path, symbolic links resolved */
	char tmp[PATH_MAX];   /* the temporary beside it; "" when written in place */
};

/* Open @path's temporary file (or @path itself, when it names something that
 * is not a regular file). @return 0, or -1 with errno set (ELOOP for a
 * symbolic link that names nothing, EISDIR for a directory). */
int cli_output_open(struct cli_output *o, const char *path);

/* Finish the file: check that every write went through (ferror), flush,
 * fsync, close, rename over the final name, fsync the directory. On any
 * error the temporary goes and the final name keeps what it had.
 * @return 0, or -1 with errno set. */
int cli_output_commit(struct cli_output *o);

/* strerror() of what cli_output_open() or _commit() set, in the words of the
 * rules above (ELOOP: a symbolic link that names nothing). */
const char *cli_output_strerror(int err);

/* Drop the temporary: the final name keeps what it had. */
void cli_output_abort(struct cli_output *o);

/* The start of a program: standard output becomes a stream that remembers
 * why a write failed (stdio forgets the errno once it dropped what it could
 * not write), buffered as before (by line on a terminal). */
void cli_stdout_init(void);

/* The end of a program: flush and close standard output. A failed write
 * (now or before) prints "PROG: standard output: ERROR" on stderr.
 * @return @status, or 1 where @status was 0 and standard output failed. */
int cli_stdout_close(const char *prog, int status);

/* Install the stop signals' handler @fn for SIGINT, SIGTERM and SIGHUP,
 * leaving alone any of them that was ignored when the program started
 * (nohup, a background job's SIGINT): an ignored signal stays ignored. No
 * SA_RESTART, so a read blocked on a pipe returns EINTR. */
void cli_catch_stop_signals(void (*fn)(int));

#endif
