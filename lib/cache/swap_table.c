/*
 * swap_table.c - the swap table backend: phase IV (~7.2) of the kernel's swap
 * table, where one per-cluster array of 512 atomic words holds everything a
 * slot has: swap-cache folio (as a PFN) or workingset shadow, swap count and
 * zero flag. Overflowed counts go to a per-cluster extend table, memcg ids to a
 * per-cluster memcg table. See docs/swap-table.md.
 *
 * Per cluster (the P4 fields of swap_cluster_info, kept beside our 24-byte
 * cluster struct so the core stays backend-neutral):
 *
 *   struct cluster_tables            table: 512 x u64  (4 KiB, one page)
 *   ┌──────────────┐   RCU-published  ┌───┬───┬─────┬───┐
 *   │ table  ──────┼────────────────▶ │tb0│tb1│ ... │511│
 *   │ extend_table ┼──▶ u32[512] (2 KiB, on first count > 14)
 *   │ memcg_table ─┼──▶ u16[512] (1 KiB, with the table)
 *   └──────────────┘
 *
 * Lifetimes: the table and memcg table are allocated when a cluster leaves the
 * free list (cluster_get) and released when it becomes free (cluster_put):
 * the table through RCU, since lock-free readers may still hold it (they then
 * read NULL entries), the extend table at once (only lock holders read it).
 * The RCU callback's bookkeeping lives in the dead memcg table's memory, so
 * releasing never needs to allocate.
 *
 * Locking: every writer holds ci->lock. swap_cache lookup and get_shadow read
 * under the RCU read lock only: an acquire load of the table pointer, then one
 * relaxed load of the entry.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cache_ops.h"
#include "swap_table.h"

#define TABLE_BYTES (SWS_CLUSTER_SLOTS * sizeof(uint64_t))
#define EXTEND_BYTES (SWS_CLUSTER_SLOTS * sizeof(uint32_t))
#define MEMCG_BYTES (SWS_CLUSTER_SLOTS * sizeof(uint16_t))

/* Written over a released memcg table to free the swap table after a grace period. */
struct table_rcu {
	sws_rcu_head head;
	struct sws_sim *sim;
	_Atomic uint64_t *table;
};
static_assert(sizeof(struct table_rcu) <= MEMCG_BYTES, "RCU carrier must fit a memcg table");
static_assert(sizeof(struct cluster_tables) + sizeof(void *) == 24, "three pointers, as in phase IV");

static inline struct st_device *st_dev(struct sws_device *dev) { return dev->cache; }

static inline struct cluster_tables *ct_of(struct sws_device *dev, uint64_t off)
{
	return &st_dev(dev)->cts[off / SWS_CLUSTER_SLOTS];
}

/* The table pointer of the cluster whose cold pointers are @ct. */
static inline _Atomic(_Atomic uint64_t *) *tslot(struct sws_device *dev, struct cluster_tables *ct)
{
	return &st_dev(dev)->tables[ct - st_dev(dev)->cts];
}

/* __ The table of a locked, in-use cluster. */
static inline _Atomic uint64_t *locked_table(struct sws_device *dev, struct cluster_tables *ct)
{
	return atomic_load_explicit(tslot(dev, ct), memory_order_relaxed);
}

static inline uint64_t tb_get(_Atomic uint64_t *t, unsigned i)
{
	return atomic_load_explicit(&t[i], memory_order_relaxed);
}

static inline void tb_set(_Atomic uint64_t *t, unsigned i, uint64_t v)
{
	atomic_store_explicit(&t[i], v, memory_order_relaxed);
}

static inline unsigned slot_idx(uint64_t off) { return (unsigned)(off % SWS_CLUSTER_SLOTS); }

/* __ swp_tb_get_count() */
static uint32_t tb_count(const struct cluster_tables *ct, unsigned i, uint64_t tb)
{
	unsigned f = swp_tb_count_field(tb);
	return f == SWP_TB_COUNT_MAX ? ct->extend_table[i] : f;
}

