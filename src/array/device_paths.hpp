#pragma once
// Private to the array layer: the device paths of array operations. Where the rank's execution context takes
// device paths (ExecutionContext::device_kernels(): its GPU, or the reference place that runs the same
// compositions on the CPU), an operation whose expression compiles to a device program (expr.hpp's ElemBuilder)
// runs the device kernels of array/kernels/ on the chunks in the device tier; anything else runs its host
// kernel and is recorded as a fallback (slab/engine/host_fallback.hpp).
#include <algorithm>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "array/expr.hpp"
#include "array/kernels/creation.hpp"
#include "array/kernels/elementwise.hpp"
#include "array/kernels/layout.hpp"
#include "array/kernels/reduction.hpp"
#include "memory/kernel_scratch.hpp"
#include "runtime/device_backend.hpp"

namespace slab::detail {

/// The program `append(builder)` makes for target chunk ec.target (plan_only: structure only, no operand bytes),
/// or nothing where it cannot, or leaves other than one value on the stack.
template <class A, class Append>
std::optional<kernels::ElemProgram<A>> build_program(const EvalCtx& ec, bool plan_only, Append append) {
  ElemBuilder<A> b;
  b.ctx = &ec;
  b.plan_only = plan_only;
  if (!append(b) || b.depth != 1) return std::nullopt;
  return b.program;
}

/// The device program of `expr` for target chunk ec.target, or nothing where the expression has no device form.
template <class T>
std::optional<kernels::ElemProgram<T>> compile_program(const ExprNode<T>& expr, const EvalCtx& ec, bool plan_only) {
  if constexpr (!kernel_element_v<T>)
    return std::nullopt;
  else
    return build_program<T>(ec, plan_only, [&](ElemBuilder<T>& b) { return expr.compile(b); });
}

/// The chunk's values themselves where the program is one contiguous operand (nothing to evaluate), else null.
template <class T>
const T* direct_operand(const kernels::ElemProgram<T>& p, const ChunkExtent& e) {
  if (p.size != 1 || p.code[0].op != kernels::ElemOp::leaf) return nullptr;
  const auto& l = p.leaves[0];
  return l.col_stride == 1 && (l.row_stride == e.cols || e.rows <= 1) ? l.data : nullptr;
}

/// The program of an int64 expression whose root compares two A operands (CompareRoot<A>), run in A.
template <class A>
std::optional<kernels::ElemProgram<A>> compare_program(const ExprNode<std::int64_t>& expr, const EvalCtx& ec,
                                                       bool plan_only) {
  const auto* root = dynamic_cast<const CompareRoot<A>*>(&expr);
  if (!root) return std::nullopt;
  return build_program<A>(ec, plan_only, [&](ElemBuilder<A>& b) { return root->compile_compare(b); });
}

/**
 * Each leaf of `ec` whose region for ec.target spans several input chunks (a slice across chunk boundaries) is
 * gathered into one block of scratch, a LayoutKernels::copy_2d per piece, and ec's inputs of that leaf become that
 * block, so that its program reads one strided view (leaf_view). `held` gives the blocks back when it goes
 * (stream-ordered, as all kernel scratch: the programs queued after the copies still read them). Asynchronous.
 */
template <class B>
void gather_spanning_leaves(EvalCtx& ec, const kernels::Exec& exec, std::vector<std::unique_ptr<ScratchBytes>>& held) {
  if (ec.target.size() == 0) return;
  for (auto& [leaf, inputs] : ec.leaves) {
    const ChunkExtent r = leaf->region(ec.target);
    if (std::any_of(inputs.begin(), inputs.end(), [&](const LeafInput& c) { return contains(c.ext, r); })) continue;
    const std::size_t es = leaf->element_size();
    auto& block = held.emplace_back(std::make_unique<ScratchBytes>(exec, static_cast<std::size_t>(r.size()) * es));
    auto* dst = static_cast<std::byte*>(block->get());
    for (const LeafInput& c : inputs) {
      ChunkExtent x;
      if (!intersect(r, c.ext, x)) continue;
      const std::byte* src =
          c.data + static_cast<std::size_t>((x.row0 - c.ext.row0) * c.ext.cols + (x.col0 - c.ext.col0)) * es;
      std::byte* to = dst + static_cast<std::size_t>((x.row0 - r.row0) * r.cols + (x.col0 - r.col0)) * es;
      if (es == 8)
        kernels::LayoutKernels<B, std::int64_t>::copy_2d(exec, reinterpret_cast<const std::int64_t*>(src), c.ext.cols,
                                                         x.rows, x.cols, reinterpret_cast<std::int64_t*>(to), r.cols);
      else
        kernels::LayoutKernels<B, float>::copy_2d(exec, reinterpret_cast<const float*>(src), c.ext.cols, x.rows, x.cols,
                                                  reinterpret_cast<float*>(to), r.cols);
    }
    inputs.assign(1, LeafInput{dst, r});
  }
}

/// Whether `expr` has a device program for target chunk ec.target: its own, or (int64) a comparison's.
template <class T>
bool device_compiles(const ExprNode<T>& expr, const EvalCtx& ec) {
  if (compile_program(expr, ec, true)) return true;
  if constexpr (std::is_same_v<T, std::int64_t>)
    return compare_program<double>(expr, ec, true) || compare_program<float>(expr, ec, true) ||
           compare_program<std::int32_t>(expr, ec, true);
  return false;
}

/// Evaluate `expr` at target chunk ec.target into out (rows x cols of T, backend memory) on backend B: with
/// `program`, its own program compiled for this chunk (compile_program), where it has one, else a comparison's.
template <class B, class T>
void run_device_program(const kernels::Exec& exec, const ExprNode<T>& expr, const EvalCtx& ec,
                        const std::optional<kernels::ElemProgram<T>>& program, T* out) {
  const ChunkExtent& e = ec.target;
  if (program) {
    kernels::ElementwiseKernels<B, T>::run(exec, *program, e.rows, e.cols, out);
    return;
  }
  if constexpr (std::is_same_v<T, std::int64_t>) {
    if (auto p = compare_program<double>(expr, ec, false))
      return kernels::ElementwiseKernels<B, double>::run(exec, *p, e.rows, e.cols, out, true);
    if (auto p = compare_program<float>(expr, ec, false))
      return kernels::ElementwiseKernels<B, float>::run(exec, *p, e.rows, e.cols, out, true);
    if (auto p = compare_program<std::int32_t>(expr, ec, false))
      return kernels::ElementwiseKernels<B, std::int32_t>::run(exec, *p, e.rows, e.cols, out, true);
  }
  SLAB_FAIL(Error, "array expression: no device program at run time although it had one when planned (internal)");
}

/// Whether every one of `plans` compiles to a device program and the context can run it.
template <class T>
bool device_path_for(const ExecutionContext& context, const ExprNode<T>& expr, const std::vector<TaskPlan>& plans) {
  if (!kernel_element_v<T> || !has_device_backend(context)) return false;
  for (const TaskPlan& p : plans)
    if (!device_compiles(expr, p.plan_context())) return false;
  return true;
}

}  // namespace slab::detail

