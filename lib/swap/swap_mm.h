/*
 * swap_mm.h - the swap core as the memory model (lib/mm) sees it: the
 * queries and calls it makes of the core, and nothing of the core's structs
 * but the heads a CPU, the simulation and a device open with (this header's
 * own structs), which the queries asked on every fault read inline.
 * The kernel's mm/ reads swap_info_struct's flags and bdev directly; here the
 * memory model asks, so the core's layout (swap_internal.h) stays the core's
 * and the designs'. swap_internal.h includes this header: the core's own
 * files see one declaration of each call.
 *
 * What the memory model keeps per device (slot seeds, the latency model,
 * zswap's trees) it keeps through the device hooks below; a device is an
 * opaque struct sws_device, read through the sws__device_*() queries while
 * the caller keeps it alive (an RCU read side, sim's swap_lock in a hook, a
 * swap count or a swap-cache folio of one of its slots, as the kernel's
 * get_swap_device()). Every query is a plain read: no lock, no counting.
 */
#ifndef SWS_SWAP_MM_H
#define SWS_SWAP_MM_H

#include <pthread.h>
#include <stdbool.h>
#include <swapsim/swapsim.h>

#include "../common/mem.h"
#include "../common/spinlock.h"
#include "../common/vtime.h"
#include "arena.h"

struct sws_device;
struct sws_sim;
struct sws_cpu;

/* ---- the simulation (sim.c) ----------------------------------------------------- */

/* What a design (design.h) changes beyond its metadata: the behaviour of its
 * kernel version, which the core and the memory model follow. */
#define SWS_DESIGN_EXT_DEVICES (1u << 0) /* can serve extendable (xswap) devices: every
					  * per-cluster array comes from
					  * sws__cluster_array_create(), none is static */
#define SWS_DESIGN_RCU_BARRIER (1u << 1) /* RCU callbacks touch per-device data: swapoff
					  * waits for them (rcu_barrier) */
#define SWS_DESIGN_SYNC_BYPASS (1u << 2) /* a swap-in of a count-1 slot on a
					  * SYNCHRONOUS_IO device skips the swap cache
					  * (to 6.18; vswap) */
#define SWS_DESIGN_VIRTUAL (1u << 3)     /* vswap: entries are virtual; physical slots are
					  * allocated for the pages that need storage */
#define SWS_DESIGN_SYNC_FREE (1u << 4)   /* phase II+: a swap-in from a SYNCHRONOUS_IO
					  * device always tries to free the slot
					  * (should_try_to_free_swap()) */
#define SWS_DESIGN_CLUSTER_COLS (1u << 5) /* 6.17: swapon files the free clusters
					  * SWS_CLUSTER_COLS apart, so CPUs taking fresh
					  * clusters in turn land in different 64 MiB
					  * swap-cache spaces (xa_lock) */
#define SWS_DESIGN_CACHE_ALLOC (1u << 6) /* phase IV: a swap-in allocates its folio in
					  * the swap cache (__swap_cache_alloc_folio()),
					  * whose range checks make a large order fall
					  * back (swpin_fallback) */

/* The head of every struct sws_sim (its first member): what the memory model
 * asks of the simulation on every fault and every page written, read inline
 * rather than through a call into the core. */
struct sws__sim_head {
	uint32_t design_flags; /* the design's SWS_DESIGN_* (ops->flags) */
	_Atomic(struct sws_device *) devices[SWS_MAX_SWAPFILES]; /* by type, RCU-published */
	_Atomic int64_t nr_swap_pages; /* free slots, all devices */
	_Atomic int64_t total_swap_pages;
};

static inline const struct sws__sim_head *sws__sim_head(const struct sws_sim *sim)
{
	return (const struct sws__sim_head *)(const void *)sim; /* its first member */
}

/* The simulation's allocator and memory accounting (sws_env's). */
struct sws_mem *sws__sim_mem(struct sws_sim *sim);
/* The kernel's swap pages (stats.c): the swap metadata's bytes (the static
 * and dynamic classes of sws_sim_memory_usage()) rounded up to pages, plus
 * zsmalloc's pages: two loads (mem.c keeps the metadata's sum), as the
 * memory model asks at every read of free memory (every allocation among
 * them) when the metadata takes RAM. */
uint64_t sws__sim_kernel_swap_pages(struct sws_sim *sim);
/* CPUs the simulation may have attached at once: per-CPU arrays' length. */
unsigned sws__sim_max_cpus(const struct sws_sim *sim);
/* SWS_SIM_MEMCG_OFF: cgroup_disable=memory. */
bool sws__sim_memcg_off(const struct sws_sim *sim);
/* The environment's clock (sws_env.clock_ns), or the default one. */
uint64_t sws__sim_clock_ns(const struct sws_sim *sim);

