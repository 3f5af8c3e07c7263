#!/bin/sh
# SIGTERM and SIGHUP stop a sweep whole: GNU parallel, every point's runner and
# every replay go (they kept running, orphaned, holding the folder's lock), the
# sweep exits 128 + the signal, the points stopped midway are neither done nor
# failed, and the same command then runs them.
# Usage: sweep_signals.sh SWAPSIM-SWEEP SWAPSIM-REPLAY WORKDIR
set -eu
sweep=$1 replay=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start parallel jq
work=$(cd "$work" && pwd) # absolute, as the sweep makes $out (its cd and pwd)
# procs: "PID ARGS" of this run's processes. GNU parallel, every point's runner
# and every replay name the sweep's folder $out in their command lines, and $out
# is this run's alone: under this build's $work, named with this shell's pid
# ($tok). The same test run elsewhere at the same time (another build tree or
# worktree, a mutation run) is not seen. pgrep's list is taken before it is
# filtered, so the filter itself (its command line holds $out) is not in it.
procs() {
	all=$(pgrep -af -- "$tok" || true)
	printf '%s\n' "$all" | grep -F -- "$out" || true
}
alive() { procs | awk '{ print $1 }'; }
replays() { procs | awk '$2 ~ /swapsim-replay$/' | wc -l; }
for sig in TERM HUP; do
	case $sig in TERM) want=143 ;; HUP) want=129 ;; esac
	tok=sweep-signals-$$-$sig
	out=$work/$tok
	"$sweep" --out "$out" --replay "$replay" --grid backend=st-p4,xarray,vswap -j 2 --no-plot -- \
		--seed 918273 --ram 64M --swap size=1G --quiet --workload usemem -n 1 -r 1000 128M \
		>"$work/out" 2>"$work/err" &
	pid=$!
	n=0
	while [ "$(replays)" -lt 2 ] && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ $n -lt 300 ] || fail "SIG$sig: the replays did not start"
	kill -s "$sig" $pid
	set +e
	wait $pid
	st=$?
	set -e
	[ $st -eq $want ] || fail "SIG$sig: exit status $st, want $want"
	sleep 0.5
	left=$(alive)
	[ -z "$left" ] || { fail "SIG$sig: processes left running:"; ps -o pid,args -p "$(echo $left | tr ' ' ,)"; kill $left 2>/dev/null || true; }
	grep -q "interrupted: the points done so far stay done" "$work/err" || fail "SIG$sig: no message"
	[ -z "$(ls "$out"/points/*/failed 2>/dev/null)" ] || fail "SIG$sig: a stopped point was marked failed"
	set +e
	"$sweep" --collect "$out" --no-plot >"$work/out" 2>&1
	set -e
	grep -q "3 points: 0 done, 0 failed, 3 not run" "$work/out" || { fail "SIG$sig: the points are not pending"; cat "$work/out"; }
	echo "ok: SIG$sig: exit $st, nothing left running, 3 points to run again"
done
finish "sweep signals"
