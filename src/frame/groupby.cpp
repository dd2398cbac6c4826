// Distributed groupby: local pre-aggregation -> all-to-all of partial states -> final combine.
#include "slab/frame/groupby.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>

#include "frame/hash_table.hpp"
#include "frame/key_words.hpp"
#include "slab/comm/comm.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {

using detail::GroupIndex;
using detail::GroupMapN;
using detail::KeyEncoder;

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
  template <class V>
  static V add(V a, V b) noexcept {
    if constexpr (std::is_integral_v<V>)
      return static_cast<V>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    else
      return a + b;
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
        const double x = static_cast<double>(v[i]);
        const double k = static_cast<double>(++count[g]);
        const double d = x - mean[g];
        mean[g] += d / k;
        m2[g] += d * (x - mean[g]);
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
      if (nb > 0) {
        if (na == 0) {
          mean[g] = mb;
          m2[g] = m2b;
        } else {  // Chan et al.
          const double n = static_cast<double>(na + nb), d = mb - mean[g];
          mean[g] += d * static_cast<double>(nb) / n;
          m2[g] += m2b + d * d * static_cast<double>(na) * static_cast<double>(nb) / n;
        }
      }
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
  std::int64_t written = 0;            ///< partial records written out (out of core)

  /// Approximate bytes of the partial state (hash slots, size, R record words per group).
  [[nodiscard]] std::size_t state_bytes(int R) const { return index->size() * (static_cast<std::size_t>(R) * 8 + 32); }

  void grow() {
    const std::size_t g = index->size();
    size.resize(g, 0);
    for (auto& a : aggs) a.resize(g);
  }

  void fold(const BatchView& b, std::size_t part) {
    const auto n = static_cast<std::size_t>(b.nrows());
    rows_in += static_cast<std::int64_t>(n);
    if (n == 0) return;
    const std::int64_t kept = enc.encode(b, words, keep);
    const bool all_kept = kept == static_cast<std::int64_t>(n);
    gid.resize(n);
    std::vector<const std::uint64_t*> wp;
    if (!all_kept) {
      // Dropped rows must not create groups: assign ids to the kept rows only.
      std::fill(gid.begin(), gid.end(), -1);
      rows.clear();
      for (std::size_t i = 0; i < n; ++i)
        if (keep[i]) rows.push_back(i);
      for (auto& w : words)
        for (std::size_t j = 0; j < rows.size(); ++j) w[j] = w[rows[j]];
      for (auto& w : words) wp.push_back(w.data());
      g2.resize(rows.size());
      index->assign(wp.data(), rows.size(), g2.data());
      for (std::size_t j = 0; j < rows.size(); ++j) gid[rows[j]] = g2[j];
    } else {
      for (auto& w : words) wp.push_back(w.data());
      index->assign(wp.data(), n, gid.data());
    }
    grow();
    if (all_kept)
      for (std::size_t i = 0; i < n; ++i) ++size[gid[i]];
    else
      for (std::size_t i = 0; i < n; ++i)
        if (gid[i] >= 0) ++size[gid[i]];
    const std::uint64_t ord0 = (static_cast<std::uint64_t>(rank) << 52) | (static_cast<std::uint64_t>(part) << 32);
    // Blocks of kBlock rows: each value block is checked for nulls and folded while it is in L1.
    constexpr std::size_t kBlock = KeyEncoder::kBlock;
    std::int32_t bg[kBlock];
    for (auto& a : aggs) {
      const std::uint8_t* valid = b.valid(a.col);
      const double* dv = a.isf ? column_values<double>(b, a.col, a.type, td) : nullptr;
      const std::int64_t* iv = a.isf ? nullptr : column_values<std::int64_t>(b, a.col, a.type, ti);
      const bool strings = a.type == ElementType::string;
      for (std::size_t r0 = 0; r0 < n; r0 += kBlock) {
        const std::size_t m = std::min(kBlock, n - r0);
        // Null values (mask, NaN, string code -1) get gid -1; a block without any takes the dense loops.
        bool nulls = valid != nullptr;
        if (!nulls && a.isf)
          for (std::size_t i = 0; i < m; ++i) nulls |= dv[r0 + i] != dv[r0 + i];
        if (!nulls && strings)
          for (std::size_t i = 0; i < m; ++i) nulls |= iv[r0 + i] < 0;
        const std::int32_t* g = gid.data() + r0;
        if (nulls) {
          for (std::size_t i = 0; i < m; ++i) {
            const std::size_t r = r0 + i;
            const bool null = (valid && !valid[r]) || (a.isf && dv[r] != dv[r]) || (strings && iv[r] < 0);
            bg[i] = null ? -1 : g[i];
          }
          g = bg;
        }
        const bool dense = all_kept && !nulls;
        if (a.isf)
          dense ? a.fold<true>(dv + r0, g, m, ord0 + r0) : a.fold<false>(dv + r0, g, m, ord0 + r0);
        else
          dense ? a.fold<true>(iv + r0, g, m, ord0 + r0) : a.fold<false>(iv + r0, g, m, ord0 + r0);
      }
    }
  }
};

