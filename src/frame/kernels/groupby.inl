#pragma once
// The composition of groupby.hpp: segments of equal keys (segments.inl), pieces of kGroupPiece rows folded
// sequentially (one functor call each), then each group's pieces combined in order; nunique by a sort of
// (group, value word) pairs and a count of distinct neighbours.
#include <thrust/binary_search.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <string>
#include <vector>

#include "core/kernels/counter_rng_hd.hpp"
#include "frame/groupby/holistic.hpp"
#include "frame/kernels/groupby.hpp"
#include "frame/kernels/key_words_hd.hpp"
#include "frame/kernels/segments.inl"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

/// A row's value as the host's column_values() sees it, and whether it is null.
template <class V>
SLAB_HD_INLINE V agg_value(const ColumnView& c, std::int64_t r, bool& null) {
  null = c.valid && !c.valid[r];
  switch (c.type) {
    case ElementType::float64: {
      const double x = static_cast<const double*>(c.data)[r];
      null = null || x != x;
      return static_cast<V>(x);
    }
    case ElementType::boolean:
      return static_cast<V>(static_cast<const std::uint8_t*>(c.data)[r] ? 1 : 0);
    case ElementType::string: {
      const std::int32_t code = static_cast<const std::int32_t*>(c.data)[r];
      null = null || code < 0;
      return static_cast<V>(code);
    }
    default:
      return static_cast<V>(static_cast<const std::int64_t*>(c.data)[r]);
  }
}

SLAB_HD_INLINE AggParts parts_of(const AggStates& s) {
  AggParts p;
  p.sum = s.sum != nullptr;
  p.welford = s.mean != nullptr || s.m2 != nullptr;
  p.min = s.min != nullptr;
  p.max = s.max != nullptr;
  p.first = s.first_order != nullptr || s.first_value != nullptr;
  p.last = s.last_order != nullptr || s.last_value != nullptr;
  return p;
}

SLAB_HD_INLINE void store_state(const AggStates& out, std::int64_t g, const AggState& s) {
  if (out.count) out.count[g] = s.count;
  if (out.sum) out.sum[g] = s.sum;
  if (out.mean) out.mean[g] = s.mean;
  if (out.m2) out.m2[g] = s.m2;
  if (out.min) out.min[g] = s.min;
  if (out.max) out.max[g] = s.max;
  if (out.first_order) out.first_order[g] = s.first_order;
  if (out.first_value) out.first_value[g] = s.first_value;
  if (out.last_order) out.last_order[g] = s.last_order;
  if (out.last_value) out.last_value[g] = s.last_value;
}

SLAB_HD_INLINE AggState load_state(const AggStates& in, std::int64_t r, const AggState& identity) {
  AggState s = identity;
  if (in.count) s.count = in.count[r];
  if (in.sum) s.sum = in.sum[r];
  if (in.mean) s.mean = in.mean[r];
  if (in.m2) s.m2 = in.m2[r];
  if (in.min) s.min = in.min[r];
  if (in.max) s.max = in.max[r];
  if (in.first_order) s.first_order = in.first_order[r];
  if (in.first_value) s.first_value = in.first_value[r];
  if (in.last_order) s.last_order = in.last_order[r];
  if (in.last_value) s.last_value = in.last_value[r];
  return s;
}

/// One piece: its rows folded in row order into pieces[p].
template <class V>
struct FoldPiece {
  ColumnView values;
  AggParts parts;
  const std::int64_t* rows;     // sorted position -> original row
  const std::int64_t* offsets;  // groups + 1
  const std::int64_t* piece0;   // groups + 1: first piece of each group
  std::int64_t groups;
  std::uint64_t order0;
  AggState* pieces;
  SLAB_HD void operator()(std::int64_t p) const {
    const GroupPiece piece = piece_at(piece0, offsets, groups, p);
    if (piece.group < 0) return;
    AggState s = AggValue<V>::identity();
    for (std::int64_t j = piece.begin; j < piece.end; ++j) {
      const std::int64_t r = rows[j];
      bool null = false;
      const V x = agg_value<V>(values, r, null);
      if (!null) fold_row<V>(s, parts, x, order0 + static_cast<std::uint64_t>(r));
    }
    pieces[p] = s;
  }
};

