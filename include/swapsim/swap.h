/*
 * swapsim/swap.h - swap entries, slot allocation, swap counts, the swap cache.
 *
 * This is the per-slot interface every design implements identically. Every
 * slot moves through these states (docs/design.md, "The per-slot state machine"):
 *
 *   FREE --sws_folio_alloc_swap--> CACHED count 0 --sws_swap_dup--> CACHED count k
 *   CACHED count k --sws_swap_cache_del(shadow)--> SHADOW count k
 *   SHADOW count k --sws_swap_cache_add--> CACHED count k
 *   SHADOW count 1 --sws_swap_put--> FREE
 *   CACHED count 0 --sws_swap_cache_del--> FREE
 *
 * Folios are simulator objects identified by a page frame number (PFN, nonzero,
 * below 2^40). The swap cache stores what the kernel stores: a folio reference
 * or a workingset shadow value, never page contents.
 *
 * Multi-slot calls (@nr slots from @entry) must stay inside one cluster; every
 * call checks all slots first and changes nothing when it fails. Under vswap
 * entries are virtual: an entry of a physical device is refused
 * (SWS_EBADENTRY) by every per-slot call; only sws_swap_rmap() and
 * sws_swap_slot_state() take one.
 *
 * Threading: every call taking a struct sws_cpu must be made by the thread that
 * attached it. Calls on different slots run in parallel; calls on the same slot
 * are serialised by the design's locks, as in the kernel (the cluster lock; the
 * XArray baseline's replace takes only its tree's lock, as folio migration
 * does). Calls that take a struct sws_sim may come from any thread.
 */
#ifndef SWAPSIM_SWAP_H
#define SWAPSIM_SWAP_H

#include <stdbool.h>
#include <stdint.h>
#include <swapsim/device.h>
#include <swapsim/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* swp_entry_t: (type << 58) | offset. 0 is "no entry" (offset 0 is the header). */
typedef uint64_t sws_entry_t;
#define SWS_SWP_TYPE_SHIFT 58
#define SWS_SWP_OFFSET_MASK ((1ull << SWS_SWP_TYPE_SHIFT) - 1)
#define SWS_PFN_BITS 40     /* SWAP_CACHE_PFN_BITS */
#define SWS_SHADOW_BITS 56  /* a shadow value must be below 2^56 */
#define SWS_SWAP_COUNT_MAX ((1u << 24) - 1) /* counts beyond are refused with SWS_EOVERFLOW */

static inline sws_entry_t sws_swp_entry(unsigned type, uint64_t offset)
{
	return ((uint64_t)type << SWS_SWP_TYPE_SHIFT) | (offset & SWS_SWP_OFFSET_MASK);
}
static inline unsigned sws_swp_type(sws_entry_t e) { return (unsigned)(e >> SWS_SWP_TYPE_SHIFT); }
static inline uint64_t sws_swp_offset(sws_entry_t e) { return e & SWS_SWP_OFFSET_MASK; }

/* ---- Allocation ------------------------------------------------------------ */

/**
 * folio_alloc_swap(): allocate 2^@order contiguous, naturally aligned slots in
 * one cluster and add folio @pfn to the swap cache for all of them (phase II+
 * semantics: the slots start CACHED with count 0). Tries the CPU's cached
 * cluster, then the devices by priority (nonfull, free, frag lists; order 0
 * also steals from higher orders).
 * @return 0 and the first entry in *entry; SWS_ENOSPC when no cluster fits
 *         (for order > 0 the caller splits the folio and retries at order 0);
 *         SWS_EINVAL (order > 9, pfn 0 or too large); SWS_ENOMEM.
 */
int sws_folio_alloc_swap(struct sws_cpu *cpu, uint64_t pfn, unsigned order, sws_entry_t *entry);

/**
 * sws_folio_alloc_swap() limited to the devices of the swap tiers in @tiers
 * (bit k: tier k; SWS_SWAP_TIERS_ALL: every device), as folio_alloc_swap()
 * with the folio's memcg's memory.swap.tiers.max (swapsim/device.h). Devices
 * outside @tiers are skipped; the others keep their priority order.
 * @return as sws_folio_alloc_swap(); SWS_ENOSPC also when no allowed device
 *         has room; SWS_EINVAL also for an empty @tiers or bits past the last tier.
 */
int sws_folio_alloc_swap_tiers(struct sws_cpu *cpu, uint64_t pfn, unsigned order, uint32_t tiers,
			       sws_entry_t *entry);

/* ---- Swap counts ----------------------------------------------------------- */

/**
 * folio_dup_swap()/swap_duplicate(): add one reference (a PTE now maps the
 * entry) to each of @nr slots.
 * @return 0; SWS_ENOENT (a slot is free); SWS_EBADENTRY; SWS_EOVERFLOW (count
 *         would exceed SWS_SWAP_COUNT_MAX); SWS_ENOMEM (overflow table).
 */
int sws_swap_dup(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr);

