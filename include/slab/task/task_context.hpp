#pragma once
/// @file task_context.hpp
/// @brief What a task's function sees while it runs: its pinned inputs and a place for its output.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "slab/memory/buffer.hpp"
#include "slab/memory/reservation.hpp"
#include "slab/runtime/staging_block.hpp"

namespace slab {

class MemoryManager;
class ExecutionContext;
class Comm;
class Tracer;

/**
 * @brief Given to a task function. Inputs are pinned on the device tier for the whole call (reloaded
 * transparently if they were spilled). The task writes its output into output(), which is allocated through
 * the memory manager (spilling others first if needed) and stays pinned until the function returns.
 *
 * A staged context (a host task where the device tier is not host memory: TaskPlace in task_queue.hpp) gives
 * host copies of the inputs and host memory for the outputs, which finish() copies to the device tier, and a host
 * execution context. The copies are held in a host reservation ("host staging", MemoryManager::reserve_host), so
 * that they count against the host limit as spilled buffers do.
 */
class TaskContext {
 public:
  /// `staged`: stage the inputs and outputs through host memory (see above). @throws OutOfMemory when the host
  /// tier cannot hold the inputs' copies.
  TaskContext(MemoryManager& memory, Comm& comm, Tracer& tracer, std::vector<Pin>& inputs, std::size_t num_outputs = 1,
              bool staged = false);

  [[nodiscard]] std::size_t num_inputs() const noexcept { return inputs_.size(); }
  /// Input i's bytes (empty for an input task without output).
  [[nodiscard]] std::span<const std::byte> input(std::size_t i) const;
  /// Input i viewed as an array of T. @throws ShapeError when its size is not a multiple of sizeof(T).
  template <class T>
  [[nodiscard]] std::span<const T> input_as(std::size_t i) const {
    auto bytes = input(i);
    check_multiple(i, bytes.size(), sizeof(T));
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  /// The pinned input itself, on the device tier: a device task that folds into its input may write here when it
  /// owns it.
  [[nodiscard]] Pin& input_pin(std::size_t i) { return inputs_.at(i); }

  /// Outputs of this task: 1, or n for a task of TaskQueue::submit_multi.
  [[nodiscard]] std::size_t num_outputs() const noexcept { return outputs_.size(); }
  /**
   * @brief Allocate output `index` (< num_outputs()) of `bytes` (once per output) and return it, pinned until
   * the task ends.
   * @throws OutOfMemory when the memory limit (staged: the host limit too) cannot make room; InvalidArgument when
   * called twice or for an index out of range.
   */
  std::span<std::byte> output(std::uint64_t bytes, std::size_t index = 0);
  template <class T>
  std::span<T> output_as(std::size_t count) {
    auto bytes = output(count * sizeof(T));
    return {reinterpret_cast<T*>(bytes.data()), count};
  }
  /// Adopt an existing buffer as output `index` (no copy). @throws InvalidArgument when that output exists.
  void set_output(BufferPtr buffer, std::size_t index = 0);

  [[nodiscard]] MemoryManager& memory() noexcept { return memory_; }
  /// Where this task computes (host or the rank's GPU), its stream and CUDA library handles; a host context when
  /// the task is staged.
  [[nodiscard]] const ExecutionContext& execution() const noexcept;
  /// Whether the inputs and outputs are staged host copies (see above).
  [[nodiscard]] bool staged() const noexcept { return staged_; }
  /// Bytes copied for staging so far (inputs, then outputs at finish()).
  [[nodiscard]] std::uint64_t staged_bytes() const noexcept { return staged_bytes_; }

  /// @private Copy staged outputs to their device-tier buffers (the queue, after the function returned).
  void finish();
  [[nodiscard]] Comm& comm() noexcept { return comm_; }
  [[nodiscard]] Tracer& tracer() noexcept { return tracer_; }

  /// @private The outputs, taken by the queue when the task returns.
  std::vector<BufferPtr> take_outputs() noexcept;

 private:
  void check_multiple(std::size_t i, std::size_t bytes, std::size_t elem) const;
  void check_output(std::size_t index) const;

  MemoryManager& memory_;
  Comm& comm_;
  Tracer& tracer_;
  std::vector<Pin>& inputs_;
  std::vector<BufferPtr> outputs_;
  std::vector<Pin> output_pins_;
  bool staged_ = false;
  std::uint64_t staged_bytes_ = 0;
  Reservation staging_;  ///< staged: the host tier's room for the copies below (released after them)
  std::vector<StagingBlock> staged_inputs_;   ///< staged: host copies of the inputs
  std::vector<StagingBlock> staged_outputs_;  ///< staged: the outputs as the function writes them
};

}  // namespace slab
