// Resampling by a fixed frequency (slab/frame/resample.hpp): the bins are groupby's keys, then each rank fills the
// empty bins before each of its own.
#include "slab/frame/resample.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "frame/device_paths.hpp"
#include "frame/kernels/resample.hpp"
#include "frame/kernels/resample_hd.hpp"
#include "frame/time_bounds.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/core/time.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/sort.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::frame {

std::int64_t parse_resample_freq(std::string_view freq) {
  std::int64_t ns = 0;
  SLAB_EXPECTS(parse_duration(freq, ns), InvalidArgument,
               "resample: '" + std::string(freq) +
                   "' is not a fixed frequency (a positive number and one of ns, us, ms, s, min, h, D: 1h, 15min, "
                   "30s, 2D; calendar frequencies such as W, ME, YE have no fixed width)");
  return ns;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// `on` names a timestamp column of `schema`: the same answer on every rank.
std::size_t check_on(const Schema& schema, const std::string& on) {
  SLAB_EXPECTS(!on.empty(), InvalidArgument,
               "resample: name the timestamp column to bin by, as df.resample(\"1h\", \"timestamp\") (a slab frame "
               "has no index)");
  const auto c = schema.find(on);
  SLAB_EXPECTS(c.has_value(), InvalidArgument,
               "resample: on='" + on + "' is not a column (columns: " + joined(schema.names()) + ")");
  SLAB_EXPECTS(
      schema.type(*c) == ElementType::timestamp, TypeError,
      "resample: on='" + on + "' is a " + to_string(schema.type(*c)) + " column; resample bins by a timestamp column");
  return *c;
}

// What an empty bin holds in an output column of `op` and `type`: false when it is a null (a mask is needed).
bool empty_bin_value(AggOp op, ElementType type, std::byte* value) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), fzero = 0.0;
  const std::int64_t zero = 0;
  switch (op) {
    case AggOp::count:
    case AggOp::size:
    case AggOp::nunique:
    case AggOp::sum:  // pandas' sum of no values is 0 (min_count=0)
      if (type == ElementType::float64)
        std::memcpy(value, &fzero, sizeof fzero);
      else
        std::memcpy(value, &zero, sizeof zero);
      return true;
    case AggOp::mean:
    case AggOp::std:
    case AggOp::var:
    case AggOp::median:
    case AggOp::quantile:
      std::memcpy(value, &nan, sizeof nan);
      return true;
    case AggOp::min:
    case AggOp::max:
    case AggOp::first:
    case AggOp::last:
      break;
  }
  switch (type) {
    case ElementType::float64:
      std::memcpy(value, &nan, sizeof nan);
      return true;
    case ElementType::string: {
      const std::int32_t none = -1;
      std::memcpy(value, &none, sizeof none);
      return false;
    }
    default:
      std::memset(value, 0, element_size(type));
      return false;
  }
}

// Each output column's empty-bin value (its 8 bytes, of which a column uses its element size) and whether it is
// valid, for fill_bins and fill_bins_on_device alike; column 0 (the bins) is never empty.
struct EmptyBins {
  std::vector<std::uint64_t> value;
  std::vector<bool> valid;
};
EmptyBins empty_bins(const std::vector<AggOp>& ops, const Schema& schema) {
  const std::size_t nc = schema.size();
  EmptyBins e{std::vector<std::uint64_t>(nc, 0), std::vector<bool>(nc, true)};
  for (std::size_t c = 1; c < nc; ++c) {
    std::array<std::byte, 8> bytes{};
    e.valid[c] = empty_bin_value(ops[c - 1], schema.type(c), bytes.data());
    std::memcpy(&e.value[c], bytes.data(), bytes.size());
  }
  return e;
}

