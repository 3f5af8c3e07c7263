/*
 * mm_internal.h - the memory model's objects. See docs/memory-model.md.
 *
 *   struct sws_mm ─┬─ folios[]   one descriptor per PFN, in address space reserved for
 *                  │             them all and mapped by sections of 2^15 PFNs as PFNs
 *                  │             are first claimed (a folio of 2^order pages uses one
 *                  │             PFN: PFNs are folio ids, RAM is counted in pages)
 *                  ├─ memcgs[]   limit, usage, per-memcg LRU lists (inactive, active)
 *                  ├─ spaces[]   address spaces: page table, regions, readahead state
 *                  └─ slot_seed  per swap device, per cluster in use, the content
 *                                seed of each slot
 *
 * Locks, outer first: folio lock (PG_locked bit) -> space->mmap_lock -> a
 * PTE table's lock (pte_lockptr(); a whole-space walk takes every one, in
 * index order; fork nests the child's locks inside the parent's) or a file's
 * i_pages lock (never both) -> a memcg's lru_lock (its lruvec: its LRU
 * lists) or a folio's rmap lock (hashed by PFN: reverse maps and mapcount),
 * never both -> a CPU's pcp_lock (its page list) -> mm->pfn_lock. ("ptl"
 * below: the PTE-table lock of the address in question.) Reclaim
 * never runs with a ptl held: the fault path drops it to allocate and
 * re-checks the PTE afterwards (pte_same). The free path, which holds a ptl,
 * only ever trylocks folios. A function whose
 * caller holds a lock is named __name (sws___name when not static), its
 * comment opens with the lock, and it asserts it (SWS_ASSERT_HELD) first;
 * docs/design.md, Locking.
 */
#ifndef SWS_MM_INTERNAL_H
#define SWS_MM_INTERNAL_H

#include <swapsim/mm.h>

#include "../swap/swap_mm.h"

/* Folio flags (PG_*). */
enum {
	PG_locked = 1u << 0,
	PG_lru = 1u << 1,       /* on an LRU list */
	PG_active = 1u << 2,
	PG_referenced = 1u << 3,
	PG_young = 1u << 4,     /* the PTE accessed bit, gathered on the folio */
	PG_dirty = 1u << 5,     /* contents differ from the swap copy (or there is none) */
	PG_swapcache = 1u << 6,
	PG_readahead = 1u << 7,
	PG_workingset = 1u << 8,
	PG_free = 1u << 9,      /* descriptor unused */
	PG_lazyfree = 1u << 10, /* MADV_FREE: !PG_swapbacked, dropped by reclaim unless redirtied */
	PG_lru_batch = 1u << 11, /* in a CPU's folio_add_lru() batch, not yet on a list (lru_lock) */
	PG_file = 1u << 12,      /* page cache: a file's page (!PG_swapbacked), folio->mapping */
	PG_page_seed = 1u << 13, /* a large folio's pages have seeds of their own: page_seed */
};

/* The LRU lists (enum lru_list): a folio's list is its activeness, LRU_INACTIVE
 * or LRU_ACTIVE, plus LRU_FILE for page cache. Callers name the activeness;
 * swap.c adds LRU_FILE from PG_file. */
enum { LRU_NONE = 0, LRU_INACTIVE = 1, LRU_ACTIVE = 2, LRU_FILE = 2 };
#define LRU_INACTIVE_FILE (LRU_INACTIVE + LRU_FILE)
#define LRU_ACTIVE_FILE (LRU_ACTIVE + LRU_FILE)
#define NR_LRU_LISTS 5

struct sws_rmap {
	uint32_t asid;
	uint64_t vaddr; /* where the folio's first page is mapped */
};

struct sws_folio {
	_Atomic uint32_t flags;
	uint8_t order;
	uint8_t lru;       /* which list (the memcg's lru_lock) */
	uint16_t memcg;
	uint32_t prev, next; /* LRU links: PFNs, 0 = none (the memcg's lru_lock) */
	_Atomic uint32_t mapcount; /* mappings of the folio (folio_rmap_lock() to change; read anywhere) */
	uint32_t nr_rmap, cap_rmap;
	union {
		struct sws_rmap rmap1; /* anon: the first mapping */
		struct {               /* PG_file: folio->mapping and folio->index */
			uint32_t file;
			uint64_t index;
		} mapping;
	};
	struct sws_rmap *rmaps;  /* more mappings (after fork), cap_rmap entries */
	sws_entry_t swap;  /* folio->swap while PG_swapcache */
	uint64_t seed;     /* content identity: the bytes are a function of it */
	/* PG_page_seed: a large folio read from slots that separate folios filled;
	 * page i's seed is the one derived from seed XOR page_seed[i]
	 * (folio_page_seed()). 2^page_seed_order entries, kept for reuse as rmaps. */
	uint64_t *page_seed;
	_Atomic uint32_t gen; /* claims of this descriptor: a CPU batch's entry is stale when it differs */
	uint8_t page_seed_order;
};

/* The content seeds of one cluster's slots (content.c). */
struct sws_seed_table {
	_Atomic uint64_t seed[SWS_CLUSTER_SLOTS];
};

struct sws_lru {
	uint32_t head[NR_LRU_LISTS], tail[NR_LRU_LISTS]; /* by enum lru_list; head = oldest */
	uint64_t nr[NR_LRU_LISTS];                       /* pages */
};

struct sws_memcg {
	uint64_t limit;
	uint64_t high;          /* memory.high, pages; 0: none */
	uint32_t swap_tiers;    /* memory.swap.tiers.max: a tier mask; 0: every tier */
	_Atomic uint64_t usage; /* pages charged */
	uint32_t usage_last;    /* the modelled clock: the CPU that wrote usage last (id + 1) */
	sws_spinlock_t lru_lock; /* the lruvec's lock (one node) */
	struct sws_lru lru;     /* lru_lock */
	/* The lruvec's reclaim costs (lru_note_cost(): [0] anon, [1] file) and the
	 * workingset activations reclaim last saw (snapshot_refaults()), lru_lock */
	uint64_t cost[2], refaults[2];
	_Atomic uint64_t workingset_activate[2]; /* WORKINGSET_ACTIVATE_ANON/FILE of the lruvec */
	/* The trace records this memcg's reclaim (sws_mm_reclaim_recorded()): a
	 * charge that finds it full leaves the reclaim to the record that follows */
	_Atomic bool reclaim_recorded;
	_Atomic uint64_t reclaim_credit[2]; /* anon, file pages its own charges reclaimed that no record counted yet */
	/* Pages the kernel charged that the model does not hold (page tables, slab,
	 * kernel stacks): what usage lacked when a reclaim's begin said the
	 * kernel's was full (sws_mm_reclaim_recorded() of 0 pages) */
	_Atomic uint64_t kernel_pages;
	/* The trace records the begin of each of its reclaims too: its charges
	 * never reclaim, the records do it all */
	_Atomic bool reclaim_begins;
};

/* A file's page cache (struct address_space's i_pages, filemap.c): page index
 * -> folio or shadow, in chunks of 512 entries allocated as first used. */
struct sws_file {
	sws_spinlock_t lock; /* the i_pages lock */
	uint64_t **chunk;    /* [nr_chunks] */
	uint64_t nr_chunks;
};
/* Files by id: a directory of SWS__MM_FILE_DIR tables of as many files,
 * each allocated as first used. */
#define SWS__MM_FILE_DIR 4096
struct sws_file_table {
	struct sws_file *_Atomic file[SWS__MM_FILE_DIR];
};
struct sws_file_dir {
	struct sws_file_table *_Atomic table[SWS__MM_FILE_DIR];
};

/* A spinlock on a cache line of its own: locks of an array that different
 * CPUs take (hashed locks) do not share lines. */
struct sws_lock_line {
	_Alignas(SWS_CACHELINE) sws_spinlock_t l;
};

