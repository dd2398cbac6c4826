// Fallback, never silence: every frame and array operation that runs a host loop calls note_host_fallback at its
// entry. A fake CUDA execution context (slab::detail::set_host_fallback_context_for_testing) stands in for a GPU
// rank, so the wiring is checked on any machine: each operation below must add its own "fallback:host <op>"
// event and count, and with the rank's own (host) context none is recorded.
#include <gtest/gtest.h>

#include <string>

#include "ops_test_util.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/scan.hpp"
#include "slab/array/slicing.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/datasets.hpp"
#include "slab/frame/from_arrays.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/merge.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/quantile.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/series.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/frame/sort.hpp"
#include "slab/runtime/execution_context.hpp"

namespace fr = slab::frame;
using ops_test::Engine;

namespace {

/// The fake device context for the duration of a test (cleared even when the test fails).
struct FakeDevice {
  slab::ExecutionContext device{slab::ExecutionPlace::cuda, 0, nullptr};
  FakeDevice() { slab::detail::set_host_fallback_context_for_testing(&device); }
  ~FakeDevice() { slab::detail::set_host_fallback_context_for_testing(nullptr); }
};

std::uint64_t count(const slab::Tracer& t, const std::string& op) {
  const auto it = t.fallbacks().find(op);
  return it == t.fallbacks().end() ? 0 : it->second;
}
std::uint64_t events(const slab::Tracer& t, const std::string& op) {
  std::uint64_t n = 0;
  for (const auto& e : t.events()) n += e.name == "fallback:host " + op;
  return n;
}

/// `run` (collective: every rank runs the same operations) records `op` once more, as count and as event.
template <class F>
void expect_notes(slab::Engine& engine, const std::string& op, F run) {
  const std::uint64_t before = count(engine.tracer(), op), ev = events(engine.tracer(), op);
  run();
  EXPECT_GE(count(engine.tracer(), op), before + 1) << op << " recorded no host fallback";
  EXPECT_EQ(events(engine.tracer(), op) - ev, count(engine.tracer(), op) - before) << op << ": events and counts";
}

TEST(HostFallbacks, EveryArrayOperationNotesItsHostLoop) {
  Engine engine;
  const FakeDevice fake;
  using slab::Array;
  using slab::Split;
  Array<double> a;
  expect_notes(engine, "random_uniform", [&] { a = slab::random_uniform(engine, {500, 3}, Split::rows, 7); });
  expect_notes(engine, "full", [&] { (void)slab::full<double>(engine, {40}, 2.0, Split::rows); });
  expect_notes(engine, "elementwise", [&] { Array<double>(a * 2.0 + 1.0).persist(); });
  expect_notes(engine, "sum", [&] { (void)slab::sum(a); });
  expect_notes(engine, "reduce_stats", [&] { (void)slab::mean(a); });
  expect_notes(engine, "argminmax", [&] { (void)slab::argmax(a); });
  expect_notes(engine, "norm", [&] { (void)slab::norm(a); });
  expect_notes(engine, "count_nonzero", [&] { (void)slab::count_nonzero(a); });
  expect_notes(engine, "nanmean", [&] { (void)slab::nanmean(a); });
  expect_notes(engine, "reduce_axis", [&] { (void)slab::reduce_axis(a, slab::AxisOp::max, 0, 0).gather_all(); });
  expect_notes(engine, "transpose", [&] { (void)slab::transpose(a).gather_all(); });
  expect_notes(engine, "select_cols", [&] { (void)slab::select_cols(a, {0, 2}).gather_all(); });
  expect_notes(engine, "redistribute", [&] { (void)slab::resplit(a, Split::cols).gather_all(); });
  const Array<double> v = slab::random_uniform(engine, {300}, Split::rows, 8);
  expect_notes(engine, "cumsum", [&] { (void)slab::cumsum(v).gather_all(); });
}

TEST(HostFallbacks, EveryFrameOperationNotesItsHostLoop) {
  Engine engine;
  const FakeDevice fake;
  fr::Frame ts;
  expect_notes(engine, "timeseries", [&] { ts = fr::timeseries(engine, "2000-01-01", "2000-01-03", "1h", 0, "6h"); });
  ts.persist();
  expect_notes(engine, "filter", [&] { (void)fr::filter(ts, fr::col("x") > 0.0).len(); });
  expect_notes(engine, "dropna", [&] { (void)fr::dropna(ts).len(); });
  expect_notes(engine, "groupby", [&] {
    (void)fr::groupby(ts, {"name"}, {{"x", {fr::AggOp::sum, fr::AggOp::std}}}).len();
  });
  expect_notes(engine, "merge", [&] { (void)fr::merge(ts, fr::select(ts, {"id", "y"}), {"id"}).len(); });
  expect_notes(engine, "sort_values", [&] { (void)fr::sort_values(ts, std::vector<std::string>{"x"}).len(); });
  expect_notes(engine, "rolling",
               [&] { (void)fr::rolling(ts, "x", fr::RollingWindow::count(3), {fr::RollingOp::mean}).len(); });
  expect_notes(engine, "shuffle", [&] { (void)fr::shuffle(ts, {"id"}).len(); });
  expect_notes(engine, "quantile", [&] { (void)fr::quantile(ts, "x", 0.5); });
  expect_notes(engine, "describe", [&] { (void)fr::describe(ts); });
  expect_notes(engine, "series", [&] { (void)fr::Series(ts, "x").sum(); });
  expect_notes(engine, "cumsum", [&] { (void)fr::cumsum(ts, {"x"}).len(); });
  expect_notes(engine, "shift", [&] { (void)fr::shift(ts, 1, {"x"}).len(); });
  expect_notes(engine, "diff", [&] { (void)fr::diff(ts, 1, {"x"}).len(); });
  expect_notes(engine, "drop_duplicates", [&] { (void)fr::drop_duplicates(ts, {"name"}).len(); });
  expect_notes(engine, "concat", [&] { (void)fr::concat({ts, ts}).len(); });
  const slab::Array<double> col = slab::random_uniform(engine, {100}, slab::Split::rows, 9);
  expect_notes(engine, "from_arrays", [&] { (void)fr::from_arrays({{"a", col}}).len(); });
}

TEST(HostFallbacks, NoneOnAHostContext) {
  Engine engine;
  EXPECT_FALSE(engine.execution().on_device());  // this suite runs on the host
  const fr::Frame ts = fr::timeseries(engine, "2000-01-01", "2000-01-02", "1h", 0, "6h");
  (void)fr::groupby(ts, {"name"}, {{"x", {fr::AggOp::mean}}}).len();
  (void)slab::sum(slab::random_uniform(engine, {100}, slab::Split::rows, 1));
  EXPECT_TRUE(engine.tracer().fallbacks().empty());
  for (const auto& e : engine.tracer().events()) EXPECT_NE(e.name.rfind("fallback:host", 0), 0u) << e.name;
}

}  // namespace
