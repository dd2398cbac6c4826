// Frame's pandas-style methods (frame.hpp), GroupBy (groupby.hpp), Rolling (rolling.hpp), Resampler (resample.hpp)
// and merge with pandas' keywords (merge.hpp): thin layers over the free functions, which stay the one
// implementation of each operation.
#include <algorithm>
#include <cstring>

#include "frame/device_paths.hpp"
#include "frame/map_partitions.hpp"
#include "slab/core/error.hpp"
#include "slab/frame/expr.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/groupby_transform.hpp"
#include "slab/frame/merge.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/resample.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/series.hpp"
#include "slab/frame/sort.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab::frame {

namespace {

std::vector<std::string> names_of(std::initializer_list<const char*> names) {
  std::vector<std::string> out;
  for (const char* n : names) out.emplace_back(n);
  return out;
}

// The columns `sources` of `frame` (indices, repeats allowed) under the names `names`, one task per partition.
Frame project(const Frame& frame, const std::vector<std::size_t>& sources, const std::vector<std::string>& names) {
  const Schema& in = frame.schema();
  std::vector<Field> fields;
  std::vector<Dictionary> dicts;
  for (std::size_t k = 0; k < sources.size(); ++k) {
    fields.push_back({names[k], in.type(sources[k])});
    dicts.push_back(in.dictionary(sources[k]));
  }
  Schema out(std::move(fields), std::move(dicts));
  // Columns moved with the memory-kind-aware copy: the same task on the host and on a device context.
  return detail::map_partitions_with(
      frame, out, "project",
      [sources, out](const BatchView& b, TaskContext& ctx) {
        std::vector<bool> masks;
        for (auto s : sources) masks.push_back(b.nrows() > 0 && b.valid(s) != nullptr);
        BatchBuilder w(ctx, b.nrows(), out, masks);
        auto n = static_cast<std::size_t>(b.nrows());
        if (n == 0) return;
        for (std::size_t k = 0; k < sources.size(); ++k) {
          slab::copy(w.data(k), b.data(sources[k]), n * element_size(b.type(sources[k])), ctx.execution());
          if (auto* v = w.valid(k)) slab::copy(v, b.valid(sources[k]), n, ctx.execution());
        }
      },
      true, detail::takes_device_paths(frame));
}

bool applies(AggOp op, ElementType t) {
  switch (op) {
    case AggOp::sum:
    case AggOp::mean:
    case AggOp::std:
    case AggOp::var:
    case AggOp::median:
    case AggOp::quantile:
      return t == ElementType::int64 || t == ElementType::float64 || t == ElementType::boolean;
    case AggOp::min:
    case AggOp::max:
      return t == ElementType::int64 || t == ElementType::float64 || t == ElementType::boolean ||
             t == ElementType::timestamp;
    default:
      return true;
  }
}

std::vector<Aggregation> parse_specs(const std::vector<AggSpec>& aggregations) {
  std::vector<Aggregation> aggs;
  for (const auto& a : aggregations) {
    Aggregation g{a.column, {}};
    for (const auto& op : a.ops) {
      double q = 0.5;
      g.ops.push_back(parse_agg_op(op, q));
      if (g.ops.back() == AggOp::quantile) g.quantiles.push_back(q);
    }
    aggs.push_back(std::move(g));
  }
  return aggs;
}

// NamedAggs as the Aggregations to compute (one per input column, first appearance order, each (column, op) once,
// size once in all; each quantile's q once) and, per NamedAgg, the name of its column in their result.
std::pair<std::vector<Aggregation>, std::vector<std::string>> plan_named(const std::vector<NamedAgg>& aggregations) {
  std::vector<Aggregation> aggs;
  std::vector<std::string> sources;
  bool have_size = false;
  for (const auto& a : aggregations) {
    double q = 0.5;
    AggOp op = parse_agg_op(a.op, q);
    sources.push_back(agg_column_name(a.column, op, q));
    if (op == AggOp::size && have_size) continue;
    have_size = have_size || op == AggOp::size;
    auto it = std::find_if(aggs.begin(), aggs.end(), [&](const Aggregation& g) { return g.column == a.column; });
    if (it == aggs.end()) it = aggs.insert(aggs.end(), Aggregation{a.column, {}});
    if (op == AggOp::quantile) {
      if (std::find(it->quantiles.begin(), it->quantiles.end(), q) == it->quantiles.end()) {
        it->ops.push_back(op);
        it->quantiles.push_back(q);
      }
    } else if (std::find(it->ops.begin(), it->ops.end(), op) == it->ops.end()) {
      it->ops.push_back(op);
    }
  }
  return {std::move(aggs), std::move(sources)};
}

// The first `nkeys` columns of `g`, then each NamedAgg's source column under its name.
Frame project_named(const Frame& g, std::size_t nkeys, const std::vector<NamedAgg>& aggregations,
                    const std::vector<std::string>& sources) {
  std::vector<std::size_t> idx;
  std::vector<std::string> names;
  for (std::size_t k = 0; k < nkeys; ++k) {
    idx.push_back(k);
    names.push_back(g.schema().name(k));
  }
  for (std::size_t k = 0; k < aggregations.size(); ++k) {
    idx.push_back(g.schema().index_of(sources[k]));
    names.push_back(aggregations[k].name);
  }
  return project(g, idx, names);
}

// Every column but `skip` that `op` applies to, each with `op`.
std::vector<Aggregation> all_columns(const Schema& schema, const std::vector<std::string>& skip, AggOp op,
                                     double q = 0.5) {
  std::vector<Aggregation> aggs;
  for (const auto& f : schema.fields())
    if (std::find(skip.begin(), skip.end(), f.name) == skip.end() && applies(op, f.type))
      aggs.push_back({f.name, {op}, op == AggOp::quantile ? std::vector<double>{q} : std::vector<double>{}});
  return aggs;
}

}  // namespace

