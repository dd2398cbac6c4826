// Y = X X^T of a matrix in an HDF5 file, written into the same file: out of core under the memory limit (X is
// streamed from the file in column blocks, never held), as NumPy's `y = x @ x.T`.
#include <slab/slab.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>

int main(int argc, char** argv) {
  slab::Engine engine(argc, argv);
  const std::string file = "example_gram.h5";
  auto x0 = slab::random_uniform(engine, slab::Shape{40, 3000}, slab::Split::rows, /*seed=*/7);
  slab::io::write_hdf5(x0, file, "/X");  // collective, atomic

  auto x = slab::io::read_hdf5<double>(engine, file, "/X", slab::Split::rows);  // lazy
  auto y = slab::matmul(x, slab::transpose(x));  // recognised as X X^T: the out-of-core Gram
  slab::io::write_hdf5(y, file, "/Y");           // runs it; each rank writes its rows of Y

  // Check against the same product of the array in memory.
  auto stored = slab::io::read_hdf5<double>(engine, file, "/Y", slab::Split::rows).gather_all();
  auto ref = slab::matmul(x0, x0.transpose()).gather_all();
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::fabs(stored[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  const bool ok = stored.size() == 40 * 40 && err <= 1e-10 * scale;
  if (engine.comm().rank() == 0) std::cout << (ok ? "ok" : "MISMATCH") << " max error " << err << "\n";
  return ok ? 0 : 1;
}
