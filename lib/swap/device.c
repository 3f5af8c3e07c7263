/*
 * device.c - swap devices: swapon/swapoff, the cluster lists and their state
 * machine, the list of devices with free slots, usage accounting and discard.
 *
 * Cluster lists (the kernel's mm/swapfile.c, 6.15+). A cluster is on at most one list and
 * its flag names the list:
 *
 *            alloc scan leaves it partial            free makes it partial
 *   free ──────────────────────────────▶ frag[o] ◀──┐    ┌──────▶ nonfull[o]
 *    ▲                                     │  alloc fills it │          │
 *    │ last slot freed                      ▼               │          │
 *    └──(discard list when PAGE_DISCARD)── full ───────────┘◀─────────┘
 *
 * While an allocator scans a cluster it takes it off its list (flag NONE,
 * "isolated") holding ci->lock; relocate_cluster() files it again afterwards.
 * Kernel version modelled: 6.15+ list shape (unchanged through phase IV), with
 * 6.19's round robin among devices of equal priority.
 */
#include <string.h>

#include "design.h"
#include "swap_internal.h"

/* ---- cluster lists ----------------------------------------------------------- */

static uint32_t *list_counter(struct sws_device *dev, enum sws_cluster_flag flag, unsigned order)
{
	switch (flag) {
	case SWS_CLUSTER_FREE:
		return &dev->nr_free;
	case SWS_CLUSTER_NONFULL:
		return &dev->nr_nonfull[order];
	case SWS_CLUSTER_FRAG:
		return &dev->nr_frag[order];
	case SWS_CLUSTER_FULL:
		return &dev->nr_full;
	case SWS_CLUSTER_DISCARD:
		return &dev->nr_discard;
	default:
		return NULL;
	}
}

void sws___cluster_unlist(struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&dev->lock);
	SWS_ASSERT_HELD(&ci->lock);
	uint32_t *n = list_counter(dev, ci->flags, ci->order);
	if (n) {
		(*n)--;
		sws_list_del_init(&ci->list);
	}
	ci->flags = SWS_CLUSTER_NONE;
}

void sws___cluster_move(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			struct sws_list *list, enum sws_cluster_flag flag)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (cpu)
		sws__dev_lock(cpu, dev);
	else if (sws_spin_lock(&dev->lock))
		sws__count_sim(dev->sim, SWS_CTR_lock_device_contended, 1);
	sws___cluster_unlist(dev, ci);
	sws_list_add_tail(&ci->list, list);
	ci->flags = (uint8_t)flag;
	(*list_counter(dev, flag, ci->order))++;
	sws_spin_unlock(&dev->lock);
}

/* ci->lock held: the kernel's __free_cluster(): the per-cluster tables go
 * (through RCU), then the cluster joins the free list. */
static void __free_cluster_now(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (dev->sim->ops->cluster_put)
		dev->sim->ops->cluster_put(cpu, dev, ci);
	sws___cluster_move(cpu, dev, ci, &dev->free_clusters, SWS_CLUSTER_FREE);
	ci->order = 0; /* after the move, which unlisted by order */
}

/* ci->lock held: the kernel's free_cluster(): an empty cluster is freed, or,
 * on a writable SWP_PAGE_DISCARD device, waits on the discard list with its
 * tables until swap_do_scheduled_discard() has discarded it
 * (sws__device_do_discard()). */
static void __free_cluster(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (dev->backing.chunks) /* no slot of it holds data any more */
		sws__backing_discard(dev, sws__cluster_idx(dev, ci));
	if (dev->sim->cluster_freed) /* nor simulator state */
		dev->sim->cluster_freed(dev->sim->device_ctx, dev, sws__cluster_idx(dev, ci));
	if ((dev->h.flags & SWS_SWP_PAGE_DISCARD) && atomic_load_explicit(&dev->writeok, memory_order_relaxed))
		sws___cluster_move(cpu, dev, ci, &dev->discard_clusters, SWS_CLUSTER_DISCARD);
	else
		__free_cluster_now(cpu, dev, ci);
	if (sws_unlikely(sws__is_ext(dev)))
		sws__ext_cluster_freed(dev); /* the deferred shrink looks at the free tail later */
}