/* __ Store @count for slot @i (extend table present when count >= 15). */
static uint64_t tb_with_count(struct cluster_tables *ct, unsigned i, uint64_t tb, uint32_t count)
{
	if (count >= SWP_TB_COUNT_MAX) {
		ct->extend_table[i] = count;
		return swp_tb_set_count_field(tb, SWP_TB_COUNT_MAX);
	}
	if (ct->extend_table)
		ct->extend_table[i] = 0;
	return swp_tb_set_count_field(tb, count);
}

/* ---- cluster lifecycle -------------------------------------------------------------- */

static int tables_alloc(struct sws_device *dev, struct cluster_tables *ct)
{
	struct sws_sim *sim = dev->sim;
	_Atomic uint64_t *t = sws__mem_zalloc(&sim->mem, SWS_MEM_swap_table, TABLE_BYTES, 4096);
	uint16_t *memcg = sws__mem_zalloc(&sim->mem, SWS_MEM_memcg_table, MEMCG_BYTES, 64);
	if (!t || !memcg) {
		sws__mem_free(&sim->mem, SWS_MEM_swap_table, t, TABLE_BYTES);
		sws__mem_free(&sim->mem, SWS_MEM_memcg_table, memcg, MEMCG_BYTES);
		return SWS_ENOMEM;
	}
	ct->memcg_table = memcg;
	atomic_store_explicit(tslot(dev, ct), t, memory_order_release);
	return 0;
}

static int st_cluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	uint64_t base = (uint64_t)sws__cluster_idx(dev, ci) * SWS_CLUSTER_SLOTS;
	int rc = tables_alloc(dev, ct_of(dev, base));
	if (!rc) {
		sws__count(cpu, SWS_CTR_swap_table_alloc, 1);
		sws__work(cpu, SWS_WORK_meta_alloc, 2); /* the table and the memcg table */
	}
	return rc;
}

static void table_free_rcu(struct rcu_head *head)
{
	sws_rcu_callback_begin();
	struct table_rcu *r = sws_container_of(head, struct table_rcu, head);
	struct sws_sim *sim = r->sim;
	sws__mem_free(&sim->mem, SWS_MEM_swap_table, r->table, TABLE_BYTES);
	sws__mem_free(&sim->mem, SWS_MEM_memcg_table, r, MEMCG_BYTES);
	sws__count_sim(sim, SWS_CTR_swap_table_free, 1);
	sws_rcu_callback_end();
}

static void st_cluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	struct sws_sim *sim = dev->sim;
	struct cluster_tables *ct = ct_of(dev, (uint64_t)sws__cluster_idx(dev, ci) * SWS_CLUSTER_SLOTS);
	_Atomic uint64_t *t = locked_table(dev, ct);
	if (!t)
		return;
	atomic_store_explicit(tslot(dev, ct), NULL, memory_order_release);
	sws__work_maybe(cpu, SWS_WORK_meta_free, 2 + (ct->extend_table != NULL));
	sws__mem_free(&sim->mem, SWS_MEM_extend_table, ct->extend_table, EXTEND_BYTES);
	ct->extend_table = NULL;
	struct table_rcu *r = (struct table_rcu *)(void *)ct->memcg_table;
	ct->memcg_table = NULL;
	r->sim = sim;
	r->table = t;
	sws_call_rcu(&r->head, table_free_rcu);
}

static void tables_free_now(struct sws_device *dev, struct cluster_tables *ct)
{
	struct sws_sim *sim = dev->sim;
	sws__mem_free(&sim->mem, SWS_MEM_swap_table, locked_table(dev, ct), TABLE_BYTES);
	sws__mem_free(&sim->mem, SWS_MEM_extend_table, ct->extend_table, EXTEND_BYTES);
	sws__mem_free(&sim->mem, SWS_MEM_memcg_table, ct->memcg_table, MEMCG_BYTES);
	atomic_store(tslot(dev, ct), NULL);
	ct->extend_table = NULL;
	ct->memcg_table = NULL;
}

