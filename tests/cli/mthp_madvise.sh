#!/bin/sh
# mTHP "madvise" and "inherit" (--mthp, --thp) on tests/data/mthp_madvise.swt:
# 256 KiB mapped, MADV_HUGEPAGE on its first 128 KiB, MADV_NOHUGEPAGE on its
# last 64 KiB, one write in each of the three parts. The pages each policy
# allocates, by hand: none enabled 1 + 1 + 1; 64K madvise 16 + 1 + 1; 64K
# always 16 + 16 + 1 (NOHUGEPAGE holds whatever the policy); 16K always with
# 64K madvise 16 + 4 + 1. Then --check of the mTHP recording with its 64 KiB
# size set madvise, and inherit under THP madvise and always.
# Usage: mthp_madvise.sh SWAPSIM-REPLAY DATA-DIR WORKDIR
set -eu
replay=$1 data=$(cd "$2" && pwd) work=$3
here=$(cd "$(dirname "$0")/../tools" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work"
t=$data/mthp_madvise.swt

alloc() { # OPTIONS...: the run's pgalloc
	"$replay" --trace "$t" --report counters "$@" | awk '$1 == "mm.pgalloc" { print $2 }'
}
for c in "3|" "18|--mthp 64K=madvise" "18|--mthp 64K=inherit --thp madvise" "33|--mthp 64K=inherit --thp always" \
	"33|--mthp 64K=always" "3|--mthp 64K=inherit" "3|--mthp 64K=inherit --thp never" \
	"21|--mthp 16K=always,64K=madvise" "3|--mthp 64K=madvise,64K=never"; do
	want=${c%%|*} opts=${c#*|}
	# shellcheck disable=SC2086
	got=$(alloc $opts)
	[ "$got" = "$want" ] || fail "$opts: pgalloc $got, want $want"
done
"$replay" --trace "$t" --mthp 16K=always,64K=madvise --quiet >"$work/table"
grep -q '^machine: .*, mTHP 16K, mTHP madvise 64K, ' "$work/table" || fail "machine line: $(grep ^machine "$work/table")"
"$replay" --trace "$t" --mthp 64K=madvise --report json --quiet | jq -e '.setup.mthp_kb == [] and
	.setup.mthp_madvise_kb == [64]' >/dev/null || fail "the JSON setup's mthp_madvise_kb"
expect_fail 2 "--mthp: '64K=sometimes': expected SIZE=always\\|madvise\\|inherit\\|never" "$replay" --trace "$t" --mthp 64K=sometimes
expect_fail 2 "--thp" "$replay" --trace "$t" --thp sometimes
echo "ok: --mthp madvise and inherit, --thp"

# --check: a size "madvise" replays as madvise (usemem madvises nothing: no
# 64 KiB swap-out), "inherit" as the top-level policy.
m=$data/usemem64_mthp_kernel.txt
mkdir -p "$work/mad" "$work/inh"
ln -sf "$data/usemem64_mthp_perf.txt.zst" "$work/mad/"
ln -sf "$data/usemem64_mthp_perf.txt.zst" "$work/inh/"
sed 's/^mthp\.64kB\.enabled always$/mthp.64kB.enabled madvise/' "$m" >"$work/mad/kernel.txt"
"$replay" --check "$work/mad" >"$work/mad.table" || fail "--check madvise exited $?"
grep -Eq '^replayed as .* --mthp 64K=madvise,2048K=madvise ' "$work/mad.table" ||
	fail "madvise: $(grep '^replayed as' "$work/mad.table")"
awk '$1 == "64kB.swpout" { n++; if ($4 != 0) bad = 1 } END { exit bad || n != 1 }' "$work/mad.table" ||
	fail "madvise: $(grep ^64kB "$work/mad.table")"
sed -e 's/^mthp\.64kB\.enabled always$/mthp.64kB.enabled inherit/' -e 's/^thp\.enabled madvise$/thp.enabled always/' \
	-e 's/^mthp\.2048kB\.enabled inherit$/mthp.2048kB.enabled never/' "$m" >"$work/inh/kernel.txt"
"$replay" --check "$work/inh" >"$work/inh.table" || fail "--check inherit exited $?"
grep -Eq '^replayed as .* --mthp 64K=always ' "$work/inh.table" || fail "inherit: $(grep '^replayed as' "$work/inh.table")"
echo "ok: --check maps madvise and inherit"
finish "mthp madvise"
