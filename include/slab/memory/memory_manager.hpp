#pragma once
/// @file memory_manager.hpp
/// @brief Per-rank memory: buffers in three tiers (device, host, disk), byte accounting against limits,
/// reserve-before-allocate, LRU spilling with checksummed spill files. Modelled on rapidsmpf's
/// BufferResource / SpillManager. Nothing here is collective: each rank has its own manager.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "slab/memory/buffer.hpp"
#include "slab/memory/reservation.hpp"
#include "slab/memory/tier.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/runtime/staging_block.hpp"

namespace slab {

class Tracer;

/// Limits and settings of one rank's MemoryManager.
struct MemoryConfig {
  std::uint64_t device_limit = 0;         ///< bytes resident on the device tier may never exceed this
  std::uint64_t host_limit = 0;           ///< bytes resident on the host tier may never exceed this
  std::uint64_t disk_limit = UINT64_MAX;  ///< cap on spilled payload bytes in the spill directory
  std::string spill_root;    ///< folder in which the private spill directory is made; empty: $TMPDIR or /tmp
  /// Where the rank computes: the device tier is GPU memory (a stream-ordered pool on its stream) when
  /// execution->on_device(), else host memory. Null: a host context. Must outlive the manager.
  const ExecutionContext* execution = nullptr;
  Tracer* tracer = nullptr;  ///< spill/reload events and memory samples go here when set
};

/// Bytes resident in one tier.
struct TierUsage {
  std::uint64_t current = 0;     ///< bytes resident now (on the device tier: reserved bytes included)
  std::uint64_t high_water = 0;  ///< the most ever resident at once
  std::uint64_t buffers = 0;     ///< buffers resident now
};

/// Counters of one MemoryManager since construction.
struct MemoryStats {
  TierUsage device;  ///< device tier (high_water never exceeds MemoryConfig::device_limit)
  TierUsage host;
  TierUsage disk;                     ///< payload bytes in spill files (the 32-byte file headers are not counted)
  std::uint64_t pinned_bytes = 0;     ///< bytes of buffers pinned now
  std::uint64_t reserved_bytes = 0;   ///< device-tier bytes held by reservations now (part of device.current)
  std::uint64_t host_reserved_bytes = 0;  ///< host-tier bytes held by reservations now (part of host.current)
  StagingPoolStats staging;               ///< the context's staging pool (staging_block): blocks given, reused, kept
  /// The most each purpose held in reservations at once (Reservation::purpose()).
  std::map<std::string, std::uint64_t> reserved_peak_by_purpose;
  std::uint64_t allocated_bytes = 0;  ///< total ever allocated
  std::uint64_t allocated_count = 0;
  std::uint64_t spilled_to_host_bytes = 0;  ///< device -> host
  std::uint64_t spilled_to_host_count = 0;
  std::uint64_t spilled_to_disk_bytes = 0;  ///< host -> disk, and device -> disk when the host tier is too small
  std::uint64_t spilled_to_disk_count = 0;
  std::uint64_t reloaded_from_host_bytes = 0;  ///< host -> device
  std::uint64_t reloaded_from_host_count = 0;
  std::uint64_t reloaded_from_disk_bytes = 0;  ///< disk -> device
  std::uint64_t reloaded_from_disk_count = 0;
  double spill_seconds = 0;   ///< wall time spent spilling (copies, checksums, writes)
  double reload_seconds = 0;  ///< wall time spent reloading (reads, checksums, copies)
};

/**
 * @brief One rank's memory. Owns the accounting for every Buffer it allocates and every Reservation it makes and a private spill
 * directory `<spill_root>/slab-spill-<host>-<pid>-XXXXXX` (mode 0700, made on the first spill or by
 * check_spill_dir()) holding one file per spilled buffer (`spill-<n>`, mode 0600). Not collective;
 * thread-safe (one mutex).
 *
 * The directory goes with the manager, and also when the process ends otherwise: at exit(), on SIGTERM
 * (what mpirun sends the other ranks of an aborted job), SIGINT, SIGHUP, SIGQUIT and SIGABRT, and before
 * slab's own MPI_Abort (see spill_cleanup.hpp). A SIGKILLed process cannot clean up: when a manager makes
 * its directory it removes the folders in the same root left by dead processes of this host and user.
 *
 * Buffers may outlive the manager: their device and host bytes stay valid, but the spill directory is
 * removed with the manager, so a buffer then on disk is lost (pinning it throws IoError).
 */
class MemoryManager {
 public:
  /**
   * @brief Set the limits; creates no file yet.
   * @throws InvalidArgument when device_limit is 0.
   */
  explicit MemoryManager(MemoryConfig config);
  /** @brief Remove every spill file and the spill directory. Never throws. */
  ~MemoryManager();
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;

