// slab-tour: the Dask + GPUs tour of seed 000 and the out-of-core X X^T of seed 001, end to end, SPMD:
//
//   mpirun -n 2 slab-tour                  # 100,000 x 1,000 SVD, 2.6M-row timeseries, 2,000 x 30,000 X X^T
//   mpirun -n 2 slab-tour --size tiny --json
//   srun -n 16 slab-tour --workdir $PSCRATCH/tour --memory-limit 4GiB
//
// Each step prints its result the way the talk's notebook shows it, and at the end where the time went: per
// step, the seconds and how they split into compute, communication, I/O, spilling and other (time no traced
// event covers), read from this run's own trace. The device tier is 256 MiB per rank unless --memory-limit (or
// SLAB_MEMORY_LIMIT) says otherwise, so the 800 MB array spills to the host tier and X X^T streams in blocks.
#include <slab/app/app.hpp>
#include <slab/array/array.hpp>
#include <slab/array/creation.hpp>
#include <slab/array/elementwise.hpp>
#include <slab/array/reduction.hpp>
#include <slab/array/slicing.hpp>
#include <slab/core/counter_rng.hpp>
#include <slab/core/units.hpp>
#include <slab/frame/datasets.hpp>
#include <slab/frame/expr.hpp>
#include <slab/frame/groupby.hpp>
#include <slab/frame/merge.hpp>
#include <slab/frame/ops.hpp>
#include <slab/frame/print.hpp>
#include <slab/frame/rolling.hpp>
#include <slab/frame/series.hpp>
#include <slab/io/hdf5.hpp>
#include <slab/linalg/gram.hpp>
#include <slab/linalg/linalg.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "time_breakdown.hpp"

namespace fr = slab::frame;
namespace la = slab::linalg;

namespace {

// The sizes of one tour. default: the talk's sizes (seed 000) and a seed-001-shaped X X^T that runs in seconds.
struct Sizes {
  std::int64_t rows = 100'000, cols = 1'000, chunk_rows = 0;  // the random array and its SVD
  std::string ts_start = "2000-01-01", ts_end = "2000-01-31", ts_freq = "1s", ts_partition = "1D";
  std::string window = "1h";                                                // the rolling window (time)
  std::uint64_t gram_rows = 2'000, gram_cols = 30'000, gram_chunk = 2'500;  // X (n x m) in HDF5, chunk width
};

Sizes preset(const std::string& size) {
  Sizes s;
  if (size == "tiny") {  // for CI: every step, every rank count, a second or two
    s.rows = 6'001, s.cols = 8, s.chunk_rows = 250;
    s.ts_end = "2000-01-02", s.ts_freq = "60s", s.ts_partition = "6h";
    s.gram_rows = 40, s.gram_cols = 3'000, s.gram_chunk = 500;
  }
  return s;
}

// One step of the tour: a barrier, then [start, end) on this rank's trace clock.
struct Step {
  std::string name;
  double start = 0, end = 0;
  std::uint64_t tasks = 0;  // tasks this rank ran in the step
};

class Steps {
 public:
  explicit Steps(slab::AppContext& ctx) : ctx_(ctx) {}
  void begin(std::string name) {
    ctx_.comm().barrier();  // steps start together: waiting for a slower rank shows as communication
    steps_.push_back({std::move(name), ctx_.tracer().now(), 0, ctx_.tasks().stats().executed});
  }
  void end() {
    Step& s = steps_.back();
    s.end = ctx_.tracer().now();
    s.tasks = ctx_.tasks().stats().executed - s.tasks;
    ctx_.tracer().record("step: " + s.name, slab::TraceKind::other, s.start, s.end - s.start);
  }
  [[nodiscard]] const std::vector<Step>& list() const { return steps_; }

