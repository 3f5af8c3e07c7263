/*
 * test_filemap.c - the page cache (sws_mm_file_io()): read misses and hits,
 * their charge and I/O wait; writes and dirtying; the cache outliving the
 * task; folio_mark_accessed()'s activation; get_scan_count()'s cache trim
 * mode against SCAN_FRACT (small, refaulting or low file lists) and its
 * swappiness and lru_note_cost() weights; file refaults and the workingset
 * they compete with (the active file list, and the anon lists while swap
 * has room), landing on the active list; the workingset clock aged by
 * activations; dirty pages written back by reclaim; the exact-LRU and clock
 * policies; errors; teardown with cached, dirty and evicted pages.
 */
#include <string.h>

#include "testutil.h"
#include "mm/mm_internal.h"

struct env {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	int type;     /* the swap device; -1: none */
	uint16_t cg;  /* the task's memcg */
	uint32_t asid;
};

#define READ_NS 7000ull
#define WRITE_NS 9000ull

/* @ram_pages of RAM, a swap device of @swap_slots (0: no swap at all), the
 * policy @policy, a memcg limited to @limit pages (0: unlimited) and one task
 * in it. The file latencies are READ_NS and WRITE_NS. */
static void env_open(struct env *e, uint64_t ram_pages, uint64_t swap_slots, enum sws_reclaim_policy policy,
		     uint64_t limit)
{
	memset(e, 0, sizeof(*e));
	struct sws_sim_config cfg = {.backend = SWS_BACKEND_SWAP_TABLE};
	assert_sws(0, sws_sim_create(&cfg, &e->sim));
	assert_sws(0, sws_cpu_attach(e->sim, &e->cpu));
	e->type = -1;
	if (swap_slots) {
		struct sws_device_config dc = {.nr_slots = swap_slots, .flags = SWS_SWP_SOLIDSTATE};
		assert_sws(0, sws_swapon(e->sim, &dc, &e->type));
	}
	struct sws_mm_config mc = {.ram_pages = ram_pages, .policy = policy, .page_cluster = 1, .seed = 1};
	assert_sws(0, sws_mm_create(e->sim, &mc, &e->mm));
	assert_sws(0, sws_mm_set_file_latency(e->mm, READ_NS, WRITE_NS));
	assert_sws(0, sws_mm_memcg_create(e->mm, limit, &e->cg));
	assert_sws(0, sws_mm_space_create(e->mm, e->cg, &e->asid));
}

/* Tear down: every slot free, the memory model's metadata all given back. */
static void env_close(struct env *e)
{
	assert_consistent(e->sim);
	sws_test_mm_destroy(e->sim, e->mm);
	sws_cpu_detach(e->cpu);
	sws_sim_destroy(e->sim);
}

/* Counter @c now less its value in snapshot @s0. */
static uint64_t delta(struct env *e, const struct sws_mm_stats *s0, enum sws_mm_counter c)
{
	return sws_test_mm_stats(e->mm).counters[c] - s0->counters[c];
}

static uint64_t iowait(struct env *e)
{
	struct sws_mm_cpu_time t;
	sws_mm_cpu_time_get(e->mm, e->cpu, &t);
	return t.iowait_ns;
}

/* read(2) / write(2) of pages [@index, @index + @nr) of @file by the task. */
static int64_t rd(struct env *e, uint32_t file, uint64_t index, uint64_t nr)
{
	return sws_mm_file_io(e->cpu, e->mm, e->asid, file, index, nr, false);
}

static int64_t wr(struct env *e, uint32_t file, uint64_t index, uint64_t nr)
{
	return sws_mm_file_io(e->cpu, e->mm, e->asid, file, index, nr, true);
}

/* lru_add_drain(): the CPU's new folios onto the lists (a memory.reclaim of
 * nothing drains and takes nothing). */
static void drain(struct env *e) { assert_int_equal(sws_mm_reclaim(e->cpu, e->mm, e->cg, 0), 0); }

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x10000000ull)

/* @n anonymous pages written by the task. */
static void write_anon(struct env *e, unsigned n)
{
	for (unsigned p = 0; p < n; p++)
		assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(p), true), 1);
}

/*
 * @n anonymous pages written, then aged by one reclaim pass with no page
 * cache yet: the pass gives every (young) page its second chance and takes
 * the oldest, so the other @n - 1 are reclaimable by the next anon scan.
 */
static void write_anon_aged(struct env *e, unsigned n)
{
	write_anon(e, n);
	struct sws_mm_stats s0 = sws_test_mm_stats(e->mm);
	assert_int_equal(sws_mm_reclaim(e->cpu, e->mm, e->cg, 1), 1);
	assert_int_equal(delta(e, &s0, SWS_MM_pswpout), 1);
}

/*
 * A read miss reads the page from its file (pgpgin_file) and the task waits
 * the file's read latency for each page; the pages are charged to the task's
 * memcg: 64 fit a limit of 64 without reclaim (one charge a page, not two),
 * the 65th makes the memcg reclaim its own page cache. A second read hits:
 * no I/O, no wait.
 */
