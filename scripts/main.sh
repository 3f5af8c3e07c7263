#!/usr/bin/env bash
# The README's main job: install, build in Release, run the bundled default: a
# usemem-style replay that swaps (4 tasks x 256 MiB writing, then reading
# everything again, inside a 512 MiB memcg on 1 GiB of RAM and an SSD), on both
# swap-cache backends, printing usemem's lines and the side-by-side report.
# Extra arguments replace the default replay's options.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
if [ $# -gt 0 ]; then
  exec ./build/sim/swapsim-replay "$@"
fi
exec ./build/sim/swapsim-replay --ram 1G --mem-limit 512M --compare table,xarray \
  --threads "$(nproc)" --workload usemem --init-time -O -y -x -Z -n 4 256M