/// One group: its pieces combined in order (a single piece is taken as is: the host's state).
template <class V>
struct CombinePieces {
  AggParts parts;
  const std::int64_t* piece0;
  const AggState* pieces;
  AggStates out;
  SLAB_HD void operator()(std::int64_t g) const {
    AggState s = pieces[piece0[g]];
    for (std::int64_t q = piece0[g] + 1; q < piece0[g + 1]; ++q) combine_states<V>(s, pieces[q], parts);
    store_state(out, g, s);
  }
};

/// One group of records: combined in record order into the identity (combine_records).
template <class V>
struct CombineRecords {
  AggParts parts;
  AggStates in;
  const std::int64_t* rows;
  const std::int64_t* offsets;
  AggStates out;
  SLAB_HD void operator()(std::int64_t g) const {
    const AggState identity = AggValue<V>::identity();
    AggState s = identity;
    for (std::int64_t j = offsets[g]; j < offsets[g + 1]; ++j)
      combine_states<V>(s, load_state(in, rows[j], identity), parts);
    store_state(out, g, s);
  }
};

struct SumSizes {
  const std::int64_t* sizes;
  const std::int64_t* rows;
  const std::int64_t* offsets;
  std::int64_t* out;
  SLAB_HD void operator()(std::int64_t g) const {
    std::int64_t s = 0;
    for (std::int64_t j = offsets[g]; j < offsets[g + 1]; ++j) s += sizes[rows[j]];
    out[g] = s;
  }
};

/// nunique: the (group, value word) pair of sorted position j; null values go to group `groups` (ignored).
template <class V>
struct NuniquePair {
  ColumnView values;
  const std::int64_t* rows;
  const std::int64_t* offsets;
  std::int64_t groups;
  std::uint64_t* group_word;
  std::uint64_t* value_word;
  SLAB_HD void operator()(std::int64_t j) const {
    const std::int64_t lo = slab::kernels::segment_holding(offsets, groups, j);  // j's group
    bool null = false;
    const V x = agg_value<V>(values, rows[j], null);
    group_word[j] = null ? static_cast<std::uint64_t>(groups) : static_cast<std::uint64_t>(lo);
    if constexpr (std::is_floating_point_v<V>)
      value_word[j] = float_word(static_cast<double>(x));
    else
      value_word[j] = static_cast<std::uint64_t>(x);
  }
};

/// distinct[k] = whether sorted pair k differs from pair k - 1 (1 for k = 0), as int64 for the scan.
struct DistinctPair {
  const std::uint64_t* group_word;
  const std::uint64_t* value_word;
  std::int64_t* distinct;
  SLAB_HD void operator()(std::int64_t k) const {
    distinct[k] = k == 0 || group_word[k] != group_word[k - 1] || value_word[k] != value_word[k - 1];
  }
};

struct NuniqueCount {
  const std::int64_t* bound;     // groups + 1: first sorted pair of each group
  const std::int64_t* distinct;  // exclusive scan of the distinct flags (pairs + 1)
  std::int64_t* out;
  SLAB_HD void operator()(std::int64_t g) const { out[g] = distinct[bound[g + 1]] - distinct[bound[g]]; }
};

/// flag[k] = sorted pair k is the first of its (group, value word) and its value is not null (group < groups).
struct FirstOfPair {
  const std::uint64_t* group_word;
  const std::uint64_t* value_word;
  std::uint64_t groups;
  std::uint8_t* flag;
  SLAB_HD void operator()(std::int64_t k) const {
    const bool first = k == 0 || group_word[k] != group_word[k - 1] || value_word[k] != value_word[k - 1];
    flag[k] = first && group_word[k] != groups;
  }
};

