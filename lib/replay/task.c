/*
 * task.c - the replay's tasks: the pid table (one entry per incarnation of a
 * pid, in order of first sight), the tid table (per-thread ordering across
 * workers), and the simulated clock of each task.
 *
 * A task's clock: what the memory model charged the CPU while it ran the
 * task's records (sys and iowait, struct sws_mm_cpu_time: the difference of
 * the CPU's time before and after, no clock read here) plus the user-time
 * model (user_ns_per_page for each page the task touched), by phase. The
 * CPU's background time in between (the OOM reaper, run inline) goes to the
 * worker's background bucket with kswapd's, not to the task.
 * Everything here is written by the dispatcher while the workers are idle,
 * except the clocks, which are atomics any worker adds to.
 */
#include <string.h>

#include "replay_internal.h"

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

int64_t sws__proc_lookup(struct sws_replay *r, uint32_t pid)
{
	uint32_t v = map_get(r->pidmap_key, r->pidmap_val, r->pidmap_cap, pid);
	r->found_pid = pid;
	r->found_val = v;
	if (!v || r->procs[v - 1].asid == SWS__NO_ASID)
		return -1;
	return (int64_t)v - 1;
}

int sws__proc_add(struct sws_replay *r, uint32_t pid, uint32_t asid, uint16_t memcg, uint32_t *idx)
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
	r->found_val = 0;
	struct sws__proc *p = &r->procs[r->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->asid = asid;
	p->space = asid;
	p->memcg = memcg;
	*idx = r->nprocs++;
	return 0;
}

int sws__tid_lookup(struct sws_replay *r, uint32_t tid, uint32_t *idx)
{
	uint32_t v = map_get(r->tidmap_key, r->tidmap_val, r->tidmap_cap, tid);
	if (v) {
		*idx = v - 1;
		r->found_tid = tid;
		r->found_tidx = v;
		return 0;
	}
	if (r->ntids == r->tids_cap)
		sws__drain(r); /* workers read tids[] through indexes: grow only while idle */
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
	r->found_tid = tid;
	r->found_tidx = r->ntids;
	return 0;
}

void sws__tasks_free(struct sws_replay *r)
{
	sws__mem_free(&r->mem, SWS_MEM_sim, r->procs, r->procs_cap * sizeof(*r->procs));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->streams, r->streams_cap * sizeof(*r->streams));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->tids, r->tids_cap * sizeof(*r->tids));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->pidmap_key, r->pidmap_cap * sizeof(uint32_t));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->pidmap_val, r->pidmap_cap * sizeof(uint32_t));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->tidmap_key, r->tidmap_cap * sizeof(uint32_t));
	sws__mem_free(&r->mem, SWS_MEM_sim, r->tidmap_val, r->tidmap_cap * sizeof(uint32_t));
}

void sws__clock_sync(struct sws_replay *r, struct sws__worker *w)
{
	sws_mm_cpu_time_get(r->mm, w->cpu, &w->seen);
	w->pend_proc = UINT32_MAX;
}

void sws__clock_skip(struct sws_replay *r, struct sws__worker *w)
{
	sws_mm_cpu_time_get(r->mm, w->cpu, &w->seen);
}

void sws__charge_flush(struct sws__worker *w)
{
	if (w->pend_proc == UINT32_MAX)
		return;
	struct sws__proc *p = &w->r->procs[w->pend_proc];
	for (unsigned c = 0; c < SWS__NR_CLOCKS; c++) {
		if (w->pend[c])
			atomic_fetch_add_explicit(&p->clock[c], w->pend[c], memory_order_relaxed);
		w->pend[c] = 0;
	}
	if (w->pend_accesses)
		atomic_fetch_add_explicit(&p->accesses, w->pend_accesses, memory_order_relaxed);
	if (w->pend_reads)
		atomic_fetch_add_explicit(&p->reads, w->pend_reads, memory_order_relaxed);
	w->pend_accesses = w->pend_reads = 0;
	w->pend_proc = UINT32_MAX;
}
