/*
 * zsmalloc.c - size classes, zspages and handles of the compressed-object
 * allocator (layout and handle encoding: zsmalloc.h; design: docs/zsmalloc.md).
 *
 * HOW IT WORKS
 *
 * The pool keeps one struct zs_class per merged size class. A class owns its
 * zspages through a table indexed by zspage id (the id is what a handle
 * stores), and lists them by fullness group like the kernel: group 0 is empty
 * (never kept: a zspage is freed with its last object), groups 1..10 hold
 * zspages with 0-9%, ..., 90-99% of their objects in use, group 11 full ones.
 * An allocation takes the first zspage of the fullest non-full group, so
 * objects concentrate in few zspages and sparse zspages drain and go away
 * (the kernel's find_get_zspage()). When the class has no free object, a new
 * zspage (pages and descriptor) is allocated with the class lock dropped, as
 * the kernel does, and then installed.
 *
 * Inside a zspage, objects are numbered 0..objs_per_zspage-1 at offset
 * index * size. Objects below the zspage's bump index have been handed out
 * at least once; the freed ones form a LIFO list threaded through their first
 * two bytes. Objects at or past the bump index were never used (a new zspage
 * is not written: 32 KiB of pages cost nothing until objects land in them).
 *
 * The zspage table grows by doubling under the class lock and is freed when
 * the class has no zspage left, so an empty pool holds only the pool struct.
 * Free table slots hold (next free id << 1) | 1; descriptors are at least
 * 8-byte aligned, so bit 0 tells the two apart.
 *
 * LIMITATIONS
 *
 * No compaction and no page migration: objects stay where they were
 * allocated, which is why map() needs no unmap(). A zspage's pages are one
 * contiguous allocation (the kernel chains separate pages and splits objects
 * that straddle a page boundary; the accounting is the same).
 */
#include <assert.h>
#include <string.h>

#include <swapsim/error.h>

#include "../common/list.h"
#include "../common/spinlock.h"
#include "zsmalloc.h"

#define ZS_NO_OBJ 0xffffu
#define ZS_NO_ID UINT32_MAX
#define ZS_TABLE_MIN 16u

/* Handle cell layout (zsmalloc.h). */
#define ZS_LOC_CLASS_BITS 8
#define ZS_LOC_INDEX_BITS 11
#define ZS_LOC_LEN_BITS 13
#define ZS_LOC_INDEX_SHIFT ZS_LOC_CLASS_BITS
#define ZS_LOC_LEN_SHIFT (ZS_LOC_INDEX_SHIFT + ZS_LOC_INDEX_BITS)
#define ZS_LOC_ID_SHIFT (ZS_LOC_LEN_SHIFT + ZS_LOC_LEN_BITS)

_Static_assert(ZS_LOC_ID_SHIFT == 32, "zspage id takes the upper 32 bits");
_Static_assert(SWS_ZS_NR_CLASSES <= (1u << ZS_LOC_CLASS_BITS), "class field");
_Static_assert(SWS_ZS_MAX_ALLOC_SIZE < (1u << ZS_LOC_LEN_BITS), "length field");
/* Objects per zspage: at most 8 pages of 32-byte objects, 1024 (the geometry gives 256). */
#define ZS_MAX_OBJS (SWS_ZS_MAX_PAGES_PER_ZSPAGE * SWS_ZS_PAGE_SIZE / SWS_ZS_MIN_ALLOC_SIZE)
_Static_assert(ZS_MAX_OBJS < (1u << ZS_LOC_INDEX_BITS) && ZS_MAX_OBJS < ZS_NO_OBJ, "index field");

struct zs_zspage {
	struct sws_list list; /* in its class's fullness[group] */
	char *base;	      /* pages_per_zspage * 4096 bytes (SWS_MEM_zspage) */
	uint64_t huge_handle; /* huge class: the handle of its one object */
	uint32_t id;	      /* slot in the class's table */
	uint16_t inuse;	      /* allocated objects */
	uint16_t free_head;   /* first freed object, ZS_NO_OBJ: none */
	uint16_t bump;	      /* objects [bump, objs_per_zspage) were never used */
	uint8_t group;	      /* fullness group, 1..11 */
};

