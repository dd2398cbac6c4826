// The seed notebook ("Dask + GPUs", seed 000) in slab, a line a cell; the same program on 1 or 1,000 GPUs.
// example_notebook [rows] [end]: the seed's sizes by default (a 100,000 x 1,000 array; January 2000, one row a second).
#include <slab/slab.hpp>

#include <string>

int main(int argc, char** argv) {
  slab::Engine engine(argc, argv);
  std::ostream& out = engine.out();  // prints on rank 0; every rank runs every line
  const std::int64_t rows = argc > 1 ? std::stoll(argv[1]) : 100000;

  auto x = slab::random_uniform(engine, {rows, 1000}, slab::Split::rows, 42).persist();  // da.random.random(...)
  auto [u, s, vt] = slab::linalg::svd(x);                                                  // da.linalg.svd(x)
  out << slab::to_string(s) << "\n";                                                       // s.compute()
  auto df = slab::frame::timeseries(engine, "2000-01-01", argc > 2 ? argv[2] : "2000-01-31").persist();
  out << df.len() << "\n" << df.head() << "\n";                                            // len(df); df.head()
  auto g = df.groupby({"id", "name"}).agg({{"x", {"mean", "sum", "count", "std"}}, {"y", {"min", "max"}}});
  out << g << "\n" << df.rolling("1h", "timestamp")["x"].mean().head() << "\n";        // df.x.rolling("1h").mean()

  const bool ok = s.size() == 1000 && s.front() >= s.back() && g["x_count"].sum() == double(df.len());
  out << (ok ? "ok" : "MISMATCH") << "\n";
  engine.finish();
  return ok ? 0 : 1;
}
