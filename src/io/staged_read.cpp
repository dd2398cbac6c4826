// Rows read on the host into the device tier, through page-locked staging with the copies overlapping the reads.
#include "io/staged_read.hpp"

#include <algorithm>

#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/copy_async.hpp"

namespace slab::io::detail {

std::uint64_t staging_slab_bytes(const MemoryManager& memory, std::uint64_t wanted) {
  return std::min(wanted, memory.config().host_limit / 8);
}

void read_rows_staged(void* out, std::uint64_t rows, std::uint64_t row_bytes, MemoryManager& memory,
                      std::uint64_t slab_bytes, const char* purpose, const ReadRows& read) {
  const ExecutionContext& exec = memory.execution();
  if (rows == 0 || row_bytes == 0) return;
  if (!exec.device_kernels()) {  // host memory: straight into the buffer
    read(0, rows, static_cast<std::byte*>(out));
    return;
  }
  const std::uint64_t slab_rows =
      std::clamp<std::uint64_t>(staging_slab_bytes(memory, slab_bytes) / row_bytes, 1, rows);
  const std::uint64_t blocks = slab_rows < rows ? 2 : 1;
  Reservation room = memory.reserve_host(purpose, blocks * slab_rows * row_bytes);
  StagingBlock staging[2];
  for (std::uint64_t b = 0; b < blocks; ++b) staging[b] = memory.staging_block(slab_rows * row_bytes);
  auto* dst = static_cast<std::byte*>(out);
  try {
    for (std::uint64_t r = 0, i = 0; r < rows; r += slab_rows, ++i) {
      const std::uint64_t h = std::min(slab_rows, rows - r);
      StagingBlock& block = staging[i % blocks];
      read(r, h, block.data());
      exec.synchronize();  // the copy of slab i - 1 (and whatever the stream held before) is done
      slab::copy_async(dst + r * row_bytes, block.data(), h * row_bytes, exec);
    }
    exec.synchronize();
  } catch (...) {
    try {  // the staging blocks go back to the pool only once no copy reads them
      exec.synchronize();
    } catch (...) {
    }
    throw;
  }
}

}  // namespace slab::io::detail
