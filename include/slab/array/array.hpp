#pragma once
/// @file array.hpp
/// @brief slab::Array<T>: a distributed 1-D or 2-D array of float, double, std::int32_t or std::int64_t
/// (NumPy's float32, float64, int32, int64), split by rows, by columns or replicated, each rank's block held
/// as lazily computed chunks of its TaskQueue.
///
/// Operations record tasks; nothing runs until persist(), a reduction, gather or another collective asks for
/// values. Elementwise operations (elementwise.hpp) build an unevaluated expression that runs as one fused
/// pass per chunk when materialised. Creation: creation.hpp; reductions: reduction.hpp; slicing and
/// redistribution: slicing.hpp; a Kokkos view of a local chunk: kokkos_view.hpp. Each of those includes this
/// header; slab/slab.hpp includes them all.

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "slab/array/layout.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/engine.hpp"
#include "slab/task/chunk.hpp"

namespace slab {

/// The element types an Array may hold (NumPy's float32, float64, int32 and int64).
template <class T>
concept ArrayElement =
    std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, std::int32_t> || std::same_as<T, std::int64_t>;

/// The element type of a sum or running sum of T: std::int64_t for std::int32_t (NumPy sums integers narrower
/// than the platform integer in int64: np.sum(int32 array).dtype is int64), T otherwise.
template <class T>
using sum_t = std::conditional_t<std::is_same_v<T, std::int32_t>, std::int64_t, T>;

namespace detail {
template <class T>
struct ExprNode;  // an unevaluated elementwise expression (src/array/expr.hpp)
template <class T>
using ExprPtr = std::shared_ptr<const ExprNode<T>>;
}  // namespace detail

/**
 * @brief Where an array's values come from, for an operation that can read the source better than through the
 * array's chunks (linalg::matmul reads an HDF5 dataset in column blocks for X X^T, never holding X). The layer
 * that makes such an array derives from it (io: the dataset read_hdf5 read, `io::source_dataset`) and sets it on
 * the array it returns; anything made from that array (a slice, an expression, a transpose) has none of its own.
 */
struct ArraySource {
  virtual ~ArraySource();
};

/// Result of reduce_stats(): every figure from one fused pass (count excludes nothing: NaN propagates).
struct Stats {
  std::int64_t count = 0;
  double sum = 0;
  double mean = 0;
  double var = 0;  ///< with the ddof given to reduce_stats
  double std = 0;
  double min = 0;
  double max = 0;
};

/**
 * @brief A distributed array. A shared handle: copies refer to the same chunks (like a NumPy view of a
 * lazily computed array). Element (i, j) of a chunk with extent e is at offset (i - e.row0) * e.cols +
 * (j - e.col0) of the chunk's bytes viewed as T.
 *
 * Every constructor and operation must be called on every rank in the same order (SPMD), with the same
 * global arguments; argument errors (shapes, splits) are detected from global information only, so every
 * rank throws the same error together.
 */
template <class T>
class Array {
  static_assert(ArrayElement<T>, "slab::Array holds float, double, std::int32_t or std::int64_t");

 public:
  using value_type = T;

  /// An empty handle (valid() is false).
  Array() = default;
  /**
   * @brief Wrap existing chunks: `local_chunks[i]` is this rank's chunk i of `layout` (a task whose output is
   * a row-major block of T for layout.chunk_extent(rank, i)). Not collective (but call it on every rank).
   * @throws ShapeError when the number of chunks differs from layout.num_chunks(rank) or nranks differs from
   * the queue's communicator size.
   */
  Array(Engine& engine, Layout layout, std::vector<Chunk> local_chunks);
  /// @private An unevaluated elementwise expression over `layout`.
  Array(Engine& engine, Layout layout, detail::ExprPtr<T> expr);

