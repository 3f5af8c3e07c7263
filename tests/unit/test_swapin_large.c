/*
 * test_swapin_large.c - large-folio swap-in (do_swap_page's
 * thp_swapin_suitable_orders(), can_swapin_thp(), alloc_swap_folio() /
 * swapin_sync()): a 64 KiB folio swapped out whole comes back whole from a
 * SYNCHRONOUS_IO device in one read and one fault on the designs whose kernel
 * does it (6.17 and phase I through the bypass, phases II-IV through the swap
 * cache), and at order 0 where the range does not qualify (an entry freed, one
 * slot in the swap cache, zswap on, MADV_NOHUGEPAGE), where the device is not
 * synchronous, and under the vswap designs. Counts are exact: one 64 KiB folio
 * is 16 pages, one swpin[4], one pgmajfault.
 */
#include <string.h>

#include "testutil.h"
#include "mm/mm_internal.h"

#define PG(n) ((uint64_t)(n) * SWS_PAGE_SIZE + 0x10000000ull)
#define SYNC (SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO)
/* Counter @c of struct sws_mm_stats @s moved by @want since @s0. */
#define assert_delta(s, s0, c, want)                                                               \
	assert_int_equal((s).counters[SWS_MM_##c] - (s0).counters[SWS_MM_##c], (want))

struct env {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	uint32_t asid;
};

/* A 4096-slot device (@dev_flags, bytes kept: verify reads them back), 1024
 * pages of RAM, the mTHP sizes @orders "always", verify mode; no space yet. */
static void env_create(struct env *e, enum sws_backend b, uint32_t dev_flags, uint32_t orders)
{
	struct sws_sim_config cfg = {.backend = b};
	assert_sws(0, sws_sim_create(&cfg, &e->sim));
	assert_sws(0, sws_cpu_attach(e->sim, &e->cpu));
	struct sws_device_config dc = {.nr_slots = 4096, .flags = dev_flags, .backing = SWS_BACKING_MEMORY};
	int type;
	assert_sws(0, sws_swapon(e->sim, &dc, &type));
	struct sws_mm_config mc = {.ram_pages = 1024, .anon_orders = orders, .flags = SWS_MM_VERIFY, .seed = 7,
				   .content_weight = {0, 1, 1, 0, 1}};
	assert_sws(0, sws_mm_create(e->sim, &mc, &e->mm));
}

/* env_create(); one space whose first write at PG(0) faults in one 64 KiB
 * folio, then swapped out whole. */
static void env_open_orders(struct env *e, enum sws_backend b, uint32_t dev_flags, bool zswap, uint32_t orders)
{
	env_create(e, b, dev_flags, orders);
	if (zswap)
		assert_sws(0, sws_mm_zswap_enable(e->mm, NULL));
	assert_sws(0, sws_mm_space_create(e->mm, 0, &e->asid));
	assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(0), true), 1);
	for (unsigned p = 1; p < 16; p++) /* the one 64 KiB folio */
		assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(p), true), 0);
	assert_sws(0, sws_mm_madvise(e->cpu, e->mm, e->asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s = sws_test_mm_stats(e->mm);
	assert_int_equal(s.swpout[4] + s.zswpout_order[4], 1);
}

static void env_open(struct env *e, enum sws_backend b, uint32_t dev_flags, bool zswap)
{
	env_open_orders(e, b, dev_flags, zswap, 1u << 4);
}

static void env_close(struct env *e)
{
	assert_consistent(e->sim);
	sws_test_mm_destroy(e->sim, e->mm);
	sws_cpu_detach(e->cpu);
	sws_sim_destroy(e->sim);
}

/* The swap entry in the PTE at @va (0: none). */
static sws_entry_t pte_entry(struct env *e, uint64_t va)
{
	struct sws_space *sp = sws__mm_space(e->mm, e->asid);
	sws_spin_lock(pte_lockptr(sp, va));
	uint64_t *pte = sws___pte_lookup(sp, va);
	sws_entry_t ent = pte && pte_is_swap(*pte) ? pte_to_swp_entry(*pte) : 0;
	sws_spin_unlock(pte_lockptr(sp, va));
	return ent;
}

static uint64_t slots_used(struct env *e)
{
	uint64_t total, free_slots;
	sws_swap_totals(e->sim, &total, &free_slots);
	return total - free_slots;
}

/* The 64 KiB folio at PG(0) out whole (the @nth order-4 swap-out) and back
 * whole by one fault at page @page (@write: a write fault, every page written
 * after it): one major fault, pswpin 16, one more swpin[4], each page's bytes
 * as written (verify_ok 16). */
static void assert_out_and_back(struct env *e, uint64_t nth, unsigned page, bool write)
{
	assert_sws(0, sws_mm_madvise(e->cpu, e->mm, e->asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s0 = sws_test_mm_stats(e->mm);
	assert_int_equal(s0.swpout[4], nth);
	assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(page), write), 1);
	for (unsigned p = 0; p < 16; p++)
		assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(p), write), 0);
	struct sws_mm_stats s = sws_test_mm_stats(e->mm);
	assert_int_equal(s.counters[SWS_MM_pgmajfault] - s0.counters[SWS_MM_pgmajfault], 1);
	assert_int_equal(s.counters[SWS_MM_pswpin] - s0.counters[SWS_MM_pswpin], 16);
	assert_int_equal(s.counters[SWS_MM_verify_ok] - s0.counters[SWS_MM_verify_ok], 16);
	assert_int_equal(s.swpin[4], s0.swpin[4] + 1);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
}

