#pragma once
/// @file layout.hpp
/// @brief Layout changes of array chunks on the device: the transpose of a row-major block (slicing.cpp's
/// transpose_block) and strided 2-D copies, the pack and unpack steps of slicing, rebalance and resplit (a
/// column range of a row block, a row block into a wider one). Plain moves of bits: bitwise the host's.
/// Entry points of layout.inl; T = float, double or std::int64_t (any 4- or 8-byte type moves as such).

#include <cstdint>

#include "core/kernels/exec.hpp"

namespace slab::kernels {

template <class B, class T>
struct LayoutKernels {
  /// out[j * rows + i] = in[i * cols + j]: in rows x cols row-major, out cols x rows row-major. Asynchronous.
  static void transpose(const Exec& exec, const T* in, std::int64_t rows, std::int64_t cols, T* out);
  /// dst[i * dst_ld + j] = src[i * src_ld + j] for i < rows, j < cols (leading dimensions in elements; the
  /// ranges must not overlap). Asynchronous.
  static void copy_2d(const Exec& exec, const T* src, std::int64_t src_ld, std::int64_t rows, std::int64_t cols, T* dst,
                      std::int64_t dst_ld);
};

}  // namespace slab::kernels
