/*
 * vswap.c - the "vswap-st" design: virtual swap space on the swap table, as
 * the "Swap Table Edition" RFC posts it (2026-05-28, on swap table phase IV;
 * mm/vswap.h). Page tables hold entries of a ghost swap device (vswap_si)
 * whose slots are phase IV slots (swap_table.h: PFN or shadow, count, Z bit,
 * memcg table) plus one more word per slot, the virtual table, saying what
 * backs the page when no folio does:
 *
 *   ghost device (extendable, grow-only)             a physical device (swapon)
 *   cluster c: table[512]    PFN/shadow, count, Z    cluster p: table[512] of
 *              memcg[512]    u16                       Pointer entries:
 *              vtable[512]:  NONE      0 ... 000       63: cache-only
 *                            ZSWAP     entry* | 001    62..3: ghost offset
 *                            SWAPFILE  type:5 off:56   2..0: 100
 *                                      | 010 ──────────▶ (the reverse map)
 *
 * A virtual slot is looked up as any phase IV slot: the ghost cluster's
 * table pointer from the device's array (no XArray, the swap cache lock-free);
 * its virtual table is allocated and freed with the cluster's other tables
 * (table.c). Physical slots are allocated lazily, only when a page must be
 * written (sws_swap_io_target(): reclaim's writeout when zswap refused it, or
 * zswap writeback: folio_realloc_swap()), and the physical cluster's table
 * holds, for each slot, a Pointer entry back to the ghost slot, with a
 * cache-only bit set while the ghost slot's count is 0 (swap-cache-only:
 * the physical reclaim scanner reads it without chasing the reverse map).
 * zswap and zero pages take no physical slot: a zswap entry lives in the
 * virtual table (no zswap tree), a zero page is the Z bit with NONE.
 *
 * Free: a ghost slot that phase IV frees (count 0, no folio) releases its
 * backing under the same ghost ci->lock (__vswap_release_backing()): the
 * zswap entry, or the physical slot under its own cluster's lock. Swapoff
 * of a physical device walks no page table: its Pointer entries lead to the
 * ghost slots, whose pages are read into the swap cache and become
 * NONE-backed (the memory model's unuse_physical()).
 *
 * Locking, outer first: ghost ci->lock -> physical ci->lock -> dev->lock.
 * The virtual table is read and written under the ghost ci->lock; the
 * cache-only bit of a physical entry is flipped with an atomic operation
 * under the ghost lock only, as the RFC does (the physical entry is stable
 * while the virtual table holds it as SWAPFILE).
 *
 * Simplified: backings are released slot by slot (one physical cluster lock
 * per physical slot freed; the RFC's __vswap_release_backing() takes a
 * range); the ghost device's dynamic cluster headers (swap_cluster_info_dynamic
 * in an XArray pool, kfree_rcu'd when empty) are the core's cluster_info of the
 * mapped chunks, which only grow, charged as vswap_cluster; the static key
 * (vswap off until the ghost device exists) is not modelled.
 */
#include <stdio.h>

#include "../virtual_device.h"
#include "swap_table.h"

/* ---- virtual table entries (mm/vswap.h) ---------------------------------------------- */

#define VT_TAG_MASK 7ull
#define VT_OFF_SHIFT 3
#define VT_TYPE_SHIFT 59 /* 5 bits of swap type above 56 of offset */
#define VT_OFF_MASK ((1ull << 56) - 1)
enum { VT_NONE = 0, VT_ZSWAP = 1, VT_SWAPFILE = 2 };

static inline unsigned vt_type(uint64_t vt) { return (unsigned)(vt & VT_TAG_MASK); }
static inline uint64_t vt_mk_phys(sws_entry_t e)
{
	return ((uint64_t)sws_swp_type(e) << VT_TYPE_SHIFT) | (sws_swp_offset(e) << VT_OFF_SHIFT) | VT_SWAPFILE;
}
static inline sws_entry_t vt_to_phys(uint64_t vt)
{
	return sws_swp_entry((unsigned)(vt >> VT_TYPE_SHIFT), (vt >> VT_OFF_SHIFT) & VT_OFF_MASK);
}
static inline uint64_t vt_mk_zswap(void *entry) { return (uint64_t)(uintptr_t)entry | VT_ZSWAP; }
static inline void *vt_to_zswap(uint64_t vt) { return (void *)(uintptr_t)(vt & ~VT_TAG_MASK); }

/* ---- physical table entries: Pointer (tag 100) ------------------------------------------ */

#define SWP_TB_POINTER 4ull
#define SWP_RMAP_CACHE_ONLY (1ull << 63)

