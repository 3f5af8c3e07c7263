#!/bin/sh
# The design experiments of docs/benchmarks.md ("Every design on one input"):
# each runs every per-slot design on one input in one run (swapsim-replay
# --compare, repeats interleaved), and the memory report measures every
# design's metadata for a 32 GiB device. For each experiment the table report
# goes to stdout and OUT/NAME.txt, the JSON one to OUT/NAME.json.
#
# Usage: bench/designs.sh [BUILD_DIR] [OUT_DIR] [--quick]
#   --quick: one repeat, a tenth of the sizes (a smoke run, no figures).
set -eu
build=${1:-build}
out=${2:-bench-designs}
quick=${3:-}
replay="$build/sim/swapsim-replay"
overhead="$build/sim/swapsim-overhead"
designs=$(sh "$(dirname "$0")/../scripts/designs.sh" --comma "$replay") # every design of the registry
mkdir -p "$out"

if [ "$quick" = --quick ]; then
	rep=1 g=100M gb=300M mem=32G_quick size=1G
	soram=200M soswap=400M sows=77M soacc=300000
else
	rep=5 g=1G gb=3G mem=32G size=32G
	soram=2G soswap=4G sows=768M soacc=3000000
fi

# run NAME REPLAY-ARGS...: one comparison, every design, interleaved repeats.
run() {
	name=$1
	shift
	echo "== $name: swapsim-replay $*"
	"$replay" --compare "$designs" --repeat "$rep" --quiet --json-out "$out/$name.json" "$@" |
		tee "$out/$name.txt"
}

# 1. usemem inside a memcg (the swap table phase I cover letter's run,
#    scaled down): pmem-like swap, then SSD (NVMe-like) swap.
run usemem_pmem --ram 4G --mem-limit 2G --swap size=8G,type=pmem \
	--workload usemem --init-time -O -y -x -n 4 "$g"
run usemem_ssd --ram 4G --mem-limit 2G --swap size=8G,type=nvme \
	--workload usemem --init-time -O -y -x -n 4 "$g"
# 2. Fork-heavy: write, fork, the child reads everything while the parent
#    keeps writing (Redis BGSAVE): swapped pages with swap count 2.
run bgsave --ram 2G --swap size=8G,type=nvme --workload bgsave "$gb"
# 3. Sequential memhog on pmem-like swap (the case reported as regressing
#    under vswap: pmem + memhog 48G), scaled down.
run memhog_pmem --ram 2G --swap size=8G,type=pmem --workload memhog "$gb"
# 4. Swapoff of a device that holds pages (try_to_unuse; vswap: through its
#    reverse map): four tasks keep 1.5x RAM mapped, the higher-priority device
#    fills first, then it is swapped off with RAM full (its pages come in,
#    others go out to the second device).
run swapoff --ram "$soram" --swap "size=$soram,type=nvme,prio=5" \
	--swap "size=$soswap,type=nvme,prio=1" --swapoff 1 \
	--workload uniform -n 4 -a "$soacc" --keep "$sows"
# 5. Metadata memory for a 32 GiB device at 0-100% use, dense and random,
#    pages on the device and in zswap.
for placement in dense random; do
	for store in disk zswap; do
		name=memory_${placement}_$store
		echo "== $name: swapsim-overhead --size $size --placement $placement --store $store"
		"$overhead" --size "$size" --placement "$placement" --store "$store" \
			--json-out "$out/$name.json" | tee "$out/$name.txt"
	done
done
echo "== results in $out/ ($mem)"
