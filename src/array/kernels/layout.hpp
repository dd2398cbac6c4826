#pragma once
/// @file layout.hpp
/// @brief Layout changes of array chunks on the device: the transpose of a row-major block (slicing.cpp's
/// transpose_block) and strided 2-D copies, the pack and unpack steps of slicing, rebalance and resplit (a
/// column range of a row block, a row block into a wider one), and compress's selection of items by a mask. Plain
/// moves of bits: bitwise the host's.
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
  /// compress's count: the entries of mask[0, items) that are not 0. Synchronises.
  static std::int64_t count_selected(const Exec& exec, const std::int64_t* mask, std::int64_t items);
  /// compress's selection: the `unit` elements of each item t of `in` (items of unit elements, one after the
  /// other) where mask[t] != 0, in order, into out (count_selected(mask) * unit elements). Synchronises.
  static void select(const Exec& exec, const T* in, const std::int64_t* mask, std::int64_t items, std::int64_t unit,
                     T* out);
};

}  // namespace slab::kernels
