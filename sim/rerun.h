/*
 * rerun.h - the command line a swapsim-replay JSON report records, read back
 * (swapsim-replay --rerun REPORT.json). Not part of the library.
 */
#ifndef SWAPSIM_RERUN_H
#define SWAPSIM_RERUN_H

#include <stdbool.h>
#include <stddef.h>

/**
 * Read the "argv" array of the JSON report at @path: *@argv gets the words
 * (malloc'ed, NULL-terminated; rerun_free() frees them), *@argc their number.
 * @return 0, or -1 with what is wrong in @err (the file cannot be read, it is
 * not JSON, it has no argv or a null one).
 */
int rerun_load(const char *path, char ***argv, int *argc, char *err, size_t errlen);

void rerun_free(char **argv);

/**
 * --rerun REPORT.json in @*argvp (before a --workload): the command line the
 * report records, less its output options (--report, --json-out, --quiet,
 * --all-counters), with those given beside --rerun instead (before a
 * --workload's words; nothing else may be given). @flag(word): does that
 * option of swapsim-replay take no value? @return 0 with *@argcp, *@argvp
 * replaced (free the new *@argvp, and *@keep with rerun_free(), at the end)
 * or left alone (no --rerun), or the exit status: 2 bad usage (said), 1 the
 * report cannot be read (said).
 */
int rerun_expand(int *argcp, char ***argvp, char ***keep, bool (*flag)(const char *word));

#endif
