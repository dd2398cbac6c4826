// slab::Array<T>: handles, materialisation, gather, creation and elementwise expressions.
#include "slab/array/array.hpp"
#include "slab/array/compress.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/reshape.hpp"
#include "slab/array/slicing.hpp"

#include <cmath>
#include <initializer_list>
#include <numbers>
#include <optional>
#include <tuple>

#include "array/device_paths.hpp"
#include "array/expr.hpp"
#include "core/floor_divide.hpp"
#include "core/kernels/counter_rng_hd.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/memory/host_view.hpp"

namespace slab {

template <class T>
struct Array<T>::State {
  Engine* engine = nullptr;
  Layout layout;
  std::vector<Chunk> chunks;
  bool materialised = false;
  detail::ExprPtr<T> expr;  // the unevaluated expression, or (once materialised) a leaf over `chunks`
  // A view's chunks, recorded on first use (a transpose: its tasks are recorded only if someone reads them).
  std::function<std::vector<Chunk>()> deferred;
  std::shared_ptr<State> transpose_of;  // the array this one is the transpose view of
  std::shared_ptr<const ArraySource> source;
};

ArraySource::~ArraySource() = default;

template <class T>
Array<T>::Array(Engine& engine, Layout layout, std::vector<Chunk> local_chunks) : state_(std::make_shared<State>()) {
  const int rank = engine.comm().rank();
  SLAB_EXPECTS(layout.nranks == engine.comm().size(), ShapeError,
               "Array: layout " + layout.to_string() + " is for " + std::to_string(layout.nranks) +
                   " ranks, the communicator has " + std::to_string(engine.comm().size()));
  SLAB_EXPECTS(static_cast<std::int64_t>(local_chunks.size()) == layout.num_chunks(rank), ShapeError,
               "Array: " + std::to_string(local_chunks.size()) + " chunks given, layout " + layout.to_string() +
                   " has " + std::to_string(layout.num_chunks(rank)) + " on rank " + std::to_string(rank));
  state_->engine = &engine;
  state_->layout = std::move(layout);
  state_->chunks = std::move(local_chunks);
  state_->materialised = true;
}

template <class T>
Array<T>::Array(Engine& engine, Layout layout, detail::ExprPtr<T> expr) : state_(std::make_shared<State>()) {
  state_->engine = &engine;
  state_->layout = std::move(layout);
  state_->expr = std::move(expr);
}

template <class T>
const Layout& Array<T>::layout() const {
  SLAB_EXPECTS(state_, InvalidArgument, "Array: use of an empty array handle");
  return state_->layout;
}
template <class T>
Engine& Array<T>::engine() const {
  SLAB_EXPECTS(state_, InvalidArgument, "Array: use of an empty array handle");
  return *state_->engine;
}
template <class T>
int Array<T>::rank() const {
  return engine().comm().rank();
}
template <class T>
bool Array<T>::is_expression() const {
  return state_ && !state_->materialised && state_->expr != nullptr;
}

template <class T>
const std::vector<Chunk>& Array<T>::local_chunks() const {
  SLAB_EXPECTS(state_, InvalidArgument, "Array: use of an empty array handle");
  if (!state_->materialised) {
    if (state_->deferred) {
      auto make = std::move(state_->deferred);
      state_->deferred = nullptr;
      state_->chunks = make();
    } else {
      state_->chunks = detail::materialise<T>(state_->engine->tasks(), state_->layout, state_->expr, "elementwise");
    }
    state_->materialised = true;
    state_->expr = nullptr;
  }
  return state_->chunks;
}
template <class T>
std::size_t Array<T>::num_local_chunks() const {
  return static_cast<std::size_t>(layout().num_chunks(rank()));
}
template <class T>
const Chunk& Array<T>::local_chunk(std::size_t i) const {
  return local_chunks().at(i);
}
template <class T>
ChunkExtent Array<T>::local_extent(std::size_t i) const {
  return layout().chunk_extent(rank(), static_cast<std::int64_t>(i));
}
template <class T>
ChunkExtent Array<T>::local_block() const {
  return layout().block_extent(rank());
}

template <class T>
detail::ExprPtr<T> Array<T>::expr() const {
  SLAB_EXPECTS(state_, InvalidArgument, "Array: use of an empty array handle");
  if (!state_->materialised && state_->expr) return state_->expr;
  (void)local_chunks();  // a view records its chunks first
  if (!state_->expr)     // cached, so that `a + a` reads one leaf (one set of inputs)
    state_->expr = std::make_shared<detail::Leaf<T>>(state_->layout, state_->chunks, rank(), 0, 0, false, false);
  return state_->expr;
}

template <class T>
Array<T>& Array<T>::persist() {
  engine().tasks().persist(std::span<const Chunk>(local_chunks()));
  return *this;
}

template <class T>
std::vector<T> Array<T>::local_data() const {
  const auto& chunks = local_chunks();
  engine().tasks().persist(std::span<const Chunk>(chunks));
  const ChunkExtent b = local_block();
  std::vector<T> out(static_cast<std::size_t>(b.size()));
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const ChunkExtent e = local_extent(i);
    Pin pin = chunks[i].buffer()->pin();
    const HostView host(pin);
    const T* src = host.as<T>().data();
    for (std::int64_t r = 0; r < e.rows; ++r)
      std::memcpy(out.data() + (e.row0 - b.row0 + r) * b.cols + (e.col0 - b.col0), src + r * e.cols,
                  static_cast<std::size_t>(e.cols) * sizeof(T));
  }
  return out;
}

namespace {
// Column-split blocks arrive rank after rank; put them in row-major global order.
template <class T>
std::vector<T> interleave_cols(const Layout& l, const std::vector<T>& in) {
  std::vector<T> out(in.size());
  std::size_t off = 0;
  for (int r = 0; r < l.nranks; ++r) {
    const std::int64_t c0 = l.block_begin(r), lc = l.local_cols(r);
    for (std::int64_t i = 0; i < l.rows; ++i)
      std::memcpy(out.data() + i * l.cols + c0, in.data() + off + i * lc, static_cast<std::size_t>(lc) * sizeof(T));
    off += static_cast<std::size_t>(l.rows * lc);
  }
  return out;
}
}  // namespace

