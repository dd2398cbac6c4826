#pragma once
// The composition of reduction.hpp: a chunk table (pointers, sizes, first tile) on the backend, one functor call
// per tile computing its partial with the SLAB_HD tile functions of reduction_hd.hpp, then one per chunk folding
// its tiles in order. The device's .cu may replace the per-tile step with a kernel of 8 threads per tile: the
// lanes stay the host's, so the bits do.
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <string>
#include <vector>

#include "array/kernels/reduction.hpp"
#include "core/kernels/scratch.hpp"
#include "slab/core/error.hpp"

namespace slab::kernels {
namespace detail {

template <class T>
struct ChunkTable {
  const T* const* data;
  const std::int64_t* size;
  const std::int64_t* tile0;  // nchunks + 1
  const ChunkPlace* place;
  int nchunks;
  /// The chunk of tile t, and the tile's first element and length.
  SLAB_HD void locate(std::int64_t t, int& c, std::int64_t& begin, std::int64_t& n) const {
    const auto lo = static_cast<int>(slab::kernels::segment_holding(tile0, nchunks, t));
    c = lo;
    begin = (t - tile0[lo]) * kReduceTile;
    const std::int64_t left = size[lo] - begin;
    n = left < kReduceTile ? left : kReduceTile;
  }
};

/// The backend copy of a host chunk list, and the tile count.
template <class B, class T>
struct Chunks {
  Scratch<const T*, B> data;
  Scratch<std::int64_t, B> size, tile0;
  Scratch<ChunkPlace, B> place;
  std::int64_t tiles = 0;
  Chunks(B& b, const T* const* chunks, const std::int64_t* sizes, const ChunkPlace* places, int nchunks)
      : data(b, nchunks), size(b, nchunks), tile0(b, nchunks + 1), place(b, places ? nchunks : 0) {
    std::vector<std::int64_t> t0(static_cast<std::size_t>(nchunks) + 1, 0);
    for (int c = 0; c < nchunks; ++c) {
      SLAB_EXPECTS(sizes[c] >= 0, InvalidArgument, "reduction kernels: a negative chunk size");
      t0[c + 1] = t0[c] + (sizes[c] + kReduceTile - 1) / kReduceTile;
    }
    tiles = t0[static_cast<std::size_t>(nchunks)];
    b.to_backend(data.get(), chunks, sizeof(const T*) * static_cast<std::size_t>(nchunks));
    b.to_backend(size.get(), sizes, sizeof(std::int64_t) * static_cast<std::size_t>(nchunks));
    b.to_backend(tile0.get(), t0.data(), sizeof(std::int64_t) * t0.size());
    if (places) b.to_backend(place.get(), places, sizeof(ChunkPlace) * static_cast<std::size_t>(nchunks));
  }
  [[nodiscard]] ChunkTable<T> table(int nchunks) const {
    return {data.get(), size.get(), tile0.get(), place.get(), nchunks};
  }
};

template <class T>
struct TileStats {
  ChunkTable<T> ct;
  StatsPartial<T>* out;
  SLAB_HD void operator()(std::int64_t t) const {
    int c;
    std::int64_t begin, n;
    ct.locate(t, c, begin, n);
    out[t] = tile_stats(ct.data[c] + begin, n);
  }
};
template <class T>
struct ChunkStats {
  ChunkTable<T> ct;
  const StatsPartial<T>* tiles;
  StatsPartial<T>* out;
  SLAB_HD void operator()(int c) const {
    StatsPartial<T> p;
    for (std::int64_t t = ct.tile0[c]; t < ct.tile0[c + 1]; ++t) merge_stats(p, tiles[t]);
    out[c] = p;
  }
};

enum class SumKind { sum, squares, nonzero, nansum };
template <class T>
struct TileSum {
  ChunkTable<T> ct;
  SumKind kind;
  SumPartial<T>* out;
  SLAB_HD void operator()(std::int64_t t) const {
    int c;
    std::int64_t begin, n;
    ct.locate(t, c, begin, n);
    const T* x = ct.data[c] + begin;
    SumPartial<T> p;
    if (kind == SumKind::sum) {
      p.sum = tile_sum(x, n);
      p.n = n;
    } else if (kind == SumKind::nansum) {
      p.sum = tile_nansum(x, n, p.n);
      p.dsum = static_cast<double>(p.sum);
    } else if (kind == SumKind::squares) {
      p.dsum = tile_sum_squares(x, n);
    } else {
      p.n = tile_count_nonzero(x, n);
    }
    out[t] = p;
  }
};
/// A chunk's tiles in order into the identity (as the host's tile loop).
template <class T>
struct ChunkSum {
  ChunkTable<T> ct;
  const SumPartial<T>* tiles;
  SumPartial<T>* out;
  SLAB_HD void operator()(int c) const {
    SumPartial<T> p;
    for (std::int64_t t = ct.tile0[c]; t < ct.tile0[c + 1]; ++t) merge_sums(p, tiles[t]);
    out[c] = p;
  }
};

template <class T>
struct TileArg {
  ChunkTable<T> ct;
  std::int64_t global_cols;
  ArgPartial<T>* out;
  SLAB_HD void operator()(std::int64_t t) const {
    int c;
    std::int64_t begin, n;
    ct.locate(t, c, begin, n);
    const T* x = ct.data[c] + begin;
    const ChunkPlace e = ct.place[c];
    ArgPartial<T> p;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t k = begin + i;
      arg_fold(p, x[i], (e.row0 + k / e.cols) * global_cols + e.col0 + k % e.cols);
    }
    out[t] = p;
  }
};
template <class T>
struct ChunkArg {
  ChunkTable<T> ct;
  const ArgPartial<T>* tiles;
  ArgPartial<T>* out;
  SLAB_HD void operator()(int c) const {
    ArgPartial<T> p;
    for (std::int64_t t = ct.tile0[c]; t < ct.tile0[c + 1]; ++t) arg_merge(p, tiles[t]);
    out[c] = p;
  }
};

template <class T>
struct RowStats {
  const T* x;
  std::int64_t cols;
  StatsPartial<T>* out;
  SLAB_HD void operator()(std::int64_t r) const { out[r] = tile_stats(x + r * cols, cols); }
};
template <class T>
struct ColStats {
  const T* x;
  std::int64_t rows, cols;
  StatsPartial<T>* out;
  SLAB_HD void operator()(std::int64_t c) const {
    StatsPartial<T> p;
    for (std::int64_t r = 0; r < rows; ++r) stats_add(p, x[r * cols + c]);
    out[c] = p;
  }
};

template <bool Max, class T>
struct ArgLines {
  const T* x;
  std::int64_t rows, cols, index0;
  int axis;
  ArgPartial<T>* out;
  SLAB_HD void operator()(std::int64_t k) const {
    ArgPartial<T> p;
    if (axis == 0)
      for (std::int64_t r = 0; r < rows; ++r) arg_fold_one<Max>(p, x[r * cols + k], index0 + r);
    else
      for (std::int64_t c = 0; c < cols; ++c) arg_fold_one<Max>(p, x[k * cols + c], index0 + c);
    out[k] = p;
  }
};

/// One partial P per row or column of a block (fn(out) makes the per-line functor), to the host.
template <class B, class P, class Fn>
void reduce_lines(const Exec& exec, std::int64_t rows, std::int64_t cols, std::int64_t lines, P* out, Fn fn) {
  SLAB_EXPECTS(rows >= 0 && cols >= 0, InvalidArgument, "reduce_axis kernels: a negative extent");
  if (lines == 0) return;
  B b(exec);
  Scratch<P, B> res(b, lines);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + lines, fn(res.get()));
  b.to_host(out, res.get(), sizeof(P) * static_cast<std::size_t>(lines));
}

