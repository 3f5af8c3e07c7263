/*
 * test_xswap_policy.c - the xswap sizing rules with the kernel's numbers
 * (docs/xswap.md): reservation and starting size,
 * limit writes clamped by use and by the reservation, one-chunk growth, and
 * the shrink decision (lowered limit; half in use; five chunks of free tail,
 * one kept as slack, whole chunks given back).
 */
#include "xswap/xswap_policy.h"
#include "testutil.h"

#define GIB_PAGES (262144ull) /* 1 GiB of 4 KiB pages */

static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(sws__xswap_max_clusters(GIB_PAGES), 1024); /* 2 GiB of slots */
	assert_int_equal(sws__xswap_initial_clusters(GIB_PAGES), 512);
	assert_int_equal(sws__xswap_max_clusters(1000), 3);          /* 2000 slots: whole clusters */
	assert_int_equal(sws__xswap_initial_clusters(1000), 2);      /* ceil(1000 / 512) */
	assert_int_equal(sws__xswap_initial_clusters(700), 2);       /* ceil, but max is 1400/512 = 2 */
	assert_int_equal(sws__xswap_max_clusters(1ull << 40), UINT32_MAX / 512); /* UINT_MAX slots */
	assert_int_equal(sws__xswap_pages(512, 1024, 0), 512 * 512 - 1); /* slot 0 is the header */
	assert_int_equal(sws__xswap_pages(2000, 1024, 0), 1024 * 512 - 1);
	assert_int_equal(sws__xswap_pages(1, 1024, 700), 700); /* never below what is in use */
}

static void test_limit_write(void **state)
{
	(void)state;
	assert_int_equal(sws__xswap_limit_clusters(512 * 600, 0, 1024), 600);
	assert_int_equal(sws__xswap_limit_clusters(512 * 600 + 1, 0, 1024), 601); /* rounded up */
	assert_int_equal(sws__xswap_limit_clusters(1ull << 40, 0, 1024), 1024);   /* the reservation */
	assert_int_equal(sws__xswap_limit_clusters(UINT64_MAX, 0, 1024), 1024);   /* no overflow */
	assert_int_equal(sws__xswap_limit_clusters(UINT64_MAX - 100, 7, 1024), 1024);
	assert_int_equal(sws__xswap_limit_clusters(1000, 5000, 1024), 10);        /* covers 5000 + 1 */
	assert_int_equal(sws__xswap_limit_clusters(0, 511, 1024), 1);
	assert_int_equal(sws__xswap_limit_clusters(0, 512, 1024), 2); /* 512 in use + the header */
}

static void test_grow(void **state)
{
	(void)state;
	assert_int_equal(sws__xswap_grow_step(85, 512), 85);
	assert_int_equal(sws__xswap_grow_step(510, 512), 2);
	assert_int_equal(sws__xswap_grow_step(512, 512), 0);
	assert_int_equal(sws__xswap_grow_step(600, 512), 0); /* above a lowered limit */
}

static void test_shrink(void **state)
{
	(void)state;
	/* A lowered limit: exactly the excess goes, cluster 0 stays. */
	assert_int_equal(sws__xswap_shrink_count(600, 512, 100000, 0), 88);
	assert_int_equal(sws__xswap_shrink_count(600, 0, 0, 0), 599);
	assert_int_equal(sws__xswap_shrink_count(1, 0, 0, 0), 0);
	/* Otherwise only when at most half the mapped slots are in use ... */
	assert_int_equal(sws__xswap_shrink_count(1020, 1024, 1020 * 256 + 1, 1000), 0);
	assert_int_equal(sws__xswap_shrink_count(1020, 1024, 1020 * 256, 1000), 850);
	/* ... and the free tail holds five chunks: one stays as slack, whole chunks go. */
	assert_int_equal(sws__xswap_shrink_count(1020, 1024, 0, 424), 0);
	assert_int_equal(sws__xswap_shrink_count(1020, 1024, 0, 425), 340);
	assert_int_equal(sws__xswap_shrink_count(1020, 1024, 0, 509), 340);
	assert_int_equal(sws__xswap_shrink_count(1020, 1024, 0, 510), 425);
	assert_int_equal(sws__xswap_shrink_count(1020, 1024, 0, 5000), 850); /* tail stops at cluster 1 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_limit_write),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_shrink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
