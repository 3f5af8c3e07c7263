/*
 * swap_internal.h - the objects of the swap core: the simulation root, CPUs,
 * devices (the kernel's swap_info_struct) and clusters (swap_cluster_info),
 * and the index of lib/swap: the types, the inline helpers, then one section
 * per defining file naming what it exports to the other files (as the
 * kernel's mm/swap.h). Included by every file of lib/swap and, for the types
 * and the helpers design.h lists, by the designs, zswap and xswap; the
 * memory model uses swap_mm.h, which this header includes.
 *
 * Ownership:   sws_sim ─┬─ devices[type] (RCU-published) ─┬─ cluster_info[]
 *                       │                                  ├─ the design's per-device data
 * (dev->design) │                                  ├─ extendable devices: dev->ext │ └─ backing
 * store ├─ cpus[] (one per attached thread, per-order cluster cache, counters) └─ the design's ops
 * table (const, design.h)
 *
 * Locks, in the order they nest (outer first):
 *   sim->ext_mutex      extendable devices' create, destroy, limit and shrink
 *                       (never inside an RCU read section: the shrink waits
 *                       for a grace period under it)
 *   sim->swap_lock      swapon/swapoff, the device table
 *   dev->global_cluster_lock  rotational devices' shared next[order] (held
 *                       across the whole slow-path allocation on that device)
 *   ext->lock           an extendable device's grow and the two short steps
 *                       of its shrink (cluster_array.c)
 *   ci->lock            one cluster: its count, order and every slot in it
 *   design locks        a design's own locks nest inside ci->lock (the 6.17
 *                       XArray's space lock, swap_map's cont_lock; see each
 *                       design's file)
 *   dev->lock           a device's cluster lists (taken inside ci->lock; the
 *                       allocator walks lists with dev->lock and trylocks ci)
 *   sim->avail_lock     the list of devices that have free slots
 * A function whose caller must hold a lock is named __name (sws___name when
 * it is not static), says which lock in its comment and asserts it first
 * (SWS_ASSERT_HELD, common/spinlock.h). Readers of the device table and of
 * swap-cache entries run under the RCU read lock; every public per-slot call
 * holds it for its whole duration, so swapoff's synchronize_rcu() waits for
 * calls in flight.
 */
#ifndef SWS_SWAP_INTERNAL_H
#define SWS_SWAP_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <swapsim/swapsim.h>

#include "../common/clock.h"
#include "../common/compiler.h"
#include "../common/list.h"
#include "../common/mem.h"
#include "../common/rcu.h"
#include "../common/spinlock.h"
#include "swap_mm.h"

struct sws_design_ops;
struct sws_device;

/* The SWS_DESIGN_* flags (what a design changes beyond its metadata): swap_mm.h. */
/* 6.17's SWAP_CLUSTER_COLS: max(clusters a cache line of cluster_info holds,
 * clusters a 64 MiB address space holds) = max(3, 16384 / 512). */
#define SWS_CLUSTER_COLS 32
struct sws_arena;
struct sws_sim;

/* struct sws_cluster_array, a device's per-cluster array: swap_mm.h. */

/*
 * What makes an extendable device (xswap; vswap's virtual device) grow and
 * shrink: the policy its owner supplies. The mechanism (mapping every
 * per-cluster array, publishing the bound, the deferred shrink's isolation
 * and grace period) is the core's (cluster_array.c).
 */
struct sws_ext_ops {
	/* ext->lock held; the allocator found no cluster for @nr slots with
	 * @mapped clusters mapped: @return the clusters to map (> @mapped), or
	 * 0 when the device may not grow (SWS_ENOSPC). */
	uint32_t (*grow_to)(struct sws_device *dev, uint32_t mapped, unsigned nr);
	/* ext->lock held, deferred work: of the @tail free clusters at the end
	 * of the mapped range, @return how many to give back. */
	uint32_t (*shrink_count)(struct sws_device *dev, uint32_t mapped, uint32_t tail);
	/* Optional, deferred work before any shrink (sim->ext_mutex held). */
	void (*work)(struct sws_device *dev);
	/* The device goes (not called when sws__device_add() fails: the data
	 * then stays the creator's): free the owner's data. */
	void (*teardown)(struct sws_device *dev);
};

