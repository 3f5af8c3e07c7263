/*
 * test_concurrent.c - threads on one simulation, for ThreadSanitizer.
 *
 * Mixed: NTHREADS threads, each attached as its own CPU, swap folios of mixed
 * orders out and in: allocate, unmap (dup), drop references (put), evict with
 * a shadow, swap in (cache_add), set zero flags and memcgs, and check every
 * result against their own record of their own folios. They also look up,
 * count and read the shadows of entries OTHER threads published, which those
 * threads may be freeing at that moment: a lookup must then return 0 or a PFN
 * that some thread really used, a shadow must be 0 or one some thread stored.
 *
 * Readers against a writer: lock-free lookups and shadow reads hammer the
 * clusters a writer keeps filling with order-9 folios and order-0 runs and
 * freeing again, so swap tables (XArray nodes; vswap's clusters and cluster
 * map nodes) are released through RCU while readers are inside them. Under
 * vswap a lookup takes the cluster lock, and the readers also probe the
 * physical device: every per-slot call must refuse its entries.
 *
 * After the threads are joined: sws_swap_check() passes, every slot is free,
 * nr_swapcache is 0, and after sws_sim_quiesce() the dynamic memory is what
 * it was right after swapon.
 *
 * Both run on every design (mt_designs.h). Under vswap the entries are
 * virtual: every allocated entry must be of the virtual device (on the other
 * designs, of a device swapped on), the readers probe the virtual device, the
 * totals are exactly the physical devices' slots, and the virtual device too
 * has no slot in use at the end.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mt_designs.h"

#define NTHREADS 4
#define MAXOWN 48          /* folios a mixed thread holds at most */
#define MIXED_ITERS 25000  /* operations per mixed thread */
#define MAX_REFS 12        /* counts stay inline in every design: no extend table, no continuation */
#define WRITER_CYCLES 24    /* at least this many fill/free cycles... */
#define WRITER_MIN_NS 300000000ull /* ...and this long, so RCU callbacks run while readers read */
#define WRITER_MAX_CYCLES 100000
#define WRITER_MAX_NS 10000000000ull /* ...or, until an RCU callback has run, at most this long */
#define NREADERS 3

/* PFNs are (thread + 1) << 32 | sequence; shadows (thread + 1) << 40 | sequence. */
#define PFN_OF(tid, seq) (((uint64_t)(tid) + 1) << 32 | (seq))
#define SHADOW_OF(tid, seq) (((uint64_t)(tid) + 1) << 40 | ((seq) & 0xffffffffffull))

struct shared {
	struct sws_sim *sim;
	bool alloc_type[SWS_MAX_SWAPFILES]; /* the device types folio_alloc_swap() may hand out */
	pthread_barrier_t start; /* every thread attached: go */
	atomic_int failed;
	char msg[512];
	_Atomic uint64_t pub[NTHREADS][MAXOWN]; /* entries a thread owns (0: none) */
	_Atomic uint64_t pfn_hi[NTHREADS];      /* highest PFN sequence a thread used */
	_Atomic uint64_t shadow_hi[NTHREADS];   /* highest shadow sequence a thread stored */
	atomic_bool stop;
	_Atomic uint64_t foreign_lookups, foreign_hits;
	uint64_t rcu_frees_while_reading; /* swap tables and XArray nodes freed before the readers stopped */
	unsigned writer_cycles;
};

struct worker {
	pthread_t th;
	struct shared *sh;
	int id;
	uint64_t rng;
	uint64_t pfn_seq, shadow_seq;
};

/* cmocka is not thread safe: threads report the first failure here, the main thread fails. */
static void tfail(struct shared *sh, const char *fmt, ...)
{
	int expected = 0;
	if (!atomic_compare_exchange_strong(&sh->failed, &expected, 1))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sh->msg, sizeof(sh->msg), fmt, ap);
	va_end(ap);
}

