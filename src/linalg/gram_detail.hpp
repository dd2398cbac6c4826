#pragma once
/// @file gram_detail.hpp
/// @brief Private: the lazy pieces of the Gram (gram.cpp) that linalg::matmul builds its products from: a zeroed
/// accumulator made from a reservation, the tier's dsyrk, the reduce-scatter of every rank's full-size partial
/// sum into a row-split Array, and X X^T of an HDF5 dataset recorded as gram_xxt's streaming pass.

#include <cstdint>

#include "slab/array/array.hpp"
#include "slab/io/hdf5.hpp"
#include "slab/linalg/gram.hpp"

namespace slab::linalg::detail {

/// @brief A task whose output is `count` zeroed doubles, allocated from a reservation for `purpose` made when the
/// task runs (so the trace and the report show it by purpose). Lazy, not collective.
Chunk zero_accumulator(TaskQueue& tasks, std::uint64_t count, const char* purpose);

/// @brief C (n x n row-major, upper triangle) += A A^T (A n x k, rows lda apart) or, with `trans`, A^T A (A k x n);
/// cuBLAS when `exec` is on the device. Not collective.
void gram_syrk(const ExecutionContext& exec, std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda,
               double* c, bool trans);

/**
 * @brief The row-split Array of `target` (split by rows, target.size() == rows * cols) whose values are the sum over
 * ranks of every rank's chunk `acc` (rows x cols doubles, row-major; with `symmetric`, rows == cols and only the
 * upper triangle is meaningful: it is mirrored first). One collective task reduce-scatters the partial sums in
 * place (Comm::reduce_scatter: the fixed binomial tree, bitwise reproducible at a fixed rank count); one task per
 * chunk of `target` then copies its rows out of the reduced accumulator, which lives until the last of them has
 * run. Lazy; every rank must call it in the same order (it records a collective task).
 */
Array<double> reduce_scatter_rows(Engine& engine, Chunk acc, std::uint64_t rows, std::uint64_t cols, bool symmetric,
                                  Layout target, const std::string& name);

/**
 * @brief Y = X X^T (n x n, split by rows) of the float64 dataset `x`, recorded as gram_xxt's streaming pass (column
 * blocks read from the file, one read ahead, folded with dsyrk into one reserved accumulator) and reduce-scatter,
 * run when Y is first needed. The block width is fixed now, from the smallest rank's MemoryManager::budget(1), as
 * gram_xxt fixes it; Y's chunks are at most one block of rows (k rows of n), so copying one out of the accumulator
 * holds no more than the pass did. Collective (one allreduce of the budgets).
 * @throws OutOfMemory (every rank) as gram_block_cols when even the accumulator does not fit.
 */
Array<double> gram_xxt_lazy(Engine& engine, const io::DatasetInfo& x, const GramOptions& options = {});

}  // namespace slab::linalg::detail