#define SWS_EXT_MAX_ARRAYS 6

/* The core's state of an extendable device (dev->ext). */
struct sws_ext {
	const struct sws_ext_ops *ops;
	void *data;            /* the owner's (xswap's limit, ...) */
	pthread_mutex_t lock;  /* grow and the two short steps of a shrink */
	/* A shrink in its grace period isolated [nr_clusters_mapped, isolated_end):
	 * still mapped and initialised, maybe locked by a reader that saw the old
	 * bound. 0: none. (lock) */
	uint32_t isolated_end;
	atomic_bool shrink_pending;
	struct sws_cluster_array *arrays[SWS_EXT_MAX_ARRAYS];
	unsigned nr_arrays;
	uint64_t grow_fail_nth; /* fault injection: the Nth grow from now fails to map */
	_Atomic uint64_t grows, grow_fails, shrinks, clusters_unmapped;
};

/* How sws__device_add() makes a device extendable. */
struct sws_ext_setup {
	const struct sws_ext_ops *ops;
	void *data;
	uint64_t pages;           /* usable slots at first */
	uint32_t clusters_mapped; /* clusters mapped at first */
	enum sws_mem_class cluster_info_class; /* what its cluster_info is charged to */
};

/* ci->flags: which list a cluster is on (kernel CLUSTER_FLAG_*). */
enum sws_cluster_flag {
	SWS_CLUSTER_NONE = 0, /* isolated: off every list, owned by a lock holder */
	SWS_CLUSTER_FREE,
	SWS_CLUSTER_NONFULL,
	SWS_CLUSTER_FRAG,
	SWS_CLUSTER_FULL,
	SWS_CLUSTER_DISCARD,
	SWS_CLUSTER_USABLE = SWS_CLUSTER_FRAG, /* flag <= USABLE: may be allocated from */
};

/* struct swap_cluster_info, 6.12-6.17 layout: 24 bytes. */
struct sws_cluster {
	sws_spinlock_t lock;
	uint16_t count; /* allocated slots (bad slots included), 0..512 */
	uint8_t flags;
	uint8_t order;  /* the order this cluster serves */
	struct sws_list list;
};


struct sws_backing_store {
	enum sws_backing kind;
	int fd;                /* SWS_BACKING_FILE */
	char *path;            /* SWS_BACKING_UNLINK on a file swapon created: remove at close */
	size_t path_len;       /* bytes of path (with its NUL) */
	uint64_t st_dev, st_ino; /* the file swapon created (only removed while the path names it) */
	_Atomic(uint8_t *) *chunks; /* SWS_BACKING_MEMORY: 2 MiB per cluster, on first write */
	_Atomic uint64_t write_errors; /* failed page writes */
	_Atomic int write_errno;       /* errno of the last one */
	_Atomic uint32_t fail_streak;  /* failed writes since the last one that worked */
	atomic_bool write_failed;      /* SWS_DEVICE_WRITE_FAIL_LIMIT in a row: no new slots */
};

#define SWS_INUSE_OFFLIST (1ull << 62) /* SWAP_USAGE_OFFLIST_BIT */
#define SWS_NO_OFFSET 0                /* "no cached offset": slot 0 is never allocatable */

struct sws_device {
	struct sws__device_head h; /* flags, tier_mask: first, read inline through swap_mm.h */
	struct sws_sim *sim;
	int type;
	int prio;
	uint32_t gen; /* unique per swapon in this sim */
	atomic_bool writeok;      /* SWP_WRITEOK */
	bool enabled;             /* counted in the totals (swap_lock) */
	bool leaving;             /* a swapoff runs: its pages left the totals (swap_lock) */
	uint64_t max;             /* slots including header (xswap: the reservation) */
	_Atomic uint64_t pages;   /* usable slots (xswap: under the limit) */
	_Atomic uint64_t inuse_pages; /* allocated slots | SWS_INUSE_OFFLIST */
	/* Slots [0, slots_mapped) have cluster metadata: max on a regular device;
	 * on an xswap device it moves with grow and shrink. Every offset check
	 * uses it, so an offset in an unmapped cluster is refused, not followed. */
	_Atomic uint64_t slots_mapped;
	uint32_t nr_clusters;     /* xswap: clusters reserved */
	_Atomic uint32_t nr_clusters_mapped; /* nr_clusters on a regular device */
	struct sws_cluster *cluster_info;
	struct sws_cluster_array cluster_array; /* where cluster_info lives */
	struct sws_ext *ext;      /* NULL unless an extendable device */

