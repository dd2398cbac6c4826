#include "frame/groupby/device_path.hpp"

#include <algorithm>
#include <memory>

#include "frame/device_paths.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/groupby.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_layout.hpp"
#include "frame/kernels/partition.hpp"
#include "frame/partitioner.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame::detail {

namespace {

static_assert(static_cast<int>(kernels::AggKind::nunique) == static_cast<int>(AggOp::nunique) &&
              static_cast<int>(kernels::AggKind::last) == static_cast<int>(AggOp::last));

/// R columns of `cap` words each in one scratch block: a record batch's layout, column-major.
struct RecordColumns {
  slab::detail::ScratchBytes block;
  std::int64_t cap;
  RecordColumns(const kernels::Exec& exec, int R, std::int64_t cap)
      : block(exec, static_cast<std::size_t>(R) * static_cast<std::size_t>(std::max<std::int64_t>(cap, 1)) * 8),
        cap(std::max<std::int64_t>(cap, 1)) {}
  [[nodiscard]] std::uint64_t* column(int c) const { return static_cast<std::uint64_t*>(block.get()) + c * cap; }
};

/// The states of aggregation `a` in record columns col(0), col(1), ... from `first` on (write_record's order).
template <class Col>
kernels::AggStates states_at(const ColAgg& a, Col col, int first) {
  kernels::AggStates s;
  int c = first;
  if (a.cnt) s.count = reinterpret_cast<std::int64_t*>(col(c++));
  if (a.sum) s.sum = col(c++);
  if (a.wel) {
    s.mean = reinterpret_cast<double*>(col(c++));
    s.m2 = reinterpret_cast<double*>(col(c++));
  }
  if (a.mn) s.min = col(c++);
  if (a.mx) s.max = col(c++);
  if (a.first) {
    s.first_order = col(c++);
    s.first_value = col(c++);
  }
  if (a.last) {
    s.last_order = col(c++);
    s.last_value = col(c++);
  }
  return s;
}

/// Every aggregation's states over record columns (W key words and the size first).
template <class Col>
std::vector<kernels::AggColumn> agg_columns(const GroupbyPlan& plan, Col col, const BatchView* in) {
  std::vector<kernels::AggColumn> out;
  int c = plan.W + 1;
  for (const ColAgg& a : plan.proto.aggs) {
    kernels::AggColumn k;
    k.values = in ? column_view(*in, a.col) : kernels::ColumnView{a.type, nullptr, nullptr};
    k.out = states_at(a, col, c);
    c += a.record_words();
    out.push_back(k);
  }
  return out;
}

/// Copy G rows of the R scratch columns into a record batch (output `output`).
[[maybe_unused]] void write_records(TaskContext& ctx, const RecordColumns& cols, int R, std::int64_t G,
                                    std::size_t output) {
  BatchBuilder b(ctx, G, std::vector<ElementType>(static_cast<std::size_t>(R), ElementType::int64), {}, output);
  for (int c = 0; c < R && G > 0; ++c)
    slab::copy(b.data(static_cast<std::size_t>(c)), cols.column(c), static_cast<std::size_t>(G) * 8, ctx.execution());
}

/// nunique's distinct (group, value) pairs of a partition, every nunique aggregation's after the other, into
/// output 1 (W + 2 int64 columns: key words, value word, aggregation index), as the host's partial state writes
/// them out.
template <class B>
void write_pairs(TaskContext& ctx, const kernels::Exec& exec, const GroupbyPlan& plan, const BatchView& in,
                 const std::uint64_t* const* words, const int* bits, const std::uint8_t* keep) {
  const int W = plan.W;
  const std::int64_t n = in.nrows();
  std::int64_t nuniq = 0;
  for (const ColAgg& a : plan.proto.aggs) nuniq += a.nuniq ? 1 : 0;
  RecordColumns pairs(exec, W + 2, n * nuniq);
  std::int64_t at = 0;
  for (std::size_t k = 0; k < plan.proto.aggs.size(); ++k) {
    const ColAgg& a = plan.proto.aggs[k];
    if (!a.nuniq) continue;
    std::vector<std::uint64_t*> out(static_cast<std::size_t>(W) + 2);
    for (int c = 0; c < W + 2; ++c) out[static_cast<std::size_t>(c)] = pairs.column(c) + at;
    at += kernels::GroupbyKernels<B>::distinct_pairs(exec, words, W, bits, n, keep, column_view(in, a.col), k,
                                                     out.data());
  }
  write_records(ctx, pairs, W + 2, at, 1);
}

/// median/quantile's values of a partition into output `output` (W int64 key-word columns, then one float64
/// column per holistic aggregation, NaN where null), the kept rows with a value: the host's write_values.
/// Returns the rows written.
template <class B>
std::int64_t write_values(TaskContext& ctx, const kernels::Exec& exec, const GroupbyPlan& plan, const BatchView& in,
                          const std::uint64_t* const* words, const std::uint8_t* keep, std::size_t output) {
  const int W = plan.W;
  const std::int64_t n = in.nrows();
  const std::vector<std::size_t> hol = plan.proto.holistic_aggs();
  const auto nh = static_cast<int>(hol.size());
  RecordColumns cols(exec, W + nh, n);
  std::vector<std::uint64_t*> out_words;
  std::vector<double*> out_values;
  std::vector<kernels::ColumnView> values;
  for (int w = 0; w < W; ++w) out_words.push_back(cols.column(w));
  for (int h = 0; h < nh; ++h) {
    out_values.push_back(reinterpret_cast<double*>(cols.column(W + h)));
    values.push_back(column_view(in, plan.proto.aggs[hol[static_cast<std::size_t>(h)]].col));
  }
  const std::int64_t m = n > 0 ? kernels::GroupbyKernels<B>::holistic_rows(exec, words, W, n, keep, values.data(), nh,
                                                                           out_words.data(), out_values.data())
                               : 0;
  std::vector<ElementType> types(static_cast<std::size_t>(W), ElementType::int64);
  types.insert(types.end(), hol.size(), ElementType::float64);
  BatchBuilder b(ctx, m, types, {}, output);
  for (int c = 0; c < W + nh && m > 0; ++c)
    slab::copy(b.data(static_cast<std::size_t>(c)), cols.column(c), static_cast<std::size_t>(m) * 8, ctx.execution());
  return m;
}

template <class B>
std::int64_t aggregate_on(TaskContext& ctx, const kernels::Exec& exec, const GroupbyPlan& plan, const BatchView& in,
                          std::size_t part, int rank, std::vector<std::uint64_t>& samples, std::int64_t& value_rows) {
  const bool holistic = !plan.proto.holistic_aggs().empty();
  const std::size_t values_out = plan.proto.has_nunique() ? 2 : 1;
  const KeyEncoder& enc = plan.proto.enc;
  const int W = plan.W, R = plan.R;
  const std::int64_t n = in.nrows();
  RecordColumns recs(exec, R, n);
  std::int64_t G = 0;
  if (n > 0) {
    // Key words (W per row) and the keep flags.
    slab::detail::ScratchBytes word_block(exec, static_cast<std::size_t>(W) * static_cast<std::size_t>(n) * 8);
    slab::detail::ScratchBytes keep(exec, static_cast<std::size_t>(n));
    std::vector<std::uint64_t*> words(static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w)
      words[static_cast<std::size_t>(w)] = static_cast<std::uint64_t*>(word_block.get()) + w * n;
    std::vector<kernels::KeyColumn> keys;
    for (std::size_t k = 0; k < enc.cols.size(); ++k) keys.push_back({column_view(in, enc.cols[k]), nullptr});
    const kernels::KeyLayout layout = kernels::layout_of(enc);
    kernels::KeyKernels<B>::encode(exec, keys.data(), layout, n, words.data(), static_cast<std::uint8_t*>(keep.get()));
    int bits[kernels::kMaxKeyWords];
    kernels::key_bits(enc, bits);
    std::vector<std::uint64_t*> key_out(static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w) key_out[static_cast<std::size_t>(w)] = recs.column(w);
    kernels::GroupsOut groups;
    groups.keys = key_out.data();
    groups.size = reinterpret_cast<std::int64_t*>(recs.column(W));
    const std::vector<kernels::AggColumn> aggs = agg_columns(
        plan, [&](int c) { return recs.column(c); }, &in);
    const std::uint64_t order0 =
        (static_cast<std::uint64_t>(rank) << 52) | (static_cast<std::uint64_t>(part) << 32);  // the host's orders
    G = kernels::GroupbyKernels<B>::aggregate(exec, words.data(), W, bits, n,
                                              static_cast<const std::uint8_t*>(keep.get()), aggs.data(),
                                              static_cast<int>(aggs.size()), order0, groups);
    if (plan.proto.has_nunique())
      write_pairs<B>(ctx, exec, plan, in, words.data(), bits, static_cast<const std::uint8_t*>(keep.get()));
    if (holistic)
      value_rows =
          write_values<B>(ctx, exec, plan, in, words.data(), static_cast<const std::uint8_t*>(keep.get()), values_out);
  } else {
    if (plan.proto.has_nunique()) write_records(ctx, RecordColumns(exec, W + 2, 0), W + 2, 0, 1);
    if (holistic) value_rows = write_values<B>(ctx, exec, plan, in, nullptr, nullptr, values_out);
  }
  write_records(ctx, recs, R, G, 0);
  // A few keys for range routing, spread over the groups (in key order here).
  const std::int64_t S = std::min<std::int64_t>(G, 256);
  if (S > 0) {
    std::vector<std::int64_t> at(static_cast<std::size_t>(S));
    for (std::int64_t i = 0; i < S; ++i) at[static_cast<std::size_t>(i)] = i * G / S;
    slab::detail::ScratchBytes rows(exec, at.size() * 8), picked(exec, at.size() * 8);
    slab::copy(rows.get(), at.data(), at.size() * 8, ctx.execution());
    std::vector<std::uint64_t> host(static_cast<std::size_t>(S) * static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w) {
      kernels::GatherKernels<B>::column(exec, {ElementType::int64, recs.column(w), nullptr},
                                        static_cast<const std::int64_t*>(rows.get()), S, picked.get(), nullptr);
      slab::copy(host.data() + w * S, picked.get(), static_cast<std::size_t>(S) * 8, ctx.execution());
    }
    for (std::int64_t i = 0; i < S; ++i)
      for (int w = 0; w < W; ++w) samples.push_back(host[static_cast<std::size_t>(w * S + i)]);
  }
  return G;
}

template <class B>
std::int64_t combine_on(TaskContext& ctx, const kernels::Exec& exec, const GroupbyPlan& plan, const BatchView& in,
                        const BatchView* pairs, const BatchView* values) {
  const KeyEncoder& enc = plan.proto.enc;
  const int W = plan.W, R = plan.R;
  const std::int64_t nrec = in.nrows();
  auto in_col = [&](int c) {
    return reinterpret_cast<std::uint64_t*>(const_cast<std::byte*>(in.data(static_cast<std::size_t>(c))));
  };
  RecordColumns fin(exec, R, nrec);
  std::int64_t G = 0;
  int bits[kernels::kMaxKeyWords];
  kernels::key_bits(enc, bits);
  std::vector<std::uint64_t*> key_out(static_cast<std::size_t>(W));
  for (int w = 0; w < W; ++w) key_out[static_cast<std::size_t>(w)] = fin.column(w);
  std::vector<kernels::AggColumn> aggs = agg_columns(
      plan, [&](int c) { return fin.column(c); }, nullptr);
  if (nrec > 0) {
    std::vector<const std::uint64_t*> words(static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w) words[static_cast<std::size_t>(w)] = in_col(w);
    std::vector<kernels::AggStates> records;
    for (const kernels::AggColumn& a : agg_columns(plan, in_col, nullptr)) records.push_back(a.out);
    kernels::GroupsOut groups;
    groups.keys = key_out.data();
    groups.size = reinterpret_cast<std::int64_t*>(fin.column(W));
    G = kernels::GroupbyKernels<B>::combine(exec, words.data(), W, bits, nrec,
                                            reinterpret_cast<const std::int64_t*>(in_col(W)), records.data(),
                                            aggs.data(), static_cast<int>(aggs.size()), groups);
  }
  // nunique: the shuffled distinct pairs counted per group (count_distinct), a count array per aggregation.
  const auto nslots = static_cast<int>(plan.proto.aggs.size());
  slab::detail::ScratchBytes distinct(exec, pairs && G > 0 ? static_cast<std::size_t>(nslots) * G * 8 : 0);
  if (pairs && G > 0) {
    auto* counts = static_cast<std::int64_t*>(distinct.get());
    std::vector<const std::uint64_t*> pw(static_cast<std::size_t>(W) + 2);
    for (int c = 0; c < W + 2; ++c)
      pw[static_cast<std::size_t>(c)] =
          pairs->nrows() ? reinterpret_cast<const std::uint64_t*>(pairs->data(static_cast<std::size_t>(c))) : nullptr;
    std::vector<const std::uint64_t*> keys(key_out.begin(), key_out.end());
    kernels::GroupbyKernels<B>::count_pairs(exec, pw.data(), W, bits, pairs->nrows(), keys.data(), G, nslots, counts);
    for (int k = 0; k < nslots; ++k)
      if (plan.proto.aggs[static_cast<std::size_t>(k)].nuniq)
        aggs[static_cast<std::size_t>(k)].out.nunique = counts + k * G;
  }
  // median/quantile: the shuffled values of each holistic aggregation, per group (combine_values), every q of
  // it at once: holistic[a] holds ops * G doubles, in the order of the aggregation's ops.
  std::vector<std::unique_ptr<slab::detail::ScratchBytes>> holistic(plan.proto.aggs.size());
  if (values && G > 0) {
    const std::vector<std::size_t> hol = plan.proto.holistic_aggs();
    std::vector<const std::uint64_t*> vw(static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w)
      vw[static_cast<std::size_t>(w)] =
          values->nrows() ? reinterpret_cast<const std::uint64_t*>(values->data(static_cast<std::size_t>(w))) : nullptr;
    std::vector<const std::uint64_t*> keys(key_out.begin(), key_out.end());
    for (std::size_t h = 0; h < hol.size(); ++h) {
      const ColAgg& a = plan.proto.aggs[hol[h]];
      holistic[hol[h]] = std::make_unique<slab::detail::ScratchBytes>(exec, a.holistic.size() * G * 8);
      const double* v =
          values->nrows() ? reinterpret_cast<const double*>(values->data(static_cast<std::size_t>(W) + h)) : nullptr;
      kernels::GroupbyKernels<B>::holistic(exec, vw.data(), W, bits, v, values->nrows(), keys.data(), G,
                                           a.holistic.data(), static_cast<int>(a.holistic.size()),
                                           static_cast<double*>(holistic[hol[h]]->get()));
    }
  }
  // The result batch: keys decoded, then one finalize per output column (write_result's types and masks).
  const std::vector<ElementType> types = types_of(plan.out_schema);
  const std::size_t nk = enc.cols.size();
  std::vector<bool> has_valid(types.size(), false);
  for (std::size_t k = 0; k < nk; ++k) has_valid[k] = !enc.dropna;
  for (std::size_t j = 0; j < plan.out_cols.size(); ++j) {
    const OutCol& oc = plan.out_cols[j];
    const bool nullable = oc.op == AggOp::min || oc.op == AggOp::max || oc.op == AggOp::first || oc.op == AggOp::last;
    has_valid[nk + j] = oc.agg >= 0 && nullable && !plan.proto.aggs[static_cast<std::size_t>(oc.agg)].isf;
  }
  BatchBuilder b(ctx, G, types, has_valid, 0);
  if (G == 0) return 0;
  std::vector<void*> key_cols;
  std::vector<std::uint8_t*> key_valid;
  for (std::size_t k = 0; k < nk; ++k) {
    key_cols.push_back(b.data(k));
    key_valid.push_back(b.valid(k));
  }
  std::vector<const std::uint64_t*> fin_words(key_out.begin(), key_out.end());
  kernels::KeyKernels<B>::decode(exec, fin_words.data(), kernels::layout_of(enc), enc.types.data(), G, key_cols.data(),
                                 key_valid.data());
  const auto* sizes = reinterpret_cast<const std::int64_t*>(fin.column(W));
  for (std::size_t j = 0; j < plan.out_cols.size(); ++j) {
    const OutCol& oc = plan.out_cols[j];
    const bool size = oc.agg < 0;
    const ColAgg* a = size ? nullptr : &plan.proto.aggs[static_cast<std::size_t>(oc.agg)];
    if (oc.holistic >= 0) {  // median/quantile: computed above
      const auto* from = static_cast<const double*>(holistic[static_cast<std::size_t>(oc.agg)]->get());
      slab::copy(b.data(nk + j), from + static_cast<std::size_t>(oc.holistic) * static_cast<std::size_t>(G),
                 static_cast<std::size_t>(G) * 8, ctx.execution());
      continue;
    }
    kernels::GroupbyKernels<B>::finalize(exec, static_cast<kernels::AggKind>(oc.op),
                                         size ? ElementType::int64 : a->type,
                                         size ? kernels::AggStates{} : aggs[static_cast<std::size_t>(oc.agg)].out,
                                         sizes, G, b.data(nk + j), b.valid(nk + j));
  }
  return G;
}

}  // namespace

