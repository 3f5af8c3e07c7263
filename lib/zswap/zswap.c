/*
 * zswap.c - the compressed swap pool (mm/zswap.c): pools of a compressor and a
 * zsmalloc-like allocator, one tree per 64 MiB of each device mapping slots to
 * entries, per-memcg LRUs of entries, limits with hysteresis, the shrinker and
 * the shrink worker, writeback through the memory model. See docs/zswap.md.
 *
 *   store:  a folio: the limits below once, then page by page, all or nothing
 *           (a large folio may go over them by up to 511 pages); a refusal
 *           while the pool is full queues the shrink worker
 *           zero pages never get here (the swap layer flags them first)
 *           memcg at zswap.max? -> shrink_memcg() (one entry); refuse only
 *             if it wrote nothing back, else store without looking again
 *           pool at its limit, or above the accept threshold since? -> refuse,
 *             queue the shrink worker (pool_limit_hit)
 *           compress (per-CPU context); incompressible: raw when the memcg may
 *             write back, else refuse (reject_compress_poor)
 *           zs_malloc + copy, tree store (an old entry there goes), charge
 *             the memcg (cgroup v2: compressed bytes, in its usage as whole
 *             pages; v1: nothing), entry->referenced = true, LRU tail (zswpout)
 *   load:   tree erase (exclusive), decompress, free the entry     (zswpin)
 *   LRU:    oldest first; every entry a walk looks at costs one unit of its
 *           budget; a referenced entry loses the bit and goes round again
 *           (second chance); the shrinker's count is what the LRU holds, less
 *           the disk swap-ins seen since (protection), scaled by the memcg's
 *           compression ratio (MEMCG_ZSWAP_B / MEMCG_ZSWAPPED), walked in
 *           do_shrink_slab()'s batches of 128; the shrink worker walks one
 *           entry of each memcg in turn and gives up after 16 failures in
 *           total. (HOW THE LRU WALKS WORK, below.)
 *   schemes: old (6.8-6.11: a decaying protected size, no second chance),
 *           second-chance (the bit; every swap-in counts), both (6.12+: the
 *           bit; only disk reads count). (THE SHRINKER'S PROTECTION SCHEMES.)
 *
 * Locks: tree->lock and zs->lru_lock are leaves, never nested in each other;
 * a store or invalidate may run under the swap core's cluster lock. Writeback
 * takes the LRU head and its slot under the LRU lock, pins the slot with a
 * swap-cache folio (the memory model's begin), and only then looks at the
 * tree (the same entry, or it fails), so a racing free or swap-in can never
 * free it under us. The shrink worker's cursor is its own (one worker at a
 * time); the memcgs' counters (deferred work, swap-ins, protection) are
 * atomics. A function called with a lock held is __name and asserts it
 * (__shrink_memcg_cb; zsmalloc.c's class-lock helpers).
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "../common/xarray.h"
#include "../swap/swap_internal.h"
#include "compress.h"
#include "zsmalloc.h"
#include "zswap_mm.h"

#define ZSWAP_TREE_SHIFT 14 /* one tree per 64 MiB of swap, as the kernel */
#define MAX_RECLAIM_RETRIES 16

struct zswap_pool {
	struct sws_list node;
	char name[24];
	struct sws_zcomp_spec spec;
	struct sws_zs_pool *zs;
	_Atomic uint64_t nr_entries;
	_Atomic(struct sws_zcomp_ctx *) *ctx; /* [max_cpus]: one per CPU, made on first use */
};

/* struct zswap_entry: 56 bytes, like the kernel's. */
struct zswap_entry {
	sws_entry_t swpentry;
	uint32_t length;
	bool referenced;
	uint16_t memcg;
	struct zswap_pool *pool;
	uint64_t handle;
	uint64_t objcg_unused; /* the kernel's objcg pointer: kept for the size */
	struct sws_list lru;
};
static_assert(sizeof(struct zswap_entry) == 56, "struct zswap_entry is 56 bytes");

struct zswap_tree {
	sws_spinlock_t lock;
	bool used; /* ever held an entry (so its nodes may be in RCU callbacks) */
	struct sws_xa xa;
};

struct zswap_memcg {
	struct sws_list lru;  /* zs->lru_lock */
	uint64_t nr_lru;
	_Atomic uint64_t nr_disk_swapins;     /* zswap_lruvec_state (6.12+) */
	_Atomic uint64_t nr_zswap_protected;  /* its 6.8-6.11 form: SWS_ZSWAP_OLD_SCHEME */
	_Atomic uint64_t nr_deferred; /* the shrinker's work put off (shrinker_info's nr_deferred) */
	_Atomic uint64_t max_bytes; /* memory.zswap.max; 0: none */
	atomic_bool no_writeback;   /* memory.zswap.writeback = 0 */
	_Atomic uint64_t bytes, pages;
};

/*
 * THE SHRINKER'S PROTECTION SCHEMES (the 2024 change, in two patches, and what
 * it replaced):
 *
 *   old            (6.8-6.11, SWS_ZSWAP_OLD_SCHEME) no referenced bit. A
 *                  protected size per memcg, nr_zswap_protected: +1 on every
 *                  store, then halved while above a quarter of the LRU (the
 *                  decay, in zswap_lru_add()); +1 on every swap-in. The count
 *                  is the LRU less it; a shrinker batch that would reach into
 *                  it (protected >= LRU - nr_to_scan) stops.
 *   second-chance  (patch 1, SWS_ZSWAP_SECOND_CHANCE_ONLY) the referenced bit;
 *                  the protected size becomes nr_disk_swapins, consumed by the
 *                  count, but still raised on every swap-in, zswap hits
 *                  included (as 6.11 counted them).
 *   both           (patch 2, 6.12+, the default) only reads from the device
 *                  raise nr_disk_swapins.
 *
 * The kernel before patch 2 counted the faulting page of each swap-in (not
 * the read-ahead ones); zswap cannot tell them apart here, so every page read
 * in counts.
 */
enum zswap_scheme { SCHEME_OLD, SCHEME_SECOND_CHANCE, SCHEME_BOTH };

struct sws_zswap {
	struct sws_sim *sim;
	struct sws_mem *mem;
	uint32_t flags;
	enum zswap_scheme scheme;
	uint64_t max_pages, accept_pages;
	struct sws_zswap_wb_ops wb;
	sws_zswap_count_fn count;
	void *count_ctx;

	sws_spinlock_t pools_lock;
	struct sws_list pools;
	_Atomic(struct zswap_pool *) current;

