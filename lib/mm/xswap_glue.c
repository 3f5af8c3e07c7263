/*
 * xswap_glue.c - the memory model's half of xswap devices (swapsim/xswap.h):
 * creating one needs zswap on this memory model and the model's per-device
 * state (slot content seeds, zswap trees, I/O latency) before the device may
 * take a page; destroying one gives that state back.
 */
#include "../swap/xswap.h"
#include "../zswap/zswap_internal.h"
#include "mm_internal.h"

/* The slot seeds of device @type: a new array of @max slots (or none). */
static int seeds_reset(struct sws_mm *mm, unsigned type, uint64_t max)
{
	struct sws_mem *mem = &mm->sim->mem;
	sws__mem_free(mem, SWS_MEM_mm, mm->slot_seed[type], sizeof(uint64_t) * mm->slot_seed_len[type]);
	mm->slot_seed[type] = NULL;
	mm->slot_seed_len[type] = 0;
	if (!max)
		return 0;
	mm->slot_seed[type] = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(uint64_t) * max, 64);
	if (!mm->slot_seed[type])
		return SWS_ENOMEM;
	mm->slot_seed_len[type] = max;
	return 0;
}

int sws_mm_xswap_create(struct sws_mm *mm, int prio, int *type)
{
	if (!mm || !type)
		return SWS_EINVAL;
	if (!mm->zswap)
		return SWS_EOPNOTSUPP; /* xswap pages live in zswap */
	int t;
	int rc = sws__xswap_create(mm->sim, prio, mm->cfg.ram_pages, &t);
	if (rc)
		return rc;
	/* The device exists but takes no page until enabled: set up our side. */
	struct sws_device *dev = sws__device(mm->sim, (unsigned)t);
	rc = seeds_reset(mm, (unsigned)t, dev->max);
	if (!rc)
		rc = sws__zswap_swapon(mm->zswap, (unsigned)t, dev->max);
	if (rc) {
		sws__device_remove(mm->sim, t, true);
		sws__zswap_swapoff(mm->zswap, (unsigned)t);
		seeds_reset(mm, (unsigned)t, 0);
		return rc;
	}
	sws__mm_default_latency(mm, (unsigned)t, dev);
	sws__device_enable(dev);
	*type = t;
	return 0;
}

int sws_mm_xswap_destroy(struct sws_mm *mm, int type)
{
	if (!mm)
		return SWS_EINVAL;
	uint64_t limit;
	int rc = sws_xswap_limit_get(mm->sim, type, &limit); /* ENODEV, or EINVAL: not xswap */
	if (rc)
		return rc;
	rc = sws__device_remove(mm->sim, type, false);
	if (rc)
		return rc; /* SWS_EBUSY: pages in use; the device stays */
	if (mm->zswap)
		sws__zswap_swapoff(mm->zswap, (unsigned)type);
	return seeds_reset(mm, (unsigned)type, 0);
}
