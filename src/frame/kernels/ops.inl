#pragma once
// The composition of ops.hpp: per-row flag functors and stream compaction (filter, dropna), binary searches in
// sorted sets (isin), sorted segments (unique, value_counts, segments.inl), an inclusive scan with the offset
// folded into the first element (cumsum), an offset gather (shift, diff), and a per-row cast with a search for the
// first null (to_array).
#include <thrust/find.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <limits>
#include <string>

#include "core/kernels/ordered_scan.inl"
#include "frame/kernels/key_words_hd.hpp"
#include "frame/kernels/ops.hpp"
#include "frame/kernels/segments.inl"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

/// BatchView::is_null: masked out, string code -1, or NaN in a float64 column.
SLAB_HD_INLINE bool is_null_at(const ColumnView& c, std::int64_t r) {
  if (c.valid && !c.valid[r]) return true;
  if (c.type == ElementType::float64) {
    const double x = static_cast<const double*>(c.data)[r];
    return x != x;
  }
  if (c.type == ElementType::string) return static_cast<const std::int32_t*>(c.data)[r] < 0;
  return false;
}

struct PredicateFlag {
  const std::uint8_t* pred;
  const std::uint8_t* valid;
  std::uint8_t* flag;
  SLAB_HD void operator()(std::int64_t i) const { flag[i] = pred[i] && (!valid || valid[i]); }
};

struct NoNullFlag {
  ColumnView cols[kMaxKeyColumns];
  int ncols;
  std::uint8_t* flag;
  SLAB_HD void operator()(std::int64_t i) const {
    bool ok = true;
    for (int k = 0; k < ncols && ok; ++k) ok = !is_null_at(cols[k], i);
    flag[i] = ok;
  }
};

/// Expr's dbl(): a row's value as a double.
SLAB_HD_INLINE double value_as_double(const ColumnView& c, std::int64_t r) {
  switch (c.type) {
    case ElementType::float64:
      return static_cast<const double*>(c.data)[r];
    case ElementType::boolean:
      return static_cast<const std::uint8_t*>(c.data)[r] ? 1.0 : 0.0;
    default:
      return static_cast<double>(static_cast<const std::int64_t*>(c.data)[r]);
  }
}

template <class T>
SLAB_HD_INLINE bool sorted_contains(const T* set, std::int64_t n, T v) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (set[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && set[lo] == v;
}

struct IsinValues {
  ColumnView col;
  const double* values;
  std::int64_t nvalues;
  std::uint8_t* out;
  SLAB_HD void operator()(std::int64_t i) const {
    out[i] = !is_null_at(col, i) && sorted_contains(values, nvalues, value_as_double(col, i));
  }
};

struct IsinCodes {
  ColumnView col;
  const std::int32_t* codes;
  std::int64_t ncodes;
  std::uint8_t* out;
  SLAB_HD void operator()(std::int64_t i) const {
    out[i] = !is_null_at(col, i) && sorted_contains(codes, ncodes, static_cast<const std::int32_t*>(col.data)[i]);
  }
};

/// value_counts' order: the complement of the count (descending), as the first sort word.
struct CountDescending {
  const std::int64_t* counts;
  SLAB_HD std::uint64_t operator()(std::int64_t g) const { return ~static_cast<std::uint64_t>(counts[g]); }
};

/// cumsum's scan input: the value (0 for a null), the offset added to row 0's.
template <class V>
struct CumsumInput {
  ColumnView col;
  V offset;
  SLAB_HD V operator()(std::int64_t i) const {
    const V x = is_null_at(col, i) ? V(0) : static_cast<const V*>(col.data)[i];
    if constexpr (std::is_floating_point_v<V>)
      return i == 0 ? offset + x : x;
    else
      return i == 0 ? static_cast<V>(static_cast<std::uint64_t>(offset) + static_cast<std::uint64_t>(x)) : x;
  }
};
/// A run of rows' moments (column_moments): count, sum, mean, M2, min and max (meaningless while count is 0).
struct MomentState {
  double count = 0, sum = 0, mean = 0, m2 = 0, min = 0, max = 0;
};
/// Row i as a run of one row, or of none where it is null.
struct MomentOfRow {
  ColumnView col;
  SLAB_HD MomentState operator()(std::int64_t i) const {
    MomentState m;
    if (is_null_at(col, i)) return m;
    double x;
    if (col.type == ElementType::float64)
      x = static_cast<const double*>(col.data)[i];
    else if (col.type == ElementType::boolean)
      x = static_cast<double>(static_cast<const std::uint8_t*>(col.data)[i]);
    else if (col.type == ElementType::string)
      x = 0.0;  // only counted
    else
      x = static_cast<double>(static_cast<const std::int64_t*>(col.data)[i]);
    m.count = 1;
    m.sum = x;
    m.mean = x;
    m.min = x;
    m.max = x;
    return m;
  }
};
/// Two consecutive runs merged (Chan et al.): with a run of one row on the right, mean is Welford's update
/// bitwise (d * 1 / n == d / n); min and max keep the earlier of equal values, as a row-order pass does.
struct MergeMoments {
  SLAB_HD MomentState operator()(const MomentState& a, const MomentState& b) const {
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    MomentState m;
    m.count = a.count + b.count;
    const double d = b.mean - a.mean;
    m.mean = a.mean + d * b.count / m.count;
    m.m2 = a.m2 + b.m2 + d * d * a.count * b.count / m.count;
    m.sum = a.sum + b.sum;
    m.min = b.min < a.min ? b.min : a.min;
    m.max = a.max < b.max ? b.max : a.max;
    return m;
  }
};
struct WrappingPlus {
  SLAB_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  }
};
/// Null rows keep their input value.
template <class V>
struct CumsumOutput {
  ColumnView col;
  V* out;
  SLAB_HD void operator()(std::int64_t i) const {
    if (is_null_at(col, i)) out[i] = static_cast<const V*>(col.data)[i];
  }
};

