/*
 * swapsim/stats.h - counters and memory accounting.
 *
 * Counters carry the kernel's names where the kernel has one (vmstat, the old
 * swap_cache_info, mTHP stats); simulator-internal ones say what they count.
 * Per-order counters are arrays indexed by folio order. A snapshot is an
 * explicit, consistent-enough copy (per-CPU counters are summed without
 * stopping the CPUs, like the kernel's vmstat).
 *
 * Memory accounting: every byte the library allocates goes through the
 * environment's allocator and is charged to one structure class. "Static"
 * classes are sized at swapon (the floor a design pays for an idle device);
 * "dynamic" classes follow use.
 */
#ifndef SWAPSIM_STATS_H
#define SWAPSIM_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <swapsim/device.h>
#include <swapsim/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, description) - scalar event counters. */
#define SWS_COUNTER_LIST(X)                                                                     \
	X(swap_cache_add_total, "folios added to the swap cache (alloc or swap-in)")              \
	X(swap_cache_del_total, "folios deleted from the swap cache")                              \
	X(swap_cache_find_total, "swap cache lookups")                                             \
	X(swap_cache_find_success, "swap cache lookups that found a folio")                       \
	X(swap_cache_replace_total, "swap cache folio replacements")                               \
	X(swap_dup_total, "swap count increments (slots)")                                         \
	X(swap_put_total, "swap count decrements (slots)")                                         \
	X(swap_free_slots, "slots freed")                                                          \
	X(swap_alloc_fastpath, "allocations served by the per-CPU cached cluster")                 \
	X(swap_alloc_slowpath, "allocations that walked the device lists")                         \
	X(swap_alloc_order0_steal, "order-0 allocations that stole from higher orders' clusters") \
	X(cluster_free_to_frag, "clusters moved to a frag list after a failed scan")              \
	X(swap_writepage, "pages written to a backing store")                                      \
	X(swap_writepage_error, "page writes to a backing store that failed (Write-error on swap-device)") \
	X(swap_readpage, "pages read from a backing store")                                        \
	X(swap_discard, "clusters discarded (hole punched / buffer dropped)")                      \
	X(swap_table_alloc, "swap tables allocated (swap table phases)")                           \
	X(swap_table_free, "swap tables freed through RCU (swap table phases)")                    \
	X(swap_extend_table_alloc, "count extend tables allocated (swap table phases III, IV)")    \
	X(swap_cont_alloc, "swap_map continuation pages allocated (6.17 to phase II)")             \
	X(xa_node_alloc, "swap-cache XArray nodes allocated (6.17)")                               \
	X(xa_node_free, "XArray nodes freed through RCU (6.17 swap cache, vswap cluster map)")    \
	X(swap_cache_bypass, "swap-ins that skipped the swap cache (SYNCHRONOUS_IO, count 1; to 6.18)") \
	X(swap_free_fallback, "frees done one entry at a time: mixed counts in a batch (to 6.18)") \
	X(vswap_cluster_alloc, "vswap clusters allocated (descriptor arrays)")                     \
	X(vswap_cluster_free, "vswap clusters freed through RCU")                                  \
	X(vswap_phys_alloc, "physical slots given to virtual slots for a write (vswap)")           \
	X(vswap_phys_free, "physical slots released by virtual slots (vswap)")                     \
	X(lock_cluster_contended, "cluster lock acquisitions that had to wait")                    \
	X(lock_xa_contended, "XArray (64 MiB space) lock acquisitions that had to wait")          \
	X(lock_device_contended, "device list lock acquisitions that had to wait")                 \
	X(ext_grow, "extendable devices (xswap, vswap's virtual device): grows by the allocator")  \
	X(ext_shrink, "extendable devices: shrinks that gave clusters back")

/* X(name, description) - counters kept per folio order 0..9. */
#define SWS_ORDER_COUNTER_LIST(X)                                                 \
	X(swap_alloc, "successful folio_alloc_swap calls")                           \
	X(swap_alloc_fail, "folio_alloc_swap calls that found no cluster (ENOSPC)")

/*
 * X(name, description) - the deterministic work report: what the swap
 * subsystem did, counted per operation context (below), exact with one CPU and
 * identical from run to run whatever the machine's noise. Lock acquisitions by
 * class, atomic read-modify-writes on shared swap state, per-slot metadata
 * allocations and frees, and swap-cache lookups with their dependent metadata
 * loads (docs/replay.md, "Reading the report").
 */
