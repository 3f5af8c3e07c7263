/*
 * compress.c - lz4 and zstd behind one per-CPU context (compress.h).
 *
 * lz4: LZ4_compress_fast_extState() (acceleration 1, what LZ4_compress_default()
 * does) with a state buffer from the injected allocator, LZ4_decompress_safe().
 * zstd: ZSTD_compressCCtx() at the context's level and ZSTD_decompressDCtx(),
 * with contexts created through ZSTD_customMem so that every byte zstd
 * allocates is charged to SWS_MEM_compressor. zstd's free callback does not
 * pass the size, so each of its blocks carries a 16-byte size prefix.
 */
#include <stdio.h>
#include <string.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem, ZSTD_create[CD]Ctx_advanced */
#include <lz4.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <swapsim/error.h>

#include "compress.h"

#define ZCOMP_PREFIX 16 /* size prefix of zstd's blocks; keeps 16-byte alignment */

struct sws_zcomp_ctx {
	struct sws_mem *mem;
	struct sws_zcomp_spec spec; /* level resolved */
	size_t bytes;		    /* held from the allocator, this struct included */
	unsigned char *buf;	    /* SWS_ZCOMP_PAGE_SIZE bytes */
	void *lz4_state;
	size_t lz4_state_size;
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
};

/* ---- names ------------------------------------------------------------------------- */

int sws__zcomp_parse(const char *name, struct sws_zcomp_spec *out)
{
	if (!name || !out)
		return SWS_EINVAL;
	if (!strcmp(name, "lz4")) {
		*out = (struct sws_zcomp_spec){.alg = SWS_ZCOMP_LZ4, .level = 0};
		return 0;
	}
	if (!strcmp(name, "zstd")) {
		*out = (struct sws_zcomp_spec){.alg = SWS_ZCOMP_ZSTD,
					       .level = SWS_ZCOMP_ZSTD_DEFAULT_LEVEL};
		return 0;
	}
	if (strncmp(name, "zstd:", 5))
		return SWS_EINVAL;
	const char *d = name + 5;
	size_t n = strlen(d);
	if (n < 1 || n > 2)
		return SWS_EINVAL;
	int level = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i] < '0' || d[i] > '9')
			return SWS_EINVAL;
		level = level * 10 + (d[i] - '0');
	}
	if (level < SWS_ZCOMP_ZSTD_MIN_LEVEL || level > SWS_ZCOMP_ZSTD_MAX_LEVEL)
		return SWS_EINVAL;
	*out = (struct sws_zcomp_spec){.alg = SWS_ZCOMP_ZSTD, .level = level};
	return 0;
}

const char *sws__zcomp_alg_name(enum sws_zcomp_alg alg)
{
	switch (alg) {
	case SWS_ZCOMP_LZ4:
		return "lz4";
	case SWS_ZCOMP_ZSTD:
		return "zstd";
	}
	return "";
}

/* Check @spec and resolve its default level into @out. @return 0 or SWS_EINVAL. */
static int spec_resolve(const struct sws_zcomp_spec *spec, struct sws_zcomp_spec *out)
{
	switch (spec->alg) {
	case SWS_ZCOMP_LZ4:
		if (spec->level)
			return SWS_EINVAL;
		*out = *spec;
		return 0;
	case SWS_ZCOMP_ZSTD:
		if (spec->level && (spec->level < SWS_ZCOMP_ZSTD_MIN_LEVEL ||
				    spec->level > SWS_ZCOMP_ZSTD_MAX_LEVEL))
			return SWS_EINVAL;
		*out = *spec;
		if (!out->level)
			out->level = SWS_ZCOMP_ZSTD_DEFAULT_LEVEL;
		return 0;
	}
	return SWS_EINVAL;
}

int sws__zcomp_format(const struct sws_zcomp_spec *spec, char *buf, size_t cap)
{
	struct sws_zcomp_spec s;
	if (!spec || !buf || cap < SWS_ZCOMP_NAME_MAX || spec_resolve(spec, &s))
		return SWS_EINVAL;
	if (s.alg == SWS_ZCOMP_LZ4)
		snprintf(buf, cap, "lz4");
	else
		snprintf(buf, cap, "zstd:%d", s.level);
	return 0;
}

/* ---- zstd's allocator ----------------------------------------------------------------- */

static void *zstd_alloc(void *opaque, size_t size)
{
	struct sws_zcomp_ctx *ctx = opaque;
	unsigned char *p =
	    sws__mem_alloc(ctx->mem, SWS_MEM_compressor, size + ZCOMP_PREFIX, ZCOMP_PREFIX);
	if (!p)
		return NULL;
	memcpy(p, &size, sizeof(size));
	ctx->bytes += size + ZCOMP_PREFIX;
	return p + ZCOMP_PREFIX;
}

static void zstd_free(void *opaque, void *address)
{
	struct sws_zcomp_ctx *ctx = opaque;
	if (!address)
		return;
	unsigned char *p = (unsigned char *)address - ZCOMP_PREFIX;
	size_t size;
	memcpy(&size, p, sizeof(size));
	ctx->bytes -= size + ZCOMP_PREFIX;
	sws__mem_free(ctx->mem, SWS_MEM_compressor, p, size + ZCOMP_PREFIX);
}

/* ---- contexts ------------------------------------------------------------------------- */

void sws__zcomp_ctx_destroy(struct sws_zcomp_ctx *ctx)
{
	if (!ctx)
		return;
	ZSTD_freeCCtx(ctx->cctx); /* NULL-safe; frees through zstd_free() */
	ZSTD_freeDCtx(ctx->dctx);
	sws__mem_free(ctx->mem, SWS_MEM_compressor, ctx->lz4_state, ctx->lz4_state_size);
	sws__mem_free(ctx->mem, SWS_MEM_compressor, ctx->buf, SWS_ZCOMP_PAGE_SIZE);
	sws__mem_free(ctx->mem, SWS_MEM_compressor, ctx, sizeof(*ctx));
}

