/*
 * fuzz.h - what the fuzz targets of tests/fuzz share: the libFuzzer entry
 * point each one defines, and the check that stops a run on a broken promise.
 * Built with libFuzzer (-DSWS_FUZZ=ON) or, in every other build, with
 * driver.c, which runs the inputs named on its command line once each.
 */
#ifndef SWS_FUZZ_H
#define SWS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libFuzzer's entry point: run one input. @return 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A promise of the library broken: say which, and crash (libFuzzer keeps the input). */
#define FUZZ_CHECK(cond, ...)                                                         \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, \
				#cond);                                               \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
			abort();                                                      \
		}                                                                     \
	} while (0)

#endif