/*
 * On a design that swaps in large folios: a read of page 5 reads the 16 pages
 * in one I/O (pswpin 16, swpin[4] 1) with one major fault, maps them all
 * (every other page a hit), each page's bytes the ones written (verify_ok 16,
 * the device's store compared page by page), and frees the 16 slots (the
 * bypass's pin dropped; from phase II a SYNCHRONOUS_IO device's slots go at
 * swap-in). The folio swaps out whole again and comes back whole again.
 */
static void test_swapin_large(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct env e;
	env_open(&e, b, SYNC, false);
	assert_int_equal(slots_used(&e), 16);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(5), false), 1);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pgfault] - s0.counters[SWS_MM_pgfault], 1);
	assert_int_equal(s.counters[SWS_MM_pgmajfault] - s0.counters[SWS_MM_pgmajfault], 1);
	assert_int_equal(s.counters[SWS_MM_pswpin] - s0.counters[SWS_MM_pswpin], 16);
	assert_int_equal(s.counters[SWS_MM_pgalloc] - s0.counters[SWS_MM_pgalloc], 16);
	/* the reclaim's shadow: a refault of 16 pages (workingset_refault() counts pages) */
	assert_int_equal(s.counters[SWS_MM_workingset_refault] - s0.counters[SWS_MM_workingset_refault], 16);
	assert_int_equal(s.swpin[4], 1);
	assert_int_equal(s.swpin_fallback[4], 0);
	assert_int_equal(s.counters[SWS_MM_verify_ok] - s0.counters[SWS_MM_verify_ok], 16);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_int_equal(slots_used(&e), 0);
	for (unsigned p = 0; p < 16; p++) /* all mapped by the one fault, each page as written */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p), p == 3), 0);
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pgfault] - s0.counters[SWS_MM_pgfault], 1);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	/* Out whole and back whole again, after a write to page 3 (a new version
	 * of the folio's contents): a write fault maps it writable. */
	assert_out_and_back(&e, 2, 15, true);
	env_close(&e);
}

/*
 * Verify mode checks every page of a large swap-in: a slot in the middle of
 * the range (page 9's) holding other bytes fails the fault that reads the
 * folio (SWS_ECORRUPT, verify_fail 1, no verify_ok), though its first page's
 * bytes are right.
 */
