/*
 * xswap.c - extendable swap devices (see xswap.h and docs/xswap.md): the
 * per-cluster arrays, create, grow on allocation, the deferred shrink, the
 * limit and the device's figures. The sizing decisions are xswap_policy.c's;
 * this file carries them out.
 *
 * Grow (allocation path, RCU read lock held): under xs->lock, map the next
 * chunk of every per-cluster array, set the fresh clusters up, publish the
 * larger nr_clusters_mapped and slots_mapped, then file each new cluster on
 * the free list under its own lock (a reader may lock it once published).
 *
 * Shrink (deferred work or a limit write, sim->xswap_mutex held, no RCU read
 * lock): under xs->lock, isolate the free clusters at the tail (trylock all of
 * them or none, unlist, flag NONE) and publish the smaller bound; drop xs->lock and wait for
 * a grace period, so no reader that saw the old bound is left (the per-CPU
 * cached cluster needs no flush: the fast path checks offsets against
 * slots_mapped and finds an isolated cluster unusable); then under xs->lock
 * give back whatever lies beyond the bound as it is now (a grow in between
 * may have taken some of the range back).
 */
#include <string.h>

#include "../cache/cache_ops.h"
#include "xswap.h"
#include "xswap_policy.h"

/* ---- per-cluster arrays ----------------------------------------------------------- */

static void array_charge(struct sws_device *dev, struct sws_cluster_array *ca, size_t bytes)
{
	sws__mem_charge(&dev->sim->mem, ca->cls, (int64_t)bytes - (int64_t)ca->charged);
	ca->charged = bytes;
}

/* Map @ca as far as @nr clusters. */
static int array_map(struct sws_device *dev, struct sws_cluster_array *ca, uint32_t nr)
{
	int rc = sws__arena_grow(&ca->arena, ca->elem * nr);
	if (!rc)
		array_charge(dev, ca, sws__arena_mapped(&ca->arena));
	return rc;
}

/* Give back @ca beyond @nr clusters. */
static void array_unmap(struct sws_device *dev, struct sws_cluster_array *ca, uint32_t nr)
{
	sws__arena_shrink(&ca->arena, ca->elem * nr);
	array_charge(dev, ca, sws__arena_mapped(&ca->arena));
}

void *sws__cluster_array_create(struct sws_device *dev, struct sws_cluster_array *ca, size_t elem,
				enum sws_mem_class cls, size_t align)
{
	memset(ca, 0, sizeof(*ca));
	ca->elem = elem;
	ca->cls = cls;
	struct sws_xswap *xs = dev->xswap;
	if (!xs) {
		ca->mem = sws__mem_zalloc(&dev->sim->mem, cls, elem * dev->nr_clusters, align);
		ca->charged = ca->mem ? elem * dev->nr_clusters : 0;
		return ca->mem;
	}
	/* An arena is page aligned, which satisfies every @align we use. */
	if (xs->nr_arrays == SWS_XSWAP_MAX_ARRAYS || sws__arena_reserve(&ca->arena, elem * dev->nr_clusters))
		return NULL;
	if (array_map(dev, ca, sws__nr_clusters_mapped(dev))) {
		sws__arena_release(&ca->arena);
		return NULL;
	}
	xs->arrays[xs->nr_arrays++] = ca;
	return ca->arena.base;
}

void sws__cluster_array_destroy(struct sws_device *dev, struct sws_cluster_array *ca)
{
	if (ca->mem) {
		sws__mem_free(&dev->sim->mem, ca->cls, ca->mem, ca->charged);
	} else if (ca->arena.base) {
		array_charge(dev, ca, 0);
		sws__arena_release(&ca->arena);
		struct sws_xswap *xs = dev->xswap;
		for (unsigned i = 0; xs && i < xs->nr_arrays; i++) {
			if (xs->arrays[i] == ca) {
				xs->arrays[i] = xs->arrays[--xs->nr_arrays];
				break;
			}
		}
	}
	memset(ca, 0, sizeof(*ca));
}