	struct zswap_tree *trees[SWS_MAX_SWAPFILES];
	uint32_t nr_trees[SWS_MAX_SWAPFILES];
	/* The design keeps the entries in its descriptors (vswap): no trees. */
	bool in_design;
	bool cgroup_v1; /* nothing charged to memcgs, no memory.zswap.* files */

	sws_spinlock_t lru_lock;
	struct zswap_memcg memcgs[SWS_MM_MAX_MEMCGS];
	uint32_t shrink_cursor;        /* the shrink worker's (one at a time) */
	_Atomic uint32_t memcg_hi;     /* 1 + the highest memcg that stored an entry */

	atomic_bool reached_full;
	atomic_bool shrink_queued;
	atomic_bool shrink_running; /* one shrink worker at a time, as one work item */
	_Atomic uint64_t stored_pages, stored_incompressible;
};

static inline void zcount(struct sws_zswap *zs, struct sws_cpu *cpu, enum sws_mm_counter c)
{
	zs->count(zs->count_ctx, cpu, c, 1);
}

static int shrink_memcg(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg);
static int entry_decompress(struct sws_zswap *zs, struct sws_cpu *cpu, struct zswap_entry *en, void *page);
static struct zswap_entry *tree_load(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e);


static bool second_chance(const struct sws_zswap *zs) { return zs->scheme != SCHEME_OLD; }

/* zswap_folio_swapin() for a page of @memcg read in (@disk: from the device). */
static void zswap_folio_swapin(struct sws_zswap *zs, uint16_t memcg, bool disk)
{
	if (memcg >= SWS_MM_MAX_MEMCGS || (!disk && zs->scheme == SCHEME_BOTH))
		return;
	struct zswap_memcg *mc = &zs->memcgs[memcg];
	atomic_fetch_add(zs->scheme == SCHEME_OLD ? &mc->nr_zswap_protected : &mc->nr_disk_swapins, 1);
}

static uint64_t total_pages(struct sws_zswap *zs)
{
	uint64_t n = 0;
	sws_spin_lock(&zs->pools_lock);
	struct sws_list *pos;
	sws_list_for_each(pos, &zs->pools)
		n += sws__zs_total_pages(sws_list_entry(pos, struct zswap_pool, node)->zs);
	sws_spin_unlock(&zs->pools_lock);
	return n;
}

/* ---- pools ---------------------------------------------------------------------------- */

static void pool_destroy(struct sws_zswap *zs, struct zswap_pool *p)
{
	for (unsigned c = 0; p->ctx && c < zs->sim->max_cpus; c++)
		sws__zcomp_ctx_destroy(atomic_load(&p->ctx[c]));
	sws__mem_free(zs->mem, SWS_MEM_compressor, p->ctx, sizeof(*p->ctx) * zs->sim->max_cpus);
	sws__zs_destroy(p->zs);
	sws__mem_free(zs->mem, SWS_MEM_zswap, p, sizeof(*p));
}

static int pool_create(struct sws_zswap *zs, const char *name, struct zswap_pool **out)
{
	struct sws_zcomp_spec spec;
	if (sws__zcomp_parse(name ? name : "lz4", &spec))
		return SWS_EINVAL;
	struct zswap_pool *p = sws__mem_zalloc(zs->mem, SWS_MEM_zswap, sizeof(*p), 64);
	if (!p)
		return SWS_ENOMEM;
	p->spec = spec;
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "lz4");
	p->ctx = sws__mem_zalloc(zs->mem, SWS_MEM_compressor, sizeof(*p->ctx) * zs->sim->max_cpus, 64);
	if (!p->ctx || sws__zs_create(zs->mem, &p->zs)) {
		pool_destroy(zs, p);
		return SWS_ENOMEM;
	}
	sws_list_init(&p->node);
	*out = p;
	return 0;
}

/* The CPU's context of @p, made on its first use by that CPU. */
static struct sws_zcomp_ctx *pool_ctx(struct sws_zswap *zs, struct zswap_pool *p, struct sws_cpu *cpu)
{
	_Atomic(struct sws_zcomp_ctx *) *slot = &p->ctx[sws__cpu_id(cpu)];
	struct sws_zcomp_ctx *c = atomic_load_explicit(slot, memory_order_acquire);
	if (c)
		return c;
	if (sws__zcomp_ctx_create(zs->mem, &p->spec, &c))
		return NULL;
	struct sws_zcomp_ctx *none = NULL;
	if (!atomic_compare_exchange_strong(slot, &none, c)) { /* a detached CPU's id, reused */
		sws__zcomp_ctx_destroy(c);
		return none;
	}
	return c;
}

/* An old pool goes once its last entry is freed. */
static void pool_put_entry(struct sws_zswap *zs, struct zswap_pool *p)
{
	if (atomic_fetch_sub(&p->nr_entries, 1) != 1 || atomic_load(&zs->current) == p)
		return;
	sws_spin_lock(&zs->pools_lock);
	bool gone = !atomic_load(&p->nr_entries) && atomic_load(&zs->current) != p &&
		    !sws_list_empty(&p->node);
	if (gone)
		sws_list_del_init(&p->node);
	sws_spin_unlock(&zs->pools_lock);
	if (gone)
		pool_destroy(zs, p);
}

int sws_zswap_compressor_check(const char *name)
{
	struct sws_zcomp_spec spec;
	return sws__zcomp_parse(name, &spec);
}

int sws__zswap_set_compressor(struct sws_zswap *zs, const char *name)
{
	struct zswap_pool *p, *old;
	int rc = pool_create(zs, name, &p);
	if (rc)
		return rc;
	sws_spin_lock(&zs->pools_lock);
	sws_list_add(&p->node, &zs->pools);
	old = atomic_exchange(&zs->current, p);
	bool drop = old && !atomic_load(&old->nr_entries);
	if (drop)
		sws_list_del_init(&old->node);
	sws_spin_unlock(&zs->pools_lock);
	if (drop)
		pool_destroy(zs, old);
	return 0;
}

enum sws_zcomp_alg sws__zswap_alg(struct sws_zswap *zs)
{
	struct zswap_pool *p = atomic_load_explicit(&zs->current, memory_order_acquire);
	return p ? p->spec.alg : SWS_ZCOMP_LZ4;
}

/* ---- trees ---------------------------------------------------------------------------- */

static struct zswap_tree *tree_of(struct sws_zswap *zs, sws_entry_t e)
{
	unsigned type = sws_swp_type(e);
	uint64_t idx = sws_swp_offset(e) >> ZSWAP_TREE_SHIFT;
	if (type >= SWS_MAX_SWAPFILES || idx >= zs->nr_trees[type])
		return NULL;
	return &zs->trees[type][idx];
}

