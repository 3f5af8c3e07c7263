/*
 * test_xswap_mt.c - an xswap device growing and shrinking under concurrent
 * use, for ThreadSanitizer.
 *
 * Three threads (SWS_XSWAP_MT_THREADS: up to 32), each its own CPU, fill the device with order-9 and order-0
 * folios in waves (hold up to a wave's worth, then free them all), so the
 * allocator maps chunk after chunk; every entry is checked (its cluster is
 * mapped, the swap cache holds our PFN) before it is freed. A control thread
 * meanwhile runs the deferred shrink, moves the limit up and down (below use:
 * clamped) and reads the device's figures; a reader looks up random offsets,
 * in mapped and unmapped clusters alike, which must give 0 or a PFN some
 * thread used, never a crash. At the end: the invariants hold, the totals
 * match the device, the shrink gives everything back down to one chunk of
 * slack, and the device can be destroyed with nothing left over.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swap/swap_internal.h"
#include "xswap/xswap.h"
#include "xswap/xswap_policy.h"
#include "testutil.h"

#define MAX_ALLOC 32
/* Allocating threads: 3, or SWS_XSWAP_MT_THREADS (1..32) for a stress run on more cores. */
static unsigned nalloc = 3;
#define WAVE 160   /* order-9 folios a thread holds at most: 3 x 160 clusters > 5 chunks */
#define WAVES 60
#define RAM (262144ull)

#define PFN_OF(tid, seq) (((uint64_t)(tid) + 1) << 32 | (seq))

struct shared {
	struct sws_sim *sim;
	struct sws_mm *mm;
	int type;
	pthread_barrier_t start;
	atomic_int allocators_left;
	atomic_int failed;
	char msg[256];
	_Atomic uint64_t grows_seen, shrinks_seen, limit_writes, lookups, hits;
};

struct worker {
	struct shared *sh;
	int tid;
	uint64_t seed;
};

static void note_failure(struct shared *sh, const char *what, int rc)
{
	if (!atomic_exchange(&sh->failed, 1))
		snprintf(sh->msg, sizeof(sh->msg), "%s: %s", what, sws_error_name(rc));
}

/* Attach this thread as a CPU and wait for the others. @return it, or NULL. */
static struct sws_cpu *attach_and_start(struct shared *sh)
{
	struct sws_cpu *cpu;
	int rc = sws_cpu_attach(sh->sim, &cpu);
	pthread_barrier_wait(&sh->start);
	if (rc)
		note_failure(sh, "attach", rc);
	return rc ? NULL : cpu;
}

static void *allocator(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct sws_cpu *cpu = attach_and_start(sh);
	int rc;
	if (!cpu) {
		atomic_fetch_sub(&sh->allocators_left, 1);
		return NULL;
	}
	static _Thread_local sws_entry_t held[WAVE];
	static _Thread_local uint64_t pfns[WAVE];
	static _Thread_local unsigned orders[WAVE];
	uint64_t seq = 1;
	for (int wave = 0; wave < WAVES && !atomic_load(&sh->failed); wave++) {
		unsigned n = 0;
		for (unsigned i = 0; i < WAVE; i++) {
			unsigned order = sws_test_rand(&w->seed) % 4 ? 9 : 0;
			uint64_t pfn = PFN_OF(w->tid, seq++);
			sws_entry_t e;
			rc = sws_folio_alloc_swap(cpu, pfn, order, &e);
			if (rc == SWS_ENOSPC)
				continue; /* at the (moving) limit */
			if (rc) {
				note_failure(sh, "alloc", rc);
				break;
			}
			held[n] = e, pfns[n] = pfn, orders[n] = order, n++;
		}
		for (unsigned i = 0; i < n; i++) {
			uint64_t got = sws_swap_cache_lookup(cpu, held[i]);
			if (got != pfns[i])
				note_failure(sh, "own entry lost", SWS_ECORRUPT);
			rc = sws_swap_cache_del(cpu, held[i], 1u << orders[i], pfns[i], 0);
			if (rc)
				note_failure(sh, "free", rc);
		}
	}
	sws_cpu_detach(cpu);
	atomic_fetch_sub(&sh->allocators_left, 1);
	return NULL;
}

