#!/bin/sh
# swapsim-record on this machine's kernel. It changes the machine while it
# runs, so only when asked: SWS_TEST_RECORD=1 in the environment (otherwise
# skipped, exit 77), and where it can record (root, perf and its tracepoints,
# a memory cgroup, zram, no other swap on: its --preflight says; otherwise
# skipped too). Its refusals of bad usage are record_usage.sh's. Each case leaves
# the machine as it found it: no swap left on, the zram devices as they
# were, no memcg of the recorder left, page-cluster, zswap's parameters and
# the debugfs mount unchanged.
#   1. bgsave 8 MiB in a 4 MiB memcg on 32 MiB of zram, page-cluster changed for
#      the run: perf.txt and kernel.txt with the setup and the counters, no
#      scratch folder left; swapsim-replay --check of it;
#   2. the same with zswap turned on for the run (lz4 or zstd where the
#      kernel has one): its parameters and debugfs deltas recorded, zswap's
#      stores counted, and --check replays with zswap;
#   3. a swap file made for the run (--swap PATH --swap-size), removed after;
#   4. a command that does not exist: exit 3, its status recorded;
#   5. SIGTERM while the command runs: exit 143, the recording of case 1 in
#      the same folder as it was;
#   6. a setup that fails half way (a zram compressor the kernel lacks,
#      after page-cluster was changed): exit 1, the OUTDIR it made removed;
#   7. anon mTHP for the run (--mthp 64K=always where the kernel has 64 KiB
#      folios): the policy and the per-size counter deltas in kernel.txt;
#   8. a recorder killed with SIGKILL (no cleanup of its own): --preflight
#      refuses and names --recover, which puts the machine back;
#   9. a command killed by a signal: exit 3, the status recorded, no shell
#      "Killed" noise;
#  10. --accesses: the command again under valgrind's lackey, its accesses and
#      memory-map calls (a munmap) in
#      accesses.lackey.zst; SIGTERM during that run stops it at once (exit
#      143, the machine put back, no OUTDIR left).
# Usage: record.sh BUILD-SIM-DIR BGSAVE WORKDIR
set -eu
bin=$1 bgsave=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work"
rec=$bin/swapsim-record replay=$bin/swapsim-replay

if [ "${SWS_TEST_RECORD:-}" != 1 ]; then
	echo "SKIP: recordings change the machine (zram, swap, a memory cgroup, page-cluster, zswap);" \
		"SWS_TEST_RECORD=1 runs them (docs/testing.md)"
	exit 77
fi
if ! "$rec" --preflight >"$work/preflight" 2>&1; then
	echo "SKIP: this machine cannot record:"
	cat "$work/preflight"
	exit 77
fi
cat "$work/preflight"

