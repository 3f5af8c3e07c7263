/*
 * table.c - what every swap table phase shares (swap_table.h): the
 * per-cluster tables, their lifetime, swapon and swapoff, the lock-free
 * swap-cache lookup. Called by phase12.c and phase34.c only.
 *
 * Per cluster:
 *
 *   tables[c] ──RCU-published──▶ u64[512]   4 KiB, one page: the table
 *   cold[c].extend_table ──────▶ ulong[512] 4 KiB, on the first count > 14 (III, IV)
 *   cold[c].memcg_table ───────▶ u16[512]   1 KiB, with the table (IV)
 *   vtables[c] ────────────────▶ u64[512]   4 KiB, with the table (vswap-st's ghost device)
 *
 * Lifetimes: the table (and phase IV's memcg table) is allocated when a
 * cluster leaves the free list (cluster_get) and released when it becomes
 * free (cluster_put; on a discard device after its discard, which it waits
 * for with its tables): the table through RCU, since lock-free readers may
 * still hold it (they then read NULL entries); the extend and memcg tables at
 * once (only lock holders read them). The RCU callback's carrier is
 * allocated with the table, behind its last entry where no reader looks, so
 * releasing never allocates; its bytes are charged as the simulator's own
 * (the kernel's carrier is the table page's struct page).
 */
#include <stdio.h>
#include <string.h>

#include "swap_table.h"

#define TABLE_BYTES (SWS_CLUSTER_SLOTS * sizeof(uint64_t))
#define MEMCG_BYTES (SWS_CLUSTER_SLOTS * sizeof(uint16_t))
#define VTABLE_BYTES (SWS_CLUSTER_SLOTS * sizeof(uint64_t))

/* Frees a table after a grace period; it lives behind the table's last entry. */
struct table_rcu {
	sws_rcu_head head;
	struct sws_sim *sim;
};

#define BLOCK_BYTES (TABLE_BYTES + sizeof(struct table_rcu))

static_assert(sizeof(struct cluster_tables) + sizeof(void *) == 24, "three pointers, as in phase IV");

static inline struct table_rcu *carrier_of(_Atomic uint64_t *t)
{
	return (struct table_rcu *)(void *)((char *)t + TABLE_BYTES);
}

/* The block is charged to the simulator, then the table's bytes move to
 * swap_table, so each class's peak stays exact. */
static _Atomic uint64_t *table_alloc(struct sws_mem *mem)
{
	_Atomic uint64_t *t = sws__mem_zalloc(mem, SWS_MEM_sim, BLOCK_BYTES, 4096);
	if (t) {
		sws__mem_charge(mem, SWS_MEM_sim, -(int64_t)TABLE_BYTES);
		sws__mem_charge(mem, SWS_MEM_swap_table, (int64_t)TABLE_BYTES);
	}
	return t;
}

static void table_free(struct sws_mem *mem, _Atomic uint64_t *t)
{
	if (!t)
		return;
	sws__mem_charge(mem, SWS_MEM_swap_table, -(int64_t)TABLE_BYTES);
	sws__mem_charge(mem, SWS_MEM_sim, (int64_t)TABLE_BYTES);
	sws__mem_free(mem, SWS_MEM_sim, t, BLOCK_BYTES);
}

/* ---- cluster lifecycle -------------------------------------------------------------- */

/* Does a used cluster of @st carry a memcg table? Phase IV with memcg on
 * (!mem_cgroup_disabled()), not a physical device of vswap-st (the memcg
 * ids are the virtual slots'). */
static bool want_memcg(const struct st_device *st, const struct sws_sim *sim)
{
	return st->phase == 4 && !sim->memcg_off && !st->rmap;
}

/* ci->lock of @off's cluster held: its table (phase IV: and memcg table;
 * vswap-st's ghost device: and virtual table). */
