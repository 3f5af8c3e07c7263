/*
 * dispatch.c - the run loop: the caller's thread reads the source and
 * dispatches records to worker threads standing for CPUs.
 *
 * HOW IT WORKS
 *
 * The caller's thread is the dispatcher. It reads the source one record at a
 * time and sorts records in two kinds:
 *
 *  - per-task records (ACCESS, MADV_PAGEOUT, MADV_DONTNEED, MADV_FREE, RECLAIM)
 *    touch one address space (or reclaim, which the mm serialises itself). They go to
 *    worker (cpu % N), or (tid % N) when the record has no CPU, through a
 *    bounded FIFO ring per worker. The dispatcher stages SWS__STAGE records per
 *    worker before taking the ring's lock once, and blocks when a ring is full,
 *    so memory stays bounded whatever the trace length.
 *
 *  - structural records (FORK, EXIT, EXEC, MMAP, MUNMAP) change which address
 *    spaces exist or what is mapped, and a later record of *another* task may depend
 *    on them (a fork creates the child's address space; a thread of the same
 *    process may touch what another thread mapped). The dispatcher drains every
 *    queue (each worker idle with an empty ring) and runs the record itself, on
 *    its own CPU. The first record of a pid never seen is handled the same way:
 *    drain, create its address space, then dispatch it. An EXEC is the EXIT
 *    of the pid's address space (record.c's exit path: its time is the old
 *    life's free phase) followed by what the first record of a new pid does:
 *    an empty address space, a new incarnation of the pid; an EXEC of a pid
 *    never seen only creates it.
 *
 * Ordering: a tid's records keep trace order because they go to one FIFO ring
 * and one worker runs a ring in order. When a task's records start naming
 * another CPU, the dispatcher flushes the old worker's staging batch and waits
 * until the tid's done count (bumped by workers with release order) equals what
 * it enqueued, then sends the record to the new worker. Structural records are
 * totally ordered with everything by the drain.
 *
 * Per-task streams: where the source says its next records are independent
 * streams of separate processes (source.streams()), and several threads run
 * without samples, the dispatcher drains, creates each stream's process from
 * its first record, and hands the streams to the workers (a stream to the
 * worker its tid maps to); each worker reads its streams itself, round robin
 * SWS__STAGE records a turn, and runs them, the stream's MMAP, MUNMAP and
 * EXIT included (they touch only its own process). The dispatcher waits,
 * calling progress() every 50 ms, and goes on with next() when every
 * stream is through.
 *
 * Determinism: with threads == 1 no thread is started: the dispatcher runs each
 * record inline on its only CPU, so the order of every mm call is the trace
 * order and nothing depends on timing (deferred work runs every K records, not
 * every K microseconds).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "replay_internal.h"

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
void sws__drain(struct sws_replay *r)
{
	if (r->model) {
		sws__sched_drain(r);
		return;
	}
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

/* ---- per-task streams: the worker's side --------------------------------------------- */

static bool is_structural(uint32_t op)
{
	return op == SWS_TRACE_FORK || op == SWS_TRACE_EXIT || op == SWS_TRACE_EXEC ||
	       op == SWS_TRACE_MMAP || op == SWS_TRACE_MUNMAP || op == SWS_TRACE_MADV_HUGEPAGE ||
	       op == SWS_TRACE_MADV_NOHUGEPAGE;
}

/* Record @rec of stream @st on worker @w: its process's, no FORK or EXEC,
 * nothing after its EXIT; anything else is an error of the record. */
static void stream_record(struct sws__worker *w, const struct sws__stream *st, const struct sws_trace_record *rec)
{
	struct sws_replay *r = w->r;
	sws__rec_at(w, rec, 0);
	if (st->proc == UINT32_MAX) {
		sws__note_error(w, st->refused);
		return;
	}
	const struct sws__proc *p = &r->procs[st->proc];
	if (rec->pid != p->pid || p->asid == SWS__NO_ASID || rec->op < SWS_TRACE_ACCESS ||
	    rec->op > SWS_TRACE_OP_MAX || rec->op == SWS_TRACE_FORK || rec->op == SWS_TRACE_EXEC) {
		sws__note_error(w, SWS_EINVAL);
		return;
	}
	if (is_structural(rec->op)) {
		sws__rec_begin(w);
		sws__run_structural(r, w, rec, st->proc);
		sws__rec_end(w);
		w->cur_rec = NULL;
		return;
	}
	struct sws__item it = {.rec = *rec, .asid = p->asid, .proc = st->proc};
	sws__run_item(w, &it);
}

