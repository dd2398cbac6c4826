// group_transform's compute (TransformKernels, the reference instantiation) against the host's own pass over each
// group: segments_hd.hpp's segment_op and segment_rolling, called here on each group's rows in row order as
// groupby/segments.cpp calls them. The cases are the operations the device runs in pieces of a group (float cumsum
// and cumprod, transform's float sum, mean, std and var: segments_by_piece.inl) and rolling within groups
// (RollingKernels::groups). The equality contract: a group of at most kGroupPiece rows is bitwise the host's; so is
// every group on exactly summable data (cumprod: powers of two, running products that overflow to an infinity or
// underflow to 0 included) but for std and var; NaN, infinities and nulls where the host has them; the rest within
// rounding. Rolling: count, min, max and std bitwise, sums and means bitwise on exactly summable data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "frame/kernels/groupby.hpp"
#include "frame/kernels/rolling.hpp"
#include "frame/kernels/segments_hd.hpp"
#include "frame/kernels/sort_perm.hpp"
#include "frame/kernels/transform.hpp"
#include "kernel_test_util.hpp"

namespace {

using namespace kernel_test;
using slab::ElementType;
using slab::kernels::Reference;
namespace fk = slab::frame::kernels;

/// exact: k 2^-4 (-0.0 among them); mixed: magnitudes 1e-3 to 1e5; powers_up / powers_down: +-2^+-1 and -1 whose
/// running products drift up (overflow) or down (underflow to 0); swing_up / swing_down: +-2^40 for 32 rows, then
/// +-2^-40 for 32 (or the other way round), so that a running product leaves the range of doubles and a piece's
/// own product does not; near_one: 1 +- 5e-4. Nulls (NaN) in every kind, infinities on the small sizes.
enum class Values { exact, mixed, powers_up, powers_down, swing_up, swing_down, near_one };
const char* name(Values v) {
  switch (v) {
    case Values::exact:
      return "exact";
    case Values::mixed:
      return "mixed";
    case Values::powers_up:
      return "powers_up";
    case Values::powers_down:
      return "powers_down";
    case Values::swing_up:
      return "swing_up";
    case Values::swing_down:
      return "swing_down";
    default:
      return "near_one";
  }
}
bool exact(Values v) { return v != Values::mixed && v != Values::near_one; }

std::vector<double> values(Values kind, std::int64_t n) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = h(70, i);
    double v = 0;
    switch (kind) {
      case Values::exact:
        v = r % 97 == 0 ? -0.0 : exact_value(71, i);
        break;
      case Values::mixed:
        v = static_cast<double>(r % 100000) * (r % 3 ? 1e-3 : 10.0) - 3e4;
        break;
      case Values::powers_up:
      case Values::powers_down: {
        const double up[] = {2.0, -2.0, 2.0, 2.0, 0.5, -1.0};  // the exponent drifts by +1/3 a row
        v = up[r % 6];
        if (kind == Values::powers_down) v = 1.0 / v;
        break;
      }
      case Values::swing_up:
      case Values::swing_down: {
        const bool up = ((n - 1 - i) / 32) % 2 == (kind == Values::swing_up ? 0 : 1);  // by row number
        v = (r % 7 == 0 ? -1.0 : 1.0) * (up ? 0x1p40 : 0x1p-40);
        break;
      }
      case Values::near_one:
        v = 1.0 + static_cast<double>(static_cast<std::int64_t>(r % 1001) - 500) * 1e-6;
        break;
    }
    if (r % 29 == 3) v = std::nan("");  // null
    const bool powers = kind != Values::exact && kind != Values::mixed && kind != Values::near_one;
    if (n < 10000 && (powers ? i == n - 5 : i % 1000 == 777)) v = (i / 1000) % 2 ? -HUGE_VAL : HUGE_VAL;
    x[static_cast<std::size_t>(i)] = v;
  }
  return x;
}

struct Case {
  std::string what;
  fk::SegmentOp op;
};

