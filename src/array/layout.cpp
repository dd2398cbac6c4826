// Block maths of slab::Layout: pure functions of the global shape, split and rank count.
#include "slab/array/layout.hpp"

#include <algorithm>

#include "slab/core/error.hpp"

namespace slab {

const char* to_string(Split split) noexcept {
  switch (split) {
    case Split::rows:
      return "rows";
    case Split::cols:
      return "cols";
    case Split::none:
      return "none";
  }
  return "?";
}

std::string to_string(Shape shape) {
  if (shape.ndim == 1) return "(" + std::to_string(shape.rows) + ",)";
  return "(" + std::to_string(shape.rows) + ", " + std::to_string(shape.cols) + ")";
}

std::int64_t Layout::default_chunk(std::int64_t rows, std::int64_t cols, Split split, std::size_t elem_bytes) noexcept {
  const std::int64_t other = std::max<std::int64_t>(1, split == Split::cols ? rows : cols);
  const std::int64_t along = std::max<std::int64_t>(1, split == Split::cols ? cols : rows);
  const std::int64_t per = default_chunk_bytes / static_cast<std::int64_t>(elem_bytes) / other;
  return std::clamp<std::int64_t>(per, 1, along);
}

Layout Layout::make(Shape shape, Split split, int nranks, std::int64_t chunk, std::size_t elem_bytes) {
  SLAB_EXPECTS(shape.rows >= 0 && shape.cols >= 0, InvalidArgument,
               "Layout: negative extent in " + slab::to_string(shape));
  SLAB_EXPECTS(shape.ndim == 1 || shape.ndim == 2, InvalidArgument, "Layout: ndim must be 1 or 2");
  SLAB_EXPECTS(shape.ndim == 2 || shape.cols == 1, InvalidArgument, "Layout: a 1-D shape has one column");
  SLAB_EXPECTS(nranks >= 1, InvalidArgument, "Layout: nranks must be >= 1");
  Layout l;
  l.rows = shape.rows;
  l.cols = shape.cols;
  l.ndim = shape.ndim;
  l.split = split;
  l.nranks = nranks;
  l.chunk = chunk > 0 ? chunk : default_chunk(shape.rows, shape.cols, split, elem_bytes);
  return l;
}

std::int64_t Layout::block_begin(int rank) const noexcept {
  if (split == Split::none) return 0;
  if (!bounds.empty()) return bounds[static_cast<std::size_t>(rank)];
  const std::int64_t n = split_extent();
  const std::int64_t q = n / nranks;
  const std::int64_t r = n % nranks;
  return rank * q + std::min<std::int64_t>(rank, r);
}

std::int64_t Layout::block_end(int rank) const noexcept {
  if (split == Split::none) return rows;
  if (!bounds.empty()) return bounds[static_cast<std::size_t>(rank) + 1];
  return block_begin(rank) + split_extent() / nranks + (rank < split_extent() % nranks ? 1 : 0);
}

int Layout::owner(std::int64_t index) const {
  SLAB_EXPECTS(index >= 0 && index < split_extent(), InvalidArgument,
               "Layout::owner: index " + std::to_string(index) + " out of range for " + to_string());
  if (split == Split::none) return 0;
  int lo = 0;
  int hi = nranks - 1;  // the last rank r with block_begin(r) <= index and a non-empty block
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (block_begin(mid) <= index)
      lo = mid;
    else
      hi = mid - 1;
  }
  while (lo > 0 && block_end(lo) <= index) --lo;
  while (block_end(lo) <= index) ++lo;  // empty blocks at the same offset
  return lo;
}

std::int64_t Layout::local_rows(int rank) const noexcept {
  return split == Split::cols ? rows : block_end(rank) - block_begin(rank);
}
std::int64_t Layout::local_cols(int rank) const noexcept {
  return split == Split::cols ? block_end(rank) - block_begin(rank) : cols;
}

ChunkExtent Layout::block_extent(int rank) const noexcept {
  if (split == Split::cols) return {0, rows, block_begin(rank), local_cols(rank)};
  return {block_begin(rank), local_rows(rank), 0, cols};
}

std::int64_t Layout::num_chunks(int rank) const noexcept {
  const ChunkExtent b = block_extent(rank);
  if (b.rows == 0 || b.cols == 0) return 0;
  const std::int64_t along = split == Split::cols ? b.cols : b.rows;
  return (along + chunk - 1) / chunk;
}

ChunkExtent Layout::chunk_extent(int rank, std::int64_t i) const {
  SLAB_EXPECTS(i >= 0 && i < num_chunks(rank), InvalidArgument,
               "Layout::chunk_extent: chunk " + std::to_string(i) + " of rank " + std::to_string(rank) +
                   " out of range for " + to_string());
  ChunkExtent b = block_extent(rank);
  if (split == Split::cols) {
    const std::int64_t c0 = b.col0 + i * chunk;
    return {0, rows, c0, std::min(chunk, b.col0 + b.cols - c0)};
  }
  const std::int64_t r0 = b.row0 + i * chunk;
  return {r0, std::min(chunk, b.row0 + b.rows - r0), 0, cols};
}

std::string Layout::to_string() const { return slab::to_string(shape()) + " split=" + slab::to_string(split); }

bool Layout::same_blocks(const Layout& o) const noexcept {
  if (rows != o.rows || cols != o.cols || split != o.split || nranks != o.nranks) return false;
  for (int r = 0; r < nranks; ++r)
    if (block_begin(r) != o.block_begin(r) || block_end(r) != o.block_end(r)) return false;
  return true;
}

}  // namespace slab
