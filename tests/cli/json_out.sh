#!/bin/sh
# --json-out follows the output rules of docs/tools.md ("Output files"):
#  - never over an input: the --trace input (by name, hard link or symbolic
#    link), a --swap file=, --check's kernel.txt and its recorded trace, and
#    standard output redirected onto the trace, each refused with exit 2,
#    the file intact;
#  - an unwritable path, a directory, a symbolic link to nothing: exit 1
#    naming it, nothing created;
#  - a good path gets the whole report, replacing a file whole; a new file is
#    0666 less the umask, an existing one keeps its mode; a symbolic link is
#    followed (the file it names is replaced, the link stays); no temporary
#    is left behind.
# Usage: json_out.sh SWAPSIM-REPLAY TRACE DATA-DIR
set -u
replay=$1 trace=$2 data=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=1; }
cp "$trace" "$dir/t.txt"
cp "$trace" "$dir/orig.txt"
ln "$dir/t.txt" "$dir/hard.json"
ln -s t.txt "$dir/soft.json"
run() { "$replay" --quiet --format perf --trace "$dir/t.txt" "$@"; }
for out in t.txt hard.json soft.json; do
	run --json-out "$dir/$out" >/dev/null 2>"$dir/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$out: exit status $rc, want 2"
	grep -q -- "--json-out: .*is the --trace input" "$dir/err" || fail "$out: no message"
	cmp -s "$dir/t.txt" "$dir/orig.txt" || fail "$out: the trace changed"
done
# Standard output onto the trace (a CSV streamed while the trace is read).
run --report csv >>"$dir/t.txt" 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "stdout >> trace: exit status $rc, want 2"
grep -q "standard output is the --trace input" "$dir/err" || fail "stdout >> trace: no message"
cmp -s "$dir/t.txt" "$dir/orig.txt" || fail "stdout >> trace: the trace changed"
# A swap device's file.
echo swap >"$dir/sw"
run --swap "size=1M,file=$dir/sw,reuse" --json-out "$dir/sw" >/dev/null 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "--swap file=: exit status $rc, want 2"
grep -q -- "--json-out: .*is the file of --swap device 1" "$dir/err" || fail "--swap file=: no message"
[ "$(cat "$dir/sw")" = swap ] || fail "--swap file=: the file changed"
# The --costs file, by --json-out and by standard output.
printf 'lock 20000\n' >"$dir/costs.txt"
cp "$dir/costs.txt" "$dir/costs.orig"
run --costs "$dir/costs.txt" --json-out "$dir/costs.txt" >/dev/null 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "--costs: exit status $rc, want 2"
grep -q -- "--json-out: .*is the --costs file" "$dir/err" || fail "--costs: no message: $(cat "$dir/err")"
run --costs "$dir/costs.txt" --report csv >>"$dir/costs.txt" 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "stdout >> --costs: exit status $rc, want 2"
cmp -s "$dir/costs.txt" "$dir/costs.orig" || fail "--costs: the cost file changed"
# --check's recording and its trace.
mkdir "$dir/rec"
cp "$data/bgsave32_kernel.txt" "$dir/rec/kernel.txt"
cp "$data/bgsave32_perf.txt.zst" "$dir/rec/"
cp "$dir/rec/kernel.txt" "$dir/kernel.orig"
for out in kernel.txt bgsave32_perf.txt.zst; do
	"$replay" --check "$dir/rec" --json-out "$dir/rec/$out" >/dev/null 2>"$dir/err"
	rc=$?
	[ $rc -eq 2 ] || fail "--check, $out: exit status $rc, want 2"
	grep -q -- "--json-out: '$dir/rec/$out' is the \(recording --check reads\|recorded trace --check replays\)" "$dir/err" ||
		{ fail "--check, $out: no message"; cat "$dir/err"; }
done
cmp -s "$dir/rec/kernel.txt" "$dir/kernel.orig" || fail "--check: kernel.txt changed"
cmp -s "$dir/rec/bgsave32_perf.txt.zst" "$data/bgsave32_perf.txt.zst" || fail "--check: the trace changed"
"$replay" --check "$dir/rec" --json-out "$dir/check.json" >/dev/null 2>&1 || fail "--check: good path failed"
head -c 17 "$dir/check.json" | grep -q '^{"swapsim_check":' || fail "--check: good path: not the comparison"
# Paths that cannot be written: exit 1, named, nothing left.
for bad in "no/such/dir/r.json:No such file or directory" "rec:Is a directory" \
	"dangling.json:a symbolic link that names no file"; do
	out=${bad%%:*} why=${bad#*:}
	[ "$out" = dangling.json ] && ln -s nowhere.json "$dir/dangling.json"
	run --json-out "$dir/$out" >/dev/null 2>"$dir/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$out: exit status $rc, want 1"
	grep -q -- "--json-out $dir/$out: $why" "$dir/err" || { fail "$out: no message"; cat "$dir/err"; }
done
[ -e "$dir/nowhere.json" ] && fail "dangling.json: the link's target was created"
# A good path: the whole report, modes, links.
echo old >"$dir/r.json"
run --json-out "$dir/r.json" >/dev/null 2>&1 || fail "good path: failed"
head -c 11 "$dir/r.json" | grep -q '^{"version"' && grep -q '"runs":\[' "$dir/r.json" || fail "good path: not the report"
tail -c 2 "$dir/r.json" | grep -q '}' || fail "good path: cut short"
(umask 077 && run --json-out "$dir/new.json" >/dev/null 2>&1) || fail "umask 077: failed"
[ "$(stat -c %a "$dir/new.json")" = 600 ] || fail "umask 077: a new file is $(stat -c %a "$dir/new.json"), want 600"
(umask 022 && run --json-out "$dir/new2.json" >/dev/null 2>&1) || fail "umask 022: failed"
[ "$(stat -c %a "$dir/new2.json")" = 644 ] || fail "umask 022: a new file is $(stat -c %a "$dir/new2.json"), want 644"
echo old >"$dir/mine.json" && chmod 600 "$dir/mine.json"
(umask 000 && run --json-out "$dir/mine.json" >/dev/null 2>&1) || fail "0600 file: failed"
[ "$(stat -c %a "$dir/mine.json")" = 600 ] || fail "an existing 0600 file became $(stat -c %a "$dir/mine.json")"
mkdir "$dir/real"
echo old >"$dir/real/target.json" && chmod 640 "$dir/real/target.json"
ln -s real/target.json "$dir/link.json"
run --json-out "$dir/link.json" >/dev/null 2>&1 || fail "symbolic link: failed"
[ -L "$dir/link.json" ] || fail "symbolic link: the link was replaced"
head -c 11 "$dir/real/target.json" | grep -q '^{"version"' || fail "symbolic link: its target is not the report"
[ "$(stat -c %a "$dir/real/target.json")" = 640 ] || fail "symbolic link: the target's mode changed"
leftover=$(find "$dir" -name '.*.json.*' -o -name '.*.txt.*' | head -n 1)
[ -z "$leftover" ] || fail "a temporary file was left behind: $leftover"
[ $fails -eq 0 ] && echo "json-out: all cases passed"