/* Reverse maps are guarded by one of these, hashed by PFN (the kernel's
 * anon_vma locks and atomic mapcounts: no lock a whole memcg shares). */
#define SWS__MM_RMAP_LOCKS 64

/* Page table entries. */
#define PTE_PRESENT 1ull
#define PTE_WRITE 2ull
#define PTE_ZEROPAGE 4ull /* present, read-only, maps the shared zero page */
#define PTE_SUB_SHIFT 3   /* index of the page inside its folio: bits 3..11 */
#define PTE_PFN_SHIFT 12
static inline bool pte_present(uint64_t pte) { return pte & PTE_PRESENT; }
static inline bool pte_is_swap(uint64_t pte) { return pte && !(pte & PTE_PRESENT); }
static inline uint64_t pte_pfn(uint64_t pte) { return pte >> PTE_PFN_SHIFT; }
static inline unsigned pte_sub(uint64_t pte) { return (unsigned)((pte >> PTE_SUB_SHIFT) & 511); }
static inline uint64_t mk_pte(uint64_t pfn, unsigned sub, bool write)
{
	return (pfn << PTE_PFN_SHIFT) | ((uint64_t)sub << PTE_SUB_SHIFT) | PTE_PRESENT |
	       (write ? PTE_WRITE : 0);
}
static inline uint64_t swp_entry_to_pte(sws_entry_t e) { return e << 1; }
static inline sws_entry_t pte_to_swp_entry(uint64_t pte) { return pte >> 1; }

#define REGION_VM_HUGEPAGE (1u << 14)   /* MADV_HUGEPAGE: the "madvise" mTHP orders apply */
#define REGION_VM_NOHUGEPAGE (1u << 15) /* MADV_NOHUGEPAGE: order 0 only */
#define REGION_ORDERS ((1u << SWS_NR_ORDERS) - 2)

struct sws_region {
	uint64_t start, end; /* [start, end) bytes */
	uint16_t orders;     /* the folio orders a first touch may take (bit k: 2^k pages; mTHP),
			      * and madvise()'s VM_HUGEPAGE / VM_NOHUGEPAGE (REGION_VM_*: kept
			      * with the orders, so that every split and copy of a region keeps them) */
	/* VMA readahead state (vma->swap_readahead_info) */
	uint64_t ra_addr;
	uint32_t ra_win, ra_hits;
};

/* Split page-table locks (USE_SPLIT_PTE_PTLOCKS): the kernel keeps one in each
 * PTE table's page; here a space has SWS__PTE_LOCKS, the table that maps
 * vaddr taking lock (vaddr >> PMD_SHIFT) % SWS__PTE_LOCKS, a cache line each. */
#define SWS__PTE_LOCKS 64
#define SWS__PMD_SHIFT 21

struct sws_space {
	/* mmap_lock (and page_table_lock): the regions and their readahead state,
	 * the page tables' lifetime; held with every PTE-table lock it is the
	 * whole space (munmap, exit, fork, walks: sws__mm_space_lock()). */
	sws_spinlock_t mmap_lock;
	bool alive;
	atomic_bool oom_killed; /* the OOM killer reaped it: accesses fail with SWS_EKILLED */
	uint16_t memcg;
	uint64_t seed;      /* content seeds of new pages derive from it */
	/* 4-level radix: 512 x 512 x 512 x 512 PTEs (48-bit VA); a table's slots
	 * are filled by compare-and-swap (PTE locks of different tables race) */
	_Atomic(void *) pgd;
	struct sws_region *regions; /* sorted, non-overlapping */
	uint32_t nr_regions, cap_regions;
	_Atomic uint64_t nr_tables; /* page-table pages allocated */
	uint32_t dead_next; /* once exited: the next on sws_mm's list of exited spaces */
	/* mm_cpumask() of CPUs 0 to 63 (in what was padding): those that ran
	 * it, a superset of those whose TLB holds it now (their loaded:
	 * sws__mm_tlb_pending() checks, and looks at CPUs from 64 one by one) */
	_Atomic uint64_t cpumask;
	struct sws_lock_line ptlocks[SWS__PTE_LOCKS];
};
_Static_assert(offsetof(struct sws_space, ptlocks) == 64, "a space's fields before its PTE locks fill one line");

/* pte_lockptr(): the lock of the PTE table that maps @vaddr. */
static inline sws_spinlock_t *pte_lockptr(struct sws_space *sp, uint64_t vaddr)
{
	return &sp->ptlocks[(vaddr >> SWS__PMD_SHIFT) % SWS__PTE_LOCKS].l;
}

/* PAGEVEC_SIZE: the folios a folio_batch holds (a CPU's LRU move batch, a
 * batch of folios freed together). */
#define SWS__PAGEVEC_SIZE 31

/* A CPU's folio batch for one LRU move (a cpu_fbatches member): each entry
 * keeps the claim it was made for (a freed and reused folio's entry is stale)
 * and its lruvec (the memcg's), read from the entry as the folio may be reused. */
struct sws__lru_fbatch {
	unsigned nr;
	struct {
		uint32_t pfn, gen;
		uint16_t memcg;
		bool active; /* lru_add: to the active list */
	} e[SWS__PAGEVEC_SIZE];
};

/* Per-CPU state of the model: counters (single writer). */

/* The mTHP swap-in stats (count_mthp_stat()'s MTHP_STAT_SWPIN*): a large
 * folio read whole; one whose allocation failed, the next order tried; of
 * those, one whose memcg charge failed. */
enum sws__swpin_stat { SWS__SWPIN, SWS__SWPIN_FALLBACK, SWS__SWPIN_FALLBACK_CHARGE };

struct sws_mm_pcpu {
	_Atomic uint64_t ctr[SWS_MM_NR_COUNTERS];
	_Atomic uint64_t swpout[SWS_NR_ORDERS];
	_Atomic uint64_t swpout_fallback[SWS_NR_ORDERS];
	_Atomic uint64_t zswpout_order[SWS_NR_ORDERS];
	_Atomic uint64_t tier_swpout[SWS_SWAP_NR_TIERS], tier_swpin[SWS_SWAP_NR_TIERS];
	_Atomic uint64_t reclaim_lat[SWS_MM_LAT_BUCKETS];
	_Atomic uint64_t reclaim_count, reclaim_sum_ns, reclaim_max_ns;
	/* simulated time (struct sws_mm_cpu_time), single writer */
	_Atomic uint64_t sys_ns, sys_modelled_ns, iowait_ns, background_ns;
	unsigned depth;   /* nesting of timed kernel entries: only the outermost reads the clock */
	unsigned untimed_depth; /* nesting of untimed regions (mm_untimed_begin) */
	uint64_t untimed_ns; /* untimed time inside the current outermost kernel entry */
	uint32_t current; /* the address space this CPU's access runs for (current->mm) */
	uint32_t fault_folio; /* sws_mm_access_folio(): the kernel's folio order + 1 (0: none), bit 8 a fallback */
	uint32_t loaded;  /* the address space it last ran for (its TLB's: mm_cpumask) */
	/* CPUs whose TLBs this CPU's reclaim must flush before it frees what it
	 * unmapped (try_to_unmap_flush()'s pending batch; the modelled clock) */
	uint64_t tlb_pending[4];
	/* cpu_fbatches (owner only): lru_add, new folios on their way to the LRU;
	 * lru_lazyfree, MADV_FREE's folios on their way to the inactive list;
	 * activate, page cache folios read again on their way to the active list */
	struct sws__lru_fbatch lru_add, lru_lazyfree, lru_activate;
	/* memcg_stock_pcp: pages charged ahead to one memcg (memcg << 32 | pages);
	 * the owner takes and refills it, drain_all_stock() empties it from anywhere */
	_Atomic uint64_t stock;
	/* RAM pages this CPU took ahead of free_pages (page_alloc.c, the free
	 * stock): the owner takes and refills it, page_alloc.c's ram_drain() empties it */
	_Atomic int64_t free_stock;
	/* The last space this CPU looked up (mm_space()) */
	struct sws_space *space;
	uint32_t space_asid;
	/* per_cpu_pages: free PFNs cached by this CPU (page_alloc.c), linked
	 * through folio->next; pcp_lock is the owner's but drain_all_pages()
	 * takes it from anywhere */
	sws_spinlock_t pcp_lock;
	uint32_t pcp_head, pcp_count;
	/* mTHP swpin and swpin_fallback of orders 1 to 8 (a large swap-in is below
	 * the PMD order), [stat][order - 1]: 32 bits, as they fit the last cache line */
	_Atomic uint32_t swpin[SWS__SWPIN_FALLBACK_CHARGE][SWS_NR_ORDERS - 2];
	/* mTHP anon_fault_alloc, anon_fault_fallback, anon_fault_fallback_charge of
	 * orders 1 to 9, [order - 1] (memory.c's alloc_anon_folio()): 32 bits, as swpin */
	_Atomic uint32_t anon_fault_alloc[SWS_NR_ORDERS - 1], anon_fault_fallback[SWS_NR_ORDERS - 1],
		anon_fault_fallback_charge[SWS_NR_ORDERS - 1];
} __attribute__((aligned(64)));