// ---- Frame's methods.

GroupBy Frame::groupby(const std::vector<std::string>& keys) const { return GroupBy(*this, keys); }
GroupBy Frame::groupby(std::initializer_list<const char*> keys) const { return GroupBy(*this, names_of(keys)); }
GroupBy Frame::groupby(const std::string& key) const { return GroupBy(*this, {key}); }

Frame Frame::sort_values(std::initializer_list<SortKey> keys) const {
  return frame::sort_values(*this, std::vector<SortKey>(keys));
}
Frame Frame::sort_values(const std::vector<SortKey>& keys) const { return frame::sort_values(*this, keys); }
Frame Frame::sort_values(std::initializer_list<const char*> by, bool ascending) const {
  return frame::sort_values(*this, names_of(by), ascending);
}
Frame Frame::sort_values(const std::vector<std::string>& by, bool ascending) const {
  return frame::sort_values(*this, by, ascending);
}
Frame Frame::sort_values(const std::string& by, bool ascending) const {
  return frame::sort_values(*this, std::vector<std::string>{by}, ascending);
}

Rolling Frame::rolling(std::int64_t rows, std::int64_t min_periods) const {
  return Rolling(*this, RollingWindow::count(rows, min_periods));
}
Rolling Frame::rolling(std::string_view window, std::string on, std::int64_t min_periods) const {
  Rolling r(*this, RollingWindow::parse(window), std::move(on));
  if (min_periods >= 0) r.min_periods(min_periods);
  return r;
}

LocalTable Frame::head(std::int64_t n) const { return frame::head(*this, n); }
LocalTable Frame::tail(std::int64_t n) const { return frame::tail(*this, n); }
Frame Frame::filter(const Expr& predicate) const { return frame::filter(*this, predicate); }
Frame Frame::assign(const std::string& name, const Expr& value) const { return frame::assign(*this, name, value); }

