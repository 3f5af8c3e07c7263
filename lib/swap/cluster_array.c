/*
 * cluster_array.c - per-cluster arrays and extendable devices.
 *
 * A per-cluster array (swap_internal.h) has one element per cluster of a
 * device: allocated whole on a regular device; on an extendable device placed
 * in a sparse arena (arena.h) reserved for every cluster the device could
 * ever have and mapped as far as the clusters it has, so a design or the
 * memory model indexes every such array the same way on every device.
 *
 * Extendable devices (the kernel's xswap, whose cluster_info lives in a
 * VM_SPARSE area; vswap's virtual device) grow and shrink by whole clusters.
 * Their owner supplies the policy (struct sws_ext_ops); the mechanism is here.
 *
 * Grow (allocation path, RCU read lock held): under ext->lock, map the next
 * clusters of every per-cluster array, set the fresh clusters up, publish the
 * larger nr_clusters_mapped and slots_mapped, then file each new cluster on
 * the free list under its own lock (a reader may lock it once published).
 *
 * Shrink (deferred work or a limit write, sim->ext_mutex held, no RCU read
 * lock): under ext->lock, isolate the free clusters at the tail (trylock all
 * of them or none, unlist, flag NONE) and publish the smaller bound; drop
 * ext->lock and wait for a grace period, so no reader that saw the old bound
 * is left (the per-CPU cached cluster needs no flush: the fast path checks
 * offsets against slots_mapped and finds an isolated cluster unusable); then
 * under ext->lock give back whatever lies beyond the bound as it is now (a
 * grow in between may have taken some of the range back).
 *
 * Locks (outer first): sim->ext_mutex (create, destroy, limit, shrink; never
 * taken inside an RCU read section, since the shrink waits for a grace period
 * under it), then ext->lock (taken inside RCU readers by the allocator, so
 * nothing waits for a grace period under it), then the device's own locks.
 */
#include <string.h>

#include "arena.h"
#include "swap_internal.h"

/* ---- per-cluster arrays ----------------------------------------------------------- */

static void array_charge(struct sws_device *dev, struct sws_cluster_array *ca, size_t bytes)
{
	sws__mem_charge(&dev->sim->mem, ca->cls, (int64_t)bytes - (int64_t)ca->charged);
	ca->charged = bytes;
}

/* Map @ca as far as @nr clusters. */
static int array_map(struct sws_device *dev, struct sws_cluster_array *ca, uint32_t nr)
{
	int rc = sws__arena_grow(ca->arena, ca->elem * nr);
	if (!rc)
		array_charge(dev, ca, sws__arena_mapped(ca->arena));
	return rc;
}

/* Give back @ca beyond @nr clusters. */
static void array_unmap(struct sws_device *dev, struct sws_cluster_array *ca, uint32_t nr)
{
	sws__arena_shrink(ca->arena, ca->elem * nr);
	array_charge(dev, ca, sws__arena_mapped(ca->arena));
}

void *sws__cluster_array_create(struct sws_device *dev, struct sws_cluster_array *ca, size_t elem,
				enum sws_mem_class cls, size_t align)
{
	struct sws_mem *mem = &dev->sim->mem;
	memset(ca, 0, sizeof(*ca));
	ca->elem = elem;
	ca->cls = cls;
	struct sws_ext *ext = dev->ext;
	if (!ext) {
		ca->base = sws__mem_zalloc(mem, cls, elem * dev->nr_clusters, align);
		ca->charged = ca->base ? elem * dev->nr_clusters : 0;
		return ca->base;
	}
	/* An arena is page aligned, which satisfies every @align we use. */
	if (ext->nr_arrays == SWS_EXT_MAX_ARRAYS)
		return NULL;
	ca->arena = sws__mem_zalloc(mem, SWS_MEM_sim, sizeof(*ca->arena), 0);
	if (!ca->arena)
		return NULL;
	if (sws__arena_reserve(ca->arena, elem * dev->nr_clusters))
		goto fail;
	if (array_map(dev, ca, sws__nr_clusters_mapped(dev))) {
		sws__arena_release(ca->arena);
		goto fail;
	}
	sws_mutex_lock(&ext->lock);
	ext->arrays[ext->nr_arrays++] = ca;
	sws_mutex_unlock(&ext->lock);
	return ca->base = ca->arena->base;
fail:
	sws__mem_free(mem, SWS_MEM_sim, ca->arena, sizeof(*ca->arena));
	ca->arena = NULL;
	return NULL;
}

