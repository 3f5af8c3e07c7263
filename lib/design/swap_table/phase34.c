/*
 * phase34.c - swap table phases III (~7.1, "st-p3") and IV (~7.2, "st-p4"):
 * the count lives in the table word (swap_table.h), overflowed counts in a
 * per-cluster extend table, folios as PFNs; swap_map and its continuation
 * pages are gone. Phase III keeps the static swap_cgroup and zeromap (updated
 * lock-free, as 6.17's); phase IV folds the zero flag into the word (the Z
 * bit) and moves memcg ids into a per-cluster memcg table allocated with the
 * table, so its only static metadata is cluster_info and the table pointers.
 *
 * Every writer holds ci->lock (the zero flag and memcg of phase III excepted:
 * atomic operations on the static maps). See docs/design-swap-table.md.
 * vswap-st runs these operations on its ghost device, with vswap.c's hooks
 * where a slot's backing is concerned (a slot freed, a count reaching or
 * leaving 0), and its ops table is at the end of this file.
 */
#include <stdio.h>
#include <string.h>

#include "swap_table.h"


static inline struct cluster_tables *ct_of(struct sws_device *dev, uint64_t off)
{
	return st_cold(st_dev(dev), (uint32_t)(off / SWS_CLUSTER_SLOTS));
}

static inline bool phase4(struct sws_device *dev) { return st_dev(dev)->phase == 4; }

/* ci->lock held: swp_tb_get_count(): the count of slot @i (word @tb). */
static uint32_t __tb_count(const struct sws_cluster *ci, const struct cluster_tables *ct,
			   unsigned i, uint64_t tb)
{
	SWS_ASSERT_HELD(&ci->lock);
	unsigned f = swp_tb_count_field(tb);
	return f == SWP_TB_COUNT_MAX ? ct->extend_table[i] : f;
}

/* ci->lock held: store @count for slot @i (extend table present when count
 * >= 15); @return the word @tb with the count field for it. */
static uint64_t __tb_with_count(const struct sws_cluster *ci, struct cluster_tables *ct, unsigned i,
				uint64_t tb, uint32_t count)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (count >= SWP_TB_COUNT_MAX) {
		ct->extend_table[i] = count;
		return swp_tb_set_count_field(tb, SWP_TB_COUNT_MAX);
	}
	if (ct->extend_table)
		ct->extend_table[i] = 0;
	return swp_tb_set_count_field(tb, count);
}

/* The zero flag and memcg id of an allocated slot, wherever the phase keeps them. */
static bool slot_zero(struct sws_device *dev, uint64_t off, uint64_t tb)
{
	return phase4(dev) ? swp_tb_zero(tb) : zeromap_test(&st_dev(dev)->zeromap, off);
}

/* ci->lock held (phase IV's memcg table is read under it). */
static uint16_t __slot_memcg(const struct sws_cluster *ci, struct sws_device *dev,
			     struct cluster_tables *ct, uint64_t off)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (!phase4(dev))
		return swap_cgroup_get(&st_dev(dev)->cgroup, off);
	return ct->memcg_table ? ct->memcg_table[st_slot(off)] : 0; /* none: memcg off */
}

/* ---- allocation ------------------------------------------------------------------------ */

/* Each multi-slot operation's body is a *_nr() function that its op calls
 * twice, once with a constant nr of 1: a page's swap-out and swap-in, the
 * common calls, run without the loops' bookkeeping. */

