/*
 * swapsim/mm.h - the memory model: simulated RAM, memory cgroups, address
 * spaces with page tables, reclaim, and the fault, swap-out, swap-in and free
 * paths that drive the swap core the way mm/memory.c and mm/vmscan.c do.
 *
 * Objects: one struct sws_mm per simulation (created on a struct sws_sim with
 * its devices already swapped on), memcgs (numbered, 0 is the root), address
 * spaces (numbered "asids", one per traced process). Virtual addresses are
 * bytes; everything is accounted in 4 KiB pages.
 *
 * Threading: calls that take a struct sws_cpu are made by the thread that
 * attached it; calls on different address spaces run in parallel, calls on
 * the same address space are serialised by its page-table lock; reclaim may
 * unmap pages of any address space. With one CPU and a fixed seed every run
 * is deterministic.
 *
 * Kernel version modelled: the fault/reclaim/free paths of 6.18+ with swap
 * table phase II semantics (every swap-in goes through the swap cache; the
 * folio is in the swap cache from slot allocation). Simplifications are
 * listed in docs/memory-model.md.
 */
#ifndef SWAPSIM_MM_H
#define SWAPSIM_MM_H

#include <stdbool.h>
#include <stdint.h>
#include <swapsim/sim.h>
#include <swapsim/swap.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sws_mm;

/* Reclaim policies. */
enum sws_reclaim_policy {
	SWS_RECLAIM_KERNEL = 0, /* active/inactive anon lists, referenced bits, promotion,
				 * workingset refault activation (default) */
	SWS_RECLAIM_LRU = 1,    /* exact LRU: evict the least recently accessed page; with
				 * one thread, no readahead and a limit of M pages the faults
				 * equal a textbook LRU cache's misses (validation). Exact
				 * within each type: page cache has lists of its own, and the
				 * scan balance picks between anon and file */
	SWS_RECLAIM_CLOCK = 2,  /* second chance: one referenced bit, a rotating hand */
};

/* Page contents: each page's bytes follow from a seed and its write version. */
enum sws_content {
	SWS_CONTENT_ZERO = 0,   /* all zero (zero-page detection: swpout_zero) */
	SWS_CONTENT_SAME = 1,   /* one repeated byte (memhog's 0xff) */
	SWS_CONTENT_INDEX = 2,  /* usemem: each u64 word holds its own index */
	SWS_CONTENT_TEXT = 3,   /* text-like bytes (compressible ~3x) */
	SWS_CONTENT_RANDOM = 4, /* incompressible */
	SWS_NR_CONTENT = 5
};

#define SWS_MM_CONFIG_VERSION 1

#define SWS_MM_MAX_RAM_PAGES (1ull << 30) /* 4 TiB of simulated RAM */

struct sws_mm_config {
	uint32_t version;              /* SWS_MM_CONFIG_VERSION or 0 */
	enum sws_reclaim_policy policy;
	uint64_t ram_pages;            /* simulated RAM, pages (required, 64..SWS_MM_MAX_RAM_PAGES) */
	uint32_t page_cluster;         /* vm.page-cluster + 1; 0: default (3); 1: no readahead */
	uint32_t flags;                /* SWS_MM_* below */
	uint32_t content_weight[SWS_NR_CONTENT]; /* content mix; all 0: INDEX only */
	uint64_t seed;                 /* content and random decisions */
	uint64_t wmark_low, wmark_high; /* free pages that wake kswapd / let it sleep; 0: derived */
	uint32_t anon_orders;          /* anon mTHP for every anonymous region: bit k lets a first
					* touch take a folio of 2^k pages (1..9), as
					* hugepages-<4*2^k>kB/enabled "always"; the largest that fits
					* an empty aligned block is taken, else order 0 */
	uint32_t anon_orders_madvise;  /* the same, as "madvise": only in regions madvise()d
					* MADV_HUGEPAGE (VM_HUGEPAGE). A region madvise()d
					* MADV_NOHUGEPAGE takes order 0 whatever the policy */
	uint32_t thp_defrag;           /* enum sws_thp_defrag: whether a large folio's charge
					* may reclaim (transparent_hugepage/defrag) */
};

