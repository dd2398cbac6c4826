#include "slab/frame/datasets.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/error.hpp"
#include "slab/core/time.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

Dictionary names_dictionary() {
  std::vector<std::string> v(kNames.begin(), kNames.end());  // already sorted
  return make_dictionary(std::move(v));
}

Frame generate(Engine& engine, Schema schema, std::int64_t nrows, std::int64_t rows_per_partition, std::string name,
               std::function<void(std::int64_t first_row, BatchBuilder& out)> fill) {
  SLAB_EXPECTS(nrows >= 0, InvalidArgument, "datasets: negative row count");
  note_host_fallback(engine, name);  // the generators fill on the host
  std::int64_t per = rows_per_partition > 0 ? rows_per_partition : std::max<std::int64_t>(nrows, 1);
  std::int64_t nparts = (nrows + per - 1) / per;
  int p = engine.comm().size(), r = engine.comm().rank();
  std::int64_t base = nparts / p, extra = nparts % p;
  std::int64_t first = r * base + std::min<std::int64_t>(r, extra);
  std::int64_t count = base + (r < extra ? 1 : 0);
  auto fillp = std::make_shared<std::function<void(std::int64_t, BatchBuilder&)>>(std::move(fill));
  auto types = types_of(schema);
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> rows;
  for (std::int64_t k = first; k < first + count; ++k) {
    std::int64_t b = k * per, e = std::min(nrows, b + per);
    parts.push_back(engine.tasks().submit(name, {}, [fillp, types, b, e](TaskContext& ctx) {
      BatchBuilder out(ctx, e - b, types, {});
      (*fillp)(b, out);
    }));
    rows.emplace_back(e - b);
  }
  return Frame(engine, std::move(schema), std::move(parts), std::move(rows));
}

Frame timeseries(Engine& engine, std::string_view start, std::string_view end, std::string_view freq,
                 std::uint64_t seed, std::string_view partition_freq) {
  const std::int64_t t0 = parse_timestamp(start), t1 = parse_timestamp(end);
  const std::int64_t f = parse_duration(freq, "timeseries: freq"),
                     pf = parse_duration(partition_freq, "timeseries: partition_freq");
  std::int64_t n = t1 > t0 ? (t1 - t0 + f - 1) / f : 0;
  std::int64_t per = std::max<std::int64_t>(pf / f, 1);
  std::uint64_t s0 = 100 + 4 * (seed % 1000);
  Schema schema({{"timestamp", ElementType::timestamp},
                 {"id", ElementType::int64},
                 {"name", ElementType::string},
                 {"x", ElementType::float64},
                 {"y", ElementType::float64}},
                {nullptr, nullptr, names_dictionary(), nullptr, nullptr});
  return generate(engine, schema, n, per, "timeseries", [t0, f, s0](std::int64_t first, BatchBuilder& out) {
    auto ts = out.column<std::int64_t>(0);
    auto id = out.column<std::int64_t>(1);
    auto name = out.column<std::int32_t>(2);
    auto x = out.column<double>(3);
    auto y = out.column<double>(4);
    for (std::int64_t i = 0; i < out.nrows(); ++i) {
      auto r = static_cast<std::uint64_t>(first + i);
      ts[i] = t0 + static_cast<std::int64_t>(r) * f;
      id[i] = 950 + static_cast<std::int64_t>(counter_hash(s0, r) % 101);
      name[i] = static_cast<std::int32_t>(counter_hash(s0 + 1, r) % 26);
      x[i] = 2.0 * counter_uniform(s0 + 2, r) - 1.0;
      y[i] = 2.0 * counter_uniform(s0 + 3, r) - 1.0;
    }
  });
}

}  // namespace slab::frame
