/*
 * phase12.c - swap table phases I (6.18, "st-p1") and II (7.0, "st-p2"):
 * the per-cluster table is the swap cache (a folio pointer or a workingset
 * shadow per slot, swap_table.h); the count stays in swap_map (swap_map.c),
 * and swap_cgroup and the zeromap stay static and lock-free (static_maps.c).
 *
 * Phase I keeps 6.17's protocol around the new cache: SWAP_HAS_CACHE in
 * swap_map says "a folio is (being) cached"; folio_alloc_swap() sets it in
 * the allocator's ci->lock hold and adds the folio in a second hold of the
 * same lock (swap_cache_add_folio(), which cannot fail any more); a swap-in
 * prepares (swapcache_prepare()) and adds in two holds; deleting stores the
 * shadow in one hold and drops HAS_CACHE in another (put_swap_folio()); the
 * free path's batch and one-entry-at-a-time fallback are 6.17's; and a
 * swap-in from a SYNCHRONOUS_IO device of a slot with count 1 bypasses the
 * swap cache. Clearing a freed slot's shadow is a store into the table under
 * the ci->lock the free already holds (6.17 took the xa_lock again).
 *
 * Phase II drops SWAP_HAS_CACHE: a slot is in the swap cache when its table
 * word is a folio; the folio enters the table in the allocator's lock hold;
 * add, delete and free each take ci->lock once; there is no bypass.
 *
 * States (design.h): FREE: swap_map 0 and no folio; CACHED: a folio in the
 * table (phase I: and HAS_CACHE); SHADOW: count >= 1, a shadow or NULL word.
 */
#include <stdio.h>
#include <string.h>

#include "swap_table.h"

static inline bool phase1(struct sws_device *dev) { return st_dev(dev)->phase == 1; }

static inline struct swap_map *map_of(struct sws_device *dev) { return &st_dev(dev)->map; }

static inline uint8_t map_get(struct sws_device *dev, uint64_t off) { return swap_map_get(map_of(dev), off); }

/* ci->lock held: set the swap_map byte of slot @off of cluster @ci. */
static inline void __map_set(const struct sws_cluster *ci, struct sws_device *dev, uint64_t off,
			     uint8_t v)
{
	SWS_ASSERT_HELD(&ci->lock);
	__swap_map_set(ci, map_of(dev), off, v);
}

/* Is slot @off (table word @tb) free? Phase II: no count and no folio. Under
 * ci->lock, or a lock-free peek (get_shadow, set_zero, set_memcg). */
static inline bool slot_unused(struct sws_device *dev, uint64_t off, uint64_t tb)
{
	uint8_t b = map_get(dev, off);
	return swap_map_unused(b) && (phase1(dev) || b == SWAP_MAP_BAD || !st12_is_folio(tb));
}

/* ci->lock held: the count of an allocated slot, taking cont_lock when it is continued. */
static uint32_t __slot_count(struct sws_cpu *cpu, const struct sws_cluster *ci,
			     struct sws_device *dev, uint64_t off)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct swap_map *m = map_of(dev);
	if (!(map_get(dev, off) & COUNT_CONTINUED))
		return sws___swap_map_count(ci, m, off);
	swap_map_cont_lock(cpu, m);
	uint32_t n = sws___swap_map_count(ci, m, off);
	swap_map_cont_unlock(m);
	return n;
}

static inline uint64_t word(_Atomic uint64_t *t, uint64_t off) { return t ? tb_get(t, st_slot(off)) : 0; }

/* ---- freeing slots -------------------------------------------------------------------- */

/*
 * ci->lock held: swap_entries_free(): @nr slots from @off have swap_map 0 and
 * no folio: clear their shadows (in the table, under this ci->lock), zero
 * flags and memcg ids, tell zswap, give them back.
 */
static void __entries_free(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			   uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct st_device *st = st_dev(dev);
	_Atomic uint64_t *t = __st_table(dev, off);
	struct sws__uncharge_batch ub = {0};
	for (unsigned i = 0; i < nr; i++) {
		__tb_set(ci, t, st_slot(off + i), 0);
		if (zeromap_test(&st->zeromap, off + i))
			zeromap_set(cpu, &st->zeromap, off + i, false);
		sws__uncharge_batch_add(cpu, dev->sim, &ub, swap_cgroup_get(&st->cgroup, off + i));
		swap_cgroup_set(cpu, &st->cgroup, off + i, 0);
	}
	sws__uncharge_batch_flush(cpu, dev->sim, &ub); /* mem_cgroup_uncharge_swap(entry, nr) */
	sws___slot_free_notify(dev, off, nr);
	sws___swap_range_free(cpu, dev, ci, off, nr);
}

