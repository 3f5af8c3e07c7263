#!/bin/sh
# designs.sh - the per-slot designs of the registry (SWS_DESIGN_LIST in
# include/swapsim/sim.h), oldest first: what `swapsim-replay --list-designs`
# prints, one name a line, read from the header where no binary is given or
# the binary lacks that option. --comma joins them with commas (--compare's
# list). Scripts that list every design take the list from here.
#
#   sh scripts/designs.sh [--comma] [SWAPSIM_REPLAY]
set -eu
sep='\n'
if [ "${1:-}" = --comma ]; then
	sep=,
	shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)
names=
if [ $# -gt 0 ] && [ -x "$1" ]; then
	names=$("$1" --list-designs 2>/dev/null) || names=
fi
if [ -z "$names" ]; then
	# The list's lines: X(ID, number, "name", ...
	names=$(sed -n 's/^[[:space:]]*X([A-Z0-9_]*, *[0-9]*, *"\([^"]*\)".*/\1/p' "$root/include/swapsim/sim.h")
fi
[ -n "$names" ] || { echo "designs.sh: no designs in $root/include/swapsim/sim.h" >&2; exit 1; }
if [ "$sep" = , ]; then
	printf '%s\n' "$names" | paste -sd, -
else
	printf '%s\n' "$names"
fi