static void test_read_miss_then_hit(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 64);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	uint64_t w0 = iowait(&e);
	assert_int_equal(rd(&e, 3, 10, 40), 40);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgpgin_file), 40);
	assert_int_equal(iowait(&e) - w0, 40 * READ_NS);
	assert_int_equal(delta(&e, &s0, SWS_MM_modelled_io_ns), 40 * READ_NS);
	assert_int_equal(s0.free_pages - sws_test_mm_stats(e.mm).free_pages, 40);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_dirtied), 0);
	/* cached now: a hit, nothing read, nothing waited */
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	uint64_t w1 = iowait(&e);
	assert_int_equal(rd(&e, 3, 10, 40), 0);
	assert_int_equal(rd(&e, 3, 20, 5), 0);
	assert_int_equal(delta(&e, &s1, SWS_MM_pgpgin_file), 0);
	assert_int_equal(iowait(&e), w1);
	assert_int_equal(sws_test_mm_stats(e.mm).free_pages, s1.free_pages);
	/* a range half cached: only the other half misses */
	assert_int_equal(rd(&e, 3, 40, 20), 10);
	assert_int_equal(delta(&e, &s1, SWS_MM_pgpgin_file), 10);
	/* the same index of another file is another page */
	assert_int_equal(rd(&e, 4, 10, 14), 14);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgpgin_file), 64);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal), 0); /* 64 pages: the limit, not past it */
	/* the 65th: the memcg is full and reclaims from its own page cache */
	assert_int_equal(rd(&e, 5, 0, 1), 1);
	assert_true(delta(&e, &s0, SWS_MM_pgsteal_file) > 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), delta(&e, &s0, SWS_MM_pgsteal));
	assert_true(s0.free_pages - sws_test_mm_stats(e.mm).free_pages <= 64);
	env_close(&e);
}

/*
 * A write of a whole page that is not cached reads nothing (no pgpgin_file,
 * no wait) and dirties the new page; a write of a clean cached page dirties
 * it (nr_dirtied once); a page already dirty is not counted again.
 */
static void test_write_dirties(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 0);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	uint64_t w0 = iowait(&e);
	assert_int_equal(wr(&e, 1, 0, 3), 3); /* missed, but nothing to read */
	assert_int_equal(delta(&e, &s0, SWS_MM_pgpgin_file), 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_dirtied), 3);
	assert_int_equal(iowait(&e), w0);
	assert_int_equal(s0.free_pages - sws_test_mm_stats(e.mm).free_pages, 3); /* yet cached */
	assert_int_equal(rd(&e, 1, 0, 3), 0);
	assert_int_equal(wr(&e, 1, 0, 3), 0); /* still dirty: not dirtied again */
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_dirtied), 3);
	/* clean cached pages: read in, then written once and again */
	assert_int_equal(rd(&e, 1, 10, 4), 4);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_dirtied), 3);
	assert_int_equal(wr(&e, 1, 10, 4), 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_dirtied), 7);
	assert_int_equal(wr(&e, 1, 10, 4), 0);
	assert_int_equal(wr(&e, 1, 12, 1), 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_dirtied), 7);
	/* a write across cached and uncached pages: only the new ones miss */
	assert_int_equal(wr(&e, 1, 12, 4), 2);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_dirtied), 9);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgpgin_file), 4);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_written), 0); /* nothing reclaimed: nothing written back */
	env_close(&e);
}

/*
 * Files are no task's: their pages stay cached after the task that read
 * them exits, and another task (in another memcg too) finds them.
 */
static void test_cache_outlives_task(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 0);
	assert_int_equal(rd(&e, 5, 0, 100), 100);
	assert_int_equal(wr(&e, 5, 100, 10), 10);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, e.asid));
	assert_sws(SWS_EINVAL, rd(&e, 5, 0, 1)); /* the task is gone */
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	uint32_t other, third;
	assert_sws(0, sws_mm_space_create(e.mm, e.cg, &other));
	assert_int_equal(sws_mm_file_io(e.cpu, e.mm, other, 5, 0, 110, false), 0);
	uint16_t cg2;
	assert_sws(0, sws_mm_memcg_create(e.mm, 0, &cg2));
	assert_sws(0, sws_mm_space_create(e.mm, cg2, &third));
	assert_int_equal(sws_mm_file_io(e.cpu, e.mm, third, 5, 50, 60, false), 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgpgin_file), 0);
	assert_int_equal(sws_test_mm_stats(e.mm).free_pages, s0.free_pages);
	e.asid = other;
	env_close(&e);
}

/*
 * folio_mark_accessed() on a cached page (mm.h: "referenced, then active on
 * the next access"): the read that misses leaves the page referenced, as the
 * kernel's filemap_read() marks the folio it has just read in, so the next
 * read activates it (pgactivate, once: an active page read on is not
 * activated again). Writes mark nothing (write_begin takes no
 * FGP_ACCESSED): a written page takes two reads to activate.
 */
static void test_second_access_activates(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 0);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(rd(&e, 2, 0, 1), 1); /* read in: referenced */
	drain(&e); /* on the inactive file list */
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 0);
	assert_int_equal(rd(&e, 2, 0, 1), 0); /* activated (folio_activate(): its CPU's batch) */
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 0); /* counted when the batch moves */
	drain(&e);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 1);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rd(&e, 2, 0, 1), 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgdeactivate), 0);
	/* a page used once is not activated by reclaim either: it goes first */
	assert_int_equal(rd(&e, 2, 1, 1), 1);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 1), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 1);
	assert_int_equal(rd(&e, 2, 0, 1), 0); /* the active page stayed */
	/* write(2) marks nothing: a written page is activated by reads only */
	assert_int_equal(wr(&e, 2, 2, 1), 1);
	drain(&e);
	for (int i = 0; i < 3; i++)
		assert_int_equal(wr(&e, 2, 2, 1), 0);
	drain(&e); /* an activation in the batch would count now */
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 1);
	assert_int_equal(rd(&e, 2, 2, 1), 0); /* referenced */
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 1);
	assert_int_equal(rd(&e, 2, 2, 1), 0); /* activated */
	drain(&e);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 2);
	env_close(&e);
}