/// count_pairs: the distinct values of run r (sorted pairs of one key and aggregation), stored at its group.
struct PairRunCount {
  const std::uint64_t* keys[kMaxKeyWords];    ///< the sorted pairs' key words
  const std::uint64_t* groups[kMaxKeyWords];  ///< the groups' keys, ascending
  const std::uint64_t* agg;                   ///< the sorted pairs' aggregation words
  int width;
  std::int64_t ngroups;
  const std::int64_t* run_start;  ///< runs + 1
  const std::int64_t* distinct;   ///< exclusive scan of the distinct-pair heads (pairs + 1)
  std::int64_t* counts;
  SLAB_HD int compare(std::int64_t g, std::int64_t s) const {  // group g's key against pair s's
    for (int w = 0; w < width; ++w)
      if (groups[w][g] != keys[w][s]) return groups[w][g] < keys[w][s] ? -1 : 1;
    return 0;
  }
  SLAB_HD void operator()(std::int64_t r) const {
    const std::int64_t s = run_start[r], e = run_start[r + 1];
    std::int64_t lo = 0, hi = ngroups;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (compare(mid, s) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < ngroups && compare(lo, s) == 0)
      counts[static_cast<std::int64_t>(agg[s]) * ngroups + lo] = distinct[e] - distinct[s];
  }
};

/// holistic_rows: flags[i] = 1 where row i is kept and `column`'s value is not null (flags start at 0).
struct AnyValue {
  const std::uint8_t* keep;
  ColumnView column;
  std::uint8_t* flags;
  SLAB_HD void operator()(std::int64_t i) const {
    bool null = false;
    (void)agg_value<double>(column, i, null);
    if ((keep == nullptr || keep[i]) && !null) flags[i] = 1;
  }
};

/// holistic_rows: out[j] = `column`'s value at rows[j] as a double, NaN where null.
struct ValueAt {
  ColumnView column;
  const std::int64_t* rows;
  double* out;
  SLAB_HD void operator()(std::int64_t j) const {
    bool null = false;
    const double v = agg_value<double>(column, rows[j], null);
    out[j] = null ? bits_double(0x7FF8000000000000ull) : v;
  }
};

/// holistic: flags[i] = the value is not NaN.
struct NotNan {
  SLAB_HD std::uint8_t operator()(double v) const { return v == v ? 1 : 0; }
};

/// holistic: the order word of values[rows[j]] (the IEEE total order) and, by the sorted permutation, the values.
struct HolisticWords {
  const double* values;
  const std::int64_t* rows;
  std::uint64_t* out;
  SLAB_HD void operator()(std::int64_t j) const { out[j] = frame::detail::total_order_word(values[rows[j]]); }
};
struct HolisticSorted {
  const double* values;
  const std::int64_t* rows;
  const std::int64_t* perm;
  double* out;
  SLAB_HD void operator()(std::int64_t j) const { out[j] = values[rows[perm[j]]]; }
};

/// holistic: run r of the sorted rows (one key) gives its group's holistic value, where the key is a group's.
struct HolisticRun {
  const std::uint64_t* keys[kMaxKeyWords];    ///< the sorted rows' key words
  const std::uint64_t* groups[kMaxKeyWords];  ///< the groups' keys, ascending
  int width;
  std::int64_t ngroups;
  const std::int64_t* run_start;  ///< runs + 1
  const double* sorted;           ///< the values, sorted within each run
  double what;
  double* out;
  SLAB_HD int compare(std::int64_t g, std::int64_t s) const {  // group g's key against row s's
    for (int w = 0; w < width; ++w)
      if (groups[w][g] != keys[w][s]) return groups[w][g] < keys[w][s] ? -1 : 1;
    return 0;
  }
  SLAB_HD void operator()(std::int64_t r) const {
    const std::int64_t s = run_start[r], e = run_start[r + 1];
    std::int64_t lo = 0, hi = ngroups;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (compare(mid, s) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < ngroups && compare(lo, s) == 0)
      out[lo] = frame::detail::holistic_value(sorted + s, static_cast<std::size_t>(e - s), what);
  }
};

struct FlagToCount {
  SLAB_HD std::int64_t operator()(std::uint8_t f) const { return f; }
};

inline constexpr std::uint64_t kNanBits = 0x7FF8000000000000ull;

