#pragma once
/// @file gram_tiles.hpp
/// @brief Private: a Gram (C += A A^T or A^T A) as general matrix products over the upper block tiles of C, one
/// composition for both sides: the device runs it on cuBLAS dgemm (gram_kernels.cu, linalg_cuda.cu), CI runs it on
/// the host's cblas_dgemm (gram.cpp on the reference place; tests/linalg/test_gram.cpp against dsyrk).
///
/// Why: a GPU's dsyrk runs far below its dgemm (19.7 against 54 TFLOP/s on an H200, perf/results/gpu/
/// h200-2026-11-29), since dgemm takes the FP64 tensor-core kernels. Cutting C into T x T tiles and multiplying
/// the T (T + 1) / 2 tiles on and above the diagonal does (T + 1) / T of dsyrk's useful work at dgemm's rate.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace slab::linalg::detail {

/// One tile of C: rows [i0, i0 + ni), columns [j0, j0 + nj), with i0 <= j0 (on or above the diagonal).
struct GramTile {
  std::uint64_t i0, ni, j0, nj;
};

/// @brief The tiles on and above the diagonal of an n x n Gram, in row-major tile order: T = n / min_tile blocks
/// (at least 1, at most max_blocks), the first n % T of them one row larger. Empty for n == 0.
inline std::vector<GramTile> gram_tiles(std::uint64_t n, std::uint64_t min_tile = 1024, std::uint64_t max_blocks = 8) {
  std::vector<GramTile> tiles;
  if (n == 0) return tiles;
  const std::uint64_t t = std::clamp<std::uint64_t>(n / std::max<std::uint64_t>(min_tile, 1), 1, max_blocks);
  std::vector<std::uint64_t> start(t + 1, 0);
  for (std::uint64_t b = 0; b < t; ++b) start[b + 1] = start[b] + n / t + (b < n % t ? 1 : 0);
  for (std::uint64_t bi = 0; bi < t; ++bi)
    for (std::uint64_t bj = bi; bj < t; ++bj)
      tiles.push_back({start[bi], start[bi + 1] - start[bi], start[bj], start[bj + 1] - start[bj]});
  return tiles;
}

/// @brief The operands of one tile as a row-major product C_tile = beta C_tile + op(A_i) op(B_j), what
/// cblas_dgemm(CblasRowMajor, ...) takes: a_trans/b_trans, m x n x k, the operand pointers and C's corner.
struct GramTileProduct {
  bool a_trans, b_trans;
  std::uint64_t m, n, k;
  const double* a;
  const double* b;
  double* c;
};

/// @brief The product that computes `tile` of C (row-major, ldc) += A A^T (A n x k row-major, lda; `trans`
/// false) or A^T A (A k x n row-major, lda; `trans` true). Both operands have leading dimension lda.
inline GramTileProduct gram_tile_product(const GramTile& tile, std::uint64_t k, const double* a, std::uint64_t lda,
                                         double* c, std::uint64_t ldc, bool trans) {
  if (!trans)  // rows i0.. of A times (rows j0.. of A)^T
    return {false, true, tile.ni, tile.nj, k, a + tile.i0 * lda, a + tile.j0 * lda, c + tile.i0 * ldc + tile.j0};
  // (columns i0.. of A)^T times columns j0.. of A
  return {true, false, tile.ni, tile.nj, k, a + tile.i0, a + tile.j0, c + tile.i0 * ldc + tile.j0};
}

/**
 * @brief C = beta C + A A^T (or A^T A with `trans`) on the tiles of gram_tiles(n, min_tile): `gemm(product,
 * lda, ldc, beta)` multiplies one tile (row-major, as cblas_dgemm). C's upper triangle is then the Gram's; the
 * part of each diagonal tile below the diagonal is written too (with the same, symmetric values) and the rest of
 * the lower triangle is left as it was, so callers mirror the upper triangle as after dsyrk. Not collective.
 */
template <class Gemm>
void gram_by_tiles(std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda, double* c, std::uint64_t ldc,
                   bool trans, double beta, Gemm&& gemm, std::uint64_t min_tile = 1024) {
  if (n == 0) return;
  for (const GramTile& tile : gram_tiles(n, min_tile))
    gemm(gram_tile_product(tile, k, a, lda, c, ldc, trans), lda, ldc, beta);
}

}  // namespace slab::linalg::detail
