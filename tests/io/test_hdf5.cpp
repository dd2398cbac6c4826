// Parallel HDF5: Array round trips across splits, chunked + deflate reads, atomic replacement, bad inputs.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdio>
#include <fstream>

#include "io_test_util.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/version.hpp"
#include "slab/engine/engine.hpp"
#include "slab/io/array_io.hpp"
#include "slab/io/hdf5.hpp"
#include "slab/memory/checksum.hpp"
#include "slab/runtime/execution_context.hpp"

namespace {

using iotest::Engine;
using iotest::ScratchDir;

double value(std::int64_t i, std::int64_t j) {
  return slab::counter_uniform(20, static_cast<std::uint64_t>(i * 1000 + j));
}

// Serial HDF5 on rank 0 (plain C API), then a barrier: files the library did not write.
template <class F>
void on_rank0(const slab::Comm& comm, F&& f) {
  if (comm.rank() == 0) f();
  comm.barrier();
}

void make_dataset(const std::string& file, const char* name, hid_t type, int ndims, const hsize_t* dims,
                  const hsize_t* chunk, int deflate, const void* data, hid_t mem_type) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  hid_t space = H5Screate_simple(ndims, dims, nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunk) H5Pset_chunk(dcpl, ndims, chunk);
  if (deflate > 0) H5Pset_deflate(dcpl, deflate);
  hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ASSERT_GE(d, 0);
  if (data) H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(f);
}

// The message every rank got must be the same: compare checksums of the text across ranks.
void expect_same_on_every_rank(const slab::Comm& comm, const std::string& message) {
  const std::uint64_t h = slab::checksum64(message.data(), message.size());
  const std::uint64_t lo = comm.allreduce(h, slab::ReduceOp::min);
  const std::uint64_t hi = comm.allreduce(h, slab::ReduceOp::max);
  EXPECT_EQ(lo, hi) << "ranks disagree: " << message;
}

template <class Fn>
void expect_error(const slab::Comm& comm, Fn&& fn, const std::string& kind, const std::string& needle) {
  std::string message, got_kind = "none";
  try {
    fn();
  } catch (const slab::Error& e) {
    message = e.message();
    got_kind = e.kind();
  }
  EXPECT_EQ(got_kind, kind) << message;
  EXPECT_NE(message.find(needle), std::string::npos) << "expected '" << needle << "' in: " << message;
  expect_same_on_every_rank(comm, message);
}

}  // namespace

TEST(Hdf5, ArrayRoundTripAcrossSplits) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = dir.file("round.h5");
  auto a = slab::Array<double>::from_function(e, slab::Shape{37, 23}, slab::Split::rows, value, 5);
  slab::io::write_hdf5(a, file, "/A");
  auto expected = a.gather_all();
  for (auto split : {slab::Split::rows, slab::Split::cols, slab::Split::none}) {
    auto b = slab::io::read_hdf5<double>(e, file, "/A", split, {4});
    EXPECT_EQ(b.rows(), 37);
    EXPECT_EQ(b.cols(), 23);
    EXPECT_EQ(b.gather_all(), expected) << slab::to_string(split);
  }
  // Written from a column split with file chunks, read back by rows.
  auto c = slab::Array<double>::from_function(e, slab::Shape{19, 41}, slab::Split::cols, value, 3);
  slab::io::write_hdf5(c, file, "/C", {8, 8});
  auto info = slab::io::inspect(e.comm(), file, "/C");
  EXPECT_EQ(info.chunk, (std::vector<std::uint64_t>{8, 8}));
  EXPECT_EQ(slab::io::read_hdf5<double>(e, file, "/C", slab::Split::rows).gather_all(), c.gather_all());
  // int64 and float32, 1-D.
  auto i64 = slab::Array<std::int64_t>::from_function(
      e, slab::Shape{101}, slab::Split::rows, [](std::int64_t i, std::int64_t) { return i * i - 7; }, 10);
  slab::io::write_hdf5(i64, file, "/I");
  auto i64b = slab::io::read_hdf5<std::int64_t>(e, file, "/I", slab::Split::rows, {3});
  EXPECT_EQ(i64b.ndim(), 1);
  EXPECT_EQ(i64b.gather_all(), i64.gather_all());
  auto f32 = slab::Array<float>::from_function(e, slab::Shape{9, 4}, slab::Split::rows, value);
  slab::io::write_hdf5(f32, file, "/F");
  EXPECT_EQ(slab::io::read_hdf5<float>(e, file, "/F", slab::Split::cols).gather_all(), f32.gather_all());
  EXPECT_EQ(slab::io::inspect(e.comm(), file, "/F").type, slab::ElementType::float32);
}

