/*
 * core.c - what every vswap variant shares (vswap.h): the descriptors and
 * the cluster map, physical slots and their reverse map, the virtual
 * device's lifecycle, counts, the swap cache, the zero flag and memcg id,
 * zswap's entries and the invariants. Where a variant differs (how slots
 * left unused are freed), the core calls the variant's hooks.
 */
#include <stdio.h>
#include <string.h>

#include "../virtual_device.h"
#include "vswap.h"

/* ---- the cluster map ---------------------------------------------------------------- */

/* The lookup cache's slot of @cpu (NULL: no cache, or no CPU). */
static _Atomic(struct vswap_cluster *) *iter_cache_slot(struct vswap_vdev *vd, const struct sws_cpu *cpu)
{
	return vd->iter_cache && cpu && cpu->h.id < vd->nr_cpus ? &vd->iter_cache[cpu->h.id] : NULL;
}

/*
 * vswap_iter(): RCU read lock held: find @off's cluster and lock it; NULL
 * (nothing locked) when the cluster is free. @loads gets the map walk (v6's
 * cache hit: the cached pointer instead) plus the cluster's descriptor
 * pointer. v6: a miss drops the cached cluster under its lock
 * (try_to_clear_local_vswap_iter_cache()) and the cluster found is cached
 * (try_to_cache_local_vswap_iter_cache()). The cached pointer is valid
 * under RCU: a cluster leaves every cache before its RCU-delayed free.
 */
static struct vswap_cluster *cluster_lock(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
					  unsigned *loads)
{
	struct vswap_vdev *vd = vd_of(dev);
	uint64_t c = off / SWS_CLUSTER_SLOTS;
	_Atomic(struct vswap_cluster *) *slot = iter_cache_slot(vd, cpu);
	struct vswap_cluster *cached = slot ? atomic_load_explicit(slot, memory_order_acquire) : NULL;
	struct vswap_cluster *cl;
	unsigned n = 0;
	if (cached && cached->id == c) {
		cl = cached;
		n = 1; /* the per-CPU pointer */
	} else {
		cl = (struct vswap_cluster *)sws__xa_load_counted(&vd->map.xa, c, &n);
		if (cached) {
			struct sws_cluster *oci = &dev->cluster_info[cached->id];
			sws__cluster_lock(cpu, oci);
			struct vswap_cluster *was = cached;
			atomic_compare_exchange_strong(slot, &was, NULL);
			sws__cluster_unlock(oci);
		}
	}
	*loads = n + (cl != NULL);
	if (!cl)
		return NULL;
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	if (vd->clusters[c] != cl) { /* freed (and maybe reused) meanwhile */
		sws__cluster_unlock(ci);
		return NULL;
	}
	if (slot && cl != cached) {
		struct vswap_cluster *none = NULL;
		atomic_compare_exchange_strong(slot, &none, cl); /* only into an empty cache */
	}
	return cl;
}

/* cluster_lock() for a call that is not a swap-cache lookup: count the walk as meta_walk. */
struct vswap_cluster *sws__vs_desc_lock(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	unsigned loads;
	struct vswap_cluster *cl = cluster_lock(cpu, dev, off, &loads);
	sws__work_maybe(cpu, SWS_WORK_meta_walk, loads);
	return cl;
}

/* ---- physical slots ------------------------------------------------------------------- */

/*
 * swap_slot_free_nr(): give @nr physical slots from @phys back, under their
 * cluster's lock (inside the virtual ci->lock of their descriptors where
 * the caller holds it).
 */
