#!/usr/bin/env bash
# The README's main job: install, build in Release, run the bundled default
# (the cache benchmark comparing both swap-cache backends) and print its table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
./build/bench/swapsim-bench-cache "$@"
