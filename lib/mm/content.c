/*
 * content.c - the content model: every page's 4 KiB follow from a 64-bit seed
 * (a page's identity and write version folded together), so data written to a
 * device is real bytes that can be checked byte for byte when read back, with
 * no copy of it kept anywhere. The class of a page (zero, same-filled, usemem
 * index words, text-like, random) is drawn from the seed by the configured mix.
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