bool key_less(const std::uint64_t* a, const std::uint64_t* b, int w) {
  for (int i = 0; i < w; ++i)
    if (a[i] != b[i]) return a[i] < b[i];
  return false;
}

/// One output column: an aggregation (index into the states; -1: size) and its op.
struct OutCol {
  int agg;
  AggOp op;
};

/// Write st's groups out as partial records (one int64 column per record word: W key words, size, the
/// states), sample a few keys for range routing, and start st afresh: the partial state never holds more
/// than a budget, whatever the number of groups.
void write_partials(GroupbyState& st, int W, int R, std::uint64_t direct, TaskContext& ctx) {
  const std::size_t G = st.index->size();
  BatchBuilder bb(ctx, static_cast<std::int64_t>(G), std::vector<ElementType>(R, ElementType::int64), {});
  std::vector<std::int64_t*> col(R);
  for (int c = 0; c < R; ++c) col[c] = bb.column<std::int64_t>(c).data();
  std::vector<std::uint64_t> rec(R);
  for (std::size_t g = 0; g < G; ++g) {
    for (int w = 0; w < W; ++w) rec[w] = st.index->key_word(g, w);
    rec[W] = static_cast<std::uint64_t>(st.size[g]);
    std::uint64_t* p = rec.data() + W + 1;
    for (const auto& a : st.aggs) {
      a.write_record(g, p);
      p += a.record_words();
    }
    for (int c = 0; c < R; ++c) col[c][g] = static_cast<std::int64_t>(rec[c]);
  }
  const std::size_t S = std::min<std::size_t>(G, 32);
  for (std::size_t i = 0; i < S; ++i)
    for (int w = 0; w < W; ++w) st.samples.push_back(st.index->key_word(i * G / S, w));
  st.written += static_cast<std::int64_t>(G);
  st.index = std::make_unique<GroupIndex>(W, direct, 1024);
  std::vector<std::int64_t>().swap(st.size);
  for (auto& a : st.aggs) a.clear();
}

/// The final combine: nrec partial records of R words (W key words, size, then each aggregation's states)
/// into `fin`, which gets proto's key encoding and aggregations and fresh states.
void combine_records(const GroupbyState& proto, int W, int R, std::uint64_t direct, const std::uint64_t* recs,
                     std::size_t nrec, GroupbyState& fin) {
  fin.enc = proto.enc;
  fin.aggs.resize(proto.aggs.size());
  for (std::size_t i = 0; i < proto.aggs.size(); ++i) {
    const ColAgg& a = proto.aggs[i];
    ColAgg& f = fin.aggs[i];
    f.col = a.col, f.name = a.name, f.type = a.type, f.isf = a.isf, f.ops = a.ops;
    f.plan();
  }
  fin.index = std::make_unique<GroupIndex>(W, direct, std::max<std::size_t>(nrec, 16));
  {
    std::vector<const std::uint64_t*> wp(W);
    std::vector<std::int32_t> gids(nrec);
    // Assign ids record by record (keys are strided within records).
    std::vector<std::vector<std::uint64_t>> kw(W, std::vector<std::uint64_t>(nrec));
    for (std::size_t i = 0; i < nrec; ++i)
      for (int w = 0; w < W; ++w) kw[w][i] = recs[i * R + w];
    for (int w = 0; w < W; ++w) wp[w] = kw[w].data();
    fin.index->assign(wp.data(), nrec, gids.data());
    fin.grow();
    for (std::size_t i = 0; i < nrec; ++i) {
      const std::uint64_t* rec = &recs[i * R];
      const std::size_t g = gids[i];
      fin.size[g] += static_cast<std::int64_t>(rec[W]);
      rec += W + 1;
      for (auto& a : fin.aggs) {
        a.combine(g, rec);
        rec += a.record_words();
      }
    }
  }
}

