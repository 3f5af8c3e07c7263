/*
 * fiber.h - stacks of their own for the simulated CPUs of the modelled clock,
 * switched cooperatively on one host thread (docs/modelled-time.md).
 *
 * A fiber runs fn(arg) on its own stack from its first switch; switching to
 * another saves the callee-saved registers and the stack pointer and loads
 * the other's: on x86-64 a dozen instructions, with no system call (elsewhere
 * ucontext, which saves the signal mask too). The main context (the caller's
 * own stack) is a fiber made by sws__fiber_main(). fn must not return: it
 * switches away for the last time instead. AddressSanitizer and
 * ThreadSanitizer are told of every switch.
 */
#ifndef SWS_REPLAY_FIBER_H
#define SWS_REPLAY_FIBER_H

#include <stddef.h>

#include "../swap/arena.h"

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

struct sws__fiber {
	void *sp; /* saved stack pointer (x86-64) */
#if !defined(__x86_64__)
	ucontext_t uc;
#endif
	struct sws_arena stack; /* none for the main context */
	void (*fn)(void *);
	void *arg;
	struct sws__fiber *prev; /* the fiber that last switched to this one */
	void *tsan;             /* ThreadSanitizer's fiber */
	void *asan_fake;        /* AddressSanitizer's fake stack while away */
	const void *stack_bottom;
	size_t stack_size;
};

/* The caller's own context. */
void sws__fiber_main(struct sws__fiber *f);
/* A fiber that will run @fn(@arg) on a stack of @stack_bytes (a guard page
 * below it). @return 0 or SWS_ENOMEM. */
int sws__fiber_create(struct sws__fiber *f, size_t stack_bytes, void (*fn)(void *), void *arg);
/* Free @f's stack (it must not be running). */
void sws__fiber_destroy(struct sws__fiber *f);
/* Suspend @from (the running fiber) and run @to. */
void sws__fiber_switch(struct sws__fiber *from, struct sws__fiber *to);

#endif