DeviceRouteFn device_route_by_key(std::shared_ptr<const Partitioner> part, int W) {
  return [part = std::move(part), W](TaskContext& ctx, const kernels::Exec& exec, const BatchView& b,
                                     std::uint32_t* bucket) {
    const std::int64_t n = b.nrows();
    std::vector<const std::uint64_t*> words(static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w)
      words[static_cast<std::size_t>(w)] = reinterpret_cast<const std::uint64_t*>(b.data(static_cast<std::size_t>(w)));
    const std::vector<std::uint64_t>& split = part->splitters();
    slab::detail::ScratchBytes scratch(exec, part->is_range() ? split.size() * 8 : static_cast<std::size_t>(n) * 8);
    if (part->is_range() && !split.empty()) slab::copy(scratch.get(), split.data(), split.size() * 8, ctx.execution());
    with_planned_backend(ctx.execution(), [&](auto tag) {
      using Kernels = kernels::PartitionKernels<typename decltype(tag)::type>;
      auto* s = static_cast<std::uint64_t*>(scratch.get());
      if (part->is_range()) {
        Kernels::range_buckets(exec, words.data(), W, false, 0, n, s, static_cast<std::int64_t>(split.size()) / W,
                               bucket);
      } else {
        Kernels::word_hashes(exec, words.data(), W, n, s);
        Kernels::hash_buckets(exec, s, n, part->nranks(), part->parts(), bucket);
      }
    });
  };
}

