/*
 * xarray.h - a radix tree shaped like the kernel's XArray (lib/xarray.c,
 * include/linux/xarray.h), written for libswapsim: the swap cache of the
 * XArray baseline backend (kernel <= 6.17) keeps one such tree per 64 MiB
 * address space. See docs/design-xarray.md.
 *
 * Entries are tagged words, like the kernel's:
 *
 *   0                      empty
 *   pfn << 3     (..000)   a folio (the kernel stores an aligned pointer)
 *   v << 1 | 1   (....1)   a value: a workingset shadow (xa_mk_value)
 *   node | 2     (...10)   internal: a pointer to a child node
 *
 * Shape: 64 slots per node (XA_CHUNK_SHIFT 6). A node of shift s maps index
 * bits [s, s + 6); leaves have shift 0. The head is empty, a direct entry
 * (only index 0 is present: no node at all), or the root node. The tree grows
 * a level when an index beyond the root's span is created and shrinks back
 * when the root uses only slot 0 (xas_shrink). Nodes only exist while they
 * hold something: a node whose count drops to 0 leaves its parent and is
 * freed after an RCU grace period. Only leaves hold entries (no multi-index
 * entries: the swap cache stores a large folio in each of its slots).
 *
 * Node layout, 576 bytes (struct xa_node on x86-64, 7 per 4 KiB slab page):
 *
 *   0   shift | offset | count | nr_values | 4 bytes pad
 *   8   parent
 *   16  array            the owning tree (the RCU callback finds the allocator there)
 *   24  private_list / rcu_head   (16-byte union)
 *   40  slots[64]        8 bytes each, atomic
 *   552 marks[3][1]      unused by the swap cache, kept for the size
 *
 * Locking: writers (create_range, store, destroy) hold the tree's lock: the
 * owner's spinlock (the address space's xa_lock). sws__xa_load() needs only
 * the RCU read lock: acquire loads walk from the head down, and nodes are
 * filled before they are published and freed only after a grace period.
 * A reader that raced with a shrink or a node removal may walk a detached
 * node: detached nodes are never written again, so it reads a value the slot
 * held at some moment during its walk.
 */
#ifndef SWS_XARRAY_H
#define SWS_XARRAY_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include <swapsim/error.h>

#include "list.h"
#include "mem.h"
#include "rcu.h"

#define SWS_XA_CHUNK_SHIFT 6
#define SWS_XA_CHUNK_SIZE (1u << SWS_XA_CHUNK_SHIFT)
#define SWS_XA_CHUNK_MASK (SWS_XA_CHUNK_SIZE - 1)
#define SWS_XA_MAX_MARKS 3
#define SWS_XA_NODE_BYTES 576

struct sws_xa;

struct sws_xa_node {
	uint8_t shift;     /* index bits below this node's slots; 0 for a leaf */
	uint8_t offset;    /* slot in the parent */
	uint8_t count;     /* non-empty slots (children or entries) */
	uint8_t nr_values; /* value (shadow) entries among them */
	uint8_t pad[4];
	struct sws_xa_node *parent; /* NULL for the root; writers only */
	struct sws_xa *array;       /* owning tree */
	union {
		struct sws_list private_list; /* free for the owner (the kernel: shadow LRU) */
		sws_rcu_head rcu;             /* while waiting to be freed */
	};
	_Atomic uintptr_t slots[SWS_XA_CHUNK_SIZE];
	uint64_t marks[SWS_XA_MAX_MARKS];
};

static_assert(sizeof(uintptr_t) == 8, "64-bit entries");
static_assert(sizeof(sws_rcu_head) == 16, "the list/rcu union is 16 bytes, as in the kernel");
static_assert(sizeof(struct sws_xa_node) == SWS_XA_NODE_BYTES, "struct xa_node is 576 bytes");

struct sws_xa {
	_Atomic uintptr_t head;     /* empty, the entry for index 0, or root node | 2 */
	struct sws_mem *mem;        /* nodes are charged to mem_class */
	enum sws_mem_class mem_class; /* SWS_MEM_xa_node unless the owner says otherwise */
	_Atomic uint64_t *nr_freed; /* bumped by the RCU callback per node freed; may be NULL */
	uint64_t nr_alloc;          /* nodes allocated so far: callers diff it to count events */
	uint64_t nr_retired;        /* nodes unlinked and queued for RCU so far (likewise) */
	uint32_t nr_nodes;          /* nodes in the tree (not those waiting for RCU) */
	uint32_t nr_shadow_nodes;   /* nodes whose entries are all values (count == nr_values) */
};

/* ---- entries ------------------------------------------------------------------ */

static inline uintptr_t xa_mk_value(uint64_t v) { return (uintptr_t)(v << 1) | 1; }
static inline bool xa_is_value(uintptr_t e) { return e & 1; }
static inline uint64_t xa_to_value(uintptr_t e) { return e >> 1; }

static inline uintptr_t xa_mk_pfn(uint64_t pfn) { return (uintptr_t)(pfn << 3); }
static inline bool xa_is_pfn(uintptr_t e) { return e && !(e & 7); }
static inline uint64_t xa_to_pfn(uintptr_t e) { return e >> 3; }

