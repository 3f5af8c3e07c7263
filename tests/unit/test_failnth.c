/*
 * test_failnth.c - allocation-failure walk (SQLite's fault.c pattern).
 *
 * One whole scenario per backend: create a simulation, attach a CPU, swap on
 * a memory-backed and a metadata-only device, allocate folios of orders 0, 4
 * and 9, write their pages, unmap them (dup), push counts past 70 (swap table
 * extend tables, XArray continuation pages), record memcgs and a zero flag,
 * evict with shadows, read the pages back, swap in with cache_add, migrate,
 * drop every reference, free every slot, swap off, destroy.
 *
 * A first run with no failure counts the K calls the scenario makes to the
 * allocator. Then for N = 1..K the scenario runs again with the Nth call
 * failing. Every step must succeed or return an error the call documents
 * (SWS_ENOMEM; SWS_ENOSPC too for an allocation, which falls back through the
 * device lists); after an error the simulation must pass sws_swap_check() and
 * the slots and totals the scenario relies on must be exactly as before the
 * call. The step is then repeated (only the Nth call fails) and the scenario
 * goes on. After sws_sim_destroy() the allocator must hold no live byte.
 */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define NF 7       /* folios */
#define SNAP_MAX 512

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;

struct walk {
	struct sws_test_alloc ta;
	struct sws_env env;
	enum sws_backend backend;
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int tmem, tnone; /* device types */
	unsigned errors; /* steps that returned an error in this run */
};

/* What must not change when a step fails. */
struct snap {
	uint64_t total, free_slots, swapcache, devices;
	sws_entry_t e;
	unsigned nr;
	struct sws_slot_state st[SNAP_MAX];
	int ndev;
	int type[2];
	struct sws_device_info di[2];
};

enum step_kind {
	STEP_SETUP, /* attach, swapon: SWS_ENOMEM; nothing else may change */
	STEP_ALLOC, /* folio_alloc_swap: SWS_ENOMEM or SWS_ENOSPC; totals unchanged (lists may move) */
	STEP_SLOTS, /* per-slot calls and page I/O: SWS_ENOMEM; slots, lists and totals unchanged */
};

static void snap_take(struct walk *w, sws_entry_t e, unsigned nr, struct snap *s)
{
	memset(s, 0, sizeof(*s));
	if (!w->sim)
		return;
	struct sws_stats st;
	sws_stats_snapshot(w->sim, &st);
	s->total = st.total_swap_pages;
	s->free_slots = st.nr_swap_pages;
	s->swapcache = st.nr_swapcache;
	s->devices = st.nr_devices;
	s->e = e;
	s->nr = nr;
	for (unsigned i = 0; i < nr; i++)
		assert_sws(0, sws_swap_slot_state(w->sim, e + i, &s->st[i]));
	int types[2] = {w->tmem, w->tnone};
	for (int i = 0; i < 2; i++)
		if (types[i] >= 0 && !sws_device_info_get(w->sim, types[i], &s->di[s->ndev]))
			s->type[s->ndev++] = types[i];
}

static void step_failed(struct walk *w, const char *call, int line, int rc, enum step_kind kind,
			const struct snap *before)
{
	w->errors++;
	bool allowed = rc == SWS_ENOMEM || (kind == STEP_ALLOC && rc == SWS_ENOSPC);
	if (!allowed)
		fail_msg("%s, fail_nth %llu, line %d: %s returned %s", sws_backend_name(w->backend),
			 (unsigned long long)w->ta.fail_nth, line, call, sws_error_name(rc));
	char msg[256];
	if (sws_swap_check(w->sim, msg, sizeof(msg)))
		fail_msg("%s, fail_nth %llu, line %d: after %s returned %s: %s", sws_backend_name(w->backend),
			 (unsigned long long)w->ta.fail_nth, line, call, sws_error_name(rc), msg);
	struct snap after;
	snap_take(w, before->e, before->nr, &after);
	if (after.total != before->total || after.free_slots != before->free_slots ||
	    after.swapcache != before->swapcache || after.devices != before->devices || after.ndev != before->ndev)
		fail_msg("%s, fail_nth %llu, line %d: %s returned %s but totals changed: free %llu -> %llu, "
			 "swapcache %llu -> %llu, devices %llu -> %llu",
			 sws_backend_name(w->backend), (unsigned long long)w->ta.fail_nth, line, call,
			 sws_error_name(rc), (unsigned long long)before->free_slots,
			 (unsigned long long)after.free_slots, (unsigned long long)before->swapcache,
			 (unsigned long long)after.swapcache, (unsigned long long)before->devices,
			 (unsigned long long)after.devices);
	for (unsigned i = 0; i < before->nr; i++) {
		const struct sws_slot_state *a = &before->st[i], *b = &after.st[i];
		if (a->allocated != b->allocated || a->cached != b->cached || a->zero != b->zero ||
		    a->memcg != b->memcg || a->count != b->count || a->pfn != b->pfn || a->shadow != b->shadow)
			fail_msg("%s, fail_nth %llu, line %d: %s returned %s but slot +%u changed: count %u -> %u, "
				 "pfn %llu -> %llu, shadow %llu -> %llu, memcg %u -> %u, zero %d -> %d",
				 sws_backend_name(w->backend), (unsigned long long)w->ta.fail_nth, line, call,
				 sws_error_name(rc), i, a->count, b->count, (unsigned long long)a->pfn,
				 (unsigned long long)b->pfn, (unsigned long long)a->shadow,
				 (unsigned long long)b->shadow, a->memcg, b->memcg, a->zero, b->zero);
	}
	if (kind == STEP_ALLOC)
		return; /* a failed scan may still have refiled the clusters it looked at */
	for (int i = 0; i < before->ndev; i++)
		if (memcmp(&before->di[i], &after.di[i], sizeof(after.di[i])))
			fail_msg("%s, fail_nth %llu, line %d: %s returned %s but device %d's lists changed",
				 sws_backend_name(w->backend), (unsigned long long)w->ta.fail_nth, line, call,
				 sws_error_name(rc), before->type[i]);
}

