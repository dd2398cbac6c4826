// slab::sweep, slab::Grid and slab::WorkCounter on real MPI: every point exactly once, results in grid order,
// dynamic balancing under uneven point times, more ranks than points, grid CSV errors naming file, line and
// column, and a failing point becoming the same error on every rank.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "../comm/comm_test_util.hpp"
#include "slab/app/sweep.hpp"
#include "slab/comm/work_counter.hpp"

using slab_test::same_on_all_ranks;

namespace {

/// A path under /tmp named by rank 0's pid (the same on every rank).
std::string shared_tmp(const slab::Comm& comm, const std::string& name) {
  int pid = int(::getpid());
  comm.bcast(std::span<int>(&pid, 1), 0);
  return "/tmp/slab_sweep_test_" + std::to_string(pid) + "_" + name;
}

/// Rank 0 writes `text` to `path`; every rank returns after it is there.
void write_file(const slab::Comm& comm, const std::string& path, const std::string& text) {
  if (comm.rank() == 0) std::ofstream(path) << text;
  comm.barrier();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

slab::Grid numbered_grid(std::size_t n) {
  slab::Grid g({"x"});
  for (std::size_t i = 0; i < n; ++i) g.add({double(i)});
  return g;
}

/// The message every rank gets from `fn`, which must throw E ("" when it does not).
template <class E, class F>
std::string thrown_message(F&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.message();
  }
  return "";
}

}  // namespace

TEST(WorkCounter, EveryValueExactlyOnce) {
  slab::Comm comm(MPI_COMM_WORLD);
  const std::int64_t n = 500;
  std::vector<std::int64_t> mine;
  slab::WorkCounter counter(comm, 7);
  for (auto i = counter.fetch_add(3); i < n; i = counter.fetch_add(3)) mine.push_back(i);
  counter.close();
  std::vector<std::int64_t> all;
  (void)comm.allgatherv(std::span<const std::int64_t>(mine), all);
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> want;
  for (std::int64_t i = 7; i < n; i += 3) want.push_back(i);
  EXPECT_EQ(all, want);
  EXPECT_THROW(counter.fetch_add(), slab::InvalidArgument);
}

TEST(Sweep, ResultsInGridOrderEveryPointOnce) {
  slab::Comm comm(MPI_COMM_WORLD);
  slab::Grid grid({"a", "b"});
  for (int i = 0; i < 37; ++i) grid.add({double(i), 0.5 * i});
  for (std::size_t batch : {1, 4}) {
    const auto table = slab::sweep(comm, grid,
                                   [](const slab::SweepPoint& p) {
                                     return slab::SweepValues{{"sum", p["a"] + p["b"]}, {"idx", double(p.index())}};
                                   },
                                   {batch, "t"});
    ASSERT_EQ(table.size(), 37u);
    EXPECT_EQ(table.columns(), (std::vector<std::string>{"a", "b", "sum", "idx", "rank", "seconds"}));
    for (std::size_t i = 0; i < 37; ++i) {
      EXPECT_EQ(table.at(i, "a"), double(i));
      EXPECT_EQ(table.at(i, "sum"), 1.5 * double(i));
      EXPECT_EQ(table.at(i, "idx"), double(i));
      EXPECT_GE(table.at(i, "rank"), 0);
      EXPECT_LT(table.at(i, "rank"), comm.size());
    }
    EXPECT_TRUE(same_on_all_ranks(table.to_csv()));
  }
}

TEST(Sweep, UnevenPointsAreBalancedDynamically) {
  slab::Comm comm(MPI_COMM_WORLD);
  const std::size_t n = 30;
  // Point 0 takes 600 ms, the others 5 ms: with dynamic balancing the rank that took point 0 does (almost)
  // nothing else, while a static split would give it n / size points.
  const auto table = slab::sweep(comm, numbered_grid(n), [](const slab::SweepPoint& p) {
    std::this_thread::sleep_for(std::chrono::milliseconds(p.index() == 0 ? 600 : 5));
    return slab::SweepValues{{"y", 2.0 * p["x"]}};
  });
  const auto ranks = table.column("rank");
  const auto slow_rank = ranks[0];
  const auto slow_count = std::count(ranks.begin(), ranks.end(), slow_rank);
  if (comm.size() > 1) {
    EXPECT_LE(slow_count, 2) << "the rank that ran the 600 ms point also ran " << slow_count - 1 << " others";
  } else {
    EXPECT_EQ(slow_count, 30);
  }
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(table.at(i, "y"), 2.0 * double(i));
  EXPECT_GE(table.at(0, "seconds"), 0.5);
}