void sws___relocate_cluster(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (ci->flags == SWS_CLUSTER_DISCARD)
		return;
	if (!ci->count) {
		if (ci->flags != SWS_CLUSTER_FREE)
			__free_cluster(cpu, dev, ci);
	} else if (ci->count != SWS_CLUSTER_SLOTS) {
		if (ci->flags != SWS_CLUSTER_FRAG)
			sws___cluster_move(cpu, dev, ci, &dev->frag_clusters[ci->order],
					   SWS_CLUSTER_FRAG);
	} else if (ci->flags != SWS_CLUSTER_FULL) {
		sws___cluster_move(cpu, dev, ci, &dev->full_clusters, SWS_CLUSTER_FULL);
	}
}

/* ---- usage accounting ---------------------------------------------------------- */

bool sws__swap_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, unsigned nr)
{
	uint64_t inuse = atomic_fetch_add(&dev->inuse_pages, nr) + nr;
	sws__work(cpu, SWS_WORK_atomic_rmw, 1);
	/* Rare: the device is now full (or marked off the avail list). Without
	 * xswap support, "full" is the exact count (no limit can be lowered). */
	if (sws_unlikely(SWS_CONFIG_XSWAP ? inuse >= dev->pages : inuse == dev->pages)) {
		uint64_t pages = dev->pages;
		if ((inuse & ~SWS_INUSE_OFFLIST) > pages) {
			/* Only an xswap device whose limit went below its mapped space
			 * can get here: the limit holds, the allocation fails. */
			atomic_fetch_sub(&dev->inuse_pages, nr);
			return false;
		}
		if ((inuse & ~SWS_INUSE_OFFLIST) == pages)
			sws__device_del_avail(cpu, dev);
	}
	if (sws_likely(sws__in_totals(dev))) {
		atomic_fetch_sub_explicit(&dev->sim->h.nr_swap_pages, nr, memory_order_relaxed);
		sws__work(cpu, SWS_WORK_atomic_rmw, 1);
	}
	return true;
}

void sws___swap_range_free(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			   uint64_t off, unsigned nr)
{
	(void)off;
	SWS_ASSERT_HELD(&ci->lock);
	ci->count -= nr;
	uint64_t inuse = atomic_fetch_sub(&dev->inuse_pages, nr) - nr;
	sws__work_maybe(cpu, SWS_WORK_atomic_rmw, 1);
	if (sws_likely(sws__in_totals(dev))) {
		atomic_fetch_add_explicit(&dev->sim->h.nr_swap_pages, nr, memory_order_relaxed);
		sws__work_maybe(cpu, SWS_WORK_atomic_rmw, 1);
	}
	if (inuse & SWS_INUSE_OFFLIST)
		sws__device_add_avail(cpu, dev);
	/* swap_free_slots counts entries: under vswap, virtual slots (the
	 * physical ones count as vswap_phys_free) */
	enum sws_counter c = dev->space == SWS_SPACE_ENTRY ? SWS_CTR_swap_free_slots : SWS_CTR_vswap_phys_free;
	if (cpu)
		sws__count(cpu, c, nr);
	else
		sws__count_sim(dev->sim, c, nr);
	if (!ci->count)
		__free_cluster(cpu, dev, ci);
	else if (ci->flags != SWS_CLUSTER_NONFULL) /* partial_free_cluster() */
		sws___cluster_move(cpu, dev, ci, &dev->nonfull_clusters[ci->order],
				   SWS_CLUSTER_NONFULL);
}

/* ---- the avail list: devices with free slots, by priority ------------------------ */

/* sim->avail_lock held: put @dev on its space's avail list. */
static void __avail_insert(struct sws_sim *sim, struct sws_device *dev)
{
	SWS_ASSERT_HELD(&sim->avail_lock);
	struct sws_list *pos;
	/* After every device of higher or equal priority: round robin among equals. */
	struct sws_list *head = &sim->avail_head[dev->space];
	sws_list_for_each(pos, head)
	{
		struct sws_device *d = sws_list_entry(pos, struct sws_device, avail_node);
		if (d->prio < dev->prio)
			break;
	}
	sws_list_add_tail(&dev->avail_node, pos);
	dev->on_avail = true;
}

/* The avail list's lock, counted on @cpu (may be NULL). */
static void avail_lock(struct sws_cpu *cpu, struct sws_sim *sim)
{
	sws__lock_counted(cpu, &sim->avail_lock, SWS_WORK_lock_avail, SWS_CTR_lock_device_contended);
}

