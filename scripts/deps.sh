#!/usr/bin/env bash
# Install libswapsim's build and test dependencies (Debian 12, as root).
# gnuplot-nox (gnuplot without X: its pngcairo terminal, the DejaVu fonts it
# draws with), parallel (GNU parallel) and jq are what swapsim-plot and
# swapsim-sweep run on (docs/tools.md); help2man makes the programs' man
# pages from their --help and --version.
# --record adds what swapsim-record runs on: perf (linux-perf; it brings perl
# and python3), kmod (modprobe, for the zram module), and valgrind and zstd
# for its --accesses.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
extra=()
for a; do
	case $a in
	--record) extra+=(linux-perf kmod util-linux valgrind zstd) ;;
	*) echo "usage: deps.sh [--record]" >&2; exit 2 ;;
	esac
done
pkgs=(build-essential cmake pkg-config liburcu-dev libjemalloc-dev liblz4-dev libzstd-dev libcmocka-dev
  gnuplot-nox fonts-dejavu-core parallel jq help2man "${extra[@]}")
# Everything installed already: nothing to do (no apt-get update: it needs
# root and the network, and takes seconds).
missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	exit 0
fi
echo "deps.sh: installing ${missing[*]}" >&2
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