/* ci->lock held: phase I's swap_entries_put_cache(): drop HAS_CACHE; slots
 * holding only it are freed in one batch, otherwise one entry at a time. */
static void __drop_cache_flag(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			      uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (sws___swap_map_only_cache(ci, map_of(dev), off, nr)) {
		for (unsigned i = 0; i < nr; i++)
			__map_set(ci, dev, off + i, 0);
		__entries_free(cpu, dev, ci, off, nr);
		return;
	}
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = map_get(dev, off + i) & ~SWAP_HAS_CACHE;
		__map_set(ci, dev, off + i, b);
		if (!b)
			__entries_free(cpu, dev, ci, off + i, 1);
	}
}

/* ---- allocation ----------------------------------------------------------------------- */

/* cluster_scan_range(): a free slot has no swap_map byte (and, phase II, no
 * folio in the table); one pass over the range. */
static uint64_t p12_range_find(struct sws_device *dev, struct sws_cluster *ci, uint64_t start, uint64_t end,
			       unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	_Atomic uint64_t *t = __st_table(dev, start);
	const bool p1 = phase1(dev);
	for (uint64_t off = start; off + nr <= end; off += nr) {
		unsigned i = 0;
		while (i < nr && !map_get(dev, off + i) && (p1 || !st12_is_folio(word(t, off + i))))
			i++;
		if (i == nr)
			return off;
	}
	return 0;
}

/* Phase I: SWAP_HAS_CACHE (the folio comes in p1_alloc_finish()). Phase II:
 * the folio, in this hold. */
static void p12_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			    unsigned nr, uint64_t pfn)
{
	SWS_ASSERT_HELD(&ci->lock);
	_Atomic uint64_t *t = phase1(dev) ? NULL : __st_table_walk(cpu, dev, off); /* phase II: the cache too */
	for (unsigned i = 0; i < nr; i++) {
		if (phase1(dev))
			__map_set(ci, dev, off + i, SWAP_HAS_CACHE);
		else
			__tb_set(ci, t, st_slot(off + i), st12_mk_folio(pfn));
	}
}

/* Phase I: swap_cache_add_folio() after the allocator's hold: the same lock again. */
static int p1_alloc_finish(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t pfn)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	for (unsigned i = 0; i < nr; i++)
		__tb_set(ci, t, st_slot(off + i), st12_mk_folio(pfn));
	sws__cluster_unlock(ci);
	return 0;
}

/* ---- counts ------------------------------------------------------------------------------ */

/* ci->lock held: the slot tests of the swap_map's dup and put. */
static bool p12_slot_unused(struct sws_device *dev, uint64_t off)
{
	return slot_unused(dev, off, word(__st_table(dev, off), off));
}

static bool p2_slot_folio(struct sws_device *dev, uint64_t off)
{
	return st12_is_folio(word(__st_table(dev, off), off));
}

/* Phase I: 6.17's swap_entries_put_map() (a uniform run of count 1 as one
 * batch, else one entry at a time). Phase II: the folio is in the table,
 * freed slots go back together. */
static const struct swap_map_slots p1_slots = {.unused = p12_slot_unused, .free = __entries_free};
static const struct swap_map_slots p2_slots = {
	.unused = p12_slot_unused,
	.free = __entries_free,
	.folio = p2_slot_folio,
};

static const struct swap_map_slots *slots_of(struct sws_device *dev) { return phase1(dev) ? &p1_slots : &p2_slots; }

static int p12_dup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	return sws__swap_duplicate(cpu, dev, map_of(dev), slots_of(dev), off, nr);
}

static int p12_put(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *only_cache)
{
	return sws__swap_entries_put_map(cpu, dev, map_of(dev), slots_of(dev), off, nr, only_cache);
}