#define SWS__MM_NO_ASID UINT32_MAX

struct sws_mm {
	struct sws_sim *sim;
	struct sws_mm_config cfg;
	uint32_t page_cluster;   /* vm.page-cluster (cfg - 1, default 3) */
	uint32_t content_total;
	uint32_t content_weight[SWS_NR_CONTENT];
	/* the large orders (below the PMD's) any region may have: the policy's,
	 * and those an mmap with SWS_MM_MAP_ORDER() added (mmap.c); none: every
	 * swap-in is order 0, decided without a lock (memory.c) */
	_Atomic uint32_t swapin_orders_any;

	/* Folios and RAM (page_alloc.c) */
	struct sws_folio *folios; /* [nr_pfn] reserved: the vmemmap (folio_map) */
	uint32_t nr_pfn;          /* RAM pages + 65: PFN 0 is "none", 64 for the reserves */
	sws_spinlock_t pfn_lock;  /* the free PFNs below and the growth of folio_map */
	struct sws_arena folio_map; /* mapped by whole sections, far enough for PFNs < pfn_hwm */
	uint32_t free_head;       /* freed PFNs, last freed first, linked through folio->next */
	uint32_t nr_free_listed;  /* PFNs on that list */
	uint32_t pfn_hwm;         /* PFNs [1, pfn_hwm) have been claimed; the rest never were */
	_Atomic int64_t free_pages; /* RAM pages not in a folio, less the CPUs' free stocks */
	_Atomic int64_t kernel_swap_pages; /* of those, taken by swap metadata and the zswap pool */
	/* moves of RAM pages between free_pages and a stock begun and finished:
	 * a failed allocation knows whether pages were in flight meanwhile */
	_Atomic uint64_t ram_moves_started, ram_moves_done;
	atomic_bool ram_tight; /* stocks are not refilled, frees go to free_pages */
	sws_spinlock_t ram_lock; /* an allocation that found RAM short (a leaf) */

	/* Memcgs and LRU */
	sws_spinlock_t memcg_lock;  /* creating memcgs */
	struct sws_memcg *memcgs; /* [nr_memcgs]; 0 = root */
	uint32_t nr_memcgs, cap_memcgs;
	uint32_t reclaim_memcg_rr; /* round robin of global reclaim */
	_Atomic uint64_t nonresident_age; /* workingset eviction clock */
	_Atomic uint64_t lru_clock;       /* not maintained (0) */
	/* Exited spaces whose descriptors wait for sws_mm_spaces_trim() (a list
	 * through sws_space.dead_next: asid + 1, 0 ends it), and per trimmed
	 * asid one bit: the OOM killer took it (spaces_lock; in what was the
	 * padding before rmap_locks). */
	uint32_t dead_head, nr_dead;
	uint64_t *trimmed_killed;
	uint32_t trimmed_words;
	struct sws_lock_line rmap_locks[SWS__MM_RMAP_LOCKS];

	/* Address spaces */
	sws_spinlock_t spaces_lock; /* the array itself, and the exited list above */
	struct sws_space **spaces;  /* NULL where sws_mm_spaces_trim() freed an exited one */
	uint32_t nr_spaces, cap_spaces;

	/* Swap side tables, per device type. The content seed of each slot
	 * (content.c): per cluster, a table of 512 seeds or NULL, allocated by the
	 * first write to the cluster and freed when the cluster is free ... */
	_Atomic(struct sws_seed_table *) *slot_seed[SWS_MAX_SWAPFILES];
	/* ... in a per-cluster array of the device: on an extendable device mapped
	 * as far as its clusters are, like the device's own metadata */
	struct sws_cluster_array seed_array[SWS_MAX_SWAPFILES];
	uint64_t slot_seed_len[SWS_MAX_SWAPFILES];
	uint64_t read_ns[SWS_MAX_SWAPFILES], write_ns[SWS_MAX_SWAPFILES];
	bool io_is_cpu[SWS_MAX_SWAPFILES]; /* SYNCHRONOUS_IO: the latency is CPU work (sys) */
	bool io_zram[SWS_MAX_SWAPFILES];   /* zram: the modelled clock prices its compression */

	/* Cluster readahead state (global, as the kernel's) */
	_Atomic uint32_t ra_hits;
	sws_spinlock_t ra_lock;   /* the cluster readahead window (the kernel's racy globals) */
	uint64_t ra_prev_offset;
	uint32_t ra_prev_win;
	unsigned nr_cpus;         /* sws__sim_max_cpus(sim): pcpu's length */

	struct sws_mm_pcpu *pcpu; /* [nr_cpus] */
	/* waits per lock class, SWS_MM_lock_ptl_contended onwards (rare: shared is fine) */
	_Atomic uint64_t lock_contended[SWS_MM_lock_mm_other_contended - SWS_MM_lock_ptl_contended + 1];
	/* mTHP swpin_fallback_charge of orders 1 to 8, [order - 1] (rare: shared is fine) */
	_Atomic uint32_t swpin_fallback_charge[SWS_NR_ORDERS - 2];

	/* The page cache (filemap.c): its files (NULL until one is used), the
	 * backing store's latency model */
	struct sws_file_dir *_Atomic files;
	atomic_bool file_used;   /* a page cache page was ever created */
	uint64_t file_read_ns, file_write_ns;

	struct sws_zswap *zswap;  /* NULL until sws_mm_zswap_enable() */
	struct sws_cpu *spare_cpu; /* memory for the CPU sws_mm_destroy() attaches */
};

/*
 * Sections of the folio map (page_alloc.c): the kernel's SPARSEMEM_VMEMMAP,
 * PFN_SECTION_SHIFT 15 on x86-64: 128 MiB of 4 KiB frames, 2.75 MiB of
 * descriptors here. The kernel populates the vmemmap of every present
 * section at boot; the model maps a section's descriptors when the
 * free-frame allocator first hands out one of its PFNs.
 */
#define SWS__MM_SECTION_SHIFT 15
#define SWS__MM_SECTION_PFNS (1u << SWS__MM_SECTION_SHIFT)

/* Internal "retry the fault" code, never returned to callers. */
#define SWS_EAGAIN_INTERNAL (-1000)
/* Internal: a charge that may not reclaim (or retry) found the memcg at its
 * limit (try_charge_memcg()'s nomem); never returned to callers. */
#define SWS_ECHARGE_INTERNAL (-1001)

/* ---- helpers ------------------------------------------------------------------- */

