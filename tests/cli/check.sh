#!/bin/sh
# swapsim-replay --check on the committed recording (tests/data/bgsave32_*,
# swapsim-record --mem-limit 16M --zram 128M -- bgsave 32 on Linux 6.18): the
# recorded machine is replayed (16 MiB memcg, 128 MiB zram, page-cluster 3,
# st-p1 for 6.18), the table has its header lines and rows, pswpin,
# pswpout, swap_ra and pgmajfault come within 5% of the kernel's (as
# test_kernel_recording has them), the JSON says the same, the command it
# prints as "replayed as" gives the same figures, a folder reads as its
# kernel.txt does, options override the recording, and each kernel version
# gets its design.
# Usage: check.sh SWAPSIM-REPLAY DATA-DIR WORKDIR
set -eu
replay=$1 data=$(cd "$2" && pwd) work=$3
here=$(cd "$(dirname "$0")/../tools" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work"
rec=$data/bgsave32_kernel.txt

"$replay" --check "$rec" >"$work/table" 2>"$work/err" || fail "--check exited $?: $(cat "$work/err")"
cat "$work/table"
for re in "^recording +$rec\$" "^trace +$data/bgsave32_perf.txt.zst\$" \
	"^kernel +Linux 6\\.18\\.44-fc-v669, 2 CPUs, RAM 24684084 kB, cgroup v1\$" \
	"^machine +memcg limit 16 MiB; swap /dev/zram0 zram 128 MiB prio 100; page-cluster 3; zswap off\$" \
	"^design +st-p1, the design of Linux 6\\.18 " \
	"^replayed as +swapsim-replay --trace [^ ]*bgsave32_perf.txt.zst --ram 24684084K --mem-limit 16M --swap size=128M,type=zram,prio=100 --page-cluster 3 --cpus 2 --backend st-p1 --order trace --allow-errors\$" \
	"^counter +source +kernel +simulator +diff\$" \
	"^pswpin +vmstat +12345 +[0-9]+ +[-+][0-9.]+%\$" "^pgmajfault +memcg +5174 " "^pgfault +memcg +24728 "; do
	grep -Eq -- "$re" "$work/table" || fail "the table has no line matching '$re'"
done
# Every record replays: the mmaps placed next to the loader's pages too.
! grep -q '^errors' "$work/table" || fail "records refused: $(grep '^errors' "$work/table")"
# Within 5% of the kernel's, and the difference as printed.
awk '$1 ~ /^(pswpin|pswpout|swap_ra|pgmajfault)$/ {
	n++; d = ($4 - $3) * 100 / $3; shown = $5; sub(/%$/, "", shown)
	if (d > 5 || d < -5) { print "FAIL: " $1 ": " $4 " against the kernel'"'"'s " $3 " (" d "%)"; bad = 1 }
	if (sprintf("%+.1f", d) != shown) { print "FAIL: " $1 ": diff " $5 ", computed " d; bad = 1 }
	} END { if (n != 4) { print "FAIL: " n " of the 4 rows"; bad = 1 } exit bad }' "$work/table" ||
	fail "figures out of tolerance"
echo "ok: the table's shape, and pswpin, pswpout, swap_ra, pgmajfault within 5%"

# The equivalent command gives the same simulator figures.
cmd=$(sed -n 's/^replayed as *swapsim-replay //p' "$work/table")
# shellcheck disable=SC2086 # the printed command is words without quoting
"$replay" $cmd --report counters >"$work/counters" 2>/dev/null || fail "the 'replayed as' command failed"
for c in pswpin pswpout swap_ra pgmajfault; do
	want=$(awk -v c=$c '$1 == c { print $4 }' "$work/table")
	got=$(awk -v c="mm.$c" '$1 == c { print $2 }' "$work/counters")
	[ "$want" = "$got" ] || fail "$c: --check $want, the replayed-as command $got"
done
echo "ok: the replayed-as command gives the same figures"

# JSON: the same rows, the setup, the replay's own report.
"$replay" --check "$rec" --report json >"$work/json" || fail "--check --report json exited $?"
grep -Eq '^\{"swapsim_check":\{"recording":"[^"]*bgsave32_kernel.txt","trace":"[^"]*bgsave32_perf.txt.zst","accesses":false,"setup":\{"command":"/tmp/pl/bgsave 32",.*"memcg_limit_bytes":16777216,.*"design":"st-p1",.*"errors":0,"first_error":"","counters":\[\{"name":"pswpin","source":"vmstat","kernel":12345,"simulator":[0-9]+,"diff_pct":-?[0-9.]+\},.*\]\},"report":\{"version":.*"runs":\[\{.*\}\]\}\}$' "$work/json" ||
	fail "the JSON's shape: $(head -c 400 "$work/json")"
if command -v jq >/dev/null 2>&1; then
	jq -e '.swapsim_check.counters | map(select(.name == "pswpout"))[0] |
		.kernel == 12378 and (.diff_pct | fabs) <= 5' "$work/json" >/dev/null || fail "jq: pswpout's row"
	[ "$(jq -r '.report.runs[0].backend' "$work/json")" = st-p1 ] || fail "jq: the report's design"
fi
"$replay" --check "$rec" --json-out "$work/out.json" >/dev/null || fail "--json-out"
# (the comparison alike; the report's measured times differ from run to run)
[ "$(sed 's/,"report":.*//' "$work/json")" = "$(sed 's/,"report":.*//' "$work/out.json")" ] ||
	fail "--json-out differs from --report json"
echo "ok: JSON"

# A folder: kernel.txt and the trace it names.
mkdir "$work/dir"
cp "$rec" "$work/dir/kernel.txt"
cp "$data/bgsave32_perf.txt.zst" "$work/dir/"
"$replay" --check "$work/dir" >"$work/dir.table" || fail "--check DIR exited $?"
[ "$(sed -n '/^counter/,$p' "$work/table")" = "$(sed -n '/^counter/,$p' "$work/dir.table")" ] ||
	fail "--check DIR compares differently"
grep -q "^recording *$work/dir/kernel.txt\$" "$work/dir.table" || fail "--check DIR: the recording line"

# Options override the recording.
"$replay" --check "$rec" --backend xarray --mem-limit 32M >"$work/over" || fail "--check --backend exited $?"
grep -q '^design *xarray (--backend); the kernel.s: st-p1' "$work/over" || fail "--backend: $(grep ^design "$work/over")"
grep -Eq '^replayed as .* --allow-errors --backend xarray --mem-limit 32M$' "$work/over" ||
	fail "overrides: $(grep '^replayed as' "$work/over")"
grep -q -- '--mem-limit 16M' "$work/over" && fail "--mem-limit 32M did not replace the recorded 16M"
echo "ok: a folder, and overrides"

# The design of the kernel's version (--ram 64M: the memcg decides, and it is quicker).
for kd in 6.1.0-13-amd64:xarray 6.17.9:xarray 6.18.2:st-p1 6.19.0-rc3:st-p1 7.0.1:st-p2 7.1.0:st-p3 \
	7.2.0:st-p4 8.0.0:st-p4 custom:st-p4; do
	mkdir -p "$work/k"
	sed "s/^kernel .*/kernel ${kd%%:*}/" "$rec" >"$work/k/kernel.txt"
	ln -sf "$(cd "$data" && pwd)/bgsave32_perf.txt.zst" "$work/k/"
	"$replay" --check "$work/k" --ram 64M >"$work/k.table" || fail "kernel ${kd%%:*}: exit $?"
	grep -q "^design *${kd#*:}, " "$work/k.table" && grep -q -- "--backend ${kd#*:} " "$work/k.table" ||
		fail "kernel ${kd%%:*}: $(grep '^design' "$work/k.table"), not ${kd#*:}"
done
echo "ok: the design of each kernel version"

# Time: the recording's CPU time and duration against the modelled ones, the
# difference computed from the printed figures; not recorded: n/a.
grep -Eq '^system time \(s\) +model +n/a +[0-9]+\.[0-9]{6} +n/a$' "$work/table" ||
	fail "no CPU time recorded: $(grep '^system time' "$work/table")"
grep -Eq '^elapsed time \(s\) +model +n/a +[0-9]+\.[0-9]{6} +n/a$' "$work/table" ||
	fail "the elapsed row: $(grep '^elapsed time' "$work/table")"
mkdir -p "$work/t"
sed 's/^## setup$/## setup\nduration_s 2.000\ncpu_user_us 250000\ncpu_system_us 1000000/' "$rec" >"$work/t/kernel.txt"
ln -sf "$data/bgsave32_perf.txt.zst" "$work/t/"
"$replay" --check "$work/t" >"$work/t.table" || fail "--check with CPU time: exit $?"
awk '$1 == "system" || $1 == "user" || $1 == "elapsed" {
	want = $1 == "system" ? 1 : $1 == "user" ? 0.25 : 2
	if ($5 + 0 != want) { print "FAIL: " $1 ": kernel " $5 ", recorded " want; bad = 1 }
	if (sprintf("%+.1f%%", ($6 / want - 1) * 100) != $7) { print "FAIL: " $1 ": diff " $7; bad = 1 }
	n++ } END { exit bad || n != 3 }' "$work/t.table" || fail "the time rows: $(grep -A4 '^time' "$work/t.table")"
