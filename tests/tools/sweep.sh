#!/bin/sh
# swapsim-sweep through GNU parallel on a 2 x 2 grid (memory limit x design,
# two repeats a point): every point's result is complete and at its
# coordinates (its counters are those of the same replay run directly); a
# point whose run was interrupted is left not done and runs again, alone; a
# sweep run again runs nothing; a result removed or cut short (and a stale
# temporary file) is redone and nothing else; the sweep is collected again
# and plotted.
# A wrapper around swapsim-replay logs every run (not the sweep's --help calls:
# its options, and each axis value checked before any point runs).
# Usage: sweep.sh SWAPSIM-SWEEP SWAPSIM-REPLAY WORKDIR
set -eu
sweep=$1 replay=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start parallel jq gnuplot
cat >"$work/replay" <<WRAP
#!/bin/sh
case "\$*" in *--help) exec "$replay" "\$@" ;; esac
printf '%s\n' "\$*" >>"$work/runs.log"
# The first run of (3M, xarray) stops as an interrupted replay does (SIGINT: 130).
case " \$* " in *" --mem-limit 3M --backend xarray "*)
	[ -e "$work/interrupted-once" ] || { : >"$work/interrupted-once"; exit 130; } ;;
esac
exec "$replay" "\$@"
WRAP
chmod +x "$work/replay"
runs() { if [ -f "$work/runs.log" ]; then wc -l <"$work/runs.log" | tr -d ' '; else echo 0; fi; }
fixed="--ram 4M --repeat 2 --workload usemem -n 1 -y -x 3M"
out=$work/sw
go() {
	set +e
	# shellcheck disable=SC2086
	"$sweep" --out "$out" --replay "$work/replay" -j 2 --parallel-args "--tag" --no-plot \
		--grid mem-limit=2M,3M --grid backend=st-p4,xarray "$@" -- $fixed >"$work/log" 2>&1
	st=$?
	set -e
	cat "$work/log"
}

# 1. The first sweep: three points done, (3M, xarray) interrupted.
go
[ "$st" -eq 1 ] || fail "a sweep with an interrupted point exited $st, not 1"
[ "$(runs)" = 4 ] || fail "4 points, $(runs) runs"
grep -q '^0001	point 0001: done' "$work/log" || fail "--parallel-args --tag did not reach GNU parallel"
grep -q "4 points: 3 done, 1 failed (0004), 0 not run" "$work/log" || fail "no summary of the failed point"
[ ! -e "$out/points/0004/result.json" ] && [ "$(cat "$out/points/0004/failed")" = 130 ] ||
	fail "the interrupted point has a result or no exit status"
grep -q '^"0004","3M","xarray","failed",130$' "$out/sweep.csv" || fail "sweep.csv does not list 0004 as failed"

# 2. Again: only the interrupted point runs.
go
[ "$st" -eq 0 ] || fail "the resumed sweep exited $st"
[ "$(runs)" = 5 ] || fail "the resumed sweep ran $(($(runs) - 4)) points, not 1"
tail -n 1 "$work/runs.log" | grep -q -- '--mem-limit 3M --backend xarray' || fail "the resumed sweep ran another point"
grep -q "4 points: 3 done before, 1 to run" "$work/log" || fail "no 'done before' count"

# 3. The results: one CSV row and one JSON point per point, at their coordinates.
[ "$(wc -l <"$out/sweep.csv")" -eq 5 ] || fail "sweep.csv: $(wc -l <"$out/sweep.csv") lines, not a header and 4 rows"
head -n 1 "$out/sweep.csv" | grep -q '^"point","mem-limit","backend","status","exit_status","design","nr_repeats","counters_identical","elapsed_ns","elapsed_ns_stdev",' ||
	fail "sweep.csv header: $(head -c 200 "$out/sweep.csv")"
