#!/bin/sh
# swapsim-record's refusals, which need nothing of the machine: bad usage and
# sizes that cannot be meant (a bare number below a page, a memcg limit below
# 4M without --force) exit 2 before anything is set up, and no OUTDIR is made.
# Run as root, the cases run as the user nobody (setpriv), so that a refusal
# that stopped working finds no root to record with and fails here instead of
# changing the machine. Usage: record_usage.sh BUILD-SIM-DIR WORKDIR
set -eu
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work"
chmod 0777 "$work"
rec=$bin/swapsim-record
as_user=
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null 2>&1 || { echo "SKIP: root without setpriv (util-linux)"; exit 77; }
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups --"
fi
# refused REGEX ARGS...: exit 2, stderr matches, OUTDIR ($work/outdir) not made.
refused() {
	re=$1
	shift
	expect_fail 2 "$re" $as_user "$rec" "$@"
	[ ! -e "$work/outdir" ] || { fail "$*: made $work/outdir"; rm -rf "$work/outdir"; }
}
refused "^swapsim-record: no COMMAND \\(give it after --\\)" "$work/outdir"
refused "^swapsim-record: --mem-limit: '4Q': expected a size like 64M" --mem-limit 4Q "$work/outdir" -- true
# The issue's slip: 64 for 64M.
refused "^swapsim-record: --mem-limit: '64' is 64 bytes, less than one page: add a unit or p \\(64M, 64K, or 64p" \
	--mem-limit 64 "$work/outdir" -- true
refused "^swapsim-record: --mem-limit: '4095' is 4095 bytes" --mem-limit 4095 "$work/outdir" -- true
refused "^swapsim-record: --zram: '512' is 512 bytes, less than one page" --zram 512 "$work/outdir" -- true
refused "^swapsim-record: --perf-buffer: '16' is 16 bytes" --perf-buffer 16 "$work/outdir" -- true
refused "^swapsim-record: --swap-size: '100' is 100 bytes" --swap "$work/sw" --swap-size 100 "$work/outdir" -- true
refused "^swapsim-record: --mem-limit: '0M': expected a size above 0" --mem-limit 0M "$work/outdir" -- true
# A unit or p, but below 4M: refused unless --force (given before or after).
refused "^swapsim-record: --mem-limit: '64p' is below 4M: .*--force records with it anyway" \
	--mem-limit 64p "$work/outdir" -- true
refused "^swapsim-record: --mem-limit: '4095K' is below 4M" --mem-limit 4095K "$work/outdir" -- true
refused "^swapsim-record: --mem-limit: '4194303' is below 4M" --mem-limit 4194303 "$work/outdir" -- true
# The kernel settings' and the modes' grammar.
refused "^swapsim-record: --thp: 'sometimes': expected always, madvise or never" --thp sometimes "$work/outdir" -- true
refused "^swapsim-record: --mthp: '64K=often': expected SIZE=POLICY" --mthp 64K=often "$work/outdir" -- true
refused "^swapsim-record: --mthp: '64=always': expected SIZE=POLICY" --mthp 16K=never,64=always "$work/outdir" -- true
refused "^swapsim-record: --mem-high: '8' is 8 bytes" --mem-high 8 "$work/outdir" -- true
refused "^swapsim-record: --recover takes no other option, OUTDIR or COMMAND" --recover "$work/outdir" -- true
refused "^swapsim-record: --recover takes no other option" --recover --mem-limit 8M
# Accepted sizes get as far as the machine's checks: here (not root, or
# nobody) "cannot record", exit 1, never 2, and still no OUTDIR.
for args in "--mem-limit 4M" "--mem-limit 1024p" "--mem-limit 4194304" "--mem-limit 64p --force" \
	"--force --mem-limit 64K" "--zram 4096 --perf-buffer 1M" "--no-file-io --accesses --no-vmscan"; do
	set +e
	# shellcheck disable=SC2086
	$as_user "$rec" $args "$work/outdir" -- true >"$work/o" 2>"$work/e"
	st=$?
	set -e
	if [ $st = 1 ] && grep -q "^swapsim-record: cannot record: needs root" "$work/e"; then
		echo "ok: $args: accepted (then: cannot record, not root)"
	else
		fail "$args: exit $st: $(cat "$work/e")"
	fi
	[ ! -e "$work/outdir" ] || { fail "$args: made $work/outdir"; rm -rf "$work/outdir"; }
done
finish "record usage"
