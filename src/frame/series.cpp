// Series (one column of a frame, with pandas' reductions), concat and repartition_rows (series.hpp).
#include "slab/frame/series.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>

#include "frame/moments.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::frame {

using detail::global_moments;
using detail::Moments;

namespace {

Moments local_moments(const std::vector<double>& x) {
  Moments m;
  for (double v : x) {
    if (std::isnan(v)) continue;
    m.count += 1;
    m.sum += v;
    double d = v - m.mean;
    m.mean += d / m.count;
    m.m2 += d * (v - m.mean);
    m.min = std::isnan(m.min) ? v : std::min(m.min, v);
    m.max = std::isnan(m.max) ? v : std::max(m.max, v);
  }
  return m;
}

// Copy row perm[i] of every column of `in` but `skip` into row i of `w` (column indices shift past skip).
void permute_into(const BatchView& in, const std::vector<std::int64_t>& perm, std::size_t skip, BatchBuilder& w) {
  std::size_t oc = 0;
  for (std::size_t c = 0; c < in.ncols(); ++c) {
    if (c == skip) continue;
    std::size_t es = element_size(in.type(c));
    const std::byte* src = in.data(c);
    std::byte* dst = w.data(oc);
    for (std::size_t i = 0; i < perm.size(); ++i)
      std::memcpy(dst + i * es, src + static_cast<std::size_t>(perm[i]) * es, es);
    if (auto* v = w.valid(oc)) {
      const std::uint8_t* iv = in.valid(c);
      for (std::size_t i = 0; i < perm.size(); ++i) v[i] = iv[perm[i]];
    }
    ++oc;
  }
}

/**
 * The rows of `frame` (partition k of this rank starting at global position starts[k], its rows consecutive)
 * moved so that this rank holds partitions of `target` rows each, in position order. Collective: one
 * allgatherv of the targets, one shuffle.
 */
Frame move_rows(const Frame& frame, const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& target,
                const std::string& name) {
  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  const std::string pos_name = "__slab_position";
  Schema with_pos = frame.schema().with_column({pos_name, ElementType::int64});
  const std::size_t pos = with_pos.size() - 1;
  std::vector<Chunk> parts;
  for (std::size_t k = 0; k < frame.partitions().size(); ++k) {
    std::int64_t start = starts[k];
    parts.push_back(
        engine.tasks().submit(name + ".position", {frame.partitions()[k]}, [with_pos, pos, start](TaskContext& ctx) {
          BatchView in = input_batch(ctx, 0);
          std::vector<bool> masks;
          for (std::size_t c = 0; c < in.ncols(); ++c) masks.push_back(in.nrows() > 0 && in.valid(c) != nullptr);
          masks.push_back(false);
          BatchBuilder w(ctx, in.nrows(), with_pos, masks);
          auto n = static_cast<std::size_t>(in.nrows());
          for (std::size_t c = 0; c < in.ncols() && n > 0; ++c) {
            std::memcpy(w.data(c), in.data(c), n * element_size(in.type(c)));
            if (auto* v = w.valid(c)) std::memcpy(v, in.valid(c), n);
          }
          auto p = w.column<std::int64_t>(pos);
          std::iota(p.begin(), p.end(), start);
        }));
  }
  Frame positioned(engine, with_pos, std::move(parts), frame.partition_rows());

  // Buckets (rank, part) in position order; nparts = the most partitions a rank asks for.
  auto counts = static_cast<std::int64_t>(target.size());
  std::int64_t nparts = std::max<std::int64_t>(comm.allreduce(counts, ReduceOp::max), 1);
  std::vector<std::int64_t> all_targets;
  auto v = comm.allgatherv(std::span<const std::int64_t>(target), all_targets);
  std::vector<std::int64_t> bucket_start;  // of non-empty buckets only
  std::vector<std::uint32_t> bucket_id;
  std::int64_t at = 0;
  for (int r = 0; r < comm.size(); ++r)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(v.counts[r]); ++j) {
      std::int64_t rows = all_targets[static_cast<std::size_t>(v.displs[r] + j)];
      if (rows > 0) {
        bucket_start.push_back(at);
        bucket_id.push_back(static_cast<std::uint32_t>(r * nparts + j));
      }
      at += rows;
    }
  auto route = [bucket_start, bucket_id, pos](const BatchView& b, std::vector<std::uint32_t>& bucket) {
    bucket.resize(static_cast<std::size_t>(b.nrows()));
    if (b.nrows() == 0) return;
    auto p = b.column<std::int64_t>(pos);
    for (std::size_t i = 0; i < bucket.size(); ++i) {
      auto it = std::upper_bound(bucket_start.begin(), bucket_start.end(), p[i]);
      bucket[i] = bucket_id[static_cast<std::size_t>(it - bucket_start.begin()) - 1];
    }
  };
  Frame moved = shuffle_routed(positioned, static_cast<int>(nparts), route, name);