void sws__vs_phys_free(struct sws_cpu *cpu, struct sws_sim *sim, sws_entry_t phys, unsigned nr)
{
	struct sws_device *pdev = sws__device(sim, sws_swp_type(phys));
	uint64_t off = sws_swp_offset(phys);
	struct vswap_pdev *pd = pd_of(pdev);
	struct sws_cluster *ci = sws__offset_cluster(pdev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *rm = atomic_load_explicit(&pd->rmap[off / SWS_CLUSTER_SLOTS], memory_order_relaxed);
	for (unsigned i = 0; i < nr; i++) {
		uint64_t o = off + i;
		atomic_fetch_and_explicit(&pd->allocated[o / 64], ~(1ull << (o % 64)), memory_order_relaxed);
		atomic_store_explicit(&rm[idx_of(o)], 0, memory_order_relaxed);
	}
	sws___swap_range_free(cpu, pdev, ci, off, nr);
	sws__cluster_unlock(ci);
}

/*
 * Virtual ci->lock held: release_backing(): what backs @nr descriptors from
 * @off goes: a zswap entry to zswap, physical slots in contiguous runs. The
 * descriptors keep their type; the caller sets the new one.
 */
static void __release_backing(struct sws_cpu *cpu, struct sws_device *dev, struct vswap_cluster *cl,
			      uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	sws_entry_t run = 0;
	unsigned run_n = 0;
	for (unsigned i = 0; i < nr; i++) {
		struct swp_desc *d = desc_of(cl, off + i);
		sws_entry_t p = d->type == VSWAP_SWAPFILE ? d->slot : 0;
		if (d->type == VSWAP_ZSWAP && d->zswap_entry) {
			sws___zswap_release(dev->sim, sws__offset_cluster(dev, off),
					    d->zswap_entry);
			d->zswap_entry = NULL;
		}
		if (run_n && p == run + run_n && sws_swp_offset(p) % SWS_CLUSTER_SLOTS) {
			run_n++;
		} else {
			if (run_n)
				sws__vs_phys_free(cpu, dev->sim, run, run_n);
			run = p;
			run_n = p ? 1 : 0;
		}
		if (p)
			d->slot = 0;
	}
	if (run_n)
		sws__vs_phys_free(cpu, dev->sim, run, run_n);
}

/* Virtual ci->lock held: @nr slots from @off have no count and are not
 * cached: release their backends and give them back, in one batch (a
 * variant's free_unused decides the batches). */
void sws___vs_slots_free(struct sws_cpu *cpu, struct sws_device *dev, struct vswap_cluster *cl,
			 uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	__release_backing(cpu, dev, cl, off, nr);
	for (unsigned i = 0; i < nr; i++) {
		/* one memcg uncharge per entry, as v3 to v6 do */
		sws__memcg_swap_mod(cpu, dev->sim, desc_of(cl, off + i)->memcgid, -1);
		memset(desc_of(cl, off + i), 0, sizeof(struct swp_desc));
		sws_bit_clear(cl->bitmap, idx_of(off + i));
	}
	sws___swap_range_free(cpu, dev, sws__offset_cluster(dev, off), off, nr);
}

/* ---- device lifecycle --------------------------------------------------------------------- */

static struct vswap_cluster *vcluster_alloc(struct sws_mem *mem, uint64_t id)
{
	struct vswap_cluster *cl = sws__mem_zalloc(mem, SWS_MEM_vswap_cluster, sizeof(*cl), 64);
	struct swp_desc *desc = sws__mem_zalloc(mem, SWS_MEM_vswap_desc, DESC_BYTES, 64);
	if (!cl || !desc) {
		sws__mem_free(mem, SWS_MEM_vswap_cluster, cl, sizeof(*cl));
		sws__mem_free(mem, SWS_MEM_vswap_desc, desc, DESC_BYTES);
		return NULL;
	}
	cl->id = id;
	cl->desc = desc;
	return cl;
}

static void vcluster_free_now(struct sws_mem *mem, struct vswap_cluster *cl)
{
	sws__mem_free(mem, SWS_MEM_vswap_desc, cl->desc, DESC_BYTES);
	sws__mem_free(mem, SWS_MEM_vswap_cluster, cl, sizeof(*cl));
}

static void vcluster_free_rcu(struct rcu_head *head)
{
	sws_rcu_callback_begin();
	struct vswap_cluster *cl = sws_container_of(head, struct vswap_cluster, rcu);
	struct sws_sim *sim = cl->sim;
	sws__mem_free_retired(&sim->mem, cl->desc, DESC_BYTES); /* retired at the put */
	sws__mem_free_retired(&sim->mem, cl, sizeof(*cl));
	sws__count_sim(sim, SWS_CTR_vswap_cluster_free, 1);
	sws_rcu_callback_end();
}

/* ci->lock held: a virtual cluster starts serving: its cluster and
 * descriptors, in the map. */
static int __vcluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct vswap_vdev *vd = vd_of(dev);
	uint32_t c = sws__cluster_idx(dev, ci);
	struct vswap_cluster *cl = vcluster_alloc(&dev->sim->mem, c);
	if (!cl)
		return SWS_ENOMEM;
	locked_xa_lock(cpu, &vd->map);
	uintptr_t old;
	int rc = sws__xa_store(&vd->map.xa, c, (uintptr_t)cl, &old);
	locked_xa_unlock(cpu, &vd->map, SWS_NR_COUNTERS);
	if (rc) {
		vcluster_free_now(&dev->sim->mem, cl);
		return rc;
	}
	vd->clusters[c] = cl;
	sws__work_maybe(cpu, SWS_WORK_meta_alloc, 2); /* the cluster and its descriptors */
	if (cpu)
		sws__count(cpu, SWS_CTR_vswap_cluster_alloc, 1);
	else
		sws__count_sim(dev->sim, SWS_CTR_vswap_cluster_alloc, 1);
	return 0;
}

/* ci->lock held: a virtual cluster became free: out of the map, freed after a
 * grace period. */
static void __vcluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct vswap_vdev *vd = vd_of(dev);
	uint32_t c = sws__cluster_idx(dev, ci);
	struct vswap_cluster *cl = vd->clusters[c];
	if (!cl)
		return;
	locked_xa_lock(cpu, &vd->map);
	uintptr_t old;
	sws__xa_store(&vd->map.xa, c, 0, &old); /* erasing never allocates */
	locked_xa_unlock(cpu, &vd->map, SWS_NR_COUNTERS);
	vd->clusters[c] = NULL;
	/* v6: the cluster became empty: out of every CPU's lookup cache before
	 * its RCU-delayed free (the kernel's cache holds a reference, dropped
	 * when the cached cluster empties). */
	for (unsigned k = 0; vd->iter_cache && k < vd->nr_cpus; k++) {
		struct vswap_cluster *was = cl;
		atomic_compare_exchange_strong(&vd->iter_cache[k], &was, NULL);
	}
	sws__work_maybe(cpu, SWS_WORK_meta_free, 2);
	cl->sim = dev->sim;
	sws__mem_retire(&dev->sim->mem, SWS_MEM_vswap_desc, DESC_BYTES);
	sws__mem_retire(&dev->sim->mem, SWS_MEM_vswap_cluster, sizeof(*cl));
	sws_call_rcu(&cl->rcu, vcluster_free_rcu); /* lock-free map walkers may hold it */
}