state() {
	echo "swaps: $(tail -n +2 /proc/swaps | awk '{ print $1 }' | paste -sd' ')"
	echo "zram: $(for d in /sys/block/zram*; do [ -e "$d" ] && echo "${d##*/}=$(cat "$d/disksize")"; done | paste -sd' ')"
	echo "memcgs: $(find /sys/fs/cgroup -maxdepth 3 -name 'swapsim-record.*' 2>/dev/null | paste -sd' ')"
	echo "page-cluster: $(cat /proc/sys/vm/page-cluster)"
	echo "zswap: $(cd /sys/module/zswap/parameters 2>/dev/null && grep . ./* | paste -sd' ')"
	echo "debugfs: $(grep -c ' /sys/kernel/debug ' /proc/mounts)"
	echo "tracefs: $(grep -c ' /sys/kernel/tracing ' /proc/mounts)"
	echo "thp: $(cd /sys/kernel/mm/transparent_hugepage 2>/dev/null && grep -s . enabled hugepages-*/enabled | paste -sd' ')"
	echo "state file: $(ls /run/swapsim-record.state 2>/dev/null)"
	echo "zram module: $(grep -c '^zram ' /proc/modules 2>/dev/null)"
}
state >"$work/before"
restored() { # CASE
	state >"$work/after"
	if cmp -s "$work/before" "$work/after"; then
		echo "ok: $1: the machine as it was"
	else
		fail "$1: the machine is not as it was: $(diff "$work/before" "$work/after" | grep '^[<>]' | paste -sd' ')"
	fi
}
key() { awk -v k="$2" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' "$1"; }
in_section() { # FILE SECTION KEY
	awk -v s="## $2" -v k="$3" '/^## / { on = ($0 == s); next } on && $1 == k { print $2; exit }' "$1"
}
pc=$(cat /proc/sys/vm/page-cluster)
pc2=$((pc == 2 ? 1 : 2))

# 1. A recording.
if "$rec" --mem-limit 4M --zram 32M --page-cluster $pc2 "$work/r1" -- "$bgsave" 8 >"$work/r1.out" 2>&1; then
	k=$work/r1/kernel.txt
	for f in perf.txt perf.data kernel.txt; do [ -s "$work/r1/$f" ] || fail "1: no $f"; done
	[ -z "$(find "$work/r1" -name '.swapsim-record.*')" ] || fail "1: a scratch folder left in $work/r1"
	[ "$(key "$k" kernel)" = "$(uname -r)" ] || fail "1: kernel: $(key "$k" kernel)"
	case $(key "$k" cgroup) in v1 | v2) ;; *) fail "1: cgroup: $(key "$k" cgroup)" ;; esac
	[ "$(key "$k" memcg_limit_bytes)" = 4194304 ] || fail "1: memcg_limit_bytes $(key "$k" memcg_limit_bytes)"
	[ "$(key "$k" page_cluster)" = $pc2 ] || fail "1: page_cluster $(key "$k" page_cluster), not $pc2"
	[ "$(key "$k" swap_devices)" = 1 ] && [ "$(key "$k" swap.1.kind)" = zram ] &&
		[ "$(key "$k" swap.1.size_kb)" = 32764 ] && [ "$(key "$k" swap.1.zram_comp)" = lz4 ] ||
		fail "1: the swap device: $(grep '^swap' "$k" | paste -sd' ')"
	[ "$(key "$k" command_exit_status)" = 0 ] || fail "1: command_exit_status $(key "$k" command_exit_status)"
	[ "$(key "$k" ram_kb)" = "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" ] || fail "1: ram_kb"
	# the command's CPU time (its cgroup's) and duration: numbers, some system time
	[ "$(key "$k" cpu_system_us)" -gt 0 ] && [ "$(key "$k" cpu_user_us)" -ge 0 ] &&
		awk -v d="$(key "$k" duration_s)" 'BEGIN { exit !(d > 0) }' ||
		fail "1: CPU time: $(grep -E '^(cpu_|duration)' "$k" | paste -sd' ')"
	[ "$(in_section "$k" '/proc/vmstat deltas' pswpout)" -gt 0 ] || fail "1: no swap-outs"
	[ -n "$(in_section "$k" 'memcg memory.stat' pgfault)" ] || fail "1: no memcg memory.stat"
	[ -n "$(in_section "$k" 'zram mm_stat' mem_used_max)" ] || fail "1: no zram mm_stat"
	grep -q 'exceptions:page_fault_user' "$work/r1/perf.txt" || fail "1: perf.txt has no page faults"
	if "$replay" --check "$work/r1" >"$work/r1.check" 2>"$work/r1.err"; then
		cat "$work/r1.check"
		# The kernel differs from run to run (docs/trace-format.md): a loose bound.
		awk '$1 ~ /^(pswpin|pswpout)$/ { n++; d = ($4 - $3) * 100 / $3; if (d > 25 || d < -25) bad = 1 }
			END { exit !(n == 2 && !bad) }' "$work/r1.check" || fail "1: --check: swaps more than 25% apart"
	else
		fail "1: --check exited $?: $(cat "$work/r1.err")"
	fi
else
	fail "1: swapsim-record exited $?: $(cat "$work/r1.out")"
fi
restored 1

# 2. zswap on for the run, with lz4 or zstd where the kernel's crypto API has
# one (the simulator has those two), else the kernel's compressor.
if [ -d /sys/module/zswap/parameters ]; then
	comps=$(awk '/^name/ { n = $3 } /^type/ && $3 ~ /^(compression|acomp|scomp)$/ { print n }' /proc/crypto)
	comp=$(printf '%s\n' $comps | grep -x -m 1 -E 'lz4|zstd' || cat /sys/module/zswap/parameters/compressor)
	sim=lz4
	[ "$comp" = zstd ] && sim=zstd
	if "$rec" --mem-limit 4M --zram 32M --zswap on --zswap-compressor "$comp" --zswap-max-pool-percent 10 \
		"$work/r2" -- "$bgsave" 8 >"$work/r2.out" 2>&1; then
		k=$work/r2/kernel.txt
		[ "$(key "$k" zswap.enabled)" = Y ] && [ "$(key "$k" zswap.compressor)" = "$comp" ] &&
			[ "$(key "$k" zswap.max_pool_percent)" = 10 ] || fail "2: zswap: $(grep '^zswap' "$k" | paste -sd' ')"
		[ "$(in_section "$k" '/proc/vmstat deltas' zswpout)" -gt 0 ] || fail "2: no zswap stores"
		grep -q '^## zswap debugfs deltas$' "$k" || echo "note: 2: no zswap debugfs (debugfs not mountable here)"
		"$replay" --check "$work/r2" >"$work/r2.check" 2>&1 || fail "2: --check exited $?"
		grep -Eq "^machine .*; zswap $sim(: the kernel's $comp as lz4 .*)?\$" "$work/r2.check" &&
			grep -q '^zswpout ' "$work/r2.check" &&
			grep -q -- "--zswap --zswap-compressor $sim --zswap-max-pool-percent 10 " "$work/r2.check" ||
			fail "2: --check: $(cat "$work/r2.check")"
		cat "$work/r2.check"
		echo "ok: 2: zswap ($comp)"
	else
		fail "2: swapsim-record exited $?: $(cat "$work/r2.out")"
	fi
	restored 2