Frame Frame::assign(const std::string& name, const Series& values) const {
  SLAB_EXPECTS(values.valid(), InvalidArgument, "assign('" + name + "', series): the series is empty (no frame)");
  SLAB_EXPECTS(&values.frame().engine() == &engine(), InvalidArgument,
               "assign('" + name + "', series): the series belongs to another engine");
  std::int64_t n = len();
  std::int64_t m = values.len();
  SLAB_EXPECTS(n == m, InvalidArgument,
               "assign('" + name + "', " + values.name() + "): the series has " + std::to_string(m) +
                   " rows, the frame " + std::to_string(n));
  Frame column = values.to_frame();
  std::vector<std::int64_t> mine = local_partition_rows();
  std::int64_t same = column.local_partition_rows() == mine ? 1 : 0;
  // Every rank must take the same path: pair the partitions only when they match on every rank.
  if (engine().comm().allreduce(same, ReduceOp::min) == 0) column = repartition_rows(column, mine);

  std::size_t sc = values.frame().schema().index_of(values.name());
  ElementType type = values.frame().schema().type(sc);
  Schema out = schema().with_column({name, type}, values.frame().schema().dictionary(sc));
  std::size_t target = out.index_of(name);
  std::size_t ncols_in = schema().size();
  // The columns are moved with the memory-kind-aware copy, so the one body runs where the partitions are (a device
  // task where the frame takes device paths: no staging through the host).
  const TaskOptions place = detail::takes_device_paths(*this) ? device_task() : TaskOptions{};
  std::vector<Chunk> parts;
  for (std::size_t k = 0; k < partitions().size(); ++k) {
    parts.push_back(engine().tasks().submit(
        "assign_series", {partitions()[k], column.partitions()[k]},
        [out, target, ncols_in](TaskContext& ctx) {
          BatchView a = input_batch(ctx, 0);
          BatchView b = input_batch(ctx, 1);
          SLAB_EXPECTS(a.nrows() == b.nrows(), InvalidArgument,
                       "assign(series): a partition of " + std::to_string(a.nrows()) + " rows met one of " +
                           std::to_string(b.nrows()));
          auto n = static_cast<std::size_t>(a.nrows());
          // Output column c reads the series (b, column 0) at `target`, else the frame's column c (or c - 1
          // past an appended target).
          auto source = [&](std::size_t c) -> std::pair<const BatchView*, std::size_t> {
            if (c == target) return {&b, 0};
            return {&a, c < ncols_in ? c : c - 1};
          };
          std::vector<bool> masks;
          for (std::size_t c = 0; c < out.size(); ++c) {
            auto [v, i] = source(c);
            masks.push_back(n > 0 && v->valid(i) != nullptr);
          }
          BatchBuilder w(ctx, a.nrows(), out, masks);
          if (n == 0) return;
          for (std::size_t c = 0; c < out.size(); ++c) {
            auto [v, i] = source(c);
            slab::copy(w.data(c), v->data(i), n * element_size(v->type(i)), ctx.execution());
            if (auto* m = w.valid(c)) slab::copy(m, v->valid(i), n, ctx.execution());
          }
        },
        place));
  }
  return Frame(engine(), out, std::move(parts), partition_rows());
}

Frame Frame::rename(const std::vector<std::pair<std::string, std::string>>& names) const {
  std::vector<Field> fields = schema().fields();
  for (const auto& [from, to] : names) fields[schema().index_of(from)].name = to;
  std::vector<Dictionary> dicts;
  for (std::size_t i = 0; i < fields.size(); ++i) dicts.push_back(schema().dictionary(i));
  return Frame(engine(), Schema(std::move(fields), std::move(dicts)), partitions(), partition_rows());
}

Frame Frame::select(const std::vector<std::string>& columns) const { return frame::select(*this, columns); }
Frame Frame::drop_duplicates(const std::vector<std::string>& subset) const {
  return frame::drop_duplicates(*this, subset);
}
Frame Frame::dropna(const std::vector<std::string>& subset) const { return frame::dropna(*this, subset); }
LocalTable Frame::describe() const { return frame::describe(*this); }
LocalTable Frame::value_counts(const std::string& column) const { return frame::value_counts(*this, column); }
std::int64_t Frame::nunique(const std::string& column) const { return frame::nunique(*this, column); }
Series Frame::operator[](const std::string& column) const { return Series(*this, column); }
Frame Frame::operator[](const std::vector<std::string>& columns) const { return frame::select(*this, columns); }
Frame Frame::operator[](std::initializer_list<const char*> columns) const {
  return frame::select(*this, names_of(columns));
}

// ---- GroupBy.

Frame GroupBy::agg(const std::vector<AggSpec>& aggregations) const {
  return frame::groupby(frame_, keys_, parse_specs(aggregations), options_);
}

Frame GroupBy::agg(const std::vector<NamedAgg>& aggregations) const {
  auto [aggs, sources] = plan_named(aggregations);
  return project_named(frame::groupby(frame_, keys_, aggs, options_), keys_.size(), aggregations, sources);
}

Frame GroupBy::size() const {
  for (const auto& f : frame_.schema().fields())
    if (std::find(keys_.begin(), keys_.end(), f.name) == keys_.end())
      return frame::groupby(frame_, keys_, {{f.name, {AggOp::size}}}, options_);
  SLAB_FAIL(InvalidArgument, "groupby(...).size(): the frame has no column besides the keys");
}

