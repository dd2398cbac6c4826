// A random tall matrix and its thin SVD: the singular values keep the Frobenius norm, U has orthonormal columns.
#include <slab/slab.hpp>

#include <cmath>
#include <iostream>

int main(int argc, char** argv) {
  slab::Engine engine(argc, argv);
  auto x = slab::random_normal(engine, slab::Shape{10000, 8}, slab::Split::rows, /*seed=*/42);
  auto [u, s, vt] = slab::linalg::svd(x);
  std::cout << u << "\n";  // collective: rank 0 prints, like numpy

  double fro = (x * x).sum(), ss = 0;
  for (double v : s) ss += v * v;
  double u00 = (u.col_range(0, 1) * u.col_range(0, 1)).sum();  // |u_0|^2 = 1
  bool ok = std::fabs(ss - fro) < 1e-9 * fro && std::fabs(u00 - 1) < 1e-9 && vt.size() == 64;
  if (engine.comm().rank() == 0) std::cout << (ok ? "ok" : "MISMATCH") << "\n";
  return ok ? 0 : 1;
}
