#!/bin/sh
# The machine's state the suite must leave alone (docs/testing.md, "The machine
# is left as it was"): swap areas, zram devices, memory cgroups, vm sysctls,
# zswap's parameters and mounts. ctest takes a snapshot before the first test
# (host_state_before, a FIXTURES_SETUP of every test) and compares after the
# last (host_state_after, its FIXTURES_CLEANUP), naming each difference.
#
#   host_state.sh snapshot FILE [ROOT]   write the state to FILE
#   host_state.sh compare FILE [ROOT]    exit 1 naming what differs from FILE
#   host_state.sh selftest WORKDIR       the comparison on a made-up ROOT: an
#                                        unchanged tree passes, each kind of
#                                        change fails and is named
#
# ROOT (default /) prefixes /proc and /sys, so the self-test reads a tree of
# its own and never the machine's.
set -eu

# state ROOT: one "KIND: value" line per item, in a stable order.
state() {
	r=${1%/}
	# /proc/swaps without the Used column, which moves while swap is in use.
	if [ -r "$r/proc/swaps" ]; then
		tail -n +2 "$r/proc/swaps" | awk '{ print "swap: " $1 " " $2 " " $3 " prio " $5 }'
	fi
	for d in "$r"/sys/block/zram*; do
		[ -e "$d" ] || continue
		echo "zram: ${d##*/} disksize $(cat "$d/disksize" 2>/dev/null || echo '?')" \
			"comp $(sed -n 's/.*\[\(.*\)\].*/\1/p' "$d/comp_algorithm" 2>/dev/null || :)"
	done
	if [ -r "$r/proc/modules" ]; then
		grep -q '^zram ' "$r/proc/modules" && echo "zram: module loaded"
	fi
	# Memory cgroups: every folder of each memory hierarchy (v1's memory
	# controller, v2's where it has the memory controller), by mount point.
	if [ -r "$r/proc/self/mountinfo" ]; then
		awk '{ for (i = 7; $i != "-"; i++); fs = $(i + 1); opts = "," $(i + 3) ","
		       if ((fs == "cgroup" && opts ~ /,memory,/) || fs == "cgroup2") print fs, $5 }' \
			"$r/proc/self/mountinfo" | while read -r fs mp; do
			[ "$fs" = cgroup2 ] && ! grep -qw memory "$r$mp/cgroup.controllers" 2>/dev/null && continue
			(cd "$r$mp" 2>/dev/null && find . -type d | LC_ALL=C sort | sed "s|^\.|memcg: $mp|")
		done
		# Mounts in this namespace, without their ids: point, type, source, root.
		awk '{ for (i = 7; $i != "-"; i++); print "mount: " $5 " " $(i + 1) " " $(i + 2) " " $4 }' \
			"$r/proc/self/mountinfo"
	fi
	for f in "$r"/proc/sys/vm/*; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		v=$(tr '\n\t' '  ' <"$f" 2>/dev/null | sed 's/ *$//') || continue
		echo "vm.${f##*/}: $v"
	done
	for f in "$r"/sys/module/zswap/parameters/*; do
		[ -f "$f" ] || continue
		echo "zswap.${f##*/}: $(cat "$f" 2>/dev/null)"
	done
}

# compare FILE ROOT: 0 when the state is FILE's, else 1 with the differences.
compare() {
	state "$2" >"$1.now"
	# A memory cgroup that went away is another process's that ended (the
	# suite removes only cgroups it made, which show as added if left): not
	# a change of the suite's.
	diff "$1" "$1.now" | sed -n 's/^< /  - /p; s/^> /  + /p' | grep -v '^  - memcg: ' >"$1.diff" || true
	if [ ! -s "$1.diff" ]; then
		echo "host state: as before the suite ($(wc -l <"$1") items: swap, zram, memory cgroups, mounts, vm sysctls, zswap)"
		rm -f "$1.now" "$1.diff"
		return 0
	fi
	echo "host state: the suite changed the machine (- before, + after):"
	cat "$1.diff"
	return 1
}

# A made-up machine under $1: two swap areas, a zram device, a memcg
# hierarchy with a child, mounts, vm sysctls, zswap.
fake_root() {
	r=$1
	rm -rf "$r"
	mkdir -p "$r/proc/self" "$r/proc/sys/vm" "$r/sys/block/zram0" "$r/sys/module/zswap/parameters" \
		"$r/cg/memory/a/b" "$r/cg/unified/x"
	printf 'Filename\tType\tSize\tUsed\tPriority\n/dev/zram0 partition 1048572 0 100\n/swapfile file 4096 12 -2\n' \
		>"$r/proc/swaps"
	echo 1073741824 >"$r/sys/block/zram0/disksize"
	echo 'lzo [lz4] zstd' >"$r/sys/block/zram0/comp_algorithm"
	echo 'zram 45056 1 - Live 0x0000000000000000' >"$r/proc/modules"
	cat >"$r/proc/self/mountinfo" <<-EOF
		21 26 0:20 / /proc rw,relatime - proc proc rw
		30 26 0:24 / /cg/memory rw,relatime - cgroup cgroup rw,memory
		31 26 0:25 / /cg/unified rw,relatime - cgroup2 cgroup2 rw
		40 26 0:30 / /tmp rw - tmpfs tmpfs rw,size=1024k
	EOF
	echo 'cpu io' >"$r/cg/unified/cgroup.controllers" # no memory controller: not listed
	echo 3 >"$r/proc/sys/vm/page-cluster"
	echo 60 >"$r/proc/sys/vm/swappiness"
	echo N >"$r/sys/module/zswap/parameters/enabled"
	echo lz4 >"$r/sys/module/zswap/parameters/compressor"
}