void sws__cluster_array_destroy(struct sws_device *dev, struct sws_cluster_array *ca)
{
	struct sws_mem *mem = &dev->sim->mem;
	if (ca->arena) {
		struct sws_ext *ext = dev->ext;
		sws_mutex_lock(&ext->lock);
		for (unsigned i = 0; i < ext->nr_arrays; i++) {
			if (ext->arrays[i] == ca) {
				ext->arrays[i] = ext->arrays[--ext->nr_arrays];
				break;
			}
		}
		sws_mutex_unlock(&ext->lock);
		array_charge(dev, ca, 0);
		sws__arena_release(ca->arena);
		sws__mem_free(mem, SWS_MEM_sim, ca->arena, sizeof(*ca->arena));
	} else if (ca->base) {
		sws__mem_free(mem, ca->cls, ca->base, ca->charged);
	}
	memset(ca, 0, sizeof(*ca));
}

/* ---- extendable devices ------------------------------------------------------------- */

static void publish_mapped(struct sws_device *dev, uint32_t clusters)
{
	uint64_t slots = (uint64_t)clusters * SWS_CLUSTER_SLOTS;
	if (slots > dev->max)
		slots = dev->max;
	atomic_store_explicit(&dev->nr_clusters_mapped, clusters, memory_order_release);
	atomic_store_explicit(&dev->slots_mapped, slots, memory_order_release);
}

int sws__ext_init(struct sws_device *dev, const struct sws_ext_setup *setup)
{
	struct sws_ext *ext = sws__mem_zalloc(&dev->sim->mem, SWS_MEM_sim, sizeof(*ext), 0);
	if (!ext)
		return SWS_ENOMEM;
	pthread_mutex_init(&ext->lock, NULL);
	ext->ops = setup->ops;
	ext->data = setup->data;
	dev->ext = ext;
	dev->pages = setup->pages;
	uint32_t first = setup->clusters_mapped;
	publish_mapped(dev, first < dev->nr_clusters ? first : dev->nr_clusters);
	return 0;
}

void sws__ext_free(struct sws_device *dev)
{
	struct sws_ext *ext = dev->ext;
	if (!ext)
		return;
	pthread_mutex_destroy(&ext->lock);
	sws__mem_free(&dev->sim->mem, SWS_MEM_sim, ext, sizeof(*ext));
	dev->ext = NULL;
}

static uint32_t nr_free_clusters(struct sws_device *dev)
{
	sws_spin_lock(&dev->lock);
	uint32_t n = dev->nr_free;
	sws_spin_unlock(&dev->lock);
	return n;
}

int sws__ext_grow(struct sws_cpu *cpu, struct sws_device *dev, unsigned nr)
{
	struct sws_ext *ext = dev->ext;
	int rc = 0;
	sws_mutex_lock(&ext->lock);
	if (nr_free_clusters(dev))
		goto out; /* another CPU grew, or a cluster was freed: retry */
	uint32_t mapped = sws__nr_clusters_mapped(dev);
	uint32_t to = ext->ops->grow_to(dev, mapped, nr);
	if (to > dev->nr_clusters)
		to = dev->nr_clusters;
	rc = SWS_ENOSPC;
	if (to <= mapped)
		goto out;
	rc = SWS_ENOMEM;
	if (ext->grow_fail_nth && --ext->grow_fail_nth == 0)
		goto fail;
	for (unsigned i = 0; i < ext->nr_arrays; i++)
		if (array_map(dev, ext->arrays[i], to))
			goto fail; /* what did map stays mapped beyond the bound: harmless */
	/* Fresh clusters (zero memory) are set up while nobody can see them.
	 * Clusters a shrink isolated and has not given back yet (it waits for a
	 * grace period, isolated_end) are set up already, and a reader that saw
	 * the old bound may hold one's lock: leave them as they are. */
	for (uint32_t c = mapped > ext->isolated_end ? mapped : ext->isolated_end; c < to; c++) {
		struct sws_cluster *ci = &dev->cluster_info[c];
		sws_spin_init(&ci->lock);
		sws_list_init(&ci->list);
		ci->flags = SWS_CLUSTER_NONE;
	}
	/* Publish the bound before the clusters can be allocated from (an entry
	 * in them must pass every offset check); from here a reader may lock
	 * any of them, so each is filed under its lock. */
	publish_mapped(dev, to);
	for (uint32_t c = mapped; c < to; c++) {
		struct sws_cluster *ci = &dev->cluster_info[c];
		sws__cluster_lock(cpu, ci);
		sws___cluster_move(cpu, dev, ci, &dev->free_clusters, SWS_CLUSTER_FREE);
		sws__cluster_unlock(ci);
	}
	atomic_fetch_add(&ext->grows, 1);
	sws__count(cpu, SWS_CTR_ext_grow, 1);
	rc = 0;
	goto out;
fail:
	atomic_fetch_add(&ext->grow_fails, 1);
out:
	sws_mutex_unlock(&ext->lock);
	return rc;
}

