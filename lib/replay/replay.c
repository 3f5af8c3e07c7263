/*
 * replay.c - the replay engine: builds the machine (simulation, swap devices,
 * memory model, memcg), dispatches records to worker threads standing for
 * CPUs, runs structural events in order, and collects what happened.
 *
 * HOW IT WORKS
 *
 * The caller's thread is the dispatcher. It reads the source one record at a
 * time and sorts records in two kinds:
 *
 *  - per-task records (ACCESS, MADV_PAGEOUT, MADV_DONTNEED, RECLAIM) touch one
 *    address space (or reclaim, which the mm serialises itself). They go to
 *    worker (cpu % N), or (tid % N) when the record has no CPU, through a
 *    bounded FIFO ring per worker. The dispatcher stages SWS__STAGE records per
 *    worker before taking the ring's lock once, and blocks when a ring is full,
 *    so memory stays bounded whatever the trace length.
 *
 *  - structural records (FORK, EXIT, MMAP, MUNMAP) change which address spaces
 *    exist or what is mapped, and a later record of *another* task may depend
 *    on them (a fork creates the child's address space; a thread of the same
 *    process may touch what another thread mapped). The dispatcher drains every
 *    queue (each worker idle with an empty ring) and runs the record itself, on
 *    its own CPU. The first record of a pid never seen is handled the same way:
 *    drain, create its address space, then dispatch it.
 *
 * Ordering: a tid's records keep trace order because they go to one FIFO ring
 * and one worker runs a ring in order. When a task's records start naming
 * another CPU, the dispatcher flushes the old worker's staging batch and waits
 * until the tid's done count (bumped by workers with release order) equals what
 * it enqueued, then sends the record to the new worker. Structural records are
 * totally ordered with everything by the drain.
 *
 * Determinism: with threads == 1 no thread is started: the dispatcher runs each
 * record inline on its only CPU, so the order of every mm call is the trace
 * order and nothing depends on timing (deferred work runs every K records, not
 * every K microseconds).
 *
 * Deferred work: every deferred_every records a worker runs one kswapd step
 * (sws_mm_kswapd with kswapd_budget) and the device's deferred work (discards),
 * and once more when it stops: background reclaim is a plain function the
 * workers schedule, never a timer.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "replay_internal.h"

#define DEFAULT_RAM_PAGES (1ull << 18)
#define DEFAULT_DEFERRED 1024
#define DEFAULT_KSWAPD 1024
#define DEFAULT_QUEUE 4096
#define DEFAULT_PROGRESS 65536
#define MAX_THREADS 128
#define SWS__MAX_ACCESS_PAGES (1ull << 24) /* 64 GiB in one ACCESS record */

/* ---- clock and histograms ---------------------------------------------------- */

