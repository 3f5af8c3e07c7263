/*
 * swap_internal.h - the objects of the swap core: the simulation root, CPUs,
 * devices (swap_info_struct) and clusters (swap_cluster_info).
 *
 * Ownership:   sws_sim ─┬─ devices[type] (RCU-published) ─┬─ cluster_info[]
 *                       │                                  ├─ backend per-device data (dev->cache)
 *                       │                                  └─ backing store
 *                       ├─ cpus[] (one per attached thread, per-order cluster cache, counters)
 *                       └─ the backend's ops table (const)
 *
 * Locks, in the order they nest (outer first):
 *   sim->swap_lock      swapon/swapoff, the device table
 *   dev->global_cluster_lock  rotational devices' shared next[order] (held
 *                       across the whole slow-path allocation on that device)
 *   ci->lock            one cluster: its count, order and every slot in it
 *   xa space lock       XArray backend only, nests inside ci->lock
 *   dev cont_lock       XArray backend only (continuation pages), inside
 *                       ci->lock; nothing is taken under it
 *   dev->lock           a device's cluster lists (taken inside ci->lock; the
 *                       allocator walks lists with dev->lock and trylocks ci)
 *   sim->avail_lock     the list of devices that have free slots
 * Readers of the device table and of swap-cache entries run under the RCU
 * read lock; every public per-slot call holds it for its whole duration, so
 * swapoff's synchronize_rcu() waits for calls in flight.
 */
#ifndef SWS_SWAP_INTERNAL_H
#define SWS_SWAP_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <swapsim/swapsim.h>

#include "../common/compiler.h"
#include "../common/list.h"
#include "../common/mem.h"
#include "../common/rcu.h"
#include "../common/spinlock.h"

struct sws_cache_ops;

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
	struct sws_sim *sim;
	int type;
	int prio;
	uint32_t gen; /* unique per swapon in this sim */
	uint32_t flags;
	atomic_bool writeok;      /* SWP_WRITEOK */
	bool enabled;             /* counted in the totals (swap_lock) */
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
	struct sws_xswap *xswap;  /* NULL unless an xswap device (xswap.h) */

	sws_spinlock_t lock;      /* si->lock: the lists below */
	struct sws_list free_clusters, full_clusters, discard_clusters;
	struct sws_list nonfull_clusters[SWS_NR_ORDERS];
	struct sws_list frag_clusters[SWS_NR_ORDERS];
	uint32_t nr_free, nr_full, nr_discard;
	uint32_t nr_nonfull[SWS_NR_ORDERS];
	uint32_t nr_frag[SWS_NR_ORDERS]; /* frag_cluster_nr[] */

	sws_spinlock_t global_cluster_lock; /* rotational devices */
	uint64_t global_next[SWS_NR_ORDERS];

	void *cache;       /* the backend's per-device data */
	void *cache_index; /* what a swap-cache lookup indexes first (swap table: the
			    * table pointers; XArray: the address spaces), so a lookup
			    * is type -> device -> index -> ... as in the kernel */
	struct sws_backing_store backing;
	struct sws_list avail_node; /* on sim->avail_head while it has free slots */
	bool on_avail;
};

/* A CPU: one attached caller thread. Only its thread writes it. */
struct sws_cpu {
	struct sws_sim *sim;
	unsigned id;
	struct {
		int32_t type;  /* -1: none */
		uint32_t gen;  /* the device's generation: a later device of the type is another */
		uint64_t next; /* next offset to try, SWS_NO_OFFSET: none */
	} pcp[SWS_NR_ORDERS]; /* percpu_swap_cluster */
	_Atomic uint64_t ctr[SWS_NR_COUNTERS];
	_Atomic uint64_t octr[SWS_NR_ORDER_COUNTERS][SWS_NR_ORDERS];
	_Atomic int64_t nr_swapcache; /* this CPU's share of NR_SWAPCACHE (may be negative) */
	enum sws_work_ctx work_ctx;   /* what this CPU does now (the memory model sets it) */
	_Atomic uint64_t work[SWS_NR_WORK_CTX][SWS_NR_WORK];
};

struct sws_sim {
	struct sws_mem mem;
	struct sws_env env;
	const struct sws_cache_ops *ops;
	enum sws_backend backend;
	unsigned max_cpus;

	_Atomic(struct sws_device *) devices[SWS_MAX_SWAPFILES];
	sws_spinlock_t swap_lock;  /* swapon/swapoff */

	sws_spinlock_t avail_lock; /* swap_avail_lock */
	struct sws_list avail_head; /* devices with free slots, by priority, RR among equals */
	uint32_t next_gen; /* swap_lock */

	_Atomic int64_t nr_swap_pages; /* free slots, all devices */
	_Atomic int64_t total_swap_pages;
	_Atomic int64_t nr_swapcache;  /* NR_SWAPCACHE of detached CPUs */
	_Atomic int nr_real_swapfiles; /* devices with backing (not xswap): zswap may write back */
	_Atomic int nr_xswap;          /* xswap devices */
	pthread_mutex_t xswap_mutex;   /* xswap create/destroy/limit/shrink (outside RCU readers) */

	sws_spinlock_t cpu_lock;
	struct sws_cpu **cpus; /* [max_cpus], NULL where free */

