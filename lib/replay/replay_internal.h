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
 * report.c (printing reports), workload/ (synthetic workloads, one file each:
 * workload/workload.h is that folder's index).
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
#include "../common/out.h"
#include "../swap/swap_vtime.h"
#include "fiber.h"

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
	uint64_t pos;    /* where the record is in the input (0: a stream's) */
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

/*
 * The modelled clock's event loop (sched.c): simulated CPUs as fibers on the
 * caller's thread, run in virtual-time order. Generic: a CPU runs its body
 * (the replay's: a worker's records) until it yields, blocks or idles.
 */
enum { SWS__CPU_IDLE, SWS__CPU_READY, SWS__CPU_RUNNING, SWS__CPU_BLOCKED };

struct sws__sched;

struct sws__vcpu_run {
	uint64_t key;         /* READY: its clock when pushed (it stands still while READY) */
	struct sws_vcpu *vc;
	struct sws__fiber fiber;
	struct sws__sched *s;
	unsigned idx;
	uint8_t state;        /* SWS__CPU_* */
	bool wait_spin;       /* blocked: spinning (busy) or asleep */
	const void *wait_obj; /* blocked: the lock it waits for */
	uint64_t wait_since;  /* blocked: since when (ps) */
};

struct sws__sched {
	struct sws__fiber main;         /* the caller's context */
	struct sws__vcpu_run **cpu;     /* [n] */
	struct sws__vcpu_run **heap;    /* READY CPUs by (virtual time, index) */
	struct sws__vcpu_run **blocked; /* BLOCKED CPUs, nr_blocked of them, in no order */
	unsigned n, nheap;
	uint64_t horizon;               /* the earliest READY CPU's time + quantum (ps) */
	uint64_t quantum;               /* how far past the earliest a CPU may run (0: exact) */
	unsigned nr_blocked;            /* CPUs waiting for a lock */
	uint64_t limit;                 /* horizon, or 0 while nr_blocked (set_limit()) */
	uint64_t turns;                 /* CPU runs started */
	bool (*turn)(void *ctx);        /* every 4096 turns (progress); true: stop; may be NULL */
	void *turn_ctx;
	struct sws_mem *mem;
	uint32_t kswapd;                /* the replay's: the CPU kswapd runs on, UINT32_MAX: asleep */
};

/* An event loop of @n CPUs (each added next); @quantum_ps: see struct sws__sched. */
int sws__sched_init(struct sws__sched *s, struct sws_mem *mem, unsigned n, uint64_t quantum_ps);
/* CPU @idx: @vc's clock (charging @costs), running @body(@arg) on a fiber of @stack bytes. */
int sws__sched_add(struct sws__sched *s, unsigned idx, struct sws__vcpu_run *c, struct sws_vcpu *vc,
		   const struct sws_costs *costs, size_t stack, void (*body)(void *), void *arg);
void sws__sched_fini(struct sws__sched *s);
/* Run CPUs until @done(@arg) or none is ready (a CPU waiting for a lock then
 * is a deadlock: aborts). */
void sws__sched_run(struct sws__sched *s, bool (*done)(const void *arg), const void *arg);
/* From a body: nothing to run now; it returns when sws__sched_wake() was called. */
void sws__sched_idle(struct sws__vcpu_run *c);
/* An idle CPU has something to run: it resumes at the global virtual time. */
void sws__sched_wake(struct sws__vcpu_run *c);
/* The global virtual time: the earliest busy CPU's, with every CPU idle the latest's. */
uint64_t sws__sched_gvt(const struct sws__sched *s);
/* A barrier: @c runs on the caller's stack (every CPU idle) at the latest
 * CPU's time, until sws__sched_leave(). */
void sws__sched_enter(struct sws__vcpu_run *c);
void sws__sched_leave(struct sws__vcpu_run *c);

struct sws__worker {
	struct sws_replay *r;
	unsigned idx;
	pthread_t thread;
	bool started;
	struct sws_cpu *cpu;

	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full, idle;
	struct sws__item *ring;
	uint32_t cap, head, count; /* cap: records it holds at most */
	uint32_t nslots;    /* slots of ring: cap, and under the modelled clock one more (sched.c) */
	bool busy, stop;

	/* dispatcher side */
	struct sws__item stage[SWS__STAGE];
	uint32_t nstage;

	/* worker private (read after join) */
	uint64_t since_deferred;
	uint64_t accesses, errors, verify_failures;
	int first_error;
	/* The record running (sws__rec_at()) and the first ones refused. */
	const struct sws_trace_record *cur_rec;
	uint64_t cur_pos, cur_seq, ref_seq;
	uint32_t nref;
	struct sws_replay_refused ref[SWS_REPLAY_MAX_REFUSED];
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

	/* The modelled clock (sched.c): this simulated CPU. */
	struct sws_vcpu vc;
	struct sws__vcpu_run run;
	uint64_t wall_mark;      /* the virtual time charged up to (ps) */
	uint64_t ks_ps, task_ps; /* kswapd's and the tasks' time here since kswapd woke here */
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
	bool model;                  /* the modelled clock (else the host's) */
	struct sws_costs costs;      /* its cost table */
	struct sws__sched sched;     /* its event loop */
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
	uint32_t memcg_tiers;        /* cfg.memcg_swap_tiers as a tier mask (0: every tier) */
	unsigned nthreads;
	unsigned order_worker; /* SWS_REPLAY_TRACE_ORDER: the worker of the last record dispatched */
	bool ran, interrupted;
	uint64_t user_ns_per_page; /* the user-time model: one page's accesses */

	struct sws__proc *procs;
	uint32_t nprocs, procs_cap;
	uint32_t *pidmap_key, *pidmap_val; /* val: proc index + 1; 0 empty */
	uint32_t pidmap_cap, pidmap_n;
	uint32_t found_pid, found_val; /* sws__proc_find()'s last answer (val 0: none) */
	struct sws__tid *tids;
	uint32_t ntids, tids_cap;
	uint32_t found_tid, found_tidx; /* sws__tid_slot()'s last answer (idx + 1, 0: none) */
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
	uint64_t pos;     /* where the record being dispatched is in the input */
	const char *position_unit; /* what pos counts: the source's unit, or "record" */
	char errmsg[256];
};

/* ---- machine.c ------------------------------------------------------------------ */

uint64_t sws__replay_now(const struct sws_replay *r);
/* The swap tiers @swap[0..@n) name, in order of first mention: names[k] is
 * tier id k + 1 (the replay adds them in that order). @return how many. */
unsigned sws__replay_tiers(const struct sws_replay_swap *swap, uint32_t n,
			   const char *names[SWS_SWAP_NR_TIERS]);
/* The machine of @r, every default filled in (the report's setup). */
void sws__replay_setup(const struct sws_replay *r, struct sws_replay_setup *out);

/* ---- task.c --------------------------------------------------------------------- */

/* sws__proc_find() through the pid table (it remembers the answer). */
int64_t sws__proc_lookup(struct sws_replay *r, uint32_t pid);
/* @return the index of pid's live process, or -1. A trace's records mostly
 * name the pid of the one before: the last answer first, inline
 * (sws__proc_add() forgets it when it remaps a pid). */
static inline int64_t sws__proc_find(struct sws_replay *r, uint32_t pid)
{
	uint32_t v = r->found_val;
	if (sws_unlikely(!v || r->found_pid != pid))
		return sws__proc_lookup(r, pid);
	return r->procs[v - 1].asid == SWS__NO_ASID ? -1 : (int64_t)v - 1;
}
/* A new process entry for @pid with address space @asid (workers drained). */
int sws__proc_add(struct sws_replay *r, uint32_t pid, uint32_t asid, uint16_t memcg, uint32_t *idx);
/* sws__tid_slot() through the tid table, creating the slot on first sight
 * (may drain to grow the table); it remembers the answer. */
int sws__tid_lookup(struct sws_replay *r, uint32_t tid, uint32_t *idx);
/* The tid's slot: the last answer first, inline (a tid keeps its slot for
 * the whole run). */
static inline int sws__tid_slot(struct sws_replay *r, uint32_t tid, uint32_t *idx)
{
	if (sws_likely(r->found_tidx && r->found_tid == tid)) {
		*idx = r->found_tidx - 1;
		return 0;
	}
	return sws__tid_lookup(r, tid, idx);
}
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
	if (w->r->model) {
		/* The task runs its own code for @user_ns on this CPU; its phase lasts
		 * the virtual time since the last charge (waits for locks included). */
		uint64_t ps = user_ns * 1000;
		w->vc.now += ps;
		w->vc.user += ps;
		total = (w->vc.now - w->wall_mark) / 1000;
		w->wall_mark += total * 1000;
	}
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
/* @rec, at @pos in the input (0: unknown), is the record @w runs now: the one
 * sws__note_error() names. */
static inline void sws__rec_at(struct sws__worker *w, const struct sws_trace_record *rec, uint64_t pos)
{
	w->cur_rec = rec;
	w->cur_pos = pos;
	w->cur_seq++;
}
/* A per-task record on worker @w (its thread, its fiber, or the dispatcher inline). */
void sws__run_item(struct sws__worker *w, const struct sws__item *it);
/* Run a structural record on the dispatcher's CPU, every worker idle, or (MMAP,
 * MUNMAP, EXIT of a stream's own process) on the worker that runs the stream. */
void sws__run_structural(struct sws_replay *r, struct sws__worker *w, const struct sws_trace_record *rec,
			 uint32_t pidx);
/* kswapd and the devices' deferred work, charged to no task. */
void sws__deferred(struct sws__worker *w);
/* What the CPU's clock moved since the record before goes to background work. */
void sws__charge_background(struct sws__worker *w);

/* ---- dispatch.c ----------------------------------------------------------------- */

/* Wait until every worker is idle with an empty ring. */
void sws__drain(struct sws_replay *r);
void sws__stop_workers(struct sws_replay *r);
/* @w's streams, round robin, to their ends. */
void sws__run_streams(struct sws__worker *w);
/* @w's ring of queue_depth records (a slot more under the modelled clock).
 * @return 0 or SWS_ENOMEM. */
int sws__worker_ring(struct sws_replay *r, struct sws__worker *w);
/* Records of streams the workers ran. */
uint64_t sws__streamed(struct sws_replay *r);

/* ---- sched.c -------------------------------------------------------------------- */

int sws__sched_start(struct sws_replay *r);
/* The run's end (@finish: the CPUs' last deferred work and LRU batches). */
void sws__sched_stop(struct sws_replay *r, bool finish);
void sws__sched_free(struct sws_replay *r);
/* Run CPUs until @w's ring has room. */
void sws__sched_make_room(struct sws_replay *r, struct sws__worker *w);
/* The slot of @w's ring the next record goes to, running CPUs while the
 * ring is full; sws__sched_queued() once the item is written there. */
static inline struct sws__item *sws__sched_slot(struct sws_replay *r, struct sws__worker *w)
{
	if (sws_unlikely(w->count == w->cap))
		sws__sched_make_room(r, w);
	uint32_t i = w->head + w->count;
	return &w->ring[i >= w->nslots ? i - w->nslots : i];
}
static inline void sws__sched_queued(struct sws__worker *w)
{
	w->count++;
	if (w->run.state == SWS__CPU_IDLE)
		sws__sched_wake(&w->run);
}
/* Run every CPU until all are idle. */
void sws__sched_drain(struct sws_replay *r);
/* Run the streams handed to the workers to their ends. */
void sws__sched_streams(struct sws_replay *r);
/* A barrier record runs on worker @wi's CPU at the latest CPU's time, on the main stack. */
struct sws__worker *sws__replay_enter(struct sws_replay *r, unsigned wi);
void sws__replay_leave(struct sws_replay *r, struct sws__worker *w);
/* kswapd: wake it on @w's CPU if there is work; one step of it there. */
void sws__sched_kswapd_wake(struct sws__worker *w);
void sws__kswapd_step(struct sws__worker *w);

/* A record starts on @w: under the modelled clock its task is charged the
 * virtual time from here. */
static inline void sws__rec_begin(struct sws__worker *w)
{
	if (w->r->model)
		w->wall_mark = w->vc.now;
}

/* A record ended on @w: a sync point, and kswapd's turn when it runs here. */
static inline void sws__rec_end(struct sws__worker *w)
{
	if (!w->r->model)
		return;
	w->task_ps += w->vc.now - w->wall_mark;
	if (sws_unlikely(w->r->sched.kswapd == w->idx) && w->ks_ps <= w->task_ps)
		sws__kswapd_step(w);
	sws__vt_sync(&w->vc);
}

/* ---- collect.c ------------------------------------------------------------------ */

void sws__hist_add(struct sws_replay_hist *h, uint64_t ns);
void sws__hist_merge(struct sws_replay_hist *dst, const struct sws_replay_hist *src);
/* Sample the peaks (any thread; cheap: a few loads and maxima). */
void sws__sample_peaks(struct sws_replay *r);

/* ---- report.c: what the report layouts share (report_compare.c) ------------------ */

/* Printing: struct sws__out and sws__pr() (common/out.h). */
/* |x|, and Newton's square root (libswapsim links no libm). */
static inline double sws__absd(double x) { return x < 0 ? -x : x; }
double sws__sqrt(double x);
/* Figure @key of run @r ("elapsed_ns": the JSON summary's key) in the table's unit (s,
 * MB/s, us). @return 0, SWS_EINVAL: no such figure, or @r has none (a usemem figure of
 * another input). */
int sws__figure_get(const struct sws_replay_report *r, const char *key, double *v);
/* The column's name of a configuration: its label, or its backend's name. */
const char *sws__series_label(const struct sws_replay_series *s);
/* Is the row of value @get(run, @idx) shown: non-zero in some run of some
 * configuration, or every row asked for (SWS_REPLAY_PRINT_ALL_COUNTERS in @flags)? */
bool sws__row_shown(const struct sws_replay_series *s, unsigned n, uint32_t flags,
		    uint64_t (*get)(const struct sws_replay_report *r, unsigned idx), unsigned idx);
/* The machine of @s's runs in one line: "RAM 4G, memcg 2G (cgroup v2), swap pmem 8G,
 * ..., seed 1" (its first repeat's setup; every repeat's seed where they differ). */
void sws__setup_line(const struct sws_replay_series *s, char *buf, size_t len);

/* ---- report_compare.c: other tools' comparison layouts ---------------------------- */

/* sws_replay_print()'s SWS_REPLAY_REPORT_MMTESTS and _LKP (arguments checked),
 * through @o. */
void sws__print_mmtests(struct sws__out *o, const struct sws_replay_print_config *pc,
			const struct sws_replay_series *s, unsigned n);
void sws__print_lkp(struct sws__out *o, const struct sws_replay_print_config *pc,
		    const struct sws_replay_series *s, unsigned n);

/* Deterministic PRNG (splitmix64) and a bijection on [0, n) for permutations. */
static inline uint64_t sws__rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