TEST(Sweep, MoreRanksThanPointsAndAnEmptyGrid) {
  slab::Comm comm(MPI_COMM_WORLD);
  const auto table = slab::sweep(comm, numbered_grid(2), [](const slab::SweepPoint& p) {
    return slab::SweepValues{{"sq", p["x"] * p["x"]}};
  });
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table.at(1, "sq"), 1.0);
  EXPECT_EQ(table.argmin("sq"), 0u);
  const auto empty = slab::sweep(comm, slab::Grid({"x"}), [](const slab::SweepPoint&) {
    return slab::SweepValues{{"never", 0.0}};
  });
  EXPECT_EQ(empty.size(), 0u);
}

TEST(Sweep, AFailingPointIsTheSameErrorOnEveryRank) {
  slab::Comm comm(MPI_COMM_WORLD);
  int calls = 0;
  const std::string m = thrown_message<slab::Error>([&] {
    (void)slab::sweep(comm, numbered_grid(40), [&](const slab::SweepPoint& p) {
      ++calls;
      if (p.index() == 5) throw std::runtime_error("model diverged");
      // Slow enough that the other ranks cannot finish the grid before they see the failure, even when the
      // failing rank is descheduled for a while on a loaded machine.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return slab::SweepValues{{"y", p["x"]}};
    });
  });
  EXPECT_EQ(m, "sweep: point 5 (x=5): model diverged");  // the rank it failed on is Error::origin_rank()
  EXPECT_TRUE(same_on_all_ranks(m));
  // The other ranks stopped early: far fewer than all 40 points ran.
  EXPECT_LT(comm.allreduce(calls, slab::ReduceOp::sum), 40);

  // A slab error keeps its message; the next sweep on the same communicator works.
  const std::string m2 = thrown_message<slab::Error>([&] {
    (void)slab::sweep(comm, numbered_grid(3), [&](const slab::SweepPoint& p) -> slab::SweepValues {
      SLAB_EXPECTS(p.index() != 2, slab::InvalidArgument, "alpha must be positive");
      return {{"y", 1.0}};
    });
  });
  EXPECT_NE(m2.find("sweep: point 2 (x=2): alpha must be positive"), std::string::npos) << m2;
  EXPECT_TRUE(same_on_all_ranks(m2));
  EXPECT_EQ(slab::sweep(comm, numbered_grid(3),
                        [](const slab::SweepPoint&) {
                          return slab::SweepValues{{"y", 1.0}};
                        })
                .size(),
            3u);
}

TEST(Sweep, PointsMustReturnTheSameNames) {
  slab::Comm comm(MPI_COMM_WORLD);
  const std::string m = thrown_message<slab::Error>([&] {
    (void)slab::sweep(comm, numbered_grid(12), [](const slab::SweepPoint& p) {
      return slab::SweepValues{{p.index() % 2 ? "odd" : "even", 1.0}};
    });
  });
  // Caught on the rank that ran both an odd and an even point, or when the ranks' names are compared.
  EXPECT_TRUE(m.find("returned values (") != std::string::npos || m.find("different values") != std::string::npos) << m;
  EXPECT_TRUE(same_on_all_ranks(m));
  const std::string clash = thrown_message<slab::Error>([&] {
    (void)slab::sweep(comm, numbered_grid(3), [](const slab::SweepPoint&) { return slab::SweepValues{{"x", 1.0}}; });
  });
  EXPECT_NE(clash.find("repeats a grid column"), std::string::npos) << clash;
}

TEST(GridCsv, ParsesHeaderRowsCommentsAndBlankLines) {
  const auto g = slab::Grid::parse_csv("# W7\nalpha, folds\r\n\n0.001,5\n 1e3 , 3\n", "g.csv");
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.names(), (std::vector<std::string>{"alpha", "folds"}));
  EXPECT_EQ(g.point(1)[0], 1000.0);
  EXPECT_EQ(g.point(1)[1], 3.0);
  EXPECT_EQ(g.describe(0), "alpha=0.001, folds=5");
}