// Where the device tier is not host memory, reads go through staging in slabs of whole rows and writes through a
// staging block a round (io::read_block_to, write_hdf5): on the reference place the same loops copy host memory,
// so the slabs' offsets and the rounds are checked here against the host's bytes. A host limit of 512 KiB makes
// the read slabs 64 KiB (several per chunk, the last one shorter).
TEST(Hdf5, StagedReadsAndWritesOnTheReferencePlaceAreTheHostsBytes) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  Engine host;
  ScratchDir dir(host.comm());
  const std::string file = dir.file("staged.h5");
  auto a = slab::Array<double>::from_function(host, slab::Shape{1031, 37}, slab::Split::rows, value, 97);
  slab::io::write_hdf5(a, file, "/A");
  const auto expected = a.gather_all();
  slab::EngineOptions o = slab::testing::engine_options(64ull << 20, 512ull << 10);
  o.reference_kernels = true;
  slab::Engine ref(o);
  ASSERT_EQ(ref.execution().place(), slab::ExecutionPlace::reference);
  for (auto split : {slab::Split::rows, slab::Split::cols, slab::Split::none}) {
    auto b = slab::io::read_hdf5<double>(ref, file, "/A", split, {300});
    EXPECT_EQ(b.gather_all(), expected) << "read, " << slab::to_string(split);
    slab::io::write_hdf5(b, file, "/B");  // staged a round at a time, the next round's copy before this write
    EXPECT_EQ(slab::io::read_hdf5<double>(host, file, "/B", slab::Split::rows).gather_all(), expected)
        << "written, " << slab::to_string(split);
  }
  // The slabs directly: every row range against a plain read, into memory of the reference place.
  const auto info = slab::io::inspect(ref.comm(), file, "/A");
  std::vector<double> want(37 * 1031), got(37 * 1031, -1.0);
  slab::io::read_block(info, 0, 1031, 0, 37, slab::ElementType::float64, want.data());
  slab::io::read_block_to(info, 0, 1031, 0, 37, slab::ElementType::float64, got.data(), ref.memory(), 1000);
  EXPECT_EQ(got, want) << "slabs of 3 rows";
  std::vector<double> part(5 * 30, -1.0), part_want(5 * 30);
  slab::io::read_block(info, 1000, 30, 2, 5, slab::ElementType::float64, part_want.data());
  slab::io::read_block_to(info, 1000, 30, 2, 5, slab::ElementType::float64, part.data(), ref.memory(), 1);
  EXPECT_EQ(part, part_want) << "one row a slab, a hyperslab";
}

TEST(Hdf5, ReadIsLazyAndTracedAsIo) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = dir.file("lazy.h5");
  auto a = slab::Array<double>::from_function(e, slab::Shape{40, 6}, slab::Split::rows, value, 4);
  slab::io::write_hdf5(a, file, "/A");
  e.tasks().persist_all();
  const auto before = e.tasks().stats().executed;
  auto b = slab::io::read_hdf5<double>(e, file, "/A", slab::Split::rows, {3});
  EXPECT_EQ(e.tasks().stats().executed, before);  // nothing read yet
  const std::size_t events = e.tracer().events().size();
  b.persist();
  std::size_t io = 0;
  for (std::size_t i = events; i < e.tracer().events().size(); ++i)
    io += e.tracer().events()[i].kind == slab::TraceKind::io && e.tracer().events()[i].name == "hdf5.read";
  EXPECT_EQ(io, b.num_local_chunks());
  EXPECT_EQ(b.gather_all(), a.gather_all());
}

