/*
 * swapsim/replay.h - the replay driver: trace records or a synthetic workload
 * replayed across worker threads standing for CPUs, on a simulated machine
 * (RAM, a memcg limit, swap devices, a swap-cache backend), with reports.
 *
 * A replay is a request in libuv's sense: create it from a configuration that
 * describes the machine, run it once on a source of struct sws_trace_record,
 * read its report, destroy it. The replay owns the struct sws_sim and struct
 * sws_mm it builds (sws_replay_sim() / sws_replay_mm() lend them out).
 *
 * Dispatch (docs/replay.md has the whole story):
 *
 *   source --next()--> dispatcher (the caller of sws_replay_run)
 *                        | per-access records: to worker (cpu % N), or for
 *                        |   SWS_TRACE_CPU_ANY to worker (tid % N), through a
 *                        |   bounded queue per worker (the dispatcher blocks
 *                        |   when it is full)
 *                        | structural records (FORK, EXIT, MMAP, MUNMAP, and
 *                        |   the first record of an unknown pid): all queues
 *                        |   drained, then run by the dispatcher itself
 *                        v
 *                      worker 0..N-1, each attached as its own struct sws_cpu:
 *                        ACCESS -> sws_mm_access() per page, MADV_* and
 *                        RECLAIM -> the mm calls, and every deferred_every
 *                        records sws_mm_kswapd() + sws_swap_do_deferred_work()
 *
 * Each task's (tid's) records run in trace order: a task's records go to one
 * worker's FIFO queue, and when a task moves to another worker (its records
 * name another CPU) the dispatcher waits until the task's earlier records ran.
 * With threads == 1 there are no worker threads: the caller runs every record
 * itself, so a run with a given seed is fully deterministic (same counters and
 * final state on every run; only the timing figures differ).
 *
 * Synthetic workloads (usemem, memhog, zipf, uniform, bgsave) are generators
 * that produce the same record stream a trace reader does; see
 * sws_workload_create().
 *
 * Printing: the library never prints. Reports, usemem's per-task lines and
 * CSV rows are formatted through a write callback, like sws_stats_print().
 */
#ifndef SWAPSIM_REPLAY_H
#define SWAPSIM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <swapsim/cost.h>
#include <swapsim/device.h>
#include <swapsim/env.h>
#include <swapsim/error.h>
#include <swapsim/mm.h>
#include <swapsim/zswap.h>
#include <swapsim/xswap.h>
#include <swapsim/sim.h>
#include <swapsim/stats.h>
#include <swapsim/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 *  Sources
 * ====================================================================== */

/*
 * A source of records. next() returns 1 with a record in @rec, 0 at the end,
 * or a negative SWS_E* error; error() (optional) then says what went wrong.
 * A trace reader becomes a source by wrapping sws_trace_reader_next() and
 * sws_trace_reader_error(); a workload gives one with sws_workload_source().
 *
 * Per-task streams (optional, both NULL: none). Where the next records are,
 * up to some point, independent streams of separate processes, streams()
 * returns how many (0 where they are not), and stream(ctx, s, rec) gives the
 * next record of stream s (1), 0 once that stream is through, or an error. A
 * reader either goes on with next(), which gives the same records
 * interleaved, or reads every stream to its end (one thread per stream at a
 * time, different streams on different threads at once) and then goes on
 * with next(). Each stream's records are one process's (one pid and tid)
 * and none of them forks or execs; the replay runs the streams in parallel
 * on its workers (docs/replay.md, "Per-task streams").
 */
struct sws_replay_source {
	int (*next)(void *ctx, struct sws_trace_record *rec);
	const char *(*error)(void *ctx);
	void *ctx;
	uint32_t (*streams)(void *ctx);
	int (*stream)(void *ctx, uint32_t s, struct sws_trace_record *rec);
	/* Optional: where the record next() last returned is in the input
	 * (a trace reader's sws_trace_reader_position()), counted in
	 * @position_unit ("line" or "record", a static string); a refused
	 * record is named by it. NULL: by its number among the records next()
	 * returned ("record"). A stream's records are named by none. */
	uint64_t (*position)(void *ctx);
	const char *position_unit;
};

/* ======================================================================
 *  The machine a replay runs on
 * ====================================================================== */

/* Swap device kinds: flags and the latency model's defaults. */
enum sws_replay_swap_kind {
	SWS_REPLAY_SWAP_SSD = 0,  /* SOLIDSTATE|PAGE_DISCARD; NVMe: mm default latency (20/25 us) */
	SWS_REPLAY_SWAP_HDD = 1,  /* rotational; mm default latency (5 ms) */
	SWS_REPLAY_SWAP_ZRAM = 2, /* SOLIDSTATE|SYNCHRONOUS_IO; mm default (2/3 us) */
	SWS_REPLAY_SWAP_PMEM = 3, /* SOLIDSTATE|SYNCHRONOUS_IO; 1 us read, 2 us write */
	SWS_REPLAY_SWAP_SATA = 4, /* SOLIDSTATE|PAGE_DISCARD; SATA SSD: 100 us read, 60 us write */
	SWS_REPLAY_SWAP_XSWAP = 5, /* an xswap device (swapsim/xswap.h): needs SWS_REPLAY_ZSWAP and
				    * the swap table; sized by RAM, so pages, path and latencies
				    * must be 0 */
};
#define SWS_REPLAY_NR_SWAP_KINDS 6

/** @return a kind's name: "ssd", "hdd", "zram", "pmem", "sata", "xswap" ("" out of range). */
const char *sws_replay_swap_kind_name(enum sws_replay_swap_kind kind);
/** Parse a kind's name (also "nvme" for ssd). @return 0 or SWS_EINVAL. */
int sws_replay_swap_kind_parse(const char *name, enum sws_replay_swap_kind *out);
#define SWS_REPLAY_MAX_SWAP 8