static int __tables_alloc(struct sws_device *dev, uint64_t off)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	struct st_device *st = st_dev(dev);
	struct sws_mem *mem = &dev->sim->mem;
	_Atomic uint64_t *t = table_alloc(mem);
	bool memcg_on = want_memcg(st, dev->sim);
	uint16_t *memcg = memcg_on ? sws__mem_zalloc(mem, SWS_MEM_memcg_table, MEMCG_BYTES, 64) : NULL;
	_Atomic uint64_t *vt = st_is_virtual(st) ? sws__mem_zalloc(mem, SWS_MEM_vswap_desc, VTABLE_BYTES, 64) : NULL;
	if (!t || (memcg_on && !memcg) || (st_is_virtual(st) && !vt)) {
		table_free(mem, t);
		sws__mem_free(mem, SWS_MEM_memcg_table, memcg, MEMCG_BYTES);
		sws__mem_free(mem, SWS_MEM_vswap_desc, (void *)vt, VTABLE_BYTES);
		return SWS_ENOMEM;
	}
	if (memcg)
		st_cold(st, (uint32_t)(off / SWS_CLUSTER_SLOTS))->memcg_table = memcg;
	if (vt)
		atomic_store_explicit(&st->vtables[off / SWS_CLUSTER_SLOTS], vt, memory_order_relaxed);
	atomic_store_explicit(st_tslot(dev, off), t, memory_order_release);
	return 0;
}

int sws__st_cluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint64_t base = (uint64_t)sws__cluster_idx(dev, ci) * SWS_CLUSTER_SLOTS;
	int rc = __tables_alloc(dev, base);
	if (!rc) {
		sws__count(cpu, SWS_CTR_swap_table_alloc, 1);
		/* the table, phase IV's memcg table, vswap-st's virtual table */
		struct st_device *st = st_dev(dev);
		sws__work(cpu, SWS_WORK_meta_alloc, 1 + want_memcg(st, dev->sim) + st_is_virtual(st));
	}
	return rc;
}

static void table_free_rcu(struct rcu_head *head)
{
	sws_rcu_callback_begin();
	struct table_rcu *r = sws_container_of(head, struct table_rcu, head);
	struct sws_sim *sim = r->sim;
	sws__mem_free_retired(&sim->mem, (char *)r - TABLE_BYTES, BLOCK_BYTES); /* retired at the put */
	sws__count_sim(sim, SWS_CTR_swap_table_free, 1);
	sws_rcu_callback_end();
}

/* ci->lock of @off's cluster held: the cold tables of a cluster going free
 * (only lock holders read them; a virtual table's entries are all NONE by
 * then). */
static unsigned __cold_tables_free(struct sws_device *dev, uint64_t off)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	struct st_device *st = st_dev(dev);
	if (!st->cts)
		return 0;
	struct sws_mem *mem = &dev->sim->mem;
	unsigned nv = 0;
	if (st_is_virtual(st)) {
		_Atomic uint64_t *vt = atomic_load_explicit(&st->vtables[off / SWS_CLUSTER_SLOTS], memory_order_relaxed);
		nv = vt != NULL;
		atomic_store_explicit(&st->vtables[off / SWS_CLUSTER_SLOTS], NULL, memory_order_relaxed);
		sws__mem_free(mem, SWS_MEM_vswap_desc, (void *)vt, vt ? VTABLE_BYTES : 0);
	}
	struct cluster_tables *ct = st_cold(st, (uint32_t)(off / SWS_CLUSTER_SLOTS));
	unsigned n = ct->extend_table != NULL;
	sws__mem_free(mem, SWS_MEM_extend_table, ct->extend_table, EXTEND_BYTES);
	ct->extend_table = NULL;
	if (st->phase == 4) {
		n += ct->memcg_table != NULL;
		sws__mem_free(mem, SWS_MEM_memcg_table, ct->memcg_table, MEMCG_BYTES);
		ct->memcg_table = NULL;
	}
	return n + nv;
}

void sws__st_cluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint64_t base = (uint64_t)sws__cluster_idx(dev, ci) * SWS_CLUSTER_SLOTS;
	_Atomic uint64_t *t = __st_table(dev, base);
	if (!t)
		return;
	atomic_store_explicit(st_tslot(dev, base), NULL, memory_order_release);
	sws__work_maybe(cpu, SWS_WORK_meta_free, 1 + __cold_tables_free(dev, base));
	struct table_rcu *r = carrier_of(t);
	r->sim = dev->sim;
	sws__mem_retire(&dev->sim->mem, SWS_MEM_swap_table, TABLE_BYTES);
	sws__mem_retire(&dev->sim->mem, SWS_MEM_sim, BLOCK_BYTES - TABLE_BYTES); /* the carrier */
	sws_call_rcu(&r->head, table_free_rcu);
}

