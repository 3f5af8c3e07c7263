#!/bin/sh
# The side-by-side speed run of docs/benchmarks.md ("Against libCacheSim's
# LRU"): swapsim-replay's exact-LRU policy, the whole swap path behind it,
# against libCacheSim's cachesim LRU on the same trace, a zipf(0.9) stream of
# 5 M page accesses over 1 Mi pages with a 65,536-page cache (256 MiB of RAM,
# all of it for user pages: --metadata-ram off),
# both tools reading a binary trace. The rounds interleave the tools (A B A B
# ...) so that both see the same state of a shared machine.
#
# Usage: bench/lru_vs_libcachesim.sh [BUILD_DIR] [OUT_DIR] [CACHESIM]
#   BUILD_DIR  where swapsim-replay and swapsim-lru-trace were built (build)
#   OUT_DIR    the trace (made once, kept) and the tools' outputs (bench-lru)
#   CACHESIM   libCacheSim's cachesim binary; also from $CACHESIM, else PATH.
#              Not part of this project: build it from
#              https://github.com/1a1a11a/libCacheSim (cmake, needs glib).
# Environment: ROUNDS (3), ACCESSES (5000000), PAGES (1048576), LRU_PAGES
# (65536), EXPONENT (0.9), SEED (1).
#
# Output: one JSON object per run, then one summary object:
#   {"tool":"cachesim","round":R,"events_per_sec":N,"misses":N,"wall_s":S,"rss_kb":K}
#   {"tool":"swapsim","round":R,"events_per_sec":N,"pgfault":N,"wall_s":S,"rss_kb":K}
#   {"summary":...} medians over the rounds, "ratio" = swapsim / cachesim
#   events/s, and swapsim's resident bytes per distinct page.
# events_per_sec is each tool's own figure for its simulation loop (trace
# reading included): cachesim's "throughput", swapsim's events/s. cachesim
# prints its miss ratio to 4 decimals, so "misses" (ratio x requests) is
# within requests / 20000 of the exact count; "misses_agree" checks pgfault
# against it to that precision. rss_kb is the peak resident set (GNU time).
set -eu
build=${1:-build}
out=${2:-bench-lru}
cachesim=${3:-${CACHESIM:-}}
rounds=${ROUNDS:-3}
accesses=${ACCESSES:-5000000}
pages=${PAGES:-1048576}
lru_pages=${LRU_PAGES:-65536}
exponent=${EXPONENT:-0.9}
seed=${SEED:-1}
me=lru_vs_libcachesim.sh

[ -n "$cachesim" ] || cachesim=$(command -v cachesim 2> /dev/null || true)
if [ -z "$cachesim" ] || [ ! -x "$cachesim" ]; then
	echo "$me: libCacheSim's cachesim not found${cachesim:+ at $cachesim}: give its path as the third" \
		"argument or in CACHESIM (build it from https://github.com/1a1a11a/libCacheSim)" >&2
	exit 2
fi
replay=$build/sim/swapsim-replay
gen=$build/bench/swapsim-lru-trace
for b in "$replay" "$gen"; do
	[ -x "$b" ] || { echo "$me: $b not found (build the project first)" >&2; exit 2; }
done
gnutime=
if /usr/bin/time -f %M true > /dev/null 2>&1; then
	gnutime=/usr/bin/time
fi
mkdir -p "$out"
trace=$out/zipf-$accesses-$pages-$exponent-$seed
if [ ! -f "$trace.bin" ] || [ ! -f "$trace.oracleGeneral" ]; then
	"$gen" "$trace" "$accesses" "$pages" "$exponent" "$seed" > /dev/null
fi

# timed LOG CMD...: run CMD with stdout and stderr to LOG; sets wall and rss.
timed() {
	log=$1
	shift
	if [ -n "$gnutime" ]; then
		"$gnutime" -o "$log.time" -f '%e %M' "$@" > "$log" 2>&1
		read -r wall rss < "$log.time"
	else
		t0=$(date +%s.%N)
		"$@" > "$log" 2>&1
		wall=$(echo "$(date +%s.%N) - $t0" | bc)
		rss=null
	fi
}

# emit JSON: one line to stdout and to the runs file.
emit() {
	echo "$1"
	echo "$1" >> "$out/runs.jsonl"
}