void sws__device_add_avail(struct sws_cpu *cpu, struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	avail_lock(cpu, sim);
	/* Back on the list only if there is room now: an allocation on another
	 * CPU's cached cluster may have filled the device again since the free. */
	uint64_t v = atomic_load(&dev->inuse_pages);
	bool cleared = false;
	while ((v & SWS_INUSE_OFFLIST) && (v & ~SWS_INUSE_OFFLIST) < dev->pages && !cleared)
		cleared = atomic_compare_exchange_weak(&dev->inuse_pages, &v, v & ~SWS_INUSE_OFFLIST);
	if (cleared && !dev->on_avail && atomic_load(&dev->writeok))
		__avail_insert(sim, dev);
	sws_spin_unlock(&sim->avail_lock);
}

void sws__device_del_avail(struct sws_cpu *cpu, struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	avail_lock(cpu, sim);
	/* Only a device still full goes off the list; a racing free wins. "Full"
	 * is >=: an xswap device whose limit was lowered to its use is full. */
	uint64_t v = atomic_load(&dev->inuse_pages);
	bool marked = false;
	while (!(v & SWS_INUSE_OFFLIST) && v >= dev->pages && !marked)
		marked = atomic_compare_exchange_weak(&dev->inuse_pages, &v, v | SWS_INUSE_OFFLIST);
	if (marked && dev->on_avail) {
		sws_list_del_init(&dev->avail_node);
		dev->on_avail = false;
	}
	sws_spin_unlock(&sim->avail_lock);
}

/* SWP_WRITEOK off and off the avail list: no new slots (swapoff, failing writes). */
void sws__device_stop_writes(struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	atomic_store(&dev->writeok, false);
	sws_spin_lock(&sim->avail_lock);
	if (dev->on_avail) {
		sws_list_del_init(&dev->avail_node);
		dev->on_avail = false;
	}
	sws_spin_unlock(&sim->avail_lock);
}

void sws__device_resume_writes(struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	atomic_store(&dev->writeok, dev->enabled && !atomic_load(&dev->backing.write_failed));
	sws_spin_lock(&sim->avail_lock);
	if (!(atomic_load(&dev->inuse_pages) & SWS_INUSE_OFFLIST) && !dev->on_avail && atomic_load(&dev->writeok))
		__avail_insert(sim, dev);
	sws_spin_unlock(&sim->avail_lock);
}

void sws__device_swapoff_begin(struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	sws__device_stop_writes(dev);
	sws_spin_lock(&sim->swap_lock);
	if (dev->enabled && sws__in_totals(dev) && !dev->leaving) {
		int64_t pages = (int64_t)atomic_load(&dev->pages);
		atomic_fetch_sub(&sim->h.nr_swap_pages, pages);
		atomic_fetch_sub(&sim->h.total_swap_pages, pages);
		dev->leaving = true;
	}
	sws_spin_unlock(&sim->swap_lock);
}

void sws__device_swapoff_cancel(struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	sws_spin_lock(&sim->swap_lock);
	if (dev->leaving) {
		int64_t pages = (int64_t)atomic_load(&dev->pages);
		atomic_fetch_add(&sim->h.nr_swap_pages, pages);
		atomic_fetch_add(&sim->h.total_swap_pages, pages);
		dev->leaving = false;
	}
	sws_spin_unlock(&sim->swap_lock);
	sws__device_resume_writes(dev);
}

/* ---- discard --------------------------------------------------------------------- */

unsigned sws__device_do_discard(struct sws_device *dev, unsigned budget)
{
	while (budget--) {
		sws_spin_lock(&dev->lock);
		if (sws_list_empty(&dev->discard_clusters)) {
			sws_spin_unlock(&dev->lock);
			return 0;
		}
		struct sws_cluster *ci =
			sws_list_entry(dev->discard_clusters.next, struct sws_cluster, list);
		/* Off the list, but the flag stays DISCARD (it is only written under
		 * ci->lock): nobody allocates from it or frees into it meanwhile. */
		sws_list_del_init(&ci->list);
		dev->nr_discard--;
		sws_spin_unlock(&dev->lock);

		sws__backing_discard(dev, sws__cluster_idx(dev, ci));
		sws__count_sim(dev->sim, SWS_CTR_swap_discard, 1);

		sws__cluster_lock(NULL, ci);
		ci->flags = SWS_CLUSTER_NONE; /* already off every list */
		__free_cluster_now(NULL, dev, ci);
		sws__cluster_unlock(ci);
	}
	sws_spin_lock(&dev->lock);
	unsigned left = dev->nr_discard;
	sws_spin_unlock(&dev->lock);
	return left;
}