static void test_swapin_large_verify(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct env e;
	env_open(&e, b, SYNC, false);
	uint8_t junk[SWS_PAGE_SIZE];
	memset(junk, 0xa5, sizeof(junk));
	assert_sws(0, sws_swap_writepage(e.cpu, pte_entry(&e, PG(9)), junk));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(5), false), SWS_ECORRUPT);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.swpin[4], 1);
	assert_int_equal(s.counters[SWS_MM_verify_fail] - s0.counters[SWS_MM_verify_fail], 1);
	assert_int_equal(s.counters[SWS_MM_verify_ok] - s0.counters[SWS_MM_verify_ok], 0);
	env_close(&e);
}

/*
 * The end of the region: 16K, 32K and 64K "always", the 64 KiB folio out
 * whole, then its last four pages unmapped (the region ends at page 12). A
 * fault at page 5 reads pages 0-7 (order 3: the 64 KiB block passes the
 * region's end); one at page 9 reads pages 8-11 (order 2: the 32 KiB block
 * from page 8 does too). No fallback counted: thp_vma_suitable_orders()
 * removes the orders before any allocation.
 */
static void test_swapin_large_region_end(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct env e;
	env_open_orders(&e, b, SYNC, false, 1u << 2 | 1u << 3 | 1u << 4);
	assert_sws(0, sws_mm_munmap(e.cpu, e.mm, e.asid, PG(12), 4 * SWS_PAGE_SIZE));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(5), false), 1);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(9), false), 1);
	for (unsigned p = 0; p < 12; p++) /* all mapped by the two faults */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p), false), 0);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pgmajfault] - s0.counters[SWS_MM_pgmajfault], 2);
	assert_int_equal(s.counters[SWS_MM_pswpin] - s0.counters[SWS_MM_pswpin], 12);
	assert_int_equal(s.swpin[3], 1);
	assert_int_equal(s.swpin[2], 1);
	assert_int_equal(s.swpin[4], 0);
	assert_int_equal(s.swpin_fallback[2] + s.swpin_fallback[3] + s.swpin_fallback[4], 0);
	assert_int_equal(s.counters[SWS_MM_verify_ok] - s0.counters[SWS_MM_verify_ok], 12);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	env_close(&e);
}

/* Page 5 read at order 0 through the swap cache after readahead: one major
 * fault, no swpin[4] nor swpin_fallback[4], pswpin the target and what
 * readahead took (each page a folio of its own). @return the pages read
 * ahead; *@pgalloc: the pages the fault allocated. */
static uint64_t assert_readahead0(struct env *e, uint64_t *pgalloc)
{
	struct sws_mm_stats s0 = sws_test_mm_stats(e->mm);
	assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(5), false), 1);
	struct sws_mm_stats s = sws_test_mm_stats(e->mm);
	assert_int_equal(s.counters[SWS_MM_pgmajfault] - s0.counters[SWS_MM_pgmajfault], 1);
	assert_int_equal(s.swpin[4], 0);
	assert_int_equal(s.swpin_fallback[4], 0);
	uint64_t ra = s.counters[SWS_MM_swap_ra] - s0.counters[SWS_MM_swap_ra];
	assert_int_equal(s.counters[SWS_MM_pswpin] - s0.counters[SWS_MM_pswpin], ra + 1);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	*pgalloc = s.counters[SWS_MM_pgalloc] - s0.counters[SWS_MM_pgalloc];
	return ra;
}

