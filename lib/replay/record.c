/*
 * record.c - what each trace record does to the memory model, and the time
 * it costs its task:
 *
 *   ACCESS [addr, addr+len)        sws_mm_access() per page (its first sws_mm_access_folio()
 *                                  when it names the kernel's folio); user time per page
 *   MADV_PAGEOUT / MADV_DONTNEED / MADV_FREE   sws_mm_madvise()
 *   RECLAIM (len pages, arg memcg) sws_mm_reclaim_lru() (the LRU types its flags name); flag c:
 *                                  sws_mm_reclaim_recorded() (0 pages: a reclaim's begin);
 *                                  v: sws_mm_reclaim_folio_at()
 *   FILE                           sws_mm_file_io()
 *   FORK / EXIT                    sws_mm_fork() / sws_mm_exit()  (structural)
 *   EXEC                           the EXIT path, then a new space (dispatch.c, structural)
 *   MMAP / MUNMAP                  sws_mm_mmap() / sws_mm_munmap() (structural)
 *   MADV_HUGEPAGE / _NOHUGEPAGE    sws_mm_madvise() (structural: it changes regions)
 *
 * Each record's simulated time is the difference of its CPU's clock
 * (sws_mm_cpu_time) before and after it, charged to the record's task; the
 * kernel paths read the host clock once at entry and once at exit, and a hit
 * reads none. Deferred work (kswapd, discards) runs every deferred_every
 * records on the worker's CPU and is charged to no task; so does zswap's
 * shrink worker, right after the record that queued it (a work item).
 */
#include <string.h>

#include "replay_internal.h"

#define SWS__MAX_ACCESS_PAGES (1ull << 24) /* 64 GiB in one ACCESS record */

void sws__note_error(struct sws__worker *w, int rc)
{
	w->errors++;
	if (rc == SWS_ECORRUPT)
		w->verify_failures++;
	if (!w->first_error)
		w->first_error = rc;
	/* The record, once however many of its pages were refused. */
	const struct sws_trace_record *rec = w->cur_rec;
	if (!rec || w->ref_seq == w->cur_seq || w->nref == SWS_REPLAY_MAX_REFUSED)
		return;
	w->ref_seq = w->cur_seq;
	w->ref[w->nref++] = (struct sws_replay_refused){
	    .position = w->cur_pos, .addr = rec->addr, .op = rec->op, .pid = rec->pid, .error = rc};
}

void sws__charge_background(struct sws__worker *w)
{
	struct sws_mm_cpu_time t1;
	sws_mm_cpu_time_get(w->r->mm, w->cpu, &t1);
	w->kswapd.sys_ns += t1.sys_ns - w->seen.sys_ns;
	w->kswapd.sys_modelled_ns += t1.sys_modelled_ns - w->seen.sys_modelled_ns;
	w->kswapd.iowait_ns += t1.iowait_ns - w->seen.iowait_ns;
	w->kswapd.sys_ns += t1.background_ns - w->seen.background_ns;
	w->seen = t1;
}

void sws__deferred(struct sws__worker *w)
{
	struct sws_replay *r = w->r;
	if (r->model) {
		/* kswapd is a thread of its own (sched.c): woken here, it runs on this
		 * CPU between records. The LLC model follows the metadata's size. */
		sws__sched_kswapd_wake(w);
		struct sws_memory_usage mu;
		sws_sim_memory_usage(r->sim, &mu);
		for (unsigned i = 0; i < r->nthreads; i++)
			sws__vt_set_footprint(&r->workers[i].vc, mu.static_bytes + mu.dynamic_bytes);
	} else {
		sws_mm_kswapd(w->cpu, r->mm, r->cfg.kswapd_budget);
	}
	sws_swap_do_deferred_work(r->sim, 64);
	sws__charge_background(w);
	sws__charge_flush(w);
	sws__sample_peaks(r);
	w->since_deferred = 0;
}

/*
 * zswap's shrink worker, queued by a store refused while the pool is full. A
 * queued work item runs as soon as a kworker gets to it, not at the next
 * kswapd step: the worker that ran the record runs it right after, until the
 * pool is at the accept threshold or it gives up, charged to no task.
 */
static void zswap_work(struct sws__worker *w)
{
	sws_mm_zswap_shrink(w->cpu, w->r->mm, UINT64_MAX);
	sws__charge_background(w);
}

static uint16_t reclaim_memcg(const struct sws_replay *r, uint32_t arg, uint32_t pidx)
{
	/* The root, or else the task's memcg (one holds every task, or each has its
	 * own with SWS_REPLAY_MEMCG_PER_TASK): a named memcg is the task's. */
	return arg == SWS_TRACE_MEMCG_ROOT ? 0 : r->procs[pidx].memcg;
}

