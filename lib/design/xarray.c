/*
 * xarray.c - the 6.17 design: the per-slot metadata of the last kernel
 * before the swap table (docs/design-xarray.md). Per device:
 *
 *   swap_map       u8[max]           count + SWAP_HAS_CACHE + COUNT_CONTINUED (swap_map.c)
 *   continuation   4 KiB pages       overflowed counts, per 4096-slot swap_map page
 *   swap_cgroup    u16[max]          memcg ids, two per atomic word, cmpxchg (static_maps.c)
 *   zeromap        max bits          zero-filled pages, atomic bit operations
 *   spaces         [max / 16384]     address spaces {xa_lock, XArray}: the swap cache
 *
 * The swap cache is one radix tree (common/xarray.h) per 64 MiB of swap,
 * indexed by offset & 0x3FFF (swap_cache_index(), 6.11+), holding a folio (as
 * a PFN) or a workingset shadow per slot. Two structures describe one slot,
 * under two locks: swap_map under ci->lock, the tree under the space's
 * xa_lock, which nests inside ci->lock. swap_cgroup and the zeromap take no
 * lock at all.
 *
 * The states of design.h map onto them:
 *   FREE    swap_map 0 (nothing in the tree)
 *   CACHED  SWAP_HAS_CACHE set, the folio in the tree; count 0 = cache-only
 *   SHADOW  count >= 1 without HAS_CACHE; the tree holds the shadow, or nothing
 *   BAD     SWAP_MAP_BAD (slot 0, the header)
 * HAS_CACHE is set before the folio enters the tree (swapcache_prepare, or
 * the allocation) and cleared after it left, so while a call is in flight a
 * slot may have HAS_CACHE and no folio yet; never a folio without HAS_CACHE.
 * A slot pinned for a swap-in that bypasses the swap cache (SYNCHRONOUS_IO,
 * count 1) has HAS_CACHE and no folio until it is unpinned.
 *
 * Freeing (swap_entries_put_map(), 6.16+): a run of slots whose swap_map
 * bytes are all equal with count 1 is freed (or made cache-only) in one
 * batch; any other run falls back to one entry at a time under the same
 * ci->lock hold (counted swap_free_fallback), each entry freed on its own.
 */
#include <stdio.h>
#include <string.h>

#include "../swap/design.h"
#include "xarray.h"

static_assert((1u << SWAP_ADDRESS_SPACE_SHIFT) % SWS_CLUSTER_SLOTS == 0,
	      "a cluster lies within one address space");

static inline struct xa_dev *xd_of(struct sws_device *dev) { return dev->design; }

static inline struct xa_space *space_of(struct xa_dev *xd, uint64_t off)
{
	return &xd->spaces[off >> SWAP_ADDRESS_SPACE_SHIFT];
}

static inline uint64_t xa_index(uint64_t off) { return off & SWAP_ADDRESS_SPACE_MASK; }

static inline uint8_t map_get(struct xa_dev *xd, uint64_t off) { return swap_map_get(&xd->map, off); }

/* ci->lock held: set the swap_map byte of slot @off of cluster @ci. */
static inline void __map_set(const struct sws_cluster *ci, struct xa_dev *xd, uint64_t off,
			     uint8_t v)
{
	SWS_ASSERT_HELD(&ci->lock);
	__swap_map_set(ci, &xd->map, off, v);
}

static void space_lock(struct sws_cpu *cpu, struct xa_space *sp) { locked_xa_lock(cpu, &sp->lx); }

static void space_unlock(struct sws_cpu *cpu, struct xa_space *sp)
{
	locked_xa_unlock(cpu, &sp->lx, SWS_CTR_xa_node_alloc);
}

/* ci->lock held: the count of an allocated slot, taking cont_lock when it is continued. */
static uint32_t __slot_count(struct sws_cpu *cpu, const struct sws_cluster *ci, struct xa_dev *xd,
			     uint64_t off)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (!(map_get(xd, off) & COUNT_CONTINUED))
		return sws___swap_map_count(ci, &xd->map, off);
	swap_map_cont_lock(cpu, &xd->map);
	uint32_t n = sws___swap_map_count(ci, &xd->map, off);
	swap_map_cont_unlock(&xd->map);
	return n;
}