static inline bool swp_tb_is_pointer(uint64_t tb) { return (tb & 7) == SWP_TB_POINTER; }
static inline uint64_t pointer_to_swp_tb(uint64_t voff) { return (voff << 3) | SWP_TB_POINTER; }
static inline uint64_t swp_tb_to_voff(uint64_t tb) { return (tb & ~SWP_RMAP_CACHE_ONLY) >> 3; }

/* Ghost ci->lock of @off held: its cluster's virtual table (NULL: free). */
static inline _Atomic uint64_t *__vtable(struct sws_device *dev, uint64_t off)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	return atomic_load_explicit(&st_dev(dev)->vtables[off / SWS_CLUSTER_SLOTS], memory_order_relaxed);
}

/* ---- physical slots ----------------------------------------------------------------------- */

/* swap_slot_free_nr(): @nr physical slots from @phys back, under their cluster's lock. */
static void phys_free(struct sws_cpu *cpu, struct sws_sim *sim, sws_entry_t phys, unsigned nr)
{
	struct sws_device *pdev = sws__device(sim, sws_swp_type(phys));
	uint64_t off = sws_swp_offset(phys);
	struct sws_cluster *ci = sws__offset_cluster(pdev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(pdev, off);
	for (unsigned i = 0; i < nr; i++)
		__tb_set(ci, t, st_slot(off + i), SWP_TB_NULL);
	sws___swap_range_free(cpu, pdev, ci, off, nr);
	sws__cluster_unlock(ci);
}

void sws___vst_release_backing(struct sws_cpu *cpu, struct sws_device *dev, const struct sws_cluster *ci,
			       uint64_t off)
{
	SWS_ASSERT_HELD(&ci->lock);
	_Atomic uint64_t *vt = __vtable(dev, off);
	uint64_t v = tb_get(vt, st_slot(off));
	if (vt_type(v) == VT_NONE)
		return;
	atomic_store_explicit(&vt[st_slot(off)], VT_NONE, memory_order_relaxed);
	if (vt_type(v) == VT_ZSWAP)
		sws___zswap_release(dev->sim, sws__offset_cluster(dev, off), vt_to_zswap(v));
	else
		phys_free(cpu, dev->sim, vt_to_phys(v), 1);
}

/* The physical table word behind SWAPFILE entry @v (its cluster is in use:
 * the slot is allocated). */
static _Atomic uint64_t *phys_word(struct sws_sim *sim, uint64_t v)
{
	sws_entry_t p = vt_to_phys(v);
	struct sws_device *pdev = sws__device(sim, sws_swp_type(p));
	return &st_rcu_table(pdev, sws_swp_offset(p))[st_slot(sws_swp_offset(p))];
}

void sws___vst_cache_only(struct sws_cpu *cpu, struct sws_device *dev, const struct sws_cluster *ci, uint64_t off,
			  uint32_t count)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint64_t v = tb_get(__vtable(dev, off), st_slot(off));
	if (vt_type(v) != VT_SWAPFILE)
		return;
	_Atomic uint64_t *w = phys_word(dev->sim, v);
	if (count)
		atomic_fetch_and_explicit(w, ~SWP_RMAP_CACHE_ONLY, memory_order_relaxed);
	else
		atomic_fetch_or_explicit(w, SWP_RMAP_CACHE_ONLY, memory_order_relaxed);
	sws__work_maybe(cpu, SWS_WORK_atomic_rmw, 1);
}

/* ---- the ghost device ---------------------------------------------------------------------- */

/* The ghost device's cluster_info grows as xswap's does, one 4 KiB page of
 * 48-byte cluster_info (85 clusters) at a time, and never shrinks. */
#define GHOST_CHUNK 85u

static uint32_t ghost_grow_to(struct sws_device *dev, uint32_t mapped, unsigned nr)
{
	(void)nr;
	SWS_ASSERT_HELD(&dev->ext->lock);
	return mapped + GHOST_CHUNK;
}

static uint32_t ghost_shrink_count(struct sws_device *dev, uint32_t mapped, uint32_t tail)
{
	(void)mapped;
	(void)tail;
	SWS_ASSERT_HELD(&dev->ext->lock);
	return 0; /* grow-only */
}

static const struct sws_ext_ops ghost_ext_ops = {
	.grow_to = ghost_grow_to,
	.shrink_count = ghost_shrink_count,
};

unsigned sws__vst_ghost_type(struct sws_sim *sim)
{
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device *dev = sws__device(sim, t);
		if (dev && (dev->h.flags & SWS_SWP_VIRTUAL))
			return t;
	}
	return 0; /* none yet: the ghost device itself is being made */
}