struct sws_replay_swap {
	uint64_t pages;                 /* slots including the header; 0: 2x RAM */
	enum sws_replay_swap_kind kind;
	int32_t prio;                   /* 0..32767, or -1: no priority (round robin) */
	const char *path;               /* backing file (SWS_BACKING_FILE), or NULL: a file
					 * the replay creates is scratch, removed when the
					 * replay is destroyed or its creation fails (if
					 * the path still names it: SWS_BACKING_UNLINK); a
					 * file it reuses stays */
	uint64_t read_ns, write_ns;     /* latency per page; 0: the kind's default */
	uint64_t limit_pages;           /* xswap: its limit (sws_xswap_limit_set); 0: one RAM */
	uint32_t file_flags;            /* with path: SWS_BACKING_REUSE, SWS_BACKING_FOLLOW
					 * (SWS_BACKING_UNLINK is always on) */
	uint32_t swap_flags;            /* SWS_REPLAY_SWAP_DISCARD, or 0 */
	uint32_t queue_depth;           /* modelled clock: requests the device serves at once
					 * (1..SWS_DEVICE_MAX_QUEUE); 0: its kind's default
					 * (sws_replay_swap_kind_queue()); pmem and zram have
					 * none, the CPU does their work */
	const char *tier;               /* its swap tier's name (swapsim/device.h: letters,
					 * digits, '_', at most 15), or NULL: none. The
					 * replay adds the tiers in order of first mention
					 * (ids 1, 2, ...); not for xswap */
};

/** @return a kind's default queue depth under the modelled clock (0: none). */
uint32_t sws_replay_swap_kind_queue(enum sws_replay_swap_kind kind);

/* swapon --discard=pages: SWP_PAGE_DISCARD, a freed cluster is discarded
 * before it is reused (and the allocator prefers free clusters). Off by
 * default, as swapon(8)'s; any kind but hdd (rotational) and xswap. */
#define SWS_REPLAY_SWAP_DISCARD (1u << 0)

/* Replay flags. */
#define SWS_REPLAY_VERIFY (1u << 0) /* SWS_MM_VERIFY; devices without a file get
				     * memory backing so pages can be read back */
#define SWS_REPLAY_ZSWAP (1u << 1)  /* enable zswap with sws_replay_config.zswap */
#define SWS_REPLAY_READ_POPULATES (1u << 2) /* SWS_MM_READ_POPULATES: a first read finds data */
#define SWS_REPLAY_MEMCG_PER_TASK (1u << 3) /* each process the trace starts (not a fork's child,
						    * which stays in its parent's) in a memcg of its
						    * own with mem_limit_pages (required) */
#define SWS_REPLAY_USER_RAM (1u << 5) /* RAM holds user folios alone: without it the replay
				       * sets SWS_MM_KERNEL_RAM (swap metadata and the zswap
				       * pool take simulated RAM, as in the kernel) */
#define SWS_REPLAY_MEMCG_OFF (1u << 4) /* cgroup_disable=memory (SWS_SIM_MEMCG_OFF): no memcgs,
					* so no mem_limit_pages, mem_high_pages or
					* SWS_REPLAY_MEMCG_PER_TASK (SWS_EINVAL) */
#define SWS_REPLAY_TRACE_ORDER (1u << 6) /* a trace's records run in the trace's order: each
					  * after every earlier record of the trace, whatever
					  * its CPU (without it a CPU runs its own tasks' records
					  * in order and the CPUs interleave as their clocks
					  * say); per-task streams are not affected */

/* Latency histogram classes, in simulated time (sys + iowait; see "Time" below). */
enum sws_replay_lat {
	SWS_REPLAY_LAT_FAULT = 0,   /* each sws_mm_access() that faulted (hits are not counted) */
	SWS_REPLAY_LAT_FREE = 1,    /* munmap, exit, MADV_DONTNEED */
	SWS_REPLAY_LAT_RECLAIM = 2, /* each round of direct reclaim a charge ran, inside the mm */
	SWS_REPLAY_NR_LAT = 3
};
#define SWS_REPLAY_HIST_BUCKETS 48 /* bucket i: [2^i, 2^(i+1)) ns; 0 also holds 0 ns */

struct sws_replay_hist {
	uint64_t count, sum_ns, max_ns;
	uint64_t bucket[SWS_REPLAY_HIST_BUCKETS];
};

/* A point of the time series (config.sample). The workers are idle while it
 * is read (every record dispatched before it has run): a cut, with any
 * number of threads. */
struct sws_replay_sample {
	uint64_t events;     /* records dispatched so far */
	uint64_t time_ns;    /* since the start of the run */
	struct sws_mm_stats mm; /* (threads > 1: read while workers run, not a cut) */
	uint64_t swap_used;  /* slots in use over all devices */
	/* xswap devices, summed: pages in use, clusters mapped, and their
	 * per-cluster arenas' mapped and resident (mincore) bytes. */
	uint64_t xswap_inuse_pages, xswap_mapped_clusters;
	uint64_t arena_mapped_bytes, arena_resident_bytes;
	uint64_t zswap_pool_bytes;   /* zswap's pool pages (mm.pool_total_size) */
	/* The simulation's metadata memory now (sws_sim_memory_usage()). */
	uint64_t metadata_static_bytes, metadata_dynamic_bytes;
	/* Faults since the previous sample (the run's start for the first): how
	 * many, their mean and p99 (a log2-bucket upper bound) simulated ns. */
	uint64_t fault_count, fault_mean_ns, fault_p99_ns;
};

#define SWS_REPLAY_CONFIG_VERSION 2

/* Default user bandwidth: 16 GB/s (decimal: 16e9 B/s, not 16 GiB/s), 256 ns per 4 KiB
 * page access (docs/replay.md). */
