#!/bin/sh
# usemem -n T in one memcg, for every design (docs/benchmarks.md, "usemem in
# one memcg on every design"): T tasks of SIZE each swap through one memcg half
# their total size, on pmem (SYNCHRONOUS_IO), at --threads 1 and --threads T,
# rounds interleaved per design. Prints one JSON object per design: the median
# events/s at 1 and T threads, their ratio, and the lock waits of the last
# T-thread run by lock class (the lock_*_contended counters), so the contention
# left at T threads is named.
#
# Usage: bench/usemem_designs.sh [BUILD_DIR] [T] [ROUNDS] [SIZE]
#   defaults: build 16 3 256M (the 16-core measurement; T=2 SIZE=64M on 2 cores)
# Needs jq (scripts/deps.sh installs it).
set -eu
build=${1:-build}
t=${2:-16}
rounds=${3:-3}
size=${4:-256M}
replay="$build/sim/swapsim-replay"
[ -x "$replay" ] || { echo "usemem_designs.sh: no $replay (build first)" >&2; exit 2; }
command -v jq >/dev/null || { echo "usemem_designs.sh: needs jq (apt-get install -y jq)" >&2; exit 2; }
case $t in '' | *[!0-9]*) echo "usemem_designs.sh: T must be a thread count, got '$t'" >&2; exit 2 ;; esac
case $rounds in '' | *[!0-9]* | 0) echo "usemem_designs.sh: ROUNDS must be a positive count, got '$rounds'" >&2; exit 2 ;; esac
mib=$(echo "$size" | sed -n 's/^\([0-9][0-9]*\)M$/\1/p')
[ -n "$mib" ] || { echo "usemem_designs.sh: SIZE must be in MiB (e.g. 256M), got '$size'" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

total=$((mib * t))
args="--ram $((total * 2))M --mem-limit $((total / 2))M --swap size=$((total * 2))M,type=pmem \
--workload usemem -n $t -r 2 $size"
median() { sort -g "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

for d in $(sh "$(dirname "$0")/../scripts/designs.sh" "$replay"); do
	: >"$tmp/$d.1"
	: >"$tmp/$d.t"
	for r in $(seq 1 "$rounds"); do
		for th in 1 "$t"; do
			# shellcheck disable=SC2086 # args is a word list
			"$replay" --quiet --report json --clock host --backend "$d" --threads "$th" $args >"$tmp/out.json"
			f=$tmp/$d.1
			[ "$th" = 1 ] || { f=$tmp/$d.t; cp "$tmp/out.json" "$tmp/$d.last.json"; }
			jq '.runs[0].summary.events_per_sec.mean' "$tmp/out.json" >>"$f"
		done
	done
	m1=$(median "$tmp/$d.1")
	mt=$(median "$tmp/$d.t")
	jq -c --arg d "$d" --argjson t "$t" --argjson m1 "$m1" --argjson mt "$mt" '
		{design: $d, threads: $t, median_events_per_sec_1: $m1, median_events_per_sec_t: $mt,
		 ratio: (($mt / $m1) * 1000 | round / 1000),
		 lock_waits: (.runs[0].counters | with_entries(select(.key | test("^lock_.*_contended$"))))}' \
		"$tmp/$d.last.json"
done
