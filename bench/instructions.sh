#!/bin/sh
# Instructions per access (callgrind: deterministic, whatever the machine's
# load) on the replay's whole path, and the events/s ratio to libCacheSim's
# cachesim in the same run (docs/benchmarks.md, "Instructions per access").
#
#   lru     the exact-LRU zipf trace: 1 M accesses, zipf(0.9) over 262,144
#           pages (swapsim-lru-trace), 16,384 pages of RAM, binary native
#           trace: --ram 64M --metadata-ram off --policy lru --page-cluster 0
#           --swap size=2G
#   usemem  the main job's workload at 1/64 of its size, on every design:
#           usemem -n 31 16M (-O -y -x --init-time) in a 64 MiB memcg (the
#           main job's 13% of the working set), PMEM, 31 CPUs, modelled time
# then bench/lru_vs_libcachesim.sh (its 5 M-access trace, rounds interleaved)
# when cachesim is found.
#
# Usage: bench/instructions.sh [BUILD_DIR] [OUT_DIR] [CACHESIM]
#   BUILD_DIR  a Release build (build)
#   OUT_DIR    traces, callgrind profiles, reports (bench-instructions)
#   CACHESIM   libCacheSim's cachesim binary (also $CACHESIM, else PATH);
#              without it the ratio is left out ("ratio":null)
# Environment: DESIGNS (the main job's: every design, scripts/designs.sh),
# ROUNDS (3, for the ratio).
#
# Output: one JSON object per case, then a summary:
#   {"case":"lru","instructions":N,"accesses":N,"per_access":X,"pgfault":N}
#   {"case":"usemem","design":D,"instructions":N,"accesses":N,"per_access":X,"pgfault":N}
#   {"summary":true,"lru_per_access":X,"cachesim_ratio":R|null}
# The profiles (OUT_DIR/*.callgrind) read with callgrind_annotate.
set -eu
build=${1:-build}
out=${2:-bench-instructions}
cachesim=${3:-${CACHESIM:-}}
designs=${DESIGNS:-$(sh "$(dirname "$0")/../scripts/designs.sh" --comma "$build/sim/swapsim-replay")}
me=instructions.sh
here=$(cd "$(dirname "$0")" && pwd)

replay=$build/sim/swapsim-replay
gen=$build/bench/swapsim-lru-trace
for b in "$replay" "$gen"; do
	[ -x "$b" ] || { echo "$me: $b not found (build the project first)" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "$me: needs valgrind (apt-get install -y valgrind)" >&2; exit 2; }
command -v jq >/dev/null || { echo "$me: needs jq (apt-get install -y jq)" >&2; exit 2; }
mkdir -p "$out"

# count NAME ARGS...: swapsim-replay ARGS under callgrind; writes
# "instructions accesses pgfault" to OUT_DIR/NAME.counts.
count() {
	name=$1
	shift
	valgrind --tool=callgrind --branch-sim=no --callgrind-out-file="$out/$name.callgrind" \
		"$replay" --quiet --report json "$@" >"$out/$name.json" 2>"$out/$name.err" ||
		{ echo "$me: $name: swapsim-replay failed: $(grep -v '^==' "$out/$name.err" | tail -n 3)" >&2; exit 1; }
	ir=$(sed -n 's/^summary: *//p' "$out/$name.callgrind")
	acc=$(jq '[.runs[0].repeats[].accesses] | add' "$out/$name.json")
	pf=$(jq '.runs[0].counters.pgfault' "$out/$name.json")
	[ -n "$ir" ] && [ "$acc" -gt 0 ] || { echo "$me: $name: no count in $out/$name.callgrind" >&2; exit 1; }
	echo "$ir $acc $pf" >"$out/$name.counts"
}
per() { awk -v i="$1" -v a="$2" 'BEGIN { printf "%.0f", i / a }'; }

trace=$out/zipf-1000000-262144-0.9-1
[ -f "$trace.bin" ] || "$gen" "$trace" 1000000 262144 0.9 1 >/dev/null
count lru --trace "$trace.bin" --ram 64M --metadata-ram off --policy lru --page-cluster 0 --swap size=2G
read -r ir acc pf <"$out/lru.counts"
lru=$(per "$ir" "$acc")
echo "{\"case\":\"lru\",\"instructions\":$ir,\"accesses\":$acc,\"per_access\":$lru,\"pgfault\":$pf}"

for d in $(echo "$designs" | tr , ' '); do
	count "usemem-$d" --ram 1G --mem-limit 64M --swap size=1G,type=pmem --cpus 31 --backend "$d" \
		--workload usemem --init-time -O -y -x -n 31 16M
	read -r ir acc pf <"$out/usemem-$d.counts"
	echo "{\"case\":\"usemem\",\"design\":\"$d\",\"instructions\":$ir,\"accesses\":$acc,\"per_access\":$(per "$ir" "$acc"),\"pgfault\":$pf}"
done

ratio=null
[ -n "$cachesim" ] || cachesim=$(command -v cachesim 2>/dev/null || true)
if [ -n "$cachesim" ] && [ -x "$cachesim" ]; then
	ROUNDS=${ROUNDS:-3} sh "$here/lru_vs_libcachesim.sh" "$build" "$out/lru-vs-cachesim" "$cachesim" >"$out/lru-vs-cachesim.jsonl"
	ratio=$(tail -n 1 "$out/lru-vs-cachesim.jsonl" | jq .ratio)
else
	echo "$me: no cachesim (libCacheSim): the events/s ratio left out" >&2
fi
echo "{\"summary\":true,\"lru_per_access\":$lru,\"cachesim_ratio\":$ratio}"
