#!/bin/sh
# swapsim-plot refuses what it cannot draw, with a message and a non-zero exit:
# 1 for an input it cannot read or that is not what the plot needs, 2 for bad
# usage (unknown plot, option, figure or column); no image is left behind.
# Usage: plot_bad_input.sh SWAPSIM-PLOT SWAPSIM-REPLAY WORKDIR
set -eu
plot=$1 replay=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start gnuplot jq
"$replay" --ram 4M --mem-limit 2M --compare st-p4,xarray --report json --quiet \
	--workload usemem -n 1 3M >"$work/r.json"
"$replay" --ram 4M --mem-limit 2M --report csv --interval 500 --quiet --workload usemem -n 1 3M >"$work/r.csv"

expect_fail 1 "$work/missing.json: no such file" "$plot" designs "$work/missing.json"
expect_fail 1 "not a regular file" "$plot" designs "$work"
printf '{"runs": [' >"$work/cut.json"
expect_fail 1 "cut.json: not valid JSON" "$plot" designs "$work/cut.json"
echo '{"rows": []}' >"$work/other.json"
expect_fail 1 "other.json: not a swapsim-replay JSON report" "$plot" designs "$work/other.json"
expect_fail 2 "unknown figure 'no_such_figure' in .*r.json" "$plot" designs "$work/r.json" --figure elapsed_ns,no_such_figure
expect_fail 2 "unknown plot 'pie'" "$plot" pie "$work/r.json"
expect_fail 2 "unknown option '--colour'" "$plot" designs "$work/r.json" --colour red
expect_fail 2 "--errors: 'range'" "$plot" designs "$work/r.json" --errors range
expect_fail 2 "does not end in .png" "$plot" designs "$work/r.json" -o "$work/r.svg"
expect_fail 2 "unknown column 'swap_total' in" "$plot" series "$work/r.csv" --columns swap_used_pages,swap_total
echo 'time,value' >"$work/other.csv"
expect_fail 1 "other.csv: not a swapsim-replay CSV time series" "$plot" series "$work/other.csv"
head -n 1 "$work/r.csv" >"$work/header.csv"
expect_fail 1 "header.csv: no rows after the header" "$plot" series "$work/header.csv"
{ cat "$work/r.csv"; echo 'st-p4,1,2'; } >"$work/short.csv"
expect_fail 1 "short.csv: line [0-9]+: 3 fields" "$plot" series "$work/short.csv"
expect_fail 1 "no sweep.json" "$plot" sweep "$work"
expect_fail 1 "not a swapsim-sweep result" "$plot" sweep "$work/r.json"
for f in missing designs cut other r other short header; do
	[ ! -e "$work/$f.png" ] || fail "an image was left behind: $work/$f.png"
done
# The output rules (docs/tools.md, "Output files"): a directory named like an
# image is refused (it wrote DIR/out.png and exited 0), so is a symbolic link
# to nothing and the input itself; a link is followed (its target replaced,
# the link kept); a new image is 0666 less the umask, an existing one keeps its
# mode; nothing is left beside the output.
mkdir "$work/dir.png"
expect_fail 2 "--output: '$work/dir.png' is a directory" "$plot" designs "$work/r.json" -o "$work/dir.png"
[ -z "$(ls -A "$work/dir.png")" ] || fail "something was written into dir.png"
ln -s nowhere.png "$work/dangling.png"
expect_fail 1 "--output $work/dangling.png: a symbolic link that names no file" \
	"$plot" designs "$work/r.json" -o "$work/dangling.png"
[ ! -e "$work/nowhere.png" ] || fail "the dangling link's target was created"
cp "$work/r.json" "$work/in.png"
expect_fail 2 "--output: '$work/in.png' is the input" "$plot" designs "$work/in.png" -o "$work/in.png"
cmp -s "$work/in.png" "$work/r.json" || fail "the input changed"
mkdir "$work/real"
echo old >"$work/real/target.png" && chmod 640 "$work/real/target.png"
ln -s real/target.png "$work/link.png"
"$plot" designs "$work/r.json" -o "$work/link.png" >/dev/null || fail "a linked output: failed"
[ -L "$work/link.png" ] || fail "the link was replaced"
png "$work/real/target.png"
[ "$(stat -c %a "$work/real/target.png")" = 640 ] || fail "the linked image's mode changed"
(umask 027 && "$plot" designs "$work/r.json" -o "$work/new.png" >/dev/null) || fail "umask 027: failed"
[ "$(stat -c %a "$work/new.png")" = 640 ] || fail "umask 027: a new image is $(stat -c %a "$work/new.png"), want 640"
leftover=$(find "$work" -name '.*.png.*' | head -n 1)
[ -z "$leftover" ] || fail "a temporary image was left behind: $leftover"
finish "plot bad input"
