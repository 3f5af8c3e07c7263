/*
 * swapsim/cost.h - the cost table of modelled time (docs/modelled-time.md).
 *
 * With the modelled clock every operation the model performs charges the
 * virtual clock of the simulated CPU that performs it: count x cost. The
 * table below is that cost: one line per class, in picoseconds per unit.
 * A class is measured by swapsim-calibrate on the machine it runs on
 * ("calibrated"), derived from measured ones by a formula ("derived"), or
 * taken from a published figure ("published"). The defaults are one such
 * calibration; docs/benchmarks.md names the machine.
 *
 * A cost file (swapsim-calibrate's output, swapsim-replay --costs) holds one
 * "name value" pair a line in picoseconds ('#' starts a comment); classes it
 * leaves out keep their default, and derived classes it leaves out are
 * derived again from the file's values.
 */
#ifndef SWAPSIM_COST_H
#define SWAPSIM_COST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * X(name, unit, default_ps, derivation) - derivation is "" for a class that is
 * measured or published, else the formula it derives from (two terms at most:
 * "4*load_hit", "atomic+load_hit"). Defaults: swapsim-calibrate on the
 * development machine, a 2-vCPU KVM guest on an AMD EPYC host, 2026-12-05:
 * each the fastest of five calibrations while other builds ran (load only
 * adds); docs/benchmarks.md, "The cost table". A virtual machine's system
 * calls, IPIs and cache-line transfers cost several times a bare-metal
 * machine's: run swapsim-calibrate where the kernel of interest runs.
 */
#define SWS_COST_LIST(X)                                                                                 \
	X(syscall, "per kernel entry and exit (getppid round trip)", 884516, "")                     \
	X(lock, "per uncontended spin lock and unlock", 5022, "")                                   \
	X(atomic, "per uncontended atomic read-modify-write", 5074, "")                              \
	X(line_transfer, "per cache line moved from another core (one way)", 206948, "")               \
	X(load_hit, "per dependent load that hits the cache", 1004, "")                              \
	X(load_miss, "per dependent load that misses the last-level cache", 214415, "")               \
	X(page_zero, "per 4 KiB page zeroed", 144461, "")                                             \
	X(page_copy, "per 4 KiB page copied", 310468, "")                                             \
	X(meta_alloc, "per slab-like object allocated (4 KiB or less)", 77032, "")                    \
	X(meta_free, "per slab-like object freed", 46374, "")                                         \
	X(tlb_shootdown, "per other CPU a TLB flush interrupts (IPI and wait)", 15305767, "")          \
	X(compress_lz4_zero, "per byte, lz4 on a zero page", 66, "")                                   \
	X(compress_lz4_same, "per byte, lz4 on a one-byte page", 64, "")                               \
	X(compress_lz4_index, "per byte, lz4 on usemem's index words", 817, "")                        \
	X(compress_lz4_text, "per byte, lz4 on text-like bytes", 1315, "")                             \
	X(compress_lz4_random, "per byte, lz4 on incompressible bytes", 175, "")                      \
	X(decompress_lz4_zero, "per byte, lz4 decompressing a zero page", 38, "")                      \
	X(decompress_lz4_same, "per byte, lz4 decompressing a one-byte page", 41, "")                  \
	X(decompress_lz4_index, "per byte, lz4 decompressing index words", 699, "")                    \
	X(decompress_lz4_text, "per byte, lz4 decompressing text-like bytes", 332, "")                \
	X(decompress_lz4_random, "per byte, lz4 copying an incompressible page", 13, "")              \
	X(compress_zstd_zero, "per byte, zstd on a zero page", 217, "")                                \
	X(compress_zstd_same, "per byte, zstd on a one-byte page", 209, "")                            \
	X(compress_zstd_index, "per byte, zstd on usemem's index words", 2578, "")                     \
	X(compress_zstd_text, "per byte, zstd on text-like bytes", 3366, "")                          \
	X(compress_zstd_random, "per byte, zstd on incompressible bytes", 911, "")                   \
	X(decompress_zstd_zero, "per byte, zstd decompressing a zero page", 62, "")                    \
	X(decompress_zstd_same, "per byte, zstd decompressing a one-byte page", 61, "")                \
	X(decompress_zstd_index, "per byte, zstd decompressing index words", 911, "")                  \
	X(decompress_zstd_text, "per byte, zstd decompressing text-like bytes", 1015, "")              \
	X(decompress_zstd_random, "per byte, zstd copying an incompressible page", 16, "")            \
	X(kernel_entry, "per fault, syscall or kernel-thread step", 0, "syscall")                     \
	X(pt_level, "per page-table level walked", 0, "load_hit")                                     \
	X(lru_move, "per folio put on or taken off an LRU list", 0, "4*load_hit")                     \
	X(memcg_charge, "per memcg charge (a per-CPU stock hit)", 0, "2*load_hit")                   \
	X(memcg_uncharge, "per memcg uncharge", 0, "2*load_hit")                                      \
	X(page_counter, "per page_counter update (one per memcg level)", 0, "atomic")                 \
	X(rmap, "per rmap add, remove or referenced check", 0, "atomic+load_hit")                     \
	X(tlb_flush, "per PTE flushed on this CPU (the refill is a missed walk)", 0, "load_miss")      \
	X(page_alloc, "per folio taken from the per-CPU free lists", 0, "4*load_hit")                 \
	X(page_free, "per folio given back to the per-CPU free lists", 0, "4*load_hit")

