#pragma once
// Private to the array layer: unevaluated elementwise expressions, evaluated tile by tile (kTile elements)
// into a chunk, or compiled to a device program (ElemBuilder). The helpers that turn an expression into one task per
// chunk (materialise) or into one partial per chunk merged in a fixed order (reduce_partials) are in
// device_paths.hpp, with their device paths.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "array/kernels/cast_hd.hpp"
#include "array/kernels/elementwise.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/comm/comm.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/memory/buffer.hpp"
#include "slab/task/task_context.hpp"

namespace slab::detail {

inline constexpr std::int64_t kTile = 4096;

class LeafBase;
template <class T>
struct ElemBuilder;
struct LeafInput {
  const std::byte* data;
  ChunkExtent ext;
};
struct EvalCtx {
  ChunkExtent target;
  std::vector<std::pair<const LeafBase*, std::vector<LeafInput>>> leaves;
  [[nodiscard]] const std::vector<LeafInput>& inputs_of(const LeafBase* leaf) const {
    for (const auto& [l, in] : leaves)
      if (l == leaf) return in;
    SLAB_FAIL(Error, "array expression: leaf without inputs (internal error)");
  }
};

/// An operand read from chunks: the source array's chunks, seen through an offset and broadcasting.
class LeafBase {
 public:
  virtual ~LeafBase() = default;
  /// The source chunks (with their extents) that target chunk `e` reads.
  virtual void needed(const ChunkExtent& e, std::vector<std::pair<Chunk, ChunkExtent>>& out) const = 0;
  /// The part of the source that target chunk `e` (not empty) reads: one row or column where it is broadcast.
  [[nodiscard]] virtual ChunkExtent region(const ChunkExtent& e) const = 0;
  [[nodiscard]] virtual std::size_t element_size() const = 0;
};

template <class T>
struct ExprNode {
  virtual ~ExprNode() = default;
  /// Elements [k0, k0 + n) of ctx.target (row-major); writes them to `out` and returns out, or returns a
  /// pointer to them where they already exist.
  virtual const T* eval(const EvalCtx& ctx, std::int64_t k0, std::int64_t n, T* out) const = 0;
  virtual void leaves(std::vector<const LeafBase*>& out) const = 0;
  /// Append this node to a device program (array/kernels/elementwise.hpp); false where it has no device form
  /// (a user's function, a cast, mixed element types, an operand spread over several chunks).
  virtual bool compile(ElemBuilder<T>&) const { return false; }
};

/// The element types the device kernels are instantiated for.
template <class T>
inline constexpr bool kernel_element_v = std::is_same_v<T, double> || std::is_same_v<T, float> ||
                                         std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t>;

/**
 * An expression compiled for one target chunk: the program and its operands. Made twice per chunk: when the
 * task is planned (plan_only: the inputs' extents are known, their bytes are not; decides whether the device path
 * exists) and when it runs (the operands' pointers).
 */
template <class T>
struct ElemBuilder {
  const EvalCtx* ctx = nullptr;
  bool plan_only = false;
  kernels::ElemProgram<T> program{};
  int depth = 0;