/* ci->lock held: a physical cluster leaves the free list: its reverse map. */
static int __pcluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct vswap_pdev *pd = pd_of(dev);
	_Atomic uint64_t *rm = sws__mem_zalloc(&dev->sim->mem, SWS_MEM_swap_rmap, RMAP_BYTES, 64);
	if (!rm)
		return SWS_ENOMEM;
	atomic_store_explicit(&pd->rmap[sws__cluster_idx(dev, ci)], rm, memory_order_release);
	sws__work_maybe(cpu, SWS_WORK_meta_alloc, 1);
	return 0;
}

/* ci->lock held: a physical cluster became free: its reverse map goes. */
static void __pcluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct vswap_pdev *pd = pd_of(dev);
	uint32_t c = sws__cluster_idx(dev, ci);
	_Atomic uint64_t *rm = atomic_load_explicit(&pd->rmap[c], memory_order_relaxed);
	if (!rm)
		return;
	atomic_store_explicit(&pd->rmap[c], NULL, memory_order_relaxed);
	sws__mem_free(&dev->sim->mem, SWS_MEM_swap_rmap, (void *)rm, RMAP_BYTES); /* read under ci->lock only */
	sws__work_maybe(cpu, SWS_WORK_meta_free, 1);
}

int sws__vs_cluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	return is_virtual(dev) ? __vcluster_get(cpu, dev, ci) : __pcluster_get(cpu, dev, ci);
}

void sws__vs_cluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (is_virtual(dev))
		__vcluster_put(cpu, dev, ci);
	else
		__pcluster_put(cpu, dev, ci);
}

void sws__vs_device_fini(struct sws_device *dev)
{
	struct sws_mem *mem = &dev->sim->mem;
	if (!dev->design)
		return;
	if (is_virtual(dev)) {
		struct vswap_vdev *vd = vd_of(dev);
		for (uint32_t c = 0, n = sws__nr_clusters_mapped(dev); vd->clusters && c < n; c++)
			if (vd->clusters[c])
				vcluster_free_now(mem, vd->clusters[c]);
		sws__xa_destroy(&vd->map.xa);
		sws__cluster_array_destroy(dev, &vd->clusters_array);
		sws__mem_free(mem, SWS_MEM_sim, (void *)vd->iter_cache, vd->nr_cpus * sizeof(*vd->iter_cache));
		sws__mem_free(mem, SWS_MEM_sim, vd, sizeof(*vd));
	} else {
		struct vswap_pdev *pd = pd_of(dev);
		for (uint32_t c = 0; pd->rmap && c < dev->nr_clusters; c++)
			sws__mem_free(mem, SWS_MEM_swap_rmap, (void *)pd->rmap[c], pd->rmap[c] ? RMAP_BYTES : 0);
		sws__cluster_array_destroy(dev, &pd->rmap_array);
		sws__mem_free(mem, SWS_MEM_swap_bitmap, (void *)pd->allocated, pd->words * 8);
		sws__mem_free(mem, SWS_MEM_swap_bitmap, pd->bad, pd->words * 8);
		sws__mem_free(mem, SWS_MEM_sim, pd, sizeof(*pd));
	}
	dev->design = dev->design_index = NULL;
}

