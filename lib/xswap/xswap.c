/*
 * xswap.c - extendable swap devices (see xswap.h and docs/xswap.md): create,
 * destroy, the limit and the device's figures, and the policy the core's
 * extendable-device mechanism asks (grow, shrink, trim). The sizing rules are
 * xswap_policy.c's; the mapping is the core's (swap/cluster_array.c).
 */
#include <string.h>

#include "../swap/swap_internal.h"
#include "xswap.h"

static inline struct sws_xswap *xs_of(struct sws_device *dev) { return dev->ext->data; }

static uint64_t inuse_of(struct sws_device *dev)
{
	return atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
}

/* ---- the policy the core asks (struct sws_ext_ops) ------------------------------------ */

/* ext->lock held (sws__ext_grow()). */
static uint32_t xswap_grow_to(struct sws_device *dev, uint32_t mapped, unsigned nr)
{
	SWS_ASSERT_HELD(&dev->ext->lock);
	uint32_t step = sws__xswap_grow_step(mapped, atomic_load(&xs_of(dev)->limit));
	if (!step || inuse_of(dev) + nr > dev->pages)
		return 0;
	return mapped + step;
}

/* ext->lock held (sws___ext_shrink()). */
static uint32_t xswap_shrink_count(struct sws_device *dev, uint32_t mapped, uint32_t tail)
{
	SWS_ASSERT_HELD(&dev->ext->lock);
	return sws__xswap_shrink_count(mapped, atomic_load(&xs_of(dev)->limit), inuse_of(dev), tail);
}

/*
 * ext->lock held: move dev->pages to @pages, keeping the totals exact: raising,
 * total first then free; lowering, free first then total, so neither a
 * reader of free <= total nor free >= 0 sees a step the wrong way. An
 * allocation racing with a lowering can leave use above the new value: the
 * loop raises it back to cover that use.
 */