#define SWS_REPLAY_USER_BANDWIDTH 16000000000ull

/*
 * Replay configuration. Zero means the default everywhere.
 */
/* The clock a replay's times come from. */
enum sws_replay_clock {
	SWS_REPLAY_CLOCK_MODEL = 0, /* modelled time on simulated CPUs: deterministic (the default) */
	SWS_REPLAY_CLOCK_HOST = 1,  /* the host's clock around the model's own code */
};
/** @return "model" or "host" ("" out of range). */
const char *sws_replay_clock_name(enum sws_replay_clock c);
#define SWS_REPLAY_MAX_CPUS 254

struct sws_replay_config {
	uint32_t version;               /* SWS_REPLAY_CONFIG_VERSION or 0 */
	uint32_t threads;               /* worker threads (CPUs); 0: 1; at most 128 */
	enum sws_backend backend;       /* 0: swap table */
	enum sws_reclaim_policy policy; /* 0: kernel */
	uint64_t ram_pages;             /* simulated RAM; 0: 262144 (1 GiB); at least 64 */
	uint64_t mem_limit_pages;       /* memcg limit of the workload; 0: no memcg (root) */
	uint32_t page_cluster;          /* as sws_mm_config.page_cluster (0: default) */
	uint32_t flags;                 /* SWS_REPLAY_* */
	uint64_t seed;                  /* content model and random decisions */
	uint32_t content_weight[SWS_NR_CONTENT]; /* content mix; all 0: INDEX only */
	uint32_t nr_swap;               /* devices in swap[]; 0: one SSD of 2x RAM */
	struct sws_replay_swap swap[SWS_REPLAY_MAX_SWAP];

	struct sws_zswap_config zswap;  /* with SWS_REPLAY_ZSWAP (zero: zswap's defaults) */

	uint32_t deferred_every;        /* records a worker runs between deferred-work
					 * steps (kswapd + device work); 0: 1024 */
	uint32_t kswapd_budget;         /* pages per kswapd step; 0: 1024 */
	uint32_t queue_depth;           /* records per worker queue; 0: 4096; >= 64 */
	uint32_t swapoff_device;        /* 1-based index into swap[]: swap that device off
					 * with sws_mm_swapoff() when the input ends (its
					 * pages come back; the time is swapoff_ns); 0: none */
	uint64_t user_bandwidth;        /* the user-time model: bytes per second a task touches
					 * memory at; each page access costs 4 KiB of it;
					 * 0: SWS_REPLAY_USER_BANDWIDTH */

	uint64_t sample_every;          /* records between samples; 0: no samples */
	void (*sample)(void *ctx, const struct sws_replay_sample *s);
	uint64_t progress_every;        /* records between progress calls; 0: 65536 */
	int (*progress)(void *ctx, uint64_t events); /* non-zero: stop the run cleanly */
	/* Test hook, may be NULL: called by the thread that runs each record, just
	 * before running it (worker 0..N-1; N for the dispatcher's structural ones). */
	void (*on_record)(void *ctx, unsigned worker, const struct sws_trace_record *rec);
	void *cb_ctx;                   /* passed to sample, progress, on_record */
	const struct sws_env *env;      /* allocator, clock; NULL: defaults */
	char *errbuf;                   /* optional: why sws_replay_create() failed (the
					 * device and its file with the errno, ...) */
	size_t errlen;

	/* Time (docs/modelled-time.md). */
	enum sws_replay_clock clock;    /* SWS_REPLAY_CLOCK_MODEL (0) or _HOST */
	uint32_t cpus;                  /* modelled clock: simulated CPUs, 1..SWS_REPLAY_MAX_CPUS;
					 * 0: threads (1 when that is 0). The host clock uses
					 * threads and ignores this. */
	const struct sws_costs *costs;  /* modelled clock: the cost table; NULL: the defaults */
	uint64_t sync_quantum_ns;       /* modelled clock: how far past the earliest CPU another
					 * may run before it yields at a sync point (locks may be
					 * granted out of virtual-time order by up to this much);
					 * 0: SWS_REPLAY_SYNC_QUANTUM_NS; UINT64_MAX: 0, exact */
	uint32_t anon_orders;           /* anon mTHP policy: as sws_mm_config.anon_orders (bit k:
					 * folios of 2^k pages "always"); 0: none */
	uint64_t mem_high_pages;        /* memory.high of the workload's memcg (each task's with
					 * SWS_REPLAY_MEMCG_PER_TASK); 0: none. Given alone, the
					 * memcg has no limit */
	uint32_t anon_orders_madvise;   /* anon mTHP sizes "madvise": as
					 * sws_mm_config.anon_orders_madvise; 0: none */
	const char *memcg_swap_tiers;   /* memory.swap.tiers.max of the workload's memcg (each
					 * task's with SWS_REPLAY_MEMCG_PER_TASK): "NAME[,NAME...]",
					 * tiers of swap[]; needs a memcg (mem_limit_pages or
					 * mem_high_pages); NULL: every tier */
	uint32_t thp_defrag;            /* transparent_hugepage/defrag: as sws_mm_config.thp_defrag
					 * (enum sws_thp_defrag; 0: madvise) */
};

/* The default sync quantum: 250 ns, about one lock hold. On usemem -n 31 it
 * runs the event loop 2.5x faster than exact ordering; the times move with it
 * (a few percent on usemem -n 31 32M: docs/modelled-time.md). */
#define SWS_REPLAY_SYNC_QUANTUM_NS 250

struct sws_replay;

