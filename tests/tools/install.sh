#!/bin/sh
# cmake --install puts every program (swapsim-replay, swapsim-trace,
# swapsim-overhead, swapsim-plot, swapsim-sweep, swapsim-record) in PREFIX/bin beside the
# library and headers, with a man page each in PREFIX/share/man/man1 (made by
# help2man: checked where it is installed); each installed script stands
# alone (the figure definitions are pasted in): --version prints the
# project's version, --help its usage, and the installed swapsim-plot reads a
# report of the installed swapsim-replay.
# Usage: install.sh BUILD-DIR VERSION WORKDIR
set -eu
build=$1 version=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for t in swapsim-replay swapsim-trace swapsim-overhead swapsim-plot swapsim-sweep swapsim-record; do
	p=$work/prefix/bin/$t
	[ -x "$p" ] || { fail "$p is not installed"; continue; }
	[ "$("$p" --version)" = "$t $version" ] || fail "$t --version: $("$p" --version)"
	"$p" --help | grep -q "^usage: $t " || fail "$t --help"
	echo "ok: $p: $("$p" --version)"
	if command -v help2man >/dev/null 2>&1; then
		m=$work/prefix/share/man/man1/$t.1
		[ -s "$m" ] || { fail "no man page $m"; continue; }
		grep -qi "^\.TH \"*${t}\"* \"*1\"* .*$t $version" "$m" && grep -q "^\.SH NAME" "$m" ||
			fail "$m: no title with the version, or no NAME section"
		if command -v man >/dev/null 2>&1; then
			MANWIDTH=80 man -l "$m" 2>/dev/null | grep -q -- "--version" || fail "man -l $m does not show the options"
		fi
	fi
done
[ -e "$work/prefix/include/swapsim/swapsim.h" ] || fail "the headers are not installed beside the programs"
if command -v jq >/dev/null 2>&1; then
	"$work/prefix/bin/swapsim-replay" --ram 4M --mem-limit 2M --compare st-p4,xarray --report json --quiet \
		--workload usemem -n 1 3M >"$work/r.json"
	"$work/prefix/bin/swapsim-plot" figures "$work/r.json" | grep -qx work_per_page.swapout.lock_cluster ||
		fail "the installed swapsim-plot does not read a report"
fi
finish "tools install"
