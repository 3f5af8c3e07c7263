#!/bin/sh
# cmake --install puts swapsim-plot and swapsim-sweep in PREFIX/bin beside the
# other programs; each installed script stands alone (the figure definitions
# are pasted in): --version prints the project's version, --help its usage,
# and the installed swapsim-plot reads a report.
# Usage: install.sh BUILD-DIR VERSION WORKDIR
set -eu
build=$1 version=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for t in swapsim-plot swapsim-sweep; do
	p=$work/prefix/bin/$t
	[ -x "$p" ] || { fail "$p is not installed"; continue; }
	[ "$("$p" --version)" = "$t $version" ] || fail "$t --version: $("$p" --version)"
	"$p" --help | grep -q "^usage: $t " || fail "$t --help"
	echo "ok: $p: $("$p" --version)"
done
if command -v jq >/dev/null 2>&1; then
	"$build/sim/swapsim-replay" --ram 4M --mem-limit 2M --compare st-p4,xarray --report json --quiet \
		--workload usemem -n 1 3M >"$work/r.json"
	"$work/prefix/bin/swapsim-plot" figures "$work/r.json" | grep -qx work_per_page.swapout.lock_cluster ||
		fail "the installed swapsim-plot does not read a report"
fi
finish "tools install"
