// slab-reduce: sum, mean, std (ddof=0) and max of a[k] = U(11, k), k < N, in one fused pass (W6 of
// WORKLOADS.md), by slab::reduce_stats: one task per chunk, a streamed combine, a fixed-tree reduction.
//
//   mpirun -n 2 slab-reduce --generate --n 200000000 --json
#include <slab/app/app.hpp>
#include <slab/array/array.hpp>
#include <slab/array/creation.hpp>
#include <slab/array/elementwise.hpp>
#include <slab/array/reduction.hpp>
#include <slab/array/slicing.hpp>
#include <slab/core/counter_rng.hpp>
#include <slab/linalg/linalg.hpp>

#include <sstream>
#include <vector>

int main(int argc, char** argv) {
  slab::App app("slab-reduce", "Sum, mean, standard deviation and maximum of a generated vector in one pass.");
  bool generate = false;
  std::int64_t n = 200000000, chunk = 0;
  app.cli().add_flag("--generate", generate, "generate a[k] = U(11, k) (WORKLOADS.md W6)")->required();
  app.cli().add_option("--n", n, "length N")->capture_default_str()->check(CLI::PositiveNumber);
  app.cli().add_option("--chunk", chunk, "elements per chunk (0: about 32 MiB)")->capture_default_str();

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    slab::Engine& engine = ctx.engine();
    // a[k] = U(11, k) is random_uniform's value on [0, 1): made where a lives (on a GPU, by the device's
    // counter-based creation kernel).
    slab::Array<double> a = slab::random_uniform(engine, slab::Shape{n}, slab::Split::rows, 11, 0.0, 1.0, chunk);
    ctx.show_task_progress("generate");
    a.persist();
    ctx.show_task_progress("");

    ctx.job_begin();
    ctx.show_task_progress("reduce");
    const slab::Stats s = slab::reduce_stats(a, 0);
    ctx.show_task_progress("");
    ctx.job_end();

    ctx.check("sum", s.sum);
    ctx.check("mean", s.mean);
    ctx.check("std", s.std);
    ctx.check("max", s.max);
    std::ostringstream out;
    out.precision(17);
    out << "N = " << n << " on " << ctx.size() << " ranks: " << ctx.job_seconds() << " s\n  sum " << s.sum
        << "\n  mean " << s.mean << "\n  std " << s.std << "\n  max " << s.max << "\n";
    ctx.print(out.str());
  });
}