static uint64_t fault_ns(const struct sws_mm_cpu_time *a, const struct sws_mm_cpu_time *b)
{
	return (b->sys_ns - a->sys_ns) + (b->iowait_ns - a->iowait_ns);
}

/* A latency sample: the virtual time since @t0_ps under the modelled clock
 * (waits for locks included), else sys + iowait between @a and @b. */
static uint64_t lat_ns(const struct sws__worker *w, uint64_t t0_ps, const struct sws_mm_cpu_time *a,
		       const struct sws_mm_cpu_time *b)
{
	return w->r->model ? (w->vc.now - t0_ps) / 1000 : fault_ns(a, b);
}

/* The pages of an ACCESS record, one sws_mm_access() each; a hit reads no clock. */
static void run_access(struct sws__worker *w, const struct sws__item *it)
{
	struct sws_replay *r = w->r;
	const struct sws_trace_record *rec = &it->rec;
	uint64_t first = rec->addr >> 12, last = first;
	if (rec->len) {
		uint64_t end = rec->addr + rec->len - 1;
		if (end < rec->addr || end >> 48 || (end >> 12) - first >= SWS__MAX_ACCESS_PAGES) {
			/* beyond 48-bit addresses, or more than 64 GiB in one record: refuse it
			 * whole rather than walk it page by page */
			sws__note_error(w, SWS_EINVAL);
			return;
		}
		last = end >> 12;
	}
	bool write = rec->flags & SWS_TRACE_F_WRITE, kernel = false;
	struct sws_mm_cpu_time now; /* the CPU's clock after the last fault (kernel) */
	uint64_t refused = 0, t0 = w->vc.now;
	/* the kernel's folio for a traced fault (the perf importer's) */
	uint32_t folio = (rec->flags & SWS_TRACE_F_FOLIO_MASK) >> SWS_TRACE_F_FOLIO_SHIFT;
	if (folio > SWS_NR_ORDERS)
		folio = 0; /* no order of the model's: its own choice */
	for (uint64_t pg = first;; pg++) {
		int rc = folio && pg == first
				 ? sws_mm_access_folio(w->cpu, r->mm, it->asid, pg << 12, write, folio - 1,
						       rec->flags & SWS_TRACE_F_FALLBACK)
				 : sws_mm_access(w->cpu, r->mm, it->asid, pg << 12, write);
		if (rc) { /* a hit charges nothing: only faults go to the fault-path histogram */
			const struct sws_mm_cpu_time before = kernel ? now : w->seen;
			sws_mm_cpu_time_get(r->mm, w->cpu, &now);
			if (rc == 1) {
				sws__hist_add(&w->lat[SWS_REPLAY_LAT_FAULT], lat_ns(w, t0, &before, &now));
			} else {
				sws__note_error(w, rc);
				refused++;
			}
			kernel = true;
		}
		t0 = w->vc.now;
		if (pg == last)
			break;
	}
	uint64_t pages = last - first + 1;
	w->accesses += pages;
	/* User time for the pages the task touched: a refused access (an OOM-killed
	 * task's) touched nothing. */
	sws__charge(w, it->proc, kernel ? &now : NULL, (pages - refused) * r->user_ns_per_page, 0,
		    write ? SWS__PH_ACCESS : SWS__PH_READ);
	w->pend_accesses += pages; /* the task's, pending with its time */
	if (!write)
		w->pend_reads += pages;
}

/* A FILE record: read(2) or write(2) of its pages through the page cache, the
 * call's kernel time and iowait the task's, a copy's user time per page. */
static void run_file(struct sws__worker *w, const struct sws__item *it)
{
	struct sws_replay *r = w->r;
	const struct sws_trace_record *rec = &it->rec;
	uint64_t first = rec->addr >> 12, pages = 1;
	if (rec->len) {
		uint64_t end = rec->addr + rec->len - 1;
		if (end < rec->addr || (end >> 12) - first >= SWS__MAX_ACCESS_PAGES) {
			sws__note_error(w, SWS_EINVAL);
			return;
		}
		pages = (end >> 12) - first + 1;
	}
	bool write = rec->flags & SWS_TRACE_F_WRITE;
	int64_t rc = sws_mm_file_io(w->cpu, r->mm, it->asid, rec->arg, first, pages, write);
	struct sws_mm_cpu_time t1;
	sws_mm_cpu_time_get(r->mm, w->cpu, &t1);
	sws__charge(w, it->proc, &t1, rc < 0 ? 0 : pages * r->user_ns_per_page, 0, SWS__PH_OTHER);
	if (rc < 0)
		sws__note_error(w, (int)rc);
}

/* A RECLAIM record's LRU types: its flag's one, or both (neither or both flags). */
static unsigned reclaim_lru_types(uint32_t flags)
{
	uint32_t f = flags & (SWS_TRACE_F_ANON_LRU | SWS_TRACE_F_FILE_LRU);
	return f == SWS_TRACE_F_ANON_LRU   ? SWS_MM_LRU_ANON
	       : f == SWS_TRACE_F_FILE_LRU ? SWS_MM_LRU_FILE
					   : SWS_MM_LRU_ANON | SWS_MM_LRU_FILE;
}

