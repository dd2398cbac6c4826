// Bad input matrix, HDF5 (io/hdf5, io/array_io): missing, truncated, empty and non-HDF5 files, a directory, a
// dataset of the wrong rank or dtype, a dtype other than the one asked for, an empty dataset, a write to a path
// that cannot be written.
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bad_input.hpp"
#include "io_test_util.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/io/array_io.hpp"

namespace {

using badinput::expect_error;
using badinput::expect_result;
using slab::Array;
using slab::Split;

// Files made on rank 0 with the plain HDF5 C API (not by the library under test), then a barrier.
struct Files {
  explicit Files(const slab::Comm& comm) : dir(comm) {
    if (comm.rank() == 0) {
      const hid_t f = H5Fcreate(good().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      add(f, "/X", H5T_IEEE_F64LE, {64, 4});
      add(f, "/cube", H5T_IEEE_F64LE, {2, 3, 4});
      add(f, "/i16", H5T_STD_I16LE, {4, 2});
      add(f, "/i32", H5T_STD_I32LE, {4, 2});
      add(f, "/empty", H5T_IEEE_F64LE, {0, 3});
      const hid_t str = H5Tcopy(H5T_C_S1);
      H5Tset_size(str, 8);
      add(f, "/names", str, {4});
      H5Tclose(str);
      H5Fclose(f);
    }
    comm.barrier();
  }
  static void add(hid_t f, const char* name, hid_t type, std::vector<hsize_t> dims) {
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    H5Dclose(H5Dcreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(space);
  }
  [[nodiscard]] std::string good() const { return dir.file("good.h5"); }
  iotest::ScratchDir dir;
};

// Rank 0 writes `bytes` to `path`, then a barrier.
void write_file(const slab::Comm& comm, const std::string& path, const std::string& bytes) {
  if (comm.rank() == 0) std::ofstream(path, std::ios::binary) << bytes;
  comm.barrier();
}

auto reader(slab::Engine& q, const std::string& file, const std::string& dataset) {
  return [&q, file, dataset] {
    (void)Array<double>(slab::io::read_hdf5<double>(q, file, dataset, Split::rows)).persist();
  };
}

TEST(BadInputHdf5, MissingFile) {
  slab::testing::Engine e;
  Files files(e.comm());
  const std::string path = files.dir.file("missing.h5");
  expect_error(e.comm(), "IoError", path + ": no such file", reader(e, path, "/X"));
}

TEST(BadInputHdf5, NotAnHdf5File) {
  slab::testing::Engine e;
  Files files(e.comm());
  const std::string path = files.dir.file("notes.csv");
  write_file(e.comm(), path, "x,y\n1,2\n");
  expect_error(e.comm(), "IoError", path + ": not an HDF5 file", reader(e, path, "/X"));
}

TEST(BadInputHdf5, EmptyFile) {
  slab::testing::Engine e;
  Files files(e.comm());
  const std::string path = files.dir.file("empty.h5");
  write_file(e.comm(), path, "");
  expect_error(e.comm(), "IoError", path + ": not an HDF5 file", reader(e, path, "/X"));
}

TEST(BadInputHdf5, TruncatedFile) {
  slab::testing::Engine e;
  Files files(e.comm());
  // The good file cut to its first 1 KiB: the superblock is there, its end of file is not.
  std::string bytes;
  if (e.comm().rank() == 0) {
    std::ifstream in(files.good(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
    bytes.resize(1024);
  }
  const std::string path = files.dir.file("truncated.h5");
  write_file(e.comm(), path, bytes);
  // One line: HDF5's innermost reason, not its stack (which --log-level debug prints).
  expect_error(e.comm(), "IoError", path + ": cannot open: truncated file: eof = 1024", reader(e, path, "/X"));
}

TEST(BadInputHdf5, DirectoryInsteadOfFile) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_error(e.comm(), "IoError", files.dir.path + ": not a regular file", reader(e, files.dir.path, "/X"));
}

TEST(BadInputHdf5, MissingDataset) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_error(e.comm(), "IoError", files.good() + ": no dataset '/Y'", reader(e, files.good(), "Y"));
}

TEST(BadInputHdf5, DatasetOfRank3) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_error(e.comm(), "ShapeError", files.good() + ":/cube has rank 3; expected 1 or 2",
               reader(e, files.good(), "/cube"));
}

TEST(BadInputHdf5, DatasetOfInt16) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_error(e.comm(), "TypeError", files.good() + ":/i16 has dtype int16; expected float32, float64, int32 or int64",
               reader(e, files.good(), "/i16"));
}

TEST(BadInputHdf5, Int32AsFloat64WithoutWiden) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_error(e.comm(), "TypeError",
               files.good() + ":/i32 is int32; expected float64 (ReadOptions::widen = true reads int32 as float64",
               reader(e, files.good(), "/i32"));
}