/* ---- create and free -------------------------------------------------------------- */

static void publish_mapped(struct sws_device *dev, uint32_t clusters)
{
	uint64_t slots = (uint64_t)clusters * SWS_CLUSTER_SLOTS;
	if (slots > dev->max)
		slots = dev->max;
	atomic_store_explicit(&dev->nr_clusters_mapped, clusters, memory_order_release);
	atomic_store_explicit(&dev->slots_mapped, slots, memory_order_release);
}

int sws__xswap_setup(struct sws_device *dev, uint64_t ram_pages)
{
	struct sws_xswap *xs = sws__mem_zalloc(&dev->sim->mem, SWS_MEM_sim, sizeof(*xs), 0);
	if (!xs)
		return SWS_ENOMEM;
	pthread_mutex_init(&xs->lock, NULL);
	dev->xswap = xs;
	uint32_t limit = sws__xswap_initial_clusters(ram_pages);
	atomic_init(&xs->limit, limit);
	dev->pages = sws__xswap_pages(limit, dev->nr_clusters, 0);
	/* At creation only the first chunk is mapped. */
	publish_mapped(dev, sws__xswap_grow_step(0, limit));
	dev->cluster_info = sws__cluster_array_create(dev, &xs->ci, sizeof(struct sws_cluster),
						      SWS_MEM_cluster_info, 0);
	return dev->cluster_info ? 0 : SWS_ENOMEM;
}

void sws__xswap_free(struct sws_device *dev)
{
	struct sws_xswap *xs = dev->xswap;
	sws__cluster_array_destroy(dev, &xs->ci);
	dev->cluster_info = NULL;
	pthread_mutex_destroy(&xs->lock);
	sws__mem_free(&dev->sim->mem, SWS_MEM_sim, xs, sizeof(*xs));
	dev->xswap = NULL;
}

int sws__xswap_create(struct sws_sim *sim, int prio, uint64_t ram_pages, int *type)
{
	if (!sim || !type || prio < -1 || prio > 32767)
		return SWS_EINVAL;
	if (!SWS_CONFIG_XSWAP || !sim->ops->xswap)
		return SWS_EOPNOTSUPP; /* built without xswap, or a backend with static per-slot arrays */
	uint32_t max = sws__xswap_max_clusters(ram_pages);
	if (!max)
		return SWS_EINVAL; /* under one cluster of RAM */
	struct sws_device_config cfg = {
		.flags = SWS_SWP_SOLIDSTATE | SWS_SWP_XSWAP | (prio >= 0 ? SWS_SWAP_FLAG_PREFER : 0),
		.nr_slots = (uint64_t)max * SWS_CLUSTER_SLOTS,
		.prio = prio >= 0 ? prio : 0,
		.backing = SWS_BACKING_NONE,
	};
	int rc = sws__device_add(sim, &cfg, ram_pages, false, type);
	if (!rc)
		atomic_fetch_add(&sim->nr_xswap, 1);
	return rc;
}

/* ---- grow ------------------------------------------------------------------------- */

static uint32_t nr_free_clusters(struct sws_device *dev)
{
	sws_spin_lock(&dev->lock);
	uint32_t n = dev->nr_free;
	sws_spin_unlock(&dev->lock);
	return n;
}