/* transparent_hugepage/defrag, as vma_thp_gfp_mask() turns it into a large anonymous
 * folio's gfp: whether its charge may reclaim from a memcg at its limit. One that may
 * not fails at once and the fault takes the next smaller order (anon_fault_fallback_charge). */
enum sws_thp_defrag {
	SWS_THP_DEFRAG_MADVISE = 0,   /* the kernel's default: reclaim in MADV_HUGEPAGE regions only */
	SWS_THP_DEFRAG_ALWAYS,        /* reclaim everywhere (once, __GFP_NORETRY, outside MADV_HUGEPAGE) */
	SWS_THP_DEFRAG_DEFER,         /* never reclaim (kcompactd and kswapd do it later) */
	SWS_THP_DEFRAG_DEFER_MADVISE, /* reclaim in MADV_HUGEPAGE regions, else as defer */
	SWS_THP_DEFRAG_NEVER,         /* never reclaim */
	SWS_THP_DEFRAG_NR
};
/** The sysfs word of @d ("madvise", "always", "defer", "defer+madvise", "never"); NULL out of range. */
const char *sws_thp_defrag_name(enum sws_thp_defrag d);

#define SWS_MM_VERIFY (1u << 0)     /* check every page read back against the content model */
#define SWS_MM_NO_VMA_RA (1u << 1)  /* cluster readahead even on SSDs */
#define SWS_MM_READ_POPULATES (1u << 2) /* a first read of a page maps a new page holding data
					 * (a page that existed before the trace began), not the
					 * shared zero page: for traces that cannot tell reads
					 * from writes */
/* Swap metadata and the zswap pool take simulated RAM, as kernel memory does: the design's
 * static and dynamic metadata bytes (sws_sim_memory_usage(), as swapsim-overhead counts
 * them) rounded up to pages, and the zsmalloc pages, count out of free memory and so in
 * global pressure (kernel_swap_pages of struct sws_mm_stats); no memcg is charged for
 * them. Without it RAM holds folios alone. */
#define SWS_MM_KERNEL_RAM (1u << 3)

/** Create the memory model on @sim. @return 0, SWS_EINVAL, SWS_EVERSION, SWS_ENOMEM. */
int sws_mm_create(struct sws_sim *sim, const struct sws_mm_config *cfg, struct sws_mm **out);
/** Free everything (address spaces are torn down, their swap entries put). Needs one free
 *  CPU slot of the sim (it attaches a CPU whose memory it reserved at create, so it never
 *  fails on memory). NULL: no-op. */
void sws_mm_destroy(struct sws_mm *mm);

#define SWS_MM_MAX_MEMCGS 256

/** A memcg with a limit in pages (0: unlimited). @return 0 and its id (>= 1); SWS_ENOMEM
 *  when SWS_MM_MAX_MEMCGS exist; SWS_EOPNOTSUPP on a simulation with SWS_SIM_MEMCG_OFF. */
int sws_mm_memcg_create(struct sws_mm *mm, uint64_t limit_pages, uint16_t *id);
/** memory.high of memcg @id in pages (0: none): a charge that leaves the memcg above it
 *  reclaims the excess from the memcg (mem_cgroup_handle_over_high(), done at once; the
 *  kernel's throttling sleep is not modelled) and counts memcg_high. Set it before the
 *  memcg's first charge. @return 0, SWS_EINVAL (no such memcg). */