/* A second read of a page still in this CPU's add batch activates it there
 * (__lru_cache_activate_folio()): it reaches the active list as the batch
 * drains, with no list move to count, and outlives a page read once after it. */
static void test_activate_in_batch(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 0);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(rd(&e, 3, 0, 1), 1);
	assert_int_equal(rd(&e, 3, 0, 1), 0); /* still in the batch: activated there */
	assert_int_equal(rd(&e, 3, 1, 1), 1); /* read once, after it */
	drain(&e);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 0);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 1), 1);
	assert_int_equal(rd(&e, 3, 1, 1), 1); /* the inactive one went */
	assert_int_equal(rd(&e, 3, 0, 1), 0); /* the active one stayed */
	env_close(&e);
}

/* A folio waiting in a CPU's activate batch can be reclaimed by another CPU
 * and its descriptor reused there for another page before the batch moves
 * (the kernel's batch holds a reference; the model's entry records the
 * descriptor's claim generation): the stale entry moves nothing and counts
 * nothing, and the new page stays inactive. */
static void test_activate_batch_stale_entry(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 0);
	struct sws_cpu *other;
	assert_sws(0, sws_cpu_attach(e.sim, &other));
	assert_int_equal(rd(&e, 4, 0, 1), 1);
	drain(&e);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(rd(&e, 4, 0, 1), 0); /* in e.cpu's activate batch */
	assert_int_equal(sws_mm_reclaim(other, e.mm, e.cg, 1), 1); /* taken meanwhile */
	/* the freed descriptor comes back from other's per-CPU list */
	assert_int_equal(sws_mm_file_io(other, e.mm, e.asid, 4, 1, 1, false), 1);
	sws_mm_lru_add_drain(other, e.mm); /* the new page on the inactive list */
	drain(&e);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgactivate), 0);
	/* page 1 is the inactive one reclaim takes (page 0 is gone) */
	assert_int_equal(sws_mm_reclaim(other, e.mm, e.cg, 1), 1);
	assert_int_equal(rd(&e, 4, 1, 1), 1);
	sws_cpu_detach(other);
	env_close(&e);
}

/* Read [@index, @index + @nr) of @file until it is on the active list: as
 * many times as activation takes, with the CPU's batch drained between. */
static void make_active(struct env *e, uint32_t file, uint64_t index, uint64_t nr)
{
	struct sws_mm_stats s0 = sws_test_mm_stats(e->mm);
	assert_int_equal(rd(e, file, index, nr), (int64_t)nr);
	for (int i = 0; i < 3 && delta(e, &s0, SWS_MM_pgactivate) < nr; i++) {
		drain(e);
		assert_int_equal(rd(e, file, index, nr), 0);
	}
	assert_int_equal(delta(e, &s0, SWS_MM_pgactivate), nr);
}

/* 16384 pages of RAM and swap, 4096 aged anonymous pages and 4200 of page
 * cache: an inactive file list large enough for cache trim mode. */
static void open_trim_mode(struct env *e)
{
	env_open(e, 16384, 16384, SWS_RECLAIM_KERNEL, 0);
	write_anon_aged(e, 4096);
	assert_int_equal(rd(e, 1, 0, 4200), 4200);
}

/* 8192 pages of RAM and swap, 2048 aged anonymous pages and 1000 of page
 * cache: a file list too small for cache trim mode (SCAN_FRACT). */
static void open_scan_fract(struct env *e)
{
	env_open(e, 8192, 8192, SWS_RECLAIM_KERNEL, 0);
	write_anon_aged(e, 2048);
	assert_int_equal(rd(e, 1, 0, 1000), 1000);
}

/*
 * Cache trim mode (prepare_scan_control()): with an inactive file list of at
 * least 4096 pages (inactive_file >> DEF_PRIORITY), not low and not
 * refaulting, reclaim scans the file lists only although swap has room and
 * the memcg holds as many anonymous pages.
 */
static void test_cache_trim_mode(void **state)
{
	(void)state;
	struct env e;
	open_trim_mode(&e);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 256), 256);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 256);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal), 256);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgscan), delta(&e, &s0, SWS_MM_pgscan_file));
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_zswpout), 0);
	/* the oldest pages went: the first read misses, the last ones hit */
	assert_int_equal(rd(&e, 1, 4000, 200), 0);
	assert_int_equal(rd(&e, 1, 0, 1), 1);
	env_close(&e);
}

/*
 * SCAN_FRACT: with a file list too small for cache trim mode (under 4096
 * inactive pages), reclaim takes from both types by swappiness: anonymous
 * pages are swapped out beside the page cache.
 */
static void test_scan_fract_small_file(void **state)
{
	(void)state;
	struct env e;
	open_scan_fract(&e);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 256), 256);
	assert_true(delta(&e, &s0, SWS_MM_pswpout) > 0);
	assert_true(delta(&e, &s0, SWS_MM_pgsteal_file) > 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal),
			 delta(&e, &s0, SWS_MM_pgsteal_file) + delta(&e, &s0, SWS_MM_pswpout));
	env_close(&e);
}

