/*
 * swapsim/device.h - swap devices (struct swap_info_struct).
 *
 * A device is a range of slots of PAGE_SIZE (4 KiB) each, split into clusters
 * of 512 slots. Slot 0 holds the swap header and is never allocated; slots of
 * the last cluster beyond the device's end are marked bad. Devices are used in
 * priority order; devices of equal priority are used round robin (6.19+: every
 * device swapped on without a priority gets -1).
 *
 * A device can be backed by nothing (metadata only), by memory, or by a real
 * file: a sparse file of nr_slots pages, read and written with pread/pwrite at
 * slot offsets; a discard of a freed cluster punches its 2 MiB out of the file.
 *
 * A backing file is created new: swapon refuses a path that exists
 * (SWS_EFILEEXIST) unless SWS_BACKING_REUSE allows reusing an existing
 * regular file (its contents are then discarded), and never opens a path
 * that is a symbolic link unless SWS_BACKING_FOLLOW says so. A file swapon
 * created stays at swapoff unless SWS_BACKING_UNLINK asks for its removal;
 * a file swapon did not create (reused) always stays.
 *
 * A failed page write (the file system full, an I/O error) is the kernel's
 * end_swap_bio_write() error: the page stays dirty in the swap cache, the
 * error is recorded on the device (write_errors, write_errno) and counted
 * (swap_writepage_error). After SWS_DEVICE_WRITE_FAIL_LIMIT writes in a row
 * have failed, the device takes no new slots (SWP_WRITEOK cleared,
 * write_failed set): what a simulation cannot write it does not retry for
 * ever.
 */
#ifndef SWAPSIM_DEVICE_H
#define SWAPSIM_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <swapsim/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SWS_PAGE_SIZE 4096u
#define SWS_CLUSTER_SLOTS 512u /* SWAPFILE_CLUSTER */
#define SWS_NR_ORDERS 10       /* SWAP_NR_ORDERS: orders 0..9 */
#define SWS_MAX_SWAPFILES 24   /* usable device types */
#define SWS_DEVICE_MAX_SLOTS (1ull << 32) /* 16 TiB: far beyond any simulation */

/* Device flags (the kernel's SWP_* subset a simulation needs). */
enum sws_swp_flags {
	SWS_SWP_SOLIDSTATE = 1u << 0,     /* non-rotational: per-CPU clusters */
	SWS_SWP_SYNCHRONOUS_IO = 1u << 1, /* zram/pmem-like: synchronous reads */
	SWS_SWP_PAGE_DISCARD = 1u << 2,   /* discard freed clusters */
	SWS_SWP_VIRTUAL = 1u << 13,       /* vswap's virtual device (made by the design); not for sws_swapon */
	SWS_SWP_XSWAP = 1u << 14,         /* an xswap device (swapsim/xswap.h); not for sws_swapon */
	SWS_SWAP_FLAG_PREFER = 1u << 15,  /* use sws_device_config.prio */
};

enum sws_backing {
	SWS_BACKING_NONE = 0,   /* metadata only; page I/O returns SWS_ENOBACKING */
	SWS_BACKING_MEMORY = 1, /* page contents in memory, 2 MiB per written cluster,
				 * dropped when the cluster becomes free */
	SWS_BACKING_FILE = 2,   /* a real sparse file at @path */
};

/* Backing-file flags (struct sws_device_config.backing_flags). */
#define SWS_BACKING_REUSE (1u << 0)  /* an existing regular file may be reused (truncated) */
#define SWS_BACKING_FOLLOW (1u << 1) /* the path may be a symbolic link */
/* Remove the file at swapoff (or sws_sim_destroy) if swapon created it and the path
 * still names that file (the same st_dev and st_ino, by lstat, while the device still
 * holds it open): a scratch file. A file swapon reused, or a path that names something
 * else by then, is left alone. */
#define SWS_BACKING_UNLINK (1u << 2)

/* Consecutive failed page writes after which a device takes no new slots. */
#define SWS_DEVICE_WRITE_FAIL_LIMIT 16

#define SWS_DEVICE_CONFIG_VERSION 1

struct sws_device_config {
	uint32_t version;        /* SWS_DEVICE_CONFIG_VERSION or 0 */
	uint32_t flags;          /* enum sws_swp_flags */
	uint64_t nr_slots;       /* size in slots including the header: 2..SWS_DEVICE_MAX_SLOTS */
	int32_t prio;            /* 0..32767, used only with SWS_SWAP_FLAG_PREFER */
	enum sws_backing backing;
	const char *path;        /* SWS_BACKING_FILE: created (see backing_flags) */
	uint32_t backing_flags;  /* SWS_BACKING_REUSE, _FOLLOW, _UNLINK; 0: create new, no link, keep */
	uint32_t tier;           /* the device's swap tier: an id from sws_swap_tier_add();
				  * 0: none (SWS_SWAP_TIER_NONE) */
};

