/*
 * compress.h - zswap's compressors, lz4 and zstd through their real libraries,
 * and the per-CPU compression context (the kernel's struct crypto_acomp_ctx:
 * compressor state plus a PAGE_SIZE buffer).
 *
 * A context belongs to one worker thread (one simulated CPU) and one
 * compressor; it is not thread safe. Everything it holds comes from the
 * injected allocator and is charged to SWS_MEM_compressor: the LZ4 state
 * (LZ4_sizeofState(), about 16 KiB), or a ZSTD_CCtx and ZSTD_DCtx whose
 * internal allocations go through ZSTD_customMem; and the 4096-byte output
 * buffer. The zstd compression workspace is allocated when the context is
 * created (one warm-up compression), so compress and decompress never
 * allocate afterwards.
 *
 * Contracts: compress takes exactly one 4096-byte page and succeeds only when
 * the output is shorter than a page (the caller stores incompressible pages
 * raw, or rejects them); decompress must produce exactly 4096 bytes and
 * returns an error on any other outcome, never reading or writing out of
 * bounds on corrupted input (both libraries' safe decoders). Corruption that
 * still decodes to 4096 bytes is not detected: no checksum, as in the kernel.
 */
#ifndef SWS_ZSWAP_COMPRESS_H
#define SWS_ZSWAP_COMPRESS_H

#include <stddef.h>

#include "../common/mem.h"

#define SWS_ZCOMP_PAGE_SIZE 4096u
#define SWS_ZCOMP_ZSTD_DEFAULT_LEVEL 3 /* ZSTD_CLEVEL_DEFAULT, the kernel's zstd level */
#define SWS_ZCOMP_ZSTD_MIN_LEVEL 1
#define SWS_ZCOMP_ZSTD_MAX_LEVEL 19
#define SWS_ZCOMP_NAME_MAX 16 /* "zstd:19" and its NUL fit */

enum sws_zcomp_alg {
	SWS_ZCOMP_LZ4 = 0,
	SWS_ZCOMP_ZSTD = 1,
};

/* A compressor and its setting. Zero-filled is lz4. */
struct sws_zcomp_spec {
	enum sws_zcomp_alg alg;
	int level; /* zstd: 1..19, 0 = SWS_ZCOMP_ZSTD_DEFAULT_LEVEL; lz4: must be 0 */
};

struct sws_zcomp_ctx;

/**
 * Parse "lz4", "zstd" (level 3) or "zstd:LEVEL" (LEVEL 1..19, decimal digits
 * only) into @out. Names are lowercase, as the kernel's.
 * @return 0 or SWS_EINVAL (anything else, including NULL).
 */
int sws__zcomp_parse(const char *name, struct sws_zcomp_spec *out);

/** @return "lz4" or "zstd" (the kernel's names), "" for an unknown algorithm. */
const char *sws__zcomp_alg_name(enum sws_zcomp_alg alg);

/** Write "lz4" or "zstd:LEVEL" (level resolved) to @buf, which parses back to
 * the same spec. @return 0, or SWS_EINVAL for a bad spec or a buffer under
 * SWS_ZCOMP_NAME_MAX bytes. */
int sws__zcomp_format(const struct sws_zcomp_spec *spec, char *buf, size_t cap);

/**
 * Create a context for @spec allocating through @mem.
 * @return 0, SWS_EINVAL (bad spec or argument) or SWS_ENOMEM (nothing is left
 * allocated).
 */
int sws__zcomp_ctx_create(struct sws_mem *mem, const struct sws_zcomp_spec *spec,
			  struct sws_zcomp_ctx **ctxp);

/** Free the context and everything it holds. NULL: no-op. */
void sws__zcomp_ctx_destroy(struct sws_zcomp_ctx *ctx);

/** @return the context's compressor. */
struct sws_zcomp_spec sws__zcomp_ctx_spec(const struct sws_zcomp_ctx *ctx);

/** @return the context's 4096-byte buffer (compress into it, then copy the
 * output into the pool, as zswap_compress() does). */
void *sws__zcomp_ctx_buffer(struct sws_zcomp_ctx *ctx);

/** @return the bytes the context holds from the allocator. */
size_t sws__zcomp_ctx_memory_usage(const struct sws_zcomp_ctx *ctx);

/**
 * Compress the 4096-byte page @page into @dst (capacity @dst_cap; it may be
 * the context's buffer). The output must also be shorter than 4096 bytes.
 * Both libraries' limited-output modes keep a small safety margin, so an
 * output that would end within a few bytes of the limit may be refused (the
 * kernel calls them the same way, with a PAGE_SIZE limit).
 * @return 0 and *@out_len (1..min(@dst_cap, 4095));
 *         SWS_ENOSPC when the output would not fit (zswap's
 *         reject_compress_poor: the caller stores the page raw or rejects it);
 *         SWS_EIO when the library failed (reject_compress_fail);
 *         SWS_ENOMEM when zstd could not allocate (it does not after create);
 *         SWS_EINVAL for a NULL argument.
 */
int sws__zcomp_compress(struct sws_zcomp_ctx *ctx, const void *page, void *dst, size_t dst_cap,
			size_t *out_len);

/**
 * Decompress @len bytes at @src into the 4096-byte page @page. A @len of
 * exactly 4096 means "stored raw" and is copied (zswap_decompress()).
 * @return 0 when exactly 4096 bytes came out; SWS_EIO for anything else
 * (corrupted or truncated input, a frame of another size: zswap's
 * decompress_fail); SWS_EINVAL for a NULL argument or @len 0 or above 4096.
 * @page may be partly written on error.
 */
int sws__zcomp_decompress(struct sws_zcomp_ctx *ctx, const void *src, size_t len, void *page);

#endif