struct ShiftRow {
  ColumnView ext;
  std::int64_t ext_n, first, periods;
  bool diff;
  void* out;
  std::uint8_t* out_valid;

  template <class T>
  SLAB_HD void copy(std::int64_t i, std::int64_t s, bool ok, T vacated) const {
    static_cast<T*>(out)[i] = ok ? static_cast<const T*>(ext.data)[s] : vacated;
  }
  SLAB_HD void operator()(std::int64_t i) const {
    const std::int64_t s = first + i - periods, own = first + i;
    const bool ok = s >= 0 && s < ext_n;
    if (!diff) {
      switch (ext.type) {
        case ElementType::string:
          copy<std::int32_t>(i, s, ok, -1);
          break;
        case ElementType::boolean:
          copy<std::uint8_t>(i, s, ok, 0);
          break;
        default:
          copy<std::uint64_t>(i, s, ok, 0);
          break;
      }
      if (out_valid) {
        bool v = ok && (!ext.valid || ext.valid[s]);
        if (v && ext.type == ElementType::string) v = static_cast<const std::int32_t*>(ext.data)[s] >= 0;
        out_valid[i] = v;
      }
      return;
    }
    const bool both = ok && !is_null_at(ext, s) && !is_null_at(ext, own);
    if (ext.type == ElementType::float64) {
      const double* x = static_cast<const double*>(ext.data);
      static_cast<double*>(out)[i] = both ? x[own] - x[s] : bits_double(0x7FF8000000000000ull);
    } else {
      const std::uint64_t* x = static_cast<const std::uint64_t*>(ext.data);
      static_cast<std::uint64_t*>(out)[i] = both ? x[own] - x[s] : 0;
    }
    if (out_valid) out_valid[i] = both;
  }
};

/// to_array's value of row i: a double (a row masked out NaN) or an int64 (a row masked out is the caller's error).
struct ColumnValue {
  ColumnView col;
  bool as_double;
  void* out;
  SLAB_HD std::int64_t integer(std::int64_t i) const {
    return col.type == ElementType::boolean ? static_cast<std::int64_t>(static_cast<const std::uint8_t*>(col.data)[i])
                                            : static_cast<const std::int64_t*>(col.data)[i];
  }
  SLAB_HD void operator()(std::int64_t i) const {
    const bool masked = col.valid && !col.valid[i];
    if (as_double) {
      static_cast<double*>(out)[i] = masked                              ? bits_double(0x7FF8000000000000ull)
                                     : col.type == ElementType::float64 ? static_cast<const double*>(col.data)[i]
                                                                        : static_cast<double>(integer(i));
    } else if (!masked) {
      static_cast<std::int64_t*>(out)[i] = integer(i);
    }
  }
};
struct MaskedOut {
  const std::uint8_t* valid;
  SLAB_HD bool operator()(std::int64_t i) const { return valid[i] == 0; }
};

}  // namespace detail

