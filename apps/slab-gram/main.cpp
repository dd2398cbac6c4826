// slab-gram: Y = X X^T out of core for X stored in HDF5 (seed 001: Dask ran out of memory holding every
// partial product). X is read in column blocks, each block folded into one running n x n sum with dsyrk as
// soon as it is read (the next block read meanwhile), the ranks' sums reduce-scattered into row blocks, and each
// rank's rows of Y written next to X, collectively and atomically.
//
//   mpirun -n 2 slab-gram --generate-file /tmp/w2.h5                      # W2's X, 5000 x 100,000 float64
//   mpirun -n 2 slab-gram --input /tmp/w2.h5:/X --output /tmp/w2.h5:/Y --memory-limit 1GiB --json
#include <slab/app/app.hpp>
#include <slab/core/counter_rng.hpp>
#include <slab/core/units.hpp>
#include <slab/io/hdf5.hpp>
#include <slab/linalg/gram.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

int main(int argc, char** argv) {
  slab::App app("slab-gram", "Y = X X^T out of core for X in an HDF5 file (W2), or generate W2's X.");
  std::string generate_file;
  std::uint64_t rows = 5000;
  std::uint64_t cols = 100000;
  std::uint64_t block_cols = 0;
  std::optional<slab::DatasetPath> input;
  std::optional<slab::DatasetPath> output;
  app.cli().add_option("--generate-file", generate_file, "write W2's X (X[i,j] = U(2, i*cols + j)) as /X of FILE.h5");
  app.cli().add_option("--rows", rows, "rows of the generated X")->capture_default_str();
  app.cli().add_option("--cols", cols, "columns of the generated X")->capture_default_str();
  app.cli().add_option("--block-cols", block_cols, "columns per block (default: from --memory-limit)");
  bool no_overlap = false;
  app.cli().add_flag("--no-overlap", no_overlap,
                     "read and dsyrk take turns instead of reading block i + 1 during block i's dsyrk (to measure)");
  app.add_input(input, "X as FILE.h5:/dataset (float64, n x m)");
  app.add_output(output, "where to write Y = X X^T (FILE.h5:/dataset; may be X's file)");

  app.validate([&] {
    SLAB_EXPECTS(!generate_file.empty() || input, slab::InvalidArgument,
                 "slab-gram: give --generate-file FILE.h5 or --input FILE.h5:/X");
  });

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    slab::Comm& comm = ctx.comm();

    if (!generate_file.empty()) {
      const std::uint64_t tr = std::min<std::uint64_t>(rows, 5000), tc = std::min<std::uint64_t>(cols, 5000);
      ctx.job_begin();
      slab::io::write_generated(comm, generate_file, "/X", slab::ElementType::float64, {rows, cols}, {tr, tc}, tr, tc,
                                [&](std::uint64_t r0, std::uint64_t nr, std::uint64_t c0, std::uint64_t nc, void* out) {
                                  auto* x = static_cast<double*>(out);
                                  for (std::uint64_t i = 0; i < nr; ++i)
                                    for (std::uint64_t j = 0; j < nc; ++j)
                                      x[i * nc + j] = slab::counter_uniform(2, (r0 + i) * cols + c0 + j);
                                });
      ctx.job_end();
      ctx.check("generated_rows", static_cast<std::int64_t>(rows));
      ctx.check("generated_cols", static_cast<std::int64_t>(cols));
      ctx.print("wrote " + generate_file + ":/X (" + std::to_string(rows) + " x " + std::to_string(cols) +
                " float64) in " + std::to_string(ctx.job_seconds()) + " s\n");
    }
    if (!input) return;

    ctx.job_begin();  // "seconds" includes reading X
    const slab::io::DatasetInfo x = slab::io::inspect(comm, input->file, input->object);
    slab::linalg::GramOptions options;
    options.block_cols = block_cols;
    options.overlap = !no_overlap;
    slab::linalg::GramReport rep;
    ctx.show_task_progress("X X^T");
    std::vector<double> y = slab::linalg::gram_xxt(ctx.engine(), x, output ? output->file : std::string(),
                                                   output ? output->object : std::string(), options, &rep, !output);
    ctx.show_task_progress("");
    ctx.job_end();

    // The checks come from the stored Y when it was written: each rank reads back only its rows of Y and the
    // same columns (for the symmetry), never Y whole. Otherwise rank 0 has Y whole (keep_result) and checks it.
    const std::uint64_t n = rep.n;
    std::uint64_t row0 = 0, rows = comm.rank() == 0 ? n : 0;
    std::vector<double> cols;  // Y[:, row0:row0 + rows], n x rows
    if (output) {
      row0 = rep.row0;
      rows = rep.rows;
      const slab::io::DatasetInfo yi =
          slab::io::inspect(comm, output->file, output->object, slab::ElementType::float64);
      y.resize(rows * n);
      cols.resize(n * rows);
      slab::io::read_block(yi, row0, rows, 0, n, slab::ElementType::float64, y.data());
      slab::io::read_block(yi, 0, n, row0, rows, slab::ElementType::float64, cols.data());
    }
    double sum = 0, trace = 0, asym = 0, y00 = 0, y10 = 0, ylast = 0;
    for (std::uint64_t i = 0; i < rows; ++i) {
      const std::uint64_t gi = row0 + i;
      trace += y[i * n + gi];
      for (std::uint64_t j = 0; j < n; ++j) {
        sum += y[i * n + j];
        const double yji = output ? cols[j * rows + i] : y[j * n + gi];
        asym = std::max(asym, std::fabs(y[i * n + j] - yji));
      }
      if (gi == 0) y00 = y[i * n];
      if (gi == 1) y10 = y[i * n];
      if (gi == n - 1) ylast = y[i * n + n - 1];
    }
    sum = comm.allreduce(sum, slab::ReduceOp::sum);
    trace = comm.allreduce(trace, slab::ReduceOp::sum);
    asym = comm.allreduce(asym, slab::ReduceOp::max);
    y00 = comm.allreduce(y00, slab::ReduceOp::sum);  // one rank holds each, the others add 0
    y10 = comm.allreduce(y10, slab::ReduceOp::sum);
    ylast = comm.allreduce(ylast, slab::ReduceOp::sum);
    const double flops = comm.allreduce(rep.syrk_flops, slab::ReduceOp::sum);
    const double syrk_max = comm.allreduce(rep.syrk_seconds, slab::ReduceOp::max);
    const double read_max = comm.allreduce(rep.read_seconds, slab::ReduceOp::max);
    const double rate_rank = rep.syrk_seconds > 0 ? rep.syrk_flops / rep.syrk_seconds / 1e9 : 0;
    const double rate_min = comm.allreduce(rate_rank, slab::ReduceOp::min);
    ctx.check("n", static_cast<std::int64_t>(n));
    ctx.check("m", static_cast<std::int64_t>(rep.m));
    ctx.check("block_cols", static_cast<std::int64_t>(rep.block_cols));
    ctx.check("blocks", static_cast<std::int64_t>(rep.blocks));
    ctx.check("sum_Y", sum);
    ctx.check("trace_Y", trace);
    ctx.check("Y00", y00);
    ctx.check("Y10", y10);
    ctx.check("Ylast", ylast);
    ctx.check("asym_max", asym);
    ctx.check("syrk_gflops", syrk_max > 0 ? flops / syrk_max / 1e9 : 0.0);
    ctx.check("syrk_gflops_per_rank_min", rate_min);
    ctx.check("read_seconds_max", read_max);
    ctx.check("syrk_seconds_max", syrk_max);
    ctx.check("pass_seconds_max", comm.allreduce(rep.pass_seconds, slab::ReduceOp::max));
    ctx.check("overlap", static_cast<std::int64_t>(no_overlap ? 0 : 1));
    ctx.check("reduce_seconds", rep.reduce_seconds);
    ctx.check("write_seconds", rep.write_seconds);
    std::ostringstream text;
    text.precision(17);
    text << "Y = X X^T for X " << input->str() << " (" << n << " x " << rep.m << "), " << rep.blocks << " blocks of "
         << rep.block_cols << " columns, in " << ctx.job_seconds() << " s\n"
         << "  read " << read_max << " s, dsyrk " << syrk_max << " s (" << (syrk_max > 0 ? flops / syrk_max / 1e9 : 0)
         << " GFLOP/s), reduce " << rep.reduce_seconds << " s, write " << rep.write_seconds << " s\n"
         << "  sum_Y " << sum << "  trace_Y " << trace << "  Y00 " << y00 << "  Y10 " << y10 << "  Ylast " << ylast
         << "  asym_max " << asym << "\n"
         << (output ? "  written to " + output->str() + "\n" : std::string());
    ctx.print(text.str());
  });
}
