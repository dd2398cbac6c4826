// slab-report: turn the trace of a run (any slab app's --trace FILE) into one offline HTML page: a task stream
// per rank, the time per kind of task, memory per tier over time, and the run's summary.
//
//   mpirun -n 2 slab-groupby --generate --rows 2000000 --memory-limit 8MiB --trace run.json
//   slab-report run.json -o run.html
//
// It reads a file and writes a file, so it runs without MPI (on a login node, or a laptop after the run).
#include <slab/core/error.hpp>
#include <slab/core/version.hpp>
#include <slab/trace/report.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "slab-report: error: %s\n", message.c_str());
  return 2;  // every failure here is about the input or the output path
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli("Turn a slab trace (--trace FILE) into one self-contained HTML report.", "slab-report");
  cli.set_version_flag("--version", std::string("slab-report (slab ") + slab::version_string + ")");
  std::string trace;
  std::string output;
  bool json = false;
  cli.add_option("trace", trace, "trace-event JSON written by a slab app's --trace FILE")->required();
  cli.add_option("-o,--output", output, "HTML file to write (default: the trace's name with .html)");
  cli.add_flag("--json", json, "also print the run's summary as one line of JSON");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return cli.exit(e);  // --help, --version
    std::fprintf(stderr, "slab-report: error: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  if (output.empty()) output = std::filesystem::path(trace).replace_extension(".html").string();
  if (std::filesystem::path(output) == std::filesystem::path(trace))
    return fail("the output '" + output + "' would overwrite the trace; give -o FILE.html");

  try {
    const slab::TraceReport r = slab::write_html_report(trace, output);
    if (json) {
      nlohmann::json seconds = nlohmann::json::object();
      for (std::size_t k = 0; k < slab::kReportKindCount; ++k) {
        double s = 0;
        for (const auto& rank : r.ranks) s += rank.self_seconds[k];
        seconds[std::string(slab::kReportKinds[k])] = s;
      }
      nlohmann::json out = {
          {"app", r.app},
          {"ranks", r.ranks.size()},
          {"wall_seconds", r.wall_seconds},
          {"seconds", seconds},
          {"events", r.events},
          {"memory_samples", r.memory_samples},
          {"peak_bytes", {{"device", r.peak_bytes[0]}, {"host", r.peak_bytes[1]}, {"disk", r.peak_bytes[2]}}},
          {"spilled_bytes", r.spilled_bytes},
          {"unspilled_bytes", r.unspilled_bytes},
          {"output", output}};
      std::cout << out.dump() << std::endl;
    } else {
      std::cout << "slab-report: wrote " << output << "\n";
    }
  } catch (const slab::Error& e) {
    return fail(e.message());
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