/**
 * Build the machine: a simulation with @cfg->backend, the swap devices, the
 * memory model and the memcg (when mem_limit_pages is set).
 * @return 0, SWS_EINVAL (a bad field: threads, ram, queue depth, device
 *         size/kind/prio, reserved values), SWS_EVERSION, SWS_ENOMEM, SWS_EIO
 *         (backing file), or an error of sws_sim_create / sws_swapon /
 *         sws_mm_create. On failure *out is NULL, cfg->errbuf (when given)
 *         says what failed, and the backing files this call created are
 *         removed again (those it reused stay).
 */
int sws_replay_create(const struct sws_replay_config *cfg, struct sws_replay **out);

/** Tear down the machine and free everything; backing files the replay created are
 *  removed (if their paths still name them). NULL: no-op. */
void sws_replay_destroy(struct sws_replay *r);

/** @return the simulation and the memory model the replay built (owned by it). */
struct sws_sim *sws_replay_sim(struct sws_replay *r);
struct sws_mm *sws_replay_mm(struct sws_replay *r);

/**
 * Replay every record of @src (once per replay). Starts threads-1 extra worker
 * threads (threads == 1: none) and attaches the calling thread as a CPU for the
 * duration; the caller must not have a CPU of this simulation attached.
 * Records the mm refuses (SWS_ENOMEM when nothing is reclaimable, SWS_EINVAL on
 * an overlapping mmap, ...) are counted in the report's errors, not fatal.
 * @return 0 (also when progress() stopped the run: report.interrupted), the
 *         source's negative error (sws_replay_error() has its message),
 *         SWS_EINVAL (second run, NULL source), SWS_ENOMEM, SWS_ENOCPU.
 */
int sws_replay_run(struct sws_replay *r, const struct sws_replay_source *src);

/** @return the message of the last run error ("" when none). */
const char *sws_replay_error(const struct sws_replay *r);

/* One swap device of the machine at the end of a run (/proc/swaps). */
struct sws_replay_device {
	int type;                       /* the device type (swap_info index) */
	enum sws_replay_swap_kind kind;
	uint64_t pages, inuse_pages;    /* usable slots, slots in use */
	uint64_t peak_inuse_pages;      /* slots in use at the peak (sampled with the
					 * run's other peaks) */
	uint64_t write_errors;          /* page writes that failed */
	int write_errno;                /* errno of the last one (0: none) */
	bool write_failed;              /* writes kept failing: the device took no new slots */
};

/*
 * Time. Each task (pid) keeps a simulated clock: the sys and iowait its
 * records charged (struct sws_mm_cpu_time: measured CPU time in the model's
 * kernel paths, modelled device time) plus user time (each page access costs
 * 4 KiB at user_bandwidth). A task's elapsed time is the sum of the three;
 * the run's elapsed time is the longest task's, or the CPU time of all tasks
 * and of background reclaim over the CPUs (threads) when that is longer.
 */
struct sws_replay_times {
	uint64_t elapsed_ns;   /* simulated */
	uint64_t sys_ns, user_ns, iowait_ns; /* summed over tasks */
	uint64_t sys_modelled_ns;            /* the part of sys_ns that is modelled device time */
	uint64_t kswapd_ns;    /* background reclaim (kswapd, zswap's shrink worker): no task's */
	uint64_t swapoff_ns;   /* the swapoff of config.swapoff_device (sys + iowait) */
	uint64_t swapoff_sys_ns; /* its sys part (the page-table walk is here) */
	bool swapoff;          /* that swapoff ran (and swapoff_ns is its time) */
	uint64_t swapoff_oom_kills; /* tasks the OOM killer took during it (the pages
				     * it brought back did not fit their memcg or RAM) */
};

/* Figures of a workload with a size (usemem), set by sws_workload_figures(). */
struct sws_replay_workload_figures {
	bool valid;                 /* a usemem run in which at least one task completed */
	uint32_t tasks;             /* tasks that completed: the figures are theirs */
	uint32_t killed;            /* tasks the OOM killer took: no figures, as usemem prints none */
	double throughput_kbs;      /* Sum Throughput: sum of the tasks' KB/s lines */
	double task_throughput_kbs; /* their mean (single process throughput) */
	double free_latency_us;     /* mean of "usecs to free memory" */
};

/* Peaks, sampled at every deferred-work step and at the end of the run. */
struct sws_replay_peaks {
	uint64_t swap_used_pages;
	uint64_t pool_total_size;        /* zswap pool bytes at its peak */
	uint64_t pool_stored_pages;      /* pages stored at that moment (ratio at the peak) */
	uint64_t static_bytes;           /* swap metadata, static and dynamic classes (the */
	uint64_t dynamic_bytes;          /* sums of sws_sim_memory_usage()), at their peaks */
};

/* Where the modelled time went (the modelled clock; zero with the host clock):
 * summed over the simulated CPUs, in picoseconds. */
struct sws_replay_model {
	uint64_t cost_ps[SWS_NR_COSTS];     /* charged per cost class */
	uint64_t cost_count[SWS_NR_COSTS];  /* units charged per class (the work counters) */
	uint64_t spin_ps;                   /* spinning on taken locks (busy) */
	uint64_t device_cpu_ps;             /* device work done on the CPUs (pmem, zram) */
	uint64_t user_ps;                   /* the tasks' own code */
	uint64_t busy_ps;                   /* all of the above and the costs: CPU time used */
	uint64_t io_wait_ps;                /* waiting for devices */
	uint64_t lock_wait_ps[SWS_NR_LOCK_CLASSES]; /* waiting for locks (spinning or asleep) */
	uint64_t lock_waits[SWS_NR_LOCK_CLASSES];   /* acquisitions that waited */
	uint64_t line_transfers;            /* locks and counters taken over from another CPU */
};

/*
 * The machine a run had, every default filled in (from its configuration):
 * what a report says so that it can be traced back and run again.
 */
