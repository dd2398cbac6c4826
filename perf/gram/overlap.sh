#!/bin/bash
# X X^T with and without the read/dsyrk overlap (slab-gram --no-overlap): the streaming pass's time (max over
# ranks), alternating the two modes, REPS times each, at each rank count. The figures in the commit that added
# the overlap came from:
#   perf/gram/overlap.sh build/bin 400 300000 "1 2"     # and: perf/gram/overlap.sh build/bin 200 600000 1
# Usage: perf/gram/overlap.sh BIN_DIR ROWS COLS "NPS" [REPS] [MEMORY_LIMIT]   (X goes to ${TMPDIR:-/tmp})
set -euo pipefail
bin=${1:?bin dir}; rows=${2:?rows}; cols=${3:?cols}; nps=${4:-1}; reps=${5:-3}; limit=${6:-64MiB}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
file=${TMPDIR:-/tmp}/slab-gram-overlap-${rows}x${cols}.h5
[ -f "$file" ] || mpirun --oversubscribe -np 2 "$bin/slab-gram" --generate-file "$file" --rows "$rows" --cols "$cols" >/dev/null
echo "# $(uname -n), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg); X $rows x $cols float64; --memory-limit $limit"
for np in $nps; do for rep in $(seq "$reps"); do for mode in --no-overlap ""; do
  mpirun --oversubscribe -np "$np" "$bin/slab-gram" --input "$file:/X" --output "$file:/Y" --memory-limit "$limit" \
    $mode --json 2>&1 | tail -1 | python3 -c '
import json, sys
d = json.load(sys.stdin); c = d["checks"]
print("np=%d overlap=%d pass=%.3f read=%.3f syrk=%.3f reduce=%.4f write=%.4f blocks=%d sum_Y=%r" % (
    d["ranks"], c["overlap"], c["pass_seconds_max"], c["read_seconds_max"], c["syrk_seconds_max"],
    c["reduce_seconds"], c["write_seconds"], c["blocks"], c["sum_Y"]))'
done; done; done
