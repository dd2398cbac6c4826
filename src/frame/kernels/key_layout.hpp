#pragma once
/// @file key_layout.hpp
/// @brief The host side of key encoding: a KeyEncoder's layout decision (frame/key_words.hpp) as the kernels'
/// KeyLayout. Host code only (the encoder is a host object); no CUDA, no Thrust.

#include <string>

#include "frame/kernels/key_encode.hpp"
#include "frame/key_words.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {

/// The layout `enc` encodes with (call after its set_ranges / set_unpacked).
/// @throws InvalidArgument for more than kMaxKeyColumns key columns.
inline KeyLayout layout_of(const frame::detail::KeyEncoder& enc) {
  SLAB_EXPECTS(enc.cols.size() <= static_cast<std::size_t>(kMaxKeyColumns), InvalidArgument,
               "key kernels: " + std::to_string(enc.cols.size()) + " key columns (at most " +
                   std::to_string(kMaxKeyColumns) + ")");
  KeyLayout l;
  l.ncols = static_cast<int>(enc.cols.size());
  l.dropna = enc.dropna;
  l.packed = enc.packed;
  for (int w = 0; w < enc.nwords; ++w) {
    l.lo[w] = enc.lo[static_cast<std::size_t>(w)];
    l.span[w] = enc.span[static_cast<std::size_t>(w)];
  }
  return l;
}

/// The radix sort's end bit of each of the encoder's width() words: bits_for(range - 1) when packed, else the
/// value words' full 64 bits and the null flags' one bit.
inline void key_bits(const frame::detail::KeyEncoder& enc, int* bits) {
  if (enc.packed) {
    bits[0] = 64 - std::countl_zero(enc.range > 0 ? enc.range - 1 : 0);
    return;
  }
  for (int w = 0; w < enc.nwords; ++w) bits[w] = !enc.dropna && w % 2 == 0 ? 1 : 64;
}

}  // namespace slab::frame::kernels