template <class T>
std::vector<T> Array<T>::gather(int root) const {
  std::vector<T> local = local_data();
  const Comm& comm = engine().comm();
  if (split() == Split::none) {
    comm.barrier();
    return comm.rank() == root ? local : std::vector<T>{};
  }
  std::vector<T> out;
  comm.gatherv(std::span<const T>(local), out, root);
  if (split() == Split::cols && comm.rank() == root) return interleave_cols(layout(), out);
  return out;
}

template <class T>
std::vector<T> Array<T>::gather_all() const {
  std::vector<T> local = local_data();
  if (split() == Split::none) return local;
  std::vector<T> out;
  engine().comm().allgatherv(std::span<const T>(local), out);
  if (split() == Split::cols) return interleave_cols(layout(), out);
  return out;
}

namespace {
// A maker of one host task a chunk of `l` (ChunkSource::chunk): fill(extent, out) writes the chunk's values.
template <class T>
std::function<Chunk(std::size_t)> host_chunk_maker(Engine& engine, const Layout& l, std::string name,
                                                   std::function<void(const ChunkExtent&, std::span<T>)> fill) {
  auto shared = std::make_shared<std::function<void(const ChunkExtent&, std::span<T>)>>(std::move(fill));
  return [tasks = &engine.tasks(), l, rank = engine.comm().rank(), name = std::move(name), shared](std::size_t i) {
    const ChunkExtent e = l.chunk_extent(rank, static_cast<std::int64_t>(i));
    return tasks->submit(name, {}, [shared, e](TaskContext& ctx) {
      (*shared)(e, ctx.output_as<T>(static_cast<std::size_t>(e.size())));
    });
  };
}

// The array of a source's local chunks, each made once.
template <class T>
Array<T> array_of(Engine& engine, const ChunkSource& source) {
  std::vector<Chunk> chunks;
  for (std::int64_t i = 0; i < source.layout.num_chunks(engine.comm().rank()); ++i)
    chunks.push_back(source.chunk(static_cast<std::size_t>(i)));
  return Array<T>(engine, source.layout, std::move(chunks));
}
}  // namespace

template <class T>
Array<T> Array<T>::from_chunk_fn(Engine& engine, Shape shape, Split split,
                                 std::function<void(const ChunkExtent&, std::span<T>)> fill, std::int64_t chunk,
                                 std::string name) {
  Layout l = Layout::make(shape, split, engine.comm().size(), chunk, sizeof(T));
  // fill runs on the host: users' functions, and creation where the rank has no device backend
  note_host_fallback(engine, name);
  return array_of<T>(engine, ChunkSource{l, host_chunk_maker<T>(engine, l, std::move(name), std::move(fill))});
}

namespace detail {
// An array of `layout` whose chunks are copied from this rank's block `data` (row-major).
template <class T>
Array<T> from_block(Engine& engine, Layout layout, std::shared_ptr<const std::vector<T>> data) {
  const int rank = engine.comm().rank();
  const ChunkExtent b = layout.block_extent(rank);
  std::vector<Chunk> chunks;
  for (std::int64_t i = 0; i < layout.num_chunks(rank); ++i) {
    const ChunkExtent e = layout.chunk_extent(rank, i);
    chunks.push_back(engine.tasks().submit("from_local", {}, [data, e, b](TaskContext& ctx) {
      auto out = ctx.output_as<T>(static_cast<std::size_t>(e.size()));
      for (std::int64_t r = 0; r < e.rows; ++r)
        std::memcpy(out.data() + r * e.cols, data->data() + (e.row0 - b.row0 + r) * b.cols + (e.col0 - b.col0),
                    static_cast<std::size_t>(e.cols) * sizeof(T));
    }));
  }
  return Array<T>(engine, std::move(layout), std::move(chunks));
}
}  // namespace detail

template <class T>
Array<T> Array<T>::from_local_blocks(Engine& engine, Shape shape, Split split, std::vector<T> local,
                                     std::int64_t chunk) {
  Layout l = Layout::make(shape, split, engine.comm().size(), chunk, sizeof(T));
  const ChunkExtent b = l.block_extent(engine.comm().rank());
  engine.comm().run_collectively([&] {
    SLAB_EXPECTS(static_cast<std::int64_t>(local.size()) == b.size(), ShapeError,
                 "from_local_blocks: " + std::to_string(local.size()) + " values given, the block of " + l.to_string() +
                     " has " + std::to_string(b.size()));
  });
  return detail::from_block<T>(engine, std::move(l), std::make_shared<const std::vector<T>>(std::move(local)));
}

template <class T>
Array<T> Array<T>::from_local_rows(Engine& engine, std::vector<T> local, std::int64_t local_rows, std::int64_t cols,
                                   int ndim) {
  const Comm& comm = engine.comm();
  std::vector<std::int64_t> mine{local_rows, cols}, all(2 * static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const std::int64_t>(mine), std::span<std::int64_t>(all));
  comm.run_collectively([&] {
    SLAB_EXPECTS(local_rows >= 0 && static_cast<std::int64_t>(local.size()) == local_rows * cols, ShapeError,
                 "from_local_rows: " + std::to_string(local.size()) + " values for " + std::to_string(local_rows) +
                     " x " + std::to_string(cols));
    for (int r = 0; r < comm.size(); ++r)
      SLAB_EXPECTS(all[2 * r + 1] == cols, ShapeError,
                   "from_local_rows: ranks give different column counts (" + std::to_string(all[2 * r + 1]) + " vs " +
                       std::to_string(cols) + ")");
  });
  std::vector<std::int64_t> bounds{0};
  for (int r = 0; r < comm.size(); ++r) bounds.push_back(bounds.back() + all[2 * r]);
  const Shape shape = ndim == 1 ? Shape{bounds.back()} : Shape{bounds.back(), cols};
  Layout l = Layout::make(shape, Split::rows, comm.size(), 0, sizeof(T));
  l.bounds = std::move(bounds);
  return slab::rebalance(
      detail::from_block<T>(engine, std::move(l), std::make_shared<const std::vector<T>>(std::move(local))));
}