/* Run @w's streams to their ends, round robin, SWS__STAGE records a turn. */
void sws__run_streams(struct sws__worker *w)
{
	struct sws_replay *r = w->r;
	const struct sws_replay_source *src = r->src;
	for (bool more = true; more && !atomic_load_explicit(&r->streams_stop, memory_order_relaxed);) {
		more = false;
		for (uint32_t i = 0; i < r->nstreams; i++) {
			struct sws__stream *st = &r->streams[i];
			if (st->worker != w->idx || st->through)
				continue;
			uint64_t n = 0;
			for (; n < SWS__STAGE; n++) {
				struct sws_trace_record rec;
				if (st->has_first) {
					rec = st->first;
					st->has_first = false;
				} else {
					int rc = src->stream(src->ctx, st->s, &rec);
					if (rc <= 0) {
						st->through = true;
						st->err = rc;
						if (rc < 0)
							atomic_store_explicit(&r->streams_stop, true, memory_order_relaxed);
						break;
					}
				}
				stream_record(w, st, &rec);
			}
			atomic_fetch_add_explicit(&w->stream_events, n, memory_order_relaxed);
			more |= !st->through;
		}
	}
}

/* ---- workers ------------------------------------------------------------------------ */

static void *worker_main(void *arg)
{
	struct sws__worker *w = arg;
	struct sws_replay *r = w->r;
	struct sws__item buf[SWS__TAKE];
	int err = sws_cpu_attach(r->sim, &w->cpu);
	if (!err)
		sws__clock_sync(r, w);

	pthread_mutex_lock(&w->lock);
	w->attach_err = err;
	w->busy = false;
	pthread_cond_broadcast(&w->idle);
	pthread_mutex_unlock(&w->lock);
	if (err)
		return NULL;
	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->count && !w->stop && !w->streams) {
			if (w->busy) {
				w->busy = false;
				pthread_cond_broadcast(&w->idle);
			}
			pthread_cond_wait(&w->not_empty, &w->lock);
		}
		if (w->streams) {
			w->streams = false;
			w->busy = true;
			pthread_mutex_unlock(&w->lock);
			sws__run_streams(w);
			continue;
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
		/* A tid's done count moves once per run of its records in the batch:
		 * the dispatcher writes the same cache line for every record. */
		for (uint32_t i = 0, run = 0; i < k; i++) {
			sws__run_item(w, &buf[i]);
			run++;
			if (i + 1 == k || buf[i + 1].tid != buf[i].tid) {
				atomic_fetch_add_explicit(&r->tids[buf[i].tid].done, run, memory_order_release);
				run = 0;
			}
		}
	}
	sws__deferred(w);
	sws_mm_lru_add_drain(w->cpu, r->mm); /* a CPU going offline: lru_add_drain_cpu() */
	sws_cpu_detach(w->cpu);
	w->cpu = NULL;
	return NULL;
}

/* ---- dispatch ----------------------------------------------------------------------- */

/* The worker that runs structural records and counts dispatcher-side errors. */
static struct sws__worker *struct_worker(struct sws_replay *r)
{
	return r->nthreads == 1 ? &r->workers[0] : &r->disp;
}

/* A new incarnation of @pid with an empty address space (workers drained), in
 * @memcg, or (-1) in the replay's memcg or, with SWS_REPLAY_MEMCG_PER_TASK, a
 * new one of its own. @return 0 with *pidx set, 1 when the model refused it
 * (counted; *refused, when given, says why), or an error. */
