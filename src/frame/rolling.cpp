// Rolling windows: serial kernels over (halo + own rows) and the halo exchange. See slab/frame/rolling.hpp.
#include "slab/frame/rolling.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "frame/device_paths.hpp"
#include "frame/kernels/rolling.hpp"
#include "frame/kernels/rolling_hd.hpp"
#include "frame/time_bounds.hpp"
#include "slab/core/error.hpp"
#include "slab/core/time.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {

// The sliding loop is frame/kernels/rolling_hd.hpp's rolling_slide, the one source a device thread runs too (groupby
// rolling): an infinity is missing for sum, mean, std, min and max as in pandas (rolling_usable), count counts the
// non-NaN values. Its min/max deque is a std::deque here, bounded by the window; start_of(i) is row i's window start.
static_assert(static_cast<int>(kernels::RollingKind::count) == static_cast<int>(RollingOp::count) &&
              static_cast<int>(kernels::RollingKind::std) == static_cast<int>(RollingOp::std) &&
              static_cast<int>(kernels::RollingKind::min) == static_cast<int>(RollingOp::min));
template <class StartFn>
void slide(const double* x, std::size_t halo, std::size_t n, std::size_t min_periods, RollingOp op,
           std::size_t recompute_every, StartFn start_of, double* out) {
  std::deque<std::int64_t> dq;
  kernels::rolling_slide(x, static_cast<std::int64_t>(halo), static_cast<std::int64_t>(n),
                         static_cast<std::int64_t>(min_periods), static_cast<kernels::RollingKind>(op),
                         static_cast<std::int64_t>(recompute_every), start_of, dq, out);
}

}  // namespace

std::string_view to_string(RollingOp op) noexcept {
  switch (op) {
    case RollingOp::mean:
      return "mean";
    case RollingOp::sum:
      return "sum";
    case RollingOp::min:
      return "min";
    case RollingOp::max:
      return "max";
    case RollingOp::std:
      return "std";
    case RollingOp::count:
      return "count";
  }
  return "?";
}

RollingOp parse_rolling_op(std::string_view text) {
  for (RollingOp op :
       {RollingOp::mean, RollingOp::sum, RollingOp::min, RollingOp::max, RollingOp::std, RollingOp::count})
    if (text == to_string(op)) return op;
  SLAB_FAIL(InvalidArgument,
            "unknown rolling aggregation '" + std::string(text) + "'; expected mean, sum, min, max, std or count");
}

RollingWindow RollingWindow::count(std::int64_t rows, std::int64_t min_periods) {
  SLAB_EXPECTS(rows >= 1, InvalidArgument, "rolling window must be at least 1 row, got " + std::to_string(rows));
  SLAB_EXPECTS(min_periods <= rows, InvalidArgument,
               "min_periods " + std::to_string(min_periods) + " must be <= window " + std::to_string(rows));
  RollingWindow w;
  w.rows = rows;
  w.min_periods = min_periods;
  return w;
}

RollingWindow RollingWindow::time(std::int64_t span_ns, std::int64_t min_periods) {
  SLAB_EXPECTS(span_ns >= 1, InvalidArgument, "rolling time span must be positive, got " + format_duration(span_ns));
  RollingWindow w;
  w.span_ns = span_ns;
  w.min_periods = min_periods;
  return w;
}

RollingWindow RollingWindow::parse(std::string_view text) {
  const std::string t(text);
  std::int64_t rows = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), rows);
  if (!t.empty() && ec == std::errc() && p == t.data() + t.size()) return count(rows);
  std::int64_t span = 0;
  SLAB_EXPECTS(
      parse_duration(t, span), InvalidArgument,
      "bad rolling window '" + t + "': expected a row count (1000) or a time span (1h, 30min, 15s, 500ms, 2d)");
  return time(span);
}

std::string RollingWindow::str() const {
  return is_time() ? "rolling('" + format_duration(span_ns) + "')" : "rolling(" + std::to_string(rows) + ")";
}

void rolling_kernel_rows(const double* x, std::size_t halo, std::size_t n, std::size_t window, std::size_t min_periods,
                         RollingOp op, double* out) {
  const std::size_t w = std::max<std::size_t>(window, 1);
  slide(x, halo, n, min_periods, op, w, kernels::RollingRowStart{static_cast<std::int64_t>(w)}, out);
}

void rolling_kernel_time(const std::int64_t* t, const double* x, std::size_t halo, std::size_t n, std::int64_t span,
                         std::size_t min_periods, RollingOp op, double* out) {
  // start(i): first j with t[j] > t[i] - span; monotone in i, found by a forward scan (cached).
  std::int64_t cursor = 0;
  auto start_of = [&](std::int64_t i) {
    const std::int64_t bound = t[i] - span;
    if (cursor > i) cursor = 0;
    while (cursor < i && t[cursor] <= bound) ++cursor;
    return cursor;
  };
  slide(x, halo, n, min_periods, op, 0, start_of, out);
}

