// slab-rolling: rolling-window statistics of a time series (W5 of shared/WORKLOADS.md): pandas
// `df.v.rolling(1000).mean()` or `df.rolling('1h', on='t').v.mean()`, rows distributed over the ranks, each
// rank exchanging only the halo its first rows need.
//
//   mpirun -n 2 slab-rolling --generate --rows 20000000 --window 1000 --json
//   mpirun -n 2 slab-rolling --generate --window 1h --op mean
//   mpirun -n 4 slab-rolling --input series.h5:/frame --value v --on t --window 30min
#include <slab/app/app.hpp>
#include <slab/core/counter_rng.hpp>
#include <slab/frame/rolling.hpp>
#include <slab/io/frame_io.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace sf = slab::frame;

namespace {

// W5: v[r] = U(10, r); t[r] = 2000-01-01T00:00:00 + r seconds (as ns since the epoch).
constexpr std::int64_t kEpoch2000 = 946684800LL * 1000000000LL;

sf::Frame generate(slab::TaskQueue& queue, const slab::Comm& comm, std::int64_t rows, std::int64_t per_part) {
  const std::int64_t p = comm.size(), r = comm.rank();
  const std::int64_t begin = rows * r / p, end = rows * (r + 1) / p;
  sf::Schema schema({{"t", sf::DType::timestamp}, {"v", sf::DType::float64}});
  const std::vector<sf::DType> types = sf::types_of(schema);
  std::vector<slab::Chunk> parts;
  std::vector<std::optional<std::int64_t>> known;
  for (std::int64_t b = begin; b < end; b += per_part) {
    const std::int64_t e = std::min(end, b + per_part);
    parts.push_back(queue.submit("generate", {}, [types, b, e](slab::TaskContext& ctx) {
      sf::BatchBuilder out(ctx, e - b, types, {});
      auto t = out.column<std::int64_t>(0);
      auto v = out.column<double>(1);
      for (std::int64_t i = b; i < e; ++i) {
        t[i - b] = kEpoch2000 + i * 1000000000LL;
        v[i - b] = slab::counter_uniform(10, static_cast<std::uint64_t>(i));
      }
    }));
    known.emplace_back(e - b);
  }
  return sf::Frame(queue, schema, std::move(parts), std::move(known));
}

}  // namespace

int main(int argc, char** argv) {
  slab::App app("slab-rolling", "Rolling-window mean (sum, min, max, std, count) of a time series (W5).");
  bool gen = false;
  std::int64_t rows = 20'000'000;
  std::int64_t per_part = 1'000'000;
  std::string window_text = "1000";
  std::string op_text = "mean";
  std::string value = "v", on = "t";
  std::optional<slab::DatasetPath> input;
  app.cli().add_flag("--generate", gen, "generate the W5 series (v = U(10, r), t = 2000-01-01 + r s)");
  app.cli()
      .add_option("--rows", rows, "rows to generate")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  app.cli()
      .add_option("--partition-rows", per_part, "rows per generated partition")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.cli()
      .add_option("--window", window_text, "a row count (1000) or a time span (1h, 30min, 15s)")
      ->capture_default_str();
  app.cli().add_option("--op", op_text, "mean, sum, min, max, std or count")->capture_default_str();
  app.cli().add_option("--value", value, "the value column (with --input)")->capture_default_str();
  app.cli()
      .add_option("--on", on, "the sorted timestamp column of a time window (with --input)")
      ->capture_default_str();
  app.add_input(input, "read the frame from FILE.h5:/group (layout of WORKLOADS.md) instead of --generate");

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    const sf::RollingWindow window = sf::RollingWindow::parse(window_text);
    const sf::RollingOp op = sf::parse_rolling_op(op_text);
    SLAB_EXPECTS(gen != input.has_value(), slab::InvalidArgument, "give exactly one of --generate and --input");
    slab::Comm& comm = ctx.comm();
    sf::Frame frame = gen ? generate(ctx.tasks(), comm, rows, per_part)
                          : sf::read_hdf5(ctx.tasks(), input->file, input->object, per_part);
    if (gen) value = "v", on = "t";
    frame.persist();  // input generation / reading is not part of the timed job
    const std::int64_t n = frame.len();

    ctx.job_begin();
    sf::Frame result = sf::rolling(frame, value, window, {op}, window.is_time() ? on : std::string());
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
    ctx.job_end();

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
