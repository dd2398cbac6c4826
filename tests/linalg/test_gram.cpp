// Gram matrices: X X^T out of core from HDF5 (memory bound, reference dgemm, X untouched), also written as
// slab::matmul(x, slab::transpose(x)) of an array read from the file, and A^T A.
// Built into test_io (tests/io/CMakeLists.txt): it needs the HDF5 layer.
#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>

#include "../io/io_test_util.hpp"
#include "linalg/gram_tiles.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/io/array_io.hpp"
#include "slab/io/hdf5.hpp"
#include "slab/linalg/gram.hpp"
#include "slab/linalg/matmul.hpp"

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
  EXPECT_EQ(slab::linalg::gram_block_cols(10, 7, 1ull << 30, 0, 4), 1u);  // every rank gets work, in blocks
  // Memory for one block of all 100,000 columns, but four blocks a rank so that reading overlaps the dsyrk.
  EXPECT_EQ(slab::linalg::gram_block_cols(100, 100000, 1ull << 30, 0, 1), 25000u);
  EXPECT_EQ(slab::linalg::gram_block_cols(100, 100000, 1ull << 30, 1000, 4), 6000u);
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
  EXPECT_LE(stats.device.high_water, n * n * 8 + 2 * n * rep.block_cols * 8)
      << "one accumulator, the block multiplied and the one read ahead";
  const auto prefetch = stats.reserved_peak_by_purpose.find("gram prefetch");
  ASSERT_NE(prefetch, stats.reserved_peak_by_purpose.end()) << "the block read ahead is reserved";
  EXPECT_LE(prefetch->second, n * rep.block_cols * 8) << "one block read ahead, never more";
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

TEST(Gram, MatmulOfAnHdf5ArrayAndItsTransposeIsGramXXtOutOfCore) {
  // The seed's cell as a NumPy user writes it: Y = X @ X.T of X in a file, written into the same file.
  const std::uint64_t n = 64, m = 20000;
  const std::uint64_t x_bytes = n * m * sizeof(double);  // 10 MB
  const std::uint64_t limit = x_bytes / 5;               // several times smaller than X
  Engine e(limit, limit);
  ScratchDir dir(e.comm());
  const std::string file = dir.file("seed.h5");
  generate_x(e.comm(), file, n, m, 1000);
  const auto info = slab::io::inspect(e.comm(), file, "/X", slab::ElementType::float64);
  const std::uint64_t before = slab::io::dataset_checksum(info);
  const std::uint64_t budget = e.comm().allreduce(e.memory().budget(1), slab::ReduceOp::min);
  const std::uint64_t k = slab::linalg::gram_block_cols(n, m, budget, 1000, e.comm().size());

  auto x = slab::io::read_hdf5<double>(e, file, "/X", slab::Split::rows);
  const std::uint64_t executed = e.tasks().stats().executed;
  auto y = slab::matmul(x, slab::transpose(x));
  EXPECT_EQ(e.tasks().stats().executed, executed) << "matmul only records";
  EXPECT_EQ(y.shape(), (slab::Shape{std::int64_t(n), std::int64_t(n)}));
  EXPECT_EQ(y.split(), slab::Split::rows);
  slab::io::write_hdf5(y, file, "/Y");

  const auto stats = e.memory().stats();
  EXPECT_LE(stats.device.high_water, limit);
  EXPECT_LE(stats.device.high_water, n * n * 8 + 2 * n * k * 8)
      << "one accumulator and two column blocks, as gram_xxt: X (" << x_bytes << " bytes) is never held";
  const auto acc = stats.reserved_peak_by_purpose.find("gram accumulator");
  ASSERT_NE(acc, stats.reserved_peak_by_purpose.end()) << "the accumulator is reserved";
  EXPECT_EQ(acc->second, n * n * 8);
  const auto prefetch = stats.reserved_peak_by_purpose.find("gram prefetch");
  ASSERT_NE(prefetch, stats.reserved_peak_by_purpose.end()) << "the block read ahead is reserved";
  EXPECT_LE(prefetch->second, n * k * 8) << "one block read ahead, never more";
  EXPECT_EQ(stats.spilled_to_host_count, 0u);
  for (std::size_t i = 0; i < x.num_local_chunks(); ++i)
    EXPECT_FALSE(x.local_chunk(i).ready()) << "X's chunks are never read: the pass reads the file in column blocks";
  EXPECT_EQ(slab::io::dataset_checksum(info), before) << "writing Y modified X";
  EXPECT_FALSE(slab::io::exists(e.comm(), file, "/.Y.slab-tmp"));

  // Y is gram_xxt's, bitwise (the same pass, blocks and reduce-scatter), and right against dgemm.
  const auto yi = slab::io::inspect(e.comm(), file, "/Y", slab::ElementType::float64);
  EXPECT_EQ(yi.shape, (std::vector<std::uint64_t>{n, n}));
  std::vector<double> stored(n * n);
  slab::io::read_block(yi, 0, n, 0, n, slab::ElementType::float64, stored.data());
  const auto eager = slab::linalg::gram_xxt(e, info, "", "", {}, nullptr, true);
  if (e.comm().rank() == 0) EXPECT_EQ(eager, stored);
  const auto ref = reference_xxt(info);
  double err = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      EXPECT_EQ(stored[i * n + j], stored[j * n + i]);
      err = std::max(err, std::fabs(stored[i * n + j] - ref[i * n + j]) / std::fabs(ref[i * n + j]));
    }
  EXPECT_LT(err, 1e-12);
  EXPECT_EQ(y.gather_all(), stored) << "the array and the file hold the same Y";
}