/* ---- swapon / swapoff ------------------------------------------------------------------ */

void sws__st_device_fini(struct sws_device *dev)
{
	struct st_device *st = dev->design;
	struct sws_mem *mem = &dev->sim->mem;
	if (!st)
		return;
	for (uint32_t c = 0, n = sws__nr_clusters_mapped(dev); st->tables && c < n; c++) {
		uint64_t off = (uint64_t)c * SWS_CLUSTER_SLOTS;
		struct sws_cluster *ci = &dev->cluster_info[c];
		sws_spin_lock(&ci->lock); /* uncontended: the device is unpublished */
		_Atomic uint64_t *t = __st_table(dev, off);
		if (t) {
			table_free(mem, t);
			__cold_tables_free(dev, off);
			atomic_store(st_tslot(dev, off), NULL);
		}
		sws_spin_unlock(&ci->lock);
	}
	sws__cluster_array_destroy(dev, &st->tables_array);
	sws__cluster_array_destroy(dev, &st->cts_array);
	sws__cluster_array_destroy(dev, &st->vtables_array);
	if (st->map.map)
		sws__swap_map_fini(&st->map);
	sws__swap_cgroup_fini(&st->cgroup, mem);
	sws__zeromap_fini(&st->zeromap, mem);
	sws__mem_free(mem, SWS_MEM_sim, st, sizeof(*st));
	dev->design = dev->design_index = NULL;
}

/* swapon: the static maps of the phase; clusters holding bad slots (header,
 * tail) keep a table for life. */
int sws__st_device_init(struct sws_device *dev, unsigned phase)
{
	struct sws_mem *mem = &dev->sim->mem;
	struct st_device *st = sws__mem_zalloc(mem, SWS_MEM_sim, sizeof(*st), 0);
	if (!st)
		return SWS_ENOMEM;
	dev->design = st;
	st->phase = phase;
	/* Under vswap-st the ghost device's clusters carry virtual tables and
	 * the physical devices' tables hold the reverse map. */
	bool vswap = dev->sim->h.design_flags & SWS_DESIGN_VIRTUAL;
	st->rmap = vswap && !(dev->h.flags & SWS_SWP_VIRTUAL);
	st->vtype = st->rmap ? sws__vst_ghost_type(dev->sim) : 0;
	st->tables = sws__cluster_array_create(dev, &st->tables_array, sizeof(*st->tables),
					       SWS_MEM_cluster_tables, 64);
	int rc = st->tables ? 0 : SWS_ENOMEM;
	if (!rc && vswap && !st->rmap) {
		st->vtables = sws__cluster_array_create(dev, &st->vtables_array, sizeof(*st->vtables),
							SWS_MEM_cluster_tables, 64);
		rc = st->vtables ? 0 : SWS_ENOMEM;
	}
	if (!rc && phase >= 3) {
		st->cts = sws__cluster_array_create(dev, &st->cts_array, st_cold_bytes(phase), SWS_MEM_cluster_tables, 0);
		rc = st->cts ? 0 : SWS_ENOMEM;
	}
	if (!rc && phase <= 2)
		rc = sws__swap_map_init(&st->map, mem, dev->max);
	if (!rc && phase <= 3)
		rc = sws__swap_cgroup_init(&st->cgroup, mem, dev->max, dev->sim->memcg_off);
	if (!rc && phase <= 3)
		rc = sws__zeromap_init(&st->zeromap, mem, dev->max);
	if (rc) {
		sws__st_device_fini(dev);
		return rc;
	}
	dev->design_index = st->tables;
	uint32_t last = dev->nr_clusters - 1;
	uint32_t with_bad[2] = {0, last};
	/* The last cluster has bad slots only when the device ends inside it
	 * (never on xswap, whose last cluster may not be mapped). The device is
	 * not published yet: each cluster lock is taken uncontended. */
	unsigned nr_bad = dev->max % SWS_CLUSTER_SLOTS ? 2u : 1u;
	for (unsigned k = 0; k < nr_bad; k++) {
		uint64_t base = (uint64_t)with_bad[k] * SWS_CLUSTER_SLOTS;
		struct sws_cluster *ci = &dev->cluster_info[with_bad[k]];
		sws_spin_lock(&ci->lock);
		if (ci->count && !__st_table(dev, base)) {
			rc = __tables_alloc(dev, base);
			if (!rc)
				sws__count_sim(dev->sim, SWS_CTR_swap_table_alloc, 1);
		}
		if (!rc && phase >= 3) { /* phases I and II mark bad slots in swap_map */
			_Atomic uint64_t *t = __st_table(dev, base);
			if (!k)
				__tb_set(ci, t, 0, SWP_TB_BAD); /* the header */
			else
				for (uint64_t off = dev->max; off < base + SWS_CLUSTER_SLOTS; off++)
					__tb_set(ci, t, st_slot(off),
						 SWP_TB_BAD); /* beyond the end */
		}
		sws_spin_unlock(&ci->lock);
		if (rc) {
			sws__st_device_fini(dev);
			return SWS_ENOMEM;
		}
	}
	return 0;
}