  /**
   * @brief A new buffer of `bytes` resident (not pinned) on the device tier, most recently used. Room is
   * made first (reserve-before-allocate) by spilling least-recently-used unpinned buffers device -> host,
   * and host -> disk where the host tier would exceed its limit, so the device limit is never crossed.
   * The bytes are uninitialised.
   * @throws OutOfMemory when `bytes` exceeds the device limit (a chunk larger than the memory limit), or
   * when not enough unpinned bytes can be spilled; the message names the request, the limit and the
   * pinned bytes.
   * @throws OutOfMemory or IoError when a spill this needs fails (disk cap reached, disk full).
   */
  [[nodiscard]] BufferPtr allocate(std::uint64_t bytes, std::string_view label = {});

  /**
   * @brief Reserve `bytes` of the device tier for `purpose` (see reservation.hpp), spilling unpinned buffers
   * (least recently used first) to make room now, so that the bytes are there when the reservation's owner
   * needs them.
   * @throws OutOfMemory naming the purpose, the bytes, the limit, and what is pinned and reserved, when even
   * spilling every unpinned buffer leaves too little; OutOfMemory or IoError when a spill fails.
   */
  [[nodiscard]] Reservation reserve(std::string purpose, std::uint64_t bytes);
  /** @brief As reserve(), but nothing (and nothing spilled) instead of OutOfMemory when the room cannot be made. */
  [[nodiscard]] std::optional<Reservation> try_reserve(std::string purpose, std::uint64_t bytes);
  /**
   * @brief Reserve `bytes` of the host tier for `purpose`: host memory its owner allocates itself (the task
   * queue's staging copies of device-tier buffers), counted in MemoryStats::host and its high-water as spilled
   * buffers are, so that host buffers spill to disk to make room for it and device buffers spill to disk instead
   * of host memory while it is held. Reservation::allocate refuses a host reservation.
   * @throws OutOfMemory naming the purpose, the bytes and the host limit when spilling every host buffer to disk
   * leaves too little; OutOfMemory or IoError when a spill fails.
   */
  [[nodiscard]] Reservation reserve_host(std::string purpose, std::uint64_t bytes);
  /**
   * @brief A block of host memory for a copy between the device tier and the host, from the execution context's
   * staging pool (ExecutionContext::staging_block): page-locked where the device tier is GPU memory. Not counted on the
   * host tier: a caller that holds it for long reserves it there first (reserve_host), as the task queue's staging
   * does. Thread-safe. @throws OutOfMemory when the host has no memory left.
   */
  [[nodiscard]] StagingBlock staging_block(std::uint64_t bytes);

  /**
   * @brief The budget of one buffer for an algorithm that holds `buffers` equally large buffers (or states) at
   * once: what the device tier has besides pinned buffers and reservations, divided by `buffers` (at least 1).
   * Algorithms size their partitions and states with this (shuffle, merge, groupby, the Gram's blocks) instead of
   * dividing the limit themselves; the count they pass says what they hold at once. Never throws.
   */
  [[nodiscard]] std::uint64_t budget(std::uint32_t buffers) const;
  /**
   * @brief Reserve budget(buffers) bytes for `purpose` (at least `at_least`), making room now.
   * @throws as reserve() when even `at_least` cannot be had.
   */
  [[nodiscard]] Reservation reserve_budget(std::string purpose, std::uint32_t buffers, std::uint64_t at_least = 0);

  /**
   * @brief Spill unpinned device buffers (least recently used first) until at least `bytes` are free
   * below the device limit or nothing unpinned is left. Returns the bytes moved off the device tier.
   * @throws OutOfMemory or IoError when a spill fails.
   */
  std::uint64_t spill(std::uint64_t bytes);

  /**
   * @brief Create the private spill directory now if it does not exist yet (the runtime calls this at
   * start-up so that a bad --spill-dir is reported before any work). The spill root is created if
   * missing.
   * @throws IoError naming the path and the system's reason when the directory cannot be made.
   */
  void check_spill_dir();

  /** @brief The private spill directory, or "" while it has not been created. Never throws. */
  [[nodiscard]] std::string spill_dir() const;

  /** @brief Current usage, high-water marks and spill/reload counters. Never throws. */
  [[nodiscard]] MemoryStats stats() const;

  /** @brief The configuration (spill_root resolved). Never throws. */
  [[nodiscard]] const MemoryConfig& config() const noexcept;
  /// Where the rank computes (config().execution, or a host context). Not collective.
  [[nodiscard]] const ExecutionContext& execution() const noexcept;

 private:
  std::shared_ptr<detail::MemoryState> state_;
};

}  // namespace slab
