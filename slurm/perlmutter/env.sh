#!/bin/bash
# The environment every slab job loads (sourced by the *.sbatch scripts here). Perlmutter's GPU nodes are the
# default; each site-specific line reads a variable, so the same scripts run on another Slurm cluster (the
# test cluster of scripts/cluster/ included). Set these in the environment before sbatch (sbatch exports it):
#
#   SLAB_SITE=perlmutter|generic  perlmutter (default): its modules and the NCCL/MPICH/libfabric settings below
#   SLAB_MODULES="..."            modules to load (default Perlmutter's; "" loads none)
#   SLAB_SCRATCH=DIR              a folder every node sees (default $PSCRATCH): spill folders, run folders
#   SLAB_SRUN_MPI=TYPE            srun --mpi= (default: the site's MpiDefault or $SLURM_MPI_TYPE; pmix elsewhere)
#   SLAB_GPU_BIND=...             srun --gpu-bind= (default none; "" leaves it to Slurm)
#   SLAB_CPU_BIND=...             srun --cpu-bind= (default cores)
#   SLAB_DEVICE_ORDER=3,2,1,0     the GPU local rank 0, 1, ... takes (default Perlmutter's; "" = local rank)
#   SLAB_CPUS_PER_CORE=N          hardware threads per core (default 2), for the BLAS/OpenMP thread count
#   SLAB_SPILL_DIR=DIR            where the per-job spill folder is made (default $SLAB_SCRATCH/slab-spill)
#
# The #SBATCH lines of the scripts are Perlmutter's too; sbatch's own options override them, e.g.
#   sbatch -N 2 --constraint= --gpus-per-node=0 --qos= --ntasks-per-node=2 --cpus-per-task=1 slurm/perlmutter/...
# Build slab with the same modules: see README, "Running on a cluster".

slab_env_fail() {
  echo "env.sh: $*" >&2
  exit 2
}
[ -n "${SLURM_JOB_ID:-}" ] || slab_env_fail "not inside a Slurm job (submit the .sbatch script with sbatch)"
SLAB_SITE="${SLAB_SITE:-perlmutter}"
case "$SLAB_SITE" in perlmutter | generic) ;; *) slab_env_fail "SLAB_SITE='$SLAB_SITE': use perlmutter or generic" ;; esac

# Compilers, CUDA, Cray MPICH's GPU library (craype-accel-nvidia80 targets the A100) and parallel HDF5.
if [ "$SLAB_SITE" = perlmutter ]; then
  SLAB_MODULES="${SLAB_MODULES-PrgEnv-gnu cudatoolkit craype-accel-nvidia80 cray-hdf5-parallel}"
fi
if [ -n "${SLAB_MODULES:-}" ]; then
  command -v module >/dev/null 2>&1 || type module >/dev/null 2>&1 ||
    slab_env_fail "no 'module' command here, so '$SLAB_MODULES' cannot be loaded: not Perlmutter? Set SLAB_SITE=generic (or SLAB_MODULES=\"\") and load your toolchain yourself"
  # shellcheck disable=SC2086
  module load $SLAB_MODULES || slab_env_fail "module load $SLAB_MODULES failed"
fi

if [ "$SLAB_SITE" = perlmutter ]; then
  # NCCL and its libfabric plugin (aws-ofi-nccl): without the plugin NCCL falls back to TCP sockets on
  # Slingshot, 2-3x slower between nodes. `module avail nccl` lists the versions.
  module load nccl 2>/dev/null || echo "env.sh: no nccl module; NCCL from cudatoolkit (check NCCL_DEBUG=INFO)" >&2
  # slab gives MPI host buffers only (device buffers go over NCCL), so MPI's GPU support stays off; set it to 1
  # only if your own code passes device pointers to MPI (the binary must then link the GTL library).
  export MPICH_GPU_SUPPORT_ENABLED=0
  # Use the Slingshot NIC closest to each rank's GPU (four NICs per node, one per GPU).
  export MPICH_OFI_NIC_POLICY=GPU
  # NCCL over Slingshot 11: force the libfabric plugin (fail rather than silently use TCP), GPU-direct RDMA,
  # the high-speed interfaces only, rings/trees may cross NICs.
  export NCCL_NET="AWS Libfabric"
  export NCCL_NET_GDR_LEVEL=PHB
  export NCCL_CROSS_NIC=1
  export NCCL_SOCKET_IFNAME=hsn
  export FI_CXI_DISABLE_HOST_REGISTER=1
  export FI_MR_CACHE_MONITOR=userfaultfd
  # Check once per job that NCCL found the plugin: the log should say "Using network AWS Libfabric".
  export NCCL_DEBUG="${NCCL_DEBUG:-WARN}"
  # slab's liveness ring (heartbeats between ranks) on the high-speed network too.
  export SLAB_LIVENESS_IFNAME="${SLAB_LIVENESS_IFNAME:-hsn}"