// The result's rows for the bins lo, lo + freq, ... (m of them) from `in`, a partition of groupby's result (bins in
// column 0, ascending): the bins `in` holds are copied, the others are empty bins.
void fill_bins(const BatchView& in, std::int64_t lo, std::int64_t m, std::int64_t freq, const std::vector<AggOp>& ops,
               const Schema& schema, TaskContext& ctx) {
  const auto n = static_cast<std::size_t>(in.nrows());
  const std::int64_t* keys = n ? in.column<std::int64_t>(0).data() : nullptr;
  const auto hi = static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) +
                                            static_cast<std::uint64_t>(m - 1) * static_cast<std::uint64_t>(freq));
  std::size_t r = static_cast<std::size_t>(std::lower_bound(keys, keys + n, lo) - keys);
  const auto end = static_cast<std::size_t>(std::upper_bound(keys, keys + n, hi) - keys);
  const bool gaps = static_cast<std::int64_t>(end - r) < m;
  const std::size_t nc = schema.size();
  const EmptyBins empty = empty_bins(ops, schema);
  std::vector<bool> masks(nc, false);
  for (std::size_t c = 1; c < nc; ++c) masks[c] = (n > 0 && in.valid(c) != nullptr) || (gaps && !empty.valid[c]);
  BatchBuilder w(ctx, m, schema, masks);
  std::int64_t* out_keys = w.column<std::int64_t>(0).data();
  for (std::int64_t j = 0; j < m; ++j) {
    const std::int64_t bin = kernels::resample_nth_bin(lo, j, freq);
    out_keys[j] = bin;
    const bool present = r < end && keys[r] == bin;
    for (std::size_t c = 1; c < nc; ++c) {
      const std::size_t size = element_size(schema.type(c));
      std::byte* dst = w.data(c) + static_cast<std::size_t>(j) * size;
      std::uint8_t* valid = w.valid(c);
      if (present) {
        std::memcpy(dst, in.data(c) + r * size, size);
        if (valid) valid[j] = in.valid(c) ? in.valid(c)[r] : 1;
      } else {
        std::memcpy(dst, &empty.value[c], size);
        if (valid) valid[j] = empty.valid[c] ? 1 : 0;
      }
    }
    if (present) ++r;
  }
}

// fill_bins on the device kernels: each bin's row of `in` by binary search, then one fill per column (the
// empty bins' values and masks as fill_bins writes them).
void fill_bins_on_device(const BatchView& in, std::int64_t lo, std::int64_t m, std::int64_t freq,
                         const std::vector<AggOp>& ops, const Schema& schema, TaskContext& ctx) {
  const std::size_t nc = schema.size();
  const EmptyBins empty = empty_bins(ops, schema);
  std::vector<bool> masks(nc, false);
  detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
    using B = typename decltype(tag)::type;
    const std::int64_t n = in.nrows();
    slab::detail::ScratchBytes keys(exec, static_cast<std::size_t>(m) * 8), rows(exec, static_cast<std::size_t>(m) * 8);
    const std::int64_t present = kernels::ResampleKernels<B>::bin_rows(
        exec, n ? reinterpret_cast<const std::int64_t*>(in.data(0)) : nullptr, n, lo, m, freq,
        static_cast<std::int64_t*>(keys.get()), static_cast<std::int64_t*>(rows.get()));
    for (std::size_t c = 1; c < nc; ++c)
      masks[c] = (n > 0 && in.valid(c) != nullptr) || (present < m && !empty.valid[c]);
    BatchBuilder w(ctx, m, schema, masks);
    slab::copy(w.data(0), keys.get(), static_cast<std::size_t>(m) * 8, ctx.execution());
    for (std::size_t c = 1; c < nc; ++c) {
      const kernels::ColumnView column =
          n ? detail::column_view(in, c) : kernels::ColumnView{schema.type(c), nullptr, nullptr};
      kernels::ResampleKernels<B>::fill(exec, column, static_cast<const std::int64_t*>(rows.get()), m, empty.value[c],
                                        empty.valid[c], w.data(c), w.valid(c));
    }
    ctx.execution().synchronize();
  });
}

// `source`'s columns `cols` (the binned schema) with column 0, the times, replaced by their bins from `first_bin`.
Frame bin_times(const Frame& source, const std::vector<std::size_t>& cols, const Schema& binned_schema,
                std::int64_t first_bin, std::int64_t freq, bool device) {
  auto body = [cols, first_bin, freq, binned_schema, device](const BatchView& b, TaskContext& ctx) {
    const auto n = static_cast<std::size_t>(b.nrows());
    std::vector<bool> masks;
    for (auto c : cols) masks.push_back(n > 0 && b.valid(c) != nullptr);
    BatchBuilder w(ctx, b.nrows(), binned_schema, masks);
    if (n == 0) return;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      slab::copy(w.data(k), b.data(cols[k]), n * element_size(b.type(cols[k])), ctx.execution());
      if (auto* v = w.valid(k)) slab::copy(v, b.valid(cols[k]), n, ctx.execution());
    }
    auto* t = reinterpret_cast<std::int64_t*>(w.data(0));
    if (device) {
      detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
        kernels::ResampleKernels<typename decltype(tag)::type>::bins(exec, {ElementType::timestamp, t, w.valid(0)},
                                                                     b.nrows(), first_bin, freq, t);
      });
      ctx.execution().synchronize();
      return;
    }
    const std::uint8_t* valid = w.valid(0);
    for (std::size_t i = 0; i < n; ++i)
      if (!valid || valid[i]) t[i] = kernels::resample_bin(t[i], first_bin, freq);
  };
  if (!device) return map_partitions(source, binned_schema, "resample-bins", body, true);
  std::vector<Chunk> parts;
  for (const Chunk& chunk : source.partitions())
    parts.push_back(source.engine().tasks().submit(
        "resample-bins", {chunk}, [body](TaskContext& ctx) { body(input_batch(ctx, 0), ctx); }, device_task()));
  return Frame(source.engine(), binned_schema, std::move(parts), source.partition_rows());
}

}  // namespace

