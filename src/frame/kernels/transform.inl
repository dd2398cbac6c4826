#pragma once
// The composition of transform.hpp: the tag step's gathers, a stable radix sort of (key words, row number), or of
// (key words, null flag, value word) for the aggregates of sorted values, with segment heads where the key changes
// (as segments.inl), then the operations exact in any order row-parallel (segments_by_row.inl: cumcount, shift,
// diff, ffill, bfill, cummin, cummax, integer cumsum and cumprod, transform's size, count, integer sum, min, max,
// first, last, nunique, median and quantile), the float sums and products in pieces of each group
// (segments_by_piece.inl: float cumsum and cumprod, transform's float sum, mean, std and var), rolling on the
// values gathered as doubles in row order (RollingKernels::groups), a binary search of each row's owner, and a
// scatter. No operation runs one thread a group: a frame of a few huge groups takes every thread.
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>

#include <string>
#include <vector>

#include "core/kernels/scratch.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/rolling.hpp"
#include "frame/kernels/segments.inl"
#include "frame/kernels/segments_by_piece.inl"
#include "frame/kernels/segments_by_row.inl"
#include "frame/kernels/sort_perm.hpp"
#include "frame/kernels/transform.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

struct TagRowNumber {
  const std::int64_t* rows;
  std::int64_t first_row;
  std::int64_t* out;
  SLAB_HD void operator()(std::int64_t j) const { out[j] = first_row + rows[j]; }
};

/// The sort words of a value: null flag, then segment_value_word (0 for a null).
struct ValueSortWords {
  SegmentValues values;
  std::uint64_t* null_flag;
  std::uint64_t* value_word;
  SLAB_HD void operator()(std::int64_t i) const {
    const auto j = static_cast<std::size_t>(i);
    const bool null = values.null(j);
    null_flag[i] = null ? 1 : 0;
    value_word[i] = null ? 0 : segment_value_word(values, j);
  }
};

struct SortedValue {
  SegmentValues values;
  const std::int64_t* perm;
  double* out;
  SLAB_HD void operator()(std::int64_t j) const { out[j] = values.d(static_cast<std::size_t>(perm[j])); }
};

/// rolling's variance: the square of its std.
struct Square {
  double* x;
  SLAB_HD void operator()(std::int64_t i) const { x[i] *= x[i]; }
};

struct ReturnBucket {
  const std::int64_t* row;
  const std::int64_t* starts;
  const std::uint32_t* ids;
  std::int64_t nb;
  std::uint32_t* bucket;
  SLAB_HD void operator()(std::int64_t i) const { bucket[i] = ids[slab::kernels::segment_holding(starts, nb, row[i])]; }
};

struct ScatterNull {
  SegmentResult out;
  SLAB_HD void operator()(std::int64_t i) const { out.set_null(static_cast<std::size_t>(i)); }
};

struct ScatterRow {
  const std::int64_t* row;
  SegmentValues values;
  SegmentResult out;
  std::int64_t first_row, m;
  SLAB_HD void operator()(std::int64_t i) const {
    const std::int64_t at = row[i] - first_row;
    if (at >= 0 && at < m) out.copy(static_cast<std::size_t>(at), values, static_cast<std::size_t>(i));
  }
};

}  // namespace detail

template <class B>
void TransformKernels<B>::tag_rows(const Exec& exec, const std::uint64_t* const* words, int width,
                                   const std::int64_t* rows, std::int64_t k, std::int64_t first_row,
                                   const ColumnView* value, std::uint64_t* const* out_words, std::int64_t* out_row,
                                   void* out_value, std::uint8_t* out_valid) {
  if (k <= 0) return;
  B b(exec);
  SortKernels<B>::gather_words(exec, words, width, rows, k, out_words);
  thrust::counting_iterator<std::int64_t> j(0);
  thrust::for_each(b.policy(), j, j + k, detail::TagRowNumber{rows, first_row, out_row});
  if (value) GatherKernels<B>::column(exec, *value, rows, k, out_value, out_valid);
}