struct Finalize {
  AggKind op;
  ElementType type;
  AggStates st;
  const std::int64_t* sizes;
  void* out;
  std::uint8_t* out_valid;

  // One store per type width: a switch over typed stores of bit-cast values makes cicc take minutes.
  SLAB_HD void put_value(std::int64_t g, std::uint64_t b, bool present) const {
    if (out_valid) out_valid[g] = present ? 1 : 0;
    if (type == ElementType::boolean) {
      static_cast<std::uint8_t*>(out)[g] = present && b != 0 ? 1 : 0;
    } else if (type == ElementType::string) {
      static_cast<std::int32_t*>(out)[g] = present ? static_cast<std::int32_t>(static_cast<std::int64_t>(b)) : -1;
    } else {
      const std::uint64_t absent = type == ElementType::float64 ? kNanBits : 0;  // NaN, or 0 under a null
      static_cast<std::uint64_t*>(out)[g] = present ? b : absent;
    }
  }
  SLAB_HD void operator()(std::int64_t g) const {
    const double nan = bits_double(0x7FF8000000000000ull);
    const std::int64_t n = st.count ? st.count[g] : 0;
    const bool isf = type == ElementType::float64;
    switch (op) {
      case AggKind::count:
        static_cast<std::int64_t*>(out)[g] = n;
        break;
      case AggKind::size:
        static_cast<std::int64_t*>(out)[g] = sizes[g];
        break;
      case AggKind::nunique:
        static_cast<std::int64_t*>(out)[g] = st.nunique ? st.nunique[g] : 0;
        break;
      case AggKind::sum:
        static_cast<std::uint64_t*>(out)[g] = st.sum[g];  // the bits of the double or int64 sum
        break;
      case AggKind::mean: {
        double m = nan;
        if (n > 0 && type == ElementType::int64)  // the plan keeps min, max and Welford's mean for it (state.hpp)
          m = int64_mean(static_cast<std::int64_t>(st.sum[g]), n, static_cast<std::int64_t>(st.min[g]),
                         static_cast<std::int64_t>(st.max[g]), st.mean[g]);
        else if (n > 0)
          m = (isf ? bits_double(st.sum[g]) : static_cast<double>(static_cast<std::int64_t>(st.sum[g]))) /
              static_cast<double>(n);
        static_cast<double*>(out)[g] = m;
        break;
      }
      case AggKind::var:
      case AggKind::std: {
        const double v = n > 1 ? st.m2[g] / static_cast<double>(n - 1) : nan;
        static_cast<double*>(out)[g] = op == AggKind::std ? slab::kernels::portable::sqrt(v) : v;
        break;
      }
      case AggKind::min:
      case AggKind::max:
      case AggKind::first:
      case AggKind::last: {
        const std::uint64_t* v = op == AggKind::min     ? st.min
                                 : op == AggKind::max   ? st.max
                                 : op == AggKind::first ? st.first_value
                                                        : st.last_value;
        put_value(g, v[g], n > 0);
        break;
      }
    }
  }
};

