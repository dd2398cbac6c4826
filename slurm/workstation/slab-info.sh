#!/bin/bash
# slab-info on a workstation: one rank per core (host build) or per GPU (CUDA build).
#   slurm/workstation/slab-info.sh 4
set -euo pipefail
ranks="${1:-2}"
shift || true
here="$(cd "$(dirname "$0")/../.." && pwd)"
exec "$here/scripts/mpirun" -n "$ranks" "${SLAB_BUILD:-$here/build}/bin/slab-info" "$@"
