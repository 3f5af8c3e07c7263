#!/bin/sh
# The programs' conventions and the options users tripped on: --version on
# every tool; swapsim-replay's trace reader options (those of swapsim-trace);
# "-" for standard input and output; swapsim-trace head on any trace; the
# hints for a bare --swap size and a fractional size; contradictory options
# refused; the /proc/swaps-like device lines; the CSV's metadata-memory,
# zswap pool and latency columns; a wrong --format (no empty report), the
# --trace - message, a design compared with itself.
# Usage: cli.sh BUILD-SIM-DIR VERSION WORKDIR
set -eu
bin=$1 version=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work"
replay=$bin/swapsim-replay trace=$bin/swapsim-trace

# --version: "NAME VERSION", the project's, exit 0.
for t in swapsim-replay swapsim-trace swapsim-overhead swapsim-plot swapsim-sweep swapsim-record; do
	v=$("$bin/$t" --version) || fail "$t --version exited non-zero"
	[ "$v" = "$t $version" ] || fail "$t --version: '$v', not '$t $version'"
done
echo "ok: --version on the six tools"

# An addr trace of digits without 0x and no task ids; a lackey trace with an
# instruction fetch.
printf '1000 W\n2000 R\n3000 W\n1000 R\n' >"$work/hex.addr"
printf 'I  04000000,3\n L 04001000,4\n S 04002000,4\n' >"$work/lackey.txt"
counters() { "$replay" --quiet --ram 1M --report counters "$@" | grep -E '^(accesses|mm.pgfault) ' | tr '\n' ' '; }
dec=$(counters --trace "$work/hex.addr" --format addr)
hex=$(counters --trace "$work/hex.addr" --format addr --addr-hex)
lk=$(counters --trace "$work/lackey.txt")
noif=$(counters --trace "$work/lackey.txt" --no-ifetch)
# Decimal 1000, 2000, 3000 lie in one page; hex 0x1000.. in three.
case $dec in *"mm.pgfault 1 "*) ;; *) fail "decimal addresses: $dec" ;; esac
case $hex in *"mm.pgfault 3 "*) ;; *) fail "--addr-hex: $hex" ;; esac
case "$lk/$noif" in "accesses 3 "*"/accesses 2 "*) ;; *) fail "--no-ifetch: $lk / $noif" ;; esac
# --pid: the records' task, as swapsim-trace reads it.
"$trace" head "$work/lackey.txt" --pid 42 -n 1 | grep -q '^0 42 42 ' || fail "swapsim-trace --pid"
"$replay" --quiet --ram 1M --report json --trace "$work/lackey.txt" --pid 42 >"$work/pid.json" ||
	fail "swapsim-replay --pid"
# The DAMON intervals: a region accessed in 20 samples of an aggregation is
# 20 records a page, but no more than the aggregation has samples (10 here).
printf 'k 76 [000] 1.000000: damon:damon_aggregated: target_id=0 nr_regions=1 0-65536: 20 0\n' >"$work/damon.txt"
d1=$(counters --trace "$work/damon.txt" | sed -n 's/^accesses \([0-9]*\).*/\1/p')
d2=$(counters --trace "$work/damon.txt" --damon-sample-us 5000 --damon-aggr-us 50000 | sed -n 's/^accesses \([0-9]*\).*/\1/p')
s1=$("$trace" stats "$work/damon.txt" | sed -n 's/^records: *//p')
s2=$("$trace" stats "$work/damon.txt" --damon-sample-us 5000 --damon-aggr-us 50000 | sed -n 's/^records: *//p')
[ "$d1" -gt 0 ] && [ "$d2" -eq $((d1 / 2)) ] && [ "$d1" = "$s1" ] && [ "$d2" = "$s2" ] ||
	fail "DAMON intervals: replay $d1 / $d2 accesses, swapsim-trace $s1 / $s2 records"
echo "ok: reader options: decimal '$dec', --addr-hex '$hex', lackey '$lk', --no-ifetch '$noif', DAMON $d1 -> $d2"

# A lackey stream of two processes (valgrind --trace-children=yes): the reader's
# warning on stderr once, naming the line and both pids, from swapsim-trace and
# from a replay of two backends and two repeats alike; the stream is still read.
printf '==7== Lackey\n S 04000000,8\n==8== Lackey\n S 04001000,8\n==7== \n' >"$work/two.lackey"
"$trace" stats "$work/two.lackey" >/dev/null 2>"$work/two.err" || fail "swapsim-trace stats of two processes"
"$replay" --quiet --ram 1M --compare st-p4,vswap --repeat 2 --trace "$work/two.lackey" >/dev/null 2>>"$work/two.err" ||
	fail "swapsim-replay of two processes"
