/*
 * xarray.c - the radix tree of xarray.h: lock-free lookup, growth on demand,
 * node removal and root shrinking with RCU-deferred frees. Written for
 * libswapsim after the design of the kernel's XArray; no kernel code.
 *
 * HOW IT WORKS
 *
 * A node of shift s at index base b covers [b, b + (64 << s)); its slot k
 * covers [b + (k << s), b + ((k + 1) << s)). The root always sits at base 0,
 * so the tree's span is 64 << root->shift. Writers change the tree in three
 * ways, each leaving it valid for a concurrent reader at every step:
 *
 *  - grow (xas_expand): a new root whose slot 0 is the old root (or, when the
 *    head held the entry for index 0 directly, a new leaf holding it) is
 *    filled, then published in the head with a release store;
 *  - create: a new, empty child is initialised, then published in its
 *    parent's slot with a release store; an empty node reads as "absent";
 *  - remove: a node whose count reached 0 is unlinked from its parent (or
 *    the head), and a root using only slot 0 is replaced by that slot's
 *    content (xas_shrink). Unlinked nodes are never written again and are
 *    freed through call_rcu(), so a reader still inside one reads the value
 *    the slot held when it was unlinked.
 *
 * Creating a range is two-phase so that ENOMEM leaves no trace: phase 1 walks
 * the tree as it will look after growing and counts the nodes missing for the
 * range; that many nodes are allocated up front (the preload list, chained
 * through their parent field); phase 2 grows and creates from the preload and
 * cannot fail. This is the kernel's "drop the lock, xas_nomem(), retry" loop
 * done the other way round: allocate first, then change.
 */
#include "xarray.h"

#define XA_SHIFT SWS_XA_CHUNK_SHIFT
#define XA_MASK ((uint64_t)SWS_XA_CHUNK_MASK)

#define span_max sws__xa_span_max

/* Smallest root shift whose span holds @index. */
static unsigned shift_for(uint64_t index)
{
	unsigned s = 0;
	while (index > span_max(s))
		s += XA_SHIFT;
	return s;
}

static inline uintptr_t slot_get(struct sws_xa_node *n, unsigned k)
{
	return atomic_load_explicit(&n->slots[k], memory_order_relaxed);
}

/* Publish: everything written before (a new node's contents) is visible to readers. */
static inline void slot_set(struct sws_xa_node *n, unsigned k, uintptr_t e)
{
	atomic_store_explicit(&n->slots[k], e, memory_order_release);
}

static inline uintptr_t head_get(struct sws_xa *xa)
{
	return atomic_load_explicit(&xa->head, memory_order_relaxed);
}

static inline void head_set(struct sws_xa *xa, uintptr_t e)
{
	atomic_store_explicit(&xa->head, e, memory_order_release);
}

static inline bool is_shadow_node(const struct sws_xa_node *n)
{
	return n->count && n->count == n->nr_values;
}

void sws__xa_init(struct sws_xa *xa, struct sws_mem *mem, _Atomic uint64_t *nr_freed)
{
	atomic_init(&xa->head, 0);
	xa->mem = mem;
	xa->nr_freed = nr_freed;
	xa->mem_class = SWS_MEM_xa_node;
	xa->nr_alloc = 0;
	xa->nr_retired = 0;
	xa->nr_nodes = 0;
	xa->nr_shadow_nodes = 0;
}

/* ---- lookup ---------------------------------------------------------------------- */


/* The leaf that holds @index, or NULL when the path is missing. RCU or lock. */
static struct sws_xa_node *leaf_of(struct sws_xa *xa, uint64_t index)
{
	uintptr_t e = atomic_load_explicit(&xa->head, memory_order_acquire);
	if (!xa_is_node(e))
		return NULL;
	struct sws_xa_node *n = xa_to_node(e);
	if (index > span_max(n->shift))
		return NULL;
	while (n->shift) {
		e = atomic_load_explicit(&n->slots[(index >> n->shift) & XA_MASK], memory_order_acquire);
		if (!xa_is_node(e))
			return NULL;
		n = xa_to_node(e);
	}
	return n;
}

