#pragma once
/// @file chunk.hpp
/// @brief slab::Chunk: a handle to the (future) output of one task on this rank.

#include <cstdint>
#include <memory>

#include "slab/memory/buffer.hpp"

namespace slab {

namespace detail {
struct TaskNode;
}

/**
 * @brief Handle to a task's output buffer. Cheap to copy (shared). While any handle to a task exists its
 * output is kept (spillable) once computed; a task whose handles are all gone and whose consumers have all
 * run releases its buffer at once. This is what keeps a streamed reduction within its memory limit: hand
 * the inputs over (std::move) and nothing else holds them.
 */
class Chunk {
 public:
  Chunk() = default;
  /// Whether the task has run.
  [[nodiscard]] bool ready() const noexcept;
  /// The output buffer once ready(); null before, or for a task that produced no output.
  [[nodiscard]] BufferPtr buffer() const noexcept;
  /// The task's name, for messages.
  [[nodiscard]] const char* name() const noexcept;
  [[nodiscard]] explicit operator bool() const noexcept { return node_ != nullptr; }

 private:
  friend class TaskQueue;
  explicit Chunk(std::shared_ptr<detail::TaskNode> node) : node_(std::move(node)) {}
  std::shared_ptr<detail::TaskNode> node_;
};

}  // namespace slab
