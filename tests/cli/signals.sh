#!/bin/sh
# SIGTERM and SIGHUP stop a replay the way SIGINT does: at a record boundary,
# with the summary of what ran on stderr, the streamed CSV ending on a whole
# row, and exit status 128+signal. A signal ignored when the replay starts
# (nohup, a background job's SIGINT) stays ignored. A replay stopped while its
# trace opens says that nothing ran. Compared designs stopped in the first
# design's run report that run (--jobs 1 and 2). Usage: signals.sh SWAPSIM-REPLAY
#
# A background job of this (non-interactive) shell starts with SIGINT
# ignored: env --default-signal=INT gives the replay SIGINT back.
set -u
replay=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
for sig in TERM HUP INT; do
	case $sig in TERM) want=143 ;; HUP) want=129 ;; INT) want=130 ;; esac
	# A run far longer than the test: usemem repeated a thousand times.
	: >"$dir/out.csv" # there before the poll below reads it
	env --default-signal=INT "$replay" --ram 64M --swap size=1G --quiet --report csv --interval 20000 \
		--workload usemem -n 1 -r 1000 128M >"$dir/out.csv" 2>"$dir/err" &
	pid=$!
	n=0
	while [ "$(wc -l <"$dir/out.csv")" -lt 3 ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	rows=$(wc -l <"$dir/out.csv")
	cols=$(head -1 "$dir/out.csv" | tr ',' '\n' | wc -l)
	last=$(tail -1 "$dir/out.csv" | tr ',' '\n' | wc -l)
	tailbyte=$(tail -c 1 "$dir/out.csv" | od -An -c | tr -d ' ')
	if [ $rc -ne $want ]; then
		echo "FAIL: SIG$sig: exit status $rc, want $want"; fails=1
	elif ! grep -q "interrupted" "$dir/err"; then
		echo "FAIL: SIG$sig: no summary on stderr"; fails=1
	elif [ "$rows" -lt 3 ] || [ "$last" -ne "$cols" ] || [ "$tailbyte" != '\n' ]; then
		echo "FAIL: SIG$sig: CSV of $rows rows, last row $last of $cols columns"; fails=1
	else
		echo "SIG$sig: exit $rc, $rows CSV rows, summary printed"
	fi
done
# A usemem run stopped midway: its throughput is that of the pages it touched
# (not of the passes it meant to make: at most twice a complete run's here), and
# the table says it was interrupted.
full=$("$replay" --ram 64M --swap size=1G --quiet --report json --workload usemem -n 1 -r 2 128M 2>/dev/null |
	grep -o '"throughput_kbs":{"mean":[0-9.]*' | head -n 1 | sed 's/.*://')
env --default-signal=INT "$replay" --ram 64M --swap size=1G --quiet --report json \
	--workload usemem -n 1 -r 1000 128M >"$dir/int.json" 2>"$dir/err" &
pid=$!
sleep 2
kill -s INT $pid
wait $pid
part=$(grep -o '"throughput_kbs":{"mean":[0-9.]*' "$dir/int.json" | head -n 1 | sed 's/.*://')
if [ -z "$full" ] || [ -z "$part" ] || ! grep -q '"interrupted":true' "$dir/int.json" ||
	! awk -v p="$part" -v f="$full" 'BEGIN { exit !(p > 0 && p <= 2 * f) }'; then
	echo "FAIL: interrupted usemem: throughput $part KB/s against $full for a complete run"; fails=1
else
	echo "interrupted usemem: $part KB/s (a complete run: $full)"
fi
env --default-signal=INT "$replay" --ram 64M --swap size=1G --quiet \
	--workload usemem -n 1 -r 1000 128M >"$dir/int.txt" 2>"$dir/err" &
pid=$!
sleep 1
kill -s INT $pid
wait $pid
grep -q "^INTERRUPTED: st-p4 stopped before its input ended" "$dir/int.txt" ||
	{ echo "FAIL: interrupted usemem: the table does not say so"; fails=1; }
# Compared designs stopped during the first design's run, one run at a time
# and two at once: the report holds what ran (the first design's run,
# interrupted; with --jobs 2 the second's too), not "nothing to report" nor
# a summary line with no report after it.
for j in 1 2; do
	env --default-signal=INT "$replay" --jobs $j --ram 64M --swap size=1G --quiet --report json \
		--compare st-p1,st-p4 --workload usemem -n 1 -r 1000 128M >"$dir/cmp.json" 2>"$dir/err" &
	pid=$!
	sleep 1
	kill -s INT $pid
	wait $pid
	rc=$?
	got=$(jq -r '[.runs[] | .label + ":" + ([.repeats[] | .interrupted | tostring] | join(","))] | join(" ")' \
		"$dir/cmp.json" 2>/dev/null)
	case $j in 1) want="st-p1:true" ;; 2) want="st-p1:true st-p4:true" ;; esac
	if [ $rc -ne 130 ] || [ "$got" != "$want" ] || ! grep -q "interrupted (Interrupt); summary of what ran" "$dir/err"; then
		echo "FAIL: --compare --jobs $j interrupted: exit $rc, runs '$got' (want '$want'); stderr:"
		cat "$dir/err"; fails=1
	else
		echo "--compare --jobs $j interrupted: exit 130, reported $got"
	fi
done
# nohup: SIGHUP ignored at the start stays ignored; SIGTERM still stops the run.
: >"$dir/out.csv"
nohup "$replay" --ram 64M --swap size=1G --quiet --report csv --interval 20000 \
	--workload usemem -n 1 -r 1000 128M >"$dir/out.csv" 2>"$dir/err" &
pid=$!
n=0
while [ "$(wc -l <"$dir/out.csv")" -lt 3 ] && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -s HUP $pid
sleep 0.5
kill -s TERM $pid
wait $pid
rc=$?
if [ $rc -ne 143 ] || ! grep -q "interrupted (Terminated)" "$dir/err"; then
	echo "FAIL: nohup: SIGHUP then SIGTERM: exit status $rc, want 143 (SIGHUP ignored)"; fails=1
else
	echo "nohup: SIGHUP ignored, SIGTERM stopped the run"
fi
# Stopped while the trace opens (a FIFO no one writes): nothing ran, and it says so.
mkfifo "$dir/fifo"
env --default-signal=INT "$replay" --trace "$dir/fifo" >"$dir/out" 2>"$dir/err" &
pid=$!
sleep 0.5
kill -s TERM $pid
wait $pid
rc=$?
if [ $rc -ne 143 ] || ! grep -q "interrupted (Terminated) before the first run began (while its trace was opened): nothing to report" "$dir/err"; then
	echo "FAIL: stopped while opening: exit status $rc, want 143 and a message; stderr:"; cat "$dir/err"; fails=1
else
	echo "stopped while the trace opened: exit 143, said so"
fi
[ $fails -eq 0 ] && echo "signals: all cases passed"
