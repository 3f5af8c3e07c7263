/*
 * collect.c - what a run did: the report (counters of the memory model and
 * the swap core, the simulated times of the tasks and of background reclaim,
 * latency histograms, peaks, memory, devices), the per-task records, and the
 * histogram helpers.
 */
#include <string.h>

#include "replay_internal.h"

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
	static const char *const names[] = {"fault", "free", "reclaim"};
	return (unsigned)l < SWS_REPLAY_NR_LAT ? names[l] : "";
}

static void store_max(_Atomic uint64_t *p, uint64_t v)
{
	uint64_t old = atomic_load_explicit(p, memory_order_relaxed);
	while (v > old && !atomic_compare_exchange_weak(p, &old, v))
		;
}

void sws__sample_peaks(struct sws_replay *r)
{
	uint64_t total, free;
	sws_swap_totals(r->sim, &total, &free);
	store_max(&r->peaks.swap_used, total - free);
	struct sws_memory_usage mu;
	sws_sim_memory_usage(r->sim, &mu);
	store_max(&r->peaks.meta_static, mu.static_bytes);
	store_max(&r->peaks.meta_dynamic, mu.dynamic_bytes);
	/* Each device's own peak, with several (one: the total's is its). */
	for (uint32_t i = 0; r->cfg.nr_swap > 1 && i < r->cfg.nr_swap; i++) {
		struct sws_device_info di;
		if (!sws_device_info_get(r->sim, r->types[i], &di))
			store_max(&r->peaks.dev_inuse[i], di.inuse_pages);
	}
	if (!(r->cfg.flags & SWS_REPLAY_ZSWAP))
		return;
	struct sws_mm_stats st;
	sws_mm_stats_get(r->mm, &st);
	pthread_mutex_lock(&r->peaks.lock);
	if (st.pool_total_size > atomic_load(&r->peaks.pool_bytes)) {
		atomic_store(&r->peaks.pool_bytes, st.pool_total_size);
		atomic_store(&r->peaks.pool_stored, st.stored_pages);
	}
	pthread_mutex_unlock(&r->peaks.lock);
}

/*
 * The run's simulated times. Tasks run in parallel, one CPU each, as long as
 * there are CPUs (threads); the run lasts as long as its longest task, or as
 * long as the CPU work of every task and of background reclaim takes on the
 * CPUs, whichever is longer.
 */
static void collect_times(const struct sws_replay *r, struct sws_replay_times *t)
{
	uint64_t longest = 0, cpu_work = 0;
	for (uint32_t i = 0; i < r->nprocs; i++) {
		const struct sws__proc *p = &r->procs[i];
		uint64_t sys = atomic_load(&p->clock[SWS__C_SYS]), user = atomic_load(&p->clock[SWS__C_USER]);
		uint64_t io = atomic_load(&p->clock[SWS__C_IOWAIT]);
		t->sys_ns += sys;
		t->user_ns += user;
		t->iowait_ns += io;
		t->sys_modelled_ns += atomic_load(&p->clock[SWS__C_SYS_MODELLED]);
		if (sys + user + io > longest)
			longest = sys + user + io;
		cpu_work += sys + user;
	}
	for (unsigned i = 0; i <= r->nthreads; i++) {
		const struct sws__worker *w = i < r->nthreads ? &r->workers[i] : &r->disp;
		t->kswapd_ns += w->kswapd.sys_ns + w->kswapd.iowait_ns;
		cpu_work += w->kswapd.sys_ns;
	}
	uint64_t shared = cpu_work / r->nthreads;
	t->elapsed_ns = longest > shared ? longest : shared;
	if (r->model) { /* until the last CPU was done */
		t->elapsed_ns = 0;
		for (unsigned i = 0; i < r->nthreads; i++)
			if (r->workers[i].vc.now / 1000 > t->elapsed_ns)
				t->elapsed_ns = r->workers[i].vc.now / 1000;
	}
	t->swapoff = r->swapoff_ran;
	t->swapoff_ns = r->swapoff_ns;
	t->swapoff_sys_ns = r->swapoff_sys_ns;
	t->swapoff_oom_kills = r->swapoff_oom_kills;
}