struct zs_class {
	_Alignas(SWS_CACHELINE) sws_spinlock_t lock;
	uint32_t index; /* merged index: the largest size index merged in */
	uint32_t size;
	uint32_t pages_per_zspage;
	uint32_t objs_per_zspage;
	uint32_t huge;
	uint32_t hdr; /* in-object header bytes: 8, or 0 for the huge class */
	/* Under lock: */
	uintptr_t *table; /* id -> struct zs_zspage *, or (next free id << 1) | 1 */
	uint32_t table_len;
	uint32_t free_id; /* ZS_NO_ID: none */
	uint64_t objs_inuse;
	uint64_t zspages;
	uint64_t nr_group[SWS_ZS_FULLNESS_GROUPS];
	struct sws_list fullness[SWS_ZS_FULLNESS_GROUPS];
};

struct sws_zs_pool {
	struct sws_mem *mem;
	size_t alloc_size; /* bytes of this struct, classes included */
	_Atomic uint64_t pages, zspages, objs, obj_bytes, data_bytes, meta_bytes;
	unsigned nr_classes;
	uint8_t class_of[SWS_ZS_NR_CLASSES]; /* size index -> position in classes[] */
	struct zs_class classes[];
};

/* ---- geometry ------------------------------------------------------------------- */

static uint32_t class_size(unsigned index)
{
	return SWS_ZS_MIN_ALLOC_SIZE + index * SWS_ZS_SIZE_CLASS_DELTA;
}

/*
 * The span of 1..8 pages whose whole-percent use is highest; the first (the
 * fewest pages) wins a tie. 48-byte objects: 1 page uses 99%, 3 pages 100%.
 */
static uint32_t pages_per_zspage(uint32_t size)
{
	uint32_t best_pc = 0, best = 1;
	for (uint32_t k = 1; k <= SWS_ZS_MAX_PAGES_PER_ZSPAGE; k++) {
		uint32_t span = k * SWS_ZS_PAGE_SIZE;
		uint32_t used_pc = (span - span % size) * 100 / span;
		if (used_pc > best_pc) {
			best_pc = used_pc;
			best = k;
		}
	}
	return best;
}

unsigned sws__zs_size_index(size_t size)
{
	if (size <= SWS_ZS_MIN_ALLOC_SIZE)
		return 0;
	if (size >= SWS_ZS_MAX_ALLOC_SIZE)
		return SWS_ZS_NR_CLASSES - 1;
	return (unsigned)SWS_DIV_ROUND_UP(size - SWS_ZS_MIN_ALLOC_SIZE, SWS_ZS_SIZE_CLASS_DELTA);
}

static void raw_geometry(unsigned index, uint32_t *ppz, uint32_t *objs)
{
	uint32_t size = class_size(index);
	*ppz = pages_per_zspage(size);
	*objs = *ppz * SWS_ZS_PAGE_SIZE / size;
}

int sws__zs_class_info(unsigned index, struct sws_zs_class_info *out)
{
	if (index >= SWS_ZS_NR_CLASSES || !out)
		return SWS_EINVAL;
	uint32_t ppz, objs;
	raw_geometry(index, &ppz, &objs);
	/* Merge upwards while the larger neighbour has the same geometry. */
	unsigned m = index;
	while (m + 1 < SWS_ZS_NR_CLASSES) {
		uint32_t p2, o2;
		raw_geometry(m + 1, &p2, &o2);
		if (p2 != ppz || o2 != objs)
			break;
		m++;
	}
	*out = (struct sws_zs_class_info){
	    .index = index,
	    .merged_index = m,
	    .size = class_size(m),
	    .pages_per_zspage = ppz,
	    .objs_per_zspage = objs,
	    .huge = ppz == 1 && objs == 1,
	};
	return 0;
}