// ---------------------------------------------------------------------------------------------------------
// Elementwise expressions.

bool detail::local_compatible(const Layout& src, const Layout& dst, std::int64_t row_off, std::int64_t col_off, bool br,
                              bool bc) {
  for (int r = 0; r < dst.nranks; ++r) {
    const ChunkExtent d = dst.block_extent(r);
    if (d.size() == 0) continue;
    const std::int64_t r0 = br ? 0 : d.row0 + row_off, r1 = br ? 1 : d.row0 + row_off + d.rows;
    const std::int64_t c0 = bc ? 0 : d.col0 + col_off, c1 = bc ? 1 : d.col0 + col_off + d.cols;
    const ChunkExtent s = src.block_extent(r);
    if (r0 < s.row0 || r1 > s.row0 + s.rows || c0 < s.col0 || c1 > s.col0 + s.cols) return false;
  }
  return true;
}

namespace {

std::string describe(const Layout& l) { return l.to_string(); }

// The extent the operands' extents broadcast to (equal, or 1 against anything), or -1 where they do not
// (broadcast_layout then names the error).
std::int64_t broadcast_extent(std::initializer_list<std::int64_t> extents) {
  std::int64_t out = 1;
  for (std::int64_t e : extents) {
    if (e == out || e == 1) continue;
    if (out != 1) return -1;
    out = e;
  }
  return out;
}

// The result layout of broadcasting a with b (shape errors thrown identically on every rank).
Layout broadcast_layout(const char* op, const Layout& a, const Layout& b) {
  auto fail = [&](const std::string& why) {
    SLAB_FAIL(ShapeError, std::string(op) + ": " + why + ": " + describe(a) + " and " + describe(b));
  };
  const std::int64_t rows = broadcast_extent({a.rows, b.rows}), cols = broadcast_extent({a.cols, b.cols});
  if (rows < 0 || cols < 0) fail("shapes cannot be broadcast");
  const int ndim = std::max(a.ndim, b.ndim);
  const Shape s = ndim == 1 ? Shape{rows} : Shape{rows, cols};
  Layout out;
  bool found = false;
  auto full = [&](const Layout& l) { return l.rows == rows && l.cols == cols; };
  for (const Layout* l : {&a, &b})
    if (!found && full(*l) && l->split != Split::none) out = *l, found = true;
  for (const Layout* l : {&a, &b})
    if (!found && full(*l)) out = *l, found = true;
  for (const Layout* l : {&a, &b}) {
    if (found) break;
    if ((l->split == Split::rows && l->rows == rows) || (l->split == Split::cols && l->cols == cols)) {
      out = Layout::make(s, l->split, l->nranks);
      out.bounds = l->bounds;
      found = true;
    }
  }
  if (!found) out = Layout::make(s, Split::none, a.nranks);
  out.ndim = ndim;
  for (const Layout* l : {&a, &b})
    if (!detail::local_compatible(*l, out, 0, 0, l->rows == 1 && rows != 1, l->cols == 1 && cols != 1))
      fail("operands are split differently (their blocks are not on the same ranks)");
  return out;
}

// NumPy's rule: a 1-D operand of an operation with a 2-D one is a row, (n,) as (1, n), so `x - x.mean(0)` centres
// the columns. Its length must broadcast with the column count of every 2-D layout in `operands` (equal, or either 1;
// checked before anything moves; a column is reshape(v, {n, 1})). A replicated vector is reshaped (local); a split one
// is replicated first (collective).
template <class T>
Array<T> as_row_operand(const char* op, const Array<T>& v, std::initializer_list<const Layout*> operands) {
  if (v.ndim() != 1) return v;
  const std::int64_t n = v.rows();
  bool with_two_d = false;
  for (const Layout* o : operands) {
    if (o == nullptr || o->ndim != 2) continue;
    with_two_d = true;
    if (n != 1 && o->cols != 1 && n != o->cols)
      SLAB_FAIL(ShapeError, std::string(op) + ": shapes cannot be broadcast: a 1-D operand broadcasts as a row, as " +
                                "in NumPy, so its length must be 1 or the columns' count: " + describe(v.layout()) +
                                " and " + describe(*o) + (n == o->rows ? " (reshape it to (n, 1) for a column)" : ""));
  }
  if (!with_two_d) return v;
  const Array<T> whole = v.layout().split == Split::none ? v : slab::resplit(v, Split::none);
  return slab::reshape(whole, Shape{1, n});
}

// An operand that is broadcast and split along an axis of extent 1 (a row vector or a length-1 array split by rows,
// a column split by columns) lives on the one rank holding that row or column, where every rank holding the result
// needs it: it is replicated first (collective; a vector). A column split by rows, as its matrix, stays local.
template <class T>
Array<T> spread_for_broadcast(const Array<T>& x, std::int64_t rows, std::int64_t cols) {
  const Layout& l = x.layout();
  const bool broadcast = rows > l.rows || cols > l.cols;
  const bool on_one_rank = (l.split == Split::rows && l.rows == 1) || (l.split == Split::cols && l.cols == 1);
  return broadcast && on_one_rank ? slab::resplit(x, Split::none) : x;
}

// The operands of one elementwise operation as NumPy broadcasts them: each 1-D one as a row (as_row_operand, checked
// against every other operand), then each broadcast along a split axis of extent 1 replicated (spread_for_broadcast).
template <class... A>
std::tuple<A...> broadcast_operands(const char* op, const A&... in) {
  const std::initializer_list<const Layout*> layouts{&in.layout()...};
  const std::tuple<A...> rows_of{as_row_operand(op, in, layouts)...};
  return std::apply(
      [](const auto&... x) {
        const std::int64_t rows = broadcast_extent({x.rows()...}), cols = broadcast_extent({x.cols()...});
        return std::tuple<A...>{spread_for_broadcast(x, rows, cols)...};
      },
      rows_of);
}

// `elem_op`: the node's device operation (kernels::ElemOp), or detail::kNoElemOp.
template <class R, class A, class B, class F>
Array<R> combine(const char* op, const Array<A>& a_in, const Array<B>& b_in, F f, int elem_op = detail::kNoElemOp) {
  const auto [a, b] = broadcast_operands(op, a_in, b_in);
  const Layout l = broadcast_layout(op, a.layout(), b.layout());
  auto ea = detail::leaf_of(a, 0, 0, a.rows() == 1 && l.rows != 1, a.cols() == 1 && l.cols != 1);
  auto eb = detail::leaf_of(b, 0, 0, b.rows() == 1 && l.rows != 1, b.cols() == 1 && l.cols != 1);
  return Array<R>(a.engine(), l,
                  std::make_shared<detail::BinaryNode<R, A, B, F>>(std::move(ea), std::move(eb), f, elem_op));
}

template <class R, class T, class F>
Array<R> combine_scalar(const Array<T>& a, T s, bool scalar_first, F f, int elem_op = detail::kNoElemOp) {
  detail::ExprPtr<T> es = std::make_shared<detail::ScalarNode<T>>(s);
  if (scalar_first)
    return Array<R>(a.engine(), a.layout(), std::make_shared<detail::BinaryNode<R, T, T, F>>(es, a.expr(), f, elem_op));
  return Array<R>(a.engine(), a.layout(), std::make_shared<detail::BinaryNode<R, T, T, F>>(a.expr(), es, f, elem_op));
}

// The device operation of a BinaryOp / UnaryOp (array/kernels/elementwise.hpp: the same functors as below).
int elem_op_of(BinaryOp op) {
  using E = kernels::ElemOp;
  switch (op) {
    case BinaryOp::add:
      return static_cast<int>(E::add);
    case BinaryOp::sub:
      return static_cast<int>(E::sub);
    case BinaryOp::mul:
      return static_cast<int>(E::mul);
    case BinaryOp::div:
      return static_cast<int>(E::div);
    case BinaryOp::pow:
      return static_cast<int>(E::pow);
    case BinaryOp::min:
      return static_cast<int>(E::min);
    case BinaryOp::max:
      return static_cast<int>(E::max);
    case BinaryOp::floordiv:
      return static_cast<int>(E::floordiv);
    case BinaryOp::mod:
      return static_cast<int>(E::mod);
  }
  return detail::kNoElemOp;
}
int elem_op_of(CompareOp op) {
  using E = kernels::ElemOp;
  switch (op) {
    case CompareOp::eq:
      return static_cast<int>(E::eq);
    case CompareOp::ne:
      return static_cast<int>(E::ne);
    case CompareOp::lt:
      return static_cast<int>(E::lt);
    case CompareOp::le:
      return static_cast<int>(E::le);
    case CompareOp::gt:
      return static_cast<int>(E::gt);
    case CompareOp::ge:
      return static_cast<int>(E::ge);
  }
  return detail::kNoElemOp;
}
int elem_op_of(UnaryOp op) {
  using E = kernels::ElemOp;
  switch (op) {
    case UnaryOp::neg:
      return static_cast<int>(E::neg);
    case UnaryOp::exp:
      return static_cast<int>(E::exp);
    case UnaryOp::log:
      return static_cast<int>(E::log);
    case UnaryOp::sqrt:
      return static_cast<int>(E::sqrt);
    case UnaryOp::abs:
      return static_cast<int>(E::abs);
    case UnaryOp::sin:
      return static_cast<int>(E::sin);
    case UnaryOp::cos:
      return static_cast<int>(E::cos);
  }
  return detail::kNoElemOp;
}

template <class T>
T power(T x, T y) {
  if constexpr (std::is_integral_v<T>)
    return y >= 0 ? detail::int_power(x, y)
                  : kernels::cast_value<T>(std::pow(static_cast<double>(x), static_cast<double>(y)));
  else
    return std::pow(x, y);
}
template <class T>
T vmin(T x, T y) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(x) || std::isnan(y)) return x + y;
  return y < x ? y : x;
}
template <class T>
T vmax(T x, T y) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(x) || std::isnan(y)) return x + y;
  return x < y ? y : x;
}

