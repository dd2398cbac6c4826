#pragma once
/// @file spill_file.hpp
/// @brief The spill-file format and its checked reader/writer (used by MemoryManager; public so that
/// tests and tools can check files). A file is a 32-byte header (magic "SLABSPL1", payload size, XXH64
/// checksum of the payload, buffer id; little-endian) followed by the payload.

#include <cstddef>
#include <cstdint>
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

/**
 * @brief Create `path` (O_CREAT | O_EXCL, mode 0600: never follows or reuses an existing file) and write
 * the header and `size` bytes at `data`, checksumming as it goes. Handles short writes and EINTR. On any
 * failure the partial file is removed. Returns the checksum. Not collective.
 * @throws IoError naming `path` and the reason; when the disk is full (ENOSPC, EDQUOT) the message says
 * that the spill directory `dir` is full.
 */
std::uint64_t write_spill_file(const std::string& path, const std::string& dir, const std::byte* data,
                               std::uint64_t size, std::uint64_t buffer_id);

/**
 * @brief Read the payload of `path` into `out` (`size` bytes) and verify magic, size and checksum
 * against both the header and `expected_checksum`. Not collective.
 * @throws IntegrityError naming `path` when the file is truncated, too long, or does not match (the
 * contents of `out` are then unspecified and must not be used).
 * @throws IoError naming `path` when it cannot be opened or read.
 */
void read_spill_file(const std::string& path, std::byte* out, std::uint64_t size, std::uint64_t expected_checksum);

}  // namespace slab::detail
