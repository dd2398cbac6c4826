#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <memory>
#include <numeric>

#include "../common/sanitizer.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/error.hpp"
#include "slab/core/version.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "test_engine.hpp"

namespace {

using Engine = slab::testing::Engine;

// A task writing n doubles U(stream, first + i).
slab::TaskQueue::TaskFn generate(std::uint64_t stream, std::uint64_t first, std::size_t n, int* counter = nullptr) {
  return [=](slab::TaskContext& ctx) {
    if (counter) ++*counter;
    auto out = ctx.output_as<double>(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = slab::counter_uniform(stream, first + i);
  };
}

void add_doubles(std::span<std::byte> acc, std::span<const std::byte> in) {
  auto* a = reinterpret_cast<double*>(acc.data());
  const auto* b = reinterpret_cast<const double*>(in.data());
  for (std::size_t i = 0; i < acc.size() / sizeof(double); ++i) a[i] += b[i];
}

// A test engine on the reference place (host tasks are staged as on a GPU) with a host limit of `host_limit`.
slab::EngineOptions reference_options_with_host_limit(const char* host_limit) {
  slab::EngineOptions options = slab::testing::engine_options();
  options.reference_kernels = true;
  options.host_memory_limit = slab::parse_byte_limit(host_limit, "test");
  return options;
}

}  // namespace

TEST(TaskQueue, NothingRunsBeforePersist) {
  Engine e;
  int runs = 0;
  std::vector<slab::Chunk> chunks;
  for (int i = 0; i < 10; ++i) chunks.push_back(e.tasks().submit("gen", {}, generate(1, i * 8, 8, &runs)));
  auto sum = e.tasks().submit("sum", chunks, [&](slab::TaskContext& ctx) {
    ++runs;
    double s = 0;
    for (std::size_t i = 0; i < ctx.num_inputs(); ++i)
      for (double v : ctx.input_as<double>(i)) s += v;
    ctx.output_as<double>(1)[0] = s;
  });
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(e.tasks().pending(), 11u);
  EXPECT_FALSE(sum.ready());
  auto value = e.tasks().compute<double>(sum);
  EXPECT_EQ(runs, 11);
  EXPECT_EQ(e.tasks().pending(), 0u);
  double expected = 0;
  for (int i = 0; i < 80; ++i) expected += slab::counter_uniform(1, i);
  ASSERT_EQ(value.size(), 1u);
  EXPECT_DOUBLE_EQ(value[0], expected);
  // Persisting again runs nothing.
  e.tasks().persist(sum);
  EXPECT_EQ(runs, 11);
}

TEST(TaskQueue, DiamondAndLongChain) {
  Engine e;
  auto a = e.tasks().submit("a", {}, [](slab::TaskContext& ctx) { ctx.output_as<std::int64_t>(1)[0] = 3; });
  auto b = e.tasks().submit("b", {a}, [](slab::TaskContext& ctx) {
    ctx.output_as<std::int64_t>(1)[0] = ctx.input_as<std::int64_t>(0)[0] * 2;
  });
  auto c = e.tasks().submit("c", {a}, [](slab::TaskContext& ctx) {
    ctx.output_as<std::int64_t>(1)[0] = ctx.input_as<std::int64_t>(0)[0] + 10;
  });
  auto d = e.tasks().submit("d", {b, c}, [](slab::TaskContext& ctx) {
    ctx.output_as<std::int64_t>(1)[0] = ctx.input_as<std::int64_t>(0)[0] * ctx.input_as<std::int64_t>(1)[0];
  });
  EXPECT_EQ(e.tasks().compute<std::int64_t>(d)[0], 6 * 13);
  // A chain of 200,000 tasks runs iteratively (no recursion depth) and frees every intermediate. Under ASan
  // (frames several times larger, each task ~15x slower) 50,000 is as far past what a recursive walk survives.
  const int chain = kAddressSanitizer ? 20000 : 200000;
  slab::Chunk x = e.tasks().submit("x0", {}, [](slab::TaskContext& ctx) { ctx.output_as<std::int64_t>(1)[0] = 0; });
  for (int i = 1; i < chain; ++i)
    x = e.tasks().submit("inc", {x}, [](slab::TaskContext& ctx) {
      ctx.output_as<std::int64_t>(1)[0] = ctx.input_as<std::int64_t>(0)[0] + 1;
    });
  EXPECT_EQ(e.tasks().compute<std::int64_t>(x)[0], chain - 1);
  EXPECT_LE(e.memory().stats().device.current, 64u * sizeof(std::int64_t));
}

TEST(TaskQueue, IntermediatesAreReleasedAfterTheirLastConsumer) {
  Engine e;
  const std::size_t n = 1 << 16;  // 512 KiB per chunk
  slab::Chunk out;
  {
    auto g = e.tasks().submit("gen", {}, generate(2, 0, n));
    auto sq = e.tasks().submit("square", {g}, [n](slab::TaskContext& ctx) {
      auto in = ctx.input_as<double>(0);
      auto o = ctx.output_as<double>(n);
      for (std::size_t i = 0; i < n; ++i) o[i] = in[i] * in[i];
    });
    out = e.tasks().submit("total", {sq}, [](slab::TaskContext& ctx) {
      auto in = ctx.input_as<double>(0);
      ctx.output_as<double>(1)[0] = std::accumulate(in.begin(), in.end(), 0.0);
    });
  }
  e.tasks().persist(out);
  EXPECT_EQ(e.memory().stats().device.current, sizeof(double));  // only the result is left
  EXPECT_GE(e.tasks().stats().released, 2u);
  EXPECT_LE(e.memory().stats().device.high_water, 2 * n * sizeof(double) + sizeof(double));
}

// The engine issue's acceptance test: 200 chunks reduced under a limit of 4 chunks, high-water within it.
TEST(TaskQueue, TwoHundredChunkReductionStaysUnderFourChunkLimit) {
  const std::size_t n = 1 << 15;  // 256 KiB chunks
  const std::uint64_t chunk_bytes = n * sizeof(double);
  Engine e(4 * chunk_bytes, 4 * chunk_bytes);
  int rank = e.comm().rank();
  std::vector<slab::Chunk> chunks;
  for (int c = 0; c < 200; ++c) chunks.push_back(e.tasks().submit("gen", {}, generate(3 + rank, c * n, n)));
  auto total = e.tasks().reduce("sum", std::move(chunks), add_doubles);
  auto result = e.tasks().compute<double>(total);
  std::vector<double> expected(n, 0.0);
  for (int c = 0; c < 200; ++c)
    for (std::size_t i = 0; i < n; ++i) expected[i] += slab::counter_uniform(3 + rank, c * n + i);
  ASSERT_EQ(result.size(), n);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) mismatches += result[i] != expected[i];
  EXPECT_EQ(mismatches, 0u);
  const auto stats = e.memory().stats();
  EXPECT_LE(stats.device.high_water, 4 * chunk_bytes);
  EXPECT_LE(stats.device.high_water, 2 * chunk_bytes) << "a streamed reduction holds one accumulator and one input";
  EXPECT_EQ(stats.spilled_to_host_count, 0u);
}

