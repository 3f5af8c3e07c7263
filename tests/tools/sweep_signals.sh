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
# alive: the processes of this test's sweep (the seed is its mark).
alive() { pgrep -f -- "--seed 918273" | grep -vx "$$" || true; }
for sig in TERM HUP; do
	case $sig in TERM) want=143 ;; HUP) want=129 ;; esac
	out=$work/sw-$sig
	"$sweep" --out "$out" --replay "$replay" --grid backend=st-p4,xarray,vswap -j 2 --no-plot -- \
		--seed 918273 --ram 64M --swap size=1G --quiet --workload usemem -n 1 -r 1000 128M \
		>"$work/out" 2>"$work/err" &
	pid=$!
	n=0
	while [ "$(pgrep -f -- "^[^ ]*swapsim-replay .*--seed 918273" | wc -l)" -lt 2 ] && [ $n -lt 300 ]; do
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
