#!/bin/sh
# swapsim-plot on small real runs: a JSON report of three designs with
# --repeat 2 (bars with error bars), CSV time series of zswap and of an xswap
# device (lines), each PNG checked by png_check.sh; and a blank image fails
# that check.
# Usage: plot.sh SWAPSIM-PLOT SWAPSIM-REPLAY WORKDIR
set -eu
plot=$1 replay=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start gnuplot jq

"$replay" --ram 4M --mem-limit 2M --repeat 2 --compare st-p4,xarray,vswap --report json --quiet \
	--workload usemem -n 2 -y -x 3M >"$work/designs.json"
"$plot" designs "$work/designs.json" --size 700x420 >"$work/o" || fail "designs plot"
png "$work/designs.png" 700 420
# Several figures of every kind (time, counter, nested, work row), min-max bars.
"$plot" designs "$work/designs.json" -o "$work/six.png" --errors minmax --size 900x500 \
	--figure elapsed_ns,sys_ns,pswpout,peaks.swap_used_pages,memory.dynamic_bytes,work_per_page.swapout.lock_cluster \
	>/dev/null || fail "designs plot of six figures"
png "$work/six.png" 900 500
# Panel titles say what a figure is, that the report's times are simulated (the
# host's measured), and its key; the throughput's axis is MB/s. --script keeps
# the gnuplot script that drew the plot.
"$plot" designs "$work/designs.json" -o "$work/titles.png" --script "$work/titles.gp" --size 900x400 \
	--figure elapsed_ns,throughput_kbs,wall_ns,pswpout >/dev/null || fail "designs plot with --script"
png "$work/titles.png" 900 400
for t in "set title 'Elapsed time, simulated (elapsed_ns)'" "set title 'Sum throughput (usemem), simulated (throughput_kbs)'" \
	"set ylabel 'MB/s'" "set title 'pswpout'"; do
	grep -qxF "$t" "$work/titles.gp" || fail "the plot's script has no line $t: $(grep 'set title' "$work/titles.gp")"
done
grep -q "^set title 'Host wall time, measured" "$work/titles.gp" || fail "wall_ns's title"
grep -qxF "set output '$work/titles.png'" "$work/titles.gp" && ! grep -q "swapsim-plot\.\|titles\.png\." "$work/titles.gp" ||
	fail "--script names a scratch file, not the output: $(grep output "$work/titles.gp")"
echo "ok: panel titles: $(grep -c 'set title' "$work/titles.gp") in the saved script"
# The figures listed are those the plot accepts.
"$plot" figures "$work/designs.json" >"$work/figures"
for f in elapsed_ns sys_ns pgfault pswpout peaks.swap_used_pages memory.dynamic_bytes latency.fault.p99_ns \
	work_per_page.swapout.lock_cluster; do
	grep -qx "$f" "$work/figures" || fail "figures lists no $f"
done

# CSV series: usemem with zswap on two designs (the runs split by backend),
# and memhog on an xswap device (the arena columns).
"$replay" --ram 8M --mem-limit 4M --zswap --compare st-p4,xarray --report csv --interval 500 --quiet \
	--workload usemem -n 2 6M >"$work/zswap.csv"
"$plot" series "$work/zswap.csv" --size 800x400 >/dev/null 2>"$work/err" || fail "series plot: $(cat "$work/err")"
png "$work/zswap.png" 800 400
"$replay" --ram 64M --zswap --swap type=xswap,prio=5 --report csv --interval 2000 --quiet \
	--workload memhog 96M >"$work/xswap.csv"
"$plot" series "$work/xswap.csv" -o "$work/xswap-arena.png" --size 600x400 \
	--columns arena_mapped_bytes+arena_resident_bytes,swap_used_pages/interval >/dev/null ||
	fail "series plot of chosen columns"
png "$work/xswap-arena.png" 600 400
"$plot" series "$work/zswap.csv" -o "$work/fault.png" --columns fault_mean_ns,pswpout/interval --script "$work/fault.gp" \
	>/dev/null 2>&1 || fail "series plot of fault_mean_ns"
grep -qxF "set title 'Fault latency, mean, simulated (fault_mean_ns)'" "$work/fault.gp" &&
	grep -qxF "set title 'pswpout/interval'" "$work/fault.gp" || fail "series titles: $(grep 'set title' "$work/fault.gp")"

# A blank image, and axes with nothing drawn, are not plots.
gnuplot -e "set terminal pngcairo size 300,200; set output '$work/blank.png'; unset border; unset tics; unset key; plot [0:1][0:1] NaN"
if sh "$here/png_check.sh" "$work/blank.png" >"$work/o"; then fail "a blank PNG passed: $(cat "$work/o")"; else echo "ok: $(cat "$work/o")"; fi
gnuplot -e "set terminal pngcairo size 300,200; set output '$work/axes.png'; unset key; plot [0:1][0:1] NaN"
if sh "$here/png_check.sh" "$work/axes.png" >"$work/o"; then fail "axes alone passed: $(cat "$work/o")"; else echo "ok: $(cat "$work/o")"; fi
printf 'not a png' >"$work/text.png"
if sh "$here/png_check.sh" "$work/text.png" >"$work/o"; then fail "a text file passed"; else echo "ok: $(cat "$work/o")"; fi
finish "plots"