/* ---- freeing slots -------------------------------------------------------------------- */

/*
 * ci->lock held: swap_entries_free(): @nr slots from @off have swap_map 0
 * now: clear their zero flags and memcg (swap_cgroup_clear()), erase their
 * shadows (clear_shadow_from_swap_cache(), which takes the xa_lock, as the
 * kernel does on every free), tell zswap, and give them back
 * (swap_range_free()).
 */
static void __entries_free(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			   uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct xa_dev *xd = xd_of(dev);
	struct sws__uncharge_batch ub = {0};
	for (unsigned i = 0; i < nr; i++) {
		if (zeromap_test(&xd->zeromap, off + i))
			zeromap_set(cpu, &xd->zeromap, off + i, false);
		sws__uncharge_batch_add(cpu, dev->sim, &ub, swap_cgroup_get(&xd->cgroup, off + i));
		swap_cgroup_set(cpu, &xd->cgroup, off + i, 0);
	}
	sws__uncharge_batch_flush(cpu, dev->sim, &ub); /* mem_cgroup_uncharge_swap(entry, nr) */
	struct xa_space *sp = space_of(xd, off);
	space_lock(cpu, sp);
	sws__xa_erase_values(&sp->lx.xa, xa_index(off), nr);
	space_unlock(cpu, sp);
	sws___slot_free_notify(dev, off, nr);
	sws___swap_range_free(cpu, dev, ci, off, nr);
}

/*
 * ci->lock held: swap_entries_put_cache(): drop HAS_CACHE from @nr slots
 * (put_swap_folio(), the end of a bypassed swap-in, or undoing a failed
 * insert). Slots holding nothing but the flag are freed in one batch;
 * otherwise entry by entry.
 */
static void __drop_cache_flag(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			      uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct xa_dev *xd = xd_of(dev);
	if (sws___swap_map_only_cache(ci, &xd->map, off, nr)) {
		for (unsigned i = 0; i < nr; i++)
			__map_set(ci, xd, off + i, 0);
		__entries_free(cpu, dev, ci, off, nr);
		return;
	}
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = map_get(xd, off + i) & ~SWAP_HAS_CACHE;
		__map_set(ci, xd, off + i, b);
		if (!b)
			__entries_free(cpu, dev, ci, off + i, 1);
	}
}

/* ---- device lifecycle ----------------------------------------------------------------- */

static void xa_device_fini(struct sws_device *dev)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_mem *mem = &dev->sim->mem;
	if (!xd)
		return;
	if (xd->spaces) {
		for (uint32_t s = 0; s < xd->nr_spaces; s++)
			sws__xa_destroy(&xd->spaces[s].lx.xa);
		sws__mem_free(mem, SWS_MEM_xa_spaces, xd->spaces, sizeof(*xd->spaces) * xd->nr_spaces);
	}
	if (xd->map.map)
		sws__swap_map_fini(&xd->map);
	sws__swap_cgroup_fini(&xd->cgroup, mem);
	sws__zeromap_fini(&xd->zeromap, mem);
	sws__mem_free(mem, SWS_MEM_sim, xd, sizeof(*xd));
	dev->design = dev->design_index = NULL;
}

/* swapon: kvcalloc the address spaces, vzalloc swap_map, swap_cgroup and zeromap. */
static int xa_device_init(struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	struct sws_mem *mem = &sim->mem;
	struct xa_dev *xd = sws__mem_zalloc(mem, SWS_MEM_sim, sizeof(*xd), 0);
	if (!xd)
		return SWS_ENOMEM;
	dev->design = xd;
	xd->nr_spaces = (uint32_t)SWS_DIV_ROUND_UP(dev->max, 1u << SWAP_ADDRESS_SPACE_SHIFT);
	xd->spaces = sws__mem_zalloc(mem, SWS_MEM_xa_spaces, sizeof(*xd->spaces) * xd->nr_spaces,
				     SWS_CACHELINE);
	int rc = xd->spaces ? 0 : SWS_ENOMEM;
	if (!rc)
		rc = sws__swap_map_init(&xd->map, mem, dev->max);
	if (!rc)
		rc = sws__swap_cgroup_init(&xd->cgroup, mem, dev->max, dev->sim->memcg_off);
	if (!rc)
		rc = sws__zeromap_init(&xd->zeromap, mem, dev->max);
	if (rc) {
		xa_device_fini(dev);
		return rc;
	}
	dev->design_index = xd->spaces;
	for (uint32_t s = 0; s < xd->nr_spaces; s++) {
		sws_spin_init(&xd->spaces[s].lx.lock);
		sws__xa_init(&xd->spaces[s].lx.xa, mem, &sim->ctr[SWS_CTR_xa_node_free]);
	}
	/* The last cluster's slots beyond max have no swap_map byte: the core
	 * counts them in that cluster's count. */
	return 0;
}

