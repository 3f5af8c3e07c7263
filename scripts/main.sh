#!/usr/bin/env bash
# The README's main job: install, build in Release, run the bundled default: the
# comparison a kernel developer runs first. The swap table phase I cover
# letter's usemem (--init-time -O -y -x, PMEM swap, inside a memcg), scaled
# down: 4 tasks x 1 GiB in a 2 GiB memcg on 4 GiB of RAM with 8 GiB of
# pmem-like swap, on every per-slot design (6.17's XArray, swap table phases
# I to IV, vswap), each run 5 times interleaved; the report gives means,
# spreads and differences, the deterministic work per swapped page, and every
# counter. One thread: counters identical across repeats, and across designs
# where their kernels behave alike (docs/designs.md), so the time differences
# are the designs'. Extra arguments replace the default replay's options.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target swapsim-replay >/dev/null
if [ $# -gt 0 ]; then
  exec ./build/sim/swapsim-replay "$@"
fi
exec ./build/sim/swapsim-replay --ram 4G --mem-limit 2G --swap size=8G,type=pmem \
  --compare xarray,st-p1,st-p2,st-p3,st-p4,vswap --repeat 5 --quiet \
  --workload usemem --init-time -O -y -x -n 4 1G