/*
 * obj_cgroup_charge_zswap() / obj_cgroup_uncharge_zswap(): on cgroup v2 an
 * entry's compressed bytes are charged to its memcg (MEMCG_ZSWAP_B, and one
 * MEMCG_ZSWAPPED page): the memcg's usage, in pages, grows by whole pages as
 * the bytes do (the objcg stock's rounding), past memory.max if need be (the
 * store runs in reclaim: the charge must succeed). On v1 nothing is charged
 * and the memcg's zswap stats stay 0.
 */
static void memcg_charge(struct sws_zswap *zs, uint16_t memcg, uint32_t len, bool add)
{
	if (zs->cgroup_v1)
		return;
	struct zswap_memcg *mc = &zs->memcgs[memcg];
	uint64_t old = add ? atomic_fetch_add(&mc->bytes, len) : atomic_fetch_sub(&mc->bytes, len);
	uint64_t now = add ? old + len : old - len;
	if (add)
		atomic_fetch_add(&mc->pages, 1);
	else
		atomic_fetch_sub(&mc->pages, 1);
	int64_t delta = (int64_t)SWS_DIV_ROUND_UP(now, SWS_PAGE_SIZE) - (int64_t)SWS_DIV_ROUND_UP(old, SWS_PAGE_SIZE);
	if (delta && zs->wb.charge)
		zs->wb.charge(zs->wb.ctx, memcg, delta);
}

static void entry_free(struct sws_zswap *zs, struct zswap_entry *en)
{
	struct zswap_memcg *mc = &zs->memcgs[en->memcg];
	sws_spin_lock(&zs->lru_lock);
	if (!sws_list_empty(&en->lru)) {
		sws_list_del_init(&en->lru);
		mc->nr_lru--;
	}
	sws_spin_unlock(&zs->lru_lock);
	memcg_charge(zs, en->memcg, en->length, false);
	if (en->length == SWS_PAGE_SIZE)
		atomic_fetch_sub(&zs->stored_incompressible, 1);
	atomic_fetch_sub(&zs->stored_pages, 1);
	sws__zs_free(en->pool->zs, en->handle);
	struct zswap_pool *p = en->pool;
	sws__mem_free(zs->mem, SWS_MEM_zswap, en, sizeof(*en));
	pool_put_entry(zs, p);
}

/* Take the entry of @e out of its tree (or the design's descriptor). */
static struct zswap_entry *tree_erase(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e)
{
	if (zs->in_design)
		return sws__swap_zswap_erase(cpu, e);
	struct zswap_tree *t = tree_of(zs, e);
	uintptr_t old = 0;
	if (!t)
		return NULL;
	sws_spin_lock(&t->lock);
	sws__xa_store(&t->xa, sws_swp_offset(e), 0, &old); /* erasing never allocates */
	sws_spin_unlock(&t->lock);
	return (struct zswap_entry *)old;
}

/* The entry of @e, or NULL. */
static struct zswap_entry *tree_load(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e)
{
	if (zs->in_design)
		return sws__swap_zswap_load(cpu, e);
	struct zswap_tree *t = tree_of(zs, e);
	if (!t)
		return NULL;
	sws_spin_lock(&t->lock);
	struct zswap_entry *en = (struct zswap_entry *)sws__xa_load(&t->xa, sws_swp_offset(e));
	sws_spin_unlock(&t->lock);
	return en;
}

/* Store @en for @e; *old gets the entry it replaced. */
static int tree_store(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e, struct zswap_entry *en,
		      struct zswap_entry **old)
{
	if (zs->in_design)
		return sws__swap_zswap_store(cpu, e, en, (void **)old);
	struct zswap_tree *t = tree_of(zs, e);
	uintptr_t o = 0;
	sws_spin_lock(&t->lock);
	t->used = true;
	int rc = sws__xa_store(&t->xa, sws_swp_offset(e), (uintptr_t)en, &o);
	sws_spin_unlock(&t->lock);
	*old = (struct zswap_entry *)o;
	return rc;
}

void sws__zswap_entry_release(struct sws_zswap *zs, void *entry) { entry_free(zs, entry); }

void sws__zswap_invalidate(struct sws_zswap *zs, unsigned type, uint64_t off, unsigned nr)
{
	if (zs->in_design)
		return; /* the design hands a freed slot's entry to sws__zswap_release() */
	for (unsigned i = 0; i < nr; i++) {
		struct zswap_entry *en = tree_erase(zs, NULL, sws_swp_entry(type, off + i));
		if (en)
			entry_free(zs, en);
	}
}

/* ---- limits ---------------------------------------------------------------------------- */

/* zswap_check_limits(): may a store go ahead? (hysteresis through reached_full)
 * pool_limit_hit counts only stores that found the pool at its limit. */
static bool check_limits(struct sws_zswap *zs, struct sws_cpu *cpu)
{
	uint64_t cur = total_pages(zs);
	if (cur >= zs->max_pages) {
		atomic_store(&zs->reached_full, true);
		zcount(zs, cpu, SWS_MM_pool_limit_hit);
		return false;
	}
	if (atomic_load(&zs->reached_full)) {
		if (cur > zs->accept_pages)
			return false;
		atomic_store(&zs->reached_full, false);
	}
	return true;
}

bool sws__zswap_writeback_allowed(struct sws_zswap *zs, uint16_t memcg)
{
	return memcg < SWS_MM_MAX_MEMCGS && !zs->memcgs[memcg].no_writeback;
}

/* obj_cgroup_may_zswap(): is @memcg below memory.zswap.max? The limit is in
 * pages (the bytes written rounded down), the usage its compressed bytes /
 * 4096 (MEMCG_ZSWAP_B); a limit of 0 pages takes nothing. */
static bool may_zswap(struct sws_zswap *zs, uint16_t memcg)
{
	struct zswap_memcg *mc = &zs->memcgs[memcg];
	uint64_t max_bytes = atomic_load_explicit(&mc->max_bytes, memory_order_relaxed);
	if (!max_bytes || zs->cgroup_v1)
		return true; /* "max", or v1 (no such file) */
	uint64_t max_pages = max_bytes / SWS_PAGE_SIZE;
	return max_pages && atomic_load(&mc->bytes) / SWS_PAGE_SIZE < max_pages;
}

/* ---- store / load ------------------------------------------------------------------------ */

/* zswap_store_page(): one page of a folio into pool @p (the caller holds a
 * reference on it). @return 0, SWS_ENOMEM (entry, pool or tree memory),
 * SWS_EINVAL (incompressible, writeback not allowed), SWS_EIO (compressor). */