/* ---- allocation ----------------------------------------------------------------------- */

/* cluster_scan_range(): a free slot has no swap_map byte; one pass over the range. */
static uint64_t xa_range_find(struct sws_device *dev, struct sws_cluster *ci, uint64_t start, uint64_t end,
			      unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct xa_dev *xd = xd_of(dev);
	for (uint64_t off = start; off + nr <= end; off += nr) {
		unsigned i = 0;
		while (i < nr && !map_get(xd, off + i))
			i++;
		if (i == nr)
			return off;
	}
	return 0;
}

/* The allocator's half of folio_alloc_swap(): SWAP_HAS_CACHE under ci->lock. */
static void xa_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			   unsigned nr, uint64_t pfn)
{
	(void)cpu;
	(void)pfn; /* the folio enters the tree in xa_alloc_finish() */
	SWS_ASSERT_HELD(&ci->lock);
	struct xa_dev *xd = xd_of(dev);
	for (unsigned i = 0; i < nr; i++)
		__map_set(ci, xd, off + i, SWAP_HAS_CACHE);
}

/* The space's xa_lock held: add_to_swap_cache()'s tree part: store the folio
 * in @nr slots, *shadow the first slot's old shadow. ENOMEM leaves the tree
 * unchanged. */
static int __tree_insert(struct xa_space *sp, uint64_t off, unsigned nr, uint64_t pfn,
			 uint64_t *shadow)
{
	SWS_ASSERT_HELD(&sp->lx.lock);
	uint64_t idx = xa_index(off);
	uintptr_t old = sws__xa_load(&sp->lx.xa, idx);
	int rc = sws__xa_store_range(&sp->lx.xa, idx, nr, xa_mk_pfn(pfn));
	if (!rc)
		*shadow = xa_is_value(old) ? xa_to_value(old) : 0;
	return rc;
}

/* folio_alloc_swap()'s second half: add_to_swap_cache() with the cluster unlocked. */
/* xa_lock held: a store's walk to @off's slot, counted as a lookup's loads are
 * (the head and one slot per level): the work report's meta_walk. */
static void __count_walk(struct sws_cpu *cpu, struct xa_space *sp, uint64_t off)
{
	SWS_ASSERT_HELD(&sp->lx.lock);
	unsigned loads;
	sws__xa_load_counted(&sp->lx.xa, xa_index(off), &loads);
	sws__work_maybe(cpu, SWS_WORK_meta_walk, loads);
}

static int xa_alloc_finish(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			   uint64_t pfn)
{
	struct xa_space *sp = space_of(xd_of(dev), off);
	uint64_t shadow;

	space_lock(cpu, sp);
	__count_walk(cpu, sp, off);
	int rc = __tree_insert(sp, off, nr, pfn, &shadow); /* free slots hold no shadow */
	space_unlock(cpu, sp);
	if (rc) {
		/* put_swap_folio(): the slots were never used, give them back. */
		struct sws_cluster *ci = sws__offset_cluster(dev, off);
		sws__cluster_lock(cpu, ci);
		__drop_cache_flag(cpu, dev, ci, off, nr);
		sws__cluster_unlock(ci);
	}
	return rc;
}

/* ---- counts ------------------------------------------------------------------------------ */

static bool xa_slot_unused(struct sws_device *dev, uint64_t off) { return swap_map_unused(map_get(xd_of(dev), off)); }

static const struct swap_map_slots xa_slots = {.unused = xa_slot_unused, .free = __entries_free};

/* swap_duplicate(), batched over @nr slots; continuation on overflow. */
static int xa_dup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	return sws__swap_duplicate(cpu, dev, &xd_of(dev)->map, &xa_slots, off, nr);
}