 private:
  slab::AppContext& ctx_;
  std::vector<Step> steps_;
};

// A library call recorded as one event of its kind (see time_breakdown.hpp); returns what the call returns.
template <class F>
auto call(slab::AppContext& ctx, const char* name, slab::TraceKind kind, F&& f) {
  slab::Tracer::Scope scope(ctx.tracer(), std::string("call: ") + name, kind);
  return f();
}

// The notebook's "In [k]:" line, and its "Out[k]:" text (rank 0).
void cell(slab::AppContext& ctx, int k, const std::string& code, const std::string& out) {
  std::ostringstream s;
  s << "\nIn [" << k << "]: " << code << "\n";
  if (!out.empty()) s << "Out[" << k << "]: " << out << (out.back() == '\n' ? "" : "\n");
  ctx.print(s.str());
}

std::string fmt(double v, int precision = 6) {
  std::ostringstream s;
  s << std::setprecision(precision) << v;
  return s.str();
}

// A row-major matrix printed like a NumPy/CuPy array.
std::string array_text(const std::vector<double>& v, std::size_t rows, std::size_t cols) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(8) << "array([";
  for (std::size_t i = 0; i < rows; ++i) {
    s << (i ? ",\n       [" : "[");
    for (std::size_t j = 0; j < cols; ++j) s << (j ? ", " : "") << std::setw(11) << v[i * cols + j];
    s << "]";
  }
  s << "])";
  return s.str();
}

// The array's repr, like dask.array's: what it is and how it is cut, before anything runs.
std::string array_repr(const slab::Array<double>& a, int ranks, const char* what) {
  std::int64_t chunks = 0;
  for (int r = 0; r < ranks; ++r) chunks += a.layout().num_chunks(r);
  std::ostringstream s;
  s << "slab.Array<" << what << ", shape=(" << a.rows() << ", " << a.cols() << "), dtype=float64, split=rows, "
    << "chunksize=(" << std::min(a.layout().chunk, a.rows()) << ", " << a.cols() << "), chunks=" << chunks << " on "
    << ranks << " rank" << (ranks == 1 ? "" : "s") << ", nbytes=" << slab::format_bytes(std::uint64_t(a.size()) * 8)
    << ">";
  return s.str();
}

// The HDF5 file of the X X^T step: in --workdir, or in a private new directory under $TMPDIR (removed at the
// end). Rank 0 makes the directory, checks that it can write there (before the tour, not after its first
// minute), and broadcasts the name. Collective.
class WorkFile {
 public:
  WorkFile(const slab::Comm& comm, const std::string& workdir, bool keep) : keep_(keep) {
    std::string dir = workdir;
    comm.run_collectively([&] {
      if (comm.rank() != 0) return;
      if (dir.empty()) {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/slab-tour-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr)
          throw slab::IoError("slab-tour: cannot make a directory " + pattern + ": " + std::strerror(errno), __FILE__,
                              __LINE__);
        dir = pattern;
        made_dir_ = true;
      } else if (!std::filesystem::is_directory(dir)) {
        throw slab::InvalidArgument("slab-tour: --workdir '" + dir + "' is not a directory", __FILE__, __LINE__);
      }
      const std::string probe = dir + "/slab-tour.h5";
      std::filesystem::remove(probe);  // a previous tour's file: X and Y are written anew
      if (!std::ofstream(probe))
        throw slab::IoError("slab-tour: cannot write " + probe + ": " + std::strerror(errno), __FILE__, __LINE__);
      std::filesystem::remove(probe);
    });
    std::int64_t length = comm.rank() == 0 ? std::int64_t(dir.size()) : 0;
    comm.bcast(std::span<std::int64_t>(&length, 1), 0);
    dir.resize(std::size_t(length));
    comm.bcast(std::span<char>(dir.data(), dir.size()), 0);
    dir_ = dir;
    path_ = dir + "/slab-tour.h5";
    owner_ = comm.rank() == 0;
  }
  ~WorkFile() { remove(); }
  /// Remove the file (and the directory made for it) unless --keep-file. Rank 0; not collective.
  void remove() noexcept {
    if (!owner_ || keep_) return;
    std::error_code ec;
    std::filesystem::remove(path_, ec);
    if (made_dir_) std::filesystem::remove(dir_, ec);
    owner_ = false;
  }
  WorkFile(const WorkFile&) = delete;
  WorkFile& operator=(const WorkFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
  bool keep_ = false, made_dir_ = false, owner_ = false;
};