uint64_t sws__replay_now(const struct sws_replay *r)
{
	if (r->has_env && r->env.clock_ns)
		return r->env.clock_ns(r->env.clock_ctx);
	/* The documented default of struct sws_env: CLOCK_MONOTONIC. */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sws__hist_add(struct sws_replay_hist *h, uint64_t ns)
{
	unsigned b = ns ? 63u - (unsigned)__builtin_clzll(ns) : 0;
	if (b >= SWS_REPLAY_HIST_BUCKETS)
		b = SWS_REPLAY_HIST_BUCKETS - 1;
	h->bucket[b]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void sws__hist_merge(struct sws_replay_hist *dst, const struct sws_replay_hist *src)
{
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (unsigned i = 0; i < SWS_REPLAY_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t sws_replay_hist_quantile(const struct sws_replay_hist *h, double q)
{
	if (!h || !h->count)
		return 0;
	uint64_t want = (uint64_t)(q * (double)h->count);
	if (want >= h->count)
		want = h->count - 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < SWS_REPLAY_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen > want) {
			uint64_t hi = 2ull << i; /* upper bound of bucket i */
			return hi < h->max_ns ? hi : h->max_ns;
		}
	}
	return h->max_ns;
}

const char *sws_replay_lat_name(enum sws_replay_lat l)
{
	static const char *const names[] = {"fault", "free", "swapout"};
	return (unsigned)l < SWS_REPLAY_NR_LAT ? names[l] : "";
}

/* ---- pid and tid tables (dispatcher only) -------------------------------------- */

static uint32_t hash32(uint32_t key, uint32_t cap)
{
	return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* Open addressing, linear probing; val 0 = empty slot, else index + 1. */
static uint32_t map_get(const uint32_t *keys, const uint32_t *vals, uint32_t cap, uint32_t key)
{
	if (!cap)
		return 0;
	for (uint32_t i = hash32(key, cap);; i = (i + 1) & (cap - 1)) {
		if (!vals[i])
			return 0;
		if (keys[i] == key)
			return vals[i];
	}
}

static void map_put_raw(uint32_t *keys, uint32_t *vals, uint32_t cap, uint32_t key, uint32_t val)
{
	for (uint32_t i = hash32(key, cap);; i = (i + 1) & (cap - 1)) {
		if (!vals[i] || keys[i] == key) {
			keys[i] = key;
			vals[i] = val;
			return;
		}
	}
}

/* Insert or overwrite; grows to keep the load at most 1/2. @n counts distinct keys. */
static int map_put(struct sws_replay *r, uint32_t **keys, uint32_t **vals, uint32_t *cap,
		   uint32_t n, uint32_t key, uint32_t val)
{
	if ((n + 1) * 2 > *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 64;
		uint32_t *nk = sws__mem_zalloc(&r->mem, SWS_MEM_sim, ncap * sizeof(uint32_t), 0);
		uint32_t *nv = sws__mem_zalloc(&r->mem, SWS_MEM_sim, ncap * sizeof(uint32_t), 0);
		if (!nk || !nv) {
			sws__mem_free(&r->mem, SWS_MEM_sim, nk, ncap * sizeof(uint32_t));
			sws__mem_free(&r->mem, SWS_MEM_sim, nv, ncap * sizeof(uint32_t));
			return SWS_ENOMEM;
		}
		for (uint32_t i = 0; i < *cap; i++)
			if ((*vals)[i])
				map_put_raw(nk, nv, ncap, (*keys)[i], (*vals)[i]);
		sws__mem_free(&r->mem, SWS_MEM_sim, *keys, *cap * sizeof(uint32_t));
		sws__mem_free(&r->mem, SWS_MEM_sim, *vals, *cap * sizeof(uint32_t));
		*keys = nk;
		*vals = nv;
		*cap = ncap;
	}
	map_put_raw(*keys, *vals, *cap, key, val);
	return 0;
}

/* Grow an array of @elem-byte elements to at least @need (the caller drained). */
static int array_grow(struct sws_replay *r, void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint32_t ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	void *n = sws__mem_zalloc(&r->mem, SWS_MEM_sim, ncap * elem, 0);
	if (!n)
		return SWS_ENOMEM;
	if (*arr) {
		memcpy(n, *arr, *cap * elem);
		sws__mem_free(&r->mem, SWS_MEM_sim, *arr, *cap * elem);
	}
	*arr = n;
	*cap = ncap;
	return 0;
}

/* @return the index of pid's live process, or -1. */
static int64_t proc_find(const struct sws_replay *r, uint32_t pid)
{
	uint32_t v = map_get(r->pidmap_key, r->pidmap_val, r->pidmap_cap, pid);
	if (!v || r->procs[v - 1].asid == SWS__NO_ASID)
		return -1;
	return (int64_t)v - 1;
}

/* A new process entry for @pid with address space @asid (workers drained). */
static int proc_add(struct sws_replay *r, uint32_t pid, uint32_t asid, uint32_t *idx)
{
	int err = array_grow(r, (void **)&r->procs, &r->procs_cap, r->nprocs + 1, sizeof(*r->procs));
	if (err)
		return err;
	bool known = map_get(r->pidmap_key, r->pidmap_val, r->pidmap_cap, pid) != 0;
	err = map_put(r, &r->pidmap_key, &r->pidmap_val, &r->pidmap_cap, r->pidmap_n, pid,
		      r->nprocs + 1);
	if (err)
		return err;
	if (!known)
		r->pidmap_n++;
	struct sws__proc *p = &r->procs[r->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->asid = asid;
	*idx = r->nprocs++;
	return 0;
}

static int tid_slot(struct sws_replay *r, uint32_t tid, uint32_t *idx);

/* ---- queues ----------------------------------------------------------------------- */

/* Hand the staged records of @w to its ring (blocks while the ring is full). */
static void flush(struct sws__worker *w)
{
	uint32_t i = 0;
	if (!w->nstage)
		return;
	pthread_mutex_lock(&w->lock);
	while (i < w->nstage) {
		while (w->count == w->cap)
			pthread_cond_wait(&w->not_full, &w->lock);
		while (i < w->nstage && w->count < w->cap) {
			w->ring[(w->head + w->count) % w->cap] = w->stage[i++];
			w->count++;
		}
		pthread_cond_signal(&w->not_empty);
	}
	pthread_mutex_unlock(&w->lock);
	w->nstage = 0;
}

/* Wait until every worker is idle with an empty ring. */
static void drain(struct sws_replay *r)
{
	if (r->nthreads == 1)
		return;
	for (unsigned i = 0; i < r->nthreads; i++)
		flush(&r->workers[i]);
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		pthread_mutex_lock(&w->lock);
		while (w->count || w->busy)
			pthread_cond_wait(&w->idle, &w->lock);
		pthread_mutex_unlock(&w->lock);
	}
}

/* ---- running records ------------------------------------------------------------- */

static void note_error(struct sws__worker *w, int rc)
{
	w->errors++;
	if (rc == SWS_ECORRUPT)
		w->verify_failures++;
	if (!w->first_error)
		w->first_error = rc;
}

static void deferred(struct sws__worker *w)
{
	struct sws_replay *r = w->r;
	uint64_t t0 = sws__replay_now(r);
	sws_mm_kswapd(w->cpu, r->mm, r->cfg.kswapd_budget);
	sws_swap_do_deferred_work(r->sim, 64);
	(void)t0; /* swap-out latency comes from the mm: every folio it swapped out */
	w->since_deferred = 0;
}

static uint16_t reclaim_memcg(const struct sws_replay *r, uint32_t arg)
{
	/* One memcg holds every workload task: a named memcg or the task's one is it. */
	return arg == SWS_TRACE_MEMCG_ROOT ? 0 : r->memcg;
}

/* Run a per-task record on worker @w (its thread, or the dispatcher when inline). */
static void run_record(struct sws__worker *w, const struct sws__item *it)
{
	struct sws_replay *r = w->r;
	const struct sws_trace_record *rec = &it->rec;
	struct sws__proc *p = &r->procs[it->proc];
	uint64_t t0, dt;
	int rc;

	if (r->cfg.on_record)
		r->cfg.on_record(r->cfg.cb_ctx, w->idx, rec);
	switch (rec->op) {
	case SWS_TRACE_ACCESS: {
		uint64_t first = rec->addr >> 12, last = first;
		if (rec->len) {
			uint64_t end = rec->addr + rec->len - 1;
			if (end < rec->addr || end >> 48 || (end >> 12) - first >= SWS__MAX_ACCESS_PAGES) {
				/* beyond 48-bit addresses, or more than 64 GiB in one record: refuse it
				 * whole rather than walk it page by page */
				note_error(w, SWS_EINVAL);
				break;
			}
			last = end >> 12;
		}
		bool write = rec->flags & SWS_TRACE_F_WRITE;
		uint64_t sum = 0;
		for (uint64_t pg = first;; pg++) {
			t0 = sws__replay_now(r);
			rc = sws_mm_access(w->cpu, r->mm, it->asid, pg << 12, write);
			dt = sws__replay_now(r) - t0;
			if (rc == 1) /* only faults go to the fault-path histogram */
				sws__hist_add(&w->lat[SWS_REPLAY_LAT_FAULT], dt);
			sum += dt;
			if (rc < 0)
				note_error(w, rc);
			if (pg == last)
				break;
		}
		w->accesses += last - first + 1;
		atomic_fetch_add_explicit(&p->accesses, last - first + 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&p->access_ns, sum, memory_order_relaxed);
		if (!write) {
			atomic_fetch_add_explicit(&p->reads, last - first + 1, memory_order_relaxed);
			atomic_fetch_add_explicit(&p->read_ns, sum, memory_order_relaxed);
		}
		break;
	}
	case SWS_TRACE_MADV_PAGEOUT:
	case SWS_TRACE_MADV_DONTNEED: {
		bool out = rec->op == SWS_TRACE_MADV_PAGEOUT;
		uint64_t a = rec->addr & ~4095ull, len = (rec->len + (rec->addr & 4095) + 4095) & ~4095ull;
		t0 = sws__replay_now(r);
		rc = sws_mm_madvise(w->cpu, r->mm, it->asid, a, len,
				    out ? SWS_MADV_PAGEOUT : SWS_MADV_DONTNEED);
		dt = sws__replay_now(r) - t0;
		if (!out) {
			sws__hist_add(&w->lat[SWS_REPLAY_LAT_FREE], dt);
			atomic_fetch_add_explicit(&p->free_ns, dt, memory_order_relaxed);
		}
		if (rc)
			note_error(w, rc);
		break;
	}
	case SWS_TRACE_RECLAIM:
		sws_mm_reclaim(w->cpu, r->mm, reclaim_memcg(r, rec->arg), rec->len);
		break;
	default:
		note_error(w, SWS_EINVAL);
		break;
	}
	if (++w->since_deferred >= r->cfg.deferred_every)
		deferred(w);
}

/* Run a structural record on the dispatcher's CPU, every worker idle. */
static void run_structural(struct sws_replay *r, struct sws__worker *w,
			   const struct sws_trace_record *rec, uint32_t pidx)
{
	struct sws__proc *p = &r->procs[pidx];
	uint32_t asid = p->asid;
	uint64_t t0, dt;
	int rc = 0;

	if (r->cfg.on_record)
		r->cfg.on_record(r->cfg.cb_ctx, r->nthreads, rec);
	switch (rec->op) {
	case SWS_TRACE_FORK: {
		int64_t old = proc_find(r, rec->arg);
		if (old >= 0 && (uint32_t)old != pidx) { /* the child pid had a life already */
			rc = sws_mm_exit(w->cpu, r->mm, r->procs[old].asid);
			r->procs[old].asid = SWS__NO_ASID;
			if (rc)
				note_error(w, rc);
		}
		uint32_t child, cidx;
		rc = sws_mm_fork(w->cpu, r->mm, asid, &child);
		if (!rc) {
			rc = proc_add(r, rec->arg, child, &cidx);
			if (rc)
				sws_mm_exit(w->cpu, r->mm, child);
		}
		break;
	}
	case SWS_TRACE_EXIT:
		t0 = sws__replay_now(r);
		rc = sws_mm_exit(w->cpu, r->mm, asid);
		dt = sws__replay_now(r) - t0;
		sws__hist_add(&w->lat[SWS_REPLAY_LAT_FREE], dt);
		atomic_fetch_add_explicit(&p->free_ns, dt, memory_order_relaxed);
		p->asid = SWS__NO_ASID;
		break;
	case SWS_TRACE_MMAP:
	case SWS_TRACE_MUNMAP: {
		uint64_t a = rec->addr & ~4095ull, len = (rec->len + (rec->addr & 4095) + 4095) & ~4095ull;
		t0 = sws__replay_now(r);
		if (rec->op == SWS_TRACE_MMAP) {
			uint32_t fl = (rec->flags & SWS_TRACE_F_THP) ? SWS_MM_MAP_ORDER(9) : 0;
			rc = sws_mm_mmap(r->mm, asid, a, len, fl);
			atomic_fetch_add_explicit(&p->init_ns, sws__replay_now(r) - t0,
						  memory_order_relaxed);
		} else {
			rc = sws_mm_munmap(w->cpu, r->mm, asid, a, len);
			dt = sws__replay_now(r) - t0;
			sws__hist_add(&w->lat[SWS_REPLAY_LAT_FREE], dt);
			atomic_fetch_add_explicit(&p->free_ns, dt, memory_order_relaxed);
		}
		break;
	}
	default:
		break;
	}
	if (rc)
		note_error(w, rc);
}

/* ---- workers ------------------------------------------------------------------------ */

static void *worker_main(void *arg)
{
	struct sws__worker *w = arg;
	struct sws_replay *r = w->r;
	struct sws__item buf[SWS__TAKE];
	int err = sws_cpu_attach(r->sim, &w->cpu);

	pthread_mutex_lock(&w->lock);
	w->attach_err = err;
	w->busy = false;
	pthread_cond_broadcast(&w->idle);
	pthread_mutex_unlock(&w->lock);
	if (err)
		return NULL;
	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->count && !w->stop) {
			if (w->busy) {
				w->busy = false;
				pthread_cond_broadcast(&w->idle);
			}
			pthread_cond_wait(&w->not_empty, &w->lock);
		}
		if (!w->count) { /* stopped and empty */
			w->busy = false;
			pthread_mutex_unlock(&w->lock);
			break;
		}
		uint32_t k = w->count < SWS__TAKE ? w->count : SWS__TAKE;
		for (uint32_t i = 0; i < k; i++)
			buf[i] = w->ring[(w->head + i) % w->cap];
		w->head = (w->head + k) % w->cap;
		w->count -= k;
		w->busy = true;
		pthread_cond_signal(&w->not_full);
		pthread_mutex_unlock(&w->lock);
		for (uint32_t i = 0; i < k; i++) {
			run_record(w, &buf[i]);
			atomic_fetch_add_explicit(&r->tids[buf[i].tid].done, 1, memory_order_release);
		}
	}
	deferred(w);
	sws_cpu_detach(w->cpu);
	w->cpu = NULL;
	return NULL;
}

static int tid_slot(struct sws_replay *r, uint32_t tid, uint32_t *idx)
{
	uint32_t v = map_get(r->tidmap_key, r->tidmap_val, r->tidmap_cap, tid);
	if (v) {
		*idx = v - 1;
		return 0;
	}
	if (r->ntids == r->tids_cap)
		drain(r); /* workers read tids[] through indexes: grow only while idle */
	int err = array_grow(r, (void **)&r->tids, &r->tids_cap, r->ntids + 1, sizeof(*r->tids));
	if (!err)
		err = map_put(r, &r->tidmap_key, &r->tidmap_val, &r->tidmap_cap, r->ntids, tid,
			      r->ntids + 1);
	if (err)
		return err;
	struct sws__tid *t = &r->tids[r->ntids];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	*idx = r->ntids++;
	return 0;
}

/* ---- dispatch ----------------------------------------------------------------------- */

static bool is_structural(uint32_t op)
{
	return op == SWS_TRACE_FORK || op == SWS_TRACE_EXIT || op == SWS_TRACE_MMAP ||
	       op == SWS_TRACE_MUNMAP;
}

/* The worker that runs structural records and counts dispatcher-side errors. */
static struct sws__worker *struct_worker(struct sws_replay *r)
{
	return r->nthreads == 1 ? &r->workers[0] : &r->disp;
}

static int dispatch(struct sws_replay *r, const struct sws_trace_record *rec)
{
	struct sws__worker *sw = struct_worker(r);
	if (rec->op < SWS_TRACE_ACCESS || rec->op > SWS_TRACE_OP_MAX) {
		note_error(sw, SWS_EINVAL);
		return 0;
	}
	int64_t pidx = proc_find(r, rec->pid);
	if (pidx < 0 || is_structural(rec->op)) {
		drain(r);
		if (pidx < 0) {
			uint32_t asid, idx;
			int err = sws_mm_space_create(r->mm, r->memcg, &asid);
			if (err) {
				note_error(sw, err);
				return err == SWS_ENOMEM ? err : 0;
			}
			err = proc_add(r, rec->pid, asid, &idx);
			if (err) {
				sws_mm_exit(sw->cpu, r->mm, asid);
				return err;
			}
			pidx = idx;
		}
		if (is_structural(rec->op)) {
			run_structural(r, sw, rec, (uint32_t)pidx);
			return 0;
		}
	}
	struct sws__item it = {.rec = *rec, .asid = r->procs[pidx].asid, .proc = (uint32_t)pidx};
	if (r->nthreads == 1) {
		run_record(&r->workers[0], &it);
		return 0;
	}
	uint32_t tidx;
	int err = tid_slot(r, rec->tid, &tidx);
	if (err)
		return err;
	it.tid = tidx;
	unsigned wi = (rec->cpu == SWS_TRACE_CPU_ANY ? rec->tid : rec->cpu) % r->nthreads;
	struct sws__tid *t = &r->tids[tidx];
	if (t->enqueued && t->worker != wi) {
		/* The task moved CPU: its earlier records must run first. */
		flush(&r->workers[t->worker]);
		while (atomic_load_explicit(&t->done, memory_order_acquire) != t->enqueued)
			sched_yield();
	}
	t->worker = wi;
	t->enqueued++;
	struct sws__worker *w = &r->workers[wi];
	w->stage[w->nstage++] = it;
	if (w->nstage == SWS__STAGE)
		flush(w);
	return 0;
}

static void take_sample(struct sws_replay *r)
{
	struct sws_replay_sample s;
	uint64_t total, free;
	memset(&s, 0, sizeof(s));
	s.events = r->events;
	s.time_ns = sws__replay_now(r) - r->start_ns;
	sws_mm_stats(r->mm, &s.mm);
	sws_swap_totals(r->sim, &total, &free);
	s.swap_used = total - free;
	for (uint32_t i = 0; i < r->cfg.nr_swap; i++) {
		struct sws_xswap_info xi;
		if (r->cfg.swap[i].kind != SWS_REPLAY_SWAP_XSWAP ||
		    sws_xswap_info(r->sim, r->types[i], &xi))
			continue;
		s.xswap_inuse_pages += xi.inuse_pages;
		s.xswap_mapped_clusters += xi.nr_clusters_mapped;
		s.arena_mapped_bytes += xi.arena_mapped_bytes;
		s.arena_resident_bytes += xi.arena_resident_bytes;
	}
	r->cfg.sample(r->cfg.cb_ctx, &s);
}

/* ---- life cycle -------------------------------------------------------------------- */

static void worker_init(struct sws_replay *r, struct sws__worker *w, unsigned idx)
{
	memset(w, 0, sizeof(*w));
	w->r = r;
	w->idx = idx;
}

static int start_workers(struct sws_replay *r)
{
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		w->cap = r->cfg.queue_depth;
		w->ring = sws__mem_alloc(&r->mem, SWS_MEM_sim, w->cap * sizeof(*w->ring), 64);
		if (!w->ring)
			return SWS_ENOMEM;
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->not_empty, NULL);
		pthread_cond_init(&w->not_full, NULL);
		pthread_cond_init(&w->idle, NULL);
		w->busy = true; /* until attached */
		if (pthread_create(&w->thread, NULL, worker_main, w))
			return SWS_ENOMEM;
		w->started = true;
	}
	drain(r); /* waits for every attach */
	for (unsigned i = 0; i < r->nthreads; i++)
		if (r->workers[i].attach_err)
			return r->workers[i].attach_err;
	return 0;
}

