// A test program for the app conventions: a chain of tasks and a collective where one rank fails.
//   --fail-rank R   the rank whose task throws (-1: the last rank; -2: nobody, but allocate 64 KiB chunks)
#include <slab/app/app.hpp>
#include <slab/core/error.hpp>

int main(int argc, char** argv) {
  slab::App app("fault_app", "Inject a failure into a task on one rank.");
  int fail_rank = -1;
  app.cli().add_option("--fail-rank", fail_rank, "rank that fails (-1: last)");
  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    const int rank = ctx.rank();
    const int failing = fail_rank == -1 ? ctx.size() - 1 : fail_rank;
    const std::size_t n = 8192;  // 64 KiB of doubles
    auto step = ctx.tasks().submit("step", {}, [=](slab::TaskContext& t) {
      if (rank == failing) SLAB_FAIL(slab::IoError, "injected failure in task 'step' on rank " + std::to_string(rank));
      auto out = t.output_as<double>(n);
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(i);
    });
    auto total = ctx.tasks().submit("allreduce", {step},
                                    [](slab::TaskContext& t) {
                                      auto in = t.input_as<double>(0);
                                      double s = 0;
                                      for (double v : in) s += v;
                                      s = t.comm().allreduce(s, slab::ReduceOp::sum);
                                      t.output_as<double>(1)[0] = s;
                                    },
                                    {slab::TraceKind::comm, true});
    const double value = ctx.tasks().compute<double>(total)[0];
    ctx.check("total", value);
  });
}
