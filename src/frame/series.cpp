// Series (one column of a frame, with pandas' reductions), concat and repartition_rows (series.hpp).
#include "slab/frame/series.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>

#include "frame/device_paths.hpp"
#include "frame/kernels/generate.hpp"
#include "frame/kernels/merge.hpp"
#include "frame/kernels/ops.hpp"
#include "frame/moments.hpp"
#include "frame/move_rows.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/column_recipe.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::frame {

using detail::global_moments;
using detail::Moments;

namespace {

/// Column c's moments over one batch on the host, in row order (Welford): the host twin of
/// OpsKernels::column_moments. A string column counts its non-null codes (its other moments are of 0).
Moments batch_moments(const BatchView& b, std::size_t c) {
  Moments m;
  const auto n = static_cast<std::size_t>(b.nrows());
  const ElementType type = b.type(c);
  const std::uint8_t* valid = b.valid(c);
  auto add = [&m](double v) {
    m.count += 1;
    m.sum += v;
    double d = v - m.mean;
    m.mean += d / m.count;
    m.m2 += d * (v - m.mean);
    m.min = std::isnan(m.min) ? v : std::min(m.min, v);
    m.max = std::isnan(m.max) ? v : std::max(m.max, v);
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (valid && !valid[i]) continue;
    if (type == ElementType::float64) {
      const double v = b.column<double>(c)[i];
      if (!std::isnan(v)) add(v);
    } else if (type == ElementType::boolean) {
      add(static_cast<double>(b.column<std::uint8_t>(c)[i]));
    } else if (type == ElementType::string) {
      if (b.column<std::int32_t>(c)[i] >= 0) add(0.0);
    } else {
      add(static_cast<double>(b.column<std::int64_t>(c)[i]));
    }
  }
  return m;
}

/// `o` (the moments of the rows after g's) merged into g (Chan et al.).
void merge_moments(Moments& g, const Moments& o) {
  if (o.count == 0) return;
  if (g.count == 0) {  // not through the formula: 0 * an infinite mean is NaN
    g = o;
    return;
  }
  double n = g.count + o.count;
  double d = o.mean - g.mean;
  g.m2 = g.m2 + o.m2 + d * d * g.count * o.count / n;
  g.mean = g.mean + d * o.count / n;
  g.count = n;
  g.sum += o.sum;
  g.min = std::min(g.min, o.min);
  g.max = std::max(g.max, o.max);
}

/// This rank's moments of columns `cols`: one small task per partition for all of them (on the device where the
/// frame takes device paths: OpsKernels::column_moments), merged in partition order, so that no partition is
/// held with another and an out-of-core frame streams through once.
std::vector<Moments> local_moments(const Frame& frame, const std::vector<std::size_t>& cols, std::string_view op) {
  TaskQueue& tasks = frame.engine().tasks();
  const bool device = detail::takes_device_paths(frame);
  if (!device) note_host_fallback(frame.engine(), op);
  const std::size_t bytes = 6 * sizeof(double) * std::max<std::size_t>(cols.size(), 1);  // never an empty output
  std::vector<Chunk> parts;
  for (const Chunk& p : frame.partitions())
    parts.push_back(tasks.submit(
        "series-moments", {p},
        [cols, device, bytes](TaskContext& ctx) {
          const BatchView in = input_batch(ctx, 0);
          std::vector<double> m(bytes / sizeof(double), 0.0);
          for (std::size_t k = 0; k < cols.size(); ++k) {
            if (device) {
              detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
                using B = typename decltype(tag)::type;
                kernels::OpsKernels<B>::column_moments(exec, detail::column_view(in, cols[k]), in.nrows(),
                                                       m.data() + 6 * k);
              });
            } else {
              const Moments h = batch_moments(in, cols[k]);
              const double v[6] = {h.count, h.sum, h.mean, h.m2, h.min, h.max};
              std::copy(v, v + 6, m.begin() + static_cast<std::ptrdiff_t>(6 * k));
            }
          }
          auto out = ctx.output(bytes);
          slab::copy(out.data(), m.data(), bytes, ctx.execution());
        },
        device ? device_task() : TaskOptions{}));
  tasks.persist(std::span<const Chunk>(parts));
  std::vector<Moments> g(cols.size());
  std::vector<double> m(bytes / sizeof(double));
  for (const Chunk& p : parts) {
    Pin pin = p.buffer()->pin();
    slab::copy(m.data(), pin.data(), bytes, tasks.memory().execution());
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const double* o = m.data() + 6 * k;
      merge_moments(g[k], Moments{o[0], o[1], o[2], o[3], o[4], o[5]});
    }
  }
  return g;
}

/// Every rank's local_moments of `cols`, merged in rank order: the same bits on every rank. Collective.
std::vector<Moments> gathered_moments(const Frame& frame, const std::vector<std::size_t>& cols, std::string_view op) {
  std::vector<Moments> mine;  // read outside any task: a failure on one rank fails on every rank
  frame.engine().comm().run_collectively([&] { mine = local_moments(frame, cols, op); });
  const Comm& comm = frame.engine().comm();
  const std::size_t w = 6 * cols.size();
  std::vector<double> flat;
  for (const Moments& m : mine) flat.insert(flat.end(), {m.count, m.sum, m.mean, m.m2, m.min, m.max});
  std::vector<double> all(w * static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const double>(flat), std::span<double>(all));
  std::vector<Moments> g(cols.size());
  for (int r = 0; r < comm.size(); ++r)
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const double* o = all.data() + w * static_cast<std::size_t>(r) + 6 * k;
      merge_moments(g[k], Moments{o[0], o[1], o[2], o[3], o[4], o[5]});
    }
  return g;
}