/// The result batch of fin's groups (sorted by key when `sort`) into `storage`.
void write_result(const GroupbyState& fin, const std::vector<OutCol>& out_cols, const Schema& out_schema, bool sort,
                  std::vector<std::byte>& storage) {
  const KeyEncoder& enc = fin.enc;
  const int W = enc.width();
  const std::size_t NG = fin.index->size();
  std::vector<std::size_t> order(NG);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::uint64_t> fkeys(NG * W);
  for (std::size_t g = 0; g < NG; ++g)
    for (int w = 0; w < W; ++w) fkeys[g * W + w] = fin.index->key_word(g, w);
  if (sort)
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return key_less(&fkeys[a * W], &fkeys[b * W], W); });

  const std::vector<ElementType> types = types_of(out_schema);
  std::vector<bool> has_valid(types.size(), false);
  const std::size_t nk = enc.cols.size();
  for (std::size_t k = 0; k < nk; ++k) has_valid[k] = !enc.dropna;
  for (std::size_t j = 0; j < out_cols.size(); ++j) {
    const OutCol& oc = out_cols[j];
    if (oc.agg < 0) continue;
    const ColAgg& a = fin.aggs[oc.agg];
    const bool nullable = oc.op == AggOp::min || oc.op == AggOp::max || oc.op == AggOp::first || oc.op == AggOp::last;
    has_valid[nk + j] = nullable && !a.isf;
  }
  {
    BatchBuilder bb(storage, static_cast<std::int64_t>(NG), types, has_valid);
    std::vector<std::uint64_t> words(enc.nwords);
    for (std::size_t i = 0; i < NG; ++i) {
      enc.unpack(&fkeys[order[i] * W], words.data());
      for (std::size_t k = 0; k < nk; ++k) {
        const std::uint64_t w = words[enc.value_word(k)];
        const bool isnull = !enc.dropna && words[enc.value_word(k) - 1];
        if (!enc.dropna) bb.valid(k)[i] = isnull ? 0 : 1;
        switch (enc.types[k]) {
          case ElementType::int64:
          case ElementType::timestamp:
            bb.column<std::int64_t>(k)[i] = static_cast<std::int64_t>(w ^ detail::kSign);
            break;
          case ElementType::float64:
            bb.column<double>(k)[i] = isnull ? std::numeric_limits<double>::quiet_NaN() : detail::word_float(w);
            break;
          case ElementType::boolean:
            bb.column<std::uint8_t>(k)[i] = static_cast<std::uint8_t>(w);
            break;
          case ElementType::string:
            bb.column<std::int32_t>(k)[i] = isnull ? -1 : static_cast<std::int32_t>(w);
            break;
          default:  // not a column type: a Schema holds none
            break;
        }
      }
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t j = 0; j < out_cols.size(); ++j) {
      const std::size_t c = nk + j;
      const OutCol& oc = out_cols[j];
      if (oc.agg < 0) {
        auto out = bb.column<std::int64_t>(c);
        for (std::size_t i = 0; i < NG; ++i) out[i] = fin.size[order[i]];
        continue;
      }
      const ColAgg& a = fin.aggs[oc.agg];
      std::uint8_t* valid = bb.valid(c);
      auto put_value = [&](std::size_t i, std::uint64_t b, bool present) {
        // min/max/first/last in the value type
        if (valid) valid[i] = present ? 1 : 0;
        switch (a.type) {
          case ElementType::float64:
            bb.column<double>(c)[i] = present ? from_bits<double>(b) : nan;
            break;
          case ElementType::int64:
          case ElementType::timestamp:
            bb.column<std::int64_t>(c)[i] = present ? from_bits<std::int64_t>(b) : 0;
            break;
          case ElementType::boolean:
            bb.column<std::uint8_t>(c)[i] = present && from_bits<std::int64_t>(b) ? 1 : 0;
            break;
          case ElementType::string:
            bb.column<std::int32_t>(c)[i] = present ? static_cast<std::int32_t>(from_bits<std::int64_t>(b)) : -1;
            break;
          default:  // not a column type: a Schema holds none
            break;
        }
      };
      for (std::size_t i = 0; i < NG; ++i) {
        const std::size_t g = order[i];
        const std::int64_t n = a.cnt ? a.count[g] : 0;
        switch (oc.op) {
          case AggOp::count:
            bb.column<std::int64_t>(c)[i] = n;
            break;
          case AggOp::nunique:
            bb.column<std::int64_t>(c)[i] = a.nunique.empty() ? 0 : a.nunique[g];
            break;
          case AggOp::sum:
            if (a.isf)
              bb.column<double>(c)[i] = from_bits<double>(a.s[g]);
            else
              bb.column<std::int64_t>(c)[i] = from_bits<std::int64_t>(a.s[g]);
            break;
          case AggOp::mean: {
            const double s = a.isf ? from_bits<double>(a.s[g]) : static_cast<double>(from_bits<std::int64_t>(a.s[g]));
            bb.column<double>(c)[i] = n > 0 ? s / static_cast<double>(n) : nan;
            break;
          }
          case AggOp::var:
          case AggOp::std: {
            const double v = n > 1 ? a.m2[g] / static_cast<double>(n - 1) : nan;
            bb.column<double>(c)[i] = oc.op == AggOp::std ? std::sqrt(v) : v;
            break;
          }
          case AggOp::min:
            put_value(i, a.vmin[g], n > 0);
            break;
          case AggOp::max:
            put_value(i, a.vmax[g], n > 0);
            break;
          case AggOp::first:
            put_value(i, a.fval[g], n > 0);
            break;
          case AggOp::last:
            put_value(i, a.lval[g], n > 0);
            break;
          case AggOp::size:
            break;
        }
      }
    }
  }
}