static int store_page(struct sws_zswap *zs, struct sws_cpu *cpu, struct zswap_pool *p, sws_entry_t e,
		      uint16_t memcg, const void *page)
{
	struct zswap_memcg *mc = &zs->memcgs[memcg];
	struct zswap_entry *en = sws__mem_zalloc(zs->mem, SWS_MEM_zswap, sizeof(*en), 8);
	if (!en) {
		zcount(zs, cpu, SWS_MM_reject_kmemcache_fail);
		return SWS_ENOMEM;
	}
	atomic_fetch_add(&p->nr_entries, 1); /* the entry's reference on its pool */
	size_t len = 0;
	struct sws_zcomp_ctx *ctx = pool_ctx(zs, p, cpu);
	void *buf = ctx ? sws__zcomp_ctx_buffer(ctx) : NULL; /* the per-CPU buffer */
	const void *src = buf;
	int rc = ctx ? sws__zcomp_compress(ctx, page, buf, SWS_PAGE_SIZE, &len) : SWS_ENOMEM;
	if (rc || len >= SWS_PAGE_SIZE) {
		if (!sws__zswap_writeback_allowed(zs, memcg)) {
			zcount(zs, cpu, rc && rc != SWS_ENOSPC ? SWS_MM_reject_compress_fail
							      : SWS_MM_reject_compress_poor);
			sws__mem_free(zs->mem, SWS_MEM_zswap, en, sizeof(*en));
			pool_put_entry(zs, p);
			return rc && rc != SWS_ENOSPC ? SWS_EIO : SWS_EINVAL;
		}
		/* Kept uncompressed: it keeps its LRU age and can be written back later. */
		src = page;
		len = SWS_PAGE_SIZE;
	}
	if (sws__zs_alloc(p->zs, len, &en->handle)) {
		zcount(zs, cpu, SWS_MM_reject_alloc_fail);
		sws__mem_free(zs->mem, SWS_MEM_zswap, en, sizeof(*en));
		pool_put_entry(zs, p);
		return SWS_ENOMEM;
	}
	sws__zs_write(p->zs, en->handle, src, len);
	en->swpentry = e;
	en->length = (uint32_t)len;
	en->memcg = memcg;
	en->pool = p;
	en->referenced = true;
	sws_list_init(&en->lru);
	struct zswap_entry *old = NULL;
	rc = tree_store(zs, cpu, e, en, &old);
	if (rc) {
		sws__zs_free(p->zs, en->handle);
		sws__mem_free(zs->mem, SWS_MEM_zswap, en, sizeof(*en));
		pool_put_entry(zs, p);
		zcount(zs, cpu, SWS_MM_reject_alloc_fail);
		return SWS_ENOMEM;
	}
	if (old)
		entry_free(zs, old); /* a stale entry of the slot's earlier life */
	memcg_charge(zs, memcg, (uint32_t)len, true);
	atomic_fetch_add(&zs->stored_pages, 1);
	if (len == SWS_PAGE_SIZE)
		atomic_fetch_add(&zs->stored_incompressible, 1);
	sws_spin_lock(&zs->lru_lock);
	sws_list_add_tail(&en->lru, &mc->lru);
	uint64_t lru_size = ++mc->nr_lru;
	sws_spin_unlock(&zs->lru_lock);
	if (zs->scheme == SCHEME_OLD) {
		/* 6.8-6.11 zswap_lru_add(): the protection grows with each store and
		 * decays, halved while above a quarter of the LRU. */
		uint64_t prot = atomic_fetch_add(&mc->nr_zswap_protected, 1) + 1, now;
		do
			now = prot > lru_size / 4 ? prot / 2 : prot;
		while (!atomic_compare_exchange_weak(&mc->nr_zswap_protected, &prot, now));
	}
	uint32_t hi = atomic_load_explicit(&zs->memcg_hi, memory_order_relaxed);
	while (hi <= memcg && !atomic_compare_exchange_weak(&zs->memcg_hi, &hi, (uint32_t)memcg + 1))
		;
	return 0;
}

int sws__zswap_store_folio(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e, unsigned nr,
			   uint16_t memcg, void (*fill)(void *ctx, unsigned i, void *page), void *ctx)
{
	if (!nr || (!zs->in_design && (!tree_of(zs, e) || !tree_of(zs, e + nr - 1))))
		return SWS_EINVAL;
	int rc = 0;
	unsigned i = 0;
	/* The limits are checked once for the folio: a large one may go over them by
	 * up to 511 pages. */
	if (!may_zswap(zs, memcg) && shrink_memcg(zs, cpu, memcg)) {
		rc = SWS_ENOSPC;
		goto out;
	}
	if (!check_limits(zs, cpu)) {
		rc = SWS_ENOSPC;
		goto out;
	}
	/* zswap_pool_current_get(): a reference on the current pool for the folio (the
	 * entry count is the pool's reference count), taken under pools_lock so a
	 * compressor switch cannot free the pool under us. */
	sws_spin_lock(&zs->pools_lock);
	struct zswap_pool *p = atomic_load(&zs->current);
	atomic_fetch_add(&p->nr_entries, 1);
	sws_spin_unlock(&zs->pools_lock);
	uint8_t page[SWS_PAGE_SIZE];
	for (; i < nr && !rc; i++) {
		fill(ctx, i, page);
		rc = store_page(zs, cpu, p, e + i, memcg, page);
	}
	pool_put_entry(zs, p);
out:
	if (rc) {
		/* queue_work() on every refused store while the pool is full */
		if (atomic_load(&zs->reached_full))
			atomic_store(&zs->shrink_queued, true);
		/* All or nothing: what went in of this folio goes, and so does any stale
		 * entry of the range (writeback would write old data over the new). */
		sws__zswap_invalidate(zs, sws_swp_type(e), sws_swp_offset(e), nr);
	}
	return rc; /* zswpout is counted for the whole folio by the caller */
}

static void fill_copy(void *ctx, unsigned i, void *page)
{
	(void)i;
	memcpy(page, ctx, SWS_PAGE_SIZE);
}

int sws__zswap_store(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e, uint16_t memcg,
		     const void *page)
{
	return sws__zswap_store_folio(zs, cpu, e, 1, memcg, fill_copy, (void *)page);
}