struct sws_replay_setup {
	enum sws_replay_clock clock;
	uint32_t cpus;                  /* the modelled clock's simulated CPUs; the host clock's
					 * worker threads standing for CPUs */
	uint64_t ram_pages;
	uint64_t mem_limit_pages;       /* 0: no memcg */
	uint32_t cgroup;                /* the memcgs' cgroup version: 1 or 2 */
	uint32_t page_cluster;          /* vm.page-cluster (readahead of 2^N pages) */
	enum sws_reclaim_policy policy;
	uint32_t flags;                 /* SWS_REPLAY_* */
	uint64_t seed;                  /* the content model's and random decisions' */
	uint64_t user_bandwidth;        /* bytes per second */
	uint32_t content_weight[SWS_NR_CONTENT];
	uint32_t swapoff_device;        /* 1-based; 0: none */
	uint32_t nr_swap;
	struct sws_replay_swap swap[SWS_REPLAY_MAX_SWAP]; /* pages and latencies filled in;
							   * path, tier: the configuration's */
	/* zswap (with SWS_REPLAY_ZSWAP), defaults filled in */
	char zswap_compressor[24];
	uint32_t zswap_max_pool_percent, zswap_accept_threshold_percent;
	uint32_t zswap_flags;           /* SWS_ZSWAP_* */
	uint32_t anon_orders;           /* anon mTHP: bit k, folios of 2^k pages "always" */
	uint64_t mem_high_pages;        /* memory.high; 0: none */
	uint32_t anon_orders_madvise;   /* anon mTHP sizes "madvise" (bit k as above) */
	const char *memcg_swap_tiers;   /* the configuration's (NULL: every tier) */
	uint32_t thp_defrag;            /* enum sws_thp_defrag */
};

/* A record the model refused (an error counted in the report's errors). */
#define SWS_REPLAY_MAX_REFUSED 8
struct sws_replay_refused {
	uint64_t position;      /* where it is in the input (sws_replay_source.position);
				 * 0: unknown (a per-task stream's record) */
	uint64_t addr;          /* the record's address */
	uint32_t op, pid;       /* the record's op (enum sws_trace_op) and process */
	int error;              /* why: the SWS_E* code */
	uint32_t pad;
};

/* What a run did: counters, time, latency, memory. */
struct sws_replay_report {
	enum sws_backend backend;
	enum sws_replay_clock clock;    /* what the times were taken with */
	uint32_t cpus;                  /* simulated CPUs (the modelled clock) */
	struct sws_replay_model model;
	uint32_t threads;
	uint64_t events;        /* records replayed */
	uint64_t accesses;      /* page accesses (sws_mm_access calls) */
	uint64_t errors;        /* records or pages the mm refused */
	int first_error;        /* the first such error code, 0 when none */
	uint64_t verify_failures; /* SWS_ECORRUPT from verify mode */
	/* The first refused records, by position (one per record however many
	 * of its pages were refused); the rest are counted in errors only. */
	uint32_t nr_refused;
	const char *position_unit;      /* "line" or "record": what refused[].position counts */
	struct sws_replay_refused refused[SWS_REPLAY_MAX_REFUSED];
	uint64_t wall_ns;       /* measured (host) time of the run */
	double events_per_sec;  /* events / wall time */
	struct sws_replay_times time; /* simulated */
	struct sws_replay_workload_figures workload;
	struct sws_replay_peaks peaks;
	bool interrupted;       /* progress() stopped the run */
	uint64_t nr_tasks;      /* address spaces (pids) seen */
	struct sws_mm_stats mm;
	struct sws_stats swap;
	struct sws_memory_usage memory; /* after sws_sim_quiesce() */
	struct sws_replay_hist latency[SWS_REPLAY_NR_LAT];
	uint64_t memcg_zswap_bytes, memcg_zswapped_bytes; /* the workload memcgs' zswap stats */
	uint32_t nr_devices;            /* config.swap[] in order */
	struct sws_replay_device devices[SWS_REPLAY_MAX_SWAP];
	struct sws_replay_setup setup;  /* the machine the run had */
};

/** Fill @out (after a run; counters read after every worker stopped). @return 0, SWS_EINVAL. */
int sws_replay_report_get(struct sws_replay *r, struct sws_replay_report *out);

/* One traced process (pid), in order of first appearance; times are simulated
 * (sys + user + iowait, see struct sws_replay_times). */
struct sws_replay_task {
	uint32_t pid;
	uint32_t asid;
	uint64_t accesses;   /* page accesses */
	uint64_t access_ns;  /* time of its accesses */
	uint64_t reads;      /* read page accesses (part of accesses) */
	uint64_t read_ns;    /* time of its read accesses (part of access_ns) */
	uint64_t init_ns;    /* time of its mmaps */
	uint64_t free_ns;    /* time of its munmaps, DONTNEEDs and exit */
	uint64_t sys_ns, user_ns, iowait_ns; /* every record of the task; user time counts
					      * only the pages it touched (not refused ones) */
	bool exited;
	bool oom_killed;     /* the OOM killer killed it (sws_mm_oom_killed) */
};

/** @return the number of tasks (pids, a pid reused after exit counts again). */
uint32_t sws_replay_nr_tasks(const struct sws_replay *r);
/** Copy task @i. @return 0 or SWS_EINVAL. */
int sws_replay_task_get(const struct sws_replay *r, uint32_t i, struct sws_replay_task *out);
/* Obsolete: the old names of sws_replay_report_get() and sws_replay_task_get(),
 * in C only (in C++ a function of a struct's name hides the struct). */
#ifndef __cplusplus
SWS_DEPRECATED("use sws_replay_report_get()") int sws_replay_report(struct sws_replay *r,
								     struct sws_replay_report *out);
SWS_DEPRECATED("use sws_replay_task_get()") int sws_replay_task(const struct sws_replay *r, uint32_t i,
								 struct sws_replay_task *out);
#endif

