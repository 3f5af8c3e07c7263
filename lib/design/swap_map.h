/*
 * swap_map.h - the swap_map of kernels up to 7.0 (mm/swapfile.c): one byte
 * per slot holding the swap count, SWAP_HAS_CACHE (until phase II) and
 * COUNT_CONTINUED, with continuation pages for counts above SWAP_MAP_MAX.
 * Used by the designs that still have it: xarray (6.17), st-p1, st-p2.
 *
 *   7        6          5 ............ 0
 *   CONTINUED HAS_CACHE  count 0..62 (0x3F: SWAP_MAP_BAD)
 *
 * Count continuation (SWAP_MAP_MAX 62, SWAP_CONT_MAX 127). A count n is kept
 * as n = head + 63 * D, head = n % 63 in the byte's low 6 bits, and D = n / 63
 * written in base 128 over continuation pages: digit k lives in the k-th page
 * chained from the slot's swap_map page, one byte per slot, its bit 7 set
 * when a higher digit is non-zero. The head's COUNT_CONTINUED bit says D != 0.
 * Pages are allocated on demand under the device's cont_lock and, like the
 * kernel's, kept until swapoff.
 *
 * Locking: bytes change under ci->lock (relaxed atomics let lock-free
 * readers peek); digit pages under cont_lock, which nests inside ci->lock.
 * The functions that need ci->lock take the cluster @ci holding @off (all
 * the slots of one call lie in it) and are named __name; each asserts the
 * locks it needs.
 */
#ifndef SWS_DESIGN_SWAP_MAP_H
#define SWS_DESIGN_SWAP_MAP_H

#include "../swap/swap_internal.h"

#define SWAP_MAP_MAX 0x3Eu /* highest count the swap_map byte holds */
#define SWAP_MAP_BAD 0x3Fu
#define SWAP_HAS_CACHE 0x40u
#define COUNT_CONTINUED 0x80u
#define SWAP_COUNT_MASK 0x3Fu
#define SWAP_CONT_MAX 0x7Fu /* highest digit of a continuation byte */
#define MAP_PAGE_SLOTS SWS_PAGE_SIZE /* swap_map bytes per page */

/* A continuation page: one digit per slot of one swap_map page. */
struct cont_page {
	uint8_t digit[MAP_PAGE_SLOTS];
	struct cont_page *next; /* the next, higher digit */
};

struct swap_map {
	_Atomic uint8_t *map;       /* [max] */
	uint64_t max;
	uint32_t nr_map_pages;
	sws_spinlock_t cont_lock;   /* si->cont_lock */
	struct cont_page **cont;    /* [nr_map_pages] first digit pages; NULL until needed */
	struct sws_mem *mem;
};

/* ---- this header: one byte, and cont_lock ------------------------------------------ */

static inline uint8_t swap_map_get(const struct swap_map *m, uint64_t off)
{
	return atomic_load_explicit(&m->map[off], memory_order_relaxed);
}

/* ci->lock held: set the byte of slot @off of cluster @ci. */
static inline void __swap_map_set(const struct sws_cluster *ci, struct swap_map *m, uint64_t off,
				  uint8_t v)
{
	SWS_ASSERT_HELD(&ci->lock);
	atomic_store_explicit(&m->map[off], v, memory_order_relaxed);
}

/* A byte that holds nothing: free, or the bad header slot. */
static inline bool swap_map_unused(uint8_t b) { return !b || b == SWAP_MAP_BAD; }

/* cont_lock, counted. */
static inline void swap_map_cont_lock(struct sws_cpu *cpu, struct swap_map *m)
{
	sws__lock_counted(cpu, &m->cont_lock, SWS_WORK_lock_cont, SWS_CTR_lock_device_contended);
}

static inline void swap_map_cont_unlock(struct swap_map *m) { sws_spin_unlock(&m->cont_lock); }

/* ---- swap_map.c --------------------------------------------------------------------- */

/* swapon: vzalloc the map, slot 0 marked bad. @return 0 or SWS_ENOMEM. */
int sws__swap_map_init(struct swap_map *m, struct sws_mem *mem, uint64_t max);
void sws__swap_map_fini(struct swap_map *m);

/* ci->lock held, and cont_lock if the slot is continued: the count of an
 * allocated slot. */
uint32_t sws___swap_map_count(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off);
/* ci->lock held, and cont_lock when the slot is continued or @n >
 * SWAP_MAP_MAX (pages present): set the count of an allocated slot to @n,
 * keeping HAS_CACHE. */
