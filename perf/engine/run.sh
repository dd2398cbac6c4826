#!/usr/bin/env bash
# The engine's three benchmarks in one run, each against its own baseline measured in the same run:
#   comm:  slab allreduce / alltoallv vs a raw MPI loop, 1-256 MiB per rank, at 2 and 4 ranks
#   tasks: 1,000,000 trivial tasks on one rank (microseconds per task)
#   spill: slab spill throughput vs a plain write loop to the same directory
# Usage: perf/engine/run.sh [build-dir] [spill-dir]   -> prints JSON lines and writes perf/results/engine-<date>.jsonl
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$here/build}"
spill_dir="${2:-${TMPDIR:-/tmp}}"
mkdir -p "$here/perf/results"
out="$here/perf/results/engine-$(date +%Y-%m-%d).jsonl"
: > "$out"
run() { "$here/scripts/mpirun" "$@" | grep '^{' | tee -a "$out"; }
for np in 2 4; do run -n "$np" "$build/perf/comm/bench_comm" --repeats 7; done
run -n 1 "$build/perf/task/bench_tasks" --tasks 1000000 --repeats 5
run -n 1 "$build/perf/memory/bench_spill" --dir "$spill_dir" --repeats 5
echo "results: $out"