/* ======================================================================
 *  Reports
 * ====================================================================== */

/** @return a latency class's name: "fault", "free", "reclaim" ("" out of range). */
const char *sws_replay_lat_name(enum sws_replay_lat l);

/** Approximate quantile @q (0..1) of a histogram: the upper bound of its bucket, ns. */
uint64_t sws_replay_hist_quantile(const struct sws_replay_hist *h, double q);

enum sws_replay_format {
	SWS_REPLAY_REPORT_TABLE = 0, /* aligned text, one column per run */
	SWS_REPLAY_REPORT_JSON = 1,  /* {"version", ..., "setup": {...}, "runs": [ {...}, ... ]} */
	SWS_REPLAY_REPORT_COUNTERS = 2, /* every deterministic figure, "key value" per line
					 * (the set sws_replay_counters_equal() compares, the
					 * memory classes at the end, devices, zswap gauges);
					 * "# run LABEL" before each run: for diffs and golden files */
	SWS_REPLAY_REPORT_MMTESTS = 3,  /* mmtests' compare-kernels layout: per key the
					 * statistic rows (Min, Amean or Hmean, Stddev, CoeffVar,
					 * Max), the first configuration the baseline "(   0.00%)",
					 * the others their difference, "*" where mmtests marks it
					 * significant; then Duration and the Ops (vmstat) table */
	SWS_REPLAY_REPORT_LKP = 4,      /* lkp-tests' compare layout: "%stddev %change
					 * %stddev" columns, one row per figure and counter */
};

/* One compared configuration and its repeated runs. */
struct sws_replay_series {
	const char *label;                          /* the column's name (the backend's if NULL) */
	const struct sws_replay_report *const *repeats;
	unsigned nr_repeats;                        /* >= 1 */
};

#define SWS_REPLAY_MAX_SERIES 8

/**
 * Print @n configurations side by side, each with its repeats: the table
 * reads like a kernel cover letter (one row per figure, one column per
 * configuration, timing figures as mean ± standard deviation and each
 * configuration's difference from the first in percent with its spread, then
 * the deterministic work per swapped page, the counters, peaks and memory);
 * JSON is one object {"version", ..., "runs": [{"backend", ..., "repeats": [{"counters", ...
 * timing figures}], "summary": {FIGURE: {"mean", "stdev", "min", "max"}},
 * "counters_identical", "work", ...}]}. docs/replay.md, "Reading the
 * report", names every row and key. The same as sws_replay_print() with a
 * print configuration of only @fmt.
 * @return 0, SWS_EINVAL, or the first non-zero value @write returned.
 */
int sws_replay_series_print(const struct sws_replay_series *series, unsigned n,
			    enum sws_replay_format fmt,
			    int (*write)(void *ctx, const char *text, size_t len), void *ctx);

/*
 * What a printed report says about itself, and how much it shows. Zero: a
 * table that names the library's version, the clock and the machine but not
 * the command or the input.
 */
struct sws_replay_print_config {
	uint32_t version;               /* SWS_REPLAY_PRINT_CONFIG_VERSION or 0 */
	enum sws_replay_format format;
	uint32_t flags;                 /* SWS_REPLAY_PRINT_* */
	const char *program;            /* the program that ran the replays ("swapsim-replay"), or NULL */
	const char *program_version;    /* its version; NULL: libswapsim's */
	const char *command;            /* the command line, as shell words, or NULL */
	const char *const *argv;        /* the same as separate words (argv[0] the program),
					 * NULL-terminated, or NULL: JSON "argv" (swapsim-replay
					 * --rerun runs them again) */
	const char *input;              /* what was replayed, one line ("workload usemem -n 4
					 * 1G", "trace /path (perf, 1234 bytes)"), or NULL */
	const char *input_name;         /* a short name for it, the benchmark's in mmtests and
					 * lkp: the workload's ("usemem"), "trace"; NULL: "replay" */
	uint64_t workload_seed;         /* the workload generator's seed (the first repeat's),
					 * with has_workload_seed */
	bool has_workload_seed;
};
#define SWS_REPLAY_PRINT_CONFIG_VERSION 1
/* The table (and mmtests, lkp) show every counter, also those that are 0 in every
 * configuration (left out by default). */
#define SWS_REPLAY_PRINT_ALL_COUNTERS (1u << 0)

/**
 * Print @n configurations as sws_replay_series_print() does, in @pc->format,
 * with what the report says about itself: the table starts with one line
 * each for the command, the version, the clock, the input and the machine
 * (struct sws_replay_setup of the first run, with every repeat's seed where
 * they differ), leaves out counters that are 0 in every configuration
 * (unless SWS_REPLAY_PRINT_ALL_COUNTERS) and ends with one verdict line per
 * compared configuration (faster, slower or equal on elapsed and system
 * time, more or less metadata memory, by how much); the JSON object starts
 * with "version", "program", "command", "argv", "clock" and "setup" (input,
 * RAM, memcg limit and cgroup version, devices, page-cluster, zswap, CPUs,
 * seeds) before "runs", each repeat with its own "seed". docs/replay.md,
 * "Reading the report", names every line and key.
 * @return 0, SWS_EINVAL (a bad series, format, version or flag), or the first
 *         non-zero value @write returned.
 */
int sws_replay_print(const struct sws_replay_print_config *pc, const struct sws_replay_series *series,
		     unsigned n, int (*write)(void *ctx, const char *text, size_t len), void *ctx);

/** Print @n reports (one run each) side by side: sws_replay_series_print()
 *  with one repeat per configuration. */
int sws_replay_report_print(const struct sws_replay_report *const *runs, unsigned n,
			    enum sws_replay_format fmt,
			    int (*write)(void *ctx, const char *text, size_t len), void *ctx);

