#pragma once
// The engine of a test: a slab::Engine with the given limits, spilling under /tmp, nothing read from the
// environment or the command line. Made and torn down per test (the test main owns MPI and Kokkos).
#include <cstdint>

#include "slab/engine/engine.hpp"

namespace slab::testing {

/// Options of a test engine: these tier limits, spill root /tmp, defaults otherwise.
inline EngineOptions engine_options(std::uint64_t device_limit = 1ull << 30, std::uint64_t host_limit = 1ull << 30) {
  EngineOptions options;
  options.device_memory_limit = ByteLimit{device_limit, std::nullopt};
  options.host_memory_limit = ByteLimit{host_limit, std::nullopt};
  options.spill_dir = "/tmp";
  return options;
}

class Engine : public slab::Engine {
 public:
  explicit Engine(std::uint64_t device_limit = 1ull << 30, std::uint64_t host_limit = 1ull << 30)
      : slab::Engine(engine_options(device_limit, host_limit)) {}
};

}  // namespace slab::testing