fi

# One rank per GPU. Every rank sees all the node's GPUs (srun --gpu-bind=none) and slab picks its own. Slurm
# rewrites CUDA_VISIBLE_DEVICES in every task, so the order goes in SLAB_DEVICE_ORDER, which the runtime reads
# inside each rank: local rank r takes GPU order[r]. Perlmutter numbers its GPUs in the reverse order of the
# CPU cores (check with `nvidia-smi topo -m`): 3,2,1,0 gives local rank 0 (cores 0-31) the GPU next to them.
# `slab-info` shows the GPU and PCI bus id each rank got.
if [ "$SLAB_SITE" = perlmutter ]; then
  export SLAB_DEVICE_ORDER="${SLAB_DEVICE_ORDER-3,2,1,0}"
fi

# srun does not inherit --cpus-per-task since Slurm 22.05: pass it, or --cpu-bind=cores pins each rank to one
# core. BLAS/OpenMP threads: one per core of the rank's share (32 hardware threads = 16 cores on Perlmutter).
cpus="${SLURM_CPUS_PER_TASK:-1}"
threads=$((cpus / ${SLAB_CPUS_PER_CORE:-2}))
((threads >= 1)) || threads=1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$threads}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-$threads}"

# Folders every node sees.
if [ -z "${SLAB_SCRATCH:-}" ]; then
  [ -n "${PSCRATCH:-}" ] || slab_env_fail "set SLAB_SCRATCH to a folder every node sees (on Perlmutter: \$PSCRATCH, which is not set here)"
  SLAB_SCRATCH="$PSCRATCH"
fi
[ -d "$SLAB_SCRATCH" ] && [ -w "$SLAB_SCRATCH" ] || slab_env_fail "SLAB_SCRATCH='$SLAB_SCRATCH' is not a writable folder"
export SLAB_SCRATCH

# Spill files of this job in a folder of its own (node-local /tmp is memory on Perlmutter; the default is the
# flash scratch), removed when the batch script ends however it ends: a rank killed with SIGKILL cannot remove
# its own files, and without this they would pile up in the shared folder.
spill_root="${SLAB_SPILL_DIR:-$SLAB_SCRATCH/slab-spill}"
export SLAB_SPILL_DIR="$spill_root/job-$SLURM_JOB_ID"
mkdir -p "$SLAB_SPILL_DIR" || slab_env_fail "cannot make the spill folder $SLAB_SPILL_DIR"
# shellcheck disable=SC2064
trap "rm -rf '$SLAB_SPILL_DIR'" EXIT

export SLAB_BUILD="${SLAB_BUILD:-${SLURM_SUBMIT_DIR:-.}/build}"
[ -d "$SLAB_BUILD/bin" ] || slab_env_fail "no slab build in SLAB_BUILD='$SLAB_BUILD' (build there first, or set SLAB_BUILD)"

# srun with what every slab step needs: -K ends the step when any rank fails (the other ranks would wait for
# it), -c gives each rank its CPUs, the bindings above, the MPI plugin.
slab_srun() {
  local args=(-K -c "$cpus" --cpu-bind="${SLAB_CPU_BIND:-cores}")
  if [ -n "${SLAB_GPU_BIND-none}" ]; then args+=(--gpu-bind="${SLAB_GPU_BIND-none}"); fi
  if [ -n "${SLAB_SRUN_MPI:-}" ]; then args+=(--mpi="$SLAB_SRUN_MPI"); fi
  srun "${args[@]}" "$@"
}
