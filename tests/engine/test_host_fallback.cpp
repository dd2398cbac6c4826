// note_host_fallback: recorded (an instant trace event "fallback:host <op>" and a count per op) on a rank whose
// execution context is a CUDA device, nothing on the host. The device context here is a fake one (the public
// constructor with ExecutionPlace::cuda touches no CUDA), so the test runs without a GPU.
#include <gtest/gtest.h>
#include <mpi.h>

#include <map>
#include <string>

#include "slab/engine/host_fallback.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

namespace {

std::map<std::string, std::uint64_t> counts(const slab::Tracer& t) {
  return {t.fallbacks().begin(), t.fallbacks().end()};
}

TEST(HostFallback, IsRecordedOnADeviceContextOnly) {
  slab::Tracer tracer(MPI_COMM_WORLD);
  const slab::ExecutionContext host;
  const slab::ExecutionContext device(slab::ExecutionPlace::cuda, 0, nullptr);  // a fake: no stream, no GPU
  ASSERT_FALSE(host.on_device());
  ASSERT_TRUE(device.on_device());

  EXPECT_FALSE(slab::note_host_fallback(host, tracer, "groupby"));
  EXPECT_FALSE(slab::note_host_fallback(slab::ExecutionContext::host(), tracer, "merge"));
  EXPECT_TRUE(tracer.events().empty());
  EXPECT_TRUE(tracer.fallbacks().empty());

  EXPECT_TRUE(slab::note_host_fallback(device, tracer, "groupby"));
  EXPECT_TRUE(slab::note_host_fallback(device, tracer, "merge"));
  EXPECT_TRUE(slab::note_host_fallback(device, tracer, "groupby"));
  const std::map<std::string, std::uint64_t> want{{"groupby", 2}, {"merge", 1}};
  EXPECT_EQ(counts(tracer), want);
  ASSERT_EQ(tracer.events().size(), 3u);
  const char* names[] = {"fallback:host groupby", "fallback:host merge", "fallback:host groupby"};
  for (std::size_t i = 0; i < 3; ++i) {
    const slab::TraceEvent& e = tracer.events()[i];
    EXPECT_EQ(e.name, names[i]);
    EXPECT_EQ(e.kind, slab::TraceKind::other);
    EXPECT_EQ(e.duration, 0.0);  // an instant: no time is attributed to it
    EXPECT_GE(e.start, 0.0);
  }
}

TEST(HostFallback, TheEnginesContextDecides) {
  slab::testing::Engine engine;
  EXPECT_FALSE(engine.execution().on_device());  // a host build or a host rank
  EXPECT_FALSE(slab::note_host_fallback(engine, "groupby"));
  EXPECT_FALSE(slab::note_host_fallback(engine.tasks(), "elementwise"));
  EXPECT_TRUE(engine.tracer().fallbacks().empty());

  // The test hook stands in for a CUDA rank's context; cleared, the engine's own context decides again.
  const slab::ExecutionContext device(slab::ExecutionPlace::cuda, 0, nullptr);
  slab::detail::set_host_fallback_context_for_testing(&device);
  EXPECT_TRUE(slab::note_host_fallback(engine, "groupby"));
  EXPECT_TRUE(slab::note_host_fallback(engine.tasks(), "elementwise"));
  slab::detail::set_host_fallback_context_for_testing(nullptr);
  EXPECT_FALSE(slab::note_host_fallback(engine, "groupby"));
  const std::map<std::string, std::uint64_t> want{{"elementwise", 1}, {"groupby", 1}};
  EXPECT_EQ(counts(engine.tracer()), want);
}

}  // namespace