void sws__xa_load_range(struct sws_xa *xa, uint64_t first, uint64_t nr, uintptr_t *out)
{
	struct sws_xa_node *leaf = NULL;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t index = first + i;
		unsigned k = (unsigned)(index & XA_MASK);
		/* One walk per leaf, like xas_next(). */
		if (!i || !k) {
			leaf = leaf_of(xa, index);
			if (!leaf && !index) {
				uintptr_t h = atomic_load_explicit(&xa->head, memory_order_acquire);
				out[i] = xa_is_node(h) ? 0 : h;
				continue;
			}
		}
		out[i] = leaf ? atomic_load_explicit(&leaf->slots[k], memory_order_acquire) : 0;
	}
}

/* ---- node lifetime ------------------------------------------------------------------ */

static void node_rcu_free(struct rcu_head *head)
{
	sws_rcu_callback_begin();
	struct sws_xa_node *n = sws_container_of(head, struct sws_xa_node, rcu);
	struct sws_xa *xa = n->array;
	_Atomic uint64_t *ctr = xa->nr_freed;
	sws__mem_free_retired(xa->mem, n, sizeof(*n)); /* retired at node_retire() */
	if (ctr)
		atomic_fetch_add_explicit(ctr, 1, memory_order_relaxed);
	sws_rcu_callback_end();
}

/* __ @n is unlinked: free it once every reader that may hold it is gone. */
static void node_retire(struct sws_xa *xa, struct sws_xa_node *n)
{
	if (is_shadow_node(n))
		xa->nr_shadow_nodes--;
	xa->nr_nodes--;
	xa->nr_retired++;
	n->array = xa;
	sws__mem_retire(xa->mem, xa->mem_class, sizeof(*n));
	sws_call_rcu(&n->rcu, node_rcu_free);
}

/* A batch of zeroed nodes allocated before the tree is changed. */
struct preload {
	struct sws_xa_node *list; /* chained through ->parent */
	uint64_t nr;
};

static void preload_free(struct sws_xa *xa, struct preload *p)
{
	while (p->list) {
		struct sws_xa_node *n = p->list;
		p->list = n->parent;
		sws__mem_free(xa->mem, xa->mem_class, n, sizeof(*n));
	}
	p->nr = 0;
}

static int preload_fill(struct sws_xa *xa, struct preload *p, uint64_t want)
{
	while (p->nr < want) {
		struct sws_xa_node *n = sws__mem_zalloc(xa->mem, xa->mem_class, sizeof(*n), 64);
		if (!n) {
			preload_free(xa, p);
			return SWS_ENOMEM;
		}
		n->parent = p->list;
		p->list = n;
		p->nr++;
	}
	xa->nr_alloc += want; /* counted only once the whole batch exists */
	return 0;
}

/* __ Take a node from @p (it is there: phase 1 counted it) and set it up. */
static struct sws_xa_node *node_take(struct sws_xa *xa, struct preload *p, unsigned shift,
				     struct sws_xa_node *parent, unsigned offset)
{
	struct sws_xa_node *n = p->list;
	assert(n);
	p->list = n->parent;
	p->nr--;
	n->shift = (uint8_t)shift;
	n->offset = (uint8_t)offset;
	n->count = 0;
	n->nr_values = 0;
	n->parent = parent;
	n->array = xa;
	sws_list_init(&n->private_list);
	xa->nr_nodes++;
	return n;
}

/* __ Leaf @n's slot changed from @old to @e: keep count and nr_values. */
static void leaf_account(struct sws_xa *xa, struct sws_xa_node *n, uintptr_t old, uintptr_t e)
{
	bool was_shadow = is_shadow_node(n);
	n->count = (uint8_t)(n->count + (e != 0) - (old != 0));
	n->nr_values = (uint8_t)(n->nr_values + xa_is_value(e) - xa_is_value(old));
	xa->nr_shadow_nodes += (uint32_t)is_shadow_node(n) - (uint32_t)was_shadow;
}

/* ---- create ------------------------------------------------------------------------- */

/*
 * The tree as phase 2 will shape it: a root of shift @top whose leftmost
 * spine down to @spine_bottom exists once grown (new spine nodes above the
 * current root, or above a new leaf holding the head's direct entry), with the
 * current root, if any, at (@root->shift, base 0).
 */
struct shape {
	uint64_t first, last;
	unsigned top;
	bool spine;            /* the head is not empty: a spine will exist */
	unsigned spine_bottom; /* lowest spine level: the root's shift, or 0 for a direct entry */
	struct sws_xa_node *root;
};