#define TCHECK(w, cond, ...)                            \
	do {                                            \
		if (!(cond)) {                          \
			tfail((w)->sh, __VA_ARGS__);    \
			goto out;                       \
		}                                       \
	} while (0)

static uint64_t rnd(struct worker *w, uint64_t n) { return sws_test_rand(&w->rng) % n; }

/* A new PFN, announced before anyone can see it. */
static uint64_t new_pfn(struct worker *w)
{
	uint64_t seq = ++w->pfn_seq;
	atomic_store_explicit(&w->sh->pfn_hi[w->id], seq, memory_order_release);
	return PFN_OF(w->id, seq);
}

static uint64_t new_shadow(struct worker *w)
{
	uint64_t seq = ++w->shadow_seq;
	atomic_store_explicit(&w->sh->shadow_hi[w->id], seq, memory_order_release);
	return SHADOW_OF(w->id, seq);
}

/* Could @pfn, read from a slot someone else owns, have been stored there? */
static bool pfn_plausible(struct shared *sh, uint64_t pfn)
{
	if (!pfn)
		return true;
	uint64_t t = pfn >> 32;
	if (t == 0 || t > NTHREADS)
		return false;
	return (pfn & 0xffffffffu) <= atomic_load_explicit(&sh->pfn_hi[t - 1], memory_order_acquire);
}

static bool shadow_plausible(struct shared *sh, uint64_t shadow)
{
	if (!shadow)
		return true;
	uint64_t t = shadow >> 40;
	if (t == 0 || t > NTHREADS)
		return false;
	return (shadow & 0xffffffffffull) <= atomic_load_explicit(&sh->shadow_hi[t - 1], memory_order_acquire);
}

/* Look at an entry someone else owns: every answer must be one the contract allows. */
static bool peek_foreign(struct worker *w, struct sws_cpu *cpu, sws_entry_t e)
{
	struct shared *sh = w->sh;
	uint64_t pfn = sws_swap_cache_lookup(cpu, e);
	atomic_fetch_add_explicit(&sh->foreign_lookups, 1, memory_order_relaxed);
	if (pfn)
		atomic_fetch_add_explicit(&sh->foreign_hits, 1, memory_order_relaxed);
	if (!pfn_plausible(sh, pfn)) {
		tfail(sh, "thread %d: lookup of %u:%llu returned pfn %#llx that no thread used", w->id,
		      sws_swp_type(e), (unsigned long long)sws_swp_offset(e), (unsigned long long)pfn);
		return false;
	}
	uint64_t shadow = 0;
	int rc = sws_swap_cache_get_shadow(cpu, e, &shadow);
	if ((rc && rc != SWS_ENOENT && rc != SWS_EBADENTRY) || (!rc && !shadow_plausible(sh, shadow))) {
		tfail(sh, "thread %d: get_shadow of %u:%llu: %s, shadow %#llx", w->id, sws_swp_type(e),
		      (unsigned long long)sws_swp_offset(e), sws_error_name(rc), (unsigned long long)shadow);
		return false;
	}
	uint32_t count = 0;
	rc = sws_swap_count(cpu, e, &count);
	if ((rc && rc != SWS_ENOENT && rc != SWS_EBADENTRY) || (!rc && count > MAX_REFS)) {
		tfail(sh, "thread %d: count of %u:%llu: %s, count %u", w->id, sws_swp_type(e),
		      (unsigned long long)sws_swp_offset(e), sws_error_name(rc), count);
		return false;
	}
	return true;
}

/* ---- the mixed test ------------------------------------------------------------------ */

/* A folio this thread swapped out; all its slots share one state. */
struct own {
	sws_entry_t e;
	unsigned nr;
	uint64_t pfn, shadow;
	uint32_t count;
	bool cached, zero;
	uint16_t memcg;
};

