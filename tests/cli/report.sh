#!/bin/sh
# A report stands on its own: the table's first five lines name the command,
# the version, the clock, the input and the machine; the JSON carries version,
# command, argv, clock and setup; swapsim-replay --rerun REPORT.json runs the
# same again (from another directory, a relative trace path too) and so does
# the command line it records; counters that are 0 in every run are left out
# unless --all-counters; one verdict line per compared design ends the table;
# --report counters names each run's clock.
# Usage: report.sh SWAPSIM-REPLAY VERSION TRACE WORKDIR
set -eu
replay=$1 version=$2 trace=$3 work=$4
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
rm -rf "$work" && mkdir -p "$work/a/b" "$work/elsewhere"
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed (bash scripts/deps.sh)"; exit 77; }
cp "$trace" "$work/a/b/t.txt"
size=$(wc -c <"$work/a/b/t.txt" | tr -d ' ')

# A trace given by a relative path, zswap, two devices, two designs.
cd "$work/a"
"$replay" --quiet --ram 2M --mem-limit 1M --seed 5 --zswap --zswap-compressor zstd \
	--swap size=4M,type=pmem,prio=3 --swap size=8M,type=ssd --compare xarray,st-p4 \
	--trace b/t.txt --json-out ../r.json >../table.txt || fail "the table run exited $?"
cd "$work"
sed -n 1,5p table.txt
# The five lines, in order.
abs=$work/a/b/t.txt
want_cmd="command: swapsim-replay --quiet --ram 2M --mem-limit 1M --seed 5 --zswap --zswap-compressor zstd --swap size=4M,type=pmem,prio=3 --swap size=8M,type=ssd --compare xarray,st-p4 --trace $abs --json-out ../r.json"
[ "$(sed -n 1p table.txt)" = "$want_cmd" ] || fail "line 1: $(sed -n 1p table.txt)"
[ "$(sed -n 2p table.txt)" = "version: swapsim-replay $version (libswapsim $version)" ] || fail "line 2: $(sed -n 2p table.txt)"
sed -n 3p table.txt | grep -q '^clock:   model (modelled times on simulated CPUs from the cost table' || fail "line 3: $(sed -n 3p table.txt)"
[ "$(sed -n 4p table.txt)" = "input:   trace $abs (perf, $size bytes)" ] || fail "line 4: $(sed -n 4p table.txt)"
[ "$(sed -n 5p table.txt)" = "machine: RAM 2M, memcg 1M (cgroup v2), swap pmem 4M (1/2 us read/write) prio 3 + ssd 8M (20/25 us read/write), page-cluster 3, zswap zstd (max_pool_percent 20, accept_threshold 90, shrinker off, scheme both), 1 CPU, policy kernel, seed 5" ] ||
	fail "line 5: $(sed -n 5p table.txt)"
# The JSON: the same, as keys.
j=r.json
[ "$(jq -r .version $j)" = "$version" ] && [ "$(jq -r .library_version $j)" = "$version" ] &&
	[ "$(jq -r .program $j)" = swapsim-replay ] || fail "JSON version: $(jq -c '[.version, .library_version, .program]' $j)"
[ "command: $(jq -r .command $j)" = "$want_cmd" ] || fail "JSON command: $(jq -r .command $j)"
[ "$(jq -r '.argv | join(" ")' $j)" = "${want_cmd#command: }" ] && [ "$(jq -r '.argv | length' $j)" = 21 ] ||
	fail "JSON argv: $(jq -c .argv $j)"
[ "$(jq -r .clock $j)" = model ] || fail "JSON clock"
s=$(jq -c '.setup | [.input, .ram_bytes, .memcg_limit_bytes, .cgroup_version, (.devices | map([.kind, .bytes, .prio, .read_ns, .write_ns])), .page_cluster, .zswap, .cpus, .seeds]' $j)
[ "$s" = "[\"trace $abs (perf, $size bytes)\",2097152,1048576,2,[[\"pmem\",4194304,3,1000,2000],[\"ssd\",8388608,-1,20000,25000]],3,{\"enabled\":true,\"compressor\":\"zstd\",\"max_pool_percent\":20,\"accept_threshold_percent\":90,\"shrinker\":false,\"scheme\":\"both\"},1,{\"content\":5,\"workload\":null}]" ] ||
	fail "JSON setup: $s"
[ "$(jq -r '.runs | map(.label) | join(",")' $j)" = xarray,st-p4 ] || fail "JSON runs"
echo "ok: the table's five lines and the JSON's version, command, argv, clock, setup"

