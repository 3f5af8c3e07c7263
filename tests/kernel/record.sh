#!/bin/bash
# record.sh - run a program in a memory-limited memcg with zram swap under
# perf, and read the kernel's swap counters before and after, so that
# swapsim-replay can replay the recording on a machine shaped like this one
# and be compared with the kernel (docs/trace-format.md, "Recording a kernel
# run"). Not run by CI: it needs root, perf, a free /sys/block/zram0 and a
# memory cgroup controller (v2, or v1 as on hybrid hosts).
#
#   tests/kernel/record.sh [OPTIONS] OUTDIR -- PROGRAM [ARGS...]
#
#   --mem SIZE      memcg memory limit (default 64M)
#   --zram SIZE     zram disk size (default 512M)
#   --comp ALG      zram compressor (default lz4)
#   --no-vmscan     do not record the vmscan reclaim events
#
# OUTDIR gets:
#   perf.data       the recording
#   perf.txt        perf script --show-task-events (thread ids, perf's own
#                   FORK/EXIT/COMM lines and the tracepoints)
#   kernel.txt      the counters: /proc/vmstat deltas (pswpin, pswpout,
#                   swap_ra, ...), the memcg's memory.stat, zram's mm_stat,
#                   lost perf events, and the exact commands
#
# Everything it changes is put back on exit (also on an error or Ctrl-C):
# swapoff, zram reset, the memcg removed.
set -euo pipefail

mem=64M zram=512M comp=lz4 vmscan=1
while [ $# -gt 0 ]; do
	case "$1" in
	--mem) mem=$2; shift 2 ;;
	--zram) zram=$2; shift 2 ;;
	--comp) comp=$2; shift 2 ;;
	--no-vmscan) vmscan=0; shift ;;
	--) shift; break ;;
	-*) echo "record.sh: unknown option $1" >&2; exit 2 ;;
	*) out=$1; shift ;;
	esac
done
if [ -z "${out:-}" ] || [ $# -eq 0 ]; then
	sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;/^set -euo/d' >&2
	exit 2
fi
[ "$(id -u)" = 0 ] || { echo "record.sh: needs root" >&2; exit 1; }
command -v perf >/dev/null || { echo "record.sh: perf not found" >&2; exit 1; }
zdev=/sys/block/zram0
[ -e $zdev ] || modprobe zram num_devices=1
[ "$(cat $zdev/disksize)" = 0 ] || { echo "record.sh: zram0 is in use (disksize $(cat $zdev/disksize))" >&2; exit 1; }
if [ "$(tail -n +2 /proc/swaps | wc -l)" != 0 ]; then
	echo "record.sh: other swap is active; pswpin/pswpout are global counters:" >&2
	cat /proc/swaps >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The memory controller: cgroup v2, or v1 on a hybrid host.
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cgv=2 cg=/sys/fs/cgroup/swapsim-record.$$
elif [ -d /sys/fs/cgroup/memory ]; then
	cgv=1 cg=/sys/fs/cgroup/memory/swapsim-record.$$
else
	echo "record.sh: no memory cgroup controller" >&2
	exit 1
fi

swap_on=0
cleanup() {
	set +e
	[ $swap_on = 1 ] && swapoff /dev/zram0
	echo 1 > $zdev/reset
	[ -d "$cg" ] && rmdir "$cg"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "$comp" > $zdev/comp_algorithm
echo "$zram" > $zdev/disksize
mkswap /dev/zram0 >/dev/null
swapon -p 100 /dev/zram0
swap_on=1
mkdir "$cg"
if [ $cgv = 2 ]; then
	echo "$mem" > "$cg/memory.max"
else
	echo "$mem" > "$cg/memory.limit_in_bytes"
fi

events=(-e exceptions:page_fault_user
	-e sched:sched_process_fork -e sched:sched_process_exit -e sched:sched_process_exec
	-e syscalls:sys_enter_mmap -e syscalls:sys_exit_mmap
	-e syscalls:sys_enter_munmap -e syscalls:sys_exit_munmap
	-e syscalls:sys_enter_madvise -e syscalls:sys_exit_madvise)
[ $vmscan = 1 ] && events+=(-e vmscan:mm_vmscan_memcg_reclaim_begin
	-e vmscan:mm_vmscan_memcg_reclaim_end -e vmscan:mm_vmscan_lru_shrink_inactive
	-e vmscan:mm_vmscan_write_folio)

# The swap counters first, then every other /proc/vmstat counter that moved
# (they are global: pgfault and the like also count the rest of the machine).
vm_keys='pswpin pswpout swap_ra swap_ra_hit pgmajfault swpin_zero swpout_zero'
snap() { cat /proc/vmstat; }
snap > "$out/.vm0"
sync
perf_cmd=(perf record -q -m 16M -o "$out/perf.data" "${events[@]}" --
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@")
"${perf_cmd[@]}"
snap > "$out/.vm1"
perf script -i "$out/perf.data" --show-task-events > "$out/perf.txt" 2>/dev/null
lost=$(perf script -i "$out/perf.data" --show-lost-events 2>/dev/null | grep -c PERF_RECORD_LOST || true)

{
	echo "# record.sh: $*"
	echo "# memcg v$cgv limit $mem, zram $zram $comp (swap priority 100), page-cluster $(cat /proc/sys/vm/page-cluster), RAM $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo), kernel $(uname -r), perf $(perf --version | cut -d' ' -f3)"
	echo "# perf:$(printf ' %q' "${perf_cmd[@]}")"
	echo "# perf script -i perf.data --show-task-events > perf.txt"
	echo "# lost perf events: $lost"
	echo "## /proc/vmstat deltas"
	awk -v keys="$vm_keys" 'BEGIN { n = split(keys, k, " ") }
		NR == FNR { v[$1] = $2; next } { d[$1] = $2 - v[$1]; o[++m] = $1 }
		END { for (i = 1; i <= n; i++) print k[i], d[k[i]]
		      for (i = 1; i <= m; i++) if (d[o[i]] != 0 && index(" " keys " ", " " o[i] " ") == 0)
				print o[i], d[o[i]] }' "$out/.vm0" "$out/.vm1"
	echo "## memcg memory.stat"
	cat "$cg/memory.stat"
	echo "## zram mm_stat (orig_data_size compr_data_size mem_used_total mem_limit mem_used_max same_pages pages_compacted huge_pages huge_pages_since)"
	cat $zdev/mm_stat
} > "$out/kernel.txt"
rm -f "$out/.vm0" "$out/.vm1"
sed -n '/vmstat deltas/,/memcg/p' "$out/kernel.txt" | sed '1d;$d' | head -7
echo "record.sh: $out/perf.txt and $out/kernel.txt"
