/*
 * vswap.h - virtual swap space (Nhat Pham's "Virtual Swap Space", v3 to v6,
 * 2026: v3's per-entry free, and v6 with v4's batched free and the per-CPU
 * cluster lookup cache, as two variants;
 * docs/design-vswap.md): page tables hold
 * virtual entries, and a 24-byte descriptor per virtual slot says where the
 * page is: on a physical swap device, in zswap, a zero page, or only in a
 * folio. zswap and zero pages need no physical slot; the descriptor holds
 * the swap cache, the count and the memcg id, so there is no swap_map,
 * swap_cgroup, zeromap, swap-cache XArray nor zswap tree.
 *
 *   virtual entry (type = the virtual device)        physical device (swapon)
 *   ┌───────────────┐  xa_load(cluster map, off>>9)  ┌───────────────────────┐
 *   │ off >> 9 = id ├─────────▶ struct vswap_cluster │ allocated, bad bitmaps│ static,
 *   └───────────────┘           bitmap[512 bits]    │ 2 bits per slot       │
 *                               desc ─▶ swp_desc[512]│ rmap[c] ─▶ u64[512]   │ per used
 *                                   (12 KiB, 24 B    │  (the virtual entry   │ cluster:
 *                                    each)           │   of each slot)       │ 4 KiB
 *
 *   struct swp_desc (24 B): backend  8  physical slot | zswap entry (by type)
 *                           cache    8  folio (pfn << 1) | shadow (v << 1 | 1)
 *                           count    4  swap count (no continuation)
 *                           memcgid  2
 *                           flags    1  in_swapcache:1, type:2 (SWAPFILE, ZERO, ZSWAP, FOLIO)
 *
 * The virtual space is a device of the swap core, extendable (its clusters
 * and the memory model's per-cluster arrays map as it grows), in the entry
 * allocation space: folio_alloc_swap() takes virtual slots from the core's
 * per-CPU, per-order cluster allocator as for any device, and a cluster that
 * starts serving gets its struct vswap_cluster and descriptors, inserted in
 * the global cluster map (an XArray keyed by cluster id) and erased and freed
 * through RCU when the cluster becomes free. The physical devices are in the
 * physical allocation space: a page is given a physical run only when it must
 * be written to one (sws_swap_io_target(), swap_writeout()'s
 * vswap_alloc_swap_slot(): zswap refused it, or zswap writes it back).
 * Physical devices are not in the virtual space's totals: nr_swap_pages and
 * total_swap_pages are physical, as in the series.
 *
 * Every call by entry (dup, put, swap cache, zero flag, memcg, zswap) finds
 * its cluster through the map (counted as meta_walk, lookups as
 * lookup_loads) and takes the cluster's lock (the core's ci->lock of the
 * virtual cluster): the swap-cache lookup is not lock-free under vswap.
 * Since v6 a per-CPU cache of the last cluster looked up skips the walk when
 * the next call is in the same cluster (1 load, the cached pointer); a call
 * in another cluster walks the map and first drops the cached one under
 * that cluster's lock (one more acquisition), then caches its own.
 *
 * Locking, outer first: virtual ci->lock -> physical ci->lock (freeing a
 * physical slot under the descriptor's lock; vswap-v3's per-entry free drops
 * the virtual lock first) -> dev->lock; the cluster map's lock nests inside
 * a virtual ci->lock (insert at cluster_get, erase at cluster_put) and is
 * taken alone by nothing else.
 *
 * Files: core.c (what every variant shares: the descriptors, the cluster
 * map, physical slots, the swap cache, zswap's entries, the devices'
 * lifecycle) and one file per variant: v3.c ("vswap-v3": v3's per-entry
 * free, dropping the cluster lock around each slot's backing, and its zap
 * batches cut wherever two slots' backends differ) and vswap.c ("vswap":
 * v6, v4's batched free and v6's per-CPU lookup cache). A variant is a struct vswap_variant: its ops table
 * (VSWAP_OPS, its name, its own members) and the hooks the core calls where
 * variants differ.
 * This header is the folder's index: sections name the defining file.
 */
#ifndef SWS_DESIGN_VSWAP_H
#define SWS_DESIGN_VSWAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../swap/design.h"
#include "../locked_xa.h"

enum vswap_type { VSWAP_SWAPFILE = 0, VSWAP_ZERO = 1, VSWAP_ZSWAP = 2, VSWAP_FOLIO = 3 };

struct swp_desc {
	union {
		sws_entry_t slot; /* VSWAP_SWAPFILE (0: none yet) */
		void *zswap_entry; /* VSWAP_ZSWAP */
	};
	uint64_t cache; /* folio: pfn << 1; shadow: value << 1 | 1; 0: none */
	uint32_t swap_count;
	uint16_t memcgid;
	uint8_t in_swapcache : 1, type : 2;
	uint8_t pad;
};
static_assert(sizeof(struct swp_desc) == 24, "struct swp_desc is 24 bytes (v3+)");

