/*
 * kbuild.c - shaped like a kernel build in a memcg (docs/replay.md): task 0
 * ("make", pid 1000) lives throughout; it maps one region holding, in order,
 * the cold data of cold_bytes (written first, then never touched), its own
 * long-lived cold memory (an eighth of the build's size, written once), and
 * one window per phase (an eighth of the build's size each, written by make
 * as its phase begins: the phase's hot set, then cold for good once its phase
 * is over). -j job slots run compile
 * jobs (pids 1001.. in order), each a process of its own: it maps a heap of
 * 1/2 to 3/2 of its share of the build (size / -j), lives 8 accesses per heap
 * page, allocates (writes) its heap over the first half of its life, and
 * otherwise touches its allocated pages with a strong bias to the recent ones
 * (and to the first 1/16, its tables), 30% writes; a quarter of its accesses
 * go to its phase's window (as make's records, biased to the window's start).
 * Jobs do file I/O through the page cache (FILE records): a job reads its
 * source file whole as it starts (file 1 + 2n, heap/8 + 1 pages), then
 * heap/8 + 1 pages of the shared headers (file 0, an eighth of the build's
 * size, biased to its start: the common headers) before it computes, and
 * writes its object file whole as it exits (file 2 + 2n, heap/4 + 1 pages):
 * over the build about as much page cache as the build's size, most of it
 * used once, as a kernel build's sources and objects are.
 * A job that ends unmaps and exits and the slot starts the next job until the
 * jobs' lives add up to nr_accesses; the phase of a job is the share of jobs
 * started before it. Slots take turns of KB_TURN records.
 */
#include "workload.h"

#define KB_TURN 8

struct kb_job {
	uint64_t heap, life, i; /* pages, accesses, accesses done */
	uint64_t hdr_left;      /* header pages still to read before it computes */
	uint32_t n;             /* the job's number (pid 1001 + n) */
	uint32_t phase;
	bool live;
};

/* kbuild's state (wl->priv). */
struct kbuild {
	struct kb_job *jobs;     /* [ntasks] job slots */
	uint64_t rng;            /* heap sizes, in job order (setup walks it to count) */
	uint64_t cold, own, win; /* pages: cold data, make's cold memory, a window */
	uint64_t hdr;            /* pages of the shared headers */
	uint64_t started, nr_jobs; /* jobs started; in all */
	uint32_t phases, live;
	uint32_t windows;        /* phase windows make has written */
	uint64_t fill;           /* pages of the window being written */
};

/* The heap of the next job, from the heap stream. */
static uint64_t kb_heap(struct sws_workload *wl, uint64_t *rng)
{
	uint64_t share = wl->pages / wl->ntasks; /* size / -j */
	uint64_t lo = share / 2 > 16 ? share / 2 : 16;
	return lo + sws__rand(rng) % (share + 1);
}

static uint64_t kb_life(uint64_t heap) { return 8 * heap; }

/* Page cache per job: its source file (read whole), header pages read from
 * the shared headers, its object file (written whole as it exits). */
static uint64_t kb_src(uint64_t heap) { return heap / 8 + 1; }
static uint64_t kb_hdrs(uint64_t heap) { return heap / 8 + 1; }
static uint64_t kb_obj(uint64_t heap) { return heap / 4 + 1; }
#define KB_FILE_HDR 0u /* the headers; job n's source is file 1 + 2n, its object 2 + 2n */

static uint32_t kb_pid(uint32_t n) { return n + 1; } /* task index of job n: pid 1001 + n */

/* Start job @n in slot @j: its MMAP. */
static void kb_start(struct sws_workload *wl, struct kb_job *j)
{
	struct kbuild *kb = wl->priv;
	j->heap = kb_heap(wl, &kb->rng);
	j->life = kb_life(j->heap);
	j->i = 0;
	j->n = (uint32_t)kb->started;
	j->phase = (uint32_t)(kb->started * kb->phases / kb->nr_jobs);
	j->live = true;
	j->hdr_left = kb_hdrs(j->heap);
	kb->started++;
	kb->live++;
	sws__wl_push(wl, SWS_TRACE_MMAP, kb_pid(j->n), BASE_ADDR, j->heap * SWS_PAGE_SIZE, 0, 0);
	sws__wl_push(wl, SWS_TRACE_FILE, kb_pid(j->n), 0, kb_src(j->heap) * SWS_PAGE_SIZE, 0, 1 + 2 * j->n);
}

static double kb_u(struct sws_workload *wl) { return sws__wl_rand01(&wl->rng); }

/* One access of job @j: first its header reads (biased to the headers'
 * start: the common ones), then its computation. */
