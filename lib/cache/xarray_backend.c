/*
 * xarray_backend.c - the XArray baseline backend: the per-slot metadata of
 * kernel 6.17, the last release before the swap table. It owns, per device:
 *
 *   swap_map       u8[max]           count + SWAP_HAS_CACHE + COUNT_CONTINUED
 *   continuation   4 KiB pages       overflowed counts, per 4096-slot swap_map page
 *   swap_cgroup    u16[max]          memcg ids
 *   zeromap        max bits          zero-filled pages
 *   spaces         [max / 16384]     address spaces: {xa_lock, XArray}: the swap cache
 *
 * The swap cache is one radix tree (xarray.h) per 64 MiB of swap, indexed by
 * offset & 0x3FFF (swap_cache_index(), 6.11+), holding a folio (as a PFN) or
 * a workingset shadow per slot. Two structures describe one slot, under two
 * locks: swap_map under ci->lock, the tree under the space's xa_lock. See
 * docs/xarray-baseline.md.
 *
 * The states of cache_ops.h map onto them:
 *   FREE    swap_map 0 (nothing in the tree)
 *   CACHED  SWAP_HAS_CACHE set, the folio in the tree; count 0 = cache-only
 *   SHADOW  count >= 1 without HAS_CACHE; the tree holds the shadow, or nothing
 *   BAD     SWAP_MAP_BAD (slot 0, the header)
 * HAS_CACHE is set before the folio enters the tree (swapcache_prepare, or
 * the allocation) and cleared after it left, so while a call is in flight a
 * slot may have HAS_CACHE and no folio yet; never a folio without HAS_CACHE.
 *
 * Count continuation (SWAP_MAP_MAX 62, SWAP_CONT_MAX 127). A count n is kept
 * as n = head + 63 * D, head = n % 63 in the swap_map byte's low 6 bits, and
 * D = n / 63 written in base 128 over continuation pages: digit k lives in
 * the k-th page chained from the slot's swap_map page, one byte per slot, its
 * bit 7 set when a higher digit is non-zero. The head byte's COUNT_CONTINUED
 * bit says D != 0. Pages are allocated on demand under the device's cont lock
 * and, like the kernel's, kept until swapoff.
 */
#include <stdio.h>
#include <string.h>

#include "cache_ops.h"
#include "xarray_backend.h"

#define SWAP_MAP_MAX 0x3Eu /* highest count the swap_map byte holds */
#define SWAP_MAP_BAD 0x3Fu
#define SWAP_HAS_CACHE 0x40u
#define COUNT_CONTINUED 0x80u
#define SWAP_COUNT_MASK 0x3Fu
#define SWAP_CONT_MAX 0x7Fu  /* highest digit of a continuation byte */
#define HEAD_BASE (SWAP_MAP_MAX + 1)
#define DIGIT_BITS 7


static_assert(sizeof(_Atomic uint8_t) == 1, "swap_map is one byte per slot");
static_assert(SWS_CLUSTER_SLOTS <= MAP_PAGE_SLOTS && MAP_PAGE_SLOTS % SWS_CLUSTER_SLOTS == 0,
	      "a cluster lies within one swap_map page");
static_assert((1u << SWAP_ADDRESS_SPACE_SHIFT) % SWS_CLUSTER_SLOTS == 0,
	      "a cluster lies within one address space");

static inline struct xa_dev *xd_of(struct sws_device *dev) { return dev->cache; }

static inline struct xa_space *space_of(struct xa_dev *xd, uint64_t off)
{
	return &xd->spaces[off >> SWAP_ADDRESS_SPACE_SHIFT];
}

static inline uint64_t xa_index(uint64_t off) { return off & SWAP_ADDRESS_SPACE_MASK; }

static inline uint8_t map_get(struct xa_dev *xd, uint64_t off)
{
	return atomic_load_explicit(&xd->swap_map[off], memory_order_relaxed);
}

/* __ swap_map bytes change under ci->lock; relaxed atomics let get_shadow peek without it. */
static inline void map_set(struct xa_dev *xd, uint64_t off, uint8_t v)
{
	atomic_store_explicit(&xd->swap_map[off], v, memory_order_relaxed);
}