template <class B, class V>
void aggregate_column(const Exec& exec, B& b, Segments<B>& seg, const AggColumn& a, std::uint64_t order0) {
  using slab::kernels::Scratch;
  const std::int64_t G = seg.groups;
  thrust::counting_iterator<std::int64_t> i(0);
  const AggParts parts = parts_of(a.out);
  const bool states = a.out.count || parts.sum || parts.welford || parts.min || parts.max || parts.first || parts.last;
  if (states) {
    Scratch<std::int64_t, B> piece0(b, G + 1);
    thrust::transform(b.policy(), i, i + G, piece0.get(), kernels::PiecesOf{seg.offsets.get()});
    b.zero(piece0.get() + G, sizeof(std::int64_t));
    thrust::exclusive_scan(b.policy(), piece0.get(), piece0.get() + G + 1, piece0.get());
    const std::int64_t max_pieces = G + seg.kept / kGroupPiece + 1;  // a bound: no synchronisation for the count
    Scratch<AggState, B> pieces(b, max_pieces);
    thrust::for_each(
        b.policy(), i, i + max_pieces,
        FoldPiece<V>{a.values, parts, seg.rows.get(), seg.offsets.get(), piece0.get(), G, order0, pieces.get()});
    thrust::for_each(b.policy(), i, i + G, CombinePieces<V>{parts, piece0.get(), pieces.get(), a.out});
  }
  if (a.out.nunique) {
    const std::int64_t m = seg.kept;
    Scratch<std::uint64_t, B> gw(b, m), vw(b, m), sgw(b, m), svw(b, m);
    thrust::for_each(b.policy(), i, i + m,
                     NuniquePair<V>{a.values, seg.rows.get(), seg.offsets.get(), G, gw.get(), vw.get()});
    const std::uint64_t* pair[2] = {gw.get(), vw.get()};
    const int pbits[2] = {bits_for(static_cast<std::uint64_t>(G)), 64};
    Scratch<std::int64_t, B> perm(b, m);
    SortKernels<B>::permutation(exec, pair, 2, pbits, m, perm.get());
    std::uint64_t* sorted[2] = {sgw.get(), svw.get()};
    SortKernels<B>::gather_words(exec, pair, 2, perm.get(), m, sorted);
    Scratch<std::int64_t, B> distinct(b, m + 1), bound(b, G + 1);
    thrust::for_each(b.policy(), i, i + m, DistinctPair{sgw.get(), svw.get(), distinct.get()});
    b.zero(distinct.get() + m, sizeof(std::int64_t));
    thrust::exclusive_scan(b.policy(), distinct.get(), distinct.get() + m + 1, distinct.get());
    thrust::counting_iterator<std::uint64_t> gv(0);
    thrust::lower_bound(b.policy(), sgw.get(), sgw.get() + m, gv, gv + G + 1, bound.get());
    thrust::for_each(b.policy(), i, i + G, NuniqueCount{bound.get(), distinct.get(), a.out.nunique});
  }
}

inline void check_width(int width, int naggs) {
  SLAB_EXPECTS(width >= 1 && width <= kMaxKeyWords && naggs >= 0, InvalidArgument,
               "groupby kernels: " + std::to_string(width) + " key words (1 to " + std::to_string(kMaxKeyWords) + ")");
}

}  // namespace detail

template <class B>
std::int64_t GroupbyKernels<B>::aggregate(const Exec& exec, const std::uint64_t* const* words, int width,
                                          const int* bits, std::int64_t n, const std::uint8_t* keep,
                                          const AggColumn* aggs, int naggs, std::uint64_t order0,
                                          const GroupsOut& groups) {
  detail::check_width(width, naggs);
  if (n <= 0) return 0;
  B b(exec);
  detail::Segments<B> seg(exec, b, words, width, bits, n, keep);
  if (seg.groups == 0) return 0;
  detail::write_groups(exec, b, seg, width, groups);
  for (int k = 0; k < naggs; ++k) {
    if (aggs[k].values.type == ElementType::float64)
      detail::aggregate_column<B, double>(exec, b, seg, aggs[k], order0);
    else
      detail::aggregate_column<B, std::int64_t>(exec, b, seg, aggs[k], order0);
  }
  return seg.groups;
}

template <class B>
std::int64_t GroupbyKernels<B>::combine(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                                        std::int64_t nrec, const std::int64_t* sizes, const AggStates* records,
                                        const AggColumn* aggs, int naggs, const GroupsOut& groups) {
  detail::check_width(width, naggs);
  if (nrec <= 0) return 0;
  B b(exec);
  detail::Segments<B> seg(exec, b, words, width, bits, nrec, nullptr);
  GroupsOut g = groups;
  g.size = nullptr;  // sizes are summed, not counted
  detail::write_groups(exec, b, seg, width, g);
  thrust::counting_iterator<std::int64_t> i(0);
  if (groups.size)
    thrust::for_each(b.policy(), i, i + seg.groups,
                     detail::SumSizes{sizes, seg.rows.get(), seg.offsets.get(), groups.size});
  for (int k = 0; k < naggs; ++k) {
    const AggParts parts = detail::parts_of(aggs[k].out);
    if (aggs[k].values.type == ElementType::float64)
      thrust::for_each(
          b.policy(), i, i + seg.groups,
          detail::CombineRecords<double>{parts, records[k], seg.rows.get(), seg.offsets.get(), aggs[k].out});
    else
      thrust::for_each(
          b.policy(), i, i + seg.groups,
          detail::CombineRecords<std::int64_t>{parts, records[k], seg.rows.get(), seg.offsets.get(), aggs[k].out});
  }
  return seg.groups;
}

