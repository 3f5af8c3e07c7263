#!/bin/sh
# Thread scaling of the replay on this machine (docs/benchmarks.md, "Thread
# scaling of the replay"): each case at --threads 1 and --threads T, rounds
# interleaved (1 T 1 T ...) so the machine's noise falls on both alike. Prints
# one JSON object per run and, per case, a summary with the median events/s
# of each thread count and their ratio.
#
# Usage: bench/thread_scaling.sh [BUILD_DIR] [ROUNDS] [T]
#   cases: zipf, two tasks in a memcg each (--memcg-per-task);
#          usemem -n T in one memcg that holds them (first touches, then hits);
#          usemem -n T in one memcg half their size (every pass swaps).
# Needs jq (scripts/deps.sh installs it).
set -eu
build=${1:-build}
rounds=${2:-3}
t=${3:-2}
replay="$build/sim/swapsim-replay"
[ -x "$replay" ] || { echo "thread_scaling.sh: no $replay (build first)" >&2; exit 2; }
command -v jq >/dev/null || { echo "thread_scaling.sh: needs jq (apt-get install -y jq)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_case() { # NAME ARGS...: the rounds, then the summary
	name=$1
	shift
	for r in $(seq 1 "$rounds"); do
		for th in 1 "$t"; do
			"$replay" --quiet --report json --clock host --threads "$th" "$@" >"$tmp/out.json"
			eps=$(jq '.runs[0].summary.events_per_sec.mean' "$tmp/out.json")
			echo "{\"case\":\"$name\",\"round\":$r,\"threads\":$th,\"events_per_sec\":$eps}"
			echo "$eps" >>"$tmp/$name.$th"
		done
	done
	m1=$(sort -g "$tmp/$name.1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	mt=$(sort -g "$tmp/$name.$t" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	echo "{\"case\":\"$name\",\"summary\":true,\"threads\":$t,\"median_events_per_sec_1\":$m1,\"median_events_per_sec_$t\":$mt,\"ratio\":$(awk -v a="$mt" -v b="$m1" 'BEGIN {printf "%.3f", a / b}')}"
}

run_case zipf_memcg_per_task --ram 1G --mem-limit 128M --memcg-per-task \
	--workload zipf -n "$t" -a 4000000 256M
run_case usemem_one_memcg --ram 1G --mem-limit 512M --swap size=2G,type=pmem \
	--workload usemem -n "$t" -r 8 256M
run_case usemem_one_memcg_swapping --ram 4G --mem-limit 1G --swap size=4G,type=pmem \
	--workload usemem -n "$t" -r 2 1G