int sws_mm_memcg_set_high(struct sws_mm *mm, uint16_t id, uint64_t high_pages);
/** memory.swap.tiers.max of memcg @id (>= 1): the swap tiers (bit k: tier k, swapsim/device.h)
 *  its folios may take slots from; 0 (the default): every tier. A swap-out of the memcg's
 *  folio finds slots only on those tiers' devices, in priority order, and fails when none
 *  of them has room (the folio stays). @return 0, SWS_EINVAL (no such memcg, the root,
 *  bits past SWS_SWAP_NR_TIERS). */
int sws_mm_memcg_set_swap_tiers(struct sws_mm *mm, uint16_t id, uint32_t tiers);

/** A new, empty address space charged to @memcg (0: root). @return 0, SWS_EINVAL, SWS_ENOMEM. */
int sws_mm_space_create(struct sws_mm *mm, uint16_t memcg, uint32_t *asid);

/** fork(): a copy of @parent's page tables; swap counts raised, present pages shared
 *  copy-on-write. @return 0, SWS_EINVAL (no such asid), SWS_ENOMEM, SWS_EOVERFLOW,
 *  SWS_EKILLED (the parent was OOM-killed). */
int sws_mm_fork(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t parent, uint32_t *child);

/** @return whether the OOM killer killed address space @asid (also after it exited);
 *  false for an asid that never existed. */
bool sws_mm_oom_killed(struct sws_mm *mm, uint32_t asid);

/** exit(): unmap everything, free the address space and its page tables (also of a
 *  space the OOM killer reaped: the reap leaves the tables). No other call on @asid may
 *  run meanwhile. Its descriptor (about 4.2 KiB) stays until sws_mm_spaces_trim() or
 *  sws_mm_destroy(). @return 0, SWS_EINVAL. */
int sws_mm_exit(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid);

/**
 * Free the descriptors of the address spaces that exited since the last call,
 * once at least @min (0: 1) are waiting; what stays of each is whether the
 * OOM killer took it (sws_mm_oom_killed()), one bit, and its asid is never
 * reused. No other call on @mm may run meanwhile (a quiescent point: a
 * descriptor may be cached by any CPU). A caller that replays many
 * short-lived processes calls it now and then to keep its memory bounded.
 * @return the descriptors freed.
 */
uint32_t sws_mm_spaces_trim(struct sws_mm *mm, uint32_t min);

/**
 * swapoff(2) of device @type with pages in use: bring every page it holds
 * back into memory, then swap it off. Under every design but vswap this is
 * try_to_unuse(): every address space's page table is walked
 * (swapoff_pte_scan) and each swap entry of the device swapped in and mapped
 * (swapoff_swapin), then the slots left in the swap cache are dropped from
 * it. Under vswap no page table is walked: the device's allocated slots are
 * read into the swap cache through the reverse map and the descriptors' backend
 * becomes the folio (page tables keep their virtual entries). The time is
 * the caller's (a kernel entry). Allocation may reclaim onto other devices.
 * @return 0; SWS_ENODEV; SWS_EINVAL (an xswap device, or vswap's virtual
 *         one); SWS_ENOMEM (no memory for the pages: the device stays, usable);
 *         SWS_EBUSY (references left that no page table holds).
 */
int sws_mm_swapoff(struct sws_cpu *cpu, struct sws_mm *mm, int type);

/* Region flags. */
#define SWS_MM_MAP_ORDER(o) ((uint32_t)(o) & 0xf) /* largest folio order to use (mTHP); 0: 4 KiB */

/** mmap(MAP_ANONYMOUS|MAP_PRIVATE) at @addr (page aligned) of @len bytes. Accesses outside
 *  mapped regions map an implicit region on first touch (traces rarely carry mmaps). Over
 *  mapped ranges (an implicit region, or a VMA a trace reports again as it grows or its
 *  protection changes) the new region takes their place and their pages stay mapped.
 *  @return 0, SWS_EINVAL (alignment), SWS_ENOMEM. */
int sws_mm_mmap(struct sws_mm *mm, uint32_t asid, uint64_t addr, uint64_t len, uint32_t flags);