template <class B>
std::int64_t GroupbyKernels<B>::distinct_pairs(const Exec& exec, const std::uint64_t* const* words, int width,
                                               const int* bits, std::int64_t n, const std::uint8_t* keep,
                                               const ColumnView& values, std::uint64_t agg,
                                               std::uint64_t* const* out) {
  using slab::kernels::Scratch;
  detail::check_width(width + 2, 0);
  if (n <= 0) return 0;
  B b(exec);
  detail::Segments<B> seg(exec, b, words, width, bits, n, keep);
  const std::int64_t G = seg.groups, m = seg.kept;
  if (G == 0) return 0;
  thrust::counting_iterator<std::int64_t> i(0);
  // (group, value word) of each kept row in segment order, a null value's group G; sorted, the first of each.
  Scratch<std::uint64_t, B> gw(b, m), vw(b, m), sgw(b, m), svw(b, m);
  if (values.type == ElementType::float64)
    thrust::for_each(b.policy(), i, i + m,
                     detail::NuniquePair<double>{values, seg.rows.get(), seg.offsets.get(), G, gw.get(), vw.get()});
  else
    thrust::for_each(b.policy(), i, i + m,
                     detail::NuniquePair<std::int64_t>{values, seg.rows.get(), seg.offsets.get(), G, gw.get(),
                                                       vw.get()});
  const std::uint64_t* pair[2] = {gw.get(), vw.get()};
  const int pbits[2] = {bits_for(static_cast<std::uint64_t>(G)), 64};
  Scratch<std::int64_t, B> perm(b, m);
  SortKernels<B>::permutation(exec, pair, 2, pbits, m, perm.get());
  std::uint64_t* sorted[2] = {sgw.get(), svw.get()};
  SortKernels<B>::gather_words(exec, pair, 2, perm.get(), m, sorted);
  Scratch<std::uint8_t, B> flag(b, m);
  thrust::for_each(b.policy(), i, i + m,
                   detail::FirstOfPair{sgw.get(), svw.get(), static_cast<std::uint64_t>(G), flag.get()});
  Scratch<std::int64_t, B> at(b, m);
  const std::int64_t k = GatherKernels<B>::select_rows(exec, flag.get(), m, at.get());
  if (k == 0) return 0;
  // Each pair's group, that group's first sorted position, and the key words there.
  Scratch<std::int64_t, B> group(b, k), key_at(b, k);
  thrust::gather(b.policy(), at.get(), at.get() + k, sgw.get(), group.get());
  thrust::gather(b.policy(), group.get(), group.get() + k, seg.offsets.get(), key_at.get());
  const std::uint64_t* sw[kMaxKeyWords] = {};
  for (int w = 0; w < width; ++w) sw[w] = seg.words[static_cast<std::size_t>(w)].get();
  SortKernels<B>::gather_words(exec, sw, width, key_at.get(), k, out);
  thrust::gather(b.policy(), at.get(), at.get() + k, svw.get(), out[width]);
  thrust::fill(b.policy(), out[width + 1], out[width + 1] + k, agg);
  b.sync();
  return k;
}