namespace {
// The halo exchange. keep_x / keep_t (the vectors behind x / t, or null): the own rows are moved in behind
// the halo in place (a memmove within their capacity, no second buffer) instead of copied.
RollingHalo exchange_halo(const Comm& comm, std::span<const double> x, std::span<const std::int64_t> t,
                          const RollingWindow& window, std::vector<double>* keep_x, std::vector<std::int64_t>* keep_t) {
  const int p = comm.size(), me = comm.rank();
  std::string problem;
  const std::string what = window.str() + ": ";  // "rolling('1h'): ", as the user wrote the window
  if (window.rows <= 0 && window.span_ns <= 0)
    problem = "rolling window needs rows >= 1 or a positive time span";
  else if (window.is_time() && t.size() != x.size())
    problem = what + "a time window needs a timestamp column of the same length as the values (" +
              std::to_string(t.size()) + " != " + std::to_string(x.size()) + ")";
  else if (window.is_time()) {
    bool null = false, unsorted = false;  // branch-free scans
    for (std::size_t i = 0; i < t.size(); ++i) null |= t[i] == std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 1; i < t.size(); ++i) unsorted |= t[i] < t[i - 1];
    if (null)
      problem = what + "the timestamp column of a time window has a null";
    else if (unsorted)
      problem = what + "the timestamp column of a time window is not sorted";
  }
  comm.agree(problem.empty(), problem);

  // Every rank's row count (and first/last timestamp) is known to every rank.
  const std::int64_t n_me = static_cast<std::int64_t>(x.size());
  std::vector<std::int64_t> info(3 * p);
  {
    std::int64_t mine[3] = {n_me, n_me && window.is_time() ? t.front() : 0, n_me && window.is_time() ? t.back() : 0};
    comm.allgather(std::span<const std::int64_t>(mine, 3), std::span<std::int64_t>(info));
  }
  if (window.is_time()) {  // sorted across rank boundaries too
    bool ok = true;
    std::int64_t last = std::numeric_limits<std::int64_t>::min();
    bool have = false;
    for (int r = 0; r < p; ++r) {
      if (!info[3 * r]) continue;
      if (have && info[3 * r + 1] < last) ok = false;
      last = info[3 * r + 2], have = true;
    }
    comm.agree(ok, what + "the timestamp column of a time window is not sorted (across ranks)");
  }
  std::vector<std::int64_t> g0(p + 1, 0);
  for (int r = 0; r < p; ++r) g0[r + 1] = g0[r] + info[3 * r];

  // What this rank sends to each later rank q: a suffix of its rows.
  std::vector<std::size_t> send_counts(p, 0);
  std::vector<std::size_t> first_sent(p, 0);
  for (int q = me + 1; q < p; ++q) {
    if (!info[3 * q] || !n_me) continue;
    std::size_t from;  // first own row q needs
    if (window.is_time()) {
      const std::int64_t bound = info[3 * q + 1] - window.span_ns;
      from = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), bound) - t.begin());
    } else {
      const std::int64_t need0 = std::max<std::int64_t>(0, g0[q] - (window.rows - 1));
      from = static_cast<std::size_t>(std::clamp<std::int64_t>(need0 - g0[me], 0, n_me));
    }
    first_sent[q] = from;
    send_counts[q] = x.size() - from;
  }
  std::size_t total = 0;
  for (auto c : send_counts) total += c;
  std::vector<double> sx;
  std::vector<std::int64_t> st;
  sx.reserve(total);
  for (int q = 0; q < p; ++q)
    sx.insert(sx.end(), x.begin() + first_sent[q], x.begin() + first_sent[q] + send_counts[q]);
  if (window.is_time()) {
    st.reserve(total);
    for (int q = 0; q < p; ++q)
      st.insert(st.end(), t.begin() + first_sent[q], t.begin() + first_sent[q] + send_counts[q]);
  }
  RollingHalo h;
  std::vector<std::size_t> recv_counts;
  comm.alltoallv(std::span<const double>(sx), std::span<const std::size_t>(send_counts), h.x, recv_counts);
  h.halo = h.x.size();
  auto join = [](auto& halo, auto own, auto* keep) {
    if (keep) {
      keep->insert(keep->begin(), halo.begin(), halo.end());
      halo = std::move(*keep);
    } else {
      halo.insert(halo.end(), own.begin(), own.end());
    }
  };
  join(h.x, x, keep_x);
  if (window.is_time()) {
    comm.alltoallv(std::span<const std::int64_t>(st), std::span<const std::size_t>(send_counts), h.t, recv_counts);
    join(h.t, t, keep_t);
  }
  return h;
}
}  // namespace

RollingHalo rolling_halo(const Comm& comm, std::span<const double> x, std::span<const std::int64_t> t,
                         const RollingWindow& window) {
  return exchange_halo(comm, x, t, window, nullptr, nullptr);
}

