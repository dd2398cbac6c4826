#pragma once
// Helpers for the comm tests: per-rank data f(r, i), the reference binomial-tree order, and a check that a
// string is identical on every rank (computed with raw MPI, so it does not rely on the layer under test).
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "slab/comm/comm.hpp"

namespace slab_test {

/// Restores the default piece size when a test that shrank it ends.
struct MaxMessageGuard {
  explicit MaxMessageGuard(std::size_t bytes) : saved(slab::detail::max_message_bytes()) {
    slab::detail::set_max_message_bytes(bytes);
  }
  ~MaxMessageGuard() { slab::detail::set_max_message_bytes(saved); }
  std::size_t saved;
};

inline std::int64_t f(int r, std::size_t i) {
  return static_cast<std::int64_t>(r) * 100003 + static_cast<std::int64_t>(i);
}
inline double g(int r, std::size_t i) {
  return 1.0 / (r + 1.0 + 0.37 * static_cast<double>(i % 17)) + 1e-9 * static_cast<double>(i);
}

/// Serial replica of the fixed binomial tree: combine(acc, other) in the order the layer uses.
template <class T>
T tree_fold(std::vector<T> parts, const std::function<void(T&, const T&)>& combine) {
  const int p = static_cast<int>(parts.size());
  for (int d = 1; d < p; d *= 2)
    for (int r = 0; r + d < p; r += 2 * d)
      combine(parts[static_cast<std::size_t>(r)], parts[static_cast<std::size_t>(r + d)]);
  return parts[0];
}

/// True on every rank iff `s` is the same string on every rank.
inline bool same_on_all_ranks(const std::string& s) {
  const std::uint64_t h = std::hash<std::string>{}(s);
  std::uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

/// This rank fails on its own (IoError "lost block 7") and agrees, as the task queue and App::run do with an
/// error only one rank has: it meets the other ranks at their next agreement point.
inline void fail_alone_and_agree(const slab::Comm& comm) {
  std::exception_ptr error;
  try {
    SLAB_FAIL(slab::IoError, "lost block 7");
  } catch (...) {
    error = std::current_exception();
  }
  comm.agree(error);
}

}  // namespace slab_test
