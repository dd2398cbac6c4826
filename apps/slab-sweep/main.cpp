// slab-sweep: a hyperparameter sweep done SPMD (W7 of WORKLOADS.md, seed 003's joblib use case): ridge
// regression with k-fold cross-validation over a grid of alphas, each grid point taken by whichever rank is
// free (a shared one-sided counter, no scheduler), the results gathered into one CSV in grid order.
//
//   mpirun -n 2 slab-sweep --generate --json                               # W7: 20,000 x 75, 64 alphas, 5 folds
//   mpirun -n 4 slab-sweep --generate --grid grid.csv --output results.csv # columns alpha[, folds]
//
// X[i, j] = 2 U(12, i*cols + j) - 1, w_true[j] = 2 U(13, j) - 1, y[i] = X[i, :] w_true + 0.1 (2 U(14, i) - 1).
// Each rank generates only its block of rows; the folds' QR factors are reduced over the ranks once (TSQR,
// slab::linalg::RidgeCv), after which every grid point is a small problem any rank solves alone.
#include <slab/app/app.hpp>
#include <slab/app/sweep.hpp>
#include <slab/core/counter_rng.hpp>
#include <slab/linalg/ridge.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// This rank's rows [row0, row0 + x.size() / cols) of W7's X and y.
struct Block {
  std::size_t row0 = 0, rows = 0;
  std::vector<double> x, y;
};

