/*
 * sched.c - the modelled clock's event loop: simulated CPUs as fibers on the
 * caller's thread, ordered in virtual time (docs/modelled-time.md); and the
 * replay's use of it, a worker per CPU.
 *
 * HOW IT WORKS
 *
 * Each CPU is a fiber running its body, with a virtual clock (struct
 * sws_vcpu). The main context (the caller's own stack) runs the CPUs: it pops
 * the earliest READY CPU from a heap keyed by (virtual time, index) and
 * switches to it. The CPU runs until a sync point (a lock taken or released,
 * a device request, a record's end) finds it later than the earliest READY
 * CPU by more than the quantum: it yields (READY again, back in the heap);
 * until it finds a lock taken (BLOCKED until the holder releases it: the
 * release wakes the earliest waiter, at the release time); or until its body
 * has nothing to run (IDLE, out of the heap until woken).
 *
 * A CPU woken from IDLE resumes at the global virtual time (the earliest busy
 * CPU's time; with every CPU idle, the latest's): a CPU never runs in another
 * CPU's past. A barrier runs one CPU on the main stack with every CPU idle,
 * at the latest CPU's time: none of them holds anything then, and with an
 * empty heap no sync point yields.
 *
 * Every field here is touched by the caller's thread only.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"

/* ---- the ready heap ------------------------------------------------------------- */

static bool before(const struct sws__vcpu_run *a, const struct sws__vcpu_run *b)
{
	return a->key < b->key || (a->key == b->key && a->idx < b->idx);
}

/* The running CPU's unlock goes inline before this time (vtime.h's vc->limit):
 * up to its horizon, and never while a CPU waits for a lock (a release at
 * time 0 too). nr_blocked grows only when the running CPU blocks, and the
 * next CPU runs after set_horizon(). */
static void set_limit(struct sws__sched *s)
{
	s->limit = s->nr_blocked ? 0 : s->horizon == UINT64_MAX ? UINT64_MAX : s->horizon + 1;
}

static void set_horizon(struct sws__sched *s)
{
	s->horizon = s->nheap ? s->heap[0]->key + s->quantum : UINT64_MAX;
	set_limit(s);
}

/* Keyed by the CPU's clock now: nothing moves a READY CPU's clock (the
 * running CPU moves its own; a wake or a barrier moves a BLOCKED or IDLE
 * CPU's before it comes in here), so the key stays its clock until it is
 * popped (heap_pop() asserts it in a build with assertions). */
static void heap_push(struct sws__sched *s, struct sws__vcpu_run *c)
{
	c->key = c->vc->now;
	unsigned i = s->nheap++;
	while (i) {
		unsigned up = (i - 1) / 2;
		if (!before(c, s->heap[up]))
			break;
		s->heap[i] = s->heap[up];
		i = up;
	}
	s->heap[i] = c;
	c->state = SWS__CPU_READY;
}

