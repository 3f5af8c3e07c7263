/*
 * spinlock.h - a 4-byte test-and-test-and-set lock that yields the CPU after a
 * short spin (simulated CPUs may outnumber real ones). Acquire/release atomics
 * make it visible to ThreadSanitizer. sws_spin_lock() reports whether it had to
 * wait, so callers can count contention per lock class.
 *
 * Under the modelled clock (sws__vt_current set) every acquisition and
 * release is a sync point of the event loop and a taken lock makes the CPU
 * wait in virtual time (vtime.h); the host path is a plain bit lock.
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
#include "vtime.h"

typedef struct {
	/* bit 0: locked; under the modelled clock the upper bits remember the
	 * CPU that held it last (its id + 1): a shared cache line */
	atomic_uint v;
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
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc))
		return sws__vt_trylock(vc, &l->v);
	return !(sws_load_relaxed(&l->v) & 1) && !(atomic_fetch_or_explicit(&l->v, 1, memory_order_acquire) & 1);
}

/* @return true when the lock was contended (under the modelled clock: the
 * CPU waited in virtual time, counted against @cls). */
static inline bool sws_spin_lock_cls(sws_spinlock_t *l, enum sws_lock_class cls)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc))
		return sws__vt_lock_inline(vc, &l->v, cls, true);
	if (sws_likely(!(atomic_fetch_or_explicit(&l->v, 1, memory_order_acquire) & 1)))
		return false;
	for (unsigned spins = 0;; spins++) {
		if (!(sws_load_relaxed(&l->v) & 1) &&
		    !(atomic_fetch_or_explicit(&l->v, 1, memory_order_acquire) & 1))
			return true;
		if (spins >= SWS_SPIN_BEFORE_YIELD)
			sched_yield();
		else
			sws_cpu_relax();
	}
}

static inline bool sws_spin_lock(sws_spinlock_t *l) { return sws_spin_lock_cls(l, SWS_LOCK_other); }

static inline void sws_spin_unlock(sws_spinlock_t *l)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc)) {
		sws__vt_unlock_inline(vc, &l->v);
		return;
	}
	sws_store_release(&l->v, 0);
}

static inline bool sws_spin_is_locked(sws_spinlock_t *l) { return sws_load_relaxed(&l->v) & 1; }

/* A mutex of the model (a sleeping lock): under the modelled clock a CPU
 * that finds it taken sleeps in virtual time until its holder releases it. */
static inline void sws_mutex_lock(pthread_mutex_t *m)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc)) {
		sws__vt_sync(vc);
		while (pthread_mutex_trylock(m))
			vc->ops->block(vc, m, false);
		return;
	}
	pthread_mutex_lock(m);
}

static inline void sws_mutex_unlock(pthread_mutex_t *m)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc))
		sws__vt_sync(vc);
	pthread_mutex_unlock(m);
	if (sws_unlikely(vc) && *vc->nr_blocked)
		vc->ops->wake(vc, m);
}

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
