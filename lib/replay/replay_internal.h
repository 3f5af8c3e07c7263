/*
 * replay_internal.h - the replay engine's private structures and the
 * prototypes its files share, in sections by the file that defines them.
 *
 * Layout of one replay:
 *
 *   struct sws_replay
 *    ├─ sim, mm, memcg           the machine (machine.c builds and tears it down)
 *    ├─ procs[]                  one per pid incarnation, in order of first sight (task.c)
 *    │   pidmap (open hash)      pid -> index in procs[] of the live incarnation
 *    ├─ tids (open hash)         tid -> {worker, enqueued, done}: per-task ordering
 *    └─ workers[N]               queue ring + staging batch + histograms (dispatch.c)
 *
 * Files: machine.c (the machine from the configuration: one table describes
 * every device kind), dispatch.c (workers, queues, the run loop), task.c (pid
 * and tid tables, the simulated time charged to each task), record.c (what
 * each record does to the memory model), collect.c (the report of a run),
 * report.c (printing reports), workload.c (synthetic workloads).
 *
 * Locking: procs[], pidmap and tids are written by the dispatcher only, and
 * only while every worker is idle with an empty queue (after drain()), or
 * (tid enqueue counts) by the dispatcher alone; workers read procs[i] and
 * tids[i] through indexes carried by queue items and update only atomics in
 * them. Growth of an array happens after drain(), so workers never see a
 * stale pointer (the queue mutex orders the publication).
 */
#ifndef SWS_REPLAY_INTERNAL_H
#define SWS_REPLAY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <swapsim/replay.h>

#include "../common/mem.h"

#define SWS__NO_ASID UINT32_MAX
/* Exited address spaces whose descriptors the replay lets wait before it frees
 * them at a quiescent point (sws_mm_spaces_trim()): at most 64 x 4.2 KiB. */
#define SWS__TRIM_EXITED 64

/* A task's clocks (ns): by phase (sys + user + iowait) and by kind. */
enum sws__clock {
	SWS__C_INIT, SWS__C_ACCESS, SWS__C_READ, SWS__C_FREE, /* phases (a read is an access too) */
	SWS__C_SYS, SWS__C_SYS_MODELLED, SWS__C_USER, SWS__C_IOWAIT,
	SWS__NR_CLOCKS
};

struct sws__proc {
	uint32_t pid;
	uint32_t asid; /* SWS__NO_ASID once exited */
	uint32_t space; /* its address space, kept after the exit (sws_mm_oom_killed) */
	uint16_t memcg; /* the memcg it is charged to */
	uint32_t section; /* the stream section that last gave it a stream (0: none) */
	_Atomic uint64_t accesses, reads;
	_Atomic uint64_t clock[SWS__NR_CLOCKS];
};

struct sws__tid {
	uint32_t tid;
	uint32_t worker;   /* worker of its last record */
	uint64_t enqueued; /* records given to workers (dispatcher only) */
	_Atomic uint64_t done; /* records run (workers) */
};

/* A queued record: the record, its address space, its pid and tid slots. */
struct sws__item {
	struct sws_trace_record rec;
	uint32_t asid;
	uint32_t proc;
	uint32_t tid;
	uint32_t pad;
};

/* A per-task stream of the source, run by one worker (dispatch.c). */
struct sws__stream {
	struct sws_trace_record first; /* its first record, read by the dispatcher */
	uint32_t s;      /* the source's number for it */
	uint32_t proc;   /* its process; UINT32_MAX: the model refused it (@refused) */
	uint32_t worker; /* the worker that runs it */
	int refused, err; /* err: the source's error reading it */
	bool has_first, through;
};

#define SWS__STAGE 64 /* records the dispatcher batches per worker before one lock */
#define SWS__TAKE 128 /* records a worker takes per lock */

struct sws__worker {
	struct sws_replay *r;
	unsigned idx;
	pthread_t thread;
	bool started;
	struct sws_cpu *cpu;

	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full, idle;
	struct sws__item *ring;
	uint32_t cap, head, count;
	bool busy, stop;