/* swap_entries_put_map(): drop one reference per slot; a uniform run of count
 * 1 goes as one batch, anything else one entry at a time. */
static int xa_put(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *only_cache)
{
	return sws__swap_entries_put_map(cpu, dev, &xd_of(dev)->map, &xa_slots, off, nr, only_cache);
}

static int xa_count(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	if (swap_map_unused(map_get(xd, off)))
		rc = SWS_ENOENT;
	else
		*count = __slot_count(cpu, ci, xd, off);
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- swap cache ---------------------------------------------------------------------------- */

/*
 * ci->lock held: swapcache_prepare(): validate @nr slots as cache_add does and
 * set SWAP_HAS_CACHE on them (the pin a swap-in holds while it reads).
 */
static int __cache_prepare(const struct sws_cluster *ci, struct xa_dev *xd, uint64_t off,
			   unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	unsigned nfree = 0, ncached = 0;
	bool differ = false;
	uint8_t first = map_get(xd, off);
	bool first_shadow = !swap_map_unused(first) && !(first & SWAP_HAS_CACHE);
	bool zero0 = zeromap_test(&xd->zeromap, off);
	uint16_t memcg0 = swap_cgroup_get(&xd->cgroup, off);
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = map_get(xd, off + i);
		bool is_free = swap_map_unused(b);
		nfree += is_free;
		ncached += !is_free && (b & SWAP_HAS_CACHE);
		if (!is_free && !(b & SWAP_HAS_CACHE) && first_shadow)
			differ |= zeromap_test(&xd->zeromap, off + i) != zero0 ||
				  swap_cgroup_get(&xd->cgroup, off + i) != memcg0;
	}
	int rc = sws__cache_add_verdict(nr, nfree, ncached, differ);
	if (rc)
		return rc;
	for (unsigned i = 0; i < nr; i++)
		__map_set(ci, xd, off + i, map_get(xd, off + i) | SWAP_HAS_CACHE);
	return 0;
}

/*
 * Swap-in: swapcache_prepare() under ci->lock, then add_to_swap_cache() under
 * the xa_lock. ENOMEM there undoes HAS_CACHE.
 */
static int xa_cache_add(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint64_t pfn, uint64_t *shadow)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);

	sws__cluster_lock(cpu, ci);
	int rc = __cache_prepare(ci, xd, off, nr);
	sws__cluster_unlock(ci);
	if (rc)
		return rc;

	struct xa_space *sp = space_of(xd, off);
	space_lock(cpu, sp);
	__count_walk(cpu, sp, off);
	rc = __tree_insert(sp, off, nr, pfn, shadow);
	space_unlock(cpu, sp);
	if (rc) {
		sws__cluster_lock(cpu, ci);
		__drop_cache_flag(cpu, dev, ci, off, nr); /* a racing put may have left nothing */
		sws__cluster_unlock(ci);
	}
	return rc;
}

/*
 * filemap_get_folio() on the swap address space (swap_address_space(entry),
 * swap_cache_index(entry)): an RCU tree walk from the device's spaces, no lock.
 */
static uint64_t xa_cache_lookup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned *loads)
{
	(void)cpu;
	struct xa_space *spaces = dev->design_index;
	uintptr_t e = sws__xa_load_counted(&spaces[off >> SWAP_ADDRESS_SPACE_SHIFT].lx.xa, xa_index(off), loads);
	return xa_is_pfn(e) ? xa_to_pfn(e) : 0;
}

/* swap_cache_get_shadow(): lock-free; swap_map tells a free slot from "no shadow". */
static int xa_cache_get_shadow(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
			       uint64_t *shadow)
{
	(void)cpu;
	struct xa_dev *xd = xd_of(dev);
	uintptr_t e = sws__xa_load(&space_of(xd, off)->lx.xa, xa_index(off));
	if (xa_is_value(e)) {
		*shadow = xa_to_value(e);
		return 0;
	}
	if (!e && swap_map_unused(map_get(xd, off)))
		return SWS_ENOENT;
	*shadow = 0;
	return 0;
}