	sws_spinlock_t lock;      /* si->lock: the lists below */
	struct sws_list free_clusters, full_clusters, discard_clusters;
	struct sws_list nonfull_clusters[SWS_NR_ORDERS];
	struct sws_list frag_clusters[SWS_NR_ORDERS];
	uint32_t nr_free, nr_full, nr_discard;
	uint32_t nr_nonfull[SWS_NR_ORDERS];
	uint32_t nr_frag[SWS_NR_ORDERS]; /* frag_cluster_nr[] */

	sws_spinlock_t global_cluster_lock; /* rotational devices */
	uint64_t global_next[SWS_NR_ORDERS];

	void *design;       /* the design's per-device data */
	void *design_index; /* what a swap-cache lookup indexes first (swap table: the
			     * table pointers; XArray: the address spaces), so a lookup
			     * is type -> device -> index -> ... as in the kernel */
	struct sws_backing_store backing;
	struct sws_list avail_node; /* on sim->avail_head[space] while it has free slots */
	bool on_avail;
	uint8_t space;              /* enum sws_alloc_space */

	/* The device's request queue in virtual time (the modelled clock,
	 * sws__device_submit()): when each of its queue_depth slots is free (ps),
	 * in ascending order round a ring from queue_head (the slot that frees
	 * first). */
	uint16_t queue_head;
	uint32_t queue_depth;       /* 0: no queue (the CPU does the work) */
	uint64_t queue_free[SWS_DEVICE_MAX_QUEUE];
};

/* device.c's sws__device_submit() (a device's queue in virtual time): swap_mm.h. */

/* Allocation spaces (alloc.c): where entries come from, and vswap's physical devices. */
enum sws_alloc_space { SWS_SPACE_ENTRY = 0, SWS_SPACE_PHYS = 1, SWS_NR_SPACES };

/* percpu_swap_cluster, one order of one space. */
struct sws_pcp {
	int32_t type;  /* -1: none */
	uint32_t gen;  /* the device's generation: a later device of the type is another */
	uint64_t next; /* next offset to try, SWS_NO_OFFSET: none */
};

/* A CPU: one attached caller thread. Only its thread writes it. */
struct sws_cpu {
	struct sws__cpu_head h; /* sim, id, vc: first, read inline through swap_mm.h */
	struct sws_pcp pcp[SWS_NR_SPACES][SWS_NR_ORDERS];
	_Atomic uint64_t ctr[SWS_NR_COUNTERS];
	_Atomic uint64_t octr[SWS_NR_ORDER_COUNTERS][SWS_NR_ORDERS];
	_Atomic int64_t nr_swapcache; /* this CPU's share of NR_SWAPCACHE (may be negative) */
	enum sws_work_ctx work_ctx;   /* what this CPU does now (the memory model sets it) */
	_Atomic uint64_t work[SWS_NR_WORK_CTX][SWS_NR_WORK];
};

/* struct sws_sim's magic: SWS__SIM_LIVE from create until destroy, which
 * leaves SWS__SIM_DEAD behind so that a second destroy of the same memory is
 * caught while nothing reused it. */
#define SWS__SIM_LIVE 0x73696d4cu /* "simL" */
#define SWS__SIM_DEAD 0x73696d44u /* "simD" */

#define SWS__SWAP_MEMCGS 256 /* memcg ids whose swap usage is kept: 0 .. 255 */

struct sws_sim {
	struct sws__sim_head h; /* design_flags, devices[], nr_swap_pages, total_swap_pages: first,
				 * read inline through swap_mm.h */
	struct sws_mem mem;
	struct sws_env env;
	const struct sws_design_ops *ops;
	enum sws_backend backend;
	unsigned max_cpus;
	uint32_t magic; /* SWS__SIM_LIVE while the simulation exists (in what was padding) */
	bool memcg_off; /* SWS_SIM_MEMCG_OFF: cgroup_disable=memory */

