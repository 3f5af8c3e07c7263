/*
 * swapsim/zswap.h - zswap: a compressed pool between swap-out and the swap
 * device, where the kernel's zswap sits (mm/zswap.c, ~6.18-7.x).
 *
 * Once enabled on a memory model, every page the swap-out path writes (zero
 * pages excepted: the swap layer flags those first) is compressed with a real
 * compressor (lz4 or zstd) into a zsmalloc-like pool. A later swap-in loads it
 * back (exclusive load: the entry goes), a freed slot drops its entry. When
 * the pool is full, or under memory pressure with the shrinker on, entries are
 * written back to the swap device, oldest first, with a second chance for
 * entries used since their last pass and a shrinker count reduced by recent
 * disk swap-ins (the 2024 protection scheme; SWS_ZSWAP_OLD_SCHEME and
 * SWS_ZSWAP_SECOND_CHANCE_ONLY give what came before, to compare). Counters use the kernel's names and appear in
 * struct sws_mm_stats.
 */
#ifndef SWAPSIM_ZSWAP_H
#define SWAPSIM_ZSWAP_H

#include <stdbool.h>
#include <stdint.h>
#include <swapsim/mm.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SWS_ZSWAP_CONFIG_VERSION 1

#define SWS_ZSWAP_SHRINKER (1u << 0) /* shrinker_enabled: write back under memory pressure */
/*
 * The shrinker's protection scheme (Nhat Pham's 2024 change, two patches);
 * neither flag: both patches, the kernel since 6.12 (a referenced bit gives
 * each entry a second chance; the count is less the swap-ins read from the
 * device since the last count).
 */
#define SWS_ZSWAP_OLD_SCHEME (1u << 1)          /* 6.8-6.11: no second chance; a decaying
						 * protected size (grows with stores and
						 * every swap-in) taken off the count */
#define SWS_ZSWAP_SECOND_CHANCE_ONLY (1u << 2)  /* the first patch alone: the second
						 * chance, every swap-in (zswap hits too)
						 * taken off the count */

/*
 * The cgroup version the memcgs follow, as far as zswap sees it. v2 (the
 * default): each entry's compressed bytes are charged to its memcg, so the
 * pool counts against the memcg's limit, shows in its zswap stats, and the
 * memory-pressure shrinker's count (scaled by those stats) sees it; memory.zswap.max
 * and memory.zswap.writeback exist. v1: nothing is charged, the stats stay 0,
 * the memcg shrinker finds nothing to write back (only the pool-limit shrink
 * worker writes back), and there are no memory.zswap.* files.
 */
#define SWS_ZSWAP_CGROUP_V1 1u
#define SWS_ZSWAP_CGROUP_V2 2u

struct sws_zswap_config {
	uint32_t version;                  /* SWS_ZSWAP_CONFIG_VERSION or 0 */
	uint32_t flags;                    /* SWS_ZSWAP_* */
	const char *compressor;            /* "lz4" (NULL: default), "zstd", "zstd:LEVEL" (1..19) */
	uint32_t max_pool_percent;         /* of simulated RAM; 0: 20; 1..100 */
	uint32_t accept_threshold_percent; /* of the limit; 0: 90; 1..100 */
	uint32_t cgroup;                   /* SWS_ZSWAP_CGROUP_V1 or _V2; 0: v2 */
};

/**
 * Enable zswap on @mm (the memory model's devices must be swapped on already).
 * @return 0, SWS_EINVAL (bad percentages, unknown compressor, cgroup, both scheme flags),
 *         SWS_EVERSION,
 *         SWS_EEXIST (already enabled), SWS_ENOMEM.
 */
int sws_mm_zswap_enable(struct sws_mm *mm, const struct sws_zswap_config *cfg);

/**
 * Switch the compressor at runtime: a new pool becomes current; entries of
 * older pools stay readable until they are freed, then their pool goes.
 * @return 0, SWS_EINVAL (unknown name), SWS_ENODEV (zswap not enabled), SWS_ENOMEM.
 */
int sws_mm_zswap_set_compressor(struct sws_mm *mm, const char *name);

/* Whether @name is a compressor sws_zswap_config.compressor accepts: 0 or SWS_EINVAL. */
int sws_zswap_compressor_check(const char *name);

/**
 * memory.zswap.max and memory.zswap.writeback of memcg @memcg (cgroup v2 only:
 * on v1 anything but the defaults (0, true) is SWS_EOPNOTSUPP): @max_bytes
 * compressed bytes, rounded down to pages (0: no limit, "max"); a store that
 * finds the memcg at it writes back one entry of the memcg and then stores
 * (the memcg may go over), or is refused when nothing was written back.
 * @writeback false keeps its entries out of writeback, and its incompressible
 * pages are rejected (they stay resident). @return 0, SWS_EINVAL, SWS_ENODEV,
 * SWS_EOPNOTSUPP.
 */
int sws_mm_zswap_memcg(struct sws_mm *mm, uint16_t memcg, uint64_t max_bytes, bool writeback);

/** memcg stats: compressed bytes ("zswap") and the original bytes of the pages stored
 *  ("zswapped"), as memory.stat (cgroup v1: 0, nothing is charged). @return 0, SWS_EINVAL. */
int sws_mm_zswap_memcg_stats(struct sws_mm *mm, uint16_t memcg, uint64_t *zswap_bytes,
			     uint64_t *zswapped_bytes);

/**
 * The shrink worker as a deferred-work step: when a store was refused while
 * the pool was full, write back (one entry of each memcg in turn) until the
 * pool is at the accept threshold, giving up after 16 failures in total, at
 * most @budget entries (the rest stays queued). sws_mm_kswapd() runs it too;
 * the replay runs it right after the record that queued it.
 * @return the entries written back.
 */
uint64_t sws_mm_zswap_shrink(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t budget);

/**
 * Proactive zswap writeback, memory.reclaim "SIZE zswap_writeback_only" on
 * @memcg (the posted series, v4 2026-06): up to @nr_pages of the memcg's zswap
 * entries written back to the swap device, oldest first (its zswap LRU, with
 * the second chance the shrinker gives), nothing else reclaimed; stops early
 * when the LRU is empty, writeback is off for the memcg (memory.zswap.writeback
 * = 0) or 16 walks in a row wrote nothing. Counts zswpwb and zswpwb_proactive.
 * The time is the calling task's kernel time. @return the entries written back
 * (0 with no zswap, a bad memcg or @nr_pages 0).
 */
uint64_t sws_mm_zswap_writeback_only(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr_pages);

/**
 * Is the shrink worker queued (a store was refused while the pool was full)?
 * One atomic load: callers poll it after each operation to run the worker as
 * soon as it is queued, as the kernel's workqueue does. NULL or no zswap: false.
 */
bool sws_mm_zswap_shrink_pending(const struct sws_mm *mm);

#ifdef __cplusplus
}
#endif
#endif