"$replay" --check "$work/t" --report json | jq -e '.swapsim_check.clock == "model" and
	(.swapsim_check.times | map(select(.name == "system time (s)"))[0].kernel_s == 1)' >/dev/null ||
	fail "the JSON's times"
echo "ok: CPU and elapsed time, kernel against the model"

# 64 KiB anon mTHP (tests/data/usemem64_mthp_*: swapsim-record --mem-limit 32M
# --zram 128M --mthp 64K=always -- usemem 64M on Linux 6.18): the policy from
# the setup, the per-size counter beside the model's order-4 swap-outs, the
# swap-outs within 10% (the model with 4 KiB folios gave -40%).
m=$data/usemem64_mthp_kernel.txt
"$replay" --check "$m" >"$work/mthp" || fail "--check mTHP exited $?"
grep -Eq '^machine .*; mTHP 64 KiB; mTHP madvise 2 MiB; zswap off$' "$work/mthp" || fail "mTHP: $(grep ^machine "$work/mthp")"
grep -Eq '^replayed as .* --mthp 64K=always,2048K=madvise ' "$work/mthp" || fail "mTHP: $(grep '^replayed as' "$work/mthp")"
awk '$1 ~ /^(pswpout|64kB\.swpout)$/ { n++; d = ($4 - $3) * 100 / $3; if (d > 10 || d < -10) bad = 1 }
	END { exit bad || n != 2 }' "$work/mthp" || fail "mTHP: $(grep -E '^(pswpout|64kB)' "$work/mthp")"
