# The figures of a swapsim-replay JSON report, shared by swapsim-plot and
# swapsim-sweep (CMake pastes this file into both scripts when it generates
# them, so each installed script stands alone).
#
# A figure is one number of a run, named as the report names it:
#   - the time section's figures (the report's "summary": elapsed_ns, sys_ns,
#     throughput_kbs, ...), with the spread of the repeats as the report has it;
#   - every other number of a repeat: top-level ones (events, errors, ...) and
#     the memory model's and swap core's counters by their bare names (pgfault,
#     pswpout, ...; "counters.NAME" should a counter share a top-level name),
#     nested ones by their dotted path (peaks.swap_used_pages,
#     memory.dynamic_bytes, zswap.pool_total_size, latency.fault.p99_ns, ...),
#     each with the mean, sample standard deviation, minimum and maximum over
#     the repeats (arrays such as devices and histogram buckets are left out);
#   - the deterministic work rows, work_per_page.CONTEXT.KIND (already the
#     mean of the repeats: no spread).
# Every figure is {mean, stdev, min, max, n}; n is the number of repeats.

# Statistics of an array of numbers; stdev is the sample standard deviation,
# as the report's summary has it.
def sws_stats:
  length as $n
  | (add / $n) as $m
  | {mean: $m,
     stdev: (if $n > 1 then (map((. - $m) * (. - $m)) | add / ($n - 1) | sqrt) else 0 end),
     min: min, max: max, n: $n};

# The named numbers of one repeat, as [{key, value}].
def sws_repeat_numbers:
  . as $r
  | [paths(numbers) as $p
     | select(all($p[]; type == "string"))
     | {key: (if ($p | length) == 2 and $p[0] == "counters"
                 and (($r[$p[1]] | type) != "number") then $p[1]
              else $p | join(".") end),
        value: ($r | getpath($p))}];

# Input: one element of a report's "runs". Output: {NAME: {mean, stdev, min, max, n}}.
def sws_figures:
  .nr_repeats as $n
  | ([.repeats[] | sws_repeat_numbers[]]
     | group_by(.key)
     | map({key: .[0].key, value: (map(.value) | sws_stats)})
     | from_entries)
  + ((.summary // {}) | map_values(. + {n: $n}))
  + ([(.work_per_page // {}) | paths(numbers) as $p
      | {key: (["work_per_page"] + $p | join(".")),
         value: (getpath($p) as $v | {mean: $v, stdev: 0, min: $v, max: $v, n: 1})}]
     | from_entries);

# The names of the summary's figures, in the report's order (they come first
# in a sweep's CSV, each with its spread).
def sws_summary_names: [.runs[]?.summary // {} | keys_unsorted[]] | unique;

# Input: a whole report. True when it has the shape swapsim-replay writes.
def sws_is_report:
  type == "object" and (.runs | type) == "array" and (.runs | length) > 0
  and all(.runs[]; type == "object" and (.repeats | type) == "array" and (.repeats | length) > 0);
