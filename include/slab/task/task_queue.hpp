#pragma once
/// @file task_queue.hpp
/// @brief slab::TaskQueue: the per-rank lazy task graph. Operations add tasks; persist() runs what the
/// requested chunks need, memory-aware; collective tasks run in program order, the same on every rank.

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "slab/task/chunk.hpp"
#include "slab/task/task_context.hpp"
#include "slab/trace/tracer.hpp"

namespace slab {

class MemoryManager;
class Comm;

/// Where a task's function reads its inputs and writes its outputs.
enum class TaskPlace : std::uint8_t {
  /// Host memory: a host kernel (the default, and what users' functions are). Where the device tier is not host
  /// memory the queue stages the task: its inputs are copied to host memory before it runs and its outputs to the
  /// device tier after it returns, and TaskContext::execution() is a host context (ExecutionContext::host()). The
  /// reference place stages too, so that CI runs the staging a GPU run takes.
  host,
  /// The device tier as it is (GPU memory on a GPU): the function works on its inputs and outputs with the device
  /// kernels, slab::copy, comm or the CUDA libraries of TaskContext::execution(), never by reading them on the host.
  device,
};

/// How a task runs.
struct TaskOptions {
  TraceKind kind = TraceKind::compute;  ///< what the trace and the summary call its time
  /// The task calls collectives (MPI/NCCL). Collective tasks run in submission order on every rank, and
  /// every rank first agrees that no task failed since the last agreement (so a failure never hangs).
  bool collective = false;
  TaskPlace place = TaskPlace::host;  ///< where its function reads and writes (TaskPlace)
};

/// TaskOptions of a device task (TaskPlace::device) of this kind.
[[nodiscard]] inline TaskOptions device_task(TraceKind kind = TraceKind::compute, bool collective = false) {
  return TaskOptions{kind, collective, TaskPlace::device};
}

/// Counters of one queue.
struct TaskStats {
  std::uint64_t submitted = 0;
  std::uint64_t executed = 0;
  std::uint64_t released = 0;  ///< outputs freed because nothing needed them any more
  double seconds = 0;          ///< time inside task functions
  /// Host tasks and combines run on staged host copies (TaskPlace::host where the device tier is not host
  /// memory), and the bytes copied for them both ways.
  std::uint64_t staged = 0;
  std::uint64_t staged_bytes = 0;
};

/**
 * @brief The per-rank DAG of tasks over chunk buffers.
 *
 * Building is lazy: submit() and reduce() only record. persist() and compute() run the tasks their chunks
 * depend on, depth first from the requested chunks, so that every produced chunk is consumed as soon as
 * possible and released after its last consumer (a reduction over N chunks holds one accumulator and one
 * input at a time, not N inputs: the lesson of seed 001). Collective tasks always run in the order they were
 * submitted, so every rank calls collectives in the same order. persist() and compute() are collective:
 * every rank calls them in the same order (SPMD), and a task that throws on one rank makes every rank
 * throw the same error at the next agreement point (a collective inside a running collective task, before
 * the next collective task, or at the end of persist): a collective task failing on one rank midway ends
 * with the same error on every rank, not a hang. Not thread-safe: one queue per rank, used from the rank's
 * main thread.
 */
class TaskQueue {
 public:
  using TaskFn = std::function<void(TaskContext&)>;
  /// Fold `input` into the accumulator `acc` (both pinned; same size unless the reduction says otherwise).
  using CombineFn = std::function<void(std::span<std::byte> acc, std::span<const std::byte> input)>;

  TaskQueue(MemoryManager& memory, Comm& comm, Tracer& tracer);
  ~TaskQueue();
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;

  /**
   * @brief Record a task (nothing runs). `fn` runs later with `inputs` pinned; it may allocate one output.
   * Not collective (unless options.collective, in which case every rank must submit it in the same order).
   */
  Chunk submit(std::string name, std::vector<Chunk> inputs, TaskFn fn, TaskOptions options = {});

  /**
   * @brief Record a task with `outputs` outputs, each its own chunk (returned in order): `fn` writes output k
   * with ctx.output(bytes, k). Each output is spillable and released on its own, once its chunk's handles are
   * gone and its consumers have run (a shuffle round produces one piece per output partition this way).
   * Not collective (unless options.collective, as for submit).
   */
  std::vector<Chunk> submit_multi(std::string name, std::vector<Chunk> inputs, std::size_t outputs, TaskFn fn,
                                  TaskOptions options = {});

  /**
   * @brief Record a streaming reduction of `inputs` (all the same size) with an associative `combine`.
   * When run, each input is folded into the accumulator as soon as it is produced and then released, so at
   * most one accumulator and one input are resident besides what producing the next input needs. The
   * first input becomes the accumulator without a copy when nothing else holds it. Pass inputs by std::move:
   * handles kept elsewhere keep those chunks alive. `combine` reads and writes where `place` says (TaskPlace: a
   * host combine is staged where the device tier is not host memory). Not collective.
   * @throws InvalidArgument (at persist) when inputs differ in size; ShapeError when inputs is empty.
   */
  Chunk reduce(std::string name, std::vector<Chunk> inputs, CombineFn combine, TaskPlace place = TaskPlace::host);

  /// Collective. Run everything `chunks` depend on. @throws the agreed error of any failing task.
  void persist(std::span<const Chunk> chunks);
  void persist(const Chunk& chunk) { persist(std::span<const Chunk>(&chunk, 1)); }
  /// Collective. Run every task submitted so far.
  void persist_all();

  /// Collective. persist(chunk) and copy its bytes out as T values.
  template <class T>
  std::vector<T> compute(const Chunk& chunk) {
    persist(chunk);
    std::vector<T> out;
    copy_out(chunk, [&](std::span<const std::byte> bytes) {
      out.resize(bytes.size() / sizeof(T));
      std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    });
    return out;
  }

  /// Tasks recorded but not run yet.
  [[nodiscard]] std::size_t pending() const noexcept;
  [[nodiscard]] const TaskStats& stats() const noexcept;

  /// Called with (tasks done, tasks to do) during persist, at most every ~50 ms and at the end (progress bars).
  void set_progress(std::function<void(std::uint64_t, std::uint64_t)> callback);

  [[nodiscard]] MemoryManager& memory() noexcept;
  [[nodiscard]] Comm& comm() noexcept;
  [[nodiscard]] Tracer& tracer() noexcept;

 private:
  void copy_out(const Chunk& chunk, const std::function<void(std::span<const std::byte>)>& reader);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace slab