static int p12_count(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	int rc = 0;
	sws__cluster_lock(cpu, ci);
	if (slot_unused(dev, off, word(__st_table(dev, off), off)))
		rc = SWS_ENOENT;
	else
		*count = __slot_count(cpu, ci, dev, off);
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- swap cache ---------------------------------------------------------------------------- */

/*
 * ci->lock held: the checks of a swap-in's add (design.h), then phase I's
 * swapcache_prepare() (SWAP_HAS_CACHE on every slot).
 */
static int __cache_prepare(const struct sws_cluster *ci, struct sws_device *dev,
			   _Atomic uint64_t *t, uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct st_device *st = st_dev(dev);
	unsigned nfree = 0, ncached = 0;
	bool differ = false;
	for (unsigned i = 0; i < nr; i++) {
		uint64_t o = off + i, tb = word(t, o);
		bool is_free = slot_unused(dev, o, tb);
		bool cached = phase1(dev) ? (map_get(dev, o) & SWAP_HAS_CACHE) != 0 : st12_is_folio(tb);
		nfree += is_free;
		ncached += !is_free && cached;
		if (!is_free && !cached && i)
			differ |= zeromap_test(&st->zeromap, o) != zeromap_test(&st->zeromap, off) ||
				  swap_cgroup_get(&st->cgroup, o) != swap_cgroup_get(&st->cgroup, off);
	}
	int rc = sws__cache_add_verdict(nr, nfree, ncached, differ);
	if (rc)
		return rc;
	for (unsigned i = 0; i < nr && phase1(dev); i++)
		__map_set(ci, dev, off + i, map_get(dev, off + i) | SWAP_HAS_CACHE);
	return 0;
}

/* ci->lock held: store folio @pfn in @nr slots; *shadow the first one's old shadow. */
static void __table_add(const struct sws_cluster *ci, _Atomic uint64_t *t, uint64_t off,
			unsigned nr, uint64_t pfn, uint64_t *shadow)
{
	SWS_ASSERT_HELD(&ci->lock);
	*shadow = st12_to_shadow(word(t, off));
	for (unsigned i = 0; i < nr; i++)
		__tb_set(ci, t, st_slot(off + i), st12_mk_folio(pfn));
}

/* Phase I: swapcache_prepare() and swap_cache_add_folio(), two holds of
 * ci->lock. Phase II: one. */
static int p12_cache_add(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			 uint64_t pfn, uint64_t *shadow)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	int rc = __cache_prepare(ci, dev, t, off, nr);
	if (!rc && phase1(dev)) {
		sws__cluster_unlock(ci);
		sws__cluster_lock(cpu, ci); /* HAS_CACHE pins the slots in between */
		t = __st_table(dev, off);
	}
	if (!rc)
		__table_add(ci, t, off, nr, pfn, shadow);
	sws__cluster_unlock(ci);
	return rc;
}

static int p12_cache_get_shadow(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint64_t *shadow)
{
	(void)cpu; /* lock-free: the word, and swap_map to tell a free slot */
	uint64_t tb = word(st_rcu_table(dev, off), off);
	if (!st12_is_shadow(tb) && slot_unused(dev, off, tb))
		return SWS_ENOENT;
	*shadow = st12_to_shadow(tb);
	return 0;
}

/* ci->lock held: every slot holds folio @pfn (ENOTCACHED, then EMISMATCH). */
static int __check_cached(const struct sws_cluster *ci, struct sws_device *dev, _Atomic uint64_t *t,
			  uint64_t off, unsigned nr, uint64_t pfn)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = 0; i < nr; i++)
		if (!st12_is_folio(word(t, off + i)) || (phase1(dev) && !(map_get(dev, off + i) & SWAP_HAS_CACHE)))
			return SWS_ENOTCACHED;
	for (unsigned i = 0; i < nr; i++)
		if (st12_to_pfn(word(t, off + i)) != pfn)
			return SWS_EMISMATCH;
	return 0;
}

/*
 * Phase I: __swap_cache_del_folio() (the shadow in, one hold), then
 * put_swap_folio() (HAS_CACHE off, a second hold). Phase II: one hold, slots
 * with count 0 freed together.
 */
static int p12_cache_del(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t pfn,
			 uint64_t shadow)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	int rc = __check_cached(ci, dev, t, off, nr, pfn);
	if (!rc && phase1(dev)) {
		for (unsigned i = 0; i < nr; i++)
			__tb_set(ci, t, st_slot(off + i), st12_mk_shadow(shadow));
		sws__cluster_unlock(ci);
		sws__cluster_lock(cpu, ci);
		__drop_cache_flag(cpu, dev, ci, off, nr);
	} else if (!rc) {
		unsigned run = 0;
		for (unsigned i = 0; i < nr; i++) {
			if (!map_get(dev, off + i)) {
				__tb_set(ci, t, st_slot(off + i), 0);
				run++;
				continue;
			}
			__tb_set(ci, t, st_slot(off + i), st12_mk_shadow(shadow));
			if (run)
				__entries_free(cpu, dev, ci, off + i - run, run);
			run = 0;
		}
		if (run)
			__entries_free(cpu, dev, ci, off + nr - run, run);
	}
	sws__cluster_unlock(ci);
	return rc;
}

