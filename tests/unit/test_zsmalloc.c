/*
 * test_zsmalloc.c - the compressed-object allocator (lib/zswap/zsmalloc.c):
 * class geometry checked against figures worked out by hand, byte-identical
 * round trips, exact accounting of pages and metadata against the injected
 * allocator, zspages freed with their last object, the fullest-first choice
 * of zspage, a fail-the-Nth-allocation walk, and invalid arguments.
 */
#include <string.h>

#include "testutil.h"
#include "zswap/zsmalloc.h"

/* A struct sws_mem over the counting allocator of testutil. */
struct zs_env {
	struct sws_test_alloc ta;
	struct sws_mem mem;
	struct sws_zs_pool *pool;
};

static void env_open(struct zs_env *e)
{
	sws_test_alloc_init(&e->ta);
	sws__mem_init(&e->mem, &e->ta.a);
	assert_sws(0, sws__zs_create(&e->mem, &e->pool));
}

static void env_close(struct zs_env *e)
{
	sws__zs_destroy(e->pool);
	e->pool = NULL;
	for (int c = 0; c < SWS_NR_MEM_CLASSES; c++)
		assert_int_equal(atomic_load(&e->mem.bytes[c]), 0);
	assert_int_equal(e->ta.live_bytes, 0);
}

static int64_t mem_bytes(struct zs_env *e, enum sws_mem_class c)
{
	return atomic_load(&e->mem.bytes[c]);
}

/*
 * The pool's counters agree with its classes and with the allocator: pages
 * summed over the merged classes, zspage bytes = pages * 4096, metadata bytes
 * = SWS_MEM_zs_meta, and no byte outside the two classes.
 */
static void assert_pool_consistent(struct zs_env *e)
{
	struct sws_zs_usage u;
	sws__zs_usage(e->pool, &u);
	uint64_t pages = 0, zspages = 0, objs = 0;
	for (unsigned i = 0; i < SWS_ZS_NR_CLASSES; i++) {
		struct sws_zs_class_stats cs;
		assert_sws(0, sws__zs_class_stats(e->pool, i, &cs));
		if (cs.info.merged_index != i)
			continue; /* counted with the class it is merged into */
		pages += cs.pages;
		zspages += cs.zspages;
		objs += cs.objs_inuse;
		uint64_t grouped = 0;
		for (unsigned g = 0; g < SWS_ZS_FULLNESS_GROUPS; g++)
			grouped += cs.fullness[g];
		assert_int_equal(grouped, cs.zspages);
		assert_int_equal(cs.fullness[0], 0); /* empty zspages are freed at once */
		assert_true(cs.objs_inuse <= cs.zspages * cs.info.objs_per_zspage);
		assert_true(cs.objs_inuse >= cs.zspages); /* no empty zspage */
	}
	assert_int_equal(pages, u.pages);
	assert_int_equal(pages, sws__zs_total_pages(e->pool));
	assert_int_equal(zspages, u.zspages);
	assert_int_equal(objs, u.objs);
	assert_int_equal(mem_bytes(e, SWS_MEM_zspage), u.pages * SWS_ZS_PAGE_SIZE);
	assert_int_equal(mem_bytes(e, SWS_MEM_zs_meta), u.meta_bytes);
	assert_int_equal(sws__zs_memory_usage(e->pool), u.pages * SWS_ZS_PAGE_SIZE + u.meta_bytes);
	int64_t all = 0;
	for (int c = 0; c < SWS_NR_MEM_CLASSES; c++)
		all += mem_bytes(e, c);
	assert_int_equal(all, mem_bytes(e, SWS_MEM_zspage) + mem_bytes(e, SWS_MEM_zs_meta));
	assert_int_equal(e->ta.live_bytes, all);
}

static void fill(unsigned char *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++) {
		if (i % 8 == 0)
			seed = sws_test_rand(&seed);
		p[i] = (unsigned char)(seed >> (8 * (i % 8)));
	}
}

/* ---- geometry ----------------------------------------------------------------------- */

static void assert_class(unsigned index, unsigned merged_size, unsigned ppz, unsigned objs,
			 unsigned huge)
{
	struct sws_zs_class_info ci;
	assert_sws(0, sws__zs_class_info(index, &ci));
	assert_int_equal(ci.index, index);
	assert_int_equal(ci.size, merged_size);
	assert_int_equal(ci.merged_index, (merged_size - 32) / 16);
	assert_int_equal(ci.pages_per_zspage, ppz);
	assert_int_equal(ci.objs_per_zspage, objs);
	assert_int_equal(ci.huge, huge);
}

