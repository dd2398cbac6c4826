#pragma once
/// @file state.hpp
/// @brief groupby's aggregation state (stage 2 of 3: plan, state, output): per group the size and, per aggregated
/// column, the partial states pandas' aggregations need (count, sum, Welford mean/M2 merged by Chan's formula,
/// min, max, first/last with their row order, distinct values for nunique); folding input rows into them, writing
/// them out as partial records (one int64 column per record word) and combining records into a final state.
/// median and quantile keep no partial state: the rows' values are written out as they are (write_values) and
/// meet their group's records at the receiver (combine_values).

#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "frame/hash_table.hpp"
#include "frame/kernels/agg_hd.hpp"
#include "frame/key_words.hpp"
#include "slab/frame/batch.hpp"
#include "slab/frame/groupby.hpp"

namespace slab {
class TaskContext;
}

namespace slab::frame::detail {

constexpr std::uint64_t kNoOrder = std::numeric_limits<std::uint64_t>::max();

template <class V>
std::uint64_t bits(V v) {
  return std::bit_cast<std::uint64_t>(v);
}
template <class V>
V from_bits(std::uint64_t b) {
  return std::bit_cast<V>(b);
}

/// The states of one aggregated column (per group), and how to fold rows and records into them.
struct ColAgg {
  std::size_t col = 0;
  std::string name;
  ElementType type = ElementType::float64;
  bool isf = false;
  std::vector<AggOp> ops;
  bool cnt = false, sum = false, wel = false, mn = false, mx = false, first = false, last = false, nuniq = false;
  /// median/quantile: what each one computes (holistic.hpp: a q, or kMedian), in the order of the ops.
  std::vector<double> holistic;
  /// receiver only: holistic_result[k][g] is holistic[k] of group g.
  std::vector<std::vector<double>> holistic_result;

  std::vector<std::int64_t> count;
  std::vector<std::uint64_t> s, vmin, vmax, fval, lval, ford, lord;  // value bits (double or int64)
  std::vector<double> mean, m2;
  std::unique_ptr<GroupMapN> distinct;  // (gid, value) locally; (key..., value) at the receiver
  std::vector<std::int64_t> nunique;    // receiver only

  void plan() {
    for (AggOp op : ops) {
      switch (op) {
        case AggOp::sum:
          sum = true;
          break;
        case AggOp::mean:
          sum = cnt = true;
          // An int64 sum wraps modulo 2^64: the group's min and max place its true sum (int64_mean), and
          // Welford's mean stands in where even they cannot (values spanning 2^64 / count).
          if (type == ElementType::int64) mn = mx = wel = true;
          break;
        case AggOp::count:
          cnt = true;
          break;
        case AggOp::size:
          break;
        case AggOp::min:
          mn = cnt = true;
          break;
        case AggOp::max:
          mx = cnt = true;
          break;
        case AggOp::std:
        case AggOp::var:
          wel = cnt = true;
          break;
        case AggOp::first:
          first = cnt = true;
          break;
        case AggOp::last:
          last = cnt = true;
          break;
        case AggOp::nunique:
          nuniq = true;
          break;
        case AggOp::median:
        case AggOp::quantile:
          break;  // no partial state: the values travel (holistic is set by the plan)
      }
    }
  }
  /// Drop every group's states (after they were written out).
  void clear() {
    for (auto* v : {&s, &vmin, &vmax, &fval, &lval, &ford, &lord}) std::vector<std::uint64_t>().swap(*v);
    std::vector<std::int64_t>().swap(count);
    std::vector<double>().swap(mean);
    std::vector<double>().swap(m2);
  }
  [[nodiscard]] int record_words() const { return cnt + sum + 2 * wel + mn + mx + 2 * first + 2 * last; }
  void resize(std::size_t g) {
    if (cnt) count.resize(g, 0);
    if (sum) s.resize(g, isf ? bits(0.0) : 0);
    if (wel) {
      mean.resize(g, 0.0);
      m2.resize(g, 0.0);
    }
    if (mn)
      vmin.resize(g,
                  isf ? bits(std::numeric_limits<double>::infinity()) : bits(std::numeric_limits<std::int64_t>::max()));
    if (mx)
      vmax.resize(
          g, isf ? bits(-std::numeric_limits<double>::infinity()) : bits(std::numeric_limits<std::int64_t>::min()));
    if (first) {
      ford.resize(g, kNoOrder);
      fval.resize(g, 0);
    }
    if (last) {
      lord.resize(g, 0);
      lval.resize(g, 0);
    }
  }