/** munmap(): pages freed, swap entries put (batched per cluster). @return 0, SWS_EINVAL. */
int sws_mm_munmap(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr, uint64_t len);

enum sws_madvise {
	SWS_MADV_DONTNEED = 1,
	SWS_MADV_PAGEOUT = 2,
	SWS_MADV_FREE = 3,
	SWS_MADV_HUGEPAGE = 4,   /* VM_HUGEPAGE on the range's regions (VM_NOHUGEPAGE cleared) */
	SWS_MADV_NOHUGEPAGE = 5, /* VM_NOHUGEPAGE (VM_HUGEPAGE cleared): order 0 only there */
};
/** madvise(): DONTNEED drops pages and swap entries; PAGEOUT reclaims the range now;
 *  HUGEPAGE and NOHUGEPAGE set the range's regions' VM_HUGEPAGE or VM_NOHUGEPAGE
 *  (splitting a region at the range's edges; parts of the range no region covers are
 *  left alone), which choose the orders of later first touches there;
 *  FREE (madvise_free_pte_range()) frees the range's swap entries and makes its
 *  exclusive pages lazily freed: clean, off swap, reclaimed without a write
 *  (pglazyfreed) unless written again first (then swap-backed as before);
 *  pglazyfree counts the pages marked when @cpu's lazyfree batch moves them
 *  (sws_mm_lru_add_drain()). @return 0, SWS_EINVAL, SWS_ENOMEM (a region split). */
int sws_mm_madvise(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr,
		   uint64_t len, enum sws_madvise advice);

/** One access of the page holding @addr: a hit, or a fault (first touch, swap-in, COW).
 *  A fault that finds no memory reclaims; when reclaim makes no progress 16 times
 *  (MAX_RECLAIM_RETRIES) the OOM killer kills the task with the largest footprint in
 *  the memcg over its limit, or in the machine (resident + swapped pages + page tables),
 *  and reaps its memory at once (its page tables stay until it exits, so its faults still
 *  running on other CPUs end safely); the killed task's accesses and forks then fail with
 *  SWS_EKILLED until it exits (sws_mm_exit).
 *  @return 0 for a hit, 1 for a fault (pgfault counted); SWS_EINVAL (no such asid);
 *  SWS_EKILLED (this task was OOM-killed: during this fault, counted as oom, or
 *  before it, counted as oom_refused; the access is dropped); SWS_ENOMEM (no memory and nothing left to kill);
 *  SWS_ECORRUPT (verify mode found different bytes). */
int sws_mm_access(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr, bool write);

/** sws_mm_access() of a trace's fault whose folio the kernel's allocation lines name:
 *  of order @order, after a larger one's charge failed when @fallback. A first
 *  write's folio then follows the kernel's: of the model's allowed orders only
 *  @order is tried (with @fallback each above it counts as a failed charge,
 *  anon_fault_fallback_charge), charged as an order-0 page is (with reclaim, or
 *  over a limit whose reclaim the trace records); when @order is not allowed there
 *  (the model's block not empty), order 0. A large swap-in takes no folio above @order; copies
 *  keep the model's own choice.
 *  @return as sws_mm_access(); SWS_EINVAL for @order >= SWS_NR_ORDERS. */
int sws_mm_access_folio(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr, bool write,
			unsigned order, bool fallback);

/** Reclaim up to @nr pages charged to @memcg (0: all memory), like memory.reclaim.
 *  @return the pages reclaimed. */
uint64_t sws_mm_reclaim(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr);

#define SWS_MM_LRU_ANON 1u /* sws_mm_reclaim_lru(): the anon lists */
#define SWS_MM_LRU_FILE 2u /* ... the file (page cache) lists */

/** sws_mm_reclaim() from the LRU lists of @types only (SWS_MM_LRU_ANON, SWS_MM_LRU_FILE,
 *  or both), as a trace's reclaim record says the kernel took them (its
 *  mm_vmscan_lru_shrink_inactive lines). @return the pages reclaimed. */