/* cluster_scan_range(): a free slot is a NULL word; one pass over the table. */
static uint64_t st_range_find(struct sws_device *dev, struct sws_cluster *ci, uint64_t start, uint64_t end,
			      unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	_Atomic uint64_t *t = __st_table(dev, start);
	const uint64_t base = start - st_slot(start);
	const unsigned e = (unsigned)(end - base);
	unsigned i = st_slot(start);
	if (nr == 1) {
		/* Eight words a step while none is free (the common case: the
		 * scan walks the used part of the cluster), then word by word. */
		for (; i + 8 <= e; i += 8)
			if (!(tb_get(t, i) && tb_get(t, i + 1) && tb_get(t, i + 2) && tb_get(t, i + 3) &&
			      tb_get(t, i + 4) && tb_get(t, i + 5) && tb_get(t, i + 6) && tb_get(t, i + 7)))
				break;
		for (; i < e; i++)
			if (swp_tb_is_null(tb_get(t, i)))
				return base + i;
		return 0;
	}
	for (; i + nr <= e; i += nr) {
		unsigned k = 0;
		while (k < nr && swp_tb_is_null(tb_get(t, i + k)))
			k++;
		if (k == nr)
			return base + i;
	}
	return 0;
}

/* Phase II+: the folio enters the swap cache with the allocation. */
static SWS_ALWAYS_INLINE void st_range_alloc_nr(struct sws_cpu *cpu, struct sws_device *dev,
						struct sws_cluster *ci, uint64_t off, unsigned nr, uint64_t pfn)
{
	SWS_ASSERT_HELD(&ci->lock);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	for (unsigned i = st_slot(off), e = i + nr; i < e; i++)
		__tb_set(ci, t, i, pfn_to_swp_tb(pfn, 0));
}

static void st_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			   unsigned nr, uint64_t pfn)
{
	if (nr == 1)
		st_range_alloc_nr(cpu, dev, ci, off, 1, pfn);
	else
		st_range_alloc_nr(cpu, dev, ci, off, nr, pfn);
}

/* ---- counts ------------------------------------------------------------------------------ */

/*
 * swap_extend_table_alloc(), ci->lock dropped: a 4 KiB extend table for @ci
 * allocated outside the lock, then installed under it unless the cluster no
 * longer needs one (the slot was put meanwhile, or another CPU installed
 * its own: this one is freed). @return 0 or SWS_ENOMEM.
 */
static int extend_table_alloc(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			      struct cluster_tables *ct, uint64_t off)
{
	unsigned long *table = sws__mem_zalloc(&dev->sim->mem, SWS_MEM_extend_table, EXTEND_BYTES, 64);
	if (!table)
		return SWS_ENOMEM;
	sws__work(cpu, SWS_WORK_meta_alloc, 1);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	uint64_t tb = t ? tb_get(t, st_slot(off)) : SWP_TB_NULL;
	bool needed = !swp_tb_is_null(tb) && swp_tb_count_field(tb) >= SWP_TB_COUNT_MAX - 1 && !ct->extend_table;
	if (needed) {
		ct->extend_table = table;
		sws__count(cpu, SWS_CTR_swap_extend_table_alloc, 1);
	}
	sws__cluster_unlock(ci);
	if (!needed) {
		sws__work(cpu, SWS_WORK_meta_free, 1);
		sws__mem_free(&dev->sim->mem, SWS_MEM_extend_table, table, EXTEND_BYTES);
	}
	return 0;
}

/*
 * swap_dup_entries_cluster(): every slot's count up by one, all or none. A
 * count reaching 15 needs the cluster's extend table: without one the lock
 * is dropped, the table allocated (extend_table_alloc()) and the check run
 * again under the lock, as the posted phase III does.
 */
static SWS_ALWAYS_INLINE int st_dup_nr(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = st_slot(off);
	int rc;

restart:
	rc = 0;
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = t ? tb_get(t, i) : SWP_TB_NULL;
		if (swp_tb_is_null(tb))
			rc = SWS_ENOENT;
	}
	unsigned need = UINT32_MAX; /* the first slot that needs the extend table */
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint32_t c = __tb_count(ci, ct, i, tb_get(t, i));
		if (c + 1 > SWS_SWAP_COUNT_MAX)
			rc = SWS_EOVERFLOW;
		if (c + 1 >= SWP_TB_COUNT_MAX && need == UINT32_MAX)
			need = i;
	}
	if (!rc && need != UINT32_MAX && !ct->extend_table) {
		sws__cluster_unlock(ci);
		rc = extend_table_alloc(cpu, dev, ci, ct, off - i0 + need);
		if (rc)
			return rc;
		goto restart;
	}
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = tb_get(t, i);
		uint32_t c = __tb_count(ci, ct, i, tb);
		__tb_set(ci, t, i, __tb_with_count(ci, ct, i, tb, c + 1));
		if (!c && st_is_virtual(st_dev(dev))) /* vswap-st: no longer cache-only */
			sws___vst_cache_only(cpu, dev, ci, off - i0 + i, 1);
	}
	sws__cluster_unlock(ci);
	return rc;
}

