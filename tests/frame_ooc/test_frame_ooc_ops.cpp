// Out of core, every frame operation the README calls out of core: a timeseries frame of 12.4 MB per rank (345,600
// rows a rank in partitions of 7,200) under a 3 MiB device / 4 MiB host limit per rank, about 4x the device limit,
// at any rank count. Each operation's result is reduced to a digest (streamed, one partition resident at a time) and
// compared with the same operation under a 1 GiB limit; the operations with a simple serial form (drop_duplicates, the
// groupby, rolling windows, the HDF5 round trip) are also checked against a serial reference on the gathered input.
// The device and host tiers' high-water marks must stay under their limits, and something must have spilled.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "../common/test_engine.hpp"
#include "../common/world.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/datasets.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/merge.hpp"
#include "slab/frame/ops.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/series.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/frame/sort.hpp"
#include "slab/io/frame_io.hpp"
#include "slab/memory/memory_manager.hpp"

namespace fr = slab::frame;

namespace {

constexpr std::uint64_t kDevice = 3ull << 20;  // device tier per rank
constexpr std::uint64_t kHost = 4ull << 20;    // host tier per rank: spills go on to disk
constexpr std::uint64_t kLarge = 1ull << 30;   // the in-memory run

/// 345,600 rows (4 days at 1 s) of 36 bytes per rank: 12.4 MB, 4x the device limit, on every rank, in partitions of
/// 2 h (7,200 rows, 259 KB).
constexpr std::int64_t kRowsPerRank = 345600;
std::int64_t total_rows() { return kRowsPerRank * slab::testing::world_size(); }
fr::Frame input(slab::Engine& e) {
  const std::string end = "2000-01-" + std::to_string(1 + 4 * e.comm().size());
  return fr::timeseries(e, "2000-01-01", end.size() == 9 ? "2000-01-0" + end.substr(8) : end, "1s", 0, "2h");
}

std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

/// A frame reduced to numbers: the rows, a hash over the exact (non-float) values, and weighted sums of the floats.
struct Digest {
  std::int64_t rows = 0;
  std::int64_t exact = 0;  // sum of 32-bit row hashes (exact, order-free unless ordered)
  std::int64_t nans = 0;
  double floats = 0, magnitude = 0;