namespace slab::detail {

/// The plans of one task per local chunk of `layout` evaluating `expr`.
template <class T>
std::vector<TaskPlan> plan_chunks(const ExprNode<T>& expr, const Layout& layout, int rank, std::int64_t nchunks) {
  std::vector<TaskPlan> plans;
  plans.reserve(static_cast<std::size_t>(nchunks));
  for (std::int64_t i = 0; i < nchunks; ++i) plans.push_back(TaskPlan::make(expr, layout.chunk_extent(rank, i)));
  return plans;
}

/// One task per local chunk of `layout` evaluating `expr` (the fused pass): one device kernel per chunk where
/// the expression compiles (elementwise.hpp), else the host's tile loop, recorded as a fallback.
template <class T>
std::vector<Chunk> materialise(TaskQueue& q, const Layout& layout, const ExprPtr<T>& expr, const std::string& name) {
  const int rank = q.comm().rank();
  std::vector<TaskPlan> plans = plan_chunks(*expr, layout, rank, layout.num_chunks(rank));
  const bool device = device_path_for(q.memory().execution(), *expr, plans);
  if (!device) note_host_fallback(q, name);
  std::vector<Chunk> out;
  for (TaskPlan& plan : plans) {
    std::vector<Chunk> inputs = std::move(plan.inputs);
    plan.inputs.clear();
    out.push_back(q.submit(
        name, std::move(inputs),
        [expr, plan = std::move(plan), device](TaskContext& ctx) {
          EvalCtx ec = plan.context(ctx);
          const std::int64_t n = plan.target.size();
          T* o = reinterpret_cast<T*>(ctx.output(static_cast<std::size_t>(n) * sizeof(T)).data());
          if (device) {
            if (n == 0) return;
            with_device_backend(ctx.execution(), [&](auto tag) {
              using B = typename decltype(tag)::type;
              if constexpr (kernel_element_v<T>) {
                KernelScratch scratch(ctx.memory());
                const kernels::Exec exec = scratch.exec(ctx.execution());
                std::vector<std::unique_ptr<ScratchBytes>> gathered;
                gather_spanning_leaves<B>(ec, exec, gathered);
                run_device_program<B, T>(exec, *expr, ec, compile_program(*expr, ec, false), o);
              }
            });
            return;
          }
          for (std::int64_t k0 = 0; k0 < n; k0 += kTile) {
            const std::int64_t m = std::min(kTile, n - k0);
            const T* r = expr->eval(ec, k0, m, o + k0);
            if (r != o + k0) std::memcpy(o + k0, r, static_cast<std::size_t>(m) * sizeof(T));
          }
        },
        device ? device_task() : TaskOptions{}));
  }
  return out;
}

/// Which device reduction (array/kernels/reduction.hpp) computes a reduction's per-chunk partial.
enum class DeviceReduce { none, stats, sum, sum_squares, count_nonzero, nansum, argminmax };

/// Chunk partial `p` of kind `kind` over the n values at x (backend memory) on backend B.
template <class B, class T, class P>
void device_partial(DeviceReduce kind, const kernels::Exec& exec, const T* x, std::int64_t n, const ChunkExtent& e,
                    std::int64_t global_cols, P& p) {
  if constexpr (std::is_same_v<P, kernels::StatsPartial<T>>) {
    if (kind == DeviceReduce::stats) kernels::ReductionKernels<B, T>::stats(exec, &x, &n, 1, &p);
  } else if constexpr (std::is_same_v<P, kernels::SumPartial<T>>) {
    if (kind == DeviceReduce::sum) kernels::ReductionKernels<B, T>::sum(exec, &x, &n, 1, &p);
    if (kind == DeviceReduce::sum_squares) kernels::ReductionKernels<B, T>::sum_squares(exec, &x, &n, 1, &p);
    if (kind == DeviceReduce::count_nonzero) kernels::ReductionKernels<B, T>::count_nonzero(exec, &x, &n, 1, &p);
    if (kind == DeviceReduce::nansum) kernels::ReductionKernels<B, T>::nansum(exec, &x, &n, 1, &p);
  } else if constexpr (std::is_same_v<P, kernels::ArgPartial<T>>) {
    const kernels::ChunkPlace place{e.row0, e.col0, e.cols};
    if (kind == DeviceReduce::argminmax)
      kernels::ReductionKernels<B, T>::argminmax(exec, &x, &n, &place, 1, global_cols, &p);
  }
}

/**
 * One task per local chunk folds the chunk's tiles into a partial P (tile(p, x, n, extent, k0)); partials are
 * merged on this rank in chunk order, then across ranks over the comm's fixed tree. Collective. With a device
 * reduction `kind` and an expression that compiles, each chunk's partial is the device kernel's (evaluating the
 * expression first where it is more than the chunk itself): the same canonical order, so the same bits.
 */
template <class T, class P, class TileFn, class MergeFn>
P reduce_partials(const Array<T>& a, const std::string& name, const P& identity, TileFn tile, MergeFn merge,
                  DeviceReduce kind = DeviceReduce::none) {
  static_assert(std::is_trivially_copyable_v<P>);
  Engine& engine = a.engine();
  TaskQueue& q = engine.tasks();
  const ExprPtr<T> expr = a.expr();
  const Layout& layout = a.layout();
  const int rank = q.comm().rank();
  const ExecutionContext& context = q.memory().execution();
  // A replicated array is reduced once, on rank 0; the others contribute the identity.
  const std::int64_t nchunks = layout.split == Split::none && rank != 0 ? 0 : layout.num_chunks(rank);
  std::vector<TaskPlan> plans = plan_chunks(*expr, layout, rank, nchunks);
  // Every rank decides alike (the same expression, the same kind of context), but the decision is local.
  const bool device = kind != DeviceReduce::none && device_path_for(context, *expr, plans);
  if (!device) note_host_fallback(engine, name);
  const std::int64_t global_cols = a.cols();
  std::vector<Chunk> partials;
  for (TaskPlan& plan : plans) {
    std::vector<Chunk> inputs = std::move(plan.inputs);
    plan.inputs.clear();
    partials.push_back(q.submit(
        name, std::move(inputs),
        [expr, plan = std::move(plan), identity, tile, device, kind, global_cols](TaskContext& ctx) {
          (void)kind, (void)global_cols;  // read only by the device path, which a host-only build does not instantiate
          EvalCtx ec = plan.context(ctx);
          const std::int64_t n = plan.target.size();
          P p = identity;
          if (device && n > 0) {
            with_device_backend(ctx.execution(), [&](auto tag) {
              using B = typename decltype(tag)::type;
              if constexpr (kernel_element_v<T>) {
                KernelScratch scratch(ctx.memory());
                const kernels::Exec exec = scratch.exec(ctx.execution());
                std::vector<std::unique_ptr<ScratchBytes>> gathered;
                gather_spanning_leaves<B>(ec, exec, gathered);
                const auto program = compile_program(*expr, ec, false);
                const T* x = program ? direct_operand(*program, plan.target) : nullptr;
                std::optional<ScratchBytes> values;
                if (!x) {  // a lazy expression: evaluated into scratch first (one more pass over the chunk)
                  values.emplace(exec, static_cast<std::size_t>(n) * sizeof(T));
                  run_device_program<B, T>(exec, *expr, ec, program, static_cast<T*>(values->get()));
                  x = static_cast<const T*>(values->get());
                }
                device_partial<B, T, P>(kind, exec, x, n, plan.target, global_cols, p);
              }
            });
          } else if (!device) {
            std::vector<T> scratch(static_cast<std::size_t>(std::min(n, kTile)));
            for (std::int64_t k0 = 0; k0 < n; k0 += kTile) {
              const std::int64_t m = std::min(kTile, n - k0);
              tile(p, expr->eval(ec, k0, m, scratch.data()), m, plan.target, k0);
            }
          }
          auto out = ctx.output(sizeof(P));
          slab::copy(out.data(), &p, sizeof(P), ctx.execution());
        },
        device ? device_task() : TaskOptions{}));
  }
  q.persist(std::span<const Chunk>(partials));
  P acc = identity;
  for (const Chunk& c : partials) {
    P p;
    Pin pin = c.buffer()->pin();
    slab::copy(&p, pin.data(), sizeof(P), context);
    merge(acc, p);
  }
  std::vector<std::byte> bytes(sizeof(P));
  std::memcpy(bytes.data(), &acc, sizeof(P));
  q.comm().tree_allreduce_bytes(bytes, [&](std::vector<std::byte>& x, const std::vector<std::byte>& y) {
    P px, py;
    std::memcpy(&px, x.data(), sizeof(P));
    std::memcpy(&py, y.data(), sizeof(P));
    merge(px, py);
    std::memcpy(x.data(), &px, sizeof(P));
  });
  std::memcpy(&acc, bytes.data(), sizeof(P));
  return acc;
}

}  // namespace slab::detail