static void stop_workers(struct sws_replay *r)
{
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		if (!w->started)
			continue;
		flush(w);
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->not_empty);
		pthread_mutex_unlock(&w->lock);
	}
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		if (!w->started)
			continue;
		pthread_join(w->thread, NULL);
		w->started = false;
	}
}

int sws_replay_run(struct sws_replay *r, const struct sws_replay_source *src)
{
	int err = 0;
	if (!r || !src || !src->next || r->ran)
		return SWS_EINVAL;
	r->ran = true;
	r->errmsg[0] = 0;
	err = sws_cpu_attach(r->sim, &r->disp.cpu);
	if (err)
		return err;
	if (r->nthreads == 1) {
		r->workers[0].cpu = r->disp.cpu;
	} else if ((err = start_workers(r))) {
		snprintf(r->errmsg, sizeof(r->errmsg), "cannot start worker threads: %s",
			 sws_strerror(err));
		goto out;
	}
	r->start_ns = sws__replay_now(r);
	for (;;) {
		struct sws_trace_record rec;
		int rc = src->next(src->ctx, &rec);
		if (rc == 0)
			break;
		if (rc < 0) {
			const char *m = src->error ? src->error(src->ctx) : NULL;
			snprintf(r->errmsg, sizeof(r->errmsg), "%s", m && *m ? m : sws_strerror(rc));
			err = rc;
			break;
		}
		if ((err = dispatch(r, &rec))) {
			snprintf(r->errmsg, sizeof(r->errmsg), "replay: %s", sws_strerror(err));
			break;
		}
		r->events++;
		if (r->cfg.sample && r->events % r->cfg.sample_every == 0)
			take_sample(r);
		if (r->cfg.progress && r->events % r->cfg.progress_every == 0 &&
		    r->cfg.progress(r->cfg.cb_ctx, r->events)) {
			r->interrupted = true;
			break;
		}
	}
	drain(r);
	if (r->nthreads == 1)
		deferred(&r->workers[0]);
	if (r->cfg.sample && (r->events % r->cfg.sample_every != 0 || !r->events))
		take_sample(r);
out:
	stop_workers(r);
	r->wall_ns = sws__replay_now(r) - r->start_ns;
	sws_cpu_detach(r->disp.cpu);
	r->disp.cpu = NULL;
	if (r->nthreads == 1)
		r->workers[0].cpu = NULL;
	return err;
}