uint64_t sws_mm_reclaim_lru(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr, unsigned types);

/** A trace's record of the kernel's reclaim from @memcg (a RECLAIM record: @nr pages of
 *  @types), the reclaim of the charge that came before it. From the first on, a charge
 *  that finds @memcg full takes its pages over the limit and leaves the reclaim to the
 *  record (one that finds it still over takes no more: it reclaims); the pages the
 *  memcg's own charges reclaimed meanwhile count against the record, which reclaims
 *  only the rest. @memcg 0 (the machine): sws_mm_reclaim_lru(). @return the pages the
 *  record accounts for (those reclaimed now and the credit it used). */
uint64_t sws_mm_reclaim_recorded(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint64_t nr,
				 unsigned types);

/** A trace's record that the kernel's reclaim of @memcg wrote out the anonymous folio of @nr
 *  pages mapped at @addr of @asid (mm_vmscan_write_folio): a recorded reclaim
 *  (sws_mm_reclaim_recorded()) whose victim is named. The anon pages the memcg's charges
 *  reclaimed on their own count first; else that folio is isolated and paged out as
 *  reclaim pages out its victims, or, when the model has no such folio on @memcg's LRU
 *  lists (never faulted, reclaimed already, another memcg's), @nr anon pages as the
 *  model's reclaim picks them. @return the pages the record accounts for. */
uint64_t sws_mm_reclaim_folio_at(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr,
				 uint16_t memcg, uint64_t nr);

/** lru_add_drain(): @cpu's folio batches moved onto the LRU lists now: new folios
 *  (folio_add_lru), MADV_FREE's lazily freed ones (pglazyfree) and activated page cache
 *  folios (pgactivate) wait in a batch of their CPU until it fills, reclaim or MADV_PAGEOUT
 *  runs on that CPU, a swap-in reads ahead, MADV_FREE, MADV_DONTNEED, munmap or exit, or
 *  this call (the kernel drains a CPU going offline the same way). The batches are the
 *  CPU's own: call it on @cpu's thread. Without a CPU it does nothing. */
void sws_mm_lru_add_drain(struct sws_cpu *cpu, struct sws_mm *mm);

#define SWS_MM_MAX_FILES (1u << 24)      /* file ids: 0 .. SWS_MM_MAX_FILES - 1 */
#define SWS_MM_MAX_FILE_PAGES (1ull << 24) /* pages of one file (64 GiB) */

/**
 * read(2) (or with @write, write(2)) of pages [@index, @index + @nr) of file
 * @file by the task of @asid: the page cache (mm/filemap.c). A read marks a
 * cached page accessed (folio_mark_accessed(): referenced, then active on the
 * next read; a page read in is referenced already; writes mark nothing); a
 * missing one gets a new folio charged to the task's memcg (reclaiming as a
 * fault does), read from the file unless it is written (pgpgin_file, the task waits the file's read latency), and activated at
 * once when its shadow says it was evicted within the workingset
 * (workingset_refault_file). A write dirties the page (nr_dirtied); dirty
 * pages are written back when reclaim reaches them (nr_written). Files are
 * unmapped (no mmap of files) and never deleted; their pages stay cached
 * after the task exits. @return the pages that missed (0: all cached);
 * SWS_EINVAL (no such asid, @file >= SWS_MM_MAX_FILES, the range past
 * SWS_MM_MAX_FILE_PAGES), SWS_EKILLED, SWS_ENOMEM as sws_mm_access().
 */
int64_t sws_mm_file_io(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint32_t file, uint64_t index,
		       uint64_t nr, bool write);

/** The page cache's backing store: modelled ns per page read and written. Default 20/25 us
 *  (NVMe, as a SOLIDSTATE swap device). @return 0, SWS_EINVAL. */
int sws_mm_set_file_latency(struct sws_mm *mm, uint64_t read_ns, uint64_t write_ns);

