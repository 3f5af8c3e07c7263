/*
 * zswap_mm.h - the zswap pool manager, below the memory model: what zswap.c
 * exports to the memory model (lib/mm), and nothing of the swap core's
 * structs: like the memory model, it sees the core through swap/swap_mm.h
 * (zswap.c itself includes the core's swap_internal.h). The compressors and
 * zsmalloc have their own headers, compress.h and zsmalloc.h; this one
 * includes compress.h for the compressor's enum. See docs/zswap.md.
 */
#ifndef SWS_ZSWAP_MM_H
#define SWS_ZSWAP_MM_H

#include <swapsim/zswap.h>

#include "../swap/swap_mm.h"
#include "compress.h"

struct sws_zswap;

/*
 * The memory model's side of zswap. How zswap writes an entry back: the memory model pins the slot with a new
 * folio in the swap cache (begin; SWS_EEXIST when the page is being swapped
 * in, SWS_ENOENT when the slot was freed, SWS_ENOMEM), then writes the page to
 * the device and drops the folio (end with the bytes), or just drops it
 * (end with NULL: the entry went meanwhile).
 */
struct sws_zswap_wb_ops {
	int (*begin)(void *ctx, struct sws_cpu *cpu, sws_entry_t e, uint16_t memcg, uint64_t *token);
	/* @return true when the page was written (false: the write failed and the
	 * folio keeps the page; or @page was NULL) */
	bool (*end)(void *ctx, struct sws_cpu *cpu, sws_entry_t e, uint64_t token, const void *page);
	void *ctx;
	/* Cgroup v2: @pages more (or fewer) of @memcg's usage, the pool's compressed
	 * bytes in whole pages; never refused. NULL: nothing charged. */
	void (*charge)(void *ctx, uint16_t memcg, int64_t pages);
};

/* Counters zswap bumps on the calling CPU, by the memory model's enum. */
typedef void (*sws_zswap_count_fn)(void *ctx, struct sws_cpu *cpu, enum sws_mm_counter c, uint64_t n);

int sws__zswap_create(struct sws_sim *sim, const struct sws_zswap_config *cfg, uint64_t ram_pages,
		      const struct sws_zswap_wb_ops *wb, sws_zswap_count_fn count, void *count_ctx,
		      struct sws_zswap **out);
void sws__zswap_destroy(struct sws_zswap *zs);
/* A device of @type and @max slots appeared (trees for it) / went (an empty
 * device: its trees go; the caller makes sure no call uses them). */
int sws__zswap_swapon(struct sws_zswap *zs, unsigned type, uint64_t max);
void sws__zswap_swapoff(struct sws_zswap *zs, unsigned type);

/* zswap_store() of a folio of @nr pages on slots @e.. (@fill gives page @i's
 * bytes): the memcg's zswap.max and the pool's limit are checked once, then
 * every page goes in, or none (a page that fails takes the folio's entries
 * with it, and any stale ones of the range). A refusal while the pool is full
 * queues the shrink worker. @return 0 (stored), or a refusal: SWS_ENOSPC
 * (pool full or memcg at zswap.max), SWS_ENOMEM, SWS_EINVAL (incompressible
 * and writeback not allowed, or slots outside the device), SWS_EIO
 * (compressor failed). */
int sws__zswap_store_folio(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e, unsigned nr,
			   uint16_t memcg, void (*fill)(void *ctx, unsigned i, void *page), void *ctx);
/* The same for one page. */
int sws__zswap_store(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e, uint16_t memcg,
		     const void *page);
/* zswap_load(): @return 0 and the page (the entry is gone: exclusive load),
 * SWS_ENOENT (not in zswap), SWS_EIO (decompression failed). */
int sws__zswap_load(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e, void *page);
/* zswap_entry_free() of an entry the design kept (vswap freed its slot; sws__zswap_release()). */
void sws__zswap_entry_release(struct sws_zswap *zs, void *entry);
/* zswap_invalidate() of @nr slots from @off of device @type (slot free). */
void sws__zswap_invalidate(struct sws_zswap *zs, unsigned type, uint64_t off, unsigned nr);
/* A read that missed zswap went to the device (nr_disk_swapins). */
void sws__zswap_disk_swapin(struct sws_zswap *zs, uint16_t memcg);
/* include/linux/mmzone.h's DEF_PRIORITY: reclaim's first and lightest priority. */
#define SWS__DEF_PRIORITY 12
/* shrink_slab()'s call of the memory-pressure shrinker for @memcg at reclaim
 * @priority (SWS__DEF_PRIORITY down to 0: a pressure of 2^-priority of
 * zswap_shrinker_count()). @return entries written back. */
uint64_t sws__zswap_shrinker_scan(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg, int priority);
uint64_t sws__zswap_shrink_worker(struct sws_zswap *zs, struct sws_cpu *cpu, uint64_t budget);
/* memory.reclaim "SIZE zswap_writeback_only": up to @nr_pages of @memcg's
 * entries written back. @return how many. */
uint64_t sws__zswap_writeback_only(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg, uint64_t nr_pages);
/* Is the shrink worker queued (a store found the pool full)? */
bool sws__zswap_shrink_queued(struct sws_zswap *zs);
void sws__zswap_stats(struct sws_zswap *zs, struct sws_mm_stats *st);
bool sws__zswap_writeback_allowed(struct sws_zswap *zs, uint16_t memcg);

int sws__zswap_set_compressor(struct sws_zswap *zs, const char *name);
/* The current pool's compressor (the modelled clock prices its work). */
enum sws_zcomp_alg sws__zswap_alg(struct sws_zswap *zs);
int sws__zswap_memcg_set(struct sws_zswap *zs, uint16_t memcg, uint64_t max_bytes, bool writeback);
int sws__zswap_memcg_stats(struct sws_zswap *zs, uint16_t memcg, uint64_t *bytes, uint64_t *orig_bytes);
#endif