// Calls g(name, functor) with the functor of `op`.
template <class T, class G>
auto with_binary(BinaryOp op, G g) {
  switch (op) {
    case BinaryOp::add:
      return g("add", [](T x, T y) { return static_cast<T>(x + y); });
    case BinaryOp::sub:
      return g("subtract", [](T x, T y) { return static_cast<T>(x - y); });
    case BinaryOp::mul:
      return g("multiply", [](T x, T y) { return static_cast<T>(x * y); });
    case BinaryOp::div:
      // Integer true division is a float64 array (divide()); a BinaryOp::div that kept int64 would truncate.
      if constexpr (std::is_integral_v<T>)
        SLAB_FAIL(InvalidArgument,
                  "binary: BinaryOp::div of int64 arrays is true division, whose result is float64 as in NumPy; "
                  "call divide() (or a / b) for it, or floor_divide() for integer division");
      return g("divide", [](T x, T y) { return static_cast<T>(x / y); });
    case BinaryOp::floordiv:
      return g("floor_divide", [](T x, T y) { return detail::floor_divide_value(x, y); });
    case BinaryOp::mod:
      return g("remainder", [](T x, T y) { return detail::mod_value(x, y); });
    case BinaryOp::pow:
      return g("power", [](T x, T y) { return power(x, y); });
    case BinaryOp::min:
      return g("minimum", [](T x, T y) { return vmin(x, y); });
    case BinaryOp::max:
      return g("maximum", [](T x, T y) { return vmax(x, y); });
  }
  SLAB_FAIL(InvalidArgument, "binary: unknown operation");
}
template <class T, class G>
auto with_compare(CompareOp op, G g) {
  using I = std::int64_t;
  switch (op) {
    case CompareOp::eq:
      return g("equal", [](T x, T y) { return I(x == y); });
    case CompareOp::ne:
      return g("not_equal", [](T x, T y) { return I(x != y); });
    case CompareOp::lt:
      return g("less", [](T x, T y) { return I(x < y); });
    case CompareOp::le:
      return g("less_equal", [](T x, T y) { return I(x <= y); });
    case CompareOp::gt:
      return g("greater", [](T x, T y) { return I(x > y); });
    case CompareOp::ge:
      return g("greater_equal", [](T x, T y) { return I(x >= y); });
  }
  SLAB_FAIL(InvalidArgument, "compare: unknown operation");
}

}  // namespace

