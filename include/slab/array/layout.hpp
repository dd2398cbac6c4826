#pragma once
/// @file layout.hpp
/// @brief slab::Layout: how a global rows x cols array is split into per-rank blocks and per-rank chunks.
/// Pure block maths: no communication, and any rank can compute any rank's block (Tpetra's Map, heat's
/// split). Nothing here is collective.

#include <cstdint>
#include <string>
#include <vector>

namespace slab {

/// The distributed axis of an array. `none`: every rank holds the whole array (replicated).
enum class Split { rows, cols, none };

/// @brief "rows", "cols" or "none". Not collective.
[[nodiscard]] const char* to_string(Split split) noexcept;

/// A global shape. `Shape{n}` is 1-D (n x 1); `Shape{m, n}` is 2-D.
struct Shape {
  std::int64_t rows = 0;
  std::int64_t cols = 1;
  int ndim = 1;
  constexpr Shape() = default;
  constexpr Shape(std::int64_t n) : rows(n), cols(1), ndim(1) {}  // NOLINT(google-explicit-constructor)
  constexpr Shape(std::int64_t r, std::int64_t c) : rows(r), cols(c), ndim(2) {}
  [[nodiscard]] constexpr std::int64_t size() const noexcept { return rows * cols; }
  friend constexpr bool operator==(const Shape&, const Shape&) = default;
};

/// A rectangle of a global array, in global indices: rows [row0, row0 + rows), cols [col0, col0 + cols).
struct ChunkExtent {
  std::int64_t row0 = 0;
  std::int64_t rows = 0;
  std::int64_t col0 = 0;
  std::int64_t cols = 0;
  [[nodiscard]] constexpr std::int64_t size() const noexcept { return rows * cols; }
  friend constexpr bool operator==(const ChunkExtent&, const ChunkExtent&) = default;
};

/**
 * @brief The distribution of a rows x cols array over `nranks` ranks along `split`, and of each rank's block
 * into chunks of `chunk` rows (split rows or none) or `chunk` columns (split cols).
 *
 * Blocks are balanced by default: along the split axis (length n) rank r owns [block_begin(r), block_end(r)),
 * the first n % p ranks one element more; ranks beyond n own nothing. Slicing can make blocks uneven; such a
 * layout lists its block boundaries in `bounds` (nranks + 1 entries, bounds[0] = 0, bounds[p] = n; empty
 * means balanced). Chunks tile a rank's block in order: chunk i covers [begin + i*chunk, min(begin + (i+1)*chunk,
 * end)) along the chunked axis and the whole other axis. Every chunk's bytes are a row-major
 * rows x cols block of T for its extent. Split none: each rank's block is the whole array, chunked by rows.
 */
struct Layout {
  std::int64_t rows = 0;
  std::int64_t cols = 1;
  int ndim = 2;  ///< 1 or 2; a 1-D array is rows x 1
  Split split = Split::rows;
  int nranks = 1;
  std::int64_t chunk = 1;            ///< chunk length along the chunked axis (>= 1)
  std::vector<std::int64_t> bounds;  ///< uneven block boundaries (nranks + 1) or empty (balanced)

  /**
   * @brief A balanced layout. `chunk` <= 0 picks default_chunk(). Not collective.
   * @throws InvalidArgument for negative extents, ndim not 1 or 2, a 1-D shape with cols != 1, nranks < 1.
   */
  [[nodiscard]] static Layout make(Shape shape, Split split, int nranks, std::int64_t chunk = 0,
                                   std::size_t elem_bytes = 8);
  /// @brief The default chunk length: about 32 MiB of `elem_bytes`-sized elements per chunk, at least 1.
  [[nodiscard]] static std::int64_t default_chunk(std::int64_t rows, std::int64_t cols, Split split,
                                                  std::size_t elem_bytes = 8) noexcept;
  /// The target bytes per chunk of default_chunk().
  static constexpr std::int64_t default_chunk_bytes = 32ll << 20;

  [[nodiscard]] Shape shape() const noexcept { return ndim == 1 ? Shape{rows} : Shape{rows, cols}; }
  [[nodiscard]] std::int64_t size() const noexcept { return rows * cols; }
  /// Length of the split axis (rows for rows and none, cols for cols).
  [[nodiscard]] std::int64_t split_extent() const noexcept { return split == Split::cols ? cols : rows; }
  /// Length of the chunked axis (rows unless split cols).
  [[nodiscard]] bool balanced() const noexcept { return bounds.empty(); }

  /// First index along the split axis owned by `rank` (0 for split none).
  [[nodiscard]] std::int64_t block_begin(int rank) const noexcept;
  /// One past the last index along the split axis owned by `rank` (the full extent for split none).
  [[nodiscard]] std::int64_t block_end(int rank) const noexcept;
  /// The rank owning `index` along the split axis (ranks with empty blocks own nothing); 0 for split none.
  /// @throws InvalidArgument when index is out of range.
  [[nodiscard]] int owner(std::int64_t index) const;
  [[nodiscard]] std::int64_t local_rows(int rank) const noexcept;
  [[nodiscard]] std::int64_t local_cols(int rank) const noexcept;
  /// The rank's whole block (possibly empty).
  [[nodiscard]] ChunkExtent block_extent(int rank) const noexcept;
  /// Number of chunks of `rank` (0 when its block is empty).
  [[nodiscard]] std::int64_t num_chunks(int rank) const noexcept;
  /// Chunk i of `rank`, global indices. @throws InvalidArgument when i is out of range.
  [[nodiscard]] ChunkExtent chunk_extent(int rank, std::int64_t i) const;

  /// "(rows, cols) split=rows" or "(rows,) split=none", for messages.
  [[nodiscard]] std::string to_string() const;
  /// Same distribution (shape, ndim, split, nranks and blocks; chunk may differ).
  [[nodiscard]] bool same_blocks(const Layout& other) const noexcept;
  friend bool operator==(const Layout&, const Layout&) = default;
};

/// "(3, 4)" or "(3,)", for messages.
[[nodiscard]] std::string to_string(Shape shape);

}  // namespace slab