static struct sws__vcpu_run *heap_pop(struct sws__sched *s)
{
	struct sws__vcpu_run *top = s->heap[0], *last = s->heap[--s->nheap];
	unsigned i = 0;
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && before(s->heap[c + 1], s->heap[c]))
			c++;
		if (!before(s->heap[c], last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	assert(top->key == top->vc->now);
	return top;
}

/* ---- the hooks the library calls at sync points (vtime.h) ---------------------- */

static void to_main(struct sws__vcpu_run *c) { sws__fiber_switch(&c->fiber, &c->s->main); }

static void cpu_yield(struct sws_vcpu *vc)
{
	struct sws__vcpu_run *c = vc->sched;
	if (c->state != SWS__CPU_RUNNING) /* the main stack at a barrier: nobody else runs */
		return;
	heap_push(c->s, c);
	to_main(c);
}

static void cpu_block(struct sws_vcpu *vc, const void *obj, bool spin)
{
	struct sws__vcpu_run *c = vc->sched;
	if (c->state != SWS__CPU_RUNNING) {
		/* On the main stack every other CPU is idle and holds nothing. */
		fprintf(stderr, "libswapsim: modelled clock: a lock is held while every CPU is idle\n");
		abort();
	}
	c->wait_obj = obj;
	c->wait_spin = spin;
	c->wait_since = vc->now;
	c->state = SWS__CPU_BLOCKED;
	c->s->blocked[c->s->nr_blocked++] = c;
	to_main(c);
}

static void cpu_wake(struct sws_vcpu *vc, const void *obj)
{
	struct sws__sched *s = ((struct sws__vcpu_run *)vc->sched)->s;
	struct sws__vcpu_run *first = NULL;
	unsigned at = 0;
	for (unsigned i = 0; i < s->nr_blocked; i++) {
		struct sws__vcpu_run *o = s->blocked[i];
		if (o->wait_obj == obj && (!first || o->wait_since < first->wait_since ||
					   (o->wait_since == first->wait_since && o->idx < first->idx))) {
			first = o;
			at = i;
		}
	}
	if (!first)
		return;
	s->blocked[at] = s->blocked[--s->nr_blocked];
	first->wait_obj = NULL;
	sws__vt_wait_until(first->vc, vc->now); /* it waited until the release */
	heap_push(s, first);
	set_horizon(s);
}

static const struct sws_vsched_ops sched_ops = {
	.yield = cpu_yield,
	.block = cpu_block,
	.wake = cpu_wake,
};

/* ---- the loop ------------------------------------------------------------------- */

uint64_t sws__sched_gvt(const struct sws__sched *s)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (unsigned i = 0; i < s->n; i++) {
		const struct sws__vcpu_run *c = s->cpu[i];
		if (!c)
			continue; /* not added yet */
		if (c->state != SWS__CPU_IDLE && c->vc->now < lo)
			lo = c->vc->now;
		if (c->vc->now > hi)
			hi = c->vc->now;
	}
	return lo != UINT64_MAX ? lo : hi;
}

void sws__sched_wake(struct sws__vcpu_run *c)
{
	if (c->state != SWS__CPU_IDLE)
		return;
	sws__vt_wait_until(c->vc, sws__sched_gvt(c->s));
	heap_push(c->s, c);
}

void sws__sched_idle(struct sws__vcpu_run *c)
{
	c->state = SWS__CPU_IDLE;
	to_main(c);
}

void sws__sched_run(struct sws__sched *s, bool (*done)(const void *arg), const void *arg)
{
	while (!done || !done(arg)) {
		if (!s->nheap) {
			if (s->nr_blocked) {
				fprintf(stderr, "libswapsim: modelled clock: %u CPUs wait for locks nobody holds\n",
					s->nr_blocked);
				abort();
			}
			return;
		}
		struct sws__vcpu_run *c = heap_pop(s);
		set_horizon(s);
		c->state = SWS__CPU_RUNNING;
		sws__vt_current = c->vc;
		sws__fiber_switch(&s->main, &c->fiber);
		sws__vt_current = NULL;
		if (s->turn && ++s->turns % 4096 == 0 && s->turn(s->turn_ctx))
			s->turn = NULL; /* stopped: the bodies see it themselves */
	}
}

void sws__sched_enter(struct sws__vcpu_run *c)
{
	sws__vt_wait_until(c->vc, sws__sched_gvt(c->s)); /* every CPU idle: the latest */
	c->s->horizon = UINT64_MAX;
	set_limit(c->s);
	sws__vt_current = c->vc;
}

void sws__sched_leave(struct sws__vcpu_run *c)
{
	(void)c;
	sws__vt_current = NULL;
}