static inline bool xa_is_node(uintptr_t e) { return (e & 3) == 2; }
static inline struct sws_xa_node *xa_to_node(uintptr_t e) { return (struct sws_xa_node *)(e - 2); }
static inline uintptr_t xa_mk_node(const struct sws_xa_node *n) { return (uintptr_t)n | 2; }

/* ---- the tree ------------------------------------------------------------------ */

/*
 * Set up an empty tree. Nodes come from @mem; the RCU callback bumps
 * @nr_freed (may be NULL). The tree must outlive its RCU callbacks: free it
 * only after rcu_barrier().
 */
void sws__xa_init(struct sws_xa *xa, struct sws_mem *mem, _Atomic uint64_t *nr_freed);

/* The largest index a node of @shift can map. */
static inline uint64_t sws__xa_span_max(unsigned shift)
{
	return shift + SWS_XA_CHUNK_SHIFT >= 64 ? UINT64_MAX
						: ((uint64_t)SWS_XA_CHUNK_SIZE << shift) - 1;
}

/*
 * xa_load() that also reports the dependent loads it made: the head and one
 * slot per level walked (the work report's lookup_loads).
 */
static inline uintptr_t sws__xa_load_counted(struct sws_xa *xa, uint64_t index, unsigned *loads)
{
	uintptr_t e = atomic_load_explicit(&xa->head, memory_order_acquire);
	*loads = 1;
	if (!xa_is_node(e))
		return index ? 0 : e;
	struct sws_xa_node *n = xa_to_node(e);
	if (index > sws__xa_span_max(n->shift))
		return 0;
	for (;;) {
		e = atomic_load_explicit(&n->slots[(index >> n->shift) & SWS_XA_CHUNK_MASK],
					 memory_order_acquire);
		++*loads;
		if (!xa_is_node(e))
			return e;
		n = xa_to_node(e);
	}
}

/*
 * xa_load(): the entry at @index, or 0. Caller holds the RCU read lock (or
 * the tree's lock). Never blocks, never writes. Inline: the swap-cache lookup
 * of the XArray baseline is this walk.
 */
static inline uintptr_t sws__xa_load(struct sws_xa *xa, uint64_t index)
{
	unsigned loads; /* the compiler drops the count */
	return sws__xa_load_counted(xa, index, &loads);
}

/*
 * __ xas_create_range(): make sure every index of [@first, @first + @nr) has
 * a slot, growing the tree and creating nodes as needed, so that stores into
 * that range cannot fail. All nodes needed are allocated before any is
 * linked. New nodes are empty until the caller stores: store into every index
 * of the range (or erase it) before dropping the lock.
 * @return 0; SWS_ENOMEM with the tree unchanged; SWS_EINVAL (range wraps).
 */
int sws__xa_create_range(struct sws_xa *xa, uint64_t first, uint64_t nr);

/*
 * __ xa_store(): put @entry (0: erase) at @index and return the previous entry
 * in *@old (may be NULL). Storing may allocate nodes unless create_range
 * covered @index; erasing removes nodes that become empty (freed through RCU)
 * and shrinks the tree. @return 0; SWS_ENOMEM with the tree unchanged.
 */
int sws__xa_store(struct sws_xa *xa, uint64_t index, uintptr_t entry, uintptr_t *old);

/*
 * __ Store @entry (0: erase) in every index of [@first, @first + @nr), walking
 * from the head once per leaf as xas_next() does. A non-zero entry first
 * creates the range (see above). @return 0; SWS_ENOMEM with the tree
 * unchanged; SWS_EINVAL (range wraps).
 */
int sws__xa_store_range(struct sws_xa *xa, uint64_t first, uint64_t nr, uintptr_t entry);

/* __ Erase the value entries of [@first, @first + @nr), keep the others. */
void sws__xa_erase_values(struct sws_xa *xa, uint64_t first, uint64_t nr);

/* The entries of [@first, @first + @nr) into @out[]. RCU read lock or the tree's lock. */
void sws__xa_load_range(struct sws_xa *xa, uint64_t first, uint64_t nr, uintptr_t *out);

/*
 * Free every node at once, without RCU: no reader or writer may use the tree
 * any more (swapoff, after synchronize_rcu() and rcu_barrier()). The tree is
 * empty afterwards. Nodes freed here are not counted in *nr_freed.
 */
void sws__xa_destroy(struct sws_xa *xa);

/*
 * __ Check the tree's shape: counts, nr_values, parent links, shifts, no empty
 * node, a root that cannot shrink, nr_nodes and nr_shadow_nodes. Reports the
 * number of entries and the highest index present (0 when empty).
 * @return 0 or SWS_ECORRUPT.
 */
int sws__xa_verify(struct sws_xa *xa, uint64_t *nr_entries, uint64_t *max_index);

/* __ Nodes in the tree (each SWS_XA_NODE_BYTES). */
static inline uint32_t sws__xa_nr_nodes(const struct sws_xa *xa) { return xa->nr_nodes; }

/* __ Shadow-only nodes: those the kernel's workingset shrinker would reclaim. */
static inline uint32_t sws__xa_nr_shadow_nodes(const struct sws_xa *xa) { return xa->nr_shadow_nodes; }

#endif
