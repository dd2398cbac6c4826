#pragma once
/// @file key_words_hd.hpp
/// @brief The per-value arithmetic of frame keys as SLAB_HD functions, one source for host and device:
/// order-preserving key words (frame/key_words.hpp's KeyEncoder), the row hash of shuffle.cpp's hash_rows
/// and its routing (frame/partitioner.hpp), the route hash and multi-word hash of frame/hash_table.hpp, and
/// the sort records of sort.cpp. Each function is bit-for-bit the host expression it mirrors (tests/kernels
/// checks every one against the host code), so the host code can include these later instead of its copies.

#include <cstdint>

#include "core/kernels/counter_rng_hd.hpp"
#include "core/kernels/hd.hpp"

namespace slab::frame::kernels {

using slab::kernels::bits_double;
using slab::kernels::double_bits;
using slab::kernels::mix64;
using slab::kernels::mul_hi64;

inline constexpr std::uint64_t kSign = 0x8000000000000000ull;

/// float64 -> order-preserving word: the IEEE total-order flip with -0.0 -> 0.0 (detail::float_word).
SLAB_HD_INLINE std::uint64_t float_word(double v) noexcept {
  if (v == 0) v = 0.0;
  const std::uint64_t b = double_bits(v);
  return (b & kSign) ? ~b : (b | kSign);
}
/// The inverse of float_word (detail::word_float).
SLAB_HD_INLINE double word_float(std::uint64_t w) noexcept { return bits_double((w & kSign) ? (w & ~kSign) : ~w); }
/// int64 / timestamp -> order-preserving word.
SLAB_HD_INLINE std::uint64_t int_word(std::int64_t v) noexcept { return static_cast<std::uint64_t>(v) ^ kSign; }
SLAB_HD_INLINE std::int64_t word_int(std::uint64_t w) noexcept { return static_cast<std::int64_t>(w ^ kSign); }

/// Routing hash of a one-word key (detail::route_hash).
SLAB_HD_INLINE std::uint64_t route_hash(std::uint64_t key) noexcept { return mix64(key ^ 0x5851F42D4C957F2Dull); }
/// detail::hash_words, one word at a time: h = hash_words_seed; for each word h = hash_words_step(h, w).
inline constexpr std::uint64_t kHashWordsSeed = 0x243F6A8885A308D3ull;
SLAB_HD_INLINE std::uint64_t hash_words_step(std::uint64_t h, std::uint64_t w) noexcept {
  return mix64(h ^ w) + 0x9E3779B97F4A7C15ull;
}

/// hash_rows (shuffle.cpp): h = kRowHashSeed; per key column h = row_hash_step(h, value word), where the value
/// word is the int64 bits, the bool byte, the float bits (float_hash_word), the FNV-1a hash of the string's
/// bytes, or kNullWord for a null.
inline constexpr std::uint64_t kRowHashSeed = 0x12345678ull;
inline constexpr std::uint64_t kNullWord = 0x6e756c6c6e756c6cull;
SLAB_HD_INLINE std::uint64_t row_hash_step(std::uint64_t h, std::uint64_t v) noexcept {
  return mix64(h * 0x9E3779B97F4A7C15ull + mix64(v + 0x632BE59BD9B4E019ull));
}
/// float64 value word of the row hash: -0.0 == 0.0, every NaN the null word.
SLAB_HD_INLINE std::uint64_t float_hash_word(double d) noexcept {
  if (d == 0) d = 0;
  return d != d ? kNullWord : double_bits(d);
}

/// The hash route of the one partitioner (frame/partitioner.hpp's Partitioner::hash(nranks, parts_per_rank)
/// .bucket_of_hash): the hash's high bits scaled to the nranks * parts_per_rank buckets (Lemire's multiply-shift),
/// bucket b being partition b % parts_per_rank of rank b / parts_per_rank.
SLAB_HD_INLINE std::uint32_t shuffle_bucket(std::uint64_t hash, int nranks, int parts_per_rank) noexcept {
  return static_cast<std::uint32_t>(
      mul_hi64(hash, static_cast<std::uint64_t>(nranks) * static_cast<std::uint64_t>(parts_per_rank)));
}
/// A row the route leaves out (slab::frame::kDropRow).
inline constexpr std::uint32_t kDropBucket = 0xFFFFFFFFu;

/// Sort records (sort.cpp's Encoder): per key column a null word then a value word.
SLAB_HD_INLINE std::uint64_t sort_null_word(bool null, bool nulls_first) noexcept {
  return null ? (nulls_first ? 0u : 1u) : (nulls_first ? 1u : 0u);
}
SLAB_HD_INLINE std::uint64_t sort_value_word(std::uint64_t value, bool null, bool ascending) noexcept {
  return null ? 0 : (value ^ (ascending ? 0ull : ~0ull));
}

}  // namespace slab::frame::kernels
