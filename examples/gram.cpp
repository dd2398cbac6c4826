// X X^T of a matrix in an HDF5 file, written into the same file (out of core under the memory limit).
#include <slab/slab.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>

int main(int argc, char** argv) {
  slab::Engine engine(argc, argv);
  const std::string file = "example_gram.h5";
  auto x = slab::random_uniform(engine, slab::Shape{40, 3000}, slab::Split::rows, /*seed=*/7);
  slab::io::write_hdf5(x, file, "/X");  // collective, atomic

  slab::linalg::gram_xxt(engine, slab::io::inspect(engine.comm(), file, "/X"), file, "/Y");
  auto y = slab::io::read_hdf5<double>(engine, file, "/Y", slab::Split::rows).gather_all();

  // Reference: X X^T = (X^T)^T (X^T), A^T A of the transpose.
  auto ref = slab::linalg::gram_ata(x.transpose().resplit(slab::Split::rows));
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::fabs(y[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  bool ok = y.size() == 40 * 40 && err <= 1e-10 * scale;
  if (engine.comm().rank() == 0) std::cout << (ok ? "ok" : "MISMATCH") << " max error " << err << "\n";
  return ok ? 0 : 1;
}