std::vector<std::vector<double>> rolling(const Comm& comm, std::span<const double> x, std::span<const std::int64_t> t,
                                         const RollingWindow& window, std::span<const RollingOp> ops) {
  RollingHalo h = rolling_halo(comm, x, t, window);
  const std::size_t n = x.size();
  const auto minp = static_cast<std::size_t>(std::max<std::int64_t>(0, window.effective_min_periods()));
  std::vector<std::vector<double>> out(ops.size(), std::vector<double>(n));
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (window.is_time())
      rolling_kernel_time(h.t.data(), h.x.data(), h.halo, n, window.span_ns, minp, ops[k], out[k].data());
    else
      rolling_kernel_rows(h.x.data(), h.halo, n, static_cast<std::size_t>(window.rows), minp, ops[k], out[k].data());
  }
  return out;
}

std::vector<double> rolling(const Comm& comm, std::span<const double> x, std::span<const std::int64_t> t,
                            const RollingWindow& window, RollingOp op) {
  return std::move(rolling(comm, x, t, window, std::span<const RollingOp>(&op, 1))[0]);
}

namespace {
template <class T, class Conv>
std::vector<T> local_column(const Frame& frame, const std::string& column, bool ints, Conv conv,
                            std::size_t extra = 0) {
  const std::size_t c = frame.schema().index_of(column);
  const ElementType type = frame.schema().type(c);
  SLAB_EXPECTS(type != ElementType::string && (!ints || type == ElementType::int64 || type == ElementType::timestamp),
               InvalidArgument,
               "column '" + column + "' is " + to_string(type) + "; expected " +
                   (ints ? "int64 or timestamp" : "a numeric or bool column"));
  Frame(frame).persist();  // runs the graph (collective)
  const std::vector<std::int64_t> rows = frame.local_partition_rows();
  std::int64_t total = 0;
  for (auto r : rows) total += r;
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(total) + extra);  // extra: room for a halo in front
  // Collectively: a partition that cannot be read on one rank fails on every rank (the values are this rank's,
  // but the call is collective, and a rank that throws alone leaves the others in the next collective).
  frame.engine().comm().run_collectively([&] {
    for (const Chunk& chunk : frame.partitions()) {
      auto [pin, view] = view_chunk(chunk);
      const std::uint8_t* valid = view.valid(c);
      const std::int64_t n = view.nrows();
      if (!valid &&
          ((type == ElementType::float64 && std::is_same_v<T, double>) ||
           (type != ElementType::float64 && type != ElementType::boolean && std::is_same_v<T, std::int64_t>))) {
        auto v = view.column<T>(c);  // same representation, no nulls: a plain copy
        out.insert(out.end(), v.begin(), v.end());
        continue;
      }
      switch (type) {
        case ElementType::float64: {
          auto v = view.column<double>(c);
          for (std::int64_t i = 0; i < n; ++i) out.push_back(conv(valid && !valid[i], v[i]));
          break;
        }
        case ElementType::int64:
        case ElementType::timestamp: {
          auto v = view.column<std::int64_t>(c);
          for (std::int64_t i = 0; i < n; ++i) out.push_back(conv(valid && !valid[i], v[i]));
          break;
        }
        case ElementType::boolean: {
          auto v = view.column<std::uint8_t>(c);
          for (std::int64_t i = 0; i < n; ++i) out.push_back(conv(valid && !valid[i], v[i]));
          break;
        }
        default:
          break;
      }
    }
  });
  return out;
}
}  // namespace

namespace {
// local_values / local_int_values with `extra` rows of spare capacity.
std::vector<double> values_with_room(const Frame& frame, const std::string& column, std::size_t extra) {
  return local_column<double>(
      frame, column, false,
      [](bool null, auto v) { return null ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(v); },
      extra);
}
std::vector<std::int64_t> int_values_with_room(const Frame& frame, const std::string& column, std::size_t extra) {
  return local_column<std::int64_t>(
      frame, column, true,
      [](bool null, auto v) { return null ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(v); },
      extra);
}
}  // namespace

std::vector<double> local_values(const Frame& frame, const std::string& column) {
  return values_with_room(frame, column, 0);
}

std::vector<std::int64_t> local_int_values(const Frame& frame, const std::string& column) {
  return int_values_with_room(frame, column, 0);
}

