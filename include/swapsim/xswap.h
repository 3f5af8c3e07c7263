/*
 * swapsim/xswap.h - xswap: extendable swap devices (the 2026 xswap series,
 * v3, built on swap-table phase IV; see docs/xswap.md).
 *
 * An xswap device has no backing store: every page it holds lives in zswap.
 * Its address space is reserved at twice the simulated RAM and starts usable
 * at one RAM (its limit); its cluster metadata lives in sparse arenas mapped
 * one chunk (85 clusters, 170 MiB of swap) at a time when an allocation finds
 * no free cluster, and given back by deferred work (sws_swap_do_deferred_work)
 * when the tail of the mapped range is free and at most half of it is in use.
 *
 * Pages zswap refuses to store on an xswap slot stay in RAM (activated): they
 * are never written anywhere, zswap never writes an xswap entry back, and a
 * swap-in from xswap never reads ahead.
 *
 * The control interface follows the kernel's sysfs files
 * (/sys/kernel/mm/xswap/{create,destroy,type<N>/limit}).
 */
#ifndef SWAPSIM_XSWAP_H
#define SWAPSIM_XSWAP_H

#include <stdint.h>
#include <swapsim/mm.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Create and enable an xswap device on @mm's simulation (write to
 * xswap/create). @prio: -1 (the default, round robin with other -1 devices)
 * or 0..32767.
 * @return 0 and the device type in *type, or SWS_EOPNOTSUPP (zswap is not
 *         enabled on @mm, or the backend is the XArray baseline, whose static
 *         per-slot arrays xswap has no place for), SWS_EINVAL, SWS_ETOOMANY,
 *         SWS_ENOMEM.
 */
int sws_mm_xswap_create(struct sws_mm *mm, int prio, int *type);

/**
 * Destroy xswap device @type (write to xswap/destroy, a swapoff).
 * Unlike the kernel, whose swapoff first swaps every page back in, a device
 * with pages in use is refused: SWS_EBUSY, and it stays as it was. Free its
 * pages first (unmap, exit, or swap them in).
 * @return 0, SWS_ENODEV, SWS_EINVAL (not an xswap device), SWS_EBUSY.
 */
int sws_mm_xswap_destroy(struct sws_mm *mm, int type);

/** Read xswap/type<N>/limit: the limit in pages (whole clusters). */
int sws_xswap_limit_get(struct sws_sim *sim, int type, uint64_t *pages);

/**
 * Write xswap/type<N>/limit. The limit becomes the clusters covering @pages,
 * at most the reservation (2 x RAM) and at least the clusters covering the
 * pages in use plus the header slot; the device's usable pages, the total
 * and the free swap move by the difference. Below the mapped range, the
 * free clusters above the new limit are given back at once.
 * @return 0, SWS_ENODEV, SWS_EINVAL (not an xswap device).
 */
int sws_xswap_limit_set(struct sws_sim *sim, int type, uint64_t pages);

struct sws_xswap_info {
	uint64_t limit_pages;          /* what limit reads */
	uint64_t max_slots;            /* the reservation */
	uint64_t pages;                /* usable slots now (limit minus the header, >= use) */
	uint64_t inuse_pages;
	uint32_t nr_clusters_max;      /* clusters reserved */
	uint32_t nr_clusters_limit;    /* the ceiling */
	uint32_t nr_clusters_mapped;   /* clusters with metadata */
	uint64_t arena_reserved_bytes; /* address space of every per-cluster array */
	uint64_t arena_mapped_bytes;   /* mapped read-write */
	uint64_t arena_resident_bytes; /* resident in RAM, as mincore() reports it */
	uint64_t grows, grow_fails;    /* chunks mapped; mappings that failed */
	uint64_t shrinks, clusters_unmapped;
};

/** @return 0, SWS_ENODEV, SWS_EINVAL (not an xswap device). */
int sws_xswap_info_get(struct sws_sim *sim, int type, struct sws_xswap_info *info);
/* Obsolete: the old name of sws_xswap_info_get(), in C only (in C++ a function of a
 * struct's name hides the struct: "struct" would be needed before every use). */
#ifndef __cplusplus
SWS_DEPRECATED("use sws_xswap_info_get()") int sws_xswap_info(struct sws_sim *sim, int type, struct sws_xswap_info *info);
#endif


#ifdef __cplusplus
}
#endif
#endif
