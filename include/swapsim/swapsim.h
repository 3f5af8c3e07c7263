/*
 * swapsim/swapsim.h - libswapsim, a userspace simulator of the Linux swap
 * subsystem. Include this umbrella header; the topic headers read as a manual:
 *
 *   error.h   error codes (negative SWS_E*), sws_strerror()
 *   env.h     allocator, clock, seed and log injection
 *   sim.h     the simulation root, backends, CPUs (caller threads)
 *   device.h  swap devices, clusters, backing stores
 *   swap.h    entries, slot allocation, swap counts, the swap cache, page I/O
 *   stats.h   counters, memory accounting, printing
 *   cost.h    the cost table of modelled time
 *   mm.h      the memory model: RAM, memcgs, address spaces, fault/reclaim/free paths
 *   zswap.h   zswap: the compressed pool (lz4/zstd), its shrinker and writeback
 *   xswap.h   xswap: extendable swap devices
 *   trace.h   trace records, the native trace format, importers (perf, lackey, DAMON, ...)
 *   replay.h  the replay driver: multi-threaded replay, synthetic workloads, reports
 *
 * Kernel versions modelled: seven per-slot designs, chosen per simulation
 * (sws_design_parse(); the one list is SWS_DESIGN_LIST in sim.h, and
 * docs/designs.md compares them): xarray follows 6.17 (XArray swap
 * cache, swap_map bytes, swap_cgroup array, zeromap); st-p1 to st-p4 the
 * swap table's phases I to IV (6.18 to ~7.2; st-p4 is the default);
 * vswap-v3 and vswap the virtual swap series (v3, and v4-v5, on 6.19). See
 * docs/design.md.
 */
#ifndef SWAPSIM_SWAPSIM_H
#define SWAPSIM_SWAPSIM_H

#include <swapsim/error.h>
#include <swapsim/env.h>
#include <swapsim/sim.h>
#include <swapsim/device.h>
#include <swapsim/swap.h>
#include <swapsim/stats.h>
#include <swapsim/cost.h>
#include <swapsim/mm.h>
#include <swapsim/zswap.h>
#include <swapsim/xswap.h>
#include <swapsim/trace.h>
#include <swapsim/replay.h>

#define SWS_VERSION_MAJOR 0
#define SWS_VERSION_MINOR 1
#define SWS_VERSION_PATCH 0

#endif
