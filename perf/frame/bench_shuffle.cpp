// bench_shuffle: the hash shuffle of groupby/merge (slab::frame::shuffle) against a raw alltoall of the same
// bytes per rank, as apps/slab-info measures it, in one run. A frame of (key int64, x float64, y float64) with
// --rows rows per rank in --parts partitions is generated and persisted; the shuffle is then timed whole and
// its alltoallv calls are summed from the tracer. Bandwidths are algorithm bandwidths (bytes each rank sends /
// seconds), taking the slowest rank. Prints one JSON line on rank 0.
// Usage: mpirun -n 2 bench_shuffle [--rows 4000000] [--parts 8] [--nparts 0] [--repeats 3]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "slab/core/counter_rng.hpp"
#include "slab/engine/engine.hpp"
#include "slab/frame/shuffle.hpp"

namespace fr = slab::frame;

namespace {

double max_over_ranks(double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::int64_t rows = 4000000;
  int parts = 8, nparts = 0, repeats = 3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--rows"))
      rows = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--parts"))
      parts = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--nparts"))
      nparts = std::max(0, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--repeats"))
      repeats = std::max(1, std::atoi(argv[++i]));
  }
  {
    slab::EngineOptions options;
    options.device_memory_limit.bytes = 8ull << 30;
    options.host_memory_limit.bytes = 8ull << 30;
    slab::Engine engine(options);
    slab::Comm& comm = engine.comm();
    slab::Tracer& tracer = engine.tracer();
    const int p = comm.size();
    const fr::Schema schema(
        {{"key", slab::ElementType::int64}, {"x", slab::ElementType::float64}, {"y", slab::ElementType::float64}});
    std::vector<slab::Chunk> chunks;
    const std::int64_t per = (rows + parts - 1) / parts;
    for (std::int64_t b = 0; b < rows; b += per) {
      const std::int64_t n = std::min(per, rows - b), g0 = comm.rank() * rows + b;
      chunks.push_back(engine.tasks().submit("gen", {}, [schema, n, g0](slab::TaskContext& ctx) {
        fr::BatchBuilder bb(ctx, n, schema, {});
        for (std::int64_t i = 0; i < n; ++i) {
          bb.column<std::int64_t>(0)[i] = static_cast<std::int64_t>(slab::counter_hash(1, g0 + i) % 1000000);
          bb.column<double>(1)[i] = static_cast<double>(i);
          bb.column<double>(2)[i] = 1.0;
        }
      }));
    }
    fr::Frame frame(engine, schema, chunks);
    frame.persist();

    std::vector<double> whole, inside;
    double sent = 0;
    for (int r = 0; r < repeats; ++r) {
      const std::size_t first_event = tracer.events().size();
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      fr::Frame s = fr::shuffle(frame, {"key"}, nparts);
      s.persist();
      whole.push_back(max_over_ranks(MPI_Wtime() - t0));
      double secs = 0, bytes = 0;
      const auto& ev = tracer.events();
      for (std::size_t i = first_event; i < ev.size(); ++i)
        if (ev[i].name == "alltoallv") {
          secs += ev[i].duration;
          bytes += static_cast<double>(ev[i].bytes) / 2;  // the event counts sent + received bytes
        }
      inside.push_back(max_over_ranks(secs));
      sent = max_over_ranks(bytes);
    }
    // Raw alltoall as slab-info does it: equal blocks, the same bytes per rank as one shuffle round sends.
    const auto rounds = static_cast<double>(frame.num_partitions());
    const std::size_t per_peer = std::max<std::size_t>(1, static_cast<std::size_t>(sent / rounds) / p);
    std::vector<char> send(per_peer * p, 1), recv(per_peer * p);
    std::vector<double> raw;
    for (int r = 0; r < repeats + 1; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      comm.alltoall(std::span<const char>(send), std::span<char>(recv));
      const double t = max_over_ranks(MPI_Wtime() - t0);
      if (r > 0) raw.push_back(t);  // the first is a warm-up
    }
    const double raw_gbps = static_cast<double>(per_peer * p) / median(raw) / 1e9;
    const double inside_gbps = sent / median(inside) / 1e9;
    const double whole_gbps = sent / median(whole) / 1e9;
    if (comm.rank() == 0) {
      std::printf(
          "{\"bench\":\"shuffle\",\"ranks\":%d,\"rows_per_rank\":%lld,\"partitions\":%d,\"bytes_sent_per_rank\":%.0f,"
          "\"shuffle_seconds\":%.4f,\"alltoallv_seconds\":%.4f,\"alltoallv_GBps\":%.3f,\"shuffle_GBps\":%.3f,"
          "\"raw_alltoall_bytes_per_rank\":%zu,\"raw_alltoall_GBps\":%.3f,\"ratio_alltoallv_to_raw\":%.3f,"
          "\"ratio_shuffle_to_raw\":%.3f}\n",
          p, static_cast<long long>(rows), static_cast<int>(rounds), sent, median(whole), median(inside), inside_gbps,
          whole_gbps, per_peer * p, raw_gbps, inside_gbps / raw_gbps, whole_gbps / raw_gbps);
    }
  }
  slab::detail::finalize_kokkos();
  MPI_Finalize();
  return 0;
}
