/*
 * vtime.c - locks in virtual time, and the LLC model (vtime.h).
 *
 * A lock taken under the modelled clock is a sync point on the way in and on
 * the way out: when CPU A takes lock L at virtual time t, every CPU earlier
 * than t has already taken and released what it would, and none later has,
 * so L's state is its state at t. A lock held by a CPU that is suspended
 * (later in virtual time, at one of its own sync points) stays held: a CPU
 * that wants it waits, spinning or asleep, until the holder releases it and
 * wakes the earliest waiter at the release time.
 *
 * The lock word's bit 0 is the lock; the upper bits hold the id + 1 of the
 * CPU that held it last, so taking a lock another CPU held last costs a cache
 * line transfer on top of the lock itself.
 */
#include "vtime.h"

_Thread_local struct sws_vcpu *sws__vt_current;

bool sws__vt_lock(struct sws_vcpu *vc, atomic_uint *word, enum sws_lock_class cls, bool spin)
{
	sws__vt_sync(vc);
	uint64_t t0 = vc->now, idle0 = vc->idle;
	bool waited = false;
	while (sws_load_relaxed(word) & 1) {
		vc->ops->block(vc, word, spin);
		waited = true;
	}
	unsigned last = sws_load_relaxed(word) >> 1;
	sws_store_relaxed(word, 1u | (vc->id + 1) << 1);
	atomic_thread_fence(memory_order_acquire);
	if (waited) {
		uint64_t w = vc->now - t0;
		vc->lock_wait[cls] += w;
		vc->lock_waits[cls]++;
		if (spin) { /* spinning is work: the CPU was busy all along */
			vc->idle = idle0; /* its wait was not idle */
			vc->spin += w;
		}
	}
	sws__vt_charge_nohw(vc, SWS_COST_lock, 1);
	if (last && last != vc->id + 1) {
		sws__vt_charge_nohw(vc, SWS_COST_line_transfer, 1);
		vc->line_transfers++;
	}
	return waited;
}

bool sws__vt_trylock(struct sws_vcpu *vc, atomic_uint *word)
{
	sws__vt_sync(vc);
	unsigned v = sws_load_relaxed(word);
	if (v & 1)
		return false;
	sws_store_relaxed(word, 1u | (vc->id + 1) << 1);
	atomic_thread_fence(memory_order_acquire);
	sws__vt_charge_nohw(vc, SWS_COST_lock, 1);
	if ((v >> 1) && (v >> 1) != vc->id + 1) {
		sws__vt_charge_nohw(vc, SWS_COST_line_transfer, 1);
		vc->line_transfers++;
	}
	return true;
}

void sws__vt_unlock(struct sws_vcpu *vc, atomic_uint *word)
{
	sws__vt_sync(vc);
	atomic_thread_fence(memory_order_release);
	sws_store_relaxed(word, sws_load_relaxed(word) & ~1u);
	if (*vc->nr_blocked)
		vc->ops->wake(vc, word);
}

void sws__vt_bit_lock(struct sws_vcpu *vc, _Atomic uint32_t *word, uint32_t bit, enum sws_lock_class cls)
{
	sws__vt_sync(vc);
	uint64_t t0 = vc->now;
	bool waited = false;
	while (atomic_fetch_or_explicit(word, bit, memory_order_acquire) & bit) {
		vc->ops->block(vc, word, false);
		waited = true;
	}
	if (waited) {
		vc->lock_wait[cls] += vc->now - t0;
		vc->lock_waits[cls]++;
	}
	sws__vt_charge_nohw(vc, SWS_COST_atomic, 1);
}

void sws__vt_set_footprint(struct sws_vcpu *vc, uint64_t footprint)
{
	uint64_t llc = vc->costs->llc_bytes;
	vc->llc_miss_ppm = footprint > llc ? 1000000 - llc * 1000000 / footprint : 0;
	const uint64_t *ps = vc->costs->ps;
	vc->miss_ps = (ps[SWS_COST_load_miss] - ps[SWS_COST_load_hit]) * vc->llc_miss_ppm / 1000000;
}