  bool emit(kernels::ElemOp op, int arg, int pushes) {
    if (program.size >= kernels::kMaxElemInstrs) return false;
    depth += pushes;
    if (depth > kernels::kMaxElemStack) return false;
    program.code[program.size++] = {op, static_cast<std::uint8_t>(arg)};
    return true;
  }
};

/// Whether extent `outer` holds all of `inner`.
inline bool contains(const ChunkExtent& outer, const ChunkExtent& inner) {
  return inner.row0 >= outer.row0 && inner.row0 + inner.rows <= outer.row0 + outer.rows && inner.col0 >= outer.col0 &&
         inner.col0 + inner.cols <= outer.col0 + outer.cols;
}
/// The overlap o of extents a and b; false where they do not overlap.
inline bool intersect(const ChunkExtent& a, const ChunkExtent& b, ChunkExtent& o) {
  o.row0 = std::max(a.row0, b.row0);
  o.col0 = std::max(a.col0, b.col0);
  o.rows = std::min(a.row0 + a.rows, b.row0 + b.rows) - o.row0;
  o.cols = std::min(a.col0 + a.cols, b.col0 + b.cols) - o.col0;
  return o.rows > 0 && o.cols > 0;
}

/// The view of a leaf's operand `region` (LeafBase::region of a non-empty target chunk) when it lies in one input
/// chunk. A region that spans several chunks has a view only in planning (plan_only): a device task gathers it into
/// one block first (device_paths.hpp's gather_spanning_leaves), and without that it has none (false).
template <class T>
bool leaf_view(const std::vector<LeafInput>& in, const ChunkExtent& region, bool br, bool bc, bool plan_only,
               kernels::ElemLeaf<T>& out) {
  for (const auto& c : in)
    if (contains(c.ext, region)) {
      out.data = plan_only ? nullptr
                           : reinterpret_cast<const T*>(c.data) + (region.row0 - c.ext.row0) * c.ext.cols +
                                 (region.col0 - c.ext.col0);
      out.row_stride = br ? 0 : c.ext.cols;
      out.col_stride = bc ? 0 : 1;
      return true;
    }
  out = {};
  return plan_only;
}

template <class T>
class Leaf final : public ExprNode<T>, public LeafBase {
 public:
  Leaf(Layout src, std::vector<Chunk> chunks, int rank, std::int64_t row_off, std::int64_t col_off, bool bcast_rows,
       bool bcast_cols)
      : src_(std::move(src)),
        chunks_(std::move(chunks)),
        rank_(rank),
        row_off_(row_off),
        col_off_(col_off),
        br_(bcast_rows),
        bc_(bcast_cols) {}

  void needed(const ChunkExtent& e, std::vector<std::pair<Chunk, ChunkExtent>>& out) const override {
    if (e.size() == 0) return;
    const ChunkExtent r = region(e);
    const std::int64_t r0 = r.row0, r1 = r.row0 + r.rows, c0 = r.col0, c1 = r.col0 + r.cols;
    const ChunkExtent b = src_.block_extent(rank_);
    SLAB_EXPECTS(r0 >= b.row0 && r1 <= b.row0 + b.rows && c0 >= b.col0 && c1 <= b.col0 + b.cols, ShapeError,
                 "array expression reads outside this rank's block of " + src_.to_string() + " (internal error)");
    const bool by_cols = src_.split == Split::cols;
    const std::int64_t base = by_cols ? b.col0 : b.row0;
    const std::int64_t lo = (by_cols ? c0 : r0) - base, hi = (by_cols ? c1 : r1) - base;
    for (std::int64_t i = lo / src_.chunk; i <= (hi - 1) / src_.chunk; ++i)
      out.emplace_back(chunks_[static_cast<std::size_t>(i)], src_.chunk_extent(rank_, i));
  }