n=$(grep -c 'two.lackey:3: a line of pid 8 in the lackey stream of pid 7: .*one address space (pid 1)' "$work/two.err")
[ "$n" = 2 ] && [ "$(wc -l <"$work/two.err")" = 2 ] || fail "two processes' warning: $(cat "$work/two.err")"
echo "ok: a lackey stream of two processes warned of once per program"
expect_fail 2 "swapsim-replay: --pid: '0': expected a number" "$replay" --trace "$work/hex.addr" --pid 0
expect_fail 2 "the trace reader options .* read a --trace" "$replay" --no-ifetch --workload memhog 1M

# Standard input and output: --trace -, convert --out -, head on a binary trace.
"$trace" convert --in "$work/hex.addr" --format addr --addr-hex --out "$work/t.swt" --binary --zstd 2>/dev/null
want=$(counters --trace "$work/t.swt")
got=$("$trace" convert --in - --out - --binary <"$work/t.swt" | counters --trace -)
[ "$want" = "$got" ] || fail "--trace - after convert --out - | : '$got', not '$want'"
"$trace" convert --in "$work/t.swt" --out - >"$work/stdout.txt"
"$trace" stats "$work/stdout.txt" | grep -q '^records: *4$' || fail "convert --out - into a file"
printf 'before\n' >"$work/append.txt"
"$trace" convert --in "$work/t.swt" --out - >>"$work/append.txt"
[ "$(head -n 1 "$work/append.txt")" = before ] && [ "$(wc -l <"$work/append.txt")" -eq 8 ] ||
	fail "convert --out - >> FILE: $(cat "$work/append.txt")"
"$trace" head -n 2 "$work/t.swt" >"$work/head.txt"
[ "$(grep -c ' access ' "$work/head.txt")" = 2 ] && grep -q '^end records=2 ' "$work/head.txt" ||
	fail "head -n 2 of a zstd binary trace: $(cat "$work/head.txt")"
"$trace" stats "$work/head.txt" >/dev/null || fail "head's output is not a valid trace"
"$trace" head - <"$work/t.swt" | grep -q '^end records=4 ' || fail "head - (fewer records than 10)"
echo "ok: standard input and output, head"
expect_fail 2 "standard input can be read once" "$replay" --trace - --compare st-p4,xarray
expect_fail 2 "head: prints text to standard output" "$trace" head "$work/t.swt" --binary
expect_fail 2 "head -n: want 1 or more" "$trace" head -n 0 "$work/t.swt"

# Sizes and specs: a bare size for --swap, fractions, contradictions.
expect_fail 2 "--swap: '4G' is a size, not a device spec: write size=4G" "$replay" --swap 4G --workload memhog 1M
expect_fail 2 "--ram: '1.5G': sizes are whole numbers: 1.5G is 1536M" "$replay" --ram 1.5G --workload memhog 1M
expect_fail 2 "size=0.5G: sizes are whole numbers: 0.5G is 512M" "$replay" --swap size=0.5G --workload memhog 1M
expect_fail 2 "usemem: bad size '1.5M': sizes are whole numbers: 1.5M is 1536K" "$replay" --workload usemem 1.5M
expect_fail 2 "--ram: '100K': below the smallest machine, 256K" "$replay" --ram 100K --workload memhog 1M
expect_fail 2 "--backend: 'vswap' contradicts --compare st-p4,xarray given before" \
	"$replay" --compare st-p4,xarray --backend vswap --workload memhog 1M
expect_fail 2 "--compare: 'st-p4,xarray' contradicts --backend vswap given before" \
	"$replay" --backend vswap --compare st-p4,xarray --workload memhog 1M
expect_fail 2 "--ram: '2G' contradicts --ram 1G given before" "$replay" --ram 1G --ram 2G --workload memhog 1M
# The modelled clock's options with the host clock, and bad values of them.
expect_fail 2 "--cpus: is the modelled clock's, and --clock host was given" "$replay" --clock host --cpus 4 --workload memhog 1M
expect_fail 2 "--sync-quantum: is the modelled clock's" "$replay" --sync-quantum 0 --clock host --workload memhog 1M
expect_fail 2 "--clock: 'wall': expected model or host" "$replay" --clock wall --workload memhog 1M
expect_fail 2 "--cpus: '0': expected a number in 1..254" "$replay" --cpus 0 --workload memhog 1M
expect_fail 2 "--costs: /nonexistent/c.txt: No such file or directory" "$replay" --costs /nonexistent/c.txt --workload memhog 1M
printf 'lock 5\nbogus 7\n' >"$work/bad_costs.txt"
expect_fail 2 "--costs: .*bad_costs.txt: line 2: unknown cost class 'bogus'" "$replay" --costs "$work/bad_costs.txt" --workload memhog 1M
"$replay" --quiet --ram 4M --ram 4M --report counters --workload memhog 1M >/dev/null ||
	fail "the same option twice with the same value is refused"

