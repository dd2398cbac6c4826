#!/usr/bin/env bash
# Run each libFuzzer target for a bounded time on a scratch copy of its seed corpus (tests/fuzz/corpus/<name>),
# one rank. Appends one JSON line per target to $SLAB_RELIABILITY_DIR/fuzz.jsonl (executions, corpus size).
# A crash fails the run and is kept under $work/crashes: add it to tests/fuzz/corpus/<name>/ once fixed, where
# the fuzz_replay_<name> test replays it in every build.
#   tests/fuzz/run_fuzzers.sh build-fuzz [seconds per target, default 60]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:?usage: run_fuzzers.sh <build dir with SLAB_FUZZ=ON> [seconds]}" && pwd)"
seconds="${2:-60}"
work="$(mktemp -d "${TMPDIR:-/tmp}/slab-fuzz-run-XXXXXX")"
# Leaks are findings too: libFuzzer checks after every input that allocated more than it freed (and reports that
# input, reproducible alone), and LeakSanitizer checks again at exit. The settings are the test suite's
# (cmake/SlabTesting.cmake): lsan.supp names the third-party allocations that are not slab's to free, and the
# dlclose shim keeps Open MPI's plugins loaded to the end so that those suppressions can match them.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
keep_plugins="$build/tests/sanitizers/libslab_lsan_keep_plugins.so"
[ -f "$keep_plugins" ] || { echo "run_fuzzers.sh: $keep_plugins missing (configure with SLAB_SANITIZE)" >&2; exit 2; }
# The targets run side by side (one core each where there are two): each gets its whole time, and the step takes
# one target's time instead of the sum.
run_target() {
  local name="$1" exe rc execs files bytes crashes outcome status=0
  exe="$(find "$build" -name "fuzz_$name" -type f -perm -u+x | head -n 1)"
  mkdir -p "$work/$name/corpus" "$work/$name/crashes"
  cp "$root/tests/fuzz/corpus/$name/"* "$work/$name/corpus/"
  rc=0
  LD_PRELOAD="$keep_plugins" "$root/scripts/mpirun" -n 1 "$exe" -detect_leaks=1 -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$work/$name/crashes/" "$work/$name/corpus" \
    >"$work/$name/log" 2>&1 || rc=$?
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name/log" | grep -o '[0-9]*$' || echo 0)"
  files="$(find "$work/$name/corpus" -type f | wc -l)"
  bytes="$(du -sb "$work/$name/corpus" | cut -f1)"
  crashes="$(find "$work/$name/crashes" -type f | wc -l)"
  outcome=pass
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then outcome=fail status=1; tail -n 60 "$work/$name/log"; fi
  echo "fuzz_$name: $execs executions in ${seconds} s, corpus $files inputs ($bytes bytes), $crashes crashes, exit $rc"
  if [ -n "${SLAB_RELIABILITY_DIR:-}" ]; then
    mkdir -p "$SLAB_RELIABILITY_DIR"
    printf '{"category": "fuzz", "case": "fuzz_%s", "expected": "no crash or sanitizer report in %s s", "outcome": "%s", "detail": "%s executions, corpus %s inputs (%s bytes), %s crashes", "ranks": 1}\n' \
      "$name" "$seconds" "$outcome" "$execs" "$files" "$bytes" "$crashes" >>"$SLAB_RELIABILITY_DIR/fuzz.jsonl"
  fi
  return "$status"
}
status=0
pids=()
for name in csv hdf5; do
  run_target "$name" &
  pids+=("$!")
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
[ "$status" -ne 0 ] && echo "fuzz findings kept in $work" || rm -rf "$work"
exit "$status"
