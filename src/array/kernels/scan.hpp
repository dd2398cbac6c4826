#pragma once
/// @file scan.hpp
/// @brief The running sums of slab::cumsum (src/array/scan.cpp) on the device: a chunk's prefix sums from 0 and
/// the offset of the chunks before it added to them, the host's two steps. Integer sums wrap modulo 2^64 (int32
/// values are summed in int64, as NumPy's). Floats sum in core/kernels/ordered_scan.inl's fixed order on both
/// backends (the same bits every run): the host's element-order bits through the first 128 values and on exactly
/// summable data, within rounding otherwise (../shared/GPU.md's contract for float sums). Entry points of
/// scan.inl; (T, S) = (double, double), (float, float), (int32, int64), (int64, int64).

#include <cstdint>

#include "core/kernels/exec.hpp"

namespace slab::kernels {

template <class B, class T, class S>
struct ScanKernels {
  /// out[k] = x[0] + ... + x[k] in S, from 0 (x and out backend memory, n >= 0). Asynchronous.
  static void prefix(const Exec& exec, const T* x, std::int64_t n, S* out);
  /// out[k] = offset + p[k] (p and out may be the same). Asynchronous.
  static void add_offset(const Exec& exec, const S* p, std::int64_t n, S offset, S* out);
};

}  // namespace slab::kernels