static inline bool zero_get(struct xa_dev *xd, uint64_t off)
{
	return (sws_load_relaxed(&xd->zeromap[off / 64]) >> (off % 64)) & 1;
}

static inline void zero_set(struct sws_cpu *cpu, struct xa_dev *xd, uint64_t off, bool on)
{
	sws__work(cpu, SWS_WORK_atomic_rmw, 1); /* the zeromap is a lock-free bitmap */
	uint64_t bit = 1ull << (off % 64);
	if (on)
		atomic_fetch_or_explicit(&xd->zeromap[off / 64], bit, memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&xd->zeromap[off / 64], ~bit, memory_order_relaxed);
}

static void space_lock(struct sws_cpu *cpu, struct xa_space *sp)
{
	sws__lock_counted(cpu, &sp->lock, SWS_WORK_lock_xa, SWS_CTR_lock_xa_contended);
}

/* Unlock, counting the nodes the tree allocated and retired under the lock
 * (every writer has a CPU; lock holders without one change nothing). */
static void space_unlock(struct sws_cpu *cpu, struct xa_space *sp)
{
	uint64_t allocs = sp->tree.nr_alloc - sp->alloc_seen, retired = sp->tree.nr_retired - sp->retired_seen;
	if (allocs | retired) {
		sp->alloc_seen = sp->tree.nr_alloc;
		sp->retired_seen = sp->tree.nr_retired;
		sws__count(cpu, SWS_CTR_xa_node_alloc, allocs);
		sws__work(cpu, SWS_WORK_meta_alloc, allocs);
		sws__work(cpu, SWS_WORK_meta_free, retired);
	}
	sws_spin_unlock(&sp->lock);
}

/* si->cont_lock, counted. */
static void cont_lock(struct sws_cpu *cpu, struct xa_dev *xd)
{
	sws__lock_counted(cpu, &xd->cont_lock, SWS_WORK_lock_cont, SWS_CTR_lock_device_contended);
}

/* ---- counts and continuation pages --------------------------------------------------- */

/* __ cont_lock held: D of a continued slot, read digit by digit. */
static uint64_t cont_read(struct xa_dev *xd, uint64_t off)
{
	uint64_t d = 0;
	unsigned k = 0;
	struct cont_page *p = xd->cont ? xd->cont[off / MAP_PAGE_SLOTS] : NULL;
	for (; p; p = p->next, k++) {
		uint8_t b = p->digit[off % MAP_PAGE_SLOTS];
		d |= (uint64_t)(b & SWAP_CONT_MAX) << (DIGIT_BITS * k);
		if (!(b & COUNT_CONTINUED))
			break;
	}
	return d;
}

/* __ The swap count (references) of an allocated slot; cont_lock held if continued. */
static uint32_t slot_count(struct xa_dev *xd, uint64_t off)
{
	uint8_t b = map_get(xd, off);
	uint64_t n = b & SWAP_COUNT_MASK;
	if (b & COUNT_CONTINUED)
		n += HEAD_BASE * cont_read(xd, off);
	return (uint32_t)n;
}

/* Continuation pages a count of @n needs. */
static unsigned cont_levels(uint32_t n)
{
	unsigned levels = 0;
	for (uint32_t d = n / HEAD_BASE; d; d >>= DIGIT_BITS)
		levels++;
	return levels;
}

/*
 * __ cont_lock held: add_swap_count_continuation(): make sure the swap_map page
 * of @off has @levels digit pages. Pages made before a failure stay (empty).
 */
static int cont_ensure(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned levels)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_mem *mem = &dev->sim->mem;
	if (!levels)
		return 0;
	if (!xd->cont) {
		xd->cont = sws__mem_zalloc(mem, SWS_MEM_swap_cont, sizeof(*xd->cont) * xd->nr_map_pages, 0);
		if (!xd->cont)
			return SWS_ENOMEM;
	}
	struct cont_page **pp = &xd->cont[off / MAP_PAGE_SLOTS];
	for (unsigned k = 0; k < levels; k++, pp = &(*pp)->next) {
		if (*pp)
			continue;
		*pp = sws__mem_zalloc(mem, SWS_MEM_swap_cont, sizeof(struct cont_page), 64);
		if (!*pp)
			return SWS_ENOMEM;
		sws__count(cpu, SWS_CTR_swap_cont_alloc, 1);
		sws__work(cpu, SWS_WORK_meta_alloc, 1);
	}
	return 0;
}