static unsigned pick_order(struct worker *w)
{
	unsigned r = (unsigned)rnd(w, 100);
	return r < 70 ? 0 : r < 80 ? 2 : r < 90 ? 4 : r < 95 ? 6 : 9;
}

static void *mixed_thread(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct sws_cpu *cpu = NULL;
	struct own own[MAXOWN];
	unsigned n = 0;
	int rc;

	rc = sws_cpu_attach(sh->sim, &cpu);
	pthread_barrier_wait(&sh->start);
	if (rc) {
		tfail(sh, "thread %d: attach: %s", w->id, sws_error_name(rc));
		return NULL;
	}
	for (unsigned it = 0; it < MIXED_ITERS && !atomic_load_explicit(&sh->failed, memory_order_relaxed); it++) {
		unsigned r = (unsigned)rnd(w, 100);
		struct own *o = n ? &own[rnd(w, n)] : NULL;
		unsigned idx = o ? (unsigned)(o - own) : 0;
		bool freed = false;

		if (r < 18 || !o) { /* swap-out: a new folio enters the swap cache */
			if (n == MAXOWN)
				continue;
			unsigned order = pick_order(w);
			uint64_t pfn = new_pfn(w);
			sws_entry_t e;
			rc = sws_folio_alloc_swap(cpu, pfn, order, &e);
			if (rc == SWS_ENOSPC && order) {
				order = 0;
				rc = sws_folio_alloc_swap(cpu, pfn, order, &e);
			}
			if (rc == SWS_ENOSPC)
				continue;
			TCHECK(w, !rc, "thread %d: alloc order %u: %s", w->id, order, sws_error_name(rc));
			TCHECK(w, sws_swp_type(e) < SWS_MAX_SWAPFILES && sh->alloc_type[sws_swp_type(e)],
			       "thread %d: allocated an entry of device %u", w->id, sws_swp_type(e));
			unsigned nr = 1u << order;
			TCHECK(w, sws_swp_offset(e) % nr == 0, "thread %d: order %u folio at unaligned %llu", w->id,
			       order, (unsigned long long)sws_swp_offset(e));
			uint64_t got = sws_swap_cache_lookup(cpu, e + nr - 1);
			TCHECK(w, got == pfn, "thread %d: new folio %#llx looks up as %#llx", w->id,
			       (unsigned long long)pfn, (unsigned long long)got);
			own[n] = (struct own){.e = e, .nr = nr, .pfn = pfn, .cached = true};
			atomic_store_explicit(&sh->pub[w->id][n], e, memory_order_release);
			n++;
		} else if (r < 30) { /* unmap: one more reference */
			if (o->count >= MAX_REFS)
				continue;
			rc = sws_swap_dup(cpu, o->e, o->nr);
			TCHECK(w, !rc, "thread %d: dup: %s", w->id, sws_error_name(rc));
			o->count++;
		} else if (r < 42) { /* a reference goes away */
			if (!o->count)
				continue;
			rc = sws_swap_put(cpu, o->e, o->nr);
			TCHECK(w, !rc, "thread %d: put: %s", w->id, sws_error_name(rc));
			freed = --o->count == 0 && !o->cached;
		} else if (r < 54) { /* evict, leaving a shadow */
			if (!o->cached)
				continue;
			if (!o->count && rnd(w, 2)) {
				rc = sws_swap_dup(cpu, o->e, o->nr);
				TCHECK(w, !rc, "thread %d: dup before evict: %s", w->id, sws_error_name(rc));
				o->count++;
			}
			uint64_t shadow = new_shadow(w);
			rc = sws_swap_cache_del(cpu, o->e, o->nr, o->pfn, shadow);
			TCHECK(w, !rc, "thread %d: cache_del: %s", w->id, sws_error_name(rc));
			o->cached = false;
			o->shadow = shadow;
			freed = !o->count;
		} else if (r < 64) { /* swap-in */
			if (o->cached)
				continue;
			uint64_t pfn = new_pfn(w), shadow = ~0ull;
			rc = sws_swap_cache_add(cpu, o->e, o->nr, pfn, &shadow);
			TCHECK(w, !rc, "thread %d: cache_add: %s", w->id, sws_error_name(rc));
			TCHECK(w, shadow == o->shadow, "thread %d: swap-in found shadow %#llx, stored %#llx", w->id,
			       (unsigned long long)shadow, (unsigned long long)o->shadow);
			o->cached = true;
			o->pfn = pfn;
		} else if (r < 68) {
			bool zero = rnd(w, 2);
			rc = sws_swap_set_zero(cpu, o->e, o->nr, zero);
			TCHECK(w, !rc, "thread %d: set_zero: %s", w->id, sws_error_name(rc));
			o->zero = zero;
		} else if (r < 72) {
			uint16_t id = (uint16_t)rnd(w, 65536);
			rc = sws_swap_set_memcg(cpu, o->e, o->nr, id);
			TCHECK(w, !rc, "thread %d: set_memcg: %s", w->id, sws_error_name(rc));
			o->memcg = id;
		} else if (r < 82) { /* our own folio: exactly what we left there */
			sws_entry_t e = o->e + rnd(w, o->nr);
			uint64_t got = sws_swap_cache_lookup(cpu, e), shadow = ~0ull;
			TCHECK(w, got == (o->cached ? o->pfn : 0), "thread %d: lookup of own slot: %#llx, want %#llx",
			       w->id, (unsigned long long)got, (unsigned long long)(o->cached ? o->pfn : 0));
			uint32_t count = ~0u;
			rc = sws_swap_count(cpu, e, &count);
			TCHECK(w, !rc && count == o->count, "thread %d: count of own slot: %s %u, want %u", w->id,
			       sws_error_name(rc), count, o->count);
			rc = sws_swap_cache_get_shadow(cpu, e, &shadow);
			TCHECK(w, !rc && shadow == (o->cached ? 0 : o->shadow), "thread %d: shadow of own slot: %s %#llx",
			       w->id, sws_error_name(rc), (unsigned long long)shadow);
			struct sws_slot_state st = {0};
			rc = sws_swap_slot_state(sh->sim, e, &st);
			TCHECK(w, !rc && st.allocated && st.cached == o->cached && st.count == o->count &&
					  st.zero == o->zero && st.memcg == o->memcg,
			       "thread %d: own slot state: %s cached %d count %u zero %d memcg %u", w->id,
			       sws_error_name(rc), st.cached, st.count, st.zero, st.memcg);
		} else if (r < 98) { /* somebody else's folio, perhaps being freed right now */
			int t = (int)rnd(w, NTHREADS);
			sws_entry_t e = atomic_load_explicit(&sh->pub[t][rnd(w, MAXOWN)], memory_order_acquire);
			if (t != w->id && e && !peek_foreign(w, cpu, e + rnd(w, 4)))
				goto out;
		} else if (r < 99) {
			sws_swap_do_deferred_work(sh->sim, 1);
		} else {
			struct sws_stats st;
			sws_stats_snapshot(sh->sim, &st);
			TCHECK(w, st.nr_swap_pages <= st.total_swap_pages, "thread %d: snapshot free %llu > total %llu",
			       w->id, (unsigned long long)st.nr_swap_pages, (unsigned long long)st.total_swap_pages);
		}
		if (freed) { /* its last reference is gone and it left the cache: slots are free */
			own[idx] = own[--n];
			atomic_store_explicit(&sh->pub[w->id][idx], idx < n ? own[idx].e : 0, memory_order_release);
			atomic_store_explicit(&sh->pub[w->id][n], 0, memory_order_release);
		}
	}
	/* Free everything we hold. */
	for (unsigned i = 0; i < n; i++) {
		struct own *o = &own[i];
		atomic_store_explicit(&sh->pub[w->id][i], 0, memory_order_release);
		for (; o->count; o->count--) {
			rc = sws_swap_put(cpu, o->e, o->nr);
			TCHECK(w, !rc, "thread %d: final put: %s", w->id, sws_error_name(rc));
		}
		if (o->cached) {
			rc = sws_swap_cache_del(cpu, o->e, o->nr, o->pfn, 0);
			TCHECK(w, !rc, "thread %d: final cache_del: %s", w->id, sws_error_name(rc));
		}
	}
out:
	sws_cpu_detach(cpu);
	return NULL;
}