  void expect_eq(const Digest& o, const std::string& what) const {
    EXPECT_EQ(rows, o.rows) << what;
    EXPECT_EQ(exact, o.exact) << what;
    EXPECT_EQ(nans, o.nans) << what;
    EXPECT_NEAR(floats, o.floats, 1e-9 * (magnitude + 1)) << what;
  }
};

/// One row's values: exact ones hashed into h, floats added with a weight from h.
struct RowDigest {
  std::uint64_t h;
  std::vector<double> fl;
  explicit RowDigest(bool ordered, std::int64_t g) : h(ordered ? mix(static_cast<std::uint64_t>(g) + 1) : 0) {}
  void exact(std::size_t c, std::uint64_t v) { h = mix(h ^ mix(v + c)); }
  void add_to(Digest& d) const {
    d.exact += static_cast<std::int64_t>(h & 0xffffffffu);
    const double w = 1.0 + static_cast<double>(h % 1024) / 1024.0;
    for (std::size_t k = 0; k < fl.size(); ++k) {
      if (std::isnan(fl[k])) {
        d.nans += static_cast<std::int64_t>(k + 1);
        continue;
      }
      d.floats += w * static_cast<double>(k + 1) * fl[k];
      d.magnitude += w * static_cast<double>(k + 1) * std::abs(fl[k]);
    }
    ++d.rows;
  }
};

std::uint64_t str_hash(const std::string& v) { return std::hash<std::string>{}(v); }

/// The digest of `f` over all ranks; `ordered`: row positions count (sorted output, row-wise operations). Collective.
Digest digest(const fr::Frame& f, bool ordered) {
  fr::Frame(f).persist();
  std::int64_t g = f.global_offset();
  const fr::Schema& s = f.schema();
  Digest d;
  for (const auto& p : f.partitions()) {
    auto [pin, b] = fr::view_chunk(p);
    for (std::int64_t i = 0; i < b.nrows(); ++i, ++g) {
      RowDigest r(ordered, g);
      for (std::size_t c = 0; c < s.size(); ++c) {
        const bool null = b.is_null(c, i);
        switch (s.type(c)) {
          case slab::ElementType::float64:
            r.fl.push_back(null ? std::nan("") : b.column<double>(c)[i]);
            break;
          case slab::ElementType::string:
            r.exact(c, null ? 1 : str_hash((*s.dictionary(c))[b.column<std::int32_t>(c)[i]]));
            break;
          case slab::ElementType::boolean:
            r.exact(c, null ? 3 : b.column<std::uint8_t>(c)[i]);
            break;
          default:
            r.exact(c, null ? 5 : static_cast<std::uint64_t>(b.column<std::int64_t>(c)[i]));
        }
      }
      r.add_to(d);
    }
  }
  const slab::Comm& comm = f.engine().comm();
  std::int64_t ints[3] = {d.rows, d.exact, d.nans};
  double dbl[2] = {d.floats, d.magnitude};
  comm.allreduce(std::span<std::int64_t>(ints, 3), slab::ReduceOp::sum);
  comm.allreduce(std::span<double>(dbl, 2), slab::ReduceOp::sum);
  return {ints[0], ints[1], ints[2], dbl[0], dbl[1]};
}

/// A whole table's digest (every rank holds it), computed as digest() does. Not collective.
Digest table_digest(const fr::LocalTable& t, bool ordered) {
  Digest d;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nrows()); ++i) {
    RowDigest r(ordered, static_cast<std::int64_t>(i));
    for (std::size_t c = 0; c < t.ncols(); ++c) {
      const auto& col = t.columns[c];
      const bool null = col.is_null(i);
      switch (col.type) {
        case slab::ElementType::float64:
          r.fl.push_back(null ? std::nan("") : col.floats[i]);
          break;
        case slab::ElementType::string:
          r.exact(c, null ? 1 : str_hash(col.strings[i]));
          break;
        case slab::ElementType::boolean:
          r.exact(c, null ? 3 : col.bools[i]);
          break;
        default:
          r.exact(c, null ? 5 : static_cast<std::uint64_t>(col.ints[i]));
      }
    }
    r.add_to(d);
  }
  return d;
}

/// `t` (the same on every rank) as a frame held by rank 0. Collective.
fr::Frame frame_on_root(slab::Engine& e, const fr::LocalTable& t) {
  return fr::Frame::from_local_table(e, e.comm().rank() == 0 ? t : t.slice(0, 0), 0);
}

struct Run {
  Digest digest;
  slab::MemoryStats stats;
  std::string error;  // what the operation threw
};

/// The operation of a test: the result frame of `f` (and whatever it checks itself on `e`).
using Op = std::function<fr::Frame(slab::Engine& e, const fr::Frame& f)>;

Run run(const Op& op, std::uint64_t device, std::uint64_t host, bool ordered) {
  slab::testing::Engine e(device, host);
  Run r;
  try {
    r.digest = digest(op(e, input(e)), ordered);
  } catch (const std::exception& ex) {
    r.error = ex.what();
  }
  r.stats = e.memory().stats();
  return r;
}

/// The operation under the small limit: no error, within the limits, something spilled; and equal to the
/// in-memory run. Returns the in-memory run's digest.
Digest check(const std::string& name, const Op& op, bool ordered) {
  const auto t0 = std::chrono::steady_clock::now();
  const Run small = run(op, kDevice, kHost, ordered);
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(small.error, "") << name << " out of core";
  EXPECT_LE(small.stats.device.high_water, kDevice) << name;
  EXPECT_LE(small.stats.host.high_water, kHost) << name;
  EXPECT_GT(small.stats.spilled_to_disk_bytes, 0u) << name << ": nothing reached the disk: the test is too small";
  const Run large = run(op, kLarge, kLarge, ordered);
  const auto t2 = std::chrono::steady_clock::now();
  EXPECT_EQ(large.error, "") << name << " in memory";
  EXPECT_EQ(large.stats.spilled_to_host_bytes, 0u) << name << " spilled in memory";
  if (small.error.empty() && large.error.empty()) small.digest.expect_eq(large.digest, name);
  if (small.stats.device.high_water > 0 && slab::testing::world_rank() == 0)
    std::printf(
        "[ooc] %s: device peak %.2f MiB of %.2f, host peak %.2f MiB of %.2f, spilled %.1f MiB to disk; %.2f s out of "
        "core, %.2f s in memory\n",
        name.c_str(), small.stats.device.high_water / 1048576.0, kDevice / 1048576.0,
        small.stats.host.high_water / 1048576.0, kHost / 1048576.0, small.stats.spilled_to_disk_bytes / 1048576.0,
        std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
  return large.digest;
}

/// The whole input on every rank (a reference; 12 MB of host memory outside any engine).
fr::LocalTable gathered() {
  slab::testing::Engine e(kLarge, kLarge);
  return input(e).gather_all();
}

}  // namespace