/* Deferred shrink, limit writes and figures while the allocators run. */
static void *control(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	pthread_barrier_wait(&sh->start);
	while (atomic_load(&sh->allocators_left) > 0) {
		sws_swap_do_deferred_work(sh->sim, 64);
		uint64_t r = sws_test_rand(&w->seed);
		/* Limit writes start once the device has grown (a limit clamped low
		 * from the start could keep it from ever growing). */
		if (r % 8 == 0 && atomic_load(&sh->grows_seen)) {
			uint64_t v = r % 3 == 0 ? 0 : (r >> 8) % (2 * RAM + 1);
			int rc = sws_xswap_limit_set(sh->sim, sh->type, v);
			if (rc)
				note_failure(sh, "limit", rc);
			atomic_fetch_add(&sh->limit_writes, 1);
		}
		struct sws_xswap_info xi;
		int rc = sws_xswap_info_get(sh->sim, sh->type, &xi);
		if (rc)
			note_failure(sh, "info", rc);
		/* An allocation counts its slots before it checks them against the
		 * limit (and takes them back if over): in flight, use may pass
		 * pages by what the allocators hold between the two steps. */
		else if (xi.nr_clusters_mapped > xi.nr_clusters_max || xi.inuse_pages > xi.pages + nalloc * 512)
			note_failure(sh, "figures out of range", SWS_ECORRUPT);
		atomic_store(&sh->grows_seen, xi.grows);
		atomic_store(&sh->shrinks_seen, xi.shrinks);
	}
	/* Let the device grow back for the last waves' end state checks. */
	sws_xswap_limit_set(sh->sim, sh->type, RAM);
	return NULL;
}

/* Lookups anywhere in the reservation: 0, or a PFN an allocator used. */
static void *reader(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct sws_cpu *cpu = attach_and_start(sh);
	if (!cpu)
		return NULL;
	while (atomic_load(&sh->allocators_left) > 0) {
		uint64_t off = 1 + sws_test_rand(&w->seed) % (2 * RAM - 1);
		uint64_t pfn = sws_swap_cache_lookup(cpu, sws_swp_entry((unsigned)sh->type, off));
		atomic_fetch_add(&sh->lookups, 1);
		if (pfn) {
			uint64_t tid = (pfn >> 32) - 1;
			if (tid >= nalloc)
				note_failure(sh, "lookup found a PFN nobody used", SWS_ECORRUPT);
			atomic_fetch_add(&sh->hits, 1);
		}
		uint32_t count;
		int rc = sws_swap_count(cpu, sws_swp_entry((unsigned)sh->type, off), &count);
		if (rc && rc != SWS_ENOENT && rc != SWS_EBADENTRY)
			note_failure(sh, "count", rc);
	}
	sws_cpu_detach(cpu);
	return NULL;
}

static void test_grow_shrink_concurrently(void **state)
{
	(void)state;
	struct shared sh;
	memset(&sh, 0, sizeof(sh));
	struct sws_sim_config cfg = {.backend = SWS_BACKEND_SWAP_TABLE};
	assert_sws(0, sws_sim_create(&cfg, &sh.sim));
	struct sws_mm_config mc = {.ram_pages = RAM, .seed = 3};
	assert_sws(0, sws_mm_create(sh.sim, &mc, &sh.mm));
	assert_sws(0, sws_mm_zswap_enable(sh.mm, NULL));
	assert_sws(0, sws_mm_xswap_create(sh.mm, -1, &sh.type));
	struct sws_memory_usage base;
	sws_sim_memory_usage(sh.sim, &base);

	const char *env = getenv("SWS_XSWAP_MT_THREADS");
	if (env && atoi(env) >= 1 && atoi(env) <= MAX_ALLOC)
		nalloc = (unsigned)atoi(env);
	const unsigned NT = nalloc + 2;
	pthread_t th[MAX_ALLOC + 2];
	struct worker w[MAX_ALLOC + 2];
	pthread_barrier_init(&sh.start, NULL, NT);
	atomic_store(&sh.allocators_left, (int)nalloc);
	for (unsigned i = 0; i < NT; i++) {
		w[i] = (struct worker){&sh, (int)i, 0x5eed + (uint64_t)i};
		void *(*fn)(void *) = i < nalloc ? allocator : i == nalloc ? control : reader;
		assert_int_equal(pthread_create(&th[i], NULL, fn, &w[i]), 0);
	}
	for (unsigned i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&sh.start);
	if (atomic_load(&sh.failed))
		fail_msg("%s", sh.msg);
	print_message("grows %llu, shrinks %llu, limit writes %llu, lookups %llu (hits %llu)\n",
		      (unsigned long long)sh.grows_seen, (unsigned long long)sh.shrinks_seen,
		      (unsigned long long)sh.limit_writes, (unsigned long long)sh.lookups,
		      (unsigned long long)sh.hits);

	assert_consistent(sh.sim);
	struct sws_xswap_info xi;
	assert_sws(0, sws_xswap_info_get(sh.sim, sh.type, &xi));
	assert_true(xi.grows > 0);
	assert_int_equal(xi.inuse_pages, 0);
	uint64_t total, freeslots;
	sws_swap_totals(sh.sim, &total, &freeslots);
	assert_int_equal(total, xi.pages);
	assert_int_equal(freeslots, xi.pages);
	/* Empty: the shrink keeps at most one chunk of slack above cluster 0
	 * plus what is under five chunks of free tail. */
	sws_swap_do_deferred_work(sh.sim, 64);
	assert_sws(0, sws_xswap_info_get(sh.sim, sh.type, &xi));
	assert_true(xi.nr_clusters_mapped < 1 + SWS_XSWAP_SHRINK_SLACK + SWS_XSWAP_SHRINK_MIN);
	assert_sws(0, sws_mm_xswap_destroy(sh.mm, sh.type));
	sws_sim_quiesce(sh.sim);
	struct sws_memory_usage mu;
	sws_sim_memory_usage(sh.sim, &mu);
	assert_int_equal(mu.bytes[SWS_MEM_cluster_info] + mu.bytes[SWS_MEM_cluster_tables] +
				 mu.bytes[SWS_MEM_swap_table] + mu.bytes[SWS_MEM_memcg_table],
			 0);
	sws_mm_destroy(sh.mm);
	sws_sim_destroy(sh.sim);
}