static int st_dup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	return nr == 1 ? st_dup_nr(cpu, dev, off, 1) : st_dup_nr(cpu, dev, off, nr);
}

/* ci->lock held: a slot's last reference is gone and no folio holds it: it
 * becomes free (its zero flag and memcg id go with it; the id's swap charge
 * joins @ub, consecutive slots of one memcg uncharged together). */
static void __slot_clear(struct sws_cpu *cpu, const struct sws_cluster *ci, struct sws_device *dev,
			 struct cluster_tables *ct, _Atomic uint64_t *t, uint64_t off, struct sws__uncharge_batch *ub)
{
	SWS_ASSERT_HELD(&ci->lock);
	unsigned i = st_slot(off);
	if (st_is_virtual(st_dev(dev))) /* vswap-st: its backing goes with it */
		sws___vst_release_backing(cpu, dev, ci, off);
	__tb_set(ci, t, i, SWP_TB_NULL);
	if (ct->extend_table)
		ct->extend_table[i] = 0;
	if (phase4(dev)) {
		if (ct->memcg_table) { /* none: memcg off */
			sws__uncharge_batch_add(cpu, dev->sim, ub, ct->memcg_table[i]);
			ct->memcg_table[i] = 0;
		}
	} else {
		struct st_device *st = st_dev(dev);
		if (zeromap_test(&st->zeromap, off))
			zeromap_set(cpu, &st->zeromap, off, false);
		sws__uncharge_batch_add(cpu, dev->sim, ub, swap_cgroup_get(&st->cgroup, off));
		swap_cgroup_set(cpu, &st->cgroup, off, 0);
	}
	sws___slot_free_notify(dev, off, 1);
}

/* ci->lock held: swap_extend_table_try_free(): drop @ci's extend table once
 * no count needs it. */
static void __extend_table_try_free(struct sws_cpu *cpu, const struct sws_cluster *ci,
				    struct sws_sim *sim, struct cluster_tables *ct)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = 0; i < SWS_CLUSTER_SLOTS; i++)
		if (ct->extend_table[i])
			return;
	sws__work(cpu, SWS_WORK_meta_free, 1);
	sws__mem_free(&sim->mem, SWS_MEM_extend_table, ct->extend_table, EXTEND_BYTES);
	ct->extend_table = NULL;
}

static SWS_ALWAYS_INLINE int st_put_nr(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
				       uint64_t *only_cache)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = st_slot(off), freed = 0;
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	for (unsigned i = i0; i < i0 + nr && !rc; i++)
		if (swp_tb_is_null(t ? tb_get(t, i) : SWP_TB_NULL))
			rc = SWS_EFREE;
	for (unsigned i = i0; i < i0 + nr && !rc; i++)
		if (!__tb_count(ci, ct, i, tb_get(t, i)))
			rc = SWS_ERANGE;
	bool left_extend = false;
	struct sws__uncharge_batch ub = {0};
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = tb_get(t, i);
		uint32_t c = __tb_count(ci, ct, i, tb) - 1;
		left_extend |= c + 1 == SWP_TB_COUNT_MAX;
		if (!c && swp_tb_is_shadow(tb)) {
			__slot_clear(cpu, ci, dev, ct, t, off - i0 + i, &ub);
			freed++;
		} else {
			__tb_set(ci, t, i, __tb_with_count(ci, ct, i, tb, c));
			if (!c && only_cache) /* a folio: cache-only now */
				sws_bit_set(only_cache, i - i0);
			if (!c && st_is_virtual(st_dev(dev))) /* vswap-st: mark its physical slot */
				sws___vst_cache_only(cpu, dev, ci, off - i0 + i, 0);
			/* the slot that stays ends the pending batch: freed
			 * (and uncharged) now, as swap_put_entries_cluster() */
			sws__uncharge_batch_flush(cpu, dev->sim, &ub);
		}
	}
	if (left_extend)
		__extend_table_try_free(cpu, ci, dev->sim, ct);
	sws__uncharge_batch_flush(cpu, dev->sim, &ub);
	if (freed)
		sws___swap_range_free(cpu, dev, ci, off, freed);
	sws__cluster_unlock(ci);
	return rc;
}

