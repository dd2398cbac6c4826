#!/bin/bash
# Any slab app on a workstation with plain mpirun: one rank per core (host build) or per GPU (CUDA build;
# each rank picks GPU local_rank % count itself, so do not set CUDA_VISIBLE_DEVICES per rank).
#   slurm/workstation/run.sh 2 slab-tour
#   slurm/workstation/run.sh 4 slab-svd --generate --rows 400000 --cols 1000 --json
# scripts/mpirun adds --oversubscribe, root permission and one BLAS thread per rank.
set -euo pipefail
ranks="${1:?usage: run.sh RANKS APP [APP ARGS...]}"
app="${2:?usage: run.sh RANKS APP [APP ARGS...]}"
shift 2
here="$(cd "$(dirname "$0")/../.." && pwd)"
exec "$here/scripts/mpirun" -n "$ranks" "${SLAB_BUILD:-$here/build}/bin/$app" "$@"
