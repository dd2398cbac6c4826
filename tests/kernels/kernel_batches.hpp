#pragma once
// Batches of the kernel tests: five key-like columns (int64, float64, bool, string, timestamp) with the data
// profiles of kernel_test_util.hpp, masks on some, built with BatchBuilder so that the host kernels read them
// as they read any partition.
#include <string>
#include <vector>

#include "frame/kernels/columns.hpp"
#include "kernel_test_util.hpp"
#include "slab/frame/batch.hpp"
#include "slab/frame/schema.hpp"

namespace kernel_test {

/// A batch and the schema (string dictionary) it belongs to.
struct TestBatch {
  std::vector<std::byte> storage;
  slab::frame::BatchView view;
  slab::frame::Schema schema;
  [[nodiscard]] slab::frame::kernels::ColumnView column(std::size_t c) const {
    return {view.type(c), view.data(c), view.valid(c)};
  }
};

inline constexpr int kDictSize = 11;

/// Columns: 0 int64 "i", 1 float64 "f", 2 bool "b", 3 string "s", 4 timestamp "t" (keys), then values 5 float64 "x"
/// (exactly summable), 6 float64 "y" (NaN, -0.0, mixed magnitudes), 7 int64 "z" (masked); masks on i, b, t (every
/// 13th/7th/29th row null, every row for all_null), z. String codes -1 every 17th row (all for all_null).
inline TestBatch make_batch(std::int64_t n, Profile p, std::uint64_t seed) {
  using slab::ElementType;
  std::vector<std::string> dict;
  for (int k = 0; k < kDictSize; ++k) dict.push_back("k" + std::to_string(100 + k * 7));
  TestBatch t;
  t.schema = slab::frame::Schema(
      {{"i", ElementType::int64},
       {"f", ElementType::float64},
       {"b", ElementType::boolean},
       {"s", ElementType::string},
       {"t", ElementType::timestamp},
       {"x", ElementType::float64},
       {"y", ElementType::float64},
       {"z", ElementType::int64}},
      {nullptr, nullptr, nullptr, slab::frame::make_dictionary(dict), nullptr, nullptr, nullptr, nullptr});
  const bool masks = p == Profile::random || p == Profile::all_null || p == Profile::skewed;
  slab::frame::BatchBuilder b(t.storage, n, slab::frame::types_of(t.schema),
                              {masks, false, masks, false, masks, false, false, true});
  const bool none = p == Profile::all_null;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    b.column<std::int64_t>(0)[u] = int_key(p, seed, i);
    b.column<double>(1)[u] = float_key(p, seed + 1, i);
    b.column<std::uint8_t>(2)[u] = static_cast<std::uint8_t>(p == Profile::one_group ? 1 : h(seed + 2, i) % 2);
    const std::int32_t code = p == Profile::one_group  ? 3
                              : p == Profile::distinct ? static_cast<std::int32_t>(i % kDictSize)
                                                       : static_cast<std::int32_t>(h(seed + 3, i) % kDictSize);
    b.column<std::int32_t>(3)[u] = none || (p == Profile::random && i % 17 == 5) ? -1 : code;
    b.column<std::int64_t>(4)[u] = int_key(p == Profile::extremes ? p : Profile::distinct, seed + 4, i);
    // Values: x exactly summable, y with NaN, -0.0 and big and small magnitudes, z int64 (masked every 11th).
    b.column<double>(5)[u] = exact_value(seed + 5, i);
    const std::uint64_t r = h(seed + 6, i);
    b.column<double>(6)[u] = r % 23 == 0   ? std::numeric_limits<double>::quiet_NaN()
                             : r % 29 == 0 ? -0.0
                                           : static_cast<double>(r % 100000) * (r % 3 ? 1e-3 : 1e5) - 3e4;
    b.column<std::int64_t>(7)[u] =
        p == Profile::extremes ? int_key(p, seed + 7, i) : static_cast<std::int64_t>(r % 1000) - 500;
    b.valid(7)[u] = !(none || i % 11 == 4);
    if (masks) {
      b.valid(0)[u] = !(none || i % 13 == 3);
      b.valid(2)[u] = !(none || i % 7 == 1);
      b.valid(4)[u] = !(none || i % 29 == 11);
    }
  }
  t.view = slab::frame::BatchView(std::span<const std::byte>(t.storage));
  return t;
}

}  // namespace kernel_test