/** kswapd as a deferred-work step: reclaim toward the high watermark, at most @budget
 *  pages. @return the pages still wanted (0: above the high watermark). */
uint64_t sws_mm_kswapd(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t budget);
/** Whether kswapd would work now: free memory below the low watermark, or zswap's
 *  shrink work queued (the wakeup_kswapd() test; reads every CPU's free stock). */
bool sws_mm_kswapd_wanted(struct sws_mm *mm);

/* Counters of the memory model, named as in /proc/vmstat and memcg stats. */
#define SWS_MM_COUNTER_LIST(X)                                                             \
	X(pgalloc, "pages allocated (pgalloc_* summed; folios of order k count 2^k)")       \
	X(pgfault, "page faults")                                                          \
	X(pgmajfault, "faults that read from swap")                                        \
	X(pswpin, "pages read from swap devices")                                          \
	X(pswpout, "pages written to swap devices")                                        \
	X(swpin_zero, "pages swapped in from the zero flag, no I/O")                       \
	X(swpout_zero, "zero-filled pages swapped out with no I/O")                        \
	X(swap_ra, "pages read ahead")                                                     \
	X(swap_ra_hit, "read-ahead pages later used")                                      \
	X(swapcache_hit, "faults served from the swap cache")                              \
	X(pgsteal, "pages reclaimed")                                                      \
	X(pgscan, "pages scanned by reclaim")                                              \
	X(pgactivate, "pages moved to the active list")                                    \
	X(pglazyfree, "pages MADV_FREE made lazily freed")                                  \
	X(pglazyfreed, "lazily freed pages reclaim dropped without a write")                \
	X(pgdeactivate, "pages moved to the inactive list")                                \
	X(workingset_refault, "swap-ins that found a shadow")                              \
	X(workingset_activate, "refaults within the workingset distance: activated")       \
	X(pgscan_file, "page cache pages scanned by reclaim (in pgscan too)")              \
	X(pgsteal_file, "page cache pages reclaimed (in pgsteal too)")                     \
	X(workingset_refault_file, "page cache misses that found a shadow")                \
	X(workingset_activate_file, "page cache refaults within the workingset distance: activated") \
	X(pgpgin_file, "page cache pages read from their files (read(2) misses)")           \
	X(nr_dirtied, "page cache pages dirtied (write(2) to a clean page)")               \
	X(nr_written, "dirty page cache pages written back to their files")                \
	X(thp_swpout, "PMD-size folios swapped out whole")                                 \
	X(thp_swpout_fallback, "PMD-size folios split to swap out")                        \
	X(cow_fault, "copy-on-write faults")                                               \
	X(first_touch, "faults that mapped a new page")                                    \
	X(oom, "faults that failed for want of memory (this task OOM-killed meanwhile, or nothing to kill)") \
	X(oom_refused, "accesses refused: the task had been OOM-killed before (SWS_EKILLED)") \
	X(oom_kill, "tasks the OOM killer killed (their memory reaped at once)")           \
	X(memcg_high, "charges that left a memcg above memory.high, reclaimed back to it") \
	X(verify_ok, "pages read back and found identical")                                \
	X(verify_fail, "pages read back with different contents")                          \
	X(free_slots_batched, "swap entries put by unmap/exit/DONTNEED")                   \
	X(modelled_io_ns, "device time from the latency model (ns), all devices")          \
	X(zswpin, "pages loaded from zswap")                                               \
	X(zswpout, "pages stored in zswap")                                                \
	X(zswpwb, "zswap entries written back to the swap device")                         \
	X(zswpwb_proactive, "of those, by memory.reclaim \"SIZE zswap_writeback_only\"")     \
	X(pool_limit_hit, "zswap stores refused: the pool reached its limit")              \
	X(reject_reclaim_fail, "zswap writebacks that failed (slot swapped in, freed, no memory)") \
	X(reject_alloc_fail, "zswap stores refused: no pool memory (zsmalloc or tree)")    \
	X(reject_kmemcache_fail, "zswap stores refused: no entry memory")                  \
	X(reject_compress_fail, "zswap stores refused: the compressor failed")             \
	X(reject_compress_poor, "zswap stores refused: did not compress, no writeback")    \
	X(decompress_fail, "zswap loads that failed to decompress")                        \
	X(written_back_pages, "pages zswap wrote back (debugfs name)")                     \
	X(nr_disk_swapins, "swap-ins that missed zswap and read the device")               \
	X(xswap_reject_activate, "pages kept in RAM: zswap refused them on an xswap slot")              \
	X(swapoff_pte_scan, "page-table entries a swapoff walked (try_to_unuse)")                        \
	X(swapoff_swapin, "pages a swapoff brought back into memory")                              \
	X(lock_ptl_contended, "page-table lock (a space's ptl) acquisitions that had to wait")           \
	X(lock_lru_contended, "lruvec lock (a memcg's lru_lock) acquisitions that had to wait")          \
	X(lock_pfn_contended, "free-page list lock acquisitions that had to wait")                      \
	X(lock_rmap_contended, "reverse-map lock acquisitions that had to wait")                        \
	X(lock_mm_other_contended, "other memory-model lock acquisitions (spaces, memcgs, readahead) that had to wait")