/*
 * sws_mm_reclaim_lru(): a reclaim held to one LRU type, as a trace's reclaim
 * record says the kernel took it. In cache trim mode (which alone would scan
 * the file lists only) an anon-only reclaim swaps out and drops no page
 * cache; with both types weighed (SCAN_FRACT) a file-only one swaps nothing.
 */
static void test_reclaim_lru_types(void **state)
{
	(void)state;
	struct env e;
	open_trim_mode(&e);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_lru(e.cpu, e.mm, e.cg, 64, SWS_MM_LRU_ANON), 64);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 64);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 0);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgscan_file), 0);
	env_close(&e);

	open_scan_fract(&e);
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_lru(e.cpu, e.mm, e.cg, 256, SWS_MM_LRU_FILE), 256);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 256);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 0);
	/* both types: as sws_mm_reclaim() */
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_lru(e.cpu, e.mm, e.cg, 256, SWS_MM_LRU_ANON | SWS_MM_LRU_FILE), 256);
	assert_true(delta(&e, &s0, SWS_MM_pswpout) > 0);
	env_close(&e);
}

static uint64_t usage(struct env *e) { return atomic_load(&e->mm->memcgs[e->cg].usage); }

/*
 * sws_mm_reclaim_recorded(): a trace's record of the kernel's reclaim. In a
 * 64-page memcg, the first charge that finds it full reclaims on its own (32
 * anon pages, a batch); the first record counts them and swaps out only the
 * rest. From then on a charge that finds the memcg full takes its page over
 * the limit and reclaims nothing, the next (still over: no record came)
 * reclaims; a file record does not count the anon pages that reclaim took.
 */
static void test_reclaim_recorded(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 4096, 4096, SWS_RECLAIM_KERNEL, 64);
	write_anon(&e, 64); /* 64 charged: the first fault's batch ahead, then the stock */
	assert_int_equal(usage(&e), 64);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(64), true), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 32);
	assert_int_equal(usage(&e), 33);
	/* the record of that reclaim: 32 counted, 8 more swapped out */
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 40, SWS_MM_LRU_ANON), 40);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 8);
	assert_int_equal(usage(&e), 25);
	/* 39 faults fill it; the next takes its page over the limit */
	s0 = sws_test_mm_stats(e.mm);
	for (unsigned p = 65; p < 105; p++)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p), true), 1);
	assert_int_equal(usage(&e), 65);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 0);
	/* no record came: the next charge reclaims */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(105), true), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 32);
	assert_int_equal(usage(&e), 34);
	/* a page cache record: nothing to take, the anon reclaim not counted */
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 16, SWS_MM_LRU_FILE), 0);
	/* an anon one: counted */
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 10, SWS_MM_LRU_ANON), 10);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 0);
	/* the rest of the credit, then 8 of both types reclaimed */
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 30, SWS_MM_LRU_ANON | SWS_MM_LRU_FILE), 30);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 8);
	assert_int_equal(usage(&e), 26);
	env_close(&e);

	/* page cache alone: the charge's reclaim counts for a file record only */
	env_open(&e, 4096, 4096, SWS_RECLAIM_KERNEL, 64);
	assert_int_equal(rd(&e, 1, 0, 65), 65);
	assert_int_equal(usage(&e), 33);
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 8, SWS_MM_LRU_ANON), 0);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 32, SWS_MM_LRU_FILE), 32);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 0);
	env_close(&e);
}

/*
 * A recorded reclaim's begin (sws_mm_reclaim_recorded() of 0 pages): the
 * kernel's memcg was full there. What the model's usage lacks is kernel
 * memory it does not hold (page tables, slab); from then on its charges go
 * over the limit and only the records reclaim. A begin that finds the model
 * over by more than the charge's page gives that kernel memory back first,
 * then reclaims what is left.
 */
static void test_reclaim_begin(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 4096, 4096, SWS_RECLAIM_KERNEL, 64);
	write_anon(&e, 64);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 40, SWS_MM_LRU_ANON), 40);
	assert_int_equal(usage(&e), 24);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 0, SWS_MM_LRU_ANON), 0);
	assert_int_equal(usage(&e), 64); /* 40 pages of kernel memory */
	for (unsigned p = 64; p < 67; p++) /* over the limit: no reclaim of their own */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p), true), 1);
	assert_int_equal(usage(&e), 67);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 40);
	/* 2 over beyond the charge's page: 2 of the kernel memory go */
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 0, SWS_MM_LRU_ANON), 0);
	assert_int_equal(usage(&e), 65);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 40);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 10, SWS_MM_LRU_ANON), 10);
	assert_int_equal(usage(&e), 55);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 50);
	env_close(&e);

	/* no kernel memory to give back: the model reclaims its own excess */
	env_open(&e, 4096, 4096, SWS_RECLAIM_KERNEL, 64);
	write_anon(&e, 64);
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 0, SWS_MM_LRU_ANON), 0);
	assert_int_equal(usage(&e), 64);
	for (unsigned p = 64; p < 67; p++)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p), true), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 0);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 0, SWS_MM_LRU_ANON), 2);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 2);
	assert_int_equal(usage(&e), 65);
	env_close(&e);

	/* no limit (memory.high alone): a begin is memory.high's reclaim, not a full memcg */
	env_open(&e, 4096, 4096, SWS_RECLAIM_KERNEL, 0);
	write_anon(&e, 10);
	uint64_t u = usage(&e);
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_recorded(e.cpu, e.mm, e.cg, 0, SWS_MM_LRU_ANON), 0);
	assert_int_equal(usage(&e), u);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 0);
	env_close(&e);
}

