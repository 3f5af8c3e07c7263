/*
 * virtual_device.h - the virtual device of the vswap designs (vswap/core.c's
 * virtual space, swap_table/vswap.c's ghost device): a device of the core,
 * SWS_SWP_VIRTUAL, as large as the core allows, extendable by the design's
 * @ops from @chunk clusters mapped, made with the simulation (sim_init).
 * Its cluster_info is charged as vswap_cluster: a virtual cluster's lock,
 * count, order and list are part of the series' dynamic cluster struct.
 */
#ifndef SWS_DESIGN_VIRTUAL_DEVICE_H
#define SWS_DESIGN_VIRTUAL_DEVICE_H

#include "../swap/design.h"

static inline int sws__virtual_device_add(struct sws_sim *sim, const struct sws_ext_ops *ops, uint32_t chunk)
{
	struct sws_device_config cfg = {
		.flags = SWS_SWP_SOLIDSTATE | SWS_SWP_VIRTUAL,
		.nr_slots = SWS_DEVICE_MAX_SLOTS,
		.backing = SWS_BACKING_NONE,
	};
	struct sws_ext_setup ext = {
		.ops = ops,
		.pages = SWS_DEVICE_MAX_SLOTS - 1,
		.clusters_mapped = chunk,
		.cluster_info_class = SWS_MEM_vswap_cluster,
	};
	int type;
	return sws__device_add(sim, &cfg, &ext, true, &type);
}

/*
 * io_slot()'s decision once the virtual slots were looked at under their
 * lock (and the lock dropped): @rc their check, @run the physical run behind
 * them (0: none, ~0: mixed). A run answers (*phys); a read with none gets
 * SWS_ENOENT; a write with none allocates a physical run for @nr virtual
 * slots from @off (vswap_alloc_swap_slot(), folio_realloc_swap()) into *p.
 * @return 0 (answered), 1 (*p allocated: the caller installs it under the
 * lock, after checking again), or the error.
 */
static inline int sws__virtual_io_alloc(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
					bool write, int rc, sws_entry_t run, sws_entry_t *phys, sws_entry_t *p)
{
	if (rc)
		return rc;
	if (run == ~0ull)
		return SWS_EBUSY;
	if (run) {
		*phys = run;
		return 0;
	}
	if (!write)
		return SWS_ENOENT;
	if ((nr & (nr - 1)) || off % nr)
		return SWS_EINVAL; /* a folio's run: a power of two, aligned */
	unsigned order = 0;
	while ((1u << order) < nr)
		order++;
	bool fast;
	rc = sws__swap_alloc(cpu, SWS_SPACE_PHYS, order, sws_swp_entry((unsigned)dev->type, off), SWS_SWAP_TIERS_ALL,
			     p, &fast);
	return rc ? rc : 1;
}

#endif