static int p12_cache_replace(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			     uint64_t old_pfn, uint64_t new_pfn)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table_walk(cpu, dev, off);
	int rc = __check_cached(ci, dev, t, off, nr, old_pfn);
	for (unsigned i = 0; i < nr && !rc; i++)
		__tb_set(ci, t, st_slot(off + i), st12_mk_folio(new_pfn));
	sws__cluster_unlock(ci);
	return rc;
}

/* Phase I's SWP_SYNCHRONOUS_IO bypass: for one slot __swap_count() == 1, then
 * swapcache_prepare() (for a large folio's range only the latter). */
static int p1_pin(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *shadow)
{
	if (!(dev->h.flags & SWS_SWP_SYNCHRONOUS_IO))
		return SWS_EOPNOTSUPP;
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	int rc = nr > 1 || sws___swap_map_single(ci, map_of(dev), off, 1)
		     ? __cache_prepare(ci, dev, t, off, nr)
		     : SWS_EAGAIN;
	if (!rc)
		*shadow = st12_to_shadow(word(t, off));
	sws__cluster_unlock(ci);
	return rc;
}

/* swapcache_clear(): only a pinned slot (SWAP_HAS_CACHE without a folio in the
 * table) is unpinned; HAS_CACHE over a folio is the folio's. */
static int p1_unpin(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = __st_table(dev, off);
	int rc = sws___swap_map_all_cached(ci, map_of(dev), off, nr) ? 0 : SWS_ENOTCACHED;
	for (unsigned i = 0; i < nr && !rc; i++)
		if (st12_is_folio(word(t, off + i)))
			rc = SWS_ENOTCACHED;
	if (!rc)
		__drop_cache_flag(cpu, dev, ci, off, nr);
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- zero flag, memcg: lock-free --------------------------------------------------------- */

static int check_allocated(struct sws_device *dev, uint64_t off, unsigned nr)
{
	_Atomic uint64_t *t = st_rcu_table(dev, off);
	for (unsigned i = 0; i < nr; i++)
		if (slot_unused(dev, off + i, word(t, off + i)))
			return SWS_ENOENT;
	return 0;
}

static int p12_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool zero)
{
	int rc = check_allocated(dev, off, nr);
	for (unsigned i = 0; i < nr && !rc; i++)
		zeromap_set(cpu, &st_dev(dev)->zeromap, off + i, zero);
	return rc;
}

static bool p12_zero_test(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	(void)cpu;
	return zeromap_test(&st_dev(dev)->zeromap, off);
}

static int p12_set_memcg(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint16_t id)
{
	int rc = check_allocated(dev, off, nr);
	struct sws__memcg_record mr = {.id = id};
	for (unsigned i = 0; i < nr && !rc; i++)
		sws__memcg_record_slot(cpu, dev->sim, &mr, swap_cgroup_set(cpu, &st_dev(dev)->cgroup, off + i, id));
	sws__memcg_record_done(cpu, dev->sim, &mr);
	return rc;
}

/* ---- introspection ------------------------------------------------------------------------- */

static void p12_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, struct sws_slot_state *s)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct st_device *st = st_dev(dev);
	uint64_t tb = word(__st_table(dev, off), off);
	uint8_t b = map_get(dev, off);
	if (b == SWAP_MAP_BAD) {
		s->allocated = s->bad = true;
		return;
	}
	if (slot_unused(dev, off, tb))
		return;
	s->allocated = true;
	s->count = __slot_count(NULL, ci, dev, off);
	s->zero = zeromap_test(&st->zeromap, off);
	s->memcg = swap_cgroup_get(&st->cgroup, off);
	if (st12_is_folio(tb)) {
		s->cached = true;
		s->pfn = st12_to_pfn(tb);
	} else {
		s->shadow = st12_to_shadow(tb);
	}
}