# Several devices: one /proc/swaps-like line each; one device: none.
"$replay" --quiet --ram 4M --swap size=8M,type=pmem --swap size=4M,type=ssd,prio=5 \
	--compare st-p4,xarray --workload usemem 6M >"$work/devices.txt"
grep -A 5 '^-- swap devices' "$work/devices.txt" >"$work/dev" || fail "no device lines"
grep -Eq '^run +Filename +Type +Size +Used +Peak +Priority$' "$work/dev" || fail "device header: $(cat "$work/dev")"
# The ssd has the higher priority: it takes every page, the pmem device none.
grep -Eq '^st-p4 +\(--swap 1, no file\) +pmem +8188 +0 +0 +-1$' "$work/dev" || fail "device 1: $(cat "$work/dev")"
grep -Eq '^xarray +\(--swap 2, no file\) +ssd +4092 +0 +[1-9][0-9]* +5$' "$work/dev" || fail "device 2: $(cat "$work/dev")"
"$replay" --quiet --ram 4M --workload memhog 6M | grep -q '^-- swap devices' && fail "device lines for one device"
echo "ok: device lines: $(sed -n 2p "$work/dev")"

# The CSV's columns: the zswap pool, metadata memory, faults and their latency per interval.
"$replay" --ram 8M --mem-limit 4M --zswap --report csv --interval 2000 --quiet \
	--workload usemem -n 2 6M >"$work/series.csv"
head -n 1 "$work/series.csv" | grep -q ',zswap_pool_bytes,metadata_static_bytes,metadata_dynamic_bytes,fault_count,fault_mean_ns,fault_p99_ns$' ||
	fail "CSV header: $(head -n 1 "$work/series.csv")"
awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
	{ faults += $c["fault_count"]; if ($c["zswap_pool_bytes"] > 0) pool = 1
	  if ($c["metadata_dynamic_bytes"] <= 0 || ($c["fault_count"] > 0 && $c["fault_mean_ns"] <= 0) ||
	      $c["fault_p99_ns"] < $c["fault_mean_ns"] && $c["fault_count"] > 0) bad = NR }
	END { if (bad) { print "row " bad; exit 1 } if (!pool) { print "no pool"; exit 1 } print faults }' \
	"$work/series.csv" >"$work/sum" || fail "CSV columns: $(cat "$work/sum")"
# The per-interval fault counts add up to the run's pgfault.
last_pgfault=$(tail -n 1 "$work/series.csv" | cut -d, -f4)
[ "$(cat "$work/sum")" = "$last_pgfault" ] || fail "fault_count sums to $(cat "$work/sum"), pgfault $last_pgfault"
echo "ok: CSV columns, fault_count sums to pgfault ($last_pgfault)"

# A --format the file is not: the message names the line and the format the
# file reads as, exit 1, and nothing on standard output (no empty report).
set +e
"$replay" --quiet --trace "$work/lackey.txt" --format perf >"$work/fmt.out" 2>"$work/fmt.err"
st=$?
set -e
[ $st = 1 ] && [ ! -s "$work/fmt.out" ] &&
	grep -q "lackey.txt:1: .*(it reads as lackey: give --format lackey, or leave --format out)" "$work/fmt.err" ||
	fail "wrong --format: exit $st, stdout $(wc -c <"$work/fmt.out") bytes: $(cat "$work/fmt.err")"
echo "ok: wrong --format: $(cat "$work/fmt.err")"
# --trace - names what was given: --compare, or --repeat, never a --repeat 1 nobody gave.
expect_fail 2 "one run: no --compare of 2 designs \\(save" "$replay" --trace - --compare st-p4,xarray
grep -q -- "--repeat" "$work/err" && fail "--trace - --compare mentions --repeat: $(cat "$work/err")"
expect_fail 2 "one run: no --repeat 3 \\(save" "$replay" --trace - --repeat 3
# A design listed twice is a control run: its own column, named apart (st-p4#2),
# in the table, the JSON and the usemem lines.
"$replay" --ram 4M --compare xarray,st-p4,xarray --workload usemem 2M >"$work/dup.txt"
grep -Eq '^ +xarray +st-p4 +xarray#2$' "$work/dup.txt" && grep -q '^== xarray#2$' "$work/dup.txt" ||
	fail "--compare xarray,st-p4,xarray: $(grep -E 'xarray' "$work/dup.txt" | head -n 3)"
"$replay" --quiet --ram 4M --compare xarray,xarray --report json --workload memhog 1M |
	grep -q '"label":"xarray",.*"label":"xarray#2"' || fail "--compare xarray,xarray: JSON labels"
echo "ok: --compare xarray,st-p4,xarray: columns xarray, st-p4, xarray#2"
finish "cli"