  [[nodiscard]] bool valid() const noexcept { return state_ != nullptr; }
  /// Whether both handles refer to the same array (Python's `a is b`; copies of a handle are the same array).
  [[nodiscard]] bool is_same(const Array& other) const noexcept { return state_ != nullptr && state_ == other.state_; }
  [[nodiscard]] const Layout& layout() const;
  [[nodiscard]] std::int64_t rows() const { return layout().rows; }
  [[nodiscard]] std::int64_t cols() const { return layout().cols; }
  [[nodiscard]] int ndim() const { return layout().ndim; }
  [[nodiscard]] Split split() const { return layout().split; }
  [[nodiscard]] Shape shape() const { return layout().shape(); }
  [[nodiscard]] std::int64_t size() const { return layout().size(); }
  [[nodiscard]] Engine& engine() const;
  /// This rank (the queue's communicator).
  [[nodiscard]] int rank() const;

  /// Number of chunks this rank holds (0 when its block is empty).
  [[nodiscard]] std::size_t num_local_chunks() const;
  /// Chunk i of this rank. An unevaluated expression is materialised first (one fused task per chunk,
  /// recorded once; nothing runs). Not collective.
  [[nodiscard]] const Chunk& local_chunk(std::size_t i) const;
  /// All chunks of this rank (materialising as local_chunk does). Not collective.
  [[nodiscard]] const std::vector<Chunk>& local_chunks() const;
  /// The global extent of chunk i of this rank.
  [[nodiscard]] ChunkExtent local_extent(std::size_t i) const;
  /// This rank's whole block.
  [[nodiscard]] ChunkExtent local_block() const;
  /// Whether this is an elementwise expression not materialised yet.
  [[nodiscard]] bool is_expression() const;
  /// @private The expression this array reads from: its own (unevaluated) or a leaf over its chunks.
  [[nodiscard]] detail::ExprPtr<T> expr() const;

  /// @brief Compute every local chunk and keep them (spillable). Collective. @throws the agreed task error.
  Array& persist();
  /// @brief The global array, row-major, on `root` (empty elsewhere). Collective.
  [[nodiscard]] std::vector<T> gather(int root = 0) const;
  /// @brief The global array, row-major, on every rank. Collective.
  [[nodiscard]] std::vector<T> gather_all() const;
  /// @brief This rank's block, row-major (local_rows x local_cols). Collective (runs the graph).
  [[nodiscard]] std::vector<T> local_data() const;

  /**
   * @brief An array from each rank's block of the balanced layout of `shape`: `local` holds this rank's block
   * row-major (block_extent(rank).size() values). Collective (the sizes are checked together).
   * @throws ShapeError on every rank when any rank's block has the wrong size.
   */
  [[nodiscard]] static Array from_local_blocks(Engine& engine, Shape shape, Split split, std::vector<T> local,
                                               std::int64_t chunk = 0);
  /**
   * @brief An array split by rows from any number of rows per rank (`local` is local_rows x cols row-major),
   * stacked in rank order and rebalanced to even blocks. Collective.
   * @throws ShapeError when local.size() != local_rows * cols or cols differ across ranks.
   */
  [[nodiscard]] static Array from_local_rows(Engine& engine, std::vector<T> local, std::int64_t local_rows,
                                             std::int64_t cols, int ndim = 2);
  /// @brief An array whose chunks are filled by `fill(extent, out)` (out: extent.size() values, row-major).
  /// `fill` is copied into every chunk's task. Not collective (lazy).
  [[nodiscard]] static Array from_chunk_fn(Engine& engine, Shape shape, Split split,
                                           std::function<void(const ChunkExtent&, std::span<T>)> fill,
                                           std::int64_t chunk = 0, std::string name = "from_function");
  /// @brief A(i, j) = f(i, j) (global indices; a 1-D array calls f(i, 0)). Not collective (lazy).
  template <class F>
  [[nodiscard]] static Array from_function(Engine& engine, Shape shape, Split split, F f, std::int64_t chunk = 0) {
    return from_chunk_fn(
        engine, shape, split,
        [f](const ChunkExtent& e, std::span<T> out) {
          for (std::int64_t i = 0; i < e.rows; ++i)
            for (std::int64_t j = 0; j < e.cols; ++j)
              out[static_cast<std::size_t>(i * e.cols + j)] = static_cast<T>(f(e.row0 + i, e.col0 + j));
        },
        chunk);
  }