/* ext->lock and dev->lock held: free clusters at the tail of the mapped range. */
static uint32_t __free_tail(struct sws_device *dev, uint32_t mapped)
{
	SWS_ASSERT_HELD(&dev->ext->lock);
	SWS_ASSERT_HELD(&dev->lock);
	uint32_t n = 0;
	for (uint32_t c = mapped - 1; c > 0; c--, n++)
		if (dev->cluster_info[c].flags != SWS_CLUSTER_FREE)
			break;
	return n;
}

/* ext->lock and dev->lock held: lock @n free clusters below @mapped, all or
 * none (the kernel restores its victims on contention). @return true with
 * them locked. */
static bool __lock_victims(struct sws_device *dev, uint32_t mapped, uint32_t n)
{
	SWS_ASSERT_HELD(&dev->ext->lock);
	SWS_ASSERT_HELD(&dev->lock);
	for (uint32_t i = 0; i < n; i++) {
		struct sws_cluster *ci = &dev->cluster_info[mapped - 1 - i];
		if (sws_spin_trylock(&ci->lock)) {
			if (ci->flags == SWS_CLUSTER_FREE)
				continue;
			sws_spin_unlock(&ci->lock);
		}
		while (i--) /* busy (an allocator has it) or taken meanwhile: undo */
			sws_spin_unlock(&dev->cluster_info[mapped - 1 - i].lock);
		return false;
	}
	return true;
}

uint32_t sws___ext_shrink(struct sws_device *dev)
{
	struct sws_ext *ext = dev->ext;
	SWS_ASSERT_HELD(&dev->sim->ext_mutex);
	sws_mutex_lock(&ext->lock);
	uint32_t mapped = sws__nr_clusters_mapped(dev);
	sws_spin_lock(&dev->lock);
	uint32_t tail = __free_tail(dev, mapped);
	uint32_t n = ext->ops->shrink_count(dev, mapped, tail);
	if (n > tail)
		n = tail; /* only free clusters can go */
	bool locked = n && __lock_victims(dev, mapped, n);
	for (uint32_t i = 0; locked && i < n; i++) {
		struct sws_cluster *ci = &dev->cluster_info[mapped - 1 - i];
		sws___cluster_unlist(dev, ci); /* isolated: nobody allocates from it */
		sws_spin_unlock(&ci->lock);
	}
	sws_spin_unlock(&dev->lock);
	if (n && !locked)
		atomic_store(&ext->shrink_pending, true); /* try again next time */
	if (locked) {
		ext->isolated_end = mapped;
		publish_mapped(dev, mapped - n);
	}
	sws_mutex_unlock(&ext->lock);
	if (!locked)
		return 0;

	/* Whoever saw the old bound is inside an RCU read section: wait them out. */
	sws_synchronize_rcu();

	sws_mutex_lock(&ext->lock);
	uint32_t now = sws__nr_clusters_mapped(dev); /* >= mapped - n: a grow may have come */
	for (unsigned i = 0; i < ext->nr_arrays; i++)
		array_unmap(dev, ext->arrays[i], now);
	ext->isolated_end = 0;
	uint32_t gone = now < mapped ? mapped - now : 0;
	if (gone) {
		atomic_fetch_add(&ext->shrinks, 1);
		atomic_fetch_add(&ext->clusters_unmapped, gone);
		sws__count_sim(dev->sim, SWS_CTR_ext_shrink, 1);
	}
	sws_mutex_unlock(&ext->lock);
	return gone;
}

void sws__ext_arena_bytes(struct sws_device *dev, uint64_t *reserved, uint64_t *mapped, uint64_t *resident)
{
	struct sws_ext *ext = dev->ext;
	*reserved = *mapped = *resident = 0;
	sws_mutex_lock(&ext->lock);
	for (unsigned i = 0; i < ext->nr_arrays; i++) {
		*reserved += ext->arrays[i]->arena->reserved;
		*mapped += sws__arena_mapped(ext->arrays[i]->arena);
		*resident += sws__arena_resident(ext->arrays[i]->arena);
	}
	sws_mutex_unlock(&ext->lock);
}