// Where the time went: each step's window (and the whole tour's) on every rank, split by kind, the mean over
// ranks; printed as a table and reported as checks. Collective.
void where_the_time_went(slab::AppContext& ctx, const std::vector<Step>& steps, double tour_start, double tour_end) {
  constexpr int nk = 6, width = nk + 3;        // per row: seconds per kind, other without the app's calls, wall, tasks
  const std::size_t nrows = steps.size() + 1;  // the steps, then the whole tour
  std::vector<double> table(nrows * width);
  std::uint64_t tasks = 0;
  for (std::size_t i = 0; i < nrows; ++i) {
    const double t0 = i < steps.size() ? steps[i].start : tour_start, t1 = i < steps.size() ? steps[i].end : tour_end;
    const tour::KindSeconds k = tour::attribute_time(ctx.tracer().events(), t0, t1);
    const tour::KindSeconds strict = tour::attribute_time(ctx.tracer().events(), t0, t1, false);
    for (int j = 0; j < nk; ++j) table[i * width + std::size_t(j)] = k[std::size_t(j)];
    table[i * width + nk] = strict[std::size_t(slab::TraceKind::other)];
    table[i * width + nk + 1] = t1 - t0;
    table[i * width + nk + 2] = double(i < steps.size() ? steps[i].tasks : tasks);
    if (i < steps.size()) tasks += steps[i].tasks;
  }
  const slab::Comm& comm = ctx.comm();
  comm.allreduce(std::span<double>(table), slab::ReduceOp::sum);
  const int ranks = comm.size();
  auto at = [&](std::size_t row, int j) { return table[row * width + std::size_t(j)] / (j == nk + 2 ? 1 : ranks); };
  using K = slab::TraceKind;
  const int order[nk] = {int(K::compute), int(K::generate), int(K::comm), int(K::io), int(K::spill), int(K::other)};
  const char* names[nk] = {"compute", "generate", "comm", "io", "spill", "other"};
  std::ostringstream t;
  t << "\nWhere the time went (seconds, the mean over ranks, from this run's trace)\n"
    << std::left << std::setw(14) << "step" << std::right << std::setw(9) << "seconds";
  for (const char* n : names) t << std::setw(9) << n;
  t << std::setw(9) << "tasks\n" << std::fixed << std::setprecision(3);
  auto row = [&](const std::string& name, const std::vector<double>& v, double tasks) {
    t << std::left << std::setw(14) << name << std::right;
    for (double x : v) t << std::setw(9) << x;
    if (tasks >= 0) t << std::setw(9) << std::int64_t(tasks);
    t << "\n";
  };
  std::vector<double> between(nk + 1);
  for (std::size_t i = 0; i <= steps.size(); ++i) {
    std::vector<double> v{at(i, nk + 1)};
    for (int j : order) v.push_back(at(i, j));
    if (i < steps.size()) {
      for (int j = 0; j <= nk; ++j) between[std::size_t(j)] -= v[std::size_t(j)];
      row(steps[i].name, v, at(i, nk + 2));
    } else {
      for (int j = 0; j <= nk; ++j) between[std::size_t(j)] += v[std::size_t(j)];
      row("(between)", between, -1);  // checks and printing
      row("tour", v, at(i, nk + 2));
    }
  }
  const std::size_t last = steps.size();
  const double wall = at(last, nk + 1);
  const double other = wall > 0 ? at(last, int(K::other)) / wall : 0.0;
  const double strict = wall > 0 ? at(last, nk) / wall : 0.0;
  const slab::MemoryStats ms = ctx.memory().stats();
  const auto spilled = comm.allreduce(ms.spilled_to_host_bytes + ms.spilled_to_disk_bytes, slab::ReduceOp::sum);
  t << "\n"
    << std::setprecision(1) << 100.0 * strict
    << "% of the tour's time is outside compute, communication, I/O and spilling in slab's own trace events"
       " (target: at most 5%);\n"
    << 100.0 * other << "% with the tour's own \"call:\" annotations counted as their kind.\n"
    << "Spilled " << slab::format_bytes(spilled) << " in all. The timeline: --trace tour.json (ui.perfetto.dev).\n";
  ctx.print(t.str());
  for (int j = 0; j < nk; ++j) ctx.check(std::string("time_") + names[j], at(last, order[j]));
  ctx.check("other_fraction", other);
  ctx.check("other_fraction_library_events", strict);
  ctx.check("spilled", std::int64_t(spilled));
  for (std::size_t i = 0; i < steps.size(); ++i) ctx.check("seconds_" + steps[i].name, at(i, nk + 1));
}

