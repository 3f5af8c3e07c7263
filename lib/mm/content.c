/*
 * content.c - the content model (simulator only, no kernel counterpart): the
 * bytes of a page from its 64-bit seed and the mix's content classes, and
 * each swap slot's seed (what the device holds), kept per device as a
 * per-cluster array (sws__cluster_array: arena-backed on extendable devices).
 * Callers: the fault and swap-out paths, zswap's glue, verify mode.
 */
#include <string.h>

#include "mm_internal.h"

static const char *const words[16] = {
	"the ", "swap ", "cache ", "folio ", "slot ", "page ", "of ", "and ",
	"kernel ", "memory ", "to ", "a ", "cluster ", "is ", "in ", "table\n",
};

enum sws_content sws__mm_content_class(const struct sws_mm *mm, uint64_t seed)
{
	uint64_t pick = mm_mix(seed ^ 0x636c617373ull) % mm->content_total;
	for (int c = 0; c < SWS_NR_CONTENT; c++) {
		if (pick < mm->content_weight[c])
			return (enum sws_content)c;
		pick -= mm->content_weight[c];
	}
	return SWS_CONTENT_INDEX;
}

bool sws__mm_content_is_zero(const struct sws_mm *mm, uint64_t seed)
{
	/* Every swap-out asks: a mix without zero pages answers without the hash. */
	if (!mm->content_weight[SWS_CONTENT_ZERO])
		return false;
	return sws__mm_content_class(mm, seed) == SWS_CONTENT_ZERO;
}

static void fill(const struct sws_mm *mm, uint64_t seed, uint8_t *page)
{
	uint64_t *w = (uint64_t *)(void *)page;
	switch (sws__mm_content_class(mm, seed)) {
	case SWS_CONTENT_ZERO:
		memset(page, 0, SWS_PAGE_SIZE);
		break;
	case SWS_CONTENT_SAME:
		memset(page, 0xff, SWS_PAGE_SIZE); /* memhog */
		break;
	case SWS_CONTENT_INDEX: {
		/* usemem: p[idx] = idx, for the words of this page */
		uint64_t base = (seed & 0xffffffffffull) * (SWS_PAGE_SIZE / 8);
		for (unsigned i = 0; i < SWS_PAGE_SIZE / 8; i++)
			w[i] = base + i;
		break;
	}
	case SWS_CONTENT_TEXT: {
		size_t at = 0;
		uint64_t s = seed;
		while (at < SWS_PAGE_SIZE) {
			s = mm_mix(s);
			const char *wd = words[s & 15];
			size_t n = strlen(wd);
			if (n > SWS_PAGE_SIZE - at)
				n = SWS_PAGE_SIZE - at;
			memcpy(page + at, wd, n);
			at += n;
		}
		break;
	}
	default: {
		uint64_t s = seed;
		for (unsigned i = 0; i < SWS_PAGE_SIZE / 8; i++)
			w[i] = s = mm_mix(s);
		break;
	}
	}
}

void sws_mm_page_content(const struct sws_mm *mm, uint64_t seed, uint64_t version, void *page)
{
	fill(mm, version ? mm_mix(seed ^ mm_mix(version)) : seed, page);
}
static _Atomic uint64_t *seed_slot(struct sws_mm *mm, sws_entry_t e)
{
	unsigned type = sws_swp_type(e);
	uint64_t off = sws_swp_offset(e);
	if (type >= SWS_MAX_SWAPFILES || off >= mm->slot_seed_len[type] || !mm->slot_seed[type])
		return NULL;
	return &mm->slot_seed[type][off];
}

void sws__mm_slot_seed_set(struct sws_mm *mm, sws_entry_t e, uint64_t seed)
{
	_Atomic uint64_t *p = seed_slot(mm, e);
	if (p)
		sws_store_relaxed(p, seed);
}

uint64_t sws__mm_slot_seed_get(struct sws_mm *mm, sws_entry_t e)
{
	_Atomic uint64_t *p = seed_slot(mm, e);
	return p ? sws_load_relaxed(p) : 0;
}
