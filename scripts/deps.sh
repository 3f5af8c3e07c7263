#!/usr/bin/env bash
# Install libswapsim's build and test dependencies (Debian 12, as root).
# gnuplot-nox (gnuplot without X: its pngcairo terminal, the DejaVu fonts it
# draws with), parallel (GNU parallel) and jq are what swapsim-plot and
# swapsim-sweep run on (docs/tools.md); help2man makes the programs' man
# pages from their --help and --version.
# --record adds what swapsim-record runs on: perf (linux-perf; it brings perl
# and python3) and kmod (modprobe, for the zram module).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
extra=()
for a; do
	case $a in
	--record) extra+=(linux-perf kmod util-linux) ;;
	*) echo "usage: deps.sh [--record]" >&2; exit 2 ;;
	esac
done
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential cmake pkg-config \
  liburcu-dev libjemalloc-dev liblz4-dev libzstd-dev libcmocka-dev \
  gnuplot-nox fonts-dejavu-core parallel jq help2man "${extra[@]}" >/dev/null
