#pragma once
/// @file creation.hpp
/// @brief Counter-based array creation on the device (random_uniform / random_normal of
/// slab/array/creation.hpp): element (i, j) depends only on the seed and its flat global index i * cols + j, so a
/// chunk made on the GPU holds bitwise the host's values for the uniform (integer arithmetic and one exact
/// conversion) and for the normal (the shared counter_normal() of core/kernels/counter_rng_hd.hpp, which the host
/// generator calls too); full, arange, linspace and
/// eye by pattern_hd.hpp's formulas, the host's own, so bitwise. Entry points of creation.inl.

#include <cstdint>

#include "array/kernels/pattern_hd.hpp"
#include "core/kernels/exec.hpp"

namespace slab::kernels {

/// A chunk's place in the global array (slab::ChunkExtent): rows x cols from (row0, col0), row-major.
struct BlockExtent {
  std::int64_t row0 = 0, col0 = 0, rows = 0, cols = 0;
};

template <class B>
struct CreationKernels {
  /// out (e.rows x e.cols, row-major) = random_uniform(seed, low, high) at extent e of an array with
  /// `global_cols` columns. Asynchronous.
  static void uniform(const Exec& exec, std::uint64_t seed, double low, double high, const BlockExtent& e,
                      std::int64_t global_cols, double* out);
  /// out = random_normal(seed, mean, stddev) at extent e (counter_normal). Asynchronous.
  static void normal(const Exec& exec, std::uint64_t seed, double mean, double stddev, const BlockExtent& e,
                     std::int64_t global_cols, double* out);
  /// out (e.rows x e.cols, row-major) = p.at<T>(global row, global column) at extent e. Asynchronous.
  static void pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, double* out);
  static void pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, float* out);
  static void pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, std::int64_t* out);
  static void pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, std::int32_t* out);
};

}  // namespace slab::kernels