	sws_spinlock_t swap_lock;  /* swapon/swapoff */

	sws_spinlock_t avail_lock; /* swap_avail_lock */
	/* Devices with free slots, by priority, round robin among equals; one
	 * list per allocation space. */
	struct sws_list avail_head[SWS_NR_SPACES];
	uint32_t next_gen; /* swap_lock */
	/* Swap tiers' names by id (swap_lock; "" where unused; tier 0 has none). */
	char tier_name[SWS_SWAP_NR_TIERS][SWS_SWAP_TIER_NAME_MAX];
	sws_spinlock_t cpu_lock; /* cpus[] (below); here, in what was padding */

	_Atomic int64_t nr_swapcache;  /* NR_SWAPCACHE of detached CPUs */
	_Atomic int nr_real_swapfiles; /* devices with storage (not extendable): zswap may write back */
	_Atomic int nr_ext;            /* extendable devices */
	/* Extendable devices' create, destroy, limit and shrink (outside RCU readers). */
	pthread_mutex_t ext_mutex;

	/* Told of every device that appears (before it is enabled: @return 0 or an
	 * error that makes swapon fail) and goes (unpublished, before it is freed):
	 * the memory model's per-device state. */
	int (*device_added)(void *ctx, struct sws_device *dev);
	void (*device_removed)(void *ctx, struct sws_device *dev);
	/* Told of every cluster that became free (no slot of it allocated), under
	 * its ci->lock, on every kind of device: the memory model gives back its
	 * per-cluster state (slot seeds). */
	void (*cluster_freed)(void *ctx, struct sws_device *dev, uint32_t idx);
	void *device_ctx;

	struct sws_cpu **cpus; /* [max_cpus], NULL where free */

	/* Told of every slot freed, under its cluster lock (zswap_invalidate). */
	void (*slot_free_notify)(void *ctx, unsigned type, uint64_t off, unsigned nr);
	/* A design that keeps zswap's entries itself (vswap) hands the entry of
	 * a freed slot here, under its cluster lock (zswap_entry_free()). */
	void (*zswap_release)(void *ctx, void *entry);
	void *slot_free_ctx;
	/* Each memcg's swap usage in slots (memory.swap.current, the memcg's
	 * swap page_counter), by memcg id: charged when a folio's slots get
	 * its id (mem_cgroup_try_charge_swap(), sws_swap_set_memcg()),
	 * uncharged by every design's free path (mem_cgroup_uncharge_swap()).
	 * Id 0 (no memcg, the root) is not counted. */
	_Atomic uint64_t memcg_swap[SWS__SWAP_MEMCGS];
	/* Events counted outside a CPU, and the counters of detached CPUs. */
	_Atomic uint64_t ctr[SWS_NR_COUNTERS];
	_Atomic uint64_t octr[SWS_NR_ORDER_COUNTERS][SWS_NR_ORDERS];
	_Atomic uint64_t work[SWS_NR_WORK_CTX][SWS_NR_WORK]; /* of detached CPUs */
	char errmsg[256]; /* the last failed configuration call (swap_lock) */
};

/* In an invariant checker: describe the violation in @msg and fail. */
#define SWS__CORRUPT(msg, len, ...)                       \
	do {                                              \
		snprintf((msg), (len), __VA_ARGS__);      \
		return SWS_ECORRUPT;                      \
	} while (0)

/*
 * CONFIG_XSWAP: 0 compiles xswap support out, as the kernel's CONFIG_XSWAP=n
 * does. Only bench/ builds it that way, to show what the support costs the
 * allocation path of a simulation with no xswap device.
 */
#ifndef SWS_CONFIG_XSWAP
#define SWS_CONFIG_XSWAP 1
#endif

/* ---- this header: counters (vmstat-style, per CPU) ------------------------------ */

/* Count on a CPU: single writer, so a relaxed load + store (no locked RMW). */
static inline void sws__count(struct sws_cpu *cpu, enum sws_counter c, uint64_t n)
{
	sws_store_relaxed(&cpu->ctr[c], sws_load_relaxed(&cpu->ctr[c]) + n);
}

static inline void sws__count_order(struct sws_cpu *cpu, enum sws_order_counter c, unsigned order)
{
	sws_store_relaxed(&cpu->octr[c][order], sws_load_relaxed(&cpu->octr[c][order]) + 1);
}