/* Has swap room: get_nr_swap_pages() > 0 (sws_swap_totals()'s free slots,
 * which it keeps in [0, total]), as reclaim asks can_reclaim_anon_pages(). */
static inline bool sws__swap_has_room(const struct sws_sim *sim)
{
	const struct sws__sim_head *h = sws__sim_head(sim);
	return atomic_load(&h->nr_swap_pages) > 0 && atomic_load(&h->total_swap_pages) > 0;
}

/* The design's behaviour beyond its metadata (the SWS_DESIGN_* flags above). */
/* do_swap_page() skips the swap cache for a count-1 slot of a SYNCHRONOUS_IO
 * device (to 6.18; vswap). */
static inline bool sws__design_sync_bypass(const struct sws_sim *sim)
{
	return sws__sim_head(sim)->design_flags & SWS_DESIGN_SYNC_BYPASS;
}
/* should_try_to_free_swap() frees a SYNCHRONOUS_IO device's slot at every
 * swap-in (swap table phase II on). */
static inline bool sws__design_sync_free(const struct sws_sim *sim)
{
	return sws__sim_head(sim)->design_flags & SWS_DESIGN_SYNC_FREE;
}
/* A swap-in allocates its folio in the swap cache, the range's state (swap
 * cache, zero flag, memcg) checked there (swap table phase IV). */
static inline bool sws__design_cache_alloc(const struct sws_sim *sim)
{
	return sws__sim_head(sim)->design_flags & SWS_DESIGN_CACHE_ALLOC;
}
/* vswap: entries are virtual; page I/O goes to the physical slot behind
 * them (sws_swap_io_target()). */
static inline bool sws__design_virtual(const struct sws_sim *sim)
{
	return sws__sim_head(sim)->design_flags & SWS_DESIGN_VIRTUAL;
}

/* sws_cpu_attach() in two steps, so a caller can reserve a CPU's memory early
 * and attach without allocating later (teardown). The memory goes with
 * sws_cpu_detach(), with a refused attach (SWS_ENOCPU), or with
 * sws__mem_free(SWS_MEM_sim) if never attached. */
struct sws_cpu *sws__cpu_alloc(struct sws_sim *sim);
int sws__cpu_attach_mem(struct sws_sim *sim, struct sws_cpu *cpu, struct sws_cpu **out);
/* The head of every struct sws_cpu (its first member): what the memory model
 * reads on every call, inline, without the rest of the core's struct. */
struct sws__cpu_head {
	struct sws_sim *sim;
	unsigned id;         /* sws_cpu_id() */
	struct sws_vcpu *vc; /* its virtual clock under the modelled clock, else NULL */
};

static inline const struct sws__cpu_head *sws__cpu_head(const struct sws_cpu *cpu)
{
	return (const struct sws__cpu_head *)(const void *)cpu; /* its first member */
}
/* sws_cpu_id() inline: the memory model and zswap index per-CPU state by it. */
static inline unsigned sws__cpu_id(const struct sws_cpu *cpu) { return sws__cpu_head(cpu)->id; }
/* The virtual clock @cpu charges (the modelled clock), or NULL (the host clock). */
static inline struct sws_vcpu *sws__cpu_vcpu(const struct sws_cpu *cpu) { return sws__cpu_head(cpu)->vc; }
/* Enter work context @ctx on @cpu; @return the previous one (restore it with this too). */
enum sws_work_ctx sws__cpu_work_enter(struct sws_cpu *cpu, enum sws_work_ctx ctx);

/* ---- devices (swap_mm.c, device.c) ---------------------------------------------- */

/* The head of every struct sws_device (its first member): what the memory
 * model reads of a device on every swap-in and page written, inline. */
struct sws__device_head {
	uint32_t flags;     /* SWS_SWP_* */
	uint32_t tier_mask; /* 1 << its swap tier (si->tier_mask) */
};

static inline const struct sws__device_head *sws__device_head(const struct sws_device *dev)
{
	return (const struct sws__device_head *)(const void *)dev; /* its first member */
}

/* get_swap_device() without the reference: device @type, or NULL (none, or
 * @type out of range). The caller keeps it alive as the file comment says. */
static inline struct sws_device *sws__get_swap_device(struct sws_sim *sim, unsigned type)
{
	if (type >= SWS_MAX_SWAPFILES)
		return NULL;
	return atomic_load_explicit(&((struct sws__sim_head *)(void *)sim)->devices[type], memory_order_acquire);
}
/* Its type, SWS_SWP_* flags, slots (header included: the largest offset + 1),
 * allocated slots, and whether it stores pages' bytes (a backing store:
 * a file or memory). */
