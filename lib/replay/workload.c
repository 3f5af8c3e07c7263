/*
 * workload.c - synthetic workloads as record generators: usemem, memhog,
 * zipf, uniform, bgsave and kbuild produce the same struct sws_trace_record stream a
 * trace reader does, one record per next() call, in O(tasks) memory.
 *
 * usemem at page granularity. The real usemem walks every 8-byte word (512
 * stores per 4 KiB page); only the first touch of a page in a pass can fault,
 * so the generator emits one ACCESS per touched page per pass: with a step
 * (-j) below 4 KiB every page, with a larger step the pages holding the
 * touched words. A random pass (-R) in usemem makes bytes/8 random word
 * accesses, which touch essentially every page; the generator emits every
 * touched page once per pass in a random order (a seeded permutation), which
 * is what the faults see. Tasks (-n) are separate processes (pids 1000+i)
 * interleaved round robin, CHUNK pages per turn, as concurrent tasks would be.
 * -y maps every task before any access; without it a task maps its region on
 * its first turn. -x frees every region after every task finished; without it
 * a task munmaps and exits right after its last pass. (In a replay a MMAP or
 * MUNMAP drains every queue, so each is a barrier anyway.)
 *
 * kbuild, shaped like a kernel build in a memcg (docs/replay.md): task 0
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
 *
 * Per-task streams: the access phase of usemem, memhog, zipf and uniform is
 * generated per task from the task's own state (task_next()), read either
 * round robin through next() or as one stream per task (streams(), stream():
 * the same records of each task; their time_ns is the task's own count, where
 * next() numbers the records it returns itself). bgsave and kbuild never split.
 *
 * Random numbers: splitmix64 from the seed (zipf and uniform: one stream per
 * task, task 0's the seed's); zipf samples by rejection-inversion
 * (Hormann and Derflinger, as Apache Commons' ZipfRejectionInversionSampler),
 * with the library's own log/exp so libswapsim needs no libm.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "replay_internal.h"

#define CHUNK 32                   /* pages per round-robin turn */
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
};

struct sws_workload {
	struct sws_mem mem;
	struct sws_workload_config cfg;
	uint64_t pages;       /* region of each task */
	uint64_t touch_pages; /* pages touched per pass */
	uint32_t ntasks, passes, write_passes;
	struct task_state *ts;
	enum phase phase;
	uint32_t cur, chunk_left, map_idx, free_idx;
	_Atomic uint32_t nfinished; /* tasks with nothing left in the access phase */
	uint64_t rng, emitted, total, count; /* count: random accesses / bgsave progress */
	uint64_t perm_mask, perm_key[3];
	double zs, hx1, hn, ss; /* zipf constants */
	struct sws_trace_record pend[8];
	unsigned npend, pend_head;
	/* kbuild */
	struct kb_job *jobs;   /* [ntasks] job slots */
	uint64_t kb_rng;       /* heap sizes, in job order (create walks it to count) */
	uint64_t kb_cold, kb_own, kb_win; /* pages: cold data, make's cold memory, a window */
	uint64_t kb_hdr;       /* pages of the shared headers */
	uint64_t kb_planned, kb_started, kb_jobs; /* accesses of started jobs; jobs started; in all */
	uint32_t kb_phases, kb_live;
	uint32_t kb_windows;   /* phase windows make has written */
	uint64_t kb_fill;      /* pages of the window being written */
};

struct kb_job {
	uint64_t heap, life, i; /* pages, accesses, accesses done */
	uint64_t hdr_left;      /* header pages still to read before it computes */
	uint32_t n;             /* the job's number (pid 1001 + n) */
	uint32_t phase;
	bool live;
};

#define KB_TURN 8

/* ---- math without libm ------------------------------------------------------------- */

#define LN2 0.6931471805599453

static double wl_log(double x)
{
	union {
		double d;
		uint64_t u;
	} v = {x};
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	v.u = (v.u & ((1ull << 52) - 1)) | (1023ull << 52); /* mantissa in [1, 2) */
	double m = v.d;
	if (m > 1.4142135623730951) {
		m *= 0.5;
		e++;
	}
	/* log(m) = 2 atanh(z), z = (m-1)/(m+1), |z| < 0.172: z (1 + z^2/3 + z^4/5 + ...),
	 * summed by Horner's rule to the z^23 term (the next is below 1e-18 of the sum). */
	static const double inv_odd[] = {1.0,      1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11,
					 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};
	double z = (m - 1) / (m + 1), z2 = z * z, sum = inv_odd[11];
	for (int k = 10; k >= 0; k--)
		sum = sum * z2 + inv_odd[k];
	return 2 * z * sum + e * LN2;
}

/* e^x as 2^k e^r, |r| <= ln2/2, e^r by Horner's rule to the r^16 term (the next
 * is below 1e-20). */
