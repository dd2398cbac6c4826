#include "slab/runtime/options.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "slab/core/error.hpp"

namespace slab {

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

bool parse_bool(std::string_view text, std::string_view what) {
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  SLAB_FAIL(InvalidArgument, std::string(what) + ": '" + std::string(text) + "' is not a boolean (1/0, true/false)");
}

std::string nonempty_path(std::string_view text, std::string_view what) {
  SLAB_EXPECTS(!text.empty(), InvalidArgument, std::string(what) + ": the path is empty");
  return std::string(text);
}

ByteLimit positive_limit(std::string_view text, std::string_view what) {
  ByteLimit l = parse_byte_limit(text, what);
  SLAB_EXPECTS(!l.bytes || *l.bytes > 0, InvalidArgument,
               std::string(what) + ": a memory limit of 0 bytes leaves no room for any data");
  return l;
}

// "host" (the tuned host kernels) or "reference" (the device kernels' CPU instantiations; the Runtime refuses it
// where this build has none, however the option was set).
bool parse_kernels(const std::string& text, const std::string& what) {
  if (text == "host") return false;
  if (text == "reference") return true;
  SLAB_FAIL(InvalidArgument, what + ": '" + text + "' is not a kernel choice (host or reference)");
}

}  // namespace

RuntimeOptions RuntimeOptions::from_environment() {
  RuntimeOptions o;
  if (auto v = env("SLAB_MEMORY_LIMIT")) o.device_memory_limit = positive_limit(v, "SLAB_MEMORY_LIMIT");
  if (auto v = env("SLAB_HOST_MEMORY_LIMIT")) o.host_memory_limit = positive_limit(v, "SLAB_HOST_MEMORY_LIMIT");
  if (auto v = env("SLAB_DISK_LIMIT")) o.disk_limit = parse_bytes(v, "SLAB_DISK_LIMIT");
  if (auto v = env("SLAB_SPILL_DIR")) o.spill_dir = v;
  if (auto v = env("SLAB_TRACE")) o.trace_file = v;
  if (auto v = env("SLAB_LOG_LEVEL")) o.log_level = parse_log_level(v, "SLAB_LOG_LEVEL");
  if (auto v = env("SLAB_VERBOSE")) o.verbose = parse_bool(v, "SLAB_VERBOSE");
  if (auto v = env("SLAB_QUIET")) o.quiet = parse_bool(v, "SLAB_QUIET");
  if (auto v = env("SLAB_DEVICE_MEMORY")) o.device_memory = parse_bool(v, "SLAB_DEVICE_MEMORY");
  if (auto v = env("SLAB_KERNELS")) o.reference_kernels = parse_kernels(v, "SLAB_KERNELS");
  return o;
}

void RuntimeOptions::consume_flags(int& argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {  // everything after "--" belongs to the app
      for (; i < argc; ++i) argv[out++] = argv[i];
      break;
    }
    std::string name = arg;
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (has_value) return value;
      SLAB_EXPECTS(i + 1 < argc, InvalidArgument, name + ": a value is required");
      return argv[++i];
    };
    if (name == "--memory-limit") {
      device_memory_limit = positive_limit(take_value(), name);
    } else if (name == "--host-memory-limit") {
      host_memory_limit = positive_limit(take_value(), name);
    } else if (name == "--disk-limit") {
      disk_limit = parse_bytes(take_value(), name);
    } else if (name == "--spill-dir") {
      spill_dir = nonempty_path(take_value(), name);
    } else if (name == "--trace") {
      trace_file = nonempty_path(take_value(), name);
    } else if (name == "--log-level") {
      log_level = parse_log_level(take_value(), name);
    } else if (name == "--verbose" && !has_value) {
      verbose = true;
    } else if (name == "--quiet" && !has_value) {
      quiet = true;
    } else if (name == "--device-memory") {  // bare: on (the default on a GPU); =off: host memory only
      device_memory = has_value ? parse_bool(value, name) : true;
    } else if (name == "--kernels") {
      reference_kernels = parse_kernels(take_value(), name);
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  argv[argc] = nullptr;
}

std::vector<std::pair<std::string, std::string>> RuntimeOptions::flag_help() {
  return {{"--memory-limit X",
           "device memory per rank: bytes (4GiB, 512MB) or a fraction of the device (0.8, 80%) [SLAB_MEMORY_LIMIT]"},
          {"--host-memory-limit X",
           "host memory per rank for spilled buffers: bytes or a fraction of this rank's share of the node "
           "[SLAB_HOST_MEMORY_LIMIT]"},
          {"--disk-limit X", "cap on spill-file bytes per rank (default unlimited) [SLAB_DISK_LIMIT]"},
          {"--spill-dir DIR", "folder for the private spill directory (default $TMPDIR or /tmp) [SLAB_SPILL_DIR]"},
          {"--trace FILE",
           "write a Chrome/Perfetto trace of the run (open in ui.perfetto.dev or slab-report) [SLAB_TRACE]"},
          {"--log-level L", "error, warn, info or debug [SLAB_LOG_LEVEL]"},
          {"--verbose", "print a per-rank summary table at exit [SLAB_VERBOSE=1]"},
          {"--quiet", "no progress bar or banner [SLAB_QUIET=1]"},
          {"--device-memory[=off]",
           "where a rank has a GPU its device tier is GPU memory and it computes there (the default; operations "
           "without a device path run on host copies and are counted as fallbacks); =off keeps the device tier in "
           "host memory and computes on the host [SLAB_DEVICE_MEMORY=0]"},
          {"--kernels K",
           "host (default) or reference: without a GPU, run the operations' device paths on the CPU (the device "
           "kernels' CPU instantiations; for testing) [SLAB_KERNELS]"}};
}

}  // namespace slab