/**
 * swap_put_entries(): drop one reference from each of @nr slots. A slot whose
 * count reaches 0 and that holds no folio is freed (its shadow, zero flag and
 * memcg go with it); one that holds a folio becomes cache-only.
 * @return 0; SWS_EFREE (a slot is already free); SWS_ERANGE (a slot's count is
 *         already 0: it is cache-only); SWS_EBADENTRY.
 */
int sws_swap_put(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr);

/**
 * swap_put_entries_direct() (free_swap_and_cache_nr()): sws_swap_put() that
 * also says which slots were left cache-only, the only ones the free path
 * then looks up in the swap cache to reclaim: bit i of @only_cache (zeroed
 * first; one bit per slot) is set when slot @entry + i reached count 0 with a
 * folio in the swap cache. @return as sws_swap_put(); SWS_EINVAL (@only_cache
 * NULL).
 */
int sws_swap_put_entries_direct(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr,
				uint64_t only_cache[SWS_CLUSTER_SLOTS / 64]);

/** @return 0 and the swap count of one slot; SWS_ENOENT if free; SWS_EBADENTRY;
 *  SWS_EINVAL (@count NULL). */
int sws_swap_count(struct sws_cpu *cpu, sws_entry_t entry, uint32_t *count);

/* ---- Swap cache ------------------------------------------------------------ */

/**
 * swap_cache_add_folio(): put folio @pfn in the swap cache for @nr allocated
 * slots (swap-in). Every slot needs count >= 1 and no folio.
 * @return 0 and the shadow the first slot held (0: none) in *shadow (may be
 *         NULL); SWS_ENOENT (every slot is free); SWS_EEXIST (a slot already
 *         has a folio: someone else is swapping it in); SWS_EBUSY (free and
 *         shadow slots mixed, or shadows whose zero flags or memcgs differ);
 *         SWS_EINVAL; SWS_EBADENTRY; SWS_ENOMEM.
 */
int sws_swap_cache_add(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t pfn,
		       uint64_t *shadow);

/**
 * swap_cache_get_folio(): lock-free lookup (RCU read lock plus atomic loads).
 * @return the PFN cached for @entry, or 0 (no folio, free slot, bad entry).
 */
uint64_t sws_swap_cache_lookup(struct sws_cpu *cpu, sws_entry_t entry);

/**
 * swap_cache_get_shadow(): @return 0 and the shadow (0: none) in *shadow;
 * SWS_ENOENT (slot free); SWS_EBADENTRY. A slot holding a folio reports 0.
 */
int sws_swap_cache_get_shadow(struct sws_cpu *cpu, sws_entry_t entry, uint64_t *shadow);

/**
 * swap_cache_del_folio(): remove folio @pfn from @nr slots, leaving @shadow
 * (0: none; below 2^SWS_SHADOW_BITS) in each. Slots whose count is 0 are freed.
 * @return 0; SWS_ENOTCACHED (a slot holds no folio); SWS_EMISMATCH (another
 *         folio); SWS_EINVAL; SWS_EBADENTRY. Never SWS_ENOMEM: deleting never
 *         allocates (the XArray baseline overwrites slots the add created).
 */
int sws_swap_cache_del(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t pfn,
		       uint64_t shadow);

/**
 * swap_cache_replace_folio(): migration/split: replace @old_pfn by @new_pfn in
 * @nr slots. @return 0; SWS_ENOTCACHED; SWS_EMISMATCH; SWS_EINVAL; SWS_EBADENTRY.
 */
int sws_swap_cache_replace(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t old_pfn,
			   uint64_t new_pfn);

/* ---- Zero flag and memcg --------------------------------------------------- */

/**
 * Set or clear the zero-page flag of @nr allocated slots. The caller holds
 * the slots (a folio of theirs in the swap cache, as swap_writeout() does):
 * designs that update the flag without a lock (6.17's zeromap) check the
 * slots without one. @return 0, SWS_ENOENT, SWS_EBADENTRY.
 */
int sws_swap_set_zero(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, bool zero);

/** Record memcg @id (0: none) for @nr allocated slots, which the caller holds
 *  (as for sws_swap_set_zero). @return 0, SWS_ENOENT, SWS_EBADENTRY, SWS_ENOMEM. */
int sws_swap_set_memcg(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint16_t id);

/** memory.swap.current of memcg @id, in slots: charged when sws_swap_set_memcg()
 *  gives slots the id (mem_cgroup_try_charge_swap()), uncharged when each
 *  design's free path frees them (mem_cgroup_uncharge_swap(), batched as the
 *  design's kernel batches it). Id 0 (no memcg) and ids above 255 count nothing. */
uint64_t sws_swap_memcg_usage(const struct sws_sim *sim, uint16_t id);

/**
 * swap_read_folio()'s zero test (the zeromap bit, or phase IV's Z bit): one
 * lock-free read. @return the zero flag of an allocated slot; false for a
 * bad entry or a free slot.
 */
bool sws_swap_test_zero(struct sws_cpu *cpu, sws_entry_t entry);

/* ---- The SWP_SYNCHRONOUS_IO swap-cache bypass (designs up to 6.18, vswap) --- */

