#pragma once
/// @file checksum.hpp
/// @brief A fast 64-bit non-cryptographic checksum (the XXH64 algorithm) for spill files.
///
/// Spill throughput must stay close to the disk's write bandwidth, so the checksum has to run at several
/// GB/s: XXH64 consumes 32-byte stripes with four independent multiply-rotate lanes, which the CPU
/// pipelines. It detects corruption and truncation, not tampering.

#include <cstddef>
#include <cstdint>

namespace slab {

/**
 * @brief Incremental XXH64: feed the data in pieces of any size; digest() equals checksum64() of the
 * concatenation. Not collective; never throws.
 */
class Checksum64 {
 public:
  /** @brief Start a new digest with `seed`. */
  explicit Checksum64(std::uint64_t seed = 0) noexcept;
  /** @brief Add `bytes` bytes at `data` (may be null when `bytes` is 0). */
  void update(const void* data, std::size_t bytes) noexcept;
  /** @brief The digest of everything added so far; update() may continue afterwards. */
  [[nodiscard]] std::uint64_t digest() const noexcept;

 private:
  std::uint64_t lanes_[4];
  std::uint64_t seed_;
  std::uint64_t total_ = 0;
  unsigned char tail_[32];
  std::size_t tail_size_ = 0;
};

/** @brief XXH64 of `bytes` bytes at `data` with `seed`. Not collective; never throws. */
std::uint64_t checksum64(const void* data, std::size_t bytes, std::uint64_t seed = 0) noexcept;

}  // namespace slab