static void set_latency(struct sws_replay *r, int type, const struct sws_replay_swap *sw)
{
	uint64_t rd = sw->read_ns, wr = sw->write_ns;
	if (sw->kind == SWS_REPLAY_SWAP_PMEM) {
		rd = rd ? rd : 1000;
		wr = wr ? wr : 2000;
	} else if (sw->kind == SWS_REPLAY_SWAP_SATA) {
		rd = rd ? rd : 100000;
		wr = wr ? wr : 60000;
	}
	if (rd || wr) {
		/* Only one of the two given: keep the kind's default for the other. */
		if (!rd || !wr) {
			static const uint64_t def[][2] = {{20000, 25000}, {5000000, 5000000},
							  {2000, 3000}, {1000, 2000}, {100000, 60000}};
			rd = rd ? rd : def[sw->kind][0];
			wr = wr ? wr : def[sw->kind][1];
		}
		sws_mm_set_latency(r->mm, type, rd, wr);
	}
}

static void create_error(const struct sws_replay_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void create_error(const struct sws_replay_config *cfg, const char *fmt, ...)
{
	if (!cfg->errbuf || !cfg->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cfg->errbuf, cfg->errlen, fmt, ap);
	va_end(ap);
}

int sws_replay_create(const struct sws_replay_config *cfg, struct sws_replay **out)
{
	struct sws_mem tmp;
	struct sws_replay *r;
	int err;

	if (!cfg || !out)
		return SWS_EINVAL;
	*out = NULL;
	if (cfg->version > SWS_REPLAY_CONFIG_VERSION)
		return SWS_EVERSION;
	if (cfg->threads > MAX_THREADS || (cfg->ram_pages && cfg->ram_pages < 64) ||
	    (cfg->queue_depth && cfg->queue_depth < 64) || cfg->nr_swap > SWS_REPLAY_MAX_SWAP ||
	    (cfg->sample && !cfg->sample_every) || (cfg->flags & ~(SWS_REPLAY_VERIFY | SWS_REPLAY_ZSWAP | SWS_REPLAY_READ_POPULATES)))
		return SWS_EINVAL;
	for (uint32_t i = 0; i < cfg->nr_swap; i++)
		if ((unsigned)cfg->swap[i].kind >= SWS_REPLAY_NR_SWAP_KINDS || cfg->swap[i].reserved ||
		    (cfg->swap[i].file_flags & ~(SWS_BACKING_REUSE | SWS_BACKING_FOLLOW)) ||
		    cfg->swap[i].prio < -1 || cfg->swap[i].prio > 32767 ||
		    cfg->swap[i].pages == 1 ||
		    (cfg->swap[i].kind == SWS_REPLAY_SWAP_XSWAP
			     ? cfg->swap[i].pages || cfg->swap[i].path || cfg->swap[i].read_ns || cfg->swap[i].write_ns
			     : cfg->swap[i].limit_pages != 0))
			return SWS_EINVAL;
	if (cfg->env && cfg->env->version > SWS_ENV_VERSION)
		return SWS_EVERSION;
	if (cfg->errbuf && cfg->errlen)
		cfg->errbuf[0] = 0;

	sws__mem_init(&tmp, cfg->env ? &cfg->env->allocator : NULL);
	r = sws__mem_zalloc(&tmp, SWS_MEM_sim, sizeof(*r), 64);
	if (!r)
		return SWS_ENOMEM;
	sws__mem_init(&r->mem, cfg->env ? &cfg->env->allocator : NULL);
	atomic_store(&r->mem.bytes[SWS_MEM_sim], (int64_t)sizeof(*r));
	r->cfg = *cfg;
	if (cfg->env) {
		r->env = *cfg->env;
		r->cfg.env = &r->env;
		r->has_env = true;
	}
	r->nthreads = cfg->threads ? cfg->threads : 1;
	if (!r->cfg.ram_pages)
		r->cfg.ram_pages = DEFAULT_RAM_PAGES;
	if (!r->cfg.deferred_every)
		r->cfg.deferred_every = DEFAULT_DEFERRED;
	if (!r->cfg.kswapd_budget)
		r->cfg.kswapd_budget = DEFAULT_KSWAPD;
	if (!r->cfg.queue_depth)
		r->cfg.queue_depth = DEFAULT_QUEUE;
	if (!r->cfg.progress_every)
		r->cfg.progress_every = DEFAULT_PROGRESS;
	if (!r->cfg.nr_swap) {
		r->cfg.nr_swap = 1;
		r->cfg.swap[0] = (struct sws_replay_swap){.kind = SWS_REPLAY_SWAP_SSD, .prio = -1};
	}

	r->workers = sws__mem_zalloc(&r->mem, SWS_MEM_sim, r->nthreads * sizeof(*r->workers), 64);
	if (!r->workers) {
		err = SWS_ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < r->nthreads; i++)
		worker_init(r, &r->workers[i], i);
	worker_init(r, &r->disp, r->nthreads);

	struct sws_sim_config scfg = {.version = SWS_SIM_CONFIG_VERSION,
				      .backend = cfg->backend,
				      .max_cpus = r->nthreads + 2,
				      .env = cfg->env};
	if ((err = sws_sim_create(&scfg, &r->sim)))
		goto fail;
	int *types = r->types;
	for (uint32_t i = 0; i < r->cfg.nr_swap; i++) {
		const struct sws_replay_swap *sw = &r->cfg.swap[i];
		if (sw->kind == SWS_REPLAY_SWAP_XSWAP)
			continue; /* after zswap, below */
		static const uint32_t kind_flags[] = {
			SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD, 0,
			SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO,
			SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO,
			SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD};
		struct sws_device_config dc = {
			.version = SWS_DEVICE_CONFIG_VERSION,
			.flags = kind_flags[sw->kind] | (sw->prio >= 0 ? SWS_SWAP_FLAG_PREFER : 0),
			.nr_slots = sw->pages ? sw->pages : 2 * r->cfg.ram_pages,
			.prio = sw->prio >= 0 ? sw->prio : 0,
			.backing = sw->path ? SWS_BACKING_FILE
					    : (cfg->flags & SWS_REPLAY_VERIFY) ? SWS_BACKING_MEMORY
									       : SWS_BACKING_NONE,
			.path = sw->path,
			.backing_flags = sw->file_flags};
		if ((err = sws_swapon(r->sim, &dc, &types[i]))) {
			create_error(cfg, "swap device %u: %s", i + 1, sws_sim_error(r->sim));
			goto fail;
		}
	}
	struct sws_mm_config mc = {.version = SWS_MM_CONFIG_VERSION,
				   .policy = cfg->policy,
				   .ram_pages = r->cfg.ram_pages,
				   .page_cluster = cfg->page_cluster,
				   .flags = ((cfg->flags & SWS_REPLAY_VERIFY) ? SWS_MM_VERIFY : 0) |
					    ((cfg->flags & SWS_REPLAY_READ_POPULATES) ? SWS_MM_READ_POPULATES : 0),
				   .seed = cfg->seed};
	memcpy(mc.content_weight, cfg->content_weight, sizeof(mc.content_weight));
	if ((err = sws_mm_create(r->sim, &mc, &r->mm)))
		goto fail;
	for (uint32_t i = 0; i < r->cfg.nr_swap; i++)
		if (r->cfg.swap[i].kind != SWS_REPLAY_SWAP_XSWAP)
			set_latency(r, types[i], &r->cfg.swap[i]);
	if (cfg->mem_limit_pages && (err = sws_mm_memcg_create(r->mm, cfg->mem_limit_pages, &r->memcg)))
		goto fail;
	if ((cfg->flags & SWS_REPLAY_ZSWAP) && (err = sws_mm_zswap_enable(r->mm, &cfg->zswap)))
		goto fail;
	for (uint32_t i = 0; i < r->cfg.nr_swap; i++) { /* xswap devices live in zswap */
		const struct sws_replay_swap *sw = &r->cfg.swap[i];
		if (sw->kind != SWS_REPLAY_SWAP_XSWAP)
			continue;
		if ((err = sws_mm_xswap_create(r->mm, sw->prio, &types[i])))
			goto fail;
		if (sw->limit_pages && (err = sws_xswap_limit_set(r->sim, types[i], sw->limit_pages)))
			goto fail;
	}
	*out = r;
	return 0;
fail:
	sws_replay_destroy(r);
	return err;
}

void sws_replay_destroy(struct sws_replay *r)
{
	if (!r)
		return;
	stop_workers(r);
	sws_mm_destroy(r->mm);
	sws_sim_destroy(r->sim);
	if (r->workers) {
		for (unsigned i = 0; i < r->nthreads; i++) {
			struct sws__worker *w = &r->workers[i];
			if (w->ring) {
				sws__mem_free(&r->mem, SWS_MEM_sim, w->ring, w->cap * sizeof(*w->ring));
				pthread_mutex_destroy(&w->lock);
				pthread_cond_destroy(&w->not_empty);
				pthread_cond_destroy(&w->not_full);
				pthread_cond_destroy(&w->idle);
			}
		}
		sws__mem_free(&r->mem, SWS_MEM_sim, r->workers, r->nthreads * sizeof(*r->workers));
	}
	sws__mem_free(&r->mem, SWS_MEM_sim, r->procs, r->procs_cap * sizeof(*r->procs));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->tids, r->tids_cap * sizeof(*r->tids));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->pidmap_key, r->pidmap_cap * sizeof(uint32_t));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->pidmap_val, r->pidmap_cap * sizeof(uint32_t));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->tidmap_key, r->tidmap_cap * sizeof(uint32_t));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->tidmap_val, r->tidmap_cap * sizeof(uint32_t));
	struct sws_mem m = {.a = r->mem.a};
	sws__mem_free(&m, SWS_MEM_sim, r, sizeof(*r));
}

