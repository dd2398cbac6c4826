#include "slab/app/app.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/core/log.hpp"
#include "slab/core/version.hpp"

namespace slab {

DatasetPath DatasetPath::parse(const std::string& text, std::string_view what) {
  const auto colon = text.rfind(":/");
  SLAB_EXPECTS(colon != std::string::npos && colon > 0 && colon + 2 < text.size(), InvalidArgument,
               std::string(what) + ": '" + text + "' is not FILE.h5:/path/to/dataset");
  return DatasetPath{text.substr(0, colon), text.substr(colon + 1)};
}

AppContext::AppContext(Engine& engine, bool json, bool progress) : engine_(engine), json_(json), progress_(progress) {}

void AppContext::job_begin() {
  comm().barrier();
  job_start_ = tracer().now();
}

void AppContext::job_end() {
  comm().barrier();
  job_seconds_ = tracer().now() - job_start_;
}

void AppContext::check(const std::string& name, CheckValue value) { checks_[name] = std::move(value); }

void AppContext::report(const std::string& name, const std::string& json) {
  SLAB_EXPECTS(nlohmann::json::accept(json), InvalidArgument, "report '" + name + "': not valid JSON");
  reports_[name] = json;
}

ProgressBar AppContext::progress(std::string label, std::uint64_t total) {
  return ProgressBar(std::move(label), total, progress_ && rank() == 0);
}

void AppContext::show_task_progress(const std::string& label) {
  if (label.empty() || !progress_ || rank() != 0) {
    tasks().set_progress(nullptr);
    task_bar_.reset();
    return;
  }
  task_bar_ = std::make_shared<ProgressBar>(label, 0, true);
  auto bar = task_bar_;
  tasks().set_progress([bar](std::uint64_t done, std::uint64_t total) {
    bar->update(done, total);
    if (total && done == total) bar->finish();
  });
}

void AppContext::print(const std::string& text) const {
  if (json_ || rank() != 0) return;
  std::cout << text << std::flush;
}

App::App(std::string name, std::string description) : name_(std::move(name)), cli_(std::move(description), name_) {
  cli_.set_version_flag("--version", std::string(name_) + " (slab " + version_string + ")");
  cli_.add_flag("--json", json_, "print one line of JSON with timings, memory and check values on rank 0");
  std::string runtime_help = "\nRuntime flags (every slab app):\n";
  for (const auto& [flag, help] : RuntimeOptions::flag_help()) {
    runtime_help += "  " + flag + std::string(flag.size() < 24 ? 24 - flag.size() : 1, ' ') + help + "\n";
  }
  cli_.footer(runtime_help);
}

void App::add_input(std::optional<DatasetPath>& target, const std::string& help, bool required) {
  std::string& text = flag_texts_.emplace_back();
  auto* opt = cli_.add_option("--input", text, help + " (FILE.h5:/path)");
  if (required) opt->required();
  validate([&text, &target] {
    if (!text.empty()) target = DatasetPath::parse(text, "--input");
  });
}

void App::add_output(std::optional<DatasetPath>& target, const std::string& help) {
  std::string& text = flag_texts_.emplace_back();
  cli_.add_option("--output", text, help + " (FILE.h5:/path)");
  validate([&text, &target] {
    if (!text.empty()) target = DatasetPath::parse(text, "--output");
  });
}

void App::validate(std::function<void()> check) { checks_.push_back(std::move(check)); }

namespace {

// Open MPI gives the ranks on mpirun's node a pseudo-terminal for stdout even when mpirun's own stdout is a pipe
// or a file, so under Open MPI the question goes to the launcher's stdout (this rank's parent process).
bool stdout_is_terminal() {
  if (isatty(STDOUT_FILENO) != 1) return false;
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return true;
  char link[256];
  const std::string fd = "/proc/" + std::to_string(getppid()) + "/fd/1";
  const ssize_t n = readlink(fd.c_str(), link, sizeof link - 1);
  if (n <= 0) return false;
  const std::string_view target(link, static_cast<std::size_t>(n));
  return target.starts_with("/dev/pts/") || target.starts_with("/dev/tty");
}

void print_error(const std::string& app, int rank, const std::string& message) {
  std::fprintf(stderr, "%s: error (rank %d): %s\n", app.c_str(), rank, message.c_str());
  std::fflush(stderr);
}

nlohmann::json to_json(const CheckValue& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

std::vector<std::byte> to_bytes(const std::string& text) {
  std::vector<std::byte> b(text.size());
  std::memcpy(b.data(), text.data(), text.size());
  return b;
}
nlohmann::json from_bytes(const std::vector<std::byte>& b) {
  return nlohmann::json::parse(std::string(reinterpret_cast<const char*>(b.data()), b.size()));
}

// The --json "fallbacks": per operation the most host fallbacks any rank recorded (every rank runs the same
// operations, so: how many calls of it ran on the host), and their total. Collective (a tree reduction to rank 0);
// the result is rank 0's.
nlohmann::json gather_fallbacks(const Comm& world, const Tracer& tracer) {
  std::vector<std::byte> mine = to_bytes(nlohmann::json(tracer.fallbacks()).dump());
  world.tree_reduce_bytes(
      mine,
      [](std::vector<std::byte>& acc, const std::vector<std::byte>& other) {
        nlohmann::json a = from_bytes(acc);
        const nlohmann::json b = from_bytes(other);  // named: items() of a temporary would dangle in the loop
        for (const auto& [op, n] : b.items())
          a[op] = std::max(a.value(op, std::uint64_t{0}), n.get<std::uint64_t>());
        acc = to_bytes(a.dump());
      },
      0);
  if (world.rank() != 0) return {};
  const nlohmann::json ops = from_bytes(mine);
  std::uint64_t total = 0;
  for (const auto& [op, n] : ops.items()) total += n.get<std::uint64_t>();
  return {{"total", total}, {"ops", ops.empty() ? nlohmann::json::object() : ops}};
}

}  // namespace

int App::run(int argc, char** argv, const std::function<void(AppContext&)>& body) {
  // The app owns MPI (not the Runtime) so that an error found while starting is printed on every rank
  // before any rank exits: mpirun ends the whole job when the first process exits with an error.
  int mpi_ready = 0;
  MPI_Initialized(&mpi_ready);
  if (!mpi_ready) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  }
  struct Finalizer {
    bool owned;
    ~Finalizer() {
      detail::finalize_kokkos();
      int done = 0;
      MPI_Finalized(&done);
      if (owned && !done) MPI_Finalize();
    }
  } finalizer{!mpi_ready};
  auto fail_everywhere = [&](int rank, const std::string& message, int code) {
    print_error(name_, rank, message);
    MPI_Barrier(MPI_COMM_WORLD);  // every rank has the same error: all print, then all exit
    return code;
  };
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);