static int st_put(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *only_cache)
{
	return nr == 1 ? st_put_nr(cpu, dev, off, 1, only_cache) : st_put_nr(cpu, dev, off, nr, only_cache);
}

static int st_count(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	int rc = 0;
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	uint64_t tb = t ? tb_get(t, st_slot(off)) : SWP_TB_NULL;
	if (swp_tb_is_null(tb))
		rc = SWS_ENOENT;
	else
		*count = __tb_count(ci, ct_of(dev, off), st_slot(off), tb);
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- swap cache ---------------------------------------------------------------------------- */

static SWS_ALWAYS_INLINE int st_cache_add_nr(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
					     unsigned nr, uint64_t pfn, uint64_t *shadow)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = st_slot(off), nnull = 0, npfn = 0;
	bool differ = false;
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	uint64_t first = t ? tb_get(t, i0) : SWP_TB_NULL;
	for (unsigned i = i0; i < i0 + nr; i++) {
		uint64_t tb = t ? tb_get(t, i) : SWP_TB_NULL;
		uint64_t o = off - i0 + i;
		nnull += swp_tb_is_null(tb);
		npfn += swp_tb_is_pfn(tb);
		if (swp_tb_is_shadow(tb) && swp_tb_is_shadow(first))
			differ |= slot_zero(dev, o, tb) != slot_zero(dev, off, first) ||
				  __slot_memcg(ci, dev, ct, o) != __slot_memcg(ci, dev, ct, off);
	}
	if (nnull == nr)
		rc = SWS_ENOENT;
	else if (npfn)
		rc = SWS_EEXIST;
	else if (nnull || differ)
		rc = SWS_EBUSY;
	if (!rc) {
		*shadow = swp_tb_to_shadow(first);
		for (unsigned i = i0; i < i0 + nr; i++)
			__tb_set(ci, t, i, pfn_to_swp_tb(pfn, swp_tb_flags(tb_get(t, i))));
	}
	sws__cluster_unlock(ci);
	return rc;
}

static int st_cache_add(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint64_t pfn, uint64_t *shadow)
{
	return nr == 1 ? st_cache_add_nr(cpu, dev, off, 1, pfn, shadow)
			: st_cache_add_nr(cpu, dev, off, nr, pfn, shadow);
}

static int st_cache_get_shadow(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
			       uint64_t *shadow)
{
	(void)cpu; /* lock-free, like swap_cache_get_shadow() */
	_Atomic uint64_t *t = st_rcu_table(dev, off);
	uint64_t tb = t ? tb_get(t, st_slot(off)) : SWP_TB_NULL;
	if (swp_tb_is_null(tb))
		return SWS_ENOENT;
	*shadow = swp_tb_is_shadow(tb) ? swp_tb_to_shadow(tb) : 0;
	return 0;
}

/* ci->lock held: every slot holds folio @pfn? ENOTCACHED beats EMISMATCH over the range. */
static int __check_cached(const struct sws_cluster *ci, _Atomic uint64_t *t, unsigned i0,
			  unsigned nr, uint64_t pfn)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = i0; i < i0 + nr; i++)
		if (!t || !swp_tb_is_pfn(tb_get(t, i)))
			return SWS_ENOTCACHED;
	for (unsigned i = i0; i < i0 + nr; i++)
		if (swp_tb_to_pfn(tb_get(t, i)) != pfn)
			return SWS_EMISMATCH;
	return 0;
}

