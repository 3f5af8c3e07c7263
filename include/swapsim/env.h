/*
 * swapsim/env.h - the environment a simulation runs in.
 *
 * libswapsim never calls malloc, time, rand or printf directly: the allocator,
 * the clock, the random seed and the log sink come in through struct sws_env.
 * A zero-filled sws_env means "all defaults" (jemalloc when the library was
 * built with it, the default clock, seed 0, no logging).
 */
#ifndef SWAPSIM_ENV_H
#define SWAPSIM_ENV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An old name kept for source compatibility: using it warns, naming the new one. */
#if defined(__GNUC__) || defined(__clang__)
#define SWS_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define SWS_DEPRECATED(msg)
#endif

#define SWS_ENV_VERSION 1

/*
 * Allocator hook. alloc() returns memory aligned to @align (a power of two,
 * at most 4096) or NULL; free() receives the size that was asked for. Both
 * must be thread safe. Returning NULL is always allowed: every caller turns it
 * into SWS_ENOMEM and leaves state consistent (tests fail the Nth allocation).
 */
struct sws_allocator {
	void *(*alloc)(void *ctx, size_t size, size_t align);
	void (*free)(void *ctx, void *ptr, size_t size);
	void *ctx;
};

struct sws_env {
	uint32_t version;              /* SWS_ENV_VERSION, or 0 for the current one */
	uint32_t reserved;             /* must be zero */
	struct sws_allocator allocator; /* alloc == NULL: the default allocator */
	uint64_t (*clock_ns)(void *ctx); /* NULL: sws_default_clock_ns() */
	void *clock_ctx;
	uint64_t seed;                 /* seed for any randomised decision */
	void (*log)(void *ctx, int level, const char *msg); /* NULL: silent */
	void *log_ctx;
};

/** @return the name of the default allocator ("jemalloc" or "libc"). */
const char *sws_default_allocator_name(void);

/*
 * The default clock, in nanoseconds. Where the host kernel's clocksource is
 * the (invariant) TSC, it reads the TSC scaled by a rate calibrated once per
 * process against CLOCK_MONOTONIC (a few ns a read instead of a vDSO call:
 * simulated system time reads the clock at every kernel entry and exit): it
 * starts at CLOCK_MONOTONIC's value and keeps the rate measured then (within
 * about 1e-5), not later NTP slewing, and is monotonic per thread. Elsewhere
 * it is CLOCK_MONOTONIC.
 */
uint64_t sws_default_clock_ns(void);
/** @return "tsc" or "clock_monotonic": what sws_default_clock_ns() reads here. */
const char *sws_default_clock_name(void);

#ifdef __cplusplus
}
#endif
#endif
