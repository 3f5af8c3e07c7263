#!/bin/sh
# --report mmtests and --report lkp against samples of the real layouts
# (tests/data/report-formats): one checker per layout, which the published
# sample must pass (so that the checker holds the real layout's rules), then
# our output, then a broken copy of ours must fail (so that the checker can
# fail). Then the figures: our mmtests and lkp numbers against the same run's
# JSON report. Usage: report_formats.sh SWAPSIM-REPLAY SAMPLES-DIR WORKDIR
set -eu
replay=$1 samples=$2 work=$3
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
rm -rf "$work" && mkdir -p "$work"
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed (bash scripts/deps.sh)"; exit 77; }

# mmtests' compare-kernels: statistic rows "STAT KEY value (   0.00%) value ( x.xx%)...",
# the first column the baseline at 0.00%, a significant difference as "* x.xx%*" on the
# mean rows only, every row of a block as long as the others (fixed-width fields; a
# difference wider than its 7 characters, -1328.97%, pushes the rest of its row right,
# in mmtests too);
# Duration rows and Ops rows: a name and one value a column, fixed width.
mmtests_check() { # FILE: exit 0, or 1 naming the first bad line
	awk '
	function bad(why) { printf "%s:%d: %s: %s\n", FILENAME, NR, why, $0; err = 1; exit 1 }
	function num(s) { return s ~ /^-?[0-9]+\.[0-9]+$/ || s == "NaN" }
	BEGIN { num_re = "(-?[0-9]+\\.[0-9]+|NaN)" }
	/^(Min|Max|Amean|Hmean|Stddev|HStddev|CoeffVar|HCoeffVar|BAmean-[0-9]+) / {
		stats++
		line = $0
		# STAT KEY, then the baseline: value (   0.00%)
		if (!match(line, "^[A-Za-z0-9-]+ +[^ ]+ +" num_re " \\((   0\\.00|    NaN)%\\)"))
			bad("not a statistic row with its baseline at 0.00%")
		if (!base_col) base_col = index(line, "(")
		else if (index(line, "(") != base_col) bad("the baseline is not in the column of the rows above")
		rest = substr(line, RLENGTH + 1)
		cols = 1
		over = 0
		while (rest != "") {
			if (!match(rest, "^ +" num_re " [(*] *(-?[0-9]+\\.[0-9][0-9]|NaN)%[)*]"))
				bad("not a \"value ( x.xx%)\" column")
			cell = substr(rest, 1, RLENGTH)
			pct = cell
			sub(/^ +[^ ]+ [(*] */, "", pct)
			sub(/%[)*]$/, "", pct)
			if (length(pct) > 7) over += length(pct) - 7
			if (cell ~ /\*/ && $1 !~ /mean$/) bad("a significance mark off the mean row")
			if (cell ~ /\*/ && cell !~ /\* *-?[0-9.]+%\*$/) bad("an unbalanced significance mark")
			rest = substr(rest, RLENGTH + 1)
			cols++
		}
		if (!width) { width = length(line) - over; ncols = cols }
		else if (length(line) - over != width || cols != ncols) bad("a row of another width than the block")
		next
	}
	/^Duration (User|System|Elapsed) / {
		durs++
		if (!match($0, "^Duration (User|System|Elapsed) +[0-9]+\\.[0-9][0-9]( +[0-9]+\\.[0-9][0-9])*$")) bad("not a Duration row")
		if (!dwidth) dwidth = length($0)
		else if (length($0) != dwidth) bad("a Duration row of another width")
		next
	}
	/^Ops / {
		ops++
		if (!match($0, "^Ops [^ ].* +-?[0-9]+\\.[0-9][0-9]( +-?[0-9]+\\.[0-9][0-9])*$")) bad("not an Ops row")
		if (!owidth) owidth = length($0)
		else if (length($0) != owidth) bad("an Ops row of another width")
		next
	}
	/^$/ { width = 0; base_col = 0; next }
	END {
		if (err) exit 1
		if (!stats || !durs || !ops) { printf "%s: statistic rows %d, Duration rows %d, Ops rows %d\n", FILENAME, stats, durs, ops; exit 1 }
	}' "$1"
}

# lkp's compare: the "%stddev %change %stddev" header, then rows of fixed-width
# fields: value (10) and " ±NN%" or blanks (6), per other column a change
# "%+10.1f% " (or an absolute change, or %.2g beyond 100000%) and its value and
# spread, then two spaces and the figure's name. Widths are in characters: the
# two bytes of "±" are one ("~") for awk.
lkp_check() { # FILE
	sed 's/±/~/g' "$1" | awk -v FILE="$1" '
	function bad(why) { printf "%s:%d: %s: %s\n", FILE, NR, why, $0; err = 1; exit 1 }
	function value(s) { return s ~ /^ *-?[0-9][0-9.e+]*$/ && length(s) == 10 }
	function spread(s) { return s ~ /^ ~[ 0-9][ 0-9][0-9]%$/ || s == "      " }
	function change(s) { return length(s) == 12 && s ~ /^ *[+-][0-9][0-9.e+]*(%| ) $/ }
	/^ +%stddev( +%change +%stddev)*$/ { hdr = NR; n = gsub(/%change/, "&"); next }
	hdr && NR == hdr + 1 {
		if ($0 !~ /^ +\\  ( +\| +\\  )*$/) bad("not the second header line")
		next
	}
	hdr && NR > hdr + 1 && $0 != "" {
		rows++
		if (!value(substr($0, 1, 10)) || !spread(substr($0, 11, 6))) bad("not a first column")
		at = 17
		for (c = 0; c < n; c++) {
			if (!change(substr($0, at, 12)) || !value(substr($0, at + 12, 10)) || !spread(substr($0, at + 22, 6)))
				bad("not a \"%change value ±%\" column")
			at += 28
		}
		if (substr($0, at, 2) != "  " || substr($0, at + 2, 1) == " " || length($0) < at + 3) bad("no name after the columns")
		next
	}
	hdr && $0 == "" { hdr = 0 }
	END {
		if (err) exit 1
		if (!rows) { printf "%s: no rows under a %%stddev header\n", FILE; exit 1 }
	}'
}