/* The owners' deferred work and the shrink of every extendable device.
 * @return devices whose shrink must be tried again (a victim was busy). */
static unsigned ext_deferred_work(struct sws_sim *sim)
{
	unsigned pending = 0;
	sws_mutex_lock(&sim->ext_mutex);
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *dev = sws__device(sim, t); /* stable under ext_mutex */
		if (!dev || !dev->ext)
			continue;
		if (dev->ext->ops->work)
			dev->ext->ops->work(dev);
		if (atomic_exchange(&dev->ext->shrink_pending, false))
			sws___ext_shrink(dev);
		pending += atomic_load(&dev->ext->shrink_pending);
	}
	sws_mutex_unlock(&sim->ext_mutex);
	return pending;
}

unsigned sws_swap_do_deferred_work(struct sws_sim *sim, unsigned budget)
{
	unsigned left = 0;
	if (!sim)
		return 0;
	sws__rcu_thread_get();
	sws_rcu_read_lock();
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *dev = sws__device(sim, t);
		if (!dev)
			continue;
		/* The budget is shared by all devices. */
		sws_spin_lock(&dev->lock);
		unsigned pending = dev->nr_discard;
		sws_spin_unlock(&dev->lock);
		unsigned now = pending < budget ? pending : budget;
		budget -= now;
		left += now ? sws__device_do_discard(dev, now) : pending;
	}
	sws_rcu_read_unlock();
	/* Extendable devices' shrink waits for a grace period: outside the read lock. */
	if (atomic_load_explicit(&sim->nr_ext, memory_order_relaxed))
		left += ext_deferred_work(sim);
	sws__rcu_thread_put();
	return left;
}

/* ---- swapon / swapoff ------------------------------------------------------------- */

static int check_config(const struct sws_device_config *cfg, bool ext)
{
	const uint32_t known = SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO | SWS_SWP_PAGE_DISCARD |
			       SWS_SWAP_FLAG_PREFER | (ext ? SWS_SWP_XSWAP | SWS_SWP_VIRTUAL : 0);
	if (!cfg)
		return SWS_EINVAL;
	if (cfg->version > SWS_DEVICE_CONFIG_VERSION)
		return SWS_EVERSION;
	if (cfg->nr_slots < 2 || cfg->nr_slots > SWS_DEVICE_MAX_SLOTS || (cfg->flags & ~known))
		return SWS_EINVAL;
	if ((cfg->flags & SWS_SWAP_FLAG_PREFER) && (cfg->prio < 0 || cfg->prio > 32767))
		return SWS_EINVAL;
	if (cfg->backing > SWS_BACKING_FILE || (cfg->backing == SWS_BACKING_FILE && !cfg->path))
		return SWS_EINVAL;
	if (cfg->tier >= SWS_SWAP_NR_TIERS ||
	    (cfg->backing_flags & ~(SWS_BACKING_REUSE | SWS_BACKING_FOLLOW | SWS_BACKING_UNLINK)))
		return SWS_EINVAL;
	return 0;
}

static void device_free(struct sws_sim *sim, struct sws_device *dev)
{
	sws__cluster_array_destroy(dev, &dev->cluster_array);
	sws__ext_free(dev);
	sws__mem_free(&sim->mem, SWS_MEM_sim, dev, sizeof(*dev));
}

/* setup_clusters(): mark the header and the tail bad, file the clusters
 * with metadata (xswap: the first chunk; its grows file their own). */