static void kb_access(struct sws_workload *wl, struct kb_job *j)
{
	struct kbuild *kb = wl->priv;
	if (j->hdr_left) {
		j->hdr_left--;
		double u = kb_u(wl);
		uint64_t page = (uint64_t)((double)kb->hdr * u * u);
		sws__wl_push(wl, SWS_TRACE_FILE, kb_pid(j->n), page * SWS_PAGE_SIZE, 0, 0, KB_FILE_HDR);
		return;
	}
	uint64_t alloc = (j->i * 2 * j->heap) / j->life + 1; /* allocated over the first half */
	if (alloc > j->heap)
		alloc = j->heap;
	uint64_t prev = j->i ? ((j->i - 1) * 2 * j->heap) / j->life + 1 : 0;
	j->i++;
	if (alloc > prev && prev < j->heap) { /* the allocation frontier: a new page */
		sws__wl_push(wl, SWS_TRACE_ACCESS, kb_pid(j->n), BASE_ADDR + (alloc - 1) * SWS_PAGE_SIZE, 0,
		     SWS_TRACE_F_WRITE, 0);
		return;
	}
	uint64_t r = sws__rand(&wl->rng);
	bool write = r % 100 < 30;
	if (r % 4 == 1) { /* the phase's window, make's memory */
		double u = kb_u(wl);
		uint64_t off = (uint64_t)((double)kb->win * u * u);
		uint64_t page = kb->cold + kb->own + (uint64_t)j->phase * kb->win + off;
		sws__wl_push(wl, SWS_TRACE_ACCESS, 0, BASE_ADDR + page * SWS_PAGE_SIZE, 0, write ? SWS_TRACE_F_WRITE : 0, 0);
		return;
	}
	uint64_t page;
	if ((r >> 8) % 10 == 0) { /* its tables: the first sixteenth */
		uint64_t t = alloc / 16 ? alloc / 16 : 1;
		page = sws__rand(&wl->rng) % t;
	} else { /* recent allocations */
		double u = kb_u(wl);
		page = alloc - 1 - (uint64_t)((double)(alloc - 1) * u * u * u);
	}
	sws__wl_push(wl, SWS_TRACE_ACCESS, kb_pid(j->n), BASE_ADDR + page * SWS_PAGE_SIZE, 0, write ? SWS_TRACE_F_WRITE : 0, 0);
}

static uint64_t kb_region(const struct sws_workload *wl)
{
	const struct kbuild *kb = wl->priv;
	return (kb->cold + kb->own + (uint64_t)kb->phases * kb->win) * SWS_PAGE_SIZE;
}

static void kbuild_gen(struct sws_workload *wl)
{
	struct kbuild *kb = wl->priv;
	switch (wl->phase) {
	case PH_MAP: /* make maps its region and writes its cold data, then its own memory */
		if (!wl->count) {
			sws__wl_push(wl, SWS_TRACE_MMAP, 0, BASE_ADDR, kb_region(wl), 0, 0);
			wl->count = 1;
			return;
		}
		if (wl->count <= kb->cold + kb->own) {
			sws__wl_push(wl, SWS_TRACE_ACCESS, 0, BASE_ADDR + (wl->count - 1) * SWS_PAGE_SIZE, 0, SWS_TRACE_F_WRITE, 0);
			wl->count++;
			return;
		}
		wl->phase = PH_ACCESS;
		wl->cur = 0;
		wl->chunk_left = KB_TURN;
		return;
	case PH_ACCESS: {
		struct kb_job *j = &kb->jobs[wl->cur];
		if (kb->fill) { /* make writes the new phase's window */
			uint64_t page = kb->cold + kb->own + (uint64_t)(kb->windows - 1) * kb->win +
					(kb->win - kb->fill--);
			sws__wl_push(wl, SWS_TRACE_ACCESS, 0, BASE_ADDR + page * SWS_PAGE_SIZE, 0, SWS_TRACE_F_WRITE, 0);
			return;
		}
		if (!j->live) {
			if (kb->started < kb->nr_jobs) {
				uint32_t phase = (uint32_t)(kb->started * kb->phases / kb->nr_jobs);
				if (phase >= kb->windows) { /* a phase begins: its shared data first */
					kb->windows = phase + 1;
					kb->fill = kb->win;
					return;
				}
				kb_start(wl, j);
				return;
			}
			if (!kb->live) {
				wl->phase = PH_FREE;
				return;
			}
			wl->cur = (wl->cur + 1) % wl->ntasks;
			return;
		}
		if (!wl->chunk_left) {
			wl->cur = (wl->cur + 1) % wl->ntasks;
			wl->chunk_left = KB_TURN;
			return;
		}
		if (j->i == j->life) { /* done: the job writes its object and exits */
			sws__wl_push(wl, SWS_TRACE_FILE, kb_pid(j->n), 0, kb_obj(j->heap) * SWS_PAGE_SIZE, SWS_TRACE_F_WRITE,
			     2 + 2 * j->n);
			sws__wl_push(wl, SWS_TRACE_MUNMAP, kb_pid(j->n), BASE_ADDR, j->heap * SWS_PAGE_SIZE, 0, 0);
			sws__wl_push(wl, SWS_TRACE_EXIT, kb_pid(j->n), 0, 0, 0, 0);
			j->live = false;
			kb->live--;
			wl->chunk_left = 0;
			return;
		}
		kb_access(wl, j);
		wl->chunk_left--;
		return;
	}
	case PH_FREE:
		sws__wl_push(wl, SWS_TRACE_MUNMAP, 0, BASE_ADDR, kb_region(wl), 0, 0);
		sws__wl_push(wl, SWS_TRACE_EXIT, 0, 0, 0, 0, 0);
		wl->phase = PH_DONE;
		return;
	case PH_DONE:
		return;
	}
}