// The tour's default device tier is small on purpose (spilling is part of the tour): set it unless the user did.
void default_memory_limit(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--memory-limit", 14) == 0) return;
  setenv("SLAB_MEMORY_LIMIT", "256MiB", 0);
}

}  // namespace

int main(int argc, char** argv) {
  default_memory_limit(argc, argv);
  slab::App app("slab-tour",
                "The Dask + GPUs tour (seed 000) and out-of-core X X^T (seed 001), SPMD: a random array and its SVD, "
                "a timeseries frame (len, head, groupby, rolling, merge), X X^T from HDF5 under a memory limit, and "
                "where the time went. The device tier defaults to 256MiB per rank here.");
  std::string size = "default", workdir;
  bool keep = false;
  Sizes sz;
  app.cli()
      .add_option("--size", size, "tiny (CI) or default (the talk's sizes; under a minute on 2 cores)")
      ->capture_default_str()
      ->check(CLI::IsMember({"tiny", "default"}));
  app.cli()
      .add_option("--workdir", workdir,
                  "directory for the X X^T step's slab-tour.h5 (shared by all ranks; default: a new "
                  "directory under $TMPDIR, removed at the end)")
      ->check(CLI::ExistingDirectory);
  app.cli().add_flag("--keep-file", keep, "keep slab-tour.h5 (X and Y) at the end");

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    sz = preset(size);
    slab::Comm& comm = ctx.comm();
    slab::Engine& engine = ctx.engine();
    const int ranks = comm.size();
    WorkFile file(comm, workdir, keep);
    Steps steps(ctx);
    ctx.job_begin();
    const double tour_start = ctx.tracer().now();
    {
      std::ostringstream s;
      s << "slab-tour on " << ranks << " rank" << (ranks == 1 ? "" : "s") << " (" << ctx.runtime().device().name
        << "), device tier " << slab::format_bytes(ctx.memory().config().device_limit) << " per rank\n";
      ctx.print(s.str());
    }

    // --- seed 000, arrays: x = da.random.random((100000, 1000)).persist(); u, s, v = da.linalg.svd(x)
    {
      steps.begin("random");
      auto x = slab::random_uniform(engine, {sz.rows, sz.cols}, slab::Split::rows, 1, 0.0, 1.0, sz.chunk_rows);
      x.persist();
      steps.end();
      cell(ctx, 1,
           "x = slab::random_uniform(engine, {" + std::to_string(sz.rows) + ", " + std::to_string(sz.cols) +
               "}, Split::rows, 1); x.persist()",
           array_repr(x, ranks, "random_uniform"));

      steps.begin("svd");
      la::SvdResult r = call(ctx, "svd", slab::TraceKind::compute, [&] {
        la::SvdResult out = la::svd(x);
        out.u.persist();
        return out;
      });
      const std::vector<double> u5 = slab::head(r.u, 5).gather_all();
      steps.end();
      const std::size_t k = r.s.size(), show = std::min<std::size_t>(5, k);
      std::vector<double> u55;
      for (std::size_t i = 0; i < std::min<std::size_t>(5, std::size_t(sz.rows)); ++i)
        for (std::size_t j = 0; j < show; ++j) u55.push_back(u5[i * k + j]);
      cell(ctx, 2, "auto [u, s, vt] = slab::linalg::svd(x); u.persist()",
           "s[:" + std::to_string(show) + "]\n" + array_text(r.s, 1, show) + "\nu[:5, :" + std::to_string(show) +
               "]\n" + array_text(u55, u55.size() / show, show));
      double s2 = 0;
      for (double v : r.s) s2 += v * v;
      ctx.check("svd_rows", sz.rows);
      ctx.check("svd_cols", sz.cols);
      ctx.check("s1", r.s.at(0));
      ctx.check("s2", k > 1 ? r.s[1] : 0.0);
      ctx.check("sum_s2", s2);
    }  // x and u are released here: their chunks leave the memory tiers

    // --- seed 000, dataframes: ddf = dask.datasets.timeseries(); len, head, groupby, rolling, merge
    {
      steps.begin("timeseries");
      fr::Frame df = fr::timeseries(engine, sz.ts_start, sz.ts_end, sz.ts_freq, 0, sz.ts_partition);
      df.persist();
      const std::int64_t n = df.len();
      steps.end();
      cell(ctx, 3,
           "df = slab::frame::timeseries(engine, \"" + sz.ts_start + "\", \"" + sz.ts_end + "\", \"" + sz.ts_freq +
               "\"); df.persist(); df.len()",
           std::to_string(n));
      ctx.check("ts_len", n);

      steps.begin("head");
      const fr::LocalTable h = df.head(5);
      steps.end();
      cell(ctx, 4, "df.head()", comm.rank() == 0 ? fr::to_string(h) : "");

      steps.begin("groupby");
      fr::Frame g = call(ctx, "groupby", slab::TraceKind::compute, [&] {
        return df.groupby({"id", "name"}).agg({{"x", {"mean", "sum", "count", "std"}}, {"y", {"min", "max"}}});
      });
      const fr::LocalTable gh = g.head(5);
      steps.end();
      cell(ctx, 5, "df.groupby({\"id\", \"name\"}).agg({{\"x\", {mean, sum, count, std}}, {\"y\", {min, max}}}).head()",
           comm.rank() == 0 ? fr::to_string(gh) : "");
      {
        slab::Tracer::Scope checks(ctx.tracer(), "checks: groupby", slab::TraceKind::compute);
        ctx.check("ngroups", g.len());
        ctx.check("group_count_sum", std::int64_t(std::llround(g["x_count"].sum())));
        ctx.check("group_x_sum", g["x_sum"].sum());
        ctx.check("group_x_mean_sum", g["x_mean"].sum());
        ctx.check("group_y_max_sum", g["y_max"].sum());
      }

      steps.begin("rolling");
      fr::Frame roll = call(ctx, "rolling", slab::TraceKind::compute, [&] {
        fr::Frame out = df.rolling(sz.window, "timestamp")["x"].mean().to_frame();
        out.persist();
        return out;
      });
      const fr::LocalTable rh = roll.head(5);
      steps.end();
      cell(ctx, 6, "df.rolling(\"" + sz.window + "\", on=\"timestamp\").x.mean().head()",
           comm.rank() == 0 ? fr::to_string(rh) : "");
      {
        slab::Tracer::Scope checks(ctx.tracer(), "checks: rolling", slab::TraceKind::compute);
        ctx.check("rolling_sum", roll["x_mean"].sum());
        ctx.check("rolling_valid", roll["x_mean"].count());
      }

      steps.begin("merge");
      // A small dimension table: the even ids (950, 952, ..., 1050) with a weight w = (id - 950) / 100.
      fr::LocalTable ids;
      std::vector<std::int64_t> id;
      std::vector<double> w;
      for (std::int64_t v = 950; v <= 1050; v += 2) id.push_back(v), w.push_back(double(v - 950) / 100.0);
      ids.add(fr::LocalColumn::int64("id", id)).add(fr::LocalColumn::float64("w", w));
      fr::Frame weights = fr::Frame::from_replicated_table(engine, ids);  // built alike on every rank, held once
      fr::Frame joined = call(ctx, "merge", slab::TraceKind::compute, [&] {
        fr::Frame out = df.merge(weights, {.on = {"id"}});
        out.persist();
        return out;
      });
      const std::int64_t joined_rows = joined.len();
      const fr::LocalTable jh = joined.head(5);
      steps.end();
      cell(ctx, 7, "df.merge(weights, on=\"id\")  # weights: the even ids with w = (id - 950) / 100",
           std::to_string(joined_rows) + " rows\n" + (comm.rank() == 0 ? fr::to_string(jh) : ""));
      {
        slab::Tracer::Scope checks(ctx.tracer(), "checks: merge", slab::TraceKind::compute);
        ctx.check("merge_nrows", joined_rows);
        ctx.check("merge_xw_sum", joined.assign("xw", fr::col("x") * fr::col("w"))["xw"].sum());
      }
    }  // the frames are released here

    // --- seed 001: Y = X X^T out of core, X in HDF5, Y written into the same file
    {
      const std::uint64_t n = sz.gram_rows, m = sz.gram_cols, cw = std::min(sz.gram_chunk, m);
      steps.begin("write_X");
      call(ctx, "write X", slab::TraceKind::io, [&] {
        slab::io::write_generated(
            comm, file.path(), "/X", slab::ElementType::float64, {n, m}, {n, cw}, n, cw,
            [&](std::uint64_t r0, std::uint64_t nr, std::uint64_t c0, std::uint64_t nc, void* out) {
              slab::Tracer::Scope gen(ctx.tracer(), "generate X tile", slab::TraceKind::generate, nr * nc * 8);
              auto* x = static_cast<double*>(out);
              for (std::uint64_t i = 0; i < nr; ++i)
                for (std::uint64_t j = 0; j < nc; ++j) x[i * nc + j] = slab::counter_uniform(2, (r0 + i) * m + c0 + j);
            });
      });
      steps.end();
      cell(
          ctx, 8, "X = " + std::to_string(n) + " x " + std::to_string(m) + " float64 -> " + file.path() + ":/X",
          "wrote " + slab::format_bytes(n * m * 8) + " in chunks of " + std::to_string(n) + " x " + std::to_string(cw));

      steps.begin("gram");
      la::GramReport rep;
      ctx.show_task_progress("X X^T");
      const std::vector<double> y = call(ctx, "gram_xxt", slab::TraceKind::io, [&] {
        const slab::io::DatasetInfo x = slab::io::inspect(comm, file.path(), "/X");
        return la::gram_xxt(engine, x, file.path(), "/Y", {}, &rep, true);
      });
      ctx.show_task_progress("");
      const bool stored =
          call(ctx, "exists", slab::TraceKind::io, [&] { return slab::io::exists(comm, file.path(), "/Y"); });
      call(ctx, "remove the file", slab::TraceKind::io, [&] { file.remove(); });
      steps.end();
      double trace = 0, sum = 0, asym = 0;
      if (comm.rank() == 0) {
        slab::Tracer::Scope checks(ctx.tracer(), "checks: X X^T", slab::TraceKind::compute);
        for (std::uint64_t i = 0; i < n; ++i) {
          trace += y[i * n + i];
          for (std::uint64_t j = 0; j < n; ++j) {
            sum += y[i * n + j];
            asym = std::max(asym, std::fabs(y[i * n + j] - y[j * n + i]));
          }
        }
      }
      std::vector<double> y33;
      for (std::uint64_t i = 0; comm.rank() == 0 && i < std::min<std::uint64_t>(3, n); ++i)
        for (std::uint64_t j = 0; j < std::min<std::uint64_t>(3, n); ++j) y33.push_back(y[i * n + j]);
      std::ostringstream out;
      out << "Y (" << n << " x " << n << ") -> " << file.path() << ":/Y" << (stored ? "" : " (MISSING)")
          << "; X read in " << rep.blocks << " blocks of " << rep.block_cols
          << " columns, each folded into one running sum\nY[:3, :3]\n"
          << (comm.rank() == 0 ? array_text(y33, std::min<std::uint64_t>(3, n), std::min<std::uint64_t>(3, n)) : "")
          << "\ntrace(Y) = " << fmt(trace, 17);
      cell(ctx, 9, "Y = slab::linalg::gram_xxt(engine, X, \"" + file.path() + "\", \"/Y\")  # Y = X @ X.T", out.str());
      ctx.check("gram_rows", std::int64_t(n));
      ctx.check("gram_cols", std::int64_t(m));
      ctx.check("gram_blocks", std::int64_t(rep.blocks));
      ctx.check("gram_stored", stored);
      ctx.check("trace_Y", trace);
      ctx.check("sum_Y", sum);
      ctx.check("Y00", comm.rank() == 0 ? y[0] : 0.0);
      ctx.check("asym_max", asym);
    }
    ctx.job_end();
    const double tour_end = ctx.tracer().now();
    where_the_time_went(ctx, steps.list(), tour_start, tour_end);
  });
}