template <class B>
std::int64_t OpsKernels<B>::filter_rows(const Exec& exec, const std::uint8_t* pred, const std::uint8_t* pred_valid,
                                        std::int64_t n, std::int64_t* rows) {
  if (n <= 0) return 0;
  B b(exec);
  slab::kernels::Scratch<std::uint8_t, B> flag(b, n);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, detail::PredicateFlag{pred, pred_valid, flag.get()});
  return GatherKernels<B>::select_rows(exec, flag.get(), n, rows);
}

template <class B>
std::int64_t OpsKernels<B>::dropna_rows(const Exec& exec, const ColumnView* cols, int ncols, std::int64_t n,
                                        std::int64_t* rows) {
  SLAB_EXPECTS(ncols >= 0 && ncols <= kMaxKeyColumns, InvalidArgument,
               "dropna_rows: " + std::to_string(ncols) + " columns (at most " + std::to_string(kMaxKeyColumns) +
                   " per call; call again on the rows kept)");
  if (n <= 0) return 0;
  B b(exec);
  slab::kernels::Scratch<std::uint8_t, B> flag(b, n);
  detail::NoNullFlag f{};
  for (int k = 0; k < ncols; ++k) f.cols[k] = cols[k];
  f.ncols = ncols;
  f.flag = flag.get();
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, f);
  return GatherKernels<B>::select_rows(exec, flag.get(), n, rows);
}

template <class B>
void OpsKernels<B>::isin_values(const Exec& exec, const ColumnView& col, std::int64_t n, const double* values,
                                std::int64_t nvalues, std::uint8_t* out) {
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, detail::IsinValues{col, values, nvalues, out});
}

template <class B>
void OpsKernels<B>::isin_codes(const Exec& exec, const ColumnView& col, std::int64_t n, const std::int32_t* codes,
                               std::int64_t ncodes, std::uint8_t* out) {
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, detail::IsinCodes{col, codes, ncodes, out});
}

template <class B>
std::int64_t OpsKernels<B>::unique(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                                   std::int64_t n, std::int64_t* first_row, std::int64_t* counts) {
  if (n <= 0) return 0;
  B b(exec);
  detail::Segments<B> seg(exec, b, words, width, bits, n, nullptr);
  GroupsOut g;
  g.size = counts;
  g.first_row = first_row;
  detail::write_groups(exec, b, seg, width, g);
  return seg.groups;
}

template <class B>
std::int64_t OpsKernels<B>::value_counts(const Exec& exec, const std::uint64_t* const* words, int width,
                                         const int* bits, std::int64_t n, const std::uint8_t* keep,
                                         std::int64_t* first_row, std::int64_t* counts) {
  if (n <= 0) return 0;
  B b(exec);
  detail::Segments<B> seg(exec, b, words, width, bits, n, keep);
  const std::int64_t G = seg.groups;
  if (G == 0) return 0;
  using slab::kernels::Scratch;
  // Per key in key order: count, first row, key words; then a stable sort by descending count (ties stay in
  // key order, i.e. ascending value).
  Scratch<std::int64_t, B> cnt(b, G), first(b, G), perm(b, G);
  Scratch<std::uint64_t, B> desc(b, G);
  GroupsOut g;
  g.size = cnt.get();
  g.first_row = first.get();
  detail::write_groups(exec, b, seg, width, g);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::transform(b.policy(), i, i + G, desc.get(), detail::CountDescending{cnt.get()});
  const std::uint64_t* key[1] = {desc.get()};
  SortKernels<B>::permutation(exec, key, 1, nullptr, G, perm.get());
  thrust::gather(b.policy(), perm.get(), perm.get() + G, cnt.get(), counts);
  thrust::gather(b.policy(), perm.get(), perm.get() + G, first.get(), first_row);
  return G;
}

