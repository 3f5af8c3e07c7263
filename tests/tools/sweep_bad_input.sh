#!/bin/sh
# swapsim-sweep refuses a grid it cannot run and a results folder it cannot
# use, with a message and a non-zero exit (2: bad usage, 1: the folder).
# Usage: sweep_bad_input.sh SWAPSIM-SWEEP SWAPSIM-REPLAY WORKDIR
set -eu
sweep=$1 replay=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start jq
s() { "$sweep" --out "$work/sw" --replay "$replay" --no-plot "$@"; }
w="--workload memhog 1M"
# shellcheck disable=SC2086
{
expect_fail 2 "swapsim-replay has no option --no-such-option" s --grid no-such-option=1,2 -- $w
expect_fail 2 "the axis threads has no values" s --grid threads= -- $w
expect_fail 2 "an empty value in the axis threads" s --grid threads=1,,2 -- $w
expect_fail 2 "an empty value in the axis swap" s --grid 'swap=size=8M,type=pmem;' -- $w
expect_fail 2 "want NAME=V1,V2" s --grid threads -- $w
expect_fail 2 "no option name before =" s --grid =1,2 -- $w
expect_fail 2 "the axis threads is given twice" s --grid threads=1 --grid threads=2 -- $w
expect_fail 2 "the value '1' is given twice" s --grid threads=1,2,1 -- $w
expect_fail 2 "--zswap takes no value: its axis takes on,off" s --grid zswap=yes,no -- $w
expect_fail 2 "sets --report on every point" s --grid report=json,csv -- $w
expect_fail 2 "sets --json-out on every point" s --grid threads=1 -- --json-out x.json $w
expect_fail 2 "--threads is also an axis" s --grid threads=1,2 -- --threads 4 $w
expect_fail 2 "--workload takes every word after it" s --grid workload=memhog -- --ram 4M
expect_fail 2 "no input" s --grid threads=1,2 -- --ram 4M
expect_fail 2 "replay option '--bogus': swapsim-replay has no option --bogus" s --grid threads=1 -- --bogus $w
expect_fail 2 "no --grid" s -- $w
# A value the replay refuses is found before any point runs, named with the replay's message.
expect_fail 2 "--grid backend=...: swapsim-replay: --backend: 'foo': expected xarray" s --grid backend=st-p4,foo -- $w
expect_fail 2 "--grid compare=...: swapsim-replay: --compare: 'bar': expected" s --grid 'compare=xarray,st-p4;xarray,bar' -- $w
expect_fail 2 "--grid mem-limit=...: swapsim-replay: --mem-limit: '64': 64 bytes is less than one page" \
	s --grid mem-limit=1M,64 -- $w
expect_fail 2 "--grid workload-args=...: swapsim-replay: --workload: usemem -n 0" \
	s --grid 'workload-args=usemem 1M,usemem -n 0 1M' -- --ram 4M
expect_fail 2 "--rerun runs what a report recorded" s --grid rerun=a.json,b.json -- $w
expect_fail 2 "-j: '0'" s -j 0 --grid threads=1 -- $w
}
[ ! -e "$work/sw" ] || fail "a refused grid created its folder"

# Results folders that cannot be used.
expect_fail 1 "$work/none: no such folder" "$sweep" --collect "$work/none"
: >"$work/file"
expect_fail 1 "$work/file: not a folder" "$sweep" --collect "$work/file"
expect_fail 1 "$work/file: exists and is not a folder" "$sweep" --out "$work/file" --replay "$replay" --grid threads=1 -- $w
mkdir "$work/empty"
expect_fail 1 "not a swapsim-sweep results folder" "$sweep" --collect "$work/empty"
mkdir -p "$work/badmanifest/points" && echo '{"grid":' >"$work/badmanifest/sweep.manifest"
expect_fail 1 "sweep.manifest: not a swapsim-sweep manifest" "$sweep" --collect "$work/badmanifest"
mkdir -p "$work/nopoints" && echo '{"grid": [], "fixed": []}' >"$work/nopoints/sweep.manifest" && : >"$work/nopoints/points"
expect_fail 1 "nopoints/points: cannot be read" "$sweep" --collect "$work/nopoints"
if [ "$(id -u)" -ne 0 ]; then
	mkdir -p "$work/locked" && chmod 000 "$work/locked"
	expect_fail 1 "$work/locked: cannot be read" "$sweep" --collect "$work/locked"
	chmod 700 "$work/locked"
else
	echo "note: running as root, so a folder without permissions is still readable: that case is not run"
fi
# A folder of another sweep is not reused.
"$sweep" --out "$work/one" --replay "$replay" --no-plot --grid threads=1 -- --ram 4M $w >/dev/null
expect_fail 1 "holds another sweep" "$sweep" --out "$work/one" --replay "$replay" --no-plot --grid threads=1,2 -- --ram 4M $w
expect_fail 1 "no point 0009" "$sweep" --run-point "$work/one" 0009
finish "sweep bad input"