static int proc_new(struct sws_replay *r, struct sws__worker *sw, uint32_t pid, int memcg, int64_t *pidx,
		    int *refused)
{
	uint32_t asid, idx;
	int err = 0;
	if (memcg < 0 && (r->cfg.flags & SWS_REPLAY_MEMCG_PER_TASK)) {
		uint16_t id;
		err = sws_mm_memcg_create(r->mm, r->cfg.mem_limit_pages, &id);
		if (!err)
			err = sws_mm_memcg_set_high(r->mm, id, r->cfg.mem_high_pages);
		if (!err)
			err = sws_mm_memcg_set_swap_tiers(r->mm, id, r->memcg_tiers);
		memcg = id;
	} else if (memcg < 0) {
		memcg = r->memcg;
	}
	if (!err)
		err = sws_mm_space_create(r->mm, (uint16_t)memcg, &asid);
	if (err) {
		sws__note_error(sw, err);
		if (refused)
			*refused = err;
		return err == SWS_ENOMEM ? err : 1;
	}
	err = sws__proc_add(r, pid, asid, (uint16_t)memcg, &idx);
	if (err) {
		/* Undo the replay's own step: no task ran, so its time is
		 * charged to nobody (not to the next task, not to kswapd). */
		sws_mm_exit(sw->cpu, r->mm, asid);
		sws__clock_skip(r, sw);
		return err;
	}
	*pidx = idx;
	return 0;
}

/* EXEC of live process @pidx: its address space exits through the EXIT path
 * (the hook, called for the EXEC itself, does not see that EXIT). */
static void exec_exit(struct sws_replay *r, struct sws__worker *sw,
		      const struct sws_trace_record *rec, uint32_t pidx)
{
	struct sws_trace_record ex = *rec;
	void (*hook)(void *, unsigned, const struct sws_trace_record *) = r->cfg.on_record;
	ex.op = SWS_TRACE_EXIT;
	r->cfg.on_record = NULL; /* every worker is idle (drained): none reads it meanwhile */
	sws__run_structural(r, sw, &ex, pidx);
	r->cfg.on_record = hook;
}

/* The worker (CPU) that runs @rec's task: the record's CPU, or with none its
 * tid, modulo the workers; under the modelled clock a task stays on the CPU
 * it started on. */
static unsigned worker_of(struct sws_replay *r, const struct sws_trace_record *rec)
{
	uint32_t idx;
	if (r->model && !sws__tid_slot(r, rec->tid, &idx) && r->tids[idx].enqueued)
		return r->tids[idx].worker;
	return (rec->cpu == SWS_TRACE_CPU_ANY ? rec->tid : rec->cpu) % r->nthreads;
}

static int dispatch_barrier(struct sws_replay *r, struct sws__worker *sw, const struct sws_trace_record *rec,
			    int64_t pidx)
{
	if (rec->op == SWS_TRACE_EXEC) {
		if (r->cfg.on_record)
			r->cfg.on_record(r->cfg.cb_ctx, r->nthreads, rec);
		int memcg = pidx >= 0 ? r->procs[pidx].memcg : -1; /* exec keeps the cgroup */
		if (pidx >= 0)
			exec_exit(r, sw, rec, (uint32_t)pidx);
		int err = proc_new(r, sw, rec->pid, memcg, &pidx, NULL);
		return err == 1 ? 0 : err;
	}
	if (pidx < 0) {
		int err = proc_new(r, sw, rec->pid, -1, &pidx, NULL);
		if (err)
			return err == 1 ? 0 : err;
	}
	if (is_structural(rec->op)) {
		sws__run_structural(r, sw, rec, (uint32_t)pidx);
		/* Every worker is idle: the exited processes' address-space
		 * descriptors may go (a run of short-lived processes kept
		 * 4.2 KiB each); what a task keeps is its entry in procs[]. */
		sws_mm_spaces_trim(r->mm, SWS__TRIM_EXITED);
		return 0;
	}
	return 1; /* a first record that is per-task: dispatch it as one */
}