Resampler::Resampler(Frame frame, std::int64_t freq_ns, std::string on)
    : frame_(std::move(frame)), freq_(freq_ns), on_(std::move(on)) {
  // frame::resample's checks, made now as pandas makes them when resample() is called.
  SLAB_EXPECTS(freq_ > 0, InvalidArgument,
               "resample: the frequency must be positive, got " + std::to_string(freq_) + " ns");
  (void)check_on(frame_.schema(), on_);
}

Frame resample(const Frame& frame, std::int64_t freq, const std::string& on,
               const std::vector<Aggregation>& aggregations) {
  SLAB_EXPECTS(freq > 0, InvalidArgument,
               "resample: the frequency must be positive, got " + std::to_string(freq) + " ns");
  const Schema& in = frame.schema();
  const std::size_t on_col = check_on(in, on);
  SLAB_EXPECTS(!aggregations.empty(), InvalidArgument, "resample: no aggregation");
  // The columns the bins and the aggregations read: `on` first, then each aggregated column once.
  std::vector<std::size_t> cols{on_col};
  std::vector<AggOp> ops;  // per output column after the bins, as groupby orders them
  for (const auto& a : aggregations) {
    SLAB_EXPECTS(a.column != on, InvalidArgument,
                 "resample: the time column '" + on + "' is the bins and cannot be aggregated");
    const std::size_t c = in.index_of(a.column);  // unknown: InvalidArgument naming it
    if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    ops.insert(ops.end(), a.ops.begin(), a.ops.end());
  }
  std::vector<Field> fields;
  std::vector<Dictionary> dicts;
  for (auto c : cols) fields.push_back(in.field(c)), dicts.push_back(in.dictionary(c));
  const Schema binned_schema(fields, dicts);

  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  const std::string where = "resample('" + format_duration(freq) + "', on='" + on + "')";

  // One pass over the times, a TimeBounds per partition (on the device kernels where the frame takes them):
  // the earliest (the bins start at midnight of its day, pandas' origin='start_day') and whether they are in
  // order already (nulls aside), folded in partition order.
  const bool device = detail::takes_device_paths(frame);
  std::int64_t mine[5] = {0, std::numeric_limits<std::int64_t>::max(), 0, 0, 1};  // any, min, first, last, sorted
  auto fold = [&mine](const kernels::TimeBounds& b) {
    if (!b.any) return;
    if (!b.sorted || (mine[0] && b.first < mine[3])) mine[4] = 0;  // out of order within, or after the last
    if (!mine[0]) mine[0] = 1, mine[2] = b.first;
    mine[1] = std::min(mine[1], b.min), mine[3] = b.last;
  };
  comm.run_collectively([&] {  // a partition read failing on one rank fails on every rank, not in the allgather
    for (const kernels::TimeBounds& b : detail::time_bounds(frame, on_col, device)) fold(b);
  });
  std::vector<std::int64_t> all_times(5 * static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const std::int64_t>(mine, 5), std::span<std::int64_t>(all_times));
  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  bool sorted = true;
  std::optional<std::int64_t> last_time;
  for (int r = 0; r < comm.size(); ++r) {
    const std::int64_t* o = &all_times[5 * static_cast<std::size_t>(r)];
    if (!o[0]) continue;
    earliest = std::min(earliest, o[1]);
    sorted = sorted && o[4] && (!last_time || *last_time <= o[2]);
    last_time = o[3];
  }
  const __int128 day = kNanosPerDay;
  __int128 origin = earliest / day * day;
  if (origin > earliest) origin -= day;
  const __int128 first_bin_wide = origin + (earliest - origin) / freq * freq;
  SLAB_EXPECTS(first_bin_wide >= std::numeric_limits<std::int64_t>::min(), InvalidArgument,
               where +
                   ": the first bin would start before 1677-09-21 00:12:43.145224192, the earliest time an int64 "
                   "of nanoseconds holds");
  // Every time is >= the first bin, which lies on origin's grid: the bins from it are the bins from origin, in
  // 64-bit arithmetic (kernels/resample_hd.hpp).
  const auto first_bin = static_cast<std::int64_t>(first_bin_wide);

  // first/last are a bin's first/last values in time order (pandas sorts by the times, stably, before grouping),
  // so times out of order are sorted first (stable: equal times keep their row order); the other aggregations do
  // not depend on the order.
  const bool ordered =
      std::any_of(ops.begin(), ops.end(), [](AggOp op) { return op == AggOp::first || op == AggOp::last; });
  Frame source = frame;
  std::vector<std::size_t> source_cols = cols;
  if (ordered && !sorted) {
    std::vector<std::string> names;
    for (auto c : cols) names.push_back(in.name(c));
    source = sort_values(select(frame, names), std::vector<std::string>{on}, true, NullsPosition::last);
    for (std::size_t k = 0; k < cols.size(); ++k) source_cols[k] = k;
  }

  // Each row's bin, then the groupby of the bins.
  const Frame binned = bin_times(source, source_cols, binned_schema, first_bin, freq, device);
  Frame g = groupby(binned, {on}, aggregations, GroupbyOptions{});
  g.persist();
  const Schema out = g.schema();

  // Each local partition's first and last bin; each rank's, allgathered, give the bin before this rank's first.
  const std::vector<std::int64_t> rows = g.local_partition_rows();
  std::vector<std::pair<std::int64_t, std::int64_t>> ends(rows.size());
  std::int64_t ends_mine[3] = {0, 0, 0};  // has bins, first, last
  comm.run_collectively([&] {  // a partition read failing on one rank fails on every rank, not in the allgather
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (rows[k] == 0) continue;
      // Where the partition lies: its first and last bins' 8 bytes each are copied (on a GPU, out of device memory).
      const Chunk& chunk = g.partitions()[k];
      auto [pin, b] = detail::view_chunk_in_place(chunk);
      const auto* keys = reinterpret_cast<const std::int64_t*>(b.data(0));
      slab::copy(&ends[k].first, keys, sizeof(std::int64_t), chunk.buffer()->execution());
      slab::copy(&ends[k].second, keys + rows[k] - 1, sizeof(std::int64_t), chunk.buffer()->execution());
      if (!ends_mine[0]) ends_mine[1] = ends[k].first;
      ends_mine[0] = 1, ends_mine[2] = ends[k].second;
    }
  });
  std::vector<std::int64_t> all(3 * static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const std::int64_t>(ends_mine, 3), std::span<std::int64_t>(all));
  std::optional<std::int64_t> prev;
  for (int r = 0; r < comm.rank(); ++r)
    if (all[3 * static_cast<std::size_t>(r)]) prev = all[3 * static_cast<std::size_t>(r) + 2];

  // The filled partitions: the bins after the previous one up to each partition's last, in pieces that keep a
  // piece within the budget of the eight buffers a consumer (a shuffle, a groupby) holds around it.
  std::uint64_t row_bytes = 0;
  for (std::size_t c = 0; c < out.size(); ++c) row_bytes += element_size(out.type(c)) + 1;
  const auto piece_rows = static_cast<std::int64_t>(
      std::max<std::uint64_t>(1024, engine.memory().budget(8) / std::max<std::uint64_t>(row_bytes, 1)));
  auto shared_ops = std::make_shared<const std::vector<AggOp>>(ops);
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> part_rows;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (rows[k] == 0) continue;
    const std::int64_t start = prev ? *prev + freq : ends[k].first;
    // In unsigned arithmetic: a span of centuries of nanoseconds need not fit an int64.
    const auto span = static_cast<std::uint64_t>(ends[k].second) - static_cast<std::uint64_t>(start);
    const auto count = static_cast<std::int64_t>(span / static_cast<std::uint64_t>(freq)) + 1;
    for (std::int64_t j0 = 0; j0 < count; j0 += piece_rows) {
      const auto lo = static_cast<std::int64_t>(static_cast<std::uint64_t>(start) +
                                                static_cast<std::uint64_t>(j0) * static_cast<std::uint64_t>(freq));
      const std::int64_t m = std::min(piece_rows, count - j0);
      parts.push_back(engine.tasks().submit(
          "resample-fill", {g.partitions()[k]},
          [lo, m, freq, shared_ops, out, device](TaskContext& ctx) {
            if (device)
              fill_bins_on_device(input_batch(ctx, 0), lo, m, freq, *shared_ops, out, ctx);
            else
              fill_bins(input_batch(ctx, 0), lo, m, freq, *shared_ops, out, ctx);
          },
          device ? device_task() : TaskOptions{}));
      part_rows.emplace_back(m);
    }
    prev = ends[k].second;
  }
  return Frame(engine, out, std::move(parts), std::move(part_rows));
}

}  // namespace slab::frame
