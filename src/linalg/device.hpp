#pragma once
/// @file device.hpp
/// @brief Private: where a linalg task computes (host BLAS, or the rank's GPU when the device tier is GPU memory),
/// as a value the tasks' lambdas copy, and the copies between host vectors and the tier's memory.

#include <cstddef>
#include <cstring>
#include <vector>

#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::linalg::detail {

/// Where the rank computes, as a value the tasks' lambdas copy.
struct Device {
  const ExecutionContext* exec = &ExecutionContext::host();
  [[nodiscard]] bool gpu() const { return exec->on_device(); }
};
inline Device device_of(TaskQueue& q) { return {&q.memory().execution()}; }

/// Host copy of (possibly device) doubles.
inline std::vector<double> to_host(const double* p, std::size_t count, const Device& d) {
  std::vector<double> out(count);
  if (count == 0) return out;
  if (d.gpu())
    slab::copy(out.data(), p, count * sizeof(double), *d.exec);
  else
    std::memcpy(out.data(), p, count * sizeof(double));
  return out;
}
/// Copy host doubles to (possibly device) memory.
inline void from_host(double* dst, const double* src, std::size_t count, const Device& d) {
  if (count == 0) return;
  if (d.gpu())
    slab::copy(dst, src, count * sizeof(double), *d.exec);
  else
    std::memcpy(dst, src, count * sizeof(double));
}

}  // namespace slab::linalg::detail
