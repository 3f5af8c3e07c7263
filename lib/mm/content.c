/*
 * content.c - the content model (simulator only, no kernel counterpart): the
 * bytes of a page from its 64-bit seed and the mix's content classes, and
 * each swap slot's seed (what the device holds), kept per cluster in use.
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
/* ---- slot seeds --------------------------------------------------------------------------
 *
 * What each slot holds, for the content model: the seed of the page written
 * to it. Simulator state, not the kernel's, so it costs what is in use: per
 * device a per-cluster array of pointers (8 B per cluster), each NULL or a
 * 4 KiB table of the cluster's 512 seeds, allocated by the first write to the
 * cluster and given back when the cluster is free (the cluster_freed hook, from
 * the core's free_cluster(), on every kind of device). Every reader and
 * writer holds the slot (its folio is in the swap cache, locked), so the
 * cluster cannot become free under it and no lock is needed; writes to two
 * slots of one cluster may race to allocate its table (the loser frees its
 * copy).
 */

static _Atomic(struct sws_seed_table *) *seed_ptr(struct sws_mm *mm, sws_entry_t e)
{
	unsigned type = sws_swp_type(e);
	uint64_t off = sws_swp_offset(e);
	if (type >= SWS_MAX_SWAPFILES || off >= mm->slot_seed_len[type] || !mm->slot_seed[type])
		return NULL;
	return &mm->slot_seed[type][off / SWS_CLUSTER_SLOTS];
}

/* The first write to a cluster: its table, then the seed. */
static __attribute__((noinline)) int seed_set_first(struct sws_mm *mm, _Atomic(struct sws_seed_table *) *pp,
						    sws_entry_t e, uint64_t seed)
{
	struct sws_mem *mem = sws__sim_mem(mm->sim);
	struct sws_seed_table *t = NULL, *fresh = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*fresh), 64);
	if (!fresh)
		return SWS_ENOMEM;
	if (atomic_compare_exchange_strong_explicit(pp, &t, fresh, memory_order_acq_rel, memory_order_acquire))
		t = fresh;
	else
		sws__mem_free(mem, SWS_MEM_mm, fresh, sizeof(*fresh)); /* another write's won */
	sws_store_relaxed(&t->seed[sws_swp_offset(e) % SWS_CLUSTER_SLOTS], seed);
	return 0;
}

int sws__mm_slot_seed_set(struct sws_mm *mm, sws_entry_t e, uint64_t seed)
{
	_Atomic(struct sws_seed_table *) *pp = seed_ptr(mm, e);
	if (!pp)
		return 0; /* no such slot: nothing to remember */
	struct sws_seed_table *t = atomic_load_explicit(pp, memory_order_acquire);
	if (sws_unlikely(!t))
		return seed_set_first(mm, pp, e, seed);
	sws_store_relaxed(&t->seed[sws_swp_offset(e) % SWS_CLUSTER_SLOTS], seed);
	return 0;
}

uint64_t sws__mm_slot_seed_get(struct sws_mm *mm, sws_entry_t e)
{
	_Atomic(struct sws_seed_table *) *pp = seed_ptr(mm, e);
	struct sws_seed_table *t = pp ? atomic_load_explicit(pp, memory_order_acquire) : NULL;
	return t ? sws_load_relaxed(&t->seed[sws_swp_offset(e) % SWS_CLUSTER_SLOTS]) : 0;
}

int sws__mm_slot_seeds_create(struct sws_mm *mm, struct sws_device *dev)
{
	unsigned t = sws__device_type(dev);
	mm->slot_seed[t] = sws__cluster_array_create(dev, &mm->seed_array[t], sizeof(*mm->slot_seed[t]),
						     SWS_MEM_mm, 0);
	if (!mm->slot_seed[t])
		return SWS_ENOMEM;
	mm->slot_seed_len[t] = sws__device_max(dev);
	return 0;
}

void sws__mm_slot_seeds_cluster_freed(void *ctx, struct sws_device *dev, uint32_t idx)
{
	struct sws_mm *mm = ctx;
	_Atomic(struct sws_seed_table *) *seeds = mm->slot_seed[sws__device_type(dev)];
	SWS_ASSERT_HELD(sws__device_cluster_lockptr(dev, idx));
	if (!seeds)
		return; /* the device is coming or going */
	struct sws_seed_table *t = atomic_exchange_explicit(&seeds[idx], NULL, memory_order_acq_rel);
	sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, t, sizeof(*t));
}

void sws__mm_slot_seeds_destroy(struct sws_mm *mm, struct sws_device *dev)
{
	unsigned t = sws__device_type(dev);
	_Atomic(struct sws_seed_table *) *seeds = mm->slot_seed[t];
	/* Clusters beyond an extendable device's mapped range are free: their
	 * tables went with them. */
	for (uint32_t c = 0, n = sws__device_clusters_mapped(dev); seeds && c < n; c++) {
		struct sws_seed_table *st = atomic_exchange_explicit(&seeds[c], NULL, memory_order_relaxed);
		sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, st, sizeof(*st));
	}
	mm->slot_seed[t] = NULL;
	mm->slot_seed_len[t] = 0;
	sws__cluster_array_destroy(dev, &mm->seed_array[t]);
}