/* Marks a position that will exist after growing but has no node yet. */
#define SPINE ((struct sws_xa_node *)1)

/* Offsets of a node at (@shift, @base) that intersect the range. */
static void chunk_range(const struct shape *s, unsigned shift, uint64_t base, unsigned *lo,
			unsigned *hi)
{
	uint64_t end = base + span_max(shift);
	uint64_t a = s->first > base ? s->first : base;
	uint64_t b = s->last < end ? s->last : end;
	*lo = (unsigned)((a - base) >> shift);
	*hi = (unsigned)((b - base) >> shift);
}

/* What sits at child position (@cshift, @cbase), slot @k of @n at the level above. */
static struct sws_xa_node *child_at(const struct shape *s, struct sws_xa_node *n, unsigned k,
				    unsigned cshift, uint64_t cbase)
{
	if (n && n != SPINE) {
		uintptr_t e = slot_get(n, k);
		return xa_is_node(e) ? xa_to_node(e) : NULL;
	}
	if (n == SPINE && cbase == 0 && cshift >= s->spine_bottom)
		return cshift == s->spine_bottom && s->root ? s->root : SPINE;
	return NULL;
}

/* Nodes missing at and below position (@shift, @base), where @n is (NULL: nothing). */
static uint64_t count_missing(const struct shape *s, struct sws_xa_node *n, unsigned shift,
			      uint64_t base)
{
	uint64_t missing = n ? 0 : 1;
	if (!shift)
		return missing;
	unsigned lo, hi;
	chunk_range(s, shift, base, &lo, &hi);
	for (unsigned k = lo; k <= hi; k++) {
		unsigned cshift = shift - XA_SHIFT;
		uint64_t cbase = base + ((uint64_t)k << shift);
		missing += count_missing(s, child_at(s, n, k, cshift, cbase), cshift, cbase);
	}
	return missing;
}

/* Phase 2, below the (grown) root: create every missing node of the range. */
static void build(struct sws_xa *xa, const struct shape *s, struct preload *p,
		  struct sws_xa_node *n, uint64_t base)
{
	if (!n->shift)
		return;
	unsigned lo, hi;
	chunk_range(s, n->shift, base, &lo, &hi);
	for (unsigned k = lo; k <= hi; k++) {
		uint64_t cbase = base + ((uint64_t)k << n->shift);
		uintptr_t e = slot_get(n, k);
		struct sws_xa_node *c;
		if (xa_is_node(e)) {
			c = xa_to_node(e);
		} else {
			assert(!e); /* entries live in leaves only */
			c = node_take(xa, p, n->shift - XA_SHIFT, n, k);
			n->count++;
			slot_set(n, k, xa_mk_node(c));
		}
		build(xa, s, p, c, cbase);
	}
}

/* Phase 2, first step: grow the tree until its root has shift @s->top. */
static struct sws_xa_node *grow(struct sws_xa *xa, const struct shape *s, struct preload *p)
{
	uintptr_t h = head_get(xa);
	struct sws_xa_node *root;

	if (!h) {
		root = node_take(xa, p, s->top, NULL, 0);
		head_set(xa, xa_mk_node(root));
		return root;
	}
	if (xa_is_node(h)) {
		root = xa_to_node(h);
	} else {
		/* The head's direct entry (index 0) moves into slot 0 of a new leaf. */
		root = node_take(xa, p, 0, NULL, 0);
		atomic_init(&root->slots[0], h);
		leaf_account(xa, root, 0, h);
	}
	while (root->shift < s->top) {
		struct sws_xa_node *up = node_take(xa, p, root->shift + XA_SHIFT, NULL, 0);
		atomic_init(&up->slots[0], xa_mk_node(root));
		up->count = 1;
		root->parent = up;
		root->offset = 0;
		root = up;
	}
	if (!xa_is_node(h) || xa_to_node(h) != root)
		head_set(xa, xa_mk_node(root)); /* the new spine is complete: publish it */
	return root;
}