static inline void mm_count(struct sws_mm *mm, struct sws_cpu *cpu, enum sws_mm_counter c, uint64_t n)
{
	_Atomic uint64_t *p = &mm->pcpu[sws__cpu_id(cpu)].ctr[c];
	sws_store_relaxed(p, sws_load_relaxed(p) + n);
}

/* current->mm: the space the CPU's access runs for, SWS__MM_NO_ASID outside one. */
static inline uint32_t sws__mm_current(const struct sws_mm *mm, const struct sws_cpu *cpu)
{
	return mm->pcpu[sws__cpu_id(cpu)].current;
}

/* ---- simulated time ------------------------------------------------------------- */

/* The modelled clock: @n units of cost class @c on @cpu (nothing with the host clock). */
static inline void mm_cost(struct sws_cpu *cpu, enum sws_cost c, uint64_t n)
{
	struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
	if (vc)
		sws__vt_charge(vc, c, n);
}

/* zswap's compression (@decompress: its decompression) of a page whose content
 * seed is @seed, priced by its content class and the pool's compressor. */
void sws__mm_cost_zcomp(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t seed, bool decompress);

/* A page_counter update of @mc (the modelled clock): an atomic on a line the
 * memcg's CPUs share. */
static inline void mm_page_counter(struct sws_memcg *mc)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (vc) {
		sws__vt_charge(vc, SWS_COST_page_counter, 1);
		sws__vt_line(vc, &mc->usage_last);
	}
}

/* The same on the CPU running this code, for helpers without a CPU argument. */
static inline void mm_cost_here(enum sws_cost c, uint64_t n)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (vc)
		sws__vt_charge(vc, c, n);
}

static inline void mm_time_add(_Atomic uint64_t *p, uint64_t ns)
{
	sws_store_relaxed(p, sws_load_relaxed(p) + ns);
}

/* The CPU's clock (ns): its busy virtual time under the modelled clock, else
 * the host's. */
static inline uint64_t mm_clock(struct sws_mm *mm, struct sws_cpu *cpu)
{
	struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
	if (vc)
		return sws__vt_busy(vc) / 1000;
	return sws__sim_clock_ns(mm->sim);
}

/* Entering the model's kernel (a syscall, a fault, kswapd): @return the clock,
 * read by the outermost entry only (0 when nested), which pays kernel_entry. */
static inline uint64_t mm_kernel_enter(struct sws_mm *mm, struct sws_cpu *cpu)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	if (p->depth++)
		return 0;
	uint64_t t0 = mm_clock(mm, cpu);
	struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
	if (vc)
		sws__vt_charge(vc, SWS_COST_kernel_entry, 1);
	return t0;
}

/* Leaving it: the time since the entry goes to sys, less its untimed regions. */
static inline void mm_kernel_exit(struct sws_mm *mm, struct sws_cpu *cpu, uint64_t t0)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	if (--p->depth == 0) {
		uint64_t ns = mm_clock(mm, cpu) - t0;
		mm_time_add(&p->sys_ns, ns > p->untimed_ns ? ns - p->untimed_ns : 0);
		p->untimed_ns = 0;
	}
}

/*
 * Untimed regions: work inside a kernel entry that is not the running task's
 * kernel time, so the CPU's clock stops from mm_untimed_begin() to
 * mm_untimed_end() and the outermost kernel exit leaves that time out of sys
 * (and of the reclaim round around it). Two kinds:
 *  - simulator-only work (@background false): making a page's bytes from its
 *    content seed, verifying bytes read back, the host I/O of a backing store
 *    whose device time the latency model already charges;
 *  - work the kernel does on another thread that the model runs inline
 *    (@background true): the OOM reaper's unmapping of a victim
 *    (__oom_reap_task_mm, the oom_reaper kthread). Its time goes to the
 *    CPU's background_ns, which callers charge to no task (the replay: with
 *    kswapd).
 * Each region reads the clock twice (a background one also outside a kernel
 * entry); nested regions read nothing.
 */
static inline uint64_t mm_untimed_begin(struct sws_mm *mm, struct sws_cpu *cpu, bool background)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	if (p->untimed_depth++ || (!p->depth && !background))
		return UINT64_MAX;
	return mm_clock(mm, cpu);
}

static inline void mm_untimed_end(struct sws_mm *mm, struct sws_cpu *cpu, uint64_t t0, bool background)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	p->untimed_depth--;
	if (t0 == UINT64_MAX)
		return;
	uint64_t ns = mm_clock(mm, cpu) - t0;
	if (p->depth)
		p->untimed_ns += ns;
	if (background)
		mm_time_add(&p->background_ns, ns);
}

/*
 * Where page I/O of @nr slots from @e goes: @e itself, or under vswap the
 * physical run behind the virtual entries (@write gives them one). @return
 * as sws_swap_io_target().
 */
static inline int mm_io_target(struct sws_cpu *cpu, struct sws_mm *mm, sws_entry_t e, unsigned nr, bool write,
			       sws_entry_t *t)
{
	if (sws_likely(!sws__design_virtual(mm->sim))) {
		*t = e;
		return 0;
	}
	return sws_swap_io_target(cpu, e, nr, write, t);
}

/* page_io.c: mm_io() under the modelled clock. */
void sws__mm_io_model(struct sws_mm *mm, struct sws_cpu *cpu, unsigned type, uint64_t ns, bool wait, bool write,
		      uint64_t seed);

/*
 * @ns of device @type's modelled time for a read (@write false) or a write:
 * the device is busy (modelled_io_ns); with @wait the running task waits for
 * it: iowait, or CPU time on a SYNCHRONOUS_IO device (zram, pmem compress
 * and copy on the CPU). Under the modelled clock the request goes through
 * the device's queue (sws__mm_io_model); @seed: the content seed of its
 * (first) page, zram's compression under the modelled clock.
 */
static inline void mm_io(struct sws_mm *mm, struct sws_cpu *cpu, unsigned type, uint64_t ns, bool wait, bool write,
			 uint64_t seed)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	mm_time_add(&p->ctr[SWS_MM_modelled_io_ns], ns);
	if (sws__cpu_vcpu(cpu)) {
		sws__mm_io_model(mm, cpu, type, ns, wait, write, seed);
		return;
	}
	if (!wait)
		return;
	if (mm->io_is_cpu[type]) {
		mm_time_add(&p->sys_ns, ns);
		mm_time_add(&p->sys_modelled_ns, ns);
	} else {
		mm_time_add(&p->iowait_ns, ns);
	}
}

/* pfn_to_page() of the vmemmap: @pfn has been claimed, so its section is mapped. */
static inline struct sws_folio *mm_folio(struct sws_mm *mm, uint64_t pfn) { return &mm->folios[pfn]; }

static inline uint64_t folio_nr(const struct sws_folio *f) { return 1ull << f->order; }

/* The folio lock (PG_locked), a sleeping lock: under the modelled clock a
 * CPU that finds it taken sleeps in virtual time (vtime.h). */
static inline bool folio_trylock(struct sws_folio *f)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc))
		return sws__vt_bit_trylock(vc, &f->flags, PG_locked);
	return !(atomic_fetch_or_explicit(&f->flags, PG_locked, memory_order_acquire) & PG_locked);
}
static inline void folio_lock(struct sws_folio *f)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc)) {
		sws__vt_bit_lock_inline(vc, &f->flags, PG_locked, SWS_LOCK_folio);
		return;
	}
	while (!folio_trylock(f))
		sched_yield();
}
static inline void folio_unlock(struct sws_folio *f)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc)) {
		sws__vt_bit_unlock(vc, &f->flags, PG_locked);
		return;
	}
	atomic_fetch_and_explicit(&f->flags, ~(uint32_t)PG_locked, memory_order_release);
}
/* The descriptor goes free: every flag but PG_free drops, PG_locked with them
 * (a release: under the modelled clock a waiter for the lock wakes). */