/* ---- a grow during a shrink's grace period ------------------------------------------ */

/* A simulation with a memory model, zswap and one xswap device; the calling
 * thread is attached as @cpu. */
struct machine {
	struct sws_sim *sim;
	struct sws_mm *mm;
	struct sws_cpu *cpu;
	int type;
	struct sws_device *dev;
};

static void machine_open(struct machine *m)
{
	struct sws_sim_config cfg = {.backend = SWS_BACKEND_SWAP_TABLE};
	assert_sws(0, sws_sim_create(&cfg, &m->sim));
	assert_sws(0, sws_cpu_attach(m->sim, &m->cpu));
	struct sws_mm_config mc = {.ram_pages = RAM, .seed = 3};
	assert_sws(0, sws_mm_create(m->sim, &mc, &m->mm));
	assert_sws(0, sws_mm_zswap_enable(m->mm, NULL));
	assert_sws(0, sws_mm_xswap_create(m->mm, -1, &m->type));
	m->dev = sws__device(m->sim, (unsigned)m->type);
}

static void machine_close(struct machine *m)
{
	sws_cpu_detach(m->cpu);
	sws_mm_destroy(m->mm);
	sws_sim_destroy(m->sim);
}

/*
 * A reader that saw the old bound may hold an isolated victim's lock while
 * the shrink waits for its grace period; if allocations meanwhile grow the
 * device back over the victims, the grow must take the cluster through its
 * lock (waiting for the reader), not re-initialise it under the reader.
 */
struct old_reader {
	struct sws_sim *sim;
	struct sws_device *dev;
	atomic_int stage;
	atomic_bool released;
};

#define HELD_CLUSTER 200u

static void wait_stage(struct old_reader *o, int s)
{
	while (atomic_load(&o->stage) < s)
		sched_yield();
}

static void *hold_victim(void *arg)
{
	struct old_reader *o = arg;
	struct sws_cpu *cpu;
	if (sws_cpu_attach(o->sim, &cpu))
		return NULL;
	sws_rcu_read_lock();
	bool mapped = sws__offset_mapped(o->dev, HELD_CLUSTER * 512ull + 1); /* the old bound */
	atomic_store(&o->stage, 1);
	wait_stage(o, 2); /* shrink step 1 ran: the cluster is an isolated victim */
	struct sws_cluster *ci = &o->dev->cluster_info[HELD_CLUSTER];
	sws_spin_lock(&ci->lock); /* as sws_swap_count() and the fast path would */
	atomic_store(&o->stage, 3);
	struct timespec ts = {0, 300 * 1000 * 1000}; /* far longer than the allocations take */
	nanosleep(&ts, NULL);
	atomic_store(&o->released, true);
	sws_spin_unlock(&ci->lock);
	sws_rcu_read_unlock();
	sws_cpu_detach(cpu);
	return mapped ? NULL : (void *)1;
}