TEST(FrameOutOfCoreOps, DropDuplicates) {
  const Digest d = check(
      "drop_duplicates",
      [](slab::Engine&, const fr::Frame& f) {
        return fr::drop_duplicates(f, {"id", "name"});
      },
      false);
  // Serial reference: the first row of each (id, name).
  const fr::LocalTable t = gathered();
  std::set<std::pair<std::int64_t, std::string>> seen;
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nrows()); ++i)
    if (seen.insert({t["id"].ints[i], t["name"].strings[i]}).second) keep.push_back(i);
  fr::LocalTable ref;
  for (const auto& c : t.columns) {
    fr::LocalColumn o;
    o.name = c.name, o.type = c.type;
    for (auto i : keep) o.push_from(c, i);
    ref.columns.push_back(std::move(o));
  }
  table_digest(ref, false).expect_eq(d, "drop_duplicates vs serial");
}

TEST(FrameOutOfCoreOps, GroupbyTwoKeys) {
  const std::vector<fr::Aggregation> aggs = {{"x", {fr::AggOp::sum, fr::AggOp::mean, fr::AggOp::std, fr::AggOp::count}},
                                             {"y", {fr::AggOp::min, fr::AggOp::max, fr::AggOp::nunique}}};
  const Digest d = check(
      "groupby(id, name)",
      [&](slab::Engine&, const fr::Frame& f) {
        return fr::groupby(f, {"id", "name"}, aggs);
      },
      true);
  // Serial reference of the count, sum and nunique columns: every group once, keyed by id * 64 + the name's number
  // in order of appearance (hash maps and a sort per group: a std::map of strings and sets took seconds per rank).
  const fr::LocalTable t = gathered();
  struct Group {
    double sum = 0;
    std::int64_t count = 0;
    std::vector<double> ys;
  };
  std::unordered_map<std::string, std::int64_t> names;
  const auto key_of = [&](std::int64_t id, const std::string& name) {
    const auto it = names.try_emplace(name, static_cast<std::int64_t>(names.size())).first;
    return id * 64 + it->second;
  };
  std::unordered_map<std::int64_t, Group> ref;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nrows()); ++i) {
    Group& g = ref[key_of(t["id"].ints[i], t["name"].strings[i])];
    g.sum += t["x"].floats[i];
    ++g.count;
    g.ys.push_back(t["y"].floats[i]);
  }
  ASSERT_LE(names.size(), 64u);
  for (auto& [key, g] : ref) {
    std::sort(g.ys.begin(), g.ys.end());
    g.ys.erase(std::unique(g.ys.begin(), g.ys.end()), g.ys.end());
  }
  EXPECT_EQ(d.rows, static_cast<std::int64_t>(ref.size()));
  slab::testing::Engine e(kDevice, kHost);
  fr::Frame g = fr::groupby(input(e), {"id", "name"}, aggs).persist();
  std::int64_t bad = 0, groups = 0;
  const auto& s = g.schema();
  const std::size_t cs = s.index_of("x_sum"), cc = s.index_of("x_count"), cn = s.index_of("y_nunique");
  for (const auto& p : g.partitions()) {
    auto [pin, b] = fr::view_chunk(p);
    for (std::int64_t i = 0; i < b.nrows(); ++i, ++groups) {
      auto it = ref.find(key_of(b.column<std::int64_t>(0)[i], (*s.dictionary(1))[b.column<std::int32_t>(1)[i]]));
      if (it == ref.end()) {
        ++bad;
        continue;
      }
      bad += std::abs(b.column<double>(cs)[i] - it->second.sum) > 1e-9 * 1e4;
      bad += b.column<std::int64_t>(cc)[i] != it->second.count;
      bad += b.column<std::int64_t>(cn)[i] != static_cast<std::int64_t>(it->second.ys.size());
    }
  }
  EXPECT_EQ(e.comm().allreduce(bad, slab::ReduceOp::sum), 0);
  EXPECT_EQ(e.comm().allreduce(groups, slab::ReduceOp::sum), static_cast<std::int64_t>(ref.size()));
}