/*
 * __ Set the count of an allocated slot to @n, keeping HAS_CACHE. cont_lock
 * held when the slot is continued or @n > SWAP_MAP_MAX (pages present).
 * Every existing digit page is rewritten, so digits above D read as 0.
 */
static void slot_set_count(struct xa_dev *xd, uint64_t off, uint32_t n)
{
	uint8_t b = map_get(xd, off);
	uint64_t d = n / HEAD_BASE;
	if (d || (b & COUNT_CONTINUED)) {
		struct cont_page *p = xd->cont[off / MAP_PAGE_SLOTS];
		for (uint64_t rest = d; p; p = p->next, rest >>= DIGIT_BITS) {
			uint8_t digit = rest & SWAP_CONT_MAX;
			p->digit[off % MAP_PAGE_SLOTS] =
				(uint8_t)(digit | ((rest >> DIGIT_BITS) ? COUNT_CONTINUED : 0));
		}
	}
	map_set(xd, off, (uint8_t)((b & SWAP_HAS_CACHE) | (n % HEAD_BASE) | (d ? COUNT_CONTINUED : 0)));
}

/* __ Does any of the @nr slots from @off use continuation pages? */
static bool range_continued(struct xa_dev *xd, uint64_t off, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++)
		if (map_get(xd, off + i) & COUNT_CONTINUED)
			return true;
	return false;
}

/* ---- freeing slots -------------------------------------------------------------------- */

/* Slots of one call (<= 512, one cluster) to free, as a bitmap. */
struct freed {
	uint64_t bits[SWS_CLUSTER_SLOTS / 64];
	unsigned nr;
};

static inline void freed_add(struct freed *f, unsigned i)
{
	f->bits[i / 64] |= 1ull << (i % 64);
	f->nr++;
}

static inline bool freed_has(const struct freed *f, unsigned i)
{
	return (f->bits[i / 64] >> (i % 64)) & 1;
}

/*
 * __ clear_shadow_from_swap_cache(): erase the shadows left in the tree for
 * @nr just-freed slots (takes the xa_lock, as the kernel does on every free).
 */
static void clear_shadow(struct sws_cpu *cpu, struct xa_dev *xd, uint64_t off, unsigned nr)
{
	struct xa_space *sp = space_of(xd, off);
	space_lock(cpu, sp);
	sws__xa_erase_values(&sp->tree, xa_index(off), nr);
	space_unlock(cpu, sp);
}

/*
 * __ swap_entries_free(): the slots in @f (relative to @off) have swap_map 0
 * now; clear their zero flag and memcg, erase their shadows run by run, and
 * give them back to the cluster (swap_range_free).
 */
static void release_freed(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			  uint64_t off, unsigned nr, const struct freed *f)
{
	struct xa_dev *xd = xd_of(dev);
	if (!f->nr)
		return;
	for (unsigned i = 0; i < nr;) {
		if (!freed_has(f, i)) {
			i++;
			continue;
		}
		unsigned start = i;
		for (; i < nr && freed_has(f, i); i++) {
			zero_set(cpu, xd, off + i, false);
			xd->memcg[off + i] = 0;
		}
		clear_shadow(cpu, xd, off + start, i - start);
		sws__slot_free_notify(dev, off + start, i - start);
	}
	sws__swap_range_free(cpu, dev, ci, off, f->nr);
}

/*
 * __ Drop HAS_CACHE from @nr slots (put_swap_folio(), or undoing a failed
 * insert); those left with no count are freed.
 */