/* ---- readers against a writer ------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rcu_frees(struct sws_sim *sim)
{
	struct sws_stats st;
	sws_stats_snapshot(sim, &st);
	return st.counters[SWS_CTR_swap_table_free] + st.counters[SWS_CTR_xa_node_free] +
	       st.counters[SWS_CTR_vswap_cluster_free];
}

/* On 2 CPUs busy readers can starve the RCU callback thread (under vswap they
 * spin on cluster locks inside read-side sections): the writer goes on until
 * a callback ran, so that one surely did while the readers read. */
static bool writer_goes_on(struct shared *sh, unsigned cycle, uint64_t t0)
{
	if (cycle >= WRITER_MAX_CYCLES || atomic_load(&sh->failed))
		return false;
	uint64_t dt = now_ns() - t0;
	return cycle < WRITER_CYCLES || dt < WRITER_MIN_NS || (dt < WRITER_MAX_NS && !rcu_frees(sh->sim));
}

static void *writer_thread(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct sws_cpu *cpu = NULL;
	sws_entry_t e[MAXOWN];
	uint64_t pfn[MAXOWN];
	unsigned nr[MAXOWN];
	int rc;

	rc = sws_cpu_attach(sh->sim, &cpu);
	pthread_barrier_wait(&sh->start);
	if (rc) {
		tfail(sh, "writer: attach: %s", sws_error_name(rc));
		goto done;
	}
	uint64_t t0 = now_ns();
	unsigned cycle;
	for (cycle = 0; writer_goes_on(sh, cycle, t0); cycle++) {
		unsigned n = 0;
		/* Fill: whole clusters (order 9), or runs of order-0 folios on odd cycles. */
		unsigned order = cycle % 2 ? 0 : 9;
		unsigned want = order ? MAXOWN : 40;
		while (n < want) {
			pfn[n] = new_pfn(w);
			rc = sws_folio_alloc_swap(cpu, pfn[n], order, &e[n]);
			if (rc == SWS_ENOSPC)
				break;
			TCHECK(w, !rc, "writer: alloc order %u: %s", order, sws_error_name(rc));
			TCHECK(w, sws_swp_type(e[n]) < SWS_MAX_SWAPFILES && sh->alloc_type[sws_swp_type(e[n])],
			       "writer: allocated an entry of device %u", sws_swp_type(e[n]));
			nr[n] = 1u << order;
			atomic_store_explicit(&sh->pub[0][n], e[n], memory_order_release);
			n++;
		}
		TCHECK(w, n > 0, "writer: cycle %u allocated nothing", cycle);
		/* Unmap and evict with shadows, swap half back in, evict again. */
		for (unsigned i = 0; i < n; i++) {
			rc = sws_swap_dup(cpu, e[i], nr[i]);
			TCHECK(w, !rc, "writer: dup: %s", sws_error_name(rc));
			rc = sws_swap_cache_del(cpu, e[i], nr[i], pfn[i], new_shadow(w));
			TCHECK(w, !rc, "writer: cache_del: %s", sws_error_name(rc));
			pfn[i] = 0; /* not cached any more */
		}
		for (unsigned i = 0; i < n; i += 2) {
			pfn[i] = new_pfn(w);
			rc = sws_swap_cache_add(cpu, e[i], nr[i], pfn[i], NULL);
			TCHECK(w, !rc, "writer: cache_add: %s", sws_error_name(rc));
			if (i % 4 == 0) {
				rc = sws_swap_cache_del(cpu, e[i], nr[i], pfn[i], cycle % 3 ? new_shadow(w) : 0);
				TCHECK(w, !rc, "writer: cache_del after swap-in: %s", sws_error_name(rc));
				pfn[i] = 0;
			}
		}
		/* Free it all: clusters go back to the free (or discard) list, tables through RCU. */
		for (unsigned i = 0; i < n; i++) {
			atomic_store_explicit(&sh->pub[0][i], 0, memory_order_release);
			rc = sws_swap_put(cpu, e[i], nr[i]);
			TCHECK(w, !rc, "writer: put: %s", sws_error_name(rc));
			if (pfn[i]) {
				rc = sws_swap_cache_del(cpu, e[i], nr[i], pfn[i], 0);
				TCHECK(w, !rc, "writer: final cache_del: %s", sws_error_name(rc));
			}
		}
		sws_swap_do_deferred_work(sh->sim, 4);
	}
	sh->rcu_frees_while_reading = rcu_frees(sh->sim);
	sh->writer_cycles = cycle;
out:
	sws_cpu_detach(cpu);
done:
	atomic_store(&sh->stop, true);
	return NULL;
}