namespace {
// Column c of a batch as doubles (null -> NaN) or int64 (null -> INT64_MIN), appended to `out`: one resize and a
// loop per type (a memcpy where the column is float64 or int64 without nulls), as these run over every row.
void append_values(const BatchView& b, std::size_t c, ElementType type, std::vector<double>& out) {
  const std::uint8_t* valid = b.valid(c);
  const auto n = static_cast<std::size_t>(b.nrows());
  const std::size_t at = out.size();
  out.resize(at + n);
  double* o = out.data() + at;
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (type == ElementType::float64) {
    const double* col = b.column<double>(c).data();
    if (valid == nullptr) {
      if (n) std::memcpy(o, col, n * sizeof(double));
    } else {
      for (std::size_t i = 0; i < n; ++i) o[i] = valid[i] ? col[i] : nan;
    }
  } else if (type == ElementType::boolean) {
    const std::uint8_t* col = b.column<std::uint8_t>(c).data();
    for (std::size_t i = 0; i < n; ++i) o[i] = !valid || valid[i] ? static_cast<double>(col[i]) : nan;
  } else {
    const std::int64_t* col = b.column<std::int64_t>(c).data();
    for (std::size_t i = 0; i < n; ++i) o[i] = !valid || valid[i] ? static_cast<double>(col[i]) : nan;
  }
}
void append_times(const BatchView& b, std::size_t c, std::vector<std::int64_t>& out) {
  const std::uint8_t* valid = b.valid(c);
  const auto n = static_cast<std::size_t>(b.nrows());
  const std::size_t at = out.size();
  out.resize(at + n);
  std::int64_t* o = out.data() + at;
  const std::int64_t* col = b.column<std::int64_t>(c).data();
  if (valid == nullptr) {
    if (n) std::memcpy(o, col, n * sizeof(std::int64_t));
  } else {
    for (std::size_t i = 0; i < n; ++i) o[i] = valid[i] ? col[i] : std::numeric_limits<std::int64_t>::min();
  }
}

// The rows of (x, t) the next rows' windows can reach: the last rows - 1 of a row window, the rows within the span
// of the last timestamp of a time window.
std::size_t carry_from(const std::vector<double>& x, const std::vector<std::int64_t>& t, const RollingWindow& window) {
  if (x.empty()) return 0;
  if (!window.is_time()) return x.size() - std::min<std::size_t>(x.size(), static_cast<std::size_t>(window.rows - 1));
  return static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), t.back() - window.span_ns) - t.begin());
}

/// The carry's column types: x (float64) and, for a time window, t (int64).
std::vector<ElementType> carry_types(bool time) {
  return time ? std::vector<ElementType>{ElementType::float64, ElementType::int64} : std::vector{ElementType::float64};
}

// A carry batch: x (float64) and, for time windows, t (int64) from row `from` on.
void write_carry(const std::vector<double>& x, const std::vector<std::int64_t>& t, std::size_t from, bool time,
                 TaskContext& ctx, std::size_t output) {
  const std::size_t n = x.size() - from;
  BatchBuilder b(ctx, static_cast<std::int64_t>(n), carry_types(time), {}, output);
  if (n == 0) return;
  std::memcpy(b.data(0), x.data() + from, n * sizeof(double));
  if (time) std::memcpy(b.data(1), t.data() + from, n * sizeof(std::int64_t));
}

/**
 * The device path of one rolling task (frame/kernels/rolling.hpp): the carried rows and the partition's own rows
 * (as doubles) into one contiguous column in kernel scratch, the timestamps likewise, one RollingKernels call per
 * aggregation into output 0, and the rows later windows reach into output 1 (the next carry), as the host loop.
 */
template <class B>
void rolling_on_device(TaskContext& ctx, const kernels::Exec& exec, const BatchView& in, const BatchView& prev,
                       const std::vector<ElementType>& types, const std::vector<RollingOp>& ops,
                       const RollingWindow& window, std::size_t minp, bool time, std::size_t cx, std::size_t ct) {
  using Kernels = kernels::RollingKernels<B>;
  const ExecutionContext& context = ctx.execution();
  const std::int64_t h = prev.nrows(), n = in.nrows(), m = h + n;
  constexpr std::size_t w = sizeof(std::int64_t);
  slab::detail::ScratchBytes xs(exec, static_cast<std::size_t>(m) * w),
      ts(exec, time ? static_cast<std::size_t>(m) * w : 0);
  auto* x = static_cast<double*>(xs.get());
  auto* t = static_cast<std::int64_t*>(ts.get());
  if (h > 0) {
    slab::copy(x, prev.data(0), static_cast<std::size_t>(h) * w, context);
    if (time) slab::copy(t, prev.data(1), static_cast<std::size_t>(h) * w, context);
  }
  if (n > 0) {
    Kernels::values(exec, detail::column_view(in, cx), n, x + h);
    // A time window's timestamps have no null (checked before the tasks), so they copy as they are.
    if (time) slab::copy(t + h, in.data(ct), static_cast<std::size_t>(n) * w, context);
  }
  BatchBuilder b(ctx, n, types, {}, 0);
  for (std::size_t j = 0; j < types.size() && n > 0; ++j) {
    auto* out = reinterpret_cast<double*>(b.data(j));
    const auto op = static_cast<kernels::RollingKind>(ops[j]);
    if (time)
      Kernels::time(exec, t, x, h, n, window.span_ns, static_cast<std::int64_t>(minp), op, out);
    else
      Kernels::rows(exec, x, h, n, window.rows, static_cast<std::int64_t>(minp), op, out);
  }
  const std::int64_t from =
      time ? Kernels::time_carry_start(exec, t, m, window.span_ns) : m - std::min<std::int64_t>(m, window.rows - 1);
  BatchBuilder c(ctx, m - from, carry_types(time), {}, 1);
  if (m - from > 0) {
    slab::copy(c.data(0), x + from, static_cast<std::size_t>(m - from) * w, context);
    if (time) slab::copy(c.data(1), t + from, static_cast<std::size_t>(m - from) * w, context);
  }
}