namespace {
void check_rolling(const std::string& window) {
  const auto w = fr::RollingWindow::parse(window);
  const std::vector<fr::RollingOp> ops = {fr::RollingOp::mean, fr::RollingOp::max};
  const Digest d = check(
      "rolling(" + window + ")",
      [&](slab::Engine&, const fr::Frame& f) { return fr::rolling(f, "x", w, ops, w.is_time() ? "timestamp" : ""); },
      true);
  // Serial reference: the kernels over the whole gathered column.
  const fr::LocalTable t = gathered();
  const auto& x = t["x"].floats;
  const auto& ts = t["timestamp"].ints;
  const std::size_t minp = static_cast<std::size_t>(w.effective_min_periods());
  fr::LocalTable ref;
  for (auto op : ops) {
    std::vector<double> out(x.size());
    if (w.is_time())
      fr::rolling_kernel_time(ts.data(), x.data(), 0, x.size(), w.span_ns, minp, op, out.data());
    else
      fr::rolling_kernel_rows(x.data(), 0, x.size(), static_cast<std::size_t>(w.rows), minp, op, out.data());
    ref.add(fr::LocalColumn::float64("x_" + std::string(fr::to_string(op)), out));
  }
  table_digest(ref, true).expect_eq(d, "rolling vs serial");
}
}  // namespace

TEST(FrameOutOfCoreOps, RollingTime) { check_rolling("1h"); }

TEST(FrameOutOfCoreOps, RollingRows) { check_rolling("1000"); }

TEST(FrameOutOfCoreOps, Hdf5WriteRead) {
  slab::testing::Engine probe(kLarge, kLarge);
  const std::string file =
      "/tmp/slab-ooc-ops-" +
      std::to_string(probe.comm().allreduce(static_cast<std::int64_t>(::getpid()), slab::ReduceOp::max)) + ".h5";
  const Digest d = check(
      "write_hdf5 + read_hdf5",
      [&](slab::Engine& e, const fr::Frame& f) {
        if (e.comm().rank() == 0) std::remove(file.c_str());
        e.comm().barrier();
        slab::io::write_hdf5(f, file, "/frame");
        return slab::io::read_hdf5(e, file, "/frame", 7200);
      },
      true);
  table_digest(gathered(), true).expect_eq(d, "HDF5 round trip vs input");
  probe.comm().barrier();
  if (probe.comm().rank() == 0) std::remove(file.c_str());
}

TEST(FrameOutOfCoreOps, SortValues) {
  check(
      "sort_values(name, x)",
      [](slab::Engine&, const fr::Frame& f) {
        return fr::sort_values(f, std::vector<std::string>{"name", "x"});
      },
      true);
}

TEST(FrameOutOfCoreOps, HashMerge) {
  check(
      "merge(on id, name)",
      [](slab::Engine& e, const fr::Frame& f) {
        // Every (id, name) once on the right, spread over the ranks.
        fr::LocalTable r;
        std::vector<std::int64_t> id;
        std::vector<std::string> name;
        std::vector<double> z;
        for (std::int64_t k = e.comm().rank(); k < 101 * 26; k += e.comm().size()) {
          id.push_back(950 + k / 26);
          name.emplace_back(fr::kNames[static_cast<std::size_t>(k % 26)]);
          z.push_back(static_cast<double>(k) * 0.5);
        }
        r.add(fr::LocalColumn::int64("id", id))
            .add(fr::LocalColumn::string("name", name))
            .add(fr::LocalColumn::float64("z", z));
        fr::MergeOptions opt;
        opt.strategy = fr::JoinStrategy::hash;
        return fr::merge(f, fr::Frame::from_local_table(e, r, 256), {"id", "name"}, opt);
      },
      false);
}

