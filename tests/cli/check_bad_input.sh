#!/bin/sh
# swapsim-replay --check on recordings that are not whole: each exits 1 with
# a message naming the file (and the line where there is one); options that
# do not go with --check exit 2. The cases are the committed recording
# (tests/data/bgsave32_kernel.txt) with one thing broken.
# Usage: check_bad_input.sh SWAPSIM-REPLAY DATA-DIR WORKDIR
set -eu
replay=$1 data=$(cd "$2" && pwd) work=$3
here=$(cd "$(dirname "$0")/../tools" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work"
good=$data/bgsave32_kernel.txt
# case NAME SED-SCRIPT: a folder holding the recording edited by SED-SCRIPT.
case_dir() {
	d=$work/$1
	mkdir -p "$d"
	sed "$2" "$good" >"$d/kernel.txt"
	ln -sf "$data/bgsave32_perf.txt.zst" "$d/bgsave32_perf.txt.zst"
	echo "$d"
}
line_of() { grep -n -- "$1" "$good" | head -n 1 | cut -d: -f1; }

expect_fail 1 "^swapsim-replay: --check: $work/none: No such file or directory\$" \
	"$replay" --check "$work/none"
mkdir "$work/empty"
expect_fail 1 "^swapsim-replay: --check: $work/empty: no kernel.txt in this folder \\(No such file or directory\\); swapsim-record writes one\$" \
	"$replay" --check "$work/empty"
d=$(case_dir nosetup '/^## setup/,/^perf_lost_records/d')
expect_fail 1 "^swapsim-replay: --check: $d/kernel.txt: no \"## setup\" section" "$replay" --check "$d"
d=$(case_dir novmstat '/^## \/proc\/vmstat deltas/d')
expect_fail 1 "^swapsim-replay: --check: $d/kernel.txt: no \"## /proc/vmstat deltas\" section" \
	"$replay" --check "$d"
n=$(line_of '^pswpout ')
d=$(case_dir notnumber 's/^pswpout 12378$/pswpout many/')
expect_fail 1 "^swapsim-replay: --check: $d/kernel.txt:$n: pswpout: 'many' is not a number \\(section \"/proc/vmstat deltas\"\\)\$" \
	"$replay" --check "$d"
d=$(case_dir nokey 's/^pswpout 12378$/pswpout/')
expect_fail 1 "$d/kernel.txt:$n: 'pswpout': expected KEY VALUE\$" "$replay" --check "$d"
n2=$(line_of '^swap_ra ')
d=$(case_dir twice 's/^swap_ra 7174$/pswpout 1/')
expect_fail 1 "$d/kernel.txt:$n2: pswpout given twice in section \"/proc/vmstat deltas\" \\(first on line $n\\)\$" \
	"$replay" --check "$d"
d=$(case_dir before '1i stray words')
expect_fail 1 "$d/kernel.txt:1: 'stray words': a line before the first section \\(\"## setup\"\\)\$" "$replay" --check "$d"
n=$(line_of '^swap.1.kind ')
d=$(case_dir kind 's/^swap.1.kind zram$/swap.1.kind floppy/')
expect_fail 1 "$d/kernel.txt:$n: swap.1.kind 'floppy': expected zram, nvme, ssd, sata, hdd or pmem\$" \
	"$replay" --check "$d"
n=$(line_of '^page_cluster ')
d=$(case_dir pc 's/^page_cluster 3$/page_cluster 99/')
expect_fail 1 "$d/kernel.txt:$n: page_cluster '99': expected a number in 0\\.\\.10\$" "$replay" --check "$d"
d=$(case_dir nolimit '/^memcg_limit_bytes /d')
expect_fail 1 "$d/kernel.txt: the setup has no memcg_limit_bytes\$" "$replay" --check "$d"
d=$(case_dir nosize '/^swap.1.size_kb /d')
expect_fail 1 "$d/kernel.txt: the setup has no swap.1.size_kb\$" "$replay" --check "$d"
n=$(line_of '^trace ')
d=$(case_dir notrace 's/^trace .*/trace gone.txt/')
expect_fail 1 "$d/kernel.txt:$n: trace gone.txt: $d/gone.txt: No such file or directory\$" "$replay" --check "$d"
n=$(line_of '^pswpin ')
d=$(case_dir nul 's/^pswpin 12345$/pswpin 1\x0/')
expect_fail 1 "$d/kernel.txt:$n: not a text file \\(a NUL byte\\)\$" "$replay" --check "$d"
# A counter beyond a long long is refused naming it, not saturated in silence.
n=$(line_of '^pswpin ')
d=$(case_dir huge 's/^pswpin 12345$/pswpin 99999999999999999999/')
expect_fail 1 "$d/kernel.txt:$n: pswpin: 99999999999999999999 is out of range \\(a counter is a number from -9223372036854775808 to 9223372036854775807; section \"/proc/vmstat deltas\"\\)\$" \
	"$replay" --check "$d"
# The parse is linear: 200,000 keys (a quadratic one took 37 s for 100,000 lines)
# read in well under the 20 s allowed here, and the run goes on (exit 0).
d=$work/many
mkdir -p "$d"
{ cat "$good"; echo "## memcg memory.stat"; awk 'BEGIN { for (i = 0; i < 200000; i++) print "key" i, i }'; } >"$d/kernel.txt"
ln -sf "$data/bgsave32_perf.txt.zst" "$d/bgsave32_perf.txt.zst"
set +e
timeout 20 "$replay" --check "$d" >"$work/out" 2>"$work/err"
st=$?
set -e
[ $st -eq 0 ] || fail "200,000 keys: exit status $st (124: over 20 s): $(cat "$work/err")"
[ $st -eq 0 ] && echo "ok: 200,000 keys read"
# A trace the reader refuses: the run fails (exit 1) naming the trace's line.
d=$(case_dir badtrace 's/^trace .*/trace bad_perf.txt/')
ln -sf "$data/bad_perf.txt" "$d/bad_perf.txt"
expect_fail 1 "bad_perf\\.txt:3: not a perf script sample line" "$replay" --check "$d"
# Options that do not go with --check.
expect_fail 2 "^swapsim-replay: --check: not with --workload" "$replay" --check "$good" --workload memhog 1M
expect_fail 2 "^swapsim-replay: --check: not with --report csv" "$replay" --check "$good" --report csv
expect_fail 2 "^swapsim-replay: --check: not with --report counters" "$replay" --check "$good" --report counters
expect_fail 2 "^swapsim-replay: --check: not with --report mmtests or lkp" "$replay" --check "$good" --report mmtests
expect_fail 2 "^swapsim-replay: --check: not with --report mmtests or lkp" "$replay" --check "$good" --report lkp
expect_fail 2 "^swapsim-replay: --check: not with --compare" "$replay" --check "$good" --compare xarray,st-p1
expect_fail 2 "^swapsim-replay: --check: not with --repeat" "$replay" --check "$good" --repeat 2
expect_fail 2 "^swapsim-replay: --check: not with --jobs" "$replay" --check "$good" --jobs 2
# --accesses: a recording without an access stream, one whose stream is gone,
# with --trace, without --check
expect_fail 1 "bgsave32_kernel.txt: --accesses: the setup names no access stream \\(record with swapsim-record --accesses\\)" \
	"$replay" --check "$good" --accesses
mkdir -p "$work/noacc"
cp "$data/check_accesses/kernel.txt" "$work/noacc/"
expect_fail 1 "noacc/kernel.txt:[0-9]+: accesses accesses.lackey.zst: .*No such file" "$replay" --check "$work/noacc" --accesses
expect_fail 2 "^swapsim-replay: --check: not with --trace and --accesses together" \
	"$replay" --check "$data/check_accesses" --accesses --trace "$data/check_accesses/perf.txt"
expect_fail 2 "^swapsim-replay: --accesses goes with --check" "$replay" --accesses --trace "$data/check_accesses/perf.txt"
finish "check bad input"