static void __set_pages(struct sws_device *dev, uint64_t pages)
{
	SWS_ASSERT_HELD(&dev->ext->lock);
	struct sws_sim *sim = dev->sim;
	for (;;) {
		uint64_t old = dev->pages;
		if (pages > old) {
			atomic_fetch_add(&sim->h.total_swap_pages, (int64_t)(pages - old));
			dev->pages = pages;
			atomic_fetch_add(&sim->h.nr_swap_pages, (int64_t)(pages - old));
		} else if (pages < old) {
			atomic_fetch_sub(&sim->h.nr_swap_pages, (int64_t)(old - pages));
			dev->pages = pages;
			atomic_fetch_sub(&sim->h.total_swap_pages, (int64_t)(old - pages));
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

/*
 * sim->ext_mutex held (the deferred work): an allocation that raced a
 * lowering limit write may have left dev->pages above what the limit gives
 * (__set_pages() covers the use it saw, which can include an allocation that
 * then backed out): bring it down when quiet.
 */
static void xswap_trim_pages(struct sws_device *dev)
{
	SWS_ASSERT_HELD(&dev->sim->ext_mutex);
	sws_mutex_lock(&dev->ext->lock);
	uint64_t want = sws__xswap_pages(atomic_load(&xs_of(dev)->limit), dev->nr_clusters, inuse_of(dev));
	if (dev->enabled && dev->pages > want)
		__set_pages(dev, want);
	sws_mutex_unlock(&dev->ext->lock);
}

static void xswap_teardown(struct sws_device *dev)
{
	sws__mem_free(&dev->sim->mem, SWS_MEM_sim, xs_of(dev), sizeof(struct sws_xswap));
}

static const struct sws_ext_ops xswap_ext_ops = {
	.grow_to = xswap_grow_to,
	.shrink_count = xswap_shrink_count,
	.work = xswap_trim_pages,
	.teardown = xswap_teardown,
};

/* ---- create and destroy --------------------------------------------------------------- */

int sws__xswap_create(struct sws_sim *sim, int prio, uint64_t ram_pages, int *type)
{
	if (!sim || !type || prio < -1 || prio > 32767)
		return SWS_EINVAL;
	SWS_ASSERT_HELD(&sim->ext_mutex);
	if (!SWS_CONFIG_XSWAP || !(sim->h.design_flags & SWS_DESIGN_EXT_DEVICES))
		return SWS_EOPNOTSUPP; /* built without xswap, or a design with static per-slot arrays */
	uint32_t max = sws__xswap_max_clusters(ram_pages);
	if (!max)
		return SWS_EINVAL; /* under one cluster of RAM */
	struct sws_xswap *xs = sws__mem_zalloc(&sim->mem, SWS_MEM_sim, sizeof(*xs), 0);
	if (!xs)
		return SWS_ENOMEM;
	uint32_t limit = sws__xswap_initial_clusters(ram_pages);
	atomic_init(&xs->limit, limit);
	struct sws_device_config cfg = {
		.flags = SWS_SWP_SOLIDSTATE | SWS_SWP_XSWAP | (prio >= 0 ? SWS_SWAP_FLAG_PREFER : 0),
		.nr_slots = (uint64_t)max * SWS_CLUSTER_SLOTS,
		.prio = prio >= 0 ? prio : 0,
		.backing = SWS_BACKING_NONE,
	};
	struct sws_ext_setup ext = {
		.ops = &xswap_ext_ops,
		.data = xs,
		.pages = sws__xswap_pages(limit, max, 0),
		.clusters_mapped = sws__xswap_grow_step(0, limit), /* at creation one chunk is mapped */
		.cluster_info_class = SWS_MEM_cluster_info,
	};
	int rc = sws__device_add(sim, &cfg, &ext, false, type);
	if (rc) /* a device that never was leaves its data to its creator */
		sws__mem_free(&sim->mem, SWS_MEM_sim, xs, sizeof(*xs));
	return rc;
}

int sws__xswap_destroy(struct sws_sim *sim, int type)
{
	SWS_ASSERT_HELD(&sim->ext_mutex);
	struct sws_device *dev = type >= 0 && type < SWS_MAX_SWAPFILES ? sws__device(sim, (unsigned)type) : NULL;
	if (!dev)
		return SWS_ENODEV;
	if (!(dev->h.flags & SWS_SWP_XSWAP))
		return SWS_EINVAL;
	return sws___device_remove(sim, type, false); /* SWS_EBUSY: pages in use */
}

/* ---- the control interface ---------------------------------------------------------- */

/* sim->ext_mutex held: the xswap device @type, or NULL with *rc set. */
static struct sws_device *__xswap_device(struct sws_sim *sim, int type, int *rc)
{
	SWS_ASSERT_HELD(&sim->ext_mutex);
	struct sws_device *dev = type >= 0 && type < SWS_MAX_SWAPFILES ? sws__device(sim, (unsigned)type) : NULL;
	*rc = !dev ? SWS_ENODEV : !(dev->h.flags & SWS_SWP_XSWAP) ? SWS_EINVAL : 0;
	return *rc ? NULL : dev;
}

int sws__xswap_fail_grow(struct sws_sim *sim, int type, uint64_t nth)
{
	int rc = SWS_EINVAL;
	if (!sim)
		return rc;
	sws_mutex_lock(&sim->ext_mutex);
	struct sws_device *dev = __xswap_device(sim, type, &rc);
	if (dev) {
		sws_mutex_lock(&dev->ext->lock);
		dev->ext->grow_fail_nth = nth;
		sws_mutex_unlock(&dev->ext->lock);
	}
	sws_mutex_unlock(&sim->ext_mutex);
	return rc;
}

int sws_xswap_limit_get(struct sws_sim *sim, int type, uint64_t *pages)
{
	int rc = SWS_EINVAL;
	if (!sim || !pages)
		return rc;
	sws_mutex_lock(&sim->ext_mutex);
	struct sws_device *dev = __xswap_device(sim, type, &rc);
	if (dev) {
		uint64_t slots = (uint64_t)atomic_load(&xs_of(dev)->limit) * SWS_CLUSTER_SLOTS;
		*pages = slots < dev->max ? slots : dev->max;
	}
	sws_mutex_unlock(&sim->ext_mutex);
	return rc;
}

int sws_xswap_limit_set(struct sws_sim *sim, int type, uint64_t pages)
{
	int rc = SWS_EINVAL;
	if (!sim)
		return rc;
	sws__rcu_thread_get();
	sws_mutex_lock(&sim->ext_mutex);
	struct sws_device *dev = __xswap_device(sim, type, &rc);
	if (dev) {
		sws_mutex_lock(&dev->ext->lock);
		uint64_t inuse = inuse_of(dev);
		uint32_t limit = sws__xswap_limit_clusters(pages, inuse, dev->nr_clusters);
		atomic_store(&xs_of(dev)->limit, limit);
		if (dev->enabled)
			__set_pages(dev, sws__xswap_pages(limit, dev->nr_clusters, inuse));
		sws_mutex_unlock(&dev->ext->lock);
		sws___ext_shrink(
		    dev); /* after any limit write; a lowered one is enforced at once */
	}
	sws_mutex_unlock(&sim->ext_mutex);
	sws__rcu_thread_put();
	return rc;
}

int sws_xswap_info_get(struct sws_sim *sim, int type, struct sws_xswap_info *info)
{
	int rc = SWS_EINVAL;
	if (!sim || !info)
		return rc;
	sws_mutex_lock(&sim->ext_mutex);
	struct sws_device *dev = __xswap_device(sim, type, &rc);
	if (dev) {
		struct sws_ext *ext = dev->ext;
		memset(info, 0, sizeof(*info));
		sws__ext_arena_bytes(dev, &info->arena_reserved_bytes, &info->arena_mapped_bytes,
				     &info->arena_resident_bytes);
		sws_mutex_lock(&ext->lock);
		info->nr_clusters_max = dev->nr_clusters;
		info->nr_clusters_limit = atomic_load(&xs_of(dev)->limit);
		info->nr_clusters_mapped = sws__nr_clusters_mapped(dev);
		uint64_t slots = (uint64_t)info->nr_clusters_limit * SWS_CLUSTER_SLOTS;
		info->limit_pages = slots < dev->max ? slots : dev->max;
		info->max_slots = dev->max;
		info->pages = dev->pages;
		info->inuse_pages = inuse_of(dev);
		info->grows = atomic_load(&ext->grows);
		info->grow_fails = atomic_load(&ext->grow_fails);
		info->shrinks = atomic_load(&ext->shrinks);
		info->clusters_unmapped = atomic_load(&ext->clusters_unmapped);
		sws_mutex_unlock(&ext->lock);
	}
	sws_mutex_unlock(&sim->ext_mutex);
	return rc;
}

/* The obsolete name (swapsim/xswap.h), for callers built against it. */
int sws_xswap_info(struct sws_sim *sim, int type, struct sws_xswap_info *info)
{
	return sws_xswap_info_get(sim, type, info);
}
