// slab-report's reading of traces: hand-written traces with known answers, bad traces, and the tracer's own
// output (memory counters throttled but exact peaks, one lane per rank, nothing from the environment).
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "slab/core/error.hpp"
#include "slab/trace/report.hpp"
#include "slab/trace/tracer.hpp"
#include "world.hpp"

namespace {

using slab::testing::world_rank;
using slab::testing::world_size;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_path(const std::string& stem, int rank) {
  return (std::filesystem::temp_directory_path() /
          (stem + "-" + std::to_string(getppid()) + "-" + std::to_string(rank)))
      .string();
}

// Rank 0: a 10 ms task holding a 1 ms spill and a 1 ms reload, then a 2 ms allreduce. Rank 1: a 4 ms read.
// Times in microseconds, as in the trace-event format.
const char* kTwoRanks = R"T({"otherData":{"producer":"slab","ranks":2,"app":"slab-demo","wall_seconds":0.020,
 "memory_peak_bytes":[{"device":400,"host":100,"disk":0}, null],
 "reservation_peak_bytes":[{"groupby partial state":300,"gram accumulator":50}, {"groupby partial state":320}]},
 "traceEvents":[
 {"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"rank 0 (nodeA)"}},
 {"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"rank 1 (nodeB)"}},
 {"name":"task","cat":"compute","ph":"X","pid":0,"tid":0,"ts":0,"dur":10000},
 {"name":"spill device->host","cat":"spill","ph":"X","pid":0,"tid":0,"ts":2000,"dur":1000,"args":{"bytes":100}},
 {"name":"reload host->device","cat":"spill","ph":"X","pid":0,"tid":0,"ts":5000,"dur":1000,"args":{"bytes":100}},
 {"name":"allreduce","cat":"comm","ph":"X","pid":0,"tid":0,"ts":12000,"dur":2000,"args":{"bytes":8}},
 {"name":"read","cat":"io","ph":"X","pid":1,"tid":0,"ts":0,"dur":4000,"args":{"bytes":50}},
 {"name":"memory","ph":"C","pid":0,"tid":0,"ts":1000,"args":{"device":300,"host":0,"disk":0}},
 {"name":"memory","ph":"C","pid":0,"tid":0,"ts":3000,"args":{"device":200,"host":100,"disk":0}},
 {"name":"memory","ph":"C","pid":1,"tid":0,"ts":500,"args":{"device":70,"host":0,"disk":5}}
]})T";

}  // namespace

TEST(TraceReport, SummarisesNestedEventsOfEachRank) {
  const slab::TraceReport r = slab::summarize_trace(kTwoRanks, "two.json");
  EXPECT_EQ(r.app, "slab-demo");
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].label, "rank 0 (nodeA)");
  EXPECT_EQ(r.ranks[1].label, "rank 1 (nodeB)");
  EXPECT_DOUBLE_EQ(r.wall_seconds, 0.020);  // otherData's wall time is later than the last event (14 ms)
  const auto& r0 = r.ranks[0];
  EXPECT_NEAR(r0.self_seconds[0], 0.008, 1e-12);  // compute: 10 ms less the nested spill and reload
  EXPECT_NEAR(r0.self_seconds[1], 0.002, 1e-12);  // comm
  EXPECT_NEAR(r0.self_seconds[3], 0.001, 1e-12);  // spill
  EXPECT_NEAR(r0.self_seconds[4], 0.001, 1e-12);  // unspill
  EXPECT_NEAR(r0.busy_seconds, 0.012, 1e-12);
  EXPECT_EQ(r0.events[0], 1u);
  EXPECT_EQ(r0.bytes[1], 8u);
  EXPECT_EQ(r0.peak_bytes[0], 400u);         // the exact peak event wins over the (sparser) counters
  EXPECT_EQ(r.ranks[1].peak_bytes[0], 70u);  // no peak event: the counters' maximum
  EXPECT_EQ(r.ranks[1].peak_bytes[2], 5u);
  EXPECT_NEAR(r.ranks[1].self_seconds[2], 0.004, 1e-12);
  EXPECT_EQ(r.spilled_bytes, 100u);
  EXPECT_EQ(r.unspilled_bytes, 100u);
  EXPECT_EQ(r.peak_bytes[0], 400u);
  EXPECT_EQ(r.peak_bytes[2], 5u);
  EXPECT_EQ(r.events, 5u);
  EXPECT_EQ(r.memory_samples, 3u);
  // Reservations by purpose: the largest rank's peak, largest first.
  ASSERT_EQ(r.reservations.size(), 2u);
  EXPECT_EQ(r.reservations[0].purpose, "groupby partial state");
  EXPECT_EQ(r.reservations[0].peak_bytes, 320u);
  EXPECT_EQ(r.reservations[0].rank, 1);
  EXPECT_EQ(r.reservations[1].purpose, "gram accumulator");
  EXPECT_EQ(r.reservations[1].peak_bytes, 50u);
  EXPECT_NE(slab::render_html_report(kTwoRanks, "two.json").find("Reservations by purpose"), std::string::npos);
}

TEST(TraceReport, RejectsWhatIsNotATraceNamingTheFile) {
  auto message = [](const std::string& text) {
    try {
      (void)slab::summarize_trace(text, "bad.json");
    } catch (const slab::InvalidArgument& e) {
      return e.message();
    }
    return std::string("no error");
  };
  for (const std::string text :
       {std::string("{\"traceEvents\": [}"), std::string("{\"events\": []}"), std::string("{\"traceEvents\": []}"),
        std::string("[{\"ph\":\"X\",\"pid\":0,\"ts\":1}]"),
        std::string("[{\"ph\":\"X\",\"pid\":-1,\"ts\":1,\"dur\":1}]"), std::string("[7]"), std::string("")}) {
    const std::string m = message(text);
    EXPECT_NE(m.find("'bad.json' is not a slab trace"), std::string::npos) << text << " -> " << m;
  }
  EXPECT_NE(message("[{\"ph\":\"X\",\"pid\":0,\"ts\":1}]").find("event 0 has no numeric \"dur\""), std::string::npos);
}