enum sws_cost {
#define SWS__COST_ENUM(name, unit, ps, derive) SWS_COST_##name,
	SWS_COST_LIST(SWS__COST_ENUM)
#undef SWS__COST_ENUM
	SWS_NR_COSTS
};

/*
 * X(name, description) - lock classes: the modelled clock reports the time
 * CPUs waited for each, and how many acquisitions waited.
 */
#define SWS_LOCK_CLASS_LIST(X)                                                   \
	X(cluster, "cluster lock (ci->lock)")                                    \
	X(device, "device list lock (si->lock)")                                 \
	X(avail, "swap_avail_lock")                                              \
	X(global_cluster, "rotational devices' global_cluster_lock")             \
	X(xa, "6.17's XArray address-space lock (xa_lock, one per 64 MiB)")     \
	X(cont, "swap_map continuation lock")                                    \
	X(vswap, "vswap's cluster-map lock")                                     \
	X(ptl, "page-table locks")                                               \
	X(lru, "lruvec locks (lru_lock)")                                        \
	X(rmap, "reverse-map locks")                                             \
	X(pfn, "page allocator locks (free lists, per-CPU lists)")              \
	X(mm, "the memory model's other locks (mmap_lock, memcg, spaces, ...)") \
	X(zswap, "zswap's tree and LRU locks")                                   \
	X(zspool, "zsmalloc's class locks")                                      \
	X(folio, "folio locks (PG_locked: a sleeping lock)")                     \
	X(other, "every other lock")

enum sws_lock_class {
#define SWS__LOCK_ENUM(name, desc) SWS_LOCK_##name,
	SWS_LOCK_CLASS_LIST(SWS__LOCK_ENUM)
#undef SWS__LOCK_ENUM
	SWS_NR_LOCK_CLASSES
};

/** @return a lock class's name ("cluster", ...), "" out of range. */
const char *sws_lock_class_name(enum sws_lock_class c);

/* The default last-level cache of the LLC model: the development machine's L3 (sysfs). */
#define SWS_COST_LLC_BYTES_DEFAULT (32ull << 20)

/* The most a cost file may give one unit of a class: 1 ms (the largest
 * measured primitive, a TLB shootdown, is under 100 us). Above it a run's
 * virtual times (ps in 64 bits, about 213 days) could wrap. */
#define SWS_COST_MAX_PS 1000000000ull

struct sws_costs {
	uint64_t ps[SWS_NR_COSTS]; /* picoseconds per unit of each class */
	uint64_t llc_bytes;        /* the modelled last-level cache ("llc_bytes" in a file) */
};

/** Fill @c with the bundled defaults (derived classes derived). */
void sws_costs_default(struct sws_costs *c);

/** Recompute every derived class of @c from the classes it derives from. */
void sws_costs_derive(struct sws_costs *c);

/**
 * Read a cost file's text over the defaults. @return 0, or SWS_EINVAL with a
 * message in @err naming the line and what is wrong with it (an unknown
 * name, a value that is not a whole number of picoseconds or is above
 * SWS_COST_MAX_PS, a name given twice).
 */
int sws_costs_parse(struct sws_costs *c, const char *text, size_t len, char *err, size_t errlen);

/**
 * Write @c as a cost file, one class a line with its unit and, for a derived
 * class, its formula, through @write. @header (may be NULL) is written first,
 * each line prefixed with "# ". @return 0 or the first non-zero @write result.
 */
int sws_costs_print(const struct sws_costs *c, const char *header,
		    int (*write)(void *ctx, const char *text, size_t len), void *ctx);

/** @return the class's name ("lock", ...), "" out of range. */
const char *sws_cost_name(enum sws_cost c);
/** @return its unit text, "" out of range. */
const char *sws_cost_unit(enum sws_cost c);
/** @return its formula ("" for a measured class). */
const char *sws_cost_derivation(enum sws_cost c);
/** Look a class up by name. @return 0 or SWS_EINVAL. */
int sws_cost_parse(const char *name, enum sws_cost *out);

#ifdef __cplusplus
}
#endif
#endif
