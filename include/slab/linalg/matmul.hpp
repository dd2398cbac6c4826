#pragma once
/// @file matmul.hpp
/// @brief C = A B of two distributed arrays, NumPy's `a @ b` (Dask's `da.matmul`), for any splits of A and B;
/// `slab::matmul` is the same function. X X^T and A^T A, written as NumPy writes them
/// (`slab::matmul(x, slab::transpose(x))`, `slab::matmul(a.transpose(), a)`), are recognised and computed as Grams.

#include "slab/array/array.hpp"
#include "slab/linalg/linalg.hpp"

namespace slab::linalg {

/**
 * @brief C = A B for A (m x k) and B (k x n), both distributed Arrays split any way (rows, cols, none; also
 * transpose views, slices with uneven blocks, ranks without rows). C is m x n, split by rows, lazy: it is computed
 * when first needed (persist, gather, io::write_hdf5), and its tasks stream under the memory limit. As in NumPy, a
 * 1-D b (k,) gives C (m,) and a 1-D a (k,) gives C (n,); two 1-D operands are refused (their product is a
 * scalar: use slab::sum(a * b)).
 *
 * How (the choice depends on global shapes only, so every rank takes the same path):
 * - X X^T (b is transpose(a), i.e. b.transpose_of() is a) with X read by io::read_hdf5: gram_xxt's out-of-core
 *   pass over the dataset. X is read from the file in column blocks dealt to the ranks (one block read ahead while
 *   the last is folded in with dsyrk), never through X's chunks, so neither X nor X^T is ever held; each rank holds
 *   one n x n accumulator (reserved, "gram accumulator") and two blocks, sized now from the smallest rank's
 *   MemoryManager::budget(1) as gram_xxt sizes them (so this call is collective: one allreduce), and throws
 *   OutOfMemory on every rank when the accumulator does not fit. When Y is first needed the pass runs, the ranks'
 *   sums are reduce-scattered (Y's row blocks, gram_row_block), and Y's chunks (at most a block of rows each) are
 *   copied out of the accumulator: io::write_hdf5(y, file, "/Y") writes them round by round, into X's own file if
 *   asked (the pass has read X before the file is opened for writing). Bitwise the same as gram_xxt's Y.
 * - A contraction, when C is no larger than the operands a rank holds (m <= k and m n p <= k (m + n) for p ranks):
 *   X X^T of any other X, A^T A (`matmul(transpose(a), a)`, gram_ata's dsyrk), A^T B, A with column blocks against
 *   B with the same row blocks, a 1-D a. Each rank folds its slab of the shared dimension k into a full m x n
 *   accumulator (dgemm, or dsyrk for a Gram, one chunk of each operand at a time), and a reduce-scatter in the
 *   fixed binomial-tree order leaves each rank its rows of C. Operands not split along k are resplit (arrays read
 *   from HDF5 are read again in the layout wanted, with no communication).
 * - Otherwise each rank computes its rows of C (A's row blocks: A is resplit by rows when it is not) while B streams
 *   past: B's chunks are broadcast one at a time in rank order (a collective task each) and folded in with dgemm,
 *   C_local[:, n-block] += A_local[:, k-block] B_block; a replicated B is used where it is. A rank's chunks of A
 *   (with the rows of C they give) are taken in groups that fit the smallest rank's MemoryManager::budget(1),
 *   agreed at the call, beside two chunks of B (the one broadcast and, on its owner, its source); B streams past
 *   once per group, so a rank whose rows of A and C do not fit at once still computes them.
 *
 * Results are bitwise reproducible at a fixed rank count (fixed orders throughout). Every operand read from HDF5 is
 * streamed from the file: the product reads what it needs afresh and does not fill the operand's chunks.
 * Lazy: nothing runs until C is needed; the call itself communicates only to agree on the budget (one allreduce, for
 * the X X^T of an HDF5 array and for the streamed schedule). Call it on every rank in the same order (it records
 * collective tasks).
 * @throws InvalidArgument (every rank) for an empty handle or operands of different engines; ShapeError (every rank)
 * naming both shapes when A's columns differ from B's rows or both are 1-D; OutOfMemory as gram_block_cols for the
 * X X^T of an HDF5 array whose accumulator does not fit.
 */
[[nodiscard]] Array<double> matmul(const Array<double>& a, const Array<double>& b);

}  // namespace slab::linalg

namespace slab {
/// NumPy's spelling: `slab::matmul(x, slab::transpose(x))` (found by argument-dependent lookup too).
using linalg::matmul;
}  // namespace slab