/// The out-of-core path: every rank writes the rest of its partial state out too, the partial records go
/// through the streaming shuffle (range-routed by sampled splitters when sorted, so partition order is key
/// order, else hashed), and each shuffled partition is combined on its own into one spillable result
/// partition. Collective.
Frame groupby_out_of_core(Engine& engine, const std::shared_ptr<GroupbyState>& st, std::vector<Chunk> partials, int W,
                          int R, std::uint64_t direct, const std::vector<OutCol>& out_cols, const Schema& out_schema,
                          const GroupbyOptions& options) {
  Comm& comm = engine.comm();
  const int nranks = comm.size();
  partials.push_back(
      engine.tasks().submit("groupby-local", {}, [=](TaskContext& ctx) { write_partials(*st, W, R, direct, ctx); }));
  engine.tasks().persist({partials.back()});
  std::vector<Field> fields;
  for (int c = 0; c < R; ++c) fields.push_back({"w" + std::to_string(c), ElementType::int64});
  Frame partial(engine, Schema(fields), std::move(partials));
  const int nparts = choose_nparts(partial, 1);
  const bool sort = options.sort;
  std::vector<std::uint64_t> split;  // nranks * nparts - 1 keys of W words
  if (sort) {
    std::vector<std::uint64_t> all;
    comm.allgatherv(std::span<const std::uint64_t>(st->samples), all);
    const std::size_t m = all.size() / W, B = static_cast<std::size_t>(nranks) * nparts;
    std::vector<std::size_t> so(m);
    std::iota(so.begin(), so.end(), 0);
    std::sort(so.begin(), so.end(),
              [&](std::size_t a, std::size_t b) { return key_less(&all[a * W], &all[b * W], W); });
    if (m > 0)
      for (std::size_t b = 1; b < B; ++b) {
        const std::size_t i = so[std::min(m - 1, b * m / B)];
        split.insert(split.end(), &all[i * W], &all[i * W] + W);
      }
  }
  const auto nbuckets = static_cast<std::uint64_t>(nranks) * static_cast<std::uint64_t>(nparts);
  RouteFn route = [W, sort, split, nbuckets](const BatchView& b, std::vector<std::uint32_t>& bucket) {
    const auto n = static_cast<std::size_t>(b.nrows());
    bucket.resize(n);
    if (n == 0) return;
    std::vector<const std::int64_t*> kc(W);
    for (int w = 0; w < W; ++w) kc[w] = b.column<std::int64_t>(w).data();
    std::vector<std::uint64_t> key(W);
    const std::size_t ns = split.size() / W;
    for (std::size_t i = 0; i < n; ++i) {
      for (int w = 0; w < W; ++w) key[w] = static_cast<std::uint64_t>(kc[w][i]);
      if (sort) {
        std::size_t lo = 0, hi = ns;  // number of splitters <= key
        while (lo < hi) {
          const std::size_t mid = (lo + hi) / 2;
          if (!key_less(key.data(), &split[mid * W], W))
            lo = mid + 1;
          else
            hi = mid;
        }
        bucket[i] = static_cast<std::uint32_t>(lo);
      } else {
        const std::uint64_t h = W == 1 ? detail::route_hash(key[0]) : detail::hash_words(key.data(), W);
        bucket[i] = static_cast<std::uint32_t>((h >> 16) % nbuckets);
      }
    }
  };
  Frame shuffled = shuffle_routed(partial, nparts, std::move(route), "groupby-shuffle");
  std::vector<Chunk> outs;
  for (const Chunk& part : shuffled.partitions())
    outs.push_back(engine.tasks().submit("groupby-combine", {part}, [=](TaskContext& ctx) {
      const BatchView b(ctx.input(0));
      const auto n = static_cast<std::size_t>(b.nrows());
      std::vector<std::uint64_t> recs(n * R);
      for (int c = 0; c < R; ++c) {
        const std::int64_t* v = n ? b.column<std::int64_t>(c).data() : nullptr;
        for (std::size_t i = 0; i < n; ++i) recs[i * R + c] = static_cast<std::uint64_t>(v[i]);
      }
      GroupbyState fin;
      combine_records(*st, W, R, direct, recs.data(), n, fin);
      std::vector<std::uint64_t>().swap(recs);
      std::vector<std::byte> storage;
      write_result(fin, out_cols, out_schema, sort, storage);
      auto dst = ctx.output(storage.size());
      std::memcpy(dst.data(), storage.data(), storage.size());
    }));
  if (options.stats) *options.stats = GroupbyStats{st->rows_in, st->written, st->written, 0, 0, st->written};
  return Frame(engine, out_schema, std::move(outs));
}

}  // namespace