static void test_geometry(void **state)
{
	(void)state;
	/* Size -> class index: ceil((size - 32) / 16), 32 B to 4096 B. */
	assert_int_equal(sws__zs_size_index(1), 0);
	assert_int_equal(sws__zs_size_index(32), 0);
	assert_int_equal(sws__zs_size_index(33), 1);
	assert_int_equal(sws__zs_size_index(48), 1);
	assert_int_equal(sws__zs_size_index(49), 2);
	assert_int_equal(sws__zs_size_index(4080), 253);
	assert_int_equal(sws__zs_size_index(4081), 254);
	assert_int_equal(sws__zs_size_index(4096), 254);
	assert_int_equal(sws__zs_size_index(5000), 254);

	/* Worked by hand (used % = whole percent of the span holding objects):
	 * 32: 1 page holds 128 exactly.
	 * 48: 1 page 85 objects = 99%, 3 pages 256 objects = 100%.
	 * 128: 1 page 32 exactly.
	 * 176: 1..3 pages 98%, 4 pages 93 objects = 16368/16384 = 99%.
	 * 112: 7 pages hold 256 exactly (100%).
	 * 1008: 1 page 4 objects (98%) = the geometry of 1024 (1 page, 4): merged.
	 * 2064: k pages hold 1, 3, 5, ... 15 objects: 50, 75, 83, 88, 90, 92, 93,
	 *       94% -> 8 pages, 15 objects; 2080: 8 pages 15 objects (95%): merged.
	 * 2096: 7 pages 13 objects = 95.03%, 8 pages 15 = 95.9%: both 95, the
	 *       fewer pages win -> 7 pages, 13: not merged with 2080.
	 * 3632: 8 pages 9 objects = 32688/32768 = 99%.
	 * 3648: 89% at any length -> 1 page, 1 object: huge, merged into 4096. */
	assert_class(0, 32, 1, 128, 0);
	assert_class(1, 48, 3, 256, 0);
	assert_class(sws__zs_size_index(128), 128, 1, 32, 0);
	assert_class(sws__zs_size_index(176), 176, 4, 93, 0);
	assert_class(sws__zs_size_index(112), 112, 7, 256, 0);
	assert_class(sws__zs_size_index(1008), 1024, 1, 4, 0);
	assert_class(sws__zs_size_index(1024), 1024, 1, 4, 0);
	assert_class(sws__zs_size_index(2064), 2080, 8, 15, 0);
	assert_class(sws__zs_size_index(2096), 2096, 7, 13, 0);
	assert_class(sws__zs_size_index(3632), 3632, 8, 9, 0);
	assert_class(sws__zs_size_index(3648), 4096, 1, 1, 1);
	assert_class(sws__zs_size_index(4080), 4096, 1, 1, 1);
	assert_class(254, 4096, 1, 1, 1);

	/* All 255 classes: the chosen span is the best whole percentage (fewest
	 * pages on a tie), and merged runs are runs of identical geometry. */
	struct sws_zs_class_info ci, prev = {0};
	unsigned distinct = 0;
	for (unsigned i = 0; i < SWS_ZS_NR_CLASSES; i++) {
		assert_sws(0, sws__zs_class_info(i, &ci));
		unsigned size = 32 + 16 * i;
		assert_true(ci.size >= size && ci.merged_index >= i);
		assert_true(ci.pages_per_zspage >= 1 &&
			    ci.pages_per_zspage <= SWS_ZS_MAX_PAGES_PER_ZSPAGE);
		assert_int_equal(ci.objs_per_zspage, ci.pages_per_zspage * 4096 / size);
		unsigned chosen = ci.objs_per_zspage * size * 100 / (ci.pages_per_zspage * 4096);
		for (unsigned k = 1; k <= 8; k++) {
			unsigned pc = (k * 4096 / size) * size * 100 / (k * 4096);
			assert_true(pc < chosen || (pc == chosen && k >= ci.pages_per_zspage));
		}
		struct sws_zs_class_info top;
		assert_sws(0, sws__zs_class_info(ci.merged_index, &top));
		assert_int_equal(top.merged_index, ci.merged_index);
		assert_int_equal(top.pages_per_zspage, ci.pages_per_zspage);
		assert_int_equal(top.objs_per_zspage, ci.objs_per_zspage);
		if (i && prev.merged_index != ci.merged_index)
			assert_int_equal(prev.merged_index, i - 1);
		distinct += ci.merged_index == i;
		assert_int_equal(ci.huge, ci.merged_index == 254);
		prev = ci;
	}
	assert_sws(SWS_EINVAL, sws__zs_class_info(SWS_ZS_NR_CLASSES, &ci));
	print_message("zsmalloc: %u size classes, %u after merging\n", SWS_ZS_NR_CLASSES, distinct);
	assert_true(distinct > 100 && distinct < SWS_ZS_NR_CLASSES);

	/* Object sizes: length + 8-byte header, except in the huge class. */
	assert_int_equal(sws__zs_obj_size(0), 0);
	assert_int_equal(sws__zs_obj_size(4097), 0);
	assert_int_equal(sws__zs_obj_size(1), 32);
	assert_int_equal(sws__zs_obj_size(24), 32);
	assert_int_equal(sws__zs_obj_size(25), 48);
	assert_int_equal(sws__zs_obj_size(120), 128);
	assert_int_equal(sws__zs_obj_size(3624), 3632); /* 3632 - 8: the largest normal object */
	assert_int_equal(sws__zs_obj_size(3625), 4096); /* huge from here */
	assert_int_equal(sws__zs_obj_size(4088), 4096);
	assert_int_equal(sws__zs_obj_size(4096), 4096);
}