/// Rows [row0, row0 + count) of W7's X and y (cols columns).
Block generate_w7(std::size_t row0, std::size_t count, std::size_t cols) {
  Block b;
  b.row0 = row0;
  b.rows = count;
  std::vector<double> w(cols);
  for (std::size_t j = 0; j < cols; ++j) w[j] = 2.0 * slab::counter_uniform(13, j) - 1.0;
  b.x.resize(b.rows * cols);
  b.y.resize(b.rows);
  for (std::size_t i = 0; i < b.rows; ++i) {
    const std::size_t gi = b.row0 + i;
    double dot = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      const double v = 2.0 * slab::counter_uniform(12, gi * cols + j) - 1.0;
      b.x[i * cols + j] = v;
      dot += v * w[j];
    }
    b.y[i] = dot + 0.1 * (2.0 * slab::counter_uniform(14, gi) - 1.0);
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  slab::App app("slab-sweep",
                "Ridge regression with k-fold cross-validation over a grid of alphas (W7), dynamically balanced "
                "over the ranks; results in grid order.");
  bool generate = false, refit = false;
  std::size_t rows = 20000, cols = 75, tasks = 64, folds = 5, batch = 1;
  double log_alpha_min = -3, log_alpha_max = 3;
  std::string grid_path, output;
  app.cli().add_flag("--generate", generate, "generate W7's X and y (WORKLOADS.md) from the counter-based hash");
  app.cli().add_option("--rows", rows, "rows of X")->capture_default_str()->check(CLI::PositiveNumber);
  app.cli().add_option("--cols", cols, "columns of X (features)")->capture_default_str()->check(CLI::PositiveNumber);
  app.cli()
      .add_option("--tasks", tasks, "grid points without --grid: alpha_k = 10^(min + (max - min) k / (tasks - 1))")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.cli().add_option("--log-alpha-min", log_alpha_min, "log10 of the first alpha")->capture_default_str();
  app.cli().add_option("--log-alpha-max", log_alpha_max, "log10 of the last alpha")->capture_default_str();
  app.cli()
      .add_option("--folds", folds, "cross-validation folds (contiguous) where the grid has no 'folds' column")
      ->capture_default_str()
      ->check(CLI::Range(2, 1 << 20));
  app.cli().add_option("--grid", grid_path,
                       "grid CSV: a header with 'alpha' (and optionally 'folds'), one row per point");
  app.cli().add_option("--output", output, "write the results (grid columns, err, rank, seconds) to this CSV");
  app.cli().add_flag("--refit", refit,
                     "refit every point from the raw rows (every rank holds all of X), as a joblib task does; "
                     "default: the folds' QR factors are reduced once and shared by all points");
  app.cli().add_option("--batch", batch, "grid points taken per visit to the shared counter")->capture_default_str();

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    const slab::Comm& comm = ctx.comm();
    // Checks every rank makes alike are still agreed, so that the job ends cleanly with one message per rank.
    comm.run_collectively([&] {
      SLAB_EXPECTS(generate, slab::InvalidArgument, "slab-sweep: give --generate (W7's data; the only input for now)");
    });
    if (!output.empty()) slab::SweepTable::check_writable(comm, output);

    slab::Grid grid;
    if (!grid_path.empty()) {
      grid = slab::Grid::read_csv(comm, grid_path);
      comm.run_collectively([&] { (void)grid.column("alpha"); });  // names the columns there are
    } else {
      grid = slab::Grid({"alpha", "folds"});
      for (std::size_t k = 0; k < tasks; ++k) {
        const double t = tasks == 1 ? 0.0 : double(k) / double(tasks - 1);
        grid.add({std::pow(10.0, log_alpha_min + (log_alpha_max - log_alpha_min) * t), double(folds)});
      }
    }
    const auto has_folds = [&] {
      for (const auto& n : grid.names())
        if (n == "folds") return true;
      return false;
    }();

    // Each rank generates its block of rows (all rows with --refit, where any rank may refit any point).
    const auto rank = std::size_t(comm.rank()), size = std::size_t(comm.size());
    const Block data = refit ? generate_w7(0, rows, cols)
                             : generate_w7(rows * rank / size, rows * (rank + 1) / size - rows * rank / size, cols);

    // One factorisation per distinct fold count (collective), before the sweep (whose points must not be).
    std::map<std::size_t, std::unique_ptr<slab::linalg::RidgeCv>> models;
    comm.run_collectively([&] {
      for (std::size_t i = 0; i < grid.size(); ++i) {
        const double f = has_folds ? grid.point(i)[grid.column("folds")] : double(folds);
        SLAB_EXPECTS(f >= 2 && f == std::floor(f) && f <= double(rows), slab::InvalidArgument,
                     "slab-sweep: point " + std::to_string(i) + " (" + grid.describe(i) +
                         "): folds must be an integer in [2, rows]");
        models.emplace(std::size_t(f), nullptr);
      }
    });
    ctx.job_begin();
    for (auto& [f, model] : models)
      if (!refit)
        model = std::make_unique<slab::linalg::RidgeCv>(comm, data.x.data(), data.y.data(), data.rows, data.row0, rows,
                                                        cols, f);
    // One grid point: runs on whichever rank takes it, so no collectives in here.
    const slab::SweepFunction ridge_cv = [&](const slab::SweepPoint& p) {
      const std::size_t f = has_folds ? std::size_t(p["folds"]) : folds;
      const double err =
          refit ? slab::linalg::ridge_cv_error_refit(data.x.data(), data.y.data(), rows, cols, f, p["alpha"])
                : models.at(f)->cv_error(p["alpha"]);
      return slab::SweepValues{{"err", err}};
    };
    const slab::SweepTable table = slab::sweep(comm, grid, ridge_cv, {batch, "ridge_cv"});
    ctx.job_end();
    if (!output.empty()) table.write_csv(comm, output);

    const std::vector<double> err = table.column("err");
    double sum_err = 0;
    for (double e : err) sum_err += e;
    const std::size_t best = table.argmin("err");
    ctx.check("sum_err", sum_err);
    ctx.check("argmin", static_cast<std::int64_t>(best));
    ctx.check("err0", err.front());
    ctx.check("err" + std::to_string(err.size() - 1), err.back());
    ctx.check("points", static_cast<std::int64_t>(err.size()));

    std::ostringstream out;
    out << "ridge CV" << (refit ? " (refit per point)" : "") << " over " << err.size() << " grid points, X " << rows
        << " x " << cols << ", " << comm.size() << " ranks: " << ctx.job_seconds() << " s\n  best: point " << best
        << " (" << grid.describe(best) << "), err " << err[best] << "\n  sum_err " << sum_err << ", err0 "
        << err.front() << ", err" << err.size() - 1 << " " << err.back() << "\n";
    std::vector<std::size_t> per_rank(std::size_t(comm.size()), 0);
    for (double r : table.column("rank")) ++per_rank[std::size_t(r)];
    out << "  points per rank:";
    for (auto c : per_rank) out << " " << c;
    out << (output.empty() ? "" : "\n  results: " + output) << "\n";
    ctx.print(out.str());
  });
}
