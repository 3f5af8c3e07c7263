#!/bin/sh
# Every output path of every tool on a full file system (a 2 MiB tmpfs in a
# private mount namespace, filled up, so the machine is left as it was): each
# run exits non-zero with a message, a file it would have replaced keeps its
# contents, and no temporary file is left behind. Covered: swapsim-replay
# (--json-out, --check's --json-out, standard output of every report and of
# --check), swapsim-trace (convert --out FILE, convert --out -, head, stats),
# swapsim-overhead (--json-out, standard output), swapsim-calibrate (--out),
# swapsim-plot (-o, figures),
# swapsim-sweep (--collect's sweep.csv and sweep.json, a new sweep's folder,
# --slurm). The swap device's own file is tests/cli/full_disk.sh's.
# Needs root for the namespace (exits 77, skipped, without it); the plot and
# sweep cases need gnuplot, jq and GNU parallel and say so when skipped.
# Usage: full_disk_outputs.sh SIM-BUILD-DIR DATA-DIR
set -u
bin=$1 data=$2
if [ -z "${SWS_FULL_DISK_NS:-}" ]; then
	unshare -m true 2>/dev/null || { echo "skipped: no private mount namespace (needs root)"; exit 77; }
	exec unshare -m env SWS_FULL_DISK_NS=1 sh "$0" "$@"
fi
replay=$bin/swapsim-replay trace=$bin/swapsim-trace overhead=$bin/swapsim-overhead
plot=$bin/swapsim-plot sweep=$bin/swapsim-sweep cal=$bin/swapsim-calibrate
work=$(mktemp -d) # scratch outside the full file system (TMPDIR for the tools)
T=$(mktemp -d)
trap 'umount "$T" 2>/dev/null; rm -rf "$work"; rmdir "$T"' EXIT
mount -t tmpfs -o size=2M tmpfs "$T" || { echo "skipped: cannot mount a tmpfs"; exit 77; }
export TMPDIR="$work"
fails=0
fail() { echo "FAIL: $*"; fails=1; }
excerpt=$data/perf_swap_excerpt.txt
rec=$data/bgsave32_kernel.txt
wl="--ram 16M --quiet --workload memhog 8M"
have_plot=1 have_sweep=1
command -v gnuplot >/dev/null && command -v jq >/dev/null || have_plot=0
command -v parallel >/dev/null && [ $have_plot = 1 ] || have_sweep=0

# ---- the good outputs, made while there is room ----
# shellcheck disable=SC2086 # $wl is words
"$replay" --json-out "$T/r.json" $wl >/dev/null || fail "setup: replay --json-out"
"$replay" --check "$rec" --json-out "$T/c.json" >/dev/null || fail "setup: --check --json-out"
"$trace" convert --in "$excerpt" --out "$T/t.swt" 2>/dev/null || fail "setup: convert"
"$overhead" --size 16M --usage 0 --json-out "$T/o.json" >/dev/null || fail "setup: overhead"
echo "# an older cost file" >"$T/cal.txt"
if [ $have_plot = 1 ]; then
	"$plot" designs "$T/r.json" -o "$T/p.png" >/dev/null || fail "setup: plot"
fi
if [ $have_sweep = 1 ]; then
	"$sweep" --out "$T/sw" --grid backend=st-p4,xarray --no-plot -- --ram 8M --workload memhog 2M \
		>/dev/null 2>&1 || fail "setup: sweep"
	# a second sweep with a point not run, for --slurm
	"$sweep" --out "$T/sl" --grid backend=st-p4 --slurm "$work/unused.sh" -- --ram 8M --workload memhog 2M \
		>/dev/null 2>&1 || fail "setup: sweep --slurm"
	echo old >"$T/job.sh"
