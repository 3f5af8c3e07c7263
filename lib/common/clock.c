/*
 * clock.c - choosing and calibrating the default clock (clock.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "swapsim/env.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

struct sws_tsc_clock sws__tsc_clock;
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__)
/* The kernel's clocksource is "tsc": it found the TSC invariant and in step
 * across CPUs (its tsc_sync checks), so one reading serves every thread. */
static int host_uses_tsc(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8))) /* invariant TSC */
		return 0;
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (!f)
		return 0;
	char name[32] = "";
	int ok = fgets(name, sizeof(name), f) && !strcmp(name, "tsc\n");
	fclose(f);
	return ok;
}

/* A (tsc, ns) pair read together: the CLOCK_MONOTONIC read bracketed by two
 * TSC reads, the tightest of a few tries. */
static void pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 16; i++) {
		uint64_t t0 = __rdtsc(), n = sws__monotonic_ns(), t1 = __rdtsc();
		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
}

static void clock_choose(void)
{
	if (!host_uses_tsc())
		return;
	/* Two pairs 2 ms apart: a pair's error is tens of ns, so the rate is
	 * good to about 1e-5, and durations of a run stay within that. */
	uint64_t tsc0 = 0, ns0 = 0, tsc1 = 0, ns1 = 0;
	pair(&tsc0, &ns0);
	do
		pair(&tsc1, &ns1);
	while (ns1 - ns0 < 2000000);
	if (tsc1 <= tsc0)
		return;
	sws__tsc_clock.base_tsc = tsc0;
	sws__tsc_clock.base_ns = ns0;
	sws__tsc_clock.mult = (uint64_t)(((unsigned __int128)(ns1 - ns0) << 32) / (tsc1 - tsc0));
}
#else
static void clock_choose(void) {}
#endif

void sws__clock_init(void)
{
	pthread_once(&clock_once, clock_choose);
}

uint64_t sws_default_clock_ns(void)
{
	sws__clock_init();
	return sws__default_clock_ns();
}

const char *sws_default_clock_name(void)
{
	sws__clock_init();
	return sws__tsc_clock.mult ? "tsc" : "clock_monotonic";
}