int sws__xswap_grow(struct sws_cpu *cpu, struct sws_device *dev, unsigned nr)
{
	struct sws_xswap *xs = dev->xswap;
	int rc = 0;
	pthread_mutex_lock(&xs->lock);
	if (nr_free_clusters(dev))
		goto out; /* another CPU grew, or a cluster was freed: retry */
	uint64_t inuse = atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
	uint32_t mapped = sws__nr_clusters_mapped(dev);
	uint32_t step = sws__xswap_grow_step(mapped, atomic_load(&xs->limit));
	rc = SWS_ENOSPC;
	if (!step || inuse + nr > dev->pages)
		goto out;
	uint32_t to = mapped + step;
	rc = SWS_ENOMEM;
	if (xs->grow_fail_nth && --xs->grow_fail_nth == 0)
		goto fail;
	for (unsigned i = 0; i < xs->nr_arrays; i++)
		if (array_map(dev, xs->arrays[i], to))
			goto fail; /* what did map stays mapped beyond the bound: harmless */
	/* Fresh clusters (zero memory) are set up while nobody can see them.
	 * Clusters a shrink isolated and has not given back yet (it waits for a
	 * grace period, isolated_end) are set up already, and a reader that saw
	 * the old bound may hold one's lock: leave them as they are. */
	for (uint32_t c = mapped > xs->isolated_end ? mapped : xs->isolated_end; c < to; c++) {
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
		sws__cluster_move(cpu, dev, ci, &dev->free_clusters, SWS_CLUSTER_FREE);
		sws__cluster_unlock(ci);
	}
	atomic_fetch_add(&xs->grows, 1);
	sws__count(cpu, SWS_CTR_xswap_grow, 1);
	rc = 0;
	goto out;
fail:
	atomic_fetch_add(&xs->grow_fails, 1);
out:
	pthread_mutex_unlock(&xs->lock);
	return rc;
}

/* ---- shrink ----------------------------------------------------------------------- */

/* __ (xs->lock, dev->lock) Free clusters at the tail of the mapped range. */
static uint32_t free_tail(struct sws_device *dev, uint32_t mapped)
{
	uint32_t n = 0;
	for (uint32_t c = mapped - 1; c > 0; c--, n++)
		if (dev->cluster_info[c].flags != SWS_CLUSTER_FREE)
			break;
	return n;
}

/* __ (xs->lock, dev->lock) Lock @n free clusters below @mapped, all or none
 * (the kernel restores its victims on contention). @return true with them locked. */
static bool lock_victims(struct sws_device *dev, uint32_t mapped, uint32_t n)
{
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

/* sim->xswap_mutex held, no RCU read lock. @return clusters given back. */
static uint32_t xswap_shrink(struct sws_device *dev)
{
	struct sws_xswap *xs = dev->xswap;
	pthread_mutex_lock(&xs->lock);
	uint32_t mapped = sws__nr_clusters_mapped(dev);
	uint64_t inuse = atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
	sws_spin_lock(&dev->lock);
	uint32_t tail = free_tail(dev, mapped);
	uint32_t n = sws__xswap_shrink_count(mapped, atomic_load(&xs->limit), inuse, tail);
	if (n > tail)
		n = tail; /* a lowered limit: only free clusters can go */
	bool locked = n && lock_victims(dev, mapped, n);
	for (uint32_t i = 0; locked && i < n; i++) {
		struct sws_cluster *ci = &dev->cluster_info[mapped - 1 - i];
		sws__cluster_unlist(dev, ci); /* isolated: nobody allocates from it */
		sws_spin_unlock(&ci->lock);
	}
	sws_spin_unlock(&dev->lock);
	if (n && !locked)
		atomic_store(&xs->shrink_pending, true); /* try again next time */
	if (locked) {
		xs->isolated_end = mapped;
		publish_mapped(dev, mapped - n);
	}
	pthread_mutex_unlock(&xs->lock);
	if (!locked)
		return 0;

	/* Whoever saw the old bound is inside an RCU read section: wait them out. */
	sws_synchronize_rcu();

	pthread_mutex_lock(&xs->lock);
	uint32_t now = sws__nr_clusters_mapped(dev); /* >= mapped - n: a grow may have come */
	for (unsigned i = 0; i < xs->nr_arrays; i++)
		array_unmap(dev, xs->arrays[i], now);
	xs->isolated_end = 0;
	uint32_t gone = now < mapped ? mapped - now : 0;
	if (gone) {
		atomic_fetch_add(&xs->shrinks, 1);
		atomic_fetch_add(&xs->clusters_unmapped, gone);
		sws__count_sim(dev->sim, SWS_CTR_xswap_shrink, 1);
	}
	pthread_mutex_unlock(&xs->lock);
	return gone;
}

static void set_pages(struct sws_device *dev, uint64_t pages);

/*
 * An allocation that raced a lowering limit write may have left dev->pages
 * above what the limit gives (set_pages() covers the use it saw, which can
 * include an allocation that then backed out): bring it down when quiet.
 */
static void trim_pages(struct sws_device *dev)
{
	struct sws_xswap *xs = dev->xswap;
	pthread_mutex_lock(&xs->lock);
	uint64_t inuse = atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
	uint64_t want = sws__xswap_pages(atomic_load(&xs->limit), dev->nr_clusters, inuse);
	if (dev->enabled && dev->pages > want)
		set_pages(dev, want);
	pthread_mutex_unlock(&xs->lock);
}

unsigned sws__xswap_do_shrink_work(struct sws_sim *sim)
{
	if (!atomic_load_explicit(&sim->nr_xswap, memory_order_relaxed))
		return 0;
	unsigned pending = 0;
	pthread_mutex_lock(&sim->xswap_mutex);
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *dev = sws__device(sim, t); /* stable under xswap_mutex */
		if (!dev || !dev->xswap)
			continue;
		trim_pages(dev);
		if (atomic_exchange(&dev->xswap->shrink_pending, false))
			xswap_shrink(dev);
		pending += atomic_load(&dev->xswap->shrink_pending);
	}
	pthread_mutex_unlock(&sim->xswap_mutex);
	return pending;
}