/** Write refused record @k of @r as one line: "line 12: mmap pid 100 addr
 *  0x7f0000000000: SWS_EINVAL (invalid argument)\n" ("record N" where the
 *  source has no lines). @return 0, SWS_EINVAL (no such record) or @write's error. */
int sws_replay_refused_print(const struct sws_replay_report *r, uint32_t k,
			     int (*write)(void *ctx, const char *text, size_t len), void *ctx);

/** @return true when the deterministic counters of @a and @b (everything but
 *  times and histograms) are identical. */
bool sws_replay_counters_equal(const struct sws_replay_report *a, const struct sws_replay_report *b);

/** The CSV time series: the header line, then one row per sample.
 *  Columns: backend,events,time_s,pgfault,pgmajfault,pswpin,pswpout,pgsteal,
 *  resident_pages,swap_used_pages. @return 0 or the writer's error. */
int sws_replay_csv_header(int (*write)(void *ctx, const char *text, size_t len), void *ctx);
int sws_replay_csv_row(enum sws_backend backend, const struct sws_replay_sample *s,
		       int (*write)(void *ctx, const char *text, size_t len), void *ctx);

/* ======================================================================
 *  Synthetic workloads
 * ====================================================================== */

enum sws_workload_kind {
	SWS_WORKLOAD_USEMEM = 1, /* vm-scalability usemem */
	SWS_WORKLOAD_MEMHOG = 2, /* numactl memhog: sequential 0xff fill */
	SWS_WORKLOAD_ZIPF = 3,   /* zipf-distributed random access over N pages */
	SWS_WORKLOAD_UNIFORM = 4,/* uniform random access over N pages */
	SWS_WORKLOAD_BGSAVE = 5, /* write, fork, child reads all while parent writes (COW) */
	SWS_WORKLOAD_KBUILD = 6, /* shaped like a kernel build: short-lived compile jobs, a hot
				  * set that shifts in phases, long-lived cold memory */
};

/* usemem option flags. */
#define SWS_USEMEM_SYNC_RW (1u << 0)    /* -y: every task maps before any access */
#define SWS_USEMEM_SYNC_FREE (1u << 1)  /* -x: every task finishes before any munmap */
#define SWS_USEMEM_RANDOM (1u << 2)     /* -R: each pass touches pages in random order */
#define SWS_USEMEM_READ_AGAIN (1u << 3) /* -Z: a read pass after the write passes */
#define SWS_USEMEM_INIT_TIME (1u << 4)  /* --init-time: print the initialization line */
#define SWS_USEMEM_READONLY (1u << 5)   /* -o: passes read instead of write */
#define SWS_WORKLOAD_KEEP (1u << 16)    /* --keep, any workload: the tasks neither unmap nor
					 * exit at the end: their memory stays (a swapoff
					 * at the end, --swapoff, has pages to bring back) */

#define SWS_WORKLOAD_CONFIG_VERSION 1

#define SWS_WORKLOAD_MAX_BYTES (1ull << 50) /* per task, and the cold region */
#define SWS_WORKLOAD_MAX_ACCESSES (1ull << 40) /* nr_accesses: a day of replay at 10 M/s */
#define SWS_WORKLOAD_MAX_JOBS (1u << 24)       /* kbuild: jobs (processes) in all */

struct sws_workload_config {
	uint32_t version;          /* SWS_WORKLOAD_CONFIG_VERSION or 0 */
	enum sws_workload_kind kind;
	uint64_t bytes;            /* 1..SWS_WORKLOAD_MAX_BYTES; per task: usemem size, memhog size, zipf/uniform
				    * working set, bgsave data set (> 0, rounded up to pages) */
	uint32_t nr_tasks;         /* usemem -n, zipf/uniform tasks; 0: 1 */
	uint32_t repeat;           /* usemem -r / memhog -r passes; 0: 1 */
	uint64_t step;             /* usemem -j bytes between touches; 0: 8 (every word);
				    * one beyond bytes touches the first page alone */
	uint32_t flags;            /* SWS_USEMEM_*, SWS_WORKLOAD_KEEP */
	uint64_t seed;             /* --random-seed / --seed */
	uint64_t nr_accesses;      /* zipf/uniform accesses (all tasks); bgsave parent
				    * writes after fork; 0: 4 x pages (bgsave: pages);
				    * at most SWS_WORKLOAD_MAX_ACCESSES */
	double zipf_s;             /* zipf exponent, > 0; 0: 0.99 */
	uint32_t write_pct;        /* zipf/uniform: percent of accesses that write (0..100) */
	uint32_t reserved;         /* must be zero */
	uint64_t cold_bytes;       /* kbuild: cold data written first and never touched again */
	const struct sws_env *env; /* allocator; NULL: defaults */
	/* usemem, memhog: proactive zswap writeback. Between passes, after every
	 * zswap_writeback_every-th pass of a task (0: 1), the task writes back
	 * zswap_writeback_bytes (rounded up to pages) of its memcg's zswap pool: a
	 * RECLAIM record flagged SWS_TRACE_F_ZSWAP_WB for its memcg, memory.reclaim
	 * "SIZE zswap_writeback_only" (sws_mm_zswap_writeback_only()). 0: none. */
	uint64_t zswap_writeback_bytes;
	uint32_t zswap_writeback_every;
};

struct sws_workload;

