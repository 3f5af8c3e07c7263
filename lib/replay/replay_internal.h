/*
 * replay_internal.h - the replay engine's private structures: the per-worker
 * bounded queues, the pid and tid tables, histograms and the clock.
 *
 * Layout of one replay:
 *
 *   struct sws_replay
 *    ├─ sim, mm, memcg           the machine (owned)
 *    ├─ procs[]                  one per pid incarnation, in order of first sight
 *    │   pidmap (open hash)      pid -> index in procs[] of the live incarnation
 *    ├─ tids (open hash)         tid -> {worker, enqueued, done}: per-task ordering
 *    └─ workers[N]               queue ring + staging batch + histograms
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

struct sws__proc {
	uint32_t pid;
	uint32_t asid; /* SWS__NO_ASID once exited */
	_Atomic uint64_t accesses, access_ns, reads, read_ns, init_ns, free_ns;
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
	int attach_err;
};

struct sws_replay {
	struct sws_mem mem; /* the replay's own allocations (class sim), beside the sim's */
	struct sws_replay_config cfg;
	struct sws_env env;
	bool has_env;
	struct sws_sim *sim;
	int types[SWS_REPLAY_MAX_SWAP]; /* device type of each cfg.swap[] */
	struct sws_mm *mm;
	uint16_t memcg;
	unsigned nthreads;
	bool ran, interrupted;

	struct sws__proc *procs;
	uint32_t nprocs, procs_cap;
	uint32_t *pidmap_key, *pidmap_val; /* val: proc index + 1; 0 empty */
	uint32_t pidmap_cap, pidmap_n;
	struct sws__tid *tids;
	uint32_t ntids, tids_cap;
	uint32_t *tidmap_key, *tidmap_val;
	uint32_t tidmap_cap;

	struct sws__worker *workers; /* [nthreads] (threads == 1: one, run inline) */
	struct sws__worker disp;     /* the dispatcher's own CPU, counters, histograms */

	uint64_t events, start_ns, wall_ns;
	char errmsg[256];
};

uint64_t sws__replay_now(const struct sws_replay *r);
void sws__hist_add(struct sws_replay_hist *h, uint64_t ns);
void sws__hist_merge(struct sws_replay_hist *dst, const struct sws_replay_hist *src);

/* Deterministic PRNG (splitmix64) and a bijection on [0, n) for permutations. */
static inline uint64_t sws__rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
