/*
 * bench_cache.c - swapsim-bench-cache: swap-cache and slot-allocator throughput
 * of both backends, for 1..N threads, with a bare atomic load from a plain
 * array as the physical floor of a lookup. Every figure is compared with the
 * others of the same run (ratios), because the machines are shared and noisy.
 *
 * Ops (million operations per second, summed over threads):
 *   lookup_hit    random sws_swap_cache_lookup() of slots holding a folio
 *   lookup_miss   random lookups of slots holding a shadow (a refault's miss)
 *   lookup_hit_chain  the same as lookup_hit, but each slot number depends on
 *                 the previous lookup's result: latency (dependent loads), not
 *                 throughput (instructions); the array has a chained row too
 *   add_del_o0/o4 swap-in add + delete of an order-0/4 folio on shadow slots
 *   alloc_free_o0 folio_alloc_swap() + delete of the oldest of --window live
 *                 slots (count 0: the slot is freed): order-0 alloc+free on the
 *                 per-CPU path
 *   mixed         one page's cycle: swap-out (alloc, dup, delete leaving a
 *                 shadow), then swap-in of an older page (lookup miss, add,
 *                 put, delete freeing the slot): 7 calls, counted as 1 cycle
 *   array/lookup  a relaxed atomic load from a u64 array of the same size
 *   array/lookup_chain  the same loads, each index depending on the last value
 *
 * Usage: swapsim-bench-cache [--json] [--quick] [--threads N] [--slots N] [--ms MS] [--reps N]
 *                            [--ops LIST] [--window N]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <swapsim/swapsim.h>

enum op {
	OP_LOOKUP_HIT,
	OP_LOOKUP_MISS,
	OP_LOOKUP_HIT_CHAIN,
	OP_ADD_DEL_O0,
	OP_ADD_DEL_O4,
	OP_ALLOC_FREE_O0,
	OP_MIXED,
	NR_OPS
};
static const char *const op_names[NR_OPS] = {"lookup_hit", "lookup_miss",   "lookup_hit_chain",
					     "add_del_o0", "add_del_o4",    "alloc_free_o0",
					     "mixed"};

struct options {
	int json, quick;
	const char *ops; /* comma-separated op names to run; NULL: all */
	unsigned reps;
	unsigned window;
	unsigned max_threads;
	uint64_t slots;
	unsigned ms;
};

struct row {
	char backend[16];
	const char *op;
	unsigned threads;
	double mops;
};

static struct row rows[256];
static unsigned nrows;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static inline uint64_t below(uint64_t *s, uint64_t n) { return (uint64_t)(((__uint128_t)rnd(s) * n) >> 64); }

static void die(const char *what, int rc)
{
	fprintf(stderr, "swapsim-bench-cache: %s: %s\n", what, sws_strerror(rc));
	exit(1);
}
#define CHECK(call)                      \
	do {                             \
		int rc_ = (call);        \
		if (rc_)                 \
			die(#call, rc_); \
	} while (0)

/* ---- the run of one case on T threads ---------------------------------------------------- */

struct bench {
	struct sws_sim *sim;
	int dev_hit, dev_shadow, dev_free;
	uint64_t slots;
	const _Atomic uint64_t *array; /* array floor (NULL: a backend case) */
	unsigned window;               /* live slots in alloc_free_o0 */
	enum op op;
	unsigned threads;
	double seconds;
	pthread_barrier_t start;
	atomic_int stop;
	_Atomic uint64_t done;
};

struct worker {
	struct bench *b;
	unsigned id;
	pthread_t tid;
};

#define BATCH 256

/* The next slot of a dependent chain: a function of the last index and the
 * value read, so the next load cannot start before the last one finished. */
static inline uint64_t chain_next(uint64_t idx, uint64_t value, uint64_t n)
{
	uint64_t h = (idx * 0x9e3779b97f4a7c15ull + value + 1) * 0xbf58476d1ce4e5b9ull;
	return (uint64_t)(((__uint128_t)h * n) >> 64);
}

static uint64_t run_array_chain(struct bench *b)
{
	uint64_t ops = 0, idx = 1;
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		for (int i = 0; i < BATCH; i++)
			idx = chain_next(idx, atomic_load_explicit(&b->array[idx], memory_order_relaxed),
					 b->slots - 1) + 1;
		ops += BATCH;
	}
	if (idx == 0)
		fputc(' ', stderr);
	return ops;
}

