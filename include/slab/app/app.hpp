#pragma once
/// @file app.hpp
/// @brief slab::App: the conventions every slab program in apps/ shares (and users' own apps can use):
/// --help/--version, the runtime flags, --json, --quiet progress, --input/--output FILE.h5:/path, clean
/// errors on every rank with the right exit code.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "slab/app/progress.hpp"
#include "slab/engine/engine.hpp"

namespace slab {

/// "file.h5:/group/dataset" split into file and object path.
struct DatasetPath {
  std::string file;
  std::string object;
  /// @throws InvalidArgument naming `what` when `text` has no ":/" or an empty part.
  static DatasetPath parse(const std::string& text, std::string_view what);
  [[nodiscard]] std::string str() const { return file + ":" + object; }
};

/// A check value printed under "checks" in the --json line.
using CheckValue = std::variant<std::int64_t, double, std::string, bool>;

/**
 * @brief Everything an app's body needs: the engine (runtime, world communicator, memory manager, task
 * queue) plus the --json report and progress bars. Made by App::run.
 */
class AppContext {
 public:
  AppContext(Engine& engine, bool json, bool progress);

  /// The engine every array, frame and algorithm of the app runs on.
  [[nodiscard]] Engine& engine() noexcept { return engine_; }
  [[nodiscard]] Runtime& runtime() noexcept { return engine_.runtime(); }
  [[nodiscard]] Comm& comm() noexcept { return engine_.comm(); }
  [[nodiscard]] MemoryManager& memory() noexcept { return engine_.memory(); }
  [[nodiscard]] TaskQueue& tasks() noexcept { return engine_.tasks(); }
  [[nodiscard]] Tracer& tracer() noexcept { return engine_.tracer(); }
  [[nodiscard]] int rank() const noexcept { return engine_.rank(); }
  [[nodiscard]] int size() const noexcept { return engine_.size(); }
  /// Whether --json was given (apps print their human-readable report only without it).
  [[nodiscard]] bool json() const noexcept { return json_; }

  /// Collective: barrier, then start the job's clock ("seconds" in --json: from here to job_end()).
  void job_begin();
  /// Collective: barrier, then stop the job's clock.
  void job_end();
  [[nodiscard]] double job_seconds() const noexcept { return job_seconds_; }

  /// Record a check value for --json (call with the same names on every rank; rank 0's values are printed).
  void check(const std::string& name, CheckValue value);
  [[nodiscard]] const std::map<std::string, CheckValue>& checks() const noexcept { return checks_; }
  /// Add a member `name` holding `json` (a JSON document as text: an array or object) to the --json line, next
  /// to "checks" (rank 0's value is printed). Not collective. @throws InvalidArgument when `json` does not parse.
  void report(const std::string& name, const std::string& json);
  [[nodiscard]] const std::map<std::string, std::string>& reports() const noexcept { return reports_; }

  /// A progress bar on rank 0 (a no-op on other ranks, with --quiet, or when stdout is not a terminal).
  [[nodiscard]] ProgressBar progress(std::string label, std::uint64_t total);
  /// Show the task queue's progress during persist() with this label (empty label: stop showing).
  void show_task_progress(const std::string& label);

  /// Rank 0 prints `text` to stdout (nothing with --json, which keeps stdout to the one JSON line).
  void print(const std::string& text) const;

 private:
  Engine& engine_;
  bool json_;
  bool progress_;
  double job_start_ = 0;
  double job_seconds_ = 0;
  std::map<std::string, CheckValue> checks_;
  std::map<std::string, std::string> reports_;
  std::shared_ptr<ProgressBar> task_bar_;
};

/**
 * @brief An SPMD program with slab's conventions.
 *
 * @code
 *   slab::App app("slab-info", "Describe the ranks and measure the interconnect");
 *   int reps = 10;
 *   app.cli().add_option("--reps", reps, "repetitions");
 *   return app.run(argc, argv, [&](slab::AppContext& ctx) { ... });
 * @endcode
 *
 * run() builds the Engine (consuming the runtime flags), parses the app's own flags with CLI11, calls the body,
 * writes the trace and summary, and prints the --json line: {"app", "ranks", "seconds", "phases" (the longest
 * rank's seconds per kind of work), "peak_bytes" (the largest rank's), "spilled_bytes" (all ranks'), "fallbacks"
 * ({"total": N, "ops": {op: n}}: n the most "fallback:host <op>" events any rank recorded, i.e. the calls of op
 * that ran their host kernel on a CUDA rank, slab/engine/host_fallback.hpp; 0 and {} on the host), "checks",
 * and the members added with AppContext::report}. Exit codes: 0 success (also --help, --version), 2 bad flags
 * or settings, 1 an error in the body. An error on any rank becomes the same error on every rank (slab's collectives,
 * task queue and this body's end are agreement points: see slab/comm/comm.hpp) and ends every rank cleanly with that
 * message and exit code 1. Only where no agreement can be reached (a rank failed partway through a collective's data
 * transfer, or the others wait in the user's own MPI calls past SLAB_AGREE_TIMEOUT) is the error printed and the job
 * ended with MPI_Abort, so no rank is left waiting.
 */
class App {
 public:
  App(std::string name, std::string description);
  /// The app's own flags (the runtime flags are added by run()).
  [[nodiscard]] CLI::App& cli() noexcept { return cli_; }
  /// Add --input FILE.h5:/path (required or not); the parsed value lands in `target`.
  void add_input(std::optional<DatasetPath>& target, const std::string& help, bool required = false);
  /// Add --output FILE.h5:/path.
  void add_output(std::optional<DatasetPath>& target, const std::string& help);
  /**
   * @brief Run `check` right after the flags are parsed, before the body: checks of flags together (exactly one
   * of --generate and --input) and conversions of flag texts. Every rank parses the same flags, so every rank
   * throws the same: an slab::Error thrown here prints its message on every rank and exits 2. In call order.
   */
  void validate(std::function<void()> check);

  /// Collective over MPI_COMM_WORLD. Returns the process exit code.
  int run(int argc, char** argv, const std::function<void(AppContext&)>& body);

 private:
  std::string name_;
  CLI::App cli_;
  bool json_ = false;
  std::vector<std::function<void()>> checks_;
  std::deque<std::string> flag_texts_;  // stable addresses: CLI11 keeps pointers to them
};

}  // namespace slab