static void setup_clusters(struct sws_device *dev)
{
	uint64_t span = (uint64_t)dev->nr_clusters * SWS_CLUSTER_SLOTS;
	uint32_t end = sws__nr_clusters_mapped(dev);
	dev->cluster_info[0].count = 1; /* the header slot */
	if (end == dev->nr_clusters)
		dev->cluster_info[dev->nr_clusters - 1].count += (uint16_t)(span - dev->max);
	for (uint32_t i = 0; i < end; i++) {
		struct sws_cluster *ci = &dev->cluster_info[i];
		sws_spin_init(&ci->lock);
		sws_list_init(&ci->list);
		ci->flags = SWS_CLUSTER_NONE;
		sws_spin_lock(&ci->lock); /* uncontended: the device is not published yet */
		if (!ci->count)
			; /* filed below */
		else if (ci->count == SWS_CLUSTER_SLOTS)
			sws___cluster_move(NULL, dev, ci, &dev->full_clusters, SWS_CLUSTER_FULL);
		else
			sws___cluster_move(NULL, dev, ci, &dev->nonfull_clusters[0],
					   SWS_CLUSTER_NONFULL);
		sws_spin_unlock(&ci->lock);
	}
	/* The free list in index order, or 6.17's columns: 0, 32, 64, ..., 1, 33, ... */
	bool cols = dev->sim->h.design_flags & SWS_DESIGN_CLUSTER_COLS;
	uint32_t ncols = cols ? SWS_CLUSTER_COLS : 1;
	for (uint32_t k = 0; k < ncols; k++)
		for (uint32_t i = k; i < end; i += ncols) {
			struct sws_cluster *ci = &dev->cluster_info[i];
			if (ci->count)
				continue;
			sws_spin_lock(&ci->lock);
			sws___cluster_move(NULL, dev, ci, &dev->free_clusters, SWS_CLUSTER_FREE);
			sws_spin_unlock(&ci->lock);
		}
}

/*
 * Build a device of type @type_out, published in the device table; @enable:
 * also make it usable (writeok, totals, avail list), else sws__device_enable()
 * does that later. An extendable device (@ext: xswap, vswap's virtual
 * device) reserves cfg->nr_slots and starts with what @ext says. The memory
 * model (sim->device_added) sets up its side before the device is published.
 */
int sws__device_add(struct sws_sim *sim, const struct sws_device_config *cfg, const struct sws_ext_setup *ext,
		    bool enable, int *type_out)
{
	if (!sim || !type_out)
		return SWS_EINVAL;
	int rc = check_config(cfg, ext != NULL);
	if (rc) {
		sws__sim_set_error(sim, "swapon: %s (size, flags, priority, backing or tier field)",
				   sws_strerror(rc));
		return rc;
	}

	sws_spin_lock(&sim->swap_lock);
	if (cfg->tier && !sim->tier_name[cfg->tier][0]) {
		sws_spin_unlock(&sim->swap_lock);
		sws__sim_set_error(sim, "swapon: tier %u was not added (sws_swap_tier_add)", cfg->tier);
		return SWS_EINVAL;
	}
	int type = -1;
	for (int t = 0; t < SWS_MAX_SWAPFILES; t++) {
		if (!sws__device(sim, (unsigned)t)) {
			type = t;
			break;
		}
	}
	rc = SWS_ETOOMANY;
	if (type < 0) {
		sws__sim_set_error(sim, "swapon: already %d devices (MAX_SWAPFILES)", SWS_MAX_SWAPFILES);
		goto out_unlock;
	}

	rc = SWS_ENOMEM;
	struct sws_device *dev = sws__mem_zalloc(&sim->mem, SWS_MEM_sim, sizeof(*dev), SWS_CACHELINE);
	if (!dev)
		goto out_unlock;
	dev->sim = sim;
	dev->type = type;
	dev->gen = ++sim->next_gen;
	dev->h.flags = cfg->flags & ~SWS_SWAP_FLAG_PREFER;
	/* vswap's virtual device is in every tier: tiers choose physical devices. */
	dev->h.tier_mask = cfg->flags & SWS_SWP_VIRTUAL ? SWS_SWAP_TIERS_ALL : 1u << cfg->tier;
	/* 6.19+: every device swapped on without a priority gets -1: round robin. */
	dev->prio = (cfg->flags & SWS_SWAP_FLAG_PREFER) ? cfg->prio : -1;
	dev->max = cfg->nr_slots;
	dev->pages = cfg->nr_slots - 1;
	dev->slots_mapped = dev->max;
	dev->nr_clusters = (uint32_t)SWS_DIV_ROUND_UP(dev->max, SWS_CLUSTER_SLOTS);
	dev->nr_clusters_mapped = dev->nr_clusters;
	dev->backing.fd = -1;
	/* Entries come from the entry space; under a virtual design (vswap) the
	 * devices one swaps on hold physical slots only (alloc.c). */
	dev->space = (sim->h.design_flags & SWS_DESIGN_VIRTUAL) && !(cfg->flags & SWS_SWP_VIRTUAL) ? SWS_SPACE_PHYS
												  : SWS_SPACE_ENTRY;
	sws_spin_init(&dev->lock);
	sws_spin_init(&dev->global_cluster_lock);
	sws_list_init(&dev->free_clusters);
	sws_list_init(&dev->full_clusters);
	sws_list_init(&dev->discard_clusters);
	sws_list_init(&dev->avail_node);
	for (int o = 0; o < SWS_NR_ORDERS; o++) {
		sws_list_init(&dev->nonfull_clusters[o]);
		sws_list_init(&dev->frag_clusters[o]);
	}
	rc = ext ? sws__ext_init(dev, ext) : 0; /* before any per-cluster array */
	if (!rc) {
		dev->cluster_info = sws__cluster_array_create(dev, &dev->cluster_array, sizeof(*dev->cluster_info),
							      ext ? ext->cluster_info_class : SWS_MEM_cluster_info, 0);
		rc = dev->cluster_info ? 0 : SWS_ENOMEM;
	}
	if (rc) {
		device_free(sim, dev);
		goto out_unlock;
	}
	setup_clusters(dev);
	rc = sim->ops->device_init(dev);
	if (rc) {
		device_free(sim, dev);
		goto out_unlock;
	}
	rc = sws__backing_open(sim, dev, cfg);
	if (!rc && sim->device_added && (rc = sim->device_added(sim->device_ctx, dev)) != 0)
		sws__backing_close(dev);
	if (rc) {
		sim->ops->device_fini(dev);
		device_free(sim, dev);
		goto out_unlock;
	}
	if (ext)
		atomic_fetch_add(&sim->nr_ext, 1);
	else
		atomic_fetch_add(&sim->nr_real_swapfiles, 1);
	atomic_store_explicit(&sim->h.devices[type], dev, memory_order_release);
	if (enable)
		sws__device_enable(dev);
	*type_out = type;
	rc = 0;
out_unlock:
	sws_spin_unlock(&sim->swap_lock);
	return rc;
}