static inline void folio_set_free(struct sws_folio *f)
{
	struct sws_vcpu *vc = sws__vt_current;
	if (sws_unlikely(vc))
		sws__vt_sync(vc);
	atomic_store(&f->flags, PG_free);
	if (sws_unlikely(vc) && *vc->nr_blocked)
		vc->ops->wake(vc, &f->flags);
}
static inline bool folio_test(struct sws_folio *f, uint32_t flag) { return sws_load_relaxed(&f->flags) & flag; }
static inline void folio_set(struct sws_folio *f, uint32_t flag) { atomic_fetch_or(&f->flags, flag); }
static inline void folio_clear(struct sws_folio *f, uint32_t flag) { atomic_fetch_and(&f->flags, ~flag); }
/* A function whose caller holds a folio's lock (PG_locked, the kernel's
 * sleeping folio lock) keeps its kernel name and checks the lock first; with
 * NDEBUG it compiles to nothing (docs/design.md). */
#define SWS_ASSERT_FOLIO_LOCKED(f) assert(folio_test((f), PG_locked))
static inline bool folio_test_clear(struct sws_folio *f, uint32_t flag)
{
	return atomic_fetch_and(&f->flags, ~flag) & flag;
}

/* splitmix64: seeds and content. */
static inline uint64_t mm_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The inverse of mm_mix(): a large folio's seed from its first page's. */
static inline uint64_t mm_unmix(uint64_t x)
{
	x ^= (x >> 31) ^ (x >> 62);
	x *= 0x319642b2d24d8ec3ull;
	x ^= (x >> 27) ^ (x >> 54);
	x *= 0x96de1b173f119089ull;
	x ^= (x >> 30) ^ (x >> 60);
	return x - 0x9e3779b97f4a7c15ull;
}

/* Acquire: a mapping found gone (the count fell) comes after every access its
 * holder made to the folio before rmap_del (a page mapped writable on it). */
static inline uint32_t folio_mapcount(struct sws_folio *f)
{
	return atomic_load_explicit(&f->mapcount, memory_order_acquire);
}

/* folio_lruvec_lock(): the lock of the LRU lists @f is (or goes) on. */
static inline sws_spinlock_t *folio_lru_lock(struct sws_mm *mm, const struct sws_folio *f)
{
	return &mm->memcgs[f->memcg].lru_lock;
}

/* sws_spin_lock() of @l, a wait counted against its lock class @cls (one of the
 * SWS_MM_lock_*_contended counters). */
static inline void mm_lock(struct sws_mm *mm, sws_spinlock_t *l, enum sws_mm_counter cls)
{
	static const enum sws_lock_class lc[] = {SWS_LOCK_ptl, SWS_LOCK_lru, SWS_LOCK_pfn, SWS_LOCK_rmap, SWS_LOCK_mm};
	_Static_assert(SWS_MM_lock_lru_contended == SWS_MM_lock_ptl_contended + 1 &&
			       SWS_MM_lock_pfn_contended == SWS_MM_lock_ptl_contended + 2 &&
			       SWS_MM_lock_rmap_contended == SWS_MM_lock_ptl_contended + 3 &&
			       SWS_MM_lock_mm_other_contended == SWS_MM_lock_ptl_contended + 4,
		       "mm_lock's class map follows the counters");
	if (sws_unlikely(sws_spin_lock_cls(l, lc[cls - SWS_MM_lock_ptl_contended])))
		atomic_fetch_add_explicit(&mm->lock_contended[cls - SWS_MM_lock_ptl_contended], 1,
					  memory_order_relaxed);
}

/* The lock of @f's reverse maps and mapcount. */
static inline sws_spinlock_t *folio_rmap_lock(struct sws_mm *mm, const struct sws_folio *f)
{
	return &mm->rmap_locks[(uint64_t)(f - mm->folios) % SWS__MM_RMAP_LOCKS].l;
}

/* The content seed of page @i of @f (a large folio's pages derive theirs,
 * each XOR its own where the pages came from separate folios: PG_page_seed). */
static inline uint64_t folio_page_seed(const struct sws_folio *f, unsigned i)
{
	if (!f->order)
		return f->seed;
	uint64_t s = mm_mix(f->seed + i);
	return atomic_load_explicit(&f->flags, memory_order_relaxed) & PG_page_seed ? s ^ f->page_seed[i] : s;
}

/*
 * Verify mode: each PTE has a shadow word, the content seed the space last
 * wrote there or inherited at fork (leaf tables are twice as large: the
 * shadows follow the 512 PTEs). An access checks the mapped page against it,
 * so a process that sees another's writes (a copy-on-write gone wrong) is
 * caught, as is a page read back different. @pte from sws___pte_lookup/alloc.
 */
static inline uint64_t *pte_expected(uint64_t *pte) { return pte + 512; }

/* ====================================================================
 *  Cross-file functions, by the file that defines them. sws___name: the
 *  caller holds the lock its comment opens with (asserted in debug builds).
 * ==================================================================== */

/* page_alloc.c */
/* @nr free PFNs into @pfns, all or none: the last freed first, then never
 * claimed ones upwards, whose sections it maps. No lock held (it takes
 * pfn_lock). @return 0 or SWS_ENOMEM (fewer free PFNs, or a section could
 * not be mapped). */
int sws__mm_pfn_take(struct sws_mm *mm, unsigned nr, uint32_t *pfns);
/* A descriptor out of use (PG_free set) onto @cpu's list (NULL: the free list). */
void sws__mm_pfn_put(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);
/* Claim free descriptor @pfn: take its lock first (a stale swap-cache lookup may
 * hold it for a moment), then reset it. Returns it locked. */
struct sws_folio *sws__mm_folio_claim(struct sws_mm *mm, uint64_t pfn, unsigned order, uint16_t memcg);
/* Reserve the folio map (sws_mm_create(); @return 0 or SWS_ENOMEM); give it
 * back whole (sws_mm_destroy()). */
int sws__mm_folio_map_init(struct sws_mm *mm);
void sws__mm_folio_map_fini(struct sws_mm *mm);
/* With the kernel's swap pages in RAM (SWS_MM_KERNEL_RAM): free_pages moved
 * by their change since the last call. */
void sws__mm_kernel_swap_sync(struct sws_mm *mm);
/* RAM pages not in a folio: free_pages and every CPU's free stock. Inline: a
 * charge asks it on every round. */
static inline int64_t sws__mm_free_pages(struct sws_mm *mm)
{
	if (mm->cfg.flags & SWS_MM_KERNEL_RAM)
		sws__mm_kernel_swap_sync(mm);
	int64_t n = atomic_load_explicit(&mm->free_pages, memory_order_relaxed);
	if (mm->cfg.policy == SWS_RECLAIM_LRU)
		return n; /* the exact-LRU reference keeps no stocks (free_stock()) */
	for (unsigned i = 0; i < mm->nr_cpus; i++)
		n += atomic_load_explicit(&mm->pcpu[i].free_stock, memory_order_relaxed);
	return n;
}
/* Take @nr pages of RAM for an allocation on @cpu: from its free stock, else
 * from free_pages with a batch ahead into the stock (NULL, or the exact-LRU
 * policy: exactly @nr, no stock). @return false when fewer are free
 * (after every stock went back to free_pages). */
bool sws__mm_ram_take(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t nr);
/* Give @nr pages of RAM back: into @cpu's free stock (the excess above two
 * batches to free_pages), or to free_pages. */
void sws__mm_ram_give(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t nr);
/* A new folio, charged (reclaiming as needed), returned locked. */
int sws__mm_folio_alloc(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, unsigned order,
			uint64_t *pfn);
/* The same, charged as @gfp allows (enum sws__gfp): SWS_ECHARGE_INTERNAL when
 * the memcg is full, SWS_ENOMEM when RAM is, where it may not reclaim further. */
