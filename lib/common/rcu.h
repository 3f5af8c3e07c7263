/*
 * rcu.h - the one place libswapsim names its RCU flavour: liburcu "memb"
 * (membarrier-based; read-side critical sections cost no fences). Readers must
 * be registered threads; sws_cpu_attach() registers them.
 *
 * ThreadSanitizer cannot see a grace period (liburcu 0.13 synchronises with
 * inline assembly), so in TSan builds every read-side unlock and every
 * call_rcu() releases one token, and every RCU callback and every return from
 * synchronize_rcu() acquires it: the happens-before edge RCU really provides.
 */
#ifndef SWS_RCU_H
#define SWS_RCU_H

#define _LGPL_SOURCE 1
#include <urcu/urcu-memb.h>

#include "compiler.h"

/* Per-thread registration with a nesting count (several sims may share a thread).
 * Calls that take a sim rather than a CPU hold a registration for their
 * duration: a read lock on an unregistered thread is invisible to
 * synchronize_rcu() in the memb flavour. */
void sws__rcu_thread_get(void);
void sws__rcu_thread_put(void);

#ifdef SWS_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define SWS_RCU_TSAN_TOKEN ((void *)&sws__rcu_thread_get)
#define sws_rcu_tsan_release() __tsan_release(SWS_RCU_TSAN_TOKEN)
#define sws_rcu_tsan_acquire() __tsan_acquire(SWS_RCU_TSAN_TOKEN)
#else
#define sws_rcu_tsan_release() ((void)0)
#define sws_rcu_tsan_acquire() ((void)0)
#endif

typedef struct rcu_head sws_rcu_head;

#define sws_rcu_read_lock() urcu_memb_read_lock()
#define sws_rcu_read_unlock()            \
	do {                             \
		sws_rcu_tsan_release();  \
		urcu_memb_read_unlock(); \
	} while (0)
#define sws_synchronize_rcu()                \
	do {                                 \
		urcu_memb_synchronize_rcu(); \
		sws_rcu_tsan_acquire();      \
	} while (0)
#define sws_rcu_barrier()           \
	do {                        \
		urcu_memb_barrier(); \
		sws_rcu_tsan_acquire(); \
	} while (0)
#define sws_call_rcu(head, fn)                   \
	do {                                     \
		sws_rcu_tsan_release();          \
		urcu_memb_call_rcu((head), (fn)); \
	} while (0)
/* First and last statements of every RCU callback: what the callback did
 * happens before the return of a later sws_rcu_barrier(). */
#define sws_rcu_callback_begin() sws_rcu_tsan_acquire()
#define sws_rcu_callback_end() sws_rcu_tsan_release()

#endif
