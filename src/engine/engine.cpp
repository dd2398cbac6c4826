#include "slab/engine/engine.hpp"

#include <iostream>
#include <ostream>
#include <streambuf>

#include "slab/comm/world.hpp"

namespace slab {

MemoryConfig memory_config_of(Runtime& runtime) {
  MemoryConfig mc;
  mc.device_limit = runtime.device_memory_limit();
  mc.host_limit = runtime.host_memory_limit();
  mc.disk_limit = runtime.options().disk_limit;
  mc.spill_root = runtime.spill_root();
  // The device tier is GPU memory where the rank computes on its GPU (opt-in: --device-memory).
  mc.execution = &runtime.execution();
  mc.tracer = &runtime.tracer();
  return mc;
}

Engine::Engine(int& argc, char**& argv) : runtime_(std::make_unique<Runtime>(argc, argv)) { build(); }

Engine::Engine(EngineOptions options) : runtime_(std::make_unique<Runtime>(std::move(options))) { build(); }

Engine::Engine() : Engine(RuntimeOptions::from_environment()) {}

void Engine::build() {
  comm_ = std::make_unique<Comm>(make_world_comm(*runtime_));
  memory_ = std::make_unique<MemoryManager>(memory_config_of(*runtime_));
  // A spill directory that cannot be made is reported now, before any work, and on every rank.
  comm_->run_collectively([&] { memory_->check_spill_dir(); });
  tasks_ = std::make_unique<TaskQueue>(*memory_, *comm_, runtime_->tracer());
}

std::ostream& Engine::out() const noexcept {
  // A streambuf whose overflow succeeds without storing anything: writes to it cost a formatting call only.
  struct Discard : std::streambuf {
    int overflow(int c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  };
  static Discard discard;
  static std::ostream nowhere(&discard);
  return rank() == 0 ? std::cout : nowhere;
}

// Members go in reverse order of declaration: tasks, memory, comm, runtime.
Engine::~Engine() = default;

void Engine::finish(const std::vector<std::pair<std::string, std::uint64_t>>& extra_summary_columns) {
  const MemoryStats ms = memory_->stats();
  std::vector<std::pair<std::string, std::uint64_t>> columns = {
      {"device peak", ms.device.high_water},
      {"host peak", ms.host.high_water},
      {"disk peak", ms.disk.high_water},
      {"spilled", ms.spilled_to_host_bytes + ms.spilled_to_disk_bytes}};
  columns.insert(columns.end(), extra_summary_columns.begin(), extra_summary_columns.end());
  runtime_->finish(columns);
}

}  // namespace slab