int sws__mm_folio_alloc_gfp(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, unsigned order,
			    unsigned gfp, uint64_t *pfn);
/* The same without reclaim (zswap writeback runs inside reclaim): SWS_ENOMEM instead. */
int sws__mm_folio_alloc_noreclaim(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t *pfn);
/* Free @pfn's folio: uncharged, its descriptor onto @cpu's page list (or the
 * free list without a CPU). */
void sws__mm_folio_free(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);
/* A folio_batch: locked folios that nothing maps or caches any more, freed
 * together. */
struct sws__folio_batch {
	unsigned nr;
	uint32_t pfn[SWS__PAGEVEC_SIZE];
};
/* folio_batch_add(): @pfn joins @fb. @return the room left (0: full, free it). */
static inline unsigned folio_batch_add(struct sws__folio_batch *fb, uint64_t pfn)
{
	fb->pfn[fb->nr++] = (uint32_t)pfn;
	return SWS__PAGEVEC_SIZE - fb->nr;
}
/* The batch's folios, off the LRU: uncharged (mem_cgroup_uncharge_folios()),
 * then freed in order as sws__mm_folio_free() frees (free_unref_folios()); the
 * batch is empty after. */
void sws__mm_folio_batch_free(struct sws_cpu *cpu, struct sws_mm *mm, struct sws__folio_batch *fb);

/* memcontrol.c: try_charge() of @nr pages to @memcg and RAM, reclaiming and
 * then calling the OOM killer as needed. @return 0, SWS_EKILLED, SWS_ENOMEM. */
int sws__mm_charge(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr);
/* The reclaim a charge may do: the gfp mask's reclaim bits, reduced to what
 * vma_thp_gfp_mask() gives a large anonymous folio (huge_memory.c). */
enum sws__gfp {
	SWS__GFP_KERNEL,     /* reclaim, retry, then the OOM killer (every order-0 folio) */
	SWS__GFP_TRANSHUGE,  /* reclaim and retry; no OOM kill (order > PAGE_ALLOC_COSTLY_ORDER) */
	SWS__GFP_NORETRY,    /* GFP_TRANSHUGE | __GFP_NORETRY: one reclaim round and a drain */
	SWS__GFP_LIGHT,      /* GFP_TRANSHUGE_LIGHT: no direct reclaim, fail at once */
};
/* try_charge() as @gfp allows: SWS__GFP_KERNEL is sws__mm_charge(); the others
 * fail instead of calling the OOM killer, SWS_ECHARGE_INTERNAL when the memcg
 * was full, SWS_ENOMEM when RAM was. */
int sws__mm_charge_gfp(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr, unsigned gfp);
/* A recorded reclaim's begin: @memcg's usage to its limit (kernel_pages). @return the
 * pages the model holds beyond the kernel's. */
uint64_t sws__mm_memcg_full(struct sws_mm *mm, uint16_t memcg);
/* mem_cgroup_uncharge_folios(): the pages of the @n folios @pfn off their
 * memcgs' counters, one update per run of folios of one memcg (uncharge_batch()). */
void sws__mm_uncharge_folios(struct sws_mm *mm, const uint32_t *pfn, unsigned n);

/* swap.c: the LRU lists */
void sws__mm_lru_add(struct sws_mm *mm, uint64_t pfn, bool active);
/* The folio's lru_lock (folio_lru_lock()) held: off its list. */
void sws___mm_lru_unlink(struct sws_mm *mm, uint64_t pfn);
/* The folio's lru_lock held: put at the MRU end of @which. */
void sws___mm_lru_move(struct sws_mm *mm, uint64_t pfn, unsigned which);
void sws__mm_lru_del(struct sws_mm *mm, uint64_t pfn);
/* folios_put(): the batch's folios off the LRU, each lruvec's lock taken once
 * per run of its folios (folio_lruvec_relock()), uncharged, freed; the batch
 * is empty after. */
void sws__mm_folios_put(struct sws_cpu *cpu, struct sws_mm *mm, struct sws__folio_batch *fb);
/* folio_rotate_reclaimable(): the folio (its write-back done, clean, PG_reclaim)
 * to the end of the inactive list reclaim takes next. */
void sws__mm_folio_rotate_reclaimable(struct sws_mm *mm, uint64_t pfn);
/* folio_add_lru(): a new folio joins this CPU's batch (the exact-LRU reference
 * policy adds at once); the batch goes to the lists when full or drained. */
void sws__mm_folio_add_lru(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn, bool active);
/* @mc's lru_lock held: lru_note_cost(): reclaim of @file's type cost @nr_io
 * pages of I/O and @nr_rotated pages scanned but kept; the costs decay by
 * half when they exceed a quarter of the lists. */
void sws___mm_lru_note_cost(struct sws_mm *mm, struct sws_memcg *mc, bool file, uint64_t nr_io,
			    uint64_t nr_rotated);
/* __lru_cache_activate_folio(): @pfn, when in this CPU's add batch, goes to
 * the active list as the batch drains. */
void sws__mm_lru_batch_activate(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);
/* folio_mark_lazyfree(): MADV_FREE's folio @pfn (clean, out of the swap
 * cache) joins this CPU's lru_lazyfree batch; it becomes lazily freed
 * (PG_lazyfree, pglazyfree) when the batch moves. */
void sws__mm_folio_mark_lazyfree(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);
/* folio_activate(): folio @pfn, on an inactive list, joins this CPU's
 * activate batch; it goes to the active list (pgactivate) when the batch moves. */
void sws__mm_folio_activate(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);
/* lru_add_drain(): this CPU's batches (lru_add, lru_lazyfree, activate) moved. */
void sws__mm_lru_add_drain(struct sws_cpu *cpu, struct sws_mm *mm);
/* folio_mark_accessed(): the accessed bit, or (exact LRU) a move to the young end. */
void sws__mm_mark_accessed(struct sws_mm *mm, uint64_t pfn);

/* rmap.c (the folio's rmap lock taken inside) */
int sws__mm_rmap_add(struct sws_mm *mm, struct sws_folio *f, uint32_t asid, uint64_t vaddr);
/* @return whether mappings remain, the first of them in *@next (may be NULL). */
bool sws__mm_rmap_del(struct sws_mm *mm, struct sws_folio *f, uint32_t asid, uint64_t vaddr, struct sws_rmap *next);
/* The first mapping of @f left to undo. */
bool sws__mm_first_rmap(struct sws_mm *mm, struct sws_folio *f, struct sws_rmap *out);
/* Under the modelled clock: reclaim unmapped a page of space @asid, its TLB
 * flush pending on every CPU that runs it; the pending flush, done. */
void sws__mm_tlb_pending(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint32_t asid);
void sws__mm_tlb_flush_pending(struct sws_cpu *cpu, struct sws_mm *mm);
/* try_to_unmap(): every mapping of locked @pfn becomes swap PTEs of @entry.
 * @return false: a swap count could not be taken (the folio stays). */
bool sws__mm_try_to_unmap(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn, sws_entry_t entry);
/* try_to_unmap() of a lazily freed folio (locked): every mapping goes, PTEs none. */
void sws__mm_try_to_unmap_discard(struct sws_mm *mm, uint64_t pfn);

/* huge_memory.c */
/* split_folio(): locked, isolated @pfn of order > 0 becomes order-0 folios on
 * the inactive list (the RAM stays charged; in the swap cache, each slot
 * keeps its page). @return 0 or SWS_ENOMEM. */
int sws__mm_split_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);
/* Split every large folio that straddles @start or @end, so a range op takes whole folios. */
void sws__mm_split_edges(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t start, uint64_t end);

