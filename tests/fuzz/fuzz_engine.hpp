#pragma once
// What the fuzz targets share: MPI (one rank, initialised once), an engine, and a private scratch file the
// input is written to (read_csv and HDF5 read files, not buffers). Torn down at exit, so LeakSanitizer sees
// only real leaks.
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "test_engine.hpp"

namespace slab::fuzz {

struct FuzzEnv {
  testing::Engine* engine = nullptr;
  std::string path;  ///< the scratch file in a private folder
  std::string dir;
};

inline FuzzEnv& env() {
  static FuzzEnv e;
  return e;
}

/// Initialise MPI and the engine once; `suffix` names the scratch file ("input.csv").
inline void init(int* argc, char*** argv, const char* suffix) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  FuzzEnv& e = env();
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/slab-fuzz-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  e.dir = tmpl;
  e.path = e.dir + "/" + suffix;
  e.engine = new testing::Engine(64ull << 20, 64ull << 20);
  std::atexit([] {
    FuzzEnv& f = env();
    delete f.engine;
    f.engine = nullptr;
    ::unlink(f.path.c_str());
    ::rmdir(f.dir.c_str());
    slab::detail::finalize_kokkos();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  });
}

/// Write the input to the scratch file; false when it cannot be written.
inline bool write_input(const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(env().path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;  // fwrite of no bytes may get null
  return std::fclose(f) == 0 && ok;
}

}  // namespace slab::fuzz
