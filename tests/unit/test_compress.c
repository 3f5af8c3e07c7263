/*
 * test_compress.c - zswap's compressors (lib/zswap/compress.c): lz4 and zstd
 * at levels 1, 3 and 19 round-trip zero, text, random and usemem-index pages
 * byte for byte; an incompressible page reports "does not fit"; corrupted,
 * truncated or foreign input to decompress is an error, never a crash (run it
 * under ASan); names and levels parse and format; every byte of a context is
 * charged to SWS_MEM_compressor, none is allocated after create, and all of
 * it comes back on destroy, also when an allocation fails during create.
 */
#include <stdio.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "testutil.h"
#include "zswap/compress.h"

enum page_kind { PAGE_ZERO, PAGE_TEXT, PAGE_RANDOM, PAGE_INDEX, NR_PAGE_KINDS };
static const char *const page_names[] = {"zero", "text", "random", "index"};

static void make_page(enum page_kind k, uint64_t seed, unsigned char *page)
{
	static const char *const words[] = {"swap",  "cluster", "folio",   "zswap",
					    "the",   "of",	"reclaim", "memcg",
					    "entry", "and",	"table",   "page"};
	switch (k) {
	case PAGE_ZERO:
		memset(page, 0, 4096);
		break;
	case PAGE_TEXT: {
		size_t n = 0;
		while (n < 4096) {
			const char *w = words[sws_test_rand(&seed) % SWS_ARRAY_SIZE(words)];
			for (size_t i = 0; w[i] && n < 4096; i++)
				page[n++] = (unsigned char)w[i];
			if (n < 4096)
				page[n++] = sws_test_rand(&seed) % 9 ? ' ' : '\n';
		}
		break;
	}
	case PAGE_RANDOM:
		for (size_t i = 0; i < 4096; i += 8) {
			uint64_t r = sws_test_rand(&seed);
			memcpy(page + i, &r, 8);
		}
		break;
	case PAGE_INDEX: /* usemem: each 8-byte word holds its index in the buffer */
		for (uint64_t i = 0; i < 512; i++) {
			uint64_t w = seed * 512 + i;
			memcpy(page + i * 8, &w, 8);
		}
		break;
	default:
		break;
	}
}

struct cm_env {
	struct sws_test_alloc ta;
	struct sws_mem mem;
};

static void cm_open(struct cm_env *e)
{
	sws_test_alloc_init(&e->ta);
	sws__mem_init(&e->mem, &e->ta.a);
}

static int64_t comp_bytes(struct cm_env *e)
{
	return atomic_load(&e->mem.bytes[SWS_MEM_compressor]);
}

static const char *const specs[] = {"lz4", "zstd:1", "zstd:3", "zstd:19"};

/* ---- round trips ---------------------------------------------------------------------- */

static void test_roundtrip(void **state)
{
	(void)state;
	struct cm_env e;
	cm_open(&e);
	static unsigned char page[4096], back[4096], out[4096];
	for (size_t s = 0; s < SWS_ARRAY_SIZE(specs); s++) {
		struct sws_zcomp_spec spec;
		struct sws_zcomp_ctx *ctx;
		assert_sws(0, sws__zcomp_parse(specs[s], &spec));
		assert_sws(0, sws__zcomp_ctx_create(&e.mem, &spec, &ctx));
		assert_int_equal(comp_bytes(&e), sws__zcomp_ctx_memory_usage(ctx));
		assert_int_equal(e.ta.live_bytes, comp_bytes(&e));
		const uint64_t calls = e.ta.calls;
		for (int k = 0; k < NR_PAGE_KINDS; k++) {
			size_t total = 0;
			for (uint64_t seed = 1; seed <= 8; seed++) {
				make_page((enum page_kind)k, seed, page);
				size_t len = 0;
				/* Into the context's buffer, as zswap does. */
				unsigned char *buf = sws__zcomp_ctx_buffer(ctx);
				int rc = sws__zcomp_compress(ctx, page, buf, 4096, &len);
				if (k == PAGE_RANDOM) {
					assert_sws(SWS_ENOSPC, rc); /* stored raw by zswap */
					/* A raw page (length 4096) "decompresses" by copy. */
					assert_sws(0, sws__zcomp_decompress(ctx, page, 4096, back));
					assert_memory_equal(page, back, 4096);
					total += 4096;
					continue;
				}
				assert_sws(0, rc);
				assert_true(len > 0 && len < 4096);
				memcpy(out, buf, len);
				memset(back, 0x5a, sizeof(back));
				assert_sws(0, sws__zcomp_decompress(ctx, out, len, back));
				assert_memory_equal(page, back, 4096);
				total += len;
				/* Into a caller buffer too: the same bytes. */
				size_t len2 = 0;
				unsigned char other[4096];
				assert_sws(
				    0, sws__zcomp_compress(ctx, page, other, sizeof(other), &len2));
				assert_int_equal(len2, len);
				assert_memory_equal(other, out, len);
			}
			print_message("%-8s %-6s ratio %.2f\n", specs[s], page_names[k],
				      8.0 * 4096 / (double)total);
			if (k == PAGE_ZERO)
				assert_true(total / 8 < 64);
		}
		/* No allocation after create: a store never fails for memory here. */
		assert_int_equal(e.ta.calls, calls);
		sws__zcomp_ctx_destroy(ctx);
		assert_int_equal(comp_bytes(&e), 0);
		assert_int_equal(e.ta.live_bytes, 0);
	}
	sws__zcomp_ctx_destroy(NULL);
}