/* ---- Swap tiers ------------------------------------------------------------

 * Swap tiers (Youngjun Park's series, v9 2026-06-20): named groups of devices
 * (/sys/kernel/mm/swap/tiers), and per memcg the tiers it may allocate slots
 * from (memory.swap.tiers.max, sws_mm_memcg_set_swap_tiers()). Slot
 * allocation skips every device outside the allowed tiers and keeps the
 * priority order among the others. The kernel places a device in the tier
 * whose priority range holds the device's priority; here a device names its
 * tier at swapon (sws_device_config.tier), which is the same placement when
 * each tier's range holds its devices' priorities. Tier 0 holds the devices
 * swapped on without a tier. */
#define SWS_SWAP_NR_TIERS 8        /* tier ids 0..7: 0 is no tier, 1..7 named */
#define SWS_SWAP_TIER_NONE 0u
#define SWS_SWAP_TIER_NAME_MAX 16  /* MAX_TIERNAME: a name is 1..15 of [A-Za-z0-9_] */
#define SWS_SWAP_TIERS_ALL ((1u << SWS_SWAP_NR_TIERS) - 1) /* every tier (bit k: tier k) */

/**
 * Add a tier named @name (swap_tiers_add(); letters, digits and '_', at most
 * 15 of them). @return 0 and its id (1..SWS_SWAP_NR_TIERS - 1) in *tier;
 * SWS_EINVAL (no sim or tier, a bad name, or the name is taken),
 * SWS_ETOOMANY (every id in use).
 */
int sws_swap_tier_add(struct sws_sim *sim, const char *name, unsigned *tier);

/** @return the id of the tier named @name (>= 1), or SWS_ENOENT. */
int sws_swap_tier_lookup(struct sws_sim *sim, const char *name);

/** @return tier @tier's name: "" for tier 0, an id not in use, or no sim. */
const char *sws_swap_tier_name(struct sws_sim *sim, unsigned tier);

/**
 * Swap on a new device (swapon(2)).
 * @return 0 and the device type in *type, or SWS_EINVAL (size, prio, flags,
 *         a tier not added, missing path, a path that is not a regular file), SWS_EVERSION,
 *         SWS_ETOOMANY, SWS_EFILEEXIST (the file exists and SWS_BACKING_REUSE
 *         is not set), SWS_EIO (the file cannot be created, opened or sized;
 *         a symbolic link without SWS_BACKING_FOLLOW), SWS_ENOMEM. On failure
 *         sws_sim_error() names the path and the errno.
 */
int sws_swapon(struct sws_sim *sim, const struct sws_device_config *cfg, int *type);

/**
 * Swap off a device. Only an empty device (no slot in use) can go.
 * The caller must not run other operations on slots of this device meanwhile.
 * @return 0, SWS_ENODEV, SWS_EBUSY (slots still in use; the device stays) or
 *         SWS_EINVAL (an xswap device: sws_mm_xswap_destroy() removes those).
 */
int sws_swapoff(struct sws_sim *sim, int type);

/* The deepest request queue a device may have (sws_device_set_queue()). */
#define SWS_DEVICE_MAX_QUEUE 64

/**
 * The device's request queue under the modelled clock (docs/modelled-time.md):
 * @depth requests in service at once (1..SWS_DEVICE_MAX_QUEUE; 0: no queue,
 * the submitting CPU does the work, as on pmem and zram). The host clock has
 * no queues. @return 0, SWS_ENODEV, SWS_EINVAL.
 */
int sws_device_set_queue(struct sws_sim *sim, int type, uint32_t depth);

/* A device as seen by /proc/swaps and the cluster lists. */
struct sws_device_info {
	int type;
	int prio;
	unsigned tier;        /* its swap tier (0: none) */
	uint32_t flags;
	uint64_t max;         /* slots including header */
	uint64_t pages;       /* usable slots */
	uint64_t inuse_pages; /* allocated slots */
	uint32_t nr_clusters;
	uint32_t nr_free;     /* clusters on each list */
	uint32_t nr_full;
	uint32_t nr_discard;
	uint32_t nr_nonfull[SWS_NR_ORDERS];
	uint32_t nr_frag[SWS_NR_ORDERS];
	uint64_t write_errors;  /* page writes to the backing store that failed */
	int write_errno;        /* errno of the last failed write (0: none) */
	bool write_failed;      /* SWS_DEVICE_WRITE_FAIL_LIMIT failures in a row: no new slots */
};

/** @return 0 or SWS_ENODEV. */
int sws_device_info_get(struct sws_sim *sim, int type, struct sws_device_info *info);
/* Obsolete: the old name of sws_device_info_get(), in C only (in C++ a function of a
 * struct's name hides the struct: "struct" would be needed before every use). */
#ifndef __cplusplus
SWS_DEPRECATED("use sws_device_info_get()") int sws_device_info(struct sws_sim *sim, int type, struct sws_device_info *info);
#endif


/** Total and free slots over all devices (total_swap_pages, nr_swap_pages). */
void sws_swap_totals(struct sws_sim *sim, uint64_t *total, uint64_t *free);

/**
 * Run deferred device work (discard of freed clusters) for at most @budget
 * clusters over all devices. @return the work still pending (0 when idle).
 */
unsigned sws_swap_do_deferred_work(struct sws_sim *sim, unsigned budget);

#ifdef __cplusplus
}
#endif
#endif
