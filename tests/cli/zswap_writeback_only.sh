#!/bin/sh
# A RECLAIM record flagged z (memory.reclaim "SIZE zswap_writeback_only") writes
# back exactly SIZE pages of the memcg's zswap pool to the device and reclaims
# nothing else; the same record without the flag is ordinary reclaim.
# Usage: zswap_writeback_only.sh SIM-BUILD-DIR
set -u
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
# 600 pages written in a 256-page memcg (cgroup v1: the pool is not charged),
# then the record, then every page read back.
gen() {
	echo "# swapsim-trace v1"
	i=0
	while [ $i -lt 600 ]; do
		printf '%d 1 1 - access 0x%x 0 w 0\n' $i $((0x100000 + i * 4096))
		i=$((i + 1))
	done
	echo "600 1 1 - reclaim 0x0 100 $1 4294967295"
	i=0
	while [ $i -lt 600 ]; do
		printf '%d 1 1 - access 0x%x 0 - 0\n' $((601 + i)) $((0x100000 + i * 4096))
		i=$((i + 1))
	done
}
run() {
	gen "$1" >"$dir/v1.txt"
	"$bin/swapsim-trace" convert --in "$dir/v1.txt" --out "$dir/t.txt" >/dev/null 2>&1 || echo "FAIL: convert"
	"$bin/swapsim-replay" --trace "$dir/t.txt" --ram 4096p --mem-limit 256p --cgroup v1 --zswap \
		--swap size=16M --verify --report counters 2>&1 | grep -E '^(errors|verify_failures|mm\.(pswpout|zswpwb|zswpwb_proactive)) '
}
got=$(run z | tr '\n' ' ')
want="errors 0 verify_failures 0 mm.pswpout 100 mm.zswpwb 100 mm.zswpwb_proactive 100 "
[ "$got" = "$want" ] || { echo "FAIL: zswap_writeback_only 100: got '$got', want '$want'"; fails=1; }
got=$(run - | tr '\n' ' ')
want="errors 0 verify_failures 0 mm.pswpout 0 mm.zswpwb 0 mm.zswpwb_proactive 0 "
[ "$got" = "$want" ] || { echo "FAIL: plain reclaim 100: got '$got', want '$want'"; fails=1; }
exit $fails
