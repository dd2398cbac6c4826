// Distributed groupby, Cylon style, in three stages (src/frame/groupby/): the plan (arguments, key encoding,
// result schema), the aggregation state (each rank pre-aggregates its partitions into one partial state, written out
// as partial records when it outgrows its reservation and at the end), and the output (a final state as the result
// batch). Between them the frame layer's one row exchange: the partial records, never the rows, go through
// shuffle_routed, routed by the one partitioner (by key range when sorted, by key hash otherwise), and each shuffled
// partition is combined into one result partition. nunique's distinct pairs travel the same way in a second frame.
#include "slab/frame/groupby.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>

#include "frame/device_paths.hpp"
#include "frame/groupby/device_path.hpp"
#include "frame/groupby/holistic.hpp"
#include "frame/groupby/output.hpp"
#include "frame/groupby/plan.hpp"
#include "frame/groupby/state.hpp"
#include "frame/partitioner.hpp"
#include "frame/shuffle_device.hpp"
#include "slab/comm/comm.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

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
    case AggOp::median:
      return "median";
    case AggOp::quantile:
      return "quantile";
  }
  return "?";
}

AggOp parse_agg_op(std::string_view name, double& q) {
  for (int i = 0; i <= static_cast<int>(AggOp::quantile); ++i)
    if (name == to_string(static_cast<AggOp>(i))) {
      if (static_cast<AggOp>(i) == AggOp::quantile) q = 0.5;  // pandas' default
      return static_cast<AggOp>(i);
    }
  // "q0.9" or "quantile(0.9)": the whole rest must be a number in [0, 1].
  std::string_view num;
  if (name.size() > 1 && name[0] == 'q' && name.substr(0, 8) != "quantile")
    num = name.substr(1);
  else if (name.size() > 10 && name.substr(0, 9) == "quantile(" && name.back() == ')')
    num = name.substr(9, name.size() - 10);
  if (!num.empty()) {
    double v = 0;
    const auto r = std::from_chars(num.data(), num.data() + num.size(), v);
    if (r.ec == std::errc() && r.ptr == num.data() + num.size()) {
      SLAB_EXPECTS(v >= 0 && v <= 1, InvalidArgument,
                   "aggregation '" + std::string(name) + "': the quantile must be in [0, 1]");
      q = v;
      return AggOp::quantile;
    }
  }
  SLAB_FAIL(InvalidArgument,
            "unknown aggregation '" + std::string(name) +
                "' (sum, mean, count, size, min, max, std, var, first, last, nunique, median, quantile, q0.9)");
}

AggOp parse_agg_op(std::string_view name) {
  double q = 0.5;
  return parse_agg_op(name, q);
}

std::string agg_column_name(const std::string& column, AggOp op, double q) {
  if (op == AggOp::size) return "size";
  if (op == AggOp::quantile) return column + "_q" + detail::format_q(q);
  return column + "_" + to_string(op);
}

namespace {

/// A frame of `chunks` whose batches have `words` int64 columns w0, w1, ... (partial records, distinct pairs).
Frame record_frame(Engine& engine, int words, std::vector<Chunk> chunks,
                   std::vector<std::optional<std::int64_t>> known = {}) {
  std::vector<Field> fields;
  for (int c = 0; c < words; ++c) fields.push_back({"w" + std::to_string(c), ElementType::int64});
  return Frame(engine, Schema(fields), std::move(chunks), std::move(known));
}

/// A batch of `words` int64 columns as row-major words (the combine's input).
std::vector<std::uint64_t> row_major(const BatchView& b, int words) {
  const auto n = static_cast<std::size_t>(b.nrows());
  std::vector<std::uint64_t> out(n * static_cast<std::size_t>(words));
  for (int c = 0; c < words && n; ++c) {
    const std::int64_t* v = b.column<std::int64_t>(static_cast<std::size_t>(c)).data();
    for (std::size_t i = 0; i < n; ++i) out[i * words + c] = static_cast<std::uint64_t>(v[i]);
  }
  return out;
}

/// Each record's bucket, its first W words being its key: by range or by hash, as the partitioner says.
RouteFn route_by_key(std::shared_ptr<const detail::Partitioner> part, int W) {
  return [part = std::move(part), W](const BatchView& b, std::vector<std::uint32_t>& bucket) {
    const auto n = static_cast<std::size_t>(b.nrows());
    bucket.resize(n);
    if (n == 0) return;
    std::vector<const std::int64_t*> kc(W);
    for (int w = 0; w < W; ++w) kc[w] = b.column<std::int64_t>(static_cast<std::size_t>(w)).data();
    std::vector<std::uint64_t> key(W);
    for (std::size_t i = 0; i < n; ++i) {
      for (int w = 0; w < W; ++w) key[w] = static_cast<std::uint64_t>(kc[w][i]);
      bucket[i] = part->is_range()
                      ? part->bucket_of_key(key.data())
                      : part->bucket_of_hash(W == 1 ? detail::route_hash(key[0]) : detail::hash_words(key.data(), W));
    }
  };
}

}  // namespace