# --rerun from another directory, and the recorded command run by a shell:
# the same counters.
"$replay" --quiet --ram 2M --mem-limit 1M --seed 5 --zswap --zswap-compressor zstd \
	--swap size=4M,type=pmem,prio=3 --swap size=8M,type=ssd --compare xarray,st-p4 \
	--trace "$abs" --report counters >counters.want
(cd elsewhere && "$replay" --rerun ../r.json --report counters >../counters.rerun) || fail "--rerun exited $?"
# Never over the report it reads: standard output appended to it is refused.
cp r.json r.keep
rc=0
"$replay" --rerun r.json >>r.json 2>rerun.err || rc=$?
[ $rc -eq 2 ] || fail "--rerun R >> R: exit $rc, want 2"
grep -q '^swapsim-replay: standard output is the --rerun report, r.json: the report would write over it$' rerun.err ||
	fail "--rerun R >> R: $(cat rerun.err)"
cmp -s r.json r.keep || fail "--rerun R >> R changed R"
cp r.keep r.json
cmp -s counters.want counters.rerun && echo "ok: --rerun from another directory: the same counters" ||
	fail "--rerun: other counters: $(diff counters.want counters.rerun | head -n 5)"
cmd=$(jq -r .command $j | sed "s|^swapsim-replay|\"$replay\"|; s| --json-out ../r.json||")
(cd elsewhere && eval "$cmd --report counters" >../counters.cmd) || fail "the recorded command exited $?"
cmp -s counters.want counters.cmd && echo "ok: the recorded command line: the same counters" ||
	fail "the recorded command: other counters"
# A workload: --rerun with --report json records the same run, its own command the
# expanded one (the recorded output options, --quiet too, replaced by those given).
# The modelled clock's figures are the input's: every time the same too (less the
# host's own speed); its repeats have seeds of their own, which the report names.
"$replay" --quiet --ram 4M --compare xarray,vswap --repeat 2 --seed 3 --report json --workload zipf -a 3000 -n 2 6M >w.json
"$replay" --rerun w.json --report json >w2.json 2>/dev/null || fail "--rerun of a workload exited $?"
[ "$(jq -c '[.runs[].repeats[].counters]' w.json)" = "$(jq -c '[.runs[].repeats[].counters]' w2.json)" ] ||
	fail "--rerun of a workload: other counters"
figures='[.runs[] | .summary, (.repeats[] | del(.wall_ns, .events_per_sec))] | map(del(.wall_ns, .events_per_sec))'
[ "$(jq -c "$figures" w.json)" = "$(jq -c "$figures" w2.json)" ] ||
	fail "--rerun of a modelled run: other figures"
[ "$(jq -r .command w2.json)" = "swapsim-replay --ram 4M --compare xarray,vswap --repeat 2 --seed 3 --report json --workload zipf -a 3000 -n 2 6M" ] ||
	fail "--rerun records: $(jq -r .command w2.json)"
[ "$(jq -r .setup.input w.json)" = "workload zipf -a 3000 -n 2 6M (seeds 3 to 4, one a repeat)" ] &&
	[ "$(jq -c .setup.seeds w.json)" = '{"content":3,"workload":3}' ] &&
	[ "$(jq -c '[.runs[].repeats[].seed]' w.json)" = '[3,4,3,4]' ] ||
	fail "a workload's input and seeds: $(jq -c '[.setup.input, .setup.seeds, [.runs[].repeats[].seed]]' w.json)"
echo "ok: --rerun of a workload: the same counters and modelled times, the expanded command recorded"
# What --rerun refuses.
expect() { # STATUS REGEX ARGS...
	want=$1 re=$2
	shift 2
	set +e
	"$replay" "$@" >out 2>err
	st=$?
	set -e
	[ $st = "$want" ] && grep -Eq -- "$re" err && echo "ok: exit $st: $(head -n 1 err)" ||
		fail "$*: exit $st: $(cat err)"
}
expect 2 "--rerun: '--ram': only --report, --json-out, --quiet and --all-counters go with it" --rerun w.json --ram 8M
expect 2 "--json-out: 'w.json' is the --rerun report" --rerun w.json --json-out w.json
expect 1 "--rerun nope.json: No such file or directory" --rerun nope.json
printf '{"runs":[]}\n' >old.json
expect 1 "--rerun old.json: no argv: not a report that records its command line" --rerun old.json
printf '{"argv":null}\n' >null.json
expect 1 "--rerun null.json: it records no command line" --rerun null.json
printf '{"a":[1,{"b":"\\u00e9]"}],"argv":["swapsim-replay","--quiet","--ram","4M","--report","counters","--workload","memhog","1M"' >cut.json
expect 1 "--rerun cut.json: argv: expected ',' or '\\]'" --rerun cut.json
printf '{"a":[1,{"b":"\\u00e9]"}],"argv":["swapsim-replay","--quiet","--ram","4M","--report","counters","--workload","memhog","1M"]}' >ok.json
"$replay" --rerun ok.json --report counters | grep -q '^events ' || fail "--rerun of a hand-written report"
printf '{"argv":["swapsim-trace","stats"]}' >other.json
expect 1 "its command is swapsim-trace's" --rerun other.json
# The words' escapes decoded: \/, \", \\, \u as UTF-8, a surrogate pair joined (a
# trace whose name has them all); what JSON does not allow in a string is refused.
mkdir -p esc && printf '0x1000 W\n' >"$(printf 'esc/\303\251\360\237\230\200"q\\.addr')"
printf '{"argv":["swapsim-replay","--ram","4M","--trace","%s\\/\\u00e9\\ud83d\\ude00\\"q\\\\.addr"]}' "$work/esc" >esc.json
"$replay" --rerun esc.json --report counters | grep -q '^accesses 1$' || fail "--rerun of escaped words"
for bad in '\\ud83d' '\\x' '\\u12' 'a\\u0000b' 'a\tb'; do
	printf "{\"argv\":[\"swapsim-replay\",\"$bad\"]}" >bad.json
	expect 1 "--rerun bad.json: a (lone surrogate|bad escape|bad .u escape|NUL character|control character)" \
		--rerun bad.json