/* vswap_init(): the ghost device comes with the simulation. */
int sws__vst_sim_init(struct sws_sim *sim) { return sws__virtual_device_add(sim, &ghost_ext_ops, GHOST_CHUNK); }

/* Ghost slots: the folio enters the table (phase II+). Physical slots: a
 * Pointer entry to the ghost slot @owner + i, the reverse map. */
void sws__vst_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			  unsigned nr, uint64_t owner)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct st_device *st = st_dev(dev);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	for (unsigned i = 0; i < nr; i++)
		__tb_set(ci, t, st_slot(off + i),
			 st->rmap ? pointer_to_swp_tb(sws_swp_offset(owner) + i) : pfn_to_swp_tb(owner, 0));
}

/* ---- per-slot calls ----------------------------------------------------------------------- */

/* Ghost ci->lock held: are the @nr slots from @off allocated? (table @t) */
static int __allocated(const struct sws_cluster *ci, _Atomic uint64_t *t, uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = 0; i < nr; i++)
		if (!t || !off || swp_tb_is_null(tb_get(t, st_slot(off + i))))
			return SWS_ENOENT;
	return 0;
}

/* swap_zeromap_folio_set(): the old backing goes, the Z bit says zero;
 * clearing it leaves the slot NONE-backed (the folio is its backend). */
int sws__vst_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool zero)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	int rc = __allocated(ci, t, off, nr);
	for (unsigned i = 0; i < nr && !rc; i++) {
		unsigned s = st_slot(off + i);
		uint64_t tb = tb_get(t, s);
		if (zero)
			sws___vst_release_backing(cpu, dev, ci, off + i);
		__tb_set(ci, t, s, zero ? tb | SWP_TB_ZERO_BIT : tb & ~SWP_TB_ZERO_BIT);
	}
	sws__cluster_unlock(ci);
	return rc;
}

/* Ghost ci->lock held: are the @nr slots from @off backed by one physical
 * run? @return its first entry, 0 when none is, ~0 when mixed (EBUSY). */
static sws_entry_t __backing_run(struct sws_device *dev, uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	_Atomic uint64_t *vt = __vtable(dev, off);
	uint64_t v0 = tb_get(vt, st_slot(off));
	sws_entry_t first = vt_type(v0) == VT_SWAPFILE ? vt_to_phys(v0) : 0;
	for (unsigned i = 0; i < nr; i++) {
		uint64_t v = tb_get(vt, st_slot(off + i));
		sws_entry_t p = vt_type(v) == VT_SWAPFILE ? vt_to_phys(v) : 0;
		if ((first != 0) != (p != 0) || (first && p != first + i))
			return ~0ull;
	}
	return first;
}

/* Ghost ci->lock held: slot @off of table @t is no zero page (its backing
 * is a zswap entry, a physical slot or the folio: the RFC's state table has
 * the zero flag only with NONE). */
static void __zero_clear(const struct sws_cluster *ci, _Atomic uint64_t *t, uint64_t off)
{
	uint64_t tb = tb_get(t, st_slot(off));
	if (swp_tb_zero(tb))
		__tb_set(ci, t, st_slot(off), tb & ~SWP_TB_ZERO_BIT);
}

/* Ghost ci->lock held: physical run @p backs the @nr slots from @off now
 * (what backed them, a zswap copy, goes); a slot with count 0 is cache-only. */
static void __phys_install(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			   _Atomic uint64_t *t, uint64_t off, unsigned nr, sws_entry_t p)
{
	SWS_ASSERT_HELD(&ci->lock);
	_Atomic uint64_t *vt = __vtable(dev, off);
	for (unsigned i = 0; i < nr; i++) {
		sws___vst_release_backing(cpu, dev, ci, off + i);
		__zero_clear(ci, t, off + i);
		atomic_store_explicit(&vt[st_slot(off + i)], vt_mk_phys(p + i), memory_order_relaxed);
		uint64_t tb = tb_get(t, st_slot(off + i));
		if (!swp_tb_count_field(tb))
			sws___vst_cache_only(cpu, dev, ci, off + i, 0);
	}
	sws__count(cpu, SWS_CTR_vswap_phys_alloc, nr);
}

/* folio_realloc_swap() for a write (lazily: the first write of the page to
 * a device), or the physical slot a read goes to. */