TEST(TraceReport, PageEmbedsTheDataWithoutEndingItsScript) {
  const std::string hostile =
      R"([{"name":"</script><script>alert(1)</script>","cat":"compute","ph":"X","pid":0,"ts":0,"dur":5}])";
  const std::string html = slab::render_html_report(hostile, "/some/dir/h.json");
  EXPECT_EQ(html.find("</script><script>alert"), std::string::npos);
  EXPECT_NE(html.find("<\\/script><script>alert(1)<\\/script>"), std::string::npos);
  EXPECT_NE(html.find("\"source\":\"h.json\""), std::string::npos);  // the file name only, not the path
  EXPECT_EQ(html.find("/*SLAB_REPORT_DATA*/"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no other address: offline
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(TraceReport, WritesThePageOrNothing) {
  const std::string dir = temp_path("slab-report-dir", world_rank());
  std::filesystem::create_directories(dir);
  const std::string trace = dir + "/t.json";
  std::ofstream(trace) << kTwoRanks;
  const std::string html = dir + "/t.html";
  const slab::TraceReport r = slab::write_html_report(trace, html);
  EXPECT_EQ(r.ranks.size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(html));
  EXPECT_FALSE(std::filesystem::exists(html + ".tmp"));
  EXPECT_THROW(slab::write_html_report(dir + "/missing.json", dir + "/m.html"), slab::IoError);
  EXPECT_THROW(slab::write_html_report(trace, dir + "/no/such/dir/x.html"), slab::IoError);
  EXPECT_FALSE(std::filesystem::exists(dir + "/m.html"));
  std::filesystem::remove_all(dir);
}

TEST(TraceReport, TracerThrottlesMemoryButKeepsPeaksAndTheLastValue) {
  slab::Tracer tracer(MPI_COMM_SELF);
  // 20000 changes within a few milliseconds: a ramp up to 20000 bytes, then back down to 7.
  for (std::uint64_t i = 1; i <= 20000; ++i) tracer.update_memory(i, 2 * i, 0);
  for (std::uint64_t i = 20000; i >= 7; --i) tracer.update_memory(i, 0, 3);
  EXPECT_LT(tracer.memory_samples().size(), 2000u);  // at most two per millisecond
  EXPECT_EQ(tracer.memory_peak().device, 20000u);
  EXPECT_EQ(tracer.memory_peak().host, 40000u);
  const std::string path = temp_path("slab-report-throttle", world_rank()) + ".json";
  tracer.write_chrome_trace(path);
  const std::string text = read_all(path);
  std::filesystem::remove(path);
  const slab::TraceReport r = slab::summarize_trace(text, path);
  ASSERT_EQ(r.ranks.size(), 1u);
  EXPECT_EQ(r.ranks[0].peak_bytes[0], 20000u);
  EXPECT_EQ(r.ranks[0].peak_bytes[1], 40000u);
  EXPECT_EQ(r.ranks[0].peak_bytes[2], 3u);
  // The last value (device 7) is in the trace even though it came within a millisecond of the one before.
  double last_ts = -1;
  nlohmann::json last;
  const nlohmann::json parsed = nlohmann::json::parse(text);
  for (const auto& e : parsed["traceEvents"])
    if (e["ph"] == "C" && e["ts"].get<double>() >= last_ts) {
      last_ts = e["ts"].get<double>();
      last = e["args"];
    }
  EXPECT_EQ(last["device"], 7);
  EXPECT_EQ(last["host"], 0);
  EXPECT_EQ(last["disk"], 3);
}

TEST(TraceReport, OneLanePerRankAndNothingFromTheEnvironment) {
  const int rank = world_rank();
  ::setenv("SLAB_REPORT_TEST_SECRET", "hunter2-do-not-write", 1);
  {
    slab::Tracer tracer(MPI_COMM_WORLD);
    tracer.record("work", slab::TraceKind::compute, tracer.now(), 0.001 * (rank + 1), 0);
    tracer.update_memory(100 * (rank + 1), 0, 0);
    std::string path = temp_path("slab-report-world", 0) + ".json";
    // Every rank must pass the same path: rank 0's parent pid names it.
    int n = static_cast<int>(path.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    path.resize(n);
    MPI_Bcast(path.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
    tracer.write_chrome_trace(path);
    if (rank == 0) {
      const std::string text = read_all(path);
      std::filesystem::remove(path);
      EXPECT_EQ(text.find("hunter2"), std::string::npos);
      EXPECT_EQ(text.find("SLAB_REPORT_TEST_SECRET"), std::string::npos);
      const slab::TraceReport r = slab::summarize_trace(text, path);
      ASSERT_EQ(static_cast<int>(r.ranks.size()), world_size());
      EXPECT_EQ(r.app, "test_trace_report");
      for (int p = 0; p < world_size(); ++p) {
        EXPECT_EQ(r.ranks[p].rank, p);
        EXPECT_EQ(r.ranks[p].events[0], 1u);
        EXPECT_EQ(r.ranks[p].peak_bytes[0], 100u * (p + 1));
        EXPECT_NEAR(r.ranks[p].self_seconds[0], 0.001 * (p + 1), 1e-9);
      }
    }
  }
  ::unsetenv("SLAB_REPORT_TEST_SECRET");
}