/* ---- round trips ---------------------------------------------------------------------- */

#define NOBJ 3000

static void test_roundtrip(void **state)
{
	(void)state;
	struct zs_env e;
	env_open(&e);
	static uint64_t handle[NOBJ];
	static size_t len[NOBJ];
	static unsigned char buf[4096], back[4096];
	uint64_t s = 42;
	for (int i = 0; i < NOBJ; i++) {
		/* Mostly compressed-page lengths, some tiny, some huge. */
		uint64_t r = sws_test_rand(&s);
		len[i] = r % 8 == 0 ? 1 + r % 64 : r % 8 == 1 ? 3600 + r % 497 : 1 + r % 4096;
		assert_sws(0, sws__zs_alloc(e.pool, len[i], &handle[i]));
		assert_true(handle[i] != 0);
		fill(buf, len[i], (uint64_t)i);
		assert_sws(0, sws__zs_write(e.pool, handle[i], buf, len[i]));
	}
	assert_pool_consistent(&e);
	/* Free every other object, reuse the space, then check everything. */
	for (int i = 0; i < NOBJ; i += 2)
		sws__zs_free(e.pool, handle[i]);
	for (int i = 0; i < NOBJ; i += 2) {
		len[i] = 1 + sws_test_rand(&s) % 4096;
		assert_sws(0, sws__zs_alloc(e.pool, len[i], &handle[i]));
		fill(buf, len[i], (uint64_t)i + 1000000);
		assert_sws(0, sws__zs_write(e.pool, handle[i], buf, len[i]));
	}
	assert_pool_consistent(&e);
	uint64_t data = 0;
	for (int i = 0; i < NOBJ; i++) {
		fill(buf, len[i], (uint64_t)i + (i % 2 ? 0 : 1000000));
		memset(back, 0xa5, sizeof(back));
		assert_int_equal(sws__zs_read(e.pool, handle[i], back), len[i]);
		assert_memory_equal(back, buf, len[i]);
		size_t l;
		const void *p = sws__zs_map(e.pool, handle[i], &l);
		assert_int_equal(l, len[i]);
		assert_memory_equal(p, buf, len[i]);
		data += len[i];
	}
	struct sws_zs_usage u;
	sws__zs_usage(e.pool, &u);
	assert_int_equal(u.objs, NOBJ);
	assert_int_equal(u.data_bytes, data);
	assert_true(u.obj_bytes >= data); /* class sizes cover length + header */
	assert_true(u.pages * 4096 >= u.obj_bytes);
	for (int i = 0; i < NOBJ; i++)
		sws__zs_free(e.pool, handle[i]);
	sws__zs_usage(e.pool, &u);
	assert_int_equal(u.pages + u.zspages + u.objs + u.obj_bytes + u.data_bytes, 0);
	assert_pool_consistent(&e);
	env_close(&e);
}

/* ---- accounting ------------------------------------------------------------------------ */