template <class T>
Array<T> binary(BinaryOp op, const Array<T>& a, const Array<T>& b) {
  return with_binary<T>(op, [&](const char* name, auto f) { return combine<T>(name, a, b, f, elem_op_of(op)); });
}
template <class T>
Array<T> binary(BinaryOp op, const Array<T>& a, std::type_identity_t<T> b) {
  return with_binary<T>(op, [&](const char*, auto f) { return combine_scalar<T>(a, b, false, f, elem_op_of(op)); });
}
template <class T>
Array<T> binary(BinaryOp op, std::type_identity_t<T> a, const Array<T>& b) {
  return with_binary<T>(op, [&](const char*, auto f) { return combine_scalar<T>(b, a, true, f, elem_op_of(op)); });
}
template <class T>
Array<std::int64_t> compare(CompareOp op, const Array<T>& a, const Array<T>& b) {
  return with_compare<T>(
      op, [&](const char* name, auto f) { return combine<std::int64_t>(name, a, b, f, elem_op_of(op)); });
}
template <class T>
Array<std::int64_t> compare(CompareOp op, const Array<T>& a, std::type_identity_t<T> b) {
  return with_compare<T>(
      op, [&](const char*, auto f) { return combine_scalar<std::int64_t>(a, b, false, f, elem_op_of(op)); });
}

// Integer true division is float64 division of the operands converted to float64 (NumPy's int64 / int64), so its
// device form is a float64 program over cast leaves.
template <class T>
Array<true_divide_t<T>> divide(const Array<T>& a, const Array<T>& b) {
  if constexpr (std::is_integral_v<T>)
    return binary(BinaryOp::div, astype<double>(a), astype<double>(b));
  else
    return binary(BinaryOp::div, a, b);
}
template <class T>
Array<true_divide_t<T>> divide(const Array<T>& a, std::type_identity_t<T> b) {
  if constexpr (std::is_integral_v<T>)
    return binary(BinaryOp::div, astype<double>(a), static_cast<double>(b));
  else
    return binary(BinaryOp::div, a, b);
}
template <class T>
Array<true_divide_t<T>> divide(std::type_identity_t<T> a, const Array<T>& b) {
  if constexpr (std::is_integral_v<T>)
    return binary(BinaryOp::div, static_cast<double>(a), astype<double>(b));
  else
    return binary(BinaryOp::div, a, b);
}

template <class T>
Array<T> unary(UnaryOp op, const Array<T>& a) {
  auto make = [&](auto f) {
    return Array<T>(a.engine(), a.layout(),
                    std::make_shared<detail::UnaryNode<T, T, decltype(f)>>(a.expr(), f, elem_op_of(op)));
  };
  using D = std::conditional_t<std::is_integral_v<T>, double, T>;  // integer math goes through double
  switch (op) {
    case UnaryOp::neg:
      return make([](T x) { return static_cast<T>(-x); });
    case UnaryOp::exp:
      return make([](T x) { return kernels::cast_value<T>(std::exp(static_cast<D>(x))); });
    case UnaryOp::log:
      return make([](T x) { return kernels::cast_value<T>(std::log(static_cast<D>(x))); });
    case UnaryOp::sqrt:
      return make([](T x) { return kernels::cast_value<T>(std::sqrt(static_cast<D>(x))); });
    case UnaryOp::abs:
      return make([](T x) {  // NumPy's: a float's sign bit cleared, abs(-0.0) is 0.0 (as ElemMath::absolute)
        if constexpr (std::is_floating_point_v<T>)
          return std::fabs(x);
        else
          return x < 0 ? static_cast<T>(-x) : x;
      });
    case UnaryOp::sin:
      return make([](T x) { return kernels::cast_value<T>(std::sin(static_cast<D>(x))); });
    case UnaryOp::cos:
      return make([](T x) { return kernels::cast_value<T>(std::cos(static_cast<D>(x))); });
  }
  SLAB_FAIL(InvalidArgument, "unary: unknown operation");
}

template <class T>
Array<T> where(const Array<std::int64_t>& cond_in, const Array<T>& a_in, const Array<T>& b_in) {
  const auto [cond, a, b] = broadcast_operands("where", cond_in, a_in, b_in);
  const Layout lab = broadcast_layout("where", a.layout(), b.layout());
  const Layout l = broadcast_layout("where", cond.layout(), lab);
  auto leaf = [&](const auto& x) {
    return detail::leaf_of(x, 0, 0, x.rows() == 1 && l.rows != 1, x.cols() == 1 && l.cols != 1);
  };
  // a and b are checked against lab; check them against the final layout too.
  broadcast_layout("where", a.layout(), l);
  broadcast_layout("where", b.layout(), l);
  return Array<T>(a.engine(), l, std::make_shared<detail::WhereNode<T>>(leaf(cond), leaf(a), leaf(b)));
}
template <class T>
Array<T> where(const Array<std::int64_t>& cond_in, const Array<T>& a_in, std::type_identity_t<T> b) {
  const auto [cond, a] = broadcast_operands("where", cond_in, a_in);
  const Layout l = broadcast_layout("where", cond.layout(), a.layout());
  auto leaf = [&](const auto& x) {
    return detail::leaf_of(x, 0, 0, x.rows() == 1 && l.rows != 1, x.cols() == 1 && l.cols != 1);
  };
  return Array<T>(
      a.engine(), l,
      std::make_shared<detail::WhereNode<T>>(leaf(cond), leaf(a), std::make_shared<detail::ScalarNode<T>>(b)));
}
template <class T>
Array<T> where(const Array<std::int64_t>& cond_in, std::type_identity_t<T> a, const Array<T>& b_in) {
  const auto [cond, b] = broadcast_operands("where", cond_in, b_in);
  const Layout l = broadcast_layout("where", cond.layout(), b.layout());
  auto leaf = [&](const auto& x) {
    return detail::leaf_of(x, 0, 0, x.rows() == 1 && l.rows != 1, x.cols() == 1 && l.cols != 1);
  };
  return Array<T>(
      b.engine(), l,
      std::make_shared<detail::WhereNode<T>>(leaf(cond), std::make_shared<detail::ScalarNode<T>>(a), leaf(b)));
}
template <ArrayElement T>
Array<T> where(const Array<std::int64_t>& cond, T a, T b) {
  return Array<T>(cond.engine(), cond.layout(),
                  std::make_shared<detail::WhereNode<T>>(cond.expr(), std::make_shared<detail::ScalarNode<T>>(a),
                                                         std::make_shared<detail::ScalarNode<T>>(b)));
}