fi

# 3. A swap file made for the run (where the file system takes one).
case $(findmnt -no FSTYPE -T "$work" 2>/dev/null) in
ext4 | xfs | ext3 | ext2)
	if "$rec" --mem-limit 4M --swap "$work/swapfile" --swap-size 16M "$work/r3" -- "$bgsave" 4 >"$work/r3.out" 2>&1; then
		k=$work/r3/kernel.txt
		[ "$(key "$k" swap.1.type)" = file ] && [ "$(key "$k" swap.1.size_kb)" = 16380 ] &&
			[ "$(key "$k" swap.1.path)" = "$(realpath "$work")/swapfile" ] ||
			fail "3: the swap file: $(grep '^swap' "$k" | paste -sd' ')"
		case $(key "$k" swap.1.kind) in hdd | ssd | sata | nvme) ;; *) fail "3: kind $(key "$k" swap.1.kind)" ;; esac
		[ ! -e "$work/swapfile" ] || fail "3: the swap file is left"
		echo "ok: 3: a swap file on $(key "$k" swap.1.block_device) ($(key "$k" swap.1.kind))"
	else
		fail "3: swapsim-record exited $?: $(cat "$work/r3.out")"
	fi
	restored 3
	;;
*) echo "note: 3: $work is on no ext or xfs file system: no swap file case" ;;
esac

# 4. A command that does not exist.
set +e
"$rec" --mem-limit 4M --zram 32M "$work/r4" -- "$work/no-such-command" >"$work/r4.out" 2>&1
st=$?
set -e
[ $st = 3 ] || fail "4: exit $st, not 3: $(cat "$work/r4.out")"
[ "$(key "$work/r4/kernel.txt" command_exit_status)" = 127 ] || fail "4: command_exit_status"
grep -q "the command exited 127" "$work/r4.out" || fail "4: no message: $(cat "$work/r4.out")"
restored 4

# 5. SIGTERM while the command runs, into the folder of case 1.
cp "$work/r1/kernel.txt" "$work/r1.kernel.txt"
sum1=$(cksum <"$work/r1/perf.txt")
"$rec" --mem-limit 4M --zram 32M "$work/r1" -- sleep 60 >"$work/r5.out" 2>&1 &
pid=$!
cgdir() { find /sys/fs/cgroup -maxdepth 3 -type d -name "swapsim-record.$1" 2>/dev/null | head -n 1; }
running() { # PID: the recorder's command (sleep) runs in its memcg
	d=$(cgdir "$1")
	[ -n "$d" ] && p=$(head -n 1 "$d/cgroup.procs" 2>/dev/null) && [ -n "$p" ] &&
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ]
}
# within TENTHS CMD...: CMD succeeds within TENTHS tenths of a second.
within() {
	t=$1
	shift
	until "$@"; do
		[ "$t" -gt 0 ] || return 1
		sleep 0.1
		t=$((t - 1))
	done
}
state_has() { grep -q "^declare -- $1=\"[0-9]" /run/swapsim-record.state 2>/dev/null; }
within 200 running $pid || fail "5: the command never ran in its memcg"
kill -TERM $pid
set +e
wait $pid
st=$?
set -e
[ $st = 143 ] || fail "5: exit $st, not 143: $(cat "$work/r5.out")"
cmp -s "$work/r1.kernel.txt" "$work/r1/kernel.txt" && [ "$(cksum <"$work/r1/perf.txt")" = "$sum1" ] ||
	fail "5: the earlier recording changed"
[ -z "$(find "$work/r1" -name '.swapsim-record.*')" ] || fail "5: a scratch folder left"
restored 5

# 6. A setup that fails half way (page-cluster already changed).
expect_fail 1 "^swapsim-record: zram has no compressor no-such-alg" \
	"$rec" --mem-limit 4M --zram 32M --page-cluster $pc2 --zram-comp no-such-alg "$work/r6" -- true
[ ! -e "$work/r6" ] || fail "6: the OUTDIR it made is left"
restored 6