struct reader_arg {
	struct worker w;
	int type;
	uint64_t max;
	int phys_type; /* vswap: the physical device, whose entries per-slot calls refuse; -1 */
	uint64_t phys_max;
	uint64_t loops;
};

/* vswap: a physical entry is no entry for per-slot calls. */
static bool peek_physical(struct worker *w, struct sws_cpu *cpu, sws_entry_t e)
{
	uint64_t shadow = 0;
	uint32_t count = 0;
	uint64_t pfn = sws_swap_cache_lookup(cpu, e);
	int rc1 = sws_swap_cache_get_shadow(cpu, e, &shadow);
	int rc2 = sws_swap_count(cpu, e, &count);
	if (pfn || rc1 != SWS_EBADENTRY || rc2 != SWS_EBADENTRY) {
		tfail(w->sh, "reader %d: physical entry %u:%llu: lookup %#llx, get_shadow %s, count %s", w->id,
		      sws_swp_type(e), (unsigned long long)sws_swp_offset(e), (unsigned long long)pfn,
		      sws_error_name(rc1), sws_error_name(rc2));
		return false;
	}
	return true;
}

static void *reader_thread(void *arg)
{
	struct reader_arg *ra = arg;
	struct worker *w = &ra->w;
	struct shared *sh = w->sh;
	struct sws_cpu *cpu = NULL;
	int rc;

	rc = sws_cpu_attach(sh->sim, &cpu);
	pthread_barrier_wait(&sh->start);
	if (rc) {
		tfail(sh, "reader %d: attach: %s", w->id, sws_error_name(rc));
		return NULL;
	}
	while (!atomic_load_explicit(&sh->stop, memory_order_acquire) &&
	       !atomic_load_explicit(&sh->failed, memory_order_relaxed)) {
		sws_entry_t e = atomic_load_explicit(&sh->pub[0][rnd(w, MAXOWN)], memory_order_acquire);
		if (!e || rnd(w, 4) == 0)
			e = sws_swp_entry((unsigned)ra->type, rnd(w, ra->max));
		else
			e = sws_swp_entry(sws_swp_type(e), (sws_swp_offset(e) & ~(uint64_t)(SWS_CLUSTER_SLOTS - 1)) +
								  rnd(w, SWS_CLUSTER_SLOTS));
		if (!peek_foreign(w, cpu, e))
			break;
		if (ra->phys_type >= 0 && rnd(w, 8) == 0 &&
		    !peek_physical(w, cpu, sws_swp_entry((unsigned)ra->phys_type, 1 + rnd(w, ra->phys_max))))
			break;
		ra->loops++;
	}
	sws_cpu_detach(cpu);
	return NULL;
}