int sws__vst_io_slot(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool write,
		     sws_entry_t *phys)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	int rc = __allocated(ci, t, off, nr);
	sws_entry_t run = rc ? 0 : __backing_run(dev, off, nr);
	/* The folio the caller holds in the swap cache: after the unlocked
	 * allocation below the slots must still be its. */
	uint64_t owner = rc ? 0 : tb_get(t, st_slot(off));
	sws__cluster_unlock(ci);
	sws_entry_t p;
	rc = sws__virtual_io_alloc(cpu, dev, off, nr, write, rc, run, phys, &p);
	if (rc <= 0)
		return rc;
	sws__cluster_lock(cpu, ci);
	t = __st_table(dev, off);
	rc = __allocated(ci, t, off, nr);
	if (!rc && (tb_get(t, st_slot(off)) & ~SWP_TB_FLAGS_MASK) != (owner & ~SWP_TB_FLAGS_MASK))
		rc = SWS_ENOENT; /* freed and reused meanwhile (its folio or shadow changed) */
	run = rc ? 0 : __backing_run(dev, off, nr);
	if (!rc && !run) {
		__phys_install(cpu, dev, ci, t, off, nr, p);
		*phys = p;
	}
	if (rc || run) { /* freed, or another writer gave it a run meanwhile */
		phys_free(cpu, dev->sim, p, nr);
		if (!rc && run != ~0ull)
			*phys = run;
		else if (!rc)
			rc = SWS_EBUSY;
	}
	sws__cluster_unlock(ci);
	return rc;
}

/* folio_release_vswap_backing(): swapoff read the page into the swap cache;
 * the folio is its backend now (NONE). */
int sws__vst_io_release(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	int rc = __allocated(ci, t, off, nr);
	for (unsigned i = 0; i < nr && !rc; i++)
		if (!swp_tb_is_pfn(tb_get(t, st_slot(off + i))))
			rc = SWS_ENOTCACHED;
	for (unsigned i = 0; i < nr && !rc; i++) {
		sws___vst_release_backing(cpu, dev, ci, off + i);
		__zero_clear(ci, t, off + i);
	}
	sws__cluster_unlock(ci);
	return rc;
}

/* swp_slot_to_swp_entry(): the Pointer entry of a physical slot. */
sws_entry_t sws__vst_rmap(struct sws_cpu *cpu, struct sws_device *pdev, uint64_t poff)
{
	struct sws_cluster *ci = sws__offset_cluster(pdev, poff);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(pdev, poff);
	uint64_t tb = t ? tb_get(t, st_slot(poff)) : SWP_TB_NULL;
	sws_entry_t v = swp_tb_is_pointer(tb) ? sws_swp_entry(st_dev(pdev)->vtype, swp_tb_to_voff(tb)) : 0;
	sws__cluster_unlock(ci);
	return v;
}

/* ---- zswap's entries in the virtual table ----------------------------------------------------- */

/* vswap_zswap_store(): the entry becomes the backing, the previous one goes. */
int sws__vst_zswap_store(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, void *entry, void **old)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	int rc = __allocated(ci, t, off, 1);
	*old = NULL;
	if (!rc) {
		__zero_clear(ci, t, off);
		_Atomic uint64_t *vt = __vtable(dev, off);
		uint64_t v = tb_get(vt, st_slot(off));
		if (vt_type(v) == VT_ZSWAP)
			*old = vt_to_zswap(v);
		else
			sws___vst_release_backing(cpu, dev, ci, off);
		atomic_store_explicit(&vt[st_slot(off)], vt_mk_zswap(entry), memory_order_relaxed);
	}
	sws__cluster_unlock(ci);
	return rc;
}

/* Ghost ci->lock held: slot @off's zswap entry, or NULL; @take: it goes (NONE). */
static void *__zswap_entry(struct sws_device *dev, const struct sws_cluster *ci, uint64_t off, bool take)
{
	SWS_ASSERT_HELD(&ci->lock);
	_Atomic uint64_t *vt = __vtable(dev, off);
	uint64_t v = vt ? tb_get(vt, st_slot(off)) : VT_NONE;
	if (vt_type(v) != VT_ZSWAP)
		return NULL;
	if (take)
		atomic_store_explicit(&vt[st_slot(off)], VT_NONE, memory_order_relaxed);
	return vt_to_zswap(v);
}

void *sws__vst_zswap_load(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	void *en = __zswap_entry(dev, ci, off, false);
	sws__cluster_unlock(ci);
	return en;
}

/* After a load, or a writeback taking the entry: the folio is the backend. */
void *sws__vst_zswap_erase(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	void *en = __zswap_entry(dev, ci, off, true);
	sws__cluster_unlock(ci);
	return en;
}

