/*
 * mem.h - allocation through the injected allocator, charged to a structure
 * class (enum sws_mem_class). Every byte libswapsim allocates goes through
 * here, so memory figures are the library's own exact accounting.
 */
#ifndef SWS_MEM_H
#define SWS_MEM_H

#include <swapsim/env.h>
#include <swapsim/stats.h>
#include "compiler.h"

struct sws_mem {
	struct sws_allocator a;
	_Atomic int64_t bytes[SWS_NR_MEM_CLASSES];
	_Atomic int64_t peak[SWS_NR_MEM_CLASSES];
	/* The swap metadata's bytes (the classes of kind static or dynamic), kept
	 * with them: what the kernel's RAM holds for swap is one load. */
	_Atomic int64_t metadata;
};

/* Fill in the default allocator where @a is empty. */
void sws__mem_init(struct sws_mem *m, const struct sws_allocator *a);

/* @return zeroed memory of @size bytes aligned to @align (0: 16), or NULL. */
void *sws__mem_zalloc(struct sws_mem *m, enum sws_mem_class c, size_t size, size_t align);
/* Like sws__mem_zalloc without the zeroing. */
void *sws__mem_alloc(struct sws_mem *m, enum sws_mem_class c, size_t size, size_t align);
/* Charge @delta bytes the library maps itself (sparse arenas) to class @c. */
void sws__mem_charge(struct sws_mem *m, enum sws_mem_class c, int64_t delta);
/* @size bytes of class @c were unlinked and wait for an RCU grace period:
 * they leave the accounting now, when the model frees them, not when the
 * host's RCU thread runs the callback (sws__mem_free_retired()), so every
 * class's bytes and peaks are the same on every run. */
static inline void sws__mem_retire(struct sws_mem *m, enum sws_mem_class c, size_t size)
{
	sws__mem_charge(m, c, -(int64_t)size);
}
/* Free @p (@size bytes), whose bytes sws__mem_retire() took out. NULL: no-op. */
void sws__mem_free_retired(struct sws_mem *m, void *p, size_t size);
/* Free memory from sws__mem_(z)alloc with the same class and size. NULL: no-op. */
void sws__mem_free(struct sws_mem *m, enum sws_mem_class c, void *p, size_t size);

#endif
