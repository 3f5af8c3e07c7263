/*
 * v3.c - the "vswap-v3" design: virtual swap space as v3 of the series
 * posts it ("[PATCH v3 00/20] Virtual Swap Space", 2026-02-08; vswap.h),
 * the version whose free path the swap-table author measured. Two things
 * differ from "vswap" (v4's batched free, vswap.c), both on the free path:
 *
 *   per-entry free   vswap_free() frees the slots a put, a swap-cache delete
 *                    or an unpin leaves unused one at a time, and for each
 *                    drops the virtual cluster's lock, then
 *                      release_backing()       looks the cluster up again
 *                                              and locks it; a zswap entry
 *                                              is freed under it, a physical
 *                                              slot after unlocking
 *                                              (swap_slot_free_nr(): its own
 *                                              cluster's lock);
 *                      mem_cgroup_clear_swap() looks it up and locks it
 *                                              again (vswap_cgroup_record());
 *                      release_vswap_slot()    relocks it and gives the
 *                                              virtual slot back.
 *                    Per freed slot: 3 virtual cluster lock acquisitions and
 *                    2 map walks beyond the caller's, plus 1 physical one
 *                    when a device backed it; "vswap" frees a run under the
 *                    caller's lock, with 1 physical acquisition per run of
 *                    contiguous physical slots.
 *   zap batches      swap_pte_batch() steps with pte_next_swp_offset(),
 *                    which under v3 is swap_move(): it locks the cluster and
 *                    compares the two slots' backends. A zswap entry never
 *                    extends a batch, a physical slot only by the next
 *                    physical slot, a folio only by the same folio: a
 *                    zswap-backed range is put one entry at a time.
 *
 * The window the lock drop opens (a slot allocated, count 0, not cached) is
 * the kernel's too; the shared core's swap-cache add treats such a slot as
 * free, as swapcache_prepare() does, so zswap writeback and readahead leave
 * it alone. Simplified: v3's stores (vswap_store_folio(), zswap_entry_store(),
 * swap_zeromap_folio_set()) also released the old backend under a lock of
 * their own; here they release it under the one lock as "vswap" does.
 */
#include <assert.h>

#include "vswap.h"

/* release_backing() of one slot, no lock held: the cluster looked up and
 * locked again; a zswap entry freed under the lock, a physical slot after it. */
static void release_backing(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	assert(cl); /* the slot is still allocated: its cluster stays */
	struct swp_desc *d = desc_of(cl, off);
	sws_entry_t phys = 0;
	if (d->type == VSWAP_ZSWAP && d->zswap_entry) {
		sws___zswap_release(dev->sim, sws__offset_cluster(dev, off), d->zswap_entry);
		d->zswap_entry = NULL;
	} else if (d->type == VSWAP_SWAPFILE) {
		phys = d->slot;
		d->slot = 0;
	}
	desc_unlock(dev, off);
	if (phys)
		sws__vs_phys_free(cpu, dev->sim, phys, 1);
}

/* mem_cgroup_clear_swap() of one slot, no lock held: vswap_cgroup_record()
 * looks the cluster up and locks it to clear the descriptor's memcg id. */
static void mem_cgroup_clear_swap(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	assert(cl);
	sws__memcg_swap_mod(cpu, dev->sim, desc_of(cl, off)->memcgid, -1); /* mem_cgroup_uncharge_swap() */
	desc_of(cl, off)->memcgid = 0;
	desc_unlock(dev, off);
}

/* Virtual ci->lock held on entry and on return, dropped in between:
 * vswap_free() of slot @off, left with no count and not cached. */
static void __vswap_free(struct sws_cpu *cpu, struct sws_device *dev, struct vswap_cluster *cl,
			 uint64_t off)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	SWS_ASSERT_HELD(&ci->lock);
	desc_of(cl, off)->cache = 0; /* the shadow */
	sws__cluster_unlock(ci);
	release_backing(cpu, dev, off);
	mem_cgroup_clear_swap(cpu, dev, off);
	sws__cluster_lock(cpu, ci);
	/* release_vswap_slot(): nothing backs the slot any more */
	sws___vs_slots_free(cpu, dev, cl, off, 1);
}

/* Virtual ci->lock held: free every slot of the @nr from @off left with no
 * count and not cached, one at a time (v3's vswap_free()). A slot freed
 * keeps the cluster until the last one goes, so @cl stays valid. */
static void __free_unused(struct sws_cpu *cpu, struct sws_device *dev, struct vswap_cluster *cl,
			  uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	for (unsigned i = 0; i < nr; i++) {
		struct swp_desc *d = desc_of(cl, off + i);
		if (allocated(cl, off + i) && !d->swap_count && !d->in_swapcache)
			__vswap_free(cpu, dev, cl, off + i);
	}
}

/* swap_move(entry, 1) as pte_next_swp_offset() calls it: both descriptors
 * under their cluster's lock; the batch extends when the backends match. */
static bool zap_batch_extends(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	bool ok = false;
	if (cl && allocated(cl, off) && allocated(cl, off + 1)) {
		const struct swp_desc *a = desc_of(cl, off), *b = desc_of(cl, off + 1);
		ok = a->type == b->type && a->type != VSWAP_ZSWAP;
		if (ok && a->type == VSWAP_SWAPFILE)
			ok = a->slot && b->slot == a->slot + 1;
		else if (ok && a->type == VSWAP_FOLIO)
			ok = a->cache == b->cache;
	}
	if (cl)
		desc_unlock(dev, off);
	return ok;
}

const struct vswap_variant sws__vswap_v3 = {
	.ops = {VSWAP_OPS, .name = "vswap-v3", .zap_batch_extends = zap_batch_extends},
	.free_unused = __free_unused,
};
