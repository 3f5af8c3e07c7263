#!/bin/sh
# scripts/deps.sh with stand-ins for dpkg-query and apt-get (nothing is
# installed or fetched): with every package installed it runs no apt-get at
# all (no update: root, the network, seconds); with one missing it updates
# and installs that one only; --record adds perf's packages.
# Usage: deps.sh SCRIPTS-DEPS.SH WORKDIR
set -eu
deps=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work/bin"
# dpkg-query -W -f=FMT PKG: installed unless PKG is in $work/missing.
cat >"$work/bin/dpkg-query" <<EOS
#!/bin/sh
for p; do :; done
grep -qx "\$p" "$work/missing" 2>/dev/null && exit 1
printf 'install ok installed'
EOS
printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt.log"\n' "$work" >"$work/bin/apt-get"
chmod +x "$work/bin/dpkg-query" "$work/bin/apt-get"
run() { # MISSING ARGS...: deps.sh's exit status, apt-get's calls in $work/apt.log
	printf '%s\n' $1 >"$work/missing"
	shift
	: >"$work/apt.log"
	PATH="$work/bin:$PATH" bash "$deps" "$@" >"$work/out" 2>&1
}
run "" || fail "all installed: exit $?: $(cat "$work/out")"
[ ! -s "$work/apt.log" ] && echo "ok: all installed: no apt-get" || fail "all installed: $(cat "$work/apt.log")"
run "jq" || fail "jq missing: exit $?"
if [ "$(sed -n 1p "$work/apt.log")" = "apt-get update -qq" ] &&
	grep -q "^apt-get install -y -qq --no-install-recommends jq$" "$work/apt.log" &&
	[ "$(wc -l <"$work/apt.log")" = 2 ]; then
	echo "ok: jq missing: $(paste -sd';' "$work/apt.log")"
else
	fail "jq missing: $(cat "$work/apt.log")"
fi
run "linux-perf" || fail "--record, perf missing: exit $?"
[ ! -s "$work/apt.log" ] || fail "without --record, perf is not wanted: $(cat "$work/apt.log")"
run "linux-perf" --record || fail "--record: exit $?"
grep -q "^apt-get install .* linux-perf$" "$work/apt.log" && echo "ok: --record: perf installed" ||
	fail "--record: $(cat "$work/apt.log")"
finish "deps"
