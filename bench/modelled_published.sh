#!/bin/sh
# What the modelled clock says, untuned, for the published results the
# designs' authors gave (docs/benchmarks.md, "Against the published figures"):
#   p1    swap table phase I's cover letter: usemem --init-time -O -y -x -n 31 1G
#         in a 4 GiB memcg on PMEM, 6.17 (xarray) against phase I (st-p1), 31 CPUs;
#   p4    phase IV's: usemem --init-time -O -y -x -n 48 1G on 32 CPUs, 16 GiB of
#         RAM, 48 GiB of brd (pmem), no memcg: phase III against phase IV;
#   vswap the vswap overhead thread's free latency: usemem -n 1 under global
#         pressure (8 GiB on 4 GiB of RAM, pmem), swap table phase III against
#         vswap-v3 (the version measured) and vswap (v6), on 2 CPUs (the task
#         and kswapd).
# Each prints the table's simulated section and the verdicts; JSON reports go
# to OUT/NAME.json.
# Usage: modelled_published.sh BUILD-DIR OUT [p1|p4|vswap ...]
set -eu
build=$1 out=$2
shift 2
[ $# -gt 0 ] || set -- p1 p4 vswap
mkdir -p "$out"
replay=$build/sim/swapsim-replay
for case in "$@"; do
	case $case in
	p1) args="--ram 16G --mem-limit 4G --swap size=32G,type=pmem --cpus 31 --compare xarray,st-p1
		--workload usemem --init-time -O -y -x -n 31 1G" ;;
	p4) args="--ram 16G --swap size=48G,type=pmem --cpus 32 --compare st-p3,st-p4
		--workload usemem --init-time -O -y -x -n 48 1G" ;;
	vswap) args="--ram 4G --swap size=16G,type=pmem --cpus 2 --compare st-p3,vswap-v3,vswap
		--workload usemem --init-time -O -y -x -n 1 8G" ;;
	*) echo "modelled_published.sh: unknown case '$case' (p1, p4, vswap)" >&2; exit 2 ;;
	esac
	echo "== $case: swapsim-replay $args" | tr -s ' \t\n' ' '
	echo
	# shellcheck disable=SC2086 # the arguments are words
	"$replay" --quiet --json-out "$out/$case.json" $args |
		sed -n '/^-- simulated time/,/^-- modelled CPU time/p; /^verdict/p'
done
