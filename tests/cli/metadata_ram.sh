#!/bin/sh
# --metadata-ram on|off: by default (on) the design's swap metadata and the
# zswap pool take pages of --ram, reported as mm.kernel_swap_pages; off, RAM
# holds user pages alone and the line is left out. In a memcg-limited run
# (no global pressure) the same pages go out either way and free memory
# differs by exactly the kernel's pages. A bad value is refused (exit 2),
# naming the option.
# Usage: metadata_ram.sh SIM-BUILD-DIR
set -u
replay=$1/swapsim-replay
fails=0
fail() {
	echo "FAIL: $*"
	fails=1
}
run() { # [--metadata-ram on|off]: the counters
	"$replay" --quiet "$@" --ram 64M --mem-limit 8M --zswap --swap size=64M --report counters \
		--workload usemem -n 2 12M 2>&1
}
get() { printf '%s\n' "$1" | sed -n "s/^$2 //p"; }
def=$(run) on=$(run --metadata-ram on) off=$(run --metadata-ram off)
[ "$def" = "$on" ] || fail "the default is not --metadata-ram on"
k=$(get "$on" mm.kernel_swap_pages)
[ -n "$k" ] && [ "$k" -gt 0 ] || fail "--metadata-ram on: mm.kernel_swap_pages '$k', want > 0"
[ -z "$(get "$off" mm.kernel_swap_pages)" ] || fail "--metadata-ram off reports mm.kernel_swap_pages"
p=$(get "$on" mm.pswpout) z=$(get "$on" mm.zswpout)
[ -n "$p" ] && [ $((p + z)) -gt 0 ] || fail "--metadata-ram on: nothing swapped out (pswpout '$p', zswpout '$z')"
[ "$(get "$off" mm.pswpout)" = "$p" ] && [ "$(get "$off" mm.zswpout)" = "$z" ] ||
	fail "--metadata-ram off swaps out other pages: pswpout $(get "$off" mm.pswpout), zswpout $(get "$off" mm.zswpout)"
fon=$(get "$on" mm.free_pages) foff=$(get "$off" mm.free_pages)
[ -n "$fon" ] && [ "$((fon + k))" = "$foff" ] || fail "free pages: on $fon + kernel $k, off $foff"
msg=$("$replay" --metadata-ram maybe --workload usemem 8M 2>&1 >/dev/null)
[ $? -eq 2 ] && echo "$msg" | grep -q -- "--metadata-ram" || fail "--metadata-ram maybe: '$msg'"
[ "$fails" -eq 0 ] && echo "metadata ram: all cases passed"
exit $fails