/* An output that does not fit dst_cap (or a page) is SWS_ENOSPC, never an overflow. */
static void test_small_dst(void **state)
{
	(void)state;
	struct cm_env e;
	cm_open(&e);
	static unsigned char page[4096];
	make_page(PAGE_TEXT, 3, page);
	for (size_t s = 0; s < SWS_ARRAY_SIZE(specs); s++) {
		struct sws_zcomp_spec spec;
		struct sws_zcomp_ctx *ctx;
		assert_sws(0, sws__zcomp_parse(specs[s], &spec));
		assert_sws(0, sws__zcomp_ctx_create(&e.mem, &spec, &ctx));
		size_t len;
		unsigned char big[8192];
		assert_sws(0, sws__zcomp_compress(ctx, page, big, sizeof(big), &len));
		/* Exactly len bytes of room: the same output, or a refusal (both
		 * libraries' limited-output modes keep a safety margin); one less:
		 * refused. dst is a heap block of that exact size, so ASan sees
		 * any write past it. */
		unsigned char *exact = test_malloc(len);
		size_t len2 = 0;
		int rc = sws__zcomp_compress(ctx, page, exact, len, &len2);
		assert_true(rc == SWS_ENOSPC || (rc == 0 && len2 == len));
		test_free(exact);
		unsigned char *tight = test_malloc(len - 1);
		assert_sws(SWS_ENOSPC, sws__zcomp_compress(ctx, page, tight, len - 1, &len2));
		test_free(tight);
		assert_sws(SWS_ENOSPC, sws__zcomp_compress(ctx, page, big, 0, &len2));
		/* A random page does not fit even with room to spare. */
		unsigned char rnd[4096];
		make_page(PAGE_RANDOM, 11, rnd);
		assert_sws(SWS_ENOSPC, sws__zcomp_compress(ctx, rnd, big, sizeof(big), &len2));
		sws__zcomp_ctx_destroy(ctx);
	}
	assert_int_equal(e.ta.live_bytes, 0);
}

/* ---- corrupted input -------------------------------------------------------------------- */

