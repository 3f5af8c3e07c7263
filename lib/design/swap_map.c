/*
 * swap_map.c - swap_map bytes and count continuation (see swap_map.h).
 */
#include <stdio.h>

#include "swap_map.h"

#define HEAD_BASE (SWAP_MAP_MAX + 1)
#define DIGIT_BITS 7

static_assert(sizeof(_Atomic uint8_t) == 1, "swap_map is one byte per slot");
static_assert(SWS_CLUSTER_SLOTS <= MAP_PAGE_SLOTS && MAP_PAGE_SLOTS % SWS_CLUSTER_SLOTS == 0,
	      "a cluster lies within one swap_map page");

int sws__swap_map_init(struct swap_map *m, struct sws_mem *mem, uint64_t max)
{
	m->mem = mem;
	m->max = max;
	m->nr_map_pages = (uint32_t)SWS_DIV_ROUND_UP(max, MAP_PAGE_SLOTS);
	m->cont = NULL;
	sws_spin_init(&m->cont_lock);
	m->map = sws__mem_zalloc(mem, SWS_MEM_swap_map, max, 0);
	if (!m->map)
		return SWS_ENOMEM;
	/* the header; swapon: nothing is published, no lock */
	atomic_store_explicit(&m->map[0], SWAP_MAP_BAD, memory_order_relaxed);
	return 0;
}

void sws__swap_map_fini(struct swap_map *m)
{
	if (m->cont) {
		for (uint32_t pg = 0; pg < m->nr_map_pages; pg++) {
			struct cont_page *p = m->cont[pg];
			while (p) {
				struct cont_page *next = p->next;
				sws__mem_free(m->mem, SWS_MEM_swap_cont, p, sizeof(*p));
				p = next;
			}
		}
		sws__mem_free(m->mem, SWS_MEM_swap_cont, m->cont, sizeof(*m->cont) * m->nr_map_pages);
	}
	sws__mem_free(m->mem, SWS_MEM_swap_map, (void *)m->map, m->max);
	m->map = NULL;
	m->cont = NULL;
}

/* ci->lock held: does any of @nr slots from @off have continuation digits? */
static bool __swap_map_continued(const struct sws_cluster *ci, const struct swap_map *m,
				 uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = 0; i < nr; i++)
		if (swap_map_get(m, off + i) & COUNT_CONTINUED)
			return true;
	return false;
}

/* cont_lock held: D of a continued slot, read digit by digit. */
static uint64_t __cont_read(const struct swap_map *m, uint64_t off)
{
	SWS_ASSERT_HELD(&m->cont_lock);
	uint64_t d = 0;
	unsigned k = 0;
	struct cont_page *p = m->cont ? m->cont[off / MAP_PAGE_SLOTS] : NULL;
	for (; p; p = p->next, k++) {
		uint8_t b = p->digit[off % MAP_PAGE_SLOTS];
		d |= (uint64_t)(b & SWAP_CONT_MAX) << (DIGIT_BITS * k);
		if (!(b & COUNT_CONTINUED))
			break;
	}
	return d;
}

uint32_t sws___swap_map_count(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint8_t b = swap_map_get(m, off);
	uint64_t n = b & SWAP_COUNT_MASK;
	if (b & COUNT_CONTINUED)
		n += HEAD_BASE * __cont_read(m, off);
	return (uint32_t)n;
}

/* The continuation pages a count of @n needs. */
static unsigned swap_map_levels(uint32_t n)
{
	unsigned levels = 0;
	for (uint32_t d = n / HEAD_BASE; d; d >>= DIGIT_BITS)
		levels++;
	return levels;
}

/* ci->lock held, and cont_lock when @levels > 0: add_swap_count_continuation():
 * the swap_map page of @off gets @levels digit pages. Pages made before a
 * failure stay (empty). */
static int __swap_map_ensure(struct sws_cpu *cpu, const struct sws_cluster *ci, struct swap_map *m,
			     uint64_t off, unsigned levels)
{
	SWS_ASSERT_HELD(&ci->lock);
	if (!levels)
		return 0;
	SWS_ASSERT_HELD(&m->cont_lock);
	if (!m->cont) {
		m->cont = sws__mem_zalloc(m->mem, SWS_MEM_swap_cont, sizeof(*m->cont) * m->nr_map_pages, 0);
		if (!m->cont)
			return SWS_ENOMEM;
	}
	struct cont_page **pp = &m->cont[off / MAP_PAGE_SLOTS];
	for (unsigned k = 0; k < levels; k++, pp = &(*pp)->next) {
		if (*pp)
			continue;
		*pp = sws__mem_zalloc(m->mem, SWS_MEM_swap_cont, sizeof(struct cont_page), 64);
		if (!*pp)
			return SWS_ENOMEM;
		sws__count(cpu, SWS_CTR_swap_cont_alloc, 1);
		sws__work(cpu, SWS_WORK_meta_alloc, 1);
	}
	return 0;
}

