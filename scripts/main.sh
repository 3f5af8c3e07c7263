#!/usr/bin/env bash
# The README's main job: install, build in Release, run the bundled default: the
# comparison a kernel developer runs first, at the size of the swap table
# phase I cover letter: usemem --init-time -O -y -x -n 31 1G in a 4 GiB memcg
# with PMEM swap, on 31 simulated CPUs, on every per-slot design (6.17's
# XArray, swap table phases I to IV, vswap), once each: the modelled clock's
# figures are the same on every run (docs/modelled-time.md), so the designs
# run at once, one per host CPU (--jobs, docs/replay.md). The report gives
# the times and their differences, where each design's time goes (cost
# classes, lock waits), the deterministic work per swapped page, and every
# counter. Extra arguments replace the default replay's options.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target swapsim-replay >/dev/null
if [ $# -gt 0 ]; then
  exec ./build/sim/swapsim-replay "$@"
fi
exec ./build/sim/swapsim-replay --jobs "$(nproc)" --ram 16G --mem-limit 4G --swap size=32G,type=pmem --cpus 31 \
  --compare "$(sh scripts/designs.sh --comma ./build/sim/swapsim-replay)" --quiet \
  --workload usemem --init-time -O -y -x -n 31 1G