/* Count @n of work @w in the CPU's current context. */
static inline void sws__work(struct sws_cpu *cpu, enum sws_work w, uint64_t n)
{
	_Atomic uint64_t *p = &cpu->work[cpu->work_ctx][w];
	sws_store_relaxed(p, sws_load_relaxed(p) + n);
	if (sws_unlikely(cpu->h.vc)) { /* the modelled clock: what the work costs (locks: their own) */
		switch (w) {
		case SWS_WORK_atomic_rmw:
			sws__vt_charge(cpu->h.vc, SWS_COST_atomic, n);
			break;
		case SWS_WORK_meta_alloc:
			sws__vt_charge(cpu->h.vc, SWS_COST_meta_alloc, n);
			break;
		case SWS_WORK_meta_free:
			sws__vt_charge(cpu->h.vc, SWS_COST_meta_free, n);
			break;
		case SWS_WORK_lookup_loads:
		case SWS_WORK_meta_walk:
			sws__vt_loads(cpu->h.vc, n);
			break;
		default:
			break;
		}
	}
}

/* The same where there may be no CPU (work done outside one is not counted). */
static inline void sws__work_maybe(struct sws_cpu *cpu, enum sws_work w, uint64_t n)
{
	if (cpu)
		sws__work(cpu, w, n);
}

/* Enter work context @ctx; @return the previous one (restore it with this too). */
static inline enum sws_work_ctx sws__work_enter(struct sws_cpu *cpu, enum sws_work_ctx ctx)
{
	enum sws_work_ctx old = cpu->work_ctx;
	cpu->work_ctx = ctx;
	return old;
}

/* Take a lock of work class @w, counting the acquisition and its contention. */
static inline void sws__lock_counted(struct sws_cpu *cpu, sws_spinlock_t *l, enum sws_work w,
				     enum sws_counter contended)
{
	_Static_assert(SWS_WORK_lock_cluster == (int)SWS_LOCK_cluster && SWS_WORK_lock_device == (int)SWS_LOCK_device &&
			       SWS_WORK_lock_avail == (int)SWS_LOCK_avail &&
			       SWS_WORK_lock_global_cluster == (int)SWS_LOCK_global_cluster &&
			       SWS_WORK_lock_xa == (int)SWS_LOCK_xa && SWS_WORK_lock_cont == (int)SWS_LOCK_cont,
		       "a lock's work class is its lock class");
	bool waited = sws_spin_lock_cls(l, (enum sws_lock_class)w);
	if (cpu) {
		sws__work(cpu, w, 1);
		if (waited)
			sws__count(cpu, contended, 1);
	}
}

/* NR_SWAPCACHE moves by @delta slots (vmstat-style per-CPU delta). */
static inline void sws__swapcache_mod(struct sws_cpu *cpu, int64_t delta)
{
	sws_store_relaxed(&cpu->nr_swapcache, sws_load_relaxed(&cpu->nr_swapcache) + delta);
}

/* Count outside a CPU (RCU callbacks, swapon): shared atomic. */
static inline void sws__count_sim(struct sws_sim *sim, enum sws_counter c, uint64_t n)
{
	atomic_fetch_add_explicit(&sim->ctr[c], n, memory_order_relaxed);
}

/* ---- this header: devices, clusters, their locks ------------------------------- */

/* An extendable device (xswap): the core calls its ext hooks. */
/* memcg @id's swap usage moved by @nr slots: mem_cgroup_try_charge_swap()
 * (@nr > 0) or mem_cgroup_uncharge_swap() (@nr < 0), one page_counter update,
 * an atomic read-modify-write, per call: designs call it as often as their
 * kernel does. */
static inline void sws__memcg_swap_mod(struct sws_cpu *cpu, struct sws_sim *sim, uint16_t id, int64_t nr)
{
	if (!id || id >= SWS__SWAP_MEMCGS || !nr)
		return;
	atomic_fetch_add_explicit(&sim->memcg_swap[id], (uint64_t)nr, memory_order_relaxed);
	sws__work_maybe(cpu, SWS_WORK_atomic_rmw, 1);
}

