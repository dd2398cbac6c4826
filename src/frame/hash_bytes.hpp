#pragma once
/// @file hash_bytes.hpp
/// @brief FNV-1a over bytes: the hash of a string key's bytes (shuffle) and of a schema signature (frame).

#include <cstdint>
#include <string_view>

namespace slab::frame::detail {

inline std::uint64_t hash_bytes(std::string_view s) noexcept {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

}  // namespace slab::frame::detail
