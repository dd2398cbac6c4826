#pragma once
/// @file spill_file.hpp
/// @brief The spill-file format and its checked reader/writer (used by MemoryManager; public so that
/// tests and tools can check files). A file is a 32-byte header (magic "SLABSPL1", payload size, XXH64
/// checksum of the payload, buffer id; little-endian) followed by the payload.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace slab::detail {

/// The header at the start of every spill file.
struct SpillFileHeader {
  char magic[8];            ///< "SLABSPL1"
  std::uint64_t size;       ///< payload bytes
  std::uint64_t checksum;   ///< checksum64 of the payload
  std::uint64_t buffer_id;  ///< for diagnostics
};
static_assert(sizeof(SpillFileHeader) == 32);

/// The piece a spill file's payload is checksummed and written (read) in.
inline constexpr std::uint64_t kSpillPiece = std::uint64_t{4} << 20;

/// How a payload in GPU memory goes through the host, a piece at a time, so that a spill holds kSpillPiece bytes of
/// host memory rather than the whole buffer: `block` (at least kSpillPiece bytes of host memory, page-locked on a
/// GPU) and the copy between the payload's memory and it (slab::copy on the rank's stream).
struct SpillStaging {
  std::byte* block = nullptr;
  std::function<void(void* dst, const void* src, std::size_t bytes)> copy;
};

/**
 * @brief Create `path` (O_CREAT | O_EXCL, mode 0600: never follows or reuses an existing file) and write
 * the header and `size` bytes at `data`, checksumming as it goes. Handles short writes and EINTR. On any
 * failure the partial file is removed. Returns the checksum. With `staging`, `data` is read a piece at a time through
 * its block. Not collective.
 * @throws IoError naming `path` and the reason; when the disk is full (ENOSPC, EDQUOT) the message says
 * that the spill directory `dir` is full.
 */
std::uint64_t write_spill_file(const std::string& path, const std::string& dir, const std::byte* data,
                               std::uint64_t size, std::uint64_t buffer_id, const SpillStaging* staging = nullptr);

/**
 * @brief Read the payload of `path` into `out` (`size` bytes) and verify magic, size and checksum
 * against both the header and `expected_checksum`. With `staging`, `out` is written a piece at a time through its
 * block. Not collective.
 * @throws IntegrityError naming `path` when the file is truncated, too long, or does not match (the
 * contents of `out` are then unspecified and must not be used).
 * @throws IoError naming `path` when it cannot be opened or read.
 */
void read_spill_file(const std::string& path, std::byte* out, std::uint64_t size, std::uint64_t expected_checksum,
                     const SpillStaging* staging = nullptr);

}  // namespace slab::detail