void sws__device_enable(struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	dev->enabled = true;
	atomic_store(&dev->writeok, true);
	if (sws__in_totals(dev)) {
		atomic_fetch_add(&sim->h.total_swap_pages, (int64_t)dev->pages);
		atomic_fetch_add(&sim->h.nr_swap_pages, (int64_t)dev->pages);
	}
	sws_spin_lock(&sim->avail_lock);
	__avail_insert(sim, dev);
	sws_spin_unlock(&sim->avail_lock);
}

int sws_swapon(struct sws_sim *sim, const struct sws_device_config *cfg, int *type_out)
{
	return sws__device_add(sim, cfg, NULL, true, type_out);
}

/* Tear a device down; no call may be using it any more. */
static void device_destroy(struct sws_sim *sim, struct sws_device *dev, bool enabled)
{
	int64_t inuse = (int64_t)(atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST);
	if (enabled && sws__in_totals(dev) && dev->leaving) {
		atomic_fetch_add(&sim->h.nr_swap_pages, inuse); /* left with all its pages */
	} else if (enabled && sws__in_totals(dev)) {
		atomic_fetch_sub(&sim->h.nr_swap_pages, (int64_t)dev->pages - inuse);
		atomic_fetch_sub(&sim->h.total_swap_pages, (int64_t)dev->pages);
	}
	if (!dev->ext)
		atomic_fetch_sub(&sim->nr_real_swapfiles, 1);
	else
		atomic_fetch_sub(&sim->nr_ext, 1);
	if (sim->device_removed)
		sim->device_removed(sim->device_ctx, dev);
	sim->ops->device_fini(dev);
	sws__backing_close(dev);
	if (dev->ext && dev->ext->ops->teardown) /* its owner's data */
		dev->ext->ops->teardown(dev);
	device_free(sim, dev);
}

int sws__device_remove(struct sws_sim *sim, int type, bool force)
{
	if (!sim || type < 0 || type >= SWS_MAX_SWAPFILES)
		return SWS_ENODEV;
	sws_mutex_lock(&sim->ext_mutex); /* no xswap shrink works on it meanwhile */
	int rc = sws___device_remove(sim, type, force);
	sws_mutex_unlock(&sim->ext_mutex);
	return rc;
}

