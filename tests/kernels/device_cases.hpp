#pragma once
// Every kernel entry point on the device against its reference instantiation, for the GPU tests
// (test_kernels_device, label `gpu`) and the kernel-check program (slab-kernel-check): a case generates its
// inputs for n rows, runs the reference on the host, runs the device twice and compares (bitwise: device and
// reference are the same composition, so the same arithmetic; exactly summable data where the device's
// parallel scan sums in another order), and optionally times the device run. Compiled with
// SLAB_KERNEL_CASES_ON_REFERENCE the "device" is the reference itself on host memory: test_kernels_harness runs
// every case that way in every build, so the harness is checked before a GPU ever runs it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kernel_check {

struct Options {
  bool compare = true;  ///< run the reference and compare (off for the largest timing sizes)
  int repeats = 0;      ///< > 0: time this many device runs after the checked ones
};

struct Outcome {
  bool equal = true;          ///< device == reference (when compared)
  bool deterministic = true;  ///< the two device runs gave the same bits
  double seconds = -1;        ///< device seconds per run (when timed)
  double bytes = 0;           ///< bytes the entry point must read and write at least (for a bandwidth figure)
  std::string note;           ///< what differed
};

struct Case {
  std::string name;  ///< "frame.sort.permutation", ...
  std::function<Outcome(std::int64_t n, const Options&)> run;
};

/// All cases, one or more per entry point.
std::vector<Case> cases();

/// The sizes the GPU test checks every case on (the issue's; small ones when the harness checks itself).
std::vector<std::int64_t> test_sizes();

/// Seconds per device-to-device copy of `bytes` (median of `repeats`), the bandwidth reference.
double copy_seconds(std::int64_t bytes, int repeats);

}  // namespace kernel_check