/* The size an object of @len asks for: its length plus the in-object header,
 * capped at 4096 (the huge class, which has no header, takes up to 4096). */
static unsigned len_index(size_t len)
{
	return sws__zs_size_index(len + SWS_ZS_HANDLE_SIZE);
}

size_t sws__zs_obj_size(size_t len)
{
	struct sws_zs_class_info ci;
	if (!len || len > SWS_ZS_MAX_ALLOC_SIZE)
		return 0;
	sws__zs_class_info(len_index(len), &ci);
	return ci.size;
}

/* ---- handle cells ------------------------------------------------------------------ */

static uint64_t loc_make(uint32_t cls, uint32_t obj, size_t len, uint32_t id)
{
	return (uint64_t)cls | (uint64_t)obj << ZS_LOC_INDEX_SHIFT |
	       (uint64_t)len << ZS_LOC_LEN_SHIFT | (uint64_t)id << ZS_LOC_ID_SHIFT;
}

static uint32_t loc_class(uint64_t loc)
{
	return (uint32_t)(loc & ((1u << ZS_LOC_CLASS_BITS) - 1));
}
static uint32_t loc_obj(uint64_t loc)
{
	return (uint32_t)(loc >> ZS_LOC_INDEX_SHIFT) & ((1u << ZS_LOC_INDEX_BITS) - 1);
}
static size_t loc_len(uint64_t loc)
{
	return (size_t)(loc >> ZS_LOC_LEN_SHIFT) & ((1u << ZS_LOC_LEN_BITS) - 1);
}
static uint32_t loc_id(uint64_t loc)
{
	return (uint32_t)(loc >> ZS_LOC_ID_SHIFT);
}

static uint64_t handle_loc(uint64_t handle)
{
	return *(const uint64_t *)(uintptr_t)handle;
}

static struct zs_class *loc_to_class(struct sws_zs_pool *pool, uint64_t loc)
{
	uint32_t ci = loc_class(loc);
	assert(ci < SWS_ZS_NR_CLASSES);
	struct zs_class *c = &pool->classes[pool->class_of[ci]];
	assert(c->index == ci);
	return c;
}

/* ---- zspages, ids and fullness (__name: the class lock held) ------------------------ */

static unsigned fullness_group(const struct zs_class *c, unsigned inuse)
{
	if (!inuse)
		return 0;
	if (inuse == c->objs_per_zspage)
		return SWS_ZS_FULLNESS_GROUPS - 1;
	return 100 * inuse / c->objs_per_zspage / 10 + 1; /* 1: 0-9%, ..., 10: 90-99% */
}

static void __zspage_regroup(struct zs_class *c, struct zs_zspage *zp)
{
	SWS_ASSERT_HELD(&c->lock);
	unsigned g = fullness_group(c, zp->inuse);
	if (g == zp->group)
		return;
	c->nr_group[zp->group]--;
	c->nr_group[g]++;
	zp->group = (uint8_t)g;
	sws_list_del_init(&zp->list);
	sws_list_add(&zp->list, &c->fullness[g]);
}

/* The first zspage of the fullest group that still has a free object. */
static struct zs_zspage *__class_find_zspage(struct zs_class *c)
{
	SWS_ASSERT_HELD(&c->lock);
	for (unsigned g = SWS_ZS_FULLNESS_GROUPS - 2; g >= 1; g--)
		if (!sws_list_empty(&c->fullness[g]))
			return sws_list_entry(c->fullness[g].next, struct zs_zspage, list);
	return NULL;
}

static struct zs_zspage *__class_zspage(struct zs_class *c, uint32_t id)
{
	SWS_ASSERT_HELD(&c->lock);
	assert(id < c->table_len && !(c->table[id] & 1));
	return (struct zs_zspage *)c->table[id];
}

