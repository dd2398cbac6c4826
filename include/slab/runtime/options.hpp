#pragma once
/// @file options.hpp
/// @brief The settings every slab program takes, from SLAB_* environment variables and command-line flags.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "slab/core/log.hpp"
#include "slab/core/units.hpp"

namespace slab {

/**
 * @brief Runtime settings. Environment variables are read first, flags override them:
 *
 * | flag                    | variable                 | meaning                                           |
 * |-------------------------|--------------------------|---------------------------------------------------|
 * | --memory-limit X        | SLAB_MEMORY_LIMIT        | device tier limit per rank: bytes ("4GiB") or a fraction of
 * the device ("0.8"; of a rank's share where ranks share one) | | --host-memory-limit X   | SLAB_HOST_MEMORY_LIMIT   |
 * host tier limit per rank: bytes or a fraction of the node's memory / local ranks | | --disk-limit X          |
 * SLAB_DISK_LIMIT          | spill-file cap per rank (bytes; default unlimited)| | --spill-dir DIR         |
 * SLAB_SPILL_DIR           | where the private spill directory is made (default $TMPDIR or /tmp) | | --trace FILE |
 * SLAB_TRACE               | write a Chrome/Perfetto trace of the run          | | --log-level L           |
 * SLAB_LOG_LEVEL           | error, warn, info, debug                          | | --verbose               |
 * SLAB_VERBOSE=1           | per-rank summary table at exit                    | | --quiet                 |
 * SLAB_QUIET=1             | no progress bar, no banner |
 */
struct RuntimeOptions {
  ByteLimit device_memory_limit{std::nullopt, 0.8};
  ByteLimit host_memory_limit{std::nullopt, 0.5};
  std::uint64_t disk_limit = UINT64_MAX;
  /// Root of each rank's private spill folder slab-spill-<host>-<pid>-XXXXXX (empty: $TMPDIR, else /tmp).
  /// Folders are removed at exit, on SIGTERM/SIGINT/SIGHUP and before an abort; those of SIGKILLed
  /// processes by the next run on the same host that spills into the same root.
  std::string spill_dir;
  std::string trace_file;  ///< empty: no trace file
  LogLevel log_level = LogLevel::warn;
  bool verbose = false;
  bool quiet = false;
  /// Whether the device tier is GPU memory where this rank has a GPU: unset (the default) or true, GPU memory
  /// there; false (--device-memory=off, SLAB_DEVICE_MEMORY=0), host memory everywhere, and the rank computes on
  /// the host. Ranks without a GPU keep the device tier in host memory whatever this says. README, "--device-memory".
  std::optional<bool> device_memory;
  /// Without a GPU in use, run the operations' device paths on the host (ExecutionPlace::reference): the device
  /// kernels' CPU instantiations, for testing the device wiring where no GPU exists. --kernels reference.
  bool reference_kernels = false;

  /// Options from the SLAB_* environment variables. @throws InvalidArgument naming the variable.
  static RuntimeOptions from_environment();

  /**
   * @brief Apply the runtime flags found in argv (both "--flag value" and "--flag=value") and remove them,
   * leaving the program name and every other argument in order. Not collective.
   * @throws InvalidArgument naming the flag when a value is missing or malformed.
   */
  void consume_flags(int& argc, char** argv);

  /// The flags and their help text, for an app's --help.
  static std::vector<std::pair<std::string, std::string>> flag_help();
};

}  // namespace slab