TEST(Gram, MatmulOfHdf5ArraysStreamsTheFileForEveryProduct) {
  // X X^T of a tall X and of an X with fewer rows than ranks (some ranks hold no rows of Y) is the Gram's pass too;
  // A^T A reads the file afresh in row blocks. Neither fills X's chunks.
  Engine e;
  ScratchDir dir(e.comm());
  for (const auto& [n, m] : {std::pair<std::uint64_t, std::uint64_t>{30, 7}, {3, 50}}) {
    const std::string file = dir.file("products" + std::to_string(n) + ".h5");
    generate_x(e.comm(), file, n, m, 3);
    const auto info = slab::io::inspect(e.comm(), file, "/X", slab::ElementType::float64);
    std::vector<double> xs(n * m);
    slab::io::read_block(info, 0, n, 0, m, slab::ElementType::float64, xs.data());
    std::vector<double> ref_ata(m * m), ref_xxt(n * n);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(m), int(m), int(n), 1.0, xs.data(), int(m), xs.data(),
                int(m), 0.0, ref_ata.data(), int(m));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(n), int(m), 1.0, xs.data(), int(m), xs.data(),
                int(m), 0.0, ref_xxt.data(), int(n));
    for (const slab::Split split : {slab::Split::rows, slab::Split::cols}) {
      auto x = slab::io::read_hdf5<double>(e, file, "/X", split);
      const auto ata = slab::matmul(slab::transpose(x), x).gather_all();  // m x m
      const auto xxt = slab::matmul(x, slab::transpose(x)).gather_all();  // n x n
      double err = 0;
      for (std::size_t i = 0; i < ref_ata.size(); ++i) err = std::max(err, std::fabs(ata[i] - ref_ata[i]));
      for (std::size_t i = 0; i < ref_xxt.size(); ++i) err = std::max(err, std::fabs(xxt[i] - ref_xxt[i]));
      EXPECT_EQ(ata.size(), ref_ata.size());
      EXPECT_EQ(xxt.size(), ref_xxt.size());
      EXPECT_LT(err, 1e-12) << slab::to_string(split) << " " << n << " x " << m;
      for (std::size_t i = 0; i < x.num_local_chunks(); ++i) EXPECT_FALSE(x.local_chunk(i).ready());
    }
  }
}

namespace {
// This process's resident-set peak since the last reset_peak_rss() (VmHWM), in bytes; 0 where unknown.
std::uint64_t peak_rss() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      std::uint64_t kib = 0;
      in >> kib;
      return kib * 1024;
    }
    std::getline(in, key);
  }
  return 0;
}
// Linux: writing 5 to clear_refs resets VmHWM to the current resident set. False where it cannot.
bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}
}  // namespace