fi
for f in "$T"/*.json "$T"/*.swt "$T"/*.txt "$T"/*.png "$T"/sw/sweep.* "$T"/job.sh; do
	[ -e "$f" ] && cp "$f" "$work/$(echo "$f" | tr / _).orig"
done
# ---- the disk fills up ----
dd if=/dev/zero of="$T/fill" bs=4096 2>/dev/null
echo x >"$T/probe" 2>/dev/null && fail "setup: the file system is not full"
rm -f "$T/probe"

# kept NAME FILE: FILE holds what it held before the disk filled.
kept() {
	cmp -s "$2" "$work/$(echo "$2" | tr / _).orig" || fail "$1: $2 changed"
}
# expect NAME STATUS MESSAGE-RE COMMAND...: exit STATUS, stderr matching MESSAGE-RE.
expect() {
	name=$1 want=$2 re=$3
	shift 3
	"$@" >/dev/null 2>"$work/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "$name: exit status $rc, want $want"
	grep -Eq -- "$re" "$work/err" || { fail "$name: no message matching '$re'"; cat "$work/err"; }
}
# to_disk NAME STATUS MESSAGE-RE COMMAND...: the same with standard output on the full disk.
to_disk() {
	name=$1 want=$2 re=$3
	shift 3
	"$@" >"$T/stdout" 2>"$work/err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "$name > full disk: exit status $rc, want $want"
	grep -Eq -- "$re" "$work/err" || { fail "$name > full disk: no message matching '$re'"; cat "$work/err"; }
	rm -f "$T/stdout"
}
nospc="No space left on device"

# ---- swapsim-replay ----
# shellcheck disable=SC2086
expect "replay --json-out" 1 "--json-out $T/r.json: $nospc" "$replay" --json-out "$T/r.json" $wl
kept "replay --json-out" "$T/r.json"
expect "replay --check --json-out" 1 "--json-out $T/c.json: $nospc" "$replay" --check "$rec" --json-out "$T/c.json"
kept "replay --check --json-out" "$T/c.json"
for report in table json csv counters; do
	# shellcheck disable=SC2086
	to_disk "replay --report $report" 1 "^swapsim-replay: standard output: $nospc" "$replay" --report $report $wl
done
to_disk "replay --check" 1 "^swapsim-replay: standard output: $nospc" "$replay" --check "$rec"
to_disk "replay --check --report json" 1 "^swapsim-replay: standard output: $nospc" "$replay" --check "$rec" --report json

# ---- swapsim-trace ----
expect "trace convert" 1 "$T/t.swt: .*$nospc" "$trace" convert --in "$excerpt" --out "$T/t.swt"
kept "trace convert" "$T/t.swt"
to_disk "trace convert --out -" 1 "$nospc" "$trace" convert --in "$excerpt" --out -
to_disk "trace head" 1 "$nospc" "$trace" head "$excerpt"
to_disk "trace stats" 1 "^swapsim-trace: standard output: $nospc" "$trace" stats "$excerpt"

# ---- swapsim-overhead ----
expect "overhead --json-out" 1 "--json-out $T/o.json: $nospc" "$overhead" --size 16M --usage 0 --json-out "$T/o.json"
kept "overhead --json-out" "$T/o.json"
to_disk "overhead" 1 "^swapsim-overhead: standard output: $nospc" "$overhead" --size 16M --usage 0

# ---- swapsim-calibrate (standard output: tests/tools/calibrate.sh, /dev/full) ----
expect "calibrate --out" 1 "--out $T/cal.txt: $nospc" "$cal" --quick --out "$T/cal.txt"
kept "calibrate --out" "$T/cal.txt"

# ---- swapsim-plot ----
if [ $have_plot = 1 ]; then
	expect "plot -o" 1 "$T/p.png" "$plot" designs "$work/$(echo "$T/r.json" | tr / _).orig" -o "$T/p.png"
	kept "plot -o" "$T/p.png"
	to_disk "plot figures" 1 "write error: $nospc" "$plot" figures "$work/$(echo "$T/r.json" | tr / _).orig"
else
	echo "skipped: swapsim-plot (no gnuplot or jq)"
fi

# ---- swapsim-sweep ----
if [ $have_sweep = 1 ]; then
	expect "sweep --collect" 1 "could not be collected \(sweep.json and sweep.csv are as they were\)" \
		"$sweep" --collect "$T/sw" --no-plot
	kept "sweep --collect" "$T/sw/sweep.json"
	kept "sweep --collect" "$T/sw/sweep.csv"
	expect "sweep --out (a new folder)" 1 "cannot|$nospc" \
		"$sweep" --out "$T/sw3" --grid backend=st-p4 --no-plot -- --ram 8M --workload memhog 2M
	expect "sweep --slurm" 1 ": cannot be written" \
		"$sweep" --out "$T/sl" --grid backend=st-p4 --slurm "$T/job.sh" -- --ram 8M --workload memhog 2M
	kept "sweep --slurm" "$T/job.sh"
else
	echo "skipped: swapsim-sweep (no GNU parallel, gnuplot or jq)"
fi

left=$(find "$T" -name '.*' ! -name '.lock' ! -path "$T" | head -n 3)
[ -z "$left" ] || fail "temporary files left behind: $left"
[ $fails -eq 0 ] && echo "full disk outputs: all cases passed"
exit $fails