static int p12_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	int rc = sws___st_check_tables(dev, ci, msg, len);
	if (rc)
		return rc;
	struct st_device *st = st_dev(dev);
	uint32_t idx = sws__cluster_idx(dev, ci);
	uint64_t base = (uint64_t)idx * SWS_CLUSTER_SLOTS, end = sws__cluster_end(dev, ci);
	_Atomic uint64_t *t = __st_table(dev, base);
	unsigned used = (unsigned)(base + SWS_CLUSTER_SLOTS - end); /* tail beyond max */
	for (uint64_t off = base; off < end; off++) {
		uint64_t tb = word(t, off);
		uint8_t b = map_get(dev, off);
		unsigned long long o = (unsigned long long)off;
		rc = sws___swap_map_check_slot(ci, &st->map, off, msg, len);
		if (rc)
			return rc;
		bool unused = slot_unused(dev, off, tb);
		used += !unused || b == SWAP_MAP_BAD;
		if (b == SWAP_MAP_BAD && tb)
			SWS__CORRUPT(msg, len, "slot %llu: header slot has a swap cache entry", o);
		if (b == SWAP_MAP_BAD)
			continue;
		if (unused && (tb || zeromap_test(&st->zeromap, off) || swap_cgroup_get(&st->cgroup, off)))
			SWS__CORRUPT(msg, len, "slot %llu: free slot keeps a table word, zero flag or memcg", o);
		/* HAS_CACHE without a folio: pinned by a swap-in that bypasses the
		 * cache (SYNCHRONOUS_IO only), count 1 or, once put, 0. */
		bool pinned = phase1(dev) && (b & SWAP_HAS_CACHE) && !st12_is_folio(tb) &&
			      (dev->h.flags & SWS_SWP_SYNCHRONOUS_IO);
		if (phase1(dev) && (b & SWAP_HAS_CACHE) != 0 && !st12_is_folio(tb) && !pinned)
			SWS__CORRUPT(msg, len, "slot %llu: SWAP_HAS_CACHE but no folio in the swap table", o);
		if (phase1(dev) && !(b & SWAP_HAS_CACHE) && st12_is_folio(tb))
			SWS__CORRUPT(msg, len, "slot %llu: folio in the swap table without SWAP_HAS_CACHE", o);
		if (!phase1(dev) && (b & SWAP_HAS_CACHE))
			SWS__CORRUPT(msg, len, "slot %llu: SWAP_HAS_CACHE in phase II", o);
		if (!unused && !st12_is_folio(tb) && !pinned && !(b & (SWAP_COUNT_MASK | COUNT_CONTINUED)))
			SWS__CORRUPT(msg, len, "slot %llu: allocated with no count and no folio", o);
	}
	if (used != ci->count)
		SWS__CORRUPT(msg, len, "cluster %u: count %u but %u slots in use", idx, ci->count, used);
	return 0;
}

static int p1_device_init(struct sws_device *dev) { return sws__st_device_init(dev, 1); }
static int p2_device_init(struct sws_device *dev) { return sws__st_device_init(dev, 2); }

#define ST12_OPS                                  \
	.version = SWS_DESIGN_OPS_VERSION,        \
	.device_fini = sws__st_device_fini,       \
	.cluster_get = sws__st_cluster_get,       \
	.cluster_put = sws__st_cluster_put,       \
	.range_find = p12_range_find,             \
	.range_alloc = p12_range_alloc,           \
	.dup = p12_dup,                           \
	.put = p12_put,                           \
	.count = p12_count,                       \
	.cache_add = p12_cache_add,               \
	.cache_lookup = sws__st12_lookup,         \
	.cache_get_shadow = p12_cache_get_shadow, \
	.cache_del = p12_cache_del,               \
	.cache_replace = p12_cache_replace,       \
	.set_zero = p12_set_zero,                 \
	.zero_test = p12_zero_test,               \
	.set_memcg = p12_set_memcg,               \
	.slot_state = p12_slot_state,             \
	.check_cluster = p12_check_cluster

const struct sws_design_ops sws__st_p1_ops = {
	ST12_OPS,
	.name = "st-p1",
	.flags = SWS_DESIGN_SYNC_BYPASS,
	.device_init = p1_device_init,
	.alloc_finish = p1_alloc_finish,
	.pin = p1_pin,
	.unpin = p1_unpin,
};

const struct sws_design_ops sws__st_p2_ops = {
	ST12_OPS,
	.name = "st-p2",
	.flags = SWS_DESIGN_SYNC_FREE,
	.device_init = p2_device_init,
};