enum sws_mm_counter {
#define SWS__MMCTR(name, desc) SWS_MM_##name,
	SWS_MM_COUNTER_LIST(SWS__MMCTR)
#undef SWS__MMCTR
	SWS_MM_NR_COUNTERS
};

#define SWS_MM_LAT_BUCKETS 48

/*
 * Simulated time a CPU charged to whatever it ran (see sws_mm_cpu_time_get()):
 *   sys_ns     CPU time inside the simulated kernel: measured (one clock read
 *              at each entry to and exit from the model's kernel paths: a
 *              fault, munmap, exit, madvise, fork, reclaim, kswapd; a hit is
 *              no kernel entry), plus the modelled device time of
 *              SYNCHRONOUS_IO devices (zram, pmem: the CPU does that work);
 *   sys_modelled_ns  that modelled part of sys_ns;
 *   iowait_ns  modelled device time the task waits for: the read of the page
 *              a fault needs (read-ahead pages are asynchronous), and the
 *              writes that the reclaim it runs issues, each its full latency
 *              one after another (an upper bound: the device takes one write
 *              at a time; the kernel keeps many in flight);
 *   background_ns  CPU time, measured, of work the kernel does on a thread of
 *              its own but the model runs inline on this CPU: the OOM
 *              reaper's unmapping of a victim. Not part of sys_ns; charge it
 *              to no task (it is not the allocating task's fault latency).
 * Simulator-only work (generating a page's bytes from its content seed,
 * verifying them, the host I/O of a backing store) is in none of these.
 */
struct sws_mm_cpu_time {
	uint64_t sys_ns, sys_modelled_ns, iowait_ns, background_ns;
};

