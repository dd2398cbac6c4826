#include "slab/task/task_context.hpp"

#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"

namespace slab {

const ExecutionContext& TaskContext::execution() const noexcept { return memory_.execution(); }

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

void TaskContext::check_output(std::size_t index) const {
  SLAB_EXPECTS(
      index < outputs_.size(), InvalidArgument,
      "task output " + std::to_string(index) + " requested, but the task has " + std::to_string(outputs_.size()));
  SLAB_EXPECTS(!outputs_[index], InvalidArgument, "a task may allocate each output only once");
}

std::span<std::byte> TaskContext::output(std::uint64_t bytes, std::size_t index) {
  check_output(index);
  outputs_[index] = memory_.allocate(bytes, "task output");
  output_pins_[index] = outputs_[index]->pin();
  return {output_pins_[index].data(), static_cast<std::size_t>(bytes)};
}

void TaskContext::set_output(BufferPtr buffer, std::size_t index) {
  check_output(index);
  outputs_[index] = std::move(buffer);
}

std::vector<BufferPtr> TaskContext::take_outputs() noexcept {
  for (auto& p : output_pins_) p.reset();
  return std::move(outputs_);
}

}  // namespace slab