/**
 * do_swap_page()'s bypass on a SYNCHRONOUS_IO device: pin @nr slots without a
 * folio in the swap cache (swapcache_prepare(): SWAP_HAS_CACHE alone) so a
 * racing swap-in waits, one slot only when its swap count is 1 (the
 * __swap_count() test; a large folio's range whatever its counts: the caller
 * tested the faulting entry's); the caller reads the page into a folio of its own, maps it,
 * puts the references (sws_swap_put) and unpins (sws_swapin_bypass_done),
 * which frees slots left with no count.
 * @return 0 and the shadow the first slot held (0: none) in *shadow (may be
 *         NULL); SWS_EOPNOTSUPP (the design has no bypass, or the device is
 *         not SYNCHRONOUS_IO, or a vswap slot not on a device): take the
 *         swap cache; SWS_EAGAIN (@nr 1 and its count is not 1): take the
 *         swap cache;
 *         as sws_swap_cache_add otherwise (SWS_EEXIST: someone else is
 *         swapping it in).
 */
int sws_swapin_bypass_start(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, uint64_t *shadow);

/**
 * swapcache_clear(): end a bypassed swap-in: unpin @nr slots that
 * sws_swapin_bypass_start() pinned, freeing those left with no count.
 * @return 0; SWS_ENOTCACHED when a slot is not pinned (a folio in the swap
 *         cache, a shadow, a free slot; on a design without the bypass no
 *         slot ever is): nothing changes; SWS_EBADENTRY.
 */
int sws_swapin_bypass_done(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr);

/* ---- Page I/O (swap_writepage / swap_read_folio) ----------------------------- */

/**
 * Write one page to an allocated slot of a device with a backing store.
 * @return 0; SWS_ENOENT; SWS_EBADENTRY; SWS_ENOBACKING; SWS_EIO; SWS_ENOMEM.
 */
int sws_swap_writepage(struct sws_cpu *cpu, sws_entry_t entry, const void *page);

/**
 * Read one page from an allocated slot: what was last written to it. A slot
 * never written since its cluster was last free reads as zeros on a memory
 * backing and on a fresh file; a file keeps a previous user's bytes unless
 * the device discards (as a real disk does).
 * @return 0; SWS_ENOENT; SWS_EBADENTRY; SWS_ENOBACKING; SWS_EIO.
 */
int sws_swap_readpage(struct sws_cpu *cpu, sws_entry_t entry, void *page);

/* ---- Virtual entries (vswap) ------------------------------------------------- */

/**
 * The slots page I/O of @nr slots from @entry goes to. Under every design but
 * vswap an entry is its own slot (*target = @entry). Under vswap an entry is
 * virtual: the target is the physical run backing it, allocated by a @write
 * that finds none (swap_writeout()'s vswap_alloc_swap_slot()); a write is
 * made by the holder of the slots' folio in the swap cache.
 * @return 0 and the first target entry; SWS_ENOENT (vswap: no physical slot,
 *         the page is zero, in zswap or only in memory); SWS_ENOSPC (no
 *         physical room for a write); SWS_EBUSY (backed by a mixed run);
 *         SWS_EBADENTRY; SWS_EINVAL.
 */
int sws_swap_io_target(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr, bool write, sws_entry_t *target);

/**
 * vswap_store_folio(): the folio the caller holds in the swap cache for @nr
 * virtual slots from @entry holds their page now (swapoff read it in): what
 * else backs them (a physical slot, a zswap entry) is released and the folio
 * becomes their backend; page tables keep the virtual entries.
 * @return 0; SWS_EOPNOTSUPP (not vswap); SWS_ENOTCACHED (no folio cached);
 *         SWS_ENOENT; SWS_EBADENTRY.
 */
int sws_swap_io_release(struct sws_cpu *cpu, sws_entry_t entry, unsigned nr);

/**
 * The reverse map: the entry a physical slot @phys holds the data of (vswap:
 * its virtual entry; 0 when it backs none). Every other design: @phys.
 */
sws_entry_t sws_swap_rmap(struct sws_cpu *cpu, sws_entry_t phys);

/* ---- Introspection --------------------------------------------------------- */

struct sws_slot_state {
	bool allocated; /* count > 0 or a folio is cached */
	bool bad;       /* header or bad slot */
	bool cached;    /* a folio is in the swap cache */
	bool zero;      /* zero-page flag */
	uint16_t memcg;
	uint32_t count; /* swap count (references) */
	uint64_t pfn;   /* cached folio, or 0 */
	uint64_t shadow; /* shadow value, or 0 */
};

/** Read one slot's whole state (takes the cluster lock). @return 0, SWS_ENODEV,
 *  SWS_EBADENTRY, SWS_EINVAL (NULL arguments). */
int sws_swap_slot_state(struct sws_sim *sim, sws_entry_t entry, struct sws_slot_state *st);

/** vm_swap_full(): more than half of all swap is in use. */
bool sws_swap_full(struct sws_sim *sim);

/**
 * Check the invariants of section 9.2 on every device (cluster counts against
 * slot states, list membership against flags, tables present iff not free,
 * nr_swap_pages + inuse == total). Call it while no other thread works on the
 * simulation. @return 0, or SWS_ECORRUPT with a description in @msg.
 */
int sws_swap_check(struct sws_sim *sim, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