/* Every existing digit page is rewritten, so digits above D read as 0. */
void sws___swap_map_set_count(const struct sws_cluster *ci, struct swap_map *m, uint64_t off,
			      uint32_t n)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint8_t b = swap_map_get(m, off);
	uint64_t d = n / HEAD_BASE;
	if (d || (b & COUNT_CONTINUED)) {
		SWS_ASSERT_HELD(&m->cont_lock);
		struct cont_page *p = m->cont[off / MAP_PAGE_SLOTS];
		for (uint64_t rest = d; p; p = p->next, rest >>= DIGIT_BITS) {
			uint8_t digit = rest & SWAP_CONT_MAX;
			p->digit[off % MAP_PAGE_SLOTS] =
				(uint8_t)(digit | ((rest >> DIGIT_BITS) ? COUNT_CONTINUED : 0));
		}
	}
	__swap_map_set(
	    ci, m, off,
	    (uint8_t)((b & SWAP_HAS_CACHE) | (n % HEAD_BASE) | (d ? COUNT_CONTINUED : 0)));
}

int sws___swap_map_check_slot(const struct sws_cluster *ci, struct swap_map *m, uint64_t off,
			      char *msg, size_t len)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint8_t b = swap_map_get(m, off);
	unsigned long long o = (unsigned long long)off;
	if (b == SWAP_MAP_BAD) {
		if (off)
			SWS__CORRUPT(msg, len, "slot %llu: SWAP_MAP_BAD outside the header", o);
		return 0;
	}
	if ((b & SWAP_COUNT_MASK) > SWAP_MAP_MAX)
		SWS__CORRUPT(msg, len, "slot %llu: swap_map byte 0x%02x", o, b);
	uint64_t d = 0;
	if (m->cont) {
		sws_spin_lock(&m->cont_lock);
		bool stale = false;
		d = (b & COUNT_CONTINUED) ? __cont_read(m, off) : 0;
		for (struct cont_page *p = m->cont[off / MAP_PAGE_SLOTS]; p && !(b & COUNT_CONTINUED); p = p->next)
			stale |= p->digit[off % MAP_PAGE_SLOTS] != 0;
		sws_spin_unlock(&m->cont_lock);
		if (stale)
			SWS__CORRUPT(msg, len, "slot %llu: continuation digits without COUNT_CONTINUED", o);
	}
	if ((b & COUNT_CONTINUED) && !d)
		SWS__CORRUPT(msg, len, "slot %llu: COUNT_CONTINUED with a zero continuation", o);
	return 0;
}

int sws___swap_map_dup(struct sws_cpu *cpu, const struct sws_cluster *ci, struct swap_map *m,
		       uint64_t off, unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	bool cont = false;
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = swap_map_get(m, off + i);
		/* A head at SWAP_MAP_MAX carries into the continuation digits. */
		cont |= (b & COUNT_CONTINUED) || (b & SWAP_COUNT_MASK) == SWAP_MAP_MAX;
	}
	if (cont)
		swap_map_cont_lock(cpu, m);
	unsigned levels = 0;
	int rc = 0;
	for (unsigned i = 0; i < nr && !rc; i++) {
		uint32_t c = sws___swap_map_count(ci, m, off + i);
		if (c + 1 > SWS_SWAP_COUNT_MAX)
			rc = SWS_EOVERFLOW;
		unsigned l = swap_map_levels(c + 1);
		levels = l > levels ? l : levels;
	}
	if (!rc)
		rc = __swap_map_ensure(cpu, ci, m, off, levels);
	for (unsigned i = 0; i < nr && !rc; i++)
		sws___swap_map_set_count(ci, m, off + i, sws___swap_map_count(ci, m, off + i) + 1);
	if (cont)
		swap_map_cont_unlock(m);
	return rc;
}

int sws___swap_map_put_begin(struct sws_cpu *cpu, const struct sws_cluster *ci, struct swap_map *m,
			     uint64_t off, unsigned nr, bool *cont)
{
	SWS_ASSERT_HELD(&ci->lock);
	*cont = __swap_map_continued(ci, m, off, nr);
	if (*cont)
		swap_map_cont_lock(cpu, m);
	for (unsigned i = 0; i < nr; i++) {
		if (!sws___swap_map_count(ci, m, off + i)) {
			sws__swap_map_put_end(m, *cont);
			*cont = false;
			return SWS_ERANGE;
		}
	}
	return 0;
}