// `frame` with its string columns recoded to the dictionaries of `to` (same names and types): a code becomes its
// string's code in `to`, -1 where the row is null. On the device, merge's output gather with the remap
// (JoinKernels::gather of every row). Lazy.
Frame recode(const Frame& frame, const Schema& to) {
  const Schema& from = frame.schema();
  auto maps = std::make_shared<std::vector<std::vector<std::int64_t>>>(from.size());
  bool any = false;
  for (std::size_t c = 0; c < from.size(); ++c) {
    if (from.type(c) != ElementType::string || *from.dictionary(c) == *to.dictionary(c)) continue;
    any = true;
    for (const auto& s : *from.dictionary(c)) (*maps)[c].push_back(to.code_of(c, s));
  }
  if (!any) return Frame(frame.engine(), to, frame.partitions(), frame.partition_rows());
  const bool device = detail::takes_device_paths(frame);
  std::vector<Chunk> parts;
  for (const Chunk& part : frame.partitions())
    parts.push_back(frame.engine().tasks().submit(
        "concat.recode", {part},
        [maps, device](TaskContext& ctx) {
          const BatchView in = input_batch(ctx, 0);
          const auto n = static_cast<std::size_t>(in.nrows());
          std::vector<bool> masks;
          std::vector<ElementType> types;
          for (std::size_t c = 0; c < in.ncols(); ++c) {
            masks.push_back(n > 0 && in.valid(c) != nullptr);
            types.push_back(in.type(c));
          }
          BatchBuilder w(ctx, in.nrows(), types, masks);
          if (n == 0) return;
          if (device) {
            detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
              using B = typename decltype(tag)::type;
              slab::detail::ScratchBytes rows(exec, n * 8);
              kernels::GenerateKernels<B>::column(exec, ColumnRecipe::affine(0, 1), ElementType::int64, 0, in.nrows(),
                                                  rows.get());
              for (std::size_t c = 0; c < in.ncols(); ++c) {
                const std::vector<std::int64_t>& map = (*maps)[c];
                if (map.empty()) {
                  slab::copy(w.data(c), in.data(c), n * element_size(in.type(c)), ctx.execution());
                  if (auto* v = w.valid(c)) slab::copy(v, in.valid(c), n, ctx.execution());
                  continue;
                }
                slab::detail::ScratchBytes remap(exec, map.size() * 8);  // freed stream-ordered, after the gather
                slab::copy(remap.get(), map.data(), map.size() * 8, ctx.execution());
                const kernels::JoinSource source{detail::column_view(in, c),
                                                 static_cast<const std::int64_t*>(remap.get())};
                kernels::JoinKernels<B>::gather(exec, source, static_cast<const std::int64_t*>(rows.get()), nullptr,
                                                nullptr, in.nrows(), w.data(c), w.valid(c));
              }
            });
            return;
          }
          for (std::size_t c = 0; c < in.ncols(); ++c) {
            const std::vector<std::int64_t>& map = (*maps)[c];
            if (map.empty()) {
              std::memcpy(w.data(c), in.data(c), n * element_size(in.type(c)));
            } else {
              auto src = in.column<std::int32_t>(c);
              auto dst = w.column<std::int32_t>(c);
              const std::uint8_t* valid = in.valid(c);
              for (std::size_t i = 0; i < n; ++i)
                dst[i] = src[i] < 0 || (valid && !valid[i])
                             ? -1
                             : static_cast<std::int32_t>(map[static_cast<std::size_t>(src[i])]);
            }
            if (auto* v = w.valid(c)) std::memcpy(v, in.valid(c), n);
          }
        },
        device ? device_task() : TaskOptions{}));
  return Frame(frame.engine(), to, std::move(parts), frame.partition_rows());
}

}  // namespace

// Every rank's moments combined in rank order (Chan's formula), so every rank gets the same bits.
std::vector<Moments> detail::global_moments(const Frame& frame, const std::vector<std::string>& columns,
                                            std::string_view op) {
  std::vector<std::size_t> cols;
  for (const auto& column : columns) {
    const std::size_t c = frame.schema().index_of(column);
    SLAB_EXPECTS(frame.schema().type(c) != ElementType::string, TypeError,
                 "series '" + column + "': no numeric reduction of a string column");
    cols.push_back(c);
  }
  return gathered_moments(frame, cols, op);
}

Moments detail::global_moments(const Frame& frame, const std::string& column, std::string_view op) {
  return global_moments(frame, std::vector<std::string>{column}, op).at(0);
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
  return static_cast<std::int64_t>(gathered_moments(frame_, {frame_.schema().index_of(column_)}, "series").at(0).count);
}

double Series::sum() const { return global_moments(frame_, column_, "series").sum; }

double Series::mean() const {
  Moments m = global_moments(frame_, column_, "series");
  // sum / count as pandas does (an infinity gives +-inf, not Welford's NaN).
  return m.count == 0 ? std::numeric_limits<double>::quiet_NaN() : m.sum / m.count;
}

double Series::var() const {
  Moments m = global_moments(frame_, column_, "series");
  if (m.count < 2) return std::numeric_limits<double>::quiet_NaN();
  if (!std::isfinite(m.sum)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(m.m2, 0.0) / (m.count - 1);
}

double Series::std() const { return std::sqrt(var()); }
double Series::min() const { return global_moments(frame_, column_, "series").min; }
double Series::max() const { return global_moments(frame_, column_, "series").max; }
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
  return detail::move_rows(frame, starts, partition_rows, "repartition");
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
  return detail::move_rows(stacked, starts, target, "concat");
}

}  // namespace slab::frame