/*
 * sws_mm_reclaim_folio_at(): the folio the kernel's reclaim wrote out goes,
 * not the one at the tail of the list: a later read of it is a swap-in. A
 * named page the model does not hold leaves the choice to its reclaim (the
 * oldest page). Either way the record counts as one page.
 */
static void test_reclaim_folio_at(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 4096, 4096, SWS_RECLAIM_KERNEL, 64);
	write_anon(&e, 64);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_folio_at(e.cpu, e.mm, e.asid, PG(40) + 123, e.cg, 1), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgscan), 1);
	assert_int_equal(usage(&e), 63);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(0), false), 0); /* the oldest stayed */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(40), false), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgmajfault), 1);
	/* never faulted: the model's own pick, anon only */
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_folio_at(e.cpu, e.mm, e.asid, PG(500), e.cg, 1), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 1);
	assert_int_equal(usage(&e), 63);
	/* a space gone (its owner exited) or a bad address: the model's pick too */
	assert_int_equal(sws_mm_reclaim_folio_at(e.cpu, e.mm, e.asid + 100, PG(1), e.cg, 1), 1);
	assert_int_equal(sws_mm_reclaim_folio_at(e.cpu, e.mm, e.asid, 1ull << 60, e.cg, 1), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 3);
	/* a 64 KiB folio of the kernel's over the model's 4 KiB ones: 4 pages of it here */
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim_folio_at(e.cpu, e.mm, e.asid, PG(20), e.cg, 4), 4);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 4);
	for (unsigned p = 20; p < 24; p++)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p), false), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgmajfault), 4);
	env_close(&e);
}

/*
 * SCAN_FRACT when the file lists refault: a large inactive file list is
 * trimmed alone until pages it gave up come back within the workingset
 * (workingset_activate_file); the next reclaim sees the activations since
 * it last looked (snapshot_refaults(): DEACTIVATE_FILE) and takes anon too.
 * Once it has looked, the next one (the inactive file list still over 4096)
 * trims the cache alone again: 16 batches, not one of them anon.
 */
static void test_scan_fract_refaulting(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 16384, 16384, SWS_RECLAIM_KERNEL, 0);
	write_anon_aged(&e, 2048);
	assert_int_equal(rd(&e, 1, 0, 4600), 4600);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 64), 64);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 64);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 0);
	/* the 64 come back at once: refaults within the workingset */
	assert_int_equal(rd(&e, 1, 0, 64), 64);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_refault_file), 64);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate_file), 64);
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 256), 256);
	assert_true(delta(&e, &s1, SWS_MM_pswpout) > 0);
	assert_true(delta(&e, &s1, SWS_MM_pgsteal_file) > 0);
	/* no activation since: cache trim mode again */
	struct sws_mm_stats s2 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 512), 512);
	assert_int_equal(delta(&e, &s2, SWS_MM_pgsteal_file), 512);
	assert_int_equal(delta(&e, &s2, SWS_MM_pgscan), delta(&e, &s2, SWS_MM_pgscan_file));
	assert_int_equal(delta(&e, &s2, SWS_MM_pswpout), 0);
	env_close(&e);
}

/*
 * SCAN_FRACT when the inactive file list is low (inactive_is_low(): smaller
 * than the active one) although over 4096 pages: anon is taken too.
 */
static void test_scan_fract_file_low(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 20000, 8192, SWS_RECLAIM_KERNEL, 0);
	write_anon_aged(&e, 2048);
	make_active(&e, 2, 0, 4400);
	assert_int_equal(rd(&e, 1, 0, 4200), 4200);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 512), 512);
	assert_true(delta(&e, &s0, SWS_MM_pswpout) > 0);
	assert_true(delta(&e, &s0, SWS_MM_pgsteal_file) > 0);
	env_close(&e);
}

/*
 * lru_note_cost(): what a pass paid for each type steers the next. Swapping
 * anon out costs I/O (32 a page), dropping clean page cache costs nothing, so
 * of two like passes over a small file list the second takes fewer anon pages.
 * The first, with no costs yet, splits its batches by swappiness alone:
 * anon 60 to file 140 for lists of equal size.
 */
static void test_scan_fract_cost(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 8192, 8192, SWS_RECLAIM_KERNEL, 0);
	write_anon_aged(&e, 3000);
	assert_int_equal(rd(&e, 1, 0, 3000), 3000);
	uint64_t anon[2];
	for (int pass = 0; pass < 2; pass++) {
		struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
		assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 512), 512);
		anon[pass] = delta(&e, &s0, SWS_MM_pswpout);
		assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file) + anon[pass], 512);
	}
	print_message("anon pages swapped out by pass: %llu, then %llu\n", (unsigned long long)anon[0],
		      (unsigned long long)anon[1]);
	/* the first pass had no costs yet: about 60 / (60 + 140) of the batches anon */
	assert_true(anon[0] >= 3 * 32 && anon[0] <= 7 * 32);
	assert_true(anon[1] < anon[0]);
	env_close(&e);
}

/*
 * workingset_refault() of page cache with swap room: the workingset a file
 * refault competes with is the active file list and both anon lists (512
 * pages here, no active file). Reclaim evicts 1024 pages of a file, oldest
 * first; each read again misses and finds its shadow: the first evicted, at
 * distance 1024, stays inactive; the last evicted, at distance 1, is
 * activated at once (no pgactivate: it never was inactive), and so reads
 * of it are no activation either, while the inactive one is activated by
 * its reads as any inactive page.
 */