template <class B>
void GroupbyKernels<B>::count_pairs(const Exec& exec, const std::uint64_t* const* pairs, int width, const int* bits,
                                    std::int64_t npairs, const std::uint64_t* const* group_keys, std::int64_t ngroups,
                                    int nslots, std::int64_t* counts) {
  using slab::kernels::Scratch;
  detail::check_width(width + 2, 0);
  if (ngroups <= 0 || nslots <= 0) return;
  B b(exec);
  b.zero(counts, static_cast<std::size_t>(ngroups) * static_cast<std::size_t>(nslots) * sizeof(std::int64_t));
  if (npairs <= 0) {
    b.sync();
    return;
  }
  // Sorted by (key words, aggregation, value word): a run per key and aggregation, its distinct pairs inside.
  const std::uint64_t* order[kMaxKeyWords] = {};
  int obits[kMaxKeyWords] = {};
  for (int w = 0; w < width; ++w) {
    order[w] = pairs[w];
    obits[w] = bits ? bits[w] : 64;
  }
  order[width] = pairs[width + 1];
  obits[width] = bits_for(static_cast<std::uint64_t>(nslots - 1));
  order[width + 1] = pairs[width];
  obits[width + 1] = 64;
  const int nw = width + 2;
  Scratch<std::int64_t, B> perm(b, npairs);
  SortKernels<B>::permutation(exec, order, nw, obits, npairs, perm.get());
  std::vector<Scratch<std::uint64_t, B>> sorted_words;
  std::uint64_t* sw[kMaxKeyWords] = {};
  for (int w = 0; w < nw; ++w) {
    sorted_words.emplace_back(b, npairs);
    sw[w] = sorted_words.back().get();
  }
  SortKernels<B>::gather_words(exec, order, nw, perm.get(), npairs, sw);
  thrust::counting_iterator<std::int64_t> i(0);
  // Heads of distinct pairs (all words) and of runs (key words and aggregation).
  Scratch<std::uint8_t, B> head(b, npairs), run_head(b, npairs);
  detail::SegmentHead h{};
  for (int w = 0; w < nw; ++w) h.words[w] = sw[w];
  h.width = nw;
  h.head = head.get();
  thrust::for_each(b.policy(), i, i + npairs, h);
  h.width = width + 1;
  h.head = run_head.get();
  thrust::for_each(b.policy(), i, i + npairs, h);
  Scratch<std::int64_t, B> distinct(b, npairs + 1), run_start(b, npairs + 1);
  thrust::transform(b.policy(), head.get(), head.get() + npairs, distinct.get(), detail::FlagToCount{});
  b.zero(distinct.get() + npairs, sizeof(std::int64_t));
  thrust::exclusive_scan(b.policy(), distinct.get(), distinct.get() + npairs + 1, distinct.get());
  const std::int64_t runs = GatherKernels<B>::select_rows(exec, run_head.get(), npairs, run_start.get());
  b.to_backend(run_start.get() + runs, &npairs, sizeof npairs);
  detail::PairRunCount c{};
  for (int w = 0; w < width; ++w) {
    c.keys[w] = sw[w];
    c.groups[w] = group_keys[w];
  }
  c.agg = sw[width];
  c.width = width;
  c.ngroups = ngroups;
  c.run_start = run_start.get();
  c.distinct = distinct.get();
  c.counts = counts;
  thrust::for_each(b.policy(), i, i + runs, c);
  b.sync();
}

template <class B>
std::int64_t GroupbyKernels<B>::holistic_rows(const Exec& exec, const std::uint64_t* const* words, int width,
                                              std::int64_t n, const std::uint8_t* keep, const ColumnView* values,
                                              int nvalues, std::uint64_t* const* out_words,
                                              double* const* out_values) {
  using slab::kernels::Scratch;
  detail::check_width(width, 0);
  if (n <= 0) return 0;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  Scratch<std::uint8_t, B> flags(b, n);
  b.zero(flags.get(), static_cast<std::size_t>(n));
  for (int h = 0; h < nvalues; ++h)
    thrust::for_each(b.policy(), i, i + n, detail::AnyValue{keep, values[h], flags.get()});
  Scratch<std::int64_t, B> rows(b, n);
  const std::int64_t m = GatherKernels<B>::select_rows(exec, flags.get(), n, rows.get());
  if (m == 0) return 0;
  SortKernels<B>::gather_words(exec, words, width, rows.get(), m, out_words);
  for (int h = 0; h < nvalues; ++h)
    thrust::for_each(b.policy(), i, i + m, detail::ValueAt{values[h], rows.get(), out_values[h]});
  b.sync();
  return m;
}