struct sws_sim *sws_replay_sim(struct sws_replay *r) { return r ? r->sim : NULL; }
struct sws_mm *sws_replay_mm(struct sws_replay *r) { return r ? r->mm : NULL; }
const char *sws_replay_error(const struct sws_replay *r) { return r ? r->errmsg : ""; }

int sws_replay_report(struct sws_replay *r, struct sws_replay_report *out)
{
	if (!r || !out)
		return SWS_EINVAL;
	memset(out, 0, sizeof(*out));
	out->backend = sws_sim_backend(r->sim);
	out->threads = r->nthreads;
	out->events = r->events;
	out->wall_ns = r->wall_ns;
	out->events_per_sec = r->wall_ns ? (double)r->events * 1e9 / (double)r->wall_ns : 0;
	out->interrupted = r->interrupted;
	out->nr_tasks = r->nprocs;
	for (unsigned i = 0; i <= r->nthreads; i++) {
		const struct sws__worker *w = i < r->nthreads ? &r->workers[i] : &r->disp;
		out->accesses += w->accesses;
		out->errors += w->errors;
		out->verify_failures += w->verify_failures;
		if (!out->first_error)
			out->first_error = w->first_error;
		for (unsigned l = 0; l < SWS_REPLAY_NR_LAT; l++)
			sws__hist_merge(&out->latency[l], &w->lat[l]);
	}
	sws_mm_stats(r->mm, &out->mm);
	sws_mm_zswap_memcg_stats(r->mm, r->memcg, &out->memcg_zswap_bytes, &out->memcg_zswapped_bytes);
	/* Swap-out latency: every folio the mm swapped out, direct reclaim and kswapd alike. */
	struct sws_replay_hist *so = &out->latency[SWS_REPLAY_LAT_SWAPOUT];
	memset(so, 0, sizeof(*so));
	for (unsigned b = 0; b < SWS_REPLAY_HIST_BUCKETS && b < SWS_MM_LAT_BUCKETS; b++)
		so->bucket[b] = out->mm.swapout_lat[b];
	so->count = out->mm.swapout_count;
	so->sum_ns = out->mm.swapout_sum_ns;
	so->max_ns = out->mm.swapout_max_ns;
	for (uint32_t i = 0; i < r->cfg.nr_swap; i++) {
		struct sws_device_info di;
		struct sws_replay_device *d = &out->devices[out->nr_devices++];
		d->type = r->types[i];
		d->kind = r->cfg.swap[i].kind;
		if (sws_device_info(r->sim, r->types[i], &di))
			continue;
		d->pages = di.pages;
		d->inuse_pages = di.inuse_pages;
		d->write_errors = di.write_errors;
		d->write_errno = di.write_errno;
		d->write_failed = di.write_failed;
	}
	sws_sim_quiesce(r->sim);
	sws_stats_snapshot(r->sim, &out->swap);
	sws_sim_memory_usage(r->sim, &out->memory);
	return 0;
}

uint32_t sws_replay_nr_tasks(const struct sws_replay *r) { return r ? r->nprocs : 0; }

int sws_replay_task(const struct sws_replay *r, uint32_t i, struct sws_replay_task *out)
{
	if (!r || !out || i >= r->nprocs)
		return SWS_EINVAL;
	const struct sws__proc *p = &r->procs[i];
	out->pid = p->pid;
	out->asid = p->asid;
	out->accesses = atomic_load_explicit(&p->accesses, memory_order_relaxed);
	out->access_ns = atomic_load_explicit(&p->access_ns, memory_order_relaxed);
	out->reads = atomic_load_explicit(&p->reads, memory_order_relaxed);
	out->read_ns = atomic_load_explicit(&p->read_ns, memory_order_relaxed);
	out->init_ns = atomic_load_explicit(&p->init_ns, memory_order_relaxed);
	out->free_ns = atomic_load_explicit(&p->free_ns, memory_order_relaxed);
	out->exited = p->asid == SWS__NO_ASID;
	return 0;
}