done

# Counters 0 in every run: left out, and said; --all-counters shows them.
"$replay" --quiet --ram 4M --compare xarray,st-p4 --workload memhog 6M >t1.txt
"$replay" --quiet --ram 4M --compare xarray,st-p4 --all-counters --workload memhog 6M >t2.txt
awk '/^-- counters/ { on = 1; next } /^-- / || /^\(/ { on = 0 } on { for (i = 2; i <= NF; i++) if ($i != "0") next; print }' t1.txt >zero.txt
[ ! -s zero.txt ] || fail "rows 0 in every run: $(head -n 3 zero.txt)"
grep -q '^zswpwb  ' t1.txt && fail "zswpwb (0 everywhere) shown without --all-counters"
grep -Eq '^zswpwb +0 +0$' t2.txt || fail "--all-counters: no zswpwb row"
n=$(sed -n 's/^(\([0-9]*\) counters are 0 in every run and left out: --all-counters shows them)$/\1/p' t1.txt)
[ -n "$n" ] && [ "$(($(wc -l <t2.txt) - $(wc -l <t1.txt)))" = $((n - 1)) ] ||
	fail "the left-out count $n: $(wc -l <t1.txt) and $(wc -l <t2.txt) lines"
echo "ok: $n counters 0 in every run left out; --all-counters shows them"

# One verdict per compared design, last; none for one design.
"$replay" --quiet --ram 4M --compare xarray,st-p1,xarray --workload memhog 6M >v.txt
tail -n 2 v.txt | grep -c '^verdict: ' | grep -q '^2$' || fail "two verdicts at the end: $(tail -n 3 v.txt)"
grep -Eq '^verdict: st-p1 against xarray: (faster|slower) by [0-9.]+%, (less|more) system time by [0-9.]+%, (less|more) metadata memory by [0-9.]+% \(at the peak [0-9.]+ (B|KiB|MiB) against [0-9.]+ (B|KiB|MiB)\)$' v.txt ||
	fail "st-p1's verdict: $(grep '^verdict: st-p1' v.txt)"
# (The peaks include memory waiting for an RCU grace period, whose timing is the
# host's: xarray#2's metadata peak is usually, not always, xarray's.)
grep -Eq '^verdict: xarray#2 against xarray: .*metadata memory .*at the peak' v.txt ||
	fail "xarray#2's verdict: $(grep '^verdict: xarray#2' v.txt)"
"$replay" --quiet --ram 4M --workload memhog 6M | grep -q '^verdict' && fail "a verdict with one design"
echo "ok: verdicts: $(grep -c '^verdict' v.txt)"
# The counters report says which clock made each run (its times are the modelled
# clock's; with the host clock it has none).
for clock in model host; do
	"$replay" --quiet --clock $clock --report counters --compare xarray,st-p4 --ram 4M --workload memhog 6M \
		>counters.txt || fail "--clock $clock --report counters exited $?"
	[ "$(grep -c "^# clock $clock\$" counters.txt)" = 2 ] ||
		fail "--clock $clock: no '# clock $clock' line under each '# run': $(grep '^#' counters.txt | tr '\n' ' ')"
done
grep -q '^time\.' counters.txt && fail "the host clock's counters report has times"
echo "ok: the counters report names its clock"
[ $fails -eq 0 ] && echo "report: all cases passed"