	/* dispatcher side */
	struct sws__item stage[SWS__STAGE];
	uint32_t nstage;

	/* worker private (read after join) */
	uint64_t since_deferred;
	uint64_t accesses, errors, verify_failures;
	int first_error;
	struct sws_replay_hist lat[SWS_REPLAY_NR_LAT];
	struct sws_mm_cpu_time kswapd; /* deferred work this worker ran: no task's time */
	/* The CPU's simulated clock as last read: only this worker's own kernel
	 * entries move it, so a record that entered no kernel path (all hits)
	 * needs no read. */
	struct sws_mm_cpu_time seen;
	/* Time and accesses charged to one task, added to its atomics when the
	 * task changes (runs of records of one task are the common case). */
	uint32_t pend_proc; /* UINT32_MAX: nothing pending */
	uint64_t pend[SWS__NR_CLOCKS];
	uint64_t pend_accesses, pend_reads;
	int attach_err;
	bool streams;                   /* told to run its streams (under lock) */
	_Atomic uint64_t stream_events; /* records of streams it ran (the dispatcher reads it) */
};

/* Peaks sampled at every deferred-work step and at the end (collect.c). */
struct sws__peaks {
	_Atomic uint64_t swap_used, pool_bytes, pool_stored; /* pool: bytes and pages at its peak */
	_Atomic uint64_t meta_static, meta_dynamic;          /* swap metadata sums */
	_Atomic uint64_t dev_inuse[SWS_REPLAY_MAX_SWAP];     /* per device, with several */
	pthread_mutex_t lock;                                /* pool_bytes and pool_stored together */
};

struct sws_replay {
	struct sws_mem mem; /* the replay's own allocations (class sim), beside the sim's */
	uint64_t swapoff_ns, swapoff_sys_ns; /* config.swapoff_device's swapoff, when it ran */
	bool swapoff_ran;
	uint64_t swapoff_oom_kills; /* tasks the OOM killer took during it */
	struct sws_replay_config cfg;
	struct sws_env env;
	bool has_env;
	struct sws_sim *sim;
	int types[SWS_REPLAY_MAX_SWAP]; /* device type of each cfg.swap[] */
	struct sws_mm *mm;
	uint16_t memcg;
	unsigned nthreads;
	bool ran, interrupted;
	uint64_t user_ns_per_page; /* the user-time model: one page's accesses */

	struct sws__proc *procs;
	uint32_t nprocs, procs_cap;
	uint32_t *pidmap_key, *pidmap_val; /* val: proc index + 1; 0 empty */
	uint32_t pidmap_cap, pidmap_n;
	uint32_t found_pid, found_val; /* sws__proc_find()'s last answer (val 0: none) */
	struct sws__tid *tids;
	uint32_t ntids, tids_cap;
	uint32_t *tidmap_key, *tidmap_val;
	uint32_t tidmap_cap;

	struct sws__worker *workers; /* [nthreads] (threads == 1: one, run inline) */
	struct sws__worker disp;     /* the dispatcher's own CPU, counters, histograms */
	struct sws_replay_hist sample_fault; /* the fault histogram at the last sample */
	struct sws__peaks peaks;

	/* Per-task streams of the source, while the workers run them. */
	const struct sws_replay_source *src;
	struct sws__stream *streams;
	uint32_t nstreams, streams_cap;
	atomic_bool streams_stop;
	uint32_t section; /* the stream section running or next (from 1) */

	uint64_t events, start_ns, wall_ns;
	char errmsg[256];
};

/* ---- machine.c ------------------------------------------------------------------ */

uint64_t sws__replay_now(const struct sws_replay *r);

/* ---- task.c --------------------------------------------------------------------- */

/* @return the index of pid's live process, or -1. */
int64_t sws__proc_find(struct sws_replay *r, uint32_t pid);
/* A new process entry for @pid with address space @asid (workers drained). */
int sws__proc_add(struct sws_replay *r, uint32_t pid, uint32_t asid, uint16_t memcg, uint32_t *idx);
/* The tid's slot, created on first sight (may drain to grow the table). */
int sws__tid_slot(struct sws_replay *r, uint32_t tid, uint32_t *idx);
void sws__tasks_free(struct sws_replay *r);

