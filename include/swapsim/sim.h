/*
 * swapsim/sim.h - the simulation root object and its CPUs.
 *
 * struct sws_sim owns everything: swap devices, the per-slot metadata design,
 * the counters and the memory accounting. Two simulations in one process never see
 * each other.
 *
 * A "CPU" is a caller thread that attached itself with sws_cpu_attach(). It
 * carries what the kernel keeps per CPU: the per-order cached cluster used by
 * the slot allocator (percpu_swap_cluster), and private event counters. A CPU
 * handle belongs to the thread that attached it and must only be used by that
 * thread; attaching also registers the thread with RCU (liburcu, memb flavour),
 * which swap-cache lookups need.
 */
#ifndef SWAPSIM_SIM_H
#define SWAPSIM_SIM_H

#include <stdint.h>
#include <swapsim/env.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sws_sim;
struct sws_cpu;

/*
 * The per-slot metadata designs, each one the kernel of the debate had or
 * proposed (docs/designs.md; one page each): this list is the registry, the
 * one place that names them. The enum, sws_design_name(), sws_design_parse(),
 * sws_design_kernel(), sws_design_help(), the library's table of designs and
 * the programs' lists are generated from it. Designs that do not change
 * behaviour give identical counters on the same input; the exceptions are
 * in docs/designs.md.
 *
 * X(ID, number, name, kernel, ops, help): SWS_DESIGN_<ID> = number (stable:
 * programs store it); the name sws_design_parse() reads; the Linux release
 * it follows ("~" an expected one) or the patch series; the library's ops
 * table (internal, lib/design/); one line of help. Oldest first, the order
 * in which programs list and compare them.
 */
#define SWS_DESIGN_LIST(X)                                                          \
	X(XARRAY, 2, "xarray", "6.17", sws__xarray_ops,                             \
	  "the XArray swap cache and swap_map")                                     \
	X(ST_P1, 3, "st-p1", "6.18", sws__st_p1_ops,                                \
	  "swap table phase I: the swap table is the swap cache")                   \
	X(ST_P2, 4, "st-p2", "7.0", sws__st_p2_ops,                                 \
	  "swap table phase II: no SWAP_HAS_CACHE, the folio cached at allocation") \
	X(ST_P3, 5, "st-p3", "~7.1", sws__st_p3_ops,                                \
	  "swap table phase III: the count in the table, no swap_map")              \
	X(ST_P4, 1, "st-p4", "~7.2", sws__st_p4_ops,                                \
	  "swap table phase IV: everything per cluster (the default)")              \
	X(VSWAP_V3, 7, "vswap-v3", "vswap v3", sws__vswap_v3.ops,                   \
	  "vswap as posted in v3: per-entry free, dropping the cluster lock")       \
	X(VSWAP, 6, "vswap", "vswap v6", sws__vswap.ops,                            \
	  "virtual swap entries and descriptors: batched free, per-CPU cluster cache") \
	X(VSWAP_ST, 8, "vswap-st", "vswap RFC (swap table)", sws__vswap_st_ops,     \
	  "vswap on swap table phase IV: virtual table, lazy physical slots")

enum sws_design {
	SWS_DESIGN_DEFAULT = 0, /* SWS_DESIGN_ST_P4 */
#define SWS__DESIGN_ENUM(id, num, name, kernel, ops, help) SWS_DESIGN_##id = num,
	SWS_DESIGN_LIST(SWS__DESIGN_ENUM)
#undef SWS__DESIGN_ENUM
};
/* SWS_NR_DESIGNS: one more than the highest design number (the numbers run
 * from 1 up). */
#define SWS__DESIGN_ONE(id, num, name, kernel, ops, help) +1
enum { SWS_NR_DESIGNS = 1 SWS_DESIGN_LIST(SWS__DESIGN_ONE) };
#undef SWS__DESIGN_ONE

/* deprecated: the "backend" names of the designs, kept for one release. */
#define sws_backend sws_design
#define SWS_BACKEND_DEFAULT SWS_DESIGN_DEFAULT
#define SWS_BACKEND_SWAP_TABLE SWS_DESIGN_ST_P4
#define SWS_BACKEND_ST_P4 SWS_DESIGN_ST_P4
#define SWS_BACKEND_XARRAY SWS_DESIGN_XARRAY
#define SWS_BACKEND_ST_P1 SWS_DESIGN_ST_P1
#define SWS_BACKEND_ST_P2 SWS_DESIGN_ST_P2
#define SWS_BACKEND_ST_P3 SWS_DESIGN_ST_P3
#define SWS_BACKEND_VSWAP SWS_DESIGN_VSWAP
#define SWS_NR_BACKENDS SWS_NR_DESIGNS

