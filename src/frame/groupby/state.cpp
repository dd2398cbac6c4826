#include "frame/groupby/state.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "frame/groupby/holistic.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame::detail {

void GroupbyState::fold(const BatchView& b, std::size_t part) {
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

void write_partials(GroupbyState& st, int W, int R, std::uint64_t direct, TaskContext& ctx) {
  const std::size_t G = st.index->size();
  BatchBuilder bb(ctx, static_cast<std::int64_t>(G), std::vector<ElementType>(R, ElementType::int64), {}, 0);
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
  if (st.has_nunique()) {
    // nunique's distinct (group, value) pairs as (key words..., value word, aggregation index): one pair frame
    // serves every nunique column.
    std::size_t np = 0;
    for (const auto& a : st.aggs)
      if (a.nuniq && a.distinct) np += a.distinct->size();
    BatchBuilder pb(ctx, static_cast<std::int64_t>(np), std::vector<ElementType>(W + 2, ElementType::int64), {}, 1);
    std::vector<std::int64_t*> pc(W + 2);
    for (int c = 0; c < W + 2; ++c) pc[c] = pb.column<std::int64_t>(c).data();
    std::size_t j = 0;
    for (std::size_t i = 0; i < st.aggs.size(); ++i) {
      const ColAgg& a = st.aggs[i];
      if (!a.nuniq || !a.distinct) continue;
      for (std::size_t k = 0; k < a.distinct->size(); ++k, ++j) {
        const std::uint64_t g = a.distinct->keys()[2 * k];
        for (int w = 0; w < W; ++w) pc[w][j] = static_cast<std::int64_t>(st.index->key_word(g, w));
        pc[W][j] = static_cast<std::int64_t>(a.distinct->keys()[2 * k + 1]);
        pc[W + 1][j] = static_cast<std::int64_t>(i);  // which aggregation
      }
    }
  }
  // A few keys per write-out for range routing: spread over the groups in the order they were first seen.
  const std::size_t S = std::min<std::size_t>(G, 256);
  for (std::size_t i = 0; i < S; ++i)
    for (int w = 0; w < W; ++w) st.samples.push_back(st.index->key_word(i * G / S, w));
  st.written += static_cast<std::int64_t>(G);
  st.index = std::make_unique<GroupIndex>(W, direct, 1024);
  std::vector<std::int64_t>().swap(st.size);
  for (auto& a : st.aggs) {
    a.clear();
    a.distinct.reset();
  }
}

std::int64_t write_values(const GroupbyState& st, const BatchView& b, int W, TaskContext& ctx, std::size_t output) {
  const std::vector<std::size_t> hol = st.holistic_aggs();
  std::vector<ElementType> types(static_cast<std::size_t>(W), ElementType::int64);
  types.insert(types.end(), hol.size(), ElementType::float64);
  const auto n = static_cast<std::size_t>(b.nrows());
  // Each holistic column's values and mask, read without a type switch per row.
  struct Source {
    ElementType type;
    const std::uint8_t* valid;
    const void* data;
  };
  std::vector<Source> src;
  for (std::size_t a : hol) {
    const ColAgg& c = st.aggs[a];
    src.push_back({c.type, n ? b.valid(c.col) : nullptr, n ? static_cast<const void*>(b.data(c.col)) : nullptr});
  }
  auto value = [&](const Source& s, std::size_t i) {  // NaN when null
    if (s.valid && !s.valid[i]) return std::numeric_limits<double>::quiet_NaN();
    switch (s.type) {
      case ElementType::float64:
        return static_cast<const double*>(s.data)[i];
      case ElementType::boolean:
        return static_cast<const std::uint8_t*>(s.data)[i] ? 1.0 : 0.0;
      default:  // int64 (the plan takes no other type)
        return static_cast<double>(static_cast<const std::int64_t*>(s.data)[i]);
    }
  };
  // The kept rows with a non-null value, as (batch row, kept row): fold left the kept rows' key words compacted,
  // in row order, in st.words.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> rows;
  if (n > 0) {
    rows.reserve(n);
    std::uint32_t j = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!st.keep[i]) continue;
      bool any = false;
      for (std::size_t h = 0; h < hol.size() && !any; ++h) any = !std::isnan(value(src[h], i));
      if (any) rows.emplace_back(static_cast<std::uint32_t>(i), j);
      ++j;
    }
  }
  BatchBuilder bb(ctx, static_cast<std::int64_t>(rows.size()), types, {}, output);
  for (int w = 0; w < W && !rows.empty(); ++w) {
    std::int64_t* col = bb.column<std::int64_t>(static_cast<std::size_t>(w)).data();
    const std::uint64_t* kw = st.words[static_cast<std::size_t>(w)].data();
    for (std::size_t r = 0; r < rows.size(); ++r) col[r] = static_cast<std::int64_t>(kw[rows[r].second]);
  }
  for (std::size_t h = 0; h < hol.size(); ++h) {
    double* col = bb.column<double>(static_cast<std::size_t>(W) + h).data();
    for (std::size_t r = 0; r < rows.size(); ++r) col[r] = value(src[h], rows[r].first);
  }
  return static_cast<std::int64_t>(rows.size());
}