static int entry_decompress(struct sws_zswap *zs, struct sws_cpu *cpu, struct zswap_entry *en,
			    void *page)
{
	if (en->length == SWS_PAGE_SIZE) {
		sws__zs_read(en->pool->zs, en->handle, page);
		return 0;
	}
	size_t len;
	const void *obj = sws__zs_map(en->pool->zs, en->handle, &len); /* in place, no copy */
	struct sws_zcomp_ctx *ctx = pool_ctx(zs, en->pool, cpu);
	return ctx ? sws__zcomp_decompress(ctx, obj, en->length, page) : SWS_ENOMEM;
}

int sws__zswap_load(struct sws_zswap *zs, struct sws_cpu *cpu, sws_entry_t e, void *page)
{
	/* The slot is pinned by the caller's swap-cache folio: nobody else loads,
	 * writes back or frees it meanwhile, so look, decompress, then erase. */
	struct zswap_entry *en = tree_load(zs, cpu, e);
	if (!en)
		return SWS_ENOENT;
	if (entry_decompress(zs, cpu, en, page)) {
		zcount(zs, cpu, SWS_MM_decompress_fail);
		return SWS_EIO; /* the entry stays: the data is not lost */
	}
	uint16_t memcg = en->memcg;
	en = tree_erase(zs, cpu, e); /* exclusive load */
	if (en)
		entry_free(zs, en);
	zcount(zs, cpu, SWS_MM_zswpin);
	zswap_folio_swapin(zs, memcg, false); /* the schemes before 6.12 count zswap hits too */
	return 0;
}

void sws__zswap_disk_swapin(struct sws_zswap *zs, uint16_t memcg) { zswap_folio_swapin(zs, memcg, true); }

/* ---- writeback, shrinker, shrink worker ----------------------------------------------- */

/*
 * HOW THE LRU WALKS WORK (mm/zswap.c and mm/list_lru.c, 6.12+). Every walk
 * starts at the head of a memcg's LRU (the oldest store) and spends one unit of
 * its budget (nr_to_walk) on each entry it looks at, whatever happens to it:
 *
 *   shrink_memcg_cb(entry):
 *     referenced       -> clear the bit, rotate to the tail       LRU_ROTATE
 *     else             rotate to the tail, then zswap_writeback_entry():
 *       written back   -> the entry is gone                       LRU_REMOVED_RETRY
 *       failed         -> reject_reclaim_fail; it stays at the tail LRU_RETRY
 *       EEXIST in the shrinker's walk (a swap-in races us: we are
 *         shrinking into the warm part of the LRU) -> stop         LRU_STOP
 *
 * list_lru_walk_one() always looks at the head (a rotated or failed entry went
 * to the tail, a removed one is gone), so it visits the LRU in order, going
 * round again when the budget is larger than the list; like the kernel's
 * list_for_each_safe() it ends early when the only entry left was rotated.
 * Three callers:
 *
 *   shrink_memcg()        one entry (nr_to_walk = 1 per node; the model has one
 *                         node): 0 written back, EAGAIN walked but nothing
 *                         written back (a second chance counts), ENOENT
 *                         nothing to walk. The shrink worker and the
 *                         memory.zswap.max path use it.
 *   shrink_worker()       memcgs round robin (a saved cursor, mem_cgroup_iter()'s
 *                         end of the hierarchy between passes), shrink_memcg()
 *                         on each until the pool is at the accept threshold; it
 *                         gives up after MAX_RECLAIM_RETRIES failures in total:
 *                         an EAGAIN, or a pass that found no memcg to walk.
 *                         Progress never resets the count.
 *   the shrinker          do_shrink_slab(): count (zswap_shrinker_count()),
 *                         total_scan from the pressure plus the memcg's deferred
 *                         work, walked in batches of SHRINK_BATCH (128: zswap's
 *                         shrinker->batch is 0) while total_scan >= 128 or >=
 *                         the count; a batch that wrote nothing back, or met
 *                         EEXIST, is SHRINK_STOP; what was not scanned is
 *                         deferred (at most twice the count).
 */

#define SHRINK_BATCH 128 /* do_shrink_slab()'s batch for shrinker->batch == 0 */
#define DEFAULT_SEEKS 2

/* list_lru_walk_one()'s callback results (the kernel's enum lru_status). */
enum lru_status { LRU_REMOVED_RETRY, LRU_ROTATE, LRU_RETRY, LRU_STOP };

/* The shrinker's walk argument; shrink_memcg() walks without one. */
struct shrink_walk {
	bool encountered_page_in_swapcache;
};

/*
 * zswap_writeback_entry() of @en, taken off the head of @memcg's LRU (only
 * compared, never dereferenced, until the slot is pinned and the tree still
 * holds it). @return 0 (written back, or the entry went meanwhile into a folio
 * that keeps it), SWS_EEXIST (being swapped in), SWS_ENOENT (the slot was
 * freed), SWS_ENOMEM (no folio, or the entry is no longer the slot's),
 * SWS_EINVAL (an xswap slot: nowhere to go), SWS_EIO (decompression failed:
 * the entry stays).
 */
static int zswap_writeback_entry(struct sws_zswap *zs, struct sws_cpu *cpu, struct zswap_entry *en,
				 sws_entry_t e, uint16_t memcg)
{
	sws_rcu_read_lock();
	struct sws_device *dev = sws__device(zs->sim, sws_swp_type(e));
	bool xswap = dev && (dev->h.flags & SWS_SWP_XSWAP);
	sws_rcu_read_unlock();
	if (xswap)
		return SWS_EINVAL;
	uint64_t token;
	int rc = zs->wb.begin(zs->wb.ctx, cpu, e, memcg, &token);
	if (rc)
		return rc; /* being swapped in (EEXIST), freed, or no memory */
	/* The slot is pinned now: the tree cannot change under us. Is it still ours? */
	if (tree_load(zs, cpu, e) != en) {
		zs->wb.end(zs->wb.ctx, cpu, e, token, NULL);
		return SWS_ENOMEM; /* invalidated and maybe recycled: the kernel's -ENOMEM */
	}
	uint8_t page[SWS_PAGE_SIZE];
	if (entry_decompress(zs, cpu, en, page)) {
		zcount(zs, cpu, SWS_MM_decompress_fail);
		zs->wb.end(zs->wb.ctx, cpu, e, token, NULL);
		return SWS_EIO;
	}
	en = tree_erase(zs, cpu, e);
	if (en)
		entry_free(zs, en);
	if (zs->wb.end(zs->wb.ctx, cpu, e, token, page))
		zcount(zs, cpu, SWS_MM_zswpwb);
	return 0;
}

/* zs->lru_lock held, and released here: shrink_memcg_cb() on @en, the head of
 * @mc's LRU. */