/* Take a free id, doubling the table when there is none. @return 0 or SWS_ENOMEM. */
static int __class_get_id(struct sws_zs_pool *pool, struct zs_class *c, uint32_t *id)
{
	SWS_ASSERT_HELD(&c->lock);
	if (c->free_id == ZS_NO_ID) {
		uint32_t len = c->table_len ? 2 * c->table_len : ZS_TABLE_MIN;
		if (len <= c->table_len || len == ZS_NO_ID)
			return SWS_ENOMEM;
		uintptr_t *t = sws__mem_alloc(pool->mem, SWS_MEM_zs_meta, len * sizeof(*t), 0);
		if (!t)
			return SWS_ENOMEM;
		if (c->table_len)
			memcpy(t, c->table, c->table_len * sizeof(*t));
		for (uint32_t i = c->table_len; i < len; i++)
			t[i] = (uintptr_t)(i + 1 < len ? i + 1 : ZS_NO_ID) << 1 | 1;
		sws__mem_free(pool->mem, SWS_MEM_zs_meta, c->table, c->table_len * sizeof(*t));
		atomic_fetch_add_explicit(&pool->meta_bytes, (len - c->table_len) * sizeof(*t),
					  memory_order_relaxed);
		c->free_id = c->table_len;
		c->table = t;
		c->table_len = len;
	}
	*id = c->free_id;
	c->free_id = (uint32_t)(c->table[*id] >> 1);
	return 0;
}

static void __class_put_id(struct zs_class *c, uint32_t id)
{
	SWS_ASSERT_HELD(&c->lock);
	c->table[id] = (uintptr_t)c->free_id << 1 | 1;
	c->free_id = id;
}

static struct zs_zspage *zspage_alloc(struct sws_zs_pool *pool, const struct zs_class *c)
{
	struct zs_zspage *zp = sws__mem_zalloc(pool->mem, SWS_MEM_zs_meta, sizeof(*zp), 0);
	if (!zp)
		return NULL;
	zp->base = sws__mem_alloc(pool->mem, SWS_MEM_zspage,
				  (size_t)c->pages_per_zspage * SWS_ZS_PAGE_SIZE, SWS_ZS_PAGE_SIZE);
	if (!zp->base) {
		sws__mem_free(pool->mem, SWS_MEM_zs_meta, zp, sizeof(*zp));
		return NULL;
	}
	zp->free_head = ZS_NO_OBJ;
	sws_list_init(&zp->list);
	return zp;
}

static void zspage_free(struct sws_zs_pool *pool, const struct zs_class *c, struct zs_zspage *zp)
{
	sws__mem_free(pool->mem, SWS_MEM_zspage, zp->base,
		      (size_t)c->pages_per_zspage * SWS_ZS_PAGE_SIZE);
	sws__mem_free(pool->mem, SWS_MEM_zs_meta, zp, sizeof(*zp));
}

static char *obj_addr(const struct zs_class *c, const struct zs_zspage *zp, uint32_t obj)
{
	return zp->base + (size_t)obj * c->size;
}

static uint16_t obj_next_free(const char *o)
{
	uint16_t next;
	memcpy(&next, o, sizeof(next));
	return next;
}

/* ---- the pool ----------------------------------------------------------------------- */

