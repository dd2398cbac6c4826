#pragma once
// Shared by the io and Gram tests: an engine (tracer, comm, memory, queue) and a scratch folder common to
// every rank.
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "slab/comm/comm.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

namespace iotest {

using Engine = slab::testing::Engine;

// A folder made by rank 0 and named to every rank; removed (by rank 0) at destruction.
struct ScratchDir {
  explicit ScratchDir(const slab::Comm& comm) : comm_(comm) {
    char buf[256] = {};
    if (comm.rank() == 0) {
      std::string tmpl = "/tmp/slab-io-test-XXXXXX";
      std::snprintf(buf, sizeof buf, "%s", tmpl.c_str());
      if (::mkdtemp(buf) == nullptr) std::abort();
    }
    comm.bcast(std::span<char>(buf, sizeof buf), 0);
    path = buf;
  }
  ~ScratchDir() {
    comm_.barrier();
    if (comm_.rank() == 0) std::filesystem::remove_all(path);
  }
  [[nodiscard]] std::string file(const std::string& name) const { return path + "/" + name; }
  std::string path;
  slab::Comm comm_;
};

}  // namespace iotest