TEST(Hdf5, ChunkedDeflateAndContiguousDatasetsRead) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = dir.file("serial.h5");
  const std::int64_t r = 50, c = 31;
  std::vector<double> data(r * c);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) data[i * c + j] = value(i, j);
  on_rank0(e.comm(), [&] {
    hsize_t dims[2] = {50, 31}, chunk[2] = {7, 5};
    make_dataset(file, "/deflated", H5T_IEEE_F64LE, 2, dims, chunk, 6, data.data(), H5T_NATIVE_DOUBLE);
    make_dataset(file, "/contiguous", H5T_IEEE_F64LE, 2, dims, nullptr, 0, data.data(), H5T_NATIVE_DOUBLE);
    H5Fclose(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(f, "/group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
    make_dataset(file, "/group/big_endian", H5T_IEEE_F64BE, 2, dims, chunk, 1, data.data(), H5T_NATIVE_DOUBLE);
  });
  auto info = slab::io::inspect(e.comm(), file, "/deflated");
  EXPECT_TRUE(info.filtered);
  EXPECT_EQ(info.chunk, (std::vector<std::uint64_t>{7, 5}));
  EXPECT_FALSE(slab::io::inspect(e.comm(), file, "contiguous").filtered);
  for (const char* name : {"/deflated", "/contiguous", "/group/big_endian"})
    for (auto split : {slab::Split::rows, slab::Split::cols}) {
      auto a = slab::io::read_hdf5<double>(e, file, name, split, {3});
      EXPECT_EQ(a.gather_all(), data) << name << " " << slab::to_string(split);
    }
  // A hyperslab straight into a buffer, unaligned to the file's chunks.
  std::vector<double> block(9 * 4);
  slab::io::read_block(info, 10, 9, 27, 4, slab::ElementType::float64, block.data());
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(block[i * 4 + j], data[(10 + i) * c + 27 + j]);
  expect_error(
      e.comm(), [&] { slab::io::read_block(info, 45, 9, 0, 1, slab::ElementType::float64, block.data()); },
      "ShapeError", "outside the dataset");
}

TEST(Hdf5, ReplacingADatasetLeavesTheOthersAndNoTemporary) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = dir.file("replace.h5");
  auto a = slab::Array<double>::from_function(e, slab::Shape{30, 8}, slab::Split::rows, value);
  auto b = slab::Array<double>::from_function(e, slab::Shape{12, 3}, slab::Split::rows,
                                              [](std::int64_t i, std::int64_t j) { return i - j; });
  slab::io::write_hdf5(a, file, "/A");
  slab::io::write_hdf5(b, file, "/B");
  const auto before = slab::io::dataset_checksum(slab::io::inspect(e.comm(), file, "/B"));
  // A different shape under the same name replaces /A.
  auto a2 = slab::Array<double>::from_function(e, slab::Shape{5, 50}, slab::Split::cols,
                                               [](std::int64_t i, std::int64_t j) { return 1.5 * i + j; });
  slab::io::write_hdf5(a2, file, "/A");
  EXPECT_EQ(slab::io::read_hdf5<double>(e, file, "/A", slab::Split::rows).gather_all(), a2.gather_all());
  EXPECT_EQ(slab::io::dataset_checksum(slab::io::inspect(e.comm(), file, "/B")), before);
  EXPECT_FALSE(slab::io::exists(e.comm(), file, "/.A.slab-tmp"));
  EXPECT_TRUE(slab::io::exists(e.comm(), file, "/B"));

  // A failed write (one rank writes outside the dataset) leaves the old /A in place.
  {
    std::string kind;
    try {
      slab::io::DatasetWriter w(e.comm(), file, "/A", slab::ElementType::float64, {4, 4});
      std::vector<double> zeros(16, 0.0);
      e.comm().run_collectively([&] {
        if (e.comm().rank() == e.comm().size() - 1) w.write(2, 4, 0, 4, zeros.data());
      });
      w.commit();
    } catch (const slab::Error& err) {
      kind = err.kind();
    }
    EXPECT_EQ(kind, "ShapeError");
  }
  EXPECT_EQ(slab::io::read_hdf5<double>(e, file, "/A", slab::Split::rows).gather_all(), a2.gather_all());
  // The stale temporary from the failed write is cleaned up by the next writer.
  slab::io::write_hdf5(a, file, "/A");
  EXPECT_FALSE(slab::io::exists(e.comm(), file, "/.A.slab-tmp"));
  EXPECT_EQ(slab::io::read_hdf5<double>(e, file, "/A", slab::Split::cols).gather_all(), a.gather_all());
}

