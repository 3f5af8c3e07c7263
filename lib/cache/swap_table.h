/*
 * swap_table.h - the swap table entry format (phase III/IV, ~7.1/7.2) and its
 * helpers, grouped by entry state: make / test / get.
 *
 *   63    60 59 58                                              2  1  0
 *  +--------+--+------------------------------------------------+--+--+
 *  | COUNT  |Z |            shadow payload (bits 1..58)           ...| 1|  SHADOW
 *  | COUNT  |Z |  unused   |          pfn (bits 2..41)           | 1| 0|  PFN (folio)
 *  +--------+--+------------------------------------------------+--+--+
 *  0                                                                    NULL (free)
 *  ~0 << 3                                                              BAD (header)
 *
 * COUNT holds the swap count 0..14 inline; 15 means "the real count is in the
 * cluster's extend table". Z is the zero-page flag (zeromap merged, phase IV).
 * A PFN entry with count 0 is a cache-only slot; a SHADOW entry always has a
 * count >= 1 (payload 0 = "no shadow").
 */
#ifndef SWS_SWAP_TABLE_H
#define SWS_SWAP_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../swap/xswap.h"

#define SWP_TB_NULL 0ull
#define SWP_TB_BAD (~0ull << 3)
#define SWP_TB_COUNT_SHIFT 60
#define SWP_TB_COUNT_MAX 15ull /* inline field value meaning "extended" */
#define SWP_TB_ZERO_BIT (1ull << 59)
#define SWP_TB_FLAGS_MASK (~0ull << 59) /* COUNT and Z */
#define SWP_TB_SHADOW_MASK ((1ull << 58) - 1)
#define SWP_TB_PFN_MASK ((1ull << 40) - 1)

static inline bool swp_tb_is_null(uint64_t tb) { return tb == SWP_TB_NULL; }
static inline bool swp_tb_is_bad(uint64_t tb) { return tb == SWP_TB_BAD; }
static inline bool swp_tb_is_shadow(uint64_t tb) { return (tb & 1) && !swp_tb_is_bad(tb); }
static inline bool swp_tb_is_pfn(uint64_t tb) { return (tb & 3) == 2 && !swp_tb_is_bad(tb); }

static inline uint64_t pfn_to_swp_tb(uint64_t pfn, uint64_t flags) { return flags | (pfn << 2) | 2; }
static inline uint64_t shadow_to_swp_tb(uint64_t shadow, uint64_t flags)
{
	return flags | (shadow << 1) | 1;
}

static inline uint64_t swp_tb_to_pfn(uint64_t tb) { return (tb >> 2) & SWP_TB_PFN_MASK; }
static inline uint64_t swp_tb_to_shadow(uint64_t tb) { return (tb >> 1) & SWP_TB_SHADOW_MASK; }
static inline uint64_t swp_tb_flags(uint64_t tb) { return tb & SWP_TB_FLAGS_MASK; }
static inline unsigned swp_tb_count_field(uint64_t tb) { return (unsigned)(tb >> SWP_TB_COUNT_SHIFT); }
static inline bool swp_tb_zero(uint64_t tb) { return tb & SWP_TB_ZERO_BIT; }

static inline uint64_t swp_tb_set_count_field(uint64_t tb, uint64_t field)
{
	return (tb & ~(0xfull << SWP_TB_COUNT_SHIFT)) | (field << SWP_TB_COUNT_SHIFT);
}

/* The cold per-cluster pointers; the hot table pointers have their own array. */
struct cluster_tables {
	uint32_t *extend_table;
	uint16_t *memcg_table;
};

/* dev->cache of the swap table backend: table pointers packed densely (8 B per
 * cluster, the only thing a lookup reads before the entry), the rest beside them. */
struct st_device {
	_Atomic(_Atomic uint64_t *) *tables;
	struct cluster_tables *cts;
	/* Where the two arrays live (arenas on an xswap device). */
	struct sws_cluster_array tables_array, cts_array;
};

/*
 * swap_cache lookup on a device's table pointers (dev->cache_index): RCU read
 * lock held, no lock taken; *loads gets the dependent loads made. An acquire load of the
 * cluster's table pointer (NULL: the cluster is free) and a relaxed load of
 * the entry. @return the PFN cached for slot @off, or 0. Inline: this is the
 * hottest path of the simulator.
 */
static inline uint64_t sws__st_lookup(_Atomic(_Atomic uint64_t *) *tables, uint64_t off, unsigned *loads)
{
	_Atomic uint64_t *t = atomic_load_explicit(&tables[off / 512], memory_order_acquire);
	*loads = t ? 2 : 1; /* the table pointer, then the entry */
	if (!t)
		return 0;
	uint64_t tb = atomic_load_explicit(&t[off % 512], memory_order_relaxed);
	return swp_tb_is_pfn(tb) ? swp_tb_to_pfn(tb) : 0;
}

#endif