static void collect_devices(struct sws_replay *r, struct sws_replay_report *out)
{
	for (uint32_t i = 0; i < r->cfg.nr_swap; i++) {
		struct sws_device_info di;
		struct sws_replay_device *d = &out->devices[out->nr_devices++];
		d->type = r->types[i];
		d->kind = r->cfg.swap[i].kind;
		if (sws_device_info_get(r->sim, r->types[i], &di))
			continue;
		d->pages = di.pages;
		d->inuse_pages = di.inuse_pages;
		d->peak_inuse_pages = r->cfg.nr_swap > 1 ? atomic_load(&r->peaks.dev_inuse[i])
							  : atomic_load(&r->peaks.swap_used);
		if (d->peak_inuse_pages < d->inuse_pages)
			d->peak_inuse_pages = d->inuse_pages;
		d->write_errors = di.write_errors;
		d->write_errno = di.write_errno;
		d->write_failed = di.write_failed;
	}
}

/* Keep @f among the first refused records by position (0, unknown, last). */
static void refused_add(struct sws_replay_report *out, const struct sws_replay_refused *f)
{
	uint64_t key = f->position ? f->position : UINT64_MAX;
	uint32_t i = out->nr_refused;
	while (i && (out->refused[i - 1].position ? out->refused[i - 1].position : UINT64_MAX) > key)
		i--;
	if (i == SWS_REPLAY_MAX_REFUSED)
		return;
	uint32_t n = out->nr_refused < SWS_REPLAY_MAX_REFUSED ? out->nr_refused : SWS_REPLAY_MAX_REFUSED - 1;
	memmove(&out->refused[i + 1], &out->refused[i], (n - i) * sizeof(*f));
	out->refused[i] = *f;
	if (out->nr_refused < SWS_REPLAY_MAX_REFUSED)
		out->nr_refused++;
}

int sws_replay_report_get(struct sws_replay *r, struct sws_replay_report *out)
{
	if (!r || !out)
		return SWS_EINVAL;
	memset(out, 0, sizeof(*out));
	out->backend = sws_sim_backend(r->sim);
	out->clock = r->cfg.clock;
	out->cpus = r->model ? r->nthreads : 0;
	for (unsigned i = 0; r->model && i < r->nthreads; i++) {
		const struct sws_vcpu *vc = &r->workers[i].vc;
		struct sws_replay_model *m = &out->model;
		for (unsigned c = 0; c < SWS_NR_COSTS; c++) {
			m->cost_ps[c] += sws__vt_charged(vc, (enum sws_cost)c);
			m->cost_count[c] += vc->count[c];
		}
		for (unsigned l = 0; l < SWS_NR_LOCK_CLASSES; l++) {
			m->lock_wait_ps[l] += vc->lock_wait[l];
			m->lock_waits[l] += vc->lock_waits[l];
		}
		m->spin_ps += vc->spin;
		m->device_cpu_ps += vc->device_cpu;
		m->user_ps += vc->user;
		m->busy_ps += sws__vt_busy(vc);
		m->io_wait_ps += vc->io_wait;
		m->line_transfers += vc->line_transfers;
	}
	out->threads = r->model ? (r->cfg.threads ? r->cfg.threads : 1) : r->nthreads; /* host threads asked for */
	out->events = r->events;
	out->wall_ns = r->wall_ns;
	out->events_per_sec = r->wall_ns ? (double)r->events * 1e9 / (double)r->wall_ns : 0;
	out->interrupted = r->interrupted;
	out->nr_refused = 0;
	out->position_unit = r->position_unit ? r->position_unit : "record";
	out->nr_tasks = r->nprocs;
	for (unsigned i = 0; i <= r->nthreads; i++) {
		const struct sws__worker *w = i < r->nthreads ? &r->workers[i] : &r->disp;
		out->accesses += w->accesses;
		out->errors += w->errors;
		out->verify_failures += w->verify_failures;
		if (!out->first_error)
			out->first_error = w->first_error;
		for (uint32_t k = 0; k < w->nref; k++)
			refused_add(out, &w->ref[k]);
		for (unsigned l = 0; l < SWS_REPLAY_NR_LAT; l++)
			sws__hist_merge(&out->latency[l], &w->lat[l]);
	}
	collect_times(r, &out->time);
	sws_mm_stats_get(r->mm, &out->mm);
	/* The workload's memcg, or every task's one (SWS_REPLAY_MEMCG_PER_TASK) summed. */
	out->memcg_zswap_bytes = out->memcg_zswapped_bytes = 0;
	uint64_t seen[SWS_MM_MAX_MEMCGS / 64] = {0};
	for (uint32_t i = 0; i <= r->nprocs; i++) {
		uint16_t m = i < r->nprocs ? r->procs[i].memcg : r->memcg;
		uint64_t b = 0, z = 0;
		if (!sws_bit_test(seen, m) && !sws_mm_zswap_memcg_stats(r->mm, m, &b, &z)) {
			out->memcg_zswap_bytes += b;
			out->memcg_zswapped_bytes += z;
		}
		sws_bit_set(seen, m);
	}
	/* Direct reclaim latency: every round a charge ran, measured inside the mm. */
	struct sws_replay_hist *rh = &out->latency[SWS_REPLAY_LAT_RECLAIM];
	memset(rh, 0, sizeof(*rh));
	for (unsigned b = 0; b < SWS_REPLAY_HIST_BUCKETS && b < SWS_MM_LAT_BUCKETS; b++)
		rh->bucket[b] = out->mm.reclaim_lat[b];
	rh->count = out->mm.reclaim_count;
	rh->sum_ns = out->mm.reclaim_sum_ns;
	rh->max_ns = out->mm.reclaim_max_ns;
	sws__sample_peaks(r);
	out->peaks.swap_used_pages = atomic_load(&r->peaks.swap_used);
	out->peaks.pool_total_size = atomic_load(&r->peaks.pool_bytes);
	out->peaks.pool_stored_pages = atomic_load(&r->peaks.pool_stored);
	out->peaks.static_bytes = atomic_load(&r->peaks.meta_static);
	out->peaks.dynamic_bytes = atomic_load(&r->peaks.meta_dynamic);
	collect_devices(r, out);
	sws__replay_setup(r, &out->setup);
	sws_sim_quiesce(r->sim);
	sws_stats_snapshot(r->sim, &out->swap);
	sws_sim_memory_usage(r->sim, &out->memory);
	return 0;
}

