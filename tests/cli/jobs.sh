#!/bin/sh
# --jobs N: the compared runs N at a time on host threads. The modelled
# clock's report is the same as one run at a time, apart from what the host
# measured (its wall time and rates), and the runs' own lines come out in the
# order of the runs; what needs one run at a time is refused naming --jobs.
# Usage: jobs.sh SIM-BUILD-DIR
set -u
bin=$1/swapsim-replay
fails=0
fail() { echo "FAIL: $*"; fails=1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
args="--ram 64M --mem-limit 16M --swap size=64M,type=zram --compare st-p1,vswap,xarray --repeat 2 --report json"
# Every key the host measured is named host_* or is a rate or wall time of it.
host='del(.command, .argv) | walk(if type == "object" then with_entries(select(.key | test("host|wall|per_sec") | not)) else . end)'
for j in 1 3 4; do
	# shellcheck disable=SC2086 # the arguments are words
	"$bin" --jobs $j $args --workload usemem -n 4 8M >"$tmp/$j.json" 2>"$tmp/$j.err" ||
		fail "--jobs $j: exit $?: $(cat "$tmp/$j.err")"
	jq -S "$host" "$tmp/$j.json" >"$tmp/$j.cmp" || fail "--jobs $j: not JSON"
done
for j in 3 4; do
	cmp -s "$tmp/1.cmp" "$tmp/$j.cmp" || fail "--jobs $j: the report differs: $(diff "$tmp/1.cmp" "$tmp/$j.cmp" | head -5)"
	cmp -s "$tmp/1.err" "$tmp/$j.err" || fail "--jobs $j: the usemem lines differ or are out of order"
done
grep -c '^== ' "$tmp/3.err" | grep -qx 3 || fail "--jobs 3: not one '== design' header per design: $(cat "$tmp/3.err")"
[ "$(jq '[.runs[].repeats | length] | add' "$tmp/3.json")" = 6 ] || fail "--jobs 3: not 6 runs reported"

# One run at a time is needed: each refused with exit 2, naming --jobs.
refused() {
	want=$1
	shift
	# shellcheck disable=SC2086
	out=$("$bin" --jobs 2 "$@" --compare st-p1,st-p2 --workload usemem 1M 2>&1)
	rc=$?
	[ $rc = 2 ] || fail "$*: exit $rc, want 2"
	echo "$out" | grep -q -- "--jobs: 2: not with $want" || fail "$*: no '--jobs: 2: not with $want': $out"
}
refused "--clock host" --clock host
refused "--report csv" --report csv
refused "a --swap file=" --swap "size=8M,file=$tmp/never.swap"
[ -e "$tmp/never.swap" ] && fail "a refused run made its swap file"
out=$("$bin" --jobs 0 --workload usemem 1M 2>&1)
[ $? = 2 ] && echo "$out" | grep -q -- "--jobs" || fail "--jobs 0 accepted: $out"

[ $fails = 0 ] && echo "jobs: all cases passed"
exit $fails