#define SWS_WORK_LIST(X)                                                                      \
	X(lock_cluster, "cluster lock (ci->lock) acquisitions")                               \
	X(lock_device, "device list lock (si->lock) acquisitions")                            \
	X(lock_avail, "avail list lock (swap_avail_lock) acquisitions")                       \
	X(lock_global_cluster, "rotational devices' global_cluster_lock acquisitions")        \
	X(lock_xa, "XArray address-space lock (xa_lock) acquisitions")                        \
	X(lock_cont, "swap_map continuation lock (cont_lock) acquisitions")                   \
	X(atomic_rmw, "atomic read-modify-writes of shared swap state")                       \
	X(meta_alloc, "per-slot metadata allocated (swap tables, XArray nodes, count pages)") \
	X(meta_free, "per-slot metadata released (freed, or queued for RCU)")                 \
	X(lookup, "swap-cache lookups")                                                       \
	X(lookup_loads, "dependent metadata loads of those lookups (table words, tree levels)")   \
	X(meta_walk, "dependent loads of the walks to a slot: every design's swap-cache stores, and vswap's cluster map for every call")

/* X(name) - the contexts work is counted in (set by the memory model). */
#define SWS_WORK_CTX_LIST(X) X(other) X(swapout) X(swapin) X(free)

enum sws_work {
#define SWS__WORK_ENUM(name, desc) SWS_WORK_##name,
	SWS_WORK_LIST(SWS__WORK_ENUM)
#undef SWS__WORK_ENUM
	SWS_NR_WORK
};

enum sws_work_ctx {
#define SWS__WCTX_ENUM(name) SWS_WCTX_##name,
	SWS_WORK_CTX_LIST(SWS__WCTX_ENUM)
#undef SWS__WCTX_ENUM
	SWS_NR_WORK_CTX
};

enum sws_counter {
#define SWS__CTR_ENUM(name, desc) SWS_CTR_##name,
	SWS_COUNTER_LIST(SWS__CTR_ENUM)
#undef SWS__CTR_ENUM
	SWS_NR_COUNTERS
};

enum sws_order_counter {
#define SWS__OCTR_ENUM(name, desc) SWS_OCTR_##name,
	SWS_ORDER_COUNTER_LIST(SWS__OCTR_ENUM)
#undef SWS__OCTR_ENUM
	SWS_NR_ORDER_COUNTERS
};

/* X(name, kind, description) - memory structure classes. kind: 1 static swap
 * metadata (sized at swapon), 0 dynamic swap metadata (follows use), 2 other
 * memory: the simulator's own bookkeeping and the zswap pool, reported per
 * class but not part of any swap-cache design's metadata sums. */
#define SWS_MEM_CLASS_LIST(X)                                                                     \
	X(sim, 2, "simulation root, CPUs, device structs")                                           \
	X(cluster_info, 1, "struct swap_cluster_info array (lock, count, flags, order, list)")       \
	X(cluster_tables, 1, "per-cluster table pointers (swap table phases; vswap's physical rmap)") \
	X(swap_map, 1, "swap_map bytes (6.17 to swap table phase II)")                              \
	X(swap_cgroup, 1, "2-byte-per-slot memcg ids (6.17 to swap table phase III)")               \
	X(zeromap, 1, "zero-page bitmap (6.17 to swap table phase III)")                            \
	X(xa_spaces, 1, "per-64MiB swap-cache address spaces (6.17)")                                \
	X(swap_bitmap, 1, "physical slot allocation bitmaps (vswap)")                                \
	X(zswap_trees, 1, "zswap tree roots, one per 64 MiB of a device (every design but vswap)")   \
	X(swap_table, 0, "512-entry swap tables (swap table phases)")                                \
	X(extend_table, 0, "overflowed swap counts (swap table phases III, IV)")                     \
	X(memcg_table, 0, "per-cluster memcg tables (swap table phase IV)")                          \
	X(swap_cont, 0, "swap count continuation pages (6.17 to swap table phase II)")              \
	X(xa_node, 0, "swap-cache XArray nodes, 576 B each (6.17)")                                  \
	X(vswap_desc, 0, "vswap descriptors (24 B per virtual slot); vswap-st's virtual tables (8 B)") \
	X(vswap_cluster, 0, "vswap cluster headers and the cluster map's XArray nodes")              \
	X(swap_rmap, 0, "physical-slot reverse maps, 8 B per slot of a used cluster (vswap)")        \
	X(zswap_tree, 0, "zswap tree XArray nodes (every design but vswap)")                         \
	X(backing, 2, "memory-backed device contents")                                               \
	X(mm, 2, "memory model: folio descriptors, memcgs, address spaces, slot seeds")               \
	X(pgtable, 2, "page tables of the simulated address spaces")                                 \
	X(zspage, 2, "zsmalloc pages (compressed pool)")                                             \
	X(zs_meta, 2, "zsmalloc handles and zspage descriptors")                                     \
	X(compressor, 2, "compressor contexts and buffers")                                          \
	X(zswap, 2, "zswap entries (56 B each), pools")

