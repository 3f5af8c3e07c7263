#!/bin/sh
# What xswap support costs the allocation path when no xswap device exists:
# the same benchmark loop (bench_xswap.c, "alloc") built against libswapsim
# and against the same sources with xswap compiled out, both run here under
# callgrind, which counts instructions exactly (no timing noise).
# Usage: bench/xswap_cost.sh [BUILD_DIR] [OPS]     Prints one JSON object.
set -eu
build=${1:-build}
ops=${2:-200000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir() { # instructions inside bench_alloc_loop for binary $1
	valgrind --tool=callgrind --toggle-collect=bench_alloc_loop --callgrind-out-file="$tmp/out" \
		"$1" --ops "$ops" alloc >"$tmp/json" 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
	sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$tmp/out"
}
with=$(ir "$build/bench/swapsim-bench-xswap")
without=$(ir "$build/bench/swapsim-bench-xswap-noxswap")
awk -v w="$with" -v wo="$without" -v n="$ops" 'BEGIN {
	printf "{\"bench\":\"xswap_cost\",\"ops\":%d,\"ir_per_op_with_xswap\":%.2f,", n, w / n
	printf "\"ir_per_op_without_xswap\":%.2f,\"ratio\":%.4f}\n", wo / n, w / wo }'