/* ---- lookup -------------------------------------------------------------------------- */

/*
 * swap_cache_get_folio(): an acquire load of the cluster's table pointer from
 * the device's table pointers (dev->design_index; NULL: the cluster is free),
 * then a relaxed load of the entry.
 */
static inline uint64_t table_word(struct sws_device *dev, uint64_t off, unsigned *loads)
{
	_Atomic(_Atomic uint64_t *) *tables = dev->design_index;
	_Atomic uint64_t *t = atomic_load_explicit(&tables[off / SWS_CLUSTER_SLOTS], memory_order_acquire);
	*loads = t ? 2 : 1; /* the table pointer, then the entry */
	return t ? tb_get(t, st_slot(off)) : 0;
}

uint64_t sws__st12_lookup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned *loads)
{
	(void)cpu;
	uint64_t tb = table_word(dev, off, loads);
	return st12_is_folio(tb) ? st12_to_pfn(tb) : 0;
}

uint64_t sws__st34_lookup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned *loads)
{
	(void)cpu;
	uint64_t tb = table_word(dev, off, loads);
	return swp_tb_is_pfn(tb) ? swp_tb_to_pfn(tb) : 0;
}

/* ---- checks --------------------------------------------------------------------------- */

int sws___st_check_tables(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	struct st_device *st = st_dev(dev);
	uint32_t idx = sws__cluster_idx(dev, ci);
	uint64_t base = (uint64_t)idx * SWS_CLUSTER_SLOTS;
	_Atomic uint64_t *t = __st_table(dev, base);
	struct cluster_tables *ct = st->cts ? st_cold(st, idx) : NULL;
	bool vt = st_is_virtual(st) && atomic_load_explicit(&st->vtables[idx], memory_order_relaxed);
	if (!ci->count) { /* a cluster waiting for its discard keeps its tables until then */
		if (ci->flags != SWS_CLUSTER_DISCARD &&
		    (t || vt || (ct && (ct->extend_table || (st->phase == 4 && ct->memcg_table)))))
			SWS__CORRUPT(msg, len, "cluster %u: free but still has tables", idx);
		return 0;
	}
	if (st_is_virtual(st) && !vt)
		SWS__CORRUPT(msg, len, "cluster %u: %u slots in use but no virtual table", idx, ci->count);
	if (st->rmap && ct->memcg_table)
		SWS__CORRUPT(msg, len, "cluster %u: a memcg table on a physical device of vswap-st", idx);
	if (!t || (want_memcg(st, dev->sim) && !ct->memcg_table))
		SWS__CORRUPT(msg, len, "cluster %u: %u slots in use but no swap%s table", idx, ci->count,
			     st->phase == 4 ? "/memcg" : "");
	return 0;
}
