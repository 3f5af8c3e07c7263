/*
 * swap_table.h - the swap table designs, phases I to IV (docs/design-swap-table.md):
 * the per-cluster table of 512 atomic words that became the swap cache in
 * 6.18 and then absorbed, phase by phase, the rest of a slot's metadata.
 *
 *   phase  kernel  the table word holds           beside it
 *   I      6.18    folio pointer or shadow        swap_map (count, HAS_CACHE), swap_cgroup,
 *                                                 zeromap (static); SYNC_IO bypass
 *   II     7.0     folio pointer or shadow        swap_map (count only), swap_cgroup, zeromap;
 *                                                 the folio enters the table at allocation
 *   III    ~7.1    PFN or shadow, and the count   extend_table (per cluster), swap_cgroup,
 *                                                 zeromap (static)
 *   IV     ~7.2    PFN or shadow, count, Z bit    extend_table, memcg_table (per cluster)
 *
 * Files: table.c (what every phase shares: the per-cluster tables and their
 * RCU lifetime, swapon/swapoff, the lock-free lookup), phase12.c (phases I
 * and II: counts in swap_map), phase34.c (phases III and IV: counts in the
 * table), vswap.c (vswap on phase IV, "vswap-st": the ghost device's virtual
 * tables, lazily allocated physical slots and their reverse map). This
 * header is the folder's index: sections name the defining file.
 *
 * Phase I/II entry (the folio is a pointer; the simulator's "pointer" is the
 * PFN shifted past the tag bit, as aligned as a struct folio *):
 *
 *   0                      NULL: no folio, no shadow
 *   pfn << 3    (bit 0: 0) FOLIO
 *   shadow << 1 | 1        SHADOW
 *
 * Phase III/IV entry:
 *
 *   63    60 59 58                                              2  1  0
 *  +--------+--+------------------------------------------------+--+--+
 *  | COUNT  |Z |            shadow payload (bits 1..58)           ...| 1|  SHADOW
 *  | COUNT  |Z |  unused   |          pfn (bits 2..41)           | 1| 0|  PFN (folio)
 *  +--------+--+------------------------------------------------+--+--+
 *  0                                                                    NULL (free)
 *  ~0 << 3                                                              BAD (header)
 *
 * COUNT holds the swap count 1..14 inline (0 on a cache-only PFN entry); 15
 * means "the real count is in the cluster's extend table". Z is the zero-page
 * flag (phase IV; phase III keeps the static zeromap). A PFN entry with count
 * 0 is a cache-only slot; a SHADOW entry always has a count >= 1 (payload 0 =
 * "no shadow").
 *
 * Locking: every writer holds ci->lock; the lookup and get_shadow read under
 * the RCU read lock only. Phases I-III's swap_cgroup and zeromap are updated
 * lock-free (atomic operations), as the kernel does.
 */
#ifndef SWS_DESIGN_SWAP_TABLE_H
#define SWS_DESIGN_SWAP_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../swap/design.h"
#include "../static_maps.h"
#include "../swap_map.h"

/* ---- phase III/IV entries --------------------------------------------------------- */

#define SWP_TB_NULL 0ull
#define SWP_TB_BAD (~0ull << 3)
#define SWP_TB_COUNT_SHIFT 60
#define SWP_TB_COUNT_MAX 15ull /* inline field value meaning "extended" */
/* swap_extend_table_alloc(): one unsigned long per slot of the cluster. */
#define EXTEND_BYTES (SWS_CLUSTER_SLOTS * sizeof(unsigned long))
#define SWP_TB_ZERO_BIT (1ull << 59)
#define SWP_TB_FLAGS_MASK (~0ull << 59) /* COUNT and Z */
#define SWP_TB_SHADOW_MASK ((1ull << 58) - 1)
#define SWP_TB_PFN_MASK ((1ull << 40) - 1)

static inline bool swp_tb_is_null(uint64_t tb) { return tb == SWP_TB_NULL; }
static inline bool swp_tb_is_bad(uint64_t tb) { return tb == SWP_TB_BAD; }
static inline bool swp_tb_is_shadow(uint64_t tb) { return (tb & 1) && !swp_tb_is_bad(tb); }
static inline bool swp_tb_is_pfn(uint64_t tb) { return (tb & 3) == 2 && !swp_tb_is_bad(tb); }

static inline uint64_t pfn_to_swp_tb(uint64_t pfn, uint64_t flags) { return flags | (pfn << 2) | 2; }
static inline uint64_t shadow_to_swp_tb(uint64_t shadow, uint64_t flags)
{
	return flags | (shadow << 1) | 1;
}

