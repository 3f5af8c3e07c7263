/*
 * vswap.c - the "vswap" design: virtual swap space as v6 of the series
 * posts it ("[PATCH v6 00/22] Virtual Swap Space", 2026-05-05; vswap.h;
 * v3's per-entry free is v3.c):
 *   batched free    (since v4) the slots a put, a swap-cache delete or an
 *                   unpin leaves unused are freed run by run, one batch per
 *                   run, under the caller's cluster lock; the physical
 *                   slots behind a run in contiguous runs, one physical
 *                   cluster lock each; the memcg's swap uncharged entry by
 *                   entry;
 *   lookup cache    (v6, patch 22 "vswap: cache cluster lookup") each CPU
 *                   caches the cluster it looked up last: a call in the same
 *                   cluster skips the cluster map's XArray walk, a call in
 *                   another walks it and drops the cached cluster under that
 *                   cluster's lock first (core.c, cluster_lock()).
 * Simplified: v6's other changes (operations combined to save round trips,
 * the reverse map's cache-only bit, the descriptor array apart from the
 * cluster header) are not modelled; its cache is cleared on every CPU when
 * the cached cluster empties (the kernel's other CPUs keep a reference
 * until their next miss).
 */
#include "vswap.h"

/* Virtual ci->lock held: free every slot of the @nr from @off left with no
 * count and not cached, run by run (vswap_free_nr(): one batch per run,
 * since v4). */
static void __free_unused(struct sws_cpu *cpu, struct sws_device *dev, struct vswap_cluster *cl,
			  uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	unsigned run = 0;
	for (unsigned i = 0; i <= nr; i++) {
		struct swp_desc *d = i < nr ? desc_of(cl, off + i) : NULL;
		if (d && !d->swap_count && !d->in_swapcache && allocated(cl, off + i)) {
			run++;
			continue;
		}
		if (run)
			sws___vs_slots_free(cpu, dev, cl, off + i - run, run);
		run = 0;
	}
}

const struct vswap_variant sws__vswap = {
	.ops = {VSWAP_OPS, .name = "vswap"},
	.free_unused = __free_unused,
	.lookup_cache = true,
};
