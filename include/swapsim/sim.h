/*
 * swapsim/sim.h - the simulation root object and its CPUs.
 *
 * struct sws_sim owns everything: swap devices, the swap cache backend, the
 * counters and the memory accounting. Two simulations in one process never see
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
 * The per-slot metadata design a simulation uses: each one the kernel of the
 * debate had or proposed (docs/designs.md; one page each). Designs that do
 * not change behaviour give identical counters on the same input; the
 * exceptions are in docs/designs.md.
 */
enum sws_backend {
	SWS_BACKEND_DEFAULT = 0,    /* SWS_BACKEND_ST_P4 */
	SWS_BACKEND_SWAP_TABLE = 1, /* "st-p4" (~7.2): swap table phase IV, everything per cluster */
	SWS_BACKEND_XARRAY = 2,     /* "xarray" (6.17): XArray swap cache + swap_map */
	SWS_BACKEND_ST_P1 = 3,      /* "st-p1" (6.18): the swap table as the swap cache */
	SWS_BACKEND_ST_P2 = 4,      /* "st-p2" (7.0): no SWAP_HAS_CACHE, folio cached at allocation */
	SWS_BACKEND_ST_P3 = 5,      /* "st-p3" (~7.1): the count in the table, no swap_map */
	SWS_BACKEND_VSWAP = 6,      /* "vswap" (v3+): virtual swap entries and descriptors */
};
#define SWS_BACKEND_ST_P4 SWS_BACKEND_SWAP_TABLE
#define SWS_NR_BACKENDS 7

#define SWS_SIM_CONFIG_VERSION 1

struct sws_sim_config {
	uint32_t version;         /* SWS_SIM_CONFIG_VERSION or 0 */
	enum sws_backend backend; /* 0: swap table */
	uint32_t max_cpus;        /* CPUs that may be attached at once; 0: 256 */
	uint32_t reserved;        /* must be zero */
	const struct sws_env *env; /* NULL: all defaults */
};

/**
 * Create a simulation. A NULL @cfg means all defaults.
 * @return 0, SWS_EINVAL (bad backend, reserved field set, max_cpus > 4096),
 *         SWS_EVERSION or SWS_ENOMEM.
 */
int sws_sim_create(const struct sws_sim_config *cfg, struct sws_sim **out);

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

/** @return the backend a simulation runs. */
enum sws_backend sws_sim_backend(const struct sws_sim *sim);

/** @return the design's name: "xarray", "st-p1", "st-p2", "st-p3", "st-p4", "vswap",
 *  or "unknown". */
const char *sws_backend_name(enum sws_backend backend);

/**
 * Parse a design name as sws_backend_name() prints it, or the aliases "table"
 * and "swap_table" (st-p4). @return 0 or SWS_EINVAL.
 */
int sws_backend_parse(const char *name, enum sws_backend *out);

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