  // Member forms of the free functions in elementwise.hpp, reduction.hpp and slicing.hpp (same semantics).
  [[nodiscard]] Array exp() const;
  [[nodiscard]] Array log() const;
  [[nodiscard]] Array sqrt() const;
  [[nodiscard]] Array abs() const;
  [[nodiscard]] Array sin() const;
  [[nodiscard]] Array cos() const;
  [[nodiscard]] Array pow(double exponent) const;
  /// floor_divide(*this, b) and mod(*this, b) (NumPy's // and %; elementwise.hpp). Lazy, not collective.
  [[nodiscard]] Array floor_divide(const Array& b) const;
  [[nodiscard]] Array floor_divide(T b) const;
  [[nodiscard]] Array mod(const Array& b) const;
  [[nodiscard]] Array mod(T b) const;
  template <class U>
  [[nodiscard]] Array<U> astype() const;

  [[nodiscard]] sum_t<T> sum() const;
  [[nodiscard]] double mean() const;
  [[nodiscard]] double var(int ddof = 0) const;
  [[nodiscard]] double std(int ddof = 0) const;
  [[nodiscard]] T min() const;
  [[nodiscard]] T max() const;
  /// Along an axis, NumPy's `x.sum(axis=0)` (reduction.hpp's sum(a, axis) etc.: a 1-D Array<double>; -1 is the
  /// last axis). var and std along an axis are the free functions var(a, axis, ddof) and std(a, axis, ddof): the
  /// members' one argument is ddof.
  [[nodiscard]] Array<double> sum(int axis) const;
  [[nodiscard]] Array<double> mean(int axis) const;
  [[nodiscard]] Array<double> min(int axis) const;
  [[nodiscard]] Array<double> max(int axis) const;
  /// argmax(*this) / argmin(*this): the flat index (reduction.hpp). Collective.
  [[nodiscard]] std::int64_t argmax() const;
  [[nodiscard]] std::int64_t argmin() const;
  /// argmax(*this, axis) / argmin(*this, axis) (reduction.hpp).
  [[nodiscard]] Array<std::int64_t> argmax(int axis) const;
  [[nodiscard]] Array<std::int64_t> argmin(int axis) const;

  /// reshape(*this, shape) and ravel(*this) (reshape.hpp): `a.reshape({3, -1})`.
  [[nodiscard]] Array reshape(Shape shape) const;
  [[nodiscard]] Array ravel() const;
  /// `a[mask]`: compress(*this, mask) (compress.hpp), e.g. `a[a > 0.0]`. Collective.
  [[nodiscard]] Array operator[](const Array<std::int64_t>& mask) const;

  /// The transpose, NumPy's `a.T` (slicing.hpp's transpose()): a lazy view that records which array it transposes.
  [[nodiscard]] Array transpose() const;
  /// @brief The array this one is the transpose view of (the result of transpose() of a 2-D array), so that
  /// linalg::matmul can see `matmul(x, transpose(x))` as a Gram; an empty handle otherwise. Not collective.
  [[nodiscard]] Array transpose_of() const;
  /// The source this array was made from (see ArraySource), or null. Not collective.
  [[nodiscard]] const std::shared_ptr<const ArraySource>& source() const;
  /// @private Record the source of an array just made (the making layer calls it before returning the array).
  void set_source(std::shared_ptr<const ArraySource> source);
  [[nodiscard]] Array row_range(std::int64_t begin, std::int64_t end) const;
  [[nodiscard]] Array col_range(std::int64_t begin, std::int64_t end) const;
  [[nodiscard]] Array head(std::int64_t n) const;
  [[nodiscard]] Array rebalance() const;
  [[nodiscard]] Array resplit(Split split) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

extern template class Array<float>;
extern template class Array<double>;
extern template class Array<std::int32_t>;
extern template class Array<std::int64_t>;

}  // namespace slab