struct sws_mm_stats {
	uint64_t counters[SWS_MM_NR_COUNTERS];
	uint64_t swpout[SWS_NR_ORDERS];          /* per-order (mTHP stats) */
	uint64_t swpout_fallback[SWS_NR_ORDERS];
	uint64_t zswpout_order[SWS_NR_ORDERS];   /* per-order zswap stores (folios) */
	uint64_t swpin[SWS_NR_ORDERS];           /* large folios read from a device whole (orders > 0) */
	uint64_t swpin_fallback[SWS_NR_ORDERS];  /* large swap-ins that took a smaller order (orders > 0) */
	uint64_t swpin_fallback_charge[SWS_NR_ORDERS]; /* of those, the ones whose memcg charge failed */
	/* first-write faults (orders > 0): large folios mapped, and tries that fell back to the
	 * next smaller order, of which for want of a charge (the memcg at its limit) */
	uint64_t anon_fault_alloc[SWS_NR_ORDERS], anon_fault_fallback[SWS_NR_ORDERS];
	uint64_t anon_fault_fallback_charge[SWS_NR_ORDERS];
	/* pswpout and pswpin by the swap tier of the device (tier 0: devices with none;
	 * swapsim/device.h): pages written to, and read from, its devices. */
	uint64_t tier_swpout[SWS_SWAP_NR_TIERS], tier_swpin[SWS_SWAP_NR_TIERS];
	/* Direct reclaim latency: each reclaim round a charge ran (sys + iowait of the
	 * round, simulated ns), log2 buckets (bucket i: [2^i, 2^(i+1))). */
	uint64_t reclaim_lat[SWS_MM_LAT_BUCKETS];
	uint64_t reclaim_count, reclaim_sum_ns, reclaim_max_ns;
	struct sws_mm_cpu_time time;             /* summed over CPUs */
	uint64_t ram_pages, free_pages, anon_pages, swapcache_pages;
	uint64_t kernel_swap_pages; /* RAM pages the swap metadata and the zswap pool take (not
				     * free, not anon; 0 without SWS_MM_KERNEL_RAM) */
	uint64_t nr_spaces;
	/* zswap gauges (0 while zswap is off) */
	uint64_t stored_pages, stored_incompressible_pages;
	uint64_t pool_total_size; /* bytes of pool pages (zsmalloc backing) */
	uint64_t pool_limit_pages;
};

/** Snapshot the memory model's counters (sum over CPUs). */
void sws_mm_stats_get(struct sws_mm *mm, struct sws_mm_stats *out);

/** The simulated time @cpu has charged so far (monotonic; callers take
 *  differences around what they run to charge it to a task). Reads only
 *  memory: no clock. */
void sws_mm_cpu_time_get(const struct sws_mm *mm, const struct sws_cpu *cpu, struct sws_mm_cpu_time *out);
/* Obsolete: the old names of sws_mm_stats_get() and sws_mm_cpu_time_get(), in
 * C only (in C++ a function of a struct's name hides the struct:
 * "sws_mm_stats st;" would not compile). */
#ifndef __cplusplus
SWS_DEPRECATED("use sws_mm_stats_get()") void sws_mm_stats(struct sws_mm *mm, struct sws_mm_stats *out);
SWS_DEPRECATED("use sws_mm_cpu_time_get()") void sws_mm_cpu_time(const struct sws_mm *mm, const struct sws_cpu *cpu,
								    struct sws_mm_cpu_time *out);
#endif
/** @return a counter's name ("" when out of range). */
const char *sws_mm_counter_name(enum sws_mm_counter c);

/** Device latency model: modelled ns per page read/written on swap device @type.
 *  Defaults by device flags: SYNCHRONOUS_IO 2/3 us (zram-like), SOLIDSTATE 20/25 us
 *  (NVMe), rotational 5 ms. The time is charged to the task as iowait, or as sys on
 *  SYNCHRONOUS_IO devices (struct sws_mm_cpu_time). @return 0, SWS_ENODEV. */
int sws_mm_set_latency(struct sws_mm *mm, int type, uint64_t read_ns, uint64_t write_ns);
/** Swap device @type is zram: under the modelled clock its CPU work per page is
 *  the compression (a read: the decompression) of the page's content class,
 *  priced by the cost table's lz4 classes (the kernel's lzo-rle and lz4 are of
 *  one speed), and the copy, instead of its latency. @return 0, SWS_ENODEV. */
int sws_mm_set_zram(struct sws_mm *mm, int type);

/** Generate the 4 KiB contents the model gives (@seed, @version) (for tests and tools). */
void sws_mm_page_content(const struct sws_mm *mm, uint64_t seed, uint64_t version, void *page);

#ifdef __cplusplus
}
#endif
#endif