  // Each kept partition: its rows sorted by position (pieces arrive by source rank), the position dropped.
  Schema out = frame.schema();
  std::vector<Chunk> result;
  std::vector<std::optional<std::int64_t>> rows;
  for (std::size_t k = 0; k < target.size(); ++k) {
    result.push_back(engine.tasks().submit(name + ".order", {moved.partitions()[k]}, [out, pos](TaskContext& ctx) {
      BatchView in = input_batch(ctx, 0);
      std::vector<std::int64_t> perm(static_cast<std::size_t>(in.nrows()));
      std::iota(perm.begin(), perm.end(), 0);
      if (!perm.empty()) {
        auto p = in.column<std::int64_t>(pos);
        std::sort(perm.begin(), perm.end(), [&](std::int64_t a, std::int64_t b) { return p[a] < p[b]; });
      }
      std::vector<bool> masks;
      for (std::size_t c = 0; c < in.ncols(); ++c)
        if (c != pos) masks.push_back(in.nrows() > 0 && in.valid(c) != nullptr);
      BatchBuilder w(ctx, in.nrows(), out, masks);
      permute_into(in, perm, pos, w);
    }));
    rows.emplace_back(target[k]);
  }
  return Frame(engine, out, std::move(result), std::move(rows));
}

// `frame` with its string columns recoded to the dictionaries of `to` (same names and types). Lazy.
Frame recode(const Frame& frame, const Schema& to) {
  const Schema& from = frame.schema();
  std::vector<std::vector<std::int32_t>> maps(from.size());
  bool any = false;
  for (std::size_t c = 0; c < from.size(); ++c) {
    if (from.type(c) != ElementType::string || *from.dictionary(c) == *to.dictionary(c)) continue;
    any = true;
    for (const auto& s : *from.dictionary(c)) maps[c].push_back(to.code_of(c, s));
  }
  if (!any) return Frame(frame.engine(), to, frame.partitions(), frame.partition_rows());
  return map_partitions(
      frame, to, "concat.recode",
      [maps](const BatchView& in, TaskContext& ctx) {
        std::vector<bool> masks;
        for (std::size_t c = 0; c < in.ncols(); ++c) masks.push_back(in.nrows() > 0 && in.valid(c) != nullptr);
        std::vector<ElementType> types;
        for (std::size_t c = 0; c < in.ncols(); ++c) types.push_back(in.type(c));
        BatchBuilder w(ctx, in.nrows(), types, masks);
        auto n = static_cast<std::size_t>(in.nrows());
        for (std::size_t c = 0; c < in.ncols() && n > 0; ++c) {
          if (maps[c].empty()) {
            std::memcpy(w.data(c), in.data(c), n * element_size(in.type(c)));
          } else {
            auto src = in.column<std::int32_t>(c);
            auto dst = w.column<std::int32_t>(c);
            for (std::size_t i = 0; i < n; ++i) dst[i] = src[i] < 0 ? -1 : maps[c][static_cast<std::size_t>(src[i])];
          }
          if (auto* v = w.valid(c)) std::memcpy(v, in.valid(c), n);
        }
      },
      true);
}

}  // namespace

