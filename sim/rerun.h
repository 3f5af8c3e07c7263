/*
 * rerun.h - the command line a swapsim-replay JSON report records, read back
 * (swapsim-replay --rerun REPORT.json). Not part of the library.
 */
#ifndef SWAPSIM_RERUN_H
#define SWAPSIM_RERUN_H

#include <stddef.h>

/**
 * Read the "argv" array of the JSON report at @path: *@argv gets the words
 * (malloc'ed, NULL-terminated; rerun_free() frees them), *@argc their number.
 * @return 0, or -1 with what is wrong in @err (the file cannot be read, it is
 * not JSON, it has no argv or a null one).
 */
int rerun_load(const char *path, char ***argv, int *argc, char *err, size_t errlen);

void rerun_free(char **argv);

#endif