static SWS_ALWAYS_INLINE int st_cache_del_nr(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
					     unsigned nr, uint64_t pfn, uint64_t shadow)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = st_slot(off), freed = 0;

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	int rc = __check_cached(ci, t, i0, nr, pfn);
	/* __swap_cache_do_del_folio(): the whole folio freed in one batch
	 * unless a slot is still swapped, then slot by slot */
	bool swapped = false;
	for (unsigned i = i0; i < i0 + nr && !rc; i++)
		swapped |= __tb_count(ci, ct, i, tb_get(t, i)) != 0;
	struct sws__uncharge_batch ub = {0};
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = tb_get(t, i);
		if (!__tb_count(ci, ct, i, tb)) {
			__slot_clear(cpu, ci, dev, ct, t, off - i0 + i, &ub);
			if (swapped)
				sws__uncharge_batch_flush(cpu, dev->sim, &ub);
			freed++;
		} else {
			__tb_set(ci, t, i, shadow_to_swp_tb(shadow, swp_tb_flags(tb)));
		}
	}
	sws__uncharge_batch_flush(cpu, dev->sim, &ub);
	if (freed)
		sws___swap_range_free(cpu, dev, ci, off, freed);
	sws__cluster_unlock(ci);
	return rc;
}

static int st_cache_del(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint64_t pfn, uint64_t shadow)
{
	return nr == 1 ? st_cache_del_nr(cpu, dev, off, 1, pfn, shadow)
			: st_cache_del_nr(cpu, dev, off, nr, pfn, shadow);
}

static int st_cache_replace(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			    uint64_t old_pfn, uint64_t new_pfn)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	unsigned i0 = st_slot(off);

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	int rc = __check_cached(ci, t, i0, nr, old_pfn);
	for (unsigned i = i0; i < i0 + nr && !rc; i++)
		__tb_set(ci, t, i, pfn_to_swp_tb(new_pfn, swp_tb_flags(tb_get(t, i))));
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- zero flag, memcg ------------------------------------------------------------------------ */

/* Every slot allocated? Under ci->lock, or (phase III's zero flag and memcg)
 * a lock-free peek. */
static int check_allocated(_Atomic uint64_t *t, unsigned i0, unsigned nr)
{
	for (unsigned i = i0; i < i0 + nr; i++)
		if (!t || swp_tb_is_null(tb_get(t, i)))
			return SWS_ENOENT;
	return 0;
}

/* Phase IV: the Z bit, under ci->lock. Phase III: set_bit()/clear_bit(). */
static SWS_ALWAYS_INLINE int st_set_zero_nr(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
					    unsigned nr, bool zero)
{
	unsigned i0 = st_slot(off);
	if (!phase4(dev)) {
		int rc = check_allocated(st_rcu_table(dev, off), i0, nr);
		for (unsigned i = 0; i < nr && !rc; i++)
			zeromap_set(cpu, &st_dev(dev)->zeromap, off + i, zero);
		return rc;
	}
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	int rc = check_allocated(t, i0, nr);
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = tb_get(t, i);
		__tb_set(ci, t, i, zero ? tb | SWP_TB_ZERO_BIT : tb & ~SWP_TB_ZERO_BIT);
	}
	sws__cluster_unlock(ci);
	return rc;
}

static int st_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool zero)
{
	return nr == 1 ? st_set_zero_nr(cpu, dev, off, 1, zero) : st_set_zero_nr(cpu, dev, off, nr, zero);
}

/* swap_read_folio()'s zero test: one load of the word (IV) or the bit (III), no lock. */
static bool st_zero_test(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	(void)cpu;
	if (!phase4(dev))
		return zeromap_test(&st_dev(dev)->zeromap, off);
	_Atomic uint64_t *t = st_rcu_table(dev, off);
	return t && swp_tb_zero(tb_get(t, st_slot(off)));
}