/* The space's xa_lock held: every slot holds a folio (ENOTCACHED), and it is @pfn (EMISMATCH). */
static int __tree_check_folio(struct xa_space *sp, uint64_t off, unsigned nr, uint64_t pfn)
{
	SWS_ASSERT_HELD(&sp->lx.lock);
	uintptr_t e[SWS_CLUSTER_SLOTS];
	sws__xa_load_range(&sp->lx.xa, xa_index(off), nr, e);
	for (unsigned i = 0; i < nr; i++)
		if (!xa_is_pfn(e[i]))
			return SWS_ENOTCACHED;
	for (unsigned i = 0; i < nr; i++)
		if (xa_to_pfn(e[i]) != pfn)
			return SWS_EMISMATCH;
	return 0;
}

/*
 * __delete_from_swap_cache() then put_swap_folio(), in one ci->lock hold so
 * the call validates everything before changing anything: the tree slots get
 * the shadow under the xa_lock, then HAS_CACHE goes, and slots left with no
 * count are freed (which takes the xa_lock again to clear the shadow, as
 * swap_range_free() does).
 */
static int xa_cache_del(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint64_t pfn, uint64_t shadow)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct xa_space *sp = space_of(xd, off);
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	for (unsigned i = 0; i < nr && !rc; i++)
		if (!(map_get(xd, off + i) & SWAP_HAS_CACHE))
			rc = SWS_ENOTCACHED;
	if (rc)
		goto out;
	space_lock(cpu, sp);
	__count_walk(cpu, sp, off);
	rc = __tree_check_folio(sp, off, nr, pfn);
	if (!rc) /* overwrites existing slots or erases: allocates nothing, cannot fail */
		sws__xa_store_range(&sp->lx.xa, xa_index(off), nr, shadow ? xa_mk_value(shadow) : 0);
	space_unlock(cpu, sp);
	if (!rc)
		__drop_cache_flag(cpu, dev, ci, off, nr);
out:
	sws__cluster_unlock(ci);
	return rc;
}

/* Migration or split (__folio_migrate_mapping()): the xa_lock alone, as in the kernel. */
static int xa_cache_replace(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			    uint64_t old_pfn, uint64_t new_pfn)
{
	struct xa_space *sp = space_of(xd_of(dev), off);

	space_lock(cpu, sp);
	/* A folio in the tree implies HAS_CACHE: the tree alone decides. */
	int rc = __tree_check_folio(sp, off, nr, old_pfn);
	if (!rc) /* the slots exist: cannot fail */
		sws__xa_store_range(&sp->lx.xa, xa_index(off), nr, xa_mk_pfn(new_pfn));
	space_unlock(cpu, sp);
	return rc;
}

/* do_swap_page()'s SWP_SYNCHRONOUS_IO bypass: for one slot __swap_count() == 1,
 * then swapcache_prepare() alone (for a large folio's range only the latter:
 * the caller tested the faulting entry's count), and the shadow the slot holds
 * (for workingset_refault() of the bypassed folio). */
static int xa_pin(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *shadow)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	if (!(dev->h.flags & SWS_SWP_SYNCHRONOUS_IO))
		return SWS_EOPNOTSUPP;
	sws__cluster_lock(cpu, ci);
	int rc = nr > 1 || sws___swap_map_single(ci, &xd->map, off, 1) ? __cache_prepare(ci, xd, off, nr)
									: SWS_EAGAIN;
	sws__cluster_unlock(ci);
	if (!rc) {
		uintptr_t e = sws__xa_load(&space_of(xd, off)->lx.xa, xa_index(off));
		*shadow = xa_is_value(e) ? xa_to_value(e) : 0;
	}
	return rc;
}

/* RCU read lock held: no slot holds a folio in the tree (a pin is HAS_CACHE
 * without one). Lock-free loads, as xa_pin's shadow read: the kernel's
 * swapcache_clear() looks at nothing but swap_map, so no work is counted. */
static bool tree_no_folio(struct xa_space *sp, uint64_t off, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		if (xa_is_pfn(sws__xa_load(&sp->lx.xa, xa_index(off + i))))
			return false;
	return true;
}

/* swapcache_clear(): the bypassed swap-in is done. Only a pinned slot
 * (HAS_CACHE and no folio in the tree) is unpinned: HAS_CACHE over a folio is
 * the folio's, which only its deletion drops. */