int sws___device_remove(struct sws_sim *sim, int type, bool force)
{
	if (!sim || type < 0 || type >= SWS_MAX_SWAPFILES)
		return SWS_ENODEV;
	SWS_ASSERT_HELD(&sim->ext_mutex);
	sws_spin_lock(&sim->swap_lock);
	struct sws_device *dev = sws__device(sim, (unsigned)type);
	if (!dev) {
		sws_spin_unlock(&sim->swap_lock);
		return SWS_ENODEV;
	}
	/* Stop new allocations, then wait for calls in flight (they hold RCU). */
	sws__device_stop_writes(dev);
	sws_synchronize_rcu();
	if (!force && (atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST)) {
		sws__device_resume_writes(dev);
		sws_spin_unlock(&sim->swap_lock);
		return SWS_EBUSY;
	}
	atomic_store_explicit(&sim->h.devices[type], NULL, memory_order_release);
	sws_synchronize_rcu();
	if (sim->ops->flags & SWS_DESIGN_RCU_BARRIER) /* RCU callbacks that use this device have run */
		sws_rcu_barrier();
	device_destroy(sim, dev, dev->enabled);
	sws_spin_unlock(&sim->swap_lock);
	return 0;
}

int sws_swapoff(struct sws_sim *sim, int type)
{
	if (!sim || type < 0 || type >= SWS_MAX_SWAPFILES)
		return SWS_ENODEV;
	sws_mutex_lock(&sim->ext_mutex);
	struct sws_device *dev = sws__device(sim, (unsigned)type);
	/* Extendable devices go through their owner (sws_mm_xswap_destroy()). */
	int rc = dev && dev->ext ? SWS_EINVAL : sws___device_remove(sim, type, false);
	sws_mutex_unlock(&sim->ext_mutex);
	return rc;
}

/* ---- the request queue (modelled clock) ------------------------------------------- */

_Static_assert(SWS_DEVICE_MAX_QUEUE - 1 <= UINT16_MAX, "queue_head is 16 bits");

int sws_device_set_queue(struct sws_sim *sim, int type, uint32_t depth)
{
	if (!sim || type < 0)
		return SWS_ENODEV;
	if (depth > SWS_DEVICE_MAX_QUEUE)
		return SWS_EINVAL;
	struct sws_device *dev = sws__device(sim, (unsigned)type);
	if (!dev)
		return SWS_ENODEV;
	dev->queue_depth = depth;
	dev->queue_head = 0;
	memset(dev->queue_free, 0, sizeof(dev->queue_free));
	return 0;
}

/*
 * blk-mq in virtual time: the request takes the slot that frees first.
 * Submissions arrive in virtual-time order because each is a sync point, so
 * a slot's time only moves forward. Which of several equal slots serves it
 * changes nothing (only the times are kept), so queue_free[] keeps the times
 * sorted round a ring: the request takes the first, and its end goes in at
 * its place from the last (a request mostly ends after those before it: a
 * move or two, where a heap's replacement sinks through every level).
 */
uint64_t sws__device_submit(struct sws_cpu *cpu, unsigned type, uint64_t service_ps, uint64_t *start)
{
	struct sws_vcpu *vc = cpu->h.vc;
	sws__vt_sync(vc);
	struct sws_device *dev = sws__device(cpu->h.sim, type);
	uint64_t t = vc->now;
	if (!dev || !dev->queue_depth) {
		*start = t;
		return t + service_ps;
	}
	uint64_t *q = dev->queue_free;
	const unsigned n = dev->queue_depth;
	unsigned head = dev->queue_head;
	*start = q[head] > t ? q[head] : t;
	const uint64_t end = *start + service_ps;
	/* The first slot leaves the front and comes back as the last: the
	 * ring's order moves one on, and @end sinks from there past the slots
	 * that free later. */
	unsigned i = head, next = head + 1 == n ? 0 : head + 1;
	dev->queue_head = (uint16_t)next;
	while (i != next) {
		unsigned prev = i ? i - 1 : n - 1;
		if (q[prev] <= end)
			break;
		q[i] = q[prev];
		i = prev;
	}
	q[i] = end;
	return end;
}

/* ---- swap tiers (mm/swap_tier.c) --------------------------------------------------- */

