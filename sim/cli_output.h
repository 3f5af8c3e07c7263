/*
 * cli_output.h - output files of the command-line programs in sim/, written
 * whole or not at all: a temporary file beside the final name, renamed over
 * it once complete, so that an error, a signal or a full disk never leaves a
 * partial file under the final name nor destroys what was there. A path
 * naming something that is not a regular file (a pipe, /dev/stdout) is
 * written in place. Not part of the library.
 */
#ifndef SWAPSIM_CLI_OUTPUT_H
#define SWAPSIM_CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

/* @return 1 when @a and @b name the same file (hard and symbolic links
 * included); 0 when they do not, or when either does not exist. */
int cli_same_file(const char *a, const char *b);

struct cli_output {
	FILE *f;          /* write here */
	const char *path; /* the final name */
	char tmp[4096];   /* the temporary file, "" when written in place */
};

/* Open @path's temporary file (or @path itself, when it names something other
 * than a regular file). @return 0, or -1 with errno set. */
int cli_output_open(struct cli_output *o, const char *path);

/* Flush, sync and rename the temporary file over the final name. On any error
 * the temporary file goes and the final name keeps what it had. @return 0,
 * or -1 with errno set. */
int cli_output_commit(struct cli_output *o);

#endif
