/*
 * test_zsmalloc_mt.c - the compressed-object allocator from several threads,
 * for ThreadSanitizer.
 *
 * NTHREADS threads share one pool (so objects of different threads share
 * classes and zspages) and each runs ITERS random operations: allocate an
 * object of a random length and fill it, verify and free one of its own, or
 * hand one to another thread through a mailbox (atomic exchange: the
 * receiver verifies and frees an object it did not allocate). An object's
 * contents follow from its length and a seed kept in its first bytes, so any
 * thread can check any object. A sampler thread reads the pool's counters
 * meanwhile. At the end every object is freed: no page, no object and no
 * metadata beyond the pool remain, and destroy returns every byte.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "testutil.h"
#include "zswap/zsmalloc.h"

#define NTHREADS 4
#define ITERS 20000
#define MAXOWN 128
#define NMAIL 16

struct shared {
	struct sws_zs_pool *pool;
	pthread_barrier_t start;
	_Atomic uint64_t mail[NMAIL]; /* handles in transit, 0: empty */
	atomic_int running;
	atomic_int failed;
	_Atomic uint64_t handed, verified;
};

struct worker {
	struct shared *sh;
	unsigned id;
	pthread_t thread;
};

/* Contents: for len >= 8 the seed, then bytes from it; shorter: from the length. */
static void fill(unsigned char *p, size_t len, uint64_t seed)
{
	size_t i = 0;
	uint64_t s = seed;
	if (len >= 8) {
		memcpy(p, &seed, 8);
		i = 8;
	} else {
		s = len * 0x9e3779b97f4a7c15ull;
	}
	for (; i < len; i++) {
		if (i % 8 == 0)
			s = sws_test_rand(&s);
		p[i] = (unsigned char)(s >> (8 * (i % 8)));
	}
}

static int check(struct sws_zs_pool *pool, uint64_t h)
{
	unsigned char got[4096], want[4096];
	size_t len = sws__zs_read(pool, h, got);
	if (len < 1 || len > 4096)
		return -1;
	uint64_t seed = 0;
	if (len >= 8)
		memcpy(&seed, got, 8);
	fill(want, len, seed);
	return memcmp(got, want, len) ? -1 : 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	uint64_t own[MAXOWN];
	unsigned nown = 0;
	uint64_t rs = 1000 + w->id, seq = 0;
	unsigned char buf[4096];
	pthread_barrier_wait(&sh->start);
	for (unsigned it = 0; it < ITERS && !atomic_load(&sh->failed); it++) {
		uint64_t r = sws_test_rand(&rs);
		unsigned op = r % 16;
		if (op < 8 && nown < MAXOWN) {
			/* Compressed-page lengths: mostly 500..2500, some tiny and huge. */
			size_t len = op == 0   ? 1 + (r >> 8) % 40
				     : op == 1 ? 3600 + (r >> 8) % 497
					       : 500 + (r >> 8) % 2000;
			uint64_t h;
			if (sws__zs_alloc(sh->pool, len, &h)) {
				atomic_store(&sh->failed, 1);
				break;
			}
			fill(buf, len, (uint64_t)w->id << 48 | ++seq);
			if (sws__zs_write(sh->pool, h, buf, len)) {
				atomic_store(&sh->failed, 1);
				break;
			}
			own[nown++] = h;
		} else if (op < 14 && nown) {
			unsigned i = (unsigned)((r >> 8) % nown);
			if (check(sh->pool, own[i])) {
				atomic_store(&sh->failed, 1);
				break;
			}
			sws__zs_free(sh->pool, own[i]);
			own[i] = own[--nown];
		} else if (op == 14 && nown) {
			/* Hand one over; take whatever was in the mailbox and own it. */
			unsigned i = (unsigned)((r >> 8) % nown);
			uint64_t got = atomic_exchange(&sh->mail[(r >> 40) % NMAIL], own[i]);
			atomic_fetch_add(&sh->handed, 1);
			if (got)
				own[i] = got;
			else
				own[i] = own[--nown];
		} else if (op == 15) {
			/* Take a foreign object, verify it and free it. */
			uint64_t got = atomic_exchange(&sh->mail[(r >> 40) % NMAIL], 0);
			if (got) {
				if (check(sh->pool, got)) {
					atomic_store(&sh->failed, 1);
					break;
				}
				atomic_fetch_add(&sh->verified, 1);
				sws__zs_free(sh->pool, got);
			}
		}
	}
	for (unsigned i = 0; i < nown; i++) {
		if (check(sh->pool, own[i]))
			atomic_store(&sh->failed, 1);
		sws__zs_free(sh->pool, own[i]);
	}
	atomic_fetch_sub(&sh->running, 1);
	return NULL;
}

static void test_mt(void **state)
{
	(void)state;
	struct sws_test_alloc ta;
	sws_test_alloc_init(&ta);
	struct sws_mem mem;
	sws__mem_init(&mem, &ta.a);
	static struct shared sh;
	memset(&sh, 0, sizeof(sh));
	assert_sws(0, sws__zs_create(&mem, &sh.pool));
	const uint64_t base = sws__zs_memory_usage(sh.pool);
	atomic_store(&sh.running, NTHREADS);
	pthread_barrier_init(&sh.start, NULL, NTHREADS + 1);
	struct worker w[NTHREADS];
	for (unsigned i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){.sh = &sh, .id = i};
		assert_int_equal(pthread_create(&w[i].thread, NULL, worker_main, &w[i]), 0);
	}
	pthread_barrier_wait(&sh.start);
	/* Sample the counters while the workers run. */
	uint64_t max_pages = 0, samples = 0;
	while (atomic_load(&sh.running)) {
		struct sws_zs_usage u;
		sws__zs_usage(sh.pool, &u);
		struct sws_zs_class_stats cs;
		assert_sws(0, sws__zs_class_stats(sh.pool, sws__zs_size_index(1024), &cs));
		if (u.pages > max_pages)
			max_pages = u.pages;
		samples++;
		sched_yield();
	}
	for (unsigned i = 0; i < NTHREADS; i++)
		pthread_join(w[i].thread, NULL);
	pthread_barrier_destroy(&sh.start);
	assert_int_equal(atomic_load(&sh.failed), 0);

	/* Objects left in the mailboxes. */
	for (unsigned i = 0; i < NMAIL; i++) {
		uint64_t h = atomic_load(&sh.mail[i]);
		if (h) {
			assert_int_equal(check(sh.pool, h), 0);
			sws__zs_free(sh.pool, h);
		}
	}
	print_message(
	    "zsmalloc mt: %d threads x %d ops, %llu handed over, %llu verified by another "
	    "thread, peak %llu pages, %llu samples\n",
	    NTHREADS, ITERS, (unsigned long long)atomic_load(&sh.handed),
	    (unsigned long long)atomic_load(&sh.verified), (unsigned long long)max_pages,
	    (unsigned long long)samples);
	assert_true(max_pages > 0);
	struct sws_zs_usage u;
	sws__zs_usage(sh.pool, &u);
	assert_int_equal(u.pages + u.zspages + u.objs + u.obj_bytes + u.data_bytes, 0);
	assert_int_equal(sws__zs_memory_usage(sh.pool), base);
	assert_int_equal(atomic_load(&mem.bytes[SWS_MEM_zspage]), 0);
	assert_int_equal(atomic_load(&mem.bytes[SWS_MEM_zs_meta]), base);
	sws__zs_destroy(sh.pool);
	assert_int_equal(ta.live_bytes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
