#!/bin/sh
# SIGTERM and SIGHUP stop a replay the way SIGINT does: at a record boundary,
# with the summary of what ran on stderr, the streamed CSV ending on a whole
# row, and exit status 128+signal. Usage: signals.sh SWAPSIM-REPLAY
set -u
replay=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
for sig in TERM HUP INT; do
	case $sig in TERM) want=143 ;; HUP) want=129 ;; INT) want=130 ;; esac
	# A run far longer than the test: usemem repeated a thousand times.
	: >"$dir/out.csv" # there before the poll below reads it
	"$replay" --ram 64M --swap size=1G --quiet --report csv --interval 20000 \
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
[ $fails -eq 0 ] && echo "signals: all cases passed"