template <class U, class T>
Array<U> astype(const Array<T>& a) {
  if constexpr (std::is_same_v<U, T>) {
    return a;
  } else {
    auto f = [](T x) { return kernels::cast_value<U>(x); };
    // A program reads a cast operand as a leaf: where the rank takes device paths, an operand that is some other
    // expression is materialised first (its own program), instead of the whole cast falling back to a host loop.
    // On the host the cast stays fused with it.
    if (a.is_expression() && detail::has_device_backend(a.engine().tasks().memory().execution()) &&
        !detail::casts_in_place<U>(*a.expr()))
      (void)a.local_chunks();
    return Array<U>(a.engine(), a.layout(),
                    std::make_shared<detail::UnaryNode<U, T, decltype(f)>>(a.expr(), f, detail::kElemCast));
  }
}

template <class T>
Array<T> Array<T>::exp() const {
  return unary(UnaryOp::exp, *this);
}
template <class T>
Array<T> Array<T>::log() const {
  return unary(UnaryOp::log, *this);
}
template <class T>
Array<T> Array<T>::sqrt() const {
  return unary(UnaryOp::sqrt, *this);
}
template <class T>
Array<T> Array<T>::abs() const {
  return unary(UnaryOp::abs, *this);
}
template <class T>
Array<T> Array<T>::sin() const {
  return unary(UnaryOp::sin, *this);
}
template <class T>
Array<T> Array<T>::cos() const {
  return unary(UnaryOp::cos, *this);
}
template <class T>
Array<T> Array<T>::pow(double e) const {
  return binary(BinaryOp::pow, *this, static_cast<T>(e));
}
template <class T>
Array<T> Array<T>::floor_divide(const Array& b) const {
  return binary(BinaryOp::floordiv, *this, b);
}
template <class T>
Array<T> Array<T>::floor_divide(T b) const {
  return binary(BinaryOp::floordiv, *this, b);
}
template <class T>
Array<T> Array<T>::mod(const Array& b) const {
  return binary(BinaryOp::mod, *this, b);
}
template <class T>
Array<T> Array<T>::mod(T b) const {
  return binary(BinaryOp::mod, *this, b);
}
template <class T>
sum_t<T> Array<T>::sum() const {
  return slab::sum(*this);
}
template <class T>
double Array<T>::mean() const {
  return slab::mean(*this);
}
template <class T>
double Array<T>::var(int ddof) const {
  return slab::var(*this, ddof);
}
template <class T>
double Array<T>::std(int ddof) const {
  return slab::std(*this, ddof);
}
template <class T>
T Array<T>::min() const {
  return slab::min(*this);
}
template <class T>
T Array<T>::max() const {
  return slab::max(*this);
}
template <class T>
std::int64_t Array<T>::argmax() const {
  return slab::argmax(*this);
}
template <class T>
std::int64_t Array<T>::argmin() const {
  return slab::argmin(*this);
}
template <class T>
Array<double> Array<T>::sum(int axis) const {
  return slab::reduce_axis(*this, AxisOp::sum, axis);
}
template <class T>
Array<double> Array<T>::mean(int axis) const {
  return slab::reduce_axis(*this, AxisOp::mean, axis);
}
template <class T>
Array<double> Array<T>::min(int axis) const {
  return slab::reduce_axis(*this, AxisOp::min, axis);
}
template <class T>
Array<double> Array<T>::max(int axis) const {
  return slab::reduce_axis(*this, AxisOp::max, axis);
}
template <class T>
Array<std::int64_t> Array<T>::argmax(int axis) const {
  return slab::argmax(*this, axis);
}
template <class T>
Array<std::int64_t> Array<T>::argmin(int axis) const {
  return slab::argmin(*this, axis);
}
template <class T>
Array<T> Array<T>::reshape(Shape shape) const {
  return slab::reshape(*this, shape);
}
template <class T>
Array<T> Array<T>::ravel() const {
  return slab::ravel(*this);
}
template <class T>
Array<T> Array<T>::operator[](const Array<std::int64_t>& mask) const {
  return slab::compress(*this, mask);
}
template <class T>
Array<T> Array<T>::transpose() const {
  const Layout& l = layout();
  if (l.ndim == 1) return *this;
  Array back;
  if (state_->transpose_of) {  // (a^T)^T is a itself
    back.state_ = state_->transpose_of;
    return back;
  }
  auto view = std::make_shared<State>();
  view->engine = state_->engine;
  view->layout = detail::transposed_layout(l);
  view->transpose_of = state_;
  view->deferred = [source = *this] { return detail::transpose_chunks(source); };
  back.state_ = std::move(view);
  return back;
}
template <class T>
Array<T> Array<T>::transpose_of() const {
  Array source;
  if (state_) source.state_ = state_->transpose_of;
  return source;
}
template <class T>
const std::shared_ptr<const ArraySource>& Array<T>::source() const {
  SLAB_EXPECTS(state_, InvalidArgument, "Array: use of an empty array handle");
  return state_->source;
}
template <class T>
void Array<T>::set_source(std::shared_ptr<const ArraySource> source) {
  SLAB_EXPECTS(state_, InvalidArgument, "Array: use of an empty array handle");
  state_->source = std::move(source);
}
template <class T>
Array<T> Array<T>::row_range(std::int64_t b, std::int64_t e) const {
  return slab::row_range(*this, b, e);
}
template <class T>
Array<T> Array<T>::col_range(std::int64_t b, std::int64_t e) const {
  return slab::col_range(*this, b, e);
}
template <class T>
Array<T> Array<T>::head(std::int64_t n) const {
  return slab::head(*this, n);
}
template <class T>
Array<T> Array<T>::rebalance() const {
  return slab::rebalance(*this);
}
template <class T>
Array<T> Array<T>::resplit(Split s) const {
  return slab::resplit(*this, s);
}

