/*
 * out.h - printing through a caller's write callback, the one emitter every
 * printer in lib/ uses (counters, reports, a workload's own output): each
 * piece is formatted into a line buffer and handed to the callback; after the
 * callback's first error (kept in err) nothing more is written.
 */
#ifndef SWS_COMMON_OUT_H
#define SWS_COMMON_OUT_H

#include <stddef.h>

struct sws__out {
	int (*write)(void *ctx, const char *text, size_t len);
	void *ctx;
	int err; /* the callback's first error; 0 while all went well */
};

/* Format and write one piece (at most 1023 bytes: longer is cut). */
void sws__pr(struct sws__out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