	/* Told of every slot freed, under its cluster lock (zswap_invalidate). */
	void (*slot_free_notify)(void *ctx, unsigned type, uint64_t off, unsigned nr);
	void *slot_free_ctx;
	/* Events counted outside a CPU, and the counters of detached CPUs. */
	_Atomic uint64_t ctr[SWS_NR_COUNTERS];
	_Atomic uint64_t octr[SWS_NR_ORDER_COUNTERS][SWS_NR_ORDERS];
	_Atomic uint64_t work[SWS_NR_WORK_CTX][SWS_NR_WORK]; /* of detached CPUs */
	char errmsg[256]; /* the last failed configuration call (swap_lock) */
};

/* Describe why a configuration call on @sim failed (sws_sim_error()). */
void sws__sim_set_error(struct sws_sim *sim, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* In an invariant checker: describe the violation in @msg and fail. */
#define SWS__CORRUPT(msg, len, ...)                       \
	do {                                              \
		snprintf((msg), (len), __VA_ARGS__);      \
		return SWS_ECORRUPT;                      \
	} while (0)

/* sws_cpu_attach() in two steps, so a caller can reserve a CPU's memory early
 * and attach without allocating later (teardown). The memory goes with
 * sws_cpu_detach(), with a refused attach (SWS_ENOCPU), or with
 * sws__mem_free(SWS_MEM_sim) if never attached. */
struct sws_cpu *sws__cpu_alloc(struct sws_sim *sim);
int sws__cpu_attach_mem(struct sws_sim *sim, struct sws_cpu *cpu, struct sws_cpu **out);

/* The environment's clock (sws_env.clock_ns), CLOCK_MONOTONIC by default. */
uint64_t sws__clock_ns(const struct sws_sim *sim);

/* __ Slots [off, off + nr) of @dev were just freed (swap_range_free's hooks). */
static inline void sws__slot_free_notify(struct sws_device *dev, uint64_t off, unsigned nr)
{
	struct sws_sim *sim = dev->sim;
	if (sim->slot_free_notify)
		sim->slot_free_notify(sim->slot_free_ctx, (unsigned)dev->type, off, nr);
}

/* ---- counters -------------------------------------------------------------- */

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
	bool waited = sws_spin_lock(l);
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

/* ---- devices and clusters ---------------------------------------------------- */

/*
 * CONFIG_XSWAP: 0 compiles xswap support out, as the kernel's CONFIG_XSWAP=n
 * does. Only bench/ builds it that way, to show what the support costs the
 * allocation path of a simulation with no xswap device.
 */
#ifndef SWS_CONFIG_XSWAP
#define SWS_CONFIG_XSWAP 1
#endif

static inline bool sws__is_xswap(const struct sws_device *dev)
{
	return SWS_CONFIG_XSWAP && dev->xswap != NULL;
}

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
	if (type >= SWS_MAX_SWAPFILES)
		return NULL;
	return atomic_load_explicit(&sim->devices[type], memory_order_acquire);
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

/*
 * __swap_range_free(): @nr slots from @off in locked @ci became free (the
 * backend already cleared their state). Updates the cluster count, the device
 * usage and nr_swap_pages, and moves the cluster to the list it now belongs on.
 */
void sws__swap_range_free(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			  uint64_t off, unsigned nr);

/* Usage accounting before @nr slots are allocated in a locked cluster.
 * @return false (nothing counted) when that would pass the device's pages:
 * only an xswap device whose limit was lowered below its mapped space. */
bool sws__swap_range_alloc(struct sws_cpu *cpu, struct sws_device *dev, unsigned nr);

/* dev->lock held: take @ci off its list (flag NONE: isolated). */
void sws__cluster_unlist(struct sws_device *dev, struct sws_cluster *ci);

/* Move a locked cluster to @list with @flag (the device lock is taken inside;
 * @cpu, which may be NULL, counts it). */
void sws__cluster_move(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
		       struct sws_list *list, enum sws_cluster_flag flag);

/* relocate_cluster(): after an allocation scan, file a locked cluster by its count. */
void sws__relocate_cluster(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci);

/* Device lists and avail list (device.c); @cpu may be NULL. */
void sws__device_add_avail(struct sws_cpu *cpu, struct sws_device *dev);
void sws__device_del_avail(struct sws_cpu *cpu, struct sws_device *dev);
/* SWP_WRITEOK off, off the avail list: no new slots (swapoff; writes that keep failing). */
void sws__device_stop_writes(struct sws_device *dev);

/* Backing store (backing.c). */
int sws__backing_open(struct sws_sim *sim, struct sws_device *dev, const struct sws_device_config *cfg);
void sws__backing_close(struct sws_device *dev);
void sws__backing_discard(struct sws_device *dev, uint32_t cluster_idx);

/* __ One slot's state, header and tail slots reported bad. */
void sws__slot_state_locked(struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
			    struct sws_slot_state *st);

/* swapoff, or (force) tear down a device whatever it holds (sim destroy);
 * _locked: the caller holds sim->xswap_mutex. */
int sws__device_remove(struct sws_sim *sim, int type, bool force);
int sws__device_remove_locked(struct sws_sim *sim, int type, bool force);

/* Build (and with @enable, enable) a device; see device.c. */
int sws__device_add(struct sws_sim *sim, const struct sws_device_config *cfg, uint64_t xswap_ram_pages,
		    bool enable, int *type_out);
void sws__device_enable(struct sws_device *dev);

/* Deferred discard (device.c). @return clusters still waiting. */
unsigned sws__device_do_discard(struct sws_device *dev, unsigned budget);

#endif
