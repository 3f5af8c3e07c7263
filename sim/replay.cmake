# swapsim-replay: the replay driver's command line (included from sim/CMakeLists.txt).
add_executable(swapsim-replay ${CMAKE_CURRENT_LIST_DIR}/swapsim-replay.c ${CMAKE_CURRENT_LIST_DIR}/cli_parse.c
  ${CMAKE_CURRENT_LIST_DIR}/cli_options.c ${CMAKE_CURRENT_LIST_DIR}/cli_output.c ${CMAKE_CURRENT_LIST_DIR}/check.c ${CMAKE_CURRENT_LIST_DIR}/rerun.c
  ${CMAKE_CURRENT_LIST_DIR}/cli_designs.c)
target_link_libraries(swapsim-replay PRIVATE swapsim_static sws_warnings sws_sanitize)

if(SWS_BUILD_TESTS)
  add_test(NAME replay_cli_help COMMAND swapsim-replay --help)
  set_tests_properties(replay_cli_help PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "--compare")
  # --help states the user-bandwidth default as the library has it (16e9 B/s, not 16G = 16 GiB/s).
  add_test(NAME replay_cli_help_bandwidth COMMAND swapsim-replay --help)
  set_tests_properties(replay_cli_help_bandwidth PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "default 16000000000,")
  # --help's workload synopses come from the workloads' table: each one's options, SIZE, its help.
  add_test(NAME replay_cli_help_workloads COMMAND swapsim-replay --help)
  set_tests_properties(replay_cli_help_workloads PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION
    "memhog  \\[-r N\\] \\[--zswap-writeback SIZE\\] \\[--zswap-writeback-every N\\] SIZE\n +sequential 0xff fill.*kbuild  \\[-j JOBS\\] \\[-p PHASES\\] \\[-a ACCESSES\\] \\[--cold SIZE\\] \\[--seed S\\] SIZE\n +shaped like a kernel build")
  # cli_script_test(NAME SCRIPT PASS ARGS...): sh tests/cli/SCRIPT.sh ARGS, passing when it
  # prints "PASS: all cases passed" and no "FAIL:" (PASS "": when it exits 0).
  function(cli_script_test name script pass)
    add_test(NAME ${name} COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/${script}.sh ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 300)
    if(pass)
      set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${pass}: all cases passed"
        FAIL_REGULAR_EXPRESSION "FAIL:")
    endif()
  endfunction()
  # replay_usage_test(NAME EXPECT ARGS...): the replay refuses ARGS with exit status 2 and a
  # message matching EXPECT.
  function(replay_usage_test name expect)
    add_test(NAME replay_cli_${name} COMMAND sh -c
      "\"$0\" \"$@\"; s=$?; [ $s -eq 2 ] || echo EXIT-STATUS-$s" $<TARGET_FILE:swapsim-replay> ${ARGN})
    set_tests_properties(replay_cli_${name} PROPERTIES LABELS unit
      FAIL_REGULAR_EXPRESSION "EXIT-STATUS-" PASS_REGULAR_EXPRESSION "${expect}")
  endfunction()
  # A bad option or value must exit with status 2 and name the option.
  foreach(case "bad_option;--no-such-option" "bad_size;--ram;12Q;--workload;memhog;1M"
                "bad_backend;--backend;btree;--workload;memhog;1M"
                "bad_workload_arg;--workload;usemem;-n;0;1M"
                "xswap_without_zswap;--swap;type=xswap;--workload;memhog;1M"
                "xswap_on_xarray;--zswap;--backend;xarray;--swap;type=xswap;--workload;memhog;1M"
                "xswap_with_size;--zswap;--swap;type=xswap,size=1G;--workload;memhog;1M"
                "limit_without_xswap;--zswap;--swap;type=ssd,limit=9;--workload;memhog;1M"
                "bad_cgroup;--zswap;--cgroup;v3;--workload;memhog;1M"
                "bad_zswap_scheme;--zswap-scheme;newest;--workload;memhog;1M"
                "bad_order;--order;time;--workload;memhog;1M")
    list(GET case 0 name)
    list(SUBLIST case 1 -1 args)
    replay_usage_test(${name} "swapsim-replay: --" ${args})
  endforeach()
  # The message names the option and the value that is wrong.
  foreach(case "ram_limit;--ram: '99999T': above the limit of 4T;--ram;99999T;--workload;memhog;1M"
                "compressor;--zswap-compressor: 'bogus': expected lz4;--zswap-compressor;bogus;--workload;memhog;1M"
                "zstd_level;--zswap-compressor: 'zstd:99': expected;--zswap-compressor;zstd:99;--workload;memhog;1M"
                "workload_size;--workload: usemem: size '99999T' is above the limit of 1P;--workload;usemem;99999T"
                "cold_size;kbuild --cold: size '9999T' is above the limit;--workload;kbuild;--cold;9999T;1M"
                # a bare number below a page is a slip for a unit (64 for 64M): refused with the hint
                "bare_workload_size;--workload: usemem: bad size '64': 64 bytes is less than one page: add a unit or p;--workload;usemem;64"
                "order_workload;--order orders a --trace's records;--order;trace;--workload;memhog;1M"
                "bare_ram;--ram: '64': 64 bytes is less than one page: add a unit or p;--ram;64;--workload;memhog;1M"
                "bare_mem_limit;--mem-limit: '512': 512 bytes is less than one page;--mem-limit;512;--workload;memhog;1M"
                "bare_swap_size;--swap: size=100: 100 bytes is less than one page;--swap;size=100;--workload;memhog;1M"
                "bare_bandwidth;--user-bandwidth: '1000': expected bytes per second: 1000 bytes is less than one page;--user-bandwidth;1000;--workload;memhog;1M"
                "kbuild_accesses;kbuild -a 18446744073709551615: expected a count from 1 to 1099511627776;--workload;kbuild;-a;18446744073709551615;1M"
                "kbuild_jobs;kbuild: its accesses \\(-a\\) over SIZE make more than 16777216 jobs;--workload;kbuild;-a;1099511627776;1M"
                "usemem_step;usemem -j 18446744073709551615: a step beyond the size \\(1048576 bytes\\) touches the first page alone;--workload;usemem;-j;18446744073709551615;1M"
                "mthp_size;--mthp: '12K=always': expected SIZE=always.madvise.inherit.never;--mthp;12K=always;--workload;memhog;1M"
                "mthp_policy;--mthp: '64K=sometimes': expected SIZE=always.madvise.inherit.never;--mthp;64K=sometimes;--workload;memhog;1M"
                "mem_high;--mem-high: '8K': expected 256K to 4T;--mem-high;8K;--workload;memhog;1M"
                "costs_dir;--costs: /: Is a directory;--costs;/;--workload;memhog;1M"
                # the workloads' names from their table
                "unknown_workload;--workload: unknown workload 'fio' \\(usemem, memhog, zipf, uniform, bgsave, kbuild\\);--workload;fio;1M")
    list(GET case 0 name)
    list(GET case 1 expect)
    list(SUBLIST case 2 -1 args)
    replay_usage_test(names_${name} "${expect}" ${args})
  endforeach()
  add_test(NAME replay_cli_limit_above_ram COMMAND swapsim-replay --ram 1M --mem-limit 2M --quiet
    --workload memhog 256K)
  set_tests_properties(replay_cli_limit_above_ram PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "warning: --mem-limit 2M is above --ram 1M: the limit never binds")
  # Cgroup v1: the memcg shrinker finds nothing to write back (nothing is charged).
  add_test(NAME replay_cli_cgroup_v1 COMMAND swapsim-replay --ram 64M --mem-limit 16M --zswap
    --zswap-shrinker on --cgroup v1 --report json --quiet --workload zipf -a 200000 32M)
  set_tests_properties(replay_cli_cgroup_v1 PROPERTIES LABELS unit TIMEOUT 300
    PASS_REGULAR_EXPRESSION "\"zswpwb\":0," FAIL_REGULAR_EXPRESSION "\"zswpwb\":[1-9]")
  # An xswap device in the CSV series: the arena columns are there and non-zero.
  add_test(NAME replay_cli_xswap_csv COMMAND swapsim-replay --ram 64M --zswap --swap type=xswap,prio=5
    --report csv --interval 10000 --quiet --workload memhog 96M)
  set_tests_properties(replay_cli_xswap_csv PROPERTIES LABELS unit TIMEOUT 300
    PASS_REGULAR_EXPRESSION "arena_mapped_bytes,arena_resident_bytes,zswap_pool_bytes,[a-z0-9_,]*\n.*st-p4,([0-9.]+,)+[1-9][0-9]*,[1-9][0-9]*,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+\n")
  # A file-backed device on a full file system: the run ends and says so (exit 1).
  add_test(NAME replay_cli_full_disk COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/full_disk.sh
    $<TARGET_FILE:swapsim-replay>)
  set_tests_properties(replay_cli_full_disk PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77
    PASS_REGULAR_EXPRESSION "exit status 1\n.*/sw\\): [0-9]+ page writes failed: No space left on device")
  # Every output path of every tool on a full file system: an error, the old file kept.
  cli_script_test(cli_full_disk_outputs full_disk_outputs "full disk outputs" ${CMAKE_CURRENT_BINARY_DIR}
    ${PROJECT_SOURCE_DIR}/tests/data)
  set_tests_properties(cli_full_disk_outputs PROPERTIES SKIP_RETURN_CODE 77)
  # --json-out follows the output rules: never over an input, whole or not at all, modes, links.
  cli_script_test(replay_cli_json_out json_out "json-out" $<TARGET_FILE:swapsim-replay>
    ${PROJECT_SOURCE_DIR}/tests/data/perf_swap_excerpt.txt ${PROJECT_SOURCE_DIR}/tests/data)
  cli_script_test(cli_zswap_writeback_only zswap_writeback_only "" $<TARGET_FILE_DIR:swapsim-replay>)
  cli_script_test(cli_zswap_writeback_workload zswap_writeback_workload "zswap writeback workload"
    $<TARGET_FILE_DIR:swapsim-replay>)
  cli_script_test(cli_swap_tiers swap_tiers "swap tiers" $<TARGET_FILE_DIR:swapsim-replay>)
  # --jobs N: the same report as one run at a time, the runs' lines in order.
  cli_script_test(cli_jobs jobs "jobs" $<TARGET_FILE_DIR:swapsim-replay>)
  set_tests_properties(cli_jobs PROPERTIES LABELS "unit;thread" ENVIRONMENT "${SWS_TSAN_OPTIONS}")
  cli_script_test(cli_memcg_off memcg_off "" $<TARGET_FILE_DIR:swapsim-replay>)
  # --metadata-ram on|off: swap metadata and the zswap pool in --ram by default.
  cli_script_test(cli_metadata_ram metadata_ram "metadata ram" $<TARGET_FILE_DIR:swapsim-replay>)
  cli_script_test(cli_refused refused "" $<TARGET_FILE_DIR:swapsim-replay>)
  # Standard output that cannot be written (/dev/full, a closed pipe with SIGPIPE ignored):
  # every report of every C tool exits 1 naming the error.
  cli_script_test(cli_stdout_errors stdout_errors "stdout errors" ${CMAKE_CURRENT_BINARY_DIR}
    ${PROJECT_SOURCE_DIR}/tests/data)
  # --list-designs: every design once, the names --backend takes and --help lists;
  # swapsim-overhead's default --designs and its messages from the same list.
  cli_script_test(replay_cli_list_designs list_designs "list designs" $<TARGET_FILE:swapsim-replay>)
  # SIGTERM, SIGHUP and SIGINT: summary, a whole CSV, exit 128+signal.
  cli_script_test(replay_cli_signals signals "signals" $<TARGET_FILE:swapsim-replay>)
  # A report stands on its own: the table's command, version, clock, input and machine
  # lines, the JSON's version, command, argv, clock and setup, --rerun REPORT.json,
  # counters 0 everywhere left out (--all-counters), the verdicts (tests/cli/report.sh).
  cli_script_test(replay_cli_report report "report" $<TARGET_FILE:swapsim-replay> ${PROJECT_VERSION}
    ${PROJECT_SOURCE_DIR}/tests/data/perf_swap_excerpt.txt ${CMAKE_CURRENT_BINARY_DIR}/replay_cli_report)
  set_tests_properties(replay_cli_report PROPERTIES SKIP_RETURN_CODE 77)
  # --report mmtests and --report lkp against published samples of those layouts.
  cli_script_test(replay_cli_report_formats report_formats "report formats" $<TARGET_FILE:swapsim-replay>
    ${PROJECT_SOURCE_DIR}/tests/data/report-formats ${CMAKE_CURRENT_BINARY_DIR}/replay_cli_report_formats)
  set_tests_properties(replay_cli_report_formats PROPERTIES SKIP_RETURN_CODE 77)
  # mTHP madvise and inherit: pages allocated by hand, --check's mapping of the policies.
  cli_script_test(replay_cli_mthp_madvise mthp_madvise "mthp madvise" $<TARGET_FILE:swapsim-replay>
    ${PROJECT_SOURCE_DIR}/tests/data ${CMAKE_CURRENT_BINARY_DIR}/replay_cli_mthp_madvise)
  # Backing files: a run removes only what it created (a dangling link, an existing file stay).
  cli_script_test(replay_cli_backing_files backing_files "backing files" $<TARGET_FILE:swapsim-replay>)
  # Accesses the model refused (the OOM killer took the task): exit status 3
  # with the first error in the table, unless --allow-errors.
  add_test(NAME replay_cli_oom_exit COMMAND sh -c
    "\"$0\" \"$@\"; echo EXIT-STATUS-$?" $<TARGET_FILE:swapsim-replay>
    --ram 16M --swap size=4M --quiet --workload usemem -n 1 64M)
  set_tests_properties(replay_cli_oom_exit PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "first_error +SWS_EKILLED.*oom_kill +1\n.*EXIT-STATUS-3")
  add_test(NAME replay_cli_oom_exit_xswap COMMAND sh -c
    "\"$0\" \"$@\" 2>&1; echo EXIT-STATUS-$?" $<TARGET_FILE:swapsim-replay>
    --ram 16M --zswap --swap type=xswap --quiet --workload usemem -n 1 64M)
  set_tests_properties(replay_cli_oom_exit_xswap PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "first_error +SWS_EKILLED.*the model refused [0-9]+ accesses.*EXIT-STATUS-3")
  add_test(NAME replay_cli_allow_errors COMMAND sh -c
    "\"$0\" \"$@\" >/dev/null; echo EXIT-STATUS-$?" $<TARGET_FILE:swapsim-replay>
    --ram 16M --swap size=4M --quiet --allow-errors --workload usemem -n 1 64M)
  set_tests_properties(replay_cli_allow_errors PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "allowed \\(--allow-errors\\)\nEXIT-STATUS-0")
  # --swapoff after a fork under a tight memcg (tests/data/repro/swapoff_busy.swt): on every
  # design of the registry the pages brought back do not fit, the OOM killer takes parent and
  # child as the kernel's charge path would, the device goes; the run says so and exits 3.
  string(REPLACE ";" "," sws_all_designs "${SWS_DESIGN_NAMES}")
  math(EXPR sws_swapoff_oom_kills "2 * ${SWS_NR_DESIGNS}")
  add_test(NAME replay_cli_swapoff_oom COMMAND sh -c
    "\"$0\" \"$@\" >\"$TMPDIR/swapoff_oom.txt\"; echo EXIT-STATUS-$?
     echo KILLS-$(grep -c '^mm.oom_kill 2$' \"$TMPDIR/swapoff_oom.txt\")-OF-${SWS_NR_DESIGNS}" $<TARGET_FILE:swapsim-replay>
    --ram 1M --mem-limit 512K --swap size=1344K --swapoff 1 --quiet --report counters
    --compare ${sws_all_designs} --trace ${PROJECT_SOURCE_DIR}/tests/data/repro/swapoff_busy.swt)
  set_tests_properties(replay_cli_swapoff_oom PROPERTIES LABELS unit ENVIRONMENT TMPDIR=${CMAKE_CURRENT_BINARY_DIR}
    PASS_REGULAR_EXPRESSION "--swapoff 1: the OOM killer killed ${sws_swapoff_oom_kills} tasks while the device was swapped off[^\n]*\nEXIT-STATUS-3\nKILLS-${SWS_NR_DESIGNS}-OF-${SWS_NR_DESIGNS}"
    FAIL_REGULAR_EXPRESSION "busy")
  # An OOM kill during --swapoff with --keep (the tasks keep their memory): said, exit 3.
  add_test(NAME replay_cli_swapoff_oom_keep COMMAND sh -c
    "\"$0\" \"$@\" >/dev/null; echo EXIT-STATUS-$?" $<TARGET_FILE:swapsim-replay>
    --ram 4M --mem-limit 2M --swap size=8M --swapoff 1 --quiet --workload usemem --keep 3M)
  set_tests_properties(replay_cli_swapoff_oom_keep PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "--swapoff 1: the OOM killer killed 1 task while the device was swapped off[^\n]*\nEXIT-STATUS-3")
  # 50,000 short-lived processes: what an exited process keeps is bounded (its
  # address space's descriptor, 4.2 KiB, goes at a trim): the memory model's memory at
  # the end stays under 8 MiB (it was 210 MB, 4.2 KiB a process).
  add_test(NAME replay_cli_many_processes COMMAND sh -c
    "awk 'BEGIN { print \"# swapsim-trace v1\"; for (p = 2; p < 50002; p++) {
       printf \"%d %d %d - access 0x10000000 0 w 0\\n%d %d %d - exit 0 0 - 0\\n\", 2 * p, p, p, 2 * p + 1, p, p } }' >\"$1\"
     \"$0\" --ram 64M --quiet --report counters --trace \"$1\" 2>/dev/null |
       awk '$1 == \"tasks\" { t = $2 } $1 == \"memory.mm\" { m = $2 }
            END { print \"TASKS-\" t; print (m < 8388608 ? \"MM-BOUNDED \" : \"MM-GREW \") m }'"
    $<TARGET_FILE:swapsim-replay> ${CMAKE_CURRENT_BINARY_DIR}/many_processes.swt)
  set_tests_properties(replay_cli_many_processes PROPERTIES LABELS unit TIMEOUT 300
    PASS_REGULAR_EXPRESSION "TASKS-50000\nMM-BOUNDED" FAIL_REGULAR_EXPRESSION "MM-GREW")
  # Repeats interleaved: the JSON keeps each under "repeats", statistics under "summary".
  add_test(NAME replay_cli_repeat_json COMMAND swapsim-replay --ram 4M --mem-limit 2M --repeat 2
    --compare table,xarray --report json --workload usemem -n 2 -y -x 3M)
  set_tests_properties(replay_cli_repeat_json PROPERTIES LABELS unit TIMEOUT 300
    PASS_REGULAR_EXPRESSION "\"nr_repeats\":2,\"counters_identical\":true.*\"summary\":\\{\"elapsed_ns\":\\{\"mean\":.*\"repeats\":\\[")
  # A small usemem run on both backends, JSON report.
  add_test(NAME replay_cli_compare_json COMMAND swapsim-replay --ram 4M --mem-limit 2M
    --compare table,xarray --report json --seed 7 --workload usemem -n 2 -y -x 3M)
  set_tests_properties(replay_cli_compare_json PROPERTIES LABELS unit TIMEOUT 300
    PASS_REGULAR_EXPRESSION "\\{\"version\":.*,\"runs\":\\[\\{\"backend\":\"st-p4\".*\\{\"backend\":\"xarray\"")
endif()

# --check: the committed kernel recording replayed on its machine, the table's
# and the JSON's shape, figures within test_kernel_recording's 5%; recordings
# that are not whole, each a message naming the file and line.
if(SWS_BUILD_TESTS)
  foreach(t check check_bad_input)
    add_test(NAME replay_cli_${t} COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cli/${t}.sh
      $<TARGET_FILE:swapsim-replay> ${PROJECT_SOURCE_DIR}/tests/data ${CMAKE_CURRENT_BINARY_DIR}/${t})
    set_tests_properties(replay_cli_${t} PROPERTIES LABELS unit TIMEOUT 300
      PASS_REGULAR_EXPRESSION "check( bad input)?: all cases passed" FAIL_REGULAR_EXPRESSION "FAIL:")
  endforeach()
endif()
