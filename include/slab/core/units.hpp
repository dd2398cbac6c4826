#pragma once
/// @file units.hpp
/// @brief Byte sizes with units: parsing "2GiB" / "512MB" / "0.8" (a fraction) and printing them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slab {

/// A byte count given either as an absolute size or as a fraction of some total (e.g. device memory).
struct ByteLimit {
  std::optional<std::uint64_t> bytes;  ///< absolute size, when given with a unit or as an integer
  std::optional<double> fraction;      ///< fraction in (0, 1], when given as "0.8" or "80%"

  /// Resolve against `total` (used when the limit is a fraction). Empty limit -> `total`.
  [[nodiscard]] std::uint64_t resolve(std::uint64_t total) const noexcept;
  [[nodiscard]] bool empty() const noexcept { return !bytes && !fraction; }
};

/**
 * @brief Parse a byte size: "1024", "64KiB", "2GiB", "1.5GB", "512 MB", "0" are absolute; "0.8" and "80%"
 * are fractions. Units: B, K/KB (10^3), KiB (2^10), M/MB, MiB, G/GB, GiB, T/TB, TiB (case-insensitive).
 * @throws InvalidArgument naming `what` (the flag or variable) when the text is not a size.
 */
ByteLimit parse_byte_limit(std::string_view text, std::string_view what);

/// Like parse_byte_limit, but fractions are rejected. @throws InvalidArgument naming `what`.
std::uint64_t parse_bytes(std::string_view text, std::string_view what);

/// "1.50 GiB", "512 B", ... (binary units, three significant digits).
std::string format_bytes(std::uint64_t bytes);

}  // namespace slab