/* Freed slots' memcg ids, consecutive ones of one memcg uncharged in one
 * call (__swap_cluster_free_entries()'s batching): add each slot's id, then
 * flush. */
struct sws__uncharge_batch {
	uint16_t id;
	unsigned nr;
};
static inline void sws__uncharge_batch_flush(struct sws_cpu *cpu, struct sws_sim *sim, struct sws__uncharge_batch *b)
{
	sws__memcg_swap_mod(cpu, sim, b->id, -(int64_t)b->nr);
	b->nr = 0;
}
static inline void sws__uncharge_batch_add(struct sws_cpu *cpu, struct sws_sim *sim, struct sws__uncharge_batch *b,
					   uint16_t id)
{
	if (b->nr && b->id != id)
		sws__uncharge_batch_flush(cpu, sim, b);
	b->id = id;
	b->nr++;
}

/* A design's set_memcg: slots taking memcg @id. Each slot's old id is added
 * (sws__memcg_record_slot()); then sws__memcg_record_done() charges the new
 * memcg once for the slots that changed and uncharges the old ones (none on
 * the swap-out path, where the slots are new: one charge per folio, as
 * mem_cgroup_try_charge_swap()). */
struct sws__memcg_record {
	uint16_t id;
	unsigned charge;
	struct sws__uncharge_batch old;
};
static inline void sws__memcg_record_slot(struct sws_cpu *cpu, struct sws_sim *sim, struct sws__memcg_record *r,
					  uint16_t old)
{
	if (old == r->id)
		return;
	r->charge++;
	if (old)
		sws__uncharge_batch_add(cpu, sim, &r->old, old);
}
static inline void sws__memcg_record_done(struct sws_cpu *cpu, struct sws_sim *sim, struct sws__memcg_record *r)
{
	sws__uncharge_batch_flush(cpu, sim, &r->old);
	sws__memcg_swap_mod(cpu, sim, r->id, r->charge);
}

static inline bool sws__is_ext(const struct sws_device *dev)
{
	return SWS_CONFIG_XSWAP && dev->ext != NULL;
}

/* Counted in nr_swap_pages and total_swap_pages, the physical swap space:
 * every device but vswap's virtual one. */
static inline bool sws__in_totals(const struct sws_device *dev) { return !(dev->h.flags & SWS_SWP_VIRTUAL); }

/* Clusters with metadata: all of them, or what an xswap device has mapped. */
static inline uint32_t sws__nr_clusters_mapped(const struct sws_device *dev)
{
	return atomic_load_explicit(&dev->nr_clusters_mapped, memory_order_acquire);
}

/* Slots [0, this) have cluster metadata: offsets an entry may carry. */
static inline uint64_t sws__slots_mapped(const struct sws_device *dev)
{
#if SWS_CONFIG_XSWAP
	return atomic_load_explicit(&dev->slots_mapped, memory_order_acquire);
#else
	return dev->max;
#endif
}

static inline bool sws__offset_mapped(const struct sws_device *dev, uint64_t off)
{
	return off < sws__slots_mapped(dev);
}

static inline struct sws_device *sws__device(struct sws_sim *sim, unsigned type)
{
	return sws__get_swap_device(sim, type);
}

static inline uint32_t sws__cluster_idx(const struct sws_device *dev, const struct sws_cluster *ci)
{
	return (uint32_t)(ci - dev->cluster_info);
}

static inline struct sws_cluster *sws__offset_cluster(struct sws_device *dev, uint64_t off)
{
	return &dev->cluster_info[off / SWS_CLUSTER_SLOTS];
}

/* Lock a cluster, counting it and its contention on @cpu (may be NULL). */
static inline void sws__cluster_lock(struct sws_cpu *cpu, struct sws_cluster *ci)
{
	sws__lock_counted(cpu, &ci->lock, SWS_WORK_lock_cluster, SWS_CTR_lock_cluster_contended);
}

/* The device's list lock (si->lock), counted. */
static inline void sws__dev_lock(struct sws_cpu *cpu, struct sws_device *dev)
{
	sws__lock_counted(cpu, &dev->lock, SWS_WORK_lock_device, SWS_CTR_lock_device_contended);
}

static inline void sws__cluster_unlock(struct sws_cluster *ci) { sws_spin_unlock(&ci->lock); }