static void test_refault_activation(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 8192, 8192, SWS_RECLAIM_KERNEL, 0);
	write_anon(&e, 512);
	assert_int_equal(rd(&e, 1, 0, 4196), 4196);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 1024), 1024); /* cache trim: file only */
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 1024);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_refault_file), 0);
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(rd(&e, 1, 0, 1), 1); /* long distance */
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_refault_file), 1);
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_activate_file), 0);
	assert_int_equal(delta(&e, &s1, SWS_MM_pgpgin_file), 1);
	assert_int_equal(rd(&e, 1, 1023, 1), 1); /* short distance */
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_refault_file), 2);
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_activate_file), 1);
	assert_int_equal(delta(&e, &s1, SWS_MM_pgpgin_file), 2);
	/* anon refaults are counted apart */
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_refault), 0);
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_activate), 0);
	/* the activated page is active: used again, nothing to activate; the
	 * inactive one is activated by its second use */
	drain(&e);
	assert_int_equal(rd(&e, 1, 1023, 1), 0);
	assert_int_equal(rd(&e, 1, 1023, 1), 0);
	assert_int_equal(delta(&e, &s1, SWS_MM_pgactivate), 0);
	assert_int_equal(rd(&e, 1, 0, 1), 0); /* referenced */
	assert_int_equal(rd(&e, 1, 0, 1), 0);
	drain(&e);
	assert_int_equal(delta(&e, &s1, SWS_MM_pgactivate), 1);
	/* a page never evicted has no shadow: a plain miss */
	assert_int_equal(rd(&e, 1, 5000, 1), 1);
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_refault_file), 2);
	env_close(&e);
}

/*
 * A refault within the workingset goes straight onto the active list: of
 * 90 inactive pages and 51 active ones, reclaim of 91 takes the 90 and then
 * one the active list deactivated (its oldest), never the refaulted page,
 * the active list's youngest.
 */
static void test_refault_lands_active(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 4096, 0, SWS_RECLAIM_KERNEL, 0);
	make_active(&e, 2, 0, 50);
	assert_int_equal(rd(&e, 1, 0, 100), 100);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 10), 10); /* 0..9 */
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(rd(&e, 1, 9, 1), 1); /* distance 1 <= 50 active */
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate_file), 1);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 91), 91);
	assert_true(delta(&e, &s0, SWS_MM_pgdeactivate) > 0);
	assert_int_equal(rd(&e, 1, 9, 1), 0);   /* kept: active */
	assert_int_equal(rd(&e, 1, 10, 90), 90); /* all the inactive ones went */
	env_close(&e);
}

/*
 * folio_mark_accessed()'s activation ages the workingset clock
 * (workingset_activation()), seen by an anonymous refault, whose workingset
 * is both file lists (and the active anon list, empty here): activating all
 * 20 page cache pages leaves that workingset at 20 but puts the anon page
 * swapped out before at distance 21: not activated; one swapped out after,
 * at distance 1, is.
 */
static void test_activation_ages_clock(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 1024, SWS_RECLAIM_KERNEL, 0);
	write_anon(&e, 8);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(0), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	make_active(&e, 1, 0, 20);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(1), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(delta(&e, &s0, SWS_MM_pswpout), 0);
	assert_int_equal(s0.counters[SWS_MM_pswpout], 2);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(0), false), 1); /* distance 21 > 20 */
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_refault), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate), 0);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(1), false), 1); /* distance 1 <= 20 */
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_refault), 2);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_refault_file), 0);
	env_close(&e);
}

/*
 * A file refault's activation ages the clock too (workingset_refault():
 * workingset_age_nonresident()). Without swap, reclaim takes the 10 page
 * cache pages alone; swap then comes on, an anon page is swapped out, and
 * the 10 come back, each activated (their workingset holds the 100 anon
 * pages now). The anon page's refault then competes with the 10 file pages
 * at distance 11: not activated.
 */
static void test_file_refault_ages_clock(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 0);
	write_anon(&e, 100);
	assert_int_equal(rd(&e, 1, 0, 10), 10);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 10), 10);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_pgsteal_file], 10);
	struct sws_device_config dc = {.nr_slots = 1024, .flags = SWS_SWP_SOLIDSTATE};
	assert_sws(0, sws_swapon(e.sim, &dc, &e.type));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(0), SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(rd(&e, 1, 0, 10), 10);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate_file), 10);
	drain(&e); /* the 10 on the active file list */
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(0), false), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_refault), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate), 0);
	env_close(&e);
}

/*
 * The workingset a file refault competes with, without swap room: the
 * active file list alone, not the anon lists (512 pages here) nor the
 * inactive file list. With no active file page even a refault at distance 1
 * stays inactive; with 64 active file pages the last of 90 pages evicted
 * (distance 1) is activated, the first (distance 90) is not.
 */
static void test_refault_workingset_size(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 4096, 0, SWS_RECLAIM_KERNEL, 0);
	write_anon(&e, 512);
	assert_int_equal(rd(&e, 1, 0, 200), 200);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 32), 32); /* no swap: file only, 0..31 */
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 32);
	assert_int_equal(rd(&e, 1, 31, 1), 1); /* distance 1 */
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_refault_file), 1);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate_file), 0);
	/* 64 active pages of another file; 169 inactive (32..199, then 31) */
	make_active(&e, 2, 0, 64);
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 90), 90); /* 32..121 */
	assert_int_equal(delta(&e, &s1, SWS_MM_pgsteal_file), 90);
	assert_int_equal(delta(&e, &s1, SWS_MM_pgdeactivate), 0); /* 79 inactive left: active not aged */
	assert_int_equal(rd(&e, 1, 32, 1), 1); /* distance 90 > 64 */
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_refault_file), 1);
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_activate_file), 0);
	assert_int_equal(rd(&e, 1, 121, 1), 1); /* distance 1 <= 64 */
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_refault_file), 2);
	assert_int_equal(delta(&e, &s1, SWS_MM_workingset_activate_file), 1);
	assert_int_equal(rd(&e, 1, 122, 78), 0); /* the rest was never evicted */
	env_close(&e);
}