// ---------------------------------------------------------------------------------------------------------
// Creation.

namespace {
// Creation on the device (array/kernels/creation.hpp): a maker of one task a chunk, fill(tag, exec, extent, out) on
// backend memory.
template <class T, class Fill>
std::function<Chunk(std::size_t)> device_chunk_maker(Engine& engine, const Layout& l, const char* name, Fill fill) {
  return [tasks = &engine.tasks(), l, rank = engine.comm().rank(), name, fill](std::size_t i) {
    const ChunkExtent e = l.chunk_extent(rank, static_cast<std::int64_t>(i));
    return tasks->submit(
        name, {},
        [fill, e](TaskContext& ctx) {
          auto* out = reinterpret_cast<T*>(ctx.output(static_cast<std::size_t>(e.size()) * sizeof(T)).data());
          if (e.size() == 0) return;
          detail::with_device_backend(ctx.execution(), [&](auto tag) {
            detail::KernelScratch scratch(ctx.memory());
            fill(tag, scratch.exec(ctx.execution()), kernels::BlockExtent{e.row0, e.col0, e.rows, e.cols}, out);
          });
        },
        device_task());
  };
}

// Creation on the device; empty where the context has no device backend.
template <class T, class Fill>
std::optional<Array<T>> created_on_device(Engine& engine, Shape shape, Split split, std::int64_t chunk,
                                          const char* name, Fill fill) {
  if (!detail::has_device_backend(engine.execution())) return std::nullopt;
  Layout l = Layout::make(shape, split, engine.comm().size(), chunk, sizeof(T));
  return array_of<T>(engine, ChunkSource{l, device_chunk_maker<T>(engine, l, name, fill)});
}

// full, arange, linspace and eye: element (i, j) = p.at<T>(i, j) (array/kernels/pattern_hd.hpp), made on the device
// where the rank computes, else by the host loop over the same formula.
template <class T>
Array<T> created(Engine& engine, Shape shape, Split split, std::int64_t chunk, const char* name,
                 const kernels::CreationPattern& p) {
  if constexpr (detail::kernel_element_v<T>) {
    if (auto a = created_on_device<T>(engine, shape, split, chunk, name,
                                      [p](auto tag, const kernels::Exec& exec, const kernels::BlockExtent& e, T* out) {
                                        kernels::CreationKernels<typename decltype(tag)::type>::pattern(exec, p, e,
                                                                                                        out);
                                      }))
      return *a;
  }
  return Array<T>::from_chunk_fn(
      engine, shape, split,
      [p](const ChunkExtent& e, std::span<T> out) {
        if (p.kind == kernels::PatternKind::constant) {  // one value: a plain fill
          std::fill(out.begin(), out.end(), p.at<T>(0, 0));
          return;
        }
        for (std::int64_t i = 0; i < e.rows; ++i)
          for (std::int64_t j = 0; j < e.cols; ++j)
            out[static_cast<std::size_t>(i * e.cols + j)] = p.at<T>(e.row0 + i, e.col0 + j);
      },
      chunk, name);
}
}  // namespace

template <class T>
Array<T> full(Engine& engine, Shape shape, T value, Split split, std::int64_t chunk) {
  return created<T>(engine, shape, split, chunk, "full", kernels::CreationPattern::constant_of(value));
}
template <class T>
Array<T> zeros(Engine& engine, Shape shape, Split split, std::int64_t chunk) {
  return full<T>(engine, shape, T(0), split, chunk);
}
template <class T>
Array<T> ones(Engine& engine, Shape shape, Split split, std::int64_t chunk) {
  return full<T>(engine, shape, T(1), split, chunk);
}
template <class T>
Array<T> arange(Engine& engine, double start, double stop, double step, Split split, std::int64_t chunk) {
  SLAB_EXPECTS(step != 0, InvalidArgument, "arange: step must not be 0");
  const auto n = static_cast<std::int64_t>(std::max(0.0, std::ceil((stop - start) / step)));
  kernels::CreationPattern p;
  p.kind = kernels::PatternKind::arange;
  p.start = start, p.step = step;
  return created<T>(engine, Shape{n}, split, chunk, "arange", p);
}
template <class T>
Array<T> linspace(Engine& engine, double start, double stop, std::int64_t num, Split split, bool endpoint,
                  std::int64_t chunk) {
  SLAB_EXPECTS(num >= 0, InvalidArgument, "linspace: num must be >= 0");
  const std::int64_t div = endpoint ? num - 1 : num;
  kernels::CreationPattern p;
  p.kind = kernels::PatternKind::linspace;
  p.start = start, p.stop = stop, p.num = num, p.endpoint = endpoint;
  p.step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  return created<T>(engine, Shape{num}, split, chunk, "linspace", p);
}
template <class T>
Array<T> eye(Engine& engine, std::int64_t rows, std::int64_t cols, Split split, std::int64_t k, std::int64_t chunk) {
  kernels::CreationPattern p;
  p.kind = kernels::PatternKind::eye;
  p.diagonal = k;
  return created<T>(engine, Shape{rows, cols}, split, chunk, "eye", p);
}

