#pragma once
/// @file staged_read.hpp
/// @brief Private: the loop that lands rows read on the host in the device tier through page-locked staging, each
/// slab's copy to the device overlapping the read of the next. Arrays (read_block_to) and frames (read_hdf5, a
/// column at a time) read through it, so that a GPU's reads of either take the same overlapped path; the size of
/// a staging slab, which frames' staged writes (write_hdf5) use too.

#include <cstddef>
#include <cstdint>
#include <functional>

namespace slab {
class MemoryManager;
}

namespace slab::io::detail {

/// Writes rows [row, row + rows) (relative to the call's first row), `rows * row_bytes` bytes, at `block`: host
/// memory. It may rewrite what it read there (nulls, codes) before the bytes go to the device.
using ReadRows = std::function<void(std::uint64_t row, std::uint64_t rows, std::byte* block)>;

/// The bytes of a staging block for a slab of about `wanted` bytes: at most an eighth of `memory`'s host limit, so
/// that a small --host-memory-limit still has room for the two blocks a staged read or write holds.
[[nodiscard]] std::uint64_t staging_slab_bytes(const MemoryManager& memory, std::uint64_t wanted);

/**
 * @brief Fill `out` (`rows * row_bytes` bytes in `memory`'s device tier) by `read`. Where the device tier is not
 * host memory (a GPU, or the reference place, whose loop CI runs), in slabs of whole rows of about `slab_bytes`
 * (at most an eighth of the host limit, at least one row) through two page-locked blocks of the staging pool held
 * in a host-tier reservation named `purpose`: the copy of slab i runs while slab i + 1 is read, and a block is read
 * into again only once the copy out of it is done. Elsewhere `read(0, rows, out)`. Complete when it returns (it
 * waits for the rank's stream, also when `read` throws). Not collective.
 * @throws what `read` throws; OutOfMemory when the host limit cannot hold the staging blocks; CudaError.
 */
void read_rows_staged(void* out, std::uint64_t rows, std::uint64_t row_bytes, MemoryManager& memory,
                      std::uint64_t slab_bytes, const char* purpose, const ReadRows& read);

}  // namespace slab::io::detail