Frame GroupBy::apply_all(AggOp op) const {
  std::vector<Aggregation> aggs = all_columns(frame_.schema(), keys_, op);
  SLAB_EXPECTS(!aggs.empty(), InvalidArgument,
               std::string("groupby(...).") + to_string(op) + "(): no column besides the keys it applies to");
  return frame::groupby(frame_, keys_, aggs, options_);
}

Frame GroupBy::quantile(double q) const {
  std::vector<Aggregation> aggs = all_columns(frame_.schema(), keys_, AggOp::quantile, q);
  SLAB_EXPECTS(!aggs.empty(), InvalidArgument, "groupby(...).quantile(): no column besides the keys it applies to");
  return frame::groupby(frame_, keys_, aggs, options_);
}

SeriesGroupBy GroupBy::operator[](const std::string& column) const {
  (void)frame_.schema().index_of(column);  // unknown column: InvalidArgument naming it
  return SeriesGroupBy(*this, column);
}

Frame SeriesGroupBy::quantile(double q) const {
  Aggregation a{column_, {AggOp::quantile}, {q}};
  return frame::groupby(groupby_.frame(), groupby_.keys(), {a}, groupby_.options());
}

// ---- GroupBy's row-preserving operations: frame::group_transform.

namespace {
Series scan(const GroupBy& g, GroupScan op, const std::string& column, std::int64_t periods = 1) {
  GroupTransform t;
  t.op = op;
  t.column = column;
  t.periods = periods;
  return group_transform(g.frame(), g.keys(), t, g.options());
}
}  // namespace

Series GroupBy::cumsum(const std::string& column) const { return scan(*this, GroupScan::cumsum, column); }
Series GroupBy::cumprod(const std::string& column) const { return scan(*this, GroupScan::cumprod, column); }
Series GroupBy::cummin(const std::string& column) const { return scan(*this, GroupScan::cummin, column); }
Series GroupBy::cummax(const std::string& column) const { return scan(*this, GroupScan::cummax, column); }
Series GroupBy::ffill(const std::string& column) const { return scan(*this, GroupScan::ffill, column); }
Series GroupBy::bfill(const std::string& column) const { return scan(*this, GroupScan::bfill, column); }
Series GroupBy::shift(const std::string& column, std::int64_t periods) const {
  return scan(*this, GroupScan::shift, column, periods);
}
Series GroupBy::diff(const std::string& column, std::int64_t periods) const {
  return scan(*this, GroupScan::diff, column, periods);
}
Series GroupBy::cumcount(bool ascending) const {
  GroupTransform t;
  t.op = GroupScan::cumcount;
  t.ascending = ascending;
  return group_transform(frame_, keys_, t, options_);
}
Series GroupBy::transform(const std::string& column, const std::string& op) const {
  GroupTransform t;
  t.op = GroupScan::transform;
  t.column = column;
  t.agg = parse_agg_op(op, t.q);
  return group_transform(frame_, keys_, t, options_);
}
GroupRolling GroupBy::rolling(std::int64_t window, std::int64_t min_periods) const {
  return GroupRolling(*this, RollingWindow::count(window, min_periods));
}
GroupRolling SeriesGroupBy::rolling(std::int64_t window, std::int64_t min_periods) const {
  return groupby_.rolling(window, min_periods)[column_];
}

Series GroupRolling::apply(RollingOp op) const {
  SLAB_EXPECTS(!column_.empty(), InvalidArgument,
               "groupby(...)." + window_.str() + ": select a column first, as groupby(...).rolling(n)[\"x\"]." +
                   std::string(to_string(op)) + "()");
  GroupTransform t;
  t.op = GroupScan::rolling;
  t.column = column_;
  t.window = window_;
  t.rolling_op = op;
  return group_transform(groupby_.frame(), groupby_.keys(), t, groupby_.options());
}

Series GroupRolling::var() const {
  SLAB_EXPECTS(!column_.empty(), InvalidArgument,
               "groupby(...)." + window_.str() + ": select a column first, as groupby(...).rolling(n)[\"x\"].var()");
  GroupTransform t;
  t.op = GroupScan::rolling;
  t.column = column_;
  t.window = window_;
  t.rolling_op = RollingOp::std;
  t.rolling_var = true;
  return group_transform(groupby_.frame(), groupby_.keys(), t, groupby_.options());
}

// ---- Resampler.

Resampler Frame::resample(std::string_view freq, std::string on) const {
  return Resampler(*this, parse_resample_freq(freq), std::move(on));
}

