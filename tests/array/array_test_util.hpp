#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/comm/comm.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

namespace slab_test {

using Engine = slab::testing::Engine;

/// The matrix f(i, j) row-major.
template <class T, class F>
std::vector<T> reference(std::int64_t rows, std::int64_t cols, F f) {
  std::vector<T> out(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) out[static_cast<std::size_t>(i * cols + j)] = static_cast<T>(f(i, j));
  return out;
}

}  // namespace slab_test
