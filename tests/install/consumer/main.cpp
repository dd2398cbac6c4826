// An outside project using the installed slab without slab::App: the engine in two lines, a distributed array,
// its sum checked against a serial sum of the same counter-based values, and a frame groupby.
#include <slab/core/counter_rng.hpp>
#include <slab/slab.hpp>

#include <cmath>
#include <cstdio>
#include <stdexcept>

int main(int argc, char** argv) {
  slab::Engine engine(argc, argv);  // MPI, Kokkos, this rank's device, limits from --memory-limit / SLAB_*
  auto x = slab::random_uniform(engine, {1000, 3}, slab::Split::rows, 42);

  double serial = 0;
  for (std::uint64_t i = 0; i < 3000; ++i) serial += slab::counter_uniform(42, i);
  const double distributed = slab::sum(x);
  if (std::abs(distributed - serial) > 1e-9 * serial) throw std::runtime_error("wrong sum");

  slab::frame::LocalTable t;
  t.add(slab::frame::LocalColumn::int64("k", {engine.rank() % 2 == 0 ? 1 : 2}));
  t.add(slab::frame::LocalColumn::float64("v", {1.0}));
  const auto f = slab::frame::Frame::from_local_table(engine, t);
  const auto g = slab::frame::groupby(f, {"k"}, {{"v", {slab::frame::AggOp::sum}}}).gather_all();
  if (g.nrows() != (engine.size() > 1 ? 2 : 1)) throw std::runtime_error("wrong groups");
  if (engine.rank() == 0) std::printf("consumer ok: sum %.6f over %d ranks\n", distributed, engine.size());
  engine.finish();
  return 0;
}