int sws__sched_init(struct sws__sched *s, struct sws_mem *mem, unsigned n, uint64_t quantum_ps)
{
	memset(s, 0, sizeof(*s));
	s->mem = mem;
	s->quantum = quantum_ps;
	s->horizon = UINT64_MAX;
	s->limit = UINT64_MAX;
	s->kswapd = UINT32_MAX;
	s->cpu = sws__mem_zalloc(mem, SWS_MEM_sim, n * sizeof(*s->cpu), 0);
	s->heap = sws__mem_alloc(mem, SWS_MEM_sim, n * sizeof(*s->heap), 0);
	s->blocked = sws__mem_alloc(mem, SWS_MEM_sim, n * sizeof(*s->blocked), 0);
	if (!s->cpu || !s->heap || !s->blocked)
		return SWS_ENOMEM;
	s->n = n;
	sws__fiber_main(&s->main);
	return 0;
}

int sws__sched_add(struct sws__sched *s, unsigned idx, struct sws__vcpu_run *c, struct sws_vcpu *vc,
		   const struct sws_costs *costs, size_t stack, void (*body)(void *), void *arg)
{
	memset(c, 0, sizeof(*c));
	c->vc = vc;
	c->s = s;
	c->idx = idx;
	c->state = SWS__CPU_IDLE;
	vc->costs = costs;
	vc->ops = &sched_ops;
	vc->horizon = &s->horizon;
	vc->nr_blocked = &s->nr_blocked;
	vc->limit = &s->limit;
	vc->sched = c;
	sws__vt_set_id(vc, idx);
	s->cpu[idx] = c;
	return sws__fiber_create(&c->fiber, stack, body, arg) ? SWS_ENOMEM : 0;
}

void sws__sched_fini(struct sws__sched *s)
{
	for (unsigned i = 0; s->cpu && i < s->n; i++)
		if (s->cpu[i])
			sws__fiber_destroy(&s->cpu[i]->fiber);
	if (s->cpu)
		sws__mem_free(s->mem, SWS_MEM_sim, s->cpu, s->n * sizeof(*s->cpu));
	if (s->heap)
		sws__mem_free(s->mem, SWS_MEM_sim, s->heap, s->n * sizeof(*s->heap));
	if (s->blocked)
		sws__mem_free(s->mem, SWS_MEM_sim, s->blocked, s->n * sizeof(*s->blocked));
	s->cpu = NULL;
	s->heap = NULL;
	s->blocked = NULL;
}

/* ==== the replay's CPUs: a worker each ============================================ */

/* Fiber stacks: the model's deepest path (a fault's reclaim, zswap's
 * compression with lz4's state on the stack) with room to spare; the
 * sanitizers' frames are larger. */
#if defined(SWS_ASAN) || defined(SWS_TSAN)
#define STACK_BYTES (8u << 20)
#else
#define STACK_BYTES (1u << 20)
#endif

static void cpu_main(void *arg)
{
	struct sws__worker *w = arg;
	struct sws_replay *r = w->r;
	for (;;) {
		if (w->streams) {
			w->streams = false;
			sws__run_streams(w);
			continue;
		}
		if (w->count) {
			/* Run in place. The ring has a slot more than it holds
			 * (nslots = cap + 1): while this record runs, the pushes
			 * another CPU's yield lets in fill at most cap slots after
			 * it, never its own. */
			const struct sws__item *it = &w->ring[w->head];
			w->head = w->head + 1 == w->nslots ? 0 : w->head + 1;
			w->count--;
			sws__run_item(w, it);
			continue;
		}
		if (r->sched.kswapd == w->idx)
			sws__kswapd_step(w); /* its last step before the CPU idles */
		sws__sched_idle(&w->run);
	}
}

static bool progress(void *ctx)
{
	struct sws_replay *r = ctx;
	if (r->interrupted || !r->cfg.progress(r->cfg.cb_ctx, r->events + sws__streamed(r)))
		return false;
	r->interrupted = true;
	atomic_store_explicit(&r->streams_stop, true, memory_order_relaxed);
	return true;
}

static bool ring_has_room(const void *arg)
{
	const struct sws__worker *w = arg;
	return w->count < w->cap;
}