/// The host's results by row number: each group's rows (input index i holds row n - 1 - i) in row order through
/// segment_op or segment_rolling; `size` = the row's group size.
void host_results(const std::vector<std::int64_t>& key, const fk::SegmentValues& in, const fk::SegmentOp& op,
                  std::vector<double>& by_row, std::vector<std::int64_t>& size) {
  const auto n = static_cast<std::int64_t>(key.size());
  std::map<std::int64_t, std::vector<std::int64_t>> groups;
  for (std::int64_t i = n - 1; i >= 0; --i) groups[key[static_cast<std::size_t>(i)]].push_back(i);
  by_row.assign(key.size(), 0);
  size.assign(key.size(), 0);
  for (const auto& [k, rows] : groups) {
    const std::size_t m = rows.size();
    std::vector<double> out(m);
    if (op.op == fk::SegmentScan::rolling) {
      std::vector<double> xs(m);
      for (std::size_t t = 0; t < m; ++t) xs[t] = in.d(static_cast<std::size_t>(rows[t]));
      std::vector<std::int64_t> slots(m + 1);
      fk::RollingDequeBuffer dq{slots.data()};
      fk::segment_rolling(op, xs.data(), m, dq, out.data());
    } else {
      ASSERT_TRUE(fk::segment_op(op, in, rows.data(), m,
                                 {ElementType::float64, reinterpret_cast<std::byte*>(out.data()), nullptr}, 0));
    }
    for (std::size_t t = 0; t < m; ++t) {
      const auto row = static_cast<std::size_t>(n - 1 - rows[t]);
      by_row[row] = out[t];
      size[row] = static_cast<std::int64_t>(m);
    }
  }
}

/// Whether `op` over a group of m rows of `kind` must be bitwise the host's (the contract at the top).
bool bitwise(const fk::SegmentOp& op, Values kind, std::int64_t m) {
  if (op.op == fk::SegmentScan::rolling)
    return op.rolling == fk::RollingKind::count || op.rolling == fk::RollingKind::min ||
           op.rolling == fk::RollingKind::max || op.rolling == fk::RollingKind::std || exact(kind);
  if (m <= fk::kGroupPiece) return true;
  const bool welford =
      op.op == fk::SegmentScan::transform && (op.agg == fk::SegmentAgg::std || op.agg == fk::SegmentAgg::var);
  return exact(kind) && !welford;
}

void check(Profile profile, Values kind, std::int64_t n, const Case& c, bool int_values = false) {
  const std::string what = c.what + " on " + name(kind) + (int_values ? " int64" : "") + " values, " + name(profile) +
                           " keys, n = " + std::to_string(n);
  const auto un = static_cast<std::size_t>(n);
  std::vector<std::int64_t> key(un), row(un), ints(un);
  std::vector<std::uint64_t> word(un);
  std::vector<std::uint8_t> valid(un);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    key[u] = int_key(profile, 72, i);
    word[u] = static_cast<std::uint64_t>(key[u]) ^ (std::uint64_t{1} << 63);
    row[u] = n - 1 - i;  // each group's rows arrive in reverse
    ints[u] = static_cast<std::int64_t>(h(73, i) % 2001) - 1000;
    valid[u] = h(74, i) % 7 != 2;
  }
  const std::vector<double> x = values(kind, n);
  const fk::SegmentValues in =
      int_values ? fk::SegmentValues{ElementType::int64, reinterpret_cast<const std::byte*>(ints.data()), valid.data()}
                 : fk::SegmentValues{ElementType::float64, reinterpret_cast<const std::byte*>(x.data()), nullptr};
  std::vector<double> want;
  std::vector<std::int64_t> size;
  host_results(key, in, c.op, want, size);

  CountingScratch scratch;
  const slab::kernels::Exec exec = scratch.exec();
  std::vector<double> got(un);
  std::vector<std::int64_t> got_row(un);
  const std::uint64_t* words[1] = {word.data()};
  const int bits[1] = {64};
  const std::int64_t groups = fk::TransformKernels<Reference>::compute(
      exec, words, 1, bits, row.data(), fk::bits_for(static_cast<std::uint64_t>(std::max<std::int64_t>(n - 1, 0))), n,
      in, c.op, {ElementType::float64, reinterpret_cast<std::byte*>(got.data()), nullptr}, got_row.data());
  EXPECT_EQ(scratch.live(), 0u) << what << ": scratch not given back";
  if (profile == Profile::one_group && n > 0) EXPECT_EQ(groups, 1) << what;
  if (profile == Profile::distinct) EXPECT_EQ(groups, n) << what;

  double scale = 0, largest = 0;  // the largest sum of magnitudes a result can have; the largest magnitude
  for (std::int64_t i = 0; i < n; ++i)
    if (!in.null(static_cast<std::size_t>(i)) && std::isfinite(in.d(static_cast<std::size_t>(i)))) {
      scale += std::fabs(in.d(static_cast<std::size_t>(i)));
      largest = std::max(largest, std::fabs(in.d(static_cast<std::size_t>(i))));
    }
  int bad = 0;
  std::int64_t large = 0;  // rows of groups past one piece
  for (std::size_t j = 0; j < un && bad < 5; ++j) {
    const auto r = static_cast<std::size_t>(got_row[j]);
    ASSERT_LT(r, un) << what;
    const double g = got[j], w = want[r];
    large += size[r] > fk::kGroupPiece ? 1 : 0;
    bool ok = same_bits(g, w) || (std::isnan(g) && std::isnan(w));
    if (!ok && !bitwise(c.op, kind, size[r]) && std::isfinite(g) && std::isfinite(w)) {
      // Products, variances: relative; a window's sum or mean: of its largest magnitude times its rows; the
      // other sums and means: of the sum of every magnitude.
      const bool relative = c.op.op == fk::SegmentScan::cumprod || c.op.op == fk::SegmentScan::transform
                                ? c.op.op == fk::SegmentScan::cumprod || c.op.agg == fk::SegmentAgg::std ||
                                      c.op.agg == fk::SegmentAgg::var
                                : false;
      const double tolerance = relative ? 1e-9 * std::fabs(w)
                               : c.op.op == fk::SegmentScan::rolling
                                   ? 1e-12 * largest * static_cast<double>(c.op.window)
                                   : 1e-14 * scale;
      ok = std::fabs(g - w) <= tolerance;
    }
    if (!ok) {
      ++bad;
      ADD_FAILURE() << what << ": row " << r << " (a group of " << size[r] << " rows) is " << g << ", the host's " << w;
    }
  }
  if (profile == Profile::one_group && n > fk::kGroupPiece) EXPECT_EQ(large, n) << what;
}