TEST(GridCsv, BadRowsNameFileLineAndColumn) {
  auto msg = [](const std::string& text) {
    return thrown_message<slab::IoError>([&] { (void)slab::Grid::parse_csv(text, "grid.csv"); });
  };
  EXPECT_EQ(msg("alpha,folds\n1,5\n0.5,abc\n"), "grid.csv:3: column 2 ('folds'): 'abc' is not a number");
  EXPECT_EQ(msg("alpha,folds\n1,5\n\n2,5,7\n"), "grid.csv:4: column 3: 3 fields, the header has 2 (alpha, folds)");
  EXPECT_EQ(msg("alpha,folds\n1\n"), "grid.csv:2: column 2: 1 fields, the header has 2 (alpha, folds)");
  EXPECT_EQ(msg("alpha,folds\n,5\n"), "grid.csv:2: column 1 ('alpha'): '' is not a number");
  EXPECT_EQ(msg("alpha,,folds\n1,2,3\n"),
            "grid.csv:1: bad header: Grid: column name '' is empty or holds a comma, quote or line break");
  EXPECT_EQ(msg("# nothing\n"), "grid.csv: no header row (expected column names, e.g. 'alpha,folds')");
  EXPECT_EQ(msg("alpha\n"), "grid.csv: a header but no grid points");
}

TEST(GridCsv, ReadOnRankZeroErrorsOnEveryRank) {
  slab::Comm comm(MPI_COMM_WORLD);
  const std::string good = shared_tmp(comm, "good.csv"), bad = shared_tmp(comm, "bad.csv");
  write_file(comm, good, "alpha,folds\n0.1,5\n0.2,4\n");
  write_file(comm, bad, "alpha,folds\n0.1,5\n0.2,4x\n");
  const auto g = slab::Grid::read_csv(comm, good);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.names(), (std::vector<std::string>{"alpha", "folds"}));
  EXPECT_EQ(g.point(1)[1], 4.0);
  const std::string m = thrown_message<slab::IoError>([&] { (void)slab::Grid::read_csv(comm, bad); });
  EXPECT_EQ(m, bad + ":3: column 2 ('folds'): '4x' is not a number");
  EXPECT_TRUE(same_on_all_ranks(m));
  const std::string missing = thrown_message<slab::IoError>([&] { (void)slab::Grid::read_csv(comm, bad + ".no"); });
  EXPECT_EQ(missing, "grid CSV '" + bad + ".no' cannot be opened");
  comm.barrier();
  if (comm.rank() == 0) {
    std::remove(good.c_str());
    std::remove(bad.c_str());
  }
}

TEST(SweepTable, WriteCsvIsAtomicAndFailsOnEveryRank) {
  slab::Comm comm(MPI_COMM_WORLD);
  const auto table = slab::sweep(comm, numbered_grid(4), [](const slab::SweepPoint& p) {
    return slab::SweepValues{{"y", p["x"] / 3.0}};
  });
  const std::string path = shared_tmp(comm, "out.csv");
  table.write_csv(comm, path);
  comm.barrier();
  const std::string text = read_file(path);
  EXPECT_EQ(text.substr(0, text.find('\n')), "x,y,rank,seconds");
  // Values round-trip exactly, rows in grid order.
  const auto back = slab::Grid::parse_csv(text, path);
  ASSERT_EQ(back.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(back.point(i)[0], double(i));
    EXPECT_EQ(back.point(i)[1], double(i) / 3.0);
  }
  const std::string bad = "/proc/version/results.csv";
  const std::string m = thrown_message<slab::IoError>([&] { table.write_csv(comm, bad); });
  EXPECT_NE(m.find("cannot write '/proc/version/results.csv'"), std::string::npos) << m;
  EXPECT_TRUE(same_on_all_ranks(m));
  EXPECT_THROW(slab::SweepTable::check_writable(comm, bad), slab::IoError);
  EXPECT_NO_THROW(slab::SweepTable::check_writable(comm, path));
  comm.barrier();
  if (comm.rank() == 0) std::remove(path.c_str());
}
