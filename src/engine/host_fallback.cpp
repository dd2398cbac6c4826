// note_host_fallback: the one place that decides whether an operation's host kernel is a fallback.
#include "slab/engine/host_fallback.hpp"

#include "slab/engine/engine.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/trace/tracer.hpp"

namespace slab {

namespace {
const ExecutionContext* testing_context = nullptr;
}

bool note_host_fallback(const ExecutionContext& context, Tracer& tracer, std::string_view op) {
  if (!context.device_kernels()) return false;
  tracer.record_fallback(op);
  return true;
}

bool note_host_fallback(Engine& engine, std::string_view op) {
  return note_host_fallback(testing_context ? *testing_context : engine.execution(), engine.tracer(), op);
}

bool note_host_fallback(TaskQueue& tasks, std::string_view op) {
  return note_host_fallback(testing_context ? *testing_context : tasks.memory().execution(), tasks.tracer(), op);
}

namespace detail {
void set_host_fallback_context_for_testing(const ExecutionContext* context) noexcept { testing_context = context; }
}  // namespace detail

}  // namespace slab
