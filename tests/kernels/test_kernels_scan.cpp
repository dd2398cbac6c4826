// The running sums of the array cumsum's device path (ScanKernels::prefix; floats in ordered_scan.inl's fixed
// order, the frame cumsum's in test_kernels_ops.cpp) against the sequential loop the host runs and against an
// exact running sum: bitwise through the first tile and on exactly summable data, within the rounding bound of
// the fixed order elsewhere, with NaN and the infinities where the loop has them; integers bitwise (wrapping).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "array/kernels/scan.hpp"
#include "kernel_test_util.hpp"

namespace {

using namespace kernel_test;
namespace sk = slab::kernels;
using sk::Reference;

/// The sizes of the issue, and the edges of the fixed order's tiles and levels (128 values a tile, 128 tiles a
/// tile of the next level).
std::vector<std::int64_t> scan_sizes() {
  std::vector<std::int64_t> s = sizes();
  for (std::int64_t n : {127, 128, 129, 16383, 16384, 16385, 128 * 128 * 128 + 1}) s.push_back(n);
  return s;
}

enum class Data { exact, mixed, special };
const char* name(Data d) { return d == Data::exact ? "exact" : d == Data::mixed ? "mixed" : "special"; }

/// exact: multiples of 1/16 below 2^5 in magnitude (their running sums here stay far below 2^20, so each is exact in
/// a float too); mixed: magnitudes from 1e-3 to 1e5 of both signs; special: mixed with -0.0, +inf at n/3, -inf at
/// 2n/3 (NaN from there on) where those exist, and NaN at 5 for n > 5 (then NaN throughout).
template <class T>
std::vector<T> values(Data d, std::int64_t n) {
  std::vector<T> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = h(31, i);
    const auto u = static_cast<std::size_t>(i);
    if (d == Data::exact)
      x[u] = static_cast<T>(static_cast<double>(static_cast<std::int64_t>(r % 1024) - 512) * 0x1p-4);
    else
      x[u] = static_cast<T>(static_cast<double>(r % 100000) * std::pow(10.0, static_cast<double>(r % 9) - 5.0) *
                            (r & (1ull << 40) ? 1.0 : -1.0));
    if (d == Data::special && r % 37 == 0) x[u] = T(-0.0);
  }
  if (d == Data::special && n > 6) {
    x[static_cast<std::size_t>(n / 3)] = std::numeric_limits<T>::infinity();
    x[static_cast<std::size_t>(2 * n / 3)] = -std::numeric_limits<T>::infinity();
    if (n < 4000) x[5] = std::numeric_limits<T>::quiet_NaN();  // the larger sizes keep their finite stretches
  }
  return x;
}

template <class T>
void expect_running_sums(Data d, std::int64_t n) {
  const std::string what = std::string(sizeof(T) == 8 ? "float64 " : "float32 ") + name(d) + " n=" + std::to_string(n);
  const std::vector<T> x = values<T>(d, n);
  std::vector<T> got(static_cast<std::size_t>(n), T(7));
  CountingScratch scratch;
  sk::ScanKernels<Reference, T, T>::prefix(scratch.exec(), x.data(), n, got.data());
  EXPECT_EQ(scratch.live(), 0u) << what;
  // The bound: every running sum passes through at most a tile's additions per level (and the last tile's), each
  // rounding by at most eps of the magnitudes summed so far; the exact sum: a compensated sum in long double.
  std::int64_t levels = 1;
  for (std::int64_t m = n; m > 128; m = (m + 127) / 128) ++levels;
  const long double eps = std::numeric_limits<T>::epsilon();
  T loop = 0;
  long double exact = 0, comp = 0, scale = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    loop = i == 0 ? x[u] : loop + x[u];  // the host's cumsum
    const long double v = x[u], t = exact + v;
    comp += std::fabs(exact) >= std::fabs(v) ? (exact - t) + v : (v - t) + exact;
    exact = t;
    if (std::isfinite(x[u])) scale += std::fabs(v);
    if (i < 128 || d == Data::exact || !std::isfinite(loop)) {
      ASSERT_TRUE(same_bits(got[u], loop) || (std::isnan(got[u]) && std::isnan(loop)))
          << what << " at " << i << ": " << got[u] << ", the loop " << loop;
    } else {
      ASSERT_LE(std::fabs(static_cast<long double>(got[u]) - (exact + comp)), 2 * 128 * levels * eps * scale)
          << what << " at " << i << ": " << got[u] << ", exact " << static_cast<double>(exact + comp);
    }
  }
}

TEST(KernelScan, FloatRunningSumsAreTheLoopsWithinTheFixedOrdersRounding) {
  for (std::int64_t n : scan_sizes())
    for (Data d : {Data::exact, Data::mixed, Data::special}) {
      expect_running_sums<double>(d, n);
      expect_running_sums<float>(d, n);
    }
}

TEST(KernelScan, IntegerRunningSumsWrapAsTheHosts) {
  for (std::int64_t n : scan_sizes()) {
    std::vector<std::int64_t> x(static_cast<std::size_t>(n));
    std::vector<std::int32_t> x32(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint64_t r = h(32, i);
      x[static_cast<std::size_t>(i)] =
          i % 5 == 1 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(r % 2001) - 1000;
      x32[static_cast<std::size_t>(i)] =
          i % 7 == 2 ? std::numeric_limits<std::int32_t>::min() : static_cast<std::int32_t>(r % 2001) - 1000;
    }
    std::vector<std::int64_t> got(static_cast<std::size_t>(n)), got32(static_cast<std::size_t>(n));
    CountingScratch scratch;
    sk::ScanKernels<Reference, std::int64_t, std::int64_t>::prefix(scratch.exec(), x.data(), n, got.data());
    sk::ScanKernels<Reference, std::int32_t, std::int64_t>::prefix(scratch.exec(), x32.data(), n, got32.data());
    std::uint64_t s = 0, s32 = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<std::size_t>(i);
      s += static_cast<std::uint64_t>(x[u]);
      s32 += static_cast<std::uint64_t>(static_cast<std::int64_t>(x32[u]));
      ASSERT_EQ(got[u], static_cast<std::int64_t>(s)) << "int64 n=" << n << " at " << i;
      ASSERT_EQ(got32[u], static_cast<std::int64_t>(s32)) << "int32 n=" << n << " at " << i;
    }
  }
}

}  // namespace