static enum lru_status __shrink_memcg_cb(struct sws_zswap *zs, struct sws_cpu *cpu, struct zswap_memcg *mc,
					 struct zswap_entry *en, struct shrink_walk *arg)
{
	SWS_ASSERT_HELD(&zs->lru_lock);
	/* Rotate it either way: a referenced entry goes round again, and one that
	 * fails to go is tried last next time (a written-back one is unlinked). */
	sws_list_del_init(&en->lru);
	sws_list_add_tail(&en->lru, &mc->lru);
	if (en->referenced && second_chance(zs)) {
		en->referenced = false; /* second chance */
		sws_spin_unlock(&zs->lru_lock);
		return LRU_ROTATE;
	}
	sws_entry_t e = en->swpentry;
	uint16_t memcg = en->memcg;
	sws_spin_unlock(&zs->lru_lock);
	int rc = zswap_writeback_entry(zs, cpu, en, e, memcg);
	if (rc) {
		zcount(zs, cpu, SWS_MM_reject_reclaim_fail);
		if (rc == SWS_EEXIST && arg) {
			arg->encountered_page_in_swapcache = true;
			return LRU_STOP;
		}
		return LRU_RETRY;
	}
	zcount(zs, cpu, SWS_MM_written_back_pages);
	return LRU_REMOVED_RETRY;
}

/* list_lru_walk_one() on @memcg's LRU: at most *@nr_to_walk entries from the
 * head (each one visited costs one). @return the entries written back. */
static uint64_t list_lru_walk_one(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg,
				  struct shrink_walk *arg, uint64_t *nr_to_walk)
{
	struct zswap_memcg *mc = &zs->memcgs[memcg];
	uint64_t isolated = 0;
	while (*nr_to_walk) {
		sws_spin_lock(&zs->lru_lock);
		if (sws_list_empty(&mc->lru)) {
			sws_spin_unlock(&zs->lru_lock);
			break;
		}
		--*nr_to_walk; /* first, so that failing entries cannot livelock the walk */
		struct zswap_entry *en = sws_list_entry(mc->lru.next, struct zswap_entry, lru);
		bool alone = en->lru.next == &mc->lru;
		enum lru_status st = __shrink_memcg_cb(zs, cpu, mc, en, arg);
		if (st == LRU_REMOVED_RETRY)
			isolated++;
		else if (st == LRU_STOP || (st == LRU_ROTATE && alone))
			break; /* stopped; or list_for_each_safe() reached the end */
	}
	return isolated;
}

static bool writeback_possible(struct sws_zswap *zs, uint16_t memcg)
{
	return sws__zswap_writeback_allowed(zs, memcg) &&
	       atomic_load_explicit(&zs->sim->nr_real_swapfiles, memory_order_relaxed);
}

/*
 * shrink_memcg(): walk one entry of @memcg's LRU. @return 0 (one written
 * back), SWS_EAGAIN (an entry was walked: given its second chance, or its
 * writeback failed), SWS_ENOENT (nothing to walk: an empty LRU, writeback
 * disabled, or no device with storage).
 */
static int shrink_memcg(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg)
{
	if (!writeback_possible(zs, memcg))
		return SWS_ENOENT;
	uint64_t nr_to_walk = 1;
	uint64_t shrunk = list_lru_walk_one(zs, cpu, memcg, NULL, &nr_to_walk);
	if (nr_to_walk == 1)
		return SWS_ENOENT;
	return shrunk ? 0 : SWS_EAGAIN;
}

/*
 * memory.reclaim "SIZE zswap_writeback_only" on @memcg (the proactive
 * writeback series, v4 2026-06): its zswap entries written back from the head
 * of its LRU, oldest first, with the shrinker's second chance, until @nr_pages
 * are written, its LRU is empty, or each entry it held at the start was walked
 * twice (a referenced one goes round once, one being swapped in is skipped).
 * Nothing else is reclaimed. Each written entry counts zswpwb and
 * zswpwb_proactive. @return the entries written back.
 */
static uint64_t writeback_only_one(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg, uint64_t nr_pages)
{
	if (!writeback_possible(zs, memcg))
		return 0;
	sws_spin_lock(&zs->lru_lock);
	uint64_t walks = 2 * zs->memcgs[memcg].nr_lru;
	sws_spin_unlock(&zs->lru_lock);
	uint64_t done = 0;
	for (; done < nr_pages && walks; walks--) {
		uint64_t one = 1;
		uint64_t written = list_lru_walk_one(zs, cpu, memcg, NULL, &one);
		if (one)
			break; /* the LRU is empty */
		if (written) {
			done++;
			zcount(zs, cpu, SWS_MM_zswpwb_proactive);
		}
	}
	return done;
}

uint64_t sws__zswap_writeback_only(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg, uint64_t nr_pages)
{
	if (memcg == 0) { /* the root: every memcg below it, in turn, each to its end */
		uint64_t done = writeback_only_one(zs, cpu, 0, nr_pages);
		uint32_t end = atomic_load_explicit(&zs->memcg_hi, memory_order_relaxed);
		for (uint32_t m = 1; m < end && done < nr_pages; m++)
			done += writeback_only_one(zs, cpu, (uint16_t)m, nr_pages - done);
		return done;
	}
	return writeback_only_one(zs, cpu, memcg, nr_pages);
}

/*
 * zswap_shrinker_count(): what the shrinker may write back for @memcg: the
 * entries on its LRU, less the disk swap-ins seen since the last count (the
 * new scheme; consumed, at most what the LRU holds), scaled by the memcg's
 * own compression: MEMCG_ZSWAP_B >> PAGE_SHIFT backing pages over
 * MEMCG_ZSWAPPED stored pages (mult_frac). A memcg with no stored pages in its
 * stats has nothing to write back.
 */
static uint64_t shrinker_count(struct sws_zswap *zs, uint16_t memcg)
{
	struct zswap_memcg *mc = &zs->memcgs[memcg];
	if (!writeback_possible(zs, memcg))
		return 0;
	uint64_t nr_backing = atomic_load(&mc->bytes) / SWS_PAGE_SIZE, nr_stored = atomic_load(&mc->pages);
	if (!nr_stored)
		return 0;
	sws_spin_lock(&zs->lru_lock);
	uint64_t freeable = mc->nr_lru;
	sws_spin_unlock(&zs->lru_lock);
	if (zs->scheme == SCHEME_OLD) { /* the LRU less its protected size */
		uint64_t prot = atomic_load(&mc->nr_zswap_protected);
		freeable = freeable > prot ? freeable - prot : 0;
		return (uint64_t)((unsigned __int128)freeable * nr_backing / nr_stored);
	}
	if (!freeable)
		return 0;
	/* Disk swap-ins since the last count mean we wrote back something hot: back off. */
	uint64_t swapins = atomic_load(&mc->nr_disk_swapins);
	while (swapins) {
		uint64_t take = swapins < freeable ? swapins : freeable;
		if (atomic_compare_exchange_weak(&mc->nr_disk_swapins, &swapins, swapins - take)) {
			freeable -= take;
			break;
		}
	}
	if (!freeable)
		return 0;
	return (uint64_t)((unsigned __int128)freeable * nr_backing / nr_stored);
}