# selftest WORKDIR: each change is seen, and named.
selftest() {
	w=$1 fails=0
	mkdir -p "$w"
	r=$w/root
	fake_root "$r"
	state "$r" >"$w/before"
	# What the snapshot holds: every kind, the cgroup folders but not v2's without memory.
	for want in 'swap: /dev/zram0 partition 1048572 prio 100' 'swap: /swapfile file 4096 prio -2' \
		'zram: zram0 disksize 1073741824 comp lz4' 'zram: module loaded' 'memcg: /cg/memory/a/b' \
		'mount: /tmp tmpfs tmpfs /' 'vm.page-cluster: 3' 'zswap.enabled: N'; do
		grep -qxF "$want" "$w/before" || { echo "FAIL: the snapshot lacks '$want'"; fails=$((fails + 1)); }
	done
	if grep -q '^memcg: /cg/unified' "$w/before"; then
		echo "FAIL: a v2 hierarchy without the memory controller is listed"
		fails=$((fails + 1))
	fi
	if compare "$w/before" "$r" >"$w/out"; then
		echo "ok: an unchanged machine passes"
	else
		echo "FAIL: an unchanged machine fails: $(cat "$w/out")"
		fails=$((fails + 1))
	fi
	# Another process's memcg that went away meanwhile: not the suite's change.
	rmdir "$r/cg/memory/a/b"
	compare "$w/before" "$r" >"$w/out" || { echo "FAIL: a memcg gone counted as a change"; fails=$((fails + 1)); }
	mkdir "$r/cg/memory/a/b"
	# Swap's Used column moves with use: not a change.
	sed -i 's|/swapfile file 4096 12|/swapfile file 4096 99|' "$r/proc/swaps"
	compare "$w/before" "$r" >"$w/out" || { echo "FAIL: swap use counted as a change"; fails=$((fails + 1)); }
	# Each change: CASE, the command that makes it, the line the report must show.
	while IFS='|' read -r case cmd want; do
		fake_root "$r"
		sh -c "$cmd" sh "$r"
		if compare "$w/before" "$r" >"$w/out"; then
			echo "FAIL: $case: not seen"
			fails=$((fails + 1))
		elif ! grep -qF -- "$want" "$w/out"; then
			echo "FAIL: $case: the report does not name it ('$want'): $(cat "$w/out")"
			fails=$((fails + 1))
		else
			echo "ok: $case: $(grep -F -- "$want" "$w/out" | head -n 1 | sed 's/^ *//')"
		fi
	done <<-'EOF'
		swap left on|printf '/dev/zram1 partition 8 0 5\n' >>"$1/proc/swaps"|+ swap: /dev/zram1 partition 8 prio 5
		swap turned off|sed -i '/swapfile/d' "$1/proc/swaps"|- swap: /swapfile file 4096 prio -2
		zram device added|mkdir "$1/sys/block/zram1"; echo 0 >"$1/sys/block/zram1/disksize"|+ zram: zram1 disksize 0
		zram resized|echo 4096 >"$1/sys/block/zram0/disksize"|+ zram: zram0 disksize 4096 comp lz4
		zram module unloaded|: >"$1/proc/modules"|- zram: module loaded
		memcg left behind|mkdir "$1/cg/memory/swapsim-record.42"|+ memcg: /cg/memory/swapsim-record.42
		mount left|echo '50 26 0:40 / /mnt tmpfs rw - tmpfs tmpfs rw' >>"$1/proc/self/mountinfo"|+ mount: /mnt tmpfs tmpfs /
		page-cluster changed|echo 1 >"$1/proc/sys/vm/page-cluster"|+ vm.page-cluster: 1
		sysctl added|echo 1 >"$1/proc/sys/vm/overcommit_memory"|+ vm.overcommit_memory: 1
		zswap turned on|echo Y >"$1/sys/module/zswap/parameters/enabled"|+ zswap.enabled: Y
	EOF
	rm -rf "$r"
	if [ $fails -eq 0 ]; then
		echo "host state self-test: all cases passed"
	else
		echo "host state self-test: $fails failed"
		return 1
	fi
}

case ${1:-} in
snapshot)
	[ $# -ge 2 ] || { echo "usage: host_state.sh snapshot FILE [ROOT]" >&2; exit 2; }
	state "${3:-/}" >"$2.tmp" && mv "$2.tmp" "$2"
	echo "host state: $(wc -l <"$2") items saved in $2"
	;;
compare)
	[ $# -ge 2 ] || { echo "usage: host_state.sh compare FILE [ROOT]" >&2; exit 2; }
	[ -r "$2" ] || { echo "host state: no snapshot $2 (host_state_before did not run)"; exit 1; }
	compare "$2" "${3:-/}"
	;;
selftest)
	[ $# -ge 2 ] || { echo "usage: host_state.sh selftest WORKDIR" >&2; exit 2; }
	selftest "$2"
	;;
*)
	echo "usage: host_state.sh snapshot|compare FILE [ROOT] | selftest WORKDIR" >&2
	exit 2
	;;
esac
