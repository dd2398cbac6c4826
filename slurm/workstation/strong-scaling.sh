#!/bin/bash
# Strong scaling on a workstation: the same as slurm/perlmutter/strong-scaling.sbatch, over ranks instead of
# nodes; perf/scaling/run.py does the runs and writes the CSV and plots.
#   slurm/workstation/strong-scaling.sh 1,2,4 slab-svd --generate --rows 200000 --cols 256
set -euo pipefail
ranks="${1:?usage: strong-scaling.sh RANKS(1,2,4) APP [APP ARGS...]}"
app="${2:?usage: strong-scaling.sh RANKS APP [APP ARGS...]}"
shift 2
here="$(cd "$(dirname "$0")/../.." && pwd)"
exec python3 "$here/perf/scaling/run.py" --app "$app" --ranks "$ranks" --build "${SLAB_BUILD:-$here/build}" -- "$@"
