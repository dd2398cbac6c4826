#pragma once
/// @file reservation.hpp
/// @brief slab::Reservation: bytes of the device tier (or, from MemoryManager::reserve_host, the host tier) set aside
/// for one purpose (a groupby's partial state, a merge's broadcast side, the Gram's accumulator, device scratch), in
/// the spirit of rapidsmpf's BufferResource::reserve. Reserved bytes count against the device limit exactly as resident
/// buffers do (they appear in MemoryStats::device and its high-water), so other buffers spill to make room for them;
/// they are never spilled themselves. Memory an algorithm keeps outside the task queue's buffers is honest only when it
/// is reserved first. Not collective.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "slab/memory/buffer.hpp"
#include "slab/memory/tier.hpp"

namespace slab {

/**
 * @brief An RAII hold on device-tier bytes, made by MemoryManager::reserve / reserve_share. Move-only; what is
 * left is released when it goes (the manager may already be gone: then nothing happens). Thread-safe as Buffer.
 */
class Reservation {
 public:
  /** @brief An empty reservation (size 0, no purpose). */
  Reservation() = default;
  Reservation(Reservation&& other) noexcept;
  Reservation& operator=(Reservation&& other) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  /** @brief Release what is left. Never throws. */
  ~Reservation();

  /** @brief Bytes held now. Never throws. */
  [[nodiscard]] std::uint64_t size() const noexcept { return bytes_; }
  /** @brief What the bytes are for (the trace and the report group reservations by it). Never throws. */
  [[nodiscard]] const std::string& purpose() const noexcept { return purpose_; }
  /** @brief The tier the bytes are held on: device (MemoryManager::reserve) or host (reserve_host). */
  [[nodiscard]] Tier tier() const noexcept { return tier_; }

  /**
   * @brief Hold `bytes` more if the reservation's tier can make room for them by spilling unpinned buffers (to
   * disk, for the host tier); nothing changes when it cannot. @throws OutOfMemory or IoError only when a spill
   * this needs fails.
   */
  [[nodiscard]] bool try_grow(std::uint64_t bytes);
  /** @brief Give back `bytes` (at most size()). Never throws. */
  void shrink(std::uint64_t bytes) noexcept;
  /** @brief Give everything back now. Never throws. */
  void release() noexcept;

  /**
   * @brief A buffer made from this reservation's bytes: they move from the reservation to the buffer, so no new
   * room is needed and the device tier's usage does not change. The buffer is resident, unpinned, most recently
   * used. @throws OutOfMemory when `bytes` > size(); InvalidArgument for a host reservation.
   */
  [[nodiscard]] BufferPtr allocate(std::uint64_t bytes, std::string_view label = {});

 private:
  friend class MemoryManager;
  Reservation(std::shared_ptr<detail::MemoryState> state, std::string purpose, std::uint64_t bytes,
              Tier tier = Tier::device)
      : state_(std::move(state)), purpose_(std::move(purpose)), bytes_(bytes), tier_(tier) {}

  std::shared_ptr<detail::MemoryState> state_;
  std::string purpose_;
  std::uint64_t bytes_ = 0;
  Tier tier_ = Tier::device;
};

}  // namespace slab
