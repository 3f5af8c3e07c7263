/*
 * vtime.h - modelled time below the event loop: a simulated CPU's virtual
 * clock, the charging of costs to it, and the hooks by which locks and
 * devices let the event loop order CPUs in virtual time
 * (docs/modelled-time.md).
 *
 * The event loop (lib/replay/sched.c) owns the CPUs and their order; the
 * library below it only charges the running CPU and, at a sync point, asks
 * the event loop through struct sws_vsched_ops to let CPUs that are earlier
 * in virtual time run first. sws__vt_current names the virtual CPU running on
 * this host thread (NULL: the host clock, or outside the event loop), as the
 * kernel's `current` names the running task: locks have no CPU argument, so
 * this is how a lock finds out that it must wait in virtual time.
 *
 * Times are picoseconds.
 */
#ifndef SWS_VTIME_H
#define SWS_VTIME_H

#include <assert.h>

#include <swapsim/cost.h>

#include "compiler.h"

struct sws_vcpu;

/* The event loop's side (lib/replay/sched.c). */
struct sws_vsched_ops {
	/* @vc is past the earliest other ready CPU: suspend it until it is the earliest. */
	void (*yield)(struct sws_vcpu *vc);
	/* @obj (a lock) is held by another CPU: suspend @vc until the holder releases it;
	 * @spin: the CPU spins meanwhile (busy), else it sleeps (idle). On return
	 * vc->now is the release time (or later). */
	void (*block)(struct sws_vcpu *vc, const void *obj, bool spin);
	/* @obj was released at vc->now: let the earliest CPU waiting for it go. */
	void (*wake)(struct sws_vcpu *vc, const void *obj);
};

struct sws_vcpu {
	uint64_t now;  /* virtual time (ps) */
	uint64_t idle; /* of now, the time this CPU was not busy: idle, asleep, waiting,
			* and where its clock started (sws__vt_busy()) */
	const uint64_t *horizon; /* the earliest other ready CPU's time (the event loop's) */
	const unsigned *nr_blocked; /* CPUs waiting for a lock (the event loop's) */
	const uint64_t *limit; /* *horizon + 1 while no CPU waits for a lock, else 0 (the
				* event loop's): an unlock at or after it takes the call */
	const struct sws_costs *costs;
	const struct sws_vsched_ops *ops;
	void *sched; /* the event loop's own: its CPU */
	unsigned id;
	unsigned lock_word; /* (id + 1) << 1: a free lock's word when this CPU held it last
			     * (sws__vt_set_id()) */
	/* What this CPU's time went to: per cost class, count[c] units of its
	 * cost and extra[c] ps beside them (sws__vt_charged()); per lock class
	 * waited for. */
	uint64_t extra[SWS_NR_COSTS]; /* the LLC model's miss surcharge (sws__vt_loads()) */
	uint64_t lock_wait[SWS_NR_LOCK_CLASSES];  /* ps */
	uint64_t lock_waits[SWS_NR_LOCK_CLASSES]; /* acquisitions that waited */
	uint64_t line_transfers;                  /* locks taken over from another CPU */
	uint64_t spin;                            /* ps spent spinning on taken locks (busy) */
	uint64_t device_cpu;                      /* ps of device work done on this CPU (zram, pmem) */
	uint64_t io_wait;                         /* ps waiting for devices (idle) */
	uint64_t user;                            /* ps running the tasks' own code */
	uint64_t llc_miss_ppm; /* the LLC model's miss ratio for metadata loads, per million */
	uint64_t miss_ps;      /* a walk's surcharge at that ratio: (load_miss - load_hit)
				* x llc_miss_ppm / 10^6 (sws__vt_set_footprint()) */
	uint64_t count[SWS_NR_COSTS]; /* units charged per cost class: the work counters */
	unsigned hw;  /* nonzero: the hardware's work, not the kernel's (a TLB hit): charges
		       * nothing (its only charges are sws__vt_charge_nohw()'s) */
};

extern _Thread_local struct sws_vcpu *sws__vt_current;

/* Name the CPU @id (the event loop's index). */
static inline void sws__vt_set_id(struct sws_vcpu *vc, unsigned id)
{
	vc->id = id;
	vc->lock_word = (id + 1) << 1;
}

/* Charge @n units of cost class @c: the CPU is busy that long. Never under
 * vc->hw: the hit path charges through sws__vt_charge_nohw() only. */
static inline void sws__vt_charge(struct sws_vcpu *vc, enum sws_cost c, uint64_t n)
{
	assert(!vc->hw);
	vc->count[c] += n; /* the ps it took: sws__vt_charged() */
	vc->now += n * vc->costs->ps[c];
}

/* A charge on a path the hardware's work shares (a lock's own: the lock, the
 * atomic, the line moved to this CPU; the exact LRU's move): none under
 * vc->hw (a TLB hit takes the page table's and the LRU's locks as sync
 * points and moves its folio at no kernel cost). */
static inline void sws__vt_charge_nohw(struct sws_vcpu *vc, enum sws_cost c, uint64_t n)
{
	if (sws_likely(!vc->hw))
		sws__vt_charge(vc, c, n);
}

/* The ps charged to cost class @c so far: its units at its cost (the cost
 * table stays as it is for a CPU's life; a CPU not started yet has none, and
 * no units), and what was charged beside them. */
static inline uint64_t sws__vt_charged(const struct sws_vcpu *vc, enum sws_cost c)
{
	return (vc->count[c] ? vc->count[c] * vc->costs->ps[c] : 0) + vc->extra[c];
}

