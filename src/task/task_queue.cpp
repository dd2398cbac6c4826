#include "slab/task/task_queue.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <map>
#include <unordered_set>

#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/memory/host_view.hpp"
#include "slab/memory/memory_manager.hpp"
#include "task/task_node.hpp"

namespace slab {

using detail::TaskNode;
using NodePtr = std::shared_ptr<TaskNode>;

struct TaskQueue::Impl {
  MemoryManager& memory;
  Comm& comm;
  Tracer& tracer;
  std::shared_ptr<detail::TaskCounters> counters = std::make_shared<detail::TaskCounters>();
  std::uint64_t next_seq = 0;
  /// Collective tasks not yet run, by submission order. Held strongly: every rank runs each of them, in
  /// this order, whether or not a handle to it is left.
  std::map<std::uint64_t, NodePtr> pending_collectives;
  /// Every task not yet run (weak: a task nobody needs any more is simply dropped).
  std::vector<std::weak_ptr<TaskNode>> pending;
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  std::uint64_t progress_done = 0;
  std::uint64_t progress_total = 0;
  std::chrono::steady_clock::time_point last_progress{};

  Impl(MemoryManager& m, Comm& c, Tracer& t) : memory(m), comm(c), tracer(t) {}

  void report_progress(bool force) {
    if (!progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (force || now - last_progress > std::chrono::milliseconds(50)) {
      last_progress = now;
      progress(progress_done, progress_total);
    }
  }

  // Tasks that running `targets` will execute (for the progress total only).
  std::uint64_t count_undone(const std::vector<NodePtr>& targets) const {
    std::unordered_set<const TaskNode*> seen;
    std::vector<const TaskNode*> stack;
    for (const auto& t : targets) stack.push_back(t.get());
    for (const auto& [seq, node] : pending_collectives) stack.push_back(node.get());
    while (!stack.empty()) {
      const TaskNode* n = stack.back();
      stack.pop_back();
      if (!n || n->done || !seen.insert(n).second) continue;
      for (const auto& in : n->inputs) stack.push_back(in.get());
    }
    return seen.size();
  }

  // The manager's message names the bytes, the tier and the purpose ('kernel scratch', 'task output'); the task's
  // name says which operation asked.
  [[noreturn]] static void throw_naming_task(const OutOfMemory& e, const TaskNode& node) {
    throw OutOfMemory(e.message() + " (in task '" + node.name + "')", e.file(), e.line());
  }

  void execute(TaskNode& node) {
    std::vector<Pin> pins;
    pins.reserve(node.inputs.size());
    for (const auto& in : node.inputs) {
      if (in->output)
        pins.push_back(in->output->pin());
      else
        pins.emplace_back();
    }
    const double start = tracer.now();
    TaskContext ctx(memory, comm, tracer, pins, node.num_outputs, stages(node.options.place));
    // An error only this rank has, even inside a collective task, goes up to persist's agreement: the other
    // ranks wait at this task's next collective, whose argument check is an agreement point (see comm.hpp).
    try {
      node.fn(ctx);
      ctx.finish();
    } catch (const OutOfMemory& e) {
      throw_naming_task(e, node);
    }
    if (ctx.staged()) {
      ++counters->stats.staged;
      counters->stats.staged_bytes += ctx.staged_bytes();
    }
    auto outs = ctx.take_outputs();
    if (node.multi)
      node.outputs = std::move(outs);
    else
      node.output = std::move(outs[0]);
    finish(node, start);
  }

  // A projection of a multi-output task: adopt its output (no copy, nothing pinned).
  void project(TaskNode& node) {
    const double start = tracer.now();
    node.output = std::move(node.inputs[0]->outputs.at(static_cast<std::size_t>(node.take)));
    finish(node, start, false);
  }

  void finish(TaskNode& node, double start, bool record = true) {
    const double duration = tracer.now() - start;
    std::uint64_t bytes = node.output ? node.output->size() : 0;
    for (const auto& o : node.outputs) bytes += o ? o->size() : 0;
    if (record) tracer.record(node.name, node.options.kind, start, duration, bytes);
    counters->stats.seconds += duration;
    ++counters->stats.executed;
    node.done = true;
    node.inputs.clear();  // release what only this task needed
    node.fn = nullptr;
    node.combine = nullptr;
    if (node.options.collective) pending_collectives.erase(node.seq);
    ++progress_done;
    report_progress(false);
  }

  // Whether a task of this place runs on host copies of its buffers: a host task where the device tier is not
  // host memory, or on the reference place, which stages as a GPU would (TaskPlace).
  bool stages(TaskPlace place) const { return place == TaskPlace::host && memory.execution().device_kernels(); }

  // Fold the next ready input of a streaming reduction into its accumulator (node.output).
  void fold(TaskNode& node, std::size_t i) {
    try {
      fold_input(node, i);
    } catch (const OutOfMemory& e) {
      throw_naming_task(e, node);
    }
  }
  void fold_input(TaskNode& node, std::size_t i) {
    NodePtr input = std::move(node.inputs[i]);
    const double start = tracer.now();
    SLAB_EXPECTS(input->output, InvalidArgument,
                 "reduce '" + node.name + "': input '" + input->name + "' produced no output");
    if (!node.output) {
      // The first input becomes the accumulator; without a copy when nothing else holds it.
      if (input.use_count() == 1 && input->output.use_count() == 1) {
        node.output = std::move(input->output);
      } else {
        node.output = memory.allocate(input->output->size(), "reduce accumulator");
        Pin dst = node.output->pin();
        Pin src = input->output->pin();
        slab::copy(dst.data(), src.data(), src.size(), memory.execution());
      }
    } else {
      SLAB_EXPECTS(input->output->size() == node.output->size(), InvalidArgument,
                   "reduce '" + node.name + "': input '" + input->name + "' has " +
                       std::to_string(input->output->size()) + " bytes, the accumulator " +
                       std::to_string(node.output->size()));
      Pin acc = node.output->pin();
      Pin in = input->output->pin();
      if (stages(node.options.place)) {
        const Reservation staging = memory.reserve_host("host staging", acc.size() + in.size());
        const StagingBlock host_acc = memory.staging_block(acc.size()), host_in = memory.staging_block(in.size());
        slab::copy(host_acc.data(), acc.data(), host_acc.size(), memory.execution());
        slab::copy(host_in.data(), in.data(), host_in.size(), memory.execution());
        node.combine(host_acc.bytes(), host_in.bytes());
        slab::copy(acc.data(), host_acc.data(), host_acc.size(), memory.execution());
        ++counters->stats.staged;
        counters->stats.staged_bytes += 3 * host_acc.size();
      } else {
        node.combine(std::span<std::byte>(acc.data(), acc.size()), std::span<const std::byte>(in.data(), in.size()));
      }
    }
    tracer.record(node.name, node.options.kind, start, tracer.now() - start, 0);
    // `input` goes out of scope here: its buffer is freed unless a user handle holds it.
  }

  // Run `target` and everything it needs, depth first, iteratively (chains may be millions long).
  void run(const NodePtr& target) {
    struct Frame {
      NodePtr node;
      std::size_t next = 0;
    };
    std::vector<Frame> stack;
    if (!target->done) stack.push_back({target, 0});
    while (!stack.empty()) {
      Frame& frame = stack.back();
      TaskNode& node = *frame.node;
      if (node.done) {
        stack.pop_back();
        continue;
      }
      // Produce inputs in order; a reduction folds each one as soon as it is ready.
      bool pushed = false;
      while (frame.next < node.inputs.size()) {
        const NodePtr& in = node.inputs[frame.next];
        if (!in->done) {
          stack.push_back({in, 0});
          pushed = true;
          break;
        }
        if (node.combine) fold(node, frame.next);
        ++frame.next;
      }
      if (pushed) continue;
      if (node.options.collective) {
        // Earlier collectives first: every rank calls collectives in submission order.
        auto first = pending_collectives.begin();
        if (first != pending_collectives.end() && first->first < node.seq) {
          stack.push_back({first->second, 0});
          continue;
        }
        comm.agree(std::exception_ptr{});  // no rank failed since the last agreement
      }
      NodePtr keep = frame.node;  // `frame` may be invalidated by nothing below, but keep the node alive
      if (node.combine) {
        const double start = tracer.now();
        finish(node, start);
      } else if (node.take >= 0) {
        project(node);
      } else {
        execute(node);
      }
      stack.pop_back();
    }
  }

  void persist(std::vector<NodePtr> targets) {
    std::exception_ptr error;
    if (progress) {
      progress_done = 0;
      progress_total = count_undone(targets);
      report_progress(true);
    }
    try {
      for (const auto& t : targets) run(t);
      // Collectives submitted before these chunks were asked for run now too, in order, so that every
      // rank has called the same collectives when persist returns.
      while (!pending_collectives.empty()) run(pending_collectives.begin()->second);
    } catch (...) {
      error = std::current_exception();
    }
    try {
      comm.agree(error);  // an error already agreed is rethrown at once, without another exchange
    } catch (...) {
      // Every rank has run the same collective tasks when an error is agreed (each one starts at an agreement
      // point), so every rank forgets the same pending ones: the rest of a failed operation's collectives are not
      // run again by the next persist (failing the same way) unless a handle still asks for them.
      pending_collectives.clear();
      throw;
    }
    report_progress(true);
    std::erase_if(pending, [](const std::weak_ptr<TaskNode>& w) {
      auto n = w.lock();
      return !n || n->done;
    });
  }
};

TaskQueue::TaskQueue(MemoryManager& memory, Comm& comm, Tracer& tracer)
    : impl_(std::make_unique<Impl>(memory, comm, tracer)) {}
TaskQueue::~TaskQueue() = default;

Chunk TaskQueue::submit(std::string name, std::vector<Chunk> inputs, TaskFn fn, TaskOptions options) {
  SLAB_EXPECTS(fn, InvalidArgument, "task '" + name + "' has no function");
  auto node = std::make_shared<TaskNode>();
  node->name = std::move(name);
  node->seq = impl_->next_seq++;
  node->options = options;
  node->inputs.reserve(inputs.size());
  for (auto& c : inputs) {
    SLAB_EXPECTS(c.node_, InvalidArgument, "task '" + node->name + "' was given an empty chunk handle");
    node->inputs.push_back(std::move(c.node_));
  }
  node->fn = std::move(fn);
  node->counters = impl_->counters;
  if (options.collective) impl_->pending_collectives.emplace(node->seq, node);
  impl_->pending.push_back(node);
  ++impl_->counters->stats.submitted;
  return Chunk(std::move(node));
}

std::vector<Chunk> TaskQueue::submit_multi(std::string name, std::vector<Chunk> inputs, std::size_t outputs, TaskFn fn,
                                           TaskOptions options) {
  SLAB_EXPECTS(outputs >= 1, InvalidArgument, "task '" + name + "' with no outputs");
  Chunk parent = submit(name, std::move(inputs), std::move(fn), options);
  parent.node_->multi = true;
  parent.node_->num_outputs = outputs;
  std::vector<Chunk> out;
  out.reserve(outputs);
  for (std::size_t k = 0; k < outputs; ++k) {
    auto node = std::make_shared<TaskNode>();
    node->name = parent.node_->name;
    node->seq = impl_->next_seq++;
    node->inputs.push_back(parent.node_);
    node->take = static_cast<std::int64_t>(k);
    node->counters = impl_->counters;
    impl_->pending.push_back(node);
    ++impl_->counters->stats.submitted;
    out.push_back(Chunk(std::move(node)));
  }
  return out;
}

Chunk TaskQueue::reduce(std::string name, std::vector<Chunk> inputs, CombineFn combine, TaskPlace place) {
  SLAB_EXPECTS(!inputs.empty(), ShapeError, "reduce '" + name + "' of no chunks");
  SLAB_EXPECTS(combine, InvalidArgument, "reduce '" + name + "' has no combine function");
  auto node = std::make_shared<TaskNode>();
  node->name = std::move(name);
  node->seq = impl_->next_seq++;
  node->inputs.reserve(inputs.size());
  for (auto& c : inputs) {
    SLAB_EXPECTS(c.node_, InvalidArgument, "reduce '" + node->name + "' was given an empty chunk handle");
    node->inputs.push_back(std::move(c.node_));
  }
  inputs.clear();
  node->combine = std::move(combine);
  node->options.place = place;
  node->counters = impl_->counters;
  impl_->pending.push_back(node);
  ++impl_->counters->stats.submitted;
  return Chunk(std::move(node));
}

void TaskQueue::persist(std::span<const Chunk> chunks) {
  std::vector<NodePtr> targets;
  targets.reserve(chunks.size());
  for (const auto& c : chunks)
    if (c.node_) targets.push_back(c.node_);
  impl_->persist(std::move(targets));
}

void TaskQueue::persist_all() {
  std::vector<NodePtr> targets;
  for (const auto& w : impl_->pending)
    if (auto n = w.lock()) targets.push_back(std::move(n));
  impl_->persist(std::move(targets));
}

std::size_t TaskQueue::pending() const noexcept {
  std::size_t n = 0;
  for (const auto& w : impl_->pending) {
    auto node = w.lock();
    if (node && !node->done) ++n;
  }
  return n;
}

const TaskStats& TaskQueue::stats() const noexcept { return impl_->counters->stats; }

void TaskQueue::set_progress(std::function<void(std::uint64_t, std::uint64_t)> callback) {
  impl_->progress = std::move(callback);
}

MemoryManager& TaskQueue::memory() noexcept { return impl_->memory; }
Comm& TaskQueue::comm() noexcept { return impl_->comm; }
Tracer& TaskQueue::tracer() noexcept { return impl_->tracer; }

void TaskQueue::copy_out(const Chunk& chunk, const std::function<void(std::span<const std::byte>)>& reader) {
  SLAB_EXPECTS(chunk.ready(), InvalidArgument, std::string("chunk '") + chunk.name() + "' has not been computed");
  BufferPtr buffer = chunk.buffer();
  if (!buffer) {
    reader({});
    return;
  }
  Pin pin = buffer->pin();
  reader(HostView(pin).bytes());
}

}  // namespace slab
