// int32 and float32 HDF5 datasets: read as stored (Array<std::int32_t>, Array<float>), widened on request
// (ReadOptions::widen: int32 -> int64 / float64, float32 -> float64), never narrowed, and written back. The files
// are made on rank 0 with the plain HDF5 C API; the reference is the data written, converted in the test.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io_test_util.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/io/array_io.hpp"
#include "slab/io/hdf5.hpp"
#include "slab/memory/checksum.hpp"

namespace {

using iotest::Engine;
using iotest::ScratchDir;
using slab::Split;

constexpr std::int32_t i32_min = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t i32_max = std::numeric_limits<std::int32_t>::max();

// 9 x 4 int32 with both extremes; 9 x 4 float32 with values float64 cannot hold exactly as written (0.1f), NaN,
// infinities, -0.0 and a subnormal.
std::vector<std::int32_t> ints() {
  std::vector<std::int32_t> v;
  for (int k = 0; k < 36; ++k) v.push_back(k == 5 ? i32_min : k == 6 ? i32_max : (k * 7919) % 1001 - 500);
  return v;
}
std::vector<float> floats() {
  std::vector<float> v;
  for (int k = 0; k < 36; ++k) v.push_back(0.1f * static_cast<float>(k) - 1.5f);
  v[3] = std::numeric_limits<float>::quiet_NaN();
  v[4] = std::numeric_limits<float>::infinity();
  v[5] = -std::numeric_limits<float>::infinity();
  v[6] = -0.0f;
  v[7] = std::numeric_limits<float>::denorm_min();
  return v;
}

void dataset(hid_t f, const char* name, hid_t file_type, std::vector<hsize_t> dims, std::vector<hsize_t> chunk,
             int deflate, hid_t mem_type, const void* data) {
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (!chunk.empty()) H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
  if (deflate > 0) H5Pset_deflate(dcpl, deflate);
  const hid_t d = H5Dcreate2(f, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
}

// The test file, written by rank 0 alone, then a barrier.
std::string make_file(const slab::Comm& comm, const ScratchDir& dir) {
  const std::string path = dir.file("dtypes.h5");
  if (comm.rank() == 0) {
    const auto i = ints();
    const auto x = floats();
    const std::vector<double> d(x.begin(), x.end());
    const std::vector<std::int64_t> l(i.begin(), i.end());
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    dataset(f, "/i32", H5T_STD_I32LE, {9, 4}, {2, 4}, 0, H5T_NATIVE_INT32, i.data());
    dataset(f, "/i32_be", H5T_STD_I32BE, {9, 4}, {}, 0, H5T_NATIVE_INT32, i.data());  // big-endian on disk
    dataset(f, "/i32_1d", H5T_STD_I32LE, {36}, {5}, 4, H5T_NATIVE_INT32, i.data());   // chunked + deflate
    dataset(f, "/f32", H5T_IEEE_F32LE, {9, 4}, {3, 2}, 0, H5T_NATIVE_FLOAT, x.data());
    dataset(f, "/f32_1d", H5T_IEEE_F32LE, {36}, {}, 0, H5T_NATIVE_FLOAT, x.data());
    dataset(f, "/f64", H5T_IEEE_F64LE, {9, 4}, {}, 0, H5T_NATIVE_DOUBLE, d.data());
    dataset(f, "/i64", H5T_STD_I64LE, {9, 4}, {}, 0, H5T_NATIVE_INT64, l.data());
    dataset(f, "/i16", H5T_STD_I16LE, {9, 4}, {}, 0, H5T_NATIVE_INT32, i.data());
    H5Fclose(f);
  }
  comm.barrier();
  return path;
}

// Bitwise equality that treats NaN as equal to NaN and tells -0.0 from 0.0.
template <class T>
void expect_bits(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[k])) {
        EXPECT_TRUE(std::isnan(got[k])) << what << "[" << k << "]";
        continue;
      }
      EXPECT_EQ(std::signbit(got[k]), std::signbit(want[k])) << what << "[" << k << "]";
    }
    EXPECT_EQ(got[k], want[k]) << what << "[" << k << "]";
  }
}

template <class Fn>
std::string type_error(const slab::Comm& comm, Fn&& fn) {
  std::string message = "no TypeError";
  try {
    fn();
  } catch (const slab::TypeError& e) {
    message = e.message();
  }
  const std::uint64_t h = slab::checksum64(message.data(), message.size());
  EXPECT_EQ(comm.allreduce(h, slab::ReduceOp::min), comm.allreduce(h, slab::ReduceOp::max))
      << "ranks disagree: " << message;
  return message;
}

}  // namespace

TEST(Hdf5Dtypes, Int32AndFloat32ReadAsStored) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = make_file(e.comm(), dir);
  EXPECT_EQ(slab::io::inspect(e.comm(), file, "/i32").type, slab::ElementType::int32);
  EXPECT_EQ(slab::io::inspect(e.comm(), file, "/f32").type, slab::ElementType::float32);
  std::int64_t sum = 0;
  for (auto v : ints()) sum += v;
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    const std::string what = slab::to_string(s);
    const auto i = slab::io::read_hdf5<std::int32_t>(e, file, "/i32", s, {3});  // 3 rows: not the file's 2
    EXPECT_EQ(i.shape(), (slab::Shape{9, 4})) << what;
    EXPECT_EQ(i.gather_all(), ints()) << what;
    expect_bits(slab::io::read_hdf5<float>(e, file, "/f32", s).gather_all(), floats(), what);
    // The arrays compute as any other: an int32 sum is int64 (NumPy's), so the extremes do not wrap.
    EXPECT_EQ(slab::sum(i), sum) << what;
    EXPECT_EQ(slab::min(i), i32_min) << what;
  }
  // 1-D, compressed, big-endian on disk.
  const auto i1 = slab::io::read_hdf5<std::int32_t>(e, file, "/i32_1d", Split::rows, {4});
  EXPECT_EQ(i1.ndim(), 1);
  EXPECT_EQ(i1.gather_all(), ints());
  EXPECT_EQ(slab::io::read_hdf5<std::int32_t>(e, file, "/i32_be", Split::cols).gather_all(), ints());
  expect_bits(slab::io::read_hdf5<float>(e, file, "/f32_1d", Split::rows, {5}).gather_all(), floats(), "1-D");
}

