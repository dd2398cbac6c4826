// Per-group row-preserving operations (groupby_transform.hpp): tag each row with its global row number, shuffle
// (key words, row, value) by key hash, compute each group's results in row order (segments.cpp), shuffle
// (row, result) back to the partition owning the row and scatter into place.
#include "slab/frame/groupby_transform.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>

#include "frame/groupby/device_path.hpp"
#include "frame/groupby/holistic.hpp"
#include "frame/groupby/plan.hpp"
#include "frame/groupby/segments.hpp"
#include "frame/groupby/transform_device.hpp"
#include "frame/hash_table.hpp"
#include "frame/kernels/sort_perm.hpp"
#include "frame/partitioner.hpp"
#include "frame/shuffle_device.hpp"
#include "slab/comm/comm.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::frame {

const char* to_string(GroupScan op) noexcept {
  switch (op) {
    case GroupScan::cumsum:
      return "cumsum";
    case GroupScan::cumprod:
      return "cumprod";
    case GroupScan::cummin:
      return "cummin";
    case GroupScan::cummax:
      return "cummax";
    case GroupScan::cumcount:
      return "cumcount";
    case GroupScan::shift:
      return "shift";
    case GroupScan::diff:
      return "diff";
    case GroupScan::ffill:
      return "ffill";
    case GroupScan::bfill:
      return "bfill";
    case GroupScan::transform:
      return "transform";
    case GroupScan::rolling:
      return "rolling";
  }
  return "?";
}

namespace {

bool numeric(ElementType t) {
  return t == ElementType::int64 || t == ElementType::float64 || t == ElementType::boolean;
}

/// What `what` needs of the value column: whether it reads one at all.
bool reads_values(const GroupTransform& what) {
  return !(what.op == GroupScan::cumcount || (what.op == GroupScan::transform && what.agg == AggOp::size));
}

/// The result's type for a value column of type `in`, as pandas types it (groupby_transform.hpp).
/// @throws TypeError for a type the operation does not take.
ElementType result_type(const GroupTransform& what, ElementType in, const std::string& column) {
  auto refuse = [&](const std::string& op) {
    SLAB_FAIL(TypeError,
              "groupby(...)." + op + ": column '" + column + "' is " + to_string(in) + ", which it does not take");
  };
  switch (what.op) {
    case GroupScan::cumcount:
      return ElementType::int64;
    case GroupScan::cumsum:
    case GroupScan::cumprod:
      if (!numeric(in)) refuse(to_string(what.op));
      return in == ElementType::float64 ? ElementType::float64 : ElementType::int64;
    case GroupScan::cummin:
    case GroupScan::cummax:
      if (in == ElementType::string) refuse(to_string(what.op));
      return in;
    case GroupScan::shift:
      return in == ElementType::int64 ? ElementType::float64 : in;
    case GroupScan::diff:
    case GroupScan::rolling:
      if (!numeric(in)) refuse(to_string(what.op));
      return ElementType::float64;
    case GroupScan::ffill:
    case GroupScan::bfill:
      return in;
    case GroupScan::transform:
      switch (what.agg) {
        case AggOp::size:
        case AggOp::count:
        case AggOp::nunique:
          return ElementType::int64;
        case AggOp::sum:
          if (!numeric(in)) refuse(std::string("transform('sum')"));
          return in == ElementType::float64 ? ElementType::float64 : ElementType::int64;
        case AggOp::mean:
        case AggOp::std:
        case AggOp::var:
        case AggOp::median:
        case AggOp::quantile:
          if (!numeric(in)) refuse(std::string("transform('") + to_string(what.agg) + "')");
          return ElementType::float64;
        case AggOp::min:
        case AggOp::max:
        case AggOp::first:
        case AggOp::last:
          return in;
      }
  }
  return in;
}

/// The result column's name: "<column>_<op>", "cumcount", transform's agg_column_name, rolling's "<column>_mean".
std::string result_name(const GroupTransform& what) {
  switch (what.op) {
    case GroupScan::cumcount:
      return "cumcount";
    case GroupScan::transform:
      return agg_column_name(what.column.empty() ? std::string("x") : what.column, what.agg, what.q);
    case GroupScan::rolling:
      return what.column + "_" + (what.rolling_var ? std::string("var") : std::string(to_string(what.rolling_op)));
    default:
      return what.column + "_" + to_string(what.op);
  }
}

/// The shuffle by key: a tagged row (W key words first) to its key's hash bucket (the device's route is
/// device_route_by_key).
RouteFn route_by_key_words(const detail::Partitioner& part, int W) {
  return [part, W](const BatchView& b, std::vector<std::uint32_t>& bucket) {
    const auto n = static_cast<std::size_t>(b.nrows());
    bucket.resize(n);
    if (n == 0) return;
    std::vector<const std::int64_t*> kc(static_cast<std::size_t>(W));
    for (int w = 0; w < W; ++w) kc[w] = b.column<std::int64_t>(static_cast<std::size_t>(w)).data();
    std::vector<std::uint64_t> key(static_cast<std::size_t>(W));
    for (std::size_t i = 0; i < n; ++i) {
      for (int w = 0; w < W; ++w) key[w] = static_cast<std::uint64_t>(kc[w][i]);
      bucket[i] = part.bucket_of_hash(W == 1 ? detail::route_hash(key[0]) : detail::hash_words(key.data(), W));
    }
  };
}

/// The route back: a (row, result) row to ids[b] for the last b with starts[b] <= its row number (the device's
/// route is device_route_by_row).
RouteFn route_by_row(std::shared_ptr<const std::vector<std::int64_t>> starts,
                     std::shared_ptr<const std::vector<std::uint32_t>> ids) {
  return [starts = std::move(starts), ids = std::move(ids)](const BatchView& b, std::vector<std::uint32_t>& bucket) {
    const auto n = static_cast<std::size_t>(b.nrows());
    bucket.resize(n);
    if (n == 0) return;
    const std::int64_t* row = b.column<std::int64_t>(0).data();
    for (std::size_t i = 0; i < n; ++i) {
      const auto it = std::upper_bound(starts->begin(), starts->end(), row[i]);
      bucket[i] = (*ids)[static_cast<std::size_t>(it - starts->begin()) - 1];
    }
  };
}

/// (row, result) batches: the row number, then the result column (masked unless float64).
std::vector<ElementType> result_types(ElementType out) { return {ElementType::int64, out}; }

}  // namespace

