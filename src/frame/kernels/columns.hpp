#pragma once
/// @file columns.hpp
/// @brief How the frame kernels see batch columns: a type, a values pointer and an optional validity mask, all
/// in the backend's memory (device memory for Cuda). Values have the batch layout (batch.hpp): int64, timestamp
/// and float64 as 8-byte values, boolean as one byte 0/1, string as int32 codes into the sorted dictionary
/// (-1 null); validity one byte per row, 1 = valid, nullptr = every row valid. No CUDA header.

#include <cstdint>

#include "slab/core/element_type.hpp"

namespace slab::frame::kernels {

/// One column of a batch, on the backend.
struct ColumnView {
  ElementType type = ElementType::int64;
  const void* data = nullptr;
  const std::uint8_t* valid = nullptr;  ///< 1 = valid; nullptr = all valid
};

/// Key columns per call: enough for any key tuple slab packs or sorts (more is rejected with InvalidArgument).
inline constexpr int kMaxKeyColumns = 8;
/// Key words per call (a null flag word and a value word per key column, plus one).
inline constexpr int kMaxKeyWords = 2 * kMaxKeyColumns + 1;

}  // namespace slab::frame::kernels