const char* to_string(AggOp op) noexcept {
  switch (op) {
    case AggOp::sum:
      return "sum";
    case AggOp::mean:
      return "mean";
    case AggOp::count:
      return "count";
    case AggOp::size:
      return "size";
    case AggOp::min:
      return "min";
    case AggOp::max:
      return "max";
    case AggOp::std:
      return "std";
    case AggOp::var:
      return "var";
    case AggOp::first:
      return "first";
    case AggOp::last:
      return "last";
    case AggOp::nunique:
      return "nunique";
  }
  return "?";
}

AggOp parse_agg_op(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(AggOp::nunique); ++i)
    if (name == to_string(static_cast<AggOp>(i))) return static_cast<AggOp>(i);
  SLAB_FAIL(InvalidArgument, "unknown aggregation '" + std::string(name) +
                                 "' (sum, mean, count, size, min, max, std, var, first, last, nunique)");
}

Frame groupby(const Frame& frame, const std::vector<std::string>& keys, const std::vector<Aggregation>& aggregations,
              const GroupbyOptions& options) {
  // Argument checks: the schema is the same on every rank, so every rank throws together.
  const Schema& schema = frame.schema();
  SLAB_EXPECTS(!keys.empty(), InvalidArgument, "groupby: no key columns");
  auto st = std::make_shared<GroupbyState>();
  KeyEncoder& enc = st->enc;
  enc.dropna = options.dropna;
  for (const auto& k : keys) {
    const std::size_t c = schema.index_of(k);
    SLAB_EXPECTS(std::find(enc.cols.begin(), enc.cols.end(), c) == enc.cols.end(), InvalidArgument,
                 "groupby: key '" + k + "' given twice");
    enc.cols.push_back(c);
    enc.types.push_back(schema.type(c));
    enc.card.push_back(schema.type(c) == ElementType::boolean ? 2
                       : schema.type(c) == ElementType::string
                           ? std::max<std::uint64_t>(1, schema.dictionary(c) ? schema.dictionary(c)->size() : 0)
                           : 0);
  }
  enc.init();
  std::vector<Field> out_fields;
  std::vector<Dictionary> out_dicts;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    out_fields.push_back(schema.field(enc.cols[k]));
    out_dicts.push_back(schema.dictionary(enc.cols[k]));
  }
  std::vector<OutCol> out_cols;
  for (const auto& a : aggregations) {
    const std::size_t c = schema.index_of(a.column);
    SLAB_EXPECTS(!a.ops.empty(), InvalidArgument, "groupby: no aggregation for column '" + a.column + "'");
    SLAB_EXPECTS(std::find(enc.cols.begin(), enc.cols.end(), c) == enc.cols.end(), InvalidArgument,
                 "groupby: column '" + a.column + "' is a key and cannot be aggregated");
    ColAgg ca;
    ca.col = c;
    ca.name = a.column;
    ca.type = schema.type(c);
    ca.isf = ca.type == ElementType::float64;
    for (AggOp op : a.ops) {
      if (op == AggOp::size) {
        st->need_size = true;
        out_cols.push_back({-1, op});
        out_fields.push_back({"size", ElementType::int64});
        out_dicts.push_back(nullptr);
        continue;
      }
      const bool numeric_op = op == AggOp::sum || op == AggOp::mean || op == AggOp::std || op == AggOp::var;
      SLAB_EXPECTS(
          !(numeric_op && (ca.type == ElementType::string || ca.type == ElementType::timestamp)) &&
              !(op != AggOp::sum && op != AggOp::mean && numeric_op && ca.type == ElementType::boolean && false),
          TypeError,
          std::string("groupby: ") + to_string(op) + " of " + frame::to_string(ca.type) + " column '" + a.column +
              "' is not supported");
      ca.ops.push_back(op);
      out_cols.push_back({static_cast<int>(st->aggs.size()), op});
      ElementType t = ElementType::float64;
      Dictionary d;
      switch (op) {
        case AggOp::count:
        case AggOp::nunique:
          t = ElementType::int64;
          break;
        case AggOp::sum:
          t = ca.isf ? ElementType::float64 : ElementType::int64;
          break;
        case AggOp::min:
        case AggOp::max:
        case AggOp::first:
        case AggOp::last:
          t = ca.type;
          d = schema.dictionary(c);
          break;
        default:
          break;
      }
      out_fields.push_back({a.column + "_" + to_string(op), t});
      out_dicts.push_back(d);
    }
    ca.plan();
    st->aggs.push_back(std::move(ca));
  }
  Schema out_schema(out_fields, out_dicts);  // throws on duplicate output names (every rank)

  Engine& engine = frame.engine();
  Comm& comm = engine.comm();
  const int nranks = comm.size();
  st->rank = comm.rank();
  SLAB_EXPECTS(nranks <= 4096 && frame.num_partitions() < (1u << 20), InvalidArgument,
               "groupby: more than 4096 ranks or 2^20 partitions per rank");

  // 1. Packing ranges: static for bool/string keys; one pass (min/max) when an int/float key shares the
  //    key tuple with others. A single key needs no packing.
  if (enc.nwords == 1 && !enc.static_ranges()) {
    enc.set_unpacked();
  } else {
    std::vector<std::uint64_t> mins(enc.nwords, std::numeric_limits<std::uint64_t>::max()), maxs(enc.nwords, 0);
    if (enc.static_ranges()) {
      enc.update_ranges(BatchView(), mins, maxs);
    } else {
      std::vector<Chunk> tasks;
      for (const auto& p : frame.partitions())
        tasks.push_back(engine.tasks().submit("groupby-ranges", {p}, [st, &mins, &maxs](TaskContext& ctx) {
          st->enc.update_ranges(BatchView(ctx.input(0)), mins, maxs);
        }));
      engine.tasks().persist(tasks);
      comm.allreduce(std::span<std::uint64_t>(mins), ReduceOp::min);
      comm.allreduce(std::span<std::uint64_t>(maxs), ReduceOp::max);
    }
    enc.set_ranges(mins, maxs);
  }
  const int W = enc.width();
  const std::uint64_t direct = enc.packed && enc.range <= (1u << 21) ? enc.range : 0;
  st->index = std::make_unique<GroupIndex>(W, direct, 1024);
  int R = W + 1;  // words per partial record: key words, size, the aggregations' states
  bool can_write_out = true;
  for (const auto& a : st->aggs) {
    R += a.record_words();
    can_write_out = can_write_out && !a.nuniq;  // nunique's distinct sets stay in memory
  }
  const std::uint64_t budget = std::max<std::uint64_t>(engine.memory().config().device_limit / 8, 1u << 16);

  // 2. Local pre-aggregation, one partition at a time into one partial state per rank. A state that grows
  //    past the budget (many distinct keys) is written out as a spillable chunk of partial records.
  std::vector<Chunk> partials;
  {
    const auto& parts = frame.partitions();
    const std::vector<ElementType> rec_types(R, ElementType::int64);
    for (std::size_t p = 0; p < parts.size(); ++p)
      partials.push_back(engine.tasks().submit("groupby-local", {parts[p]}, [=](TaskContext& ctx) {
        st->fold(BatchView(ctx.input(0)), p);
        if (can_write_out && st->state_bytes(R) > budget)
          write_partials(*st, W, R, direct, ctx);
        else
          BatchBuilder(ctx, 0, rec_types, {});
      }));
    engine.tasks().persist(partials);
  }
  if (comm.allreduce(st->written, ReduceOp::max) > 0)
    return groupby_out_of_core(engine, st, std::move(partials), W, R, direct, out_cols, out_schema, options);
  partials.clear();

  // 3. Route partial records: range-partitioned (sort) or hashed.
  const std::size_t G = st->index->size();
  std::vector<std::uint64_t> lkeys(G * W);
  for (std::size_t g = 0; g < G; ++g)
    for (int w = 0; w < W; ++w) lkeys[g * W + w] = st->index->key_word(g, w);
  std::vector<std::uint64_t> splitters;  // (nranks-1) * W
  if (options.sort && nranks > 1) {
    std::vector<std::size_t> order(G);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return key_less(&lkeys[a * W], &lkeys[b * W], W); });
    const std::size_t S = std::min<std::size_t>(G, 64);
    std::vector<std::uint64_t> sample;
    for (std::size_t i = 0; i < S; ++i) {
      const std::size_t g = order[(2 * i + 1) * G / (2 * S)];
      sample.insert(sample.end(), &lkeys[g * W], &lkeys[g * W] + W);
    }
    std::vector<std::uint64_t> all;
    comm.allgatherv(std::span<const std::uint64_t>(sample), all);
    const std::size_t m = all.size() / W;
    std::vector<std::size_t> so(m);
    std::iota(so.begin(), so.end(), 0);
    std::sort(so.begin(), so.end(),
              [&](std::size_t a, std::size_t b) { return key_less(&all[a * W], &all[b * W], W); });
    if (m > 0)
      for (int r = 1; r < nranks; ++r) {
        const std::size_t i = so[std::min(m - 1, r * m / nranks)];
        splitters.insert(splitters.end(), &all[i * W], &all[i * W] + W);
      }
  }
  auto dest_of = [&](const std::uint64_t* key) -> int {
    if (nranks == 1) return 0;
    if (options.sort) {
      if (splitters.empty()) return 0;
      int lo = 0, hi = nranks - 1;  // number of splitters <= key
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (!key_less(key, &splitters[mid * W], W))
          lo = mid + 1;
        else
          hi = mid;
      }
      return lo;
    }
    const std::uint64_t h = W == 1 ? detail::route_hash(key[0]) : detail::hash_words(key, W);
    return static_cast<int>((h >> 16) % static_cast<std::uint64_t>(nranks));
  };

  std::vector<int> dest(G);
  std::vector<std::size_t> counts(nranks, 0);
  for (std::size_t g = 0; g < G; ++g) {
    dest[g] = dest_of(&lkeys[g * W]);
    counts[dest[g]] += R;
  }
  std::vector<std::size_t> off(nranks, 0);
  for (int r = 1; r < nranks; ++r) off[r] = off[r - 1] + counts[r - 1];
  std::vector<std::uint64_t> send(G * R);
  for (std::size_t g = 0; g < G; ++g) {
    std::uint64_t* rec = &send[off[dest[g]]];
    off[dest[g]] += R;
    std::memcpy(rec, &lkeys[g * W], W * sizeof(std::uint64_t));
    rec[W] = static_cast<std::uint64_t>(st->size[g]);
    rec += W + 1;
    for (const auto& a : st->aggs) {
      a.write_record(g, rec);
      rec += a.record_words();
    }
  }
  std::vector<std::uint64_t> recv;
  std::vector<std::size_t> rcounts;
  comm.alltoallv(std::span<const std::uint64_t>(send), std::span<const std::size_t>(counts), recv, rcounts);
  std::vector<std::uint64_t>().swap(send);

  // 4. Final combine.
  GroupbyState fin;
  const std::size_t nrec = recv.size() / R;
  combine_records(*st, W, R, direct, recv.data(), nrec, fin);
  std::vector<std::uint64_t>().swap(recv);

  // 5. nunique: ship the distinct (key, value) pairs to the key's owner and count them there.
  for (std::size_t i = 0; i < st->aggs.size(); ++i) {
    ColAgg& a = st->aggs[i];
    if (!a.nuniq) continue;
    const std::size_t np = a.distinct ? a.distinct->size() : 0;
    std::vector<std::size_t> pc(nranks, 0), po(nranks, 0);
    for (std::size_t j = 0; j < np; ++j) pc[dest[a.distinct->keys()[2 * j]]] += W + 1;
    for (int r = 1; r < nranks; ++r) po[r] = po[r - 1] + pc[r - 1];
    std::vector<std::uint64_t> ps(np * (W + 1));
    for (std::size_t j = 0; j < np; ++j) {
      const std::uint64_t g = a.distinct->keys()[2 * j];
      std::uint64_t* rec = &ps[po[dest[g]]];
      po[dest[g]] += W + 1;
      std::memcpy(rec, &lkeys[g * W], W * sizeof(std::uint64_t));
      rec[W] = a.distinct->keys()[2 * j + 1];
    }
    a.distinct.reset();
    std::vector<std::uint64_t> pr;
    std::vector<std::size_t> prc;
    comm.alltoallv(std::span<const std::uint64_t>(ps), std::span<const std::size_t>(pc), pr, prc);
    ColAgg& f = fin.aggs[i];
    f.nunique.assign(fin.index->size(), 0);
    GroupMapN seen(W + 1, pr.size() / (W + 1) + 1);
    std::vector<std::int32_t> g1(1);
    std::vector<std::uint64_t> one(W);
    std::vector<const std::uint64_t*> wp(W);
    for (std::size_t j = 0; j < pr.size() / (W + 1); ++j) {
      const std::uint64_t* rec = &pr[j * (W + 1)];
      const std::size_t before = seen.size();
      seen.find_or_insert(rec);
      if (seen.size() == before) continue;
      for (int w = 0; w < W; ++w) wp[w] = rec + w;
      fin.index->lookup(wp.data(), 1, g1.data());
      if (g1[0] >= 0) ++f.nunique[g1[0]];
    }
  }

  // 6. Order and write the result batch.
  auto storage = std::make_shared<std::vector<std::byte>>();
  write_result(fin, out_cols, out_schema, options.sort, *storage);
  const std::size_t NG = fin.index->size();
  if (options.stats) {
    *options.stats = GroupbyStats{st->rows_in,
                                  static_cast<std::int64_t>(G),
                                  static_cast<std::int64_t>(G),
                                  static_cast<std::int64_t>(nrec),
                                  static_cast<std::int64_t>(NG),
                                  0};
  }
  Chunk out = engine.tasks().submit("groupby-result", {}, [storage](TaskContext& ctx) {
    auto dst = ctx.output(storage->size());
    std::memcpy(dst.data(), storage->data(), storage->size());
    std::vector<std::byte>().swap(*storage);
  });
  return Frame(engine, out_schema, {out}, {static_cast<std::int64_t>(NG)});
}

}  // namespace slab::frame
