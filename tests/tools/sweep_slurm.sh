#!/bin/sh
# swapsim-sweep --slurm: the job-array script of the points not done, checked
# by bash -n and by reading it (array size, limit, CPUs, output, #SBATCH
# options passed through, the points and the command), then run as Slurm
# would run its tasks (SLURM_ARRAY_TASK_ID = 0 .. size-1, here one after the
# other with bash), and the results collected. No Slurm is needed; with
# SWS_TEST_SLURM=1 the script is also submitted to the machine's Slurm.
# Usage: sweep_slurm.sh SWAPSIM-SWEEP SWAPSIM-REPLAY WORKDIR
set -eu
sweep=$1 replay=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
start jq
out=$work/sw
grid() {
	"$sweep" --out "$out" --replay "$replay" --no-plot --grid threads=1,2 --grid backend=st-p4,xarray,vswap "$@" \
		-- --ram 4M --mem-limit 2M --workload usemem -n 2 3M
}
grid --slurm "$work/job.sh" -j 2 --sbatch-args "--partition=short --time=00:10:00" >"$work/log"
cat "$work/log"
bash -n "$work/job.sh" || fail "job.sh: bash -n"
s=$work/job.sh
grep -qx '#SBATCH --array=0-5%2' "$s" || fail "array of 6 tasks, 2 at a time: $(grep array "$s")"
grep -qx '#SBATCH --cpus-per-task=2' "$s" || fail "--cpus-per-task is not the largest --threads"
grep -qx "#SBATCH --output=$out/slurm/%A_%a.out" "$s" || fail "no --output in $out/slurm"
grep -qx '#SBATCH --partition=short' "$s" && grep -qx '#SBATCH --time=00:10:00' "$s" || fail "--sbatch-args not passed"
grep -qx 'points=( 0001 0002 0003 0004 0005 0006 )' "$s" || fail "points: $(grep points= "$s")"
abs=$(cd "$(dirname "$sweep")" && pwd)/$(basename "$sweep")
grep -qF "exec $abs --run-point $out \"\${points[\$SLURM_ARRAY_TASK_ID]}\"" "$s" || fail "command: $(tail -n 1 "$s")"
# Every #SBATCH line comes before the first command (sbatch reads no further).
awk '/^#SBATCH/ { if (cmd) bad = 1 } !/^#/ && NF { cmd = 1 } END { exit bad }' "$s" || fail "an #SBATCH line after a command"
# The points' commands are right: each is the grid's point.
jq -e '.args == ["--threads", "2", "--backend", "st-p4", "--ram", "4M", "--mem-limit", "2M", "--workload", "usemem", "-n", "2", "3M"]' \
	"$out/points/0004/point.json" >/dev/null || fail "point 0004's arguments: $(jq -c .args "$out/points/0004/point.json")"

# Task 0 runs; the script written again has the 5 others.
SLURM_ARRAY_TASK_ID=0 bash "$s" >"$work/task0" || fail "task 0: $(cat "$work/task0")"
grid --slurm "$work/job2.sh" >/dev/null
grep -qx '#SBATCH --array=0-4' "$work/job2.sh" || fail "second script: $(grep array "$work/job2.sh")"
grep -qx 'points=( 0002 0003 0004 0005 0006 )' "$work/job2.sh" || fail "second script: $(grep points= "$work/job2.sh")"
# Before the tasks ran, --collect says what is missing.
set +e
"$sweep" --collect "$out" --no-plot >"$work/c" 2>&1
st=$?
set -e
[ $st -eq 1 ] && grep -q '6 points: 1 done, 0 failed, 5 not run' "$work/c" || fail "collect before the tasks: exit $st: $(cat "$work/c")"
for t in 0 1 2 3 4; do
	SLURM_ARRAY_TASK_ID=$t bash "$work/job2.sh" >>"$work/tasks" || fail "task $t of job2.sh"
done
# A task run twice (Slurm requeues) does nothing the second time.
SLURM_ARRAY_TASK_ID=0 bash "$work/job2.sh" | grep -q 'point 0002: done already' || fail "a task run again ran again"
"$sweep" --collect "$out" --no-plot >"$work/c" || fail "collect: $(cat "$work/c")"
grep -q '6 points: 6 done, 0 failed, 0 not run' "$work/c" || fail "collect: $(cat "$work/c")"
[ "$(jq '[.points[].runs[] | select(.label == .backend)] | length' "$out/sweep.json")" = 6 ] || fail "sweep.json runs"
jq -e '[.points[] | .coords.backend == .runs[0].label and (.coords.threads | tonumber) == .runs[0].threads] | all' \
	"$out/sweep.json" >/dev/null || fail "a point's result is not at its coordinates"
# All done: --slurm writes no script.
grid --slurm "$work/job3.sh" >"$work/log3" 2>&1 || true
[ ! -e "$work/job3.sh" ] && grep -q 'every point is done' "$work/log3" || fail "a script for a finished sweep"
# On a machine with a running Slurm (SWS_TEST_SLURM=1 says so; CI has none):
# the script submitted with sbatch --wait, then collected.
if [ "${SWS_TEST_SLURM:-0}" = 1 ]; then
	need_tools sbatch
	rm -rf "$out"
	grid --slurm "$work/real.sh" >/dev/null
	sbatch --wait "$work/real.sh" || fail "sbatch --wait $work/real.sh"
	"$sweep" --collect "$out" --no-plot >"$work/c" || fail "collect after Slurm: $(cat "$work/c")"
	grep -q '6 points: 6 done' "$work/c" && echo "ok: run by Slurm: $(cat "$work/c")" || fail "after Slurm: $(cat "$work/c")"
elif command -v sbatch >/dev/null 2>&1; then
	echo "note: sbatch is installed; SWS_TEST_SLURM=1 submits the script to it"
fi
finish "slurm script"