static void *run_shrink(void *arg)
{
	struct old_reader *o = arg;
	sws_swap_do_deferred_work(o->sim, 64); /* waits for the reader's grace period */
	return NULL;
}

static void test_grow_waits_for_old_reader(void **state)
{
	(void)state;
	struct old_reader o = {0};
	struct machine m;
	machine_open(&m);
	struct sws_cpu *cpu = m.cpu;
	int type = m.type;
	o.sim = m.sim;
	o.dev = m.dev;
	static sws_entry_t en[512];
	uint64_t pfn = 1;
	for (unsigned i = 0; i < 509; i++) /* six chunks mapped ... */
		assert_sws(0, sws_folio_alloc_swap(cpu, pfn++, 9, &en[i]));
	for (unsigned i = 0; i < 509; i++) /* ... all free: the shrink keeps 170 clusters */
		assert_sws(0, sws_swap_cache_del(cpu, en[i], 512, sws_swap_cache_lookup(cpu, en[i]), 0));

	pthread_t reader, shrinker;
	assert_int_equal(pthread_create(&reader, NULL, hold_victim, &o), 0);
	wait_stage(&o, 1);
	assert_int_equal(pthread_create(&shrinker, NULL, run_shrink, &o), 0);
	while (sws__nr_clusters_mapped(o.dev) == 510)
		sched_yield();
	assert_int_equal(sws__nr_clusters_mapped(o.dev), 170);
	atomic_store(&o.stage, 2);
	wait_stage(&o, 3);
	/* Grow back over the victims while the grace period is still open. */
	unsigned n = 0;
	sws_entry_t e;
	while (sws__nr_clusters_mapped(o.dev) < 255) {
		assert_sws(0, sws_folio_alloc_swap(cpu, pfn++, 9, &e));
		n++;
	}
	/* The grow reached the held cluster only once the reader let it go. */
	assert_true(atomic_load(&o.released));
	void *bad;
	pthread_join(reader, &bad);
	assert_null(bad);
	pthread_join(shrinker, NULL);
	assert_consistent(o.sim);
	struct sws_xswap_info xi;
	assert_sws(0, sws_xswap_info_get(o.sim, type, &xi));
	assert_true(xi.nr_clusters_mapped >= 255); /* the regrown range stayed mapped */
	machine_close(&m);
	(void)n;
}

/*
 * The same for fresh clusters: a reader may lock one as soon as the grow
 * publishes the larger bound, so the grow files it under its lock too and
 * never re-initialises it after publishing. The reader holds the lock a
 * while and watches the lock word: it must never read "unlocked". (If the
 * reader only gets there after the grow, the test proves less, but cannot
 * fail wrongly.)
 */
struct fresh_reader {
	struct sws_sim *sim;
	struct sws_device *dev;
	uint32_t target;
	atomic_bool ready, holding, released, saw_unlocked;
};

static void *hold_when_mapped(void *arg)
{
	struct fresh_reader *o = arg;
	struct sws_cpu *cpu;
	if (sws_cpu_attach(o->sim, &cpu))
		return NULL;
	sws_rcu_read_lock();
	atomic_store(&o->ready, true);
	while (!sws__offset_mapped(o->dev, o->target * 512ull + 1))
		; /* as sws_swap_count() on a random entry: bound check, then lock */
	struct sws_cluster *ci = &o->dev->cluster_info[o->target];
	sws_spin_lock(&ci->lock);
	atomic_store(&o->holding, true);
	for (int i = 0; i < 300; i++) {
		if (!sws_spin_is_locked(&ci->lock))
			atomic_store(&o->saw_unlocked, true);
		struct timespec ts = {0, 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	atomic_store(&o->released, true);
	sws_spin_unlock(&ci->lock);
	sws_rcu_read_unlock();
	sws_cpu_detach(cpu);
	return NULL;
}

static void test_grow_files_fresh_clusters_locked(void **state)
{
	(void)state;
	struct fresh_reader o = {0};
	struct machine m;
	machine_open(&m);
	struct sws_cpu *cpu = m.cpu;
	o.sim = m.sim;
	o.dev = m.dev;
	o.target = 2 * SWS_XSWAP_CHUNK_CLUSTERS - 1; /* the next chunk's last cluster */
	sws_entry_t e;
	uint64_t pfn = 1;
	for (unsigned i = 0; i < SWS_XSWAP_CHUNK_CLUSTERS - 1; i++) /* clusters 1..84 */
		assert_sws(0, sws_folio_alloc_swap(cpu, pfn++, 9, &e));
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, hold_when_mapped, &o), 0);
	while (!atomic_load(&o.ready))
		sched_yield();
	assert_sws(0, sws_folio_alloc_swap(cpu, pfn++, 9, &e)); /* grows: publishes, then files */
	struct sws_cluster *ci = &o.dev->cluster_info[o.target];
	if (atomic_load(&o.holding) && !atomic_load(&o.released))
		assert_false(sws_spin_trylock(&ci->lock)); /* one holder at a time */
	pthread_join(th, NULL);
	assert_false(atomic_load(&o.saw_unlocked));
	assert_consistent(o.sim);
	machine_close(&m);
}

