/*
 * workload.h - the synthetic workloads' folder index: the generator every
 * workload shares (struct sws_workload), the table a workload fills in
 * (struct sws__workload_ops), and one section per defining file.
 *
 * Files: workload.c (the one list of workloads, the public calls, the record
 * stream), helpers.c (what several workloads use: random numbers, the seeded
 * permutation, queueing records, round-robin turns), then one file per
 * workload: usemem.c, memhog.c, zipf.c (zipf and uniform), bgsave.c, kbuild.c.
 *
 * A generator is driven two ways (docs/replay.md): next() pops records that
 * the workload's @gen step queued in pend[] (at most 8 at a time), and during
 * the access phase of a workload with @task_next, one stream per task reads
 * that task's records from its own state (struct task_state), so tasks may be
 * generated on different threads.
 */
#ifndef SWS_REPLAY_WORKLOAD_H
#define SWS_REPLAY_WORKLOAD_H

#include "../replay_internal.h"

#define CHUNK 32                    /* pages per round-robin turn */
#define BASE_ADDR 0x7f0000000000ull /* every task maps its region here */
#define PID0 1000u

enum phase { PH_MAP, PH_ACCESS, PH_FREE, PH_DONE };

/* A task's own state: everything its stream of records needs, so that the
 * tasks of the access phase can be generated independently (in parallel);
 * a cache line each, as threads generating two tasks write them per record. */
struct task_state {
	_Alignas(SWS_CACHELINE) uint64_t k;    /* usemem: next page index of the pass; zipf, uniform: accesses made */
	uint64_t quota; /* zipf, uniform: the task's accesses */
	uint64_t rng;   /* zipf, uniform: the task's random stream */
	uint64_t nrec;  /* records of the task read as a stream (their time_ns) */
	uint32_t pass;
	uint8_t tail;   /* usemem: 2 MUNMAP and EXIT, 1 EXIT still to emit */
	bool mapped, done;
	bool zswap_wb;  /* usemem, memhog: the proactive zswap writeback is due */
};

struct sws__workload_ops;

struct sws_workload {
	struct sws_mem mem;
	struct sws_workload_config cfg;
	const struct sws__workload_ops *ops;
	void *priv;           /* the workload's own state: ops->priv_size bytes */
	uint64_t pages;       /* region of each task */
	uint64_t touch_pages; /* pages touched per pass */
	uint32_t ntasks, passes, write_passes;
	struct task_state *ts;
	enum phase phase;
	uint32_t cur, chunk_left, map_idx, free_idx;
	_Atomic uint32_t nfinished; /* tasks with nothing left in the access phase */
	uint64_t rng, emitted, total, count; /* count: random accesses / bgsave progress */
	uint64_t perm_mask, perm_key[3];
	struct sws_trace_record pend[8];
	unsigned npend, pend_head;
};

/*
 * A workload (one file each, listed once in workload.c). create() checks the
 * configuration, sizes the tasks (@tasks, or nr_tasks with @default_tasks when
 * 0), zeroes @priv_size bytes of state, calls @config, derives what every
 * workload shares (pages touched per pass, passes, the default nr_accesses,
 * the permutation), then @setup, which sets the records to come (wl->total).
 */
#define SWS__WORKLOAD_OPS_VERSION 1
struct sws__workload_ops {
	uint32_t version;             /* SWS__WORKLOAD_OPS_VERSION */
	enum sws_workload_kind kind;
	const char *name;             /* sws_workload_name() */
	uint32_t tasks;               /* tasks it always has; 0: nr_tasks */
	uint32_t default_tasks;       /* nr_tasks 0 means this (0: 1) */
	uint32_t exiting_tasks;       /* tasks that unmap and exit at the end; 0: all */
	uint32_t accesses_per_page;   /* nr_accesses 0 means this many per page (0: 4) */
	bool cold_bytes;              /* takes cold_bytes */
	bool zswap_writeback;         /* takes zswap_writeback_bytes and _every */
	size_t priv_size;             /* bytes of wl->priv */
	/* The configuration before the shared values are derived from it. NULL: as given. */
	void (*config)(struct sws_workload *wl);
	/* Its own state and wl->total, from @cfg as the caller gave it. @return 0 or an error. */
	int (*setup)(struct sws_workload *wl, const struct sws_workload_config *cfg);
	/* Queue the next records (wl->pend), or move wl->phase on. */
	void (*gen)(struct sws_workload *wl);
	/* The access phase as one stream per task (helpers.c's turns read it round
	 * robin): task @ti's next record, 1, or 0 when it has none. NULL: no split. */
	int (*task_next)(struct sws_workload *wl, uint32_t ti, struct sws_trace_record *rec);
	/* The content mix it implies (sws_workload_content()); all 0: none. */
	uint32_t content[SWS_NR_CONTENT];
	/* Its own per-task output and figures (usemem's). NULL: none. */
	void (*print_results)(const struct sws_workload *wl, const struct sws_replay *r, struct sws__out *o);
	void (*figures)(const struct sws_workload *wl, const struct sws_replay *r, struct sws_replay_report *rep);
	/* What priv points to, at destroy. NULL: nothing. */
	void (*destroy)(struct sws_workload *wl);
	/* Its options on a command line (sws_workload_params()), ending with {0}. */
	const struct sws_workload_param *params;
	/* What it does, for a program's --help (sws_workload_help()): short lines. */
	const char *help;
};

