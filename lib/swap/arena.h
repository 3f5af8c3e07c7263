/*
 * arena.h - a sparse arena: a reserved range of address space that costs no
 * memory until it is mapped, mapped read-write from its start in whole pages
 * as it grows, and given back to the OS from its end as it shrinks, so the
 * process's resident memory really drops. The base never moves: a plain
 * array placed in it is indexed with no per-access check. It is the home
 * planned for an xswap device's per-cluster metadata (docs/xswap.md), as
 * the kernel's VM_SPARSE area is for xswap's cluster_info.
 *
 * Growth and shrink are serialised by the owner; `mapped` is published with
 * release and may be read (acquire) by any thread. Shrinking does not wait for
 * readers: the owner makes sure nobody can still reach the tail (RCU).
 */
#ifndef SWS_SWAP_ARENA_H
#define SWS_SWAP_ARENA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct sws_arena {
	uint8_t *base;
	size_t reserved;        /* bytes of address space, whole pages */
	size_t page;            /* the OS page size */
	_Atomic size_t mapped;  /* bytes mapped read-write from base, whole pages */
	uint64_t grow_fail_nth; /* fault injection: the Nth grow from now fails (0: none) */
};

/* Reserve @bytes (rounded up to pages) of inaccessible address space. */
int sws__arena_reserve(struct sws_arena *a, size_t bytes);
/* Map [mapped, @bytes rounded up) read-write; new pages read as zero.
 * SWS_EINVAL beyond the reservation, SWS_ENOMEM when mapping fails (the arena
 * is unchanged). Already mapped that far: nothing to do. */
int sws__arena_grow(struct sws_arena *a, size_t bytes);
/* Give back everything from @bytes (rounded up to pages) to the mapped end:
 * its memory is freed and the range is inaccessible again. */
int sws__arena_shrink(struct sws_arena *a, size_t bytes);
/* Bytes of the arena resident in RAM, as the OS reports them (mincore). */
size_t sws__arena_resident(const struct sws_arena *a);
static inline size_t sws__arena_mapped(const struct sws_arena *a)
{
	return atomic_load_explicit(&a->mapped, memory_order_acquire);
}
/* A stack: at least @bytes mapped read-write from *@lo up to the end of the
 * reservation, above one inaccessible guard page (an overflow faults). Not
 * grown or shrunk; sws__arena_release() gives it back. @return 0, SWS_EINVAL,
 * SWS_ENOMEM. */
int sws__arena_stack(struct sws_arena *a, size_t bytes, uint8_t **lo);
/* Unmap the whole reservation. */
void sws__arena_release(struct sws_arena *a);

#endif
