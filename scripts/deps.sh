#!/usr/bin/env bash
# Install libswapsim's build and test dependencies (Debian 12, as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential cmake pkg-config \
  liburcu-dev libjemalloc-dev liblz4-dev libzstd-dev libcmocka-dev >/dev/null