int sws__vs_device_init(struct sws_device *dev)
{
	struct sws_mem *mem = &dev->sim->mem;
	if (is_virtual(dev)) {
		struct vswap_vdev *vd = sws__mem_zalloc(mem, SWS_MEM_sim, sizeof(*vd), 0);
		if (!vd)
			return SWS_ENOMEM;
		dev->design = vd;
		sws_spin_init(&vd->map.lock);
		sws__xa_init(&vd->map.xa, mem, &dev->sim->ctr[SWS_CTR_xa_node_free]);
		vd->map.xa.mem_class = SWS_MEM_vswap_cluster;
		vd->clusters = sws__cluster_array_create(dev, &vd->clusters_array, sizeof(*vd->clusters),
							 SWS_MEM_vswap_cluster, 0);
		if (variant_of(dev)->lookup_cache) { /* per-CPU data, the simulator's */
			vd->nr_cpus = dev->sim->max_cpus;
			vd->iter_cache = sws__mem_zalloc(mem, SWS_MEM_sim, vd->nr_cpus * sizeof(*vd->iter_cache), 64);
			if (!vd->iter_cache)
				vd->nr_cpus = 0;
		}
		/* Cluster 0 holds the header slot (entry value 0 is never handed
		 * out). Its lock is uncontended: the device is not published yet. */
		struct sws_cluster *ci = &dev->cluster_info[0];
		int rc = SWS_ENOMEM;
		if (vd->clusters && (vd->iter_cache || !variant_of(dev)->lookup_cache)) {
			sws_spin_lock(&ci->lock);
			rc = __vcluster_get(NULL, dev, ci);
			if (!rc)
				sws_bit_set(vd->clusters[0]->bitmap, 0);
			sws_spin_unlock(&ci->lock);
		}
		if (rc) {
			sws__vs_device_fini(dev);
			return rc;
		}
		dev->design_index = &vd->map;
		return 0;
	}
	struct vswap_pdev *pd = sws__mem_zalloc(mem, SWS_MEM_sim, sizeof(*pd), 0);
	if (!pd)
		return SWS_ENOMEM;
	dev->design = pd;
	pd->words = SWS_DIV_ROUND_UP(dev->max, 64);
	pd->allocated = sws__mem_zalloc(mem, SWS_MEM_swap_bitmap, pd->words * 8, 0);
	pd->bad = sws__mem_zalloc(mem, SWS_MEM_swap_bitmap, pd->words * 8, 0);
	pd->rmap = sws__cluster_array_create(dev, &pd->rmap_array, sizeof(*pd->rmap), SWS_MEM_cluster_tables, 64);
	if (!pd->allocated || !pd->bad || !pd->rmap) {
		sws__vs_device_fini(dev);
		return SWS_ENOMEM;
	}
	sws_bit_set(pd->bad, 0); /* the header */
	/* Clusters holding bad slots (the header, a partial tail) keep their
	 * reverse map for life. The device is not published yet: each lock is
	 * taken uncontended. */
	uint32_t with_bad[2] = {0, dev->nr_clusters - 1};
	for (unsigned k = 0; k < 2; k++) {
		struct sws_cluster *ci = &dev->cluster_info[with_bad[k]];
		sws_spin_lock(&ci->lock);
		int rc = ci->count && !pd->rmap[with_bad[k]] ? __pcluster_get(NULL, dev, ci) : 0;
		sws_spin_unlock(&ci->lock);
		if (rc) {
			sws__vs_device_fini(dev);
			return SWS_ENOMEM;
		}
	}
	return 0;
}

/* The virtual device: reserved at the core's largest device, grown and
 * shrunk by chunks (struct sws_ext_ops: ext->lock held). */
static uint32_t vspace_grow_to(struct sws_device *dev, uint32_t mapped, unsigned nr)
{
	(void)nr;
	SWS_ASSERT_HELD(&dev->ext->lock);
	return mapped + VSWAP_CHUNK;
}

static uint32_t vspace_shrink_count(struct sws_device *dev, uint32_t mapped, uint32_t tail)
{
	SWS_ASSERT_HELD(&dev->ext->lock);
	if (tail <= VSWAP_CHUNK)
		return 0;
	uint32_t n = (tail - VSWAP_CHUNK) / VSWAP_CHUNK * VSWAP_CHUNK; /* one chunk of slack stays */
	return mapped - n >= VSWAP_CHUNK ? n : mapped - VSWAP_CHUNK;  /* and one chunk at least */
}

static const struct sws_ext_ops vspace_ext_ops = {
	.grow_to = vspace_grow_to,
	.shrink_count = vspace_shrink_count,
};

/* The virtual device comes with the simulation. */
int sws__vs_sim_init(struct sws_sim *sim) { return sws__virtual_device_add(sim, &vspace_ext_ops, VSWAP_CHUNK); }

/* ---- allocation ------------------------------------------------------------------------ */

static bool __vs_range_free(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint32_t c = sws__cluster_idx(dev, ci);
	if (is_virtual(dev)) {
		struct vswap_cluster *cl = vd_of(dev)->clusters[c];
		for (unsigned i = 0; i < nr; i++)
			if (sws_bit_test(cl->bitmap, idx_of(off + i)))
				return false;
		return true;
	}
	struct vswap_pdev *pd = pd_of(dev);
	for (unsigned i = 0; i < nr; i++) {
		uint64_t o = off + i;
		if (sws_bit_test(pd->bad, (unsigned)o))
			return false;
		if ((atomic_load_explicit(&pd->allocated[o / 64], memory_order_relaxed) >> (o % 64)) & 1)
			return false;
	}
	return true;
}

/* cluster_scan_range() over the cluster's bitmap (virtual) or the device's maps. */
uint64_t sws__vs_range_find(struct sws_device *dev, struct sws_cluster *ci, uint64_t start, uint64_t end,
			    unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (uint64_t off = start; off + nr <= end; off += nr)
		if (__vs_range_free(dev, ci, off, nr))
			return off;
	return 0;
}

/* Virtual slots: each descriptor takes the folio (FOLIO-backed, in the swap
 * cache, count 0). Physical slots: @owner is the virtual entry they back. */
void sws__vs_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			 unsigned nr, uint64_t owner)
{
	(void)cpu;
	SWS_ASSERT_HELD(&ci->lock);
	uint32_t c = sws__cluster_idx(dev, ci);
	if (is_virtual(dev)) {
		struct vswap_cluster *cl = vd_of(dev)->clusters[c];
		for (unsigned i = 0; i < nr; i++) {
			struct swp_desc *d = desc_of(cl, off + i);
			*d = (struct swp_desc){.cache = cache_folio(owner), .in_swapcache = 1, .type = VSWAP_FOLIO};
			sws_bit_set(cl->bitmap, idx_of(off + i));
		}
		return;
	}
	struct vswap_pdev *pd = pd_of(dev);
	_Atomic uint64_t *rm = atomic_load_explicit(&pd->rmap[c], memory_order_relaxed);
	for (unsigned i = 0; i < nr; i++) {
		uint64_t o = off + i;
		atomic_fetch_or_explicit(&pd->allocated[o / 64], 1ull << (o % 64), memory_order_relaxed);
		atomic_store_explicit(&rm[idx_of(o)], owner + i, memory_order_relaxed);
	}
}

