#pragma once
/// @file host_fallback.hpp
/// @brief Fallback, never silence: a frame or array operation that has no device path yet runs its host kernel;
/// where the rank takes device paths (ExecutionContext::device_kernels(): a CUDA device, or the reference place
/// that runs them on the CPU) that is recorded, so that a GPU run shows what it did on the host: a trace event "fallback:host <op>" and a count per operation, which apps print
/// under "fallbacks" in --json (slab/app/app.hpp) and the trace file keeps in otherData.fallbacks.
///
/// Every such operation calls note_host_fallback once at its entry, on every rank (it is not collective: each
/// rank records its own). An operation built from others counts each of them (quantile sorts: "quantile" and
/// "sort_values"); lazy array work counts where it is evaluated ("elementwise" when an expression is
/// materialised, the reduction's name when it is fused into a reduction).

#include <string_view>

namespace slab {

class Engine;
class ExecutionContext;
class TaskQueue;
class Tracer;

/**
 * @brief Record that operation `op` runs on the host although `context` takes device paths: Tracer::record_fallback
 * (an instant event "fallback:host <op>" and one more in tracer.fallbacks()[op]). On a host context it records
 * nothing. Not collective; from the rank's main thread (the Tracer is not thread-safe). Throws nothing but
 * std::bad_alloc.
 * @return whether a fallback was recorded.
 */
bool note_host_fallback(const ExecutionContext& context, Tracer& tracer, std::string_view op);
/// The same for the engine's execution context and tracer (what frame and array operations call).
bool note_host_fallback(Engine& engine, std::string_view op);
/// The same for the queue's memory manager's execution context and the queue's tracer.
bool note_host_fallback(TaskQueue& tasks, std::string_view op);

namespace detail {
/// @brief Tests only: make note_host_fallback(engine / tasks, ...) decide as if the rank computed on `context`
/// (nullptr: the rank's own context again), so that the wiring of every operation can be checked on a machine
/// without a GPU. `context` must outlive its use. Not collective, not thread-safe.
void set_host_fallback_context_for_testing(const ExecutionContext* context) noexcept;
}  // namespace detail

}  // namespace slab
