/*
 * swap_mm.c - the queries and hooks swap_mm.h offers the memory model: the
 * core's structs read here, so lib/mm never reads them.
 */
#include "design.h"
#include "swap_internal.h"

struct sws_mem *sws__sim_mem(struct sws_sim *sim) { return &sim->mem; }
unsigned sws__sim_max_cpus(const struct sws_sim *sim) { return sim->max_cpus; }
bool sws__sim_memcg_off(const struct sws_sim *sim) { return sim->memcg_off; }
uint64_t sws__sim_clock_ns(const struct sws_sim *sim) { return sws__clock_ns(sim); }

enum sws_work_ctx sws__cpu_work_enter(struct sws_cpu *cpu, enum sws_work_ctx ctx)
{
	return sws__work_enter(cpu, ctx);
}

unsigned sws__device_type(const struct sws_device *dev) { return (unsigned)dev->type; }
uint64_t sws__device_max(const struct sws_device *dev) { return dev->max; }
uint64_t sws__device_inuse_pages(const struct sws_device *dev)
{
	return atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
}
uint32_t sws__device_clusters_mapped(const struct sws_device *dev) { return sws__nr_clusters_mapped(dev); }
bool sws__device_backed(const struct sws_device *dev) { return dev->backing.kind != SWS_BACKING_NONE; }
sws_spinlock_t *sws__device_cluster_lockptr(struct sws_device *dev, uint32_t idx)
{
	return &dev->cluster_info[idx].lock;
}

int sws__sim_hook_devices(struct sws_sim *sim, const struct sws_device_hooks *h, void *ctx)
{
	int rc = 0;
	sws_spin_lock(&sim->swap_lock);
	if (sim->device_added)
		rc = SWS_EBUSY;
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES && !rc; t++) {
		struct sws_device *d = sws__device(sim, t);
		if (d)
			rc = h->added(ctx, d);
	}
	if (!rc) {
		sim->device_ctx = ctx;
		sim->device_added = h->added;
		sim->device_removed = h->removed;
		sim->cluster_freed = h->cluster_freed;
	}
	sws_spin_unlock(&sim->swap_lock);
	return rc;
}

void sws__sim_unhook_devices(struct sws_sim *sim, void *ctx, void (*each)(void *ctx, struct sws_device *dev))
{
	sws_spin_lock(&sim->swap_lock);
	if (sim->device_ctx == ctx) {
		sim->device_added = NULL;
		sim->device_removed = NULL;
		sim->cluster_freed = NULL;
		sim->device_ctx = NULL;
	}
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *d = sws__device(sim, t);
		if (d)
			each(ctx, d);
	}
	sws_spin_unlock(&sim->swap_lock);
}

void sws__sim_hook_slot_free(struct sws_sim *sim, void *ctx,
			     void (*notify)(void *ctx, unsigned type, uint64_t off, unsigned nr),
			     void (*release)(void *ctx, void *entry))
{
	sws_spin_lock(&sim->swap_lock);
	if (notify || release) /* the context before the hooks that take it */
		sim->slot_free_ctx = ctx;
	sim->slot_free_notify = notify;
	sim->zswap_release = release;
	if (!notify && !release)
		sim->slot_free_ctx = NULL;
	sws_spin_unlock(&sim->swap_lock);
}

void sws__sim_ext_lock(struct sws_sim *sim) { sws_mutex_lock(&sim->ext_mutex); }
void sws__sim_ext_unlock(struct sws_sim *sim) { sws_mutex_unlock(&sim->ext_mutex); }