TEST(BadInputHdf5, Float64AsFloat32EvenWithWiden) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_error(
      e.comm(), "TypeError",
      files.good() + ":/X is float64; expected float32 (reading float64 as float32 " +
          "could change values, so it is never done implicitly",
      [&] { (void)slab::io::read_hdf5<float>(e, files.good(), "/X", Split::rows, {.widen = true}).persist(); });
}

TEST(BadInputHdf5, DatasetOfStrings) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_error(e.comm(), "TypeError",
               files.good() + ":/names has dtype string; expected float32, float64, int32 or int64",
               reader(e, files.good(), "/names"));
}

TEST(BadInputHdf5, DtypeOtherThanAsked) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_error(e.comm(), "TypeError", files.good() + ":/X is float64; expected int64",
               [&] { (void)slab::io::read_hdf5<std::int64_t>(e, files.good(), "/X", Split::rows); });
}

TEST(BadInputHdf5, EmptyDataset) {
  slab::testing::Engine e;
  Files files(e.comm());
  expect_result(e.comm(), "a 0 x 3 array (every rank empty)", [&] {
    auto a = slab::io::read_hdf5<double>(e, files.good(), "/empty", Split::rows);
    EXPECT_EQ(a.rows(), 0);
    EXPECT_EQ(a.cols(), 3);
    EXPECT_EQ(a.gather_all().size(), 0u);
    EXPECT_EQ(slab::sum(a), 0.0);
  });
}

TEST(BadInputHdf5, BlockOutsideTheDataset) {
  slab::testing::Engine e;
  Files files(e.comm());
  const slab::io::DatasetInfo info = slab::io::inspect(e.comm(), files.good(), "/X");
  double out[4];
  // row0 + nrows wraps around 2^64 to 1: still outside the 64 rows.
  expect_error(e.comm(), "ShapeError",
               files.good() + ":/X: block rows [18446744073709551615, 1) x cols [0, 1) is outside the dataset's 64 x 4",
               [&] { slab::io::read_block(info, UINT64_MAX, 2, 0, 1, slab::ElementType::float64, out); });
}

TEST(BadInputHdf5, WriteToReadOnlyPath) {
  slab::testing::Engine e;
  Files files(e.comm());
  auto a = Array<double>::from_function(e, slab::Shape{8, 2}, Split::rows,
                                        [](std::int64_t i, std::int64_t j) { return double(i + j); });
  // A folder without write permission; root ignores permissions, so as root /proc (never writable) stands in.
  std::string folder = files.dir.file("readonly");
  if (e.comm().rank() == 0) ::mkdir(folder.c_str(), 0555);
  e.comm().barrier();
  if (::geteuid() == 0) folder = "/proc";
  const std::string path = folder + "/out.h5";
  expect_error(e.comm(), "IoError", path + ": cannot create: ", [&] { slab::io::write_hdf5(a, path, "/A"); });
  EXPECT_FALSE(std::filesystem::exists(path));
  // What failed, in one line: the system's reason, not HDF5's error stack ("H5Fcreate(): ...; H5F_open(): ...").
  std::string m;
  try {
    slab::io::write_hdf5(a, path, "/A");
  } catch (const slab::IoError& ex) {
    m = ex.message();
  }
  EXPECT_EQ(m.find("H5"), std::string::npos) << m;
  EXPECT_EQ(m.find("; "), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  if (::geteuid() == 0) EXPECT_EQ(m, path + ": cannot create: no such file or directory");
}

}  // namespace