/* ---- create and destroy against the control interface ---------------------------------- */

struct churn {
	struct sws_sim *sim;
	struct sws_mm *mm;
	atomic_bool stop;
	atomic_int failed;
	char msg[128];
};

static void *create_destroy(void *arg)
{
	struct churn *c = arg;
	for (int i = 0; i < 300 && !atomic_load(&c->failed); i++) {
		int type, rc = sws_mm_xswap_create(c->mm, -1, &type);
		if (!rc)
			rc = sws_mm_xswap_destroy(c->mm, type);
		if (rc == SWS_ENODEV)
			rc = 0; /* the other thread destroyed it first */
		if (rc && !atomic_exchange(&c->failed, 1))
			snprintf(c->msg, sizeof(c->msg), "create/destroy: %s", sws_error_name(rc));
	}
	atomic_store(&c->stop, true);
	return NULL;
}

static void *poke(void *arg)
{
	struct churn *c = arg;
	uint64_t seed = 7;
	while (!atomic_load(&c->stop)) {
		int type = (int)(sws_test_rand(&seed) % 3);
		uint64_t v;
		struct sws_xswap_info xi;
		int rc = sws_test_rand(&seed) % 2 ? sws_xswap_limit_set(c->sim, type, sws_test_rand(&seed) % 300000)
						  : sws_xswap_limit_get(c->sim, type, &v);
		int rc2 = sws_xswap_info_get(c->sim, type, &xi);
		int rc3 = sws_mm_xswap_destroy(c->mm, type); /* racing the owner: ENODEV or success */
		sws_swap_do_deferred_work(c->sim, 8);
		if ((rc && rc != SWS_ENODEV) || (rc2 && rc2 != SWS_ENODEV) || (rc3 && rc3 != SWS_ENODEV)) {
			if (!atomic_exchange(&c->failed, 2))
				snprintf(c->msg, sizeof(c->msg), "control: %s %s %s", sws_error_name(rc),
					 sws_error_name(rc2), sws_error_name(rc3));
		}
	}
	return NULL;
}

static void test_create_destroy_concurrently(void **state)
{
	(void)state;
	struct churn c;
	memset(&c, 0, sizeof(c));
	struct sws_sim_config cfg = {.backend = SWS_BACKEND_SWAP_TABLE};
	assert_sws(0, sws_sim_create(&cfg, &c.sim));
	struct sws_mm_config mc = {.ram_pages = 16384, .seed = 3};
	assert_sws(0, sws_mm_create(c.sim, &mc, &c.mm));
	assert_sws(0, sws_mm_zswap_enable(c.mm, NULL));
	pthread_t a, b;
	assert_int_equal(pthread_create(&a, NULL, create_destroy, &c), 0);
	assert_int_equal(pthread_create(&b, NULL, poke, &c), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (atomic_load(&c.failed))
		fail_msg("%s", c.msg);
	uint64_t total, freeslots;
	for (int t = 0; t < 3; t++)
		sws_mm_xswap_destroy(c.mm, t);
	sws_swap_totals(c.sim, &total, &freeslots);
	assert_int_equal(total, 0);
	assert_consistent(c.sim);
	sws_mm_destroy(c.mm);
	sws_sim_destroy(c.sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_shrink_concurrently),
		cmocka_unit_test(test_grow_waits_for_old_reader),
		cmocka_unit_test(test_grow_files_fresh_clusters_locked),
		cmocka_unit_test(test_create_destroy_concurrently),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