"$replay" --check "$m" --mthp 64K=never >"$work/nomthp" || fail "--check --mthp 64K=never exited $?"
awk '$1 == "64kB.swpout" { exit !($4 == 0) }' "$work/nomthp" || fail "--mthp 64K=never: $(grep ^64kB "$work/nomthp")"
awk '$1 == "64kB.anon_fault_fallback_charge" { n++; if ($3 != 258 || $4 < 1) bad = 1 } END { exit bad || n != 1 }' \
	"$work/mthp" || fail "mTHP: $(grep '^64kB.anon_fault' "$work/mthp")"
# Without the trace's reclaim records (usemem64_mthp_norec_perf.txt.zst: the
# trace less its vmscan: lines) the model reclaims on its own: a 64 KiB charge
# at the memcg limit may not reclaim (defrag "madvise"), falls back to 4 KiB
# pages, and their charges reclaim: the fallbacks within 10% of the kernel's
# (its 258 all at the limit), the swap-outs within 5%.
"$replay" --check "$m" --trace "$data/usemem64_mthp_norec_perf.txt.zst" >"$work/mthp_norec" ||
	fail "--check own reclaim exited $?"
awk '$1 ~ /^64kB\.(anon_fault_fallback_charge|swpout)$/ { n++; d = ($4 - $3) * 100 / $3
	if (d > ($1 ~ /swpout/ ? 5 : 10) || d < ($1 ~ /swpout/ ? -5 : -10)) bad = 1 }
	END { exit bad || n != 2 }' "$work/mthp_norec" || fail "mTHP, own reclaim: $(grep '^64kB' "$work/mthp_norec")"