Frame groupby(const Frame& frame, const std::vector<std::string>& keys, const std::vector<Aggregation>& aggregations,
              const GroupbyOptions& options) {
  auto plan = std::make_shared<detail::GroupbyPlan>(detail::make_plan(frame.schema(), keys, aggregations, options));
  Engine& engine = frame.engine();
  Comm& comm = engine.comm();
  const int nranks = comm.size();
  SLAB_EXPECTS(nranks <= 4096 && frame.num_partitions() < (1u << 20), InvalidArgument,
               "groupby: more than 4096 ranks or 2^20 partitions per rank");
  detail::plan_key_ranges(*plan, frame);
  const bool device = detail::groupby_takes_device_path(frame, *plan, options);
  if (!device) note_host_fallback(engine, "groupby");
  const int W = plan->W, R = plan->R;
  const std::uint64_t direct = plan->direct;
  const bool sort = options.sort;
  // Outputs of a local task: 0 its partial records (empty unless written out), then nunique's distinct pairs
  // and the median/quantile values where the aggregations have them.
  const bool has_pairs = plan->proto.has_nunique();
  const std::size_t nhol = plan->proto.holistic_aggs().size();
  const std::size_t pairs_out = 1, values_out = has_pairs ? 2 : 1;
  const std::size_t outputs = 1 + (has_pairs ? 1 : 0) + (nhol ? 1 : 0);
  // The plan's prototype is this rank's partial state (its aggregations' descriptions never change).
  detail::GroupbyState* st = &plan->proto;
  st->rank = comm.rank();
  st->index = std::make_unique<detail::GroupIndex>(W, direct, 1024);

  // 1. Local pre-aggregation, one partition at a time into the partial state. The state lives outside the task
  //    queue's buffers, so it is reserved as it grows; past its budget (one of the eight buffers the shuffle of
  //    its records holds at once), or when the device tier has no more room for it, it is written out as a
  //    spillable chunk of partial records and starts afresh. The median/quantile values of every partition are
  //    written out as they are (a spillable chunk each): they have no partial state.
  constexpr std::uint32_t kHeldAtOnce = 8;
  const std::uint64_t cap = std::max<std::uint64_t>(engine.memory().budget(kHeldAtOnce), 1u << 16);
  auto room = std::make_shared<Reservation>(engine.memory().reserve("groupby partial state", 0));
  const std::vector<ElementType> rec_types(R, ElementType::int64), pair_types(W + 2, ElementType::int64);
  std::vector<ElementType> value_types(W, ElementType::int64);
  value_types.insert(value_types.end(), nhol, ElementType::float64);
  auto empty = [rec_types, pair_types, has_pairs](TaskContext& ctx) {
    BatchBuilder(ctx, 0, rec_types, {}, 0);
    if (has_pairs) BatchBuilder(ctx, 0, pair_types, {}, pairs_out);
  };
  std::vector<std::vector<Chunk>> pieces;
  auto written = std::make_shared<std::vector<std::int64_t>>();
  auto value_rows = std::make_shared<std::vector<std::int64_t>>();
  if (device) {
    // Each partition's own groups as partial records, on the device kernels (device_path.hpp).
    const auto& parts = frame.partitions();
    written->assign(parts.size(), 0);
    value_rows->assign(parts.size(), 0);
    auto samples = std::make_shared<std::vector<std::vector<std::uint64_t>>>(parts.size());
    std::vector<Chunk> all;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      pieces.push_back(engine.tasks().submit_multi(
          "groupby-local", {parts[p]}, outputs,
          [=, rank = comm.rank()](TaskContext& ctx) {
            (*written)[p] = detail::aggregate_partition_on_device(ctx, *plan, input_batch(ctx, 0), p, rank,
                                                                  (*samples)[p], (*value_rows)[p]);
          },
          device_task()));
      all.insert(all.end(), pieces.back().begin(), pieces.back().end());
    }
    engine.tasks().persist(all);
    for (const auto& s : *samples) st->samples.insert(st->samples.end(), s.begin(), s.end());
    for (std::int64_t n : frame.local_partition_rows()) st->rows_in += n;
    for (std::int64_t n : *written) st->written += n;
  } else {
    const auto& parts = frame.partitions();
    written->assign(parts.size() + 1, 0);
    value_rows->assign(parts.size() + 1, 0);
    std::vector<Chunk> all;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      pieces.push_back(engine.tasks().submit_multi("groupby-local", {parts[p]}, outputs, [=](TaskContext& ctx) {
        const BatchView in = input_batch(ctx, 0);
        st->fold(in, p);
        if (nhol) (*value_rows)[p] = detail::write_values(*st, in, W, ctx, values_out);
        const std::uint64_t bytes = st->state_bytes(R);
        if (bytes <= room->size() || (bytes <= cap && room->try_grow(bytes - room->size()))) return empty(ctx);
        const std::int64_t before = st->written;
        detail::write_partials(*st, W, R, direct, ctx);
        (*written)[p] = st->written - before;
        room->release();
      }));
      all.insert(all.end(), pieces.back().begin(), pieces.back().end());
    }
    // What is left of the state, written out the same way.
    pieces.push_back(engine.tasks().submit_multi("groupby-flush", {}, outputs, [=](TaskContext& ctx) {
      const std::int64_t before = st->written;
      detail::write_partials(*st, W, R, direct, ctx);
      if (nhol) BatchBuilder(ctx, 0, value_types, {}, values_out);
      written->back() = st->written - before;
      room->release();
    }));
    all.insert(all.end(), pieces.back().begin(), pieces.back().end());
    engine.tasks().persist(all);
  }
  // Out of core: records written before the last partition (the device path writes every partition's own).
  const std::int64_t early = device ? 0
                                    : static_cast<std::int64_t>(std::count_if(written->begin(), written->end() - 1,
                                                                              [](std::int64_t n) { return n > 0; }));
  const bool wrote_early = comm.allreduce(early, ReduceOp::max) > 0;
  std::vector<Chunk> records, pairs, values;
  std::vector<std::optional<std::int64_t>> values_known, records_known;
  for (std::size_t p = 0; p < pieces.size(); ++p) {
    if ((*written)[p] > 0 || (p + 1 == pieces.size() && records.empty())) {
      records.push_back(pieces[p][0]);
      records_known.emplace_back((*written)[p]);
      if (has_pairs) pairs.push_back(pieces[p][pairs_out]);
    }
    if (nhol && ((*value_rows)[p] > 0 || (p + 1 == pieces.size() && values.empty()))) {
      values.push_back(pieces[p][values_out]);
      values_known.emplace_back((*value_rows)[p]);
    }
  }
  pieces.clear();

  // 2. The exchange: one partition per rank, or (out of core) as many as keep one under the memory budget; by key
  //    range (splitters from keys sampled at every write-out) when sorted, so partition order is key order. The
  //    values of median/quantile are as many rows as the input: they alone may call for several partitions.
  // The device path's records are one chunk per input partition: their known sizes let choose_nparts size the
  // exchange by bytes rather than by chunks.
  Frame partial = record_frame(engine, R, std::move(records),
                               device ? std::move(records_known) : std::vector<std::optional<std::int64_t>>{});
  Frame value_frame;
  if (nhol) {
    std::vector<Field> fields;
    for (int c = 0; c < W; ++c) fields.push_back({"w" + std::to_string(c), ElementType::int64});
    for (std::size_t h = 0; h < nhol; ++h) fields.push_back({"v" + std::to_string(h), ElementType::float64});
    value_frame = Frame(engine, Schema(fields), std::move(values), std::move(values_known));
  }
  int nparts = wrote_early || device ? choose_nparts(partial, 1) : 1;
  if (nhol) nparts = std::max(nparts, choose_nparts(value_frame, 1));  // the same on every rank
  const bool out_of_core = wrote_early || nparts > 1;
  std::shared_ptr<const detail::Partitioner> partitioner =
      sort ? std::make_shared<const detail::Partitioner>(
                 detail::Partitioner::sampled(comm, nparts, std::span<const std::uint64_t>(st->samples), W))
           : std::make_shared<const detail::Partitioner>(detail::Partitioner::hash(nranks, nparts));
  const Frame shuffled =
      device ? detail::shuffle_routed_on_device(partial, nparts, detail::device_route_by_key(partitioner, W), "groupby-shuffle")
             : shuffle_routed(partial, nparts, route_by_key(partitioner, W), "groupby-shuffle");
  Frame shuffled_pairs, shuffled_values;
  if (has_pairs)
    shuffled_pairs =
        device ? detail::shuffle_routed_on_device(record_frame(engine, W + 2, std::move(pairs)), nparts,
                                                  detail::device_route_by_key(partitioner, W), "groupby-nunique-shuffle")
               : shuffle_routed(record_frame(engine, W + 2, std::move(pairs)), nparts, route_by_key(partitioner, W),
                                "groupby-nunique-shuffle");
  if (nhol)
    shuffled_values = device
                          ? detail::shuffle_routed_on_device(value_frame, nparts, detail::device_route_by_key(partitioner, W),
                                                             "groupby-values-shuffle")
                          : shuffle_routed(value_frame, nparts, route_by_key(partitioner, W), "groupby-values-shuffle");

  // 3. Final combine and output: each shuffled partition (with its distinct pairs and values) into one result
  //    partition.
  auto received = std::make_shared<std::int64_t>(0), groups = std::make_shared<std::int64_t>(0);
  std::vector<Chunk> outs;
  for (int j = 0; j < nparts; ++j) {
    std::vector<Chunk> in{shuffled.partitions()[j]};
    if (has_pairs) in.push_back(shuffled_pairs.partitions()[j]);
    if (nhol) in.push_back(shuffled_values.partitions()[j]);
    outs.push_back(engine.tasks().submit(
        "groupby-combine", std::move(in),
        [=](TaskContext& ctx) {
          if (device) {
            const BatchView records = input_batch(ctx, 0);
            const BatchView pair_batch = has_pairs ? input_batch(ctx, pairs_out) : BatchView();
            const BatchView value_batch = nhol ? input_batch(ctx, values_out) : BatchView();
            *groups += detail::combine_records_on_device(ctx, *plan, records, has_pairs ? &pair_batch : nullptr,
                                                         nhol ? &value_batch : nullptr);
            *received += records.nrows();
            return;
          }
          std::vector<std::uint64_t> recs = row_major(input_batch(ctx, 0), R);
          const std::size_t nrec = recs.size() / static_cast<std::size_t>(R);
          detail::GroupbyState fin;
          detail::combine_records(*st, W, R, direct, recs.data(), nrec, fin);
          std::vector<std::uint64_t>().swap(recs);
          if (has_pairs) {
            const std::vector<std::uint64_t> pw = row_major(input_batch(ctx, pairs_out), W + 2);
            detail::count_distinct(fin, W, pw.data(), pw.size() / static_cast<std::size_t>(W + 2));
          }
          if (nhol) detail::combine_values(fin, W, input_batch(ctx, values_out), ctx);
          std::vector<std::byte> storage;
          detail::write_result(fin, plan->out_cols, plan->out_schema, sort, storage);
          auto dst = ctx.output(storage.size());
          std::memcpy(dst.data(), storage.data(), storage.size());
          *received += static_cast<std::int64_t>(nrec);
          *groups += static_cast<std::int64_t>(fin.index->size());
        },
        device ? device_task() : TaskOptions{}));
  }
  Frame result(engine, plan->out_schema, std::move(outs));
  // In memory the result is computed now, as one partition per rank; out of core its partitions are lazy, but
  // for median/quantile: their values are computed now too (the result's partitions stay spillable), so that a
  // partition of values too large for memory fails here, on every rank together, naming the aggregation.
  if (!out_of_core || nhol) {
    try {
      result.persist();
    } catch (const OutOfMemory& err) {
      if (!nhol) throw;
      SLAB_FAIL(OutOfMemory,
                "groupby: the median/quantile values of one partition of whole groups do not fit in "
                "memory (a single group's values larger than the memory limit cannot be processed): " +
                    err.message());
    }
  }
  if (options.stats)
    *options.stats = GroupbyStats{st->rows_in, st->written,          st->written, *received,
                                  *groups,     wrote_early ? st->written : 0};
  return result;
}

}  // namespace slab::frame