/*
 * Reclaim writes dirty page cache back before it evicts it (nr_written,
 * the store's write latency as device time, not the task's wait: the
 * flusher's work); clean pages are dropped with no write. A page written
 * back is clean: read in again and reclaimed, it is not written again.
 */
static void test_dirty_writeback(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 0);
	assert_int_equal(wr(&e, 2, 0, 10), 10);  /* dirty */
	assert_int_equal(rd(&e, 2, 10, 10), 10); /* clean */
	assert_int_equal(rd(&e, 2, 20, 5), 5);
	assert_int_equal(wr(&e, 2, 20, 5), 0);   /* clean, then dirtied */
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	uint64_t w0 = iowait(&e);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 25), 25);
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 25);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_written), 15);
	assert_int_equal(delta(&e, &s0, SWS_MM_modelled_io_ns), 15 * WRITE_NS);
	assert_int_equal(iowait(&e), w0);
	/* clean now: back in by reads (the data was kept), out with no write */
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_int_equal(rd(&e, 2, 0, 25), 25);
	assert_int_equal(delta(&e, &s1, SWS_MM_pgpgin_file), 25);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 25), 25);
	assert_int_equal(delta(&e, &s1, SWS_MM_nr_written), 0);
	env_close(&e);
}

/*
 * The exact-LRU policy: page cache takes part in the one LRU order; under a
 * memcg limit of 64 pages the last 64 pages read are the ones cached, a hit
 * makes its page the most recent, and a miss evicts the least recent.
 */
static void test_exact_lru(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_LRU, 64);
	for (uint64_t p = 0; p < 200; p++)
		assert_int_equal(rd(&e, 1, p, 1), 1);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(s0.counters[SWS_MM_pgsteal_file], 200 - 64);
	assert_int_equal(s0.counters[SWS_MM_pgsteal], 200 - 64);
	assert_int_equal(rd(&e, 1, 136, 64), 0);  /* 136..199 cached, 136 now least recent */
	assert_int_equal(rd(&e, 1, 0, 1), 1);     /* evicts 136 */
	assert_int_equal(rd(&e, 1, 137, 63), 0);
	assert_int_equal(rd(&e, 1, 136, 1), 1);   /* evicts 0 (137..199 used since) */
	assert_int_equal(rd(&e, 1, 0, 1), 1);     /* evicts 137 */
	assert_int_equal(delta(&e, &s0, SWS_MM_pgsteal_file), 3);
	assert_int_equal(rd(&e, 1, 137, 1), 1);   /* evicts 138 */
	/* writes of cached pages, then reclaim of all: the dirty ones written back */
	assert_int_equal(wr(&e, 1, 139, 61), 0);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 64), 64);
	assert_int_equal(delta(&e, &s0, SWS_MM_nr_written), 61);
	assert_int_equal(rd(&e, 1, 136, 64), 64);
	env_close(&e);
}

/* The clock policy: page cache reclaimed and refetched without trouble. */
static void test_clock_policy(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 1024, SWS_RECLAIM_CLOCK, 64);
	write_anon(&e, 16);
	for (int round = 0; round < 3; round++) {
		for (uint64_t p = 0; p < 100; p++)
			assert_true(sws_mm_file_io(e.cpu, e.mm, e.asid, 1, p, 1, p & 1) >= 0);
	}
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_pgsteal_file] > 0);
	assert_true(s.counters[SWS_MM_nr_written] > 0);
	assert_true(s.ram_pages - s.free_pages <= 64);
	env_close(&e);
}

/* A refault is judged by the lists of the memcg that evicted the page (the
 * shadow's), not the refaulting task's: page cache is shared. Memcg A holds
 * 512 anon pages (swap has room) and evicts file pages; a task of an empty
 * memcg B re-reading one of them at distance 2 gets it activated, as one of A
 * at distance 1 does. */
static void test_refault_eviction_memcg(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 8192, 4096, SWS_RECLAIM_KERNEL, 0);
	uint16_t cb;
	uint32_t b;
	assert_sws(0, sws_mm_memcg_create(e.mm, 0, &cb));
	assert_sws(0, sws_mm_space_create(e.mm, cb, &b));
	write_anon(&e, 512);
	assert_int_equal(rd(&e, 1, 0, 4200), 4200);
	assert_int_equal(sws_mm_reclaim(e.cpu, e.mm, e.cg, 64), 64);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(rd(&e, 1, 63, 1), 1); /* A: the last evicted, distance 1 */
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate_file), 1);
	assert_int_equal(sws_mm_file_io(e.cpu, e.mm, b, 1, 62, 1, false), 1); /* B: distance 2 */
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_refault_file), 2);
	assert_int_equal(delta(&e, &s0, SWS_MM_workingset_activate_file), 2);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, b));
	env_close(&e);
}

