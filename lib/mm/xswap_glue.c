/*
 * xswap_glue.c - the memory model's half of xswap devices (swapsim/xswap.h):
 * creating one needs zswap on this memory model and the model's per-device
 * state (slot content seeds, zswap trees, I/O latency) before the device may
 * take a page; destroying one gives that state back. Both run under
 * sim->xswap_mutex, so they exclude each other, limit writes and the shrink.
 */
#include "../swap/xswap.h"
#include "../zswap/zswap_internal.h"
#include "mm_internal.h"

void sws__mm_seeds_release(struct sws_mm *mm, unsigned type)
{
	struct sws_mem *mem = &mm->sim->mem;
	struct sws_arena *a = &mm->seed_arena[type];
	if (a->base) {
		sws__mem_charge(mem, SWS_MEM_mm, -(int64_t)sws__arena_mapped(a));
		sws__arena_release(a);
	} else {
		sws__mem_free(mem, SWS_MEM_mm, mm->slot_seed[type], sizeof(uint64_t) * mm->slot_seed_len[type]);
	}
	mm->slot_seed[type] = NULL;
	mm->slot_seed_len[type] = 0;
}

/* An xswap device's seeds: 8 B for every slot of the reservation, in a sparse
 * arena mapped whole at once, so a page of it costs memory only once a slot
 * in it was swapped out (simulator bookkeeping: the kernel has no such array). */
static int seeds_for_xswap(struct sws_mm *mm, unsigned type, uint64_t max)
{
	sws__mm_seeds_release(mm, type); /* an earlier device of this type */
	struct sws_arena *a = &mm->seed_arena[type];
	size_t bytes = sizeof(uint64_t) * max;
	if (sws__arena_reserve(a, bytes))
		return SWS_ENOMEM;
	if (sws__arena_grow(a, bytes)) {
		sws__arena_release(a);
		return SWS_ENOMEM;
	}
	sws__mem_charge(&mm->sim->mem, SWS_MEM_mm, (int64_t)sws__arena_mapped(a));
	mm->slot_seed[type] = (_Atomic uint64_t *)(void *)a->base;
	mm->slot_seed_len[type] = max;
	return 0;
}

int sws_mm_xswap_create(struct sws_mm *mm, int prio, int *type)
{
	if (!mm || !type)
		return SWS_EINVAL;
	if (!mm->zswap)
		return SWS_EOPNOTSUPP; /* xswap pages live in zswap */
	struct sws_sim *sim = mm->sim;
	int t;
	pthread_mutex_lock(&sim->xswap_mutex);
	int rc = sws__xswap_create(sim, prio, mm->cfg.ram_pages, &t);
	if (rc)
		goto out;
	/* The device exists but takes no page until enabled: set up our side. */
	struct sws_device *dev = sws__device(sim, (unsigned)t);
	rc = seeds_for_xswap(mm, (unsigned)t, dev->max);
	if (!rc)
		rc = sws__zswap_swapon(mm->zswap, (unsigned)t, dev->max);
	if (rc) {
		sws__device_remove_locked(sim, t, true);
		sws__zswap_swapoff(mm->zswap, (unsigned)t);
		sws__mm_seeds_release(mm, (unsigned)t);
		goto out;
	}
	sws__mm_default_latency(mm, (unsigned)t, dev);
	sws__device_enable(dev);
	*type = t;
out:
	pthread_mutex_unlock(&sim->xswap_mutex);
	return rc;
}

int sws_mm_xswap_destroy(struct sws_mm *mm, int type)
{
	if (!mm)
		return SWS_EINVAL;
	if (type < 0 || type >= SWS_MAX_SWAPFILES)
		return SWS_ENODEV;
	struct sws_sim *sim = mm->sim;
	pthread_mutex_lock(&sim->xswap_mutex);
	struct sws_device *dev = sws__device(sim, (unsigned)type);
	int rc = !dev ? SWS_ENODEV : !dev->xswap ? SWS_EINVAL : 0;
	if (!rc)
		rc = sws__device_remove_locked(sim, type, false); /* SWS_EBUSY: pages in use */
	if (!rc) {
		if (mm->zswap)
			sws__zswap_swapoff(mm->zswap, (unsigned)type);
		sws__mm_seeds_release(mm, (unsigned)type);
	}
	pthread_mutex_unlock(&sim->xswap_mutex);
	return rc;
}