TEST(Gram, ReduceScatterAndWriteHoldOnlyTheAccumulatorAndThisRanksShare) {
  // n = 2560: the accumulator is 52 MB per rank; Y whole would be another 52 MB on the rank that held it.
  const std::uint64_t n = 2560, m = 48;
  const std::uint64_t acc = n * n * 8;
  Engine e(acc + (16u << 20), acc + (16u << 20));
  ScratchDir dir(e.comm());
  const std::string file = dir.file("share.h5");
  generate_x(e.comm(), file, n, m, 16);
  const auto x = slab::io::inspect(e.comm(), file, "/X", slab::ElementType::float64);
  const int p = e.comm().size();
  const auto [row0, rows] = slab::linalg::gram_row_block(n, p, e.comm().rank());

  e.comm().barrier();
  const bool measured = reset_peak_rss();
  const std::uint64_t base = peak_rss();
  slab::linalg::GramReport rep;
  (void)slab::linalg::gram_xxt(e, x, file, "/Y", {}, &rep);
  const std::uint64_t peak = peak_rss();
  EXPECT_EQ(rep.row0, row0);
  EXPECT_EQ(rep.rows, rows);

  // The tier's own count: the accumulator (reserved) and at most two blocks, never a second n x n.
  const auto stats = e.memory().stats();
  EXPECT_LE(stats.device.high_water, acc + 2 * n * rep.block_cols * 8);
  // The process's resident peak: the accumulator (which holds this rank's rows of Y in place), the blocks, the
  // comm layer's two 4 MiB message pieces, and MPI-IO's and HDF5's buffers (slack), never accumulator + Y. Rank 0
  // at 4 ranks measured 86.3-88.1 MB here (20 MiB of slack left it 0.04 MB short one run in six); 24 MiB still
  // keeps the bound under accumulator + Y at 2 ranks (checked below).
  const std::uint64_t share = rows * n * 8, slack = 24u << 20;
  const std::uint64_t bound = acc + share + 2 * n * rep.block_cols * 8 + slack;
  if (p >= 2) EXPECT_LT(bound, 2 * acc) << "the test's sizes must tell a share from the whole of Y";
  if (measured && base > 0) {
    EXPECT_LE(peak - base, bound) << "peak resident growth " << (peak - base) / 1e6 << " MB, bound " << bound / 1e6
                                  << " MB (accumulator " << acc / 1e6 << " MB, share " << share / 1e6 << " MB)";
    std::cout << "[rank " << e.comm().rank() << "/" << p << "] peak resident growth " << (peak - base) / 1e6
              << " MB; accumulator " << acc / 1e6 << " MB, this rank's share of Y " << share / 1e6 << " MB\n";
  }

  // And Y is right: each rank checks its own rows against dgemm on the gathered X.
  const auto yi = slab::io::inspect(e.comm(), file, "/Y", slab::ElementType::float64);
  std::vector<double> xs(n * m), ys(rows * n), ref(rows * n);
  slab::io::read_block(x, 0, n, 0, m, slab::ElementType::float64, xs.data());
  slab::io::read_block(yi, row0, rows, 0, n, slab::ElementType::float64, ys.data());
  if (rows > 0)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(n),
                static_cast<int>(m), 1.0, xs.data() + row0 * m, static_cast<int>(m), xs.data(), static_cast<int>(m),
                0.0, ref.data(), static_cast<int>(n));
  double err = 0;
  for (std::uint64_t k = 0; k < rows * n; ++k) err = std::max(err, std::fabs(ys[k] - ref[k]) / std::fabs(ref[k]));
  EXPECT_LT(err, 1e-12);
}