/* zswap_shrinker_scan(): one batch of @nr_to_scan. @return entries written
 * back, or UINT64_MAX for SHRINK_STOP. */
static uint64_t shrinker_scan_batch(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg,
				    uint64_t nr_to_scan)
{
	if (!writeback_possible(zs, memcg))
		return UINT64_MAX;
	if (zs->scheme == SCHEME_OLD) {
		/* 6.8-6.11: abort rather than shrink into the protected region (the
		 * kernel's unsigned arithmetic, wrap included). */
		struct zswap_memcg *mc = &zs->memcgs[memcg];
		sws_spin_lock(&zs->lru_lock);
		uint64_t lru_size = mc->nr_lru;
		sws_spin_unlock(&zs->lru_lock);
		if (atomic_load(&mc->nr_zswap_protected) >= lru_size - nr_to_scan)
			return UINT64_MAX;
	}
	struct shrink_walk arg = {false};
	uint64_t ret = list_lru_walk_one(zs, cpu, memcg, &arg, &nr_to_scan);
	return arg.encountered_page_in_swapcache || !ret ? UINT64_MAX : ret;
}

uint64_t sws__zswap_shrinker_scan(struct sws_zswap *zs, struct sws_cpu *cpu, uint16_t memcg, int priority)
{
	if (!(zs->flags & SWS_ZSWAP_SHRINKER))
		return 0;
	assert(priority >= 0 && priority <= SWS__DEF_PRIORITY);
	struct zswap_memcg *mc = &zs->memcgs[memcg];
	uint64_t freeable = shrinker_count(zs, memcg);
	if (!freeable)
		return 0;
	/* do_shrink_slab(): the pressure freeable >> priority (x 4 / seeks), the
	 * memcg's deferred work >> priority on top, at most twice the count. */
	uint64_t nr = atomic_exchange(&mc->nr_deferred, 0);
	uint64_t delta = (freeable >> priority) * 4 / DEFAULT_SEEKS;
	uint64_t total_scan = (nr >> priority) + delta;
	if (total_scan > 2 * freeable)
		total_scan = 2 * freeable;
	uint64_t freed = 0, done = 0;
	while (total_scan >= SHRINK_BATCH || total_scan >= freeable) {
		uint64_t nr_to_scan = total_scan < SHRINK_BATCH ? total_scan : SHRINK_BATCH;
		uint64_t ret = shrinker_scan_batch(zs, cpu, memcg, nr_to_scan);
		if (ret == UINT64_MAX)
			break; /* SHRINK_STOP */
		freed += ret;
		total_scan -= nr_to_scan;
		done += nr_to_scan;
	}
	/* The work not done is deferred to the next call, at most twice the count. */
	uint64_t next = nr + delta > done ? nr + delta - done : 0;
	if (next > 2 * freeable)
		next = 2 * freeable;
	atomic_fetch_add(&mc->nr_deferred, next);
	return freed;
}

bool sws__zswap_shrink_queued(struct sws_zswap *zs) { return atomic_load(&zs->shrink_queued); }

uint64_t sws__zswap_shrink_worker(struct sws_zswap *zs, struct sws_cpu *cpu, uint64_t budget)
{
	if (!atomic_load(&zs->shrink_queued) || atomic_exchange(&zs->shrink_running, true))
		return 0; /* nothing queued, or another CPU runs it (one work item) */
	/* The work item runs: from now on a refused store queues it again. */
	atomic_store(&zs->shrink_queued, false);
	if (!atomic_load_explicit(&zs->sim->nr_real_swapfiles, memory_order_relaxed)) {
		atomic_store(&zs->shrink_running, false); /* only xswap: no writeback */
		return 0;
	}
	uint64_t done = 0;
	unsigned failures = 0, attempts = 0;
	uint32_t end = atomic_load_explicit(&zs->memcg_hi, memory_order_relaxed); /* the iterator's NULL */
	do {
		if (done >= budget) {
			atomic_store(&zs->shrink_queued, true); /* out of budget: the rest later */
			break;
		}
		uint32_t m = zs->shrink_cursor;
		zs->shrink_cursor = m >= end ? 0 : m + 1;
		if (m >= end) { /* a full pass: a failure unless it found a memcg to shrink */
			if (!attempts && ++failures == MAX_RECLAIM_RETRIES)
				break;
			attempts = 0;
			continue;
		}
		int rc = shrink_memcg(zs, cpu, (uint16_t)m);
		if (rc == SWS_ENOENT)
			continue; /* nothing to write back there: not a candidate */
		attempts++;
		if (!rc)
			done++;
		else if (++failures == MAX_RECLAIM_RETRIES)
			break;
	} while (total_pages(zs) > zs->accept_pages);
	atomic_store(&zs->shrink_running, false);
	return done;
}

/* ---- setup ------------------------------------------------------------------------------ */

int sws__zswap_memcg_set(struct sws_zswap *zs, uint16_t memcg, uint64_t max_bytes, bool writeback)
{
	if (memcg >= SWS_MM_MAX_MEMCGS)
		return SWS_EINVAL;
	if (zs->cgroup_v1 && (max_bytes || !writeback))
		return SWS_EOPNOTSUPP; /* memory.zswap.max and .writeback are v2 files */
	atomic_store(&zs->memcgs[memcg].max_bytes, max_bytes);
	atomic_store(&zs->memcgs[memcg].no_writeback, !writeback);
	return 0;
}

int sws__zswap_memcg_stats(struct sws_zswap *zs, uint16_t memcg, uint64_t *bytes, uint64_t *orig_bytes)
{
	if (memcg >= SWS_MM_MAX_MEMCGS || !bytes || !orig_bytes)
		return SWS_EINVAL;
	*bytes = atomic_load(&zs->memcgs[memcg].bytes);
	*orig_bytes = atomic_load(&zs->memcgs[memcg].pages) * SWS_PAGE_SIZE; /* zswapped */
	return 0;
}