Frame Resampler::agg(const std::vector<AggSpec>& aggregations) const {
  return frame::resample(frame_, freq_, on_, parse_specs(aggregations));
}

Frame Resampler::agg(const std::vector<NamedAgg>& aggregations) const {
  auto [aggs, sources] = plan_named(aggregations);
  return project_named(frame::resample(frame_, freq_, on_, aggs), 1, aggregations, sources);
}

Frame Resampler::size() const {
  for (const auto& f : frame_.schema().fields())
    if (f.name != on_) return frame::resample(frame_, freq_, on_, {{f.name, {AggOp::size}}});
  SLAB_FAIL(InvalidArgument, "resample(...).size(): the frame has no column besides '" + on_ + "'");
}

Frame Resampler::apply_all(AggOp op) const {
  std::vector<Aggregation> aggs = all_columns(frame_.schema(), {on_}, op);
  SLAB_EXPECTS(!aggs.empty(), InvalidArgument,
               std::string("resample(...).") + to_string(op) + "(): no column besides '" + on_ + "' it applies to");
  return frame::resample(frame_, freq_, on_, aggs);
}

// ---- Rolling.

Rolling& Rolling::min_periods(std::int64_t n) {
  SLAB_EXPECTS(n >= 0, InvalidArgument, "rolling: min_periods must be >= 0, got " + std::to_string(n));
  SLAB_EXPECTS(window_.is_time() || n <= window_.rows, InvalidArgument,
               "rolling: min_periods " + std::to_string(n) + " must be <= window " + std::to_string(window_.rows));
  window_.min_periods = n;
  return *this;
}

Series Rolling::apply(RollingOp op) const {
  SLAB_EXPECTS(
      !column_.empty(), InvalidArgument,
      window_.str() + ": select a column first, as df.rolling(...)[\"x\"]." + std::string(to_string(op)) + "()");
  Frame r = frame::rolling(frame_, column_, window_, {op}, on_);
  return Series(r, column_ + "_" + std::string(to_string(op)));
}

Series Rolling::var() const {
  Series s = apply(RollingOp::std);
  std::string name = column_ + "_var";
  Frame v = frame::assign(s.frame(), name, col(s.name()) * col(s.name()));
  return Series(frame::select(v, {name}), name);
}

// ---- merge with pandas' keywords.

JoinKind parse_join_kind(std::string_view how) {
  if (how == "inner") return JoinKind::inner;
  if (how == "left") return JoinKind::left;
  if (how == "right") return JoinKind::right;
  if (how == "outer") return JoinKind::outer;
  SLAB_FAIL(InvalidArgument, "merge: how='" + std::string(how) + "' is not one of 'inner', 'left', 'right', 'outer'");
}

Frame Frame::merge(const Frame& right, const MergeArgs& args) const {
  const Frame& left = *this;
  MergeOptions o;
  o.how = parse_join_kind(args.how);
  o.suffix_left = args.suffix_left;
  o.suffix_right = args.suffix_right;
  o.strategy = args.strategy;
  o.stats = args.stats;
  bool by_pairs = !args.left_on.empty() || !args.right_on.empty();
  SLAB_EXPECTS(!(by_pairs && !args.on.empty()), InvalidArgument,
               "merge: give the keys as `on` or as `left_on` and `right_on`, not both");
  if (!by_pairs) return frame::merge(left, right, args.on, o);
  SLAB_EXPECTS(args.left_on.size() == args.right_on.size(), InvalidArgument,
               "merge: left_on has " + std::to_string(args.left_on.size()) + " columns, right_on " +
                   std::to_string(args.right_on.size()));
  std::vector<std::pair<std::string, std::string>> renames;
  for (std::size_t k = 0; k < args.left_on.size(); ++k) {
    const std::string& from = args.right_on[k];
    const std::string& to = args.left_on[k];
    (void)right.schema().index_of(from);  // unknown right key: InvalidArgument naming it
    if (from == to) continue;
    SLAB_EXPECTS(
        !right.schema().contains(to) ||
            std::find(args.right_on.begin(), args.right_on.end(), to) != args.right_on.end(),
        InvalidArgument,
        "merge: right_on '" + from + "' pairs with left_on '" + to + "', but right also has a column '" + to + "'");
    renames.emplace_back(from, to);
  }
  return frame::merge(left, right.rename(renames), args.left_on, o);
}

}  // namespace slab::frame