int sws__xa_create_range(struct sws_xa *xa, uint64_t first, uint64_t nr)
{
	if (!nr)
		return 0;
	if (first + (nr - 1) < first)
		return SWS_EINVAL;
	struct shape s = {.first = first, .last = first + (nr - 1)};
	uintptr_t h = head_get(xa);

	if (s.last == 0 && !xa_is_node(h))
		return 0; /* index 0 alone lives in the head */
	s.top = shift_for(s.last);
	s.spine = h != 0;
	if (xa_is_node(h)) {
		s.root = xa_to_node(h);
		s.spine_bottom = s.root->shift;
		if (s.top < s.root->shift)
			s.top = s.root->shift;
	}
	/* The top position: the root itself, a spine node to be made, or nothing. */
	struct sws_xa_node *top = NULL;
	if (s.root && s.top == s.root->shift)
		top = s.root;
	else if (s.spine)
		top = SPINE;
	uint64_t want = count_missing(&s, top, s.top, 0);
	/* A spine counts as existing in count_missing: its nodes are still to be made. */
	if (s.spine)
		want += (s.top - s.spine_bottom) / XA_SHIFT + (s.root ? 0 : 1);
	if (!want)
		return 0;

	struct preload p = {0};
	int rc = preload_fill(xa, &p, want);
	if (rc)
		return rc;
	struct sws_xa_node *root = grow(xa, &s, &p);
	build(xa, &s, &p, root, 0);
	assert(!p.nr);
	return 0;
}

/* ---- store and erase -------------------------------------------------------------------- */

/* __ Unlink @n and every ancestor that becomes empty with it. */
static void delete_empty(struct sws_xa *xa, struct sws_xa_node *n)
{
	while (n && !n->count) {
		struct sws_xa_node *parent = n->parent;
		if (parent) {
			slot_set(parent, n->offset, 0);
			parent->count--;
		} else {
			head_set(xa, 0);
		}
		node_retire(xa, n);
		n = parent;
	}
}

/* __ xas_shrink(): while the root uses only slot 0, its content becomes the head. */
static void shrink(struct sws_xa *xa)
{
	for (;;) {
		uintptr_t h = head_get(xa);
		if (!xa_is_node(h))
			return;
		struct sws_xa_node *n = xa_to_node(h);
		if (n->count != 1)
			return;
		uintptr_t e = slot_get(n, 0);
		if (!e)
			return;
		assert(xa_is_node(e) || !n->shift);
		if (xa_is_node(e))
			xa_to_node(e)->parent = NULL;
		head_set(xa, e);
		node_retire(xa, n); /* its slot 0 stays as it was for readers inside it */
		if (!xa_is_node(e))
			return;
	}
}

int sws__xa_store(struct sws_xa *xa, uint64_t index, uintptr_t entry, uintptr_t *old)
{
	uintptr_t prev = 0;
	struct sws_xa_node *leaf = NULL;
	uintptr_t h = head_get(xa);

	if (!xa_is_node(h) && index == 0)
		goto in_head;
	leaf = leaf_of(xa, index);
	if (!leaf && entry) {
		int rc = sws__xa_create_range(xa, index, 1);
		if (rc)
			return rc;
		leaf = leaf_of(xa, index); /* index != 0 here: the head is a node now */
		assert(leaf);
	}
	if (leaf) {
		unsigned k = (unsigned)(index & XA_MASK);
		prev = slot_get(leaf, k);
		slot_set(leaf, k, entry);
		leaf_account(xa, leaf, prev, entry);
		if (!entry) {
			delete_empty(xa, leaf);
			shrink(xa);
		}
	}
	if (old)
		*old = prev;
	return 0;

in_head:
	prev = h;
	head_set(xa, entry);
	if (old)
		*old = prev;
	return 0;
}

/*
 * __ Store @entry in every slot of the range, or with @values_only erase the
 * value entries there. Walks from the head once per leaf. When @entry is not
 * 0 the range exists (create_range). Leaves emptied on the way go at once.
 */