// Every rank's moments combined in rank order (Chan's formula), so every rank gets the same bits.
Moments detail::global_moments(const Frame& frame, const std::string& column) {
  std::size_t c = frame.schema().index_of(column);
  SLAB_EXPECTS(frame.schema().type(c) != ElementType::string, TypeError,
               "series '" + column + "': no numeric reduction of a string column");
  Moments m = local_moments(local_values(frame, column));
  const Comm& comm = frame.engine().comm();
  double mine[6] = {m.count, m.sum, m.mean, m.m2, m.min, m.max};
  std::vector<double> all(6 * static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const double>(mine, 6), std::span<double>(all));
  Moments g;
  for (int r = 0; r < comm.size(); ++r) {
    const double* o = all.data() + 6 * r;
    if (o[0] == 0) continue;
    double n = g.count + o[0];
    double d = o[2] - g.mean;
    g.m2 = g.m2 + o[3] + d * d * g.count * o[0] / n;
    g.mean = g.count == 0 ? o[2] : g.mean + d * o[0] / n;
    g.count = n;
    g.sum += o[1];
    g.min = std::isnan(g.min) ? o[4] : std::min(g.min, o[4]);
    g.max = std::isnan(g.max) ? o[5] : std::max(g.max, o[5]);
  }
  return g;
}

// ---- Series.

Series::Series(Frame frame, std::string column) : frame_(std::move(frame)), column_(std::move(column)) {
  SLAB_EXPECTS(frame_.valid(), InvalidArgument, "Series('" + column_ + "'): no frame");
  (void)frame_.schema().index_of(column_);
}

ElementType Series::dtype() const { return frame_.schema().type(frame_.schema().index_of(column_)); }

Frame Series::to_frame() const {
  if (frame_.schema().size() == 1) return frame_;
  return select(frame_, {column_});
}

std::int64_t Series::count() const {
  if (dtype() != ElementType::string) return static_cast<std::int64_t>(global_moments(frame_, column_).count);
  LocalTable t = to_frame().local_table();
  std::int64_t n = 0;
  for (std::size_t i = 0; i < t.columns[0].size(); ++i) n += t.columns[0].is_null(i) ? 0 : 1;
  return frame_.engine().comm().allreduce(n, ReduceOp::sum);
}

double Series::sum() const { return global_moments(frame_, column_).sum; }

double Series::mean() const {
  Moments m = global_moments(frame_, column_);
  // sum / count as pandas does (an infinity gives +-inf, not Welford's NaN).
  return m.count == 0 ? std::numeric_limits<double>::quiet_NaN() : m.sum / m.count;
}