static void run_record(struct sws__worker *w, const struct sws__item *it)
{
	struct sws_replay *r = w->r;
	const struct sws_trace_record *rec = &it->rec;
	struct sws_mm_cpu_time t1;
	int rc;

	if (r->cfg.on_record)
		r->cfg.on_record(r->cfg.cb_ctx, w->idx, rec);
	switch (rec->op) {
	case SWS_TRACE_ACCESS:
		run_access(w, it);
		break;
	case SWS_TRACE_MADV_PAGEOUT:
	case SWS_TRACE_MADV_DONTNEED: {
		bool out = rec->op == SWS_TRACE_MADV_PAGEOUT;
		uint64_t a = rec->addr & ~4095ull, len = (rec->len + (rec->addr & 4095) + 4095) & ~4095ull;
		rc = sws_mm_madvise(w->cpu, r->mm, it->asid, a, len,
				    out ? SWS_MADV_PAGEOUT : SWS_MADV_DONTNEED);
		sws_mm_cpu_time_get(r->mm, w->cpu, &t1);
		if (!out)
			sws__hist_add(&w->lat[SWS_REPLAY_LAT_FREE], lat_ns(w, w->wall_mark, &w->seen, &t1));
		sws__charge(w, it->proc, &t1, 0, 0, out ? SWS__PH_OTHER : SWS__PH_FREE);
		if (rc)
			sws__note_error(w, rc);
		break;
	}
	case SWS_TRACE_FILE:
		run_file(w, it);
		break;
	case SWS_TRACE_RECLAIM: {
		uint16_t memcg = reclaim_memcg(r, rec->arg, it->proc);
		if (rec->flags & SWS_TRACE_F_ZSWAP_WB) /* memory.reclaim "SIZE zswap_writeback_only" */
			sws_mm_zswap_writeback_only(w->cpu, r->mm, memcg, rec->len);
		else if (rec->flags & SWS_TRACE_F_VICTIM) /* the folio the kernel wrote out */
			sws_mm_reclaim_folio_at(w->cpu, r->mm, it->asid, rec->addr, memcg, rec->len);
		else if (rec->flags & SWS_TRACE_F_CHARGE) /* the reclaim of the charge before it */
			sws_mm_reclaim_recorded(w->cpu, r->mm, memcg, rec->len, reclaim_lru_types(rec->flags));
		else /* memory.reclaim */
			sws_mm_reclaim_lru(w->cpu, r->mm, memcg, rec->len, reclaim_lru_types(rec->flags));
		sws_mm_cpu_time_get(r->mm, w->cpu, &t1);
		sws__charge(w, it->proc, &t1, 0, 0, SWS__PH_OTHER);
		break;
	}
	default:
		sws__note_error(w, SWS_EINVAL);
		break;
	}
	if (++w->since_deferred >= r->cfg.deferred_every)
		sws__deferred(w);
	else if ((r->cfg.flags & SWS_REPLAY_ZSWAP) && sws_mm_zswap_shrink_pending(r->mm))
		zswap_work(w);
}

/*
 * MADV_FREE on worker @w: sws_mm_madvise(SWS_MADV_FREE) over the pages the
 * range touches, a free-path call as MADV_DONTNEED is (the task's free phase,
 * a free-latency sample), counted towards deferred work like every record.
 */
static void run_madv_free(struct sws__worker *w, const struct sws__item *it)
{
	struct sws_replay *r = w->r;
	const struct sws_trace_record *rec = &it->rec;
	struct sws_mm_cpu_time t1;
	if (r->cfg.on_record)
		r->cfg.on_record(r->cfg.cb_ctx, w->idx, rec);
	uint64_t a = rec->addr & ~4095ull, len = (rec->len + (rec->addr & 4095) + 4095) & ~4095ull;
	int rc = sws_mm_madvise(w->cpu, r->mm, it->asid, a, len, SWS_MADV_FREE);
	sws_mm_cpu_time_get(r->mm, w->cpu, &t1);
	sws__hist_add(&w->lat[SWS_REPLAY_LAT_FREE],
		      r->model ? (w->vc.now - w->wall_mark) / 1000
			       : (t1.sys_ns - w->seen.sys_ns) + (t1.iowait_ns - w->seen.iowait_ns));
	sws__charge(w, it->proc, &t1, 0, 0, SWS__PH_FREE);
	if (rc)
		sws__note_error(w, rc);
	if (++w->since_deferred >= r->cfg.deferred_every)
		sws__deferred(w);
}