/* ---- setup and checks -------------------------------------------------------------- */

struct run {
	struct shared sh;
	uint64_t baseline;
	int types[3];
	unsigned ndev;
	int vtype; /* vswap: the virtual device; -1 on the other designs */
};

static void run_open(struct run *r, enum sws_backend backend, const struct sws_device_config *dc, unsigned ndev,
		     unsigned nthreads)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(pthread_barrier_init(&r->sh.start, NULL, nthreads), 0);
	struct sws_sim_config cfg = {.backend = backend};
	assert_sws(0, sws_sim_create(&cfg, &r->sh.sim));
	r->ndev = ndev;
	for (unsigned i = 0; i < ndev; i++)
		assert_sws(0, sws_swapon(r->sh.sim, &dc[i], &r->types[i]));
	r->vtype = mt_virtual_type(r->sh.sim);
	assert_int_equal(r->vtype >= 0, mt_design_virtual(backend));
	if (r->vtype >= 0) {
		r->sh.alloc_type[r->vtype] = true; /* virtual entries only */
	} else {
		for (unsigned i = 0; i < ndev; i++)
			r->sh.alloc_type[r->types[i]] = true;
	}
	struct sws_memory_usage mu;
	sws_sim_quiesce(r->sh.sim);
	sws_sim_memory_usage(r->sh.sim, &mu);
	r->baseline = mu.dynamic_bytes;
}

