#pragma once
/// @file linalg_cuda.hpp
/// @brief Private: every cuBLAS/cuSOLVER call of the linalg layer behind functions on raw device pointers
/// and the rank's ExecutionContext (its stream and cuBLAS/cuSOLVER handles). Matrices are row-major, as in
/// slab's chunks. Implemented in linalg_cuda.cu; linalg_cuda_host.cpp (builds without CUDA) throws NotCompiled.

#include <cstddef>

#include "core/kernels/exec.hpp"
#include "slab/runtime/execution_context.hpp"

namespace slab::linalg::detail {

/// The context's cuBLAS handle (a cublasHandle_t bound to its stream), made on first use: every cuBLAS call of the
/// layer goes through it. @throws CudaError when cuBLAS cannot make it.
[[nodiscard]] void* cublas_handle(const ExecutionContext& exec);

/// C (m x n) = alpha op(A) op(B) + beta C, row-major; op(A) is m x k (A is k x m when trans_a).
void gpu_dgemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha, const double* a,
               const double* b, double beta, double* c, const ExecutionContext& exec);
/// As gpu_dgemm with explicit row strides: op(A) read from `a` with rows lda apart (A's stored rows), likewise B
/// (ldb) and C (ldc), so that a column range of a block is an operand without a copy.
void gpu_dgemm_ld(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha,
                  const double* a, std::size_t lda, const double* b, std::size_t ldb, double beta, double* c,
                  std::size_t ldc, const ExecutionContext& exec);
/// C (n x n, row-major, upper triangle) = A^T A for A (m x n row-major).
void gpu_dsyrk_ata(const double* a, std::size_t m, std::size_t n, double* c, const ExecutionContext& exec);
/// R (n x n row-major, upper, signs not normalised) of the QR of A (m x n row-major, m >= n) by
/// cusolverDnDgeqrf on a transposed copy. The cuSOLVER functions' workspaces come from `scratch` (the task's
/// KernelScratch, so they count against the device limit; null callbacks: cudaMallocAsync on the stream).
void gpu_qr_r(const double* a, std::size_t m, std::size_t n, double* r, const kernels::ScratchAllocator& scratch,
              const ExecutionContext& exec);
/// One QR of A (m x n row-major, m >= n), cusolverDnDgeqrf: R (n x n row-major, upper, signs not normalised) into
/// `r` and the explicit Q (m x n row-major, orgqr) into `q`, each skipped where null.
void gpu_qr(const double* a, std::size_t m, std::size_t n, double* r, double* q,
            const kernels::ScratchAllocator& scratch, const ExecutionContext& exec);
/// acc <- R of the 2n x n QR of [acc; other] (both n x n row-major): the TSQR combine on the device.
void gpu_combine_r(double* acc, const double* other, std::size_t n, const kernels::ScratchAllocator& scratch,
                   const ExecutionContext& exec);
/// Thin SVD of a small n x n row-major matrix on the device: cusolverDnDgesvd; s (n), u, vt row-major.
void gpu_svd(const double* a, std::size_t n, double* u, double* s, double* vt, const kernels::ScratchAllocator& scratch,
             const ExecutionContext& exec);
/// y += alpha x (count doubles).
void gpu_axpy(std::size_t count, double alpha, const double* x, double* y, const ExecutionContext& exec);

}  // namespace slab::linalg::detail
