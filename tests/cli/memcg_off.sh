#!/bin/sh
# --memcg off (cgroup_disable=memory): swapsim-replay and swapsim-overhead run
# every design without memcg ids or tables; the replay refuses the options
# that need a memcg, naming --memcg.
# Usage: memcg_off.sh SIM-BUILD-DIR
set -u
bin=$1
replay=$bin/swapsim-replay overhead=$bin/swapsim-overhead
fails=0
fail() {
	echo "FAIL: $*"
	fails=1
}
for o in "--mem-limit 4M" "--mem-high 4M" "--memcg-per-task --mem-limit 4M"; do
	# shellcheck disable=SC2086 # $o is words
	msg=$("$replay" --memcg off $o --quiet --workload usemem 8M 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && echo "$msg" | grep -q "^swapsim-replay: --memcg: off: no memcgs" ||
		fail "--memcg off $o: exit $rc, '$msg'"
done
msg=$("$replay" --memcg maybe --workload usemem 8M 2>&1 >/dev/null)
[ $? -eq 2 ] && echo "$msg" | grep -q -- "--memcg" || fail "--memcg maybe: '$msg'"
# The replay: xarray's swap_cgroup (2 B a slot of the default device, 2x RAM:
# 8192 slots)
# and st-p4's memcg table (1 KiB a cluster in use) go.
mem() { # MEMCG DESIGN CLASS
	"$replay" --memcg "$1" --backend "$2" --ram 16M --report counters --workload usemem 24M 2>/dev/null |
		sed -n "s/^memory\.$3 //p"
}
[ "$(mem on xarray swap_cgroup)" = 16384 ] || fail "memcg on: xarray swap_cgroup $(mem on xarray swap_cgroup)"
[ "$(mem off xarray swap_cgroup)" = 0 ] || fail "memcg off: xarray swap_cgroup $(mem off xarray swap_cgroup)"
[ "$(mem on st-p4 memcg_table)" -gt 0 ] || fail "memcg on: st-p4 memcg_table $(mem on st-p4 memcg_table)"
[ "$(mem off st-p4 memcg_table)" = 0 ] || fail "memcg off: st-p4 memcg_table $(mem off st-p4 memcg_table)"
got=$("$replay" --memcg off --ram 16M --report json --quiet --workload usemem 24M 2>/dev/null | jq -r '[.. | .memcg? // empty] | .[0]')
[ "$got" = off ] || fail "JSON memcg: '$got'"
# swapsim-overhead at 1G, full: st-p4 512 clusters, 1 KiB memcg table each;
# xarray 2 B a slot of swap_cgroup.
ov() { # MEMCG DESIGN CLASS
	"$overhead" --size 1G --usage 100 --designs "$2" --memcg "$1" --report json | jq ".rows[0].by_class.$3"
}
[ "$(ov on st-p4 memcg_table)" = 524288 ] || fail "overhead on: st-p4 memcg_table $(ov on st-p4 memcg_table)"
[ "$(ov off st-p4 memcg_table)" = 0 ] || fail "overhead off: st-p4 memcg_table $(ov off st-p4 memcg_table)"
[ "$(ov on xarray swap_cgroup)" = 524288 ] || fail "overhead on: xarray swap_cgroup $(ov on xarray swap_cgroup)"
[ "$(ov off xarray swap_cgroup)" = 0 ] || fail "overhead off: xarray swap_cgroup $(ov off xarray swap_cgroup)"
[ "$("$overhead" --size 1G --usage 0 --designs st-p4 --memcg off --report json | jq -r .memcg)" = off ] ||
	fail "overhead JSON memcg"
exit $fails
