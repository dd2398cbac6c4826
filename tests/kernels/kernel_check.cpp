// slab-kernel-check: every kernel entry point on the device against its reference instantiation on sizes up
// to --max-check (default 2^24) rows, each device run twice for bitwise determinism, then the device throughput
// at 2^20, 2^24 and 2^27 rows (--sizes) as a fraction of the device-to-device copy bandwidth measured in the same
// run. One JSON object per line on stdout. Never initialises MPI (it needs no mpirun).
//
//   slab-kernel-check [--max-check N] [--time-sizes a,b,c] [--repeats R] [--only SUBSTRING]
//
// Exit status: 0 when every check passed, or when there is no device (a line {"check": "device", "available":
// false, ...} says so and nothing else runs); 1 when a device result differs from the reference or between runs.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/kernels/device.hpp"
#include "device_cases.hpp"
#include "slab/core/error.hpp"
#include "slab/core/version.hpp"

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::vector<std::int64_t> parse_sizes(const char* text) {
  std::vector<std::int64_t> out;
  for (const char* p = text; *p;) {
    char* end = nullptr;
    out.push_back(std::strtoll(p, &end, 10));
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t max_check = 1 << 24;
  std::vector<std::int64_t> time_sizes{1 << 20, 1 << 24, 1 << 27};
  int repeats = 5;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max-check" && i + 1 < argc) {
      max_check = std::strtoll(argv[++i], nullptr, 10);
    } else if (a == "--time-sizes" && i + 1 < argc) {
      time_sizes = parse_sizes(argv[++i]);
    } else if (a == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--max-check N] [--time-sizes a,b,c] [--repeats R] [--only SUBSTRING]\n",
                   argv[0]);
      return 2;
    }
  }
  if (slab::kernels::cuda_devices() == 0) {
    std::printf("{\"check\": \"device\", \"available\": false, \"reason\": %s}\n",
                quoted(slab::built_with_cuda ? "no CUDA device (or no driver) on this machine"
                                             : "this build of slab has no CUDA kernels")
                    .c_str());
    std::fprintf(stderr, "slab-kernel-check: no device: nothing to check here\n");
    return 0;
  }
  int failures = 0;
  try {
    const slab::kernels::CudaDeviceInfo info = slab::kernels::cuda_device_info(0);
    const std::int64_t copy_bytes = std::int64_t{1} << 30;
    const double copy_s = kernel_check::copy_seconds(copy_bytes, 5);
    const double copy_gbps = 2.0 * static_cast<double>(copy_bytes) / copy_s * 1e-9;  // read + write
    std::printf(
        "{\"check\": \"device\", \"available\": true, \"name\": %s, \"memory\": %llu, \"sms\": %d, "
        "\"cc\": \"%d.%d\", \"copy_GBps\": %.1f, \"slab\": %s}\n",
        quoted(info.name).c_str(), static_cast<unsigned long long>(info.memory), info.multiprocessors, info.major,
        info.minor, copy_gbps, quoted(slab::version_string).c_str());
    std::fflush(stdout);
    const std::int64_t check_sizes[] = {0, 1, 31, 32, 4095, 4096, 4097, (1 << 20) + 1, 1 << 24};
    for (const kernel_check::Case& c : kernel_check::cases()) {
      if (!only.empty() && c.name.find(only) == std::string::npos) continue;
      for (std::int64_t n : check_sizes) {
        if (n > max_check) continue;
        const auto t0 = std::chrono::steady_clock::now();
        const kernel_check::Outcome o = c.run(n, {});
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        failures += !o.equal || !o.deterministic;
        std::printf(
            "{\"check\": \"kernel\", \"entry\": %s, \"n\": %lld, \"equal\": %s, \"deterministic\": %s, "
            "\"wall_s\": %.3f, \"note\": %s}\n",
            quoted(c.name).c_str(), static_cast<long long>(n), o.equal ? "true" : "false",
            o.deterministic ? "true" : "false", wall, quoted(o.note).c_str());
        std::fflush(stdout);
      }
      for (std::int64_t n : time_sizes) {
        kernel_check::Options opt;
        opt.compare = false;  // the largest sizes: timing and determinism only
        opt.repeats = repeats;
        const kernel_check::Outcome o = c.run(n, opt);
        failures += !o.deterministic;
        const double gbps = o.seconds > 0 ? o.bytes / o.seconds * 1e-9 : 0;
        std::printf(
            "{\"check\": \"throughput\", \"entry\": %s, \"n\": %lld, \"seconds\": %.6g, \"rows_per_s\": %.4g, "
            "\"GBps\": %.1f, \"copy_fraction\": %.3f, \"deterministic\": %s}\n",
            quoted(c.name).c_str(), static_cast<long long>(n), o.seconds,
            o.seconds > 0 ? static_cast<double>(n) / o.seconds : 0, gbps, gbps / copy_gbps,
            o.deterministic ? "true" : "false");
        std::fflush(stdout);
      }
    }
  } catch (const slab::Error& e) {
    std::printf("{\"check\": \"error\", \"message\": %s}\n", quoted(e.what()).c_str());
    return 1;
  }
  std::printf("{\"check\": \"summary\", \"failures\": %d}\n", failures);
  return failures ? 1 : 0;
}