TEST(FrameOutOfCoreOps, Shuffle) {
  // On (id, name), 2,626 keys: a key never splits, so a shuffle on `name` alone (26 keys of 480 KB) would put
  // several keys, over a third of the limit, into one partition on some rank count.
  check(
      "shuffle(id, name)",
      [](slab::Engine&, const fr::Frame& f) {
        return fr::shuffle(f, {"id", "name"});
      },
      false);
}

TEST(FrameOutOfCoreOps, FilterAssignFillnaDropnaIsin) {
  check(
      "filter/assign/fillna/dropna/isin",
      [](slab::Engine&, const fr::Frame& f) {
        using fr::col;
        fr::Frame a = fr::assign(f, "z", col("x") * 2.0 + col("y"));
        a = fr::assign(a, "w", fr::Expr(col("x") > 0.5).isin({fr::Scalar(true)}));
        a = fr::assign(a, "x", fr::Expr(col("y") > 0.0) & (col("x") > 0.0));
        a = fr::fillna(fr::astype(a, "x", slab::ElementType::float64), fr::Scalar(0.5));
        return fr::dropna(fr::filter(a, col("name") != "Bob" & col("z") < 1.5));
      },
      true);
}

TEST(FrameOutOfCoreOps, CumsumShiftDiff) {
  check(
      "cumsum/shift/diff",
      [](slab::Engine&, const fr::Frame& f) { return fr::diff(fr::shift(fr::cumsum(f, {"x"}), 3, {"y"}), 2, {"id"}); },
      true);
}

TEST(FrameOutOfCoreOps, ValueCountsUniqueNunique) {
  check(
      "value_counts/unique/nunique",
      [](slab::Engine& e, const fr::Frame& f) {
        fr::LocalTable vc = fr::value_counts(f, "id");
        fr::LocalTable u = fr::unique(f, "id");
        const std::int64_t n = fr::nunique(f, "x");
        EXPECT_EQ(u.nrows(), 101);
        EXPECT_EQ(n, total_rows());
        EXPECT_EQ(vc.nrows(), 101);
        std::int64_t counted = 0;
        for (auto c : vc["count"].ints) counted += c;
        EXPECT_EQ(counted, total_rows());
        fr::LocalTable t;
        t.add(fr::LocalColumn::int64("n", {vc.nrows(), u.nrows(), n}));
        return frame_on_root(e, t);
      },
      true);
}

// Series' reductions and describe() stream the frame (one small task per partition), never the whole column on a
// rank: under the small limits too, and equal to a serial pass over the gathered input.
TEST(FrameOutOfCoreOps, SeriesReductionsAndDescribe) {
  const fr::LocalTable all = gathered();
  const auto& x = all["x"].floats;
  double sum = 0, lo = x.at(0), hi = x.at(0);
  for (double v : x) {
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const double mean = sum / static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  const double stdev = std::sqrt(ss / static_cast<double>(x.size() - 1));
  check(
      "series reductions/describe",
      [&](slab::Engine& e, const fr::Frame& f) {
        const fr::Series s(f, "x");
        EXPECT_EQ(s.count(), total_rows());
        EXPECT_EQ(fr::Series(f, "name").count(), total_rows());
        EXPECT_NEAR(s.sum(), sum, 1e-9 * static_cast<double>(x.size()));
        EXPECT_NEAR(s.mean(), mean, 1e-12);
        EXPECT_NEAR(s.std(), stdev, 1e-12);
        EXPECT_EQ(s.min(), lo);
        EXPECT_EQ(s.max(), hi);
        const fr::LocalTable d = fr::describe(f);
        EXPECT_NEAR(d["x"].floats.at(1), mean, 1e-12);  // count, mean, std, ...
        EXPECT_NEAR(d["x"].floats.at(2), stdev, 1e-12);
        return frame_on_root(e, d);
      },
      true);
}