/* Entries of a params table: the field @f of struct sws_workload_config. */
#define SWS__WL_FIELD(f) .offset = offsetof(struct sws_workload_config, f), \
	.size = sizeof(((struct sws_workload_config *)0)->f)
#define SWS__WL_FLAG(n, a, bit) {.name = (n), .alias = (a), .kind = SWS_WORKLOAD_PARAM_FLAG, .flag = (bit)}
#define SWS__WL_COUNT(n, a, arg_, f, lo, hi, what) \
	{.name = (n), .alias = (a), .arg = (arg_), .kind = SWS_WORKLOAD_PARAM_COUNT, SWS__WL_FIELD(f), \
	 .min = (lo), .max = (hi), .expect = (what)}
#define SWS__WL_SEED(n) {.name = (n), .arg = "S", .kind = SWS_WORKLOAD_PARAM_SEED, SWS__WL_FIELD(seed)}
/* -a: the accesses (zipf, uniform, kbuild) or the parent's writes (bgsave). */
#define SWS__WL_ACCESSES(arg_) SWS__WL_COUNT("-a", NULL, arg_, nr_accesses, 1, SWS_WORKLOAD_MAX_ACCESSES, NULL)
/* --zswap-writeback SIZE and --zswap-writeback-every N (usemem, memhog): memory.reclaim
 * "SIZE zswap_writeback_only" on the task's memcg between passes. */
#define SWS__WL_ZSWAP_WRITEBACK \
	{.name = "--zswap-writeback", .arg = "SIZE", .kind = SWS_WORKLOAD_PARAM_SIZE, \
	 SWS__WL_FIELD(zswap_writeback_bytes), .max = SWS_WORKLOAD_MAX_BYTES}, \
	SWS__WL_COUNT("--zswap-writeback-every", NULL, "N", zswap_writeback_every, 1, 1000000, \
		      "a pass count >= 1")
/* --keep, every workload's: its tasks neither unmap nor exit at the end. */
#define SWS__WL_KEEP SWS__WL_FLAG("--keep", NULL, SWS_WORKLOAD_KEEP)

/* A workload's table: SWS__WORKLOAD(sws__workload_x, .kind = ..., ...). */
#define SWS__WORKLOAD(var, ...) \
	const struct sws__workload_ops var = {.version = SWS__WORKLOAD_OPS_VERSION, __VA_ARGS__}

/* ---- helpers.c ------------------------------------------------------------------- */
/* A double in [0, 1) from the random stream @s. */
double sws__wl_rand01(uint64_t *s);
/* The seeded permutation of [0, @n) (n <= the region's pages), salted: @x's image. */
uint64_t sws__wl_permute(const struct sws_workload *wl, uint64_t x, uint64_t n, uint64_t salt);
/* @rec: a record of task @task (pid PID0 + task). */
void sws__wl_fill(struct sws_trace_record *rec, uint32_t op, uint32_t task, uint64_t addr, uint64_t len,
		  uint32_t flags, uint32_t arg);
/* Queue a record for next(); time_ns is its place in the stream. */
void sws__wl_push(struct sws_workload *wl, uint32_t op, uint32_t task, uint64_t addr, uint64_t len,
		  uint32_t flags, uint32_t arg);
/* Bytes of each task's region. */
static inline uint64_t sws__wl_region_len(const struct sws_workload *wl) { return wl->pages * SWS_PAGE_SIZE; }
/* Task @task's MUNMAP and EXIT, unless the workload keeps its memory. */
void sws__wl_push_free(struct sws_workload *wl, uint32_t task);
/* The free phase of a workload whose tasks all free at the end: the next
 * task's MUNMAP and EXIT, then PH_DONE. */
void sws__wl_free_next(struct sws_workload *wl);
/* The access phase begins, turns of CHUNK (@passes) or 1 access. */
void sws__wl_access_begin(struct sws_workload *wl, bool passes);
/* The access phase read as one stream: the tasks round robin, a turn of @turn
 * accesses each. @return true once every task is through. */
bool sws__wl_turns(struct sws_workload *wl, uint32_t turn);
/* The gen step of a workload whose tasks map, take turns through their
 * per-task streams, then free (without --keep): usemem and memhog (@passes:
 * turns of CHUNK accesses, the free phase only with -x, each task having
 * freed itself otherwise), zipf and uniform (turns of one access). */
void sws__wl_gen_tasks(struct sws_workload *wl, bool passes);
/* Saturating arithmetic for the records to come. */
static inline uint64_t sws__wl_sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
static inline uint64_t sws__wl_sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* ---- usemem.c: the passes usemem and memhog make -------------------------------- */
int sws__wl_passes_task_next(struct sws_workload *wl, uint32_t ti, struct sws_trace_record *rec);
void sws__wl_passes_gen(struct sws_workload *wl);
int sws__wl_passes_setup(struct sws_workload *wl, const struct sws_workload_config *cfg);

/* ---- usemem.c, memhog.c, zipf.c, bgsave.c, kbuild.c: the list workload.c holds ---- */
extern const struct sws__workload_ops sws__workload_usemem;
extern const struct sws__workload_ops sws__workload_memhog;
extern const struct sws__workload_ops sws__workload_zipf;
extern const struct sws__workload_ops sws__workload_uniform;
extern const struct sws__workload_ops sws__workload_bgsave;
extern const struct sws__workload_ops sws__workload_kbuild;

#endif