/// What the halo exchange needs of rolling(): the frame (persisted), its partitions' rows, every rank's (rows,
/// first timestamp, last timestamp) and the window's column(s).
struct HaloPlan {
  const Frame& frame;
  const std::vector<std::int64_t>& rows;
  const std::vector<std::int64_t>& info;
  std::size_t cx, ct;
  ElementType xtype;
  const RollingWindow& window;
  std::int64_t n_me, t_first;

  [[nodiscard]] bool time() const { return window.is_time(); }
  /// The next rank with rows (size() if none): the first whose windows can reach this rank's rows.
  [[nodiscard]] int next_with_rows() const {
    const int p = frame.engine().comm().size();
    int next = frame.engine().comm().rank() + 1;
    while (next < p && !info[3 * static_cast<std::size_t>(next)]) ++next;
    return next;
  }
  /// Where the rows later ranks' windows reach start: after this timestamp (a time window).
  [[nodiscard]] std::int64_t tail_bound() const {
    return time() ? info[3 * static_cast<std::size_t>(next_with_rows()) + 1] - window.span_ns : 0;
  }
  /// How many rows they reach (a row window).
  [[nodiscard]] std::size_t tail_rows() const { return time() ? 0 : static_cast<std::size_t>(window.rows - 1); }
  /// Each later rank with rows gets the whole tail (`tail` values); each keeps what its own windows reach.
  [[nodiscard]] std::vector<std::size_t> send_counts(std::size_t tail) const {
    const int p = frame.engine().comm().size();
    std::vector<std::size_t> counts(static_cast<std::size_t>(p), 0);
    for (int q = next_with_rows(); q < p; ++q)
      if (info[3 * static_cast<std::size_t>(q)]) counts[static_cast<std::size_t>(q)] = tail;
    return counts;
  }
};

/**
 * The halo exchange on the host: this rank's tail (the last rows - 1 rows, or the rows after the next rank's first
 * timestamp less the span), read from the last partitions backwards, goes to every later rank with rows; the rows
 * received that this rank's windows reach become the first carry (a task's output, so accounted and spillable).
 * Collective.
 */
Chunk first_carry_on_host(const HaloPlan& plan) {
  const Frame& frame = plan.frame;
  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  const bool time = plan.time();
  const RollingWindow& window = plan.window;
  std::vector<double> tail_x;
  std::vector<std::int64_t> tail_t;
  // Read outside any task (a partition unspilled): a failure on one rank is agreed on by every rank before the
  // exchange, where the others would otherwise wait.
  comm.run_collectively([&] {
    if (plan.next_with_rows() >= comm.size() || plan.n_me == 0) return;
    const std::int64_t bound = plan.tail_bound();
    const std::size_t want = plan.tail_rows();
    std::vector<std::vector<double>> xs;
    std::vector<std::vector<std::int64_t>> ts;
    std::size_t have = 0;
    for (std::size_t k = frame.num_partitions(); k-- > 0;) {
      if (plan.rows[k] == 0) continue;
      std::vector<double> x;
      std::vector<std::int64_t> t;
      auto [pin, b] = view_chunk(frame.partitions()[k]);
      append_values(b, plan.cx, plan.xtype, x);
      if (time) append_times(b, plan.ct, t);
      const std::size_t from = time ? static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), bound) - t.begin())
                                    : x.size() - std::min(x.size(), want - have);
      x.erase(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(from));
      if (time) t.erase(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(from));
      have += x.size();
      xs.push_back(std::move(x));
      ts.push_back(std::move(t));
      if (from > 0 || (!time && have >= want)) break;
    }
    for (std::size_t k = xs.size(); k-- > 0;) {
      tail_x.insert(tail_x.end(), xs[k].begin(), xs[k].end());
      if (time) tail_t.insert(tail_t.end(), ts[k].begin(), ts[k].end());
    }
  });
  const std::vector<std::size_t> send_counts = plan.send_counts(tail_x.size());
  std::vector<double> sx;
  std::vector<std::int64_t> st;
  for (std::size_t c : send_counts)
    if (c) {
      sx.insert(sx.end(), tail_x.begin(), tail_x.end());
      if (time) st.insert(st.end(), tail_t.begin(), tail_t.end());
    }
  std::vector<double> hx;
  std::vector<std::int64_t> ht;
  std::vector<std::size_t> recv_counts;
  comm.alltoallv(std::span<const double>(sx), std::span<const std::size_t>(send_counts), hx, recv_counts);
  if (time)
    comm.alltoallv(std::span<const std::int64_t>(st), std::span<const std::size_t>(send_counts), ht, recv_counts);
  std::vector<double>().swap(sx);
  std::vector<std::int64_t>().swap(st);
  std::size_t from = 0;
  if (time && plan.n_me > 0)
    from = static_cast<std::size_t>(std::upper_bound(ht.begin(), ht.end(), plan.t_first - window.span_ns) - ht.begin());
  else if (!time)
    from = hx.size() - std::min<std::size_t>(hx.size(), static_cast<std::size_t>(window.rows - 1));
  hx.erase(hx.begin(), hx.begin() + static_cast<std::ptrdiff_t>(from));
  if (time) ht.erase(ht.begin(), ht.begin() + static_cast<std::ptrdiff_t>(from));

  struct Halo {
    std::vector<double> x;
    std::vector<std::int64_t> t;
  };
  auto halo = std::make_shared<Halo>(Halo{std::move(hx), std::move(ht)});
  return engine.tasks().submit("rolling-halo", {}, [halo, time](TaskContext& ctx) {
    write_carry(halo->x, halo->t, 0, time, ctx, 0);
    *halo = Halo{};
  });
}

