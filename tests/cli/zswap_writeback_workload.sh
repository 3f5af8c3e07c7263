#!/bin/sh
# The workloads' proactive zswap writeback (--zswap-writeback SIZE
# [--zswap-writeback-every N], usemem and memhog): between passes, after every
# N-th, the task asks memory.reclaim "SIZE zswap_writeback_only" of its memcg.
# usemem -r 3 of 600 pages in a 256-page memcg (cgroup v1: the pool is not
# charged) keeps over 100 pages in zswap after each pass, so each request
# writes back exactly 100 pages: 2 requests (after passes 1 and 2; none after
# the last), or 1 with -every 2; every page read back intact.
# Usage: zswap_writeback_workload.sh SIM-BUILD-DIR
set -u
bin=$1/swapsim-replay
fails=0
run() {
	"$bin" --quiet --ram 4096p --mem-limit 256p --cgroup v1 --zswap --swap size=16M --verify --report counters \
		--workload "$@" 2>&1 | grep -E '^(errors|verify_failures|mm\.(pswpout|zswpwb|zswpwb_proactive)) ' | tr '\n' ' '
}
check() {
	want=$1
	shift
	got=$(run "$@")
	[ "$got" = "$want" ] || { echo "FAIL: $*: got '$got', want '$want'"; fails=1; }
}
check "errors 0 verify_failures 0 mm.pswpout 200 mm.zswpwb 200 mm.zswpwb_proactive 200 " \
	usemem -r 3 --zswap-writeback 100p 600p
check "errors 0 verify_failures 0 mm.pswpout 100 mm.zswpwb 100 mm.zswpwb_proactive 100 " \
	usemem -r 3 --zswap-writeback 400K --zswap-writeback-every 2 600p
check "errors 0 verify_failures 0 mm.pswpout 0 mm.zswpwb 0 mm.zswpwb_proactive 0 " usemem -r 3 600p
check "errors 0 verify_failures 0 mm.pswpout 200 mm.zswpwb 200 mm.zswpwb_proactive 200 " \
	memhog -r 3 --zswap-writeback 100p 600p
# Only usemem and memhog make passes: another workload refuses the option (exit 2).
msg=$("$bin" --quiet --workload zipf --zswap-writeback 1M 1M 2>&1)
rc=$?
[ $rc = 2 ] && echo "$msg" | grep -q -- "zipf: unknown option '--zswap-writeback'" ||
	{ echo "FAIL: zipf --zswap-writeback: exit $rc, '$msg'"; fails=1; }
[ $fails = 0 ] && echo "zswap writeback workload: all cases passed"
exit $fails