template <class B, class T, class P, class TileFn, class ChunkFn>
void reduce_chunks(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, const ChunkPlace* places,
                   int nchunks, P* out, TileFn tile, ChunkFn chunk) {
  SLAB_EXPECTS(nchunks >= 0, InvalidArgument, "reduction kernels: a negative chunk count");
  if (nchunks == 0) return;
  B b(exec);
  Chunks<B, T> ch(b, chunks, sizes, places, nchunks);
  Scratch<P, B> tiles(b, ch.tiles), res(b, nchunks);
  thrust::counting_iterator<std::int64_t> t(0);
  thrust::counting_iterator<int> c(0);
  const ChunkTable<T> ct = ch.table(nchunks);
  thrust::for_each(b.policy(), t, t + ch.tiles, tile(ct, tiles.get()));
  thrust::for_each(b.policy(), c, c + nchunks, chunk(ct, tiles.get(), res.get()));
  b.to_host(out, res.get(), sizeof(P) * static_cast<std::size_t>(nchunks));
}

}  // namespace detail

template <class B, class T>
void ReductionKernels<B, T>::stats(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, int nchunks,
                                   StatsPartial<T>* out) {
  detail::reduce_chunks<B>(
      exec, chunks, sizes, nullptr, nchunks, out,
      [](detail::ChunkTable<T> ct, StatsPartial<T>* o) {
        return detail::TileStats<T>{ct, o};
      },
      [](detail::ChunkTable<T> ct, const StatsPartial<T>* tl, StatsPartial<T>* o) {
        return detail::ChunkStats<T>{ct, tl, o};
      });
}