fk::SegmentOp scan(fk::SegmentScan s) { return {.op = s}; }
fk::SegmentOp transform(fk::SegmentAgg a) { return {.op = fk::SegmentScan::transform, .agg = a}; }
fk::SegmentOp rolling(fk::RollingKind k, std::int64_t window, std::int64_t min_periods, bool var = false) {
  return {
      .op = fk::SegmentScan::rolling, .window = window, .min_periods = min_periods, .rolling = k, .rolling_var = var};
}

const Profile kProfiles[] = {Profile::random, Profile::distinct, Profile::one_group, Profile::skewed};

TEST(KernelTransform, SumsAndProductsInPiecesAreTheHostsPass) {
  const std::vector<Case> sums{{"cumsum", scan(fk::SegmentScan::cumsum)},
                               {"transform sum", transform(fk::SegmentAgg::sum)},
                               {"transform mean", transform(fk::SegmentAgg::mean)},
                               {"transform std", transform(fk::SegmentAgg::std)},
                               {"transform var", transform(fk::SegmentAgg::var)}};
  const Case cumprod{"cumprod", scan(fk::SegmentScan::cumprod)};
  for (std::int64_t n : sizes())
    for (Profile p : kProfiles) {
      const bool large = n == kLarge;  // the large size: the huge groups only, one case each (CI stays short)
      if (large && p != Profile::one_group && p != Profile::skewed) continue;
      for (std::size_t c = 0; c < sums.size(); ++c)
        for (Values v : {Values::exact, Values::mixed})
          if (!large || c < 3) check(p, v, n, sums[c]);
      for (Values v : {Values::powers_up, Values::powers_down, Values::swing_up, Values::swing_down, Values::near_one})
        check(p, v, n, cumprod);
      if (!large)
        for (std::size_t c = 2; c < sums.size(); ++c) check(p, Values::exact, n, sums[c], true);  // int64, masked
    }
}

TEST(KernelTransform, RollingWithinGroupsIsTheHostsSlide) {
  for (std::int64_t n : sizes())
    for (Profile p : kProfiles) {
      const bool large = n == kLarge;
      if (large && p != Profile::one_group) continue;
      for (fk::RollingKind k : {fk::RollingKind::mean, fk::RollingKind::sum, fk::RollingKind::min, fk::RollingKind::max,
                                fk::RollingKind::std, fk::RollingKind::count})
        for (std::int64_t window : {1, 3, 300})
          for (Values v : {Values::exact, Values::mixed}) {
            if (large && (window != 300 || v != Values::mixed)) continue;
            const std::int64_t minp = window == 3 ? 2 : window;  // pandas' default min_periods is the window
            check(p, v, n,
                  {"rolling " + std::to_string(window), rolling(k, window, k == fk::RollingKind::count ? 0 : minp)});
          }
      if (!large) {
        check(p, Values::mixed, n, {"rolling var 5", rolling(fk::RollingKind::std, 5, 1, true)});
        check(p, Values::exact, n, {"rolling mean 4", rolling(fk::RollingKind::mean, 4, 0)}, true);
      }
    }
}

}  // namespace