/*
 * Run @call. On an error, check it and the state, then run @call once more:
 * only the Nth allocation fails, so the retry must succeed.
 */
#define STEP(w, kind, e, nr, call)                                                                      \
	do {                                                                                            \
		struct snap *snap_ = test_malloc(sizeof(*snap_));                                       \
		snap_take((w), (e), (nr), snap_);                                                       \
		int rc_ = (call);                                                                       \
		if (rc_) {                                                                              \
			step_failed((w), #call, __LINE__, rc_, (kind), snap_);                          \
			rc_ = (call);                                                                   \
			if (rc_)                                                                        \
				fail_msg("%s, fail_nth %llu, line %d: %s failed again: %s",             \
					 sws_backend_name((w)->backend), (unsigned long long)(w)->ta.fail_nth, \
					 __LINE__, #call, sws_error_name(rc_));                         \
		}                                                                                       \
		test_free(snap_);                                                                       \
	} while (0)

static struct sws_slot_state slot(struct walk *w, sws_entry_t e)
{
	struct sws_slot_state st;
	assert_sws(0, sws_swap_slot_state(w->sim, e, &st));
	return st;
}

static void fill_page(unsigned char *page, unsigned seed)
{
	for (unsigned k = 0; k < SWS_PAGE_SIZE; k++)
		page[k] = (unsigned char)(seed * 131 + k * 7 + (k >> 8));
}

static void scenario(struct walk *w)
{
	static const unsigned orders[NF] = {0, 0, 4, 9, 0, 4, 9};
	static unsigned char page[SWS_PAGE_SIZE], back[SWS_PAGE_SIZE];
	sws_entry_t e[NF];
	uint64_t pfn[NF];
	unsigned nr[NF];
	uint64_t shadow;
	uint32_t count;

	w->sim = NULL;
	w->cpu = NULL;
	w->tmem = w->tnone = -1;
	w->errors = 0;

	/* Setup. A failed create leaves nothing behind. */
	struct sws_sim_config cfg = {.backend = w->backend, .env = &w->env};
	int rc = sws_sim_create(&cfg, &w->sim);
	if (rc) {
		w->errors++;
		assert_sws(SWS_ENOMEM, rc);
		assert_null(w->sim);
		assert_int_equal(w->ta.live_bytes, 0);
		assert_sws(0, sws_sim_create(&cfg, &w->sim));
	}
	STEP(w, STEP_SETUP, 0, 0, sws_cpu_attach(w->sim, &w->cpu));
	/* Room for every folio on the first device (a large folio tries no
	 * other), and for one cluster a failed allocation sends to discard. */
	struct sws_device_config mem = {.nr_slots = 6 * SWS_CLUSTER_SLOTS + 77, .prio = 10,
					.flags = SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD | SWS_SWAP_FLAG_PREFER,
					.backing = SWS_BACKING_MEMORY};
	struct sws_device_config none = {.nr_slots = 4 * SWS_CLUSTER_SLOTS + 77, .prio = 5,
					 .flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER};
	STEP(w, STEP_SETUP, 0, 0, sws_swapon(w->sim, &mem, &w->tmem));
	STEP(w, STEP_SETUP, 0, 0, sws_swapon(w->sim, &none, &w->tnone));

	/* Swap-out: allocate (the folio enters the swap cache), write, unmap. */
	for (int i = 0; i < NF; i++) {
		pfn[i] = 1 + (uint64_t)i;
		nr[i] = 1u << orders[i];
		STEP(w, STEP_ALLOC, 0, 0, sws_folio_alloc_swap(w->cpu, pfn[i], orders[i], &e[i]));
		assert_int_equal(sws_swap_cache_lookup(w->cpu, e[i] + nr[i] - 1), pfn[i]);
	}
	for (int i = 0; i < NF; i++) {
		if (sws_swp_type(e[i]) != (unsigned)w->tmem)
			continue;
		fill_page(page, (unsigned)i);
		STEP(w, STEP_SLOTS, e[i], 1, sws_swap_writepage(w->cpu, e[i], page));
		if (nr[i] == 1)
			continue;
		fill_page(page, 100 + (unsigned)i);
		STEP(w, STEP_SLOTS, e[i] + nr[i] - 1, 1, sws_swap_writepage(w->cpu, e[i] + nr[i] - 1, page));
	}
	for (int i = 0; i < NF; i++)
		STEP(w, STEP_SLOTS, e[i], nr[i], sws_swap_dup(w->cpu, e[i], nr[i]));

	/* Counts past 70: beyond 14 (extend table) and 62 (continuation pages). */
	for (int c = 2; c <= 76; c++)
		STEP(w, STEP_SLOTS, e[0], 1, sws_swap_dup(w->cpu, e[0], 1));
	for (int c = 2; c <= 71; c++)
		STEP(w, STEP_SLOTS, e[2], nr[2], sws_swap_dup(w->cpu, e[2], nr[2]));
	assert_sws(0, sws_swap_count(w->cpu, e[0], &count));
	assert_int_equal(count, 76);
	assert_sws(0, sws_swap_count(w->cpu, e[2] + 9, &count));
	assert_int_equal(count, 71);

	for (int i = 0; i < NF; i++)
		STEP(w, STEP_SLOTS, e[i], nr[i], sws_swap_set_memcg(w->cpu, e[i], nr[i], (uint16_t)(100 + i)));
	STEP(w, STEP_SLOTS, e[4], 1, sws_swap_set_zero(w->cpu, e[4], 1, true));

	/* Eviction: every folio but the last leaves; the order-9 one leaves no shadow. */
	for (int i = 0; i < NF - 1; i++) {
		uint64_t sh = i == 3 ? 0 : 1000 + (uint64_t)i;
		STEP(w, STEP_SLOTS, e[i], nr[i], sws_swap_cache_del(w->cpu, e[i], nr[i], pfn[i], sh));
	}
	assert_false(slot(w, e[3] + 100).cached);
	assert_int_equal(slot(w, e[2] + 3).shadow, 1002);

	/* Read the pages back. */
	for (int i = 0; i < NF; i++) {
		if (sws_swp_type(e[i]) != (unsigned)w->tmem)
			continue;
		fill_page(page, (unsigned)i);
		STEP(w, STEP_SLOTS, e[i], 1, sws_swap_readpage(w->cpu, e[i], back));
		assert_memory_equal(page, back, SWS_PAGE_SIZE);
		if (nr[i] == 1)
			continue;
		fill_page(page, 100 + (unsigned)i);
		STEP(w, STEP_SLOTS, e[i] + nr[i] - 1, 1, sws_swap_readpage(w->cpu, e[i] + nr[i] - 1, back));
		assert_memory_equal(page, back, SWS_PAGE_SIZE);
	}

	/* Swap-in: new folios over the shadows; one migrates. */
	STEP(w, STEP_SLOTS, e[0], 1, sws_swap_cache_add(w->cpu, e[0], 1, 2001, &shadow));
	assert_int_equal(shadow, 1000);
	STEP(w, STEP_SLOTS, e[2], nr[2], sws_swap_cache_add(w->cpu, e[2], nr[2], 2003, &shadow));
	assert_int_equal(shadow, 1002);
	STEP(w, STEP_SLOTS, e[3], nr[3], sws_swap_cache_add(w->cpu, e[3], nr[3], 2004, &shadow));
	assert_int_equal(shadow, 0);
	STEP(w, STEP_SLOTS, e[3], nr[3], sws_swap_cache_replace(w->cpu, e[3], nr[3], 2004, 3004));
	STEP(w, STEP_SLOTS, e[3], nr[3], sws_swap_set_memcg(w->cpu, e[3], nr[3], 7));
	assert_int_equal(sws_swap_cache_lookup(w->cpu, e[3] + 511), 3004);
	assert_int_equal(slot(w, e[3] + 5).memcg, 7);
	assert_int_equal(slot(w, e[2] + 15).memcg, 102);
	assert_true(slot(w, e[4]).zero);

	/* Drop every reference and free every slot. */
	for (int c = 76; c >= 1; c--)
		STEP(w, STEP_SLOTS, e[0], 1, sws_swap_put(w->cpu, e[0], 1));
	STEP(w, STEP_SLOTS, e[0], 1, sws_swap_cache_del(w->cpu, e[0], 1, 2001, 0));
	for (int c = 71; c >= 1; c--)
		STEP(w, STEP_SLOTS, e[2], nr[2], sws_swap_put(w->cpu, e[2], nr[2]));
	STEP(w, STEP_SLOTS, e[2], nr[2], sws_swap_cache_del(w->cpu, e[2], nr[2], 2003, 9));
	STEP(w, STEP_SLOTS, e[3], nr[3], sws_swap_put(w->cpu, e[3], nr[3]));
	STEP(w, STEP_SLOTS, e[3], nr[3], sws_swap_cache_del(w->cpu, e[3], nr[3], 3004, 0));
	static const int shadows_left[] = {1, 4, 5}; /* evicted with count 1: a put frees them */
	for (unsigned k = 0; k < 3; k++) {
		int i = shadows_left[k];
		STEP(w, STEP_SLOTS, e[i], nr[i], sws_swap_put(w->cpu, e[i], nr[i]));
	}
	STEP(w, STEP_SLOTS, e[6], nr[6], sws_swap_put(w->cpu, e[6], nr[6]));
	STEP(w, STEP_SLOTS, e[6], nr[6], sws_swap_cache_del(w->cpu, e[6], nr[6], pfn[6], 0));
	for (int i = 0; i < NF; i++)
		assert_false(slot(w, e[i]).allocated);

	uint64_t total, free_slots;
	sws_swap_totals(w->sim, &total, &free_slots);
	assert_int_equal(free_slots, total);
	struct sws_stats st;
	sws_stats_snapshot(w->sim, &st);
	assert_int_equal(st.nr_swapcache, 0);
	assert_consistent(w->sim);

	/* Teardown: discard, swapoff, destroy; not a byte may stay. */
	assert_int_equal(sws_swap_do_deferred_work(w->sim, 16), 0);
	assert_sws(0, sws_swapoff(w->sim, w->tnone));
	assert_sws(0, sws_swapoff(w->sim, w->tmem));
	sws_cpu_detach(w->cpu);
	sws_sim_destroy(w->sim);
	w->sim = NULL;
	if (w->ta.live_bytes)
		fail_msg("%s, fail_nth %llu: %lld bytes still allocated after sws_sim_destroy",
			 sws_backend_name(w->backend), (unsigned long long)w->ta.fail_nth, (long long)w->ta.live_bytes);
}

static void run(struct walk *w, enum sws_backend backend, uint64_t fail_nth)
{
	memset(w, 0, sizeof(*w));
	sws_test_alloc_init(&w->ta);
	w->ta.fail_nth = fail_nth;
	w->env.allocator = w->ta.a;
	w->backend = backend;
	scenario(w);
}

static void test_fail_nth(void **state)
{
	enum sws_backend backend = *(enum sws_backend *)*state;
	struct walk *w = test_malloc(sizeof(*w));

	run(w, backend, 0);
	assert_int_equal(w->errors, 0);
	const uint64_t k = w->ta.calls;
	assert_true(k > 20); /* the scenario really allocates */

	unsigned visible = 0;
	for (uint64_t n = 1; n <= k; n++) {
		run(w, backend, n);
		if (w->ta.calls < n)
			fail_msg("%s: fail_nth %llu never reached (%llu calls): the scenario is not deterministic",
				 sws_backend_name(backend), (unsigned long long)n, (unsigned long long)w->ta.calls);
		visible += w->errors != 0;
	}
	/* Most failures surface as SWS_ENOMEM; a few are absorbed (an allocation falls back). */
	assert_true(visible > 0);
	print_message("%s: %llu allocator calls, each failed once: %u surfaced as an error, %llu absorbed\n",
		      sws_backend_name(backend), (unsigned long long)k, visible, (unsigned long long)(k - visible));
	test_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_fail_nth, &backend_table),
		cmocka_unit_test_prestate(test_fail_nth, &backend_xarray),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
