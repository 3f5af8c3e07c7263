#!/bin/sh
# Standard output that cannot be written is an error: every report of every C
# tool into /dev/full exits 1 with "PROG: standard output: No space left on
# device", and into a closed pipe with SIGPIPE ignored with "Broken pipe".
# Usage: stdout_errors.sh SIM-BUILD-DIR DATA-DIR
set -u
bin=$1 data=$2
replay=$bin/swapsim-replay trace=$bin/swapsim-trace overhead=$bin/swapsim-overhead
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
excerpt=$data/perf_swap_excerpt.txt
rec=$data/bgsave32_kernel.txt
wl="--ram 16M --quiet --workload memhog 8M"
# expect PROG ERROR COMMAND...: the command exits 1 naming the error.
full() {
	prog=$1
	shift
	"$@" >/dev/full 2>"$dir/err"
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "^$prog: standard output: No space left on device\$" "$dir/err"; then
		echo "FAIL: $* > /dev/full: exit status $rc, want 1 and the message; stderr:"
		cat "$dir/err"
		fails=1
	fi
}
for report in table json csv counters; do
	# shellcheck disable=SC2086 # $wl is words
	full swapsim-replay "$replay" --report $report $wl
done
full swapsim-replay "$replay" --help
full swapsim-replay "$replay" --check "$rec"
full swapsim-replay "$replay" --check "$rec" --report json
full swapsim-trace "$trace" stats "$excerpt"
full swapsim-trace "$trace" --help
full swapsim-overhead "$overhead" --size 16M --usage 0
full swapsim-overhead "$overhead" --size 16M --usage 0 --report json
full swapsim-overhead "$overhead" --version
# head and convert --out - write through the trace writer, which names the file.
for cmd in "head $excerpt" "convert --in $excerpt --out -"; do
	# shellcheck disable=SC2086
	"$trace" $cmd >/dev/full 2>"$dir/err"
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "No space left on device" "$dir/err"; then
		echo "FAIL: swapsim-trace $cmd > /dev/full: exit status $rc; stderr:"; cat "$dir/err"; fails=1
	fi
done
# A closed pipe with SIGPIPE ignored (as under some supervisors): EPIPE, exit 1.
# The reader (:) is gone before the writer starts.
closed_pipe() {
	prog=$1
	shift
	( trap '' PIPE
	  sh -c 'sleep 0.3; "$@"; echo "status $?" >&2' sh "$@" 2>"$dir/err" | : )
	if ! grep -q "^$prog: standard output: Broken pipe\$" "$dir/err" || ! grep -q "^status 1\$" "$dir/err"; then
		echo "FAIL: $* into a closed pipe: want exit 1 and Broken pipe; stderr:"; cat "$dir/err"; fails=1
	fi
}
closed_pipe swapsim-replay "$replay" --report counters --ram 16M --quiet --workload memhog 8M
closed_pipe swapsim-trace "$trace" stats "$excerpt"
closed_pipe swapsim-overhead "$overhead" --size 16M --usage 0
[ $fails -eq 0 ] && echo "stdout errors: all cases passed"
