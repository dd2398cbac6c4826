#include "slab/task/task_context.hpp"

#include "slab/core/error.hpp"
#include "slab/core/units.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/execution_context.hpp"

namespace slab {

TaskContext::TaskContext(MemoryManager& memory, Comm& comm, Tracer& tracer, std::vector<Pin>& inputs,
                         std::size_t num_outputs, bool staged)
    : memory_(memory),
      comm_(comm),
      tracer_(tracer),
      inputs_(inputs),
      outputs_(num_outputs),
      output_pins_(num_outputs),
      staged_(staged) {
  if (!staged_) return;
  // Host copies of every input, each complete before the function runs (slab::copy returns when done), in the
  // manager's staging blocks (page-locked on a GPU), their room on the host tier reserved first.
  std::uint64_t input_bytes = 0;
  for (const Pin& pin : inputs_) input_bytes += pin.size();
  staging_ = memory_.reserve_host("host staging", input_bytes);
  staged_inputs_.resize(inputs_.size());
  staged_outputs_.resize(num_outputs);
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    const Pin& pin = inputs_[i];
    if (pin.size() == 0) continue;
    staged_inputs_[i] = memory_.staging_block(pin.size());
    slab::copy(staged_inputs_[i].data(), pin.data(), staged_inputs_[i].size(), memory_.execution());
    staged_bytes_ += pin.size();
  }
}

const ExecutionContext& TaskContext::execution() const noexcept {
  return staged_ ? ExecutionContext::host() : memory_.execution();
}

std::span<const std::byte> TaskContext::input(std::size_t i) const {
  SLAB_EXPECTS(i < inputs_.size(), InvalidArgument,
               "task input " + std::to_string(i) + " requested, but the task has " + std::to_string(inputs_.size()));
  if (staged_) return staged_inputs_[i].bytes();
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
  if (staged_) {
    SLAB_EXPECTS(staging_.try_grow(bytes), OutOfMemory,
                 "cannot stage a task output of " + format_bytes(bytes) + " in host memory: the host tier's limit is " +
                     format_bytes(memory_.config().host_limit) + " and " + format_bytes(staging_.size()) +
                     " of it already holds this task's copies; raise --host-memory-limit or use smaller chunks");
    if (bytes == 0) return {};
    staged_outputs_[index] = memory_.staging_block(bytes);
    return staged_outputs_[index].bytes();
  }
  return {output_pins_[index].data(), static_cast<std::size_t>(bytes)};
}

void TaskContext::finish() {
  if (!staged_) return;
  for (std::size_t k = 0; k < outputs_.size(); ++k)
    if (output_pins_[k].data() && staged_outputs_[k].size() > 0) {
      slab::copy(output_pins_[k].data(), staged_outputs_[k].data(), staged_outputs_[k].size(), memory_.execution());
      staged_bytes_ += staged_outputs_[k].size();
    }
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
