// bench_comm: slab::Comm against raw MPI in the same run. For 1 MiB .. 256 MiB per rank (powers of 4,
// capped by --max-bytes), times allreduce (sum of doubles) and alltoallv (equal counts) between barriers,
// takes the max over ranks of each repeat and the median of --repeats, and prints one JSON object per line.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "slab/comm/comm.hpp"

namespace {

template <class F>
double timed(MPI_Comm comm, F&& fn) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  fn();
  double dt = MPI_Wtime() - t0;
  double mx = 0;
  MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
  return mx;
}

template <class F>
double median_time(MPI_Comm comm, int repeats, F&& fn) {
  fn();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) t.push_back(timed(comm, fn));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::size_t max_bytes = std::size_t{256} << 20;
  int repeats = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--max-bytes") && i + 1 < argc)
      max_bytes = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc)
      repeats = std::max(1, std::atoi(argv[++i]));
  }
  {
    slab::Comm comm(MPI_COMM_WORLD);
    const int p = comm.size();
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    MPI_Get_library_version(version, &len);
    std::string mpi_version(version, static_cast<std::size_t>(len));
    if (auto nl = mpi_version.find_first_of("\n,"); nl != std::string::npos) mpi_version.resize(nl);

    for (std::size_t bytes = std::size_t{1} << 20; bytes <= max_bytes; bytes *= 4) {
      const std::size_t n = bytes / sizeof(double);
      std::vector<double> in(n), out(n);
      for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<double>(i % 1000) + comm.rank();
      const double t_slab = median_time(MPI_COMM_WORLD, repeats, [&] {
        comm.allreduce(std::span<const double>(in), std::span<double>(out), slab::ReduceOp::sum);
      });
      const double t_mpi = median_time(MPI_COMM_WORLD, repeats, [&] {
        MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      });
      // alltoallv with equal counts: n / p doubles to every rank
      const std::size_t c = n / static_cast<std::size_t>(p);
      std::vector<std::size_t> counts(static_cast<std::size_t>(p), c), rcounts;
      std::vector<double> recv;
      std::vector<int> ic(static_cast<std::size_t>(p), static_cast<int>(c)), id(static_cast<std::size_t>(p));
      for (int k = 0; k < p; ++k) id[static_cast<std::size_t>(k)] = k * static_cast<int>(c);
      std::vector<double> rraw(c * static_cast<std::size_t>(p));
      std::span<const double> send(in.data(), c * static_cast<std::size_t>(p));
      const double a_slab = median_time(
          MPI_COMM_WORLD, repeats, [&] { comm.alltoallv(send, std::span<const std::size_t>(counts), recv, rcounts); });
      const double a_mpi = median_time(MPI_COMM_WORLD, repeats, [&] {
        MPI_Alltoallv(in.data(), ic.data(), id.data(), MPI_DOUBLE, rraw.data(), ic.data(), id.data(), MPI_DOUBLE,
                      MPI_COMM_WORLD);
      });
      if (comm.rank() == 0) {
        auto line = [&](const char* op, double ts, double tm) {
          const double gb = static_cast<double>(bytes) / 1e9;
          std::printf(
              "{\"op\":\"%s\",\"bytes_per_rank\":%zu,\"ranks\":%d,\"slab_seconds\":%.6f,\"mpi_seconds\":%.6f,"
              "\"slab_GBps\":%.3f,\"mpi_GBps\":%.3f,\"ratio\":%.3f,\"repeats\":%d,\"host\":\"%s\",\"mpi\":\"%s\"}\n",
              op, bytes, p, ts, tm, gb / ts, gb / tm, ts / tm, repeats, host, mpi_version.c_str());
          std::fflush(stdout);
        };
        line("allreduce", t_slab, t_mpi);
        line("alltoallv", a_slab, a_mpi);
      }
    }
  }
  MPI_Finalize();
  return 0;
}
