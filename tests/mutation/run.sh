#!/usr/bin/env bash
# Mutation testing: apply each mutation of tests/mutation/mutations (one at a
# time) to a scratch copy of the tree, rebuild it incrementally, run the unit
# suite, and report which mutations the suite killed (a test failed) and which
# survived. The checkout itself is never modified.
#
#   bash tests/mutation/run.sh [SCRATCH_DIR] [ID...]
#
# SCRATCH_DIR (default build-mut) holds src/ (a copy of the tracked and
# untracked-but-not-ignored files, refreshed by content on every run) and obj/
# (its Release build, kept between runs). IDs pick mutations by their number.
# Results: SCRATCH_DIR/mutation-results.txt. Environment: MUTATION_JOBS
# (default 2), MUTATION_THRESHOLD (the kill rate in percent below which the
# run fails, default 95), MUTATION_TIMEOUT (seconds for one suite run,
# default 240; a suite run past it counts as a kill: the mutant hangs),
# MUTATION_EXCLUDE (a ctest -E regex of tests not run, default none).
#
# Exit status: 0 when the kill rate reaches the threshold, 1 when it does not,
# 2 when the list is stale (a FROM text not found exactly once, a mutation that
# does not build) or the unmutated suite fails.
#
# List format, one mutation a line: FILE<TAB>FROM<TAB>TO<TAB>DESC. FROM must
# occur exactly once in FILE; \n and \t in FROM and TO stand for a newline and
# a tab; TO may be empty. A DESC beginning "equivalent:" marks a mutation that
# changes nothing observable (the reason follows); its survival is reported as
# such but still counts against the kill rate.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
scratch=${1:-build-mut}
[ $# -gt 0 ] && shift
case "$scratch" in /*) ;; *) scratch=$repo/$scratch ;; esac
src=$scratch/src
obj=$scratch/obj
list=tests/mutation/mutations
jobs=${MUTATION_JOBS:-2}
threshold=${MUTATION_THRESHOLD:-95}
suite_timeout=${MUTATION_TIMEOUT:-240}
results=$scratch/mutation-results.txt
start=$(date +%s)

# The mutated file of the scratch copy, restored from the checkout on any exit.
target=""
restore() {
	if [ -n "$target" ]; then
		cp "$repo/$target" "$src/$target" # a fresh mtime: make rebuilds it
		target=""
	fi
}
trap 'restore' EXIT
trap 'restore; exit 130' INT
trap 'restore; exit 143' TERM

# Refresh the scratch copy by content. A copied file gets a fresh mtime, so a
# file left mutated by a killed run is rebuilt from the restored text.
mkdir -p "$src"
git ls-files -co --exclude-standard -z | sort -z >"$scratch/files"
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	if ! cmp -s "$f" "$src/$f"; then
		mkdir -p "$src/$(dirname "$f")"
		cp "$f" "$src/$f"
	fi
done <"$scratch/files"
# Files gone from the checkout go from the copy too.
(cd "$src" && find . -type f -printf '%P\0' | sort -z) |
	comm -z -23 - "$scratch/files" | (cd "$src" && xargs -0 -r rm -f)
# The full trace samples beside the checkout (tests/CMakeLists.txt: ../shared/samples).
if [ -d "$repo/../shared" ] && [ ! -e "$scratch/shared" ]; then
	ln -s "$repo/../shared" "$scratch/shared"
fi

if [ ! -f "$obj/CMakeCache.txt" ]; then
	cmake -S "$src" -B "$obj" -DCMAKE_BUILD_TYPE=Release -DSWS_WERROR=ON -DSWS_BUILD_BENCH=OFF >/dev/null
fi
# The host-state fixture (sws_host) checks the machine, which other users of a
# shared one change meanwhile; no mutation touches it: not run here. So are
# the tests MUTATION_EXCLUDE names (a ctest -E regex, default none).
exclude=${MUTATION_EXCLUDE:-}
suite() {
	timeout -k 10 "$suite_timeout" ctest --test-dir "$obj" -j"$jobs" -L unit -FA sws_host "$@"
}
cmake --build "$obj" -j"$jobs" >/dev/null
# The suite must pass before anything is mutated.
if ! suite ${exclude:+-E "$exclude"} >/dev/null 2>&1; then
	echo "mutation: the suite fails without mutations; fix that first ($obj)" >&2
	exit 2
fi

: >"$results"
id=0 killed=0 survived=0 equivalent=0 stillborn=0
survivors=() stale=()
while IFS= read -r line || [ -n "$line" ]; do
	case "$line" in '' | '#'*) continue ;; esac
	id=$((id + 1))
	# Split on tabs by hand: read's IFS would merge the two tabs around an empty TO.
	tabs=${line//[!$'\t']/}
	if [ ${#tabs} -lt 3 ]; then
		echo "mutation $id: want FILE<TAB>FROM<TAB>TO<TAB>DESC: $line" >&2
		exit 2
	fi
	file=${line%%$'\t'*} rest=${line#*$'\t'}
	from=${rest%%$'\t'*} rest=${rest#*$'\t'}
	to=${rest%%$'\t'*} what=${rest#*$'\t'}
	if [ $# -gt 0 ]; then
		want=0
		for i in "$@"; do [ "$i" = "$id" ] && want=1; done
		[ $want = 1 ] || continue
	fi
	if [ ! -f "$src/$file" ]; then
		echo "mutation $id: no file $file" >&2
		exit 2
	fi
	# Exactly one occurrence, or the list is stale.
	n=$(FROM="$from" perl -0ne 'BEGIN{$f=$ENV{FROM}; $f =~ s/\\n/\n/g; $f =~ s/\\t/\t/g} $c = () = /\Q$f\E/g; print $c' "$src/$file")
	if [ "$n" != 1 ]; then
		echo "mutation $id ($file): the text to replace occurs $n times, want 1: $from" >&2
		exit 2
	fi
	target=$file
	FROM="$from" TO="$to" perl -0pi -e 'BEGIN{$f=$ENV{FROM}; $t=$ENV{TO}; for ($f, $t) { s/\\n/\n/g; s/\\t/\t/g }} s/\Q$f\E/$t/' "$src/$file"
	t0=$(date +%s)
	if ! cmake --build "$obj" -j"$jobs" >/dev/null 2>&1; then
		verdict=stillborn
		stillborn=$((stillborn + 1))
		stale+=("$id")
	else
		# The golden snapshots first: they take seconds and catch most.
		rc=0
		suite -R '^golden_counters$' >/dev/null 2>&1 || rc=$?
		[ $rc != 0 ] || suite -E "^golden_counters\$${exclude:+|$exclude}" --stop-on-failure >/dev/null 2>&1 || rc=$?
		if [ $rc = 0 ]; then
			survived=$((survived + 1))
			survivors+=("$id")
			case "$what" in
			equivalent:*) verdict=equivalent equivalent=$((equivalent + 1)) ;;
			*) verdict=SURVIVED ;;
			esac
		else
			verdict=killed
			[ $rc = 124 ] || [ $rc = 137 ] && verdict=hung
			killed=$((killed + 1))
		fi
	fi
	restore
	printf '%3d %-10s %4ds %s: %s\n' "$id" "$verdict" $(($(date +%s) - t0)) "$file" "$what" | tee -a "$results"
done <"$list"
cmake --build "$obj" -j"$jobs" >/dev/null # back to the unmutated binaries
tested=$((killed + survived))
rate=0
[ $tested -gt 0 ] && rate=$((killed * 1000 / tested))
printf 'mutation: %d killed, %d survived (%d marked equivalent), %d did not build; kill rate %d.%d%% (%d/%d) in %ds\n' \
	$killed $survived $equivalent $stillborn $((rate / 10)) $((rate % 10)) $killed $tested \
	$(($(date +%s) - start)) | tee -a "$results"
[ ${#survivors[@]} -eq 0 ] || echo "survivors: ${survivors[*]}" | tee -a "$results"
if [ ${#stale[@]} -gt 0 ]; then
	echo "mutation: did not build (fix the list): ${stale[*]}" | tee -a "$results" >&2
	exit 2
fi
[ $tested -gt 0 ] && [ $rate -ge $((threshold * 10)) ] || exit 1
