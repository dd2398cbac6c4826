// SLAB_FAULT: parsed once; per-site occurrence counters on this rank. Only reached when the variable is set.
#include "slab/core/fault.hpp"

#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

namespace slab {
namespace detail {

const bool g_fault_armed = [] {
  const char* v = std::getenv("SLAB_FAULT");
  return v != nullptr && *v != '\0';
}();

namespace {

struct Fault {
  std::string site;
  int rank = -1;  // -1: every rank
  long step = 0;
  bool kill = false;
  bool cuda = false;  // throw CudaError, as a failed CUDA call would
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto end = text.find(sep, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

long parse_number(const std::string& text, const std::string& spec) {
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  SLAB_EXPECTS(used == text.size() && value >= 0, InvalidArgument,
               "SLAB_FAULT: '" + text + "' in '" + spec + "' is not a non-negative integer");
  return value;
}

std::vector<Fault> parse(const std::string& spec) {
  std::vector<Fault> faults;
  for (const auto& item : split(spec, ',')) {
    const auto f = split(item, ':');
    SLAB_EXPECTS(f.size() == 3 || f.size() == 4, InvalidArgument,
                 "SLAB_FAULT: '" + item + "' is not site:rank:step[:throw|kill|cuda]");
    SLAB_EXPECTS(!f[0].empty(), InvalidArgument, "SLAB_FAULT: '" + item + "' names no site");
    Fault fault{f[0], f[1] == "*" ? -1 : static_cast<int>(parse_number(f[1], spec)), parse_number(f[2], spec), false};
    if (f.size() == 4) {
      SLAB_EXPECTS(f[3] == "throw" || f[3] == "kill" || f[3] == "cuda", InvalidArgument,
                   "SLAB_FAULT: action '" + f[3] + "' in '" + item + "' is not throw, kill or cuda");
      fault.kill = f[3] == "kill";
      fault.cuda = f[3] == "cuda";
    }
    faults.push_back(std::move(fault));
  }
  return faults;
}

struct State {
  std::mutex mu;
  bool parsed = false;
  std::vector<Fault> faults;
  std::map<std::string, long, std::less<>> counts;
};

State& state() {
  static State s;
  return s;
}

}  // namespace

void fault_hit(std::string_view site, const char* file, int line) {
  State& s = state();
  const int rank = world_rank_or_minus_one();
  std::unique_lock lock(s.mu);
  if (!s.parsed) {
    const char* v = std::getenv("SLAB_FAULT");
    s.faults = parse(v ? v : "");
    s.parsed = true;
  }
  auto it = s.counts.find(site);
  if (it == s.counts.end()) it = s.counts.emplace(std::string(site), 0).first;
  const long step = it->second++;
  for (const auto& f : s.faults) {
    if (f.site != site || f.step != step || (f.rank >= 0 && f.rank != rank)) continue;
    if (f.kill) {
      lock.unlock();
      ::kill(::getpid(), SIGKILL);
    }
    const std::string what = "injected fault at '" + std::string(site) + "' (occurrence " + std::to_string(step) +
                             " on rank " + std::to_string(rank) + ")";
    if (f.cuda) throw CudaError(what + ": cudaErrorLaunchFailure: unspecified launch failure", file, line);
    throw InjectedFault(what, file, line);
  }
}

}  // namespace detail
}  // namespace slab