#define DESC_BYTES (SWS_CLUSTER_SLOTS * sizeof(struct swp_desc))

struct vswap_cluster {
	sws_rcu_head rcu;
	struct sws_sim *sim;
	uint64_t id;
	uint64_t bitmap[SWS_CLUSTER_SLOTS / 64]; /* allocated slots */
	struct swp_desc *desc;
};

/* dev->design of the virtual device. */
struct vswap_vdev {
	struct locked_xa map; /* vswap_cluster_map: id -> struct vswap_cluster, under its xa_lock */
	/* The allocator's own pointer to each cluster (it has the cluster in
	 * hand, as the kernel's per-CPU and partial lists do). */
	struct vswap_cluster **clusters;
	struct sws_cluster_array clusters_array;
	/* v6's per-CPU lookup cache (percpu_vswap_iter_cache), by CPU id: the
	 * cluster this CPU looked up last, NULL when none or when it became
	 * free; only a variant with lookup_cache has it. */
	_Atomic(struct vswap_cluster *) *iter_cache;
	unsigned nr_cpus;
};

/* dev->design of a physical device: two bitmaps and the reverse map. */
struct vswap_pdev {
	_Atomic uint64_t *allocated;
	uint64_t *bad;
	uint64_t words;
	_Atomic(_Atomic uint64_t *) *rmap; /* per cluster: the virtual entry of each slot */
	struct sws_cluster_array rmap_array;
};

#define RMAP_BYTES (SWS_CLUSTER_SLOTS * sizeof(uint64_t))
/* The virtual space grows and shrinks 64 clusters (64 MiB of entries' worth
 * of metadata pages) at a time: the series allocates clusters one by one;
 * the chunk only sizes how the core maps its per-cluster arrays. */
#define VSWAP_CHUNK 64u

static inline bool is_virtual(const struct sws_device *dev) { return dev->h.flags & SWS_SWP_VIRTUAL; }
static inline struct vswap_vdev *vd_of(struct sws_device *dev) { return dev->design; }
static inline struct vswap_pdev *pd_of(struct sws_device *dev) { return dev->design; }
static inline unsigned idx_of(uint64_t off) { return (unsigned)(off % SWS_CLUSTER_SLOTS); }

static inline bool cache_is_folio(uint64_t c) { return c && !(c & 1); }
static inline uint64_t cache_folio(uint64_t pfn) { return pfn << 1; }
static inline uint64_t cache_shadow(uint64_t v) { return v ? (v << 1) | 1 : 0; }
static inline uint64_t cache_to_shadow(uint64_t c) { return (c & 1) ? c >> 1 : 0; }

static inline void desc_unlock(struct sws_device *dev, uint64_t off)
{
	sws__cluster_unlock(sws__offset_cluster(dev, off));
}

/* The lock of virtual cluster @cl of @dev (holding @off) is held, or @cl is
 * NULL: the cluster was free when looked up and nothing is locked. */
static inline void assert_desc_locked(struct sws_device *dev, const struct vswap_cluster *cl,
				      uint64_t off)
{
	if (cl)
		SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
}

static inline bool allocated(const struct vswap_cluster *cl, uint64_t off)
{
	return cl && sws_bit_test(cl->bitmap, idx_of(off));
}

static inline struct swp_desc *desc_of(struct vswap_cluster *cl, uint64_t off) { return &cl->desc[idx_of(off)]; }


/* ---- a variant (one file each) ------------------------------------------------------------ */

/* A variant: its ops table, and what it changes in the shared core, which
 * the core reaches from the simulation's ops (variant_of()). */
struct vswap_variant {
	struct sws_design_ops ops; /* VSWAP_OPS, the name */
	/* Virtual ci->lock held: vswap_free_nr(): free every slot of the @nr
	 * from @off left with no count and not cached (put, cache_del, unpin). */
	void (*free_unused)(struct sws_cpu *cpu, struct sws_device *dev, struct vswap_cluster *cl,
			    uint64_t off, unsigned nr);
	/* v6 (patch 22): each CPU caches the cluster it looked up last and
	 * skips the map walk when the next call is in the same cluster. */
	bool lookup_cache;
};

static inline const struct vswap_variant *variant_of(const struct sws_device *dev)
{
	return (const struct vswap_variant *)(const void *)((const char *)dev->sim->ops -
							    offsetof(struct vswap_variant, ops));
}

/* ---- core.c: what every variant shares ---------------------------------------------------- */

/* vswap_iter() for a call that is not a swap-cache lookup (RCU read lock
 * held): find @off's cluster through the map (meta_walk) and lock it; NULL
 * (nothing locked) when the cluster is free. */
struct vswap_cluster *sws__vs_desc_lock(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);

/* swap_slot_free_nr(): give @nr physical slots from @phys back under their
 * cluster's lock (inside a virtual ci->lock where the caller holds one). */