/* After the threads: no failure, consistent, nothing held, memory back to the baseline. */
static void run_close(struct run *r)
{
	struct sws_sim *sim = r->sh.sim;
	pthread_barrier_destroy(&r->sh.start);
	if (atomic_load(&r->sh.failed)) {
		char msg[sizeof(r->sh.msg)];
		memcpy(msg, r->sh.msg, sizeof(msg));
		sws_sim_destroy(sim);
		fail_msg("%s", msg);
	}
	assert_consistent(sim);
	uint64_t total, free_slots, pages = 0;
	sws_swap_totals(sim, &total, &free_slots);
	assert_int_equal(free_slots, total);
	struct sws_stats st;
	sws_stats_snapshot(sim, &st);
	assert_int_equal(st.nr_swapcache, 0);
	for (unsigned i = 0; i < r->ndev; i++) {
		struct sws_device_info di;
		assert_sws(0, sws_device_info_get(sim, r->types[i], &di));
		assert_int_equal(di.inuse_pages, 0);
		pages += di.pages;
	}
	assert_int_equal(total, pages); /* vswap too: the totals are physical */
	if (r->vtype >= 0) {
		struct sws_device_info di;
		assert_sws(0, sws_device_info_get(sim, r->vtype, &di));
		assert_int_equal(di.inuse_pages, 0);
	}
	sws_swap_do_deferred_work(sim, UINT32_MAX);
	sws_sim_quiesce(sim);
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sim, &mu);
	if (mu.dynamic_bytes != r->baseline)
		fail_msg("%s: dynamic memory %llu after the threads, %llu after swapon (swap_table %llu, "
			 "extend_table %llu, memcg_table %llu, swap_cont %llu, xa_node %llu)",
			 sws_backend_name(sws_sim_backend(sim)), (unsigned long long)mu.dynamic_bytes,
			 (unsigned long long)r->baseline, (unsigned long long)mu.bytes[SWS_MEM_swap_table],
			 (unsigned long long)mu.bytes[SWS_MEM_extend_table],
			 (unsigned long long)mu.bytes[SWS_MEM_memcg_table], (unsigned long long)mu.bytes[SWS_MEM_swap_cont],
			 (unsigned long long)mu.bytes[SWS_MEM_xa_node]);
	for (unsigned i = 0; i < r->ndev; i++)
		assert_sws(0, sws_swapoff(sim, r->types[i]));
	sws_sim_destroy(sim);
}

