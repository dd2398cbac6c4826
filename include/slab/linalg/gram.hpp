#pragma once
/// @file gram.hpp
/// @brief Gram matrices: Y = X X^T out of core for X in an HDF5 file (seed 001), and A^T A.
///
/// X X^T streams: X (n x m) is read in column blocks X[:, j0:j1], each block by one task of kind
/// TraceKind::io, the blocks dealt to ranks round-robin; each block is folded into this rank's running n x n
/// sum with dsyrk (upper triangle) as soon as it is read, so a rank holds one accumulator and one block, never
/// the partial products. The ranks' sums are then reduced over the comm layer's fixed binomial tree (bitwise
/// reproducible for a rank count) to rank 0, which mirrors the upper triangle (the stored Y is exactly
/// symmetric) and writes it atomically (temporary name + H5Lmove) next to X without touching X.
/// Host builds (or MemoryConfig::use_gpu == false) use cblas_dsyrk, GPU builds cuBLAS dsyrk.

#include <cstdint>
#include <span>
#include <string>
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
};

/// What gram_xxt did (rank-local timings unless noted).
struct GramReport {
  std::uint64_t n = 0, m = 0;      ///< X is n x m
  std::uint64_t block_cols = 0;    ///< columns per block
  std::uint64_t blocks = 0;        ///< blocks in all
  std::uint64_t local_blocks = 0;  ///< blocks this rank read
  double read_seconds = 0;         ///< in the read tasks
  double syrk_seconds = 0;         ///< in dsyrk
  double reduce_seconds = 0;       ///< the tree reduction across ranks
  double write_seconds = 0;        ///< writing Y (0 when not written)
  /// dsyrk floating-point operations done on this rank (n (n + 1) k per block of k columns).
  double syrk_flops = 0;
};

/**
 * @brief Choose the block width: the largest k with n^2 + 2 n k doubles <= `device_bytes` (what the device tier
 * has for the accumulator and two blocks: gram_xxt passes MemoryManager::budget(1)), capped at m and at
 * ceil(m / ranks) (so every rank gets work), rounded down to a multiple of `chunk_cols` when k >= chunk_cols.
 * Not collective. @throws OutOfMemory when even the accumulator plus one one-column block does not fit; the
 * message names n, the accumulator's bytes and the limit.
 */
std::uint64_t gram_block_cols(std::uint64_t n, std::uint64_t m, std::uint64_t device_bytes, std::uint64_t chunk_cols,
                              int ranks);

/**
 * @brief Y = X X^T for the float64 (or float32, converted) dataset `x`, out of core under the queue's memory
 * limit. Collective. Returns the full symmetric n x n Y (row-major) on rank 0 and an empty vector elsewhere
 * when `keep_result`; otherwise always empty (Y only written).
 * @param out when non-empty, Y is written there (file, dataset; may be X's file) atomically.
 * @throws the errors of slab::io::inspect (every rank); OutOfMemory as gram_block_cols; IoError when writing fails.
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
