#pragma once
/// @file creation.hpp
/// @brief Creating slab::Array values.
///
/// Every function is lazy and not collective: it records one task per local chunk, which fills the chunk
/// from the global indices only, so values never depend on the rank count or the chunking. `chunk` <= 0
/// picks Layout::default_chunk.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "slab/array/array.hpp"

namespace slab {

template <class T>
class Array;
class Engine;
struct Shape;
enum class Split;

template <class T>
[[nodiscard]] Array<T> full(Engine& engine, Shape shape, T value, Split split, std::int64_t chunk = 0);
template <class T>
[[nodiscard]] Array<T> zeros(Engine& engine, Shape shape, Split split, std::int64_t chunk = 0);
template <class T>
[[nodiscard]] Array<T> ones(Engine& engine, Shape shape, Split split, std::int64_t chunk = 0);
/// 1-D: start + i * step for i < ceil((stop - start) / step) (NumPy's arange). @throws InvalidArgument for step 0.
template <class T>
[[nodiscard]] Array<T> arange(Engine& engine, double start, double stop, double step, Split split,
                              std::int64_t chunk = 0);
/// 1-D: `num` values from start to stop (stop included when endpoint).
template <class T>
[[nodiscard]] Array<T> linspace(Engine& engine, double start, double stop, std::int64_t num, Split split,
                                bool endpoint = true, std::int64_t chunk = 0);
/// rows x cols with ones on the diagonal j == i + k.
template <class T>
[[nodiscard]] Array<T> eye(Engine& engine, std::int64_t rows, std::int64_t cols, Split split, std::int64_t k = 0,
                           std::int64_t chunk = 0);
/// A(i, j) = low + (high - low) * counter_uniform(seed, i * cols + j) (exactly counter_uniform for [0, 1)).
/// `seed` is the counter stream (< 2^20).
[[nodiscard]] Array<double> random_uniform(Engine& engine, Shape shape, Split split, std::uint64_t seed,
                                           double low = 0.0, double high = 1.0, std::int64_t chunk = 0);

/**
 * @brief An array's chunks made on request instead of held: each call of chunk(i) records a new task whose output is
 * this rank's chunk i of `layout` (row-major, layout.chunk_extent(rank, i)). Lazy, not collective. For a stream that
 * would rather make its input twice than keep it (linalg::RowSource, the streamed SVD of slab-svd --stream).
 */
struct ChunkSource {
  Layout layout;
  std::function<Chunk(std::size_t i)> chunk;
};
/// random_uniform(engine, shape, split, seed, low, high, chunk) as a ChunkSource: chunk(i) holds bitwise the values of
/// that array's local chunk i, made (on the device where the rank computes) each time it is asked for.
[[nodiscard]] ChunkSource random_uniform_source(Engine& engine, Shape shape, Split split, std::uint64_t seed,
                                                double low = 0.0, double high = 1.0, std::int64_t chunk = 0);
/// Standard normal by Box-Muller on two counter streams: with k = i * cols + j, u1 = U(seed, k),
/// u2 = U(seed ^ 0x80000, k): A(i, j) = mean + stddev * sqrt(-2 log(1 - u1)) * cos(2 pi u2), log1p and cos by
/// fdlibm's algorithms (within an ulp of glibc's), so that host and GPU make the same bits.
[[nodiscard]] Array<double> random_normal(Engine& engine, Shape shape, Split split, std::uint64_t seed,
                                          double mean = 0.0, double stddev = 1.0, std::int64_t chunk = 0);

}  // namespace slab
