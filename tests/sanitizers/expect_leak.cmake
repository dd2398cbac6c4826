# Runs the leak canary (cmake -DCMD=<mpiexec command line as a list> -DRANKS=n -P expect_leak.cmake) and passes
# only if it exited non-zero and LeakSanitizer reported, on each of the RANKS ranks, the canary's one allocation
# of 4096 bytes from slab_lsan_canary_leak and nothing else.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCHALL "ERROR: LeakSanitizer: detected memory leaks" reports "${out}")
string(REGEX MATCHALL "SUMMARY: [A-Za-z]+Sanitizer: [0-9]+ byte\\(s\\) leaked in [0-9]+ allocation\\(s\\)" summaries
  "${out}")
string(REGEX MATCHALL "SUMMARY: [A-Za-z]+Sanitizer: 4096 byte\\(s\\) leaked in 1 allocation\\(s\\)" canary_only "${out}")
string(REGEX MATCHALL "slab_lsan_canary_leak\\(\\) [^ ]*leak_canary.cpp" frames "${out}")
list(LENGTH reports n_reports)
list(LENGTH summaries n_summaries)
list(LENGTH canary_only n_canary)
list(LENGTH frames n_frames)
if(rc EQUAL 0 OR NOT n_reports EQUAL RANKS OR NOT n_summaries EQUAL RANKS OR NOT n_canary EQUAL RANKS
   OR n_frames LESS RANKS)
  message("${out}")
  message(FATAL_ERROR "leak canary: expected exit != 0 and, on each of ${RANKS} ranks, one LeakSanitizer report "
    "of the canary's 4096 bytes (frame slab_lsan_canary_leak) and nothing else; got exit ${rc}, ${n_reports} "
    "reports, ${n_summaries} summaries (${n_canary} of exactly the canary), ${n_frames} canary frames")
endif()
message(STATUS "leak canary: LeakSanitizer reported the canary's leak on all ${RANKS} ranks and nothing else")