void sws__vs_phys_free(struct sws_cpu *cpu, struct sws_sim *sim, sws_entry_t phys, unsigned nr);

/* Virtual ci->lock held: @nr slots from @off have no count and are not
 * cached: release their backends and give them back, in one batch. */
void sws___vs_slots_free(struct sws_cpu *cpu, struct sws_device *dev, struct vswap_cluster *cl,
			 uint64_t off, unsigned nr);

/* The ops every variant shares, as design.h describes them. */
int sws__vs_sim_init(struct sws_sim *sim);
int sws__vs_device_init(struct sws_device *dev);
void sws__vs_device_fini(struct sws_device *dev);
int sws__vs_cluster_get(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);
void sws__vs_cluster_put(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);
uint64_t sws__vs_range_find(struct sws_device *dev, struct sws_cluster *ci, uint64_t start, uint64_t end,
			    unsigned nr);
void sws__vs_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			 unsigned nr, uint64_t owner);
int sws__vs_dup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
int sws__vs_put(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *only_cache);
int sws__vs_count(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint32_t *count);
int sws__vs_cache_add(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t pfn,
		      uint64_t *shadow);
uint64_t sws__vs_cache_lookup(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned *loads);
int sws__vs_cache_get_shadow(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, uint64_t *shadow);
int sws__vs_cache_del(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t pfn,
		      uint64_t shadow);
int sws__vs_cache_replace(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr,
			  uint64_t old_pfn, uint64_t new_pfn);
int sws__vs_pin(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint64_t *shadow);
int sws__vs_unpin(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
int sws__vs_set_zero(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool zero);
bool sws__vs_zero_test(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
int sws__vs_set_memcg(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, uint16_t id);
int sws__vs_io_slot(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr, bool write,
		    sws_entry_t *phys);
int sws__vs_io_release(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, unsigned nr);
sws_entry_t sws__vs_rmap(struct sws_cpu *cpu, struct sws_device *pdev, uint64_t poff);
int sws__vs_zswap_store(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off, void *entry, void **old);
void *sws__vs_zswap_load(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
void *sws__vs_zswap_erase(struct sws_cpu *cpu, struct sws_device *dev, uint64_t off);
void sws__vs_zswap_drain(struct sws_device *dev, void (*fn)(void *ctx, void *entry), void *ctx);
void sws__vs_slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off, struct sws_slot_state *st);
int sws__vs_check_cluster(struct sws_device *dev, struct sws_cluster *ci, char *msg, size_t len);

/* The members of every variant's ops table but its name. */
#define VSWAP_OPS                                                                       \
	.version = SWS_DESIGN_OPS_VERSION,                                              \
	.flags = SWS_DESIGN_VIRTUAL | SWS_DESIGN_SYNC_BYPASS | SWS_DESIGN_RCU_BARRIER, \
	.sim_init = sws__vs_sim_init,                                                   \
	.device_init = sws__vs_device_init,                                             \
	.device_fini = sws__vs_device_fini,                                             \
	.cluster_get = sws__vs_cluster_get,                                             \
	.cluster_put = sws__vs_cluster_put,                                             \
	.range_find = sws__vs_range_find,                                               \
	.range_alloc = sws__vs_range_alloc,                                             \
	.dup = sws__vs_dup,                                                             \
	.put = sws__vs_put,                                                             \
	.count = sws__vs_count,                                                         \
	.cache_add = sws__vs_cache_add,                                                 \
	.cache_lookup = sws__vs_cache_lookup,                                           \
	.cache_get_shadow = sws__vs_cache_get_shadow,                                   \
	.cache_del = sws__vs_cache_del,                                                 \
	.cache_replace = sws__vs_cache_replace,                                         \
	.pin = sws__vs_pin,                                                             \
	.unpin = sws__vs_unpin,                                                         \
	.set_zero = sws__vs_set_zero,                                                   \
	.zero_test = sws__vs_zero_test,                                                 \
	.set_memcg = sws__vs_set_memcg,                                                 \
	.slot_state = sws__vs_slot_state,                                               \
	.check_cluster = sws__vs_check_cluster,                                         \
	.io_slot = sws__vs_io_slot,                                                     \
	.io_release = sws__vs_io_release,                                               \
	.rmap = sws__vs_rmap,                                                           \
	.zswap_store = sws__vs_zswap_store,                                             \
	.zswap_load = sws__vs_zswap_load,                                               \
	.zswap_erase = sws__vs_zswap_erase,                                             \
	.zswap_drain = sws__vs_zswap_drain

/* ---- one file per variant ---------------------------------------------------------------- */

/* v3.c */
extern const struct vswap_variant sws__vswap_v3; /* "vswap-v3": v3's per-entry free */
/* vswap.c */
extern const struct vswap_variant sws__vswap; /* "vswap": v6, batched free and the lookup cache */

#endif