  const T* eval(const EvalCtx& ctx, std::int64_t k0, std::int64_t n, T* out) const override {
    const auto& in = ctx.inputs_of(this);
    const ChunkExtent& e = ctx.target;
    const std::int64_t ti0 = k0 / e.cols, tj0 = k0 % e.cols;
    if (!br_ && !bc_) {  // zero copy when the tile lies in one source chunk with the same columns
      const std::int64_t s0 = e.row0 + row_off_ + ti0, s1 = e.row0 + row_off_ + (k0 + n - 1) / e.cols;
      for (const auto& c : in)
        if (c.ext.col0 == e.col0 + col_off_ && c.ext.cols == e.cols && c.ext.row0 <= s0 && s1 < c.ext.row0 + c.ext.rows)
          return reinterpret_cast<const T*>(c.data) + (s0 - c.ext.row0) * c.ext.cols + tj0;
    }
    std::int64_t k = k0, ti = ti0, tj = tj0;
    while (k < k0 + n) {
      const std::int64_t seg = std::min(k0 + n - k, e.cols - tj);
      const std::int64_t si = br_ ? 0 : e.row0 + ti + row_off_;
      T* dst = out + (k - k0);
      if (bc_) {
        const T v = *at(in, si, 0);
        std::fill(dst, dst + seg, v);
      } else {
        std::int64_t sj = e.col0 + tj + col_off_, left = seg;
        while (left > 0) {
          const LeafInput& c = find(in, si, sj);
          const std::int64_t m = std::min(left, c.ext.col0 + c.ext.cols - sj);
          std::memcpy(dst, reinterpret_cast<const T*>(c.data) + (si - c.ext.row0) * c.ext.cols + (sj - c.ext.col0),
                      static_cast<std::size_t>(m) * sizeof(T));
          dst += m;
          sj += m;
          left -= m;
        }
      }
      k += seg;
      ++ti;
      tj = 0;
    }
    return out;
  }
  void leaves(std::vector<const LeafBase*>& out) const override { out.push_back(this); }
  ChunkExtent region(const ChunkExtent& e) const override {
    return {br_ ? 0 : e.row0 + row_off_, br_ ? 1 : e.rows, bc_ ? 0 : e.col0 + col_off_, bc_ ? 1 : e.cols};
  }
  std::size_t element_size() const override { return sizeof(T); }

  bool view(const EvalCtx& ctx, bool plan_only, kernels::ElemLeaf<T>& out) const {
    if (ctx.target.size() == 0) {
      out = {};
      return true;
    }
    return leaf_view(ctx.inputs_of(this), region(ctx.target), br_, bc_, plan_only, out);
  }
  bool compile(ElemBuilder<T>& b) const override {
    if constexpr (!kernel_element_v<T>) {
      return false;
    } else {
      if (b.program.nleaves >= kernels::kMaxElemLeaves) return false;
      kernels::ElemLeaf<T> v;
      if (!view(*b.ctx, b.plan_only, v)) return false;
      b.program.leaves[b.program.nleaves] = v;
      return b.emit(kernels::ElemOp::leaf, b.program.nleaves++, 1);
    }
  }