void sws__vst_zswap_drain(struct sws_device *dev, void (*fn)(void *ctx, void *entry), void *ctx)
{
	for (uint32_t c = 0, n = sws__nr_clusters_mapped(dev); c < n; c++) {
		struct sws_cluster *ci = &dev->cluster_info[c];
		sws__cluster_lock(NULL, ci);
		for (unsigned i = 0; __vtable(dev, (uint64_t)c * SWS_CLUSTER_SLOTS) && i < SWS_CLUSTER_SLOTS; i++) {
			void *en = __zswap_entry(dev, ci, (uint64_t)c * SWS_CLUSTER_SLOTS + i, true);
			if (en)
				fn(ctx, en);
		}
		sws__cluster_unlock(ci);
	}
}

/* ---- introspection ------------------------------------------------------------------------- */

void sws__vst_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, struct sws_slot_state *st)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (!st_dev(dev)->rmap) {
		sws__st_p4_ops.slot_state(dev, ci, off, st);
		return;
	}
	_Atomic uint64_t *t = __st_table(dev, off);
	uint64_t tb = t ? tb_get(t, st_slot(off)) : SWP_TB_NULL;
	st->allocated = !swp_tb_is_null(tb);
	st->bad = swp_tb_is_bad(tb);
}

/* Ghost ci->lock held: the virtual table of cluster @ci agrees with its
 * slots: NONE on free slots, a SWAPFILE slot's physical entry points back
 * at it with the cache-only bit iff its count is 0. */
static int __check_vtable(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint32_t c = sws__cluster_idx(dev, ci);
	uint64_t base = (uint64_t)c * SWS_CLUSTER_SLOTS;
	_Atomic uint64_t *vt = __vtable(dev, base);
	for (unsigned i = 0; vt && i < SWS_CLUSTER_SLOTS; i++) {
		uint64_t v = tb_get(vt, i);
		struct sws_slot_state s = {0};
		sws__st_p4_ops.slot_state(dev, ci, base + i, &s);
		if (v && (!s.allocated || s.bad))
			SWS__CORRUPT(msg, len, "vswap-st slot %llu: free but its virtual table entry is %llx",
				     (unsigned long long)(base + i), (unsigned long long)v);
		if (vt_type(v) > VT_SWAPFILE)
			SWS__CORRUPT(msg, len, "vswap-st slot %llu: virtual table tag %u",
				     (unsigned long long)(base + i), vt_type(v));
		if (vt_type(v) != VT_SWAPFILE)
			continue;
		sws_entry_t p = vt_to_phys(v);
		struct sws_device *pdev = sws__device(dev->sim, sws_swp_type(p));
		if (!pdev || pdev == dev || sws_swp_offset(p) >= pdev->max)
			SWS__CORRUPT(msg, len, "vswap-st slot %llu: physical slot %llx does not exist",
				     (unsigned long long)(base + i), (unsigned long long)p);
		uint64_t tb = atomic_load_explicit(phys_word(dev->sim, v), memory_order_relaxed);
		if (!swp_tb_is_pointer(tb) || swp_tb_to_voff(tb) != base + i)
			SWS__CORRUPT(msg, len, "vswap-st slot %llu: physical slot %llx does not point back (%llx)",
				     (unsigned long long)(base + i), (unsigned long long)p, (unsigned long long)tb);
		if (!!(tb & SWP_RMAP_CACHE_ONLY) != !s.count)
			SWS__CORRUPT(msg, len, "vswap-st slot %llu: count %u but cache-only bit %d",
				     (unsigned long long)(base + i), s.count, !!(tb & SWP_RMAP_CACHE_ONLY));
	}
	return 0;
}

int sws__vst_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (!st_dev(dev)->rmap) {
		int rc = sws__st_p4_ops.check_cluster(dev, ci, msg, len);
		return rc ? rc : __check_vtable(dev, ci, msg, len);
	}
	int rc = sws___st_check_tables(dev, ci, msg, len);
	if (rc || !ci->count)
		return rc;
	uint32_t c = sws__cluster_idx(dev, ci);
	_Atomic uint64_t *t = __st_table(dev, (uint64_t)c * SWS_CLUSTER_SLOTS);
	unsigned used = 0;
	for (unsigned i = 0; i < SWS_CLUSTER_SLOTS; i++) {
		uint64_t tb = tb_get(t, i);
		used += !swp_tb_is_null(tb);
		if (!swp_tb_is_null(tb) && !swp_tb_is_bad(tb) && !swp_tb_is_pointer(tb))
			SWS__CORRUPT(msg, len, "device %d cluster %u slot %u: %llx is no Pointer entry", dev->type, c, i,
				     (unsigned long long)tb);
	}
	if (used != ci->count)
		SWS__CORRUPT(msg, len, "device %d cluster %u: count %u but %u slots in use", dev->type, c, ci->count,
			     used);
	return 0;
}