TEST(Hdf5Dtypes, WidensExactlyOnRequest) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = make_file(e.comm(), dir);
  const slab::io::ReadOptions widen{.chunk = 2, .widen = true};
  const auto i = ints();
  const auto x = floats();
  for (Split s : {Split::rows, Split::cols}) {
    const std::string what = slab::to_string(s);
    EXPECT_EQ(slab::io::read_hdf5<std::int64_t>(e, file, "/i32", s, widen).gather_all(),
              std::vector<std::int64_t>(i.begin(), i.end()))
        << what;
    expect_bits(slab::io::read_hdf5<double>(e, file, "/i32", s, widen).gather_all(),
                std::vector<double>(i.begin(), i.end()), what);
    // float32 -> float64 keeps each float32 value exactly (0.1f stays 0.100000001490116..., not 0.1).
    expect_bits(slab::io::read_hdf5<double>(e, file, "/f32", s, widen).gather_all(),
                std::vector<double>(x.begin(), x.end()), what);
  }
  EXPECT_EQ(slab::io::read_hdf5<std::int64_t>(e, file, "/i32_1d", Split::none, widen).gather_all(),
            std::vector<std::int64_t>(i.begin(), i.end()));
  // The stored dtype needs no option.
  EXPECT_EQ(slab::io::read_hdf5<std::int64_t>(e, file, "/i64", Split::rows, widen).rows(), 9);
}

TEST(Hdf5Dtypes, NeverNarrowsAndWidensOnlyWhenAsked) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = make_file(e.comm(), dir);
  const slab::io::ReadOptions widen{.widen = true};
  auto read = [&](auto t, const char* ds, slab::io::ReadOptions o) {
    using T = decltype(t);
    return [&e, &file, ds, o] { (void)slab::io::read_hdf5<T>(e, file, ds, Split::rows, o); };
  };
  const std::string name = file + ":";
  // Exact widenings without the option: refused, saying how to ask.
  EXPECT_NE(type_error(e.comm(), read(std::int64_t{}, "/i32", {}))
                .find(name + "/i32 is int32; expected int64 (ReadOptions::widen = true reads int32 as int64, exactly)"),
            std::string::npos);
  EXPECT_NE(type_error(e.comm(), read(double{}, "/f32", {})).find(name + "/f32 is float32; expected float64 ("),
            std::string::npos);
  // Narrowing or rounding: refused with the option too.
  for (const auto& [msg, expect] : std::vector<std::pair<std::string, std::string>>{
           {type_error(e.comm(), read(float{}, "/f64", widen)), "/f64 is float64; expected float32"},
           {type_error(e.comm(), read(std::int32_t{}, "/i64", widen)), "/i64 is int64; expected int32"},
           {type_error(e.comm(), read(double{}, "/i64", widen)), "/i64 is int64; expected float64"},
           {type_error(e.comm(), read(float{}, "/i32", widen)), "/i32 is int32; expected float32"},
           {type_error(e.comm(), read(std::int64_t{}, "/f32", widen)), "/f32 is float32; expected int64"},
           {type_error(e.comm(), read(std::int32_t{}, "/f32", widen)), "/f32 is float32; expected int32"}}) {
    EXPECT_NE(msg.find(name + expect), std::string::npos) << msg;
    EXPECT_NE(msg.find("never done implicitly"), std::string::npos) << msg;
  }
  // A dtype slab has no Array of.
  EXPECT_NE(type_error(e.comm(), read(double{}, "/i16", widen))
                .find(name + "/i16 has dtype int16; expected float32, float64, int32 or int64"),
            std::string::npos);
}

TEST(Hdf5Dtypes, Int32AndFloat32ArraysWriteAndReadBack) {
  Engine e;
  ScratchDir dir(e.comm());
  const std::string file = dir.file("out.h5");
  const auto i = ints();
  const auto x = floats();
  for (Split s : {Split::rows, Split::cols}) {
    const std::string what = slab::to_string(s);
    const auto a = slab::Array<std::int32_t>::from_function(
        e, {9, 4}, s, [&](std::int64_t r, std::int64_t c) { return i[static_cast<std::size_t>(r * 4 + c)]; }, 2);
    const auto b = slab::Array<float>::from_function(
        e, {36}, s, [&](std::int64_t r, std::int64_t) { return x[static_cast<std::size_t>(r)]; }, 5);
    slab::io::write_hdf5(a, file, "/a");
    slab::io::write_hdf5(b, file, "/b", {8});
    EXPECT_EQ(slab::io::inspect(e.comm(), file, "/a").type, slab::ElementType::int32) << what;
    EXPECT_EQ(slab::io::inspect(e.comm(), file, "/b").type, slab::ElementType::float32) << what;
    EXPECT_EQ(slab::io::read_hdf5<std::int32_t>(e, file, "/a", Split::rows).gather_all(), i) << what;
    expect_bits(slab::io::read_hdf5<float>(e, file, "/b", Split::cols).gather_all(), x, what);
  }
}
