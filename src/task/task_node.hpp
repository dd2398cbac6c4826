#pragma once
// The node behind a slab::Chunk (private to the task layer).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "slab/task/task_queue.hpp"

namespace slab::detail {

/// Counters shared by a queue and its nodes (nodes may outlive the queue through user handles).
struct TaskCounters {
  TaskStats stats;
};

struct TaskNode {
  std::string name;
  std::uint64_t seq = 0;
  TaskOptions options;
  std::vector<std::shared_ptr<TaskNode>> inputs;  ///< dropped once the node has run
  TaskQueue::TaskFn fn;                           ///< a plain task
  TaskQueue::CombineFn combine;                   ///< a streaming reduction (fn is empty)
  bool done = false;
  BufferPtr output;
  /// A task of submit_multi: its outputs, each until the projection node that hands it out runs.
  bool multi = false;
  std::size_t num_outputs = 1;
  std::vector<BufferPtr> outputs;
  /// A projection node: takes output `take` of inputs[0] (a submit_multi task) as its own; -1 otherwise.
  std::int64_t take = -1;
  std::shared_ptr<TaskCounters> counters;

  ~TaskNode() {
    if (output && counters) ++counters->stats.released;
  }
};

}  // namespace slab::detail