bool groupby_takes_device_path(const Frame& frame, const GroupbyPlan& plan, const GroupbyOptions& options) {
  (void)options;  // sort=False asks for no order: each partition's groups come out in key order, as sorted
  if (!takes_device_paths(frame) || plan.proto.enc.cols.size() > kernels::kMaxKeyColumns) return false;
  if (plan.W > kernels::kMaxKeyWords) return false;
  if (plan.proto.has_nunique() && plan.W + 2 > kernels::kMaxKeyWords) return false;             // a pair's words
  if (!plan.proto.holistic_aggs().empty() && plan.W + 1 > kernels::kMaxKeyWords) return false;  // key and value
  return true;
}

std::int64_t aggregate_partition_on_device(TaskContext& ctx, const GroupbyPlan& plan, const BatchView& in,
                                           std::size_t part, int rank, std::vector<std::uint64_t>& samples,
                                           std::int64_t& value_rows) {
  std::int64_t G = 0;
  on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
    G = aggregate_on<typename decltype(tag)::type>(ctx, exec, plan, in, part, rank, samples, value_rows);
  });
  return G;
}

std::int64_t combine_records_on_device(TaskContext& ctx, const GroupbyPlan& plan, const BatchView& records,
                                       const BatchView* pairs, const BatchView* values) {
  std::int64_t G = 0;
  on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
    G = combine_on<typename decltype(tag)::type>(ctx, exec, plan, records, pairs, values);
  });
  return G;
}

}  // namespace slab::frame::detail
