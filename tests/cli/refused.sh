#!/bin/sh
# Every refused record is named by where it is in the input and why: in the
# report (counters, table, JSON) and on standard error, the first
# SWS_REPLAY_MAX_REFUSED (8) by position whatever the thread count; a text
# trace counts lines, a binary one records.
# Usage: refused.sh SIM-BUILD-DIR
set -u
bin=$1
replay=$bin/swapsim-replay trace=$bin/swapsim-trace
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=1
}
# Lines 4 and 6 are beyond the addresses the model takes (48 bits): each is
# refused (SWS_EINVAL), the others replay.
printf '0x1000 W 1\n0x2000 R 1\n# c\n0xfffffffffffff000 W 1\n0x3000 W 1\n0x7ffffffff000000 R 2\n' >"$dir/t.addr"
"$replay" --trace "$dir/t.addr" --format addr --report counters >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc -eq 3 ] || fail "refused records: exit status $rc, want 3"
cat >"$dir/want" <<'W'
refused line 4: access pid 1 addr 0xfffffffffffff000: SWS_EINVAL (invalid argument or configuration)
refused line 6: access pid 2 addr 0x7ffffffff000000: SWS_EINVAL (invalid argument or configuration)
W
grep '^refused ' "$dir/out" | cmp -s - "$dir/want" || { fail "counters report:"; grep '^refused' "$dir/out"; }
grep -q '^errors 2$' "$dir/out" || fail "errors is not 2"
for l in "line 4: access pid 1 addr 0xfffffffffffff000: SWS_EINVAL" "line 6: access pid 2 addr 0x7ffffffff000000"; do
	grep -q "^swapsim-replay: st-p4: refused $dir/t.addr: $l" "$dir/err" || { fail "stderr lacks '$l':"; cat "$dir/err"; }
done
# JSON: the same two, the address as a hex string (exact beyond 2^53)
"$replay" --trace "$dir/t.addr" --format addr --report json --allow-errors >"$dir/json" 2>/dev/null ||
	fail "--allow-errors: exit status $?"
got=$(jq -c '[.. | .refused? // empty | .[]]' "$dir/json")
want='[{"line":4,"op":"access","pid":1,"addr":"0xfffffffffffff000","error":"SWS_EINVAL"},{"line":6,"op":"access","pid":2,"addr":"0x7ffffffff000000","error":"SWS_EINVAL"}]'
[ "$got" = "$want" ] || fail "JSON refused: $got"
# The table names them per design.
"$replay" --trace "$dir/t.addr" --format addr --compare st-p1,vswap --allow-errors >"$dir/table" 2>/dev/null
[ "$(grep -c '^refused (st-p1): line [46]: access' "$dir/table")" = 2 ] || fail "table: st-p1's two lines missing"
[ "$(grep -c '^refused (vswap): line [46]: access' "$dir/table")" = 2 ] || fail "table: vswap's two lines missing"
# A binary trace counts records (the comment line is not one).
"$trace" convert --in "$dir/t.addr" --format addr --out "$dir/t.bin" --binary >/dev/null 2>&1 || fail "convert"
"$replay" --trace "$dir/t.bin" --report counters --allow-errors >"$dir/out" 2>/dev/null
[ "$(grep '^refused ' "$dir/out" | cut -d: -f1)" = "refused record 3
refused record 5" ] || { fail "binary positions:"; grep '^refused' "$dir/out"; }
# Twelve refused on two threads: the first eight by line, each record once.
{
	i=0
	while [ $i -lt 12 ]; do
		printf '0x%x000 W %d\n0xfffffffffff%x000 W %d\n' $((i + 1)) $((i % 3 + 1)) $i $((i % 3 + 1))
		i=$((i + 1))
	done
} >"$dir/m.addr"
"$replay" --trace "$dir/m.addr" --format addr --threads 2 --report counters --allow-errors >"$dir/out" 2>"$dir/err"
[ "$(grep '^refused ' "$dir/out" | cut -d: -f1 | tr '\n' ' ')" = \
	"refused line 2 refused line 4 refused line 6 refused line 8 refused line 10 refused line 12 refused line 14 refused line 16 " ] ||
	{ fail "twelve refused, two threads:"; grep '^refused' "$dir/out"; }
grep -q '^errors 12$' "$dir/out" || fail "errors is not 12"
grep -q "only the first 8 refused records are named" "$dir/err" || fail "stderr does not say only 8 are named"
exit $fails