static int xa_unpin(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	int rc = sws___swap_map_all_cached(ci, &xd->map, off, nr) ? 0 : SWS_ENOTCACHED;
	if (!rc && !tree_no_folio(space_of(xd, off), off, nr))
		rc = SWS_ENOTCACHED;
	if (!rc)
		__drop_cache_flag(cpu, dev, ci, off, nr);
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- zero flag, memcg: lock-free, as in 6.17 ------------------------------------------------ */

/* Every slot allocated? A lock-free peek (the kernel checks nothing here). */
static int check_allocated(struct xa_dev *xd, uint64_t off, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		if (swap_map_unused(map_get(xd, off + i)))
			return SWS_ENOENT;
	return 0;
}

/* swap_zeromap_folio_set()/clear(): set_bit()/clear_bit() per page. */
static int xa_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool zero)
{
	struct xa_dev *xd = xd_of(dev);
	int rc = check_allocated(xd, off, nr);
	for (unsigned i = 0; i < nr && !rc; i++)
		zeromap_set(cpu, &xd->zeromap, off + i, zero);
	return rc;
}

/* swap_read_folio_zeromap(): test_bit(). */
static bool xa_zero_test(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	(void)cpu;
	return zeromap_test(&xd_of(dev)->zeromap, off);
}

/* swap_cgroup_record(): one cmpxchg per slot. */
static int xa_set_memcg(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint16_t id)
{
	struct xa_dev *xd = xd_of(dev);
	int rc = check_allocated(xd, off, nr);
	struct sws__memcg_record mr = {.id = id};
	for (unsigned i = 0; i < nr && !rc; i++)
		sws__memcg_record_slot(cpu, dev->sim, &mr, swap_cgroup_set(cpu, &xd->cgroup, off + i, id));
	sws__memcg_record_done(cpu, dev->sim, &mr);
	return rc;
}

/* ---- introspection ------------------------------------------------------------------------- */

static void xa_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			  struct sws_slot_state *st)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct xa_dev *xd = xd_of(dev);
	uint8_t b = map_get(xd, off);
	if (!b)
		return;
	st->allocated = true;
	if (b == SWAP_MAP_BAD) {
		st->bad = true;
		return;
	}
	st->count = __slot_count(NULL, ci, xd, off);
	st->zero = zeromap_test(&xd->zeromap, off);
	st->memcg = swap_cgroup_get(&xd->cgroup, off);
	struct xa_space *sp = space_of(xd, off);
	space_lock(NULL, sp);
	uintptr_t e = sws__xa_load(&sp->lx.xa, xa_index(off));
	sws_spin_unlock(&sp->lx.lock); /* checks change nothing */
	if (xa_is_pfn(e)) {
		st->cached = true;
		st->pfn = xa_to_pfn(e);
	} else if (xa_is_value(e)) {
		st->shadow = xa_to_value(e);
	}
}

/* The tree of a whole space: shape, and no entry beyond the device's end. */
static int check_space(struct sws_device *dev, uint32_t s, char *msg, size_t len)
{
	struct xa_space *sp = &xd_of(dev)->spaces[s];
	uint64_t base = (uint64_t)s << SWAP_ADDRESS_SPACE_SHIFT, entries, max_index;
	space_lock(NULL, sp);
	int rc = sws__xa_verify(&sp->lx.xa, &entries, &max_index);
	sws_spin_unlock(&sp->lx.lock); /* checks change nothing */
	if (rc)
		SWS__CORRUPT(msg, len, "space %u: XArray shape broken", s);
	if (entries && base + max_index >= dev->max)
		SWS__CORRUPT(msg, len, "space %u: entry at offset %llu beyond the device", s,
			     (unsigned long long)(base + max_index));
	return 0;
}

/* ci->lock held: one slot's swap_map byte, digits, zeromap, memcg and tree
 * entry @e agree. */
