#!/bin/bash
# The environment every slab job on Perlmutter GPU nodes loads (sourced by the *.sbatch scripts here).
# Build slab with the same modules: see README, "Running on Perlmutter".

# Compilers, CUDA, Cray MPICH's GPU library (craype-accel-nvidia80 targets the A100) and parallel HDF5.
module load PrgEnv-gnu cudatoolkit craype-accel-nvidia80 cray-hdf5-parallel
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

# One rank per GPU. Every rank sees all four GPUs (srun --gpu-bind=none) and slab picks device
# local_rank % 4 itself, so NCCL can use NVLink between the node's GPUs. Perlmutter numbers its GPUs in the
# reverse order of the CPU cores (check with `nvidia-smi topo -m`): listing them backwards, the same list for
# every rank, gives local rank 0 (cores 0-31) the GPU next to its cores.
export CUDA_VISIBLE_DEVICES=3,2,1,0
# --cpus-per-task=32: 32 hardware threads (16 cores, a quarter of the node) per rank; host-side BLAS threads.
export SLURM_CPU_BIND=cores
export OMP_NUM_THREADS=8 OPENBLAS_NUM_THREADS=8

# Spill files on the all-flash scratch file system (node-local /tmp is memory on Perlmutter).
export SLAB_SPILL_DIR="${SLAB_SPILL_DIR:-$PSCRATCH/slab-spill}"
mkdir -p "$SLAB_SPILL_DIR"
export SLAB_BUILD="${SLAB_BUILD:-${SLURM_SUBMIT_DIR:-.}/build}"