# the replayed-as command reports the same per-order counts (its table rows and JSON)
cmd=$(sed -n 's/^replayed as *swapsim-replay //p' "$work/mthp_norec")
# shellcheck disable=SC2086 # the printed command is words without quoting
"$replay" $cmd >"$work/mthp_norec.run" 2>/dev/null || fail "mTHP: the replayed-as command failed"
# shellcheck disable=SC2086
"$replay" $cmd --report json >"$work/mthp_norec.json" 2>/dev/null || fail "mTHP: the replayed-as command's JSON failed"
for c in anon_fault_alloc anon_fault_fallback anon_fault_fallback_charge; do
	want=$(awk -v c="64kB.$c" '$1 == c { print $4 }' "$work/mthp_norec")
	got=$(awk -v c="$c[4]" '$1 == c { print $2 }' "$work/mthp_norec.run")
	json=$(jq ".runs[0].repeats[0].order_counters.$c[4]" "$work/mthp_norec.json")
	[ -n "$want" ] && [ "$want" = "$got" ] && [ "$want" = "$json" ] ||
		fail "64kB.$c: --check '$want', the replay's row '$got', its JSON '$json'"
done
echo "ok: mTHP from the recording, its swap-outs within 10%; large-folio charge fallbacks"

# thp.defrag from the setup: "always" lets a 64 KiB charge reclaim (once, outside
# MADV_HUGEPAGE), so nothing falls back; a bad --thp-defrag is refused by name.
sed -e 's/^thp.defrag madvise$/thp.defrag always/' -e "s|^trace usemem64|trace $data/usemem64|" "$m" >"$work/always.txt"
"$replay" --check "$work/always.txt" >"$work/always" || fail "--check thp.defrag always exited $?"
grep -Eq '^machine .*; THP defrag always; zswap off$' "$work/always" || fail "defrag: $(grep ^machine "$work/always")"
grep -Eq '^replayed as .* --thp-defrag always ' "$work/always" || fail "defrag: $(grep '^replayed as' "$work/always")"
awk '$1 == "64kB.anon_fault_fallback_charge" { exit !($4 == 0) }' "$work/always" ||
	fail "defrag always: $(grep '^64kB.anon' "$work/always")"
"$replay" --check "$m" --thp-defrag sometimes >/dev/null 2>"$work/defrag.err" && fail "--thp-defrag sometimes accepted"
grep -q -- "--thp-defrag: 'sometimes': expected always, defer, defer+madvise, madvise or never" "$work/defrag.err" ||
	fail "--thp-defrag sometimes: $(cat "$work/defrag.err")"
echo "ok: thp.defrag from the recording (--thp-defrag)"

# sort of a file larger than its memcg (tests/data/sort25_*: swapsim-record
# --mem-limit 2M --force --zram 64M -- env LC_ALL=C sort --parallel=1 -o /dev/null
# sort25.txt, 2.45 MiB of base64 cached before the run, on Linux 6.18): its read(2)
# as FILE records and kernel-mode faults, the reclaim split by LRU type; swap-ins,
# swap-outs and major faults within 10% (-4.4%, -1.1%, -4.4% when recorded).
s=$data/sort25_kernel.txt
"$replay" --check "$s" >"$work/sort" || fail "--check sort25 exited $?"
awk '$1 ~ /^(pswpin|pswpout|pgmajfault)$/ { n++; d = ($4 - $3) * 100 / $3; if (d > 10 || d < -10) bad = 1 }
	END { exit bad || n != 3 }' "$work/sort" || fail "sort25: $(grep -E '^(pswp|pgmaj)' "$work/sort")"
echo "ok: sort of a file larger than its memcg within 10%"