/* pgtable.c: with the ptl of the address held, or (walks, freeing) the whole space */
/* The index of @vaddr's entry in its table of @level (3 = PGD .. 0 = PTE). */
static inline unsigned pt_index(uint64_t vaddr, int level)
{
	return (unsigned)((vaddr >> (12 + 9 * level)) & 511);
}
/* The table below @t (of @level > 0) on the way to @vaddr, or NULL. */
static inline void *pt_next(void *t, uint64_t vaddr, int level)
{
	return atomic_load_explicit(&((_Atomic(void *) *)t)[pt_index(vaddr, level)], memory_order_acquire);
}
/* The PTE of @vaddr, or NULL (no leaf table maps it yet): inline, as every
 * access walks it (pte_offset_map()). */
static inline uint64_t *sws___pte_lookup(struct sws_space *sp, uint64_t vaddr)
{
	SWS_ASSERT_HELD(pte_lockptr(sp, vaddr));
	void *pgd = atomic_load_explicit(&sp->pgd, memory_order_acquire);
	void *pud = pgd ? pt_next(pgd, vaddr, 3) : NULL;
	void *pmd = pud ? pt_next(pud, vaddr, 2) : NULL;
	void *pte = pmd ? pt_next(pmd, vaddr, 1) : NULL;
	return pte ? &((uint64_t *)pte)[pt_index(vaddr, 0)] : NULL;
}
/* The PTE of @vaddr given @prev, that of the page before it: the next entry
 * of the same table, or a lookup where a new table starts. */
static inline uint64_t *__pte_next(struct sws_space *sp, uint64_t *prev, uint64_t vaddr)
{
	SWS_ASSERT_HELD(pte_lockptr(sp, vaddr));
	return prev && ((vaddr / SWS_PAGE_SIZE) % 512) ? prev + 1 : sws___pte_lookup(sp, vaddr);
}
int sws___pte_alloc(struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr, uint64_t **ptep);
/* The whole space locked: call @fn for every non-empty PTE in [start, end). */
void sws___pte_walk(struct sws_space *sp, uint64_t start, uint64_t end,
		    void (*fn)(void *ctx, uint64_t vaddr, uint64_t *pte), void *ctx);
void sws___pgtable_free(struct sws_mm *mm, struct sws_space *sp);

/* mmap.c */
struct sws_space *sws__mm_space(struct sws_mm *mm, uint32_t asid);
/* The whole space: its mmap_lock, then every PTE-table lock in index order. */
void sws__mm_space_lock(struct sws_mm *mm, struct sws_space *sp);
void sws__mm_space_unlock(struct sws_space *sp);
/* sws__mm_space() through @cpu's one-entry cache: a space's descriptor stays
 * until sws_mm_destroy() or, once exited, a sws_mm_spaces_trim() (a quiescent
 * point that empties every CPU's cache), so a cached pointer never goes stale. */
static inline struct sws_space *mm_space(struct sws_mm *mm, struct sws_cpu *cpu, uint32_t asid)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	if (sws_likely(p->space && p->space_asid == asid))
		return p->space;
	struct sws_space *sp = sws__mm_space(mm, asid);
	if (sp) {
		p->space = sp;
		p->space_asid = asid;
	}
	return sp;
}
int sws__mm_space_new(struct sws_mm *mm, uint16_t memcg, uint32_t *asid, struct sws_space **out);
/* The mmap_lock of @sp held: the region of @vaddr, or NULL. */
struct sws_region *sws___mm_region(struct sws_space *sp, uint64_t vaddr);
/* The mmap_lock of @sp held: a new region [start, end). @return 0, SWS_EINVAL (overlap), SWS_ENOMEM. */
int sws___mm_region_insert(struct sws_mm *mm, struct sws_space *sp, uint64_t start, uint64_t end, unsigned orders);
/* The mmap_lock of @sp held: a first touch outside every region maps the implicit region around it. */
void sws___mm_mmap_implicit(struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr);
/* A live space and a page-aligned, non-empty range below 2^48. */
int sws__mm_range_ok(struct sws_space *sp, uint64_t addr, uint64_t len);

/* memory.c */
/* alloc_swap_folio()'s allocation of a swap-in folio of @order (order 0: as
 * any page's). A large folio's gfp reclaims only with @reclaim (the region is
 * madvise()d MADV_HUGEPAGE: vma_thp_gfp_mask() under the default defrag
 * "madvise" gives GFP_TRANSHUGE there, else GFP_TRANSHUGE_LIGHT, which neither
 * reclaims nor lets the memcg charge reclaim), and it has room for its pages'
 * own seeds (PG_page_seed). A failure counts swpin_fallback, one whose memcg
 * charge failed swpin_fallback_charge too. @return as sws__mm_folio_alloc(). */
int sws__mm_swapin_folio_alloc(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, unsigned order,
			       bool reclaim, uint64_t *pfnp);
/* For swapfile.c: do_swap_page() of the swap PTE of @vaddr (the ptl not held;
 * SWS_EAGAIN_INTERNAL: the PTE changed meanwhile). */
int sws__mm_swapin_pte(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp, uint64_t vaddr,
		       sws_entry_t e);
/* zap_pte_range()'s batch: swap entries put in runs inside one cluster. */
struct sws__zap {
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	uint32_t asid;
	sws_entry_t run; /* a run of swap entries inside one cluster */
	unsigned nr;
	struct sws__folio_batch fb; /* the mmu_gather's folios, freed after the PTEs go */
};
/* Free the batched folios, then put the run (swap_put_entries_direct) and
 * reclaim what it left cache-only. It needs no lock but runs under a ptl (a
 * walk's): it only trylocks folios. */
void sws__mm_zap_flush(struct sws__zap *z);
/* Swap PTE value @v zapped: its entry joins the run (under a ptl, as above). */
void sws__mm_zap_swap_pte(struct sws__zap *z, uint64_t v);
/* The whole space @sp locked: zap the PTEs of [start, end). */
void sws___mm_zap_range(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp,
			uint64_t start, uint64_t end);
/* The whole of @sp and of the child @cp locked: copy_page_range() into @cp. */
int sws___mm_copy_page_range(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, struct sws_space *cp,
			     uint32_t child_asid);

/* swap_state.c */
/* The device a fault reads from, looked up once by do_swap_page()
 * (get_swap_device()) and passed down: the slot @t the page is read from
 * (the entry itself, or under vswap the physical slot behind it), whether it
 * is on a device (vswap: not when the page is zero, in zswap or in memory;
 * then @t is the entry), and @t's device @si (NULL: none); @fault: a task's
 * fault, which may read a large folio (swapoff's reads are order 0). */
struct sws__swapin_dev {
	sws_entry_t t;
	bool on_device, fault;
	struct sws_device *si;
};
/* swap_cache_get_folio() for a fault at @vaddr: @e's folio, locked (a large
 * one kept in the swap cache is split first). @return 0 and *@pfnp (the
 * readahead state updated, swapcache_hit counted); SWS_ENOENT: not in the
 * swap cache; SWS_EAGAIN: the folio changed meanwhile (look again); another
 * error (the split failed). */
int sws__mm_swap_cache_get_folio(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr,
				 sws_entry_t e, uint64_t *pfnp);
/* swapin_readahead(): with @readahead, the window around the fault read
 * ahead (VMA or cluster readahead; none from xswap), then @e read from
 * @sd's device into a new swap-cache folio (locked, on the LRU). @return 0
 * and *@pfnp; SWS_EEXIST (someone else is swapping it in); SWS_ENOENT (the
 * slot was freed); SWS_ENOMEM; SWS_ECORRUPT. */
int sws__mm_swapin_readahead(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr,
			     sws_entry_t e, const struct sws__swapin_dev *sd, bool readahead, uint64_t *pfnp);
/* swapin_sync(): a SYNCHRONOUS_IO device's miss at @vaddr read without
 * readahead into a new swap-cache folio of the largest of @orders (bit o:
 * order o > 0, each checked by do_swap_page) that can be had, else of order 0;
 * @e rounded down to the folio's first entry; @reclaim as
 * sws__mm_swapin_folio_alloc()'s. @return as swapin_readahead(). */
