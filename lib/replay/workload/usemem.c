/*
 * usemem.c - vm-scalability's usemem at page granularity, and the passes over
 * each task's region that usemem and memhog (memhog.c) share.
 *
 * The real usemem walks every 8-byte word (512 stores per 4 KiB page); only
 * the first touch of a page in a pass can fault, so the generator emits one
 * ACCESS per touched page per pass: with a step (-j) below 4 KiB every page,
 * with a larger step the pages holding the touched words. A random pass (-R)
 * in usemem makes bytes/8 random word accesses, which touch essentially every
 * page; the generator emits every touched page once per pass in a random order
 * (a seeded permutation), which is what the faults see. Tasks (-n) are separate
 * processes (pids 1000+i) interleaved round robin, CHUNK pages per turn, as
 * concurrent tasks would be. -y maps every task before any access; without it
 * a task maps its region on its first turn. -x frees every region after every
 * task finished; without it a task munmaps and exits right after its last
 * pass. (In a replay a MMAP or MUNMAP drains every queue, so each is a barrier
 * anyway.)
 *
 * Its figures (print_results, figures) are usemem's own output_statistics().
 */
#include <string.h>

#include "workload.h"

/* ---- the passes -------------------------------------------------------------------- */

static uint32_t zswap_wb_every(const struct sws_workload *wl)
{
	return wl->cfg.zswap_writeback_every ? wl->cfg.zswap_writeback_every : 1;
}

/*
 * The next record of task @ti in the access phase, from its own state only:
 * map the region (without -y), make the passes, then (without -x and --keep)
 * unmap and exit. @return 1, or 0 once the task has nothing left.
 */
int sws__wl_passes_task_next(struct sws_workload *wl, uint32_t ti, struct sws_trace_record *rec)
{
	struct task_state *t = &wl->ts[ti];
	if (!t->mapped) {
		t->mapped = true;
		sws__wl_fill(rec, SWS_TRACE_MMAP, ti, BASE_ADDR, sws__wl_region_len(wl), 0, 0);
		return 1;
	}
	if (t->zswap_wb) { /* memory.reclaim "SIZE zswap_writeback_only" on its memcg */
		t->zswap_wb = false;
		uint64_t pages = (wl->cfg.zswap_writeback_bytes + SWS_PAGE_SIZE - 1) / SWS_PAGE_SIZE;
		sws__wl_fill(rec, SWS_TRACE_RECLAIM, ti, 0, pages, SWS_TRACE_F_ZSWAP_WB, SWS_TRACE_MEMCG_TASK);
		return 1;
	}
	if (t->done) {
		if (!t->tail)
			return 0;
		if (t->tail-- == 2)
			sws__wl_fill(rec, SWS_TRACE_MUNMAP, ti, BASE_ADDR, sws__wl_region_len(wl), 0, 0);
		else
			sws__wl_fill(rec, SWS_TRACE_EXIT, ti, 0, 0, 0, 0);
		if (!t->tail)
			atomic_fetch_add_explicit(&wl->nfinished, 1, memory_order_relaxed);
		return 1;
	}
	uint64_t idx = t->k;
	if (wl->cfg.flags & SWS_USEMEM_RANDOM)
		idx = sws__wl_permute(wl, idx, wl->touch_pages, ((uint64_t)ti << 32) | t->pass);
	uint64_t page = wl->cfg.step >= SWS_PAGE_SIZE ? idx * wl->cfg.step / SWS_PAGE_SIZE : idx;
	bool write = t->pass < wl->write_passes;
	sws__wl_fill(rec, SWS_TRACE_ACCESS, ti, BASE_ADDR + page * SWS_PAGE_SIZE, 0, write ? SWS_TRACE_F_WRITE : 0, 0);
	if (++t->k == wl->touch_pages) {
		t->k = 0;
		if (++t->pass == wl->passes) {
			t->done = true;
			t->tail = (wl->cfg.flags & (SWS_USEMEM_SYNC_FREE | SWS_WORKLOAD_KEEP)) ? 0 : 2;
			if (!t->tail)
				atomic_fetch_add_explicit(&wl->nfinished, 1, memory_order_relaxed);
		} else {
			t->zswap_wb = wl->cfg.zswap_writeback_bytes && t->pass % zswap_wb_every(wl) == 0;
		}
	}
	return 1;
}