/* Simulated-time phases a record's time is charged to. */
enum sws__phase { SWS__PH_INIT, SWS__PH_ACCESS, SWS__PH_READ, SWS__PH_FREE, SWS__PH_OTHER };

/* Read the worker's CPU clock afresh (after it attached). */
void sws__clock_sync(struct sws_replay *r, struct sws__worker *w);
/* Charge what the CPU's clock moved since it was last seen to nobody (time of the
 * replay's own undo steps), keeping what is pending. */
void sws__clock_skip(struct sws_replay *r, struct sws__worker *w);
/* Add what @w has pending to its task (before the task changes, and at the end). */
void sws__charge_flush(struct sws__worker *w);
/* Charge task @proc what the CPU's clock moved since it was last seen (@now:
 * its new value, NULL when the record entered no kernel path), plus @user_ns
 * and @extra_sys_ns (time measured outside the model's clock: mmap). Inline:
 * every record charges its task. */
static inline void sws__charge(struct sws__worker *w, uint32_t proc, const struct sws_mm_cpu_time *now,
			       uint64_t user_ns, uint64_t extra_sys_ns, enum sws__phase ph)
{
	uint64_t sys = extra_sys_ns, modelled = 0, io = 0;
	if (now) {
		sys += now->sys_ns - w->seen.sys_ns;
		modelled = now->sys_modelled_ns - w->seen.sys_modelled_ns;
		io = now->iowait_ns - w->seen.iowait_ns;
		/* The OOM reaper's work ran inline: background, with kswapd's. */
		w->kswapd.sys_ns += now->background_ns - w->seen.background_ns;
		w->seen = *now;
	}
	if (w->pend_proc != proc) {
		sws__charge_flush(w);
		w->pend_proc = proc;
	}
	uint64_t *c = w->pend, total = sys + io + user_ns;
	c[SWS__C_SYS] += sys;
	c[SWS__C_SYS_MODELLED] += modelled;
	c[SWS__C_IOWAIT] += io;
	c[SWS__C_USER] += user_ns;
	switch (ph) {
	case SWS__PH_INIT:
		c[SWS__C_INIT] += total;
		break;
	case SWS__PH_READ: /* a read is an access too */
		c[SWS__C_READ] += total;
		c[SWS__C_ACCESS] += total;
		break;
	case SWS__PH_ACCESS:
		c[SWS__C_ACCESS] += total;
		break;
	case SWS__PH_FREE:
		c[SWS__C_FREE] += total;
		break;
	case SWS__PH_OTHER:
		break;
	}
}

/* ---- record.c ------------------------------------------------------------------- */

void sws__note_error(struct sws__worker *w, int rc);
/* Run a per-task record on worker @w (its thread, or the dispatcher inline). */
void sws__run_record(struct sws__worker *w, const struct sws__item *it);
/* Run a structural record on the dispatcher's CPU, every worker idle, or (MMAP,
 * MUNMAP, EXIT of a stream's own process) on the worker that runs the stream. */
void sws__run_structural(struct sws_replay *r, struct sws__worker *w, const struct sws_trace_record *rec,
			 uint32_t pidx);
/* kswapd and the devices' deferred work, charged to no task. */
void sws__deferred(struct sws__worker *w);

/* ---- dispatch.c ----------------------------------------------------------------- */

/* Wait until every worker is idle with an empty ring. */
void sws__drain(struct sws_replay *r);
void sws__stop_workers(struct sws_replay *r);

/* ---- collect.c ------------------------------------------------------------------ */

void sws__hist_add(struct sws_replay_hist *h, uint64_t ns);
void sws__hist_merge(struct sws_replay_hist *dst, const struct sws_replay_hist *src);
/* Sample the peaks (any thread; cheap: a few loads and maxima). */
void sws__sample_peaks(struct sws_replay *r);

/* Deterministic PRNG (splitmix64) and a bijection on [0, n) for permutations. */
static inline uint64_t sws__rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