static int dispatch(struct sws_replay *r, const struct sws_trace_record *rec)
{
	if (rec->op < SWS_TRACE_ACCESS || rec->op > SWS_TRACE_OP_MAX) {
		struct sws__worker *sw = struct_worker(r);
		sws__rec_at(sw, rec, r->pos);
		sws__note_error(sw, SWS_EINVAL);
		sw->cur_rec = NULL;
		return 0;
	}
	int64_t pidx = sws__proc_find(r, rec->pid);
	if (pidx < 0 || is_structural(rec->op)) {
		struct sws__worker *sw = struct_worker(r);
		sws__drain(r);
		if (r->model)
			sw = sws__replay_enter(r, worker_of(r, rec));
		sws__rec_at(sw, rec, r->pos);
		int rc = dispatch_barrier(r, sw, rec, pidx);
		sw->cur_rec = NULL;
		if (r->model)
			sws__replay_leave(r, sw);
		if (rc <= 0)
			return rc;
		pidx = sws__proc_find(r, rec->pid);
	}
	if (r->nthreads == 1 && !r->model) {
		struct sws__item it = {.rec = *rec, .asid = r->procs[pidx].asid, .proc = (uint32_t)pidx, .pos = r->pos};
		sws__run_item(&r->workers[0], &it);
		return 0;
	}
	uint32_t tidx;
	int err = sws__tid_slot(r, rec->tid, &tidx);
	if (err)
		return err;
	struct sws__tid *t = &r->tids[tidx];
	unsigned wi = r->model && t->enqueued ? t->worker : worker_of(r, rec);
	if ((r->cfg.flags & SWS_REPLAY_TRACE_ORDER) && wi != r->order_worker) {
		sws__drain(r); /* the trace's order: every earlier record has run */
		r->order_worker = wi;
	}
	if (t->enqueued && t->worker != wi) {
		/* The task moved CPU: its earlier records must run first. */
		flush(&r->workers[t->worker]);
		while (atomic_load_explicit(&t->done, memory_order_acquire) != t->enqueued)
			sched_yield();
	}
	t->worker = wi;
	t->enqueued++;
	struct sws__worker *w = &r->workers[wi];
	/* The item is written where it waits: the CPU's ring (run while it is
	 * full), or the worker's staging batch. */
	struct sws__item *it = r->model ? sws__sched_slot(r, w) : &w->stage[w->nstage];
	*it = (struct sws__item){.rec = *rec, .asid = r->procs[pidx].asid, .proc = (uint32_t)pidx, .tid = tidx,
				 .pos = r->pos};
	if (r->model)
		sws__sched_queued(w);
	else if (++w->nstage == SWS__STAGE)
		flush(w);
	return 0;
}

/* ---- per-task streams: the dispatcher's side ----------------------------------------- */

uint64_t sws__streamed(struct sws_replay *r)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < r->nthreads; i++)
		n += atomic_load_explicit(&r->workers[i].stream_events, memory_order_relaxed);
	return n;
}

/* Wait until every worker is through its streams, calling progress() every 50 ms. */
static void streams_wait(struct sws_replay *r)
{
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		pthread_mutex_lock(&w->lock);
		while (w->streams || w->busy || w->count) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 50 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (pthread_cond_timedwait(&w->idle, &w->lock, &ts) != ETIMEDOUT || !r->cfg.progress)
				continue;
			pthread_mutex_unlock(&w->lock);
			if (!r->interrupted && r->cfg.progress(r->cfg.cb_ctx, r->events + sws__streamed(r))) {
				r->interrupted = true;
				atomic_store_explicit(&r->streams_stop, true, memory_order_relaxed);
			}
			pthread_mutex_lock(&w->lock);
		}
		pthread_mutex_unlock(&w->lock);
	}
}

/* A record no stream may carry (not one of its process's own). */
static bool stream_op_ok(uint32_t op)
{
	return op >= SWS_TRACE_ACCESS && op <= SWS_TRACE_OP_MAX && op != SWS_TRACE_FORK && op != SWS_TRACE_EXEC;
}

/*
 * The source's next records are @n per-task streams: create each stream's
 * process from its first record (workers drained), let every worker run its
 * streams, wait for them. A first record no stream may carry is an error of
 * that record (the next one is the stream's first); a stream of a pid that an
 * earlier stream of the section has is refused, each of its records an error
 * (two workers would run one process). @return 0 or an error, *@source set
 * when it is the source's.
 */
