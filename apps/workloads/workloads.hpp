#pragma once
/// @file workloads.hpp
/// @brief The benchmark inputs W3, W4 and W5 of docs/WORKLOADS.md as frames, for the apps, the benchmarks and
/// their tests (not part of libslab: they are the apps' inputs, generated exactly as the peers generate them).
/// Values depend only on the global row index (counter-based hash), never on the rank count or partitioning.
/// Lazy: one task per partition, partitions dealt to ranks in balanced contiguous blocks. Not collective.

#include <slab/frame/datasets.hpp>

#include <cstdint>

namespace slab::workloads {

/// W3: rows r = 0..n-1: id = h(3,r) mod 1000, name = NAMES[h(4,r) mod 26], x = 2U(5,r)-1, y = 2U(6,r)-1.
[[nodiscard]] frame::Frame w3(Engine& engine, std::int64_t n = 20'000'000, std::int64_t rows_per_partition = 1'000'000);
/// W4 left: key = h(7,r) mod 2,000,000, value = U(8,r).
[[nodiscard]] frame::Frame w4_left(Engine& engine, std::int64_t n = 20'000'000,
                                   std::int64_t rows_per_partition = 1'000'000);
/// W4 right: key = (q * 1,000,003) mod m (m = 2,000,000 by default), value2 = U(9,q).
[[nodiscard]] frame::Frame w4_right(Engine& engine, std::int64_t m = 2'000'000,
                                    std::int64_t rows_per_partition = 500'000);
/// W5: t (timestamp) = 2000-01-01 + r seconds, v = U(10,r).
[[nodiscard]] frame::Frame w5(Engine& engine, std::int64_t n = 20'000'000, std::int64_t rows_per_partition = 1'000'000);

}  // namespace slab::workloads