/* ---- the control interface ---------------------------------------------------------- */

/* sim->xswap_mutex held: the xswap device @type, or NULL with *rc set. */
static struct sws_device *xswap_device(struct sws_sim *sim, int type, int *rc)
{
	struct sws_device *dev = type >= 0 ? sws__device(sim, (unsigned)type) : NULL;
	*rc = !dev ? SWS_ENODEV : !dev->xswap ? SWS_EINVAL : 0;
	return *rc ? NULL : dev;
}

int sws__xswap_fail_grow(struct sws_sim *sim, int type, uint64_t nth)
{
	int rc = SWS_EINVAL;
	if (!sim)
		return rc;
	pthread_mutex_lock(&sim->xswap_mutex);
	struct sws_device *dev = xswap_device(sim, type, &rc);
	if (dev) {
		pthread_mutex_lock(&dev->xswap->lock);
		dev->xswap->grow_fail_nth = nth;
		pthread_mutex_unlock(&dev->xswap->lock);
	}
	pthread_mutex_unlock(&sim->xswap_mutex);
	return rc;
}

int sws_xswap_limit_get(struct sws_sim *sim, int type, uint64_t *pages)
{
	int rc = SWS_EINVAL;
	if (!sim || !pages)
		return rc;
	pthread_mutex_lock(&sim->xswap_mutex);
	struct sws_device *dev = xswap_device(sim, type, &rc);
	if (dev) {
		uint64_t slots = (uint64_t)atomic_load(&dev->xswap->limit) * SWS_CLUSTER_SLOTS;
		*pages = slots < dev->max ? slots : dev->max;
	}
	pthread_mutex_unlock(&sim->xswap_mutex);
	return rc;
}

/*
 * Move dev->pages to @pages (xs->lock held), keeping the totals exact: raising,
 * total first then free; lowering, free first then total, so neither a
 * reader of free <= total nor free >= 0 sees a step the wrong way. An
 * allocation racing with a lowering can leave use above the new value: the
 * loop raises it back to cover that use.
 */