static int kbuild_setup(struct sws_workload *wl, const struct sws_workload_config *cfg)
{
	struct kbuild *kb = wl->priv;
	struct sws_mem m = {.a = wl->mem.a};
	kb->jobs = sws__mem_zalloc(&m, SWS_MEM_sim, wl->ntasks * sizeof(*kb->jobs), 0);
	if (!kb->jobs)
		return SWS_ENOMEM;
	/* Jobs start until their lives add up to nr_accesses: count them, and
	 * their records, on a copy of the heap stream. */
	kb->cold = (cfg->cold_bytes + SWS_PAGE_SIZE - 1) / SWS_PAGE_SIZE;
	kb->own = wl->pages / 8 ? wl->pages / 8 : 1;
	kb->win = wl->pages / 8 ? wl->pages / 8 : 1;
	kb->hdr = wl->pages / 8 ? wl->pages / 8 : 1;
	kb->phases = cfg->repeat ? cfg->repeat : 8;
	if (!cfg->nr_accesses)
		wl->cfg.nr_accesses = 16 * wl->pages;
	kb->rng = cfg->seed ^ 0x6b6275696c64ull; /* "kbuild" */
	uint64_t rng = kb->rng, planned = 0, records = 0;
	kb->nr_jobs = 0;
	while (planned < wl->cfg.nr_accesses) {
		if (kb->nr_jobs == SWS_WORKLOAD_MAX_JOBS) /* bounded work, bounded pids */
			return SWS_EINVAL;
		uint64_t heap = kb_heap(wl, &rng), life = kb_life(heap);
		planned += life;
		/* MMAP, the source, the headers, the accesses, the object, MUNMAP, EXIT */
		records += life + kb_hdrs(heap) + 5;
		kb->nr_jobs++;
	}
	/* make writes each phase's window as the phase's first job starts (a
	 * phase with no job of its own is never written) */
	uint64_t fills = 0, next = 0;
	for (uint64_t n = 0; n < kb->nr_jobs; n++) {
		uint64_t phase = n * kb->phases / kb->nr_jobs;
		if (phase >= next) {
			fills++;
			next = phase + 1;
		}
	}
	wl->total = 1 + kb->cold + kb->own + records + 2 + fills * kb->win;
	return 0;
}

static void kbuild_destroy(struct sws_workload *wl)
{
	struct kbuild *kb = wl->priv;
	struct sws_mem m = {.a = wl->mem.a};
	if (kb->jobs)
		sws__mem_free(&m, SWS_MEM_sim, kb->jobs, wl->ntasks * sizeof(*kb->jobs));
}

/* kbuild's options: jobs at once, phases, accesses, the cold data. */
static const struct sws_workload_param kbuild_params[] = {
	SWS__WL_COUNT("-j", NULL, "JOBS", nr_tasks, 1, 65536, "1..65536 jobs"),
	SWS__WL_COUNT("-p", NULL, "PHASES", repeat, 1, 100000, "1..100000 phases"),
	SWS__WL_ACCESSES("ACCESSES"),
	{.name = "--cold", .arg = "SIZE", .kind = SWS_WORKLOAD_PARAM_SIZE, SWS__WL_FIELD(cold_bytes),
	 .max = SWS_WORKLOAD_MAX_BYTES},
	SWS__WL_SEED("--seed"),
	SWS__WL_KEEP,
	{0},
};

SWS__WORKLOAD(sws__workload_kbuild,
	      .kind = SWS_WORKLOAD_KBUILD,
	      .name = "kbuild",
	      .default_tasks = 8,
	      .cold_bytes = true,
	      .priv_size = sizeof(struct kbuild),
	      .setup = kbuild_setup,
	      .gen = kbuild_gen,
	      .content = {[SWS_CONTENT_ZERO] = 1, [SWS_CONTENT_INDEX] = 3, [SWS_CONTENT_TEXT] = 14,
			  [SWS_CONTENT_RANDOM] = 2},
	      .destroy = kbuild_destroy,
	      .params = kbuild_params,
	      .help = "shaped like a kernel build: -j short-lived compile jobs whose heaps add\n"
		      "up to SIZE, a hot set that moves on in phases, long-lived cold memory,\n"
		      "and --cold SIZE of cold data written first (docs/replay.md)");