i=0
for m in 2M 3M; do
	for b in st-p4 xarray; do
		i=$((i + 1))
		id=$(printf '%04d' $i)
		row=$(grep "^\"$id\"," "$out/sweep.csv") || { fail "no row of point $id"; continue; }
		case $row in "\"$id\",\"$m\",\"$b\",\"done\",0,\"$b\",2,true,"*) ;; *) fail "row of $id: ${row%%,\"elapsed*}" ;; esac
		# shellcheck disable=SC2086
		"$replay" --quiet --report json --mem-limit $m --backend $b $fixed >"$work/direct.json"
		want=$(jq -c '.runs[0].counters | [.pgfault, .pswpout, .pswpin, .pgsteal]' "$work/direct.json")
		got=$(jq -c --arg id "$id" '.points[] | select(.id == $id) | .runs[0].figures
			| [.pgfault.mean, .pswpout.mean, .pswpin.mean, .pgsteal.mean]' "$out/sweep.json")
		[ "$want" = "$got" ] || fail "point $id ($m, $b): counters $got, a direct run gives $want"
		jq -e --arg id "$id" --arg m $m --arg b $b '.points[] | select(.id == $id)
			| .coords == {"mem-limit": $m, backend: $b} and .status == "done" and .result == "points/\($id)/result.json"' \
			"$out/sweep.json" >/dev/null || fail "sweep.json point $id"
	done
done
echo "ok: 4 points at their coordinates, counters as direct runs"
"$sweep" --collect "$out" --plot elapsed_ns,pswpout --x mem-limit >"$work/log" || fail "collect and plot: $(cat "$work/log")"
grep -q "plot: $out/sweep.png" "$work/log" || fail "no plot: $(cat "$work/log")"
png "$out/sweep.png" 1000 300

# 4. Once more: nothing runs.
go
[ "$st" -eq 0 ] && [ "$(runs)" = 5 ] || fail "a finished sweep ran again (exit $st, $(runs) runs)"
grep -q "4 points: 4 done before, 0 to run" "$work/log" || fail "a finished sweep: no '4 done before'"

# 5. A result removed, one cut short (as a copy stopped midway leaves it), a
#    stale temporary file: exactly those two points run again. What a sweep
#    stopped in its first seconds leaves of its atomic writes (the manifest's,
#    a point's description) goes too.
rm "$out/points/0001/result.json"
: >"$out/points/0001/.result.json.host.1.tmp"
for f in .sweep.manifest.4242.tmp points/0003/.point.json.4242.tmp points/0003/.coords.4242.tmp \
	points/0004/.args.4242.tmp; do
	echo '{"cut' >"$out/$f"
done
head -c 300 "$out/points/0002/result.json" >"$out/points/0002/cut" && mv "$out/points/0002/cut" "$out/points/0002/result.json"
go
[ "$st" -eq 0 ] && [ "$(runs)" = 7 ] || fail "a removed and a cut result: exit $st, $(($(runs) - 5)) runs, not 2"
tail -n 2 "$work/runs.log" | grep -q -- '--mem-limit 2M --backend st-p4 ' || fail "point 0001 did not run again"
tail -n 2 "$work/runs.log" | grep -q -- '--mem-limit 2M --backend xarray ' || fail "point 0002 did not run again"
[ ! -e "$out/points/0001/.result.json.host.1.tmp" ] || fail "the stale temporary file stayed"
left=$(cd "$out" && find . -name '*.tmp')
[ -z "$left" ] || fail "temporary files stayed after a resume: $left"
[ "$(jq '[.points[] | select(.status == "done")] | length' "$out/sweep.json")" = 4 ] || fail "not every point done"
echo "ok: resumed: $(runs) runs in all for 4 points (1 interrupted, 2 redone)"

# 6. The grid's syntax: values with commas (';' lists), an option without a
#    value (on/off), the points' order (the last axis fastest).
"$sweep" --dry-run --replay "$replay" --grid 'swap=size=8M,type=pmem;size=8M,type=nvme' --grid zswap=on,off \
	-- --workload memhog 1M >"$work/dry"
[ "$(wc -l <"$work/dry")" = 4 ] || fail "dry run: $(wc -l <"$work/dry") points, not 4"
sed -n 1p "$work/dry" | grep -q -- '^0001 .* --swap size=8M\\,type=pmem --zswap --workload memhog 1M $' || fail "dry run point 1: $(sed -n 1p "$work/dry")"
sed -n 2p "$work/dry" | grep -q -- '^0002 .* --swap size=8M\\,type=pmem --workload memhog 1M $' || fail "dry run point 2: $(sed -n 2p "$work/dry")"
sed -n 4p "$work/dry" | grep -q -- '^0004 .* --swap size=8M\\,type=nvme --workload memhog 1M $' || fail "dry run point 4: $(sed -n 4p "$work/dry")"

# 7. A real interruption: Ctrl-C (SIGINT to the sweep's process group) while
#    the third point runs. The sweep exits 130, the two points done stay
#    done, the third left no result, and the same command runs the last two.
cat >"$work/blocking" <<WRAP
#!/bin/sh
case "\$*" in *--help) exec "$replay" "\$@" ;; esac
printf '%s\n' "\$*" >>"$work/runs2.log"
case " \$* " in *" --backend vswap "*)
	[ -e "$work/blocked-once" ] || { : >"$work/blocked-once"; exec sleep 60; } ;;
esac
exec "$replay" "\$@"
WRAP
chmod +x "$work/blocking"
int() {
	"$sweep" --out "$work/int" --replay "$work/blocking" -j 1 --no-plot --grid backend=st-p4,xarray,vswap,st-p1 \
		-- --ram 4M --workload usemem -n 1 -y -x 3M
}
# Job control (bash's set -m) puts the sweep in a process group of its own
# with SIGINT as a terminal's job has it, and kill -INT to the group is
# Ctrl-C: parallel, the wrapper and its sleep all get it.
set +e
LOG=$work/int.log MARK=$work/blocked-once bash -c '
	set -m
	"$@" >"$LOG" 2>&1 &
	pid=$!
	n=0
	while [ ! -e "$MARK" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
	sleep 0.3
	kill -INT -- -$pid
	wait $pid' bash "$sweep" --out "$work/int" --replay "$work/blocking" -j 1 --no-plot \
	--grid backend=st-p4,xarray,vswap,st-p1 -- --ram 4M --workload usemem -n 1 -y -x 3M 2>/dev/null
st=$?
set -e
cat "$work/int.log"
[ $st -eq 130 ] || fail "an interrupted sweep exited $st, not 130"
[ -e "$work/int/points/0001/result.json" ] && [ -e "$work/int/points/0002/result.json" ] &&
	[ ! -e "$work/int/points/0003/result.json" ] && [ ! -e "$work/int/points/0004/result.json" ] ||
	fail "after the interruption: $(ls "$work"/int/points/*/result.json)"
before=$(wc -l <"$work/runs2.log")
int >"$work/int2.log" 2>&1 || fail "the resumed sweep: $(cat "$work/int2.log")"
[ $(($(wc -l <"$work/runs2.log") - before)) -eq 2 ] || fail "the resumed sweep ran $(($(wc -l <"$work/runs2.log") - before)) points, not 2"
grep -q "4 points: 2 done before, 2 to run" "$work/int2.log" || fail "resumed: $(cat "$work/int2.log")"
echo "ok: interrupted by SIGINT at point 3 (exit 130), resumed with 2 runs"
finish "sweep"