unsigned sws__device_type(const struct sws_device *dev);
static inline uint32_t sws__device_flags(const struct sws_device *dev) { return sws__device_head(dev)->flags; }
uint64_t sws__device_max(const struct sws_device *dev);
uint64_t sws__device_inuse_pages(const struct sws_device *dev);
/* Clusters with metadata: all of them, or what an extendable device has mapped. */
uint32_t sws__device_clusters_mapped(const struct sws_device *dev);
bool sws__device_backed(const struct sws_device *dev);
/* Its swap tier's id (0: none named; sws_device_config.tier). */
static inline unsigned sws__device_tier(const struct sws_device *dev)
{
	return (unsigned)__builtin_ctz(sws__device_head(dev)->tier_mask);
}
/* The lock of cluster @idx of @dev (for SWS_ASSERT_HELD in a cluster_freed hook). */
sws_spinlock_t *sws__device_cluster_lockptr(struct sws_device *dev, uint32_t idx);

/* Told of every device that appears (before it is enabled: @return 0 or an
 * error that makes swapon fail) and goes (unpublished, before it is freed),
 * and of every cluster that became free (under its lock): the memory
 * model's per-device state. */
struct sws_device_hooks {
	int (*added)(void *ctx, struct sws_device *dev);
	void (*removed)(void *ctx, struct sws_device *dev);
	void (*cluster_freed)(void *ctx, struct sws_device *dev, uint32_t idx);
};
/* Under sim's swap_lock: @h->added for every device there is, then @h (with
 * @ctx) for every one to come. @return 0, SWS_EBUSY (another context's hooks
 * are set: one memory model per simulation) or the first added()'s error
 * (nothing set). */
int sws__sim_hook_devices(struct sws_sim *sim, const struct sws_device_hooks *h, void *ctx);
/* Under sim's swap_lock: the hooks go if @ctx set them, then @each(@ctx, dev)
 * for every device there is (nothing comes or goes meanwhile). */
void sws__sim_unhook_devices(struct sws_sim *sim, void *ctx, void (*each)(void *ctx, struct sws_device *dev));
/* Under sim's swap_lock: told of every slot freed, under its cluster lock
 * (zswap_invalidate()), and (a design that keeps zswap's entries, vswap) of
 * the zswap entry a freed slot held. NULL, NULL: no longer. */
void sws__sim_hook_slot_free(struct sws_sim *sim, void *ctx,
			     void (*notify)(void *ctx, unsigned type, uint64_t off, unsigned nr),
			     void (*release)(void *ctx, void *entry));

/* sim's ext_mutex: extendable devices' create, destroy, limit and shrink
 * (never inside an RCU read section). */
void sws__sim_ext_lock(struct sws_sim *sim);
void sws__sim_ext_unlock(struct sws_sim *sim);

void sws__device_enable(struct sws_device *dev);
/* swapoff(2) with pages in use, before try_to_unuse(): no new slots, and the
 * device's pages leave nr_swap_pages and total_swap_pages (the slots freed
 * meanwhile come back to nr_swap_pages one by one), so reclaim sees only the
 * room of the other devices. cancel: the swapoff failed, the device stays. */
void sws__device_swapoff_begin(struct sws_device *dev);
void sws__device_swapoff_cancel(struct sws_device *dev);
/*
 * A request of @service_ps to device @type's queue at the CPU's virtual time
 * (a sync point): it starts when a queue slot is free and ends @service_ps
 * later. @return its end; *@start its start. A device without a queue starts
 * it at once.
 */
uint64_t sws__device_submit(struct sws_cpu *cpu, unsigned type, uint64_t service_ps, uint64_t *start);

/* swap_pte_batch()'s step: may a zap batch ending at @last take the next
 * slot too (the caller checked it is in the same cluster)? The design
 * decides (zap_batch_extends); true for every design without one. */
bool sws__swap_zap_batch_extends(struct sws_cpu *cpu, sws_entry_t last);

/* ---- per-cluster arrays (cluster_array.c) --------------------------------------- */

/*
 * A per-cluster array of a device (cluster_info, a design's per-cluster
 * pointers, the memory model's slot seeds): plain allocator memory on a
 * regular device; on an extendable device a sparse arena reserved for every
 * cluster the device could have and mapped as far as the clusters it has
 * (cluster_array.c), so indexing is a plain array access either way.
 */
struct sws_cluster_array {
	void *base;
	size_t elem;            /* bytes per cluster */
	enum sws_mem_class cls; /* charged with what is allocated (or mapped) */
	size_t charged;
	struct sws_arena *arena; /* extendable devices */
};

/* @return the array (zeroed) or NULL. */
void *sws__cluster_array_create(struct sws_device *dev, struct sws_cluster_array *ca, size_t elem,
				enum sws_mem_class cls, size_t align);
void sws__cluster_array_destroy(struct sws_device *dev, struct sws_cluster_array *ca);

#endif