/* Slots of @ci that exist on the device: [first, end). */
static inline uint64_t sws__cluster_end(const struct sws_device *dev, const struct sws_cluster *ci)
{
	uint64_t end = ((uint64_t)sws__cluster_idx(dev, ci) + 1) * SWS_CLUSTER_SLOTS;
	return end < dev->max ? end : dev->max;
}

/* ci->lock of the slots' cluster held: slots [off, off + nr) of @dev were
 * just freed (swap_range_free()'s zswap_invalidate()): the hook runs under
 * that lock. */
static inline void sws___slot_free_notify(struct sws_device *dev, uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&sws__offset_cluster(dev, off)->lock);
	struct sws_sim *sim = dev->sim;
	if (sim->slot_free_notify)
		sim->slot_free_notify(sim->slot_free_ctx, (unsigned)dev->type, off, nr);
}

/* ci->lock of the freed slot's cluster @ci held: a design that keeps zswap's
 * entries (vswap) freed a slot holding @entry. */
static inline void sws___zswap_release(struct sws_sim *sim, struct sws_cluster *ci, void *entry)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (sim->zswap_release)
		sim->zswap_release(sim->slot_free_ctx, entry);
}

/* A cluster of @dev became free: the deferred shrink should look (atomics: no lock needed). */
static inline void sws__ext_cluster_freed(struct sws_device *dev)
{
	if (atomic_load_explicit(&dev->writeok, memory_order_relaxed))
		atomic_store_explicit(&dev->ext->shrink_pending, true, memory_order_relaxed);
}

/* ---- sim.c ----------------------------------------------------------------------- */

/* The simulation root with design @ops. sws_sim_create() (lib/design/designs.c,
 * which knows every design's table) resolves cfg->backend to one. */
int sws__sim_create(const struct sws_sim_config *cfg, const struct sws_design_ops *ops,
		    struct sws_sim **out);

/* Describe why a configuration call on @sim failed (sws_sim_error()). */
void sws__sim_set_error(struct sws_sim *sim, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sws__cpu_alloc() and sws__cpu_attach_mem(), sws_cpu_attach() in two steps: swap_mm.h. */

/* The environment's clock (sws_env.clock_ns), the default clock (common/clock.h)
 * when it has none. */
static inline uint64_t sws__clock_ns(const struct sws_sim *sim)
{
	if (sws_unlikely(sim->env.clock_ns != NULL))
		return sim->env.clock_ns(sim->env.clock_ctx);
	return sws__default_clock_ns();
}

/* sws__rcu_thread_get() and sws__rcu_thread_put(), also defined in sim.c, are
 * declared with the RCU wrapper (common/rcu.h). */

/* ---- device.c -------------------------------------------------------------------- */

/* Build (and with @enable, enable) a device, extendable when @ext is set;
 * see device.c. */
int sws__device_add(struct sws_sim *sim, const struct sws_device_config *cfg,
		    const struct sws_ext_setup *ext, bool enable, int *type_out);

/* swapoff, or (force) tear down a device whatever it holds (sim destroy);
 * sws___device_remove(): the same with sim->ext_mutex held by the caller. */
int sws__device_remove(struct sws_sim *sim, int type, bool force);
int sws___device_remove(struct sws_sim *sim, int type, bool force);

/* dev->lock and ci->lock held: take @ci off its list (flag NONE: isolated). */
void sws___cluster_unlist(struct sws_device *dev, struct sws_cluster *ci);

/* ci->lock held: move_cluster(): @ci to @list with @flag (dev->lock is taken
 * inside; @cpu, which may be NULL, counts it). */
void sws___cluster_move(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			struct sws_list *list, enum sws_cluster_flag flag);

/* ci->lock held: relocate_cluster(): after an allocation scan, file @ci by its count. */
void sws___relocate_cluster(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);

/* swap_range_alloc(): usage accounting before @nr slots are allocated (the
 * allocator calls it with the cluster locked; it needs no lock itself).
 * @return false (nothing counted) when that would pass the device's pages:
 * only an xswap device whose limit was lowered below its mapped space. */
bool sws__swap_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, unsigned nr);