TEST(TaskQueue, ReductionSpillsWhenUserKeepsHandles) {
  const std::size_t n = 1 << 12;
  const std::uint64_t chunk_bytes = n * sizeof(double);
  Engine e(4 * chunk_bytes, 8 * chunk_bytes);
  std::vector<slab::Chunk> chunks;
  for (int c = 0; c < 40; ++c) chunks.push_back(e.tasks().submit("gen", {}, generate(9, c * n, n)));
  auto total = e.tasks().reduce("sum", chunks, add_doubles);  // copies: the user keeps every chunk
  auto result = e.tasks().compute<double>(total);
  double expected0 = 0;
  for (int c = 0; c < 40; ++c) expected0 += slab::counter_uniform(9, c * n);
  EXPECT_DOUBLE_EQ(result[0], expected0);
  const auto stats = e.memory().stats();
  EXPECT_LE(stats.device.high_water, 4 * chunk_bytes);
  EXPECT_GT(stats.spilled_to_disk_count, 0u);
  // The kept chunks are still intact after their round trip through disk.
  auto again = e.tasks().compute<double>(chunks[7]);
  EXPECT_EQ(again[5], slab::counter_uniform(9, 7 * n + 5));
}

TEST(TaskQueue, CollectivesRunInSubmissionOrderWhateverIsAskedFirst) {
  Engine e;
  const int rank = e.comm().rank();
  const int size = e.comm().size();
  std::vector<slab::Chunk> results;
  for (int k = 0; k < 6; ++k) {
    auto local = e.tasks().submit(
        "local", {}, [=](slab::TaskContext& ctx) { ctx.output_as<double>(1)[0] = (k + 1) * 100.0 + rank; });
    results.push_back(e.tasks().submit("allreduce", {local},
                                       [](slab::TaskContext& ctx) {
                                         double v = ctx.input_as<double>(0)[0];
                                         double sum = 0;
                                         ctx.comm().allreduce(std::span<const double>(&v, 1),
                                                              std::span<double>(&sum, 1), slab::ReduceOp::sum);
                                         ctx.output_as<double>(1)[0] = sum;
                                       },
                                       {slab::TraceKind::comm, true}));
  }
  // Ranks ask for the results in different orders; the queue still calls the collectives in one order.
  std::vector<slab::Chunk> asked = results;
  if (rank % 2 == 1) std::reverse(asked.begin(), asked.end());
  e.tasks().persist(std::span<const slab::Chunk>(asked.data(), 1));  // only one asked: all collectives run
  for (int k = 0; k < 6; ++k) {
    EXPECT_TRUE(results[k].ready());
    const double expected = size * (k + 1) * 100.0 + size * (size - 1) / 2.0;
    EXPECT_EQ(e.tasks().compute<double>(results[k])[0], expected) << k;
  }
}