static void st_device_fini(struct sws_device *dev)
{
	struct st_device *st = dev->cache;
	struct sws_mem *mem = &dev->sim->mem;
	if (!st)
		return;
	for (uint32_t c = 0, n = sws__nr_clusters_mapped(dev); st->tables && st->cts && c < n; c++)
		tables_free_now(dev, &st->cts[c]);
	sws__cluster_array_destroy(dev, &st->tables_array);
	sws__cluster_array_destroy(dev, &st->cts_array);
	sws__mem_free(mem, SWS_MEM_sim, st, sizeof(*st));
	dev->cache = dev->cache_index = NULL;
}

/* swapon: clusters holding bad slots (header, tail) keep a table for life. */
static int st_device_init(struct sws_device *dev)
{
	struct sws_mem *mem = &dev->sim->mem;
	struct st_device *st = sws__mem_zalloc(mem, SWS_MEM_sim, sizeof(*st), 0);
	if (!st)
		return SWS_ENOMEM;
	dev->cache = st;
	st->tables = sws__cluster_array_create(dev, &st->tables_array, sizeof(*st->tables),
					       SWS_MEM_cluster_tables, 64);
	st->cts = sws__cluster_array_create(dev, &st->cts_array, sizeof(*st->cts), SWS_MEM_cluster_tables, 0);
	if (!st->tables || !st->cts) {
		st_device_fini(dev);
		return SWS_ENOMEM;
	}
	dev->cache_index = st->tables;
	struct cluster_tables *cts = st->cts;
	uint32_t last = dev->nr_clusters - 1;
	uint32_t with_bad[2] = {0, last};
	/* The last cluster has bad slots only when the device ends inside it
	 * (never on xswap, whose last cluster may not be mapped). */
	for (unsigned k = 0; k < (dev->max % SWS_CLUSTER_SLOTS ? 2u : 1u); k++) {
		uint32_t c = with_bad[k];
		if (!dev->cluster_info[c].count || atomic_load(tslot(dev, &cts[c])))
			continue;
		if (tables_alloc(dev, &cts[c])) {
			st_device_fini(dev);
			return SWS_ENOMEM;
		}
		sws__count_sim(dev->sim, SWS_CTR_swap_table_alloc, 1);
	}
	tb_set(locked_table(dev, &cts[0]), 0, SWP_TB_BAD);
	uint64_t base = (uint64_t)last * SWS_CLUSTER_SLOTS;
	for (uint64_t off = dev->max; off < base + SWS_CLUSTER_SLOTS; off++)
		tb_set(locked_table(dev, &cts[last]), slot_idx(off), SWP_TB_BAD);
	return 0;
}

/* ---- allocation ------------------------------------------------------------------------ */

static bool st_range_free(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, unsigned nr)
{
	(void)ci;
	_Atomic uint64_t *t = locked_table(dev, ct_of(dev, off));
	for (unsigned i = slot_idx(off), e = i + nr; i < e; i++)
		if (!swp_tb_is_null(tb_get(t, i)))
			return false;
	return true;
}

static void st_range_alloc(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, unsigned nr,
			   uint64_t pfn)
{
	(void)ci;
	_Atomic uint64_t *t = locked_table(dev, ct_of(dev, off));
	for (unsigned i = slot_idx(off), e = i + nr; i < e; i++)
		tb_set(t, i, pfn_to_swp_tb(pfn, 0));
}

/* ---- counts ------------------------------------------------------------------------------ */

