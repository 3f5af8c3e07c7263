#!/bin/sh
# bench/lru_vs_libcachesim.sh on a small trace: without libCacheSim's cachesim
# it stops (exit 2) with a message; with a stand-in that prints cachesim's
# result line it runs both tools and prints one JSON object per run and the
# summary. (The figures themselves come from a real cachesim, docs/benchmarks.md.)
# Usage: lru_vs_libcachesim.sh SCRIPT BUILD_DIR WORKDIR
set -eu
script=$1 build=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start
small="ACCESSES=20000 PAGES=2048 LRU_PAGES=256 ROUNDS=2"
# shellcheck disable=SC2086
expect_fail 2 "cachesim not found at $work/none" env $small sh "$script" "$build" "$work/res" "$work/none"
cat > "$work/cachesim" << 'STUB'
#!/bin/sh
echo "$1 LRU cache size      256,            20000 req, miss ratio 0.4000, throughput 1.50 MQPS"
STUB
chmod +x "$work/cachesim"
# shellcheck disable=SC2086
if ! env $small CACHESIM="$work/cachesim" sh "$script" "$build" "$work/res" > "$work/runs" 2> "$work/err"; then
	fail "the run with a stand-in cachesim failed: $(cat "$work/err")"
fi
[ "$(grep -c '"tool":"cachesim"' "$work/runs")" = 2 ] || fail "not 2 cachesim rounds: $(cat "$work/runs")"
[ "$(grep -c '"tool":"swapsim"' "$work/runs")" = 2 ] || fail "not 2 swapsim rounds: $(cat "$work/runs")"
sum=$(grep '"summary":true' "$work/runs" || true)
for k in '"cachesim_events_per_sec":1500000' '"cachesim_misses":8000' '"swapsim_pgfault":[1-9]' \
	'"ratio":[0-9]' '"misses_agree":(true|false)' '"distinct_pages":[1-9]'; do
	echo "$sum" | grep -Eq "$k" || fail "the summary has no $k: $sum"
done
[ -f "$work/res/zipf-20000-2048-0.9-1.bin" ] || fail "the trace was not kept"
finish lru_vs_libcachesim