void sws__zswap_stats(struct sws_zswap *zs, struct sws_mm_stats *st)
{
	st->stored_pages = atomic_load(&zs->stored_pages);
	st->stored_incompressible_pages = atomic_load(&zs->stored_incompressible);
	st->pool_total_size = total_pages(zs) * SWS_PAGE_SIZE;
	st->pool_limit_pages = zs->max_pages;
}

int sws__zswap_create(struct sws_sim *sim, const struct sws_zswap_config *cfg, uint64_t ram_pages,
		      const struct sws_zswap_wb_ops *wb, sws_zswap_count_fn count, void *count_ctx,
		      struct sws_zswap **out)
{
	uint32_t maxp = cfg->max_pool_percent ? cfg->max_pool_percent : 20;
	uint32_t acc = cfg->accept_threshold_percent ? cfg->accept_threshold_percent : 90;
	const uint32_t flags = SWS_ZSWAP_SHRINKER | SWS_ZSWAP_OLD_SCHEME | SWS_ZSWAP_SECOND_CHANCE_ONLY;
	if (maxp > 100 || acc > 100 || (cfg->flags & ~flags) || cfg->cgroup > SWS_ZSWAP_CGROUP_V2 ||
	    ((cfg->flags & SWS_ZSWAP_OLD_SCHEME) && (cfg->flags & SWS_ZSWAP_SECOND_CHANCE_ONLY)))
		return SWS_EINVAL;
	struct sws_zcomp_spec spec;
	if (sws__zcomp_parse(cfg->compressor ? cfg->compressor : "lz4", &spec))
		return SWS_EINVAL;
	struct sws_zswap *zs = sws__mem_zalloc(&sim->mem, SWS_MEM_zswap, sizeof(*zs), 64);
	if (!zs)
		return SWS_ENOMEM;
	zs->sim = sim;
	zs->mem = &sim->mem;
	zs->flags = cfg->flags;
	zs->scheme = (cfg->flags & SWS_ZSWAP_OLD_SCHEME)		  ? SCHEME_OLD
		     : (cfg->flags & SWS_ZSWAP_SECOND_CHANCE_ONLY) ? SCHEME_SECOND_CHANCE
								   : SCHEME_BOTH;
	zs->in_design = sws__zswap_in_design(sim);
	zs->cgroup_v1 = cfg->cgroup == SWS_ZSWAP_CGROUP_V1;
	zs->max_pages = ram_pages * maxp / 100;
	zs->accept_pages = zs->max_pages * acc / 100;
	zs->wb = *wb;
	zs->count = count;
	zs->count_ctx = count_ctx;
	sws_spin_init(&zs->pools_lock);
	sws_spin_init(&zs->lru_lock);
	sws_list_init(&zs->pools);
	for (unsigned m = 0; m < SWS_MM_MAX_MEMCGS; m++)
		sws_list_init(&zs->memcgs[m].lru);
	int rc = 0;
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES && !rc; t++) {
		struct sws_device *d = sws__device(sim, t);
		if (d)
			rc = sws__zswap_swapon(zs, t, d->max);
	}
	if (!rc)
		rc = sws__zswap_set_compressor(zs, cfg->compressor);
	if (rc) {
		sws__zswap_destroy(zs);
		return rc;
	}
	*out = zs;
	return 0;
}

int sws__zswap_swapon(struct sws_zswap *zs, unsigned type, uint64_t max)
{
	if (zs->in_design)
		return 0; /* vswap: the entries live in the descriptors */
	uint32_t n = (uint32_t)SWS_DIV_ROUND_UP(max, 1ull << ZSWAP_TREE_SHIFT);
	struct zswap_tree *trees = sws__mem_zalloc(zs->mem, SWS_MEM_zswap_trees, sizeof(*trees) * n, 64);
	if (!trees)
		return SWS_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		sws_spin_init(&trees[i].lock);
		sws__xa_init(&trees[i].xa, zs->mem, NULL);
		trees[i].xa.mem_class = SWS_MEM_zswap_tree;
	}
	sws__zswap_swapoff(zs, type); /* trees of an earlier device of this type */
	zs->nr_trees[type] = n;
	zs->trees[type] = trees;
	return 0;
}

void sws__zswap_swapoff(struct sws_zswap *zs, unsigned type)
{
	if (!zs->trees[type])
		return;
	bool used = false;
	for (uint32_t i = 0; i < zs->nr_trees[type]; i++)
		used |= zs->trees[type][i].used;
	if (used) /* tree nodes freed through RCU reach their trees */
		sws_rcu_barrier();
	for (uint32_t i = 0; i < zs->nr_trees[type]; i++)
		sws__xa_destroy(&zs->trees[type][i].xa);
	sws__mem_free(zs->mem, SWS_MEM_zswap_trees, zs->trees[type], sizeof(struct zswap_tree) * zs->nr_trees[type]);
	zs->trees[type] = NULL;
	zs->nr_trees[type] = 0;
}

static void drain_one(void *ctx, void *entry) { entry_free(ctx, entry); }

void sws__zswap_destroy(struct sws_zswap *zs)
{
	if (!zs)
		return;
	/* Entries left (slots still allocated) go with their pools. */
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		for (uint32_t i = 0; zs->trees[t] && i < zs->nr_trees[t]; i++) {
			uint64_t base = (uint64_t)i << ZSWAP_TREE_SHIFT;
			for (uint64_t o = 0; o < (1ull << ZSWAP_TREE_SHIFT); o++) {
				if (!sws__xa_load(&zs->trees[t][i].xa, base + o))
					continue;
				struct zswap_entry *en = tree_erase(zs, NULL, sws_swp_entry(t, base + o));
				if (en)
					entry_free(zs, en);
			}
		}
	}
	if (zs->in_design) /* the descriptors' entries go with their pools */
		sws__swap_zswap_drain(zs->sim, drain_one, zs);
	sws_rcu_barrier(); /* tree nodes freed through RCU reach their trees */
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES; t++) {
		for (uint32_t i = 0; zs->trees[t] && i < zs->nr_trees[t]; i++)
			sws__xa_destroy(&zs->trees[t][i].xa);
		sws__mem_free(zs->mem, SWS_MEM_zswap_trees, zs->trees[t],
			      sizeof(struct zswap_tree) * zs->nr_trees[t]);
	}
	struct sws_list *pos = zs->pools.next;
	while (pos != &zs->pools) {
		struct zswap_pool *p = sws_list_entry(pos, struct zswap_pool, node);
		pos = pos->next;
		pool_destroy(zs, p);
	}
	sws__mem_free(zs->mem, SWS_MEM_zswap, zs, sizeof(*zs));
}
