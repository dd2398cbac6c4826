// Task-queue overhead: N trivial tasks (default 1,000,000) submitted and persisted on each rank, timed
// between barriers, slowest rank, median of repeats. Two shapes: independent tasks without output, and a
// chain in which every task reads its predecessor's 8-byte output and writes its own (allocation, pinning,
// release). Prints one JSON line per shape.
//   scripts/mpirun -n 1 build/perf/task/bench_tasks --tasks 1000000 --repeats 5
#include <mpi.h>
#include <slab/core/units.hpp>
#include <slab/engine/engine.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  slab::EngineOptions options = slab::EngineOptions::from_environment();
  options.consume_flags(argc, argv);
  options.device_memory_limit.bytes = options.host_memory_limit.bytes = 1ull << 30;
  {
    slab::Engine job(options);  // who and where, for the report
    const slab::Runtime& rt = job.runtime();
    long tasks = 1000000;
    int repeats = 5;
    for (int i = 1; i + 1 < argc; ++i) {
      if (std::strcmp(argv[i], "--tasks") == 0) tasks = std::stol(argv[i + 1]);
      if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::stoi(argv[i + 1]);
    }
    for (const std::string shape : {"independent_no_output", "chain_8_byte_outputs"}) {
      std::vector<double> times;
      for (int r = 0; r < repeats; ++r) {
        slab::Engine engine(options);  // fresh per repeat: every task is recorded in its tracer
        slab::TaskQueue& queue = engine.tasks();
        slab::Comm& comm = engine.comm();
        long counter = 0;
        comm.barrier();
        const double t0 = MPI_Wtime();
        if (shape == "independent_no_output") {
          std::vector<slab::Chunk> all;
          all.reserve(tasks);
          for (long i = 0; i < tasks; ++i)
            all.push_back(queue.submit("t", {}, [&counter](slab::TaskContext&) { ++counter; }));
          queue.persist(all);
        } else {
          slab::Chunk x = queue.submit("t", {}, [](slab::TaskContext& ctx) { ctx.output_as<long>(1)[0] = 0; });
          for (long i = 1; i < tasks; ++i)
            x = queue.submit("t", {x},
                             [](slab::TaskContext& ctx) { ctx.output_as<long>(1)[0] = ctx.input_as<long>(0)[0] + 1; });
          counter = queue.compute<long>(x)[0] + 1;
        }
        double t = MPI_Wtime() - t0;
        t = comm.allreduce(t, slab::ReduceOp::max);
        if (counter != tasks) {
          std::fprintf(stderr, "bench_tasks: ran %ld tasks, expected %ld\n", counter, tasks);
          return 1;
        }
        times.push_back(t);
      }
      std::sort(times.begin(), times.end());
      const double median = times[times.size() / 2];
      if (rt.rank() == 0)
        std::printf(
            "{\"bench\":\"tasks\",\"shape\":\"%s\",\"tasks\":%ld,\"ranks\":%d,\"seconds\":%.6f,\"us_per_task\":%.4f,"
            "\"host\":\"%s\",\"versions\":\"%s\"}\n",
            shape.c_str(), tasks, rt.size(), median, median / tasks * 1e6, rt.hostname().c_str(),
            rt.versions().c_str());
    }
  }
  slab::detail::finalize_kokkos();
  MPI_Finalize();
  return 0;
}
