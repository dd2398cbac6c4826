// W6: reduce_stats (sum, mean, std, max in one fused pass) of N persisted doubles counter_uniform(11, k),
// next to a STREAM-like read loop over the same pinned chunks. Times between barriers, max over ranks,
// median of repeats; prints JSON. Usage: mpirun -n P bench_reduce_stats [N] [repeats]
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "test_engine.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  Kokkos::initialize();
  {
    const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 200000000;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    slab::testing::Engine engine(8ull << 30, 8ull << 30);
    slab::Comm& comm = engine.comm();
    auto a = slab::random_uniform(engine, {n}, slab::Split::rows, 11);
    a.persist();
    auto timed = [&](auto fn) {
      std::vector<double> t;
      for (int r = 0; r < reps; ++r) {
        comm.barrier();
        const double t0 = MPI_Wtime();
        fn();
        double dt = MPI_Wtime() - t0;
        dt = comm.allreduce(dt, slab::ReduceOp::max);
        t.push_back(dt);
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    slab::Stats st;
    const double t_fused = timed([&] { st = slab::reduce_stats(a); });
    double stream_sum = 0;
    const double t_stream = timed([&] {
      double s[8] = {};
      for (const auto& c : a.local_chunks()) {
        slab::Pin pin = c.buffer()->pin();
        const double* x = reinterpret_cast<const double*>(pin.data());
        const std::size_t m = pin.size() / sizeof(double);
        std::size_t i = 0;
        for (; i + 8 <= m; i += 8)
          for (int j = 0; j < 8; ++j) s[j] += x[i + j];
        for (; i < m; ++i) s[0] += x[i];
      }
      double local = 0;
      for (double v : s) local += v;
      stream_sum = comm.allreduce(local, slab::ReduceOp::sum);
    });
    const double t_sum = timed([&] { (void)slab::sum(a); });
    const double gb = double(n) * 8 / 1e9;
    if (comm.rank() == 0)
      std::printf(
          "{\"n\": %lld, \"ranks\": %d, \"repeats\": %d, \"reduce_stats_s\": %.4f, \"reduce_stats_GBps\": %.2f, "
          "\"sum_s\": %.4f, \"sum_GBps\": %.2f, \"stream_read_s\": %.4f, \"stream_read_GBps\": %.2f, "
          "\"sum\": %.6f, \"mean\": %.9f, \"std\": %.9f, \"max\": %.9f, \"stream_sum\": %.6f}\n",
          static_cast<long long>(n), comm.size(), reps, t_fused, gb / t_fused, t_sum, gb / t_sum, t_stream,
          gb / t_stream, st.sum, st.mean, st.std, st.max, stream_sum);
  }
  Kokkos::finalize();
  MPI_Finalize();
  return 0;
}