/* Phase IV: the memcg table, under ci->lock. Phase III: swap_cgroup_record(). */
static SWS_ALWAYS_INLINE int st_set_memcg_nr(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
					     unsigned nr, uint16_t id)
{
	unsigned i0 = st_slot(off);
	struct sws__memcg_record mr = {.id = id};
	if (!phase4(dev)) {
		int rc = check_allocated(st_rcu_table(dev, off), i0, nr);
		for (unsigned i = 0; i < nr && !rc; i++)
			sws__memcg_record_slot(cpu, dev->sim, &mr,
					       swap_cgroup_set(cpu, &st_dev(dev)->cgroup, off + i, id));
		sws__memcg_record_done(cpu, dev->sim, &mr);
		return rc;
	}
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	sws__cluster_lock(cpu, ci);
	int rc = check_allocated(__st_table(dev, off), i0, nr);
	for (unsigned i = i0; i < i0 + nr && !rc && ct->memcg_table; i++) { /* none: memcg off (id 0) */
		sws__memcg_record_slot(cpu, dev->sim, &mr, ct->memcg_table[i]);
		ct->memcg_table[i] = id;
	}
	sws__cluster_unlock(ci);
	sws__memcg_record_done(cpu, dev->sim, &mr);
	return rc;
}

static int st_set_memcg(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint16_t id)
{
	return nr == 1 ? st_set_memcg_nr(cpu, dev, off, 1, id) : st_set_memcg_nr(cpu, dev, off, nr, id);
}

/* ---- introspection ------------------------------------------------------------------------- */

static void st_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			  struct sws_slot_state *st)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct cluster_tables *ct = ct_of(dev, off);
	_Atomic uint64_t *t = __st_table(dev, off);
	unsigned i = st_slot(off);
	uint64_t tb = t ? tb_get(t, i) : SWP_TB_NULL;
	if (swp_tb_is_null(tb))
		return;
	st->allocated = true;
	if (swp_tb_is_bad(tb)) {
		st->bad = true;
		return;
	}
	st->count = __tb_count(ci, ct, i, tb);
	st->zero = slot_zero(dev, off, tb);
	st->memcg = __slot_memcg(ci, dev, ct, off);
	if (swp_tb_is_pfn(tb)) {
		st->cached = true;
		st->pfn = swp_tb_to_pfn(tb);
	} else {
		st->shadow = swp_tb_to_shadow(tb);
	}
}

static int st_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	int rc = sws___st_check_tables(dev, ci, msg, len);
	if (rc || !ci->count)
		return rc;
	uint32_t idx = sws__cluster_idx(dev, ci);
	uint64_t base = (uint64_t)idx * SWS_CLUSTER_SLOTS;
	struct cluster_tables *ct = ct_of(dev, base);
	_Atomic uint64_t *t = __st_table(dev, base);
	unsigned used = 0;
	for (unsigned i = 0; i < SWS_CLUSTER_SLOTS; i++) {
		uint64_t tb = tb_get(t, i);
		uint64_t off = base + i;
		used += !swp_tb_is_null(tb);
		if (swp_tb_is_null(tb) && off < dev->max &&
		    (__slot_memcg(ci, dev, ct, off) || slot_zero(dev, off, tb)))
			SWS__CORRUPT(msg, len,
				     "cluster %u slot %u: free slot keeps zero flag or memcg %u",
				     idx, i, __slot_memcg(ci, dev, ct, off));
		if (swp_tb_is_null(tb) || swp_tb_is_bad(tb))
			continue;
		unsigned f = swp_tb_count_field(tb);
		if (f == SWP_TB_COUNT_MAX && (!ct->extend_table || ct->extend_table[i] < SWP_TB_COUNT_MAX))
			SWS__CORRUPT(msg, len, "cluster %u slot %u: extended count without extend entry", idx, i);
		if (f < SWP_TB_COUNT_MAX && ct->extend_table && ct->extend_table[i])
			SWS__CORRUPT(msg, len, "cluster %u slot %u: stale extend entry", idx, i);
		if (swp_tb_is_shadow(tb) && !__tb_count(ci, ct, i, tb))
			SWS__CORRUPT(msg, len, "cluster %u slot %u: shadow with count 0", idx, i);
		if (!phase4(dev) && swp_tb_zero(tb))
			SWS__CORRUPT(msg, len, "cluster %u slot %u: Z bit set in phase III", idx, i);
	}
	if (used != ci->count)
		SWS__CORRUPT(msg, len, "cluster %u: count %u but %u slots in use", idx, ci->count, used);
	return 0;
}

