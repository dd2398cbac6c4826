#pragma once
/// @file runtime.hpp
/// @brief slab::Runtime: one per process. Initialises MPI and Kokkos, picks this rank's device, creates the
/// NCCL communicator on GPU builds, and owns the settings and the trace sink.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "slab/runtime/execution_context.hpp"
#include "slab/runtime/options.hpp"
#include "slab/trace/tracer.hpp"

namespace slab {

/// How device buffers travel between ranks.
enum class DeviceCommPath {
  host,          ///< host build: there are no device buffers, everything goes over MPI
  nccl,          ///< one GPU per rank: NCCL
  host_staging,  ///< several ranks share a GPU (NCCL refuses that): copy to host, MPI, copy back
};

std::string_view to_string(DeviceCommPath path) noexcept;

/// What this rank runs on.
struct DeviceInfo {
  int id = -1;                     ///< CUDA device ordinal, -1 on host builds or when no GPU exists
  std::string name = "host";       ///< "NVIDIA A100-SXM4-40GB", or "host"
  std::uint64_t total_memory = 0;  ///< bytes of the device (host build: this rank's share of the node's memory)
  std::string pci_bus_id;          ///< "0000:c1:00.0" for a GPU; empty on the host
};

/**
 * @brief The process-wide runtime.
 *
 * Collective over MPI_COMM_WORLD (construction and destruction). Initialises MPI with at least
 * MPI_THREAD_FUNNELED and Kokkos unless they already are; finalises only what it initialised. With several
 * GPUs per node, local rank r uses device r % count, or, when SLAB_DEVICE_ORDER lists device ordinals
 * ("3,2,1,0": the same list on every rank, e.g. the GPUs in the order of the cores they sit next to), device
 * order[r % n]. That choice is made inside each rank, so it holds under a launcher that rewrites
 * CUDA_VISIBLE_DEVICES per task (Slurm does). Where ranks outnumber the node's GPUs the device path is host
 * staging (reported by slab-info).
 */
class Runtime {
 public:
  /**
   * @brief Read SLAB_* variables, consume the runtime flags from argv (see RuntimeOptions), initialise.
   * @throws InvalidArgument naming the flag or variable, on every rank (every rank parses the same argv).
   */
  Runtime(int& argc, char**& argv);
  /// Initialise with explicit options (MPI is initialised without arguments if it is not already).
  explicit Runtime(RuntimeOptions options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  [[nodiscard]] MPI_Comm world() const noexcept;
  [[nodiscard]] int rank() const noexcept;
  [[nodiscard]] int size() const noexcept;
  /// Rank among the ranks on this node, and their number.
  [[nodiscard]] int local_rank() const noexcept;
  [[nodiscard]] int local_size() const noexcept;
  [[nodiscard]] const std::string& hostname() const noexcept;
  [[nodiscard]] const DeviceInfo& device() const noexcept;
  [[nodiscard]] DeviceCommPath device_comm_path() const noexcept;

  [[nodiscard]] const RuntimeOptions& options() const noexcept;
  /// The device tier limit in bytes (a fraction resolved against the device's memory).
  [[nodiscard]] std::uint64_t device_memory_limit() const noexcept;
  /// The host tier limit in bytes (a fraction resolved against this rank's share of the node's memory).
  [[nodiscard]] std::uint64_t host_memory_limit() const noexcept;
  /// The folder in which spill directories are made (checked writable at start-up).
  [[nodiscard]] const std::string& spill_root() const noexcept;

  [[nodiscard]] Tracer& tracer() noexcept;

  /// This rank's CUDA stream (an opaque cudaStream_t) on GPU builds with a device; nullptr otherwise.
  [[nodiscard]] void* stream_handle() const noexcept;
  /// Where this rank computes: on its GPU (device tier in GPU memory) with --device-memory / SLAB_DEVICE_MEMORY=1
  /// on a rank with a device, else on the host. Not collective.
  [[nodiscard]] const ExecutionContext& execution() const noexcept;

  /// Seconds of silence after which a neighbouring rank counts as gone (SLAB_LIVENESS_TIMEOUT; see "A rank or
  /// host that disappears" in slab/comm/comm.hpp); 0 when the check is off (one rank, or turned off). Not collective.
  [[nodiscard]] double liveness_timeout() const noexcept;

  /**
   * @brief Collective: write the trace file named by --trace / SLAB_TRACE (no-op without one) and, with
   * --verbose, print the per-rank summary table with the extra columns given. Apps call this at the end.
   * @throws IoError on every rank when the trace cannot be written.
   */
  void finish(const std::vector<std::pair<std::string, std::uint64_t>>& extra_summary_columns = {});

  /// The MPI library's version string, HDF5 and Kokkos versions, CUDA/NCCL where built.
  [[nodiscard]] std::string versions() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

namespace detail {
/// Finalise Kokkos if it is initialised (for programs that own MPI and let a Runtime start Kokkos).
void finalize_kokkos() noexcept;
}  // namespace detail

}  // namespace slab