/* ---- counts ------------------------------------------------------------------------------ */

int sws__vs_dup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = 0;
	for (unsigned i = 0; i < nr && !rc; i++)
		if (!allocated(cl, off + i) || (off + i) == 0)
			rc = SWS_ENOENT;
	for (unsigned i = 0; i < nr && !rc; i++)
		if (desc_of(cl, off + i)->swap_count + 1 > SWS_SWAP_COUNT_MAX)
			rc = SWS_EOVERFLOW;
	for (unsigned i = 0; i < nr && !rc; i++)
		desc_of(cl, off + i)->swap_count++;
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

/* vswap_free_nr_any_cache_only(): drop one reference per slot; runs of slots
 * left with nothing are freed together. */
int sws__vs_put(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *only_cache)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = 0;
	for (unsigned i = 0; i < nr && !rc; i++)
		if (!allocated(cl, off + i) || (off + i) == 0)
			rc = SWS_EFREE;
	for (unsigned i = 0; i < nr && !rc; i++)
		if (!desc_of(cl, off + i)->swap_count)
			rc = SWS_ERANGE;
	for (unsigned i = 0; i < nr && !rc; i++) {
		struct swp_desc *d = desc_of(cl, off + i);
		if (!--d->swap_count && d->in_swapcache && only_cache)
			sws_bit_set(only_cache, i);
	}
	if (!rc)
		variant_of(dev)->free_unused(cpu, dev, cl, off, nr);
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

int sws__vs_count(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = allocated(cl, off) && off ? 0 : SWS_ENOENT;
	if (!rc)
		*count = desc_of(cl, off)->swap_count;
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

/* ---- swap cache ---------------------------------------------------------------------------- */

/* Virtual ci->lock held (or @cl NULL): the checks of a swap-in's add
 * (design.h): FREE, already cached or pinned, mixed, or differing zero state
 * or memcg. */
static int __cache_check(struct sws_device *dev, struct vswap_cluster *cl, uint64_t off,
			 unsigned nr)
{
	assert_desc_locked(dev, cl, off);
	unsigned nfree = 0, ncached = 0;
	bool differ = false;
	struct swp_desc *d0 = allocated(cl, off) ? desc_of(cl, off) : NULL;
	for (unsigned i = 0; i < nr; i++) {
		uint64_t o = off + i;
		/* A slot with no count and not cached is being freed (only vswap-v3's
		 * per-entry free, which drops the lock, lets anyone see one):
		 * swapcache_prepare() finds it unused. */
		bool is_free = !allocated(cl, o) || o == 0 ||
			       (!desc_of(cl, o)->swap_count && !desc_of(cl, o)->in_swapcache);
		struct swp_desc *d = is_free ? NULL : desc_of(cl, o);
		nfree += is_free;
		ncached += d && d->in_swapcache;
		if (d && !d->in_swapcache && d0 && !d0->in_swapcache)
			differ |= (d->type == VSWAP_ZERO) != (d0->type == VSWAP_ZERO) || d->memcgid != d0->memcgid;
	}
	return sws__cache_add_verdict(nr, nfree, ncached, differ);
}

/* swap_cache_add_folio(): under the cluster lock, the folio into each descriptor. */
int sws__vs_cache_add(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t pfn,
		      uint64_t *shadow)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __cache_check(dev, cl, off, nr);
	if (!rc) {
		*shadow = cache_to_shadow(desc_of(cl, off)->cache);
		for (unsigned i = 0; i < nr; i++) {
			struct swp_desc *d = desc_of(cl, off + i);
			d->cache = cache_folio(pfn);
			d->in_swapcache = 1;
		}
	}
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

/* vswap_get_swap_cache(): the map walk, the cluster lock, the descriptor. */
uint64_t sws__vs_cache_lookup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned *loads)
{
	struct vswap_cluster *cl = cluster_lock(cpu, dev, off, loads);
	if (!cl)
		return 0;
	uint64_t pfn = 0;
	if (allocated(cl, off)) {
		struct swp_desc *d = desc_of(cl, off);
		(*loads)++;
		if (d->in_swapcache && cache_is_folio(d->cache))
			pfn = d->cache >> 1;
	}
	desc_unlock(dev, off);
	return pfn;
}

int sws__vs_cache_get_shadow(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint64_t *shadow)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = allocated(cl, off) && off ? 0 : SWS_ENOENT;
	if (!rc) {
		struct swp_desc *d = desc_of(cl, off);
		*shadow = d->in_swapcache ? 0 : cache_to_shadow(d->cache);
	}
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

/* Virtual ci->lock held (or @cl NULL): every slot holds folio @pfn
 * (ENOTCACHED, then EMISMATCH). */
