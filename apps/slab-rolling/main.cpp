// slab-rolling: rolling-window statistics of a time series (W5 of docs/WORKLOADS.md): pandas
// `df.v.rolling(1000).mean()` or `df.rolling('1h', on='t').v.mean()`, rows distributed over the ranks, each
// rank exchanging only the halo its first rows need.
//
//   mpirun -n 2 slab-rolling --generate --rows 20000000 --window 1000 --json
//   mpirun -n 2 slab-rolling --generate --window 1h --op mean
//   mpirun -n 4 slab-rolling --input series.h5:/frame --value v --on t --window 30min
//   mpirun -n 2 slab-rolling --generate-file w5.h5 --rows 20000000      # W5 as an HDF5 frame (group /frame)
//   mpirun -n 2 slab-rolling --input w5.csv --window 1h                  # columns t (ISO timestamps), v
#include <slab/app/app.hpp>
#include <slab/app/frame_input.hpp>
#include <slab/frame/datasets.hpp>
#include <slab/frame/rolling.hpp>
#include <workloads/workloads.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace sf = slab::frame;

int main(int argc, char** argv) {
  slab::App app("slab-rolling", "Rolling-window mean (sum, min, max, std, count) of a time series (W5).");
  bool gen = false;
  std::int64_t rows = 20'000'000;
  std::int64_t per_part = 0;  // 0: up to 1,000,000, fitting the memory limit (slab::partition_rows_for)
  std::string window_text = "1000";
  std::string op_text = "mean";
  std::string value = "v", on = "t";
  std::optional<slab::FrameFile> input, generate_file;
  app.cli().add_flag("--generate", gen, "generate the W5 series (v = U(10, r), t = 2000-01-01 + r s)");
  app.cli()
      .add_option("--rows", rows, "rows to generate")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  app.cli()
      .add_option("--partition-rows", per_part, "rows per partition (default: up to 1,000,000, fitting --memory-limit)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.cli()
      .add_option("--window", window_text, "a row count (1000) or a time span (1h, 30min, 15s)")
      ->capture_default_str();
  app.cli().add_option("--op", op_text, "mean, sum, min, max, std or count")->capture_default_str();
  app.cli().add_option("--value", value, "the value column (with --input)")->capture_default_str();
  app.cli()
      .add_option("--on", on, "the sorted timestamp column of a time window (with --input)")
      ->capture_default_str();
  slab::add_frame_file(app, "--input", input, "read the series (the --value column, float64; --on, timestamp)");
  slab::add_frame_file(app, "--generate-file", generate_file,
                       "write the W5 series of --rows rows as an HDF5 frame (then run only with --generate)");
  app.validate([&] {
    (void)sf::RollingWindow::parse(window_text);
    (void)sf::parse_rolling_op(op_text);
    SLAB_EXPECTS(!(gen && input), slab::InvalidArgument, "slab-rolling: give --generate or --input, not both");
    SLAB_EXPECTS(gen || input || generate_file, slab::InvalidArgument,
                 "slab-rolling: give --generate, --input FILE or --generate-file FILE.h5");
    SLAB_EXPECTS(!generate_file || !generate_file->is_csv(), slab::InvalidArgument,
                 "--generate-file: writes an HDF5 frame (FILE.h5 or FILE.h5:/group), not CSV");
  });

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    const sf::RollingWindow window = sf::RollingWindow::parse(window_text);
    const sf::RollingOp op = sf::parse_rolling_op(op_text);
    per_part = slab::partition_rows_for(ctx.engine(), /*row_bytes: t, v=*/16, per_part);
    slab::Comm& comm = ctx.comm();
    sf::Frame frame;
    if (gen || generate_file) {
      frame = slab::workloads::w5(ctx.engine(), rows, per_part);
      value = "v", on = "t";
    }
    if (generate_file) {
      slab::write_frame(ctx, frame, *generate_file, "the W5 series");
      if (!gen) {
        ctx.check("generated_rows", rows);
        return;
      }
    }
    if (input) {
      frame = slab::read_frame(ctx.engine(), *input, per_part);
      std::vector<slab::NeededColumn> needed{{value, {slab::ElementType::float64}}};
      if (window.is_time()) needed.push_back({on, {slab::ElementType::timestamp}});
      slab::require_columns(frame, *input, "slab-rolling", needed);
    }
    frame.persist();  // input generation / reading is not part of the timed job
    const std::int64_t n = frame.len();

    ctx.job_begin();
    ctx.show_task_progress("rolling");
    sf::Frame result = sf::rolling(frame, value, window, {op}, window.is_time() ? on : std::string());
    result.persist();
    ctx.show_task_progress("");
    // The timed job is the rolling computation, as the peers time s.rolling(...).mean(); the checks below
    // read the persisted result afterwards.
    ctx.job_end();
    const std::vector<double> r = sf::local_values(result, value + "_" + std::string(sf::to_string(op)));
    const std::int64_t offset = result.global_offset();
    // Checks: non-NaN count, Kahan sum of the non-NaN values, values at rows 999, 3600 and the last row.
    double sum = 0, comp = 0;
    std::int64_t valid = 0;
    for (double x : r)
      if (x == x) {
        ++valid;
        const double y = x - comp, t = sum + y;
        comp = (t - sum) - y;
        sum = t;
      }
    auto at = [&](std::int64_t row) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      double mine = 0, owned = 0;
      if (row >= offset && row < offset + static_cast<std::int64_t>(r.size()))
        mine = r[static_cast<std::size_t>(row - offset)], owned = 1;
      if (owned && mine != mine) mine = 0, owned = 2;  // NaN travels as a flag
      double buf[2] = {mine, owned};
      comm.allreduce(std::span<double>(buf, 2), slab::ReduceOp::sum);
      return buf[1] == 2 ? nan : (buf[1] == 1 ? buf[0] : nan);
    };
    const std::int64_t n_valid = comm.allreduce(valid, slab::ReduceOp::sum);
    std::vector<double> sums(comm.size());
    comm.allgather(std::span<const double>(&sum, 1), std::span<double>(sums));
    double nansum = 0;
    for (double s : sums) nansum += s;
    const double r999 = at(999), r3600 = at(3600), last = at(n - 1);

    ctx.check("rows", n);
    ctx.check("n_valid", n_valid);
    ctx.check("nansum", nansum);
    ctx.check("r999", r999);
    ctx.check("r3600", r3600);
    ctx.check("last", last);
    std::ostringstream out;
    out.precision(17);
    out << "slab-rolling: " << value << "." << window.str() << "." << sf::to_string(op) << "() over " << n
        << " rows on " << comm.size() << " rank" << (comm.size() == 1 ? "" : "s") << " in " << ctx.job_seconds()
        << " s\n"
        << "  n_valid " << n_valid << "\n  nansum  " << nansum << "\n  r999    " << r999 << "\n  r3600   " << r3600
        << "\n  last    " << last << "\n";
    ctx.print(out.str());
  });
}