static uint64_t run_lookup_chain(struct bench *b, struct sws_cpu *cpu, int type)
{
	uint64_t ops = 0, idx = 1;
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		for (int i = 0; i < BATCH; i++)
			idx = chain_next(idx, sws_swap_cache_lookup(cpu, sws_swp_entry((unsigned)type, idx)),
					 b->slots - 1) + 1;
		ops += BATCH;
	}
	if (idx == 0)
		fputc(' ', stderr);
	return ops;
}

static uint64_t run_array(struct bench *b, uint64_t *seed)
{
	uint64_t ops = 0, sink = 0;
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		for (int i = 0; i < BATCH; i++)
			sink += atomic_load_explicit(&b->array[below(seed, b->slots)], memory_order_relaxed);
		ops += BATCH;
	}
	if (sink == 42)
		fputc(' ', stderr);
	return ops;
}

static uint64_t run_lookup(struct bench *b, struct sws_cpu *cpu, int type, uint64_t *seed)
{
	uint64_t ops = 0, sink = 0;
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		for (int i = 0; i < BATCH; i++)
			sink += sws_swap_cache_lookup(cpu, sws_swp_entry((unsigned)type, 1 + below(seed, b->slots - 1)));
		ops += BATCH;
	}
	if (sink == 42)
		fputc(' ', stderr);
	return ops;
}

/* Swap-in add + delete on this thread's own shadow slots. */
static uint64_t run_add_del(struct bench *b, struct sws_cpu *cpu, unsigned id, unsigned order)
{
	unsigned nr = 1u << order;
	uint64_t per = ((b->slots - SWS_CLUSTER_SLOTS) / b->threads) & ~(uint64_t)(SWS_CLUSTER_SLOTS - 1);
	uint64_t base = SWS_CLUSTER_SLOTS + per * id, off = base, ops = 0, shadow;
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		for (int i = 0; i < BATCH; i++) {
			sws_entry_t e = sws_swp_entry((unsigned)b->dev_shadow, off);
			CHECK(sws_swap_cache_add(cpu, e, nr, off, &shadow));
			CHECK(sws_swap_cache_del(cpu, e, nr, off, shadow));
			off += nr;
			if (off + nr > base + per)
				off = base;
		}
		ops += BATCH;
	}
	return ops;
}

#define MAX_WINDOW 4096

/*
 * folio_alloc_swap() + free of the oldest of b->window live slots (FIFO). A
 * window of a cluster or more has swap-out run ahead of frees, as reclaim
 * does; a small one interleaves them inside the per-CPU cluster, which then
 * moves frag -> nonfull -> frag under the device lock on every pair.
 */
static uint64_t run_alloc_free(struct bench *b, struct sws_cpu *cpu, unsigned id)
{
	static _Thread_local sws_entry_t live[MAX_WINDOW];
	const unsigned LIVE = b->window;
	uint64_t ops = 0, pfn = 1 + (uint64_t)id * (1ull << 32);
	unsigned head = 0, n = 0;
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		for (int i = 0; i < BATCH; i++, pfn++) {
			if (n == LIVE) {
				CHECK(sws_swap_cache_del(cpu, live[head], 1, pfn - LIVE, 0));
				n--;
			}
			CHECK(sws_folio_alloc_swap(cpu, pfn, 0, &live[head]));
			head = (head + 1) % LIVE;
			n++;
		}
		ops += BATCH;
	}
	for (unsigned k = 0; k < n; k++) /* the oldest first */
		CHECK(sws_swap_cache_del(cpu, live[(head + LIVE - n + k) % LIVE], 1, pfn - n + k, 0));
	return ops;
}

#define RING 256