bool sws_replay_counters_equal(const struct sws_replay_report *a, const struct sws_replay_report *b)
{
	if (!a || !b)
		return false;
	struct sws_mm_stats ma = a->mm, mb = b->mm;
	/* Times and histograms are measured: leave them out. */
	memset(ma.reclaim_lat, 0, sizeof(ma.reclaim_lat));
	memset(mb.reclaim_lat, 0, sizeof(mb.reclaim_lat));
	ma.reclaim_sum_ns = mb.reclaim_sum_ns = ma.reclaim_max_ns = mb.reclaim_max_ns = 0;
	memset(&ma.time, 0, sizeof(ma.time));
	memset(&mb.time, 0, sizeof(mb.time));
	return !memcmp(&ma, &mb, sizeof(ma)) &&
	       !memcmp(a->swap.counters, b->swap.counters, sizeof(a->swap.counters)) &&
	       !memcmp(a->swap.order_counters, b->swap.order_counters, sizeof(a->swap.order_counters)) &&
	       !memcmp(a->swap.work, b->swap.work, sizeof(a->swap.work)) &&
	       a->events == b->events && a->accesses == b->accesses && a->errors == b->errors;
}

uint32_t sws_replay_nr_tasks(const struct sws_replay *r) { return r ? r->nprocs : 0; }

int sws_replay_task_get(const struct sws_replay *r, uint32_t i, struct sws_replay_task *out)
{
	if (!r || !out || i >= r->nprocs)
		return SWS_EINVAL;
	const struct sws__proc *p = &r->procs[i];
	out->pid = p->pid;
	out->asid = p->asid;
	out->accesses = atomic_load_explicit(&p->accesses, memory_order_relaxed);
	out->reads = atomic_load_explicit(&p->reads, memory_order_relaxed);
	out->access_ns = atomic_load_explicit(&p->clock[SWS__C_ACCESS], memory_order_relaxed);
	out->read_ns = atomic_load_explicit(&p->clock[SWS__C_READ], memory_order_relaxed);
	out->init_ns = atomic_load_explicit(&p->clock[SWS__C_INIT], memory_order_relaxed);
	out->free_ns = atomic_load_explicit(&p->clock[SWS__C_FREE], memory_order_relaxed);
	out->sys_ns = atomic_load_explicit(&p->clock[SWS__C_SYS], memory_order_relaxed);
	out->user_ns = atomic_load_explicit(&p->clock[SWS__C_USER], memory_order_relaxed);
	out->iowait_ns = atomic_load_explicit(&p->clock[SWS__C_IOWAIT], memory_order_relaxed);
	out->exited = p->asid == SWS__NO_ASID;
	out->oom_killed = sws_mm_oom_killed(r->mm, p->space);
	return 0;
}

/* The obsolete names (swapsim/replay.h), for callers built against them. */
int sws_replay_report(struct sws_replay *r, struct sws_replay_report *out) { return sws_replay_report_get(r, out); }

int sws_replay_task(const struct sws_replay *r, uint32_t i, struct sws_replay_task *out)
{
	return sws_replay_task_get(r, i, out);
}