static void drop_cache_flag(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			    uint64_t off, unsigned nr)
{
	struct xa_dev *xd = xd_of(dev);
	struct freed f = {0};
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = map_get(xd, off + i) & ~SWAP_HAS_CACHE;
		map_set(xd, off + i, b);
		if (!b)
			freed_add(&f, i);
	}
	release_freed(cpu, dev, ci, off, nr, &f);
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
			sws__xa_destroy(&xd->spaces[s].tree);
		sws__mem_free(mem, SWS_MEM_xa_spaces, xd->spaces, sizeof(*xd->spaces) * xd->nr_spaces);
	}
	if (xd->cont) {
		for (uint32_t pg = 0; pg < xd->nr_map_pages; pg++) {
			struct cont_page *p = xd->cont[pg];
			while (p) {
				struct cont_page *next = p->next;
				sws__mem_free(mem, SWS_MEM_swap_cont, p, sizeof(*p));
				p = next;
			}
		}
		sws__mem_free(mem, SWS_MEM_swap_cont, xd->cont, sizeof(*xd->cont) * xd->nr_map_pages);
	}
	sws__mem_free(mem, SWS_MEM_swap_map, (void *)xd->swap_map, dev->max);
	sws__mem_free(mem, SWS_MEM_swap_cgroup, xd->memcg, sizeof(*xd->memcg) * dev->max);
	sws__mem_free(mem, SWS_MEM_zeromap, (void *)xd->zeromap,
		      sizeof(*xd->zeromap) * SWS_DIV_ROUND_UP(dev->max, 64));
	sws__mem_free(mem, SWS_MEM_sim, xd, sizeof(*xd));
	dev->cache = dev->cache_index = NULL;
}

/* swapon: kvcalloc the address spaces, vzalloc swap_map, swap_cgroup and zeromap. */
static int xa_device_init(struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	struct sws_mem *mem = &sim->mem;
	struct xa_dev *xd = sws__mem_zalloc(mem, SWS_MEM_sim, sizeof(*xd), 0);
	if (!xd)
		return SWS_ENOMEM;
	dev->cache = xd;
	xd->nr_spaces = (uint32_t)SWS_DIV_ROUND_UP(dev->max, 1u << SWAP_ADDRESS_SPACE_SHIFT);
	xd->nr_map_pages = (uint32_t)SWS_DIV_ROUND_UP(dev->max, MAP_PAGE_SLOTS);
	sws_spin_init(&xd->cont_lock);
	xd->spaces = sws__mem_zalloc(mem, SWS_MEM_xa_spaces, sizeof(*xd->spaces) * xd->nr_spaces,
				     SWS_CACHELINE);
	xd->swap_map = sws__mem_zalloc(mem, SWS_MEM_swap_map, dev->max, 0);
	xd->memcg = sws__mem_zalloc(mem, SWS_MEM_swap_cgroup, sizeof(*xd->memcg) * dev->max, 0);
	xd->zeromap = sws__mem_zalloc(mem, SWS_MEM_zeromap,
				      sizeof(*xd->zeromap) * SWS_DIV_ROUND_UP(dev->max, 64), 0);
	if (!xd->spaces || !xd->swap_map || !xd->memcg || !xd->zeromap) {
		xa_device_fini(dev);
		return SWS_ENOMEM;
	}
	dev->cache_index = xd->spaces;
	for (uint32_t s = 0; s < xd->nr_spaces; s++) {
		sws_spin_init(&xd->spaces[s].lock);
		sws__xa_init(&xd->spaces[s].tree, mem, &sim->ctr[SWS_CTR_xa_node_free]);
	}
	/* The header. The last cluster's slots beyond max have no swap_map byte:
	 * the core counts them in that cluster's count. */
	map_set(xd, 0, SWAP_MAP_BAD);
	return 0;
}

/* Per-cluster tables: the baseline has none, everything is static. */
static int xa_cluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	(void)cpu;
	(void)dev;
	(void)ci;
	return 0;
}

static void xa_cluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	(void)cpu;
	(void)dev;
	(void)ci;
}

/* ---- allocation ----------------------------------------------------------------------- */

