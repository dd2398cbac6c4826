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
  for (const Chunk& chunk : frame.partitions()) {
    auto [pin, view] = view_chunk(chunk);
    const std::uint8_t* valid = view.valid(c);
    const std::int64_t n = view.nrows();
    if (!valid && ((type == ElementType::float64 && std::is_same_v<T, double>) ||
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

/**
 * The halo's rows of one partition in device memory, as append_values / append_times and the host's cut give them:
 * for a time window (ct a column) the timestamps are copied (8 bytes a row, not the partition) to find the first
 * row after `bound`; for a row window the last `take` rows. Only those rows' values are converted on the device
 * (RollingKernels::values) and copied. Returns the first row kept; x and t hold the rows from it.
 */
std::size_t tail_on_device(Engine& engine, const Chunk& chunk, std::size_t cx, std::size_t ct, std::int64_t bound,
                           std::size_t take, std::vector<double>& x, std::vector<std::int64_t>& t) {
  const ExecutionContext& exec = engine.execution();
  const Pin pin = chunk.buffer()->pin();
  const BatchView b(std::span<const std::byte>(pin.data(), pin.size()), exec);
  const auto n = static_cast<std::size_t>(b.nrows());
  std::size_t from = n - std::min(n, take);
  if (ct != SIZE_MAX) {
    t.resize(n);
    slab::copy(t.data(), b.data(ct), n * sizeof(std::int64_t), exec);
    from = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), bound) - t.begin());
    t.erase(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(from));
  }
  const std::size_t m = n - from;
  x.resize(m);
  if (m == 0) return from;
  detail::with_planned_backend(exec, [&](auto tag) {
    slab::detail::KernelScratch scratch(engine.memory());
    const kernels::Exec e = scratch.exec(exec);
    slab::detail::ScratchBytes out(e, m * sizeof(double));
    kernels::ColumnView v = detail::column_view(b, cx);
    v.data = static_cast<const std::byte*>(v.data) + from * element_size(v.type);
    if (v.valid) v.valid += from;
    kernels::RollingKernels<typename decltype(tag)::type>::values(e, v, static_cast<std::int64_t>(m),
                                                                  static_cast<double*>(out.get()));
    slab::copy(x.data(), out.get(), m * sizeof(double), exec);
  });
  return from;
}

// The rows of (x, t) the next rows' windows can reach: the last rows - 1 of a row window, the rows within the span
// of the last timestamp of a time window.
std::size_t carry_from(const std::vector<double>& x, const std::vector<std::int64_t>& t, const RollingWindow& window) {
  if (x.empty()) return 0;
  if (!window.is_time()) return x.size() - std::min<std::size_t>(x.size(), static_cast<std::size_t>(window.rows - 1));
  return static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), t.back() - window.span_ns) - t.begin());
}

// A carry batch: x (float64) and, for time windows, t (int64) from row `from` on.
void write_carry(const std::vector<double>& x, const std::vector<std::int64_t>& t, std::size_t from, bool time,
                 TaskContext& ctx, std::size_t output) {
  const std::vector<ElementType> types =
      time ? std::vector<ElementType>{ElementType::float64, ElementType::int64} : std::vector{ElementType::float64};
  const std::size_t n = x.size() - from;
  BatchBuilder b(ctx, static_cast<std::int64_t>(n), types, {}, output);
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
  const std::vector<ElementType> carry_types =
      time ? std::vector<ElementType>{ElementType::float64, ElementType::int64} : std::vector{ElementType::float64};
  BatchBuilder c(ctx, m - from, carry_types, {}, 1);
  if (m - from > 0) {
    slab::copy(c.data(0), x + from, static_cast<std::size_t>(m - from) * w, context);
    if (time) slab::copy(c.data(1), t + from, static_cast<std::size_t>(m - from) * w, context);
  }
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
  const int p = comm.size(), me = comm.rank();

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

  // This rank's tail that later ranks' windows reach: the last rows - 1 rows, or the rows after the first
  // timestamp of the next rank with rows less the span. Read from the last partitions backwards.
  int next = me + 1;
  while (next < p && !info[3 * next]) ++next;
  std::vector<double> tail_x;
  std::vector<std::int64_t> tail_t;
  // Read outside any task (a partition unspilled, kernel scratch): a failure on one rank is agreed on by every rank
  // before the exchange, where the others would otherwise wait.
  comm.run_collectively([&] {
    if (next >= p || n_me == 0) return;
    const std::int64_t bound = time ? info[3 * next + 1] - window.span_ns : 0;
    const auto want = static_cast<std::size_t>(time ? 0 : window.rows - 1);
    std::vector<std::vector<double>> xs;
    std::vector<std::vector<std::int64_t>> ts;
    std::size_t have = 0;
    for (std::size_t k = frame.num_partitions(); k-- > 0;) {
      if (rows[k] == 0) continue;
      std::vector<double> x;
      std::vector<std::int64_t> t;
      std::size_t from = 0;
      if (device) {
        from = tail_on_device(engine, frame.partitions()[k], cx, time ? ct : SIZE_MAX, bound, want - have, x, t);
      } else {
        auto [pin, b] = view_chunk(frame.partitions()[k]);
        append_values(b, cx, xtype, x);
        if (time) append_times(b, ct, t);
        if (time)
          from = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), bound) - t.begin());
        else
          from = x.size() - std::min(x.size(), want - have);
        x.erase(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(from));
        if (time) t.erase(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(from));
      }
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
  // Every later rank with rows gets the tail; each keeps what its own windows reach.
  std::vector<std::size_t> send_counts(static_cast<std::size_t>(p), 0);
  for (int q = next; q < p; ++q)
    if (info[3 * q]) send_counts[static_cast<std::size_t>(q)] = tail_x.size();
  std::vector<double> sx;
  std::vector<std::int64_t> st;
  for (int q = 0; q < p; ++q)
    if (send_counts[static_cast<std::size_t>(q)]) {
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
  {
    std::size_t from = 0;
    if (time && n_me > 0)
      from = static_cast<std::size_t>(std::upper_bound(ht.begin(), ht.end(), t_first - window.span_ns) - ht.begin());
    else if (!time)
      from = hx.size() - std::min<std::size_t>(hx.size(), static_cast<std::size_t>(window.rows - 1));
    hx.erase(hx.begin(), hx.begin() + static_cast<std::ptrdiff_t>(from));
    if (time) ht.erase(ht.begin(), ht.begin() + static_cast<std::ptrdiff_t>(from));
  }

  // The rank's halo becomes the first carry (a task's output, so it is accounted and spillable).
  struct Halo {
    std::vector<double> x;
    std::vector<std::int64_t> t;
  };
  auto halo = std::make_shared<Halo>(Halo{std::move(hx), std::move(ht)});
  Chunk carry = engine.tasks().submit("rolling-halo", {}, [halo, time](TaskContext& ctx) {
    write_carry(halo->x, halo->t, 0, time, ctx, 0);
    *halo = Halo{};
  });

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