static int st_dup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = slot_idx(off);
	int rc = 0;
	bool need_extend = false;

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = locked_table(dev, ct);
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = t ? tb_get(t, i) : SWP_TB_NULL;
		if (swp_tb_is_null(tb))
			rc = SWS_ENOENT;
	}
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint32_t c = tb_count(ct, i, tb_get(t, i));
		if (c + 1 > SWS_SWAP_COUNT_MAX)
			rc = SWS_EOVERFLOW;
		need_extend |= c + 1 >= SWP_TB_COUNT_MAX;
	}
	if (!rc && need_extend && !ct->extend_table) {
		ct->extend_table = sws__mem_zalloc(&dev->sim->mem, SWS_MEM_extend_table, EXTEND_BYTES, 64);
		if (!ct->extend_table)
			rc = SWS_ENOMEM;
		else
			sws__count(cpu, SWS_CTR_swap_extend_table_alloc, 1), sws__work(cpu, SWS_WORK_meta_alloc, 1);
	}
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = tb_get(t, i);
		tb_set(t, i, tb_with_count(ct, i, tb, tb_count(ct, i, tb) + 1));
	}
	sws__cluster_unlock(ci);
	return rc;
}

/* __ A slot's last reference is gone and no folio holds it: it becomes free. */
static void slot_clear(struct cluster_tables *ct, _Atomic uint64_t *t, unsigned i)
{
	tb_set(t, i, SWP_TB_NULL);
	ct->memcg_table[i] = 0;
	if (ct->extend_table)
		ct->extend_table[i] = 0;
}

/* __ swap_extend_table_try_free(): drop the extend table once no count needs it. */
static void extend_table_try_free(struct sws_cpu *cpu, struct sws_sim *sim, struct cluster_tables *ct)
{
	for (unsigned i = 0; i < SWS_CLUSTER_SLOTS; i++)
		if (ct->extend_table[i])
			return;
	sws__work(cpu, SWS_WORK_meta_free, 1);
	sws__mem_free(&sim->mem, SWS_MEM_extend_table, ct->extend_table, EXTEND_BYTES);
	ct->extend_table = NULL;
}

static int st_put(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = slot_idx(off), freed = 0;
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = locked_table(dev, ct);
	for (unsigned i = i0; i < i0 + nr && !rc; i++)
		if (swp_tb_is_null(t ? tb_get(t, i) : SWP_TB_NULL))
			rc = SWS_EFREE;
	for (unsigned i = i0; i < i0 + nr && !rc; i++)
		if (!tb_count(ct, i, tb_get(t, i)))
			rc = SWS_ERANGE;
	bool left_extend = false;
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = tb_get(t, i);
		uint32_t c = tb_count(ct, i, tb) - 1;
		left_extend |= c + 1 == SWP_TB_COUNT_MAX;
		if (!c && swp_tb_is_shadow(tb)) {
			slot_clear(ct, t, i);
			sws__slot_free_notify(dev, off - i0 + i, 1);
			freed++;
		} else {
			tb_set(t, i, tb_with_count(ct, i, tb, c));
		}
	}
	if (left_extend)
		extend_table_try_free(cpu, dev->sim, ct);
	if (freed)
		sws__swap_range_free(cpu, dev, ci, off, freed);
	sws__cluster_unlock(ci);
	return rc;
}

static int st_count(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	int rc = 0;
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = locked_table(dev, ct);
	uint64_t tb = t ? tb_get(t, slot_idx(off)) : SWP_TB_NULL;
	if (swp_tb_is_null(tb))
		rc = SWS_ENOENT;
	else
		*count = tb_count(ct, slot_idx(off), tb);
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- swap cache ---------------------------------------------------------------------------- */

static int st_cache_add(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint64_t pfn, uint64_t *shadow)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = slot_idx(off), nnull = 0, npfn = 0;
	bool differ = false;
	int rc = 0;

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = locked_table(dev, ct);
	uint64_t first = t ? tb_get(t, i0) : SWP_TB_NULL;
	for (unsigned i = i0; i < i0 + nr; i++) {
		uint64_t tb = t ? tb_get(t, i) : SWP_TB_NULL;
		nnull += swp_tb_is_null(tb);
		npfn += swp_tb_is_pfn(tb);
		if (swp_tb_is_shadow(tb) && swp_tb_is_shadow(first))
			differ |= swp_tb_zero(tb) != swp_tb_zero(first) ||
				  ct->memcg_table[i] != ct->memcg_table[i0];
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
			tb_set(t, i, pfn_to_swp_tb(pfn, swp_tb_flags(tb_get(t, i))));
	}
	sws__cluster_unlock(ci);
	return rc;
}