static bool xa_range_free(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, unsigned nr)
{
	(void)ci;
	struct xa_dev *xd = xd_of(dev);
	for (unsigned i = 0; i < nr; i++)
		if (map_get(xd, off + i))
			return false;
	return true;
}

static void xa_range_alloc(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, unsigned nr,
			   uint64_t pfn)
{
	(void)ci;
	(void)pfn; /* the folio goes into the tree in alloc_finish, after ci->lock */
	struct xa_dev *xd = xd_of(dev);
	for (unsigned i = 0; i < nr; i++)
		map_set(xd, off + i, SWAP_HAS_CACHE);
}

/*
 * __ xa_lock held: add_to_swap_cache()'s tree part: create the range, then
 * store the folio in each slot. @return 0 and the first slot's old shadow
 * (0: none), or SWS_ENOMEM with the tree unchanged.
 */
static int tree_insert(struct sws_cpu *cpu, struct xa_space *sp, uint64_t off, unsigned nr,
		       uint64_t pfn, uint64_t *shadow)
{
	(void)cpu; /* node allocations are counted at space_unlock() */
	uint64_t idx = xa_index(off);
	uintptr_t old = sws__xa_load(&sp->tree, idx);
	int rc = sws__xa_store_range(&sp->tree, idx, nr, xa_mk_pfn(pfn));
	if (!rc)
		*shadow = xa_is_value(old) ? xa_to_value(old) : 0;
	return rc;
}

/* folio_alloc_swap()'s second half: add_to_swap_cache() with the cluster unlocked. */
static int xa_alloc_finish(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			   uint64_t pfn)
{
	struct xa_dev *xd = xd_of(dev);
	struct xa_space *sp = space_of(xd, off);
	uint64_t shadow;

	space_lock(cpu, sp);
	int rc = tree_insert(cpu, sp, off, nr, pfn, &shadow); /* free slots hold no shadow */
	space_unlock(cpu, sp);
	if (rc) {
		/* put_swap_folio(): the slots were never used, give them back. */
		struct sws_cluster *ci = sws__offset_cluster(dev, off);
		sws__cluster_lock(cpu, ci);
		drop_cache_flag(cpu, dev, ci, off, nr);
		sws__cluster_unlock(ci);
	}
	return rc;
}

/* ---- counts ------------------------------------------------------------------------------ */

/* swap_duplicate(), batched over @nr slots; continuation on overflow. */
static int xa_dup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	unsigned levels = 0;
	bool cont = false;
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	for (unsigned i = 0; i < nr && !rc; i++) {
		uint8_t b = map_get(xd, off + i);
		if (!b || b == SWAP_MAP_BAD)
			rc = SWS_ENOENT;
		/* A head at SWAP_MAP_MAX carries into the continuation digits. */
		cont |= (b & COUNT_CONTINUED) || (b & SWAP_COUNT_MASK) == SWAP_MAP_MAX;
	}
	if (rc)
		goto out;
	if (cont)
		cont_lock(cpu, xd);
	for (unsigned i = 0; i < nr && !rc; i++) {
		uint32_t c = slot_count(xd, off + i);
		if (c + 1 > SWS_SWAP_COUNT_MAX)
			rc = SWS_EOVERFLOW;
		unsigned l = cont_levels(c + 1);
		levels = l > levels ? l : levels;
	}
	if (!rc)
		rc = cont_ensure(cpu, dev, off, levels);
	for (unsigned i = 0; i < nr && !rc; i++)
		slot_set_count(xd, off + i, slot_count(xd, off + i) + 1);
	if (cont)
		sws_spin_unlock(&xd->cont_lock);
out:
	sws__cluster_unlock(ci);
	return rc;
}