static void test_corrupt(void **state)
{
	(void)state;
	struct cm_env e;
	cm_open(&e);
	static unsigned char page[4096], back[4096], out[4096];
	uint64_t rs = 77;
	for (size_t s = 0; s < SWS_ARRAY_SIZE(specs); s++) {
		struct sws_zcomp_spec spec;
		struct sws_zcomp_ctx *ctx;
		assert_sws(0, sws__zcomp_parse(specs[s], &spec));
		assert_sws(0, sws__zcomp_ctx_create(&e.mem, &spec, &ctx));
		for (int k = 0; k < NR_PAGE_KINDS; k++) {
			if (k == PAGE_RANDOM)
				continue;
			make_page((enum page_kind)k, 5, page);
			size_t len;
			assert_sws(0, sws__zcomp_compress(ctx, page, out, sizeof(out), &len));
			/* Truncated: always an error. Each input is a heap block of
			 * its exact length so ASan catches a read past it. */
			for (size_t cut = 0; cut < len; cut += 1 + cut / 4) {
				if (!cut)
					continue;
				unsigned char *in = test_malloc(cut);
				memcpy(in, out, cut);
				assert_sws(SWS_EIO, sws__zcomp_decompress(ctx, in, cut, back));
				test_free(in);
			}
			/* Bit flips and garbage: an error or some 4096 bytes, never a crash. */
			for (int trial = 0; trial < 300; trial++) {
				unsigned char *in = test_malloc(len);
				memcpy(in, out, len);
				unsigned flips = 1 + (unsigned)(sws_test_rand(&rs) % 4);
				for (unsigned f = 0; f < flips; f++) {
					uint64_t r = sws_test_rand(&rs);
					in[r % len] ^= (unsigned char)(1u << (r >> 32) % 8);
				}
				int rc = sws__zcomp_decompress(ctx, in, len, back);
				assert_true(rc == 0 || rc == SWS_EIO);
				test_free(in);
			}
		}
		for (int trial = 0; trial < 200; trial++) {
			size_t len = 1 + sws_test_rand(&rs) % 4095;
			unsigned char *in = test_malloc(len);
			for (size_t i = 0; i < len; i++)
				in[i] = (unsigned char)sws_test_rand(&rs);
			if (spec.alg == SWS_ZCOMP_ZSTD && len >= 4) /* get past the magic number */
				memcpy(in, "\x28\xb5\x2f\xfd", 4);
			int rc = sws__zcomp_decompress(ctx, in, len, back);
			assert_true(rc == 0 || rc == SWS_EIO);
			test_free(in);
		}
		/* A valid frame of another size: an error. */
		unsigned char small[100];
		memset(small, 'a', sizeof(small));
		int n;
		if (spec.alg == SWS_ZCOMP_LZ4) {
			n = LZ4_compress_default((const char *)small, (char *)out, sizeof(small),
						 sizeof(out));
			assert_true(n > 0);
		} else {
			size_t z = ZSTD_compress(out, sizeof(out), small, sizeof(small), 3);
			assert_false(ZSTD_isError(z));
			n = (int)z;
		}
		assert_sws(SWS_EIO, sws__zcomp_decompress(ctx, out, (size_t)n, back));
		/* A frame of 8 KiB does not fit the page either. */
		static unsigned char two[8192];
		memset(two, 'b', sizeof(two));
		if (spec.alg == SWS_ZCOMP_LZ4)
			n = LZ4_compress_default((const char *)two, (char *)out, sizeof(two),
						 sizeof(out));
		else
			n = (int)ZSTD_compress(out, sizeof(out), two, sizeof(two), 3);
		assert_true(n > 0 && n < 4096);
		assert_sws(SWS_EIO, sws__zcomp_decompress(ctx, out, (size_t)n, back));
		/* Lengths out of range. */
		assert_sws(SWS_EINVAL, sws__zcomp_decompress(ctx, out, 0, back));
		assert_sws(SWS_EINVAL, sws__zcomp_decompress(ctx, out, 4097, back));
		assert_sws(SWS_EINVAL, sws__zcomp_decompress(ctx, NULL, 10, back));
		assert_sws(SWS_EINVAL, sws__zcomp_decompress(ctx, out, 10, NULL));
		size_t len;
		assert_sws(SWS_EINVAL, sws__zcomp_compress(ctx, NULL, out, sizeof(out), &len));
		assert_sws(SWS_EINVAL, sws__zcomp_compress(ctx, page, NULL, sizeof(out), &len));
		assert_sws(SWS_EINVAL, sws__zcomp_compress(ctx, page, out, sizeof(out), NULL));
		sws__zcomp_ctx_destroy(ctx);
	}
	assert_int_equal(e.ta.live_bytes, 0);
}

/* ---- names -------------------------------------------------------------------------------- */

static void test_parse(void **state)
{
	(void)state;
	struct sws_zcomp_spec sp;
	char buf[SWS_ZCOMP_NAME_MAX];
	assert_sws(0, sws__zcomp_parse("lz4", &sp));
	assert_int_equal(sp.alg, SWS_ZCOMP_LZ4);
	assert_int_equal(sp.level, 0);
	assert_sws(0, sws__zcomp_format(&sp, buf, sizeof(buf)));
	assert_string_equal(buf, "lz4");
	assert_sws(0, sws__zcomp_parse("zstd", &sp));
	assert_int_equal(sp.alg, SWS_ZCOMP_ZSTD);
	assert_int_equal(sp.level, 3);
	assert_sws(0, sws__zcomp_format(&sp, buf, sizeof(buf)));
	assert_string_equal(buf, "zstd:3");
	for (int level = 1; level <= 19; level++) {
		char name[32];
		snprintf(name, sizeof(name), "zstd:%d", level);
		assert_sws(0, sws__zcomp_parse(name, &sp));
		assert_int_equal(sp.alg, SWS_ZCOMP_ZSTD);
		assert_int_equal(sp.level, level);
		assert_sws(0, sws__zcomp_format(&sp, buf, sizeof(buf)));
		assert_string_equal(buf, name);
	}
	static const char *const bad[] = {"",	     "LZ4",	"Zstd",	    "lz4:1",   "lz4 ",
					  " lz4",    "lzo",	"zstd:",    "zstd:0",  "zstd:20",
					  "zstd:22", "zstd:-1", "zstd:+3",  "zstd:3x", "zstd:100",
					  "zstd 3",  "zstd=3",	"zstd:3:1", "zstdx"};
	for (size_t i = 0; i < SWS_ARRAY_SIZE(bad); i++) {
		sp = (struct sws_zcomp_spec){.alg = SWS_ZCOMP_ZSTD, .level = 7};
		if (sws__zcomp_parse(bad[i], &sp) != SWS_EINVAL)
			fail_msg("\"%s\" parsed", bad[i]);
		assert_int_equal(sp.level, 7); /* untouched */
	}
	assert_sws(SWS_EINVAL, sws__zcomp_parse(NULL, &sp));
	assert_sws(SWS_EINVAL, sws__zcomp_parse("lz4", NULL));
	assert_string_equal(sws__zcomp_alg_name(SWS_ZCOMP_LZ4), "lz4");
	assert_string_equal(sws__zcomp_alg_name(SWS_ZCOMP_ZSTD), "zstd");
	assert_string_equal(sws__zcomp_alg_name((enum sws_zcomp_alg)9), "");
	/* Zero level on zstd is the default; format resolves it. */
	sp = (struct sws_zcomp_spec){.alg = SWS_ZCOMP_ZSTD};
	assert_sws(0, sws__zcomp_format(&sp, buf, sizeof(buf)));
	assert_string_equal(buf, "zstd:3");
	assert_sws(SWS_EINVAL, sws__zcomp_format(&sp, buf, 4));
	sp = (struct sws_zcomp_spec){.alg = SWS_ZCOMP_LZ4, .level = 2};
	assert_sws(SWS_EINVAL, sws__zcomp_format(&sp, buf, sizeof(buf)));
}

