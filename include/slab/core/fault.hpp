#pragma once
/// @file fault.hpp
/// @brief Test-only fault injection: make one rank fail at a chosen occurrence of a named site.
///
/// Set `SLAB_FAULT=site:rank:step[:action]` in the environment (read once, at the first fault point) and
/// the `step`-th call (0-based, counted per rank) of `fault_point("site")` on MPI world rank `rank` fails:
/// action `throw` (the default) throws slab::InjectedFault; `kill` sends this process SIGKILL (a crash mid-
/// operation, for the atomic-output tests); `cuda` throws slab::CudaError as a failed CUDA call does (the message
/// still begins "injected fault at"). `rank` may be `*` (every rank). Several faults are separated by
/// commas. Unset, a fault point costs one predictable branch on a flag cached at load time.
///
/// Sites in the library: `allreduce`, `alltoallv` (comm collectives), `tsqr_level` (each level of the TSQR
/// tree), `hdf5_write` (a dataset writer's commit, after the data is flushed and before the dataset is
/// moved into place), `spill` (while a spill file is being written), `partition_read` (frame::view_chunk: a
/// partition read outside a task, as the collective frame operations make before an exchange), `device_kernel`
/// (a frame device path's kernels inside its task, on a GPU or the reference place).

#include <string_view>

#include "slab/core/error.hpp"

namespace slab {

/// The error a fault point throws; never raised outside tests that set SLAB_FAULT.
class InjectedFault : public Error {
 public:
  using Error::Error;
  [[nodiscard]] const char* kind() const noexcept override { return "InjectedFault"; }
};

namespace detail {
/// True when SLAB_FAULT was set when the library was loaded.
extern const bool g_fault_armed;
/// Counts the occurrence of `site` and fails when it is the chosen one.
void fault_hit(std::string_view site, const char* file, int line);
}  // namespace detail

/// Whether fault injection is armed for this process (SLAB_FAULT set).
[[nodiscard]] inline bool fault_injection_armed() noexcept { return detail::g_fault_armed; }

}  // namespace slab

/// Mark a fault site. Throws slab::InjectedFault (or kills the process) when SLAB_FAULT selects it.
/// @throws InvalidArgument naming SLAB_FAULT when the variable is malformed.
#define SLAB_FAULT_POINT(site)                               \
  do {                                                       \
    if (::slab::detail::g_fault_armed) [[unlikely]]          \
      ::slab::detail::fault_hit((site), __FILE__, __LINE__); \
  } while (0)
