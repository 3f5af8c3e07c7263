/*
 * zsmalloc.h - the compressed-object allocator behind zswap, modelled on the
 * kernel's mm/zsmalloc.c (written for libswapsim, no kernel code).
 *
 * Objects of 1..4096 bytes are packed into "zspages": spans of 1..8 pages
 * (SWS_ZS_MAX_PAGES_PER_ZSPAGE) of real memory from the injected allocator,
 * one size class per span. The pool's backing pages are what zswap's
 * pool_total_size and max_pool_percent count, fragmentation included.
 *
 * Size classes (mm/zsmalloc.c): 255 classes of 32, 48, ..., 4096 bytes
 * (steps of 16). Each class takes the zspage length of 1..8 pages that uses
 * the largest whole percentage of the span (fewest pages on a tie, as the
 * kernel's get_pages_per_zspage()). Neighbouring classes that end up with the
 * same (pages per zspage, objects per zspage) are merged into the larger one,
 * which leaves 123 distinct classes. Every class from 3648 bytes up holds one
 * object per page and merges into the 4096-byte "huge" class.
 *
 * Objects: an object of length L in a normal class carries an 8-byte header
 * (the handle, as in the kernel) and takes class_size(L + 8); in the huge
 * class (L + 8 >= 3633, so class 3648..4096) it carries none and its handle is
 * kept in the zspage descriptor. Every allocation also takes an 8-byte handle
 * cell from the allocator (the kernel's handle slab), charged to zs_meta.
 *
 * A handle is the address of its handle cell; the cell holds the object's
 * location, so the allocator could move objects (compaction) by rewriting
 * one cell. This one never moves them: see docs/zsmalloc.md.
 *
 *   handle (uint64_t) ──▶ cell, 8 B:
 *    63                            32 31          19 18          8 7          0
 *   +--------------------------------+--------------+-------------+------------+
 *   |        zspage id (32)          |  length (13) |  index (11) |  class (8) |
 *   +--------------------------------+--------------+-------------+------------+
 *     class:  the merged class's index (0..254, the largest size merged in)
 *     index:  object number inside the zspage (at most 256 per zspage)
 *     length: the length given to sws__zs_alloc() (1..4096)
 *     zspage id: slot in the class's zspage table ──▶ struct zs_zspage
 *
 *   zspage of a normal class (pages_per_zspage * 4096 bytes, contiguous here):
 *   +--------+--------------+--------+--------------+----+--------+------+
 *   | handle | data (L)  pad| handle | data ...     |    | (free) | tail |
 *   +--------+--------------+--------+--------------+----+--------+------+
 *   |<---- class size ----->|                                       waste
 *   A free object holds the index of the next free object in its first two
 *   bytes; objects at or past the zspage's bump index were never used.
 *
 * Locking: one spinlock per (merged) class protects its zspages, its zspage
 * table, its fullness lists and the free-object links. Object data is not
 * protected: the caller owns an object from alloc to free and must not free
 * it while another thread reads or writes it. All calls are thread safe.
 *
 * Memory classes: zspages SWS_MEM_zspage; handle cells, zspage descriptors,
 * zspage tables and the pool itself SWS_MEM_zs_meta.
 */
#ifndef SWS_ZSMALLOC_H
#define SWS_ZSMALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/mem.h"

#define SWS_ZS_PAGE_SIZE 4096u
#define SWS_ZS_MIN_ALLOC_SIZE 32u	       /* smallest class */
#define SWS_ZS_MAX_ALLOC_SIZE SWS_ZS_PAGE_SIZE /* largest object and class */
#define SWS_ZS_SIZE_CLASS_DELTA 16u	       /* PAGE_SIZE >> 8 */
#define SWS_ZS_NR_CLASSES 255u		       /* (4096 - 32) / 16 + 1 */
#define SWS_ZS_MAX_PAGES_PER_ZSPAGE 8u	       /* CONFIG_ZSMALLOC_CHAIN_SIZE */
#define SWS_ZS_HANDLE_SIZE 8u		       /* in-object header and handle cell */
#define SWS_ZS_FULLNESS_GROUPS 12u	       /* 0%, 1-9%, ..., 90-99%, 100% */

struct sws_zs_pool;