/* The swap-out / swap-in / free cycle with RING pages swapped out per thread. */
static uint64_t run_mixed(struct bench *b, struct sws_cpu *cpu, unsigned id)
{
	sws_entry_t ring[RING];
	uint64_t pfn = 1 + (uint64_t)id * (1ull << 32), ops = 0, shadow;
	unsigned head = 0, live = 0;
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		for (int i = 0; i < BATCH; i++, pfn++) {
			sws_entry_t e;
			/* swap-out: slot + cache at allocation, PTE becomes the entry, writeback done */
			CHECK(sws_folio_alloc_swap(cpu, pfn, 0, &e));
			CHECK(sws_swap_dup(cpu, e, 1));
			CHECK(sws_swap_cache_del(cpu, e, 1, pfn, pfn & 0xffff));
			if (live == RING) {
				/* swap-in of the oldest: miss, new folio in the cache, PTE maps it, freed */
				sws_entry_t old = ring[head];
				uint64_t nf = pfn + (1ull << 31);
				if (sws_swap_cache_lookup(cpu, old))
					die("lookup of a swapped-out slot hit", SWS_ECORRUPT);
				CHECK(sws_swap_cache_add(cpu, old, 1, nf, &shadow));
				CHECK(sws_swap_put(cpu, old, 1));
				CHECK(sws_swap_cache_del(cpu, old, 1, nf, 0));
			} else {
				live++;
			}
			ring[head] = e;
			head = (head + 1) % RING;
		}
		ops += BATCH;
	}
	/* Drain what is still swapped out. */
	for (unsigned i = 0; i < live; i++)
		CHECK(sws_swap_put(cpu, ring[i], 1));
	return ops;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct bench *b = w->b;
	struct sws_cpu *cpu = NULL;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (w->id + 1), ops = 0;
	if (!b->array)
		CHECK(sws_cpu_attach(b->sim, &cpu));
	pthread_barrier_wait(&b->start);
	if (b->array && b->op == OP_LOOKUP_HIT_CHAIN)
		ops = run_array_chain(b);
	else if (b->array)
		ops = run_array(b, &seed);
	else if (b->op == OP_LOOKUP_HIT_CHAIN)
		ops = run_lookup_chain(b, cpu, b->dev_hit);
	else if (b->op == OP_LOOKUP_HIT)
		ops = run_lookup(b, cpu, b->dev_hit, &seed);
	else if (b->op == OP_LOOKUP_MISS)
		ops = run_lookup(b, cpu, b->dev_shadow, &seed);
	else if (b->op == OP_ADD_DEL_O0 || b->op == OP_ADD_DEL_O4)
		ops = run_add_del(b, cpu, w->id, b->op == OP_ADD_DEL_O0 ? 0 : 4);
	else if (b->op == OP_ALLOC_FREE_O0)
		ops = run_alloc_free(b, cpu, w->id);
	else
		ops = run_mixed(b, cpu, w->id);
	atomic_fetch_add(&b->done, ops);
	sws_cpu_detach(cpu);
	return NULL;
}

