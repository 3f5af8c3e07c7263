#!/bin/sh
# Install the build tree into a scratch prefix, then build and run a consumer
# through find_package(swapsim) (shared and static) and through pkg-config.
set -eu
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/consumer/consumer_shared"
"$work/consumer/consumer_static"
pcdir=$(dirname "$(find "$work/prefix" -name swapsim.pc)")
cc -o "$work/consumer_pc" "$src/tests/install/consumer/main.c" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs --static swapsim)
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/consumer_pc"