/* Page 5 read at order 0: one page in, no swpin[4]; @fallback: swpin_fallback[4]. */
static void assert_order0(struct env *e, uint64_t fallback)
{
	struct sws_mm_stats s0 = sws_test_mm_stats(e->mm);
	assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(5), false), 1);
	struct sws_mm_stats s = sws_test_mm_stats(e->mm);
	assert_int_equal(s.counters[SWS_MM_pgmajfault] - s0.counters[SWS_MM_pgmajfault], 1);
	assert_int_equal(s.counters[SWS_MM_pswpin] + s.counters[SWS_MM_zswpin] - s0.counters[SWS_MM_pswpin] -
				 s0.counters[SWS_MM_zswpin],
			 1);
	assert_int_equal(s.counters[SWS_MM_pgalloc] - s0.counters[SWS_MM_pgalloc], 1);
	assert_int_equal(s.swpin[4], 0);
	assert_int_equal(s.swpin_fallback[4], fallback);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(6), false), 1); /* not mapped with it */
}

/*
 * Ranges that do not qualify, on a design that swaps in large folios: an entry
 * of the range freed (MADV_DONTNEED of page 15), the region MADV_NOHUGEPAGE,
 * zswap on, from the start or enabled after the swap-out
 * (zswap_never_enabled() false: every swap-in is order 0), and one
 * slot of the range in the swap cache: up to phase III can_swapin_thp()
 * refuses the range silently; phase IV finds the conflict when it adds the
 * folio (__swap_cache_add_check(): -EBUSY) and counts swpin_fallback.
 */
static void test_swapin_large_fallback(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct env e;
	env_open(&e, b, SYNC, false);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(15), SWS_PAGE_SIZE, SWS_MADV_DONTNEED));
	assert_order0(&e, 0);
	env_close(&e);

	env_open(&e, b, SYNC, false);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_NOHUGEPAGE));
	assert_order0(&e, 0);
	env_close(&e);

	env_open(&e, b, SYNC, true);
	assert_int_equal(sws_test_mm_stats(e.mm).zswpout_order[4], 1);
	assert_order0(&e, 0);
	env_close(&e);

	/* zswap enabled after the folio went to the device: zswap_never_enabled()
	 * is false from then on, every swap-in order 0 */
	env_open(&e, b, SYNC, false);
	assert_sws(0, sws_mm_zswap_enable(e.mm, NULL));
	assert_order0(&e, 0);
	env_close(&e);

	/* A racing swap-in holds slot 15 in the swap cache (a folio of its own). */
	env_open(&e, b, SYNC, false);
	sws_entry_t e15 = pte_entry(&e, PG(15));
	assert_true(e15 != 0);
	uint64_t pfn;
	assert_sws(0, sws__mm_folio_alloc(e.cpu, e.mm, 0, 0, &pfn));
	assert_sws(0, sws_swap_cache_add(e.cpu, e15, 1, pfn, NULL));
	assert_order0(&e, b == SWS_BACKEND_ST_P4 ? 1 : 0);
	assert_sws(0, sws_swap_cache_del(e.cpu, e15, 1, pfn, 0));
	sws__mm_folio_free(e.cpu, e.mm, pfn);
	env_close(&e);
}

/* A traced fault (sws_mm_access_folio()) whose kernel folio was a page: the
 * swap-in is of order 0 too, with no fallback counted; one whose kernel folio
 * was 64 KiB swaps in the 16 pages. */
static void test_swapin_large_traced(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct env e;
	env_open(&e, b, SYNC, false);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access_folio(e.cpu, e.mm, e.asid, PG(5), false, 0, false), 1);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pswpin] - s0.counters[SWS_MM_pswpin], 1);
	assert_int_equal(s.counters[SWS_MM_pgalloc] - s0.counters[SWS_MM_pgalloc], 1);
	assert_int_equal(s.swpin[4], 0);
	assert_int_equal(s.swpin_fallback[4], 0);
	env_close(&e);

	env_open(&e, b, SYNC, false);
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access_folio(e.cpu, e.mm, e.asid, PG(5), false, 4, false), 1);
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.counters[SWS_MM_pswpin] - s0.counters[SWS_MM_pswpin], 16);
	assert_int_equal(s.swpin[4], 1);
	env_close(&e);
}

