// A timeseries frame the pandas way: len, head, groupby().agg, rolling over a time column, assign, merge.
#include <slab/slab.hpp>

#include <cmath>
#include <iostream>

using namespace slab::frame;

int main(int argc, char** argv) {
  slab::Engine engine(argc, argv);
  const std::int64_t n = 100000;  // one row a minute
  auto column = [&](auto f) {
    return slab::Array<std::int64_t>::from_function(engine, slab::Shape{n}, slab::Split::rows, f);
  };
  Frame df = from_arrays({{"t", column([](std::int64_t i, std::int64_t) { return i * 60'000'000'000; })},
                          {"id", column([](std::int64_t i, std::int64_t) { return i % 7; })},
                          {"x", column([](std::int64_t i, std::int64_t) { return i % 10; })}});
  df = astype(df, "t", slab::ElementType::timestamp);

  LocalTable first = df.head(3);  // collective, replicated
  if (engine.comm().rank() == 0) std::cout << first << "\n";
  Frame stats = df.groupby("id").agg({{"x", {"mean", "count"}}});
  std::cout << stats;                                                   // collective: rank 0 prints
  Frame hourly = df.assign("x_1h", df.rolling("1h", "t")["x"].mean());  // 60 rows a window
  LocalTable ids;
  ids.add(LocalColumn::int64("id", {0, 1})).add(LocalColumn::string("name", {"a", "b"}));
  Frame names = Frame::from_replicated_table(engine, ids);  // the same table on every rank, held once
  Frame joined = df.merge(names, {.on = {"id"}, .how = "inner"});

  // x cycles 0..9, so every full hour's mean is 4.5 and no window's is more; ids 0 and 1 hold ceil(n/7) rows.
  bool ok = df.len() == n && stats.len() == 7 && std::fabs(hourly["x_1h"].max() - 4.5) < 1e-12 &&
            hourly["x_1h"].min() == 0 && joined.len() == (n + 6) / 7 + (n + 5) / 7;
  if (engine.comm().rank() == 0) std::cout << (ok ? "ok" : "MISMATCH") << "\n";
  return ok ? 0 : 1;
}
