// A parameter sweep of your own function: each point runs on whichever rank is free; results in grid order.
#include <slab/slab.hpp>

#include <cmath>
#include <iostream>

// The user's model: any code that does not call collectives.
double my_loss(double a, double b) { return (a - 0.3) * (a - 0.3) + std::fabs(b - 2.0); }

int main(int argc, char** argv) {
  slab::Engine engine(argc, argv);
  slab::Grid grid({"a", "b"});
  for (int i = 0; i <= 10; ++i)
    for (int j = 0; j <= 4; ++j) grid.add({0.1 * i, 1.0 * j});

  slab::SweepTable table = slab::sweep(engine.comm(), grid, [](const slab::SweepPoint& p) {
    return slab::SweepValues{{"loss", my_loss(p["a"], p["b"])}};
  });

  std::size_t best = table.argmin("loss");
  bool ok = table.size() == 55 && std::fabs(table.at(best, "a") - 0.3) < 1e-12 && table.at(best, "b") == 2.0;
  if (engine.comm().rank() == 0)
    std::cout << "best: " << grid.describe(best) << " loss " << table.at(best, "loss") << (ok ? " ok" : " MISMATCH")
              << "\n";
  return ok ? 0 : 1;
}