ChunkSource random_uniform_source(Engine& engine, Shape shape, Split split, std::uint64_t seed, double low, double high,
                                  std::int64_t chunk) {
  const std::int64_t cols = shape.cols;
  Layout l = Layout::make(shape, split, engine.comm().size(), chunk, sizeof(double));
  if (detail::has_device_backend(engine.execution()))
    return {l, device_chunk_maker<double>(
                   engine, l, "random_uniform",
                   [=](auto tag, const kernels::Exec& exec, const kernels::BlockExtent& e, double* out) {
                     kernels::CreationKernels<typename decltype(tag)::type>::uniform(exec, seed, low, high, e, cols,
                                                                                     out);
                   })};
  note_host_fallback(engine, "random_uniform");
  const bool unit = low == 0.0 && high == 1.0;
  return {l, host_chunk_maker<double>(engine, l, "random_uniform", [=](const ChunkExtent& e, std::span<double> out) {
            for (std::int64_t r = 0; r < e.rows; ++r) {
              const auto base = static_cast<std::uint64_t>((e.row0 + r) * cols + e.col0);
              double* o = out.data() + r * e.cols;
              for (std::int64_t j = 0; j < e.cols; ++j) {
                const double u = counter_uniform(seed, base + static_cast<std::uint64_t>(j));
                o[j] = unit ? u : low + (high - low) * u;
              }
            }
          })};
}

Array<double> random_uniform(Engine& engine, Shape shape, Split split, std::uint64_t seed, double low, double high,
                             std::int64_t chunk) {
  return array_of<double>(engine, random_uniform_source(engine, shape, split, seed, low, high, chunk));
}

Array<double> random_normal(Engine& engine, Shape shape, Split split, std::uint64_t seed, double mean, double stddev,
                            std::int64_t chunk) {
  const std::int64_t cols = shape.cols;
  // Host and device compute the shared counter_normal (core/kernels/counter_rng_hd.hpp: Box-Muller on fdlibm's
  // log1p and cos, whose bits do not depend on the libm), so the two are bitwise equal.
  if (auto a = created_on_device<double>(
          engine, shape, split, chunk, "random_normal",
          [=](auto tag, const kernels::Exec& exec, const kernels::BlockExtent& e, double* out) {
            using B = typename decltype(tag)::type;
            kernels::CreationKernels<B>::normal(exec, seed, mean, stddev, e, cols, out);
          }))
    return *a;
  return Array<double>::from_chunk_fn(
      engine, shape, split,
      [=](const ChunkExtent& e, std::span<double> out) {
        for (std::int64_t i = 0; i < e.rows; ++i)
          for (std::int64_t j = 0; j < e.cols; ++j) {
            const auto k = static_cast<std::uint64_t>((e.row0 + i) * cols + e.col0 + j);
            out[static_cast<std::size_t>(i * e.cols + j)] = kernels::counter_normal(seed, k, mean, stddev);
          }
      },
      chunk, "random_normal");
}

#define SLAB_INSTANTIATE(T)                                                                      \
  template class Array<T>;                                                                       \
  template Array<T> binary(BinaryOp, const Array<T>&, const Array<T>&);                          \
  template Array<T> binary(BinaryOp, const Array<T>&, std::type_identity_t<T>);                  \
  template Array<T> binary(BinaryOp, std::type_identity_t<T>, const Array<T>&);                  \
  template Array<T> unary(UnaryOp, const Array<T>&);                                             \
  template Array<true_divide_t<T>> divide(const Array<T>&, const Array<T>&);                     \
  template Array<true_divide_t<T>> divide(const Array<T>&, std::type_identity_t<T>);             \
  template Array<true_divide_t<T>> divide(std::type_identity_t<T>, const Array<T>&);             \
  template Array<std::int64_t> compare(CompareOp, const Array<T>&, const Array<T>&);             \
  template Array<std::int64_t> compare(CompareOp, const Array<T>&, std::type_identity_t<T>);     \
  template Array<T> where(const Array<std::int64_t>&, const Array<T>&, const Array<T>&);         \
  template Array<T> where(const Array<std::int64_t>&, const Array<T>&, std::type_identity_t<T>); \
  template Array<T> where(const Array<std::int64_t>&, std::type_identity_t<T>, const Array<T>&); \
  template Array<T> where(const Array<std::int64_t>&, T, T);                                     \
  template Array<float> astype<float, T>(const Array<T>&);                                       \
  template Array<double> astype<double, T>(const Array<T>&);                                     \
  template Array<std::int32_t> astype<std::int32_t, T>(const Array<T>&);                         \
  template Array<std::int64_t> astype<std::int64_t, T>(const Array<T>&);                         \
  template Array<T> full(Engine&, Shape, T, Split, std::int64_t);                                \
  template Array<T> zeros(Engine&, Shape, Split, std::int64_t);                                  \
  template Array<T> ones(Engine&, Shape, Split, std::int64_t);                                   \
  template Array<T> arange(Engine&, double, double, double, Split, std::int64_t);                \
  template Array<T> linspace(Engine&, double, double, std::int64_t, Split, bool, std::int64_t);  \
  template Array<T> eye(Engine&, std::int64_t, std::int64_t, Split, std::int64_t, std::int64_t); \
  template Array<T> detail::from_block(Engine&, Layout, std::shared_ptr<const std::vector<T>>);
SLAB_INSTANTIATE(float)
SLAB_INSTANTIATE(double)
SLAB_INSTANTIATE(std::int32_t)
SLAB_INSTANTIATE(std::int64_t)
#undef SLAB_INSTANTIATE

template <class T>
template <class U>
Array<U> Array<T>::astype() const {
  return slab::astype<U>(*this);
}
#define SLAB_INSTANTIATE_ASTYPE(T)                                     \
  template Array<float> Array<T>::astype<float>() const;               \
  template Array<double> Array<T>::astype<double>() const;             \
  template Array<std::int32_t> Array<T>::astype<std::int32_t>() const; \
  template Array<std::int64_t> Array<T>::astype<std::int64_t>() const;
SLAB_INSTANTIATE_ASTYPE(float)
SLAB_INSTANTIATE_ASTYPE(double)
SLAB_INSTANTIATE_ASTYPE(std::int32_t)
SLAB_INSTANTIATE_ASTYPE(std::int64_t)
#undef SLAB_INSTANTIATE_ASTYPE

}  // namespace slab
