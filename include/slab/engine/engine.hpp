#pragma once
/// @file engine.hpp
/// @brief slab::Engine: the composition root. One object owns what every slab operation runs on: the runtime
/// (MPI, Kokkos, this rank's device, the settings and the tracer), the world communicator, this rank's memory
/// manager and its task queue. Every array, frame, reader and algorithm takes an Engine& and keeps a reference
/// to it, so the engine must outlive them.
///
/// @code
///   slab::Engine engine(argc, argv);                        // SLAB_* variables and --memory-limit, ... flags
///   auto x = slab::random_uniform(engine, {100000, 1000}, slab::Split::rows, 42);
/// @endcode

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/runtime.hpp"
#include "slab/task/task_queue.hpp"

namespace slab {

/// The settings of an Engine: the runtime options (memory limits, spill folder, trace file, log level).
using EngineOptions = RuntimeOptions;

/**
 * @brief Runtime -> world Comm -> MemoryManager -> TaskQueue, built and torn down in that order.
 *
 * Construction and destruction are collective over MPI_COMM_WORLD. MPI (and Kokkos) are initialised unless
 * they already are, and finalised with the engine only when it initialised them, so a program that owns MPI may
 * make several engines one after another (tests do). Not copyable or movable: arrays and frames refer to it.
 */
class Engine {
 public:
  /**
   * @brief Read the SLAB_* variables, consume the runtime flags from argv (RuntimeOptions::consume_flags,
   * leaving the program's own arguments in order) and build the engine.
   * @throws InvalidArgument naming the flag, variable or folder at fault, on every rank.
   * @throws CommError when the device communicator cannot be made; IoError when the spill directory cannot.
   */
  Engine(int& argc, char**& argv);
  /// Build the engine from explicit options (nothing is read from the environment). Same errors.
  explicit Engine(EngineOptions options);
  /// Options from the environment only (RuntimeOptions::from_environment()).
  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  [[nodiscard]] Runtime& runtime() noexcept { return *runtime_; }
  [[nodiscard]] const Runtime& runtime() const noexcept { return *runtime_; }
  /// The communicator over every rank of the engine (NCCL or host staging for device buffers where built).
  [[nodiscard]] Comm& comm() noexcept { return *comm_; }
  [[nodiscard]] const Comm& comm() const noexcept { return *comm_; }
  [[nodiscard]] MemoryManager& memory() noexcept { return *memory_; }
  [[nodiscard]] const MemoryManager& memory() const noexcept { return *memory_; }
  [[nodiscard]] TaskQueue& tasks() noexcept { return *tasks_; }
  [[nodiscard]] Tracer& tracer() noexcept { return runtime_->tracer(); }
  /// Where this rank computes (host or its GPU), its stream and CUDA library handles. Not collective.
  [[nodiscard]] const ExecutionContext& execution() const noexcept { return runtime_->execution(); }
  [[nodiscard]] int rank() const noexcept { return runtime_->rank(); }
  [[nodiscard]] int size() const noexcept { return runtime_->size(); }
  /**
   * @brief std::cout on rank 0 and a stream that discards everything on the other ranks: a notebook's output.
   * `engine.out() << df.len() << df.head();` runs each operand on every rank (collectives in the same order
   * everywhere: `<<` evaluates left to right) and prints once. Not collective itself.
   */
  [[nodiscard]] std::ostream& out() const noexcept;

  /**
   * @brief Collective: write the trace file of --trace / SLAB_TRACE (if any) and, with --verbose, print the
   * per-rank summary with the memory peaks and spilled bytes (plus `extra_summary_columns`). Call it once, at
   * the end of the program's work. @throws IoError on every rank when the trace cannot be written.
   */
  void finish(const std::vector<std::pair<std::string, std::uint64_t>>& extra_summary_columns = {});

 private:
  void build();
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<Comm> comm_;
  std::unique_ptr<MemoryManager> memory_;
  std::unique_ptr<TaskQueue> tasks_;
};

/**
 * @brief The MemoryManager settings a runtime implies: its device and host limits, disk cap, spill root and
 * tracer, and whether the device tier is GPU memory. Not collective.
 */
[[nodiscard]] MemoryConfig memory_config_of(Runtime& runtime);

}  // namespace slab