static int run_streams_all(struct sws_replay *r, const struct sws_replay_source *src, uint32_t n, bool *source)
{
	*source = false;
	sws__drain(r);
	if (n > r->streams_cap) {
		struct sws__stream *a = sws__mem_alloc(&r->mem, SWS_MEM_sim, (size_t)n * sizeof(*a), 0);
		if (!a)
			return SWS_ENOMEM;
		sws__mem_free(&r->mem, SWS_MEM_sim, r->streams, r->streams_cap * sizeof(*r->streams));
		r->streams = a;
		r->streams_cap = n;
	}
	r->nstreams = 0;
	for (uint32_t s = 0; s < n; s++) {
		struct sws__stream *st = &r->streams[r->nstreams];
		memset(st, 0, sizeof(*st));
		int rc;
		while ((rc = src->stream(src->ctx, s, &st->first)) == 1 && !stream_op_ok(st->first.op)) {
			sws__rec_at(&r->disp, &st->first, 0);
			sws__note_error(&r->disp, SWS_EINVAL);
			r->events++;
		}
		if (rc < 0) {
			*source = true;
			return rc;
		}
		if (!rc)
			continue;
		st->s = s;
		st->has_first = true;
		st->worker = (st->first.cpu == SWS_TRACE_CPU_ANY ? st->first.tid : st->first.cpu) % r->nthreads;
		int64_t pidx = sws__proc_find(r, st->first.pid);
		st->proc = UINT32_MAX;
		if (pidx >= 0 && r->procs[pidx].section == r->section) {
			st->refused = SWS_EINVAL; /* another stream's process */
		} else if (pidx < 0) {
			sws__rec_at(&r->disp, &st->first, 0);
			int err = proc_new(r, &r->disp, st->first.pid, -1, &pidx, &st->refused);
			if (err < 0)
				return err;
			if (err) { /* the model refused the process (counted with its first record) */
				st->has_first = false;
				r->events++;
			}
		}
		if (!st->refused) {
			st->proc = (uint32_t)pidx;
			r->procs[pidx].section = r->section;
		}
		r->nstreams++;
	}
	r->src = src;
	atomic_store_explicit(&r->streams_stop, false, memory_order_relaxed);
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		atomic_store_explicit(&w->stream_events, 0, memory_order_relaxed);
		if (r->model)
			continue; /* sws__sched_streams() hands them out */
		pthread_mutex_lock(&w->lock);
		w->streams = true;
		pthread_cond_signal(&w->not_empty);
		pthread_mutex_unlock(&w->lock);
	}
	if (r->model)
		sws__sched_streams(r);
	else
		streams_wait(r);
	r->events += sws__streamed(r);
	r->section++;
	for (uint32_t i = 0; i < r->nstreams; i++)
		if (r->streams[i].err < 0) {
			*source = true;
			return r->streams[i].err;
		}
	return 0;
}

static void take_sample(struct sws_replay *r)
{
	struct sws_replay_sample s;
	uint64_t total, free;
	memset(&s, 0, sizeof(s));
	sws__drain(r); /* a cut: the workers' histograms and counters hold still */
	s.events = r->events;
	s.time_ns = r->model ? sws__sched_gvt(&r->sched) / 1000 : sws__replay_now(r) - r->start_ns;
	sws_mm_stats_get(r->mm, &s.mm);
	sws_swap_totals(r->sim, &total, &free);
	s.swap_used = total - free;
	for (uint32_t i = 0; i < r->cfg.nr_swap; i++) {
		struct sws_xswap_info xi;
		if (r->cfg.swap[i].kind != SWS_REPLAY_SWAP_XSWAP ||
		    sws_xswap_info_get(r->sim, r->types[i], &xi))
			continue;
		s.xswap_inuse_pages += xi.inuse_pages;
		s.xswap_mapped_clusters += xi.nr_clusters_mapped;
		s.arena_mapped_bytes += xi.arena_mapped_bytes;
		s.arena_resident_bytes += xi.arena_resident_bytes;
	}
	s.zswap_pool_bytes = s.mm.pool_total_size;
	struct sws_memory_usage mu;
	sws_sim_memory_usage(r->sim, &mu);
	s.metadata_static_bytes = mu.static_bytes;
	s.metadata_dynamic_bytes = mu.dynamic_bytes;
	/* The faults since the last sample: the merged histogram less the last one. */
	struct sws_replay_hist all, d;
	memset(&all, 0, sizeof(all));
	for (unsigned i = 0; i <= r->nthreads; i++)
		sws__hist_merge(&all, &(i < r->nthreads ? &r->workers[i] : &r->disp)->lat[SWS_REPLAY_LAT_FAULT]);
	memset(&d, 0, sizeof(d));
	d.count = all.count - r->sample_fault.count;
	d.sum_ns = all.sum_ns - r->sample_fault.sum_ns;
	d.max_ns = all.max_ns; /* the run's: the p99 below is capped by it, never above */
	for (unsigned b = 0; b < SWS_REPLAY_HIST_BUCKETS; b++)
		d.bucket[b] = all.bucket[b] - r->sample_fault.bucket[b];
	r->sample_fault = all;
	s.fault_count = d.count;
	s.fault_mean_ns = d.count ? d.sum_ns / d.count : 0;
	s.fault_p99_ns = d.count ? sws_replay_hist_quantile(&d, 0.99) : 0;
	r->cfg.sample(r->cfg.cb_ctx, &s);
}