/* Arguments: no such task, file or range; an empty range. */
static void test_errors(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 1024, 0, SWS_RECLAIM_KERNEL, 0);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_sws(SWS_EINVAL, sws_mm_file_io(e.cpu, e.mm, e.asid + 1, 0, 0, 1, false));
	assert_sws(SWS_EINVAL, sws_mm_file_io(e.cpu, e.mm, UINT32_MAX, 0, 0, 1, true));
	assert_sws(SWS_EINVAL, rd(&e, SWS_MM_MAX_FILES, 0, 1));
	assert_sws(SWS_EINVAL, wr(&e, UINT32_MAX, 0, 1));
	assert_sws(SWS_EINVAL, rd(&e, 0, SWS_MM_MAX_FILE_PAGES, 1));
	assert_sws(SWS_EINVAL, rd(&e, 0, SWS_MM_MAX_FILE_PAGES - 1, 2));
	assert_sws(SWS_EINVAL, rd(&e, 0, SWS_MM_MAX_FILE_PAGES + 1, 0));
	assert_sws(SWS_EINVAL, rd(&e, 0, 1, UINT64_MAX)); /* index + nr wraps */
	assert_sws(SWS_EINVAL, rd(&e, 0, UINT64_MAX, 1));
	assert_sws(SWS_EINVAL, sws_mm_file_io(NULL, e.mm, e.asid, 0, 0, 1, false));
	assert_sws(SWS_EINVAL, sws_mm_file_io(e.cpu, NULL, e.asid, 0, 0, 1, false));
	assert_sws(SWS_EINVAL, sws_mm_set_file_latency(NULL, 1, 1));
	assert_int_equal(rd(&e, 0, 0, 0), 0);
	assert_int_equal(wr(&e, SWS_MM_MAX_FILES - 1, SWS_MM_MAX_FILE_PAGES, 0), 0);
	/* nothing happened */
	struct sws_mm_stats s1 = sws_test_mm_stats(e.mm);
	assert_memory_equal(s0.counters, s1.counters, sizeof(s0.counters));
	/* the last page of the last file is a page like any other */
	assert_int_equal(rd(&e, SWS_MM_MAX_FILES - 1, SWS_MM_MAX_FILE_PAGES - 1, 1), 1);
	assert_int_equal(rd(&e, SWS_MM_MAX_FILES - 1, SWS_MM_MAX_FILE_PAGES - 1, 1), 0);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, e.asid));
	assert_sws(SWS_EINVAL, rd(&e, 0, 0, 1)); /* exited */
	assert_sws(SWS_EINVAL, rd(&e, 0, 0, 0));
	assert_sws(0, sws_mm_space_create(e.mm, e.cg, &e.asid));
	env_close(&e);
}

/*
 * Teardown with page cache of every kind: clean and dirty pages cached,
 * some in the CPU's add batch, some on the active list, shadows of evicted
 * ones, files sparse and far apart; the memory model's memory all goes (and
 * under ASan nothing leaks).
 */
static void test_destroy_frees(void **state)
{
	(void)state;
	struct env e;
	env_open(&e, 2048, 2048, SWS_RECLAIM_KERNEL, 512);
	write_anon(&e, 100);
	for (uint32_t f = 0; f < 8; f++) {
		uint32_t file = f * 1234567u % SWS_MM_MAX_FILES;
		assert_true(rd(&e, file, f * 100000, 100) >= 0);
		assert_true(wr(&e, file, f * 100000 + 50, 100) >= 0);
	}
	assert_true(sws_mm_reclaim(e.cpu, e.mm, e.cg, 200) > 0); /* shadows */
	make_active(&e, 99, 0, 20);
	assert_int_equal(rd(&e, 99, 20, 5), 5); /* left in the batch */
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_true(s.counters[SWS_MM_pgsteal_file] > 0);
	assert_true(s.counters[SWS_MM_nr_written] > 0);
	/* and a task that exited, its page cache left behind */
	uint32_t gone;
	assert_sws(0, sws_mm_space_create(e.mm, e.cg, &gone));
	assert_int_equal(sws_mm_file_io(e.cpu, e.mm, gone, 7, 0, 30, true), 30);
	assert_sws(0, sws_mm_exit(e.cpu, e.mm, gone));
	env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_miss_then_hit),
		cmocka_unit_test(test_write_dirties),
		cmocka_unit_test(test_cache_outlives_task),
		cmocka_unit_test(test_second_access_activates),
		cmocka_unit_test(test_cache_trim_mode),
		cmocka_unit_test(test_scan_fract_small_file),
		cmocka_unit_test(test_reclaim_lru_types),
		cmocka_unit_test(test_reclaim_recorded),
		cmocka_unit_test(test_reclaim_begin),
		cmocka_unit_test(test_reclaim_folio_at),
		cmocka_unit_test(test_scan_fract_refaulting),
		cmocka_unit_test(test_scan_fract_file_low),
		cmocka_unit_test(test_scan_fract_cost),
		cmocka_unit_test(test_refault_activation),
		cmocka_unit_test(test_refault_workingset_size),
		cmocka_unit_test(test_refault_lands_active),
		cmocka_unit_test(test_activation_ages_clock),
		cmocka_unit_test(test_file_refault_ages_clock),
		cmocka_unit_test(test_dirty_writeback),
		cmocka_unit_test(test_exact_lru),
		cmocka_unit_test(test_clock_policy),
		cmocka_unit_test(test_refault_eviction_memcg),
		cmocka_unit_test(test_activate_in_batch),
		cmocka_unit_test(test_activate_batch_stale_entry),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_destroy_frees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
