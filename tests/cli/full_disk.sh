#!/bin/sh
# A file-backed swap device on a full file system (a 1 MiB tmpfs in a private
# mount namespace, so the machine is left as it was): the run must end, name
# the file and the errno, and exit 1. Needs root for the namespace; exits 77
# (skipped) without it. Usage: full_disk.sh SWAPSIM-REPLAY
set -u
replay=$1
mnt=$(mktemp -d) logs=$(mktemp -d)
trap 'rmdir "$mnt"; rm -rf "$logs"' EXIT
unshare -m true 2>/dev/null || { echo "skipped: no private mount namespace (needs root)"; exit 77; }
unshare -m sh -c '
	mount -t tmpfs -o size=1M tmpfs "$1" || exit 77
	timeout 120 "$2" --ram 4M --swap size=64M,file="$1/sw" --workload usemem -n 1 6M >"$3/out" 2>"$3/err"
	echo "exit status $?"
' sh "$mnt" "$replay" "$logs"
rc=$?
[ $rc -eq 77 ] && { echo "skipped: cannot mount a tmpfs"; exit 77; }
cat "$logs/err"
grep -E "^(oom_kill|swap_writepage_error) " "$logs/out"
