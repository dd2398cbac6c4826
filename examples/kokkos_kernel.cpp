// Your own Kokkos kernel on a chunk of a slab array: view the computed local chunk, update it in place.
#include <slab/array/kokkos_view.hpp>
#include <slab/slab.hpp>

#include <cmath>
#include <iostream>

int main(int argc, char** argv) {
  slab::Engine engine(argc, argv);
  auto a = slab::ones<double>(engine, slab::Shape{1000, 4}, slab::Split::rows);
  a.persist();  // collective: the chunks must have run before they are viewed

  for (std::size_t i = 0; i < a.num_local_chunks(); ++i) {
    auto chunk = slab::local_view(a, i);  // pinned while `chunk` lives
    auto v = chunk.view;
    const std::int64_t row0 = chunk.extent.row0;
    Kokkos::parallel_for(
        "scale_rows", v.extent(0), KOKKOS_LAMBDA(std::size_t r) {
          for (std::size_t c = 0; c < v.extent(1); ++c) v(r, c) *= static_cast<double>(row0 + r);
        });
    Kokkos::fence();
  }

  // Row r now holds r in each of its 4 columns: the sum is 4 * (0 + ... + 999).
  bool ok = a.sum() == 4.0 * 999 * 1000 / 2;
  if (engine.comm().rank() == 0) std::cout << (ok ? "ok" : "MISMATCH") << "\n";
  return ok ? 0 : 1;
}