Series group_transform(const Frame& frame, const std::vector<std::string>& keys, const GroupTransform& what,
                       const GroupbyOptions& options) {
  // Arguments, from the schema only: every rank throws together.
  const Schema& schema = frame.schema();
  detail::KeyEncoder enc = detail::make_key_encoder(schema, keys, options.dropna);
  enc.set_unpacked();  // no packing pass: each key column keeps its own words
  const int W = enc.width();
  const bool has_value = reads_values(what);
  std::size_t vcol = 0;
  ElementType vtype = ElementType::int64;
  if (has_value || !what.column.empty()) {
    SLAB_EXPECTS(!what.column.empty(), InvalidArgument,
                 std::string("groupby(...).") + to_string(what.op) + ": no value column given");
    vcol = schema.index_of(what.column);
    vtype = schema.type(vcol);
  }
  if (what.op == GroupScan::rolling)
    SLAB_EXPECTS(!what.window.is_time() && what.window.rows >= 1, InvalidArgument,
                 "groupby(...).rolling: a window of rows >= 1 is needed, got " + what.window.str());
  if (what.op == GroupScan::transform && what.agg == AggOp::quantile)
    SLAB_EXPECTS(what.q >= 0 && what.q <= 1, InvalidArgument,
                 "groupby(...).transform: quantile q = " + detail::format_q(what.q) + " is outside [0, 1]");
  const ElementType out_type = has_value ? result_type(what, vtype, what.column) : ElementType::int64;
  const bool out_masked = out_type != ElementType::float64;
  const std::string out_name = result_name(what);
  const Dictionary out_dict = out_type == ElementType::string ? schema.dictionary(vcol) : nullptr;
  const Schema out_schema({{out_name, out_type}}, {out_dict});

  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  const bool device = detail::group_transform_takes_device_path(frame, what, enc);
  if (!device) note_host_fallback(engine, "group_transform");
  const std::vector<std::int64_t> rows = frame.local_partition_rows();  // collective: persists the frame
  const std::int64_t offset = frame.global_offset();                    // collective
  // Every rank's partition rows (collective): the route back, and the row numbers' bits for the device's sort.
  std::vector<std::int64_t> all_rows;
  const auto v = comm.allgatherv(std::span<const std::int64_t>(rows), all_rows);
  std::int64_t total_rows = 0;
  for (const std::int64_t m : all_rows) total_rows += m;
  const int row_bits = kernels::bits_for(static_cast<std::uint64_t>(std::max<std::int64_t>(total_rows - 1, 0)));
  std::vector<std::int64_t> starts(rows.size());
  {
    std::int64_t at = offset;
    for (std::size_t k = 0; k < rows.size(); ++k) starts[k] = at, at += rows[k];
  }

  // 1. Tag: the kept rows' key words, row number and value (one task per partition).
  std::vector<Field> tag_fields;
  std::vector<Dictionary> tag_dicts;
  for (int w = 0; w < W; ++w)
    tag_fields.push_back({"w" + std::to_string(w), ElementType::int64}), tag_dicts.push_back(nullptr);
  tag_fields.push_back({"row", ElementType::int64}), tag_dicts.push_back(nullptr);
  if (has_value) tag_fields.push_back({"value", vtype}), tag_dicts.push_back(schema.dictionary(vcol));
  const Schema tag_schema(tag_fields, tag_dicts);
  auto encp = std::make_shared<const detail::KeyEncoder>(std::move(enc));
  std::vector<Chunk> tagged;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::int64_t start = starts[k];
    if (device) {
      tagged.push_back(engine.tasks().submit(
          "groupby-transform-tag", {frame.partitions()[k]},
          [encp, tag_schema, has_value, vcol, start](TaskContext& ctx) {
            detail::tag_rows_on_device(ctx, *encp, tag_schema, has_value, vcol, start);
          },
          device_task()));
      continue;
    }
    tagged.push_back(
        engine.tasks().submit("groupby-transform-tag", {frame.partitions()[k]},
                              [encp, tag_schema, W, has_value, vcol, start](TaskContext& ctx) {
                                const BatchView in = input_batch(ctx, 0);
                                std::vector<std::vector<std::uint64_t>> words;
                                std::vector<std::uint8_t> keep;
                                const std::int64_t kept = in.nrows() > 0 ? encp->encode(in, words, keep) : 0;
                                const std::uint8_t* valid = has_value && in.nrows() > 0 ? in.valid(vcol) : nullptr;
                                std::vector<bool> masks(tag_schema.size(), false);
                                if (valid) masks.back() = true;
                                BatchBuilder out(ctx, kept, tag_schema, masks);
                                if (kept == 0) return;
                                const std::size_t es = has_value ? element_size(in.type(vcol)) : 0;
                                std::vector<std::int64_t*> wcol(static_cast<std::size_t>(W));
                                for (int w = 0; w < W; ++w)
                                  wcol[w] = out.column<std::int64_t>(static_cast<std::size_t>(w)).data();
                                std::int64_t* rcol = out.column<std::int64_t>(static_cast<std::size_t>(W)).data();
                                std::byte* vdst = has_value ? out.data(static_cast<std::size_t>(W) + 1) : nullptr;
                                const std::byte* vsrc = has_value ? in.data(vcol) : nullptr;
                                std::uint8_t* vvalid = valid ? out.valid(static_cast<std::size_t>(W) + 1) : nullptr;
                                std::size_t o = 0;
                                for (std::int64_t i = 0; i < in.nrows(); ++i) {
                                  const auto r = static_cast<std::size_t>(i);
                                  if (!keep[r]) continue;
                                  for (int w = 0; w < W; ++w) wcol[w][o] = static_cast<std::int64_t>(words[w][r]);
                                  rcol[o] = start + i;
                                  if (vdst) std::memcpy(vdst + o * es, vsrc + r * es, es);
                                  if (vvalid) vvalid[o] = valid[r];
                                  ++o;
                                }
                              }));
  }

  // 2. By key hash to one partition a group. Sized by the input's rows (an upper bound of the kept ones).
  std::vector<std::optional<std::int64_t>> known(rows.begin(), rows.end());
  const int nparts = choose_nparts(Frame(engine, tag_schema, tagged, known), 1);
  const auto part = detail::Partitioner::hash(comm.size(), nparts);
  const Frame tagged_frame(engine, tag_schema, std::move(tagged));
  const Frame by_key =
      device
          ? detail::shuffle_routed_on_device(
                tagged_frame, nparts, detail::device_route_by_key(std::make_shared<const detail::Partitioner>(part), W),
                "groupby-transform-shuffle")
          : shuffle_routed(tagged_frame, nparts, route_by_key_words(part, W), "groupby-transform-shuffle");

  // 3. Each partition's groups (ids in first-seen order, rows counting-sorted by group: a partition arrives in
  //    row order, by source rank and then source partition, so each group's rows stay in row order; sorted where
  //    not), computed group by group.
  const std::vector<ElementType> res_types = result_types(out_type);
  const std::vector<bool> res_masks{false, out_masked};
  std::vector<Chunk> results;
  for (const Chunk& p : by_key.partitions()) {
    if (device) {
      results.push_back(engine.tasks().submit(
          "groupby-transform", {p},
          [what, encp, row_bits, has_value, res_types, res_masks](TaskContext& ctx) {
            detail::transform_rows_on_device(ctx, what, *encp, row_bits, has_value, res_types, res_masks);
          },
          device_task()));
      continue;
    }
    results.push_back(
        engine.tasks().submit("groupby-transform", {p}, [what, W, has_value, res_types, res_masks](TaskContext& ctx) {
          const BatchView in = input_batch(ctx, 0);
          const auto n = static_cast<std::size_t>(in.nrows());
          // Scratch outside the task's buffers: group ids, the order, group starts and a group's values.
          Reservation room = ctx.memory().reserve("groupby transform scratch", n * 28 + 64);
          BatchBuilder out(ctx, static_cast<std::int64_t>(n), res_types, res_masks);
          if (n == 0) return;
          std::vector<std::int32_t> gid(n);
          detail::GroupIndex index(W, 0, 1024);
          {
            std::vector<const std::uint64_t*> wp(static_cast<std::size_t>(W));
            for (int w = 0; w < W; ++w)
              wp[w] =
                  reinterpret_cast<const std::uint64_t*>(in.column<std::int64_t>(static_cast<std::size_t>(w)).data());
            index.assign(wp.data(), n, gid.data());
          }
          const std::size_t G = index.size();
          std::vector<std::size_t> start(G + 1, 0);
          for (std::size_t i = 0; i < n; ++i) ++start[static_cast<std::size_t>(gid[i]) + 1];
          for (std::size_t g = 0; g < G; ++g) start[g + 1] += start[g];
          std::vector<std::int64_t> order(n);
          {
            std::vector<std::size_t> at(start.begin(), start.end() - 1);
            for (std::size_t i = 0; i < n; ++i)
              order[at[static_cast<std::size_t>(gid[i])]++] = static_cast<std::int64_t>(i);
          }
          std::vector<std::int32_t>().swap(gid);
          const std::int64_t* row = in.column<std::int64_t>(static_cast<std::size_t>(W)).data();
          const detail::ValueView values =
              has_value ? detail::ValueView(in, static_cast<std::size_t>(W) + 1) : detail::ValueView();
          detail::ResultColumn res{res_types[1], out.data(1), out.valid(1)};
          auto out_row = out.column<std::int64_t>(0);
          std::vector<double> scratch;
          for (std::size_t g = 0; g < G; ++g) {
            std::int64_t* seg = order.data() + start[g];
            const std::size_t m = start[g + 1] - start[g];
            if (!std::is_sorted(seg, seg + m, [&](std::int64_t a, std::int64_t b) { return row[a] < row[b]; }))
              std::sort(seg, seg + m, [&](std::int64_t a, std::int64_t b) { return row[a] < row[b]; });
            detail::transform_segment(what, values, seg, m, res, start[g], scratch);
            for (std::size_t t = 0; t < m; ++t) out_row[start[g] + t] = row[seg[t]];
          }
        }));
  }
  const Schema res_schema({{"row", ElementType::int64}, {out_name, out_type}}, {nullptr, out_dict});
  const Frame computed(engine, res_schema, std::move(results));

  // 4. Back to the partition that owns each row: buckets (rank, partition) in row order, the non-empty ones.
  const int back_parts = static_cast<int>(
      std::max<std::int64_t>(comm.allreduce(static_cast<std::int64_t>(rows.size()), ReduceOp::max), 1));
  std::vector<std::int64_t> bucket_start;
  std::vector<std::uint32_t> bucket_id;
  {
    std::int64_t at = 0;
    for (int r = 0; r < comm.size(); ++r)
      for (std::size_t j = 0; j < v.counts[static_cast<std::size_t>(r)]; ++j) {
        const std::int64_t m = all_rows[static_cast<std::size_t>(v.displs[static_cast<std::size_t>(r)]) + j];
        if (m > 0) {
          bucket_start.push_back(at);
          bucket_id.push_back(static_cast<std::uint32_t>(r * back_parts + static_cast<int>(j)));
        }
        at += m;
      }
  }
  auto starts_of = std::make_shared<const std::vector<std::int64_t>>(std::move(bucket_start));
  auto ids_of = std::make_shared<const std::vector<std::uint32_t>>(std::move(bucket_id));
  const Frame back =
      device ? detail::shuffle_routed_on_device(computed, back_parts, detail::device_route_by_row(starts_of, ids_of),
                                                "groupby-transform-return")
             : shuffle_routed(computed, back_parts, route_by_row(starts_of, ids_of), "groupby-transform-return");

  // 5. Scatter into place: rows no group produced (a null key) stay null.
  std::vector<Chunk> parts;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::int64_t start = starts[k], m = rows[k];
    if (device) {
      parts.push_back(engine.tasks().submit(
          "groupby-transform-scatter", {back.partitions()[k]},
          [out_schema, start, m](TaskContext& ctx) { detail::scatter_rows_on_device(ctx, out_schema, start, m); },
          device_task()));
      continue;
    }
    parts.push_back(engine.tasks().submit("groupby-transform-scatter", {back.partitions()[k]},
                                          [out_schema, out_type, out_masked, start, m](TaskContext& ctx) {
                                            const BatchView in = input_batch(ctx, 0);
                                            BatchBuilder out(ctx, m, out_schema, {out_masked});
                                            detail::ResultColumn res{out_type, out.data(0), out.valid(0)};
                                            for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i)
                                              res.set_null(i);
                                            if (in.nrows() == 0) return;
                                            const std::int64_t* row = in.column<std::int64_t>(0).data();
                                            const detail::ValueView values(in, 1);
                                            for (std::size_t i = 0; i < static_cast<std::size_t>(in.nrows()); ++i) {
                                              const std::int64_t at = row[i] - start;
                                              SLAB_EXPECTS(
                                                  at >= 0 && at < m, InvalidArgument,
                                                  "groupby transform: a result came back to the wrong partition");
                                              res.copy(static_cast<std::size_t>(at), values, i);
                                            }
                                          }));
  }
  // Computed now (the partitions stay spillable), so that a partition of whole groups too large for memory fails
  // here, on every rank together (persist agrees), with the operation named.
  Frame result(engine, out_schema, std::move(parts), known);
  try {
    result.persist();
  } catch (const OutOfMemory& err) {
    SLAB_FAIL(OutOfMemory, "groupby(...)." + std::string(to_string(what.op)) +
                               (what.column.empty() ? std::string() : "('" + what.column + "')") +
                               ": a partition of whole groups does not fit in memory (a single group larger than the "
                               "memory limit cannot be processed): " +
                               err.message());
  }
  return Series(result, out_name);
}

}  // namespace slab::frame
