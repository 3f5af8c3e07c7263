/*
 * test_arena.c - sparse arenas: a reservation costs no memory; grown pages are
 * zero and become resident when touched; shrink really gives the memory back
 * (the OS's mincore() and /proc/self/smaps say so, not our counters) and the
 * kept part keeps its bytes; a failed mapping leaves the arena as it was; bad
 * arguments are refused; reserve/release cycles leak nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swap/arena.h"
#include "testutil.h"

/* Rss of the mapping that starts at @base, from /proc/self/smaps (kB), -1 if absent. */
static long smaps_rss_kb(const void *base)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	long rss = -1;
	bool in = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) /* a mapping's header line */
			in = lo == (unsigned long)(uintptr_t)base;
		else if (in && !strncmp(line, "Rss:", 4))
			rss = strtol(line + 4, NULL, 10);
	}
	fclose(f);
	return rss;
}

/* The process's address-space size (VmSize, kB) from /proc/self/status. */
static long vm_size_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long kb = -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmSize:", 7))
			kb = strtol(line + 7, NULL, 10);
	fclose(f);
	return kb;
}

static void test_grow_touch_shrink(void **state)
{
	(void)state;
	struct sws_arena a;
	size_t big = (size_t)8 << 30; /* 8 GiB of address space, no memory */
	assert_sws(0, sws__arena_reserve(&a, big));
	size_t pg = a.page;
	assert_int_equal(a.reserved, big);
	assert_int_equal(sws__arena_mapped(&a), 0);
	assert_int_equal(sws__arena_resident(&a), 0);

	assert_sws(0, sws__arena_grow(&a, 64 * pg + 1)); /* rounds up to whole pages */
	assert_int_equal(sws__arena_mapped(&a), 65 * pg);
	assert_int_equal(sws__arena_resident(&a), 0); /* mapped, not touched */
	for (size_t i = 0; i < 65 * pg; i++)
		assert_int_equal(a.base[i], 0);
	memset(a.base, 0xa5, 65 * pg);
	assert_int_equal(sws__arena_resident(&a), 65 * pg);
	long kb = smaps_rss_kb(a.base); /* the mapped part is a mapping of its own */
	assert_int_equal(kb * 1024, 65 * pg);

	assert_sws(0, sws__arena_shrink(&a, 16 * pg));
	assert_int_equal(sws__arena_mapped(&a), 16 * pg);
	assert_int_equal(sws__arena_resident(&a), 16 * pg);
	assert_int_equal(smaps_rss_kb(a.base) * 1024, 16 * pg);
	for (size_t i = 0; i < 16 * pg; i++)
		assert_int_equal(a.base[i], 0xa5); /* the kept part keeps its bytes */

	assert_sws(0, sws__arena_grow(&a, 32 * pg)); /* grown again: zero, not stale */
	for (size_t i = 16 * pg; i < 32 * pg; i++)
		assert_int_equal(a.base[i], 0);
	assert_sws(0, sws__arena_grow(&a, 8 * pg));    /* already mapped: nothing to do */
	assert_sws(0, sws__arena_shrink(&a, 40 * pg)); /* nothing beyond: nothing to do */
	assert_int_equal(sws__arena_mapped(&a), 32 * pg);

	assert_sws(0, sws__arena_grow(&a, big)); /* the whole reservation may be mapped */
	assert_sws(0, sws__arena_shrink(&a, 0));
	assert_int_equal(sws__arena_mapped(&a), 0);
	assert_int_equal(sws__arena_resident(&a), 0);
	sws__arena_release(&a);
	assert_null(a.base);
}

static void test_grow_failure(void **state)
{
	(void)state;
	struct sws_arena a;
	assert_sws(0, sws__arena_reserve(&a, 1 << 20));
	size_t pg = a.page;
	assert_sws(0, sws__arena_grow(&a, pg));
	a.base[0] = 7;
	a.grow_fail_nth = 2;
	assert_sws(0, sws__arena_grow(&a, 2 * pg));
	assert_sws(SWS_ENOMEM, sws__arena_grow(&a, 4 * pg)); /* the second grow from then fails */
	assert_int_equal(sws__arena_mapped(&a), 2 * pg);      /* ... and changes nothing */
	assert_int_equal(a.base[0], 7);
	assert_sws(0, sws__arena_grow(&a, 4 * pg)); /* usable afterwards */
	assert_int_equal(sws__arena_mapped(&a), 4 * pg);
	sws__arena_release(&a);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	struct sws_arena a;
	assert_sws(SWS_EINVAL, sws__arena_reserve(NULL, 4096));
	assert_sws(SWS_EINVAL, sws__arena_reserve(&a, 0));
	assert_sws(SWS_EINVAL, sws__arena_reserve(&a, SIZE_MAX));
	assert_sws(SWS_EINVAL, sws__arena_grow(&a, 1)); /* never reserved */
	assert_sws(SWS_EINVAL, sws__arena_shrink(&a, 0));
	assert_int_equal(sws__arena_resident(&a), 0);
	assert_sws(0, sws__arena_reserve(&a, 3 * a.page));
	assert_sws(SWS_EINVAL, sws__arena_grow(&a, 3 * a.page + 1)); /* beyond the reservation */
	assert_int_equal(sws__arena_mapped(&a), 0);
	assert_sws(SWS_EINVAL, sws__arena_grow(NULL, 1));
	sws__arena_release(&a);
	sws__arena_release(&a); /* twice is harmless */
	sws__arena_release(NULL);
}

/* Many reserve / grow / touch / release cycles: no address space or memory kept. */
static void test_cycles(void **state)
{
	(void)state;
	long before = vm_size_kb();
	for (int i = 0; i < 2000; i++) {
		struct sws_arena a;
		assert_sws(0, sws__arena_reserve(&a, (size_t)1 << 30));
		assert_sws(0, sws__arena_grow(&a, (size_t)(i % 7 + 1) * a.page));
		memset(a.base, i, a.page);
		assert_int_equal(sws__arena_resident(&a), a.page);
		sws__arena_release(&a);
	}
	long after = vm_size_kb();
	assert_true(before > 0 && after > 0);
	assert_true(after - before < (1l << 20)); /* one leaked reservation would add 1 GiB */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_touch_shrink),
		cmocka_unit_test(test_grow_failure),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_cycles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