template <class B>
std::int64_t TransformKernels<B>::compute(const Exec& exec, const std::uint64_t* const* words, int width,
                                          const int* bits, const std::int64_t* row, int row_bits, std::int64_t n,
                                          const SegmentValues& values, const SegmentOp& op, const SegmentResult& out,
                                          std::int64_t* out_row) {
  const bool by_value = segment_op_is_sorted(op);
  const int extra = by_value ? 2 : 1;  // sort words after the key's: (null flag, value word) or the row number
  SLAB_EXPECTS(width >= 0 && width + extra <= kMaxKeyWords, InvalidArgument,
               "group transform kernels: " + std::to_string(width) + " key words (at most " +
                   std::to_string(kMaxKeyWords - extra) + ")");
  const bool windowed = segment_op_is_windowed(op);
  SLAB_EXPECTS(by_value || windowed || segment_op_is_sequential(op), InvalidArgument,
               "group transform kernels: an operation with no device pass (internal)");
  SLAB_EXPECTS(!windowed || out.type == ElementType::float64, InvalidArgument,
               "group transform kernels: rolling writes float64 (internal)");
  if (n <= 0) return 0;
  B b(exec);
  using I64 = slab::kernels::Scratch<std::int64_t, B>;
  using U64 = slab::kernels::Scratch<std::uint64_t, B>;
  // 1. The stable order of (key words, row number), or of (key words, null flag, value word).
  const std::uint64_t* sort_words[kMaxKeyWords] = {};
  int sort_bits[kMaxKeyWords] = {};
  for (int w = 0; w < width; ++w) sort_words[w] = words[w], sort_bits[w] = bits ? bits[w] : 64;
  thrust::counting_iterator<std::int64_t> j(0);
  U64 null_flag(b, by_value ? n : 0), value_word(b, by_value ? n : 0);
  if (by_value) {
    thrust::for_each(b.policy(), j, j + n, detail::ValueSortWords{values, null_flag.get(), value_word.get()});
    sort_words[width] = null_flag.get(), sort_bits[width] = 1;
    sort_words[width + 1] = value_word.get(), sort_bits[width + 1] = 64;
  } else {
    sort_words[width] = reinterpret_cast<const std::uint64_t*>(row);  // row numbers are >= 0
    sort_bits[width] = row_bits;
  }
  I64 perm(b, n);
  SortKernels<B>::permutation(exec, sort_words, width + extra, sort_bits, n, perm.get());
  // 2. Segment heads where the sorted key changes, and the segments' offsets.
  std::vector<U64> sorted;
  detail::SegmentHead head{};
  std::uint64_t* sw[kMaxKeyWords] = {};
  for (int w = 0; w < width; ++w) {
    sorted.emplace_back(b, n);
    sw[w] = sorted.back().get();
  }
  SortKernels<B>::gather_words(exec, words, width, perm.get(), n, sw);
  slab::kernels::Scratch<std::uint8_t, B> heads(b, n);
  for (int w = 0; w < width; ++w) head.words[w] = sw[w];
  head.width = width;
  head.head = heads.get();
  thrust::for_each(b.policy(), j, j + n, head);
  I64 offsets(b, n + 1);
  const std::int64_t groups = GatherKernels<B>::select_rows(exec, heads.get(), n, offsets.get());
  b.to_backend(offsets.get() + groups, &n, sizeof n);
  // 3. Each group's pass, and the row number of each sorted position.
  if (by_value || windowed) {
    slab::kernels::Scratch<double, B> sorted_values(b, n);
    thrust::for_each(b.policy(), j, j + n, detail::SortedValue{values, perm.get(), sorted_values.get()});
    if (windowed) {
      auto* rolled = reinterpret_cast<double*>(out.data);
      RollingKernels<B>::groups(exec, sorted_values.get(), offsets.get(), groups, n, op.window > 1 ? op.window : 1,
                                op.min_periods, op.rolling, rolled);
      if (op.rolling_var) thrust::for_each(b.policy(), j, j + n, detail::Square{rolled});
    } else {
      sorted_segment_op_by_rows(b, op, values, out, perm.get(), sorted_values.get(), heads.get(), offsets.get(), n);
    }
  } else if (segment_op_is_by_rows(op, values.type, out.type)) {
    segment_op_by_rows(b, op, values, out, perm.get(), heads.get(), offsets.get(), n);
  } else {
    SLAB_EXPECTS(segment_op_is_by_pieces(op, values.type, out.type), InvalidArgument,
                 "group transform kernels: an operation neither by rows nor by pieces (internal)");
    segment_op_by_pieces(b, op, values, out, perm.get(), offsets.get(), groups, n);
  }
  thrust::gather(b.policy(), perm.get(), perm.get() + n, row, out_row);
  return groups;
}

template <class B>
void TransformKernels<B>::return_buckets(const Exec& exec, const std::int64_t* row, std::int64_t n,
                                         const std::int64_t* starts, const std::uint32_t* ids, std::int64_t nb,
                                         std::uint32_t* bucket) {
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, detail::ReturnBucket{row, starts, ids, nb, bucket});
}

template <class B>
void TransformKernels<B>::scatter(const Exec& exec, const std::int64_t* row, std::int64_t n,
                                  const SegmentValues& values, std::int64_t first_row, std::int64_t m,
                                  const SegmentResult& out) {
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  if (m > 0) thrust::for_each(b.policy(), i, i + m, detail::ScatterNull{out});
  if (n > 0) thrust::for_each(b.policy(), i, i + n, detail::ScatterRow{row, values, out, first_row, m});
}

}  // namespace slab::frame::kernels