  /// a + b; int64 sums wrap modulo 2^64 (as pandas/NumPy and slab's Array sums do), without signed overflow.
  /// The arithmetic of fold and combine is kernels/agg_hd.hpp's, the one source the device's groupby shares.
  template <class V>
  static V add(V a, V b) noexcept {
    return kernels::AggValue<V>::add(a, b);
  }
  /// Fold rows with group ids `gid` and values `v` into the states; ord0 + i is row i's order. kDense: every
  /// gid is >= 0 (no dropped key, no null value), so the loops carry no per-row test.
  template <bool kDense, class V>
  void fold(const V* v, const std::int32_t* gid, std::size_t n, std::uint64_t ord0) {
    auto* acc = reinterpret_cast<V*>(s.data());
    if (wel) {
      // Welford with the running count (the count state doubles as n); the sum rides in the same pass.
      for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t g = gid[i];
        if (!kDense && g < 0) continue;
        kernels::welford_add(mean[g], m2[g], static_cast<double>(++count[g]), static_cast<double>(v[i]));
        if (sum) acc[g] = add(acc[g], v[i]);
      }
    } else if (cnt && sum) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t g = gid[i];
        if (!kDense && g < 0) continue;
        ++count[g];
        acc[g] = add(acc[g], v[i]);
      }
    } else if (cnt) {
      for (std::size_t i = 0; i < n; ++i)
        if (kDense || gid[i] >= 0) ++count[gid[i]];
    } else if (sum) {
      for (std::size_t i = 0; i < n; ++i)
        if (kDense || gid[i] >= 0) acc[gid[i]] = add(acc[gid[i]], v[i]);
    }
    if (mn || mx) {
      auto* lo = reinterpret_cast<V*>(vmin.data());
      auto* hi = reinterpret_cast<V*>(vmax.data());
      for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t g = gid[i];
        if (!kDense && g < 0) continue;
        const V x = v[i];
        if (mn) lo[g] = x < lo[g] ? x : lo[g];
        if (mx) hi[g] = x > hi[g] ? x : hi[g];
      }
    }
    if (first)
      for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t g = gid[i];
        if ((kDense || g >= 0) && ord0 + i < ford[g]) {
          ford[g] = ord0 + i;
          fval[g] = bits(v[i]);
        }
      }
    if (last)
      for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t g = gid[i];
        if ((kDense || g >= 0) && ord0 + i >= lord[g]) {
          lord[g] = ord0 + i;
          lval[g] = bits(v[i]);
        }
      }
    if (nuniq) {
      if (!distinct) distinct = std::make_unique<GroupMapN>(2);
      std::uint64_t key[2];
      for (std::size_t i = 0; i < n; ++i) {
        if (!kDense && gid[i] < 0) continue;
        key[0] = static_cast<std::uint64_t>(gid[i]);
        key[1] = isf ? detail::float_word(static_cast<double>(v[i])) : bits(v[i]);
        distinct->find_or_insert(key);
      }
    }
  }

  void write_record(std::size_t g, std::uint64_t* out) const {
    if (cnt) *out++ = static_cast<std::uint64_t>(count[g]);
    if (sum) *out++ = s[g];
    if (wel) {
      *out++ = bits(mean[g]);
      *out++ = bits(m2[g]);
    }
    if (mn) *out++ = vmin[g];
    if (mx) *out++ = vmax[g];
    if (first) {
      *out++ = ford[g];
      *out++ = fval[g];
    }
    if (last) {
      *out++ = lord[g];
      *out++ = lval[g];
    }
  }

  template <class V>
  void combine_t(std::size_t g, const std::uint64_t* in) {
    std::int64_t nb = 0, na = 0;
    if (cnt) {
      nb = static_cast<std::int64_t>(*in++);
      na = count[g];
      count[g] = na + nb;
    }
    if (sum) {
      s[g] = bits(add(from_bits<V>(s[g]), from_bits<V>(*in)));
      ++in;
    }
    if (wel) {
      const double mb = from_bits<double>(in[0]), m2b = from_bits<double>(in[1]);
      in += 2;
      if (nb > 0) kernels::chan_combine(mean[g], m2[g], na, nb, mb, m2b);
    }
    if (mn) {
      if (from_bits<V>(*in) < from_bits<V>(vmin[g])) vmin[g] = *in;
      ++in;
    }
    if (mx) {
      if (from_bits<V>(*in) > from_bits<V>(vmax[g])) vmax[g] = *in;
      ++in;
    }
    if (first) {
      if (nb > 0 && in[0] < ford[g]) {
        ford[g] = in[0];
        fval[g] = in[1];
      }
      in += 2;
    }
    if (last) {
      if (nb > 0 && (na == 0 || in[0] >= lord[g])) {
        lord[g] = in[0];
        lval[g] = in[1];
      }
      in += 2;
    }
  }
  void combine(std::size_t g, const std::uint64_t* in) {
    if (isf)
      combine_t<double>(g, in);
    else
      combine_t<std::int64_t>(g, in);
  }
};