template <class B>
void GroupbyKernels<B>::holistic(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                                 const double* values, std::int64_t n, const std::uint64_t* const* group_keys,
                                 std::int64_t ngroups, const double* what, int nwhat, double* out) {
  using slab::kernels::Scratch;
  detail::check_width(width + 1, 0);
  if (ngroups <= 0 || nwhat <= 0) return;
  B b(exec);
  thrust::fill(b.policy(), out, out + ngroups * nwhat, bits_double(0x7FF8000000000000ull));
  if (n <= 0) {
    b.sync();
    return;
  }
  // The rows with a value, their key words and the value's order word: sorted by (key, value).
  Scratch<std::uint8_t, B> flags(b, n);
  thrust::transform(b.policy(), values, values + n, flags.get(), detail::NotNan{});
  Scratch<std::int64_t, B> rows(b, n);
  const std::int64_t m = GatherKernels<B>::select_rows(exec, flags.get(), n, rows.get());
  if (m == 0) {
    b.sync();
    return;
  }
  std::vector<Scratch<std::uint64_t, B>> compact;
  std::uint64_t* cw[kMaxKeyWords] = {};
  const std::uint64_t* order[kMaxKeyWords] = {};
  int obits[kMaxKeyWords] = {};
  for (int w = 0; w <= width; ++w) {
    compact.emplace_back(b, m);
    cw[w] = compact.back().get();
    order[w] = cw[w];
    obits[w] = w < width && bits ? bits[w] : 64;
  }
  SortKernels<B>::gather_words(exec, words, width, rows.get(), m, cw);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + m, detail::HolisticWords{values, rows.get(), cw[width]});
  Scratch<std::int64_t, B> perm(b, m);
  SortKernels<B>::permutation(exec, order, width + 1, obits, m, perm.get());
  Scratch<double, B> sorted(b, m);
  thrust::for_each(b.policy(), i, i + m, detail::HolisticSorted{values, rows.get(), perm.get(), sorted.get()});
  std::vector<Scratch<std::uint64_t, B>> sorted_keys;
  std::uint64_t* sk[kMaxKeyWords] = {};
  for (int w = 0; w < width; ++w) {
    sorted_keys.emplace_back(b, m);
    sk[w] = sorted_keys.back().get();
  }
  SortKernels<B>::gather_words(exec, order, width, perm.get(), m, sk);
  // A run per key; each run's group found by binary search among the groups.
  Scratch<std::uint8_t, B> head(b, m);
  detail::SegmentHead h{};
  for (int w = 0; w < width; ++w) h.words[w] = sk[w];
  h.width = width;
  h.head = head.get();
  thrust::for_each(b.policy(), i, i + m, h);
  Scratch<std::int64_t, B> run_start(b, m + 1);
  const std::int64_t runs = GatherKernels<B>::select_rows(exec, head.get(), m, run_start.get());
  b.to_backend(run_start.get() + runs, &m, sizeof m);
  detail::HolisticRun run{};
  for (int w = 0; w < width; ++w) {
    run.keys[w] = sk[w];
    run.groups[w] = group_keys[w];
  }
  run.width = width;
  run.ngroups = ngroups;
  run.run_start = run_start.get();
  run.sorted = sorted.get();
  for (int k = 0; k < nwhat; ++k) {
    run.what = what[k];
    run.out = out + static_cast<std::int64_t>(k) * ngroups;
    thrust::for_each(b.policy(), i, i + runs, run);
  }
  b.sync();
}

template <class B>
void GroupbyKernels<B>::finalize(const Exec& exec, AggKind op, ElementType value_type, const AggStates& states,
                                 const std::int64_t* sizes, std::int64_t ngroups, void* out, std::uint8_t* out_valid) {
  if (ngroups <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + ngroups, detail::Finalize{op, value_type, states, sizes, out, out_valid});
}

}  // namespace slab::frame::kernels