/// The halo of first_carry_on_device between the exchange and the carry task that copies it out: device-tier
/// memory of the manager (kernel scratch, so counted against the limit), rows [from, from + rows) of x and t.
struct DeviceHalo {
  explicit DeviceHalo(MemoryManager& memory) : scratch(memory, "rolling halo") {}
  slab::detail::KernelScratch scratch;
  std::optional<slab::detail::ScratchBytes> x, t;
  std::int64_t from = 0, rows = 0;
};

/**
 * The halo exchange of first_carry_on_host on the device: the tail is found on the device (a time window's bound
 * by binary search over the partition's timestamps, RollingKernels::first_after), its values converted there
 * (RollingKernels::values) into a send buffer of kernel scratch, one copy per later rank with rows, exchanged as
 * device buffers (Comm sends them over NCCL on a GPU, or stages them where ranks share one; the receive counts
 * from an allgather of the tails' sizes), and trimmed on the device; the carry task copies the halo out. Nothing
 * of the rows passes through host memory. Collective.
 */
Chunk first_carry_on_device(const HaloPlan& plan) {
  const Frame& frame = plan.frame;
  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  const ExecutionContext& context = engine.execution();
  const int p = comm.size(), me = comm.rank();
  const bool time = plan.time();
  constexpr std::size_t w = sizeof(std::int64_t);
  auto halo = std::make_shared<DeviceHalo>(engine.memory());
  const kernels::Exec exec = halo->scratch.exec(context);
  std::size_t later = 0;  // the later ranks with rows, each sent a copy of the tail
  for (std::size_t c : plan.send_counts(1)) later += c;
  std::int64_t tail = 0;
  std::optional<slab::detail::ScratchBytes> send_x, send_t;
  comm.run_collectively([&] {  // a failed read or allocation is every rank's error, never a hang in the exchange
    if (later == 0 || plan.n_me == 0) {  // nothing to send
      send_x.emplace(exec, 0);
      send_t.emplace(exec, 0);
      return;
    }
    const std::int64_t bound = plan.tail_bound();
    const auto want = static_cast<std::int64_t>(plan.tail_rows());
    // The tail's pieces from the last partitions backwards, each converted into its own buffer.
    struct Piece {
      std::unique_ptr<slab::detail::ScratchBytes> x, t;
      std::int64_t rows;
    };
    std::vector<Piece> pieces;
    detail::with_planned_backend(context, [&](auto tag) {
      using Kernels = kernels::RollingKernels<typename decltype(tag)::type>;
      for (std::size_t k = frame.num_partitions(); k-- > 0;) {
        if (plan.rows[k] == 0) continue;
        const auto [pin, b] = detail::view_chunk_in_place(frame.partitions()[k]);
        const std::int64_t n = b.nrows();
        const auto* t = reinterpret_cast<const std::int64_t*>(b.data(plan.ct));
        const std::int64_t from = time ? Kernels::first_after(exec, t, n, bound) : n - std::min(n, want - tail);
        const std::int64_t m = n - from;
        Piece piece{std::make_unique<slab::detail::ScratchBytes>(exec, static_cast<std::size_t>(m) * w),
                    std::make_unique<slab::detail::ScratchBytes>(exec, time ? static_cast<std::size_t>(m) * w : 0), m};
        if (m > 0) {
          kernels::ColumnView v = detail::column_view(b, plan.cx);
          v.data = static_cast<const std::byte*>(v.data) + static_cast<std::size_t>(from) * element_size(v.type);
          if (v.valid) v.valid += from;
          Kernels::values(exec, v, m, static_cast<double*>(piece.x->get()));
          if (time) slab::copy(piece.t->get(), t + from, static_cast<std::size_t>(m) * w, context);
        }
        tail += m;
        pieces.push_back(std::move(piece));
        context.synchronize();  // the partition's pin goes with this iteration
        if (from > 0 || (!time && tail >= want)) break;
      }
    });
    const auto bytes = static_cast<std::size_t>(tail) * w;
    send_x.emplace(exec, later * bytes);
    send_t.emplace(exec, time ? later * bytes : 0);
    for (std::size_t copy = 0; copy < later; ++copy) {
      std::size_t at = copy * bytes;
      for (std::size_t k = pieces.size(); k-- > 0;) {
        const auto piece_bytes = static_cast<std::size_t>(pieces[k].rows) * w;
        if (piece_bytes == 0) continue;
        slab::copy(static_cast<std::byte*>(send_x->get()) + at, pieces[k].x->get(), piece_bytes, context);
        if (time) slab::copy(static_cast<std::byte*>(send_t->get()) + at, pieces[k].t->get(), piece_bytes, context);
        at += piece_bytes;
      }
    }
    context.synchronize();  // the pieces go with this scope, the send buffers are complete for the exchange
  });
  std::vector<std::int64_t> tails(static_cast<std::size_t>(p));
  comm.allgather(std::span<const std::int64_t>(&tail, 1), std::span<std::int64_t>(tails));
  const std::vector<std::size_t> send_counts = plan.send_counts(static_cast<std::size_t>(tail));
  std::vector<std::size_t> recv_counts(static_cast<std::size_t>(p), 0);
  std::size_t received = 0;
  for (int q = 0; q < me && plan.n_me > 0; ++q) {
    recv_counts[static_cast<std::size_t>(q)] = static_cast<std::size_t>(tails[static_cast<std::size_t>(q)]);
    received += recv_counts[static_cast<std::size_t>(q)];
  }
  comm.run_collectively([&] {
    halo->x.emplace(exec, received * w);
    halo->t.emplace(exec, time ? received * w : 0);
  });
  const std::size_t sent = later * static_cast<std::size_t>(tail);
  comm.alltoallv(std::span<const double>(static_cast<const double*>(send_x->get()), sent),
                 std::span<const std::size_t>(send_counts),
                 std::span<double>(static_cast<double*>(halo->x->get()), received),
                 std::span<const std::size_t>(recv_counts));
  if (time)
    comm.alltoallv(std::span<const std::int64_t>(static_cast<const std::int64_t*>(send_t->get()), sent),
                   std::span<const std::size_t>(send_counts),
                   std::span<std::int64_t>(static_cast<std::int64_t*>(halo->t->get()), received),
                   std::span<const std::size_t>(recv_counts));
  send_x.reset();
  send_t.reset();
  const auto r = static_cast<std::int64_t>(received);
  comm.run_collectively([&] {
    if (time) {
      detail::with_planned_backend(context, [&](auto tag) {
        halo->from = kernels::RollingKernels<typename decltype(tag)::type>::first_after(
            exec, static_cast<const std::int64_t*>(halo->t->get()), r, plan.t_first - plan.window.span_ns);
      });
    } else {
      halo->from = r - std::min<std::int64_t>(r, plan.window.rows - 1);
    }
  });
  halo->rows = r - halo->from;
  return engine.tasks().submit(
      "rolling-halo", {},
      [halo, time](TaskContext& ctx) {
        BatchBuilder c(ctx, halo->rows, carry_types(time), {}, 0);
        const auto at = static_cast<std::size_t>(halo->from) * w, bytes = static_cast<std::size_t>(halo->rows) * w;
        if (bytes) {
          slab::copy(c.data(0), static_cast<const std::byte*>(halo->x->get()) + at, bytes, ctx.execution());
          if (time) slab::copy(c.data(1), static_cast<const std::byte*>(halo->t->get()) + at, bytes, ctx.execution());
        }
        ctx.execution().synchronize();  // the halo's memory goes now
        halo->x.reset();
        halo->t.reset();
      },
      device_task());
}
}  // namespace

