#!/bin/sh
# Install the build tree into a scratch prefix, then build and run a consumer
# through find_package(swapsim) (shared and static) and through pkg-config
# (shared, and a static executable from pkg-config --static alone); the
# public headers from C++ (every struct by its bare name); the obsolete C
# names of the calls renamed for C++, which link and warn.
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
pc() { PKG_CONFIG_PATH="$pcdir" pkg-config "$@" swapsim; }
# A static executable with what pkg-config --static names and nothing more
# (jemalloc's static library needs libm: -lm is in Libs.private).
cc -static -o "$work/consumer_pc_static" "$src/tests/install/consumer/main.c" $(pc --cflags) $(pc --libs --static) \
  2>"$work/static.err" || { cat "$work/static.err"; echo "pkg-config --static: the static link failed"; exit 1; }
"$work/consumer_pc_static"
lang=$src/tests/install/lang
c++ -std=c++11 -Wall -Wextra -Werror -o "$work/consumer_cxx" "$lang/cxx.cpp" $(pc --cflags) $(pc --libs)
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/consumer_cxx"
if cc -Werror=deprecated-declarations -c -o "$work/old.o" "$lang/old_names.c" $(pc --cflags) 2>"$work/old.err"; then
  echo "the obsolete names do not warn"; exit 1
fi
grep -q "use sws_device_info_get()" "$work/old.err" || { cat "$work/old.err"; exit 1; }
cc -Wno-deprecated-declarations -o "$work/old_names" "$lang/old_names.c" $(pc --cflags) $(pc --libs)
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/old_names"
