// Gram matrices: X X^T out of core from HDF5 (memory bound, reference dgemm, X untouched), A^T A.
// Built into test_io (tests/io/CMakeLists.txt): it needs the HDF5 layer.
#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>

#include "../io/io_test_util.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/io/hdf5.hpp"
#include "slab/linalg/gram.hpp"

namespace {

using iotest::Engine;
using iotest::ScratchDir;

void generate_x(const slab::Comm& comm, const std::string& file, std::uint64_t rows, std::uint64_t cols,
                std::uint64_t chunk_cols) {
  slab::io::write_generated(comm, file, "/X", slab::ElementType::float64, {rows, cols}, {rows, chunk_cols}, rows,
                            chunk_cols,
                            [&](std::uint64_t r0, std::uint64_t nr, std::uint64_t c0, std::uint64_t nc, void* out) {
                              auto* x = static_cast<double*>(out);
                              for (std::uint64_t i = 0; i < nr; ++i)
                                for (std::uint64_t j = 0; j < nc; ++j)
                                  x[i * nc + j] = slab::counter_uniform(2, (r0 + i) * cols + c0 + j);
                            });
}

std::vector<double> reference_xxt(const slab::io::DatasetInfo& x) {
  const std::uint64_t n = x.rows(), m = x.cols();
  std::vector<double> xs(n * m), y(n * n, 0.0);
  slab::io::read_block(x, 0, n, 0, m, slab::ElementType::float64, xs.data());
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(n), static_cast<int>(n), static_cast<int>(m),
              1.0, xs.data(), static_cast<int>(m), xs.data(), static_cast<int>(m), 0.0, y.data(), static_cast<int>(n));
  return y;
}

}  // namespace

TEST(Gram, BlockWidthFollowsTheMemoryLimit) {
  // n = 5000: accumulator 200 MB; 1 GiB leaves room for two blocks of 10,000 columns (rounded to chunks).
  EXPECT_EQ(slab::linalg::gram_block_cols(5000, 100000, 1ull << 30, 5000, 2), 10000u);
  EXPECT_EQ(slab::linalg::gram_block_cols(5000, 100000, 1ull << 30, 0, 2), 10921u);
  EXPECT_EQ(slab::linalg::gram_block_cols(10, 7, 1ull << 30, 0, 4), 2u);  // every rank gets work
  std::string message;
  try {
    (void)slab::linalg::gram_block_cols(5000, 100000, 100u << 20, 5000, 2);
  } catch (const slab::OutOfMemory& e) {
    message = e.message();
  }
  EXPECT_NE(message.find("accumulator"), std::string::npos) << message;
  EXPECT_NE(message.find("--memory-limit"), std::string::npos) << message;
}

