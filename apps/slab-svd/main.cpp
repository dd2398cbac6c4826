// slab-svd: thin SVD A = U S V^T of a tall-skinny matrix by TSQR (or randomized SVD), W1/W1b of WORKLOADS.md:
//
//   mpirun -n 2 slab-svd --generate --rows 100000 --cols 1000 --json
//   mpirun -n 2 slab-svd --generate --rows 400000 --cols 1000 --stream --memory-limit 2GiB --json
//
// A[i, j] = U(1, i * cols + j). Without --stream, A is generated and persisted first (outside "seconds"; so is
// writing U with --output); with --stream, A is never held: its chunks are generated once for R and again for U.
#include <slab/app/app.hpp>
#include <slab/array/array.hpp>
#include <slab/array/creation.hpp>
#include <slab/array/elementwise.hpp>
#include <slab/array/reduction.hpp>
#include <slab/array/slicing.hpp>
#include <slab/core/counter_rng.hpp>
#include <slab/core/units.hpp>
#include <slab/io/array_io.hpp>
#include <slab/linalg/linalg.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr std::uint64_t stream_a = 1;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char** argv) {
  slab::App app("slab-svd", "Thin SVD of a tall-skinny matrix by TSQR (or randomized SVD).");
  bool generate = false, randomized = false, stream = false;
  std::int64_t rows = 100000, cols = 1000, k = 0, oversample = 10, chunk_rows = 0;
  int power_iters = 2;
  std::optional<slab::DatasetPath> input, output;
  std::string qr = "auto";
  app.cli()
      .add_option("--qr", qr,
                  "how R is found: auto (Cholesky of the Gram, checked, else Householder), householder, cholesky")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "householder", "cholesky"}));
  app.cli().add_flag("--generate", generate, "generate A[i, j] = U(1, i * cols + j) (WORKLOADS.md W1)");
  app.add_input(input, "read A (float64, rows x cols) from an HDF5 dataset instead of generating it");
  app.cli().add_option("--rows", rows, "rows m")->capture_default_str()->check(CLI::PositiveNumber);
  app.cli().add_option("--cols", cols, "columns n")->capture_default_str()->check(CLI::PositiveNumber);
  app.cli()
      .add_option("-k", k, "singular triplets to keep (0: all n; required with --randomized)")
      ->capture_default_str();
  app.cli().add_flag("--randomized", randomized, "randomized SVD (Halko et al.) instead of the exact TSQR SVD");
  app.cli().add_option("--oversample", oversample, "randomized: extra sketch columns p")->capture_default_str();
  app.cli().add_option("--power-iters", power_iters, "randomized: power iterations q")->capture_default_str();
  app.cli().add_option("--chunk-rows", chunk_rows, "rows per chunk (0: about 32 MiB)")->capture_default_str();
  app.cli().add_flag("--stream", stream,
                     "never hold A: generate its chunks twice (R pass, U pass) to fit a memory limit");
  app.add_output(output, "write U, S and V^T to datasets PATH_U, PATH_S and PATH_VT of FILE.h5, after the timed SVD");

  app.validate([&] {
    SLAB_EXPECTS(!(randomized && stream), slab::InvalidArgument, "slab-svd: --randomized does not support --stream");
    SLAB_EXPECTS(generate != input.has_value(), slab::InvalidArgument,
                 "slab-svd: give exactly one of --generate and --input");
    SLAB_EXPECTS(
        !(input && stream), slab::InvalidArgument,
        "slab-svd: --stream regenerates A and works with --generate only; with --input, A is read once and held");
  });

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    namespace la = slab::linalg;
    slab::Engine& engine = ctx.engine();
    slab::Comm& comm = ctx.comm();
    slab::Array<double> a;
    if (input) {
      // Reading the file is part of the job (WORKLOADS.md): the clock starts before it.
      ctx.job_begin();
      a = slab::io::read_hdf5<double>(engine, input->file, input->object, slab::Split::rows, {chunk_rows});
      comm.run_collectively([&] {  // the shape is known on every rank: agree so that every rank exits cleanly
        SLAB_EXPECTS(a.ndim() == 2, slab::ShapeError, "slab-svd: " + input->str() + " is 1-D; the SVD needs a matrix");
      });
      rows = a.rows();
      cols = a.cols();
      a.persist();
    }
    const auto layout = slab::Layout::make(slab::Shape{rows, cols}, slab::Split::rows, comm.size(), chunk_rows);

    // The dgemm rate of this run: one chunk-shaped (rows x n) x (n x n) product per rank, summed over ranks.
    double rate = 0;
    {
      const std::int64_t mr = std::max<std::int64_t>(1, std::min<std::int64_t>(layout.chunk, 4096));
      std::vector<double> a(std::size_t(mr * cols), 0.5), b(std::size_t(cols * cols), 0.25), c(a.size());
      la::local_matmul(a.data(), std::size_t(mr), std::size_t(cols), b.data(), std::size_t(cols), c.data());  // warm-up
      const double t0 = now();
      la::local_matmul(a.data(), std::size_t(mr), std::size_t(cols), b.data(), std::size_t(cols), c.data());
      rate = comm.allreduce(2.0 * double(mr) * double(cols) * double(cols) / (now() - t0), slab::ReduceOp::sum);
    }

    la::RowSource source;
    if (input) {
      source = la::row_source(a, "slab-svd");
    } else if (stream) {
      // The same values, each chunk made where A would live (on a GPU, by the device's creation kernel) every time
      // a pass asks for it.
      source = slab::random_uniform_source(engine, {rows, cols}, slab::Split::rows, stream_a, 0.0, 1.0, chunk_rows);
    } else {
      // U(1, i * cols + j) is random_uniform's value on [0, 1): made where A lives (on a GPU, by the device's
      // counter-based creation kernel), in the same chunks.
      a = slab::random_uniform(engine, {rows, cols}, slab::Split::rows, stream_a, 0.0, 1.0, chunk_rows);
      a.persist();
      source = la::row_source(a, "slab-svd");
    }

    if (!input) ctx.job_begin();
    ctx.show_task_progress("svd");
    la::SvdResult r;
    if (randomized)
      r = la::randomized_svd(a, {k == 0 ? std::min<std::int64_t>(10, cols) : k, oversample, power_iters, 77});
    else
      r = la::svd(engine, source, k,
                  qr == "householder" ? la::QrMethod::householder
                  : qr == "cholesky"  ? la::QrMethod::cholesky
                                      : la::QrMethod::automatic);
    r.u.persist();
    ctx.show_task_progress("");
    ctx.job_end();
    if (output) {
      const std::int64_t kept = static_cast<std::int64_t>(r.s.size());
      slab::io::write_hdf5(r.u, output->file, output->object + "_U");
      slab::io::write_hdf5(slab::Array<double>::from_local_blocks(engine, slab::Shape{kept}, slab::Split::none, r.s),
                           output->file, output->object + "_S");
      slab::io::write_hdf5(
          slab::Array<double>::from_local_blocks(engine, slab::Shape{kept, cols}, slab::Split::none, r.vt),
          output->file, output->object + "_VT");
    }
    // A's first rows for the residual check: from the file, or from the generator.
    const std::int64_t head_rows = std::min<std::int64_t>(1000, rows);
    const std::vector<double> a_head = input ? slab::head(a, head_rows).gather_all() : std::vector<double>{};

    // Checks (WORKLOADS.md): s1..s5, sum_s, resid_rows0_1000, orth_V.
    const std::size_t kk = r.s.size(), n = std::size_t(cols);
    const std::int64_t check_rows = std::min<std::int64_t>(1000, rows);
    std::vector<slab::Chunk> head;
    std::vector<slab::ChunkExtent> extents;
    for (std::size_t i = 0; i < r.u.num_local_chunks(); ++i)
      if (r.u.local_extent(i).row0 < check_rows) {
        head.push_back(r.u.local_chunk(i));
        extents.push_back(r.u.local_extent(i));
      }
    double sums[2] = {0, 0};  // ||A - U S VT||^2, ||A||^2 over rows [0, check_rows)
    for (std::size_t c = 0; c < head.size(); ++c) {
      const auto& e = extents[c];
      slab::Pin pin = head[c].buffer()->pin();
      std::vector<double> u(std::size_t(e.rows) * kk);
      slab::copy(u.data(), pin.data(), u.size() * sizeof(double), ctx.engine().execution());
      for (std::int64_t i = 0; i < std::min(e.rows, check_rows - e.row0); ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          double v = 0;
          for (std::size_t t = 0; t < kk; ++t) v += u[std::size_t(i) * kk + t] * r.s[t] * r.vt[t * n + j];
          const double aij = input ? a_head[std::size_t((e.row0 + i) * cols) + j]
                                   : slab::counter_uniform(stream_a, std::uint64_t((e.row0 + i) * cols) + j);
          sums[0] += (aij - v) * (aij - v);
          sums[1] += aij * aij;
        }
      }
    }
    comm.allreduce(std::span<double>(sums, 2), slab::ReduceOp::sum);
    double orth = 0;
    for (std::size_t i = 0; i < kk; ++i)
      for (std::size_t j = 0; j < kk; ++j) {
        double g = 0;
        for (std::size_t t = 0; t < n; ++t) g += r.vt[i * n + t] * r.vt[j * n + t];
        orth = std::max(orth, std::abs(g - (i == j ? 1.0 : 0.0)));
      }
    double sum_s = 0;
    for (double s : r.s) sum_s += s;
    for (std::size_t i = 0; i < std::min<std::size_t>(5, kk); ++i) ctx.check("s" + std::to_string(i + 1), r.s[i]);
    ctx.check("sum_s", sum_s);
    ctx.check("resid_rows0_1000", std::sqrt(sums[0] / sums[1]));
    ctx.check("orth_V", orth);
    ctx.check("explicit_q", r.explicit_q);
    const double ideal = 4.0 * double(rows) * double(cols) * double(cols) / rate;
    ctx.check("dgemm_gflops", rate / 1e9);
    ctx.check("ideal_seconds", ideal);
    ctx.check("ratio_to_ideal", ctx.job_seconds() / ideal);
    const auto mem = ctx.memory().stats();
    ctx.check("device_high_water",
              static_cast<std::int64_t>(comm.allreduce(mem.device.high_water, slab::ReduceOp::max)));

    std::ostringstream out;
    out << "SVD of " << rows << " x " << cols << (randomized ? " (randomized)" : " (TSQR)") << " on " << comm.size()
        << " ranks: " << ctx.job_seconds() << " s (ideal 4mn^2/dgemm " << ideal << " s at " << rate / 1e9
        << " GFLOP/s)\n  s1.." << std::min<std::size_t>(5, kk) << ":";
    for (std::size_t i = 0; i < std::min<std::size_t>(5, kk); ++i) out << " " << r.s[i];
    out << "\n  sum_s " << sum_s << ", resid_rows0_1000 " << std::sqrt(sums[0] / sums[1]) << ", orth_V " << orth
        << (r.explicit_q ? ", U from explicit Q" : ", U = A V S^-1") << "\n";
    ctx.print(out.str());
  });
}