TEST(TaskQueue, ExceptionInATaskOnOneRankReachesEveryRank) {
  Engine e;
  const int failing = e.comm().size() - 1;
  const int rank = e.comm().rank();
  auto bad = e.tasks().submit("parse", {}, [=](slab::TaskContext& ctx) {
    if (rank == failing) SLAB_FAIL(slab::IoError, "input.csv line 7: bad number 'x1'");
    ctx.output_as<double>(1)[0] = 1;
  });
  // On the other ranks the next task is a collective: they must not wait in it for the failed rank.
  auto coll = e.tasks().submit("allreduce", {bad},
                               [](slab::TaskContext& ctx) {
                                 double v = ctx.input_as<double>(0)[0];
                                 double s = 0;
                                 ctx.comm().allreduce(std::span<const double>(&v, 1), std::span<double>(&s, 1),
                                                      slab::ReduceOp::sum);
                                 ctx.output_as<double>(1)[0] = s;
                               },
                               {slab::TraceKind::comm, true});
  std::string message;
  std::string kind;
  int origin = -2;
  try {
    e.tasks().persist(coll);
  } catch (const slab::Error& err) {
    message = err.message();
    kind = err.kind();
    origin = err.origin_rank();
  }
  EXPECT_NE(message.find("input.csv line 7: bad number 'x1'"), std::string::npos) << message;
  EXPECT_EQ(origin, failing) << message;
  EXPECT_EQ(kind, "IoError");
}

