#pragma once
/// @file resample_hd.hpp
/// @brief resample's bin arithmetic, one source for the host loop (resample.cpp) and the device kernels
/// (resample.inl): a time's bin is origin + floor((t - origin) / freq) * freq for t >= origin. In unsigned
/// 64-bit arithmetic the difference and the result are exact (both lie in [origin, t]), so no 128-bit integer is
/// needed where times span centuries.

#include <cstdint>

#include "core/kernels/hd.hpp"

namespace slab::frame::kernels {

/// The start of the bin of t (t >= origin, freq > 0).
SLAB_HD_INLINE std::int64_t resample_bin(std::int64_t t, std::int64_t origin, std::int64_t freq) noexcept {
  const std::uint64_t d = static_cast<std::uint64_t>(t) - static_cast<std::uint64_t>(origin);
  const auto f = static_cast<std::uint64_t>(freq);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(origin) + d / f * f);
}

/// The j-th bin from lo: lo + j freq, in wrapping arithmetic (the bins a partition fills lie within int64).
SLAB_HD_INLINE std::int64_t resample_nth_bin(std::int64_t lo, std::int64_t j, std::int64_t freq) noexcept {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) +
                                   static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(freq));
}

}  // namespace slab::frame::kernels