/* A read of page 5, one fault: the simulation's counters before (*@w0) and
 * after (*@w), the memory model's (*@s0, *@s). */
static void read_page5(struct env *e, struct sws_stats *w0, struct sws_stats *w, struct sws_mm_stats *s0,
		       struct sws_mm_stats *s)
{
	sws_stats_snapshot(e->sim, w0);
	*s0 = sws_test_mm_stats(e->mm);
	assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(5), false), 1);
	*s = sws_test_mm_stats(e->mm);
	sws_stats_snapshot(e->sim, w);
}

/*
 * A range shared since a fork (every slot's count 2), on the designs with the
 * bypass (6.17, phase I, and the vswaps with a synchronous device behind):
 * do_swap_page() takes the bypass, and allocates (alloc_swap_folio()), only
 * for a slot whose __swap_count() is 1. This one goes through the swap cache
 * at order 0, its one folio allocated there: pgalloc 1, pswpin 1, one major
 * fault, no large folio (swpin[4], swpin_fallback[4] 0), no bypass
 * (swap_cache_bypass 0), one folio added to the swap cache; the first fault
 * of the region has no readahead window yet (swap_ra 0). The folio stays in
 * the swap cache for the child (both slots' counts were 2), so 16 slots stay
 * in use; the child's read of the same page hits it.
 */
static void test_swapin_large_forked(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct env e;
	env_open(&e, b, SYNC, false);
	uint32_t child;
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, e.asid, &child));
	struct sws_stats w0, w;
	struct sws_mm_stats s0, s;
	read_page5(&e, &w0, &w, &s0, &s);
	assert_delta(s, s0, pgalloc, 1);
	assert_delta(s, s0, pswpin, 1);
	assert_delta(s, s0, pgmajfault, 1);
	assert_delta(s, s0, swap_ra, 0);
	assert_int_equal(s.swpin[4], 0);
	assert_int_equal(s.swpin_fallback[4], 0);
	assert_int_equal(w.counters[SWS_CTR_swap_cache_bypass] - w0.counters[SWS_CTR_swap_cache_bypass], 0);
	assert_int_equal(w.counters[SWS_CTR_swap_cache_add_total] - w0.counters[SWS_CTR_swap_cache_add_total], 1);
	assert_int_equal(slots_used(&e), 16);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	s0 = s;
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(5), false), 1);
	s = sws_test_mm_stats(e.mm);
	assert_delta(s, s0, pgalloc, 0);
	assert_delta(s, s0, swapcache_hit, 1);
	assert_delta(s, s0, pgmajfault, 0);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	env_close(&e);
}

/*
 * A range whose neighbours a fork's child still shares: the 64 KiB folio out
 * whole, a fork (every slot's count 2), then the child drops pages 4-7
 * (MADV_DONTNEED: their slots' counts 1, the other twelve 2). The parent's
 * read of page 5 reads the 16 pages into one folio on every design that swaps
 * in large folios: the kernel tests only the faulting entry's count
 * (__swap_count() 1) for the bypass, then the range's PTEs, zero flags and
 * swap cache (can_swapin_thp()); swapcache_prepare() of the range does not
 * look at the counts. One major fault, pswpin 16, pgalloc 16, swpin[4] 1,
 * verify_ok 16, every page then a hit. With the bypass (6.17, phase I) the
 * folio is private (swap_cache_bypass 1, no swap cache add): exclusive, so a
 * write to page 3 is a hit; the four slots only the parent held go, the
 * twelve the child holds stay (12 in use). From phase II the folio is in the
 * swap cache (one add) and the child still refers to twelve of its slots:
 * kept (16 in use), mapped read-only (the write to page 3 faults). The
 * child's read of page 0 (its range has no PTEs at pages 4-7: order 0) reads
 * its own copy from the device (bypass: pswpin 1) or finds the parent's
 * folio in the swap cache (phase II on: swapcache_hit 1, pswpin 0).
 */