/* swap_entries_put_map(): drop one reference per slot; free those left with nothing. */
static int xa_put(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct freed f = {0};
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	for (unsigned i = 0; i < nr && !rc; i++) {
		uint8_t b = map_get(xd, off + i);
		if (!b || b == SWAP_MAP_BAD)
			rc = SWS_EFREE;
	}
	if (rc)
		goto out;
	bool cont = range_continued(xd, off, nr);
	if (cont)
		cont_lock(cpu, xd);
	for (unsigned i = 0; i < nr && !rc; i++)
		if (!slot_count(xd, off + i))
			rc = SWS_ERANGE; /* cache-only: no reference to drop */
	for (unsigned i = 0; i < nr && !rc; i++) {
		/* A continued count borrows from its digits: canonical re-encoding. */
		slot_set_count(xd, off + i, slot_count(xd, off + i) - 1);
		if (!map_get(xd, off + i))
			freed_add(&f, i);
	}
	if (cont)
		sws_spin_unlock(&xd->cont_lock);
	release_freed(cpu, dev, ci, off, nr, &f);
out:
	sws__cluster_unlock(ci);
	return rc;
}

static int xa_count(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	uint8_t b = map_get(xd, off);
	if (!b || b == SWAP_MAP_BAD) {
		rc = SWS_ENOENT;
	} else if (b & COUNT_CONTINUED) {
		cont_lock(cpu, xd);
		*count = slot_count(xd, off);
		sws_spin_unlock(&xd->cont_lock);
	} else {
		*count = slot_count(xd, off);
	}
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- swap cache ---------------------------------------------------------------------------- */

/*
 * Swap-in: swapcache_prepare() under ci->lock (validate, set HAS_CACHE), then
 * add_to_swap_cache() under the xa_lock. ENOMEM there undoes HAS_CACHE.
 */
static int xa_cache_add(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint64_t pfn, uint64_t *shadow)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	unsigned nfree = 0, ncached = 0;
	bool differ = false;
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	uint8_t first = map_get(xd, off);
	bool first_shadow = first && first != SWAP_MAP_BAD && !(first & SWAP_HAS_CACHE);
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = map_get(xd, off + i);
		bool is_free = !b || b == SWAP_MAP_BAD;
		nfree += is_free;
		ncached += !is_free && (b & SWAP_HAS_CACHE);
		if (!is_free && !(b & SWAP_HAS_CACHE) && first_shadow)
			differ |= zero_get(xd, off + i) != zero_get(xd, off) ||
				  xd->memcg[off + i] != xd->memcg[off];
	}
	if (nfree == nr)
		rc = SWS_ENOENT;
	else if (ncached)
		rc = SWS_EEXIST;
	else if (nfree || differ)
		rc = SWS_EBUSY;
	for (unsigned i = 0; i < nr && !rc; i++)
		map_set(xd, off + i, map_get(xd, off + i) | SWAP_HAS_CACHE);
	sws__cluster_unlock(ci);
	if (rc)
		return rc;

	struct xa_space *sp = space_of(xd, off);
	space_lock(cpu, sp);
	rc = tree_insert(cpu, sp, off, nr, pfn, shadow);
	space_unlock(cpu, sp);
	if (rc) {
		sws__cluster_lock(cpu, ci);
		drop_cache_flag(cpu, dev, ci, off, nr); /* a racing put may have left nothing */
		sws__cluster_unlock(ci);
	}
	return rc;
}

static uint64_t xa_cache_lookup(struct sws_device *dev, uint64_t off, unsigned *loads)
{
	return sws__xa_swap_lookup(dev->cache_index, off, loads);
}

/* swap_cache_get_shadow(): lock-free; swap_map tells a free slot from "no shadow". */
static int xa_cache_get_shadow(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
			       uint64_t *shadow)
{
	(void)cpu;
	struct xa_dev *xd = xd_of(dev);
	uintptr_t e = sws__xa_load(&space_of(xd, off)->tree, xa_index(off));
	if (xa_is_value(e)) {
		*shadow = xa_to_value(e);
		return 0;
	}
	if (!e) {
		uint8_t b = map_get(xd, off);
		if (!b || b == SWAP_MAP_BAD)
			return SWS_ENOENT;
	}
	*shadow = 0;
	return 0;
}

