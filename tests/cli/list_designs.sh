#!/bin/sh
# swapsim-replay --list-designs: every design's name, one a line, for scripts.
# The names are the registry's lines (SWS_DESIGN_LIST) in their order, none
# twice; each is one --backend takes, the list is the one --help gives (the
# same registry walk), and a name not listed is refused;
# swapsim-overhead's default --designs and its messages are the same list.
# Usage: list_designs.sh SWAPSIM-REPLAY
set -eu
replay=$1
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
list=$("$replay" --list-designs) || fail "--list-designs exits $?"
n=$(printf '%s\n' "$list" | grep -c .)
[ "$(printf '%s\n' "$list" | sort -u | wc -l)" -eq "$n" ] || fail "a design listed twice: $list"
# The registry's own lines (SWS_DESIGN_LIST in include/swapsim/sim.h, read
# by scripts/designs.sh when given no binary), in their order.
registry=$(sh "$(dirname "$0")/../../scripts/designs.sh") || fail "scripts/designs.sh exits $?"
[ "$list" = "$registry" ] || fail "--list-designs '$list' is not the registry's '$registry'"
for d in $list; do
	# --help after the option stops the run: exit 0 when the value was taken
	"$replay" --backend "$d" --help >/dev/null 2>&1 || fail "--backend $d (a listed name) is refused"
done
# --help's --backend line names the same designs in the same order.
help=$("$replay" --help | sed -n '/^  --backend /{N;p;}' | tr '\n' ' ')
want=$(printf '%s\n' "$list" | awk '{ s = s (NR > 1 ? (NR == n ? " or " : ", ") : "") $0 } END { print s }' n="$n")
case $help in *"one of $want"*) ;; *) fail "--help's design list '$help' is not --list-designs' '$want'" ;; esac
# A name that is not a design: exit 2, the message points to --list-designs.
if msg=$("$replay" --backend no-such-design --help 2>&1 >/dev/null); then
	fail "--backend no-such-design accepted"
fi
case $msg in *"'no-such-design': expected "*"(--list-designs)"*) ;; *) fail "--backend no-such-design: $msg" ;; esac
# swapsim-overhead (beside it): --designs' default is every design in that
# order (its help and its JSON rows), and a bad name's message lists them.
overhead=$(dirname "$replay")/swapsim-overhead
commas=$(printf '%s\n' "$list" | paste -sd, -)
"$overhead" --help | grep -qF -- "designs (default $commas)" || fail "swapsim-overhead --help: no 'designs (default $commas)'"
rows=$("$overhead" --size 64K --usage 100 --report json | grep -o '"design":"[^"]*"' | cut -d'"' -f4 | paste -sd, -)
[ "$rows" = "$commas" ] || fail "swapsim-overhead's default designs '$rows', not '$commas'"
if msg=$("$overhead" --size 64K --designs st-p4,no-such-design 2>&1 >/dev/null); then
	fail "swapsim-overhead --designs no-such-design accepted"
fi
case $msg in *"--designs: 'no-such-design': expected $want"*) ;; *) fail "swapsim-overhead --designs no-such-design: $msg" ;; esac
# Nothing else on standard output, and a full one is an error.
if "$replay" --list-designs >/dev/full 2>/dev/null; then fail "--list-designs into /dev/full exits 0"; fi
[ "$fails" -eq 0 ] && echo "list designs: all cases passed"