void combine_values(GroupbyState& fin, int W, const BatchView& values, TaskContext& ctx) {
  const std::vector<std::size_t> hol = fin.holistic_aggs();
  const std::size_t G = fin.index->size();
  const auto n = static_cast<std::size_t>(values.nrows());
  for (std::size_t a : hol) {
    ColAgg& agg = fin.aggs[a];
    agg.holistic_result.assign(agg.holistic.size(), std::vector<double>(G, std::numeric_limits<double>::quiet_NaN()));
  }
  if (n == 0 || G == 0) return;
  // Scratch outside the task's buffers: group ids (4 bytes a row), the sorted values and offsets (8 + 8).
  Reservation room = ctx.memory().reserve("groupby median/quantile values", n * 12 + (G + 1) * 8);
  std::vector<std::int32_t> gid(n);
  {
    std::vector<const std::uint64_t*> wp(static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w)
      wp[static_cast<std::size_t>(w)] =
          reinterpret_cast<const std::uint64_t*>(values.column<std::int64_t>(static_cast<std::size_t>(w)).data());
    fin.index->lookup(wp.data(), n, gid.data());
  }
  std::vector<std::uint64_t> start(G + 1);
  std::vector<double> sorted;
  for (std::size_t h = 0; h < hol.size(); ++h) {
    ColAgg& agg = fin.aggs[hol[h]];
    const double* v = values.column<double>(static_cast<std::size_t>(W) + h).data();
    // Counting sort of the non-null values by group, then each group's values sorted.
    std::fill(start.begin(), start.end(), 0);
    for (std::size_t i = 0; i < n; ++i)
      if (gid[i] >= 0 && v[i] == v[i]) ++start[static_cast<std::size_t>(gid[i]) + 1];
    for (std::size_t g = 0; g < G; ++g) start[g + 1] += start[g];
    sorted.resize(start[G]);
    {
      std::vector<std::uint64_t> at(start.begin(), start.end() - 1);
      for (std::size_t i = 0; i < n; ++i)
        if (gid[i] >= 0 && v[i] == v[i]) sorted[at[static_cast<std::size_t>(gid[i])]++] = v[i];
    }
    for (std::size_t g = 0; g < G; ++g) {
      double* seg = sorted.data() + start[g];
      const std::size_t m = start[g + 1] - start[g];
      // In the IEEE total order (-0.0 before 0.0), as the device sorts: the same bits among equal values.
      std::sort(seg, seg + m, [](double x, double y) { return total_order_word(x) < total_order_word(y); });
      for (std::size_t k = 0; k < agg.holistic.size(); ++k)
        agg.holistic_result[k][g] = holistic_value(seg, m, agg.holistic[k]);
    }
  }
}

void combine_records(const GroupbyState& proto, int W, int R, std::uint64_t direct, const std::uint64_t* recs,
                     std::size_t nrec, GroupbyState& fin) {
  fin.enc = proto.enc;
  fin.aggs.resize(proto.aggs.size());
  for (std::size_t i = 0; i < proto.aggs.size(); ++i) {
    const ColAgg& a = proto.aggs[i];
    ColAgg& f = fin.aggs[i];
    f.col = a.col, f.name = a.name, f.type = a.type, f.isf = a.isf, f.ops = a.ops;
    f.holistic = a.holistic;
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

void count_distinct(GroupbyState& fin, int W, const std::uint64_t* pairs, std::size_t npairs) {
  for (auto& a : fin.aggs)
    if (a.nuniq) a.nunique.assign(fin.index->size(), 0);
  GroupMapN seen(W + 2, npairs + 1);
  std::vector<std::int32_t> g1(1);
  std::vector<const std::uint64_t*> wp(W);
  for (std::size_t j = 0; j < npairs; ++j) {
    const std::uint64_t* rec = &pairs[j * (W + 2)];
    const std::size_t before = seen.size();
    seen.find_or_insert(rec);
    if (seen.size() == before) continue;
    for (int w = 0; w < W; ++w) wp[w] = rec + w;
    fin.index->lookup(wp.data(), 1, g1.data());
    if (g1[0] >= 0) ++fin.aggs[rec[W + 1]].nunique[g1[0]];
  }
}

}  // namespace slab::frame::detail