/// Values of column `c` of `b` as V (double for float64, int64 otherwise), and gid with nulls set to -1.
template <class V>
const V* column_values(const BatchView& b, std::size_t c, ElementType type, std::vector<V>& tmp) {
  const auto n = static_cast<std::size_t>(b.nrows());
  if (type == ElementType::float64) {
    if constexpr (std::is_same_v<V, double>) return b.column<double>(c).data();
  } else if (type == ElementType::int64 || type == ElementType::timestamp) {
    if constexpr (std::is_same_v<V, std::int64_t>) return b.column<std::int64_t>(c).data();
  }
  tmp.resize(n);
  if (type == ElementType::boolean) {
    auto src = b.column<std::uint8_t>(c);
    for (std::size_t i = 0; i < n; ++i) tmp[i] = static_cast<V>(src[i] ? 1 : 0);
  } else if (type == ElementType::string) {
    auto src = b.column<std::int32_t>(c);
    for (std::size_t i = 0; i < n; ++i) tmp[i] = static_cast<V>(src[i]);
  }
  return tmp.data();
}

/// One rank's partial state: the key encoding, a group index (key words -> dense group ids) and per group the
/// size and each aggregated column's states. The same type holds a final state after combine_records.
struct GroupbyState {
  KeyEncoder enc;
  std::vector<ColAgg> aggs;
  bool need_size = false;
  std::unique_ptr<GroupIndex> index;
  std::vector<std::int64_t> size;
  std::int64_t rows_in = 0;
  int rank = 0;
  // Per-batch scratch, kept between batches (no page faults per partition).
  std::vector<std::vector<std::uint64_t>> words;
  std::vector<std::uint8_t> keep;
  std::vector<std::int32_t> gid, g2;
  std::vector<std::size_t> rows;
  std::vector<double> td;
  std::vector<std::int64_t> ti;

  std::vector<std::uint64_t> samples;  ///< keys (width() words each) sampled from written-out groups
  std::int64_t written = 0;            ///< partial records written out
  std::int64_t written_early = 0;      ///< of them, written before the last input partition (out of core)

  /// Approximate bytes of the partial state (hash slots, size, R record words per group, nunique's pairs).
  [[nodiscard]] std::size_t state_bytes(int R) const {
    std::size_t pairs = 0;
    for (const auto& a : aggs)
      if (a.distinct) pairs += a.distinct->size() * 24;
    return index->size() * (static_cast<std::size_t>(R) * 8 + 32) + pairs;
  }
  /// Whether an aggregation counts distinct values (its (group, value) pairs travel as a second record frame).
  [[nodiscard]] bool has_nunique() const {
    for (const auto& a : aggs)
      if (a.nuniq) return true;
    return false;
  }
  /// The aggregations with a median or quantile, in order (their values travel as a third frame).
  [[nodiscard]] std::vector<std::size_t> holistic_aggs() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < aggs.size(); ++i)
      if (!aggs[i].holistic.empty()) out.push_back(i);
    return out;
  }

  void grow() {
    const std::size_t g = index->size();
    size.resize(g, 0);
    for (auto& a : aggs) a.resize(g);
  }

  /// Fold batch `b` (this rank's input partition `part`) into the states.
  void fold(const BatchView& b, std::size_t part);
};

/**
 * @brief The values of the holistic aggregations (holistic_aggs) of batch `b`, just folded into `st` (fold
 * leaves the kept rows' key words in st.words), into output `output` of `ctx`: W int64 key-word columns, then one
 * float64 column per holistic aggregation (NaN where the value is null), for the kept rows with at least one
 * value. Returns the rows written. Not collective.
 */
std::int64_t write_values(const GroupbyState& st, const BatchView& b, int W, TaskContext& ctx, std::size_t output);

/**
 * @brief The holistic results of `fin`'s groups from their values (a batch as write_values writes, routed like
 * the records): per group and holistic aggregation the sorted non-null values give each holistic_result. The
 * scratch (16 bytes a value) is reserved from `ctx`'s memory manager first. Not collective.
 * @throws OutOfMemory naming the values when the scratch cannot be had.
 */
void combine_values(GroupbyState& fin, int W, const BatchView& values, TaskContext& ctx);

/**
 * @brief Write st's groups out as partial records into output 0 of `ctx` (R int64 columns: W key words, size, the
 * states) and, when an aggregation counts distinct values, the distinct pairs into
 * output 1 (W + 2 int64 columns: key words, value word, aggregation index); sample a few keys for range routing and start st afresh, so the partial state never holds more
 * than its budget, whatever the number of groups. Not collective.
 */
void write_partials(GroupbyState& st, int W, int R, std::uint64_t direct, TaskContext& ctx);

/// The final combine: nrec partial records of R words (W key words, size, then each aggregation's states) into
/// `fin`, which gets proto's key encoding and aggregations and fresh states. Not collective.
void combine_records(const GroupbyState& proto, int W, int R, std::uint64_t direct, const std::uint64_t* recs,
                     std::size_t nrec, GroupbyState& fin);

/// nunique: count the distinct pairs (W + 2 words each: key words, value word, aggregation index) per group of
/// `fin` into each nunique aggregation's counts (duplicates from several ranks count once). Not collective.
void count_distinct(GroupbyState& fin, int W, const std::uint64_t* pairs, std::size_t npairs);

}  // namespace slab::frame::detail
