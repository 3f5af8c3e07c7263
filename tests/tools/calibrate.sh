#!/bin/sh
# swapsim-calibrate --quick writes a cost file (temporary file beside it,
# renamed; the mode a new file gets) with every class of the table, each a
# positive number of picoseconds, that swapsim-replay --costs reads; a table
# that makes the kernel entry free makes the modelled system time shorter by
# exactly the entries' cost; the output rules of every tool (docs/tools.md
# "Output files"): an existing file keeps its mode, a symbolic link is
# followed and stays, an output that cannot be written fails before the
# measuring, a failed write to standard output is exit 1 with a message;
# bad usage exits 2.
# Usage: calibrate.sh BUILD-SIM-DIR WORKDIR
set -eu
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start
cal=$bin/swapsim-calibrate replay=$bin/swapsim-replay

(umask 022 && "$cal" --quick --out "$work/costs.txt") || fail "swapsim-calibrate --quick exited $?"
[ "$(stat -c %a "$work/costs.txt")" = 644 ] || fail "mode $(stat -c %a "$work/costs.txt"), not 644"
[ "$(ls -A "$work")" = costs.txt ] || fail "left beside it: $(ls -A "$work")"
head -n 1 "$work/costs.txt" | grep -q '^# swapsim-calibrate --quick on ' || fail "header: $(head -n 1 "$work/costs.txt")"
n=$(grep -v '^#' "$work/costs.txt" | awk 'NF >= 2 && $2 ~ /^[0-9]+$/ && $2 > 0' | wc -l)
want=$("$replay" --costs "$work/costs.txt" --quiet --report counters --workload memhog 1M | grep -c '^model\.[a-z0-9_]* [0-9]* [0-9]*$' || true)
[ "$n" -eq $((want + 1)) ] || fail "$n classes (llc_bytes and $want cost classes expected)"
echo "ok: a cost file of $n entries, every one positive"

# Free kernel entries: system time shorter by count x cost, within a nanosecond an entry
# (each entry's time is rounded down to the nanosecond) (one CPU and
# no memory pressure: nothing else moves with the time).
grep -v '^kernel_entry ' "$work/costs.txt" >"$work/free.txt"
echo 'kernel_entry 0' >>"$work/free.txt"
run() { "$replay" --costs "$1" --cpus 1 --quiet --report counters --workload usemem -n 2 4M; }
run "$work/costs.txt" >"$work/a" && run "$work/free.txt" >"$work/b" || fail "--costs runs"
awk 'FNR == NR && $1 == "time.sys_ns" { a = $2 } FNR == NR && $1 == "model.kernel_entry" { n = $2; c = $3 }
	FNR != NR && $1 == "time.sys_ns" { b = $2 }
	END { d = a - b - c / 1000; if (d < 0) d = -d
	      if (!n || d > n) { print "sys " a " against " b ": not less by the " n " entries, " c " ps"; exit 1 } }' \
	"$work/a" "$work/b" || fail "free kernel entries"
echo "ok: --costs prices the kernel entries"

# Through a symbolic link to an existing 0600 file: the file is replaced, its
# mode kept, the link stays.
echo old >"$work/kept.txt" && chmod 600 "$work/kept.txt" && ln -s kept.txt "$work/link.txt"
(umask 022 && "$cal" --quick --out "$work/link.txt") || fail "--out LINK exited $?"
[ -L "$work/link.txt" ] || fail "the symbolic link was replaced by a file"
[ "$(stat -c %a "$work/kept.txt")" = 600 ] || fail "an existing 0600 file became $(stat -c %a "$work/kept.txt")"
grep -q '^# swapsim-calibrate --quick on ' "$work/kept.txt" || fail "the file the link names was not written"
echo "ok: an existing file's mode kept, a link followed"

# An output that cannot be written fails at once (no minute of measuring first).
expect_fail 1 "--out $work/none/c.txt: No such file or directory" "$cal" --out "$work/none/c.txt"
expect_fail 1 "--out $work: Is a directory" "$cal" --out "$work"
if [ -w /dev/full ]; then
	rc=0
	"$cal" --quick >/dev/full 2>"$work/full.err" || rc=$?
	[ $rc -eq 1 ] || fail "> /dev/full: exit $rc, want 1"
	grep -q '^swapsim-calibrate: standard output: No space left on device$' "$work/full.err" ||
		fail "> /dev/full: no message: $(cat "$work/full.err")"
fi
echo "ok: outputs that cannot be written are errors"

expect_fail 2 "unknown option" "$cal" --bogus
expect_fail 2 "--out: needs a file name" "$cal" --out
finish "calibrate"