static double run_case(struct bench *b)
{
	struct worker w[64];
	atomic_store(&b->stop, 0);
	atomic_store(&b->done, 0);
	pthread_barrier_init(&b->start, NULL, b->threads + 1);
	for (unsigned i = 0; i < b->threads; i++) {
		w[i] = (struct worker){b, i, 0};
		pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
	}
	pthread_barrier_wait(&b->start);
	double t0 = now_s();
	struct timespec nap = {(time_t)b->seconds, (long)((b->seconds - (double)(time_t)b->seconds) * 1e9)};
	nanosleep(&nap, NULL);
	atomic_store(&b->stop, 1);
	for (unsigned i = 0; i < b->threads; i++)
		pthread_join(w[i].tid, NULL);
	double dt = now_s() - t0;
	pthread_barrier_destroy(&b->start);
	return (double)atomic_load(&b->done) / dt / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of @reps runs: robust against a neighbour stealing the CPU once. */
static double run_median(struct bench *b, unsigned reps)
{
	double v[16];
	for (unsigned i = 0; i < reps; i++)
		v[i] = run_case(b);
	qsort(v, reps, sizeof(v[0]), cmp_double);
	return v[reps / 2];
}

static void add_row(const char *backend, const char *op, unsigned threads, double mops)
{
	if (nrows == sizeof(rows) / sizeof(rows[0]))
		return;
	struct row *r = &rows[nrows++];
	snprintf(r->backend, sizeof(r->backend), "%s", backend);
	r->op = op;
	r->threads = threads;
	r->mops = mops;
}

/* ---- set-up of one backend's simulation ----------------------------------------------------- */

static int swapon_ssd(struct sws_sim *sim, uint64_t slots, int prio)
{
	int type;
	struct sws_device_config dc = {.nr_slots = slots, .flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER,
				       .prio = prio};
	CHECK(sws_swapon(sim, &dc, &type));
	return type;
}

static struct sws_sim *prepare(enum sws_backend backend, uint64_t slots, struct bench *b)
{
	struct sws_sim_config cfg = {.backend = backend};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	sws_entry_t e;
	CHECK(sws_sim_create(&cfg, &sim));
	CHECK(sws_cpu_attach(sim, &cpu));
	/* Device "hit": every slot holds a folio. Device "shadow": every slot a shadow. */
	b->dev_hit = swapon_ssd(sim, slots, 3);
	for (uint64_t i = 1; i < slots; i++)
		CHECK(sws_folio_alloc_swap(cpu, i, 0, &e));
	b->dev_shadow = swapon_ssd(sim, slots, 2);
	for (uint64_t i = 1; i < slots; i++) {
		CHECK(sws_folio_alloc_swap(cpu, i, 0, &e));
		if (sws_swp_type(e) != (unsigned)b->dev_shadow) /* any slot order (6.17: by columns) */
			die("unexpected prefill layout", SWS_ECORRUPT);
		CHECK(sws_swap_dup(cpu, e, 1));
		CHECK(sws_swap_cache_del(cpu, e, 1, i, i & 0xffff));
	}
	/* Device "free": where allocations happen. */
	b->dev_free = swapon_ssd(sim, slots, 1);
	sws_cpu_detach(cpu);
	b->sim = sim;
	b->slots = slots;
	return sim;
}

static void print_results(const struct options *o)
{
	if (o->json) {
		printf("[");
		for (unsigned i = 0; i < nrows; i++) {
			const struct row *r = &rows[i];
			double table = 0, array = 0;
			for (unsigned j = 0; j < nrows; j++) {
				if (rows[j].threads != r->threads)
					continue;
				if (!strcmp(rows[j].backend, "swap_table") && !strcmp(rows[j].op, r->op))
					table = rows[j].mops;
				/* The floor of the same kind: chained or independent loads. */
				if (!strcmp(rows[j].backend, "array") &&
				    !strstr(rows[j].op, "chain") == !strstr(r->op, "chain"))
					array = rows[j].mops;
			}
			printf("%s\n {\"backend\":\"%s\",\"op\":\"%s\",\"threads\":%u,\"mops\":%.3f,\"ns_per_op\":%.2f",
			       i ? "," : "", r->backend, r->op, r->threads, r->mops,
			       r->mops > 0 ? 1e3 * r->threads / r->mops : 0.0);
			if (table > 0 && strcmp(r->backend, "array"))
				printf(",\"vs_swap_table\":%.3f", r->mops / table);
			if (array > 0 && !strncmp(r->op, "lookup", 6))
				printf(",\"vs_array\":%.3f", r->mops / array);
			printf("}");
		}
		printf("\n]\n");
		return;
	}
	printf("%-12s %-14s %7s %12s %12s\n", "backend", "op", "threads", "Mops/s", "ns/op/thread");
	for (unsigned i = 0; i < nrows; i++)
		printf("%-12s %-14s %7u %12.2f %12.1f\n", rows[i].backend, rows[i].op, rows[i].threads,
		       rows[i].mops, rows[i].mops > 0 ? 1e3 * rows[i].threads / rows[i].mops : 0.0);
}

/* Is @name in the --ops list (or is there no list)? */
static int op_selected(const struct options *o, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = o->ops; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0))
			return 1;
	return o->ops == NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: swapsim-bench-cache [--json] [--quick] [--threads N] [--slots N] [--ms MS] [--reps N] [--ops LIST]\n"
		   "                           [--window N]\n"
		   "  --json       one JSON array of {backend, op, threads, mops, ns_per_op, vs_*}\n"
		   "  --quick      a few seconds in all (smoke test; figures are not meaningful)\n"
		   "  --threads N  largest thread count; runs 1, 2, 4, ... N (default: online CPUs)\n"
		   "  --slots N    slots per device (default 1048576 = 4 GiB of swap)\n"
		   "  --ms MS      duration of each case in milliseconds (default 200)\n"
		   "  --reps N     runs of each case; the median is reported (default 3)\n"
		   "  --ops LIST   only these ops (comma-separated names, see the top of bench_cache.c)\n"
		   "  --window N   live slots kept by alloc_free_o0 (default 1024: two clusters)\n");
}