/* __ xa_lock held: every slot holds a folio (ENOTCACHED), and it is @pfn (EMISMATCH). */
static int tree_check_folio(struct xa_space *sp, uint64_t off, unsigned nr, uint64_t pfn)
{
	uintptr_t e[SWS_CLUSTER_SLOTS];
	sws__xa_load_range(&sp->tree, xa_index(off), nr, e);
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
	uint64_t idx = xa_index(off);
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	for (unsigned i = 0; i < nr && !rc; i++)
		if (!(map_get(xd, off + i) & SWAP_HAS_CACHE))
			rc = SWS_ENOTCACHED;
	if (rc)
		goto out;
	space_lock(cpu, sp);
	rc = tree_check_folio(sp, off, nr, pfn);
	if (!rc) /* overwrites existing slots or erases: allocates nothing, cannot fail */
		sws__xa_store_range(&sp->tree, idx, nr, shadow ? xa_mk_value(shadow) : 0);
	space_unlock(cpu, sp);
	if (!rc)
		drop_cache_flag(cpu, dev, ci, off, nr);
out:
	sws__cluster_unlock(ci);
	return rc;
}

/* Migration or split (__folio_migrate_mapping()): the xa_lock alone, as in the kernel. */
static int xa_cache_replace(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			    uint64_t old_pfn, uint64_t new_pfn)
{
	struct xa_space *sp = space_of(xd_of(dev), off);
	uint64_t idx = xa_index(off);

	space_lock(cpu, sp);
	/* A folio in the tree implies HAS_CACHE: the tree alone decides. */
	int rc = tree_check_folio(sp, off, nr, old_pfn);
	if (!rc) /* the slots exist: cannot fail */
		sws__xa_store_range(&sp->tree, idx, nr, xa_mk_pfn(new_pfn));
	space_unlock(cpu, sp);
	return rc;
}

/* ---- zero flag, memcg ------------------------------------------------------------------------ */

/* __ Every slot allocated? */
static int check_allocated(struct xa_dev *xd, uint64_t off, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = map_get(xd, off + i);
		if (!b || b == SWAP_MAP_BAD)
			return SWS_ENOENT;
	}
	return 0;
}

static int xa_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
		       bool zero)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	int rc = check_allocated(xd, off, nr);
	for (unsigned i = 0; i < nr && !rc; i++)
		zero_set(cpu, xd, off + i, zero);
	sws__cluster_unlock(ci);
	return rc;
}

/* swap_cgroup_record(). */
static int xa_set_memcg(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint16_t id)
{
	struct xa_dev *xd = xd_of(dev);
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	int rc = check_allocated(xd, off, nr);
	for (unsigned i = 0; i < nr && !rc; i++)
		xd->memcg[off + i] = id;
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- introspection ------------------------------------------------------------------------- */

static void xa_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			  struct sws_slot_state *st)
{
	(void)ci;
	struct xa_dev *xd = xd_of(dev);
	uint8_t b = map_get(xd, off);
	if (!b)
		return;
	st->allocated = true;
	if (b == SWAP_MAP_BAD) {
		st->bad = true;
		return;
	}
	if (b & COUNT_CONTINUED) {
		cont_lock(NULL, xd);
		st->count = slot_count(xd, off);
		sws_spin_unlock(&xd->cont_lock);
	} else {
		st->count = slot_count(xd, off);
	}
	st->zero = zero_get(xd, off);
	st->memcg = xd->memcg[off];
	struct xa_space *sp = space_of(xd, off);
	space_lock(NULL, sp);
	uintptr_t e = sws__xa_load(&sp->tree, xa_index(off));
	sws_spin_unlock(&sp->lock); /* checks change nothing */
	if (xa_is_pfn(e)) {
		st->cached = true;
		st->pfn = xa_to_pfn(e);
	} else if (xa_is_value(e)) {
		st->shadow = xa_to_value(e);
	}
}