static void test_swapin_large_forked_neighbours(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	const bool bypass = b == SWS_BACKEND_XARRAY || b == SWS_BACKEND_ST_P1;
	struct env e;
	env_open(&e, b, SYNC, false);
	uint32_t child;
	assert_sws(0, sws_mm_fork(e.cpu, e.mm, e.asid, &child));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, child, PG(4), 4 * SWS_PAGE_SIZE, SWS_MADV_DONTNEED));
	uint32_t count;
	for (unsigned p = 0; p < 16; p++) {
		assert_sws(0, sws_swap_count(e.cpu, pte_entry(&e, PG(p)), &count));
		assert_int_equal(count, p >= 4 && p < 8 ? 1 : 2);
	}
	struct sws_stats w0, w;
	struct sws_mm_stats s0, s;
	read_page5(&e, &w0, &w, &s0, &s);
	assert_delta(s, s0, pgfault, 1);
	assert_delta(s, s0, pgmajfault, 1);
	assert_delta(s, s0, pswpin, 16);
	assert_delta(s, s0, pgalloc, 16);
	assert_delta(s, s0, verify_ok, 16);
	assert_int_equal(s.swpin[4], 1);
	assert_int_equal(s.swpin_fallback[4], 0);
	assert_int_equal(w.counters[SWS_CTR_swap_cache_bypass] - w0.counters[SWS_CTR_swap_cache_bypass], bypass);
	assert_int_equal(w.counters[SWS_CTR_swap_cache_add_total] - w0.counters[SWS_CTR_swap_cache_add_total], !bypass);
	assert_int_equal(slots_used(&e), bypass ? 12 : 16);
	for (unsigned p = 0; p < 16; p++) /* all mapped by the one fault */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p), false), 0);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(3), true), !bypass);
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, child, PG(0), false), 1);
	s = sws_test_mm_stats(e.mm);
	assert_delta(s, s0, pswpin, bypass);
	assert_delta(s, s0, swapcache_hit, !bypass);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	env_close(&e);
}

/*
 * Sixteen order-0 folios (each page read first, mapping the zero page, then
 * written: do_wp_page() copies into a folio of its own), swapped out together
 * into slots 16 to 31 (15 other pages took slots 1 to 15) with each page's
 * seed of its own. can_swapin_thp() asks
 * only that the PTEs hold consecutive entries of one device with one zero
 * flag and no slot in the swap cache, not how the slots were written: on the
 * designs that swap in large folios a read of page 5 reads the 16 pages into
 * one 64 KiB folio (pswpin 16, pgalloc 16, swpin[4] 1, one major fault), each
 * page with its own bytes (verify_ok 16, byte for byte). A write to page 3 then
 * gives the folio a new version; it goes out whole (swpout[4] 1) and comes
 * back whole, every page as written. The vswap designs read order 0.
 */