static void test_accounting(void **state)
{
	(void)state;
	struct zs_env e;
	env_open(&e);
	const int64_t base = mem_bytes(&e, SWS_MEM_zs_meta); /* the pool itself */
	assert_true(base > 0);
	assert_int_equal(mem_bytes(&e, SWS_MEM_zspage), 0);
	assert_int_equal(sws__zs_total_pages(e.pool), 0);

	/* 120 + 8 = 128: the 128-byte class, one page of 32 objects per zspage. */
	const unsigned ci = sws__zs_size_index(128);
	uint64_t h[33];
	for (int i = 0; i < 32; i++)
		assert_sws(0, sws__zs_alloc(e.pool, 120, &h[i]));
	struct sws_zs_class_stats cs;
	assert_sws(0, sws__zs_class_stats(e.pool, ci, &cs));
	assert_int_equal(cs.zspages, 1);
	assert_int_equal(cs.objs_inuse, 32);
	assert_int_equal(cs.fullness[SWS_ZS_FULLNESS_GROUPS - 1], 1);
	assert_int_equal(sws__zs_total_pages(e.pool), 1);
	assert_int_equal(mem_bytes(&e, SWS_MEM_zspage), 4096);
	assert_sws(0, sws__zs_alloc(e.pool, 120, &h[32])); /* the 33rd opens a second zspage */
	assert_sws(0, sws__zs_class_stats(e.pool, ci, &cs));
	assert_int_equal(cs.zspages, 2);
	assert_int_equal(cs.fullness[1], 1); /* 1/32 in use: the 0-9% group */
	assert_int_equal(sws__zs_total_pages(e.pool), 2);
	assert_pool_consistent(&e);
	/* Each object: an 8-byte handle cell; each zspage: a descriptor; plus the
	 * class's zspage table. The metadata is exactly what the allocator holds. */
	struct sws_zs_usage u;
	sws__zs_usage(e.pool, &u);
	assert_int_equal(u.obj_bytes, 33 * 128);
	assert_int_equal(u.data_bytes, 33 * 120);
	assert_true(u.meta_bytes > (uint64_t)base + 33 * 8);

	/* Fullest first: a free in the full zspage makes it 31/32 (90-99%); the
	 * next allocation goes there, not to the nearly empty one. */
	sws__zs_free(e.pool, h[5]);
	assert_sws(0, sws__zs_class_stats(e.pool, ci, &cs));
	assert_int_equal(cs.fullness[10], 1);
	assert_sws(0, sws__zs_alloc(e.pool, 100, &h[5])); /* 108 -> 112: another class */
	assert_sws(0, sws__zs_class_stats(e.pool, ci, &cs));
	assert_int_equal(cs.fullness[10], 1);
	sws__zs_free(e.pool, h[5]);
	assert_sws(0, sws__zs_alloc(e.pool, 113, &h[5])); /* 121 -> 128 */
	assert_sws(0, sws__zs_class_stats(e.pool, ci, &cs));
	assert_int_equal(cs.fullness[SWS_ZS_FULLNESS_GROUPS - 1], 1);
	assert_int_equal(cs.fullness[1], 1);
	assert_int_equal(cs.zspages, 2);

	/* Classes merged into one share their zspages: 1008 + 8 and 1016 + 8 both
	 * land in the 1024-byte class (1 page, 4 objects). */
	uint64_t m[4];
	assert_sws(0, sws__zs_alloc(e.pool, 990, &m[0]));  /* 998 -> 1008, merged into 1024 */
	assert_sws(0, sws__zs_alloc(e.pool, 1016, &m[1])); /* 1024 */
	assert_sws(0, sws__zs_alloc(e.pool, 1000, &m[2])); /* 1008 */
	assert_sws(0, sws__zs_alloc(e.pool, 1001, &m[3])); /* 1009 -> 1024 */
	assert_sws(0, sws__zs_class_stats(e.pool, sws__zs_size_index(1008), &cs));
	assert_int_equal(cs.info.size, 1024);
	assert_int_equal(cs.zspages, 1);
	assert_int_equal(cs.objs_inuse, 4);
	assert_int_equal(sws__zs_total_pages(e.pool), 3);

	/* The huge class: one header-less 4096-byte object per page. */
	uint64_t hg[3];
	assert_sws(0, sws__zs_alloc(e.pool, 4096, &hg[0]));
	assert_sws(0, sws__zs_alloc(e.pool, 3625, &hg[1]));
	assert_sws(0, sws__zs_alloc(e.pool, 3624, &hg[2])); /* 3632: 8 pages, 9 objects */
	assert_sws(0, sws__zs_class_stats(e.pool, 254, &cs));
	assert_int_equal(cs.zspages, 2);
	assert_int_equal(cs.pages, 2);
	assert_int_equal(cs.objs_inuse, 2);
	assert_sws(0, sws__zs_class_stats(e.pool, sws__zs_size_index(3632), &cs));
	assert_int_equal(cs.pages, 8);
	assert_int_equal(sws__zs_total_pages(e.pool), 3 + 2 + 8);
	static unsigned char page[4096], back[4096];
	fill(page, sizeof(page), 7);
	assert_sws(0, sws__zs_write(e.pool, hg[0], page, 4096)); /* the whole page: no header */
	assert_int_equal(sws__zs_read(e.pool, hg[0], back), 4096);
	assert_memory_equal(page, back, 4096);
	assert_pool_consistent(&e);

	/* Everything back: zspages go with their last object, tables with their
	 * last zspage; only the pool struct remains. */
	for (int i = 0; i < 33; i++)
		sws__zs_free(e.pool, h[i]);
	for (int i = 0; i < 4; i++)
		sws__zs_free(e.pool, m[i]);
	for (int i = 0; i < 3; i++)
		sws__zs_free(e.pool, hg[i]);
	assert_int_equal(sws__zs_total_pages(e.pool), 0);
	assert_int_equal(mem_bytes(&e, SWS_MEM_zspage), 0);
	assert_int_equal(mem_bytes(&e, SWS_MEM_zs_meta), base);
	assert_int_equal(sws__zs_memory_usage(e.pool), (uint64_t)base);
	assert_pool_consistent(&e);
	env_close(&e);
}