int sws__mm_swapin_sync(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr, sws_entry_t e,
			const struct sws__swapin_dev *sd, unsigned orders, bool reclaim, uint64_t *pfnp);
/* For swapfile.c: a new folio for slot @e read into the swap cache (locked, on
 * the LRU; as the fault path returns it). */
int sws__mm_swapin_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, sws_entry_t e, uint64_t *pfnp);

/* page_io.c */
/* swap_read_folio() for the pages of locked folio @f from slot @e on (its
 * seed set from the slots; a large folio's slots hold one folio's pages, all
 * zero or none, none in zswap: do_swap_page checked). @sync: the fault waits for this read (a read-ahead one is
 * asynchronous). @si: the device of the slot read, as the fault looked it up
 * (NULL: looked up here when needed). */
int sws__mm_swap_read_folio(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, sws_entry_t e,
			    bool sync, struct sws_device *si);
/* One more folio of its order in a per-order counter array of this CPU. */
void sws__mm_count_order(struct sws_mm *mm, struct sws_cpu *cpu, _Atomic uint64_t *arr);
/* vmstat.c: count_mthp_stat(@order, @stat) for a large folio of @order (1 to 8). */
void sws__mm_count_swpin(struct sws_mm *mm, struct sws_cpu *cpu, unsigned order, enum sws__swpin_stat stat);
/* An mTHP anon fault stat of @order (> 0): anon_fault_alloc, or with @fallback
 * anon_fault_fallback (and, with @charge, anon_fault_fallback_charge). */
void sws__mm_count_anon_fault(struct sws_mm *mm, struct sws_cpu *cpu, unsigned order, bool fallback, bool charge);
/* vmstat.c: @nr pages written to (@write) or read from device @type, in its swap tier's counter. */
void sws__mm_count_tier(struct sws_mm *mm, struct sws_cpu *cpu, unsigned type, bool write, uint64_t nr);
/* memcontrol.c: memcg @id's memory.swap.tiers.max as a mask (SWS_SWAP_TIERS_ALL when unset). */
uint32_t sws__mm_memcg_swap_tiers(const struct sws_mm *mm, uint16_t id);
/* swap_writeout() of locked, unmapped @f to its slots @entry. @return 0, or
 * non-zero: the folio stays (re-dirtied). */
int sws__mm_swap_writeout(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, sws_entry_t entry);
/* __swap_writepage(): @nr pages of locked @f (a power of two) to the device
 * slots from @target (resolved: mm_io_target()): written to the device's
 * backing store when it has one (the bytes from @page when given, zswap's
 * decompressed page, else from the folio's seeds), pswpout and swpout by
 * order counted, the write charged (the writer waits for it). Swap-out and
 * zswap's writeback both write here. @return 0 or the write's error. */
int sws__mm_swap_writepage(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, sws_entry_t target,
			   unsigned nr, const void *page);

/* workingset.c */
/* workingset_refault(): @shadow's distance within the memcg's resident size
 * activates @f (PG_workingset). */
bool sws__mm_workingset_refault(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, uint16_t memcg,
				uint64_t shadow);
/* The shadow a folio of @memcg leaves when reclaimed now (@workingset: it
 * had PG_workingset). */
uint64_t sws__mm_shadow_pack(struct sws_mm *mm, uint16_t memcg, bool workingset);

/* filemap.c */
/* __remove_mapping() of locked, isolated page cache folio @pfn: written back
 * first if dirty, then its file's entry becomes a shadow. @return 0, or
 * SWS_EBUSY (written again meanwhile: it stays). */
int sws__mm_filemap_evict(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);
/* Free every file's page cache tables (sws_mm_destroy(), the folios gone). */
void sws__mm_filemap_destroy(struct sws_mm *mm);

/* vmscan.c */
/* The swap-out of one folio (locked, isolated). @return 0: ready to be freed
 * (unmapped, out of the swap cache, still locked and charged; the caller frees
 * it); SWS_EAGAIN: split (its pages are on the LRU again, the descriptor free);
 * another error: kept. */
int sws__mm_pageout_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn);
/* Direct reclaim of @nr pages from @memcg (@memcg_only) or the machine;
 * @by_type[0] and [1] add up the anon and file pages it took. */
uint64_t sws__mm_shrink(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr,
			bool memcg_only, uint64_t by_type[2]);
/*
 * The priority do_try_to_free_pages()'s loop reaches for a pass that made
 * @scanned scan steps against an inactive scan target of @target at priority 0
 * (get_scan_count(): each type's inactive list times its fraction): the kernel's
 * passes scan target >> priority each, from DEF_PRIORITY down until enough
 * came back, so the first priority at which those targets add up to
 * @scanned; 0 when the pass fell short of what it was asked for (every
 * priority ran). shrink_slab() runs after each priority down to it.
 */
int sws__mm_reclaim_priority(uint64_t scanned, uint64_t target, bool fell_short);
/* inactive_is_low()'s ratio of active to inactive pages for a type with @pages
 * on its two lists: 1 under 1 GiB, then int_sqrt(10 x GiB) (3 at 1 GiB, 4 at 2,
 * 5 at 3, 10 at 10). */
uint64_t sws__mm_inactive_ratio(uint64_t pages);

/* swapfile.c */
/* __try_to_reclaim_swap(TTRS_UNMAPPED | TTRS_FULL) of slot @e the free path
 * left cache-only. It needs no lock but runs under the zapping space's ptl:
 * it only trylocks the folio. @return the slots from @e it covered. */
unsigned sws__mm_try_to_reclaim_swap(struct sws_cpu *cpu, struct sws_mm *mm, sws_entry_t e);

/* oom_kill.c: out_of_memory() for @memcg (0: the whole machine). @return 0 (a
 * task was killed, or is dying: retry), SWS_EKILLED (the killed task is the
 * current one), SWS_ENOMEM (nothing to kill). No lock held. */
int sws__mm_out_of_memory(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg);

/* mm_init.c */
/* A device's modelled I/O latency from its kind. */
void sws__mm_default_latency(struct sws_mm *mm, unsigned type, const struct sws_device *d);
/* The memory model's per-device state, as the core's device hooks added and
 * removed (struct sws_device_hooks): slot seeds, the latency model, zswap's trees. */
int sws__mm_device_added(void *mm, struct sws_device *dev);
void sws__mm_device_removed(void *mm, struct sws_device *dev);

/* content.c */
enum sws_content sws__mm_content_class(const struct sws_mm *mm, uint64_t seed);
bool sws__mm_content_is_zero(const struct sws_mm *mm, uint64_t seed);
/* The seed of slot @e, which the caller holds (allocated: its folio is in the
 * swap cache, locked). @return 0, or SWS_ENOMEM: no memory for the
 * cluster's seed table (nothing stored). */
int sws__mm_slot_seed_set(struct sws_mm *mm, sws_entry_t e, uint64_t seed);
/* The seed last set on slot @e, which the caller holds; 0 when none was. */
uint64_t sws__mm_slot_seed_get(struct sws_mm *mm, sws_entry_t e);
/* Seed tables per device: create the per-cluster array (@return 0 or
 * SWS_ENOMEM), give back one free cluster's table (the cluster_freed hook, under
 * its ci->lock), free them all (the device goes). */
int sws__mm_slot_seeds_create(struct sws_mm *mm, struct sws_device *dev);
void sws__mm_slot_seeds_cluster_freed(void *mm, struct sws_device *dev, uint32_t idx);
void sws__mm_slot_seeds_destroy(struct sws_mm *mm, struct sws_device *dev);

/* zswap_glue.c */
/* A folio's pages into zswap, all or nothing. @return 0 stored, else refused. */
int sws__mm_zswap_store_folio(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f,
			      sws_entry_t entry);
void sws__mm_zswap_destroy(struct sws_mm *mm);

#endif
