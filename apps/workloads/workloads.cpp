#include "workloads/workloads.hpp"

#include <slab/core/counter_rng.hpp>
#include <slab/core/time.hpp>

namespace slab::workloads {

using frame::BatchBuilder;

using frame::Schema;

using frame::generate;
using frame::names_dictionary;

frame::Frame w3(Engine& engine, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"id", slab::ElementType::int64},
                 {"name", slab::ElementType::string},
                 {"x", slab::ElementType::float64},
                 {"y", slab::ElementType::float64}},
                {nullptr, names_dictionary(), nullptr, nullptr});
  return generate(engine, schema, n, rows_per_partition, "w3", [](std::int64_t first, BatchBuilder& out) {
    auto id = out.column<std::int64_t>(0);
    auto name = out.column<std::int32_t>(1);
    auto x = out.column<double>(2);
    auto y = out.column<double>(3);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto r = static_cast<std::uint64_t>(first + i);
      id[i] = static_cast<std::int64_t>(counter_hash(3, r) % 1000);
      name[i] = static_cast<std::int32_t>(counter_hash(4, r) % 26);
      x[i] = (2.0 * counter_uniform(5, r)) - 1.0;
      y[i] = (2.0 * counter_uniform(6, r)) - 1.0;
    }
  });
}

frame::Frame w4_left(Engine& engine, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"key", slab::ElementType::int64}, {"value", slab::ElementType::float64}});
  return generate(engine, schema, n, rows_per_partition, "w4_left", [](std::int64_t first, BatchBuilder& out) {
    auto key = out.column<std::int64_t>(0);
    auto value = out.column<double>(1);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto r = static_cast<std::uint64_t>(first + i);
      key[i] = static_cast<std::int64_t>(counter_hash(7, r) % 2'000'000);
      value[i] = counter_uniform(8, r);
    }
  });
}

frame::Frame w4_right(Engine& engine, std::int64_t m, std::int64_t rows_per_partition) {
  Schema schema({{"key", slab::ElementType::int64}, {"value2", slab::ElementType::float64}});
  return generate(engine, schema, m, rows_per_partition, "w4_right", [m](std::int64_t first, BatchBuilder& out) {
    auto key = out.column<std::int64_t>(0);
    auto value = out.column<double>(1);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto q = static_cast<std::uint64_t>(first + i);
      key[i] = static_cast<std::int64_t>((q * 1'000'003ull) % static_cast<std::uint64_t>(m));
      value[i] = counter_uniform(9, q);
    }
  });
}

frame::Frame w5(Engine& engine, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"t", slab::ElementType::timestamp}, {"v", slab::ElementType::float64}});
  const std::int64_t t0 = parse_timestamp("2000-01-01");
  return generate(engine, schema, n, rows_per_partition, "w5", [t0](std::int64_t first, BatchBuilder& out) {
    auto t = out.column<std::int64_t>(0);
    auto v = out.column<double>(1);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto r = static_cast<std::uint64_t>(first + i);
      t[i] = t0 + static_cast<std::int64_t>(r) * 1'000'000'000;
      v[i] = counter_uniform(10, r);
    }
  });
}

}  // namespace slab::workloads