void sws___swap_map_set_count(const struct sws_cluster *ci, struct swap_map *m, uint64_t off,
			      uint32_t n);
/* ci->lock held: swap_duplicate() of @nr allocated slots (the caller checked
 * they are): one reference more each, continuation pages as needed
 * (cont_lock taken when a digit is involved). @return 0, SWS_EOVERFLOW,
 * SWS_ENOMEM; nothing changed on failure. */
int sws___swap_map_dup(struct sws_cpu *cpu, const struct sws_cluster *ci, struct swap_map *m,
		       uint64_t off, unsigned nr);
/* ci->lock held: the start of a put of @nr allocated slots: SWS_ERANGE when
 * one has no reference (cache-only). Holds cont_lock (*cont) when a slot is
 * continued: release it with sws__swap_map_put_end(). */
int sws___swap_map_put_begin(struct sws_cpu *cpu, const struct sws_cluster *ci, struct swap_map *m,
			     uint64_t off, unsigned nr, bool *cont);
static inline void sws__swap_map_put_end(struct swap_map *m, bool cont)
{
	if (cont)
		swap_map_cont_unlock(m);
}
/* ci->lock held (and cont_lock where put_begin took it): drop one reference
 * of slot @off (between put_begin and put_end). @return the new byte. */
static inline uint8_t sws___swap_map_dec(const struct sws_cluster *ci, struct swap_map *m,
					 uint64_t off)
{
	SWS_ASSERT_HELD(&ci->lock);
	/* canonical re-encoding */
	sws___swap_map_set_count(ci, m, off, sws___swap_map_count(ci, m, off) - 1);
	return swap_map_get(m, off);
}
/* ci->lock held: swap_is_last_map(): may a put of @nr slots go as one batch?
 * All bytes equal to the first, whose count is exactly 1. */
bool sws___swap_map_is_last(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off,
			    unsigned nr);
/* ci->lock held: swap_only_has_cache(): every byte is SWAP_HAS_CACHE alone. */
bool sws___swap_map_only_cache(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off,
			       unsigned nr);
/* ci->lock held: does every slot that holds a count but no cache have count 1
 * (the bypass's __swap_count() == 1)? */
bool sws___swap_map_single(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off,
			   unsigned nr);
/* ci->lock held: does every slot have SWAP_HAS_CACHE? */
bool sws___swap_map_all_cached(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off,
			       unsigned nr);
/* ci->lock held (cont_lock is taken inside): the digits of one slot agree
 * with its byte. @return 0 or SWS_ECORRUPT. */
int sws___swap_map_check_slot(const struct sws_cluster *ci, struct swap_map *m, uint64_t off,
			      char *msg, size_t len);

/*
 * The whole dup and put (design.h) of a design whose counts are in a
 * swap_map, written once: what the design adds is its test for a FREE
 * slot, its free, and (phase II) where a cached folio is.
 */
struct swap_map_slots {
	/* ci->lock held: does slot @off hold nothing (FREE, design.h)? */
	bool (*unused)(struct sws_device *dev, uint64_t off);
	/* ci->lock held: swap_entries_free(): @nr slots from @off were left
	 * with no count and no folio: clear and give them back. */
	void (*free)(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci, uint64_t off,
		     unsigned nr);
	/* NULL where SWAP_HAS_CACHE marks a cached slot (6.17, 6.18): a put of
	 * a uniform run of count 1 goes as one batch, anything else one entry
	 * at a time (swap_entries_put_map()). Else (7.0, no SWAP_HAS_CACHE),
	 * ci->lock held: is a folio cached in slot @off? A put frees the slots
	 * it leaves with nothing run by run. */
	bool (*folio)(struct sws_device *dev, uint64_t off);
};

/* swap_duplicate() of @nr slots from @off of @dev, whose swap_map is @m:
 * takes ci->lock. @return 0, SWS_ENOENT, SWS_EOVERFLOW or SWS_ENOMEM. */
int sws__swap_duplicate(struct sws_cpu *cpu, struct sws_device *dev, struct swap_map *m,
			const struct swap_map_slots *s, uint64_t off, unsigned nr);
/* swap_entries_put_map(): drop one reference of each of @nr slots from @off,
 * freeing those left with nothing; @only_cache as design.h's put. Takes
 * ci->lock. @return 0, SWS_EFREE or SWS_ERANGE. */
int sws__swap_entries_put_map(struct sws_cpu *cpu, struct sws_device *dev, struct swap_map *m,
			      const struct swap_map_slots *s, uint64_t off, unsigned nr, uint64_t *only_cache);

#endif