static double wl_exp(double x)
{
	static const double inv_fact[] = {
		1.0,
		1.0,
		1.0 / 2,
		1.0 / 6,
		1.0 / 24,
		1.0 / 120,
		1.0 / 720,
		1.0 / 5040,
		1.0 / 40320,
		1.0 / 362880,
		1.0 / 3628800,
		1.0 / 39916800,
		1.0 / 479001600,
		1.0 / 6227020800.0,
		1.0 / 87178291200.0,
		1.0 / 1307674368000.0,
		1.0 / 20922789888000.0,
	};
	if (x < -700)
		return 0;
	if (x > 700)
		x = 700;
	double kf = x / LN2;
	int k = (int)(kf < 0 ? kf - 0.5 : kf + 0.5);
	double r = x - k * LN2, sum = inv_fact[16];
	for (int i = 15; i >= 0; i--)
		sum = sum * r + inv_fact[i];
	union {
		double d;
		uint64_t u;
	} v;
	v.u = (uint64_t)(k + 1023) << 52;
	return sum * v.d;
}

static double helper1(double x) /* log1p(x)/x */
{
	if (x > 1e-8 || x < -1e-8)
		return wl_log(1 + x) / x;
	return 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x) /* expm1(x)/x */
{
	if (x > 1e-8 || x < -1e-8)
		return (wl_exp(x) - 1) / x;
	return 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

static double zh(const struct sws_workload *wl, double x) { return wl_exp(-wl->zs * wl_log(x)); }

static double zH(const struct sws_workload *wl, double x)
{
	double lx = wl_log(x);
	return helper2((1 - wl->zs) * lx) * lx;
}

static double zHinv(const struct sws_workload *wl, double x)
{
	double t = x * (1 - wl->zs);
	if (t < -1)
		t = -1;
	return wl_exp(helper1(t) * x);
}

static double rand01(uint64_t *s) { return (double)(sws__rand(s) >> 11) * (1.0 / 9007199254740992.0); }

/* A zipf rank in [1, pages], from the random stream @rng. */
static uint64_t zipf_sample(const struct sws_workload *wl, uint64_t *rng)
{
	double n = (double)wl->pages;
	for (;;) {
		double u = wl->hn + rand01(rng) * (wl->hx1 - wl->hn);
		double x = zHinv(wl, u);
		double kd = x + 0.5;
		uint64_t k = kd < 1 ? 1 : kd > n ? wl->pages : (uint64_t)kd;
		if ((double)k - x <= wl->ss || u >= zH(wl, (double)k + 0.5) - zh(wl, (double)k))
			return k;
	}
}

/* ---- a seeded permutation of [0, n): a bijection on 2^b, cycle-walked ----------- */

static uint64_t perm_round(const struct sws_workload *wl, uint64_t x, uint64_t key)
{
	uint64_t m = wl->perm_mask;
	unsigned half = (unsigned)(64 - __builtin_clzll(m | 1)) / 2 + 1;
	x = (x * (key | 1)) & m; /* odd multiplier: bijective mod 2^b */
	x ^= x >> half;          /* xorshift: bijective */
	return (x + (key >> 17)) & m;
}

static uint64_t permute(const struct sws_workload *wl, uint64_t x, uint64_t n, uint64_t salt)
{
	do {
		for (unsigned i = 0; i < 3; i++)
			x = perm_round(wl, x, wl->perm_key[i] ^ salt);
	} while (x >= n);
	return x;
}

/* ---- record emission -------------------------------------------------------------- */

static void fill(struct sws_trace_record *rec, uint32_t op, uint32_t task, uint64_t addr, uint64_t len,
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

/* Queue a record for next(); time_ns is its place in the stream. */
static void push(struct sws_workload *wl, uint32_t op, uint32_t task, uint64_t addr, uint64_t len,
		 uint32_t flags, uint32_t arg)
{
	struct sws_trace_record *rec = &wl->pend[(wl->pend_head + wl->npend++) % 8];
	fill(rec, op, task, addr, len, flags, arg);
	rec->time_ns = wl->emitted + wl->npend;
}

static uint64_t region_len(const struct sws_workload *wl) { return wl->pages * SWS_PAGE_SIZE; }

static void push_free(struct sws_workload *wl, uint32_t task)
{
	if (wl->cfg.flags & SWS_WORKLOAD_KEEP)
		return; /* the memory stays as the input ends */
	push(wl, SWS_TRACE_MUNMAP, task, BASE_ADDR, region_len(wl), 0, 0);
	push(wl, SWS_TRACE_EXIT, task, 0, 0, 0, 0);
}

/* ---- one task's access phase ------------------------------------------------------ */

/*
 * The next record of task @ti in the access phase, from its own state only
 * (so tasks may be generated on different threads): usemem and memhog map the
 * region (without -y), make the passes, then (without -x and --keep) unmap
 * and exit; zipf and uniform make their share of the accesses, each task from
 * its own random stream. @return 1, or 0 once the task has nothing left.
 */
static int task_next(struct sws_workload *wl, uint32_t ti, struct sws_trace_record *rec)
{
	struct task_state *t = &wl->ts[ti];
	if (wl->cfg.kind == SWS_WORKLOAD_ZIPF || wl->cfg.kind == SWS_WORKLOAD_UNIFORM) {
		if (t->k == t->quota)
			return 0;
		uint64_t idx = wl->cfg.kind == SWS_WORKLOAD_ZIPF ? zipf_sample(wl, &t->rng) - 1
								  : sws__rand(&t->rng) % wl->pages;
		/* Scatter ranks over the region: hot pages are not neighbours. */
		uint64_t page = permute(wl, idx, wl->pages, 0);
		bool write = sws__rand(&t->rng) % 100 < wl->cfg.write_pct;
		fill(rec, SWS_TRACE_ACCESS, ti, BASE_ADDR + page * SWS_PAGE_SIZE, 0,
		     write ? SWS_TRACE_F_WRITE : 0, 0);
		if (++t->k == t->quota)
			atomic_fetch_add_explicit(&wl->nfinished, 1, memory_order_relaxed);
		return 1;
	}
	if (!t->mapped) {
		t->mapped = true;
		fill(rec, SWS_TRACE_MMAP, ti, BASE_ADDR, region_len(wl), 0, 0);
		return 1;
	}
	if (t->done) {
		if (!t->tail)
			return 0;
		if (t->tail-- == 2)
			fill(rec, SWS_TRACE_MUNMAP, ti, BASE_ADDR, region_len(wl), 0, 0);
		else
			fill(rec, SWS_TRACE_EXIT, ti, 0, 0, 0, 0);
		if (!t->tail)
			atomic_fetch_add_explicit(&wl->nfinished, 1, memory_order_relaxed);
		return 1;
	}
	uint64_t idx = t->k;
	if (wl->cfg.flags & SWS_USEMEM_RANDOM)
		idx = permute(wl, idx, wl->touch_pages, ((uint64_t)ti << 32) | t->pass);
	uint64_t page = wl->cfg.step >= SWS_PAGE_SIZE ? idx * wl->cfg.step / SWS_PAGE_SIZE : idx;
	bool write = t->pass < wl->write_passes;
	fill(rec, SWS_TRACE_ACCESS, ti, BASE_ADDR + page * SWS_PAGE_SIZE, 0, write ? SWS_TRACE_F_WRITE : 0, 0);
	if (++t->k == wl->touch_pages) {
		t->k = 0;
		if (++t->pass == wl->passes) {
			t->done = true;
			t->tail = (wl->cfg.flags & (SWS_USEMEM_SYNC_FREE | SWS_WORKLOAD_KEEP)) ? 0 : 2;
			if (!t->tail)
				atomic_fetch_add_explicit(&wl->nfinished, 1, memory_order_relaxed);
		}
	}
	return 1;
}

/*
 * The access phase read as one stream: the tasks round robin, a turn of
 * @turn accesses each (a task's last access ends its turn, after its MUNMAP
 * and EXIT). @return true once every task is through.
 */
static bool gen_turns(struct sws_workload *wl, uint32_t turn)
{
	if (atomic_load_explicit(&wl->nfinished, memory_order_relaxed) == wl->ntasks)
		return true;
	struct task_state *t = &wl->ts[wl->cur];
	struct sws_trace_record *rec = &wl->pend[(wl->pend_head + wl->npend) % 8];
	if ((wl->chunk_left || t->tail) && task_next(wl, wl->cur, rec)) {
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

/* The access phase begins (right after the last MMAP of the map phase, so
 * that streams() sees it before the next record). */
static void access_begin(struct sws_workload *wl)
{
	bool passes = wl->cfg.kind == SWS_WORKLOAD_USEMEM || wl->cfg.kind == SWS_WORKLOAD_MEMHOG;
	wl->phase = PH_ACCESS;
	wl->chunk_left = passes ? CHUNK : 1;
}

/* usemem and memhog: passes over each task's region, round robin. */
static void gen_passes(struct sws_workload *wl)
{
	switch (wl->phase) {
	case PH_MAP: /* -y: every task maps first */
		wl->ts[wl->map_idx].mapped = true;
		push(wl, SWS_TRACE_MMAP, wl->map_idx++, BASE_ADDR, region_len(wl), 0, 0);
		if (wl->map_idx == wl->ntasks)
			access_begin(wl);
		return;
	case PH_ACCESS:
		if (gen_turns(wl, CHUNK))
			wl->phase = (wl->cfg.flags & SWS_USEMEM_SYNC_FREE) ? PH_FREE : PH_DONE;
		return;
	case PH_FREE:
		if (wl->free_idx < wl->ntasks)
			push_free(wl, wl->free_idx++);
		else
			wl->phase = PH_DONE;
		return;
	case PH_DONE:
		return;
	}
}

/* zipf and uniform: every task maps, random accesses round robin, every task frees. */
static void gen_random(struct sws_workload *wl)
{
	switch (wl->phase) {
	case PH_MAP:
		push(wl, SWS_TRACE_MMAP, wl->map_idx++, BASE_ADDR, region_len(wl), 0, 0);
		if (wl->map_idx == wl->ntasks)
			access_begin(wl);
		return;
	case PH_ACCESS:
		if (gen_turns(wl, 1))
			wl->phase = PH_FREE;
		return;
	case PH_FREE:
		if (wl->free_idx < wl->ntasks)
			push_free(wl, wl->free_idx++);
		else
			wl->phase = PH_DONE;
		return;
	case PH_DONE:
		return;
	}
}

/*
 * bgsave: the parent (task 0) writes its data set, forks the child (task 1),
 * then for each page the child reads (the snapshot), the parent writes its
 * share of nr_accesses random pages (copy-on-write of still-shared pages).
 */
static void gen_bgsave(struct sws_workload *wl)
{
	uint64_t n = wl->pages, w = wl->cfg.nr_accesses;
	switch (wl->phase) {
	case PH_MAP:
		push(wl, SWS_TRACE_MMAP, 0, BASE_ADDR, region_len(wl), 0, 0);
		wl->phase = PH_ACCESS;
		return;
	case PH_ACCESS:
		if (wl->count < n) { /* the parent fills its data set */
			push(wl, SWS_TRACE_ACCESS, 0, BASE_ADDR + wl->count++ * SWS_PAGE_SIZE, 0,
			     SWS_TRACE_F_WRITE, 0);
			if (wl->count == n)
				push(wl, SWS_TRACE_FORK, 0, 0, 0, 0, PID0 + 1);
			return;
		}
		if (wl->count < 2 * n) {
			uint64_t k = wl->count++ - n;
			push(wl, SWS_TRACE_ACCESS, 1, BASE_ADDR + k * SWS_PAGE_SIZE, 0, 0, 0);
			/* Parent writes spread evenly over the child's pass. */
			uint64_t nw = (uint64_t)((unsigned __int128)(k + 1) * w / n - (unsigned __int128)k * w / n);
			for (uint64_t i = 0; i < nw && i < 6; i++)
				push(wl, SWS_TRACE_ACCESS, 0,
				     BASE_ADDR + (sws__rand(&wl->rng) % n) * SWS_PAGE_SIZE, 0,
				     SWS_TRACE_F_WRITE, 0);
			return;
		}
		push(wl, SWS_TRACE_EXIT, 1, 0, 0, 0, 0);
		wl->phase = PH_FREE;
		return;
	case PH_FREE:
		push_free(wl, 0);
		wl->phase = PH_DONE;
		return;
	case PH_DONE:
		return;
	}
}

/* ---- kbuild --------------------------------------------------------------------------- */

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
	j->heap = kb_heap(wl, &wl->kb_rng);
	j->life = kb_life(j->heap);
	j->i = 0;
	j->n = (uint32_t)wl->kb_started;
	j->phase = (uint32_t)(wl->kb_started * wl->kb_phases / wl->kb_jobs);
	j->live = true;
	j->hdr_left = kb_hdrs(j->heap);
	wl->kb_started++;
	wl->kb_live++;
	push(wl, SWS_TRACE_MMAP, kb_pid(j->n), BASE_ADDR, j->heap * SWS_PAGE_SIZE, 0, 0);
	push(wl, SWS_TRACE_FILE, kb_pid(j->n), 0, kb_src(j->heap) * SWS_PAGE_SIZE, 0, 1 + 2 * j->n);
}

static double kb_u(struct sws_workload *wl) { return rand01(&wl->rng); }

/* One access of job @j: first its header reads (biased to the headers'
 * start: the common ones), then its computation. */
static void kb_access(struct sws_workload *wl, struct kb_job *j)
{
	if (j->hdr_left) {
		j->hdr_left--;
		double u = kb_u(wl);
		uint64_t page = (uint64_t)((double)wl->kb_hdr * u * u);
		push(wl, SWS_TRACE_FILE, kb_pid(j->n), page * SWS_PAGE_SIZE, 0, 0, KB_FILE_HDR);
		return;
	}
	uint64_t alloc = (j->i * 2 * j->heap) / j->life + 1; /* allocated over the first half */
	if (alloc > j->heap)
		alloc = j->heap;
	uint64_t prev = j->i ? ((j->i - 1) * 2 * j->heap) / j->life + 1 : 0;
	j->i++;
	if (alloc > prev && prev < j->heap) { /* the allocation frontier: a new page */
		push(wl, SWS_TRACE_ACCESS, kb_pid(j->n), BASE_ADDR + (alloc - 1) * SWS_PAGE_SIZE, 0,
		     SWS_TRACE_F_WRITE, 0);
		return;
	}
	uint64_t r = sws__rand(&wl->rng);
	bool write = r % 100 < 30;
	if (r % 4 == 1) { /* the phase's window, make's memory */
		double u = kb_u(wl);
		uint64_t off = (uint64_t)((double)wl->kb_win * u * u);
		uint64_t page = wl->kb_cold + wl->kb_own + (uint64_t)j->phase * wl->kb_win + off;
		push(wl, SWS_TRACE_ACCESS, 0, BASE_ADDR + page * SWS_PAGE_SIZE, 0, write ? SWS_TRACE_F_WRITE : 0, 0);
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
	push(wl, SWS_TRACE_ACCESS, kb_pid(j->n), BASE_ADDR + page * SWS_PAGE_SIZE, 0, write ? SWS_TRACE_F_WRITE : 0, 0);
}

static uint64_t kb_region(const struct sws_workload *wl)
{
	return (wl->kb_cold + wl->kb_own + (uint64_t)wl->kb_phases * wl->kb_win) * SWS_PAGE_SIZE;
}

static void gen_kbuild(struct sws_workload *wl)
{
	switch (wl->phase) {
	case PH_MAP: /* make maps its region and writes its cold data, then its own memory */
		if (!wl->count) {
			push(wl, SWS_TRACE_MMAP, 0, BASE_ADDR, kb_region(wl), 0, 0);
			wl->count = 1;
			return;
		}
		if (wl->count <= wl->kb_cold + wl->kb_own) {
			push(wl, SWS_TRACE_ACCESS, 0, BASE_ADDR + (wl->count - 1) * SWS_PAGE_SIZE, 0, SWS_TRACE_F_WRITE, 0);
			wl->count++;
			return;
		}
		wl->phase = PH_ACCESS;
		wl->cur = 0;
		wl->chunk_left = KB_TURN;
		return;
	case PH_ACCESS: {
		struct kb_job *j = &wl->jobs[wl->cur];
		if (wl->kb_fill) { /* make writes the new phase's window */
			uint64_t page = wl->kb_cold + wl->kb_own + (uint64_t)(wl->kb_windows - 1) * wl->kb_win +
					(wl->kb_win - wl->kb_fill--);
			push(wl, SWS_TRACE_ACCESS, 0, BASE_ADDR + page * SWS_PAGE_SIZE, 0, SWS_TRACE_F_WRITE, 0);
			return;
		}
		if (!j->live) {
			if (wl->kb_started < wl->kb_jobs) {
				uint32_t phase = (uint32_t)(wl->kb_started * wl->kb_phases / wl->kb_jobs);
				if (phase >= wl->kb_windows) { /* a phase begins: its shared data first */
					wl->kb_windows = phase + 1;
					wl->kb_fill = wl->kb_win;
					return;
				}
				kb_start(wl, j);
				return;
			}
			if (!wl->kb_live) {
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
			push(wl, SWS_TRACE_FILE, kb_pid(j->n), 0, kb_obj(j->heap) * SWS_PAGE_SIZE, SWS_TRACE_F_WRITE,
			     2 + 2 * j->n);
			push(wl, SWS_TRACE_MUNMAP, kb_pid(j->n), BASE_ADDR, j->heap * SWS_PAGE_SIZE, 0, 0);
			push(wl, SWS_TRACE_EXIT, kb_pid(j->n), 0, 0, 0, 0);
			j->live = false;
			wl->kb_live--;
			wl->chunk_left = 0;
			return;
		}
		kb_access(wl, j);
		wl->chunk_left--;
		return;
	}
	case PH_FREE:
		push(wl, SWS_TRACE_MUNMAP, 0, BASE_ADDR, kb_region(wl), 0, 0);
		push(wl, SWS_TRACE_EXIT, 0, 0, 0, 0, 0);
		wl->phase = PH_DONE;
		return;
	case PH_DONE:
		return;
	}
}

static int wl_next(void *ctx, struct sws_trace_record *rec)
{
	struct sws_workload *wl = ctx;
	while (!wl->npend) {
		if (wl->phase == PH_DONE)
			return 0;
		switch (wl->cfg.kind) {
		case SWS_WORKLOAD_USEMEM:
		case SWS_WORKLOAD_MEMHOG:
			gen_passes(wl);
			break;
		case SWS_WORKLOAD_ZIPF:
		case SWS_WORKLOAD_UNIFORM:
			gen_random(wl);
			break;
		case SWS_WORKLOAD_BGSAVE:
			gen_bgsave(wl);
			break;
		case SWS_WORKLOAD_KBUILD:
			gen_kbuild(wl);
			break;
		}
	}
	*rec = wl->pend[wl->pend_head];
	wl->pend_head = (wl->pend_head + 1) % 8;
	wl->npend--;
	wl->emitted++;
	return 1;
}

/* The access phase of usemem, memhog, zipf and uniform is one stream per task,
 * from where next() stands (nothing generated and not yet returned). */
static uint32_t wl_streams(void *ctx)
{
	struct sws_workload *wl = ctx;
	bool split = wl->cfg.kind == SWS_WORKLOAD_USEMEM || wl->cfg.kind == SWS_WORKLOAD_MEMHOG ||
		     wl->cfg.kind == SWS_WORKLOAD_ZIPF || wl->cfg.kind == SWS_WORKLOAD_UNIFORM;
	if (!split || wl->phase != PH_ACCESS || wl->npend ||
	    atomic_load_explicit(&wl->nfinished, memory_order_relaxed) == wl->ntasks)
		return 0;
	return wl->ntasks;
}

/* Stream @s: task @s's records, time_ns its own count. */
static int wl_stream(void *ctx, uint32_t s, struct sws_trace_record *rec)
{
	struct sws_workload *wl = ctx;
	if (s >= wl->ntasks || wl->phase != PH_ACCESS || !task_next(wl, s, rec))
		return 0;
	rec->time_ns = ++wl->ts[s].nrec;
	return 1;
}

struct sws_replay_source sws_workload_source(struct sws_workload *wl)
{
	struct sws_replay_source s = {
		.next = wl_next, .error = NULL, .ctx = wl, .streams = wl_streams, .stream = wl_stream};
	return s;
}

uint64_t sws_workload_total(const struct sws_workload *wl) { return wl ? wl->total : 0; }

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

int sws_workload_create(const struct sws_workload_config *cfg, struct sws_workload **out)
{
	if (!cfg || !out)
		return SWS_EINVAL;
	*out = NULL;
	if (cfg->version > SWS_WORKLOAD_CONFIG_VERSION)
		return SWS_EVERSION;
	if (cfg->kind < SWS_WORKLOAD_USEMEM || cfg->kind > SWS_WORKLOAD_KBUILD || !cfg->bytes ||
	    (cfg->cold_bytes && cfg->kind != SWS_WORKLOAD_KBUILD) || cfg->cold_bytes > SWS_WORKLOAD_MAX_BYTES ||
	    cfg->write_pct > 100 || cfg->zipf_s < 0 || cfg->reserved ||
	    (cfg->step && cfg->step < 8) || cfg->bytes > SWS_WORKLOAD_MAX_BYTES ||
	    cfg->nr_accesses > SWS_WORKLOAD_MAX_ACCESSES ||
	    (cfg->env && cfg->env->version > SWS_ENV_VERSION))
		return SWS_EINVAL;
	struct sws_mem tmp;
	sws__mem_init(&tmp, cfg->env ? &cfg->env->allocator : NULL);
	uint32_t ntasks = cfg->nr_tasks ? cfg->nr_tasks : cfg->kind == SWS_WORKLOAD_KBUILD ? 8 : 1;
	if (cfg->kind == SWS_WORKLOAD_MEMHOG || cfg->kind == SWS_WORKLOAD_BGSAVE)
		ntasks = cfg->kind == SWS_WORKLOAD_BGSAVE ? 2 : 1;
	if (ntasks > 65536)
		return SWS_EINVAL;
	struct sws_workload *wl = sws__mem_zalloc(&tmp, SWS_MEM_sim, sizeof(*wl), 0);
	if (!wl)
		return SWS_ENOMEM;
	wl->mem.a = tmp.a;
	wl->ts = sws__mem_zalloc(&tmp, SWS_MEM_sim, ntasks * sizeof(*wl->ts), SWS_CACHELINE);
	if (!wl->ts) {
		sws__mem_free(&tmp, SWS_MEM_sim, wl, sizeof(*wl));
		return SWS_ENOMEM;
	}
	if (cfg->kind == SWS_WORKLOAD_KBUILD) {
		wl->jobs = sws__mem_zalloc(&tmp, SWS_MEM_sim, ntasks * sizeof(*wl->jobs), 0);
		if (!wl->jobs) {
			sws__mem_free(&tmp, SWS_MEM_sim, wl->ts, ntasks * sizeof(*wl->ts));
			sws__mem_free(&tmp, SWS_MEM_sim, wl, sizeof(*wl));
			return SWS_ENOMEM;
		}
	}
	wl->cfg = *cfg;
	wl->cfg.env = NULL;
	wl->ntasks = ntasks;
	wl->pages = (cfg->bytes + SWS_PAGE_SIZE - 1) / SWS_PAGE_SIZE;
	wl->rng = cfg->seed ^ 0x5eed5eed5eedull;
	uint32_t repeat = cfg->repeat ? cfg->repeat : 1;
	if (!wl->cfg.step)
		wl->cfg.step = 8;
	if (cfg->kind == SWS_WORKLOAD_MEMHOG)
		wl->cfg.step = SWS_PAGE_SIZE, wl->cfg.flags = 0;
	/* touches at 0, step, 2 x step, ... below the size (pages x 4 KiB <= 2^50 + 4 KiB:
	 * no overflow, whatever the step; idx x step stays below the size) */
	wl->touch_pages = wl->cfg.step >= SWS_PAGE_SIZE ? (wl->pages * SWS_PAGE_SIZE - 1) / wl->cfg.step + 1
							: wl->pages;
	wl->write_passes = (wl->cfg.flags & SWS_USEMEM_READONLY) ? 0 : repeat;
	wl->passes = repeat + ((wl->cfg.flags & SWS_USEMEM_READ_AGAIN) ? 1 : 0);
	if (!wl->cfg.nr_accesses)
		wl->cfg.nr_accesses = cfg->kind == SWS_WORKLOAD_BGSAVE ? wl->pages : 4 * wl->pages;
	wl->perm_mask = 1;
	while (wl->perm_mask < wl->pages)
		wl->perm_mask = wl->perm_mask * 2 + 1;
	uint64_t ks = cfg->seed ^ 0xa5a5a5a5deadbeefull;
	for (unsigned i = 0; i < 3; i++)
		wl->perm_key[i] = sws__rand(&ks);
	switch (cfg->kind) {
	case SWS_WORKLOAD_USEMEM:
	case SWS_WORKLOAD_MEMHOG:
		/* records to come (the progress bar's 100%): saturated, never wrapped */
		wl->total = sat_mul(ntasks, sat_add(3, sat_mul(wl->passes, wl->touch_pages)));
		break;
	case SWS_WORKLOAD_ZIPF:
	case SWS_WORKLOAD_UNIFORM:
		wl->total = 3ull * ntasks + wl->cfg.nr_accesses;
		break;
	case SWS_WORKLOAD_KBUILD: {
		/* Jobs start until their lives add up to nr_accesses: count them, and
		 * their records, on a copy of the heap stream. */
		wl->kb_cold = (cfg->cold_bytes + SWS_PAGE_SIZE - 1) / SWS_PAGE_SIZE;
		wl->kb_own = wl->pages / 8 ? wl->pages / 8 : 1;
		wl->kb_win = wl->pages / 8 ? wl->pages / 8 : 1;
		wl->kb_hdr = wl->pages / 8 ? wl->pages / 8 : 1;
		wl->kb_phases = cfg->repeat ? cfg->repeat : 8;
		if (!cfg->nr_accesses)
			wl->cfg.nr_accesses = 16 * wl->pages;
		wl->kb_rng = cfg->seed ^ 0x6b6275696c64ull; /* "kbuild" */
		uint64_t rng = wl->kb_rng, planned = 0, records = 0;
		wl->kb_jobs = 0;
		while (planned < wl->cfg.nr_accesses) {
			if (wl->kb_jobs == SWS_WORKLOAD_MAX_JOBS) { /* bounded work, bounded pids */
				sws_workload_destroy(wl);
				return SWS_EINVAL;
			}
			uint64_t heap = kb_heap(wl, &rng), life = kb_life(heap);
			planned += life;
			/* MMAP, the source, the headers, the accesses, the object, MUNMAP, EXIT */
			records += life + kb_hdrs(heap) + 5;
			wl->kb_jobs++;
		}
		/* make writes each phase's window as the phase's first job starts (a
		 * phase with no job of its own is never written) */
		uint64_t fills = 0, next = 0;
		for (uint64_t n = 0; n < wl->kb_jobs; n++) {
			uint64_t phase = n * wl->kb_phases / wl->kb_jobs;
			if (phase >= next) {
				fills++;
				next = phase + 1;
			}
		}
		wl->total = 1 + wl->kb_cold + wl->kb_own + records + 2 + fills * wl->kb_win;
		break;
	}
	case SWS_WORKLOAD_BGSAVE: {
		/* Parent writes per child read are capped at 6 (see gen_bgsave): the
		 * share of read k is floor((k+1)a/n) - floor(ka/n), each floor(a/n)
		 * or one more, so all are at most 6 when a <= 6n (w = a) and all at
		 * least 6 otherwise (w = 6n). No loop over the pages. */
		uint64_t n = wl->pages, a = wl->cfg.nr_accesses;
		uint64_t w = a <= 6 * n ? a : 6 * n;
		wl->total = 2 * n + w + 5;
		break;
	}
	}
	if (cfg->flags & SWS_WORKLOAD_KEEP) /* no MUNMAP and EXIT at the end (bgsave's child still exits) */
		wl->total -= 2ull * (cfg->kind == SWS_WORKLOAD_BGSAVE ? 1 : ntasks);
	if (cfg->kind == SWS_WORKLOAD_ZIPF || cfg->kind == SWS_WORKLOAD_UNIFORM) {
		/* Task i makes accesses i, i + n, ... of nr_accesses, from a random
		 * stream of its own (task 0's is the workload's seed stream). */
		for (uint32_t i = 0; i < ntasks; i++) {
			struct task_state *t = &wl->ts[i];
			t->quota = wl->cfg.nr_accesses / ntasks + (i < wl->cfg.nr_accesses % ntasks);
			uint64_t s = wl->rng ^ ((uint64_t)i * 0xd1b54a32d192ed03ull);
			t->rng = i ? sws__rand(&s) : wl->rng;
			if (!t->quota)
				wl->nfinished++;
		}
	}
	if ((cfg->kind == SWS_WORKLOAD_USEMEM || cfg->kind == SWS_WORKLOAD_MEMHOG) &&
	    !(wl->cfg.flags & SWS_USEMEM_SYNC_RW))
		access_begin(wl); /* each task maps on its first turn */
	wl->zs = cfg->zipf_s > 0 ? cfg->zipf_s : 0.99;
	if (cfg->kind == SWS_WORKLOAD_ZIPF) {
		wl->hx1 = zH(wl, 1.5) - 1;
		wl->hn = zH(wl, (double)wl->pages + 0.5);
		wl->ss = 2 - zHinv(wl, zH(wl, 2.5) - zh(wl, 2));
	}
	*out = wl;
	return 0;
}

void sws_workload_destroy(struct sws_workload *wl)
{
	if (!wl)
		return;
	struct sws_mem m = {.a = wl->mem.a};
	if (wl->jobs)
		sws__mem_free(&m, SWS_MEM_sim, wl->jobs, wl->ntasks * sizeof(*wl->jobs));
	sws__mem_free(&m, SWS_MEM_sim, wl->ts, wl->ntasks * sizeof(*wl->ts));
	sws__mem_free(&m, SWS_MEM_sim, wl, sizeof(*wl));
}

int sws_workload_content(const struct sws_workload *wl, uint32_t weight[SWS_NR_CONTENT])
{
	if (!wl || (wl->cfg.kind != SWS_WORKLOAD_USEMEM && wl->cfg.kind != SWS_WORKLOAD_MEMHOG &&
		    wl->cfg.kind != SWS_WORKLOAD_KBUILD))
		return 0;
	memset(weight, 0, SWS_NR_CONTENT * sizeof(weight[0]));
	if (wl->cfg.kind == SWS_WORKLOAD_KBUILD) { /* a compiler's heap: mostly text-like */
		weight[SWS_CONTENT_ZERO] = 1;
		weight[SWS_CONTENT_INDEX] = 3;
		weight[SWS_CONTENT_TEXT] = 14;
		weight[SWS_CONTENT_RANDOM] = 2;
		return 1;
	}
	weight[wl->cfg.kind == SWS_WORKLOAD_USEMEM ? SWS_CONTENT_INDEX : SWS_CONTENT_SAME] = 1;
	return 1;
}

static int emit(int (*write)(void *, const char *, size_t), void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int emit(int (*write)(void *, const char *, size_t), void *ctx, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return SWS_EINVAL;
	return write(ctx, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

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

static int throughput_line(int (*write)(void *, const char *, size_t), void *ctx,
			   const char *intro, uint64_t bytes, uint64_t ns)
{
	return emit(write, ctx, "%s%lu bytes / %lu usecs = %lu KB/s\n", intro, (unsigned long)bytes,
		    (unsigned long)(ns / 1000), kb_per_s(bytes, ns));
}

int sws_workload_print_results(const struct sws_workload *wl, const struct sws_replay *r,
			       int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	if (!wl || !r || !write)
		return SWS_EINVAL;
	if (wl->cfg.kind != SWS_WORKLOAD_USEMEM)
		return 0;
	for (uint32_t i = 0; i < sws_replay_nr_tasks(r); i++) {
		struct sws_replay_task t;
		struct usemem_task u;
		int err;
		sws_replay_task_get(r, i, &t);
		if (!usemem_task(wl, &t, &u))
			continue;
		if (t.oom_killed) { /* usemem killed by SIGKILL prints nothing of its own */
			if ((err = emit(write, ctx, "usemem task %lu (pid %u): killed by the OOM killer, "
				       "no figures\n", (unsigned long)(t.pid - PID0), t.pid)))
				return err;
			continue;
		}
		if ((wl->cfg.flags & SWS_USEMEM_INIT_TIME) &&
		    (err = emit(write, ctx, "the initialization time is %lu secs %lu usecs\n",
				(unsigned long)(u.init_ns / 1000000000u),
				(unsigned long)(u.init_ns / 1000 % 1000000))))
			return err;
		if ((err = throughput_line(write, ctx, "", u.bytes, u.main_ns)))
			return err;
		if (u.again_bytes && (err = throughput_line(write, ctx, "read again ", u.again_bytes, u.again_ns)))
			return err;
		if ((err = emit(write, ctx, "%lu usecs to free memory\n", (unsigned long)(u.free_ns / 1000))))
			return err;
	}
	return 0;
}

int sws_workload_figures(const struct sws_workload *wl, const struct sws_replay *r,
			 struct sws_replay_report *rep)
{
	if (!wl || !r || !rep)
		return SWS_EINVAL;
	memset(&rep->workload, 0, sizeof(rep->workload));
	if (wl->cfg.kind != SWS_WORKLOAD_USEMEM)
		return 0;
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
		return 0;
	rep->workload = (struct sws_replay_workload_figures){
		.valid = true, .tasks = n, .killed = killed, .throughput_kbs = sum,
		.task_throughput_kbs = sum / n, .free_latency_us = free_us / n};
	return 0;
}

static const char *const wl_names[] = {"unknown", "usemem", "memhog", "zipf", "uniform", "bgsave", "kbuild"};

const char *sws_workload_name(enum sws_workload_kind kind)
{
	return (unsigned)kind <= SWS_WORKLOAD_KBUILD ? wl_names[kind] : "unknown";
}

int sws_workload_parse(const char *name, enum sws_workload_kind *out)
{
	for (unsigned i = SWS_WORKLOAD_USEMEM; name && i <= SWS_WORKLOAD_KBUILD; i++)
		if (!strcmp(name, wl_names[i])) {
			*out = (enum sws_workload_kind)i;
			return 0;
		}
	return SWS_EINVAL;
}