static int __check_slot(struct sws_device *dev, const struct sws_cluster *ci, uint64_t off,
			uintptr_t e, char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct xa_dev *xd = xd_of(dev);
	uint8_t b = map_get(xd, off);
	unsigned long long o = (unsigned long long)off;

	if (b == SWAP_MAP_BAD && e)
		SWS__CORRUPT(msg, len, "slot %llu: header slot has a swap cache entry", o);
	if (!b) {
		if (e)
			SWS__CORRUPT(msg, len, "slot %llu: free slot has a swap cache %s", o,
				     xa_is_pfn(e) ? "folio" : "shadow");
		if (zeromap_test(&xd->zeromap, off) || swap_cgroup_get(&xd->cgroup, off))
			SWS__CORRUPT(msg, len, "slot %llu: free slot keeps zero flag or memcg %u", o,
				     swap_cgroup_get(&xd->cgroup, off));
	}
	int rc = sws___swap_map_check_slot(ci, &xd->map, off, msg, len);
	if (rc || b == SWAP_MAP_BAD)
		return rc;
	/* HAS_CACHE without a folio: a swap-in that bypasses the cache pinned the
	 * slot (SYNCHRONOUS_IO devices only); its count may be 1, or 0 once the
	 * caller put its reference, until the unpin. */
	if ((b & SWAP_HAS_CACHE) && !xa_is_pfn(e) && !(dev->h.flags & SWS_SWP_SYNCHRONOUS_IO))
		SWS__CORRUPT(msg, len, "slot %llu: SWAP_HAS_CACHE but no folio in the swap cache", o);
	if (!(b & SWAP_HAS_CACHE) && xa_is_pfn(e))
		SWS__CORRUPT(msg, len, "slot %llu: folio in the swap cache without SWAP_HAS_CACHE", o);
	if (b && !(b & SWAP_HAS_CACHE) && !(b & (SWAP_COUNT_MASK | COUNT_CONTINUED)))
		SWS__CORRUPT(msg, len, "slot %llu: allocated with no count and no cache", o);
	return 0;
}

static int xa_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct xa_dev *xd = xd_of(dev);
	uint32_t idx = sws__cluster_idx(dev, ci);
	uint64_t base = (uint64_t)idx * SWS_CLUSTER_SLOTS, end = sws__cluster_end(dev, ci);
	struct xa_space *sp = space_of(xd, base);
	unsigned used = (unsigned)(base + SWS_CLUSTER_SLOTS - end); /* tail beyond max */

	if (!(base & SWAP_ADDRESS_SPACE_MASK)) {
		int rc = check_space(dev, (uint32_t)(base >> SWAP_ADDRESS_SPACE_SHIFT), msg, len);
		if (rc)
			return rc;
	}
	uintptr_t e[SWS_CLUSTER_SLOTS];
	space_lock(NULL, sp);
	sws__xa_load_range(&sp->lx.xa, xa_index(base), end - base, e);
	sws_spin_unlock(&sp->lx.lock); /* checks change nothing */
	for (uint64_t off = base; off < end; off++) {
		int rc = __check_slot(dev, ci, off, e[off - base], msg, len);
		if (rc) {
			size_t n = strlen(msg);
			snprintf(msg + n, len > n ? len - n : 0, " (cluster %u)", idx);
			return rc;
		}
		used += map_get(xd, off) != 0;
	}
	if (used != ci->count)
		SWS__CORRUPT(msg, len, "cluster %u: count %u but swap_map says %u slots in use", idx, ci->count, used);
	return 0;
}

const struct sws_design_ops sws__xarray_ops = {
	.version = SWS_DESIGN_OPS_VERSION,
	.name = "xarray",
	.flags = SWS_DESIGN_RCU_BARRIER /* node frees reach their tree */ | SWS_DESIGN_SYNC_BYPASS |
		 SWS_DESIGN_CLUSTER_COLS,
	.device_init = xa_device_init,
	.device_fini = xa_device_fini,
	.range_find = xa_range_find,
	.range_alloc = xa_range_alloc,
	.alloc_finish = xa_alloc_finish,
	.dup = xa_dup,
	.put = xa_put,
	.count = xa_count,
	.cache_add = xa_cache_add,
	.cache_lookup = xa_cache_lookup,
	.cache_get_shadow = xa_cache_get_shadow,
	.cache_del = xa_cache_del,
	.cache_replace = xa_cache_replace,
	.pin = xa_pin,
	.unpin = xa_unpin,
	.set_zero = xa_set_zero,
	.zero_test = xa_zero_test,
	.set_memcg = xa_set_memcg,
	.slot_state = xa_slot_state,
	.check_cluster = xa_check_cluster,
};