# 7. Anon mTHP of 64 KiB for the run.
thpd=/sys/kernel/mm/transparent_hugepage
if [ -f $thpd/hugepages-64kB/enabled ]; then
	if "$rec" --mem-limit 4M --zram 32M --mthp 64K=always "$work/r7" -- "$bgsave" 8 >"$work/r7.out" 2>&1; then
		k=$work/r7/kernel.txt
		[ "$(key "$k" mthp.64kB.enabled)" = always ] || fail "7: mthp.64kB.enabled $(key "$k" mthp.64kB.enabled)"
		[ -n "$(key "$k" thp.enabled)" ] || fail "7: no thp.enabled"
		[ "$(in_section "$k" 'mthp stats deltas' 64kB.anon_fault_alloc)" -gt 0 ] ||
			fail "7: no 64 KiB folio faulted in: $(grep '^64kB' "$k" | paste -sd' ')"
		echo "ok: 7: 64 KiB mTHP: $(grep -E '^64kB\.(anon_fault_alloc|swpout|swpout_fallback) ' "$k" | paste -sd' ')"
	else
		fail "7: swapsim-record exited $?: $(cat "$work/r7.out")"
	fi
	restored 7
else
	echo "note: 7: this kernel has no 64 KiB anon mTHP"
fi

# 8. The recorder killed outright while its command runs.
"$rec" --mem-limit 4M --zram 32M --page-cluster $pc2 "$work/r8" -- sleep 60 >"$work/r8.out" 2>&1 &
pid=$!
{ within 200 running $pid && within 200 state_has perf_pid; } || fail "8: the command never ran in its memcg"
kill -KILL $pid
wait $pid 2>/dev/null || true
expect_fail 1 "^swapsim-record: cannot record: a swapsim-record that was killed left the machine changed .*: swapsim-record --recover puts it back" \
	"$rec" --preflight
"$rec" --recover >"$work/r8.recover" 2>&1 || fail "8: --recover exited $?: $(cat "$work/r8.recover")"
grep -q "^swapsim-record: put back: page-cluster $pc\$" "$work/r8.recover" &&
	grep -q "^swapsim-record: put back: .* swapped off\$" "$work/r8.recover" ||
	fail "8: --recover said: $(cat "$work/r8.recover")"
[ ! -e "$work/r8" ] || fail "8: the OUTDIR the killed recorder made is left"
"$rec" --recover 2>&1 | grep -q "nothing to put back" || fail "8: a second --recover found something"
restored 8

# 9. A command killed by a signal.
set +e
"$rec" --mem-limit 4M --zram 32M "$work/r9" -- sh -c 'kill -KILL $$' >"$work/r9.out" 2>&1
st=$?
set -e
[ $st = 3 ] || fail "9: exit $st, not 3: $(cat "$work/r9.out")"
[ "$(key "$work/r9/kernel.txt" command_exit_status)" = 137 ] || fail "9: command_exit_status $(key "$work/r9/kernel.txt" command_exit_status)"
! grep -q 'Killed' "$work/r9.out" || fail "9: the shell's noise: $(grep Killed "$work/r9.out")"
restored 9

# 10. --accesses, and a signal during its run.
if command -v valgrind >/dev/null && command -v zstd >/dev/null; then
	if "$rec" --mem-limit 4M --zram 32M --accesses "$work/r10" -- "$bgsave" 1 >"$work/r10.out" 2>&1; then
		k=$work/r10/kernel.txt
		[ "$(key "$k" accesses)" = accesses.lackey.zst ] && [ "$(key "$k" accesses_exit_status)" = 0 ] ||
			fail "10: accesses: $(grep '^access' "$k" | paste -sd' ')"
		zstd -dc "$work/r10/accesses.lackey.zst" | grep -q '^ S ' || fail "10: no store in accesses.lackey.zst"
		# bgsave's own mmap, then its munmap of the second half, among the accesses
		zstd -dc "$work/r10/accesses.lackey.zst" | grep -q '^SYSCALL\[.*sys_munmap ( ' ||
			fail "10: no munmap call in accesses.lackey.zst"
	else
		fail "10: swapsim-record exited $?: $(cat "$work/r10.out")"
	fi
	restored 10
	"$rec" --mem-limit 4M --zram 32M --accesses "$work/r10b" -- sleep 60 >"$work/r10b.out" 2>&1 &
	pid=$!
	within 600 state_has acc_pid || fail "10: valgrind never started"
	kill -TERM $pid
	set +e
	wait $pid
	st=$?
	set -e
	[ $st = 143 ] || fail "10: exit $st after SIGTERM during --accesses, not 143: $(cat "$work/r10b.out")"
	[ ! -e "$work/r10b" ] || fail "10: the OUTDIR of the stopped run is left"
	pgrep -f 'lackey.*sleep 60' >/dev/null && fail "10: valgrind left running"
	restored "10 (SIGTERM)"
else
	echo "note: 10: no valgrind or zstd: no --accesses case"
fi
finish "record"