static void set_pages(struct sws_device *dev, uint64_t pages)
{
	struct sws_sim *sim = dev->sim;
	for (;;) {
		uint64_t old = dev->pages;
		if (pages > old) {
			atomic_fetch_add(&sim->total_swap_pages, (int64_t)(pages - old));
			dev->pages = pages;
			atomic_fetch_add(&sim->nr_swap_pages, (int64_t)(pages - old));
		} else if (pages < old) {
			atomic_fetch_sub(&sim->nr_swap_pages, (int64_t)(old - pages));
			dev->pages = pages;
			atomic_fetch_sub(&sim->total_swap_pages, (int64_t)(old - pages));
		}
		uint64_t inuse = atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
		if (inuse <= pages)
			break;
		pages = inuse;
	}
	uint64_t v = atomic_load(&dev->inuse_pages);
	if ((v & SWS_INUSE_OFFLIST) && (v & ~SWS_INUSE_OFFLIST) < dev->pages)
		sws__device_add_avail(NULL, dev); /* room again */
	else if (!(v & SWS_INUSE_OFFLIST) && v >= dev->pages)
		sws__device_del_avail(NULL, dev); /* full under the new limit */
}

int sws_xswap_limit_set(struct sws_sim *sim, int type, uint64_t pages)
{
	int rc = SWS_EINVAL;
	if (!sim)
		return rc;
	sws__rcu_thread_get();
	pthread_mutex_lock(&sim->xswap_mutex);
	struct sws_device *dev = xswap_device(sim, type, &rc);
	if (dev) {
		struct sws_xswap *xs = dev->xswap;
		pthread_mutex_lock(&xs->lock);
		uint64_t inuse = atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
		uint32_t limit = sws__xswap_limit_clusters(pages, inuse, dev->nr_clusters);
		atomic_store(&xs->limit, limit);
		if (dev->enabled)
			set_pages(dev, sws__xswap_pages(limit, dev->nr_clusters, inuse));
		pthread_mutex_unlock(&xs->lock);
		xswap_shrink(dev); /* after any limit write; a lowered one is enforced at once */
	}
	pthread_mutex_unlock(&sim->xswap_mutex);
	sws__rcu_thread_put();
	return rc;
}

int sws_xswap_info(struct sws_sim *sim, int type, struct sws_xswap_info *info)
{
	int rc = SWS_EINVAL;
	if (!sim || !info)
		return rc;
	pthread_mutex_lock(&sim->xswap_mutex);
	struct sws_device *dev = xswap_device(sim, type, &rc);
	if (dev) {
		struct sws_xswap *xs = dev->xswap;
		memset(info, 0, sizeof(*info));
		pthread_mutex_lock(&xs->lock);
		info->nr_clusters_max = dev->nr_clusters;
		info->nr_clusters_limit = atomic_load(&xs->limit);
		info->nr_clusters_mapped = sws__nr_clusters_mapped(dev);
		uint64_t slots = (uint64_t)info->nr_clusters_limit * SWS_CLUSTER_SLOTS;
		info->limit_pages = slots < dev->max ? slots : dev->max;
		info->max_slots = dev->max;
		info->pages = dev->pages;
		info->inuse_pages = atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
		for (unsigned i = 0; i < xs->nr_arrays; i++) {
			info->arena_reserved_bytes += xs->arrays[i]->arena.reserved;
			info->arena_mapped_bytes += sws__arena_mapped(&xs->arrays[i]->arena);
			info->arena_resident_bytes += sws__arena_resident(&xs->arrays[i]->arena);
		}
		info->grows = atomic_load(&xs->grows);
		info->grow_fails = atomic_load(&xs->grow_fails);
		info->shrinks = atomic_load(&xs->shrinks);
		info->clusters_unmapped = atomic_load(&xs->clusters_unmapped);
		pthread_mutex_unlock(&xs->lock);
	}
	pthread_mutex_unlock(&sim->xswap_mutex);
	return rc;
}
