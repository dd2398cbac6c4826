// Spill files written and read a piece at a time through a staging block (the GPU's path: the payload is device
// memory, copied through one page-locked block of the staging pool). Here the "device" is host memory and the copy
// is memcpy that counts its calls, so CI checks the piecewise logic: the same file as the direct path, at most one
// piece of host memory touched, and a copy that fails leaves no file behind.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "memory/spill_file.hpp"
#include "slab/core/error.hpp"

namespace fs = std::filesystem;
using slab::detail::kSpillPiece;
using slab::detail::read_spill_file;
using slab::detail::SpillStaging;
using slab::detail::write_spill_file;

namespace {

class SpillFile : public ::testing::Test {
 protected:
  void SetUp() override {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    dir_ = fs::path("/tmp") / ("slab-test-spill-file-" + std::to_string(::getpid()) + "-r" + std::to_string(rank));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::vector<char> bytes_of(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  fs::path dir_;
};

// A staging block with a guard region after its kSpillPiece bytes, and a copy that counts its calls and the most
// bytes it moved at once.
struct CountingStaging {
  static constexpr std::size_t guard = 4096;
  std::vector<std::byte> block = std::vector<std::byte>(kSpillPiece + guard, std::byte{0x5a});
  std::size_t calls = 0, largest = 0;
  std::size_t fail_at = SIZE_MAX;  // the call that throws, to test a failed copy
  SpillStaging staging() {
    return {block.data(), [this](void* dst, const void* src, std::size_t n) {
              if (calls++ == fail_at) throw std::runtime_error("the device copy failed");
              largest = std::max(largest, n);
              std::memcpy(dst, src, n);
            }};
  }
  [[nodiscard]] bool guard_intact() const {
    for (std::size_t i = kSpillPiece; i < block.size(); ++i)
      if (block[i] != std::byte{0x5a}) return false;
    return true;
  }
};

std::vector<std::byte> payload(std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
  return v;
}

}  // namespace

TEST_F(SpillFile, StagedWritesAndReadsArePiecewiseAndEqualTheDirectPath) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{kSpillPiece - 1}, std::size_t{kSpillPiece},
                              std::size_t{kSpillPiece + 1}, std::size_t{5 * kSpillPiece / 2}}) {
    SCOPED_TRACE("payload of " + std::to_string(n) + " bytes");
    const std::vector<std::byte> data = payload(n);
    const std::string direct = path("direct-" + std::to_string(n)), staged = path("staged-" + std::to_string(n));
    const std::uint64_t sum = write_spill_file(direct, dir_.string(), data.data(), n, 7);

    CountingStaging w;
    const SpillStaging ws = w.staging();
    EXPECT_EQ(write_spill_file(staged, dir_.string(), data.data(), n, 7, &ws), sum);
    EXPECT_EQ(bytes_of(staged), bytes_of(direct)) << "the staged file differs from the direct one";
    const std::size_t pieces = (n + kSpillPiece - 1) / kSpillPiece;
    EXPECT_EQ(w.calls, pieces);
    EXPECT_LE(w.largest, kSpillPiece);
    EXPECT_TRUE(w.guard_intact()) << "the write used host memory past one piece";

    CountingStaging r;
    const SpillStaging rs = r.staging();
    std::vector<std::byte> back(n, std::byte{0});
    read_spill_file(staged, back.data(), n, sum, &rs);
    EXPECT_TRUE(back == data) << "the staged read did not give the payload back";
    EXPECT_EQ(r.calls, pieces);
    EXPECT_LE(r.largest, kSpillPiece);
    EXPECT_TRUE(r.guard_intact()) << "the read used host memory past one piece";
  }
}

TEST_F(SpillFile, AStagedCopyThatFailsLeavesNoFile) {
  const std::vector<std::byte> data = payload(3 * kSpillPiece);
  CountingStaging w;
  w.fail_at = 1;  // the second piece
  const SpillStaging ws = w.staging();
  const std::string file = path("failed");
  EXPECT_THROW(write_spill_file(file, dir_.string(), data.data(), data.size(), 1, &ws), std::runtime_error);
  EXPECT_FALSE(fs::exists(file)) << "a partial spill file was left behind";
}

TEST_F(SpillFile, AStagedReadStillDetectsCorruption) {
  const std::vector<std::byte> data = payload(kSpillPiece + 100);
  const std::string file = path("corrupt");
  const std::uint64_t sum = write_spill_file(file, dir_.string(), data.data(), data.size(), 3);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(sizeof(slab::detail::SpillFileHeader) + kSpillPiece + 50));
    f.put('\x01');  // a flipped byte in the second piece
  }
  CountingStaging r;
  const SpillStaging rs = r.staging();
  std::vector<std::byte> back(data.size());
  EXPECT_THROW(read_spill_file(file, back.data(), back.size(), sum, &rs), slab::IntegrityError);
}