/* destroy() takes everything still allocated, handles of huge objects too. */
static void test_destroy_live(void **state)
{
	(void)state;
	struct zs_env e;
	env_open(&e);
	uint64_t h, s = 9;
	for (int i = 0; i < 500; i++)
		assert_sws(0, sws__zs_alloc(e.pool, 1 + sws_test_rand(&s) % 4096, &h));
	for (int i = 0; i < 5; i++)
		assert_sws(0, sws__zs_alloc(e.pool, 4096, &h));
	sws__zs_free(e.pool, h);
	assert_pool_consistent(&e);
	env_close(&e);
	sws__zs_destroy(NULL);
}

/* ---- fail the Nth allocation ------------------------------------------------------------ */

#define FN_OBJS 160

struct fn_state {
	struct zs_env e;
	uint64_t h[FN_OBJS];
	size_t len[FN_OBJS];
	unsigned nomem;
};

/* One alloc that may fail: on SWS_ENOMEM nothing changed; then retry once. */
static void fn_alloc(struct fn_state *st, int i, size_t len)
{
	struct sws_zs_usage before, after;
	sws__zs_usage(st->e.pool, &before);
	int64_t live = st->e.ta.live_bytes;
	int rc = sws__zs_alloc(st->e.pool, len, &st->h[i]);
	if (rc == SWS_ENOMEM) {
		st->nomem++;
		sws__zs_usage(st->e.pool, &after);
		assert_memory_equal(&before, &after, sizeof(before));
		assert_int_equal(st->e.ta.live_bytes, live);
		assert_pool_consistent(&st->e);
		rc = sws__zs_alloc(st->e.pool, len, &st->h[i]);
	}
	assert_sws(0, rc);
	st->len[i] = len;
	unsigned char buf[4096];
	fill(buf, len, (uint64_t)i * 7919 + len);
	assert_sws(0, sws__zs_write(st->e.pool, st->h[i], buf, len));
}

static void fn_verify(struct fn_state *st, int i)
{
	unsigned char buf[4096], back[4096];
	fill(buf, st->len[i], (uint64_t)i * 7919 + st->len[i]);
	assert_int_equal(sws__zs_read(st->e.pool, st->h[i], back), st->len[i]);
	assert_memory_equal(buf, back, st->len[i]);
}

