/*
 * clock.h - the default clock of struct sws_env (sws_env.clock_ns NULL).
 *
 * Simulated system time is measured: every kernel entry and exit of the model
 * reads the clock, so its price is part of every fault. Where the host's own
 * clocksource is the TSC (the kernel checked that it is invariant and in step
 * across CPUs), the default clock reads the TSC and scales it to nanoseconds
 * with a multiplier calibrated once per process against CLOCK_MONOTONIC; a
 * read is then one rdtsc and one multiply instead of a vDSO call. Elsewhere it
 * is CLOCK_MONOTONIC.
 */
#ifndef SWS_CLOCK_H
#define SWS_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "compiler.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* ns = base_ns + (tsc - base_tsc) * mult >> 32; mult 0: no TSC clock. */
struct sws_tsc_clock {
	uint64_t base_tsc;
	uint64_t base_ns;
	uint64_t mult;
};
extern struct sws_tsc_clock sws__tsc_clock;

/* Chooses and calibrates the default clock once per process (thread safe);
 * every creator of a simulation calls it before the first read. */
void sws__clock_init(void);

static inline uint64_t sws__monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The default clock, in nanoseconds (see sws_default_clock_ns() in swapsim/env.h). */
static inline uint64_t sws__default_clock_ns(void)
{
#if defined(__x86_64__)
	if (sws_likely(sws__tsc_clock.mult)) {
		uint64_t d = __rdtsc() - sws__tsc_clock.base_tsc;
		return sws__tsc_clock.base_ns + (uint64_t)(((unsigned __int128)d * sws__tsc_clock.mult) >> 32);
	}
#endif
	return sws__monotonic_ns();
}

#endif