static int __check_cached(struct sws_device *dev, struct vswap_cluster *cl, uint64_t off,
			  unsigned nr, uint64_t pfn)
{
	assert_desc_locked(dev, cl, off);
	for (unsigned i = 0; i < nr; i++) {
		if (!allocated(cl, off + i) || !off)
			return SWS_ENOTCACHED;
		struct swp_desc *d = desc_of(cl, off + i);
		if (!d->in_swapcache || !cache_is_folio(d->cache))
			return SWS_ENOTCACHED;
	}
	for (unsigned i = 0; i < nr; i++)
		if (desc_of(cl, off + i)->cache != cache_folio(pfn))
			return SWS_EMISMATCH;
	return 0;
}

/* __vswap_remove_mapping(): the shadow in, the pin off; slots with no count
 * left are freed in the same hold. */
int sws__vs_cache_del(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t pfn,
		      uint64_t shadow)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __check_cached(dev, cl, off, nr, pfn);
	for (unsigned i = 0; i < nr && !rc; i++) {
		struct swp_desc *d = desc_of(cl, off + i);
		d->in_swapcache = 0;
		d->cache = cache_shadow(shadow);
	}
	if (!rc)
		variant_of(dev)->free_unused(cpu, dev, cl, off, nr);
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

int sws__vs_cache_replace(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			  uint64_t old_pfn, uint64_t new_pfn)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __check_cached(dev, cl, off, nr, old_pfn);
	for (unsigned i = 0; i < nr && !rc; i++)
		desc_of(cl, off + i)->cache = cache_folio(new_pfn);
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

/* do_swap_page()'s bypass, kept by the series (it is based on 6.19) for
 * entries backed by a SYNCHRONOUS_IO device: count 1, then in_swapcache set
 * without a folio (swapcache_prepare()). */
int sws__vs_pin(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *shadow)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __cache_check(dev, cl, off, nr);
	for (unsigned i = 0; i < nr && !rc; i++) {
		struct swp_desc *d = desc_of(cl, off + i);
		struct sws_device *pdev = d->type == VSWAP_SWAPFILE && d->slot
						  ? sws__device(dev->sim, sws_swp_type(d->slot))
						  : NULL;
		if (!pdev || !(pdev->h.flags & SWS_SWP_SYNCHRONOUS_IO))
			rc = SWS_EOPNOTSUPP; /* tryget_swap_entry(): not on a device */
		else if (nr == 1 && d->swap_count != 1)
			rc = SWS_EAGAIN; /* a range: swapcache_prepare() does not look at counts */
	}
	if (!rc) {
		*shadow = cache_to_shadow(desc_of(cl, off)->cache);
		for (unsigned i = 0; i < nr; i++)
			desc_of(cl, off + i)->in_swapcache = 1;
	}
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

int sws__vs_unpin(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = 0;
	for (unsigned i = 0; i < nr && !rc; i++)
		if (!allocated(cl, off + i) || !desc_of(cl, off + i)->in_swapcache ||
		    cache_is_folio(desc_of(cl, off + i)->cache))
			rc = SWS_ENOTCACHED;
	for (unsigned i = 0; i < nr && !rc; i++)
		desc_of(cl, off + i)->in_swapcache = 0;
	if (!rc)
		variant_of(dev)->free_unused(cpu, dev, cl, off, nr);
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

/* ---- zero flag, memcg -------------------------------------------------------------------- */

/* Virtual ci->lock held (or @cl NULL): are the @nr slots from @off allocated? */
static int __all_allocated(struct sws_device *dev, struct vswap_cluster *cl, uint64_t off,
			   unsigned nr)
{
	assert_desc_locked(dev, cl, off);
	for (unsigned i = 0; i < nr; i++)
		if (!allocated(cl, off + i) || off + i == 0)
			return SWS_ENOENT;
	return 0;
}

/* swap_zeromap_folio_set(): the old backend goes, the type is ZERO; clearing
 * makes a zero descriptor FOLIO-backed again (vswap_prepare_writeout()). */
int sws__vs_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool zero)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __all_allocated(dev, cl, off, nr);
	if (!rc && zero) {
		__release_backing(cpu, dev, cl, off, nr);
		for (unsigned i = 0; i < nr; i++)
			desc_of(cl, off + i)->type = VSWAP_ZERO;
	}
	for (unsigned i = 0; i < nr && !rc && !zero; i++)
		if (desc_of(cl, off + i)->type == VSWAP_ZERO)
			desc_of(cl, off + i)->type = VSWAP_FOLIO;
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

/* swap_zeromap_batch() walks descriptors under their cluster lock. */
bool sws__vs_zero_test(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	bool zero = allocated(cl, off) && desc_of(cl, off)->type == VSWAP_ZERO;
	if (cl)
		desc_unlock(dev, off);
	return zero;
}

int sws__vs_set_memcg(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint16_t id)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __all_allocated(dev, cl, off, nr);
	struct sws__memcg_record mr = {.id = id};
	for (unsigned i = 0; i < nr && !rc; i++) {
		sws__memcg_record_slot(cpu, dev->sim, &mr, desc_of(cl, off + i)->memcgid);
		desc_of(cl, off + i)->memcgid = id;
	}
	if (cl)
		desc_unlock(dev, off);
	sws__memcg_record_done(cpu, dev->sim, &mr);
	return rc;
}

/* ---- physical slots and zswap -------------------------------------------------------------- */

/* Virtual ci->lock held: are @nr descriptors from @off backed by one physical
 * run? @return its first entry, 0 when none is, SWS_EBUSY-worthy ~0 when mixed. */