/* usemem and memhog: passes over each task's region, round robin. */
void sws__wl_passes_gen(struct sws_workload *wl) { sws__wl_gen_tasks(wl, true); }

int sws__wl_passes_setup(struct sws_workload *wl, const struct sws_workload_config *cfg)
{
	(void)cfg;
	/* records to come (the progress bar's 100%): saturated, never wrapped */
	uint64_t wb = wl->cfg.zswap_writeback_bytes ? (wl->passes - 1) / zswap_wb_every(wl) : 0;
	wl->total = sws__wl_sat_mul(wl->ntasks,
				    sws__wl_sat_add(3 + wb, sws__wl_sat_mul(wl->passes, wl->touch_pages)));
	if (!(wl->cfg.flags & SWS_USEMEM_SYNC_RW))
		sws__wl_access_begin(wl, true); /* each task maps on its first turn */
	return 0;
}

/* ---- usemem's output ---------------------------------------------------------------- */

/* One usemem task's figures, in simulated time, as usemem computes them. */
struct usemem_task {
	uint64_t bytes, main_ns;      /* the write (or read-only) passes */
	uint64_t again_bytes, again_ns;
	uint64_t init_ns, free_ns;
};

/* @return false when task @t is not one of @wl's usemem tasks. */
static bool usemem_task(const struct sws_workload *wl, const struct sws_replay_task *t, struct usemem_task *u)
{
	if (t->pid < PID0 || t->pid >= PID0 + wl->ntasks)
		return false;
	bool again = wl->cfg.flags & SWS_USEMEM_READ_AGAIN;
	bool init = wl->cfg.flags & SWS_USEMEM_INIT_TIME;
	uint64_t size = wl->cfg.bytes;
	uint32_t main_passes = wl->passes - (again ? 1 : 0);
	uint64_t again_ns = 0;
	if (again) /* the read-again pass: the last touch_pages reads */
		again_ns = t->reads ? t->read_ns * (wl->touch_pages < t->reads ? wl->touch_pages : t->reads) / t->reads
				    : 0;
	/* usemem credits size/8 per pass for the allocation (16M prints 18874368).
	 * A run stopped midway (a signal) counts the pages the task touched, not
	 * the passes it meant to make: its time is that of what it did. */
	uint64_t main_touches = (uint64_t)main_passes * wl->touch_pages;
	uint64_t main_done = t->accesses < main_touches ? t->accesses : main_touches;
	uint64_t again_done = t->accesses - main_done < wl->touch_pages ? t->accesses - main_done : wl->touch_pages;
	u->bytes = main_done == main_touches ? main_passes * (size + size / 8)
		   : (uint64_t)((unsigned __int128)(size + size / 8) * main_done / wl->touch_pages);
	u->main_ns = t->access_ns - again_ns + (init ? 0 : t->init_ns);
	u->again_bytes = !again ? 0 : again_done == wl->touch_pages ? size
				     : (uint64_t)((unsigned __int128)size * again_done / wl->touch_pages);
	u->again_ns = again_ns;
	u->init_ns = t->init_ns;
	u->free_ns = t->free_ns;
	return true;
}

/* usemem's output_statistics(): KB/s = ((bytes * 10^6) >> 10) / usecs. */
static unsigned long kb_per_s(uint64_t bytes, uint64_t ns)
{
	unsigned long us = (unsigned long)(ns / 1000);
	return (unsigned long)(((unsigned __int128)bytes * 1000000u >> 10) / (us ? us : 1));
}

static void throughput_line(struct sws__out *o, const char *intro, uint64_t bytes, uint64_t ns)
{
	sws__pr(o, "%s%lu bytes / %lu usecs = %lu KB/s\n", intro, (unsigned long)bytes,
		(unsigned long)(ns / 1000), kb_per_s(bytes, ns));
}