# sort of 16 MiB, its input uncached, in a 26M memcg (tests/data/sort16_*:
# swapsim-record --mem-limit 26M --zram 128M -- sort -o /dev/null sort16.txt on
# Linux 6.18, the input dropped from the page cache first): the trace has
# writeback_dirty_folio, so --check replays it with --dirty-events and sort's
# 3,960 writes to /dev/null are no page cache; the input's read fills the
# memcg's page cache. Swap-outs and page cache reclaim within 10% (+0.0%, −7.0%
# when measured); without --dirty-events the writes are page cache and the
# model swaps out more (+22.0% when measured).
u=$data/sort16_kernel.txt
"$replay" --check "$u" >"$work/sort16" || fail "--check sort16 exited $?"
grep -q '^replayed as .* --dirty-events ' "$work/sort16" || fail "sort16: $(grep '^replayed as' "$work/sort16")"
awk '$1 ~ /^(pswpout|pgsteal_file)$/ { n++; d = ($4 - $3) * 100 / $3; if (d > 10 || d < -10) bad = 1 }
	END { exit bad || n != 2 }' "$work/sort16" || fail "sort16: $(grep -E '^(pswpout|pgsteal_file)' "$work/sort16")"
"$replay" --check "$u" --trace "$data/sort16_perf.txt.zst" >/dev/null || fail "sort16 --trace exited $?"
grep '^replayed as' "$work/sort16" | sed 's/^replayed as *//; s/ --dirty-events / /' >"$work/sort16.cmd"
eval "$(sed "s|^swapsim-replay|\"$replay\"|" "$work/sort16.cmd") --report counters" >"$work/sort16.nodirty" ||
	fail "sort16 without --dirty-events exited $?"
awk -v k="$(awk '$1 == "pswpout" { print $3 }' "$work/sort16")" \
	'$1 == "mm.pswpout" { f = 1; bad = !($2 > k * 1.15) } END { exit !f || bad }' \
	"$work/sort16.nodirty" || fail "sort16 without --dirty-events: $(grep '^pswpout' "$work/sort16.nodirty")"
echo "ok: an uncached sort's page cache; its writes to /dev/null are none"

# The same command recorded with kmem:mm_page_alloc (tests/data/sort16v_*): the
# folios reclaim wrote out are tied to the faults that allocated them, so the
# replay reclaims those pages (1,461 named) and the read's page cache is
# charged before the reclaim it caused. sort's two threads run in the
# recorded order (--order trace) and the memcg follows each reclaim's begin.
# Swap-ins 753 of the kernel's 753 with the allocation lines when measured
# (swap-outs +1.1%, page cache reclaim +0.1%).
v=$data/sort16v_kernel.txt
"$replay" --check "$v" >"$work/sort16v" || fail "--check sort16v exited $?"
zstd -dcq "$data/sort16v_perf.txt.zst" | grep -v kmem:mm_page_alloc >"$work/sort16v_noalloc.txt"
"$replay" --check "$v" --trace "$work/sort16v_noalloc.txt" >"$work/sort16v.noalloc" || fail "--check sort16v --trace exited $?"
awk '$1 ~ /^(pswpin|pswpout|pgsteal_file)$/ { n++; d = ($4 - $3) * 100 / $3; if (d > 2 || d < -2) bad = 1 }
	END { exit bad || n != 3 }' "$work/sort16v" ||
	fail "sort16v: $(grep -E '^(pswpin|pswpout|pgsteal_file)' "$work/sort16v")"
# sort's two threads in the recorded order: in each CPU's own order (--order
# cpu) the other thread's reclaim records meet a different memcg
sed -n 's/^replayed as *swapsim-replay //p' "$work/sort16v" | sed 's/ --order trace / --order cpu /' >"$work/sort16v.cmd"
eval "\"$replay\" $(cat "$work/sort16v.cmd") --report counters" >"$work/sort16v.cpu" || fail "sort16v --order cpu exited $?"
awk -v k="$(awk '$1 == "pswpin" { print $3 }' "$work/sort16v")" \
	'$1 == "mm.pswpin" { f = 1; bad = !($2 < k * 0.9) } END { exit !f || bad }' "$work/sort16v.cpu" ||
	fail "sort16v --order cpu: $(grep '^mm.pswpin' "$work/sort16v.cpu")"
awk -v w="$(awk '$1 == "pswpin" { print $4 }' "$work/sort16v.noalloc")" \
	'$1 == "pswpin" { f = 1; bad = !($4 >= 100 && $4 > 3 * w) } END { exit !f || bad }' "$work/sort16v" ||
	fail "sort16v: named victims: pswpin $(grep '^pswpin' "$work/sort16v"), without: $(grep '^pswpin' "$work/sort16v.noalloc")"