TEST(TaskQueue, AFailedPersistLeavesNoCollectiveToRunAgain) {
  Engine e;
  const int rank = e.comm().rank(), last = e.comm().size() - 1;
  auto sum_task = [](slab::TaskContext& ctx) {
    double v = ctx.input_as<double>(0)[0];
    double s = 0;
    ctx.comm().allreduce(std::span<const double>(&v, 1), std::span<double>(&s, 1), slab::ReduceOp::sum);
    ctx.output_as<double>(1)[0] = s;
  };
  {
    // A failing local task on the last rank, then two collectives waiting on it: the first persist fails.
    auto bad = e.tasks().submit("bad", {}, [rank, last](slab::TaskContext& ctx) {
      if (rank == last) SLAB_FAIL(slab::IoError, "bad input");
      ctx.output_as<double>(1)[0] = 1;
    });
    auto c1 = e.tasks().submit("allreduce", {bad}, sum_task, {slab::TraceKind::comm, true});
    auto c2 = e.tasks().submit("allreduce", {c1}, sum_task, {slab::TraceKind::comm, true});
    EXPECT_THROW(e.tasks().persist(c2), slab::IoError);
  }
  // The failed operation's collectives are forgotten on every rank: an unrelated persist runs only its own.
  auto ok = e.tasks().submit("one", {}, [](slab::TaskContext& ctx) { ctx.output_as<double>(1)[0] = 1; });
  auto total = e.tasks().submit("allreduce", {ok}, sum_task, {slab::TraceKind::comm, true});
  EXPECT_EQ(e.tasks().compute<double>(total)[0], static_cast<double>(e.comm().size()));
}

TEST(TaskQueue, EveryTaskIsTraced) {
  Engine e;
  const auto before = e.tracer().events().size();
  std::vector<slab::Chunk> chunks;
  for (int i = 0; i < 5; ++i) chunks.push_back(e.tasks().submit("gen", {}, generate(4, i * 4, 4)));
  auto r = e.tasks().reduce("sum", std::move(chunks), add_doubles);
  e.tasks().persist(r);
  int gens = 0;
  for (std::size_t i = before; i < e.tracer().events().size(); ++i) gens += e.tracer().events()[i].name == "gen";
  EXPECT_EQ(gens, 5);
}

TEST(TaskQueue, MemoryLimitBelowOneChunkIsAClearError) {
  Engine e(1024, 1024);
  auto big = e.tasks().submit("gen", {}, generate(5, 0, 1024));  // 8 KiB > 1 KiB limit
  std::string message;
  try {
    e.tasks().persist(big);
  } catch (const slab::OutOfMemory& err) {
    message = err.message();
  }
  EXPECT_FALSE(message.empty());
}

// TaskPlace: a host task runs on host copies of its buffers where the device tier is not host memory (the reference
// place stages as a GPU does), a device task on the device tier's own bytes; on a host context nothing is staged.
TEST(TaskQueue, HostTasksAreStagedWhereTheRankTakesDevicePaths) {
  for (const bool reference : {false, true}) {
    if (reference && !slab::built_with_kernel_reference)
      GTEST_SKIP() << "this build has no reference place (no CCCL headers): only the host context was checked";
    slab::EngineOptions options = slab::testing::engine_options();
    options.reference_kernels = reference;
    slab::Engine e(options);
    auto& q = e.tasks();
    slab::Chunk src = q.submit("gen", {}, generate(9, 0, 64));
    struct Seen {
      const std::byte* input = nullptr;
      const std::byte* pinned = nullptr;
      bool staged = false;
      bool host_context = false;
    };
    auto seen = std::make_shared<std::array<Seen, 2>>();
    auto look = [seen](int k) {
      return [seen, k](slab::TaskContext& ctx) {
        Seen& s = (*seen)[k];
        s.input = ctx.input(0).data();
        s.pinned = ctx.input_pin(0).data();
        s.staged = ctx.staged();
        s.host_context = ctx.execution().place() == slab::ExecutionPlace::host;
        const auto x = ctx.input_as<double>(0);
        auto out = ctx.output_as<double>(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) out[i] = 2 * x[i] + k;
      };
    };
    slab::Chunk host = q.submit("host", {src}, look(0));
    slab::Chunk device = q.submit("device", {src}, look(1), slab::device_task());
    auto folded = q.reduce("fold", {host, device}, add_doubles);  // a host combine: staged there too
    const auto h = q.compute<double>(host), d = q.compute<double>(device), f = q.compute<double>(folded);
    const auto s = q.compute<double>(src);
    ASSERT_EQ(h.size(), 64u);
    for (std::size_t i = 0; i < 64; ++i) {
      EXPECT_EQ(h[i], 2 * s[i]) << i;  // the staged output reached the device tier
      EXPECT_EQ(d[i], 2 * s[i] + 1) << i;
      EXPECT_EQ(f[i], h[i] + d[i]) << i;  // folded on the host copies, written back
    }
    const Seen& hs = (*seen)[0];
    const Seen& ds = (*seen)[1];
    EXPECT_EQ(hs.staged, reference);
    EXPECT_EQ(hs.input != hs.pinned, reference) << "a staged task reads a host copy";
    EXPECT_TRUE(hs.host_context);
    EXPECT_FALSE(ds.staged);
    EXPECT_EQ(ds.input, ds.pinned);
    EXPECT_EQ(ds.host_context, !reference);
    // The staging copies were held in host reservations (the host task's input and output, the combine's two
    // operands) and are all given back.
    const slab::MemoryStats st = e.memory().stats();
    const auto peak = st.reserved_peak_by_purpose.find("host staging");
    if (reference) {
      ASSERT_NE(peak, st.reserved_peak_by_purpose.end());
      EXPECT_EQ(peak->second, 2 * 64 * sizeof(double));
      EXPECT_GE(st.host.high_water, peak->second);
      EXPECT_GE(st.staging.blocks, 4u);  // the copies are the staging pool's blocks
    } else {
      EXPECT_EQ(peak, st.reserved_peak_by_purpose.end()) << "nothing is staged where the device tier is host memory";
      EXPECT_EQ(st.staging.blocks, 0u);
    }
    EXPECT_EQ(st.host_reserved_bytes, 0u);
  }
}