/* @return the allocator calls the scenario made. */
static uint64_t fn_run(uint64_t fail_nth, unsigned *nomem)
{
	struct fn_state *st = test_calloc(1, sizeof(*st));
	sws_test_alloc_init(&st->e.ta);
	st->e.ta.fail_nth = fail_nth;
	sws__mem_init(&st->e.mem, &st->e.ta.a);
	int rc = sws__zs_create(&st->e.mem, &st->e.pool);
	if (rc == SWS_ENOMEM) {
		assert_int_equal(st->e.ta.live_bytes, 0);
		assert_null(st->e.pool);
		st->nomem++;
		assert_sws(0, sws__zs_create(&st->e.mem, &st->e.pool));
	}
	assert_sws(0, rc == SWS_ENOMEM ? 0 : rc);
	/* Enough objects of one class to grow its zspage table past 16 slots,
	 * plus a spread of classes and huge objects. */
	uint64_t s = 5;
	for (int i = 0; i < FN_OBJS; i++) {
		size_t len = i < 80 ? 3000 : i % 10 == 0 ? 4096 : 1 + sws_test_rand(&s) % 4096;
		fn_alloc(st, i, len);
	}
	for (int i = 0; i < FN_OBJS; i += 3)
		sws__zs_free(st->e.pool, st->h[i]);
	for (int i = 0; i < FN_OBJS; i += 3)
		fn_alloc(st, i, 1 + sws_test_rand(&s) % 2048);
	for (int i = 0; i < FN_OBJS; i++)
		fn_verify(st, i);
	assert_pool_consistent(&st->e);
	for (int i = 0; i < FN_OBJS; i += 2)
		sws__zs_free(st->e.pool, st->h[i]);
	assert_pool_consistent(&st->e);
	uint64_t calls = st->e.ta.calls;
	env_close(&st->e); /* destroy takes the odd half; no byte may stay */
	*nomem = st->nomem;
	test_free(st);
	return calls;
}

static void test_failnth(void **state)
{
	(void)state;
	unsigned nomem;
	uint64_t k = fn_run(0, &nomem);
	assert_int_equal(nomem, 0);
	assert_true(k > FN_OBJS);
	unsigned failed = 0;
	for (uint64_t n = 1; n <= k; n++) {
		fn_run(n, &nomem);
		assert_int_equal(nomem, 1); /* every allocation the scenario makes can fail */
		failed++;
	}
	print_message("zsmalloc fail-nth: %llu allocator calls, each failed once\n",
		      (unsigned long long)k);
	assert_int_equal(failed, k);
}

/* ---- invalid arguments ------------------------------------------------------------------ */

static void test_invalid(void **state)
{
	(void)state;
	struct zs_env e;
	env_open(&e);
	uint64_t h = 0;
	struct sws_zs_pool *p = NULL;
	assert_sws(SWS_EINVAL, sws__zs_create(NULL, &p));
	assert_sws(SWS_EINVAL, sws__zs_create(&e.mem, NULL));
	assert_sws(SWS_EINVAL, sws__zs_alloc(e.pool, 0, &h));
	assert_sws(SWS_EINVAL, sws__zs_alloc(e.pool, 4097, &h));
	assert_sws(SWS_EINVAL, sws__zs_alloc(e.pool, SIZE_MAX, &h));
	assert_sws(SWS_EINVAL, sws__zs_alloc(NULL, 100, &h));
	assert_sws(SWS_EINVAL, sws__zs_alloc(e.pool, 100, NULL));
	assert_int_equal(h, 0);
	struct sws_zs_class_stats cs;
	assert_sws(SWS_EINVAL, sws__zs_class_stats(e.pool, SWS_ZS_NR_CLASSES, &cs));
	assert_sws(SWS_EINVAL, sws__zs_class_stats(e.pool, 0, NULL));
	assert_sws(SWS_EINVAL, sws__zs_class_info(0, NULL));
	assert_sws(0, sws__zs_alloc(e.pool, 100, &h));
	unsigned char buf[200] = {0};
	assert_sws(SWS_EINVAL, sws__zs_write(e.pool, h, buf, 101)); /* longer than allocated */
	assert_sws(0, sws__zs_write(e.pool, h, buf, 50));	    /* a prefix is fine */
	sws__zs_free(e.pool, h);
	assert_pool_consistent(&e);
	env_close(&e);

	/* The allocator refuses the pool itself. */
	sws_test_alloc_init(&e.ta);
	e.ta.fail_nth = 1;
	sws__mem_init(&e.mem, &e.ta.a);
	assert_sws(SWS_ENOMEM, sws__zs_create(&e.mem, &p));
	assert_null(p);
	assert_int_equal(e.ta.live_bytes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_geometry),   cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_accounting), cmocka_unit_test(test_destroy_live),
	    cmocka_unit_test(test_failnth),    cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