/**
 * Create a generator. Records it produces: per task MMAP of its region, page
 * ACCESS records (one per touched page per pass, len 0), MUNMAP and EXIT;
 * bgsave adds a FORK. Pids are 1000 + task index (bgsave: 1000 parent, 1001
 * child; kbuild: 1000 make, 1001.. its jobs in order); tid = pid; cpu =
 * SWS_TRACE_CPU_ANY.
 *
 * kbuild (docs/replay.md has the shape): bytes is the build's size (the
 * concurrent jobs' heaps add up to it on average), nr_tasks the jobs run at
 * once (-j; 0: 8), repeat the phases (0: 8), nr_accesses the jobs' accesses in
 * all (0: 16 per page of bytes), cold_bytes cold data written first; the
 * jobs those accesses make are at most SWS_WORKLOAD_MAX_JOBS.
 * The work of a create is bounded whatever the configuration (kbuild counts
 * its jobs ahead: at most SWS_WORKLOAD_MAX_JOBS steps).
 * @return 0, SWS_EINVAL (kind, bytes 0, write_pct > 100, zipf_s < 0, step,
 *         reserved, zswap_writeback_bytes for a workload other than usemem and
 *         memhog or above SWS_WORKLOAD_MAX_BYTES, nr_accesses above SWS_WORKLOAD_MAX_ACCESSES, kbuild with
 *         more than SWS_WORKLOAD_MAX_JOBS jobs), SWS_EVERSION, SWS_ENOMEM.
 */
int sws_workload_create(const struct sws_workload_config *cfg, struct sws_workload **out);
void sws_workload_destroy(struct sws_workload *wl);

/** @return a source reading @wl's records (valid while @wl lives). */
struct sws_replay_source sws_workload_source(struct sws_workload *wl);

/** @return the number of records the generator produces in all. */
uint64_t sws_workload_total(const struct sws_workload *wl);

/** The content mix a workload implies: usemem INDEX, memhog SAME, kbuild mostly text
 *  (zero 1, index 3, text 14, random 2); others: @return 0
 *  and leave @weight alone (the caller's --content mix applies). @return 1 when set. */
int sws_workload_content(const struct sws_workload *wl, uint32_t weight[SWS_NR_CONTENT]);

/**
 * Print the workload's own per-task output for a finished replay, as the real
 * program does, from each task's simulated time (struct sws_replay_task):
 * usemem: "%lu bytes / %lu usecs = %lu KB/s" (bytes with usemem's size/8
 * allocation credit per pass), "%lu usecs to free memory", and with
 * --init-time "the initialization time is %lu secs %lu usecs"; other kinds
 * print nothing. -Z adds usemem's "read again %lu bytes / %lu usecs = %lu KB/s"
 * line, timed on the task's read accesses. A task the OOM killer killed did
 * not finish its work and prints none of these (usemem, killed by SIGKILL,
 * prints nothing): one line "usemem task N (pid P): killed by the OOM killer,
 * no figures" instead. @return 0 or the writer's error.
 */
int sws_workload_print_results(const struct sws_workload *wl, const struct sws_replay *r,
			       int (*write)(void *ctx, const char *text, size_t len), void *ctx);

/**
 * Fill @rep->workload from a finished replay of @wl (usemem: the sum and mean
 * of the tasks' throughput lines and their mean free latency, in simulated
 * time, as sws_workload_print_results() prints them, over the tasks that
 * completed; OOM-killed tasks are only counted, in .killed; other kinds, or
 * no task completed: not valid). @return 0 or SWS_EINVAL.
 */
int sws_workload_figures(const struct sws_workload *wl, const struct sws_replay *r,
			 struct sws_replay_report *rep);

/*
 * A workload's own options as a command line gives them (swapsim-replay
 * --workload NAME ARGS...): each names a field of struct sws_workload_config
 * and the values it takes, so that a program's parser is this table's reader
 * and a workload added is an option grammar added.
 */
enum sws_workload_param_kind {
	SWS_WORKLOAD_PARAM_FLAG,  /* no value: @flag is set in flags */
	SWS_WORKLOAD_PARAM_COUNT, /* a whole number in @min..@max */
	SWS_WORKLOAD_PARAM_SEED,  /* a whole number, any */
	SWS_WORKLOAD_PARAM_BYTES, /* bytes: digits, optionally K/M/G/T or p; at least @min */
	SWS_WORKLOAD_PARAM_SIZE,  /* a size with a unit (K/M/G/T or p), at most @max bytes */
	SWS_WORKLOAD_PARAM_REAL,  /* a decimal number in (0, @max] */
};

struct sws_workload_param {
	const char *name;    /* "-n", "--seed"; a one-letter name also takes its value glued ("-n4") */
	const char *alias;   /* another name ("--repeat" for -r); NULL: none */
	const char *arg;     /* the value's name in a synopsis ("TASKS"); NULL for a flag */
	enum sws_workload_param_kind kind;
	size_t offset, size; /* the field of struct sws_workload_config (uint32_t, uint64_t, double) */
	uint64_t min, max;
	uint64_t start;      /* the value a command line starts from; 0: the library's default */
	uint32_t flag;       /* SWS_WORKLOAD_PARAM_FLAG */
	const char *expect;  /* what a bad value should have been, for messages ("1..65536 jobs");
			      * NULL: "a count from MIN to MAX" */
};

/** @return @kind's options, ending with an entry whose name is NULL (its SIZE
 *  comes after them, the one word that is not an option), or NULL for an
 *  unknown kind. --keep (SWS_WORKLOAD_KEEP) is among every workload's. */
const struct sws_workload_param *sws_workload_params(enum sws_workload_kind kind);

/** @return "usemem", "memhog", "zipf", "uniform", "bgsave", "kbuild" or "unknown". */
const char *sws_workload_name(enum sws_workload_kind kind);
/** @return what workload @kind does, for a program's --help (lines of at most
 *  80 characters, '\n' between them), or NULL for an unknown kind. The kinds
 *  run from 1 with no gap: a program lists them while sws_workload_name()
 *  knows them. */
const char *sws_workload_help(enum sws_workload_kind kind);
/** @return 0 or SWS_EINVAL. */
int sws_workload_parse(const char *name, enum sws_workload_kind *out);

#ifdef __cplusplus
}
#endif
#endif