/* Geometry of one size class; the same for every pool. */
struct sws_zs_class_info {
	uint32_t index;		   /* this size's index, 0..254 */
	uint32_t merged_index;	   /* the class it is merged into (>= index) */
	uint32_t size;		   /* object size of the merged class, bytes */
	uint32_t pages_per_zspage; /* 1..8 */
	uint32_t objs_per_zspage;
	uint32_t huge; /* 1: one header-less object per page */
};

/* Use of one merged class in a pool (a moment's view, taken under its lock). */
struct sws_zs_class_stats {
	struct sws_zs_class_info info;
	uint64_t objs_inuse;			   /* allocated objects */
	uint64_t zspages;			   /* zspages in the class */
	uint64_t pages;				   /* zspages * pages_per_zspage */
	uint64_t fullness[SWS_ZS_FULLNESS_GROUPS]; /* zspages per fullness group */
};

/* The pool as a whole (atomic counters, read without locks). */
struct sws_zs_usage {
	uint64_t pages; /* backing pages: pool_total_size / 4096 */
	uint64_t zspages;
	uint64_t objs;	     /* allocated objects */
	uint64_t obj_bytes;  /* sum of the class sizes of allocated objects */
	uint64_t data_bytes; /* sum of the lengths given to sws__zs_alloc() */
	uint64_t meta_bytes; /* handle cells, descriptors, tables, pool: SWS_MEM_zs_meta */
};

/*
 * Geometry (pure functions, no pool needed).
 */

/** @return the index (0..254) of the smallest class of at least @size bytes;
 * sizes above 4096 give 254. */
unsigned sws__zs_size_index(size_t size);

/** Fill @out with the geometry of class @index (0..254). @return 0 or SWS_EINVAL. */
int sws__zs_class_info(unsigned index, struct sws_zs_class_info *out);

/** @return the bytes an object of @len (1..4096) takes in its zspage: the
 * size of its merged class (header included), or 0 when @len is out of range. */
size_t sws__zs_obj_size(size_t len);

/*
 * The pool.
 */

/** Create an empty pool that allocates through @mem. @return 0, SWS_EINVAL or SWS_ENOMEM. */
int sws__zs_create(struct sws_mem *mem, struct sws_zs_pool **poolp);

/** Free the pool, every zspage and every handle still allocated. NULL: no-op.
 * No other call on the pool may run concurrently. */
void sws__zs_destroy(struct sws_zs_pool *pool);

/**
 * Allocate an object of @len bytes (1..4096); its contents are undefined until
 * written. A new zspage is allocated when the class has no free object.
 * @return 0 and *@handle (never 0); SWS_EINVAL for @len 0 or above 4096;
 * SWS_ENOMEM when the allocator failed (the pool is unchanged).
 */
int sws__zs_alloc(struct sws_zs_pool *pool, size_t len, uint64_t *handle);

/** Free the object of @handle; the zspage goes back to the allocator when it
 * was its last object. @handle must be allocated (asserted in debug builds). */
void sws__zs_free(struct sws_zs_pool *pool, uint64_t handle);

/**
 * @return the address of the object's data (after its header) and its length
 * in *@len (may be NULL). Objects never move: the address stays valid until
 * sws__zs_free(), so no unmap call is needed.
 */
void *sws__zs_map(struct sws_zs_pool *pool, uint64_t handle, size_t *len);

/** Copy the object's data (its length, returned) to @dst. */
size_t sws__zs_read(struct sws_zs_pool *pool, uint64_t handle, void *dst);

/** Copy @len bytes from @src to the start of the object.
 * @return 0, or SWS_EINVAL when @len exceeds the length it was allocated with. */
int sws__zs_write(struct sws_zs_pool *pool, uint64_t handle, const void *src, size_t len);

/** @return the pool's backing pages (zs_get_total_pages(); pool_total_size / 4096). */
uint64_t sws__zs_total_pages(const struct sws_zs_pool *pool);

/** Fill @out with the pool-wide counters. */
void sws__zs_usage(const struct sws_zs_pool *pool, struct sws_zs_usage *out);

/** @return the bytes the pool holds from the allocator: zspages + metadata. */
uint64_t sws__zs_memory_usage(const struct sws_zs_pool *pool);

/** Fill @out for the merged class holding size class @index (0..254).
 * @return 0 or SWS_EINVAL. */
int sws__zs_class_stats(struct sws_zs_pool *pool, unsigned index, struct sws_zs_class_stats *out);

#endif