echo "ok: the victims the kernel's reclaim wrote out are the replay's"

# bgsave of 64 MiB with 64K mTHP "always" in a 32M memcg, recorded with the folio
# allocations (tests/data/bgsave64_mthp_*: swapsim-record --mem-limit 32M --zram 128M
# --mthp 64K=always -- sws_kernel_bgsave 64): each fault's ACCESS carries the order of the
# folio the kernel allocated and whether a 64 KiB charge fell back first, so the model
# maps 64 KiB folios where the kernel did. Swap, its 64 KiB swap-outs and charge
# fallbacks within 5% (+0.2%, +0.8%, -2.8%, +2.8%, +1.5% when measured); without the
# folio orders (the same trace less its kmem: lines) the fallbacks are far fewer.
bm=$data/bgsave64_mthp_kernel.txt
"$replay" --check "$bm" >"$work/bgm" || fail "--check bgsave64_mthp exited $?"
awk '$1 ~ /^(pswpin|pswpout|pgmajfault|64kB.swpout|64kB.anon_fault_fallback_charge)$/ {
	n++; d = ($4 - $3) * 100 / $3; if (d > 5 || d < -5) bad = 1 }
	END { exit bad || n != 5 }' "$work/bgm" ||
	fail "bgsave64_mthp: $(grep -E '^(pswp|pgmaj|64kB)' "$work/bgm")"
zstd -dcq "$data/bgsave64_mthp_perf.txt.zst" | grep -v kmem:mm_page_alloc >"$work/bgm_noalloc.txt"
"$replay" --check "$bm" --trace "$work/bgm_noalloc.txt" >"$work/bgm.noalloc" || fail "--check bgsave64_mthp --trace exited $?"
awk '$1 == "64kB.anon_fault_fallback_charge" { f = 1; bad = !($4 < $3 / 2) } END { exit !f || bad }' \
	"$work/bgm.noalloc" || fail "bgsave64_mthp without allocations: $(grep '^64kB.anon_fault_fallback_charge' "$work/bgm.noalloc")"
echo "ok: mTHP faults follow the kernel's folios: 64 KiB swap-outs and fallbacks within 5%"

# A RECLAIM record is memory.reclaim unless flagged c (a kernel trace's memcg
# reclaim: the reclaim of the charge before it, which what the memcg's charges
# reclaimed on their own counts first). 1,000 pages written in a 1M memcg,
# then a record of 100 pages: 100 more swapped out plain, none flagged c.
for f in - c; do
	printf '# swapsim-trace v1\n1 1 1 - access 0x10000000 4096000 w 0\n2 1 1 - reclaim 0x0 100 %s 4294967295\n' "$f" >"$work/rec$f.swt"
	"$replay" --trace "$work/rec$f.swt" --mem-limit 1M --swap size=64M --report counters 2>/dev/null |
		awk '$1 == "mm.pswpout" { print $2 }' >"$work/rec$f.out"
done
[ "$(cat "$work/rec-.out")" = "$(($(cat "$work/recc.out") + 100))" ] ||
	fail "reclaim records: plain $(cat "$work/rec-.out"), flagged c $(cat "$work/recc.out")"
echo "ok: a reclaim record is memory.reclaim, one flagged c the charge's"

# --check --trace FILE: that trace, the recorded one not needed.
mkdir -p "$work/alone"
cp "$m" "$work/alone/kernel.txt"
"$replay" --check "$work/alone" --trace "$data/usemem64_mthp_perf.txt.zst" >"$work/alone.table" 2>"$work/alone.err" ||
	fail "--check --trace without the recorded trace: exit $?: $(cat "$work/alone.err")"
grep -q "^trace *$data/usemem64_mthp_perf.txt.zst\$" "$work/alone.table" || fail "--check --trace: $(grep ^trace "$work/alone.table")"
[ "$(sed -n '/^counter/,$p' "$work/mthp")" = "$(sed -n '/^counter/,$p' "$work/alone.table")" ] ||
	fail "--check --trace compares differently"
echo "ok: --check --trace"