/* __ The tree of a whole space: shape, and no entry beyond the device's end. */
static int check_space(struct sws_device *dev, uint32_t s, char *msg, size_t len)
{
	struct xa_space *sp = &xd_of(dev)->spaces[s];
	uint64_t base = (uint64_t)s << SWAP_ADDRESS_SPACE_SHIFT, entries, max_index;
	space_lock(NULL, sp);
	int rc = sws__xa_verify(&sp->tree, &entries, &max_index);
	sws_spin_unlock(&sp->lock); /* checks change nothing */
	if (rc)
		SWS__CORRUPT(msg, len, "space %u: XArray shape broken", s);
	if (entries && base + max_index >= dev->max)
		SWS__CORRUPT(msg, len, "space %u: entry at offset %llu beyond the device", s,
			(unsigned long long)(base + max_index));
	return 0;
}

/* __ One slot's swap_map byte, digits, zeromap, memcg and tree entry agree. */
static int check_slot(struct sws_device *dev, uint64_t off, uintptr_t e, char *msg, size_t len)
{
	struct xa_dev *xd = xd_of(dev);
	uint8_t b = map_get(xd, off);
	unsigned long long o = (unsigned long long)off;

	if (b == SWAP_MAP_BAD) {
		if (off)
			SWS__CORRUPT(msg, len, "slot %llu: SWAP_MAP_BAD outside the header", o);
		if (e)
			SWS__CORRUPT(msg, len, "slot %llu: header slot has a swap cache entry", o);
		return 0;
	}
	if (!b) {
		if (e)
			SWS__CORRUPT(msg, len, "slot %llu: free slot has a swap cache %s", o,
				xa_is_pfn(e) ? "folio" : "shadow");
		if (zero_get(xd, off) || xd->memcg[off])
			SWS__CORRUPT(msg, len, "slot %llu: free slot keeps zero flag or memcg %u", o, xd->memcg[off]);
	}
	if ((b & SWAP_COUNT_MASK) > SWAP_MAP_MAX)
		SWS__CORRUPT(msg, len, "slot %llu: swap_map byte 0x%02x", o, b);
	if ((b & SWAP_HAS_CACHE) && !xa_is_pfn(e))
		SWS__CORRUPT(msg, len, "slot %llu: SWAP_HAS_CACHE but no folio in the swap cache", o);
	if (!(b & SWAP_HAS_CACHE) && xa_is_pfn(e))
		SWS__CORRUPT(msg, len, "slot %llu: folio in the swap cache without SWAP_HAS_CACHE", o);
	uint64_t d = 0;
	if (xd->cont) {
		cont_lock(NULL, xd);
		bool stale = false;
		d = (b & COUNT_CONTINUED) ? cont_read(xd, off) : 0;
		for (struct cont_page *p = xd->cont[off / MAP_PAGE_SLOTS]; p && !(b & COUNT_CONTINUED); p = p->next)
			stale |= p->digit[off % MAP_PAGE_SLOTS] != 0;
		sws_spin_unlock(&xd->cont_lock);
		if (stale)
			SWS__CORRUPT(msg, len, "slot %llu: continuation digits without COUNT_CONTINUED", o);
	}
	if ((b & COUNT_CONTINUED) && !d)
		SWS__CORRUPT(msg, len, "slot %llu: COUNT_CONTINUED with a zero continuation", o);
	if (b && !(b & SWAP_HAS_CACHE) && !(b & (SWAP_COUNT_MASK | COUNT_CONTINUED)))
		SWS__CORRUPT(msg, len, "slot %llu: allocated with no count and no cache", o);
	return 0;
}

static int xa_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
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
	sws__xa_load_range(&sp->tree, xa_index(base), end - base, e);
	sws_spin_unlock(&sp->lock); /* checks change nothing */
	for (uint64_t off = base; off < end; off++) {
		int rc = check_slot(dev, off, e[off - base], msg, len);
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

const struct sws_cache_ops sws__xarray_ops = {
	.version = SWS_CACHE_OPS_VERSION,
	.name = "xarray",
	.swapoff_barrier = true, /* node frees reach their tree */
	.device_init = xa_device_init,
	.device_fini = xa_device_fini,
	.cluster_get = xa_cluster_get,
	.cluster_put = xa_cluster_put,
	.range_free = xa_range_free,
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
	.set_zero = xa_set_zero,
	.set_memcg = xa_set_memcg,
	.slot_state = xa_slot_state,
	.check_cluster = xa_check_cluster,
};