#define SWS_SIM_CONFIG_VERSION 1

struct sws_sim_config {
	uint32_t version;         /* SWS_SIM_CONFIG_VERSION or 0 */
	union {
		enum sws_design design;  /* 0: st-p4 */
		enum sws_design backend; /* deprecated: design's old name */
	};
	uint32_t max_cpus;        /* CPUs that may be attached at once; 0: 256 */
	uint32_t flags;           /* SWS_SIM_*; other bits must be zero */
	const struct sws_env *env; /* NULL: all defaults */
};

/**
 * Create a simulation. A NULL @cfg means all defaults.
 * @return 0, SWS_EINVAL (bad design, reserved field set, max_cpus > 4096),
 *         SWS_EVERSION or SWS_ENOMEM.
 */
int sws_sim_create(const struct sws_sim_config *cfg, struct sws_sim **out);

/* sws_sim_config.flags */
/* cgroup_disable=memory: the designs keep no memcg ids and allocate no memcg
 * tables (no swap_cgroup map, no phase IV memcg table), nothing is charged,
 * and sws_swap_set_memcg() takes id 0 only (SWS_EINVAL otherwise); a memory
 * model on it has no memcgs but the root. */
#define SWS_SIM_MEMCG_OFF (1u << 0)

/**
 * Destroy a simulation: swaps off every device (whatever is still allocated is
 * dropped), waits for RCU callbacks, frees everything. All CPUs must have been
 * detached: debug builds (no NDEBUG) abort when one is still attached; release
 * builds free it, and its handle must not be used again. NULL is a no-op. A
 * second destroy of the same simulation is a use after free: every build
 * checks a magic number in the object and aborts with a message on stderr
 * while its memory was not reused ("this simulation was destroyed already");
 * once the allocator gave the memory to someone else it cannot be told
 * (ASan reports the use after free either way).
 */
void sws_sim_destroy(struct sws_sim *sim);

/**
 * Wait until every deferred free (swap tables and XArray nodes released
 * through RCU) has run, so memory figures are exact. Must not be called with
 * the RCU read lock held (never from inside a libswapsim callback).
 */
void sws_sim_quiesce(struct sws_sim *sim);

/**
 * @return the message of the last failed configuration call on @sim (a
 * swapon naming its file and errno, ...), "" when there was none. Valid until
 * the next such call.
 */
const char *sws_sim_error(const struct sws_sim *sim);

/** @return the design a simulation runs (never SWS_DESIGN_DEFAULT). */
enum sws_design sws_sim_design(const struct sws_sim *sim);

/** @return the design's name from SWS_DESIGN_LIST ("xarray", ..., "vswap"),
 *  "st-p4" for SWS_DESIGN_DEFAULT, or "unknown". */
const char *sws_design_name(enum sws_design design);

/**
 * Parse a design name as sws_design_name() prints it, or the aliases "table"
 * and "swap_table" (st-p4). @return 0 or SWS_EINVAL.
 */
int sws_design_parse(const char *name, enum sws_design *out);

/** @return the Linux release the design follows ("6.17", "~7.2": expected
 *  there) or its patch series ("vswap v4-v5"); "" for an unknown design. */
const char *sws_design_kernel(enum sws_design design);

/** @return the design's one line of help (SWS_DESIGN_LIST), "" if unknown. */
const char *sws_design_help(enum sws_design design);

/* deprecated: sws_sim_design(), sws_design_name() and sws_design_parse()
 * under their old names, kept for one release. */
enum sws_design sws_sim_backend(const struct sws_sim *sim);
const char *sws_backend_name(enum sws_design design);
int sws_backend_parse(const char *name, enum sws_design *out);

/**
 * Attach the calling thread as a CPU (registers it with RCU if it was not yet).
 * @return 0, SWS_ENOCPU (max_cpus attached) or SWS_ENOMEM.
 */
int sws_cpu_attach(struct sws_sim *sim, struct sws_cpu **out);

/** Detach a CPU from the thread that attached it; folds its counters into the sim. NULL: no-op. */
void sws_cpu_detach(struct sws_cpu *cpu);

/** @return the CPU's number (0..max_cpus-1), stable while attached. */
unsigned sws_cpu_id(const struct sws_cpu *cpu);

#ifdef __cplusplus
}
#endif
#endif
