#!/usr/bin/env bash
# Run bench_comm at 2 and 4 ranks and print a table (ratio = slab seconds / raw MPI seconds; 1.0 = parity).
# Usage: perf/comm/run.sh [build-dir] [extra bench_comm flags, e.g. --max-bytes 67108864 --repeats 5]
set -euo pipefail
build=${1:-build}
shift || true
bench="$build/perf/comm/bench_comm"
[[ -x $bench ]] || { echo "no $bench; build with -DSLAB_BUILD_PERF=ON" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp)
for np in 2 4; do
  mpirun --allow-run-as-root --oversubscribe --bind-to none -n "$np" "$bench" "$@" | tee -a "$out"
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print(f"\n{'op':10} {'ranks':>5} {'MiB/rank':>9} {'slab s':>10} {'mpi s':>10} {'slab GB/s':>9} {'mpi GB/s':>9} {'ratio':>6}")
for r in rows:
    print(f"{r['op']:10} {r['ranks']:5d} {r['bytes_per_rank']>>20:9d} {r['slab_seconds']:10.5f} {r['mpi_seconds']:10.5f} "
          f"{r['slab_GBps']:9.3f} {r['mpi_GBps']:9.3f} {r['ratio']:6.3f}")
if rows: print(f"host {rows[0]['host']}, {rows[0]['mpi']}")
PY
rm -f "$out"
