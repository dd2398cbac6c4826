#pragma once
// Helpers for the groupby/merge tests: an engine per test, deterministic per-rank input tables, and
// rows of a gathered table as comparable tuples.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/frame.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

namespace ops_test {

using Engine = slab::testing::Engine;

/// Rows [begin, end) of a global row range for this rank (balanced blocks).
inline std::pair<std::int64_t, std::int64_t> my_range(std::int64_t n, int rank, int size) {
  return {n * rank / size, n * (rank + 1) / size};
}

/// A value of a cell as a string (for sorting and comparing rows), "null" for nulls, floats rounded.
inline std::string cell(const slab::frame::LocalColumn& c, std::size_t r) {
  using slab::ElementType;
  if (c.is_null(r)) return "null";
  switch (c.type) {
    case slab::ElementType::int64:
    case slab::ElementType::timestamp:
      return std::to_string(c.ints[r]);
    case slab::ElementType::boolean:
      return c.bools[r] ? "T" : "F";
    case slab::ElementType::string:
      return c.strings[r];
    case slab::ElementType::float64: {
      char b[64];
      std::snprintf(b, sizeof b, "%.9g", c.floats[r]);
      return b;
    }
  }
  return "?";
}

}  // namespace ops_test