TEST(Hdf5, BadInputsAreTheSameClearErrorOnEveryRank) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string good = dir.file("good.h5");
  const std::string text = dir.file("notes.txt");
  on_rank0(e.comm(), [&] {
    std::ofstream(text) << "this is not an HDF5 file\n";
    hsize_t d3[3] = {2, 3, 4}, d2[2] = {3, 4};
    std::vector<double> zeros(24, 0.0);
    std::vector<int> ints(12, 1);
    make_dataset(good, "/cube", H5T_IEEE_F64LE, 3, d3, nullptr, 0, zeros.data(), H5T_NATIVE_DOUBLE);
    make_dataset(good, "/ints", H5T_STD_I32LE, 2, d2, nullptr, 0, ints.data(), H5T_NATIVE_INT);
    make_dataset(good, "/ok", H5T_IEEE_F64LE, 2, d2, nullptr, 0, zeros.data(), H5T_NATIVE_DOUBLE);
    hid_t f = H5Fopen(good.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(f, "/grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
  });
  auto read = [&](const std::string& file, const std::string& ds) {
    return [&e, file, ds] { (void)slab::io::read_hdf5<double>(e, file, ds, slab::Split::rows); };
  };
  const std::string missing = dir.file("missing.h5");
  expect_error(e.comm(), read(missing, "/X"), "IoError", missing + ": no such file");
  expect_error(e.comm(), read(text, "/X"), "IoError", text + ": not an HDF5 file");
  expect_error(e.comm(), read(good, "/X"), "IoError", good + ": no dataset '/X'");
  expect_error(e.comm(), read(good, "/nogroup/X"), "IoError", good + ": no dataset '/nogroup/X'");
  expect_error(e.comm(), read(good, "/grp"), "IoError", good + ":/grp is not a dataset");
  expect_error(e.comm(), read(good, "/cube"), "ShapeError", good + ":/cube has rank 3; expected 1 or 2");
  expect_error(e.comm(), read(good, "/ints"), "TypeError", good + ":/ints is int32; expected float64");
  expect_error(
      e.comm(), [&] { (void)slab::io::read_hdf5<std::int64_t>(e, good, "/ok", slab::Split::rows); }, "TypeError",
      good + ":/ok is float64; expected int64");
  // Writing over a file that is not HDF5 is refused, and the file is left alone.
  auto a = slab::Array<double>::from_function(e, slab::Shape{4, 4}, slab::Split::rows, value);
  expect_error(
      e.comm(), [&] { slab::io::write_hdf5(a, text, "/A"); }, "IoError", "not an HDF5 file");
  expect_error(
      e.comm(), [&] { slab::io::write_hdf5(a, good, "/grp"); }, "IoError", "is not a dataset");
  expect_error(
      e.comm(), [&] { slab::io::write_hdf5(a, good, "/nogroup/A"); }, "IoError", "no group '/nogroup'");
  std::ifstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "this is not an HDF5 file");
  // The file is still usable after all that.
  auto ok = slab::io::read_hdf5<double>(e, good, "/ok", slab::Split::rows);
  EXPECT_EQ(ok.gather_all(), std::vector<double>(12, 0.0));
}

TEST(Hdf5, WriteGeneratedTilesMatchTheFormula) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = dir.file("gen.h5");
  const std::uint64_t rows = 23, cols = 57;
  slab::io::write_generated(e.comm(), file, "/X", slab::ElementType::float64, {rows, cols}, {10, 16}, 10, 16,
                            [&](std::uint64_t r0, std::uint64_t nr, std::uint64_t c0, std::uint64_t nc, void* out) {
                              auto* x = static_cast<double*>(out);
                              for (std::uint64_t i = 0; i < nr; ++i)
                                for (std::uint64_t j = 0; j < nc; ++j)
                                  x[i * nc + j] = slab::counter_uniform(2, (r0 + i) * cols + c0 + j);
                            });
  auto x = slab::io::read_hdf5<double>(e, file, "/X", slab::Split::cols).gather_all();
  ASSERT_EQ(x.size(), rows * cols);
  for (std::uint64_t k = 0; k < rows * cols; ++k) ASSERT_EQ(x[k], slab::counter_uniform(2, k)) << k;
}