static inline uint64_t swp_tb_to_pfn(uint64_t tb) { return (tb >> 2) & SWP_TB_PFN_MASK; }
static inline uint64_t swp_tb_to_shadow(uint64_t tb) { return (tb >> 1) & SWP_TB_SHADOW_MASK; }
static inline uint64_t swp_tb_flags(uint64_t tb) { return tb & SWP_TB_FLAGS_MASK; }
static inline unsigned swp_tb_count_field(uint64_t tb) { return (unsigned)(tb >> SWP_TB_COUNT_SHIFT); }
static inline bool swp_tb_zero(uint64_t tb) { return tb & SWP_TB_ZERO_BIT; }

static inline uint64_t swp_tb_set_count_field(uint64_t tb, uint64_t field)
{
	return (tb & ~(0xfull << SWP_TB_COUNT_SHIFT)) | (field << SWP_TB_COUNT_SHIFT);
}

/* ---- phase I/II entries ----------------------------------------------------------- */

static inline bool st12_is_folio(uint64_t tb) { return tb && !(tb & 1); }
static inline bool st12_is_shadow(uint64_t tb) { return tb & 1; }
static inline uint64_t st12_mk_folio(uint64_t pfn) { return pfn << 3; }
static inline uint64_t st12_to_pfn(uint64_t tb) { return tb >> 3; }
/* Shadow 0 ("none") is the NULL word: the count lives in swap_map. */
static inline uint64_t st12_mk_shadow(uint64_t shadow) { return shadow ? (shadow << 1) | 1 : 0; }
static inline uint64_t st12_to_shadow(uint64_t tb) { return st12_is_shadow(tb) ? tb >> 1 : 0; }

/* ---- the per-device data (dev->design) --------------------------------------------- */

/* The cold per-cluster pointers (phases III, IV); the hot table pointers
 * have their own array. Phase III's elements stop after extend_table (8 B,
 * its swap_cluster_info being 40 B in all): memcg_table exists in phase IV only. */
struct cluster_tables {
	unsigned long *extend_table; /* as posted: sizeof(unsigned long) * SWAPFILE_CLUSTER, 4 KiB */
	uint16_t *memcg_table; /* phase IV */
};

struct st_device {
	unsigned phase; /* 1..4 */
	/* Table pointers packed densely (8 B per cluster, the only thing a
	 * lookup reads before the entry); the cold pointers beside them. */
	_Atomic(_Atomic uint64_t *) *tables;
	struct cluster_tables *cts;
	struct sws_cluster_array tables_array, cts_array; /* arenas on an xswap device */
	/* Static per-slot maps, by phase: swap_map (I, II), swap_cgroup and
	 * zeromap (I to III). */
	struct swap_map map;
	struct swap_cgroup cgroup;
	struct zeromap zeromap;
	/* vswap-st (vswap.c) only. The ghost device: each used cluster's
	 * virtual_table (8 B per slot: NONE, ZSWAP or SWAPFILE). A physical
	 * device: its table words are Pointer entries to virtual slots (the
	 * reverse map), no memcg table; vtype is the ghost device's type (set at swapon). */
	_Atomic(_Atomic uint64_t *) *vtables;
	struct sws_cluster_array vtables_array;
	bool rmap;
	unsigned vtype;
};

static inline struct st_device *st_dev(struct sws_device *dev) { return dev->design; }

static inline unsigned st_slot(uint64_t off) { return (unsigned)(off % SWS_CLUSTER_SLOTS); }

/* The bytes of one cluster's cold pointers in phase @phase. */
static inline size_t st_cold_bytes(unsigned phase)
{
	return phase == 4 ? sizeof(struct cluster_tables) : sizeof(uint32_t *);
}

/* The cold pointers of cluster @c (phases III, IV). */
static inline struct cluster_tables *st_cold(struct st_device *st, uint32_t c)
{
	return (struct cluster_tables *)(void *)((char *)st->cts + (size_t)c * st_cold_bytes(st->phase));
}

static inline _Atomic(_Atomic uint64_t *) *st_tslot(struct sws_device *dev, uint64_t off)
{
	return &st_dev(dev)->tables[off / SWS_CLUSTER_SLOTS];
}

/* ci->lock of @off's cluster held: its table (NULL: the cluster is free). */
static inline _Atomic uint64_t *__st_table(struct sws_device *dev, uint64_t off)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	return atomic_load_explicit(st_tslot(dev, off), memory_order_relaxed);
}