 private:
  static const LeafInput& find(const std::vector<LeafInput>& in, std::int64_t i, std::int64_t j) {
    for (const auto& c : in)
      if (i >= c.ext.row0 && i < c.ext.row0 + c.ext.rows && j >= c.ext.col0 && j < c.ext.col0 + c.ext.cols) return c;
    SLAB_FAIL(Error, "array expression: element outside its inputs (internal error)");
  }
  static const T* at(const std::vector<LeafInput>& in, std::int64_t i, std::int64_t j) {
    const LeafInput& c = find(in, i, j);
    return reinterpret_cast<const T*>(c.data) + (i - c.ext.row0) * c.ext.cols + (j - c.ext.col0);
  }
  Layout src_;
  std::vector<Chunk> chunks_;
  int rank_;
  std::int64_t row_off_, col_off_;
  bool br_, bc_;
};

template <class T>
struct ScalarNode final : ExprNode<T> {
  explicit ScalarNode(T v) : value(v) {}
  const T* eval(const EvalCtx&, std::int64_t, std::int64_t n, T* out) const override {
    std::fill(out, out + n, value);
    return out;
  }
  void leaves(std::vector<const LeafBase*>&) const override {}
  bool compile(ElemBuilder<T>& b) const override {
    if (b.program.nscalars >= kernels::kMaxElemScalars) return false;
    b.program.scalars[b.program.nscalars] = value;
    return b.emit(kernels::ElemOp::scalar, b.program.nscalars++, 1);
  }
  T value;
};

/// No device operation: a node made from a user's function.
inline constexpr int kNoElemOp = -1;
/// A UnaryNode<R, A> that is astype's conversion (kernels::cast_value): its device form is a cast leaf.
inline constexpr int kElemCast = -2;

/// A comparison of two T operands (an ExprNode<int64_t> of 0/1): its program runs in T and pushes T(0/1), which the
/// kernel writes as int64 at the root (ElementwiseKernels::run's out_int64) or where() uses as its condition.
template <class T>
struct CompareRoot {
  virtual ~CompareRoot() = default;
  /// Append both operands and the comparison to a T program.
  virtual bool compile_compare(ElemBuilder<T>& b) const = 0;
};
/// The other binaries: the same member, which no program calls (so that BinaryNode overrides it either way).
template <class A>
struct NoCompareRoot {
  virtual ~NoCompareRoot() = default;
  virtual bool compile_compare(ElemBuilder<A>&) const { return false; }
};
template <class R, class A, class B>
using CompareRootOf =
    std::conditional_t<std::is_same_v<R, std::int64_t> && std::is_same_v<A, B> && !std::is_same_v<A, std::int64_t>,
                       CompareRoot<A>, NoCompareRoot<A>>;

template <class A>
constexpr kernels::ElemSource elem_source() {
  if constexpr (std::is_same_v<A, double>)
    return kernels::ElemSource::float64;
  else if constexpr (std::is_same_v<A, float>)
    return kernels::ElemSource::float32;
  else if constexpr (std::is_same_v<A, std::int64_t>)
    return kernels::ElemSource::int64;
  else
    return kernels::ElemSource::int32;
}

/// Append astype<R>(a) to an R program: a leaf of A read through a cast leaf, a scalar converted here, or a
/// comparison of R operands (int64 0/1, which the R program pushes as R 0/1 already). Anything else in A would
/// need a program in A: no device form.
template <class R, class A>
bool compile_cast(const ExprNode<A>& a, ElemBuilder<R>& b) {
  if constexpr (!kernel_element_v<R>) {
    return false;
  } else {
    if (const auto* leaf = dynamic_cast<const Leaf<A>*>(&a)) {
      if (b.program.ncast_leaves >= kernels::kMaxElemCastLeaves) return false;
      kernels::ElemLeaf<A> v;
      if (!leaf->view(*b.ctx, b.plan_only, v)) return false;
      b.program.cast_leaves[b.program.ncast_leaves] = {v.data, v.row_stride, v.col_stride, elem_source<A>()};
      return b.emit(kernels::ElemOp::cast_leaf, b.program.ncast_leaves++, 1);
    }
    if (const auto* scalar = dynamic_cast<const ScalarNode<A>*>(&a)) {
      if (b.program.nscalars >= kernels::kMaxElemScalars) return false;
      b.program.scalars[b.program.nscalars] = kernels::cast_value<R>(scalar->value);
      return b.emit(kernels::ElemOp::scalar, b.program.nscalars++, 1);
    }
    if constexpr (std::is_same_v<A, std::int64_t> && !std::is_same_v<R, std::int64_t>)
      if (const auto* cmp = dynamic_cast<const CompareRoot<R>*>(&a)) return cmp->compile_compare(b);
    return false;
  }
}

/// Whether compile_cast takes `a` as it is (a leaf, a scalar, or a comparison of R operands).
template <class R, class A>
bool casts_in_place(const ExprNode<A>& a) {
  if (dynamic_cast<const Leaf<A>*>(&a) || dynamic_cast<const ScalarNode<A>*>(&a)) return true;
  if constexpr (std::is_same_v<A, std::int64_t> && !std::is_same_v<R, std::int64_t>)
    return dynamic_cast<const CompareRoot<R>*>(&a) != nullptr;
  return false;
}

template <class R, class A, class F>
struct UnaryNode final : ExprNode<R> {
  UnaryNode(ExprPtr<A> a, F f, int op = kNoElemOp) : a(std::move(a)), f(f), op(op) {}
  const R* eval(const EvalCtx& ctx, std::int64_t k0, std::int64_t n, R* out) const override {
    if constexpr (std::is_same_v<R, A>) {
      const A* x = a->eval(ctx, k0, n, out);
      for (std::int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
    } else {
      alignas(64) A buf[kTile];
      const A* x = a->eval(ctx, k0, n, buf);
      for (std::int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
    }
    return out;
  }
  void leaves(std::vector<const LeafBase*>& out) const override { a->leaves(out); }
  bool compile(ElemBuilder<R>& b) const override {
    if constexpr (std::is_same_v<R, A>)
      return op >= 0 && a->compile(b) && b.emit(static_cast<kernels::ElemOp>(op), 0, 0);
    else
      return op == kElemCast && compile_cast(*a, b);
  }
  ExprPtr<A> a;
  F f;
  int op;
};

template <class R, class A, class B, class F>
struct BinaryNode final : ExprNode<R>, CompareRootOf<R, A, B> {
  BinaryNode(ExprPtr<A> a, ExprPtr<B> b, F f, int op = kNoElemOp) : a(std::move(a)), b(std::move(b)), f(f), op(op) {}
  const R* eval(const EvalCtx& ctx, std::int64_t k0, std::int64_t n, R* out) const override {
    alignas(64) B bbuf[kTile];
    const B* y = b->eval(ctx, k0, n, bbuf);
    if constexpr (std::is_same_v<R, A>) {
      const A* x = a->eval(ctx, k0, n, out);
      for (std::int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
    } else {
      alignas(64) A abuf[kTile];
      const A* x = a->eval(ctx, k0, n, abuf);
      for (std::int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
    }
    return out;
  }
  void leaves(std::vector<const LeafBase*>& out) const override {
    a->leaves(out);
    b->leaves(out);
  }
  bool compile(ElemBuilder<R>& bld) const override {
    if constexpr (std::is_same_v<R, A> && std::is_same_v<R, B>)
      return op != kNoElemOp && a->compile(bld) && b->compile(bld) && bld.emit(static_cast<kernels::ElemOp>(op), 0, -1);
    else
      return false;
  }
  bool compile_compare(ElemBuilder<A>& bld) const override {
    return op != kNoElemOp && a->compile(bld) && b->compile(bld) && bld.emit(static_cast<kernels::ElemOp>(op), 0, -1);
  }
  ExprPtr<A> a;
  ExprPtr<B> b;
  F f;
  int op;
};

template <class T>
struct WhereNode final : ExprNode<T> {
  WhereNode(ExprPtr<std::int64_t> c, ExprPtr<T> a, ExprPtr<T> b) : c(std::move(c)), a(std::move(a)), b(std::move(b)) {}
  const T* eval(const EvalCtx& ctx, std::int64_t k0, std::int64_t n, T* out) const override {
    alignas(64) std::int64_t cbuf[kTile];
    alignas(64) T bbuf[kTile];
    const std::int64_t* m = c->eval(ctx, k0, n, cbuf);
    const T* y = b->eval(ctx, k0, n, bbuf);
    const T* x = a->eval(ctx, k0, n, out);
    for (std::int64_t i = 0; i < n; ++i) out[i] = m[i] ? x[i] : y[i];
    return out;
  }
  void leaves(std::vector<const LeafBase*>& out) const override {
    c->leaves(out);
    a->leaves(out);
    b->leaves(out);
  }
  // The condition must be a materialised int64 operand (a cond leaf); a and b compile in T.
  bool compile(ElemBuilder<T>& bld) const override {
    if (!compile_condition(bld)) return false;
    return a->compile(bld) && b->compile(bld) && bld.emit(kernels::ElemOp::where, 0, -2);
  }
  // A materialised int64 condition (a cond leaf), or a comparison of T operands compiled inline.
  bool compile_condition(ElemBuilder<T>& bld) const {
    if constexpr (std::is_same_v<T, std::int64_t>)
      return c->compile(bld);  // any int64 expression, comparisons of int64 included
    if (const auto* cmp = dynamic_cast<const CompareRoot<T>*>(c.get())) return cmp->compile_compare(bld);
    const auto* cond = dynamic_cast<const Leaf<std::int64_t>*>(c.get());
    if (!cond || bld.program.ncond_leaves >= kernels::kMaxElemLeaves) return false;
    kernels::ElemLeaf<std::int64_t> v;
    if (!cond->view(*bld.ctx, bld.plan_only, v)) return false;
    bld.program.cond_leaves[bld.program.ncond_leaves] = v;
    return bld.emit(kernels::ElemOp::cond_leaf, bld.program.ncond_leaves++, 1);
  }
  ExprPtr<std::int64_t> c;
  ExprPtr<T> a, b;
};

/// The inputs of one chunk's task and how to hand them to the leaves.
struct TaskPlan {
  std::vector<Chunk> inputs;
  std::vector<const LeafBase*> leaves;
  std::vector<std::vector<ChunkExtent>> extents;  // per leaf
  ChunkExtent target;

  template <class T>
  static TaskPlan make(const ExprNode<T>& expr, const ChunkExtent& e) {
    TaskPlan p;
    p.target = e;
    std::vector<const LeafBase*> all;
    expr.leaves(all);
    for (const LeafBase* l : all)
      if (std::find(p.leaves.begin(), p.leaves.end(), l) == p.leaves.end()) p.leaves.push_back(l);
    for (const LeafBase* l : p.leaves) {
      std::vector<std::pair<Chunk, ChunkExtent>> need;
      l->needed(e, need);
      auto& ex = p.extents.emplace_back();
      for (auto& [c, x] : need) {
        p.inputs.push_back(std::move(c));
        ex.push_back(x);
      }
    }
    return p;
  }
  /// The context of the planned task without its inputs' bytes (for ElemBuilder's plan_only pass).
  [[nodiscard]] EvalCtx plan_context() const {
    EvalCtx ec;
    ec.target = target;
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      std::vector<LeafInput> in;
      for (const auto& x : extents[k]) in.push_back({nullptr, x});
      ec.leaves.emplace_back(leaves[k], std::move(in));
    }
    return ec;
  }
  [[nodiscard]] EvalCtx context(TaskContext& ctx) const {
    EvalCtx ec;
    ec.target = target;
    std::size_t slot = 0;
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      std::vector<LeafInput> in;
      for (const auto& x : extents[k]) in.push_back({ctx.input(slot++).data(), x});
      ec.leaves.emplace_back(leaves[k], std::move(in));
    }
    return ec;
  }
};

/// An array of `layout` whose chunks are copied from this rank's block (row-major). Not collective.
template <class T>
Array<T> from_block(Engine& engine, Layout layout, std::shared_ptr<const std::vector<T>> data);

/// The layout of the transpose of `l` (rows <-> cols; split none: one chunk). Not collective.
Layout transposed_layout(const Layout& l);
/// The chunks of the transpose of `a`: one task per chunk transposing it locally (split none: one task). Lazy.
template <class T>
std::vector<Chunk> transpose_chunks(const Array<T>& a);

/// Whether every rank's block of `dst` reads only its own block of `src` (through offsets and broadcasting).
bool local_compatible(const Layout& src, const Layout& dst, std::int64_t row_off, std::int64_t col_off, bool br,
                      bool bc);

/// A leaf over a's chunks (or a's own expression when it has one and no offset/broadcast is needed).
template <class T>
ExprPtr<T> leaf_of(const Array<T>& a, std::int64_t row_off, std::int64_t col_off, bool br, bool bc) {
  if (row_off == 0 && col_off == 0 && !br && !bc) return a.expr();
  return std::make_shared<Leaf<T>>(a.layout(), a.local_chunks(), a.rank(), row_off, col_off, br, bc);
}

}  // namespace slab::detail
