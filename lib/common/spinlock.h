/*
 * spinlock.h - a 4-byte test-and-test-and-set lock that yields the CPU after a
 * short spin (simulated CPUs may outnumber real ones). Acquire/release atomics
 * make it visible to ThreadSanitizer. sws_spin_lock() reports whether it had to
 * wait, so callers can count contention per lock class.
 *
 * SWS_ASSERT_HELD() is what a `__` function (the caller holds a lock) checks
 * first: lockdep_assert_held() without lockdep.
 */
#ifndef SWS_SPINLOCK_H
#define SWS_SPINLOCK_H

#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include "compiler.h"

typedef struct {
	atomic_int v;
} sws_spinlock_t;

#define SWS_SPIN_BEFORE_YIELD 64

static inline void sws_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static inline void sws_spin_init(sws_spinlock_t *l) { atomic_init(&l->v, 0); }

static inline bool sws_spin_trylock(sws_spinlock_t *l)
{
	return !sws_load_relaxed(&l->v) &&
	       !atomic_exchange_explicit(&l->v, 1, memory_order_acquire);
}

/* @return true when the lock was contended. */
static inline bool sws_spin_lock(sws_spinlock_t *l)
{
	if (sws_likely(!atomic_exchange_explicit(&l->v, 1, memory_order_acquire)))
		return false;
	for (unsigned spins = 0;; spins++) {
		if (!sws_load_relaxed(&l->v) && sws_spin_trylock(l))
			return true;
		if (spins >= SWS_SPIN_BEFORE_YIELD)
			sched_yield();
		else
			sws_cpu_relax();
	}
}

static inline void sws_spin_unlock(sws_spinlock_t *l) { sws_store_release(&l->v, 0); }

static inline bool sws_spin_is_locked(sws_spinlock_t *l) { return sws_load_relaxed(&l->v) != 0; }

/* A default (non-recursive) mutex is locked when trylock says EBUSY; one
 * that was not is released again. For SWS_ASSERT_HELD() only. */
static inline bool sws__mutex_is_locked(pthread_mutex_t *m)
{
	if (pthread_mutex_trylock(m))
		return true;
	pthread_mutex_unlock(m);
	return false;
}

/*
 * Debug builds: abort unless @lock (an sws_spinlock_t *, const or not, or a
 * pthread_mutex_t *) is held. It tells held from free, not which thread
 * holds it, as spin_is_locked() does. With NDEBUG it compiles to nothing.
 */
#ifdef NDEBUG
#define SWS_ASSERT_HELD(lock) ((void)sizeof(lock))
#else
#define SWS_ASSERT_HELD(lock)                                                                      \
	assert(_Generic((lock),                                                               \
		       sws_spinlock_t *: sws_spin_is_locked((sws_spinlock_t *)(lock)),        \
		       const sws_spinlock_t *: sws_spin_is_locked((sws_spinlock_t *)(lock)),  \
		       pthread_mutex_t *: sws__mutex_is_locked((pthread_mutex_t *)(lock))) && \
	       "lock not held")
#endif

#endif