# The checkers hold the real layouts' rules.
mmtests_check "$samples/mmtests-compare-kernels.txt" && echo "ok: the mmtests sample passes the mmtests checker" ||
	fail "the mmtests sample fails the checker"
lkp_check "$samples/lkp-compare.txt" && echo "ok: the lkp sample passes the lkp checker" ||
	fail "the lkp sample fails the checker"

# Our output, three designs, three repeats each.
set -- --ram 8M --mem-limit 4M --swap size=16M,type=pmem --compare xarray,st-p1,vswap --repeat 3 --quiet
wl="usemem --init-time -O -y -x -n 2 3M"
"$replay" "$@" --report mmtests --json-out "$work/run.json" --workload $wl >"$work/mmtests.txt" ||
	fail "--report mmtests exited $?"
"$replay" "$@" --report lkp --workload $wl >"$work/lkp.txt" || fail "--report lkp exited $?"
mmtests_check "$work/mmtests.txt" && echo "ok: --report mmtests passes the mmtests checker" ||
	fail "--report mmtests fails the checker"
lkp_check "$work/lkp.txt" && echo "ok: --report lkp passes the lkp checker" || fail "--report lkp fails the checker"
cat "$work/mmtests.txt" "$work/lkp.txt"

# The checkers can fail: a column shifted by one, a mark on a Stddev row, a spread of 7 characters.
sed '0,/^Amean /s/^Amean  /Amean   /' "$work/mmtests.txt" >"$work/bad1.txt"
sed '0,/^Stddev .*( /s/^\(Stddev .*\) ( \([ 0-9.-]*%\))$/\1 *\2*/' "$work/mmtests.txt" >"$work/bad2.txt"
sed '/proc-vmstat.pswpout$/s/^\(.\{16\}\)/\1 /' "$work/lkp.txt" >"$work/bad3.txt"
for b in bad1 bad2; do
	if cmp -s "$work/$b.txt" "$work/mmtests.txt" || mmtests_check "$work/$b.txt" >/dev/null; then
		fail "the mmtests checker passes a broken copy ($b)"
	fi
done
if cmp -s "$work/bad3.txt" "$work/lkp.txt" || lkp_check "$work/bad3.txt" >/dev/null; then
	fail "the lkp checker passes a broken copy"
fi

# The figures are the run's: mmtests' Duration Elapsed is the repeats' simulated
# elapsed time summed, its Ops Swap Outs their pswpout summed (the whole
# benchmark's, as mmtests reads vmstat around it); lkp's proc-vmstat.pswpout
# the repeats' mean, its time.elapsed_time the mean in s.
tasks=2
for i in 0 1 2; do
	label=$(jq -r ".runs[$i].label" "$work/run.json")
	want=$(jq -r "[.runs[$i].repeats[].elapsed_ns] | add / 1e9 * 100 | round / 100" "$work/run.json")
	got=$(awk '/^Duration Elapsed/ { print $(3 + '"$i"') }' "$work/mmtests.txt")
	awk -v a="$got" -v b="$want" 'BEGIN { exit !(a - b < 0.006 && b - a < 0.006) }' ||
		fail "$label: Duration Elapsed $got, the JSON's sum $want"
	swo=$(jq -r "[.runs[$i].repeats[].counters.pswpout] | add" "$work/run.json")
	got=$(awk '/^Ops Swap Outs/ { print $(4 + '"$i"') }' "$work/mmtests.txt")
	awk -v a="$got" -v b="$swo" 'BEGIN { exit !(a == b) }' || fail "$label: Ops Swap Outs $got, pswpout $swo"
	mean=$(jq -r ".runs[$i].summary.elapsed_ns.mean / 1e9" "$work/run.json")
	amean=$(awk -v k="elsp-$tasks" '$1 == "Amean" && $2 == k { print $(3 + 3 * '"$i"') }' "$work/mmtests.txt")
	awk -v a="$amean" -v b="$mean" 'BEGIN { exit !(a - b < 0.0001 && b - a < 0.0001) }' ||
		fail "$label: Amean elsp-$tasks $amean, the JSON's mean $mean"
done
lkp_swo=$(awk '$NF == "proc-vmstat.pswpout" { print $1 }' "$work/lkp.txt")
awk -v a="$lkp_swo" -v b="$(jq -r '[.runs[0].repeats[].counters.pswpout] | add / length' "$work/run.json")" \
	'BEGIN { exit !(a == b && b > 0) }' || fail "lkp proc-vmstat.pswpout $lkp_swo"
grep -q '^usemem$' "$work/mmtests.txt" && grep -Eq '^ +xarray +st-p1 +vswap$' "$work/mmtests.txt" ||
	fail "mmtests: the benchmark line or the header"
grep -q '^  usemem/RAM 8M, memcg 4M' "$work/lkp.txt" && grep -q '^design: $' "$work/lkp.txt" ||
	fail "lkp: the group header"
[ $fails -eq 0 ] && echo "report formats: all cases passed"
