#!/usr/bin/env bash
# Build the libFuzzer targets with clang and fuzz each one for SECONDS
# (default 20) over its seed corpus and the reproducers (docs/fuzzing.md).
#
#   bash tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Targets: native_text native_binary perf lackey damon addr auto roundtrip model
# api cli (default: all). Environment: CC (default clang), SWS_FUZZ_BUILD (the build
# directory, default build-fuzz), SWS_FUZZ_JOBS (targets fuzzed at the same
# time, default 1). Fails when a target crashes, leaks, breaks a check, runs
# out of memory or takes more than 10 s on one input; the input is kept in
# BUILD/crashes/TARGET/ and the log in BUILD/fuzz-TARGET.log. What the runs
# add to the corpus goes to BUILD/fuzz-corpus/TARGET (the seeds in
# tests/fuzz/corpus are not touched).
set -euo pipefail
cd "$(dirname "$0")/../.."
all=(native_text native_binary perf lackey damon addr auto roundtrip model api cli)
secs=${1:-20}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
case "$secs" in *[!0-9]* | '') echo "run.sh: SECONDS must be a number, not '$secs'" >&2; exit 2 ;; esac
for t in "${targets[@]}"; do
	[[ " ${all[*]} " == *" $t "* ]] || { echo "run.sh: unknown target '$t' (want: ${all[*]})" >&2; exit 2; }
done
cc=${CC:-clang}
dir=${SWS_FUZZ_BUILD:-build-fuzz}
jobs=${SWS_FUZZ_JOBS:-1}

command -v "$cc" >/dev/null || { echo "run.sh: no $cc (Debian: apt-get install -y clang)" >&2; exit 2; }
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2> "$probe/err"; then
	cat "$probe/err" >&2
	echo "run.sh: $cc cannot link -fsanitize=fuzzer (Debian 12: the runtime is in libclang-rt-14-dev, which apt-get install clang brings unless recommends are off)" >&2
	exit 2
fi

cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DSWS_SANITIZE=address,undefined -DSWS_FUZZ=ON -DSWS_WERROR=ON -DSWS_BUILD_BENCH=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target sws_fuzz >/dev/null

# fuzz TARGET: one libFuzzer run; its figures go to BUILD/fuzz-TARGET.log.
fuzz() {
	local t=$1 work="$dir/fuzz-corpus/$1" crashes="$dir/crashes/$1/"
	mkdir -p "$work" "$crashes"
	# inputs as long as the target reads; the dictionary of its words (none for
	# the binary call sequences of api)
	local len=16384 dict=(-dict=tests/fuzz/trace.dict)
	case $t in
	model) len=4098 ;;
	api) len=1025 dict=() ;;
	cli) len=4096 dict=(-dict=tests/fuzz/cli.dict) ;;
	esac
	"$dir/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$len" "${dict[@]}" -artifact_prefix="$crashes" \
		-print_final_stats=1 "$work" "tests/fuzz/corpus/$t" tests/data/repro \
		> "$dir/fuzz-$t.log" 2>&1
}

# summary TARGET STATUS: one line from the log's final stats (a run that
# crashed early may have none: "?").
summary() {
	local log="$dir/fuzz-$1.log"
	local execs rate cov corp
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
	corp=$( (grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" || true) | tail -1 | cut -d' ' -f2)
	printf '%-14s %-6s %12s execs %8s/s  cov %6s  corpus %s\n' "$1" "$2" "${execs:-?}" \
		"${rate:-?}" "${cov:-?}" "${corp:-?}"
}

failed=0
i=0
while [ $i -lt ${#targets[@]} ]; do
	batch=("${targets[@]:i:jobs}")
	pids=()
	for t in "${batch[@]}"; do
		fuzz "$t" &
		pids+=($!)
	done
	for k in "${!batch[@]}"; do
		if wait "${pids[$k]}"; then
			summary "${batch[$k]}" ok
		else
			summary "${batch[$k]}" FAILED
			(grep -E 'ERROR|check failed|SUMMARY|Test unit written' \
				"$dir/fuzz-${batch[$k]}.log" || true) | head -5 >&2
			failed=1
		fi
	done
	i=$((i + jobs))
done
exit $failed