/* A per-task record on worker @w (its thread, its fiber, or the dispatcher inline). */
void sws__run_item(struct sws__worker *w, const struct sws__item *it)
{
	sws__rec_at(w, &it->rec, it->pos);
	sws__rec_begin(w);
	if (it->rec.op == SWS_TRACE_MADV_FREE)
		run_madv_free(w, it);
	else
		run_record(w, it);
	sws__rec_end(w);
	w->cur_rec = NULL;
}

/* A free-path call's time: the histogram and the task's free phase. */
static void charge_free(struct sws_replay *r, struct sws__worker *w, uint32_t proc)
{
	struct sws_mm_cpu_time t1;
	sws_mm_cpu_time_get(r->mm, w->cpu, &t1);
	sws__hist_add(&w->lat[SWS_REPLAY_LAT_FREE], lat_ns(w, w->wall_mark, &w->seen, &t1));
	sws__charge(w, proc, &t1, 0, 0, SWS__PH_FREE);
}

void sws__run_structural(struct sws_replay *r, struct sws__worker *w, const struct sws_trace_record *rec,
			 uint32_t pidx)
{
	struct sws__proc *p = &r->procs[pidx];
	uint32_t asid = p->asid;
	struct sws_mm_cpu_time t1;
	int rc = 0;

	if (r->cfg.on_record) /* the dispatcher's, or in a stream a worker's */
		r->cfg.on_record(r->cfg.cb_ctx, r->nthreads > 1 ? w->idx : r->nthreads, rec);
	sws__charge_flush(w); /* procs[] may grow below */
	switch (rec->op) {
	case SWS_TRACE_FORK: {
		int64_t old = sws__proc_find(r, rec->arg);
		if (old >= 0 && (uint32_t)old != pidx) {
			/* The child pid had a life already (the trace lost its EXIT): that
			 * incarnation exits now, its free phase, not the parent's time. */
			rc = sws_mm_exit(w->cpu, r->mm, r->procs[old].asid);
			charge_free(r, w, (uint32_t)old);
			sws__charge_flush(w);
			r->procs[old].asid = SWS__NO_ASID;
			if (rc)
				sws__note_error(w, rc);
		}
		uint32_t child, cidx;
		rc = sws_mm_fork(w->cpu, r->mm, asid, &child);
		if (!rc) {
			rc = sws__proc_add(r, rec->arg, child, r->procs[pidx].memcg, &cidx);
			if (rc)
				sws_mm_exit(w->cpu, r->mm, child);
		}
		sws_mm_cpu_time_get(r->mm, w->cpu, &t1);
		sws__charge(w, pidx, &t1, 0, 0, SWS__PH_OTHER);
		break;
	}
	case SWS_TRACE_EXIT:
		rc = sws_mm_exit(w->cpu, r->mm, asid);
		charge_free(r, w, pidx);
		p->asid = SWS__NO_ASID;
		break;
	case SWS_TRACE_MMAP:
	case SWS_TRACE_MUNMAP: {
		uint64_t a = rec->addr & ~4095ull, len = (rec->len + (rec->addr & 4095) + 4095) & ~4095ull;
		if (rec->op == SWS_TRACE_MMAP) {
			uint32_t fl = (rec->flags & SWS_TRACE_F_THP) ? SWS_MM_MAP_ORDER(9) : 0;
			uint64_t c0 = r->model ? w->vc.now : sws__replay_now(r);
			rc = sws_mm_mmap(r->mm, asid, a, len, fl); /* no CPU: timed here */
			if (r->model) /* the modelled clock: the syscall's entry and exit */
				sws__vt_charge(&w->vc, SWS_COST_kernel_entry, 1);
			uint64_t ns = r->model ? (w->vc.now - c0) / 1000 : sws__replay_now(r) - c0;
			sws__charge(w, pidx, NULL, 0, ns, SWS__PH_INIT);
		} else {
			rc = sws_mm_munmap(w->cpu, r->mm, asid, a, len);
			charge_free(r, w, pidx);
		}
		break;
	}
	case SWS_TRACE_MADV_HUGEPAGE:
	case SWS_TRACE_MADV_NOHUGEPAGE: { /* the regions' VM_(NO)HUGEPAGE, as mmap changes them */
		uint64_t a = rec->addr & ~4095ull, len = (rec->len + (rec->addr & 4095) + 4095) & ~4095ull;
		rc = sws_mm_madvise(w->cpu, r->mm, asid, a, len,
				    rec->op == SWS_TRACE_MADV_HUGEPAGE ? SWS_MADV_HUGEPAGE : SWS_MADV_NOHUGEPAGE);
		sws_mm_cpu_time_get(r->mm, w->cpu, &t1);
		sws__charge(w, pidx, &t1, 0, 0, SWS__PH_OTHER);
		break;
	}
	default:
		break;
	}
	if (rc)
		sws__note_error(w, rc);
}
