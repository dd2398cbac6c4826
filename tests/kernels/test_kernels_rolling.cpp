// The rolling kernels' reference instantiation against rolling_kernel_rows / rolling_kernel_time (the host's
// serial kernels): count, min and max bitwise; sum and mean bitwise on exactly summable data and within a
// stated tolerance otherwise; std within a tolerance of the window's scale. Halos, min_periods, NaN runs,
// infinities, duplicate timestamps and gaps longer than the span included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "frame/kernels/rolling.hpp"
#include "kernel_test_util.hpp"
#include "slab/frame/rolling.hpp"

namespace {

using namespace kernel_test;
using slab::frame::RollingOp;
using slab::kernels::Reference;
namespace fk = slab::frame::kernels;

static_assert(static_cast<int>(fk::RollingKind::count) == static_cast<int>(RollingOp::count) &&
              static_cast<int>(fk::RollingKind::std) == static_cast<int>(RollingOp::std));

/// x: exactly summable (k 2^-4), or mixed magnitudes with NaN runs, +-inf (missing for every aggregation but
/// count, as in pandas) and -0.0.
std::vector<double> values(std::int64_t m, bool exact, bool with_nan) {
  std::vector<double> x(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) {
    const std::uint64_t r = h(60, i);
    x[i] = exact ? exact_value(61, i) : static_cast<double>(r % 100000) * (r % 3 ? 1e-3 : 10.0) - 3e4;
    if (r % 97 == 0) x[i] = -0.0;
    if (with_nan && (r % 13 == 0 || (i / 300) % 7 == 3)) x[i] = std::nan("");  // scattered and in runs
    if (with_nan && r % 89 == 7) x[i] = (r % 2 ? -1 : 1) * HUGE_VAL;
  }
  return x;
}

std::vector<std::int64_t> times(std::int64_t m) {
  std::vector<std::int64_t> t(static_cast<std::size_t>(m));
  std::int64_t now = -5'000'000'000;
  for (std::int64_t i = 0; i < m; ++i) {
    const std::uint64_t r = h(62, i);
    now += r % 5 == 0 ? 0 : r % 1000 == 0 ? 7'000'000'000 : static_cast<std::int64_t>(r % 3'000'000);  // ties, gaps
    t[i] = now;
  }
  return t;
}

/// bitwise: count, min, max, a row window's std, and sums and means of exactly summable data; else within
/// 1e-12 of `scale` (max |x| times the window's rows) for sums and means, 1e-9 relative for std.
void expect_close(const std::vector<double>& got, const std::vector<double>& want, RollingOp op, bool exact,
                  double scale, bool rows, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size() && bad < 5; ++i) {
    const bool bitwise = op == RollingOp::count || op == RollingOp::min || op == RollingOp::max ||
                         (exact && (op == RollingOp::sum || op == RollingOp::mean)) || (rows && op == RollingOp::std);
    bool ok;
    if (bitwise || std::isnan(want[i]) || std::isnan(got[i]))
      ok = same_bits(got[i], want[i]) || (std::isnan(got[i]) && std::isnan(want[i]));
    else
      ok = std::fabs(got[i] - want[i]) <= (op == RollingOp::std ? 1e-9 * std::fabs(want[i]) : 1e-12 * scale);
    if (!ok) {
      ++bad;
      ADD_FAILURE() << what << " output " << i << ": " << got[i] << " vs host " << want[i];
    }
  }
}

const RollingOp kOps[] = {RollingOp::mean, RollingOp::sum, RollingOp::min,
                          RollingOp::max,  RollingOp::std, RollingOp::count};