template <class B>
void OpsKernels<B>::cumsum(const Exec& exec, const ColumnView& col, std::int64_t n, std::uint64_t offset, void* out) {
  SLAB_EXPECTS(col.type == ElementType::int64 || col.type == ElementType::float64, TypeError,
               "cumsum: the column is not int64 or float64");
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  if (col.type == ElementType::float64) {
    auto* o = static_cast<double*>(out);
    auto in = thrust::make_transform_iterator(i, detail::CumsumInput<double>{col, bits_double(offset)});
    slab::kernels::ordered_inclusive_scan(b, in, n, o, thrust::plus<double>());  // same bits every run
    thrust::for_each(b.policy(), i, i + n, detail::CumsumOutput<double>{col, o});
  } else {
    auto* o = static_cast<std::int64_t*>(out);
    auto in =
        thrust::make_transform_iterator(i, detail::CumsumInput<std::int64_t>{col, static_cast<std::int64_t>(offset)});
    thrust::inclusive_scan(b.policy(), in, in + n, o, detail::WrappingPlus{});
    thrust::for_each(b.policy(), i, i + n, detail::CumsumOutput<std::int64_t>{col, o});
  }
}

template <class B>
std::uint64_t OpsKernels<B>::column_sum(const Exec& exec, const ColumnView& col, std::int64_t n) {
  SLAB_EXPECTS(col.type == ElementType::int64 || col.type == ElementType::float64, TypeError,
               "cumsum: the column is not int64 or float64");
  if (n <= 0) return 0;  // the bits of 0.0 and of int64 0
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  // A null row adds 0, which changes no running sum from 0 (such a sum is never -0.0).
  if (col.type == ElementType::float64)
    return double_bits(thrust::transform_reduce(b.policy(), i, i + n, detail::CumsumInput<double>{col, 0.0}, 0.0,
                                                thrust::plus<double>()));
  return static_cast<std::uint64_t>(thrust::transform_reduce(b.policy(), i, i + n,
                                                             detail::CumsumInput<std::int64_t>{col, 0},
                                                             std::int64_t{0}, detail::WrappingPlus{}));
}

template <class B>
void OpsKernels<B>::column_moments(const Exec& exec, const ColumnView& col, std::int64_t n, double* out) {
  SLAB_EXPECTS(col.type == ElementType::int64 || col.type == ElementType::timestamp ||
                   col.type == ElementType::float64 || col.type == ElementType::boolean ||
                   col.type == ElementType::string,
               TypeError, "column moments: the column is not numeric, boolean or string");
  detail::MomentState m;
  if (n > 0) {
    B b(exec);
    thrust::counting_iterator<std::int64_t> i(0);
    m = thrust::transform_reduce(b.policy(), i, i + n, detail::MomentOfRow{col}, detail::MomentState{},
                                 detail::MergeMoments{});
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out[0] = m.count;
  out[1] = m.sum;
  out[2] = m.mean;
  out[3] = m.m2;
  out[4] = m.count > 0 ? m.min : nan;
  out[5] = m.count > 0 ? m.max : nan;
}

template <class B>
void OpsKernels<B>::shift(const Exec& exec, const ColumnView& ext, std::int64_t ext_n, std::int64_t first,
                          std::int64_t n, std::int64_t periods, bool diff, void* out, std::uint8_t* out_valid) {
  SLAB_EXPECTS(!diff || ext.type == ElementType::int64 || ext.type == ElementType::float64, TypeError,
               "diff: the column is not int64 or float64");
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, detail::ShiftRow{ext, ext_n, first, periods, diff, out, out_valid});
}

template <class B>
std::int64_t OpsKernels<B>::column_values(const Exec& exec, const ColumnView& col, std::int64_t n, bool as_double,
                                          void* out) {
  SLAB_EXPECTS(col.type != ElementType::string && (as_double || col.type != ElementType::float64), InvalidArgument,
               "column_values: a string column, or a float64 one as int64");
  if (n <= 0) return -1;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, detail::ColumnValue{col, as_double, out});
  if (as_double || !col.valid) return -1;
  const std::int64_t first = thrust::find_if(b.policy(), i, i + n, detail::MaskedOut{col.valid}) - i;
  return first < n ? first : -1;
}

}  // namespace slab::frame::kernels