int sws__zs_create(struct sws_mem *mem, struct sws_zs_pool **poolp)
{
	if (!mem || !poolp)
		return SWS_EINVAL;
	*poolp = NULL;
	struct sws_zs_class_info info[SWS_ZS_NR_CLASSES];
	unsigned nr = 0;
	for (unsigned i = 0; i < SWS_ZS_NR_CLASSES; i++) {
		sws__zs_class_info(i, &info[i]);
		nr += info[i].merged_index == i;
	}
	size_t size = sizeof(struct sws_zs_pool) + nr * sizeof(struct zs_class);
	struct sws_zs_pool *pool = sws__mem_zalloc(mem, SWS_MEM_zs_meta, size, SWS_CACHELINE);
	if (!pool)
		return SWS_ENOMEM;
	pool->mem = mem;
	pool->alloc_size = size;
	pool->nr_classes = nr;
	atomic_init(&pool->pages, 0);
	atomic_init(&pool->zspages, 0);
	atomic_init(&pool->objs, 0);
	atomic_init(&pool->obj_bytes, 0);
	atomic_init(&pool->data_bytes, 0);
	atomic_init(&pool->meta_bytes, size);
	/* Classes in descending size, as the kernel builds them: a smaller index
	 * merged into a larger one points at the class created for the larger. */
	unsigned pos = nr;
	for (unsigned i = SWS_ZS_NR_CLASSES; i-- > 0;) {
		if (info[i].merged_index == i) {
			struct zs_class *c = &pool->classes[--pos];
			sws_spin_init(&c->lock);
			c->index = i;
			c->size = info[i].size;
			c->pages_per_zspage = info[i].pages_per_zspage;
			c->objs_per_zspage = info[i].objs_per_zspage;
			c->huge = info[i].huge;
			c->hdr = c->huge ? 0 : SWS_ZS_HANDLE_SIZE;
			c->free_id = ZS_NO_ID;
			for (unsigned g = 0; g < SWS_ZS_FULLNESS_GROUPS; g++)
				sws_list_init(&c->fullness[g]);
		}
		pool->class_of[i] = (uint8_t)pos;
	}
	assert(pos == 0);
	*poolp = pool;
	return 0;
}

void sws__zs_destroy(struct sws_zs_pool *pool)
{
	if (!pool)
		return;
	for (unsigned k = 0; k < pool->nr_classes; k++) {
		struct zs_class *c = &pool->classes[k];
		sws_spin_lock(&c->lock);
		for (uint32_t id = 0; id < c->table_len; id++) {
			if (c->table[id] & 1)
				continue;
			struct zs_zspage *zp = (struct zs_zspage *)c->table[id];
			/* Free the handle cells of the objects still allocated. */
			if (c->huge) {
				if (zp->inuse)
					sws__mem_free(pool->mem, SWS_MEM_zs_meta,
						      (void *)(uintptr_t)zp->huge_handle,
						      SWS_ZS_HANDLE_SIZE);
			} else {
				uint64_t free_map[(ZS_MAX_OBJS + 63) / 64] = {0};
				for (uint16_t o = zp->free_head; o != ZS_NO_OBJ;
				     o = obj_next_free(obj_addr(c, zp, o)))
					free_map[o / 64] |= 1ull << (o % 64);
				for (uint32_t o = 0; o < zp->bump; o++) {
					if (free_map[o / 64] >> (o % 64) & 1)
						continue;
					uint64_t h;
					memcpy(&h, obj_addr(c, zp, o), sizeof(h));
					sws__mem_free(pool->mem, SWS_MEM_zs_meta,
						      (void *)(uintptr_t)h, SWS_ZS_HANDLE_SIZE);
				}
			}
			zspage_free(pool, c, zp);
		}
		sws__mem_free(pool->mem, SWS_MEM_zs_meta, c->table,
			      c->table_len * sizeof(*c->table));
		sws_spin_unlock(&c->lock);
	}
	sws__mem_free(pool->mem, SWS_MEM_zs_meta, pool, pool->alloc_size);
}