static void test_swapin_large_separate(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	const bool large = b != SWS_DESIGN_VSWAP && b != SWS_DESIGN_VSWAP_V3 && b != SWS_DESIGN_VSWAP_ST;
	struct env e;
	env_create(&e, b, SYNC, 1u << 4);
	assert_sws(0, sws_mm_space_create(e.mm, 0, &e.asid));
	/* Slots 1 to 15 first (pages 112 to 126), so that pages 0 to 15 take 16 to 31. */
	for (unsigned p = 0; p < 31; p++) /* the zero page: the blocks are not empty any more */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p < 15 ? 112 + p : p - 15), false), 1);
	for (unsigned p = 0; p < 31; p++)
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p < 15 ? 112 + p : p - 15), true), 1);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(112), 15 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(s0.swpout[0], 31);
	assert_int_equal(s0.swpout[4], 0);
	for (unsigned p = 0; p < 16; p++) /* consecutive, aligned as the addresses */
		assert_int_equal(sws_swp_offset(pte_entry(&e, PG(p))), 16 + p);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(5), false), 1);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	const uint64_t nr = large ? 16 : 1;
	assert_int_equal(s.counters[SWS_MM_pgmajfault] - s0.counters[SWS_MM_pgmajfault], 1);
	assert_int_equal(s.counters[SWS_MM_pswpin] - s0.counters[SWS_MM_pswpin], nr);
	assert_int_equal(s.counters[SWS_MM_pgalloc] - s0.counters[SWS_MM_pgalloc], nr);
	assert_int_equal(s.counters[SWS_MM_verify_ok] - s0.counters[SWS_MM_verify_ok], nr);
	assert_int_equal(s.swpin[4], large ? 1 : 0);
	assert_int_equal(s.swpin_fallback[4], 0);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	for (unsigned p = 0; p < 16; p++) /* mapped by the one fault (order 0: one fault each) */
		assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(p), false), !large && p != 5);
	assert_int_equal(sws_test_mm_stats(e.mm).counters[SWS_MM_verify_fail], 0);
	if (!large) {
		env_close(&e);
		return;
	}
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(3), true), 0);
	assert_out_and_back(&e, 1, 9, false);
	env_close(&e);
}

/* A memcg of 20 pages: the 64 KiB folio swapped out whole, then eight
 * order-0 pages written (pages 32-39): 8 pages charged. */
static void env_open_memcg(struct env *e, enum sws_backend b, uint16_t *cg)
{
	env_create(e, b, SYNC, 1u << 4);
	assert_sws(0, sws_mm_memcg_create(e->mm, 20, cg));
	assert_sws(0, sws_mm_space_create(e->mm, *cg, &e->asid));
	for (unsigned p = 0; p < 16; p++)
		assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(p), true), !p);
	assert_sws(0, sws_mm_madvise(e->cpu, e->mm, e->asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_PAGEOUT));
	assert_int_equal(sws_test_mm_stats(e->mm).swpout[4], 1);
	for (unsigned p = 32; p < 40; p++) /* the zero page first: order-0 folios */
		assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(p), false), 1);
	for (unsigned p = 32; p < 40; p++)
		assert_int_equal(sws_mm_access(e->cpu, e->mm, e->asid, PG(p), true), 1);
	assert_int_equal(atomic_load(&e->mm->memcgs[*cg].usage), 8);
}

/*
 * The memcg charge of a large swap-in folio fails (alloc_swap_folio():
 * mem_cgroup_swapin_charge_folio() with the gfp of vma_thp_gfp_mask(), which
 * under the default defrag "madvise" reclaims only in a MADV_HUGEPAGE region):
 * 8 + 16 pages pass the memcg's 20, so the read of page 5 counts
 * swpin_fallback_charge[4] and swpin_fallback[4] (one each), reclaims nothing
 * and reads page 5 alone (pgalloc 1, pswpin 1, one major fault; 9 pages
 * charged). In a region madvise()d MADV_HUGEPAGE the charge reclaims from the
 * memcg instead and the folio comes in whole (swpin[4] 1, no fallback).
 */