static int st_p3_device_init(struct sws_device *dev) { return sws__st_device_init(dev, 3); }
static int st_p4_device_init(struct sws_device *dev) { return sws__st_device_init(dev, 4); }

#define ST34_OPS                                      \
	.version = SWS_DESIGN_OPS_VERSION,            \
	.device_fini = sws__st_device_fini,           \
	.cluster_get = sws__st_cluster_get,           \
	.cluster_put = sws__st_cluster_put,           \
	.range_find = st_range_find,                  \
	.range_alloc = st_range_alloc,                \
	.dup = st_dup,                                \
	.put = st_put,                                \
	.count = st_count,                            \
	.cache_add = st_cache_add,                    \
	.cache_lookup = sws__st34_lookup,             \
	.cache_get_shadow = st_cache_get_shadow,      \
	.cache_del = st_cache_del,                    \
	.cache_replace = st_cache_replace,            \
	.set_zero = st_set_zero,                      \
	.zero_test = st_zero_test,                    \
	.set_memcg = st_set_memcg,                    \
	.slot_state = st_slot_state,                  \
	.check_cluster = st_check_cluster

const struct sws_design_ops sws__st_p3_ops = {
	ST34_OPS,
	.name = "st-p3",
	.flags = SWS_DESIGN_SYNC_FREE,
	.device_init = st_p3_device_init,
};

const struct sws_design_ops sws__st_p4_ops = {
	ST34_OPS,
	.name = "st-p4",
	.flags = SWS_DESIGN_EXT_DEVICES /* no static per-slot array: xswap can use it */ | SWS_DESIGN_SYNC_FREE |
		 SWS_DESIGN_CACHE_ALLOC,
	.device_init = st_p4_device_init,
};

/* vswap-st (vswap.c): phase IV's slot operations on the ghost device; the
 * virtual layer (physical slots, zswap entries, the reverse map) is vswap.c's. */
const struct sws_design_ops sws__vswap_st_ops = {
	.version = SWS_DESIGN_OPS_VERSION,
	.name = "vswap-st",
	.flags = SWS_DESIGN_VIRTUAL | SWS_DESIGN_SYNC_FREE | SWS_DESIGN_RCU_BARRIER,
	.sim_init = sws__vst_sim_init,
	.device_init = st_p4_device_init,
	.device_fini = sws__st_device_fini,
	.cluster_get = sws__st_cluster_get,
	.cluster_put = sws__st_cluster_put,
	.range_find = st_range_find,
	.range_alloc = sws__vst_range_alloc,
	.dup = st_dup,
	.put = st_put,
	.count = st_count,
	.cache_add = st_cache_add,
	.cache_lookup = sws__st34_lookup,
	.cache_get_shadow = st_cache_get_shadow,
	.cache_del = st_cache_del,
	.cache_replace = st_cache_replace,
	.set_zero = sws__vst_set_zero,
	.zero_test = st_zero_test,
	.set_memcg = st_set_memcg,
	.slot_state = sws__vst_slot_state,
	.check_cluster = sws__vst_check_cluster,
	.io_slot = sws__vst_io_slot,
	.io_release = sws__vst_io_release,
	.rmap = sws__vst_rmap,
	.zswap_store = sws__vst_zswap_store,
	.zswap_load = sws__vst_zswap_load,
	.zswap_erase = sws__vst_zswap_erase,
	.zswap_drain = sws__vst_zswap_drain,
};
