#pragma once
/// @file tier.hpp
/// @brief The three places a buffer's bytes can live, fastest first.

#include <cstdint>
#include <string_view>

namespace slab {

/**
 * @brief Where a buffer's bytes are resident.
 *
 * `device` is the accelerator's memory on a GPU build; on a host build (or with `use_gpu = false`) it is
 * ordinary host memory accounted against the device limit, so the rank's "device" is the host.
 * `host` is host memory accounted against the host limit; `disk` is a spill file in the rank's private
 * spill directory.
 */
enum class Tier : std::uint8_t { device = 0, host = 1, disk = 2 };

/// The number of tiers, for arrays indexed by Tier.
inline constexpr int tier_count = 3;

/** @brief "device", "host" or "disk". Not collective; does not throw. */
constexpr std::string_view to_string(Tier tier) noexcept {
  switch (tier) {
    case Tier::device:
      return "device";
    case Tier::host:
      return "host";
    case Tier::disk:
      return "disk";
  }
  return "?";
}

}  // namespace slab