bool sws___swap_map_is_last(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off,
			    unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	uint8_t first = swap_map_get(m, off);
	if (nr < 2 || (first & ~SWAP_HAS_CACHE) != 1)
		return false;
	for (unsigned i = 1; i < nr; i++)
		if (swap_map_get(m, off + i) != first)
			return false;
	return true;
}

bool sws___swap_map_only_cache(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off,
			       unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = 0; i < nr; i++)
		if (swap_map_get(m, off + i) != SWAP_HAS_CACHE)
			return false;
	return true;
}

bool sws___swap_map_single(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off,
			   unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = swap_map_get(m, off + i);
		if (!swap_map_unused(b) && !(b & SWAP_HAS_CACHE) && b != 1)
			return false;
	}
	return true;
}

bool sws___swap_map_all_cached(const struct sws_cluster *ci, const struct swap_map *m, uint64_t off,
			       unsigned nr)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = 0; i < nr; i++)
		if (!(swap_map_get(m, off + i) & SWAP_HAS_CACHE))
			return false;
	return true;
}

/* ---- the whole dup and put ------------------------------------------------------------ */

/* ci->lock held: the first FREE slot of @nr from @off: @rc, else 0. */
static int __check_used(const struct sws_cluster *ci, struct sws_device *dev, const struct swap_map_slots *s,
			uint64_t off, unsigned nr, int rc)
{
	SWS_ASSERT_HELD(&ci->lock);
	for (unsigned i = 0; i < nr; i++)
		if (s->unused(dev, off + i))
			return rc;
	return 0;
}

int sws__swap_duplicate(struct sws_cpu *cpu, struct sws_device *dev, struct swap_map *m,
			const struct swap_map_slots *s, uint64_t off, unsigned nr)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	int rc = __check_used(ci, dev, s, off, nr, SWS_ENOENT);
	if (!rc)
		rc = sws___swap_map_dup(cpu, ci, m, off, nr);
	sws__cluster_unlock(ci);
	return rc;
}

/* ci->lock held: swap_is_last_map()'s batch: @nr slots of count 1 and the
 * same byte go together. */
static void __put_batch(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
			struct swap_map *m, const struct swap_map_slots *s, uint64_t off, unsigned nr,
			uint64_t *only_cache)
{
	SWS_ASSERT_HELD(&ci->lock);
	bool cached = swap_map_get(m, off) & SWAP_HAS_CACHE;
	for (unsigned i = 0; i < nr; i++)
		__swap_map_set(ci, m, off + i, cached ? SWAP_HAS_CACHE : 0);
	if (!cached)
		s->free(cpu, dev, ci, off, nr);
	else if (only_cache)
		sws_bitmap_set_range(only_cache, 0, nr);
}

/* ci->lock held (and cont_lock where put_begin took it): one reference less
 * per slot; slots left with nothing are freed one at a time where
 * SWAP_HAS_CACHE marks the cache, else run by run. */
static void __put_each(struct sws_cpu *cpu, struct sws_device *dev, struct sws_cluster *ci,
		       struct swap_map *m, const struct swap_map_slots *s, uint64_t off, unsigned nr,
		       uint64_t *only_cache)
{
	SWS_ASSERT_HELD(&ci->lock);
	unsigned run = 0;
	for (unsigned i = 0; i < nr; i++) {
		uint8_t b = sws___swap_map_dec(ci, m, off + i);
		bool folio = s->folio && s->folio(dev, off + i), freed = !b && !folio;
		if (only_cache && (b == SWAP_HAS_CACHE || (!b && folio))) /* HAS_CACHE, or phase II's folio */
			sws_bit_set(only_cache, i);
		run += freed;
		if (run && (!freed || !s->folio)) {
			s->free(cpu, dev, ci, off + i + freed - run, run);
			run = 0;
		}
	}
	if (run)
		s->free(cpu, dev, ci, off + nr - run, run);
}

int sws__swap_entries_put_map(struct sws_cpu *cpu, struct sws_device *dev, struct swap_map *m,
			      const struct swap_map_slots *s, uint64_t off, unsigned nr, uint64_t *only_cache)
{
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	bool cont = false;
	sws__cluster_lock(cpu, ci);
	int rc = __check_used(ci, dev, s, off, nr, SWS_EFREE);
	if (!rc)
		rc = sws___swap_map_put_begin(cpu, ci, m, off, nr, &cont);
	if (!rc && !s->folio && sws___swap_map_is_last(ci, m, off, nr)) {
		__put_batch(cpu, dev, ci, m, s, off, nr, only_cache);
	} else if (!rc) {
		if (!s->folio && nr > 1)
			sws__count(cpu, SWS_CTR_swap_free_fallback, 1);
		__put_each(cpu, dev, ci, m, s, off, nr, only_cache);
	}
	sws__swap_map_put_end(m, cont);
	sws__cluster_unlock(ci);
	return rc;
}