/* ---- the run ------------------------------------------------------------------------ */

int sws__worker_ring(struct sws_replay *r, struct sws__worker *w)
{
	w->cap = r->cfg.queue_depth;
	w->nslots = w->cap + (r->model ? 1 : 0);
	w->ring = sws__mem_alloc(&r->mem, SWS_MEM_sim, w->nslots * sizeof(*w->ring), 64);
	return w->ring ? 0 : SWS_ENOMEM;
}

static int start_workers(struct sws_replay *r)
{
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		if (sws__worker_ring(r, w))
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
	sws__drain(r); /* waits for every attach */
	for (unsigned i = 0; i < r->nthreads; i++)
		if (r->workers[i].attach_err)
			return r->workers[i].attach_err;
	return 0;
}

void sws__stop_workers(struct sws_replay *r)
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

/*
 * swapoff(2) of config.swapoff_device at the end of the input, by a task of
 * its own on @w's CPU: its time is its own (swapoff_ns), not any workload
 * task's. A failure (no memory for the pages) is the run's error.
 */
static int run_swapoff(struct sws_replay *r, struct sws__worker *w)
{
	unsigned i = r->cfg.swapoff_device - 1;
	sws__charge_flush(w);
	struct sws_mm_cpu_time t0, t1;
	struct sws_mm_stats s0, s1;
	sws_mm_stats_get(r->mm, &s0);
	sws_mm_cpu_time_get(r->mm, w->cpu, &t0);
	int rc = sws_mm_swapoff(w->cpu, r->mm, r->types[i]);
	sws_mm_cpu_time_get(r->mm, w->cpu, &t1);
	sws_mm_stats_get(r->mm, &s1);
	r->swapoff_oom_kills = s1.counters[SWS_MM_oom_kill] - s0.counters[SWS_MM_oom_kill];
	r->swapoff_sys_ns = t1.sys_ns - t0.sys_ns;
	r->swapoff_ns = r->swapoff_sys_ns + (t1.iowait_ns - t0.iowait_ns);
	r->swapoff_ran = true;
	sws__clock_skip(r, w); /* no task is charged for it */
	if (rc)
		snprintf(r->errmsg, sizeof(r->errmsg), "swapoff of device %u: %s", i + 1, sws_strerror(rc));
	return rc;
}