static void store_run(struct sws_xa *xa, uint64_t first, uint64_t nr, uintptr_t entry,
		      bool values_only)
{
	struct sws_xa_node *leaf = NULL;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t index = first + i;
		unsigned k = (unsigned)(index & XA_MASK);
		if (!i || !k) {
			if (leaf && !leaf->count)
				delete_empty(xa, leaf);
			leaf = leaf_of(xa, index);
			uintptr_t h = head_get(xa);
			if (!leaf && !index && !xa_is_node(h)) {
				if (!values_only || xa_is_value(h))
					head_set(xa, values_only ? 0 : entry);
				continue;
			}
			assert(leaf || !entry);
		}
		if (!leaf)
			continue;
		uintptr_t prev = slot_get(leaf, k);
		uintptr_t e = values_only ? (xa_is_value(prev) ? 0 : prev) : entry;
		if (e == prev)
			continue;
		slot_set(leaf, k, e);
		leaf_account(xa, leaf, prev, e);
	}
	if (leaf && !leaf->count)
		delete_empty(xa, leaf);
	if (!entry || values_only)
		shrink(xa);
}

int sws__xa_store_range(struct sws_xa *xa, uint64_t first, uint64_t nr, uintptr_t entry)
{
	if (entry) {
		int rc = sws__xa_create_range(xa, first, nr);
		if (rc)
			return rc;
	} else if (nr && first + (nr - 1) < first) {
		return SWS_EINVAL;
	}
	store_run(xa, first, nr, entry, false);
	return 0;
}

void sws__xa_erase_values(struct sws_xa *xa, uint64_t first, uint64_t nr)
{
	if (nr && first + (nr - 1) >= first)
		store_run(xa, first, nr, 0, true);
}

/* ---- teardown and checks ------------------------------------------------------------------- */

static void free_subtree(struct sws_xa *xa, struct sws_xa_node *n)
{
	if (n->shift) {
		for (unsigned k = 0; k < SWS_XA_CHUNK_SIZE; k++) {
			uintptr_t e = slot_get(n, k);
			if (xa_is_node(e))
				free_subtree(xa, xa_to_node(e));
		}
	}
	sws__mem_free(xa->mem, xa->mem_class, n, sizeof(*n));
}

void sws__xa_destroy(struct sws_xa *xa)
{
	uintptr_t h = head_get(xa);
	if (xa_is_node(h))
		free_subtree(xa, xa_to_node(h));
	atomic_store_explicit(&xa->head, 0, memory_order_relaxed);
	xa->nr_nodes = 0;
	xa->nr_shadow_nodes = 0;
}

struct verify {
	uint64_t entries, max_index, nodes, shadow_nodes;
};

static int verify_node(struct sws_xa_node *n, struct sws_xa_node *parent, unsigned offset,
		       unsigned shift, uint64_t base, struct verify *v)
{
	if (n->shift != shift || n->parent != parent || (parent && n->offset != offset))
		return SWS_ECORRUPT;
	unsigned count = 0, values = 0;
	v->nodes++;
	for (unsigned k = 0; k < SWS_XA_CHUNK_SIZE; k++) {
		uintptr_t e = slot_get(n, k);
		if (!e)
			continue;
		count++;
		uint64_t idx = base + ((uint64_t)k << shift);
		if (shift) {
			if (!xa_is_node(e))
				return SWS_ECORRUPT; /* entries live in leaves only */
			int rc = verify_node(xa_to_node(e), n, k, shift - XA_SHIFT, idx, v);
			if (rc)
				return rc;
			continue;
		}
		if (xa_is_node(e))
			return SWS_ECORRUPT;
		values += xa_is_value(e);
		v->entries++;
		v->max_index = idx;
	}
	if (!count || count != n->count || values != n->nr_values)
		return SWS_ECORRUPT;
	v->shadow_nodes += is_shadow_node(n);
	return 0;
}

int sws__xa_verify(struct sws_xa *xa, uint64_t *nr_entries, uint64_t *max_index)
{
	struct verify v = {0};
	uintptr_t h = head_get(xa);
	int rc = 0;

	if (xa_is_node(h)) {
		struct sws_xa_node *root = xa_to_node(h);
		rc = verify_node(root, NULL, 0, root->shift, 0, &v);
		/* A root using only slot 0 should have been shrunk away. */
		if (!rc && root->count == 1 && slot_get(root, 0))
			rc = SWS_ECORRUPT;
	} else if (h) {
		v.entries = 1; /* index 0, directly in the head */
	}
	if (!rc && (v.nodes != xa->nr_nodes || v.shadow_nodes != xa->nr_shadow_nodes))
		rc = SWS_ECORRUPT;
	if (nr_entries)
		*nr_entries = v.entries;
	if (max_index)
		*max_index = v.max_index;
	return rc;
}