/*
 * ci->lock held: swap_range_free(): @nr slots of @ci, from @off on (not
 * necessarily contiguous: a batch of one call), became free (the design
 * already cleared their state and told sws___slot_free_notify() of them).
 * Updates the cluster count, the device usage and nr_swap_pages, and moves
 * the cluster to the list it now belongs on.
 */
void sws___swap_range_free(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			   uint64_t off, unsigned nr);

/* The avail list of the device's allocation space; @cpu may be NULL. */
void sws__device_add_avail(struct sws_cpu *cpu, struct sws_device *dev);
void sws__device_del_avail(struct sws_cpu *cpu, struct sws_device *dev);
/* SWP_WRITEOK off, off the avail list: no new slots (swapoff; writes that keep failing). */
void sws__device_stop_writes(struct sws_device *dev);
/* A swapoff that did not finish: the device takes slots again (unless its writes failed). */
void sws__device_resume_writes(struct sws_device *dev);
/* sws__device_enable(), sws__device_swapoff_begin() and _cancel(): swap_mm.h. */

/* Deferred discard. @return clusters still waiting. */
unsigned sws__device_do_discard(struct sws_device *dev, unsigned budget);

/* ---- alloc.c --------------------------------------------------------------------- */

/* Allocate 2^@order slots from @space for @owner (folio_alloc_swap()'s
 * search: the CPU's cached cluster, then the devices) on a device of one of
 * the swap tiers in @tiers (a mask). RCU read lock held. *fast: the cached
 * cluster served it. @return 0 and the entry, SWS_ENOSPC, SWS_ENOMEM. */
int sws__swap_alloc(struct sws_cpu *cpu, unsigned space, unsigned order, uint64_t owner, uint32_t tiers,
		    sws_entry_t *entry, bool *fast);

/* ---- swap_ops.c ------------------------------------------------------------------ */

/* ci->lock held: one slot's state, header and tail slots reported bad. */
void sws___slot_state(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
		      struct sws_slot_state *st);

/* zswap's entries kept by the design (SWS_DESIGN_VIRTUAL), by virtual entry:
 * store (the replaced one in *old), load, erase; drain hands every one left
 * to @fn and forgets it (zswap going away). */
bool sws__zswap_in_design(const struct sws_sim *sim);
int sws__swap_zswap_store(struct sws_cpu *cpu, sws_entry_t e, void *entry, void **old);
void *sws__swap_zswap_load(struct sws_cpu *cpu, sws_entry_t e);
void *sws__swap_zswap_erase(struct sws_cpu *cpu, sws_entry_t e);
void sws__swap_zswap_drain(struct sws_sim *sim, void (*fn)(void *ctx, void *entry), void *ctx);

/* sws__swap_zap_batch_extends() (swap_pte_batch()'s step): swap_mm.h. */

/* ---- backing.c ------------------------------------------------------------------- */

int sws__backing_open(struct sws_sim *sim, struct sws_device *dev,
		      const struct sws_device_config *cfg);
void sws__backing_close(struct sws_device *dev);
void sws__backing_discard(struct sws_device *dev, uint32_t cluster_idx);

/* ---- cluster_array.c: per-cluster arrays, extendable devices --------------------- */

/* sws__cluster_array_create() and _destroy(): swap_mm.h. */

int sws__ext_init(struct sws_device *dev, const struct sws_ext_setup *setup);
void sws__ext_free(struct sws_device *dev);
/* The allocator found no cluster: map more if the policy allows. @return 0
 * (retry: clusters are on the free list), SWS_ENOSPC (the policy says no) or
 * SWS_ENOMEM (mapping failed; the device is unchanged). RCU read lock held. */
int sws__ext_grow(struct sws_cpu *cpu, struct sws_device *dev, unsigned nr);
/* sim->ext_mutex held, no RCU read lock: give back the free tail clusters
 * the policy lets go. @return clusters given back. */
uint32_t sws___ext_shrink(struct sws_device *dev);
/* Mapped, reserved and resident bytes of every per-cluster array of @dev. */
void sws__ext_arena_bytes(struct sws_device *dev, uint64_t *reserved, uint64_t *mapped, uint64_t *resident);

/* ---- arena.c: sparse arenas, declared in arena.h (no core types; its unit test
 * includes it alone). check.c and stats.c define public calls only. ---- */

#endif
