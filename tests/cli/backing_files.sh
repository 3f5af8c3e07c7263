#!/bin/sh
# Backing files of swapsim-replay: a run removes only a file it created, and
# only while the path still names that file. A dangling symbolic link at the
# path and a file that existed before (refused, or reused when asked) are
# left; a file the run created is gone after it, also across repeats. A path
# that is no regular file fails the run (exit status 1), like other device
# errors.
# Usage: backing_files.sh SWAPSIM-REPLAY
set -u
replay=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/err"; exit 1; }
# run EXPECTED-STATUS SWAP-SPEC [OPTIONS...]
run() {
	want=$1 spec=$2
	shift 2
	"$replay" --ram 4M --quiet --swap "$spec" "$@" --workload usemem -n 1 6M >/dev/null 2>"$dir/err"
	got=$?
	[ "$got" -eq "$want" ] || fail "--swap $spec: exit status $got, expected $want"
}

# A dangling symbolic link: refused (not followed), and still there afterwards.
ln -s "$dir/nowhere" "$dir/link"
run 1 "size=16M,file=$dir/link"
[ -L "$dir/link" ] || fail "the dangling symbolic link was removed"
[ -e "$dir/nowhere" ] && fail "a file was created through the symbolic link"

# A file that exists: refused without reuse, its bytes untouched.
echo "the user's data" >"$dir/keep"
run 1 "size=16M,file=$dir/keep"
[ "$(cat "$dir/keep")" = "the user's data" ] || fail "the existing file was changed or removed"
# With reuse it is emptied and used, and it stays: the run did not create it.
run 0 "size=16M,file=$dir/keep,reuse" --repeat 2
[ -f "$dir/keep" ] || fail "a reused file was removed"

# Not a regular file (a FIFO): a device error like the others (1), not bad usage (2).
mkfifo "$dir/fifo"
run 1 "size=16M,file=$dir/fifo,reuse"
[ -p "$dir/fifo" ] || fail "the FIFO was removed"

# A file the run creates is scratch: gone after every run, so a repeat creates it again.
run 0 "size=16M,file=$dir/new" --repeat 2
[ -e "$dir/new" ] && fail "the file the run created is still there"

echo "backing files: all cases passed"