TEST(Gram, RowBlocksCoverYInRankOrder) {
  for (const std::uint64_t n : {0u, 1u, 2u, 7u, 64u})
    for (int p = 1; p <= 5; ++p) {
      std::uint64_t next = 0;
      for (int r = 0; r < p; ++r) {
        const auto [r0, rows] = slab::linalg::gram_row_block(n, p, r);
        EXPECT_EQ(r0, next) << n << " " << p << " " << r;
        EXPECT_LE(rows, n / p + 1);
        next += rows;
      }
      EXPECT_EQ(next, n);
    }
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
  // The same product written as matmul fails the same way, at the call, on every rank.
  kind.clear();
  auto xa = slab::io::read_hdf5<double>(e, file, "/X", slab::Split::rows);
  try {
    (void)slab::matmul(xa, slab::transpose(xa));
  } catch (const slab::Error& err) {
    kind = err.kind();
  }
  EXPECT_EQ(kind, "OutOfMemory");
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

// The device's Gram (cuBLAS dgemm over C's upper tiles, gram_tiles.hpp) instantiated on the host's cblas_dgemm,
// against cblas_dsyrk: small integers, so both are exact and must agree bit for bit. Tiles as small as 7 rows
// make many tiles, uneven ones among them; C starts as a sentinel to see what each side writes.
TEST(Gram, UpperTilesOnDgemmAreDsyrk) {
  auto gemm = [](const slab::linalg::detail::GramTileProduct& p, std::uint64_t lda, std::uint64_t ldc, double beta) {
    cblas_dgemm(CblasRowMajor, p.a_trans ? CblasTrans : CblasNoTrans, p.b_trans ? CblasTrans : CblasNoTrans,
                static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), 1.0, p.a, static_cast<int>(lda),
                p.b, static_cast<int>(lda), beta, p.c, static_cast<int>(ldc));
  };
  for (const std::uint64_t n : {0, 1, 7, 31, 64, 97}) {
    for (const std::uint64_t k : {1, 5, 33}) {
      for (const bool trans : {false, true}) {
        for (const std::uint64_t min_tile : {7, 16, 1024}) {
          for (const double beta : {1.0, 0.0}) {
            // A: n x k (lda k + 3), or k x n with trans (lda n + 3): values in -4..4.
            const std::uint64_t rows = trans ? k : n, cols = trans ? n : k, lda = cols + 3;
            std::vector<double> a(rows * lda, 99.0);
            for (std::uint64_t i = 0; i < rows; ++i)
              for (std::uint64_t j = 0; j < cols; ++j)
                a[i * lda + j] = std::floor(slab::counter_uniform(11, i * cols + j) * 9.0) - 4.0;
            const std::uint64_t ldc = n + 2;
            std::vector<double> want(n * ldc, 5.0), got(n * ldc, 5.0);
            if (n > 0)
              cblas_dsyrk(CblasRowMajor, CblasUpper, trans ? CblasTrans : CblasNoTrans, static_cast<int>(n),
                          static_cast<int>(k), 1.0, a.data(), static_cast<int>(lda), beta, want.data(),
                          static_cast<int>(ldc));
            slab::linalg::detail::gram_by_tiles(n, k, a.data(), lda, got.data(), ldc, trans, beta, gemm, min_tile);
            // Which cells the tiles cover: each on-or-above-diagonal cell exactly once.
            std::vector<int> cover(n * n, 0);
            for (const auto& t : slab::linalg::detail::gram_tiles(n, min_tile)) {
              ASSERT_LE(t.i0, t.j0);
              for (std::uint64_t i = t.i0; i < t.i0 + t.ni; ++i)
                for (std::uint64_t j = t.j0; j < t.j0 + t.nj; ++j) ++cover[i * n + j];
            }
            const std::string where = "n " + std::to_string(n) + ", k " + std::to_string(k) + ", trans " +
                                      std::to_string(trans) + ", tile " + std::to_string(min_tile) + ", beta " +
                                      std::to_string(beta);
            for (std::uint64_t i = 0; i < n; ++i) {
              for (std::uint64_t j = 0; j < n; ++j) {
                if (j >= i) {
                  ASSERT_EQ(cover[i * n + j], 1) << where << " at " << i << "," << j;
                  ASSERT_EQ(got[i * ldc + j], want[i * ldc + j]) << where << " at " << i << "," << j;
                } else if (cover[i * n + j] == 1) {  // below the diagonal in a diagonal tile: the mirrored value
                  ASSERT_EQ(got[i * ldc + j], want[j * ldc + i]) << where << " at " << i << "," << j;
                } else {
                  ASSERT_EQ(cover[i * n + j], 0) << where;
                  ASSERT_EQ(got[i * ldc + j], 5.0) << where << ": written below the tiles at " << i << "," << j;
                }
              }
              for (std::uint64_t j = n; j < ldc; ++j) ASSERT_EQ(got[i * ldc + j], 5.0) << where << ": past row " << i;
            }
          }
        }
      }
    }
  }
  // The tiles: at most 8 blocks a side, at least min_tile rows each where n allows.
  EXPECT_EQ(slab::linalg::detail::gram_tiles(5000).size(), 10u);    // 4 blocks of 1250
  EXPECT_EQ(slab::linalg::detail::gram_tiles(100000).size(), 36u);  // capped at 8 blocks
  EXPECT_EQ(slab::linalg::detail::gram_tiles(300).size(), 1u);
  EXPECT_TRUE(slab::linalg::detail::gram_tiles(0).empty());
}
