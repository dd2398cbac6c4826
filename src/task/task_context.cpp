#include "slab/task/task_context.hpp"

#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"

namespace slab {

std::span<const std::byte> TaskContext::input(std::size_t i) const {
  SLAB_EXPECTS(i < inputs_.size(), InvalidArgument,
               "task input " + std::to_string(i) + " requested, but the task has " + std::to_string(inputs_.size()));
  const Pin& pin = inputs_[i];
  return {pin.data(), static_cast<std::size_t>(pin.size())};
}

void TaskContext::check_multiple(std::size_t i, std::size_t bytes, std::size_t elem) const {
  SLAB_EXPECTS(bytes % elem == 0, ShapeError,
               "task input " + std::to_string(i) + " has " + std::to_string(bytes) + " bytes, not a multiple of " +
                   std::to_string(elem));
}

std::span<std::byte> TaskContext::output(std::uint64_t bytes) {
  SLAB_EXPECTS(!output_, InvalidArgument, "a task may allocate only one output");
  output_ = memory_.allocate(bytes, "task output");
  output_pin_ = output_->pin();
  return {output_pin_.data(), static_cast<std::size_t>(bytes)};
}

void TaskContext::set_output(BufferPtr buffer) {
  SLAB_EXPECTS(!output_, InvalidArgument, "a task may have only one output");
  output_ = std::move(buffer);
}

BufferPtr TaskContext::take_output() noexcept {
  output_pin_.reset();
  return std::move(output_);
}

}  // namespace slab
