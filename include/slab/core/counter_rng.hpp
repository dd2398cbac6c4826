#pragma once
/// @file counter_rng.hpp
/// @brief Counter-based random numbers: the value at global index i depends only on (stream, i), never on
/// rank count or chunking. This is the SplitMix64 hash of docs/WORKLOADS.md, so inputs generated
/// here are bit-identical to the peers' (NumPy, Dask) generators.

#include <cstdint>

namespace slab {

/// SplitMix64's finaliser.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// h(s, i): the first SplitMix64 output for state (s << 40) + i. Stream s < 2^20, index i < 2^40.
constexpr std::uint64_t counter_hash(std::uint64_t stream, std::uint64_t index) noexcept {
  return mix64((stream << 40) + index + 0x9E3779B97F4A7C15ull);
}

/// U(s, i): uniform in [0, 1), exact: the top 53 bits of h(s, i) times 2^-53.
constexpr double counter_uniform(std::uint64_t stream, std::uint64_t index) noexcept {
  return static_cast<double>(counter_hash(stream, index) >> 11) * 0x1p-53;
}

}  // namespace slab
