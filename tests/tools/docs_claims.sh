#!/bin/sh
# The docs' commands, run as written (docs/tools.md's ```sh blocks, with
# build/sim/ this build's and docs/img/ a scratch folder), and their claims
# checked against what they print:
#   - "swapsim-plot figures FILE lists them (N for the usemem report below)":
#     N is what the designs example's report lists;
#   - the xswap series grows and shrinks (the arenas map more as the device
#     fills, and give it back when the tasks exit), and docs/xswap.md's table
#     (the same command, its words) is that CSV's rows.
# Usage: docs_claims.sh SOURCE-DIR BUILD-SIM-DIR WORKDIR
set -eu
src=$1 bin=$(cd "$2" && pwd) work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start gnuplot jq
tools=$src/docs/tools.md xswap=$src/docs/xswap.md

# block MARKER: the ```sh block of tools.md holding MARKER, made to run here.
block() {
	awk -v m="$1" '/^```sh$/ { b = ""; on = 1; next } /^```$/ { if (on && index(b, m)) { printf "%s", b; exit } on = 0; next }
		on { b = b $0 "\n" }' "$tools" | sed "s|build/sim/|$bin/|g; s|docs/img/|$work/|g"
}
block '> usemem.json' >"$work/designs.sh"
block '> xswap.csv' >"$work/xswap.sh"
[ -s "$work/designs.sh" ] && [ -s "$work/xswap.sh" ] || fail "docs/tools.md: the designs or the xswap example is not there"
(cd "$work" && sh designs.sh >/dev/null && sh xswap.sh >/dev/null) || fail "the documented commands failed"

# The figure count.
claimed=$(sed -n 's/.*lists them (\([0-9]*\) for the usemem report below).*/\1/p' "$tools")
listed=$("$bin/swapsim-plot" figures "$work/usemem.json" | wc -l | tr -d ' ')
[ -n "$claimed" ] && [ "$claimed" = "$listed" ] && echo "ok: figures: $listed, as docs/tools.md says" ||
	fail "docs/tools.md says '${claimed:-?}' figures, swapsim-plot figures lists $listed"

# The xswap series: the arenas grow and shrink.
awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
	{ v = $c["arena_mapped_bytes"]; if (NR == 2) first = v; if (v > max) max = v; last = v }
	END { printf "arena_mapped_bytes: first %d, largest %d, last %d\n", first, max, last; exit !(max > first && last < max) }' \
	"$work/xswap.csv" >"$work/arena" && echo "ok: the xswap series grows and shrinks: $(cat "$work/arena")" ||
	fail "the documented xswap series does not grow and shrink: $(cat "$work/arena")"
png "$work/series-xswap.png" 900 700

# docs/xswap.md's example is the same command, and its table the CSV's rows.
cmd_tools=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$work/xswap.sh" | grep 'swapsim-replay ' |
	sed "s|$bin/||; s| > xswap.csv.*||; s|  *| |g")
cmd_xswap=$(awk '/^\(`swapsim-replay --ram/ { on = 1 } on { printf "%s ", $0 } on && /`,/ { exit }' "$xswap" |
	sed 's/^(`//; s/`,.*//; s/  */ /g; s/ $//')
[ -n "$cmd_xswap" ] && [ "$cmd_xswap" = "$cmd_tools" ] ||
	fail "docs/xswap.md's command '$cmd_xswap' is not docs/tools.md's '$cmd_tools'"
awk '/^events,  swap_used_pages/ { on = 1; next } on && /^```/ { exit } on { sub(/ +\(.*/, ""); gsub(/ /, ""); print }' "$xswap" >"$work/table.doc"
awk -F, 'NR == FNR { want[$1] = 1; next } FNR > 1 && ($2 in want) { print $2 "," $10 "," $11 "," $13 "," $14 "," $15 "," $16 }' \
	FS=, "$work/table.doc" FS=, "$work/xswap.csv" >"$work/table.run"
[ -s "$work/table.doc" ] && cmp -s "$work/table.doc" "$work/table.run" && echo "ok: docs/xswap.md's table is the CSV's rows" ||
	fail "docs/xswap.md's table differs from the run: $(diff "$work/table.doc" "$work/table.run" | head -n 6)"
finish "docs claims"
