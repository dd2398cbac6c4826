#pragma once
/// @file gram.hpp
/// @brief Gram matrices: Y = X X^T out of core for X in an HDF5 file (seed 001), and A^T A.
///
/// The NumPy spelling of the same question, `slab::matmul(x, slab::transpose(x))` with x from io::read_hdf5
/// (matmul.hpp), records this pass lazily and returns Y as a row-split Array (bitwise gram_xxt's Y), which
/// io::write_hdf5 writes round by round; `slab::matmul(transpose(a), a)` is gram_ata's product as an Array.
///
/// X X^T streams: X (n x m) is read in column blocks X[:, j0:j1], the blocks dealt to ranks round-robin; each
/// block is folded into this rank's running n x n sum with dsyrk (upper triangle), and while block i is folded
/// (dsyrk on a worker thread, or enqueued on the GPU's stream) the rank's main thread reads block i + 1 from the
/// file, so reading and computing overlap and a rank holds one accumulator and two blocks, never the partial
/// products. Each rank then mirrors its upper triangle into the lower one, and the ranks' sums are
/// reduce-scattered (Comm::reduce_scatter, in place in the accumulator): rank r ends with its block of rows of Y
/// (gram_row_block), summed in the comm layer's fixed binomial-tree order, so Y is exactly symmetric and bitwise
/// the same as a tree reduce of the whole matrix at the same rank count. Every rank writes its rows with one
/// collective hyperslab write (a few, for shares past 256 MiB) into a temporary dataset that is moved into place
/// (H5Lmove) only when complete, next to X without touching X. No rank ever holds Y whole, unless asked to
/// (keep_result). Host builds (or a host ExecutionContext) use cblas_dsyrk, GPU builds cuBLAS dsyrk.
///
/// Memory per rank: during the pass the accumulator (n^2 doubles, reserved) and two blocks of n x k (the budget
/// gram_block_cols sizes); during the reduce-scatter and the write, the accumulator alone (it holds this rank's
/// rows of Y in place) plus the comm layer's two message pieces (at most 4 MiB each) and MPI-IO's buffers. On the
/// GPU path the accumulator is first copied to host memory (n^2 doubles, outside the device tier) and the device
/// copy released.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/engine/engine.hpp"
#include "slab/io/hdf5.hpp"

namespace slab::linalg {

/// Settings of gram_xxt.
struct GramOptions {
  /// Columns per block; 0: the widest block such that the accumulator and two blocks fit the device limit,
  /// rounded down to a multiple of the file's chunk width when at least one chunk wide.
  std::uint64_t block_cols = 0;
  /// Read block i + 1 while block i is folded in (the default). false: read and dsyrk take turns, as before the
  /// overlap (kept for measuring what it buys; the results are bitwise the same either way).
  bool overlap = true;
};

/// What gram_xxt did (rank-local timings unless noted).
struct GramReport {
  std::uint64_t n = 0, m = 0;      ///< X is n x m
  std::uint64_t block_cols = 0;    ///< columns per block
  std::uint64_t blocks = 0;        ///< blocks in all
  std::uint64_t local_blocks = 0;  ///< blocks this rank read
  std::uint64_t row0 = 0;          ///< first row of Y this rank reduced (and wrote): gram_row_block
  std::uint64_t rows = 0;          ///< rows of Y this rank reduced (and wrote)
  double read_seconds = 0;         ///< reading X's blocks from the file (overlapped with dsyrk)
  double syrk_seconds = 0;         ///< in dsyrk (overlapped with reading)
  double pass_seconds = 0;         ///< the streaming pass in all: reading and dsyrk together, as they overlap
  double reduce_seconds = 0;       ///< mirroring the accumulator and the reduce-scatter across ranks
  double write_seconds = 0;        ///< writing Y (0 when not written)
  /// dsyrk floating-point operations done on this rank (n (n + 1) k per block of k columns).
  double syrk_flops = 0;
};

/**
 * @brief The rows of Y that rank `rank` of `ranks` holds after gram_xxt's reduce-scatter and writes: the n rows
 * split into `ranks` contiguous blocks in rank order, the first n % ranks of them one row longer (ranks past n
 * get none). Returns {first row, rows}. Not collective (block maths any rank can do).
 */
std::pair<std::uint64_t, std::uint64_t> gram_row_block(std::uint64_t n, int ranks, int rank);

/**
 * @brief Choose the block width: the largest k with n^2 + 2 n k doubles <= `device_bytes` (what the device tier
 * has for the accumulator and two blocks: gram_xxt passes MemoryManager::budget(1)), capped at m and at
 * ceil(ceil(m / ranks) / 4) (so every rank gets work, and at least four blocks where its share allows: one block
 * a rank gives its reads nothing to overlap with), rounded down to a multiple of `chunk_cols` when k >= chunk_cols.
 * Not collective. @throws OutOfMemory when even the accumulator plus one one-column block does not fit; the
 * message names n, the accumulator's bytes and the limit.
 */
std::uint64_t gram_block_cols(std::uint64_t n, std::uint64_t m, std::uint64_t device_bytes, std::uint64_t chunk_cols,
                              int ranks);

/**
 * @brief Y = X X^T for the float64 (or float32, converted) dataset `x`, out of core under the queue's memory
 * limit (see the file comment for the flow and the memory it holds). Collective.
 * @param out_file, out_dataset when non-empty, Y is written there (may be X's file), complete or absent: each
 * rank writes its rows (gram_row_block) collectively into a temporary dataset moved into place when complete.
 * @param keep_result when true, the full symmetric n x n Y (row-major) is gathered to rank 0 and returned there
 * (an empty vector elsewhere): that costs rank 0 another n^2 doubles of host memory besides its accumulator, so
 * it is meant for small n (tests, the tour); otherwise the result is always empty (Y only written).
 * @return Y on rank 0 when keep_result, else empty. The values are bitwise those of a binomial-tree reduce of
 * the ranks' sums (Comm::reduce) at the same rank count, and Y is exactly symmetric.
 * @throws the errors of slab::io::inspect (every rank); OutOfMemory as gram_block_cols; IoError when writing fails
 * (the target is then untouched).
 */
std::vector<double> gram_xxt(Engine& engine, const io::DatasetInfo& x, const std::string& out_file,
                             const std::string& out_dataset, const GramOptions& options = {},
                             GramReport* report = nullptr, bool keep_result = false);

/**
 * @brief A^T A of a row-split Array (m x k gives k x k): each local chunk is folded into one accumulator with
 * dsyrk as soon as it is computed, then the ranks' sums are reduced over the fixed binomial tree and
 * broadcast. Collective. Returns the full symmetric k x k result, row-major, on every rank.
 * @throws ShapeError (every rank) when A is not split by rows.
 */
std::vector<double> gram_ata(const Array<double>& a);

}  // namespace slab::linalg