enum sws_mem_class {
#define SWS__MEM_ENUM(name, is_static, desc) SWS_MEM_##name,
	SWS_MEM_CLASS_LIST(SWS__MEM_ENUM)
#undef SWS__MEM_ENUM
	SWS_NR_MEM_CLASSES
};

struct sws_stats {
	uint64_t counters[SWS_NR_COUNTERS];
	uint64_t work[SWS_NR_WORK_CTX][SWS_NR_WORK]; /* the work report, by context */
	uint64_t order_counters[SWS_NR_ORDER_COUNTERS][SWS_NR_ORDERS];
	uint64_t mem_bytes[SWS_NR_MEM_CLASSES]; /* current bytes per class */
	uint64_t mem_peak[SWS_NR_MEM_CLASSES];  /* high-water mark per class */
	uint64_t mem_static;    /* sum of static swap-metadata classes */
	uint64_t mem_dynamic;   /* sum of dynamic swap-metadata classes */
	uint64_t total_swap_pages;
	uint64_t nr_swap_pages; /* free slots */
	uint64_t nr_swapcache;  /* slots holding a folio (NR_SWAPCACHE) */
	uint64_t nr_devices;
};

/** Take a snapshot of counters and memory use. */
void sws_stats_snapshot(struct sws_sim *sim, struct sws_stats *out);

/** @return a counter's name, "" when out of range. */
const char *sws_counter_name(enum sws_counter c);
/** @return a work counter's name ("lock_cluster", ...) or a context's ("swapout", ...). */
const char *sws_work_name(enum sws_work w);
const char *sws_work_ctx_name(enum sws_work_ctx c);
const char *sws_order_counter_name(enum sws_order_counter c);
const char *sws_mem_class_name(enum sws_mem_class c);
/** @return 1 when the class is static swap metadata (sized at swapon), else 0. */
int sws_mem_class_is_static(enum sws_mem_class c);

/* The kind of a memory class (the middle column of SWS_MEM_CLASS_LIST). */
enum sws_mem_kind {
	SWS_MEM_KIND_DYNAMIC = 0, /* swap metadata that follows use */
	SWS_MEM_KIND_STATIC = 1,  /* swap metadata sized at swapon */
	SWS_MEM_KIND_OTHER = 2,   /* the simulator's own, the zswap pool, page contents */
};

/** @return the class's kind; SWS_MEM_KIND_OTHER when out of range. */
enum sws_mem_kind sws_mem_class_kind(enum sws_mem_class c);

/** Look a counter up by name (scalar counters, and "name[order]" for per-order ones). @return 0 or SWS_EINVAL. */
int sws_stats_get(const struct sws_stats *st, const char *name, uint64_t *value);

enum sws_print_format { SWS_PRINT_TABLE = 0, SWS_PRINT_JSON = 1 };

/**
 * Print a snapshot through @write (called with pieces of text), as an aligned
 * table or as one JSON object {"counters":{...},"order_counters":{...},"memory":{...}}.
 * @return 0 or the first non-zero value @write returned.
 */
int sws_stats_print(const struct sws_stats *st, enum sws_print_format fmt,
		    int (*write)(void *ctx, const char *text, size_t len), void *ctx);

/* Memory use of the swap metadata: what is sized at swapon, and what follows use. */
struct sws_memory_usage {
	uint64_t static_bytes;  /* static classes: sized at swapon */
	uint64_t dynamic_bytes; /* dynamic classes: follow use */
	uint64_t bytes[SWS_NR_MEM_CLASSES];
};

/** sws_*_memory_usage(): the simulation's metadata memory. */
void sws_sim_memory_usage(struct sws_sim *sim, struct sws_memory_usage *out);

#ifdef __cplusplus
}
#endif
#endif
