// libFuzzer target: slab's HDF5 metadata path, slab::io::inspect (open, find the dataset, check rank, dtype and
// layout) then read_block of a corner, on one rank. Any input must give a DatasetInfo or a slab::Error; a crash,
// a sanitizer report or another exception in slab's code is a bug.
//
// libhdf5 1.10 is not hardened against corrupt metadata (its decoders can crash on hostile files), so raw
// bytes would mostly fuzz libhdf5. The input is therefore structured; byte 0 picks the mode:
//  - even: a well-formed file built with the HDF5 API from the input (rank 0-3, extents 0-7, any of 9 element
//    types, contiguous/chunked/deflate, a group or a dataset at "/X" or "/g/X"), which reaches every check
//    slab makes itself;
//  - odd: up to 16 single-byte patches (offset, value) of a valid file's first 256 bytes (superblock and root
//    group header), the part slab's "not an HDF5 file" / "cannot open" checks guard.
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_engine.hpp"
#include "slab/core/error.hpp"
#include "slab/io/hdf5.hpp"

namespace {

// Reads the input as a stream of bytes (zeros past its end).
struct Input {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t next() { return at < size ? data[at++] : 0; }
};

// A well-formed file described by the input. False when HDF5 refuses the description (not a case to test).
bool build_file(const std::string& path, Input in) {
  static const hid_t types[] = {H5T_NATIVE_DOUBLE, H5T_NATIVE_FLOAT,  H5T_NATIVE_INT64,
                                H5T_NATIVE_INT32,  H5T_NATIVE_UINT64, H5T_NATIVE_INT8,
                                H5T_NATIVE_UINT8,  H5T_IEEE_F64BE,    H5T_STD_I64BE};
  const int rank = in.next() % 4;
  hsize_t dims[3] = {0, 0, 0}, chunk[3] = {1, 1, 1};
  for (int d = 0; d < rank; ++d) dims[d] = in.next() % 8;
  const hid_t type = types[in.next() % std::size(types)];
  const std::uint8_t layout = in.next() % 3;  // contiguous, chunked, chunked + deflate
  for (int d = 0; d < rank; ++d) chunk[d] = 1 + in.next() % 4;
  const std::uint8_t where = in.next() % 4;  // /X, /g/X, /X a group, /Y (no /X)
  hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) return false;
  bool ok = true;
  hid_t parent = file;
  if (where == 1) parent = H5Gcreate2(file, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (where == 2) {
    const hid_t g = H5Gcreate2(file, "X", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ok = g >= 0 && H5Gclose(g) >= 0;
  } else {
    const hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (layout > 0 && rank > 0) {
      ok = H5Pset_chunk(dcpl, rank, chunk) >= 0;
      if (layout == 2) ok = ok && H5Pset_deflate(dcpl, 1) >= 0;
    }
    const hid_t dset =
        ok ? H5Dcreate2(parent, where == 3 ? "Y" : "X", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT) : -1;
    if (dset >= 0) {
      std::vector<std::uint8_t> fill(8 * 8 * 8 * 8);
      for (auto& b : fill) b = in.next();
      H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, fill.data());
      H5Dclose(dset);
    }
    ok = ok && dset >= 0;
    H5Pclose(dcpl);
    H5Sclose(space);
  }
  if (parent != file) H5Gclose(parent);
  H5Fclose(file);
  H5Eclear2(H5E_DEFAULT);
  return ok;
}

// A valid 4 x 3 float64 file's bytes (made once), with up to 16 patches of its first 256 bytes.
bool patch_file(const std::string& path, Input in) {
  static std::vector<std::uint8_t> seed = [&] {
    const std::uint8_t desc[] = {2, 2, 4, 3, 0, 0, 0, 0, 0};  // rank 2, 4 x 3, double, contiguous, "/X"
    if (!build_file(path, Input{desc, sizeof desc})) std::abort();
    std::ifstream f(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
  }();
  std::vector<std::uint8_t> bytes = seed;
  for (int k = 0; k < 16 && in.at + 2 <= in.size; ++k) {
    const std::uint8_t at = in.next();
    bytes[at % bytes.size()] = in.next();
  }
  return slab::fuzz::write_input(bytes.data(), bytes.size());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  slab::fuzz::init(argc, argv, "input.h5");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // No free lists: libhdf5 then mallocs each object afresh, so a leak's allocation stack is the real one, not
  // that of the first object to use a recycled block (LeakSanitizer, tests/sanitizers/lsan.supp).
  H5set_free_list_limits(0, 0, 0, 0, 0, 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 4096) return 0;
  const auto& env = slab::fuzz::env();
  Input in{data, size, 1};
  if (!((data[0] & 1) ? patch_file(env.path, in) : build_file(env.path, in))) return 0;
  try {
    const slab::io::DatasetInfo info = slab::io::inspect(env.engine->comm(), env.path, (data[0] & 2) ? "/g/X" : "X");
    const std::uint64_t rows = info.rows() < 4 ? info.rows() : 4, cols = info.cols() < 4 ? info.cols() : 4;
    std::vector<double> block(rows * cols);
    slab::io::read_block(info, 0, rows, 0, cols, slab::ElementType::float64, block.data());
    // A second read past the end must be refused, never read.
    try {
      slab::io::read_block(info, info.rows(), 1, 0, 1, slab::ElementType::float64, block.data());
      __builtin_trap();
    } catch (const slab::ShapeError&) {
    }
  } catch (const slab::Error&) {
    // A clear refusal of a bad file: fine.
  }
  return 0;
}
