#!/usr/bin/env bash
# The README's main job: install, build in Release, run the bundled default: the
# comparison a kernel developer runs first. The swap table phase I cover
# letter's usemem (--init-time -O -y -x, PMEM swap, inside a memcg), scaled
# down: 4 tasks x 1 GiB in a 2 GiB memcg on 4 GiB of RAM with 8 GiB of
# pmem-like swap, on the swap table and on the XArray baseline, each run 5
# times interleaved; the report gives means, spreads and differences, the
# deterministic work per swapped page, and every counter. One thread:
# counters identical across repeats and designs, so the time differences are
# the designs'. Extra arguments replace the default replay's options.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target swapsim-replay >/dev/null
if [ $# -gt 0 ]; then
  exec ./build/sim/swapsim-replay "$@"
fi
exec ./build/sim/swapsim-replay --ram 4G --mem-limit 2G --swap size=8G,type=pmem \
  --compare table,xarray --repeat 5 --quiet \
  --workload usemem --init-time -O -y -x -n 4 1G