static void test_mixed(void **state)
{
	/* Three devices of the default priority (round robin), one discarding, one rotational. */
	const struct sws_device_config dc[3] = {
		{.nr_slots = 16 * SWS_CLUSTER_SLOTS + 100, .flags = SWS_SWP_SOLIDSTATE},
		{.nr_slots = 16 * SWS_CLUSTER_SLOTS + 300, .flags = SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD},
		{.nr_slots = 4 * SWS_CLUSTER_SLOTS + 7, .flags = 0},
	};
	struct run *r = test_malloc(sizeof(*r));
	run_open(r, *(enum sws_backend *)*state, dc, 3, NTHREADS);
	struct worker w[NTHREADS];
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){.sh = &r->sh, .id = i, .rng = 0x1234u + (uint64_t)i * 7919};
		assert_int_equal(pthread_create(&w[i].th, NULL, mixed_thread, &w[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(w[i].th, NULL), 0);
	print_message("%s: %llu lookups of other threads' entries, %llu found a folio\n",
		      sws_backend_name(*(enum sws_backend *)*state), (unsigned long long)r->sh.foreign_lookups,
		      (unsigned long long)r->sh.foreign_hits);
	run_close(r);
	test_free(r);
}

static void test_readers_vs_writer(void **state)
{
	/* One small discarding SSD: the writer cycles through all of its clusters. */
	const struct sws_device_config dc = {.nr_slots = 8 * SWS_CLUSTER_SLOTS + 50,
					     .flags = SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD};
	struct run *r = test_malloc(sizeof(*r));
	run_open(r, *(enum sws_backend *)*state, &dc, 1, 1 + NREADERS);
	struct worker writer = {.sh = &r->sh, .id = 0, .rng = 99};
	struct reader_arg ra[NREADERS];
	/* Random probes go to the device the entries come from: under vswap the
	 * virtual one, as far as it is mapped now (it grows while the writer runs). */
	int ptype = r->types[0];
	uint64_t pmax = dc.nr_slots + 8;
	if (r->vtype >= 0) {
		struct sws_device_info di;
		assert_sws(0, sws_device_info_get(r->sh.sim, r->vtype, &di));
		ptype = r->vtype;
		pmax = (uint64_t)di.nr_clusters * SWS_CLUSTER_SLOTS + 8; /* di.max: the 2^32 it reserves */
	}
	for (int i = 0; i < NREADERS; i++) {
		ra[i] = (struct reader_arg){.w = {.sh = &r->sh, .id = 1 + i, .rng = 1000 + (uint64_t)i},
					    .type = ptype, .max = pmax, .phys_type = r->vtype >= 0 ? r->types[0] : -1,
					    .phys_max = dc.nr_slots - 1};
		assert_int_equal(pthread_create(&ra[i].w.th, NULL, reader_thread, &ra[i]), 0);
	}
	assert_int_equal(pthread_create(&writer.th, NULL, writer_thread, &writer), 0);
	assert_int_equal(pthread_join(writer.th, NULL), 0);
	uint64_t loops = 0;
	for (int i = 0; i < NREADERS; i++) {
		assert_int_equal(pthread_join(ra[i].w.th, NULL), 0);
		loops += ra[i].loops;
	}
	print_message("%s: %u writer cycles, %llu reader passes (%llu found a folio), %llu tables or nodes freed "
		      "through RCU while readers ran\n",
		      sws_backend_name(*(enum sws_backend *)*state), r->sh.writer_cycles, (unsigned long long)loops,
		      (unsigned long long)r->sh.foreign_hits, (unsigned long long)r->sh.rcu_frees_while_reading);
	if (!atomic_load(&r->sh.failed)) {
		assert_true(loops > 0);
		assert_true(r->sh.rcu_frees_while_reading > 0);
	}
	run_close(r);
	test_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {ALL_DESIGNS(test_mixed), ALL_DESIGNS(test_readers_vs_writer)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
