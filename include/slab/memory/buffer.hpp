#pragma once
/// @file buffer.hpp
/// @brief A block of bytes owned by a MemoryManager that may be spilled device -> host -> disk, and the
/// RAII Pin that makes it resident on the device tier while a task uses it.

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "slab/memory/tier.hpp"

namespace slab {

class Buffer;
class Pin;
class MemoryManager;
class ExecutionContext;
namespace detail {
class MemoryState;
}

/// Buffers are shared: several consumers (tasks) may hold the same one; its bytes are released, in
/// whatever tier they are, when the last handle goes.
using BufferPtr = std::shared_ptr<Buffer>;

/**
 * @brief Bytes accounted by a MemoryManager, resident in one tier at a time. Made only by
 * MemoryManager::allocate. Access the bytes through pin(); while no Pin exists the manager may move them
 * to a slower tier (least recently used first) to make room for others. Not collective.
 *
 * Thread safety: every method takes the manager's lock, so handles may be used from several threads.
 */
class Buffer : public std::enable_shared_from_this<Buffer> {
  struct Key {};  // only the manager constructs buffers

 public:
  /// @private Used by MemoryManager::allocate through std::make_shared.
  Buffer(Key, std::shared_ptr<detail::MemoryState> state, std::uint64_t id, std::uint64_t bytes, std::string label);
  /** @brief Release the bytes in whatever tier they are (deleting the spill file). Never throws. */
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /**
   * @brief Make the buffer resident on the device tier (reloading it from host memory or from its
   * spill file, which may in turn spill other unpinned buffers) and keep it there until every Pin on it
   * is gone. Pins nest. Marks the buffer most recently used.
   * @throws OutOfMemory when the device tier cannot make room (everything else pinned).
   * @throws IntegrityError when the spill file does not match what was written (corrupt or truncated);
   * the buffer then stays on disk and no wrong bytes are returned.
   * @throws IoError when the spill file cannot be read, or when the buffer's spill file was removed
   * because its MemoryManager was destroyed.
   */
  [[nodiscard]] Pin pin();

  /** @brief Mark the buffer most recently used without moving it. Never throws. */
  void touch() noexcept;

  /** @brief The tier the bytes are in now. Never throws. */
  [[nodiscard]] Tier tier() const noexcept;
  /** @brief Size in bytes. Never throws. */
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  /** @brief The label given to allocate() (used in error messages and traces). Never throws. */
  [[nodiscard]] const std::string& label() const noexcept { return label_; }
  /** @brief A number unique within the manager. Never throws. */
  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }
  /** @brief Whether at least one Pin on this buffer is alive. Never throws. */
  [[nodiscard]] bool is_pinned() const noexcept;
  /** @brief The execution context of its manager: a pin's bytes are in that context's device tier. */
  [[nodiscard]] const ExecutionContext& execution() const noexcept;

 private:
  friend class detail::MemoryState;
  friend class MemoryManager;
  friend class Pin;

  std::shared_ptr<detail::MemoryState> state_;
  std::uint64_t id_;
  std::uint64_t size_;
  std::string label_;
  // Everything below is guarded by the state's mutex.
  Tier tier_ = Tier::device;
  std::byte* device_ptr_ = nullptr;  ///< resident on the device tier
  std::byte* host_ptr_ = nullptr;    ///< resident on the host tier
  std::uint64_t file_id_ = 0;        ///< resident on disk: spill-<file_id_> in the spill directory
  std::uint64_t checksum_ = 0;       ///< checksum written to the spill file
  bool lost_ = false;                ///< on disk when the manager was destroyed (file removed)
  int pins_ = 0;
  bool in_lru_ = false;  ///< in the device (unpinned) or host LRU list
  std::list<Buffer*>::iterator lru_pos_;
};

/**
 * @brief Keeps a buffer resident and unspillable on the device tier while alive; gives its bytes.
 * Move-only. Holds a reference to the buffer, so the buffer outlives its pins. Not collective.
 */
class Pin {
 public:
  /** @brief An empty pin (data() is null). */
  Pin() = default;
  Pin(Pin&& other) noexcept;
  Pin& operator=(Pin&& other) noexcept;
  Pin(const Pin&) = delete;
  Pin& operator=(const Pin&) = delete;
  /** @brief Unpin; the buffer becomes spillable again when no other pin holds it. Never throws. */
  ~Pin();

  /** @brief The bytes, on the device tier (device memory on GPU builds). Valid while the pin lives. */
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  /** @brief Size in bytes. */
  [[nodiscard]] std::uint64_t size() const noexcept { return buffer_ ? buffer_->size() : 0; }
  /** @brief The pinned buffer (null for an empty pin). */
  [[nodiscard]] const BufferPtr& buffer() const noexcept { return buffer_; }
  /** @brief Release the pin early (as the destructor does). Never throws. */
  void reset() noexcept;

 private:
  friend class Buffer;
  Pin(BufferPtr buffer, std::byte* data) noexcept : buffer_(std::move(buffer)), data_(data) {}

  BufferPtr buffer_;
  std::byte* data_ = nullptr;
};

}  // namespace slab
