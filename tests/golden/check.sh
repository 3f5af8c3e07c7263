#!/bin/sh
# Golden counter snapshots (tests/golden/cases): run each case with
# `swapsim-replay --report counters` and compare with NAME.txt; any changed
# counter fails, with the diff. --regen rewrites the .txt files instead.
#
#   sh tests/golden/check.sh [--regen] SWAPSIM_REPLAY [CASE...]
set -eu
regen=0
if [ "${1:-}" = --regen ]; then
	regen=1
	shift
fi
[ $# -ge 1 ] || { echo "usage: check.sh [--regen] SWAPSIM_REPLAY [CASE...]" >&2; exit 2; }
bin=$1
shift
dir=$(cd "$(dirname "$0")" && pwd)
data=$dir/../data
all=$(sh "$dir/../../scripts/designs.sh" --comma "$bin") # @ALL@: every design of the registry
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
ran=0
while read -r name args; do
	case "$name" in '' | '#'*) continue ;; esac
	if [ $# -gt 0 ]; then
		want=0
		for c in "$@"; do [ "$c" = "$name" ] && want=1; done
		[ $want = 1 ] || continue
	fi
	args=$(printf '%s' "$args" | sed -e "s|@ALL@|$all|g" -e "s|@DATA@|$data|g")
	# shellcheck disable=SC2086 # the arguments are words
	if ! "$bin" --quiet --report counters $args > "$tmp/$name.txt" 2> "$tmp/$name.err"; then
		echo "golden $name: swapsim-replay failed:" >&2
		cat "$tmp/$name.err" >&2
		failed=1
		continue
	fi
	ran=$((ran + 1))
	if [ $regen = 1 ]; then
		cp "$tmp/$name.txt" "$dir/$name.txt"
	elif [ ! -f "$dir/$name.txt" ]; then
		echo "golden $name: no $dir/$name.txt (run with --regen)" >&2
		failed=1
	elif ! diff -u "$dir/$name.txt" "$tmp/$name.txt" > "$tmp/$name.diff"; then
		echo "golden $name: counters differ from $name.txt (intended? regenerate with --regen and review):" >&2
		head -60 "$tmp/$name.diff" >&2
		failed=1
	fi
done < "$dir/cases"
[ $ran -gt 0 ] || { echo "golden: no case ran" >&2; exit 1; }
[ $failed = 0 ] && echo "golden: $ran cases identical"
exit $failed