static sws_entry_t __backing_run(struct sws_device *dev, struct vswap_cluster *cl, uint64_t off,
				 unsigned nr)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	sws_entry_t first = desc_of(cl, off)->type == VSWAP_SWAPFILE ? desc_of(cl, off)->slot : 0;
	for (unsigned i = 0; i < nr; i++) {
		struct swp_desc *d = desc_of(cl, off + i);
		sws_entry_t p = d->type == VSWAP_SWAPFILE ? d->slot : 0;
		if ((first != 0) != (p != 0) || (first && p != first + i))
			return ~0ull;
	}
	return first;
}

/* vswap_alloc_swap_slot() for a write, or the slot a read goes to. */
int sws__vs_io_slot(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool write,
		    sws_entry_t *phys)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __all_allocated(dev, cl, off, nr);
	sws_entry_t run = rc ? 0 : __backing_run(dev, cl, off, nr);
	/* The folio the caller holds in the swap cache: after the unlocked
	 * allocation below, the slots must still be its (not freed and taken by
	 * another folio meanwhile). */
	uint64_t owner = rc ? 0 : desc_of(cl, off)->cache;
	if (cl)
		desc_unlock(dev, off);
	sws_entry_t p;
	rc = sws__virtual_io_alloc(cpu, dev, off, nr, write, rc, run, phys, &p);
	if (rc <= 0)
		return rc;
	cl = sws__vs_desc_lock(cpu, dev, off);
	rc = __all_allocated(dev, cl, off, nr);
	if (!rc && desc_of(cl, off)->cache != owner)
		rc = SWS_ENOENT; /* freed and reused meanwhile */
	run = rc ? 0 : __backing_run(dev, cl, off, nr);
	if (!rc && !run) {
		__release_backing(cpu, dev, cl, off, nr); /* zswap's copy, if any */
		for (unsigned i = 0; i < nr; i++) {
			struct swp_desc *d = desc_of(cl, off + i);
			d->type = VSWAP_SWAPFILE;
			d->slot = p + i;
		}
		sws__count(cpu, SWS_CTR_vswap_phys_alloc, nr);
		*phys = p;
	}
	if (rc || run) { /* freed, or another writer gave it a run meanwhile */
		sws__vs_phys_free(cpu, dev->sim, p, nr);
		if (!rc && run != ~0ull)
			*phys = run;
		else if (!rc)
			rc = SWS_EBUSY;
	}
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

/* vswap_store_folio(): swapoff read the page into the swap cache; the folio is its backend now. */
int sws__vs_io_release(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __all_allocated(dev, cl, off, nr);
	for (unsigned i = 0; i < nr && !rc; i++) {
		struct swp_desc *d = desc_of(cl, off + i);
		if (!d->in_swapcache || !cache_is_folio(d->cache))
			rc = SWS_ENOTCACHED;
	}
	if (!rc) {
		__release_backing(cpu, dev, cl, off, nr);
		for (unsigned i = 0; i < nr; i++)
			desc_of(cl, off + i)->type = VSWAP_FOLIO;
	}
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

sws_entry_t sws__vs_rmap(struct sws_cpu *cpu, struct sws_device *pdev, uint64_t poff)
{
	struct vswap_pdev *pd = pd_of(pdev);
	struct sws_cluster *ci = sws__offset_cluster(pdev, poff);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *rm = atomic_load_explicit(&pd->rmap[poff / SWS_CLUSTER_SLOTS], memory_order_relaxed);
	sws_entry_t v = rm ? atomic_load_explicit(&rm[idx_of(poff)], memory_order_relaxed) : 0;
	sws__cluster_unlock(ci);
	return v;
}

/* zswap_entry_store(): the entry becomes the backend, the previous one goes. */
int sws__vs_zswap_store(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, void *entry, void **old)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	int rc = __all_allocated(dev, cl, off, 1);
	*old = NULL;
	if (!rc) {
		struct swp_desc *d = desc_of(cl, off);
		if (d->type == VSWAP_ZSWAP) {
			*old = d->zswap_entry;
			d->zswap_entry = NULL;
		} else {
			__release_backing(cpu, dev, cl, off, 1);
		}
		d->type = VSWAP_ZSWAP;
		d->zswap_entry = entry;
	}
	if (cl)
		desc_unlock(dev, off);
	return rc;
}

void *sws__vs_zswap_load(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	void *en = allocated(cl, off) && desc_of(cl, off)->type == VSWAP_ZSWAP ? desc_of(cl, off)->zswap_entry : NULL;
	if (cl)
		desc_unlock(dev, off);
	return en;
}

/* vswap_store_folio() after a load, or a writeback taking the entry: the
 * folio in the swap cache is the backend now. */
void *sws__vs_zswap_erase(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	struct vswap_cluster *cl = sws__vs_desc_lock(cpu, dev, off);
	void *en = NULL;
	if (allocated(cl, off) && desc_of(cl, off)->type == VSWAP_ZSWAP) {
		struct swp_desc *d = desc_of(cl, off);
		en = d->zswap_entry;
		d->zswap_entry = NULL;
		d->type = VSWAP_FOLIO;
	}
	if (cl)
		desc_unlock(dev, off);
	return en;
}

