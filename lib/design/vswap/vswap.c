/*
 * vswap.c - the "vswap" design: virtual swap space as v4 and v5 of the
 * series post it, with v4's batched free (vswap.h; v3's per-entry free is
 * v3.c): the slots a put, a swap-cache delete or an unpin leaves unused are
 * freed run by run, one batch per run, under the caller's cluster lock.
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
};