static void usemem_print_results(const struct sws_workload *wl, const struct sws_replay *r,
				 struct sws__out *o)
{
	for (uint32_t i = 0; i < sws_replay_nr_tasks(r) && !o->err; i++) {
		struct sws_replay_task t;
		struct usemem_task u;
		sws_replay_task_get(r, i, &t);
		if (!usemem_task(wl, &t, &u))
			continue;
		if (t.oom_killed) { /* usemem killed by SIGKILL prints nothing of its own */
			sws__pr(o, "usemem task %lu (pid %u): killed by the OOM killer, no figures\n",
				(unsigned long)(t.pid - PID0), t.pid);
			continue;
		}
		if (wl->cfg.flags & SWS_USEMEM_INIT_TIME)
			sws__pr(o, "the initialization time is %lu secs %lu usecs\n",
				(unsigned long)(u.init_ns / 1000000000u), (unsigned long)(u.init_ns / 1000 % 1000000));
		throughput_line(o, "", u.bytes, u.main_ns);
		if (u.again_bytes)
			throughput_line(o, "read again ", u.again_bytes, u.again_ns);
		sws__pr(o, "%lu usecs to free memory\n", (unsigned long)(u.free_ns / 1000));
	}
}

static void usemem_figures(const struct sws_workload *wl, const struct sws_replay *r,
			   struct sws_replay_report *rep)
{
	double sum = 0, free_us = 0;
	uint32_t n = 0, killed = 0;
	for (uint32_t i = 0; i < sws_replay_nr_tasks(r); i++) {
		struct sws_replay_task t;
		struct usemem_task u;
		sws_replay_task_get(r, i, &t);
		if (!usemem_task(wl, &t, &u))
			continue;
		if (t.oom_killed) { /* it did not do the work: no throughput, no free time */
			killed++;
			continue;
		}
		sum += (double)kb_per_s(u.bytes, u.main_ns);
		free_us += (double)(u.free_ns / 1000);
		n++;
	}
	rep->workload.killed = killed;
	if (!n)
		return;
	rep->workload = (struct sws_replay_workload_figures){
		.valid = true, .tasks = n, .killed = killed, .throughput_kbs = sum,
		.task_throughput_kbs = sum / n, .free_latency_us = free_us / n};
}

/* vm-scalability usemem's options (a subset; -O is its default, anonymous memory). */
static const struct sws_workload_param usemem_params[] = {
	SWS__WL_COUNT("-n", NULL, "N", nr_tasks, 1, 65536, "1..65536 tasks"),
	SWS__WL_COUNT("--nproc", NULL, "N", nr_tasks, 1, 65536, "1..65536 tasks"),
	SWS__WL_FLAG("-O", "--anonymous", 0),
	SWS__WL_FLAG("-y", "--sync-rw", SWS_USEMEM_SYNC_RW),
	SWS__WL_FLAG("-x", "--sync-free", SWS_USEMEM_SYNC_FREE),
	SWS__WL_FLAG("-R", "--random", SWS_USEMEM_RANDOM),
	SWS__WL_SEED("--random-seed"),
	SWS__WL_FLAG("-Z", "--read-again", SWS_USEMEM_READ_AGAIN),
	SWS__WL_FLAG("-o", "--readonly", SWS_USEMEM_READONLY),
	SWS__WL_FLAG("--init-time", NULL, SWS_USEMEM_INIT_TIME),
	SWS__WL_COUNT("-r", "--repeat", "N", repeat, 1, 1000000, "a repeat count >= 1"),
	{.name = "-j", .alias = "--step", .arg = "STEP", .kind = SWS_WORKLOAD_PARAM_BYTES, SWS__WL_FIELD(step),
	 .min = 8, .max = UINT64_MAX, .expect = "a step of at least 8 bytes"},
	SWS__WL_ZSWAP_WRITEBACK,
	SWS__WL_KEEP,
	{0},
};

SWS__WORKLOAD(sws__workload_usemem,
	      .kind = SWS_WORKLOAD_USEMEM,
	      .name = "usemem",
	      .zswap_writeback = true,
	      .setup = sws__wl_passes_setup,
	      .gen = sws__wl_passes_gen,
	      .task_next = sws__wl_passes_task_next,
	      .content = {[SWS_CONTENT_INDEX] = 1},
	      .print_results = usemem_print_results,
	      .figures = usemem_figures,
	      .params = usemem_params,
	      .help = "vm-scalability usemem; prints its per-task lines");