static uint64_t st_cache_lookup(struct sws_device *dev, uint64_t off, unsigned *loads)
{
	return sws__st_lookup(dev->cache_index, off, loads);
}

static int st_cache_get_shadow(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off,
			       uint64_t *shadow)
{
	(void)cpu; /* lock-free, like swap_cache_get_shadow() */
	_Atomic uint64_t *t = atomic_load_explicit(tslot(dev, ct_of(dev, off)), memory_order_acquire);
	uint64_t tb = t ? tb_get(t, slot_idx(off)) : SWP_TB_NULL;
	if (swp_tb_is_null(tb))
		return SWS_ENOENT;
	*shadow = swp_tb_is_shadow(tb) ? swp_tb_to_shadow(tb) : 0;
	return 0;
}

/* __ Every slot holds folio @pfn? ENOTCACHED beats EMISMATCH over the range. */
static int check_cached(_Atomic uint64_t *t, unsigned i0, unsigned nr, uint64_t pfn)
{
	for (unsigned i = i0; i < i0 + nr; i++)
		if (!t || !swp_tb_is_pfn(tb_get(t, i)))
			return SWS_ENOTCACHED;
	for (unsigned i = i0; i < i0 + nr; i++)
		if (swp_tb_to_pfn(tb_get(t, i)) != pfn)
			return SWS_EMISMATCH;
	return 0;
}

static int st_cache_del(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint64_t pfn, uint64_t shadow)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = slot_idx(off), freed = 0;

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = locked_table(dev, ct);
	int rc = check_cached(t, i0, nr, pfn);
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = tb_get(t, i);
		if (!tb_count(ct, i, tb)) {
			slot_clear(ct, t, i);
			sws__slot_free_notify(dev, off - i0 + i, 1);
			freed++;
		} else {
			tb_set(t, i, shadow_to_swp_tb(shadow, swp_tb_flags(tb)));
		}
	}
	if (freed)
		sws__swap_range_free(cpu, dev, ci, off, freed);
	sws__cluster_unlock(ci);
	return rc;
}

static int st_cache_replace(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			    uint64_t old_pfn, uint64_t new_pfn)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	unsigned i0 = slot_idx(off);

	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = locked_table(dev, ct_of(dev, off));
	int rc = check_cached(t, i0, nr, old_pfn);
	for (unsigned i = i0; i < i0 + nr && !rc; i++)
		tb_set(t, i, pfn_to_swp_tb(new_pfn, swp_tb_flags(tb_get(t, i))));
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- zero flag, memcg ------------------------------------------------------------------------ */

/* __ Every slot allocated? */
static int check_allocated(_Atomic uint64_t *t, unsigned i0, unsigned nr)
{
	for (unsigned i = i0; i < i0 + nr; i++)
		if (!t || swp_tb_is_null(tb_get(t, i)))
			return SWS_ENOENT;
	return 0;
}

static int st_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
		       bool zero)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	unsigned i0 = slot_idx(off);
	sws__cluster_lock(cpu, ci);
	_Atomic uint64_t *t = locked_table(dev, ct_of(dev, off));
	int rc = check_allocated(t, i0, nr);
	for (unsigned i = i0; i < i0 + nr && !rc; i++) {
		uint64_t tb = tb_get(t, i);
		tb_set(t, i, zero ? tb | SWP_TB_ZERO_BIT : tb & ~SWP_TB_ZERO_BIT);
	}
	sws__cluster_unlock(ci);
	return rc;
}

static int st_set_memcg(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			uint16_t id)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	struct cluster_tables *ct = ct_of(dev, off);
	unsigned i0 = slot_idx(off);
	sws__cluster_lock(cpu, ci);
	int rc = check_allocated(locked_table(dev, ct), i0, nr);
	for (unsigned i = i0; i < i0 + nr && !rc; i++)
		ct->memcg_table[i] = id;
	sws__cluster_unlock(ci);
	return rc;
}