int sws__zs_alloc(struct sws_zs_pool *pool, size_t len, uint64_t *handle)
{
	if (!pool || !handle || !len || len > SWS_ZS_MAX_ALLOC_SIZE)
		return SWS_EINVAL;
	struct zs_class *c = &pool->classes[pool->class_of[len_index(len)]];
	uint64_t *cell =
	    sws__mem_alloc(pool->mem, SWS_MEM_zs_meta, SWS_ZS_HANDLE_SIZE, SWS_ZS_HANDLE_SIZE);
	if (!cell)
		return SWS_ENOMEM;

	sws_spin_lock(&c->lock);
	struct zs_zspage *zp = __class_find_zspage(c);
	if (!zp) {
		/* Allocate the zspage without the lock (the kernel's alloc_zspage()). */
		sws_spin_unlock(&c->lock);
		zp = zspage_alloc(pool, c);
		uint32_t id = 0;
		int err = SWS_ENOMEM;
		if (zp) {
			sws_spin_lock(&c->lock);
			err = __class_get_id(pool, c, &id);
			if (err)
				sws_spin_unlock(&c->lock);
		}
		if (err) {
			if (zp)
				zspage_free(pool, c, zp);
			sws__mem_free(pool->mem, SWS_MEM_zs_meta, cell, SWS_ZS_HANDLE_SIZE);
			return err;
		}
		zp->id = id;
		c->table[id] = (uintptr_t)zp;
		c->zspages++;
		c->nr_group[0]++;
		sws_list_add(&zp->list, &c->fullness[0]);
		atomic_fetch_add_explicit(&pool->zspages, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&pool->pages, c->pages_per_zspage, memory_order_relaxed);
		atomic_fetch_add_explicit(&pool->meta_bytes, sizeof(*zp), memory_order_relaxed);
	}

	uint32_t obj;
	if (zp->free_head != ZS_NO_OBJ) {
		obj = zp->free_head;
		zp->free_head = obj_next_free(obj_addr(c, zp, obj));
	} else {
		assert(zp->bump < c->objs_per_zspage);
		obj = zp->bump++;
	}
	zp->inuse++;
	c->objs_inuse++;
	__zspage_regroup(c, zp);
	/* The in-object header holds the handle (the kernel's back-pointer); the
	 * huge class keeps it in the descriptor. */
	uint64_t h = (uint64_t)(uintptr_t)cell;
	if (c->huge)
		zp->huge_handle = h;
	else
		memcpy(obj_addr(c, zp, obj), &h, sizeof(h));
	*cell = loc_make(c->index, obj, len, zp->id);
	sws_spin_unlock(&c->lock);

	atomic_fetch_add_explicit(&pool->objs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&pool->obj_bytes, c->size, memory_order_relaxed);
	atomic_fetch_add_explicit(&pool->data_bytes, len, memory_order_relaxed);
	atomic_fetch_add_explicit(&pool->meta_bytes, SWS_ZS_HANDLE_SIZE, memory_order_relaxed);
	*handle = h;
	return 0;
}

void sws__zs_free(struct sws_zs_pool *pool, uint64_t handle)
{
	assert(pool && handle);
	uint64_t loc = handle_loc(handle);
	struct zs_class *c = loc_to_class(pool, loc);
	uint32_t obj = loc_obj(loc);
	uintptr_t *dead_table = NULL;
	size_t dead_table_bytes = 0;

	sws_spin_lock(&c->lock);
	struct zs_zspage *zp = __class_zspage(c, loc_id(loc));
	assert(obj < zp->bump && zp->inuse);
	char *o = obj_addr(c, zp, obj);
#ifndef NDEBUG
	uint64_t back;
	if (c->huge)
		back = zp->huge_handle;
	else
		memcpy(&back, o, sizeof(back));
	assert(back == handle); /* a freed or foreign handle */
#endif
	uint16_t next = zp->free_head;
	memcpy(o, &next, sizeof(next));
	zp->free_head = (uint16_t)obj;
	zp->inuse--;
	c->objs_inuse--;
	if (zp->inuse) {
		__zspage_regroup(c, zp);
		zp = NULL;
	} else {
		/* The last object: the zspage goes (free_zspage()). */
		c->nr_group[zp->group]--;
		sws_list_del_init(&zp->list);
		__class_put_id(c, zp->id);
		if (!--c->zspages) {
			dead_table = c->table;
			dead_table_bytes = c->table_len * sizeof(*c->table);
			c->table = NULL;
			c->table_len = 0;
			c->free_id = ZS_NO_ID;
		}
	}
	sws_spin_unlock(&c->lock);

	if (zp) {
		zspage_free(pool, c, zp);
		atomic_fetch_sub_explicit(&pool->zspages, 1, memory_order_relaxed);
		atomic_fetch_sub_explicit(&pool->pages, c->pages_per_zspage, memory_order_relaxed);
		atomic_fetch_sub_explicit(&pool->meta_bytes, sizeof(*zp), memory_order_relaxed);
	}
	if (dead_table) {
		sws__mem_free(pool->mem, SWS_MEM_zs_meta, dead_table, dead_table_bytes);
		atomic_fetch_sub_explicit(&pool->meta_bytes, dead_table_bytes,
					  memory_order_relaxed);
	}
	sws__mem_free(pool->mem, SWS_MEM_zs_meta, (void *)(uintptr_t)handle, SWS_ZS_HANDLE_SIZE);
	atomic_fetch_sub_explicit(&pool->objs, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&pool->obj_bytes, c->size, memory_order_relaxed);
	atomic_fetch_sub_explicit(&pool->data_bytes, loc_len(loc), memory_order_relaxed);
	atomic_fetch_sub_explicit(&pool->meta_bytes, SWS_ZS_HANDLE_SIZE, memory_order_relaxed);
}