void sws__sched_make_room(struct sws_replay *r, struct sws__worker *w)
{
	sws__sched_run(&r->sched, ring_has_room, w);
}

void sws__sched_drain(struct sws_replay *r) { sws__sched_run(&r->sched, NULL, NULL); }

void sws__sched_streams(struct sws_replay *r)
{
	for (uint32_t k = 0; k < r->nstreams; k++) {
		struct sws__worker *w = &r->workers[r->streams[k].worker];
		w->streams = true;
		sws__sched_wake(&w->run);
	}
	sws__sched_run(&r->sched, NULL, NULL);
}

struct sws__worker *sws__replay_enter(struct sws_replay *r, unsigned wi)
{
	struct sws__worker *w = &r->workers[wi];
	sws__sched_enter(&w->run);
	w->wall_mark = w->vc.now;
	return w;
}

void sws__replay_leave(struct sws_replay *r, struct sws__worker *w)
{
	(void)r;
	sws__sched_leave(&w->run);
}

/*
 * One step of kswapd on @w's CPU (the CPU it was woken on), between that
 * CPU's records: `kswapd_budget` pages, charged to no task. It shares the
 * CPU fairly with the tasks there (a step runs while kswapd has had no more
 * of the CPU than they have since it woke) and goes back to sleep when a step
 * leaves no work.
 */
void sws__kswapd_step(struct sws__worker *w)
{
	struct sws_replay *r = w->r;
	uint64_t t0 = w->vc.now;
	uint64_t left = sws_mm_kswapd(w->cpu, r->mm, r->cfg.kswapd_budget);
	sws__charge_background(w);
	sws__sample_peaks(r);
	w->ks_ps += w->vc.now - t0;
	if (!left) {
		r->sched.kswapd = UINT32_MAX;
		w->ks_ps = w->task_ps = 0;
	}
}

void sws__sched_kswapd_wake(struct sws__worker *w)
{
	struct sws_replay *r = w->r;
	if (r->sched.kswapd == UINT32_MAX && sws_mm_kswapd_wanted(r->mm)) {
		r->sched.kswapd = w->idx;
		w->ks_ps = w->task_ps = 0;
	}
}

int sws__sched_start(struct sws_replay *r)
{
	int err = sws__sched_init(&r->sched, &r->mem, r->nthreads, r->cfg.sync_quantum_ns * 1000);
	if (err)
		return err;
	if (r->cfg.progress) {
		r->sched.turn = progress;
		r->sched.turn_ctx = r;
	}
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		if ((err = sws__worker_ring(r, w)) || (err = sws_cpu_attach(r->sim, &w->cpu)))
			return err;
		if ((err = sws__sched_add(&r->sched, i, &w->run, &w->vc, &r->costs, STACK_BYTES, cpu_main, w)))
			return err;
		sws__cpu_set_vcpu(w->cpu, &w->vc);
		sws__clock_sync(r, w);
		w->started = true;
	}
	return 0;
}

/* The run's end: each CPU's last deferred work and its LRU batches, in order. */
void sws__sched_stop(struct sws_replay *r, bool finish)
{
	for (unsigned i = 0; finish && i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		if (!w->started)
			continue;
		sws__replay_enter(r, i);
		sws__deferred(w);
		sws_mm_lru_add_drain(w->cpu, r->mm); /* a CPU going offline */
		sws__replay_leave(r, w);
	}
}

void sws__sched_free(struct sws_replay *r)
{
	sws__sched_fini(&r->sched);
	for (unsigned i = 0; r->workers && i < r->nthreads; i++) {
		struct sws__worker *w = &r->workers[i];
		if (w->cpu) {
			sws__cpu_set_vcpu(w->cpu, NULL);
			sws_cpu_detach(w->cpu);
			w->cpu = NULL;
		}
		if (w->ring)
			sws__mem_free(&r->mem, SWS_MEM_sim, w->ring, w->nslots * sizeof(*w->ring));
		w->ring = NULL;
		w->started = false;
	}
}
