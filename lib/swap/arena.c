/*
 * arena.c - sparse arenas (see arena.h): mmap(PROT_NONE, MAP_NORESERVE)
 * reserves, mprotect() maps chunks read-write (anonymous pages are zero and
 * cost nothing until touched), madvise(MADV_DONTNEED) + mprotect(PROT_NONE)
 * give them back, mincore() says what is resident.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arena.h"
#include <swapsim/error.h>

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

int sws__arena_reserve(struct sws_arena *a, size_t bytes)
{
	if (!a)
		return SWS_EINVAL;
	memset(a, 0, sizeof(*a));
	long page = sysconf(_SC_PAGESIZE);
	a->page = page > 0 ? (size_t)page : 4096;
	if (!bytes || bytes > SIZE_MAX - a->page)
		return SWS_EINVAL;
	size_t len = round_up(bytes, a->page);
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return SWS_ENOMEM;
	a->base = p;
	a->reserved = len;
	return 0;
}

int sws__arena_grow(struct sws_arena *a, size_t bytes)
{
	if (!a || !a->base || bytes > a->reserved)
		return SWS_EINVAL;
	size_t want = round_up(bytes, a->page), have = atomic_load_explicit(&a->mapped, memory_order_relaxed);
	if (want <= have)
		return 0; /* already mapped */
	if (a->grow_fail_nth && --a->grow_fail_nth == 0)
		return SWS_ENOMEM;
	if (mprotect(a->base + have, want - have, PROT_READ | PROT_WRITE))
		return SWS_ENOMEM;
	atomic_store_explicit(&a->mapped, want, memory_order_release);
	return 0;
}

int sws__arena_stack(struct sws_arena *a, size_t bytes, uint8_t **lo)
{
	int rc = sws__arena_reserve(a, bytes + 4096);
	if (rc)
		return rc;
	if (mprotect(a->base + a->page, a->reserved - a->page, PROT_READ | PROT_WRITE)) {
		sws__arena_release(a);
		return SWS_ENOMEM;
	}
	*lo = a->base + a->page;
	return 0;
}

int sws__arena_shrink(struct sws_arena *a, size_t bytes)
{
	if (!a || !a->base)
		return SWS_EINVAL;
	size_t keep = round_up(bytes, a->page), have = atomic_load_explicit(&a->mapped, memory_order_relaxed);
	if (keep >= have)
		return 0; /* nothing beyond @bytes */
	/* Publish the smaller size first: nobody may start using the tail now. */
	atomic_store_explicit(&a->mapped, keep, memory_order_release);
	/* DONTNEED frees the pages (a later grow reads zero); PROT_NONE makes a stray
	 * access fault instead of silently re-populating the range. */
	if (madvise(a->base + keep, have - keep, MADV_DONTNEED) ||
	    mprotect(a->base + keep, have - keep, PROT_NONE))
		return SWS_EIO;
	return 0;
}

size_t sws__arena_resident(const struct sws_arena *a)
{
	if (!a || !a->base)
		return 0;
	size_t mapped = sws__arena_mapped(a), pages = 0;
	unsigned char vec[512];
	for (size_t off = 0; off < mapped;) {
		size_t n = (mapped - off) / a->page;
		if (n > sizeof(vec))
			n = sizeof(vec);
		if (mincore(a->base + off, n * a->page, vec))
			return 0;
		for (size_t i = 0; i < n; i++)
			pages += vec[i] & 1;
		off += n * a->page;
	}
	return pages * a->page;
}

void sws__arena_release(struct sws_arena *a)
{
	if (!a || !a->base)
		return;
	munmap(a->base, a->reserved);
	memset(a, 0, sizeof(*a));
}