Frame rolling(const Frame& frame, const std::string& column, const RollingWindow& window,
              const std::vector<RollingOp>& ops, const std::string& on) {
  SLAB_EXPECTS(!window.is_time() || !on.empty(), InvalidArgument,
               "a time window (" + window.str() + ") needs the timestamp column ('on')");
  SLAB_EXPECTS(!ops.empty(), InvalidArgument, "rolling: no aggregation given");
  const bool device = detail::takes_device_paths(frame);
  if (!device) note_host_fallback(frame.engine(), "rolling");
  if (!on.empty())
    SLAB_EXPECTS(frame.schema().type(frame.schema().index_of(on)) == ElementType::timestamp || !window.is_time(),
                 InvalidArgument, "rolling: column '" + on + "' is not a timestamp column");
  const Schema& in_schema = frame.schema();
  const std::size_t cx = in_schema.index_of(column);
  const ElementType xtype = in_schema.type(cx);
  SLAB_EXPECTS(xtype != ElementType::string, InvalidArgument,
               "column '" + column + "' is " + to_string(xtype) + "; expected a numeric or bool column");
  const bool time = window.is_time();
  const std::size_t ct = time ? in_schema.index_of(on) : 0;
  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  const int p = comm.size();

  // Out of core: the partitions stream. A pass over them (one resident at a time) checks the timestamps and finds
  // this rank's first and last; the ranks exchange only the rows a later rank's windows reach (its halo); then
  // partition k's task reads partition k and the carry of partition k - 1 (the rows its windows reach, at most a
  // window's worth) and writes its result and its own carry.
  Frame(frame).persist();  // runs the graph (collective)
  const std::vector<std::int64_t> rows = frame.local_partition_rows();
  std::string problem;
  const std::string what = window.str() + ": ";  // "rolling('1h'): ", as the user wrote the window
  std::int64_t n_me = 0, t_first = 0, t_last = 0;
  comm.run_collectively([&] {  // a partition read here failing on one rank fails on every rank
    if (window.rows <= 0 && window.span_ns <= 0) {
      problem = "rolling window needs rows >= 1 or a positive time span";
      return;
    }
    for (std::int64_t r : rows) n_me += r;
    if (time) {  // each partition's TimeBounds (on the device where the frame takes device paths: no copy)
      bool null = false, unsorted = false, have = false;
      for (const kernels::TimeBounds& b : detail::time_bounds(frame, ct, device)) {
        null |= b.nulls || (b.any && b.min == std::numeric_limits<std::int64_t>::min());  // a null or a NaT
        if (!b.any) continue;
        unsorted |= !b.sorted || (have && b.first < t_last);
        if (!have) t_first = b.first;
        t_last = b.last, have = true;
      }
      if (null)
        problem = what + "the timestamp column of a time window has a null";
      else if (unsorted)
        problem = what + "the timestamp column of a time window is not sorted";
    }
  });
  comm.agree(problem.empty(), problem);

  std::vector<std::int64_t> info(3 * static_cast<std::size_t>(p));
  {
    std::int64_t mine[3] = {n_me, t_first, t_last};
    comm.allgather(std::span<const std::int64_t>(mine, 3), std::span<std::int64_t>(info));
  }
  if (time) {  // sorted across rank boundaries too
    bool ok = true, have = false;
    std::int64_t last = std::numeric_limits<std::int64_t>::min();
    for (int r = 0; r < p; ++r) {
      if (!info[3 * r]) continue;
      if (have && info[3 * r + 1] < last) ok = false;
      last = info[3 * r + 2], have = true;
    }
    comm.agree(ok, what + "the timestamp column of a time window is not sorted (across ranks)");
  }

  // This rank's tail that later ranks' windows reach goes to them; its own halo becomes the first carry.
  const HaloPlan plan{frame, rows, info, cx, ct, xtype, window, n_me, t_first};
  Chunk carry = device ? first_carry_on_device(plan) : first_carry_on_host(plan);

  std::vector<Field> fields;
  for (RollingOp op : ops) fields.push_back({column + "_" + std::string(to_string(op)), ElementType::float64});
  Schema schema(fields);
  const std::vector<ElementType> types(ops.size(), ElementType::float64);
  const auto minp = static_cast<std::size_t>(std::max<std::int64_t>(0, window.effective_min_periods()));
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> known;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::vector<Chunk> out = engine.tasks().submit_multi(
        "rolling", {frame.partitions()[k], carry}, 2,
        [types, ops, window, minp, time, cx, ct, xtype, device](TaskContext& ctx) {
          const BatchView in = input_batch(ctx, 0), prev = input_batch(ctx, 1);
          if (device) {
            detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
              rolling_on_device<typename decltype(tag)::type>(ctx, exec, in, prev, types, ops, window, minp, time, cx,
                                                              ct);
            });
            return;
          }
          std::vector<double> x;
          std::vector<std::int64_t> t;
          const auto halo_rows = static_cast<std::size_t>(prev.nrows());
          const auto n = static_cast<std::size_t>(in.nrows());
          x.reserve(halo_rows + n);
          if (halo_rows) {
            auto px = prev.column<double>(0);
            x.assign(px.begin(), px.end());
            if (time) {
              auto pt = prev.column<std::int64_t>(1);
              t.assign(pt.begin(), pt.end());
            }
          }
          append_values(in, cx, xtype, x);
          if (time) append_times(in, ct, t);
          // The kernel's halo: the carried rows the window of the partition's first row reaches (all of them).
          BatchBuilder b(ctx, static_cast<std::int64_t>(n), types, {}, 0);
          for (std::size_t j = 0; j < types.size() && n; ++j) {
            double* res = b.column<double>(j).data();
            if (time)
              rolling_kernel_time(t.data(), x.data(), halo_rows, n, window.span_ns, minp, ops[j], res);
            else
              rolling_kernel_rows(x.data(), halo_rows, n, static_cast<std::size_t>(window.rows), minp, ops[j], res);
          }
          write_carry(x, t, carry_from(x, t, window), time, ctx, 1);
        },
        device ? device_task() : TaskOptions{});
    parts.push_back(out[0]);
    carry = out[1];
    known.emplace_back(rows[k]);
  }
  return Frame(engine, std::move(schema), std::move(parts), std::move(known));
}

}  // namespace slab::frame
