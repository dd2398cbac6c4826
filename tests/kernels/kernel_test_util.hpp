#pragma once
// Helpers of the kernel tests: the sizes every entry point is checked on, a scratch allocator that counts what
// it hands out (every test checks that an entry point gives all of it back), and deterministic column data
// with the cases the equality contract names (int64 extremes, -0.0 and NaN, all-null, one group, all distinct,
// skewed hot keys).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/kernels/exec.hpp"
#include "frame/partitioner.hpp"
#include "slab/core/counter_rng.hpp"

namespace kernel_test {

/// The host's hash route: the one partitioner's bucket of a key hash (frame/partitioner.hpp).
inline std::uint32_t host_bucket(std::uint64_t hash, int nranks, int parts) {
  return slab::frame::detail::Partitioner::hash(nranks, parts).bucket_of_hash(hash);
}

/// The sizes of the issue: 0, 1, 31, 32, 4095, 4096, 4097 and 2^20 + 1 (kLarge). Tests run every case on the
/// small sizes and a few chosen cases on kLarge, which keeps the label under a minute on two cores.
inline constexpr std::int64_t kLarge = (1 << 20) + 1;
inline std::vector<std::int64_t> sizes(bool with_large = true) {
  std::vector<std::int64_t> s{0, 1, 31, 32, 4095, 4096, 4097};
  if (with_large) s.push_back(kLarge);
  return s;
}

/// A ScratchAllocator (host memory) that counts live and peak bytes.
class CountingScratch {
 public:
  slab::kernels::Exec exec() {
    slab::kernels::Exec e;
    e.scratch = {&allocate, &deallocate, this};
    return e;
  }
  [[nodiscard]] std::size_t live() const { return live_; }
  [[nodiscard]] std::size_t peak() const { return peak_; }
  [[nodiscard]] std::size_t calls() const { return calls_; }

 private:
  static void* allocate(void* self, std::size_t bytes) {
    auto* s = static_cast<CountingScratch*>(self);
    s->live_ += bytes;
    s->calls_ += 1;
    s->peak_ = std::max(s->peak_, s->live_);
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p) throw std::bad_alloc();
    return p;
  }
  static void deallocate(void* self, void* p, std::size_t bytes) {
    auto* s = static_cast<CountingScratch*>(self);
    s->live_ -= bytes;
    std::free(p);
  }
  std::size_t live_ = 0, peak_ = 0, calls_ = 0;
};

/// The shape of a key column's values.
enum class Profile { random, distinct, one_group, skewed, all_null, extremes };
inline const char* name(Profile p) {
  switch (p) {
    case Profile::random:
      return "random";
    case Profile::distinct:
      return "distinct";
    case Profile::one_group:
      return "one_group";
    case Profile::skewed:
      return "skewed";
    case Profile::all_null:
      return "all_null";
    case Profile::extremes:
      return "extremes";
  }
  return "?";
}
inline std::vector<Profile> profiles() {
  return {Profile::random, Profile::distinct, Profile::one_group,
          Profile::skewed, Profile::all_null, Profile::extremes};
}

inline std::uint64_t h(std::uint64_t stream, std::int64_t i) {
  return slab::counter_hash(stream, static_cast<std::uint64_t>(i));
}

/// int64 keys: small range (random), i (distinct), 7 (one group), 3 for half the rows (skewed), the extremes
/// and their neighbours (extremes).
inline std::int64_t int_key(Profile p, std::uint64_t s, std::int64_t i) {
  const std::uint64_t r = h(s, i);
  switch (p) {
    case Profile::distinct:
      return static_cast<std::int64_t>(r % 2 ? i : -i) * 1000003;
    case Profile::one_group:
    case Profile::all_null:
      return 7;
    case Profile::skewed:
      return r % 2 ? 3 : static_cast<std::int64_t>(r % 1000) - 500;
    case Profile::extremes: {
      constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                             hi = std::numeric_limits<std::int64_t>::max();
      const std::int64_t v[] = {lo, lo + 1, -1, 0, 1, hi - 1, hi};
      return v[r % 7];
    }
    default:
      return static_cast<std::int64_t>(r % 97) - 40;
  }
}

/// float64 keys/values, with -0.0, NaN, infinities and denormals in the random and extremes profiles.
inline double float_key(Profile p, std::uint64_t s, std::int64_t i) {
  const std::uint64_t r = h(s, i);
  switch (p) {
    case Profile::distinct:
      return static_cast<double>(i) * (r % 2 ? 0.5 : -0.25);
    case Profile::one_group:
      return -0.0;
    case Profile::all_null:
      return std::numeric_limits<double>::quiet_NaN();
    case Profile::skewed:
      return r % 2 ? 1.5 : static_cast<double>(r % 500) * 0.125;
    case Profile::extremes: {
      const double v[] = {-0.0,
                          0.0,
                          std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::denorm_min(),
                          -std::numeric_limits<double>::max(),
                          std::numeric_limits<double>::max()};
      return v[r % 8];
    }
    default: {
      const std::uint64_t k = r % 64;
      if (k == 0) return -0.0;
      if (k == 1) return std::numeric_limits<double>::quiet_NaN();
      return static_cast<double>(static_cast<std::int64_t>(r % 41) - 20) * 0.25;
    }
  }
}

/// Exactly summable values: k * 2^-4 with |k| < 2^20, so sums of up to 2^28 of them are exact in double.
inline double exact_value(std::uint64_t s, std::int64_t i) {
  return static_cast<double>(static_cast<std::int64_t>(h(s, i) % (1 << 20)) - (1 << 19)) * 0x1p-4;
}

/// Bitwise equality of doubles (NaN == NaN, -0.0 != 0.0).
inline bool same_bits(double a, double b) {
  std::uint64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x == y;
}

}  // namespace kernel_test