/* A walk of @n dependent metadata loads: the upper levels stay in the cache
 * (every slot below them shares them), the last load hits or misses as the
 * LLC model says. */
static inline void sws__vt_loads(struct sws_vcpu *vc, uint64_t n)
{
	if (sws_unlikely(vc->hw) || !n)
		return;
	const uint64_t miss = vc->miss_ps;
	sws__vt_charge(vc, SWS_COST_load_hit, n);
	vc->now += miss;
	vc->extra[SWS_COST_load_miss] += miss;
}

/* A write to a cache line other CPUs write too, whose last writer *@last
 * records (id + 1; 0: none): moving it here costs a transfer. */
static inline void sws__vt_line(struct sws_vcpu *vc, uint32_t *last)
{
	if (*last && *last != vc->id + 1) {
		sws__vt_charge_nohw(vc, SWS_COST_line_transfer, 1);
		vc->line_transfers++;
	}
	*last = vc->id + 1;
}

/* The CPU waits @ps without working (a device, a sleeping lock): virtual time
 * moves, busy time does not. */
static inline void sws__vt_idle(struct sws_vcpu *vc, uint64_t ps)
{
	vc->now += ps;
	vc->idle += ps;
}

/* The CPU's clock moves to @t (later) while it waits: not busy. */
static inline void sws__vt_wait_until(struct sws_vcpu *vc, uint64_t t)
{
	if (vc->now < t) {
		vc->idle += t - vc->now;
		vc->now = t;
	}
}

/* The virtual time this CPU was busy (working or spinning): its clock less
 * the time it was not. A charge moves the clock alone. */
static inline uint64_t sws__vt_busy(const struct sws_vcpu *vc) { return vc->now - vc->idle; }

/* A sync point: CPUs earlier in virtual time run first. */
static inline void sws__vt_sync(struct sws_vcpu *vc)
{
	if (sws_unlikely(vc->now > *vc->horizon))
		vc->ops->yield(vc);
}

/* The LLC model: the miss ratio of random loads into @footprint bytes with
 * the table's last-level cache. */
void sws__vt_set_footprint(struct sws_vcpu *vc, uint64_t footprint);

/* Lock hooks for lib/common/spinlock.h (vtime.c): take @word's bit 0 in
 * virtual time, recording this CPU in the upper bits. */
bool sws__vt_lock(struct sws_vcpu *vc, atomic_uint *word, enum sws_lock_class cls, bool spin);
bool sws__vt_trylock(struct sws_vcpu *vc, atomic_uint *word);
void sws__vt_unlock(struct sws_vcpu *vc, atomic_uint *word);
/* A bit lock in a word with other bits (a folio's PG_locked). */
void sws__vt_bit_lock(struct sws_vcpu *vc, _Atomic uint32_t *word, uint32_t bit, enum sws_lock_class cls);

/* sws__vt_lock()'s common case inline, with the same effect: the lock is free,
 * this CPU held it last (no line to move) and is not past the horizon (no
 * other CPU to run first). Anything else takes the call. */
static inline bool sws__vt_lock_inline(struct sws_vcpu *vc, atomic_uint *word, enum sws_lock_class cls, bool spin)
{
	unsigned v = sws_load_relaxed(word);
	if (sws_likely(v == vc->lock_word && vc->now <= *vc->horizon)) {
		sws_store_relaxed(word, v | 1);
		atomic_thread_fence(memory_order_acquire);
		sws__vt_charge_nohw(vc, SWS_COST_lock, 1);
		return false;
	}
	return sws__vt_lock(vc, word, cls, spin);
}

/* sws__vt_unlock()'s common case inline: no other CPU to run first and none
 * waiting for a lock (one compare with *vc->limit). */
static inline void sws__vt_unlock_inline(struct sws_vcpu *vc, atomic_uint *word)
{
	if (sws_unlikely(vc->now >= *vc->limit)) {
		sws__vt_unlock(vc, word);
		return;
	}
	atomic_thread_fence(memory_order_release);
	sws_store_relaxed(word, sws_load_relaxed(word) & ~1u);
}

/* sws__vt_bit_lock()'s common case inline, with the same effect: the bit is
 * clear and this CPU is not past the horizon. Anything else takes the call
 * (the bit was set: the or changed nothing). */
static inline void sws__vt_bit_lock_inline(struct sws_vcpu *vc, _Atomic uint32_t *word, uint32_t bit,
					   enum sws_lock_class cls)
{
	if (sws_likely(vc->now <= *vc->horizon) &&
	    !(atomic_fetch_or_explicit(word, bit, memory_order_acquire) & bit)) {
		sws__vt_charge_nohw(vc, SWS_COST_atomic, 1);
		return;
	}
	sws__vt_bit_lock(vc, word, bit, cls);
}

/* The bit lock's trylock and unlock, whole. */
static inline bool sws__vt_bit_trylock(struct sws_vcpu *vc, _Atomic uint32_t *word, uint32_t bit)
{
	sws__vt_sync(vc);
	sws__vt_charge_nohw(vc, SWS_COST_atomic, 1);
	return !(atomic_fetch_or_explicit(word, bit, memory_order_acquire) & bit);
}

static inline void sws__vt_bit_unlock(struct sws_vcpu *vc, _Atomic uint32_t *word, uint32_t bit)
{
	sws__vt_sync(vc);
	atomic_fetch_and_explicit(word, ~bit, memory_order_release);
	if (*vc->nr_blocked)
		vc->ops->wake(vc, word);
}

#endif