template <class B, class T>
void ReductionKernels<B, T>::sum(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, int nchunks,
                                 SumPartial<T>* out) {
  detail::reduce_chunks<B>(
      exec, chunks, sizes, nullptr, nchunks, out,
      [](detail::ChunkTable<T> ct, SumPartial<T>* o) {
        return detail::TileSum<T>{ct, detail::SumKind::sum, o};
      },
      [](detail::ChunkTable<T> ct, const SumPartial<T>* tl, SumPartial<T>* o) {
        return detail::ChunkSum<T>{ct, tl, o};
      });
}

template <class B, class T>
void ReductionKernels<B, T>::sum_squares(const Exec& exec, const T* const* chunks, const std::int64_t* sizes,
                                         int nchunks, SumPartial<T>* out) {
  detail::reduce_chunks<B>(
      exec, chunks, sizes, nullptr, nchunks, out,
      [](detail::ChunkTable<T> ct, SumPartial<T>* o) {
        return detail::TileSum<T>{ct, detail::SumKind::squares, o};
      },
      [](detail::ChunkTable<T> ct, const SumPartial<T>* tl, SumPartial<T>* o) {
        return detail::ChunkSum<T>{ct, tl, o};
      });
}

template <class B, class T>
void ReductionKernels<B, T>::nansum(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, int nchunks,
                                    SumPartial<T>* out) {
  detail::reduce_chunks<B>(
      exec, chunks, sizes, nullptr, nchunks, out,
      [](detail::ChunkTable<T> ct, SumPartial<T>* o) {
        return detail::TileSum<T>{ct, detail::SumKind::nansum, o};
      },
      [](detail::ChunkTable<T> ct, const SumPartial<T>* tl, SumPartial<T>* o) {
        return detail::ChunkSum<T>{ct, tl, o};
      });
}

template <class B, class T>
void ReductionKernels<B, T>::count_nonzero(const Exec& exec, const T* const* chunks, const std::int64_t* sizes,
                                           int nchunks, SumPartial<T>* out) {
  detail::reduce_chunks<B>(
      exec, chunks, sizes, nullptr, nchunks, out,
      [](detail::ChunkTable<T> ct, SumPartial<T>* o) {
        return detail::TileSum<T>{ct, detail::SumKind::nonzero, o};
      },
      [](detail::ChunkTable<T> ct, const SumPartial<T>* tl, SumPartial<T>* o) {
        return detail::ChunkSum<T>{ct, tl, o};
      });
}

template <class B, class T>
void ReductionKernels<B, T>::argminmax(const Exec& exec, const T* const* chunks, const std::int64_t* sizes,
                                       const ChunkPlace* places, int nchunks, std::int64_t global_cols,
                                       ArgPartial<T>* out) {
  SLAB_EXPECTS(places != nullptr || nchunks == 0, InvalidArgument, "argminmax: chunk places needed");
  detail::reduce_chunks<B>(
      exec, chunks, sizes, places, nchunks, out,
      [global_cols](detail::ChunkTable<T> ct, ArgPartial<T>* o) {
        return detail::TileArg<T>{ct, global_cols, o};
      },
      [](detail::ChunkTable<T> ct, const ArgPartial<T>* tl, ArgPartial<T>* o) {
        return detail::ChunkArg<T>{ct, tl, o};
      });
}

template <class B, class T>
void ReductionKernels<B, T>::row_stats(const Exec& exec, const T* x, std::int64_t rows, std::int64_t cols,
                                       StatsPartial<T>* out) {
  detail::reduce_lines<B>(exec, rows, cols, rows, out,
                             [x, cols](StatsPartial<T>* o) { return detail::RowStats<T>{x, cols, o}; });
}

template <class B, class T>
void ReductionKernels<B, T>::col_stats(const Exec& exec, const T* x, std::int64_t rows, std::int64_t cols,
                                       StatsPartial<T>* out) {
  detail::reduce_lines<B>(exec, rows, cols, cols, out,
                             [x, rows, cols](StatsPartial<T>* o) { return detail::ColStats<T>{x, rows, cols, o}; });
}

template <class B, class T>
void ReductionKernels<B, T>::arg_lines(const Exec& exec, const T* x, std::int64_t rows, std::int64_t cols, int axis,
                                       bool max, std::int64_t index0, ArgPartial<T>* out) {
  const std::int64_t lines = axis == 0 ? cols : rows;
  if (max)
    detail::reduce_lines<B>(exec, rows, cols, lines, out, [=](ArgPartial<T>* o) {
      return detail::ArgLines<true, T>{x, rows, cols, index0, axis, o};
    });
  else
    detail::reduce_lines<B>(exec, rows, cols, lines, out, [=](ArgPartial<T>* o) {
      return detail::ArgLines<false, T>{x, rows, cols, index0, axis, o};
    });
}

}  // namespace slab::kernels
