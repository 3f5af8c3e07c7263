/*
 * cli_designs.h - the per-slot designs as the command-line programs in sim/
 * list them: every design of the registry (SWS_DESIGN_LIST in
 * swapsim/sim.h), in its order (oldest first), for --list-designs, the
 * defaults that mean "every design", and the messages and --help lines that
 * name them, and whether a design has a virtual device. A design added to
 * the registry shows up here with no change.
 */
#ifndef SWAPSIM_CLI_DESIGNS_H
#define SWAPSIM_CLI_DESIGNS_H

#include <stdbool.h>
#include <stddef.h>
#include <swapsim/swapsim.h>

#define CLI__DESIGN_ONE(id, num, name, kernel, ops, help) +1
/* How many designs the registry lists. */
enum { CLI_NR_DESIGNS = 0 SWS_DESIGN_LIST(CLI__DESIGN_ONE) };
#undef CLI__DESIGN_ONE

/* Every design, in the registry's order (CLI_NR_DESIGNS of them). */
extern const enum sws_design cli_designs[CLI_NR_DESIGNS];

/**
 * The design names in the registry's order, joined by @sep, with @last
 * before the last one (", " and " or ": "xarray, st-p1, ... or vswap"), in
 * @buf (cut to @len). @return @buf.
 */
const char *cli_design_list(char *buf, size_t len, const char *sep, const char *last);

/**
 * Whether @design's simulation has a virtual device (SWS_SWP_VIRTUAL: the
 * vswap designs'), which sits in every swap tier, so that a memcg's tier mask
 * chooses nothing under it. Asked of a simulation made for the purpose.
 * @return true or false (false also when no simulation could be made).
 */
bool cli_design_virtual(enum sws_design design);

#endif