void *sws__zs_map(struct sws_zs_pool *pool, uint64_t handle, size_t *len)
{
	assert(pool && handle);
	uint64_t loc = handle_loc(handle);
	struct zs_class *c = loc_to_class(pool, loc);
	/* The lock only guards the table lookup (the table may be growing); the
	 * zspage cannot go while the caller holds one of its objects. */
	sws_spin_lock(&c->lock);
	struct zs_zspage *zp = __class_zspage(c, loc_id(loc));
	assert(loc_obj(loc) < zp->bump);
	char *o = obj_addr(c, zp, loc_obj(loc));
#ifndef NDEBUG
	uint64_t back;
	if (c->huge)
		back = zp->huge_handle;
	else
		memcpy(&back, o, sizeof(back));
	assert(back == handle);
#endif
	sws_spin_unlock(&c->lock);
	if (len)
		*len = loc_len(loc);
	return o + c->hdr;
}

size_t sws__zs_read(struct sws_zs_pool *pool, uint64_t handle, void *dst)
{
	size_t len;
	const void *p = sws__zs_map(pool, handle, &len);
	memcpy(dst, p, len);
	return len;
}

int sws__zs_write(struct sws_zs_pool *pool, uint64_t handle, const void *src, size_t len)
{
	size_t cap;
	void *p = sws__zs_map(pool, handle, &cap);
	if (len > cap)
		return SWS_EINVAL;
	memcpy(p, src, len);
	return 0;
}

uint64_t sws__zs_total_pages(const struct sws_zs_pool *pool)
{
	return sws_load_relaxed(&pool->pages);
}

void sws__zs_usage(const struct sws_zs_pool *pool, struct sws_zs_usage *out)
{
	*out = (struct sws_zs_usage){
	    .pages = sws_load_relaxed(&pool->pages),
	    .zspages = sws_load_relaxed(&pool->zspages),
	    .objs = sws_load_relaxed(&pool->objs),
	    .obj_bytes = sws_load_relaxed(&pool->obj_bytes),
	    .data_bytes = sws_load_relaxed(&pool->data_bytes),
	    .meta_bytes = sws_load_relaxed(&pool->meta_bytes),
	};
}

uint64_t sws__zs_memory_usage(const struct sws_zs_pool *pool)
{
	return sws_load_relaxed(&pool->pages) * SWS_ZS_PAGE_SIZE +
	       sws_load_relaxed(&pool->meta_bytes);
}

int sws__zs_class_stats(struct sws_zs_pool *pool, unsigned index, struct sws_zs_class_stats *out)
{
	if (!pool || !out || index >= SWS_ZS_NR_CLASSES)
		return SWS_EINVAL;
	struct zs_class *c = &pool->classes[pool->class_of[index]];
	memset(out, 0, sizeof(*out));
	sws__zs_class_info(index, &out->info);
	sws_spin_lock(&c->lock);
	out->objs_inuse = c->objs_inuse;
	out->zspages = c->zspages;
	for (unsigned g = 0; g < SWS_ZS_FULLNESS_GROUPS; g++)
		out->fullness[g] = c->nr_group[g];
	sws_spin_unlock(&c->lock);
	out->pages = out->zspages * c->pages_per_zspage;
	return 0;
}