double Series::var() const {
  Moments m = global_moments(frame_, column_);
  if (m.count < 2) return std::numeric_limits<double>::quiet_NaN();
  if (!std::isfinite(m.sum)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(m.m2, 0.0) / (m.count - 1);
}

double Series::std() const { return std::sqrt(var()); }
double Series::min() const { return global_moments(frame_, column_).min; }
double Series::max() const { return global_moments(frame_, column_).max; }
std::int64_t Series::nunique() const { return frame::nunique(frame_, column_); }
LocalTable Series::value_counts() const { return frame::value_counts(frame_, column_); }
LocalTable Series::head(std::int64_t n) const { return frame::head(to_frame(), n); }
LocalTable Series::tail(std::int64_t n) const { return frame::tail(to_frame(), n); }
LocalColumn Series::gather_all() const { return to_frame().gather_all().columns.at(0); }

// ---- concat and repartition_rows.

Frame repartition_rows(const Frame& frame, const std::vector<std::int64_t>& partition_rows) {
  const Comm& comm = frame.engine().comm();
  std::int64_t want = std::accumulate(partition_rows.begin(), partition_rows.end(), std::int64_t{0});
  std::int64_t total = comm.allreduce(want, ReduceOp::sum);
  std::int64_t have = frame.len();
  SLAB_EXPECTS(total == have, InvalidArgument,
               "repartition_rows: the partitions asked for hold " + std::to_string(total) + " rows, the frame " +
                   std::to_string(have));
  std::vector<std::int64_t> starts;
  std::int64_t at = frame.global_offset();
  for (auto r : frame.local_partition_rows()) {
    starts.push_back(at);
    at += r;
  }
  return move_rows(frame, starts, partition_rows, "repartition");
}

Frame concat(const std::vector<Frame>& frames) {
  SLAB_EXPECTS(!frames.empty(), InvalidArgument, "concat: no frames");
  const Schema& first = frames[0].schema();
  for (std::size_t f = 1; f < frames.size(); ++f) {
    const Schema& s = frames[f].schema();
    for (std::size_t c = 0; c < std::max(first.size(), s.size()); ++c) {
      bool same = c < first.size() && c < s.size() && first.field(c) == s.field(c);
      SLAB_EXPECTS(same, InvalidArgument,
                   "concat: frame " + std::to_string(f) + "'s column " + std::to_string(c) + " is " +
                       (c < s.size() ? "'" + s.name(c) + "' (" + to_string(s.type(c)) + ")" : "missing") +
                       ", frame 0's is " +
                       (c < first.size() ? "'" + first.name(c) + "' (" + to_string(first.type(c)) + ")" : "missing"));
    }
  }
  note_host_fallback(frames[0].engine(), "concat");
  // One schema with each string column's sorted union of dictionaries (replicated: no communication).
  Schema unified = first;
  for (std::size_t c = 0; c < first.size(); ++c) {
    if (first.type(c) != ElementType::string) continue;
    std::set<std::string> all;
    for (const auto& f : frames) all.insert(f.schema().dictionary(c)->begin(), f.schema().dictionary(c)->end());
    unified.set_dictionary(c, make_dictionary(std::vector<std::string>(all.begin(), all.end())));
  }
  // Every input partition, at its global position in the result.
  Engine& engine = frames[0].engine();
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> rows;
  std::vector<std::int64_t> starts;
  std::int64_t base = 0;
  for (const auto& f : frames) {
    SLAB_EXPECTS(&f.engine() == &engine, InvalidArgument, "concat: the frames belong to different engines");
    Frame r = recode(f, unified);
    std::int64_t at = base + f.global_offset();
    const std::vector<std::int64_t> counts = f.local_partition_rows();  // collective: once per frame
    for (std::size_t k = 0; k < r.partitions().size(); ++k) {
      std::int64_t n = counts[k];
      parts.push_back(r.partitions()[k]);
      rows.emplace_back(n);
      starts.push_back(at);
      at += n;
    }
    base += f.len();
  }
  Frame stacked(engine, unified, std::move(parts), std::move(rows));
  // Even blocks over the ranks, in as many partitions per rank as the inputs had on average.
  const Comm& comm = engine.comm();
  auto p = static_cast<std::int64_t>(comm.size());
  auto r = static_cast<std::int64_t>(comm.rank());
  std::int64_t nparts_total = comm.allreduce(static_cast<std::int64_t>(stacked.partitions().size()), ReduceOp::sum);
  std::int64_t per_rank = std::max<std::int64_t>((nparts_total + p - 1) / p, 1);
  std::int64_t lo = base * r / p, hi = base * (r + 1) / p;
  std::vector<std::int64_t> target;
  for (std::int64_t j = 0; j < per_rank; ++j) {
    std::int64_t a = lo + (hi - lo) * j / per_rank, b = lo + (hi - lo) * (j + 1) / per_rank;
    if (b > a || j == 0) target.push_back(b - a);
  }
  if (hi == lo) target.clear();
  return move_rows(stacked, starts, target, "concat");
}

}  // namespace slab::frame