static void test_swapin_large_charge(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct env e;
	uint16_t cg;
	env_open_memcg(&e, b, &cg);
	struct sws_mm_stats s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(5), false), 1);
	struct sws_mm_stats s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.swpin_fallback_charge[4], 1);
	assert_int_equal(s.swpin_fallback[4], 1);
	assert_int_equal(s.swpin[4], 0);
	assert_delta(s, s0, pgalloc, 1);
	assert_delta(s, s0, pswpin, 1);
	assert_delta(s, s0, pgmajfault, 1);
	assert_delta(s, s0, pgscan, 0);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	assert_int_equal(atomic_load(&e.mm->memcgs[cg].usage), 9);
	for (unsigned o = 1; o < SWS_NR_ORDERS; o++) /* one order asked */
		assert_int_equal(s.swpin_fallback_charge[o], o == 4);
	env_close(&e);

	env_open_memcg(&e, b, &cg);
	assert_sws(0, sws_mm_madvise(e.cpu, e.mm, e.asid, PG(0), 16 * SWS_PAGE_SIZE, SWS_MADV_HUGEPAGE));
	s0 = sws_test_mm_stats(e.mm);
	assert_int_equal(sws_mm_access(e.cpu, e.mm, e.asid, PG(5), false), 1);
	s = sws_test_mm_stats(e.mm);
	assert_int_equal(s.swpin[4], 1);
	assert_int_equal(s.swpin_fallback[4], 0);
	assert_int_equal(s.swpin_fallback_charge[4], 0);
	assert_delta(s, s0, pswpin, 16);
	assert_true(s.counters[SWS_MM_pgsteal] - s0.counters[SWS_MM_pgsteal] >= 4);
	assert_true(atomic_load(&e.mm->memcgs[cg].usage) <= 20);
	assert_int_equal(s.counters[SWS_MM_verify_fail], 0);
	env_close(&e);
}

/* Order 0 where the kernel reads order 0: a device that is not synchronous,
 * and the vswap designs (their series' large swap-in is not modelled). */
static void test_swapin_large_not(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	struct env e;
	if (b == SWS_BACKEND_ST_P4) {
		env_open(&e, b, SWS_SWP_SOLIDSTATE, false);
		uint64_t pgalloc, ra = assert_readahead0(&e, &pgalloc);
		assert_int_equal(pgalloc, ra + 1);
		env_close(&e);
		return;
	}
	env_open(&e, b, SYNC, false);
	assert_order0(&e, 0);
	env_close(&e);
}

static enum sws_backend xarray = SWS_BACKEND_XARRAY, st_p1 = SWS_BACKEND_ST_P1, st_p2 = SWS_DESIGN_ST_P2,
			st_p3 = SWS_DESIGN_ST_P3, st_p4 = SWS_BACKEND_ST_P4, vswap = SWS_DESIGN_VSWAP,
			vswap_v3 = SWS_DESIGN_VSWAP_V3, vswap_st = SWS_DESIGN_VSWAP_ST;

#define LARGE(fn)                                                                                              \
	cmocka_unit_test_prestate(fn, &xarray), cmocka_unit_test_prestate(fn, &st_p1),                         \
		cmocka_unit_test_prestate(fn, &st_p2), cmocka_unit_test_prestate(fn, &st_p3),                  \
		cmocka_unit_test_prestate(fn, &st_p4)

int main(void)
{
	const struct CMUnitTest tests[] = {
		LARGE(test_swapin_large),
		LARGE(test_swapin_large_fallback),
		LARGE(test_swapin_large_traced),
		LARGE(test_swapin_large_verify),
		LARGE(test_swapin_large_region_end),
		LARGE(test_swapin_large_separate),
		LARGE(test_swapin_large_charge),
		LARGE(test_swapin_large_forked_neighbours),
		cmocka_unit_test_prestate(test_swapin_large_separate, &vswap),
		cmocka_unit_test_prestate(test_swapin_large_separate, &vswap_v3),
		cmocka_unit_test_prestate(test_swapin_large_separate, &vswap_st),
		cmocka_unit_test_prestate(test_swapin_large_forked, &xarray),
		cmocka_unit_test_prestate(test_swapin_large_forked, &st_p1),
		cmocka_unit_test_prestate(test_swapin_large_forked, &vswap_v3),
		cmocka_unit_test_prestate(test_swapin_large_forked, &vswap),
		cmocka_unit_test_prestate(test_swapin_large_not, &st_p4),
		cmocka_unit_test_prestate(test_swapin_large_not, &vswap),
		cmocka_unit_test_prestate(test_swapin_large_not, &vswap_v3),
		cmocka_unit_test_prestate(test_swapin_large_not, &vswap_st),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