static uint64_t parse_num(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v = s ? strtoull(s, &end, 10) : 0;
	if (!s || *end || v < lo || v > hi) {
		fprintf(stderr, "swapsim-bench-cache: %s needs a number in %llu..%llu, got '%s'\n", opt,
			(unsigned long long)lo, (unsigned long long)hi, s ? s : "");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct options o = {0, 0, NULL, 3, 1024, ncpu > 0 ? (unsigned)ncpu : 1, 1u << 20, 200};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			o.json = 1;
		else if (!strcmp(argv[i], "--quick"))
			o.quick = 1;
		else if (!strcmp(argv[i], "--threads"))
			o.max_threads = (unsigned)parse_num("--threads", argv[++i < argc ? i : 0], 1, 64);
		else if (!strcmp(argv[i], "--slots"))
			o.slots = parse_num("--slots", argv[++i < argc ? i : 0], 64 * SWS_CLUSTER_SLOTS, 1ull << 28);
		else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			o.ops = argv[++i];
		else if (!strcmp(argv[i], "--window"))
			o.window = (unsigned)parse_num("--window", argv[++i < argc ? i : 0], 1, MAX_WINDOW);
		else if (!strcmp(argv[i], "--reps"))
			o.reps = (unsigned)parse_num("--reps", argv[++i < argc ? i : 0], 1, 15);
		else if (!strcmp(argv[i], "--ms"))
			o.ms = (unsigned)parse_num("--ms", argv[++i < argc ? i : 0], 1, 600000);
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "swapsim-bench-cache: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (o.quick) {
		o.slots = 64 * SWS_CLUSTER_SLOTS;
		o.ms = 20;
		o.reps = 1;
		if (o.max_threads > 2)
			o.max_threads = 2;
	}

	/* The floor: a bare atomic load from a plain array of the same size. */
	_Atomic uint64_t *array = calloc(o.slots, sizeof(*array));
	if (!array)
		die("calloc", SWS_ENOMEM);
	for (uint64_t i = 0; i < o.slots; i++)
		atomic_store_explicit(&array[i], i, memory_order_relaxed);

	const enum sws_backend backends[] = {SWS_BACKEND_SWAP_TABLE, SWS_BACKEND_XARRAY};
	struct bench b[2];
	for (int k = 0; k < 2; k++) {
		memset(&b[k], 0, sizeof(b[k]));
		prepare(backends[k], o.slots, &b[k]);
		b[k].seconds = o.ms / 1000.0;
		b[k].window = o.window;
	}
	for (unsigned t = 1; t <= o.max_threads; t = t * 2 > o.max_threads && t < o.max_threads ? o.max_threads : t * 2) {
		struct bench ab = {.slots = o.slots, .array = array, .threads = t, .seconds = o.ms / 1000.0};
		ab.op = OP_LOOKUP_HIT;
		add_row("array", "lookup", t, run_median(&ab, o.reps));
		ab.op = OP_LOOKUP_HIT_CHAIN;
		add_row("array", "lookup_chain", t, run_median(&ab, o.reps));
		for (int op = 0; op < NR_OPS; op++) {
			if (!op_selected(&o, op_names[op]))
				continue;
			/* Interleave the backends case by case so drift hits both alike. */
			for (int k = 0; k < 2; k++) {
				b[k].op = (enum op)op;
				b[k].threads = t;
				add_row(sws_backend_name(backends[k]), op_names[op], t, run_median(&b[k], o.reps));
			}
		}
	}
	for (int k = 0; k < 2; k++) {
		char msg[256];
		if (sws_swap_check(b[k].sim, msg, sizeof(msg)))
			die(msg, SWS_ECORRUPT);
		sws_sim_destroy(b[k].sim);
	}
	free(array);
	print_results(&o);
	return 0;
}
