/*
 * cli_designs.h - the per-slot designs as the command-line programs in sim/
 * list them: every design of the registry (SWS_DESIGN_LIST in
 * swapsim/sim.h), in its order (oldest first), for --list-designs, the
 * defaults that mean "every design", and the messages and --help lines that
 * name them. A design added to the registry shows up here with no change.
 */
#ifndef SWAPSIM_CLI_DESIGNS_H
#define SWAPSIM_CLI_DESIGNS_H

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

#endif