  std::unique_ptr<Engine> engine;
  try {
    engine = std::make_unique<Engine>(argc, argv);
  } catch (const Error& e) {
    // Every rank parsed the same flags and the runtime agreed on its settings (exit 2); a device communicator
    // or spill directory that cannot be made is a failure of the run (exit 1), agreed the same way.
    return fail_everywhere(world_rank, e.message(), dynamic_cast<const InvalidArgument*>(&e) ? 2 : 1);
  }
  const int rank = engine->rank();
  try {
    cli_.parse(argc, argv);
    for (const auto& check : checks_) check();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      if (rank == 0) cli_.exit(e);
      return 0;
    }
    if (rank == 0) std::fprintf(stderr, "Run with --help for more information.\n");
    return fail_everywhere(rank, e.what(), 2);
  } catch (const Error& e) {
    return fail_everywhere(rank, e.message(), 2);
  }

  int exit_code = 0;
  try {
    Comm& world = engine->comm();
    const bool progress = !engine->runtime().options().quiet && !json_ && stdout_is_terminal();
    AppContext ctx(*engine, json_, progress);
    ctx.job_begin();
    // An error on some ranks only meets the others at their next agreement point (at the latest here, when
    // the body is done), so every rank reports the same error instead of the job ending in MPI_Abort.
    world.run_collectively([&] { body(ctx); });
    if (ctx.job_seconds() == 0) ctx.job_end();

    const MemoryStats ms = engine->memory().stats();
    const std::uint64_t spilled = ms.spilled_to_host_bytes + ms.spilled_to_disk_bytes;
    engine->finish();
    if (json_) {
      // Phases: the longest rank's time per kind of work; memory: the largest rank's high-water.
      const TraceSummary s = engine->tracer().summary();
      double io_read = 0, io_write = 0;
      for (const auto& e : engine->tracer().events())
        if (e.kind == TraceKind::io) (e.name.rfind("write", 0) == 0 ? io_write : io_read) += e.duration;
      double phases[6] = {
          s.seconds[static_cast<int>(TraceKind::generate)], io_read,  s.seconds[static_cast<int>(TraceKind::compute)],
          s.seconds[static_cast<int>(TraceKind::comm)],     io_write, s.seconds[static_cast<int>(TraceKind::spill)]};
      std::uint64_t peaks[3] = {ms.device.high_water, ms.host.high_water, ms.disk.high_water};
      std::uint64_t spilled_total = 0;
      world.allreduce(std::span<const double>(phases, 6), std::span<double>(phases, 6), ReduceOp::max);
      world.allreduce(std::span<const std::uint64_t>(peaks, 3), std::span<std::uint64_t>(peaks, 3), ReduceOp::max);
      world.allreduce(std::span<const std::uint64_t>(&spilled, 1), std::span<std::uint64_t>(&spilled_total, 1),
                      ReduceOp::sum);
      const nlohmann::json fallbacks = gather_fallbacks(world, engine->tracer());
      // Host tasks run on staged copies (slab::TaskPlace): the most tasks any rank staged, and all ranks' bytes.
      const TaskStats& ts = engine->tasks().stats();
      const std::uint64_t staged_tasks = world.allreduce(ts.staged, ReduceOp::max),
                          staged_bytes = world.allreduce(ts.staged_bytes, ReduceOp::sum);
      if (rank == 0) {
        nlohmann::json checks = nlohmann::json::object();
        for (const auto& [k, v] : ctx.checks()) checks[k] = to_json(v);
        const ExecutionPlace place = engine->execution().place();
        nlohmann::json out = {{"app", name_},
                              {"ranks", engine->size()},
                              {"place", place == ExecutionPlace::cuda        ? "cuda"
                                        : place == ExecutionPlace::reference ? "reference"
                                                                             : "host"},
                              {"seconds", ctx.job_seconds()},
                              {"phases",
                               {{"generate", phases[0]},
                                {"read", phases[1]},
                                {"compute", phases[2]},
                                {"communicate", phases[3]},
                                {"write", phases[4]},
                                {"spill", phases[5]}}},
                              {"peak_bytes", {{"device", peaks[0]}, {"host", peaks[1]}, {"disk", peaks[2]}}},
                              {"spilled_bytes", spilled_total},
                              {"fallbacks", fallbacks},
                              {"staged", {{"tasks", staged_tasks}, {"bytes", staged_bytes}}},
                              {"checks", checks}};
        for (const auto& [k, v] : ctx.reports()) out[k] = nlohmann::json::parse(v);
        std::cout << out.dump() << std::endl;
      }
    }
  } catch (const std::exception& e) {
    const Error* se = dynamic_cast<const Error*>(&e);
    const std::string message = se ? se->message() : e.what();
    // The message is the same on every rank; where it was raised (origin rank, file:line) is in what().
    if (se) log(LogLevel::debug, std::string("error raised at: ") + se->what(), true);
    if (is_agreed_error(e)) {
      // Every rank has this error: report it on every rank and end cleanly.
      exit_code = fail_everywhere(rank, message, 1);
    } else {
      // Only this rank knows; others may be waiting in a collective. Never hang: end the job.
      print_error(name_, rank, message + " (this rank only; aborting the job)");
      detail::run_fatal_cleanup();
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  return exit_code;
}

}  // namespace slab
