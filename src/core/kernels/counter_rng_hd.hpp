#pragma once
/// @file counter_rng_hd.hpp
/// @brief The counter-based random numbers of include/slab/core/counter_rng.hpp as SLAB_HD functions, for host
/// and device alike, plus the standard normal of random_normal() on a portable log1p and cos.
///
/// mix64 / counter_hash / counter_uniform are integer arithmetic and one exact conversion: bitwise the host's
/// (tests/kernels checks it). The normal needs log1p and cos, whose last bit differs between glibc and CUDA's
/// libm, so it uses the fdlibm algorithms below (FreeBSD msun: s_log1p.c, k_cos.c, k_sin.c, e_rem_pio2.c),
/// written in + - * / only: the same bits on both sides when compiled without contraction (--fmad=false,
/// -ffp-contract=off). They are within one ulp of glibc's; the host's random_normal() calls counter_normal() too,
/// so host and device make the same bits.

#include <cmath>
#include <cstdint>

#include "core/kernels/hd.hpp"

namespace slab::kernels {

/// SplitMix64's finaliser (slab::mix64).
SLAB_HD_INLINE constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// h(s, i) (slab::counter_hash).
SLAB_HD_INLINE constexpr std::uint64_t counter_hash(std::uint64_t stream, std::uint64_t index) noexcept {
  return mix64((stream << 40) + index + 0x9E3779B97F4A7C15ull);
}
/// U(s, i) in [0, 1) (slab::counter_uniform).
SLAB_HD_INLINE constexpr double counter_uniform(std::uint64_t stream, std::uint64_t index) noexcept {
  return static_cast<double>(counter_hash(stream, index) >> 11) * 0x1p-53;
}

namespace portable {

SLAB_HD_INLINE std::uint32_t high_word(double x) noexcept { return static_cast<std::uint32_t>(double_bits(x) >> 32); }
SLAB_HD_INLINE double with_high_word(double x, std::uint32_t hi) noexcept {
  return bits_double((static_cast<std::uint64_t>(hi) << 32) | (double_bits(x) & 0xffffffffull));
}

/// log1p(x) for x > -1 (fdlibm s_log1p.c; NaN/inf/x <= -1 are not needed by the generator but handled).
SLAB_HD inline double log1p(double x) noexcept {
  constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  constexpr double Lp1 = 6.666666666666735130e-01, Lp2 = 3.999999999940941908e-01, Lp3 = 2.857142874366239149e-01,
                   Lp4 = 2.222219843214978396e-01, Lp5 = 1.818357216161805012e-01, Lp6 = 1.531383769920937332e-01,
                   Lp7 = 1.479819860511658591e-01;
  const auto hx = static_cast<std::int32_t>(high_word(x));
  const std::int32_t ax = hx & 0x7fffffff;
  std::int32_t k = 1, hu = 0;
  double f = 0, c = 0;
  if (hx < 0x3FDA827A) {                                                     // 1 + x < sqrt(2)+
    if (ax >= 0x3ff00000) return x == -1.0 ? -HUGE_VAL : (x - x) / (x - x);  // x <= -1
    if (ax < 0x3e200000) return ax < 0x3c900000 ? x : x - x * x * 0.5;       // |x| < 2^-29
    if (hx > 0 || hx <= static_cast<std::int32_t>(0xbfd2bec4)) {             // sqrt(2)/2- <= 1 + x < sqrt(2)+
      k = 0;
      f = x;
      hu = 1;
    }
  }
  if (hx >= 0x7ff00000) return x + x;
  if (k != 0) {
    double u;
    if (hx < 0x43400000) {
      u = 1.0 + x;
      hu = static_cast<std::int32_t>(high_word(u));
      k = (hu >> 20) - 1023;
      c = (k > 0) ? 1.0 - (u - x) : x - (u - 1.0);  // correction term
      c /= u;
    } else {
      u = x;
      hu = static_cast<std::int32_t>(high_word(u));
      k = (hu >> 20) - 1023;
      c = 0;
    }
    hu &= 0x000fffff;
    if (hu < 0x6a09e) {  // u ~< sqrt(2)
      u = with_high_word(u, static_cast<std::uint32_t>(hu | 0x3ff00000));
    } else {
      k += 1;
      u = with_high_word(u, static_cast<std::uint32_t>(hu | 0x3fe00000));
      hu = (0x00100000 - hu) >> 2;
    }
    f = u - 1.0;
  }
  const double hfsq = 0.5 * f * f;
  const double dk = static_cast<double>(k);
  if (hu == 0) {  // |f| < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      c += dk * ln2_lo;
      return dk * ln2_hi + c;
    }
    const double R = hfsq * (1.0 - 0.66666666666666666 * f);
    return k == 0 ? f - R : dk * ln2_hi - ((R - (dk * ln2_lo + c)) - f);
  }
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double R = z * (Lp1 + z * (Lp2 + z * (Lp3 + z * (Lp4 + z * (Lp5 + z * (Lp6 + z * Lp7))))));
  return k == 0 ? f - (hfsq - s * (hfsq + R)) : dk * ln2_hi - ((hfsq - (s * (hfsq + R) + (dk * ln2_lo + c))) - f);
}

SLAB_HD_INLINE double kernel_cos(double x, double y) noexcept {
  constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03, C3 = 2.48015872894767294178e-05,
                   C4 = -2.75573143513906633035e-07, C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const double z = x * x, w0 = z * z;
  const double r = z * (C1 + z * (C2 + z * C3)) + w0 * w0 * (C4 + z * (C5 + z * C6));
  const double hz = 0.5 * z, w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * r - x * y));
}
SLAB_HD_INLINE double kernel_sin(double x, double y) noexcept {  // fdlibm's iy = 1 branch
  constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03, S3 = -1.98412698298579493134e-04,
                   S4 = 2.75573137070700676789e-06, S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double z = x * x, w = z * z;
  const double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
  const double v = z * x;
  return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

/// cos(x) for |x| < 2^19 pi (Cody-Waite reduction of e_rem_pio2.c's medium case; larger |x| is not needed by the
/// generator, whose argument lies in [0, 2 pi)).
SLAB_HD inline double cos(double x) noexcept {
  const std::uint32_t ix = high_word(x) & 0x7fffffffu;
  if (ix <= 0x3fe921fbu) return ix < 0x3e46a09eu ? 1.0 : kernel_cos(x, 0.0);  // |x| < pi/4
  if (ix >= 0x7ff00000u) return x - x;                                        // inf, NaN
  constexpr double invpio2 = 6.36619772367581382433e-01, pio2_1 = 1.57079632673412561417e+00,
                   pio2_1t = 6.07710050650619224932e-11, pio2_2 = 6.07710050630396597660e-11,
                   pio2_2t = 2.02226624879595063154e-21, pio2_3 = 2.02226624871116645580e-21,
                   pio2_3t = 8.47842766036889956997e-32;
  const double big = 0x1.8p52;
  double fn = x * invpio2 + big;  // round to nearest integer
  fn = fn - big;
  const int n = static_cast<int>(fn);
  double r = x - fn * pio2_1;
  double w = fn * pio2_1t;  // first round, good to 85 bits
  const auto j = static_cast<std::int32_t>(ix >> 20);
  double y0 = r - w;
  auto i = j - static_cast<std::int32_t>((high_word(y0) >> 20) & 0x7ff);
  if (i > 16) {  // second round, good to 118 bits
    double t = r;
    w = fn * pio2_2;
    r = t - w;
    w = fn * pio2_2t - ((t - r) - w);
    y0 = r - w;
    i = j - static_cast<std::int32_t>((high_word(y0) >> 20) & 0x7ff);
    if (i > 49) {  // third round, 151 bits
      t = r;
      w = fn * pio2_3;
      r = t - w;
      w = fn * pio2_3t - ((t - r) - w);
      y0 = r - w;
    }
  }
  const double y1 = (r - y0) - w;
  switch (n & 3) {
    case 0:
      return kernel_cos(y0, y1);
    case 1:
      return -kernel_sin(y0, y1);
    case 2:
      return -kernel_cos(y0, y1);
    default:
      return kernel_sin(y0, y1);
  }
}

SLAB_HD_INLINE double sqrt(double x) noexcept {
#if defined(__CUDA_ARCH__)
  return ::sqrt(x);  // IEEE correctly rounded (nvcc's default -prec-sqrt=true), as std::sqrt
#else
  return std::sqrt(x);
#endif
}

}  // namespace portable

/// Element k of random_uniform(seed, low, high): exactly the host's expression.
SLAB_HD_INLINE double counter_uniform_in(std::uint64_t seed, std::uint64_t k, double low, double high) noexcept {
  const double u = counter_uniform(seed, k);
  return low == 0.0 && high == 1.0 ? u : low + (high - low) * u;
}

/// Element k of random_normal(seed, mean, stddev): Box-Muller on the streams seed and seed ^ 0x80000, in the
/// host's order of operations, on the portable log1p and cos above.
SLAB_HD_INLINE double counter_normal(std::uint64_t seed, std::uint64_t k, double mean, double stddev) noexcept {
  const double u1 = counter_uniform(seed, k), u2 = counter_uniform(seed ^ 0x80000u, k);
  constexpr double two_pi = 2.0 * 3.141592653589793238462643383279502884;
  return mean + stddev * portable::sqrt(-2.0 * portable::log1p(-u1)) * portable::cos(two_pi * u2);
}

}  // namespace slab::kernels
