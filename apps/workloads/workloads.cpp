#include "workloads/workloads.hpp"

#include <slab/core/time.hpp>

#include <algorithm>

namespace slab::workloads {

using frame::Schema;

using frame::generate;
using frame::names_dictionary;

// Every column is a ColumnRecipe (slab/frame/column_recipe.hpp): the same values a fill loop over
// counter_hash / counter_uniform makes, and the partitions are made on the device where the rank computes there.
using R = frame::ColumnRecipe;

frame::Frame w3(Engine& engine, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"id", slab::ElementType::int64},
                 {"name", slab::ElementType::string},
                 {"x", slab::ElementType::float64},
                 {"y", slab::ElementType::float64}},
                {nullptr, names_dictionary(), nullptr, nullptr});
  // id = h(3, r) mod 1000, name = kNames[h(4, r) mod 26], x = 2 U(5, r) - 1, y = 2 U(6, r) - 1
  return generate(engine, schema, n, rows_per_partition, "w3",
                  {R::hash_mod(3, 1000), R::hash_mod(4, 26), R::uniform(5, -1.0, 1.0), R::uniform(6, -1.0, 1.0)});
}

frame::Frame w4_left(Engine& engine, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"key", slab::ElementType::int64}, {"value", slab::ElementType::float64}});
  // key = h(7, r) mod 2,000,000, value = U(8, r)
  return generate(engine, schema, n, rows_per_partition, "w4_left",
                  {R::hash_mod(7, 2'000'000), R::uniform(8, 0.0, 1.0)});
}

frame::Frame w4_right(Engine& engine, std::int64_t m, std::int64_t rows_per_partition) {
  Schema schema({{"key", slab::ElementType::int64}, {"value2", slab::ElementType::float64}});
  // key = (q * 1,000,003) mod m (every key once: 1,000,003 is prime), value2 = U(9, q)
  return generate(
      engine, schema, m, rows_per_partition, "w4_right",
      {R::multiply_mod(1'000'003, static_cast<std::uint64_t>(std::max<std::int64_t>(m, 1))), R::uniform(9, 0.0, 1.0)});
}

frame::Frame w5(Engine& engine, std::int64_t n, std::int64_t rows_per_partition) {
  Schema schema({{"t", slab::ElementType::timestamp}, {"v", slab::ElementType::float64}});
  // t = 2000-01-01 + r seconds, v = U(10, r)
  return generate(engine, schema, n, rows_per_partition, "w5",
                  {R::affine(parse_timestamp("2000-01-01"), 1'000'000'000), R::uniform(10, 0.0, 1.0)});
}

}  // namespace slab::workloads