/* ---- contexts and memory ------------------------------------------------------------------ */

static void test_ctx_invalid(void **state)
{
	(void)state;
	struct cm_env e;
	cm_open(&e);
	struct sws_zcomp_ctx *ctx = (struct sws_zcomp_ctx *)&e; /* must be reset to NULL */
	const struct sws_zcomp_spec bad[] = {
	    {.alg = SWS_ZCOMP_LZ4, .level = 1},
	    {.alg = SWS_ZCOMP_ZSTD, .level = 20},
	    {.alg = SWS_ZCOMP_ZSTD, .level = -1},
	    {.alg = (enum sws_zcomp_alg)2, .level = 0},
	};
	for (size_t i = 0; i < SWS_ARRAY_SIZE(bad); i++)
		assert_sws(SWS_EINVAL, sws__zcomp_ctx_create(&e.mem, &bad[i], &ctx));
	struct sws_zcomp_spec ok = {0};
	assert_sws(SWS_EINVAL, sws__zcomp_ctx_create(NULL, &ok, &ctx));
	assert_sws(SWS_EINVAL, sws__zcomp_ctx_create(&e.mem, NULL, &ctx));
	assert_sws(SWS_EINVAL, sws__zcomp_ctx_create(&e.mem, &ok, NULL));
	assert_int_equal(e.ta.calls, 0);
	/* Zero-filled spec: lz4. */
	assert_sws(0, sws__zcomp_ctx_create(&e.mem, &ok, &ctx));
	assert_int_equal(sws__zcomp_ctx_spec(ctx).alg, SWS_ZCOMP_LZ4);
	sws__zcomp_ctx_destroy(ctx);
	assert_int_equal(e.ta.live_bytes, 0);
}

/* Every allocation of create can fail; each failure leaves nothing behind. */
static void test_ctx_failnth(void **state)
{
	(void)state;
	for (size_t s = 0; s < SWS_ARRAY_SIZE(specs); s++) {
		struct sws_zcomp_spec spec;
		assert_sws(0, sws__zcomp_parse(specs[s], &spec));
		struct cm_env e;
		cm_open(&e);
		struct sws_zcomp_ctx *ctx;
		assert_sws(0, sws__zcomp_ctx_create(&e.mem, &spec, &ctx));
		const uint64_t k = e.ta.calls;
		const size_t bytes = sws__zcomp_ctx_memory_usage(ctx);
		print_message("%-8s context: %zu bytes in %llu allocations\n", specs[s], bytes,
			      (unsigned long long)k);
		assert_int_equal(comp_bytes(&e), bytes);
		assert_true(bytes > 4096);
		sws__zcomp_ctx_destroy(ctx);
		assert_int_equal(e.ta.live_bytes, 0);
		for (uint64_t n = 1; n <= k; n++) {
			cm_open(&e);
			e.ta.fail_nth = n;
			ctx = (struct sws_zcomp_ctx *)&e;
			assert_sws(SWS_ENOMEM, sws__zcomp_ctx_create(&e.mem, &spec, &ctx));
			assert_null(ctx);
			assert_int_equal(e.ta.live_bytes, 0);
			assert_int_equal(comp_bytes(&e), 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),	cmocka_unit_test(test_small_dst),
	    cmocka_unit_test(test_corrupt),	cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_ctx_invalid), cmocka_unit_test(test_ctx_failnth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
