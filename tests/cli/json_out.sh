#!/bin/sh
# --json-out never destroys a file: the --trace input (by name, hard link or
# symbolic link) is refused with exit 2 and stays intact; an unwritable path
# fails with exit 1 naming it; a good path gets the whole report, and the file
# it replaces is replaced whole. Usage: json_out.sh SWAPSIM-REPLAY TRACE
set -u
replay=$1 trace=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=1; }
cp "$trace" "$dir/t.txt"
cp "$trace" "$dir/orig.txt"
ln "$dir/t.txt" "$dir/hard.json"
ln -s t.txt "$dir/soft.json"
for out in t.txt hard.json soft.json; do
	"$replay" --quiet --format perf --trace "$dir/t.txt" --json-out "$dir/$out" >/dev/null 2>"$dir/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$out: exit status $rc, want 2"
	grep -q -- "--json-out: .*is the --trace input" "$dir/err" || fail "$out: no message"
	cmp -s "$dir/t.txt" "$dir/orig.txt" || fail "$out: the trace changed"
done
"$replay" --quiet --format perf --trace "$dir/t.txt" --json-out "$dir/no/such/dir/r.json" >/dev/null 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] || fail "unwritable: exit status $rc, want 1"
grep -q "no/such/dir/r.json: No such file or directory" "$dir/err" || fail "unwritable: no message"
echo old >"$dir/r.json"
"$replay" --quiet --format perf --trace "$dir/t.txt" --json-out "$dir/r.json" >/dev/null 2>&1 || fail "good path: failed"
head -c 11 "$dir/r.json" | grep -q '^{"version"' && grep -q '"runs":\[' "$dir/r.json" || fail "good path: not the report"
tail -c 2 "$dir/r.json" | grep -q '}' || fail "good path: cut short"
ls -a "$dir" | grep -q '^\.r\.json\.' && fail "a temporary file was left behind"
[ $fails -eq 0 ] && echo "json-out: all cases passed"
