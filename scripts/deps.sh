#!/usr/bin/env bash
# Install libswapsim's build and test dependencies (Debian 12, as root).
# gnuplot-nox (gnuplot without X: its pngcairo terminal, the DejaVu fonts it
# draws with), parallel (GNU parallel) and jq are what swapsim-plot and
# swapsim-sweep run on (docs/tools.md); help2man makes the programs' man
# pages from their --help and --version.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential cmake pkg-config \
  liburcu-dev libjemalloc-dev liblz4-dev libzstd-dev libcmocka-dev \
  gnuplot-nox fonts-dejavu-core parallel jq help2man >/dev/null