/* ci->lock held: __st_table() for a swap-cache store, whose walk (the
 * cluster's table pointer, then the entry) the work report counts as
 * meta_walk, as a lookup counts its loads. */
static inline _Atomic uint64_t *__st_table_walk(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	sws__work_maybe(cpu, SWS_WORK_meta_walk, 2);
	return __st_table(dev, off);
}

/* RCU read lock held: the table of @off's cluster, or NULL. */
static inline _Atomic uint64_t *st_rcu_table(struct sws_device *dev, uint64_t off)
{
	return atomic_load_explicit(st_tslot(dev, off), memory_order_acquire);
}

static inline uint64_t tb_get(_Atomic uint64_t *t, unsigned i)
{
	return atomic_load_explicit(&t[i], memory_order_relaxed);
}

/* ci->lock held: __swap_table_set(): entry @i of @ci's table @t becomes @v. */
static inline void __tb_set(const struct sws_cluster *ci, _Atomic uint64_t *t, unsigned i,
			    uint64_t v)
{
	SWS_ASSERT_HELD(&ci->lock);
	atomic_store_explicit(&t[i], v, memory_order_relaxed);
}

/* ---- table.c: what every phase shares ------------------------------------------------- */

/* swapon: the tables of clusters holding bad slots, the static maps of @phase. */
int sws__st_device_init(struct sws_device *dev, unsigned phase);
void sws__st_device_fini(struct sws_device *dev);
/* ci->lock held (the design's cluster_get): a cluster leaves the free list:
 * its table (phase IV: and memcg table). */
int sws__st_cluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);
/* ci->lock held (cluster_put): a cluster became free: its tables go (the
 * table after a grace period). */
void sws__st_cluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);
/* RCU read lock held: the cached PFN of @off, counting the dependent loads. */
uint64_t sws__st12_lookup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned *loads);
uint64_t sws__st34_lookup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned *loads);
/* ci->lock held: table-shape invariants of a cluster: tables present iff in use. */
int sws___st_check_tables(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len);

/* ---- phase12.c, phase34.c: the designs -------------------------------------------------- */

extern const struct sws_design_ops sws__st_p1_ops, sws__st_p2_ops, sws__st_p3_ops, sws__st_p4_ops;
/* phase34.c: "vswap-st", phase IV's slot operations on the ghost device with
 * vswap.c's virtual layer. */
extern const struct sws_design_ops sws__vswap_st_ops;

/* ---- vswap.c: vswap on the swap table (vswap-st) ------------------------------------------- */

/* Is @st the ghost device of vswap-st (its slots have a virtual table)? */
static inline bool st_is_virtual(const struct st_device *st) { return st->vtables != NULL; }

/* Ghost ci->lock held: slot @off leaves (its count and cache are gone):
 * whatever backs it (a zswap entry, a physical slot) is released and its
 * virtual table entry is NONE (__vswap_release_backing()). */
void sws___vst_release_backing(struct sws_cpu *cpu, struct sws_device *dev, const struct sws_cluster *ci,
			       uint64_t off);
/* Ghost ci->lock held: slot @off's count changed to @count: a physical slot
 * behind it carries the cache-only bit iff the count is 0
 * (swap_rmap_mark_cache_only() / swap_rmap_clear_cache_only()). */
void sws___vst_cache_only(struct sws_cpu *cpu, struct sws_device *dev, const struct sws_cluster *ci, uint64_t off,
			  uint32_t count);

int sws__vst_sim_init(struct sws_sim *sim);
/* The ghost device's type (made at sws_sim_create, before any swapon). */
unsigned sws__vst_ghost_type(struct sws_sim *sim);
int sws__vst_device_init(struct sws_device *dev);
void sws__vst_device_fini(struct sws_device *dev);
int sws__vst_cluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);
void sws__vst_cluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);
void sws__vst_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			  unsigned nr, uint64_t owner);
int sws__vst_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool zero);
void sws__vst_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, struct sws_slot_state *st);
int sws__vst_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len);
int sws__vst_io_slot(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool write,
		     sws_entry_t *phys);
int sws__vst_io_release(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
sws_entry_t sws__vst_rmap(struct sws_cpu *cpu, struct sws_device *pdev, uint64_t poff);
int sws__vst_zswap_store(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, void *entry, void **old);
void *sws__vst_zswap_load(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
void *sws__vst_zswap_erase(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
void sws__vst_zswap_drain(struct sws_device *dev, void (*fn)(void *ctx, void *entry), void *ctx);

#endif