TEST(KernelRolling, RowWindowsAreTheHostKernel) {
  for (std::int64_t n : sizes())
    for (std::int64_t window : {1, 3, 64, 1000, 5000})
      for (bool exact : {true, false})
        for (bool with_halo : {true, false}) {  // no halo: the first output starts afresh (std's schedule moves)
          const bool large = n > 5000;          // the large size on one window and min_periods: CI stays short
          if (large && (window != 1000 || !with_halo)) continue;
          const std::int64_t halo = with_halo ? std::min<std::int64_t>(window - 1, 37) : 0;
          const std::vector<double> x = values(halo + n, exact, !exact);
          for (std::int64_t minp : {std::int64_t{0}, std::int64_t{1}, window / 2 + 1, window})
            for (RollingOp op : kOps) {
              if (large && minp != window / 2 + 1) continue;
              std::vector<double> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n), -1.0);
              slab::frame::rolling_kernel_rows(x.data(), static_cast<std::size_t>(halo), static_cast<std::size_t>(n),
                                               static_cast<std::size_t>(window), static_cast<std::size_t>(minp), op,
                                               want.data());
              CountingScratch scratch;
              fk::RollingKernels<Reference>::rows(scratch.exec(), x.data(), halo, n, window, minp,
                                                  static_cast<fk::RollingKind>(op), got.data());
              EXPECT_EQ(scratch.live(), 0u);
              expect_close(got, want, op, exact, 1e6 * static_cast<double>(window), true,
                           "rows n=" + std::to_string(n) + " window=" + std::to_string(window) +
                               " halo=" + std::to_string(halo) + " minp=" + std::to_string(minp) + " " +
                               std::string(slab::frame::to_string(op)));
            }
        }
}

TEST(KernelRolling, TimeWindowsAreTheHostKernel) {
  for (std::int64_t n : sizes())
    for (std::int64_t span : {std::int64_t{1}, std::int64_t{2'000'000}, std::int64_t{3'600'000'000'000}})
      for (bool exact : {true, false}) {
        const std::int64_t halo = 25;
        const std::vector<double> x = values(halo + n, exact, !exact);
        const std::vector<std::int64_t> t = times(halo + n);
        for (std::int64_t minp : {0, 1, 5})
          for (RollingOp op : kOps) {
            // The large size with the short spans and one min_periods only (a run's first window costs its
            // length; CI stays short), and std of the
            // well-conditioned data only (the running variance of mixed magnitudes has no precise answer).
            if ((n > 5000 && (span > 2'000'000 || minp != 1)) || (op == RollingOp::std && !exact)) continue;
            std::vector<double> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n), -1.0);
            slab::frame::rolling_kernel_time(t.data(), x.data(), static_cast<std::size_t>(halo),
                                             static_cast<std::size_t>(n), span, static_cast<std::size_t>(minp), op,
                                             want.data());
            CountingScratch scratch;
            fk::RollingKernels<Reference>::time(scratch.exec(), t.data(), x.data(), halo, n, span, minp,
                                                static_cast<fk::RollingKind>(op), got.data());
            expect_close(got, want, op, exact, 1e6 * static_cast<double>(std::min<std::int64_t>(halo + n, 1 << 20)),
                         false,
                         "time n=" + std::to_string(n) + " span=" + std::to_string(span) +
                             " minp=" + std::to_string(minp) + " " + std::string(slab::frame::to_string(op)));
          }
      }
}

// first_after and time_carry_start (the halo exchange's and the carry's cut points) against std::upper_bound on
// sorted timestamps with ties and gaps: bounds before the first, at every tie, between rows and past the last.
TEST(KernelRolling, CutPointsAreTheHostsUpperBound) {
  for (std::int64_t n : sizes()) {
    const std::vector<std::int64_t> t = times(n);
    std::vector<std::int64_t> bounds{std::numeric_limits<std::int64_t>::min(), -6'000'000'000,
                                     std::numeric_limits<std::int64_t>::max()};
    for (std::int64_t i = 0; i < n; i += std::max<std::int64_t>(1, n / 64)) {
      bounds.push_back(t[static_cast<std::size_t>(i)]);
      bounds.push_back(t[static_cast<std::size_t>(i)] - 1);
    }
    CountingScratch scratch;
    for (std::int64_t bound : bounds) {
      const auto want = std::upper_bound(t.begin(), t.end(), bound) - t.begin();
      EXPECT_EQ(fk::RollingKernels<Reference>::first_after(scratch.exec(), t.data(), n, bound), want)
          << "n=" << n << " bound=" << bound;
    }
    for (std::int64_t span : {std::int64_t{1}, std::int64_t{2'000'000}, std::int64_t{3'600'000'000'000}}) {
      const auto want = n ? std::upper_bound(t.begin(), t.end(), t.back() - span) - t.begin() : 0;
      EXPECT_EQ(fk::RollingKernels<Reference>::time_carry_start(scratch.exec(), t.data(), n, span), want)
          << "n=" << n << " span=" << span;
    }
  }
}

}  // namespace