swap_pages=$((pages + pages / 4))
: > "$out/runs.jsonl"
r=1
while [ "$r" -le "$rounds" ]; do
	log=$out/cachesim.$r.txt
	timed "$log" "$cachesim" "$trace.oracleGeneral" oracleGeneral lru "$lru_pages" --ignore-obj-size 1 -v 0 \
		-o "$out/cachesim.$r.result"
	line=$(grep "cache size" "$log" | tail -n 1)
	ratio=$(echo "$line" | sed -n 's/.*miss ratio \([0-9.]*\),.*/\1/p')
	mqps=$(echo "$line" | sed -n 's/.*throughput \([0-9.]*\) MQPS.*/\1/p')
	[ -n "$ratio" ] && [ -n "$mqps" ] || { echo "$me: cannot read cachesim's output ($log)" >&2; exit 1; }
	misses=$(awk -v m="$ratio" -v n="$accesses" 'BEGIN { printf "%d", m * n + 0.5 }')
	eps=$(awk -v q="$mqps" 'BEGIN { printf "%d", q * 1000000 }')
	emit "{\"tool\":\"cachesim\",\"round\":$r,\"events_per_sec\":$eps,\"misses\":$misses,\"wall_s\":$wall,\"rss_kb\":$rss}"

	log=$out/swapsim.$r.json
	timed "$log" "$replay" --trace "$trace.bin" --ram "${lru_pages}p" --metadata-ram off \
		--policy lru --page-cluster 0 --swap "size=${swap_pages}p" --quiet --report json
	eps=$(grep -o '"events_per_sec":[0-9][0-9.e+]*' "$log" | head -n 1 | cut -d: -f2)
	faults=$(grep -o '"pgfault":[0-9]*' "$log" | head -n 1 | cut -d: -f2)
	[ -n "$eps" ] && [ -n "$faults" ] || { echo "$me: cannot read swapsim-replay's report ($log)" >&2; exit 1; }
	eps=$(awk -v e="$eps" 'BEGIN { printf "%d", e }')
	emit "{\"tool\":\"swapsim\",\"round\":$r,\"events_per_sec\":$eps,\"pgfault\":$faults,\"wall_s\":$wall,\"rss_kb\":$rss}"
	r=$((r + 1))
done

# The medians of each tool's rounds, and the summary.
median() { # TOOL FIELD
	grep "\"tool\":\"$1\"" "$out/runs.jsonl" | grep -o "\"$2\":[0-9.a-z]*" | cut -d: -f2 | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0 || v[1] == "null") print "null"; else if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
c_eps=$(median cachesim events_per_sec)
s_eps=$(median swapsim events_per_sec)
c_rss=$(median cachesim rss_kb)
s_rss=$(median swapsim rss_kb)
c_miss=$(median cachesim misses)
s_fault=$(median swapsim pgfault)
distinct=$(grep -o '"first_touch":[0-9]*' "$out/swapsim.1.json" | head -n 1 | cut -d: -f2)
awk -v ce="$c_eps" -v se="$s_eps" -v cr="$c_rss" -v sr="$s_rss" -v cm="$c_miss" -v sf="$s_fault" \
	-v n="$accesses" -v d="$distinct" -v rounds="$rounds" -v lru="$lru_pages" 'BEGIN {
	agree = (sf - cm <= n / 20000 && cm - sf <= n / 20000) ? "true" : "false"
	bpp = (sr == "null" || !d) ? "null" : sprintf("%.1f", sr * 1024 / d)
	printf "{\"summary\":true,\"rounds\":%d,\"accesses\":%d,\"distinct_pages\":%d,\"lru_pages\":%d,", rounds, n, d, lru
	printf "\"cachesim_events_per_sec\":%d,\"swapsim_events_per_sec\":%d,\"ratio\":%.3f,", ce, se, se / ce
	printf "\"cachesim_misses\":%d,\"swapsim_pgfault\":%d,\"misses_agree\":%s,", cm, sf, agree
	printf "\"cachesim_rss_kb\":%s,\"swapsim_rss_kb\":%s,\"swapsim_bytes_per_distinct_page\":%s}\n", cr, sr, bpp
}' | tee "$out/summary.json"
