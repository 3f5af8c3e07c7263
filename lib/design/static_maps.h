/*
 * static_maps.h - the per-slot arrays allocated whole at swapon by the
 * designs before phase IV: swap_cgroup (mm/swap_cgroup.c: two 16-bit memcg
 * ids packed in one atomic_t, recorded with cmpxchg and no lock since ~6.14)
 * and the zeromap (one bit per slot, set and cleared with atomic bit
 * operations, tested with none: swap_read_folio()'s bit test).
 *
 * Both are lock-free: every update is one atomic read-modify-write (counted
 * as such in the work report), readers use plain atomic loads.
 */
#ifndef SWS_DESIGN_STATIC_MAPS_H
#define SWS_DESIGN_STATIC_MAPS_H

#include "../swap/swap_internal.h"

struct swap_cgroup {
	_Atomic uint32_t *ids; /* [max / 2]: slot 2k in the low half, 2k + 1 in the high */
	uint64_t words;
};

struct zeromap {
	_Atomic uint64_t *bits; /* [max / 64] */
	uint64_t words;
};

/* ---- static_maps.c: allocation at swapon (@return 0 or SWS_ENOMEM), free at swapoff ---- */

int sws__swap_cgroup_init(struct swap_cgroup *sc, struct sws_mem *mem, uint64_t max, bool memcg_off);
void sws__swap_cgroup_fini(struct swap_cgroup *sc, struct sws_mem *mem);
int sws__zeromap_init(struct zeromap *z, struct sws_mem *mem, uint64_t max);
void sws__zeromap_fini(struct zeromap *z, struct sws_mem *mem);

static inline uint16_t swap_cgroup_get(const struct swap_cgroup *sc, uint64_t off)
{
	if (!sc->ids)
		return 0; /* memcg off */
	uint32_t w = atomic_load_explicit(&sc->ids[off / 2], memory_order_relaxed);
	return (uint16_t)(off & 1 ? w >> 16 : w);
}

/* swap_cgroup_record(): one compare-and-exchange loop per slot. @return the
 * id it held. */
static inline uint16_t swap_cgroup_set(struct sws_cpu *cpu, struct swap_cgroup *sc, uint64_t off, uint16_t id)
{
	if (!sc->ids)
		return 0; /* memcg off: swap_cgroup_record() returns at once */
	_Atomic uint32_t *p = &sc->ids[off / 2];
	unsigned shift = off & 1 ? 16 : 0;
	uint32_t old = atomic_load_explicit(p, memory_order_relaxed), want;
	do
		want = (old & ~(0xffffu << shift)) | ((uint32_t)id << shift);
	while (!atomic_compare_exchange_weak_explicit(p, &old, want, memory_order_relaxed,
						      memory_order_relaxed));
	sws__work_maybe(cpu, SWS_WORK_atomic_rmw, 1);
	return (uint16_t)(old >> shift);
}

static inline bool zeromap_test(const struct zeromap *z, uint64_t off)
{
	return (atomic_load_explicit(&z->bits[off / 64], memory_order_relaxed) >> (off % 64)) & 1;
}

static inline void zeromap_set(struct sws_cpu *cpu, struct zeromap *z, uint64_t off, bool on)
{
	uint64_t bit = 1ull << (off % 64);
	if (on)
		atomic_fetch_or_explicit(&z->bits[off / 64], bit, memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&z->bits[off / 64], ~bit, memory_order_relaxed);
	sws__work_maybe(cpu, SWS_WORK_atomic_rmw, 1);
}

#endif