# tests/data/check_accesses (written by hand): perf.txt writes 50 pages and reads
# an 8 MiB file in a 4 MiB memcg; its access stream stores 100 pages and loads
# each 9 times. The perf trace: 50 faults, the model's reclaim takes page cache
# (pgsteal_anon, the model's pgsteal less its pgsteal_file, stays 0). --accesses:
# the stream's 1000 accesses, 100 faults (the loads hit), no page cache.
a=$data/check_accesses
"$replay" --check "$a" >"$work/acc.perf" || fail "--check check_accesses exited $?"
awk '$1 == "pgfault" && $4 == 50 { f = 1 } $1 == "pgsteal_file" && $4 > 1000 { s = 1 } $1 == "pgsteal_anon" { a = 1 }
	END { exit !(f && s && !a) }' "$work/acc.perf" || fail "check_accesses, perf trace: $(sed -n '/^counter/,$p' "$work/acc.perf")"
"$replay" --check "$a" --accesses >"$work/acc.lackey" || fail "--check --accesses exited $?"
grep -q "^trace *$a/accesses.lackey.zst (every access, valgrind lackey)\$" "$work/acc.lackey" ||
	fail "--accesses: $(grep ^trace "$work/acc.lackey")"
awk '$1 == "pgfault" && $3 == 100 && $4 == 100 { f = 1 } $1 == "pgsteal_file" && $4 == 0 { s = 1 } END { exit !(f && s) }' \
	"$work/acc.lackey" || fail "--accesses: $(sed -n '/^counter/,$p' "$work/acc.lackey")"
"$replay" --check "$a" --accesses --report json | jq -e '.swapsim_check.accesses == true and
	.report.runs[0].repeats[0].accesses == 1000' >/dev/null || fail "--accesses: the JSON"
grep '^replayed as' "$work/acc.lackey" | sed 's/^replayed as *//' >"$work/acc.cmd"
eval "$(sed "s|^swapsim-replay|\"$replay\"|" "$work/acc.cmd") --report counters" | awk '$1 == "accesses" { exit $2 != 1000 }' ||
	fail "--accesses: the replayed-as command"
echo "ok: --check --accesses"

# tests/data/hotcold (swapsim-record --mem-limit 8M --zram 64M --accesses -- hotcold on
# Linux 6.18): its reads of resident pages are in the access stream only. From the
# stream, pswpin, pswpout and pgmajfault within 5% of the kernel's; from the perf
# trace the model swaps other pages out than the kernel did and misses a fifth of
# the swap-ins (-28% when recorded).
h=$data/hotcold
"$replay" --check "$h" --accesses >"$work/hc.acc" || fail "--check hotcold --accesses exited $?"
awk '$1 ~ /^(pswpin|pswpout|pgmajfault)$/ { n++; d = ($4 - $3) * 100 / $3; if (d > 5 || d < -5) bad = 1 }
	END { exit bad || n != 3 }' "$work/hc.acc" || fail "hotcold --accesses: $(grep -E '^(pswp|pgmaj)' "$work/hc.acc")"
# The stream tells reads from writes: a first read maps the zero page (--read-fault
# zero) unless the command line says otherwise.
grep -q '^replayed as .* --read-fault zero --order trace --allow-errors$' "$work/hc.acc" ||
	fail "--accesses: not replayed with --read-fault zero: $(grep '^replayed as' "$work/hc.acc")"
"$replay" --check "$h" --accesses --read-fault data >"$work/hc.data" || fail "--accesses --read-fault data exited $?"
grep '^replayed as' "$work/hc.data" | grep -q -- '--read-fault zero' && fail "--read-fault data overridden"
[ "$(awk '$1 == "pgfault" { print $4 }' "$work/hc.acc")" != "$(awk '$1 == "pgfault" { print $4 }' "$work/hc.data")" ] ||
	fail "--read-fault data and zero gave the same pgfault"
"$replay" --check "$h" >"$work/hc.perf" || fail "--check hotcold exited $?"
awk '$1 == "pswpin" { exit !(($4 - $3) * 100 / $3 < -20) }' "$work/hc.perf" ||
	fail "hotcold, perf trace: $(grep -E '^pswpin' "$work/hc.perf")"
echo "ok: a real access stream: the references a fault trace cannot see"
finish "check"
