#pragma once
/// @file linalg_cuda.hpp
/// @brief Private: every cuBLAS/cuSOLVER call of the linalg layer behind functions on raw device pointers
/// and an opaque stream (void* = cudaStream_t). Matrices are row-major, as in slab's chunks. Implemented in
/// linalg_cuda.cu; linalg_cuda_host.cpp (builds without CUDA) throws NotCompiled.

#include <cstddef>

namespace slab::linalg::detail {

/// Whether this build has the cuBLAS/cuSOLVER path.
bool gpu_available() noexcept;
/// C (m x n) = alpha op(A) op(B) + beta C, row-major; op(A) is m x k (A is k x m when trans_a).
void gpu_dgemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha, const double* a,
               const double* b, double beta, double* c, void* stream);
/// C (n x n, row-major, upper triangle) = A^T A for A (m x n row-major).
void gpu_dsyrk_ata(const double* a, std::size_t m, std::size_t n, double* c, void* stream);
/// R (n x n row-major, upper, signs not normalised) of the QR of A (m x n row-major, m >= n) by
/// cusolverDnDgeqrf on a transposed copy.
void gpu_qr_r(const double* a, std::size_t m, std::size_t n, double* r, void* stream);
/// Explicit Q (m x n row-major) of A (m x n row-major, m >= n): geqrf + orgqr.
void gpu_qr_q(const double* a, std::size_t m, std::size_t n, double* q, void* stream);
/// Thin SVD of a small n x n row-major matrix on the device: cusolverDnDgesvd; s (n), u, vt row-major.
void gpu_svd(const double* a, std::size_t n, double* u, double* s, double* vt, void* stream);
/// y += alpha x (count doubles).
void gpu_axpy(std::size_t count, double alpha, const double* x, double* y, void* stream);
/// Copy bytes between any host/device pointers (cudaMemcpyDefault), then synchronise the stream.
void gpu_copy(void* dst, const void* src, std::size_t bytes, void* stream);

}  // namespace slab::linalg::detail