/* ---- introspection ------------------------------------------------------------------------- */

static void st_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			  struct sws_slot_state *st)
{
	(void)ci;
	struct cluster_tables *ct = ct_of(dev, off);
	_Atomic uint64_t *t = locked_table(dev, ct);
	unsigned i = slot_idx(off);
	uint64_t tb = t ? tb_get(t, i) : SWP_TB_NULL;
	if (swp_tb_is_null(tb))
		return;
	st->allocated = true;
	if (swp_tb_is_bad(tb)) {
		st->bad = true;
		return;
	}
	st->count = tb_count(ct, i, tb);
	st->zero = swp_tb_zero(tb);
	st->memcg = ct->memcg_table[i];
	if (swp_tb_is_pfn(tb)) {
		st->cached = true;
		st->pfn = swp_tb_to_pfn(tb);
	} else {
		st->shadow = swp_tb_to_shadow(tb);
	}
}

static int st_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
	uint32_t idx = sws__cluster_idx(dev, ci);
	struct cluster_tables *ct = &st_dev(dev)->cts[idx];
	_Atomic uint64_t *t = locked_table(dev, ct);
	if (!ci->count) {
		if (t || ct->extend_table || ct->memcg_table)
			SWS__CORRUPT(msg, len, "cluster %u: free but still has tables", idx);
		return 0;
	}
	if (!t || !ct->memcg_table)
		SWS__CORRUPT(msg, len, "cluster %u: %u slots in use but no swap/memcg table", idx, ci->count);
	unsigned used = 0;
	for (unsigned i = 0; i < SWS_CLUSTER_SLOTS; i++) {
		uint64_t tb = tb_get(t, i);
		used += !swp_tb_is_null(tb);
		if (swp_tb_is_null(tb) && ct->memcg_table[i])
			SWS__CORRUPT(msg, len, "cluster %u slot %u: free slot keeps memcg %u", idx, i, ct->memcg_table[i]);
		if (swp_tb_is_null(tb) || swp_tb_is_bad(tb))
			continue;
		unsigned f = swp_tb_count_field(tb);
		if (f == SWP_TB_COUNT_MAX && (!ct->extend_table || ct->extend_table[i] < SWP_TB_COUNT_MAX))
			SWS__CORRUPT(msg, len, "cluster %u slot %u: extended count without extend entry", idx, i);
		if (f < SWP_TB_COUNT_MAX && ct->extend_table && ct->extend_table[i])
			SWS__CORRUPT(msg, len, "cluster %u slot %u: stale extend entry", idx, i);
		if (swp_tb_is_shadow(tb) && !tb_count(ct, i, tb))
			SWS__CORRUPT(msg, len, "cluster %u slot %u: shadow with count 0", idx, i);
	}
	if (used != ci->count)
		SWS__CORRUPT(msg, len, "cluster %u: count %u but %u slots in use", idx, ci->count, used);
	return 0;
}

const struct sws_cache_ops sws__swap_table_ops = {
	.version = SWS_CACHE_OPS_VERSION,
	.name = "swap_table",
	.xswap = true,
	.device_init = st_device_init,
	.device_fini = st_device_fini,
	.cluster_get = st_cluster_get,
	.cluster_put = st_cluster_put,
	.range_free = st_range_free,
	.range_alloc = st_range_alloc,
	.alloc_finish = NULL,
	.dup = st_dup,
	.put = st_put,
	.count = st_count,
	.cache_add = st_cache_add,
	.cache_lookup = st_cache_lookup,
	.cache_get_shadow = st_cache_get_shadow,
	.cache_del = st_cache_del,
	.cache_replace = st_cache_replace,
	.set_zero = st_set_zero,
	.set_memcg = st_set_memcg,
	.slot_state = st_slot_state,
	.check_cluster = st_check_cluster,
};
