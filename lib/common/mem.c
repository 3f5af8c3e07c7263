/* mem.c - the default allocator and per-class memory accounting. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

#ifdef SWS_HAVE_JEMALLOC
#include <jemalloc/jemalloc.h>

static void *default_alloc(void *ctx, size_t size, size_t align)
{
	(void)ctx;
	return mallocx(size ? size : 1, MALLOCX_ALIGN(align));
}

static void default_free(void *ctx, void *p, size_t size)
{
	(void)ctx;
	/* Not sdallocx(): an aligned allocation may sit in a larger size class
	 * than @size names. */
	(void)size;
	dallocx(p, 0);
}

/* Zeroed: jemalloc skips the memset where its pages are fresh from the OS. */
static void *default_zalloc(size_t size, size_t align)
{
	return mallocx(size ? size : 1, MALLOCX_ALIGN(align) | MALLOCX_ZERO);
}

const char *sws_default_allocator_name(void) { return "jemalloc"; }
#else
static void *default_alloc(void *ctx, size_t size, size_t align)
{
	(void)ctx;
	size_t rounded = (size + align - 1) & ~(align - 1);
	return aligned_alloc(align, rounded ? rounded : align);
}

static void default_free(void *ctx, void *p, size_t size)
{
	(void)ctx;
	(void)size;
	free(p);
}

/* Zeroed: calloc() skips the memset where its pages are fresh from the OS. */
static void *default_zalloc(size_t size, size_t align)
{
	if (align <= _Alignof(max_align_t))
		return calloc(1, size ? size : 1);
	void *p = default_alloc(NULL, size, align);
	if (p)
		memset(p, 0, size);
	return p;
}

const char *sws_default_allocator_name(void) { return "libc"; }
#endif

#define SWS__MEM_IS_META(name, kind, desc) (kind) != SWS_MEM_KIND_OTHER,
static const bool mem_is_metadata[SWS_NR_MEM_CLASSES] = {SWS_MEM_CLASS_LIST(SWS__MEM_IS_META)};
#undef SWS__MEM_IS_META

/* @delta bytes of class @c in or out of the metadata's sum. */
static void metadata_add(struct sws_mem *m, enum sws_mem_class c, int64_t delta)
{
	if (mem_is_metadata[c])
		atomic_fetch_add_explicit(&m->metadata, delta, memory_order_relaxed);
}

void sws__mem_init(struct sws_mem *m, const struct sws_allocator *a)
{
	if (a && a->alloc && a->free) {
		m->a = *a;
	} else {
		m->a.alloc = default_alloc;
		m->a.free = default_free;
		m->a.ctx = NULL;
	}
	for (int i = 0; i < SWS_NR_MEM_CLASSES; i++) {
		atomic_init(&m->bytes[i], 0);
		atomic_init(&m->peak[i], 0);
	}
	atomic_init(&m->metadata, 0);
}

void *sws__mem_alloc(struct sws_mem *m, enum sws_mem_class c, size_t size, size_t align)
{
	if (!align)
		align = 16;
	void *p = m->a.alloc(m->a.ctx, size, align);
	if (p)
		sws__mem_charge(m, c, (int64_t)size);
	return p;
}

void sws__mem_charge(struct sws_mem *m, enum sws_mem_class c, int64_t delta)
{
	int64_t now = atomic_fetch_add_explicit(&m->bytes[c], delta, memory_order_relaxed) + delta;
	metadata_add(m, c, delta);
	int64_t peak = sws_load_relaxed(&m->peak[c]);
	while (now > peak &&
	       !atomic_compare_exchange_weak_explicit(&m->peak[c], &peak, now, memory_order_relaxed,
						      memory_order_relaxed))
		;
}

void *sws__mem_zalloc(struct sws_mem *m, enum sws_mem_class c, size_t size, size_t align)
{
	if (m->a.alloc != default_alloc) {
		void *p = sws__mem_alloc(m, c, size, align);
		if (p)
			memset(p, 0, size);
		return p;
	}
	/* The default allocator zeroes: a large array (sized by a device, say)
	 * whose pages come fresh from the OS is not touched until used. */
	void *p = default_zalloc(size, align ? align : 16);
	if (p)
		sws__mem_charge(m, c, (int64_t)size);
	return p;
}

void sws__mem_free_retired(struct sws_mem *m, void *p, size_t size)
{
	if (p)
		m->a.free(m->a.ctx, p, size);
}

void sws__mem_free(struct sws_mem *m, enum sws_mem_class c, void *p, size_t size)
{
	if (!p)
		return;
	atomic_fetch_sub_explicit(&m->bytes[c], (int64_t)size, memory_order_relaxed);
	metadata_add(m, c, -(int64_t)size);
	m->a.free(m->a.ctx, p, size);
}
