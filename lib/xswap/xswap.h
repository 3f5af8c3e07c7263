/*
 * xswap.h - extendable swap devices (the 2026 xswap series, v3, on swap-table
 * phase IV; docs/xswap.md): a device with
 * no backing store whose per-cluster metadata grows one chunk (85 clusters)
 * at a time as allocation needs it and is given back by a deferred shrink
 * when the tail of the mapped range is free.
 *
 * xswap is an owner of the core's extendable devices (swap_internal.h,
 * struct sws_ext_ops): it decides when to grow and shrink (xswap_policy.c)
 * and keeps the limit; the core maps and unmaps the per-cluster arrays.
 *
 * Locks (outer first): sim->ext_mutex (create, destroy, limit writes, the
 * deferred work), then ext->lock (the limit and grow decisions), then the
 * device's own locks.
 */
#ifndef SWS_XSWAP_XSWAP_H
#define SWS_XSWAP_XSWAP_H

#include <stdint.h>

/* What the memory model calls (sws__xswap_create/destroy, from mm_init.c)
 * needs nothing of the core's structs: swap/swap_mm.h declares the handles
 * (xswap.c includes the core's swap_internal.h itself). */
#include "../swap/swap_mm.h"

/* xswap_policy.c: the sizing rules, pure functions of cluster counts, are
 * declared in xswap_policy.h, which needs nothing of the core (its unit test
 * includes it alone). */
#include "xswap_policy.h"

/* ext->data of an xswap device. */
struct sws_xswap {
	_Atomic uint32_t limit; /* the ceiling, in clusters */
};

/* ---- xswap.c ------------------------------------------------------------------------ */

/* sim->ext_mutex held: create a disabled xswap device sized by @ram_pages
 * (the caller enables it with sws__device_enable() once its own per-device
 * state exists: the memory model's device_added hook has run).
 * @return 0, SWS_EOPNOTSUPP (the design has static per-slot arrays, or the
 * build has no xswap), SWS_EINVAL, SWS_ETOOMANY, SWS_ENOMEM. */
int sws__xswap_create(struct sws_sim *sim, int prio, uint64_t ram_pages, int *type);

/* sim->ext_mutex held: destroy (swapoff) xswap device @type: SWS_EBUSY while
 * pages are in use, SWS_EINVAL for another kind of device, SWS_ENODEV. */
int sws__xswap_destroy(struct sws_sim *sim, int type);

/* Fault injection: the @nth grow from now of xswap device @type fails to map. */
int sws__xswap_fail_grow(struct sws_sim *sim, int type, uint64_t nth);

#endif
