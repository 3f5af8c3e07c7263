#!/bin/sh
# Swap tiers: --swap ...,tier=NAME and --memcg-swap-tiers (memory.swap.tiers.max).
# usemem writes 8192 pages in a memcg of 4096: exactly 4096 go out, all to the
# devices of the memcg's tiers whatever their priority, counted per tier in
# every report format; under the vswap designs the mask chooses nothing, with a warning;
# unknown or malformed tiers exit 2 naming the option.
# Usage: swap_tiers.sh SIM-BUILD-DIR
set -u
bin=$1/swapsim-replay
fails=0
fail() { echo "FAIL: $*"; fails=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
devs="--swap size=64M,type=ssd,prio=10,tier=fast --swap size=64M,type=ssd,prio=5,tier=slow"
run() {
	# shellcheck disable=SC2086 # the arguments are words
	"$bin" --quiet --ram 64M --mem-limit 16M $devs "$@" --report counters --workload usemem 32M 2>&1 |
		grep -E '^(errors|mm\.pswpout|tier\.[a-z]+\.swp(out|in)) ' | tr '\n' ' '
}
got=$(run --memcg-swap-tiers slow)
want="errors 0 mm.pswpout 4096 tier.fast.swpout 0 tier.fast.swpin 0 tier.slow.swpout 4096 tier.slow.swpin 0 "
[ "$got" = "$want" ] || fail "limited to slow: got '$got', want '$want'"
got=$(run)
want="errors 0 mm.pswpout 4096 tier.fast.swpout 4096 tier.fast.swpin 0 tier.slow.swpout 0 tier.slow.swpin 0 "
[ "$got" = "$want" ] || fail "every tier: got '$got', want '$want'"
got=$(run --memcg-swap-tiers slow,fast)
[ "$got" = "$want" ] || fail "slow,fast: got '$got', want '$want' (priority order among the allowed)"

# Each task's own memcg (--memcg-per-task) gets the mask too: 2 x 4096 pages out, all to slow.
# shellcheck disable=SC2086
got=$("$bin" --quiet --ram 128M --mem-limit 16M --memcg-per-task $devs --memcg-swap-tiers slow --report counters \
	--workload usemem -n 2 32M 2>&1 | grep -E '^(errors|mm\.pswpout|tier\.[a-z]+\.swpout) ' | tr '\n' ' ')
want="errors 0 mm.pswpout 8192 tier.fast.swpout 0 tier.slow.swpout 8192 "
[ "$got" = "$want" ] || fail "per-task memcgs limited to slow: got '$got', want '$want'"

# Under vswap, vswap-v3 and vswap-st the mask chooses nothing (the virtual device is in every
# tier): the pages go to fast whatever the mask, and stderr warns naming the option and the
# design; st-p1 obeys the mask and has no warning.
warn="warning: --memcg-swap-tiers chooses nothing under"
for d in vswap vswap-v3 vswap-st st-p1; do
	# shellcheck disable=SC2086
	"$bin" --quiet --ram 64M --mem-limit 16M $devs --memcg-swap-tiers slow --backend $d --report counters \
		--workload usemem 32M >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(grep -E '^(errors|tier\.[a-z]+\.swpout) ' "$tmp/out" | tr '\n' ' ')
	if [ $d = st-p1 ]; then
		want="errors 0 tier.fast.swpout 0 tier.slow.swpout 4096 "
		! grep -q -- "$warn" "$tmp/err" || fail "$d: a warning it should not have: $(cat "$tmp/err")"
	else
		want="errors 0 tier.fast.swpout 4096 tier.slow.swpout 0 "
		grep -q -- "$warn $d: its virtual device is in every swap tier" "$tmp/err" ||
			fail "$d: no warning naming --memcg-swap-tiers and $d: '$(cat "$tmp/err")'"
	fi
	if [ $rc != 0 ] || [ "$got" != "$want" ]; then
		fail "$d with --memcg-swap-tiers slow: exit $rc, got '$got', want '$want'"
	fi
done
# shellcheck disable=SC2086 # one warning per design, not per listing
n=$("$bin" --quiet --ram 64M --mem-limit 16M $devs --memcg-swap-tiers slow --compare st-p1,vswap,vswap \
	--report counters --workload usemem 32M 2>&1 >/dev/null | grep -c -- "$warn")
[ "$n" = 1 ] || fail "--compare st-p1,vswap,vswap: $n warnings, want 1 (vswap's)"

# The table's tier section and the JSON keys.
# shellcheck disable=SC2086
out=$("$bin" --quiet --ram 64M --mem-limit 16M $devs --memcg-swap-tiers slow --workload usemem 32M 2>&1)
echo "$out" | grep -Eq '^st-p4 +slow +2 +4096 +0$' || fail "table: no 'slow 2 4096 0' row: $out"
if command -v jq >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	got=$("$bin" --quiet --ram 64M --mem-limit 16M $devs --memcg-swap-tiers slow --report json \
		--workload usemem 32M | jq -c '[.setup.memcg_swap_tiers, [.setup.devices[].tier], .runs[0].repeats[0].swap_tiers]')
	want='[["slow"],["fast","slow"],{"fast":{"swpout":0,"swpin":0},"slow":{"swpout":4096,"swpin":0}}]'
	[ "$got" = "$want" ] || fail "json: got '$got', want '$want'"
fi

# Bad input: exit 2 and a message naming the option.
bad() {
	want=$1
	shift
	msg=$("$bin" --quiet "$@" --workload usemem 1M 2>&1)
	rc=$?
	[ $rc = 2 ] || fail "$*: exit $rc, want 2"
	echo "$msg" | grep -q -- "$want" || fail "$*: message '$msg' does not name $want"
}
bad "--memcg-swap-tiers: 'medium': no --swap device has tier=medium" --mem-limit 16M $devs --memcg-swap-tiers slow,medium
bad "--memcg-swap-tiers: needs a memcg" $devs --memcg-swap-tiers slow
bad "--memcg-swap-tiers: ''" --mem-limit 16M $devs --memcg-swap-tiers ""
bad "--swap: tier=a-b" --swap size=64M,tier=a-b
bad "--swap: tier=" --swap size=64M,tier=
bad "--swap: tier= is for devices with storage" --zswap --swap type=xswap,tier=x
[ $fails = 0 ] && echo "swap tiers: all cases passed"
exit $fails