void sws__vs_zswap_drain(struct sws_device *dev, void (*fn)(void *ctx, void *entry), void *ctx)
{
	struct vswap_vdev *vd = vd_of(dev);
	for (uint32_t c = 0, n = sws__nr_clusters_mapped(dev); c < n; c++) {
		struct sws_cluster *ci = &dev->cluster_info[c];
		sws__cluster_lock(NULL, ci);
		struct vswap_cluster *cl = vd->clusters[c];
		for (unsigned i = 0; cl && i < SWS_CLUSTER_SLOTS; i++) {
			struct swp_desc *d = &cl->desc[i];
			if (sws_bit_test(cl->bitmap, i) && d->type == VSWAP_ZSWAP && d->zswap_entry) {
				fn(ctx, d->zswap_entry);
				d->zswap_entry = NULL;
				d->type = VSWAP_FOLIO;
			}
		}
		sws__cluster_unlock(ci);
	}
}

/* ---- introspection ------------------------------------------------------------------------- */

void sws__vs_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, struct sws_slot_state *st)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint32_t c = sws__cluster_idx(dev, ci);
	if (!is_virtual(dev)) {
		struct vswap_pdev *pd = pd_of(dev);
		st->allocated = (atomic_load_explicit(&pd->allocated[off / 64], memory_order_relaxed) >> (off % 64)) & 1;
		return;
	}
	struct vswap_cluster *cl = vd_of(dev)->clusters[c];
	if (!cl || !sws_bit_test(cl->bitmap, idx_of(off)))
		return;
	struct swp_desc *d = desc_of(cl, off);
	st->allocated = true;
	st->count = d->swap_count;
	st->zero = d->type == VSWAP_ZERO;
	st->memcg = d->memcgid;
	if (d->in_swapcache && cache_is_folio(d->cache)) {
		st->cached = true;
		st->pfn = d->cache >> 1;
	} else if (!d->in_swapcache) {
		st->shadow = cache_to_shadow(d->cache);
	}
}

int sws__vs_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint32_t c = sws__cluster_idx(dev, ci);
	uint64_t base = (uint64_t)c * SWS_CLUSTER_SLOTS, end = sws__cluster_end(dev, ci);
	unsigned used = (unsigned)(base + SWS_CLUSTER_SLOTS - end);
	if (!is_virtual(dev)) {
		struct vswap_pdev *pd = pd_of(dev);
		_Atomic uint64_t *rm = atomic_load_explicit(&pd->rmap[c], memory_order_relaxed);
		if (!!rm != !!ci->count && !(rm && ci->flags == SWS_CLUSTER_DISCARD)) /* kept until discarded */
			SWS__CORRUPT(msg, len, "device %d cluster %u: count %u but %s reverse map", dev->type, c, ci->count,
				     rm ? "a" : "no");
		for (uint64_t off = base; off < end; off++) {
			bool a = (atomic_load_explicit(&pd->allocated[off / 64], memory_order_relaxed) >> (off % 64)) & 1;
			uint64_t v = rm ? atomic_load_explicit(&rm[idx_of(off)], memory_order_relaxed) : 0;
			used += a || off == 0;
			if (a != (v != 0))
				SWS__CORRUPT(msg, len, "device %d slot %llu: allocated %d but reverse map %llu", dev->type,
					     (unsigned long long)off, a, (unsigned long long)v);
		}
		if (used != ci->count)
			SWS__CORRUPT(msg, len, "device %d cluster %u: count %u but %u slots allocated", dev->type, c,
				     ci->count, used);
		return 0;
	}
	struct vswap_vdev *vd = vd_of(dev);
	struct vswap_cluster *cl = vd->clusters[c];
	uintptr_t mapped = sws__xa_load(&vd->map.xa, c);
	if ((uintptr_t)cl != mapped)
		SWS__CORRUPT(msg, len, "vswap cluster %u: not the one the cluster map has", c);
	if (!!cl != !!ci->count)
		SWS__CORRUPT(msg, len, "vswap cluster %u: count %u but %s descriptors", c, ci->count, cl ? "has" : "no");
	for (unsigned i = 0; cl && i < SWS_CLUSTER_SLOTS; i++) {
		struct swp_desc *d = &cl->desc[i];
		bool a = sws_bit_test(cl->bitmap, i);
		used += a;
		if (!a && (d->swap_count || d->cache || d->in_swapcache || d->slot || d->memcgid || d->type))
			SWS__CORRUPT(msg, len, "vswap slot %llu: free but its descriptor is not empty",
				     (unsigned long long)(base + i));
		if (a && base + i && !d->swap_count && !d->in_swapcache)
			SWS__CORRUPT(msg, len, "vswap slot %llu: allocated with no count and not cached",
				     (unsigned long long)(base + i));
		if (a && d->type == VSWAP_SWAPFILE && d->slot) {
			struct sws_device *pdev = sws__device(dev->sim, sws_swp_type(d->slot));
			uint64_t po = sws_swp_offset(d->slot);
			if (!pdev || is_virtual(pdev) || po >= pdev->max)
				SWS__CORRUPT(msg, len, "vswap slot %llu: physical slot %llx does not exist",
					     (unsigned long long)(base + i), (unsigned long long)d->slot);
		}
	}
	if (used != ci->count)
		SWS__CORRUPT(msg, len, "vswap cluster %u: count %u but %u slots allocated", c, ci->count, used);
	return 0;
}