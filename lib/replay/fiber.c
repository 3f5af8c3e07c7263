/*
 * fiber.c - cooperative stacks for the simulated CPUs (fiber.h).
 *
 * x86-64: sws__fiber_swap() pushes the six callee-saved registers, stores the
 * stack pointer into *save, loads @load and pops the other fiber's registers;
 * its `ret` returns into that fiber. A new fiber's stack is laid out as if it
 * had been switched away from just before calling its entry:
 *
 *   top ─┐ (16-byte aligned)
 *        │ 2 unused words
 *        │ return address: fiber_start   ◀─ after the six pops, rsp is 16-aligned
 *        │ rbp 0, rbx 0, r12 = fiber, r13 = fiber_entry, r14 0, r15 0
 *   sp ──┘
 *
 * fiber_start moves r12 into the first argument register and calls r13, so
 * fiber_entry() starts with the alignment of any called function. Elsewhere
 * the fibers are ucontext's.
 */
#include <string.h>

#include <swapsim/error.h>

#include "../common/compiler.h"
#include "fiber.h"

#ifdef SWS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef SWS_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#if defined(__x86_64__)
void sws__fiber_swap(void **save, void *load);
void sws__fiber_start(void);
__asm__(".text\n"
	".globl sws__fiber_swap\n"
	".hidden sws__fiber_swap\n"
	".type sws__fiber_swap,@function\n"
	"sws__fiber_swap:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size sws__fiber_swap, .-sws__fiber_swap\n"
	".globl sws__fiber_start\n"
	".hidden sws__fiber_start\n"
	".type sws__fiber_start,@function\n"
	"sws__fiber_start:\n"
	"	movq %r12, %rdi\n"
	"	callq *%r13\n"
	"	ud2\n"
	".size sws__fiber_start, .-sws__fiber_start\n"
	".section .note.GNU-stack,\"\",@progbits\n"
	".text\n");
#endif

/* The fiber that switched to the one now running (the sanitizers learn the
 * main stack's bounds from it). */
static void finish_switch(struct sws__fiber *me, struct sws__fiber *prev)
{
#ifdef SWS_ASAN
	__sanitizer_finish_switch_fiber(me->asan_fake, &prev->stack_bottom, &prev->stack_size);
#else
	(void)me;
	(void)prev;
#endif
}

static void fiber_entry(struct sws__fiber *f)
{
	finish_switch(f, f->prev);
	f->fn(f->arg);
	__builtin_trap(); /* fn never returns */
}

#if !defined(__x86_64__)
static void fiber_entry_uc(unsigned hi, unsigned lo)
{
	fiber_entry((struct sws__fiber *)(((uintptr_t)hi << 32) | lo));
}
#endif

void sws__fiber_main(struct sws__fiber *f)
{
	memset(f, 0, sizeof(*f));
#ifdef SWS_TSAN
	f->tsan = __tsan_get_current_fiber();
#endif
}

int sws__fiber_create(struct sws__fiber *f, size_t stack_bytes, void (*fn)(void *), void *arg)
{
	memset(f, 0, sizeof(*f));
	uint8_t *lo;
	if (sws__arena_stack(&f->stack, stack_bytes, &lo))
		return SWS_ENOMEM;
	uint8_t *top = f->stack.base + f->stack.reserved;
	f->fn = fn;
	f->arg = arg;
	f->stack_bottom = lo;
	f->stack_size = (size_t)(top - lo);
#if defined(__x86_64__)
	void **sp = (void **)(top - 72);
	sp[0] = 0;                     /* r15 */
	sp[1] = 0;                     /* r14 */
	sp[2] = (void *)fiber_entry;   /* r13 */
	sp[3] = f;                     /* r12 */
	sp[4] = 0;                     /* rbx */
	sp[5] = 0;                     /* rbp */
	sp[6] = (void *)sws__fiber_start;
	f->sp = sp;
#else
	getcontext(&f->uc);
	f->uc.uc_stack.ss_sp = lo;
	f->uc.uc_stack.ss_size = f->stack_size;
	f->uc.uc_link = NULL;
	makecontext(&f->uc, (void (*)(void))fiber_entry_uc, 2, (unsigned)((uintptr_t)f >> 32),
		    (unsigned)(uintptr_t)f);
#endif
#ifdef SWS_TSAN
	f->tsan = __tsan_create_fiber(0);
#endif
	return 0;
}

void sws__fiber_destroy(struct sws__fiber *f)
{
	if (!f->stack.base)
		return;
#ifdef SWS_TSAN
	__tsan_destroy_fiber(f->tsan);
#endif
#ifdef SWS_ASAN
	/* A fiber parked inside a frame leaves that frame's redzones poisoned; a
	 * mapping that later gets the address would inherit them. */
	__asan_unpoison_memory_region(f->stack_bottom, f->stack_size);
#endif
	sws__arena_release(&f->stack);
	memset(f, 0, sizeof(*f));
}

void sws__fiber_switch(struct sws__fiber *from, struct sws__fiber *to)
{
	to->prev = from;
#ifdef SWS_ASAN
	__sanitizer_start_switch_fiber(&from->asan_fake, to->stack_bottom, to->stack_size);
#endif
#ifdef SWS_TSAN
	__tsan_switch_to_fiber(to->tsan, 0);
#endif
#if defined(__x86_64__)
	sws__fiber_swap(&from->sp, to->sp);
#else
	swapcontext(&from->uc, &to->uc);
#endif
	finish_switch(from, from->prev);
}
