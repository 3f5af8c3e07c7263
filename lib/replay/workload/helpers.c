/*
 * helpers.c - what several workloads share: uniform random doubles, the
 * seeded permutation (usemem -R, zipf and uniform scatter their pages with
 * it), queueing records for next(), a task's MUNMAP and EXIT, and the
 * round-robin turns of the access phase over the per-task streams.
 */
#include <string.h>

#include "workload.h"

double sws__wl_rand01(uint64_t *s) { return (double)(sws__rand(s) >> 11) * (1.0 / 9007199254740992.0); }

/* ---- a seeded permutation of [0, n): a bijection on 2^b, cycle-walked ----------- */

static uint64_t perm_round(const struct sws_workload *wl, uint64_t x, uint64_t key)
{
	uint64_t m = wl->perm_mask;
	unsigned half = (unsigned)(64 - __builtin_clzll(m | 1)) / 2 + 1;
	x = (x * (key | 1)) & m; /* odd multiplier: bijective mod 2^b */
	x ^= x >> half;          /* xorshift: bijective */
	return (x + (key >> 17)) & m;
}

uint64_t sws__wl_permute(const struct sws_workload *wl, uint64_t x, uint64_t n, uint64_t salt)
{
	do {
		for (unsigned i = 0; i < 3; i++)
			x = perm_round(wl, x, wl->perm_key[i] ^ salt);
	} while (x >= n);
	return x;
}

/* ---- record emission -------------------------------------------------------------- */

void sws__wl_fill(struct sws_trace_record *rec, uint32_t op, uint32_t task, uint64_t addr, uint64_t len,
		  uint32_t flags, uint32_t arg)
{
	memset(rec, 0, sizeof(*rec));
	rec->op = op;
	rec->pid = rec->tid = PID0 + task;
	rec->cpu = SWS_TRACE_CPU_ANY;
	rec->addr = addr;
	rec->len = len;
	rec->flags = flags;
	rec->arg = arg;
}

void sws__wl_push(struct sws_workload *wl, uint32_t op, uint32_t task, uint64_t addr, uint64_t len,
		  uint32_t flags, uint32_t arg)
{
	struct sws_trace_record *rec = &wl->pend[(wl->pend_head + wl->npend++) % 8];
	sws__wl_fill(rec, op, task, addr, len, flags, arg);
	rec->time_ns = wl->emitted + wl->npend;
}

void sws__wl_push_free(struct sws_workload *wl, uint32_t task)
{
	if (wl->cfg.flags & SWS_WORKLOAD_KEEP)
		return; /* the memory stays as the input ends */
	sws__wl_push(wl, SWS_TRACE_MUNMAP, task, BASE_ADDR, sws__wl_region_len(wl), 0, 0);
	sws__wl_push(wl, SWS_TRACE_EXIT, task, 0, 0, 0, 0);
}

void sws__wl_free_next(struct sws_workload *wl)
{
	if (wl->free_idx < wl->ntasks)
		sws__wl_push_free(wl, wl->free_idx++);
	else
		wl->phase = PH_DONE;
}

/* ---- the access phase's turns ------------------------------------------------------ */

/* The access phase begins (right after the last MMAP of the map phase, so
 * that streams() sees it before the next record). */
void sws__wl_access_begin(struct sws_workload *wl, bool passes)
{
	wl->phase = PH_ACCESS;
	wl->chunk_left = passes ? CHUNK : 1;
}

/* A task's last access ends its turn, after its MUNMAP and EXIT. */
bool sws__wl_turns(struct sws_workload *wl, uint32_t turn)
{
	if (atomic_load_explicit(&wl->nfinished, memory_order_relaxed) == wl->ntasks)
		return true;
	struct task_state *t = &wl->ts[wl->cur];
	struct sws_trace_record *rec = &wl->pend[(wl->pend_head + wl->npend) % 8];
	if ((wl->chunk_left || t->tail) && wl->ops->task_next(wl, wl->cur, rec)) {
		wl->npend++;
		rec->time_ns = wl->emitted + wl->npend;
		if (rec->op == SWS_TRACE_ACCESS)
			wl->chunk_left--;
		if (t->done)
			wl->chunk_left = 0;
		return false;
	}
	wl->cur = (wl->cur + 1) % wl->ntasks;
	wl->chunk_left = turn;
	return false;
}

void sws__wl_gen_tasks(struct sws_workload *wl, bool passes)
{
	switch (wl->phase) {
	case PH_MAP: /* usemem -y, zipf, uniform: every task maps first */
		wl->ts[wl->map_idx].mapped = true;
		sws__wl_push(wl, SWS_TRACE_MMAP, wl->map_idx++, BASE_ADDR, sws__wl_region_len(wl), 0, 0);
		if (wl->map_idx == wl->ntasks)
			sws__wl_access_begin(wl, passes);
		return;
	case PH_ACCESS:
		if (sws__wl_turns(wl, passes ? CHUNK : 1))
			wl->phase = !passes || (wl->cfg.flags & SWS_USEMEM_SYNC_FREE) ? PH_FREE : PH_DONE;
		return;
	case PH_FREE:
		sws__wl_free_next(wl);
		return;
	case PH_DONE:
		return;
	}
}