int sws_replay_run(struct sws_replay *r, const struct sws_replay_source *src)
{
	int err = 0;
	if (!r || !src || !src->next || r->ran)
		return SWS_EINVAL;
	r->ran = true;
	r->section = 1;
	r->errmsg[0] = 0;
	err = sws_cpu_attach(r->sim, &r->disp.cpu);
	if (err)
		return err;
	sws__clock_sync(r, &r->disp);
	if (r->model) {
		if ((err = sws__sched_start(r))) {
			snprintf(r->errmsg, sizeof(r->errmsg), "cannot start the simulated CPUs: %s",
				 sws_strerror(err));
			goto out;
		}
	} else if (r->nthreads == 1) {
		r->workers[0].cpu = r->disp.cpu;
		sws__clock_sync(r, &r->workers[0]);
	} else if ((err = start_workers(r))) {
		snprintf(r->errmsg, sizeof(r->errmsg), "cannot start worker threads: %s",
			 sws_strerror(err));
		goto out;
	}
	r->position_unit = src->position ? (src->position_unit ? src->position_unit : "line") : "record";
	r->start_ns = sws__replay_now(r);
	/* Records left until the next sample and the next progress call (a
	 * countdown each, UINT64_MAX: none), and until whichever comes first:
	 * one countdown per record, no division. */
	uint64_t sample_left = r->cfg.sample ? r->cfg.sample_every : UINT64_MAX;
	uint64_t progress_left = r->cfg.progress ? r->cfg.progress_every : UINT64_MAX;
	uint64_t step = sample_left < progress_left ? sample_left : progress_left, until = step;
	/* Streams run on the workers: several threads, no samples (cut at record counts). */
	bool streams = r->nthreads > 1 && src->streams && src->stream && !r->cfg.sample;
	for (;;) {
		struct sws_trace_record rec;
		uint32_t n = streams ? src->streams(src->ctx) : 0;
		if (n) {
			bool source;
			int rc = run_streams_all(r, src, n, &source);
			if (rc) {
				const char *m = source && src->error ? src->error(src->ctx) : NULL;
				if (source)
					snprintf(r->errmsg, sizeof(r->errmsg), "%s", m && *m ? m : sws_strerror(rc));
				else
					snprintf(r->errmsg, sizeof(r->errmsg), "replay: %s", sws_strerror(rc));
				err = rc;
				break;
			}
			sws_mm_spaces_trim(r->mm, SWS__TRIM_EXITED); /* the workers are idle */
			if (r->interrupted)
				break;
			streams = r->nstreams != 0; /* a source that says so and gives nothing: next() */
			continue;
		}
		int rc = src->next(src->ctx, &rec);
		if (rc == 0)
			break;
		if (rc < 0) {
			const char *m = src->error ? src->error(src->ctx) : NULL;
			snprintf(r->errmsg, sizeof(r->errmsg), "%s", m && *m ? m : sws_strerror(rc));
			err = rc;
			break;
		}
		r->pos = src->position ? src->position(src->ctx) : r->events + 1;
		if ((err = dispatch(r, &rec))) {
			snprintf(r->errmsg, sizeof(r->errmsg), "replay: %s", sws_strerror(err));
			break;
		}
		r->events++;
		if (sws_likely(--until))
			continue;
		sample_left -= step;
		progress_left -= step;
		if (!sample_left) {
			sample_left = r->cfg.sample_every;
			take_sample(r);
		}
		if (!progress_left) {
			progress_left = r->cfg.progress_every;
			if (r->cfg.progress(r->cfg.cb_ctx, r->events)) {
				r->interrupted = true;
				break;
			}
		}
		step = until = sample_left < progress_left ? sample_left : progress_left;
	}
	sws__drain(r);
	if (r->model) {
		sws__sched_stop(r, true);
	} else if (r->nthreads == 1) {
		sws__deferred(&r->workers[0]);
		sws_mm_lru_add_drain(r->workers[0].cpu, r->mm); /* the run's end, as a worker's */
	}
	if (!err && !r->interrupted && r->cfg.swapoff_device) {
		struct sws__worker *sw = r->model ? sws__replay_enter(r, 0) : r->nthreads == 1 ? &r->workers[0] : &r->disp;
		err = run_swapoff(r, sw);
		sws_mm_lru_add_drain(sw->cpu, r->mm); /* the folios swapoff brought in */
		if (r->model)
			sws__replay_leave(r, sw);
	}
	if (r->cfg.sample && (r->events % r->cfg.sample_every != 0 || !r->events))
		take_sample(r);
out:
	if (r->model)
		sws__sched_free(r);
	else
		sws__stop_workers(r);
	for (unsigned i = 0; i < r->nthreads; i++)
		sws__charge_flush(&r->workers[i]);
	sws__charge_flush(&r->disp);
	r->wall_ns = sws__replay_now(r) - r->start_ns;
	sws_mm_lru_add_drain(r->disp.cpu, r->mm); /* the dispatcher's CPU goes offline */
	sws_cpu_detach(r->disp.cpu);
	r->disp.cpu = NULL;
	if (r->nthreads == 1 && !r->model)
		r->workers[0].cpu = NULL;
	return err;
}