int sws__zcomp_ctx_create(struct sws_mem *mem, const struct sws_zcomp_spec *spec,
			  struct sws_zcomp_ctx **ctxp)
{
	struct sws_zcomp_spec s;
	if (!mem || !spec || !ctxp || spec_resolve(spec, &s))
		return SWS_EINVAL;
	*ctxp = NULL;
	struct sws_zcomp_ctx *ctx = sws__mem_zalloc(mem, SWS_MEM_compressor, sizeof(*ctx), 0);
	if (!ctx)
		return SWS_ENOMEM;
	ctx->mem = mem;
	ctx->spec = s;
	ctx->bytes = sizeof(*ctx);
	ctx->buf = sws__mem_zalloc(mem, SWS_MEM_compressor, SWS_ZCOMP_PAGE_SIZE, SWS_CACHELINE);
	if (!ctx->buf)
		goto nomem;
	ctx->bytes += SWS_ZCOMP_PAGE_SIZE;
	if (s.alg == SWS_ZCOMP_LZ4) {
		size_t size = (size_t)LZ4_sizeofState();
		ctx->lz4_state = sws__mem_alloc(mem, SWS_MEM_compressor, size, 0);
		if (!ctx->lz4_state)
			goto nomem;
		ctx->lz4_state_size = size;
		ctx->bytes += size;
		*ctxp = ctx;
		return 0;
	}

	ZSTD_customMem cm = {.customAlloc = zstd_alloc, .customFree = zstd_free, .opaque = ctx};
	ctx->cctx = ZSTD_createCCtx_advanced(cm);
	ctx->dctx = ctx->cctx ? ZSTD_createDCtx_advanced(cm) : NULL;
	if (!ctx->dctx)
		goto nomem;
	/* Warm up: one compression of a page allocates the workspace for this
	 * level and a 4 KiB source, which every later call reuses. */
	unsigned char out[256];
	size_t n =
	    ZSTD_compressCCtx(ctx->cctx, out, sizeof(out), ctx->buf, SWS_ZCOMP_PAGE_SIZE, s.level);
	if (ZSTD_isError(n))
		goto nomem; /* only an allocation can fail on a zero page */
	n = ZSTD_decompressDCtx(ctx->dctx, ctx->buf, SWS_ZCOMP_PAGE_SIZE, out, n);
	if (ZSTD_isError(n) || n != SWS_ZCOMP_PAGE_SIZE)
		goto nomem;
	*ctxp = ctx;
	return 0;
nomem:
	sws__zcomp_ctx_destroy(ctx);
	return SWS_ENOMEM;
}

struct sws_zcomp_spec sws__zcomp_ctx_spec(const struct sws_zcomp_ctx *ctx)
{
	return ctx->spec;
}

void *sws__zcomp_ctx_buffer(struct sws_zcomp_ctx *ctx)
{
	return ctx->buf;
}

size_t sws__zcomp_ctx_memory_usage(const struct sws_zcomp_ctx *ctx)
{
	return ctx->bytes;
}

/* ---- compress / decompress ------------------------------------------------------------- */

int sws__zcomp_compress(struct sws_zcomp_ctx *ctx, const void *page, void *dst, size_t dst_cap,
			size_t *out_len)
{
	if (!ctx || !page || !dst || !out_len)
		return SWS_EINVAL;
	/* The output must be shorter than the page: anything else is stored raw. */
	size_t cap = dst_cap < SWS_ZCOMP_PAGE_SIZE - 1 ? dst_cap : SWS_ZCOMP_PAGE_SIZE - 1;
	if (ctx->spec.alg == SWS_ZCOMP_LZ4) {
		/* 0: the output did not fit in @cap (the only failure for a valid call). */
		int n = LZ4_compress_fast_extState(ctx->lz4_state, page, dst,
						   (int)SWS_ZCOMP_PAGE_SIZE, (int)cap, 1);
		if (n <= 0)
			return SWS_ENOSPC;
		*out_len = (size_t)n;
		return 0;
	}
	size_t n =
	    ZSTD_compressCCtx(ctx->cctx, dst, cap, page, SWS_ZCOMP_PAGE_SIZE, ctx->spec.level);
	if (ZSTD_isError(n)) {
		switch (ZSTD_getErrorCode(n)) {
		case ZSTD_error_dstSize_tooSmall:
			return SWS_ENOSPC;
		case ZSTD_error_memory_allocation:
			return SWS_ENOMEM;
		default:
			return SWS_EIO;
		}
	}
	*out_len = n;
	return 0;
}

int sws__zcomp_decompress(struct sws_zcomp_ctx *ctx, const void *src, size_t len, void *page)
{
	if (!ctx || !src || !page || !len || len > SWS_ZCOMP_PAGE_SIZE)
		return SWS_EINVAL;
	if (len == SWS_ZCOMP_PAGE_SIZE) {
		memcpy(page, src, len); /* stored raw */
		return 0;
	}
	if (ctx->spec.alg == SWS_ZCOMP_LZ4) {
		int n = LZ4_decompress_safe(src, page, (int)len, (int)SWS_ZCOMP_PAGE_SIZE);
		return n == (int)SWS_ZCOMP_PAGE_SIZE ? 0 : SWS_EIO;
	}
	size_t n = ZSTD_decompressDCtx(ctx->dctx, page, SWS_ZCOMP_PAGE_SIZE, src, len);
	return !ZSTD_isError(n) && n == SWS_ZCOMP_PAGE_SIZE ? 0 : SWS_EIO;
}