TEST(Gram, XXtOutOfCoreMatchesDgemmUnderTheLimitAndLeavesXIntact) {
  const std::uint64_t n = 64, m = 20000;
  const std::uint64_t x_bytes = n * m * sizeof(double);  // 10 MB
  const std::uint64_t limit = x_bytes / 5;               // several times smaller than X
  Engine e(limit, limit);
  ScratchDir dir(e.comm());
  const std::string file = dir.file("w2small.h5");
  generate_x(e.comm(), file, n, m, 1000);
  const auto x = slab::io::inspect(e.comm(), file, "/X", slab::ElementType::float64);
  const std::uint64_t before = slab::io::dataset_checksum(x);

  slab::linalg::GramReport rep;
  auto y = slab::linalg::gram_xxt(e, x, file, "/Y", {}, &rep, true);
  EXPECT_EQ(rep.n, n);
  EXPECT_EQ(rep.m, m);
  EXPECT_EQ(rep.block_cols % 1000, 0u);
  EXPECT_GT(rep.blocks, 1u);
  const auto stats = e.memory().stats();
  EXPECT_LE(stats.device.high_water, limit);
  EXPECT_LE(stats.device.high_water, n * n * 8 + n * rep.block_cols * 8) << "one accumulator and one block";
  EXPECT_EQ(stats.spilled_to_host_count, 0u);

  EXPECT_EQ(slab::io::dataset_checksum(x), before) << "writing Y modified X";
  const auto yi = slab::io::inspect(e.comm(), file, "/Y", slab::ElementType::float64);
  EXPECT_EQ(yi.shape, (std::vector<std::uint64_t>{n, n}));
  std::vector<double> stored(n * n);
  slab::io::read_block(yi, 0, n, 0, n, slab::ElementType::float64, stored.data());
  const auto ref = reference_xxt(x);
  if (e.comm().rank() == 0) {
    ASSERT_EQ(y.size(), n * n);
    EXPECT_EQ(y, stored);
  } else {
    EXPECT_TRUE(y.empty());
  }
  double err = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      EXPECT_EQ(stored[i * n + j], stored[j * n + i]);
      err = std::max(err, std::fabs(stored[i * n + j] - ref[i * n + j]) / std::fabs(ref[i * n + j]));
    }
  EXPECT_LT(err, 1e-12);

  // A second run replaces /Y (same values), still leaving X alone; a tiny explicit block width works too.
  slab::linalg::GramOptions narrow;
  narrow.block_cols = 777;
  (void)slab::linalg::gram_xxt(e, x, file, "/Y", narrow, &rep);
  EXPECT_EQ(rep.blocks, (m + 776) / 777);
  EXPECT_EQ(slab::io::dataset_checksum(x), before);
  std::vector<double> again(n * n);
  slab::io::read_block(yi, 0, n, 0, n, slab::ElementType::float64, again.data());
  double diff = 0;
  for (std::uint64_t k = 0; k < n * n; ++k)
    diff = std::max(diff, std::fabs(again[k] - stored[k]) / std::fabs(stored[k]));
  EXPECT_LT(diff, 1e-12);
  EXPECT_FALSE(slab::io::exists(e.comm(), file, "/.Y.slab-tmp"));
}

TEST(Gram, AccumulatorLargerThanTheLimitIsOutOfMemoryOnEveryRank) {
  Engine e(16 * 1024, 16 * 1024);  // a 64 x 64 accumulator needs 32 KiB
  ScratchDir dir(e.comm());
  const std::string file = dir.file("oom.h5");
  generate_x(e.comm(), file, 64, 100, 50);
  const auto x = slab::io::inspect(e.comm(), file, "/X");
  std::string kind, message;
  try {
    (void)slab::linalg::gram_xxt(e, x, file, "/Y");
  } catch (const slab::Error& err) {
    kind = err.kind();
    message = err.message();
  }
  EXPECT_EQ(kind, "OutOfMemory");
  EXPECT_NE(message.find("accumulator"), std::string::npos) << message;
  EXPECT_FALSE(slab::io::exists(e.comm(), file, "/Y"));
}

TEST(Gram, AtAOfARowSplitArray) {
  Engine e;
  const std::int64_t m = 1003, k = 17;
  auto a = slab::Array<double>::from_function(
      e, slab::Shape{m, k}, slab::Split::rows,
      [](std::int64_t i, std::int64_t j) {
        return slab::counter_uniform(30, static_cast<std::uint64_t>(i * 17 + j)) - 0.5;
      },
      100);
  auto g = slab::linalg::gram_ata(a);
  auto full = a.gather_all();
  std::vector<double> ref(k * k, 0.0);
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, k, m, 1.0, full.data(), k, full.data(), k, 0.0, ref.data(),
              k);
  ASSERT_EQ(g.size(), static_cast<std::size_t>(k * k));
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < k; ++j) {
      EXPECT_EQ(g[i * k + j], g[j * k + i]);
      EXPECT_NEAR(g[i * k + j], ref[i * k + j], 1e-10 * std::fabs(ref[i * k + j]) + 1e-12);
    }
  std::string kind;
  try {
    (void)slab::linalg::gram_ata(a.resplit(slab::Split::cols));
  } catch (const slab::Error& err) {
    kind = err.kind();
  }
  EXPECT_EQ(kind, "ShapeError");
}