/* swap_tier_validate_name(): 1..15 of [A-Za-z0-9_]. */
static bool tier_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (!n || n >= SWS_SWAP_TIER_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

/* swap_lock held: the id of tier @name, or 0. */
static unsigned __tier_lookup(struct sws_sim *sim, const char *name)
{
	SWS_ASSERT_HELD(&sim->swap_lock);
	for (unsigned t = 1; t < SWS_SWAP_NR_TIERS; t++)
		if (sim->tier_name[t][0] && !strcmp(sim->tier_name[t], name))
			return t;
	return 0;
}

int sws_swap_tier_add(struct sws_sim *sim, const char *name, unsigned *tier)
{
	if (!sim || !tier || !tier_name_ok(name))
		return SWS_EINVAL;
	int rc = SWS_ETOOMANY;
	sws_spin_lock(&sim->swap_lock);
	if (__tier_lookup(sim, name)) {
		rc = SWS_EINVAL; /* swap_tiers_add(): -EEXIST */
		goto out;
	}
	for (unsigned t = 1; t < SWS_SWAP_NR_TIERS; t++) {
		if (!sim->tier_name[t][0]) {
			memcpy(sim->tier_name[t], name, strlen(name) + 1);
			*tier = t;
			rc = 0;
			break;
		}
	}
out:
	sws_spin_unlock(&sim->swap_lock);
	return rc;
}

int sws_swap_tier_lookup(struct sws_sim *sim, const char *name)
{
	if (!sim || !name)
		return SWS_ENOENT;
	sws_spin_lock(&sim->swap_lock);
	unsigned t = __tier_lookup(sim, name);
	sws_spin_unlock(&sim->swap_lock);
	return t ? (int)t : SWS_ENOENT;
}

const char *sws_swap_tier_name(struct sws_sim *sim, unsigned tier)
{
	/* Names are written once, before the id is handed out, and never change. */
	return sim && tier < SWS_SWAP_NR_TIERS ? sim->tier_name[tier] : "";
}

/* ---- information ----------------------------------------------------------------- */

int sws_device_info_get(struct sws_sim *sim, int type, struct sws_device_info *info)
{
	if (!sim || !info || type < 0)
		return SWS_ENODEV;
	sws__rcu_thread_get();
	sws_rcu_read_lock();
	struct sws_device *dev = sws__device(sim, (unsigned)type);
	if (!dev) {
		sws_rcu_read_unlock();
		sws__rcu_thread_put();
		return SWS_ENODEV;
	}
	memset(info, 0, sizeof(*info));
	info->type = dev->type;
	info->prio = dev->prio;
	info->tier = dev->h.flags & SWS_SWP_VIRTUAL ? 0 : sws__device_tier(dev);
	info->flags = dev->h.flags;
	info->max = dev->max;
	info->pages = dev->pages;
	info->inuse_pages = atomic_load(&dev->inuse_pages) & ~SWS_INUSE_OFFLIST;
	info->nr_clusters = sws__nr_clusters_mapped(dev);
	sws_spin_lock(&dev->lock);
	info->nr_free = dev->nr_free;
	info->nr_full = dev->nr_full;
	info->nr_discard = dev->nr_discard;
	memcpy(info->nr_nonfull, dev->nr_nonfull, sizeof(info->nr_nonfull));
	memcpy(info->nr_frag, dev->nr_frag, sizeof(info->nr_frag));
	sws_spin_unlock(&dev->lock);
	info->write_errors = atomic_load(&dev->backing.write_errors);
	info->write_errno = atomic_load(&dev->backing.write_errno);
	info->write_failed = atomic_load(&dev->backing.write_failed);
	sws_rcu_read_unlock();
	sws__rcu_thread_put();
	return 0;
}

void sws_swap_totals(struct sws_sim *sim, uint64_t *total, uint64_t *free_slots)
{
	if (!sim) {
		if (total)
			*total = 0;
		if (free_slots)
			*free_slots = 0;
		return;
	}
	/* Each is exact once quiet; while an xswap limit write moves both, a
	 * reader of the two may see one step of it: free is kept in [0, total]. */
	int64_t f = atomic_load(&sim->h.nr_swap_pages), t = atomic_load(&sim->h.total_swap_pages);
	if (t < 0)
		t = 0;
	if (f > t)
		f = t;
	if (f < 0)
		f = 0;
	if (total)
		*total = (uint64_t)t;
	if (free_slots)
		*free_slots = (uint64_t)f;
}

bool sws_swap_full(struct sws_sim *sim)
{
	/* vm_swap_full(): free * 2 < total */
	return sim && atomic_load(&sim->h.nr_swap_pages) * 2 < atomic_load(&sim->h.total_swap_pages);
}

/* The obsolete name (swapsim/device.h), for callers built against it. */
int sws_device_info(struct sws_sim *sim, int type, struct sws_device_info *info)
{
	return sws_device_info_get(sim, type, info);
}