// Staging copies count against the host limit: a host task whose copies do not fit there is an OutOfMemory that
// names the host limit, not a silent allocation past it.
TEST(TaskQueue, StagingCopiesPastTheHostLimitAreRefused) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference place (no CCCL headers)";
  slab::Engine e(reference_options_with_host_limit("4KiB"));
  auto& q = e.tasks();
  slab::Chunk small = q.submit("gen small", {}, generate(3, 0, 256));   // 2 KiB: input and output fit
  slab::Chunk large = q.submit("gen large", {}, generate(4, 0, 1024));  // 8 KiB: the copy does not
  auto twice = [](slab::TaskContext& ctx) {
    const auto x = ctx.input_as<double>(0);
    auto out = ctx.output_as<double>(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) out[i] = 2 * x[i];
  };
  const auto ok = q.compute<double>(q.submit("host small", {small}, twice));
  EXPECT_EQ(ok.size(), 256u);
  try {
    (void)q.compute<double>(q.submit("host large", {large}, twice));
    ADD_FAILURE() << "staging 8 KiB under a 4 KiB host limit was allowed";
  } catch (const slab::OutOfMemory& err) {
    EXPECT_NE(err.message().find("host"), std::string::npos) << err.message();
    EXPECT_NE(err.message().find("--host-memory-limit"), std::string::npos) << err.message();
  }
  EXPECT_LE(e.memory().stats().host.high_water, 4096u);
}

// An OutOfMemory while a streaming reduction folds an input (here its staging copies, past the host limit) names
// the reduction, as one in a task names the task.
TEST(TaskQueue, AReductionThatCannotFoldNamesItself) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference place (no CCCL headers)";
  slab::Engine e(reference_options_with_host_limit("4KiB"));
  auto& q = e.tasks();
  std::vector<slab::Chunk> chunks;
  for (int c = 0; c < 3; ++c)  // 8 KiB each, made in the device tier (no staging)
    chunks.push_back(q.submit("gen", {}, generate(6, c * 1024, 1024), slab::device_task()));
  slab::Chunk total = q.reduce("sum of large chunks", std::move(chunks), add_doubles, slab::TaskPlace::host);
  try {
    (void)q.compute<double>(total);
    ADD_FAILURE() << "folding 8 KiB chunks on host copies under a 4 KiB host limit was allowed";
  } catch (const slab::OutOfMemory& err) {
    EXPECT_NE(err.message().find("(in task 'sum of large chunks')"), std::string::npos) << err.message();
  }
}
