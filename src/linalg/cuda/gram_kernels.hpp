#pragma once
/// @file gram_kernels.hpp
/// @brief The Gram's device kernels on raw pointers and a stream (gram_kernels.cu; gram_kernels_host.cpp in
/// builds without CUDA). Includes no CUDA header.

#include <cstdint>

#include "slab/runtime/execution_context.hpp"

namespace slab::detail {
/// Whether the GPU kernels below are compiled (false in host builds: they throw NotCompiled).
bool gram_kernels_have_cuda() noexcept;
/**
 * @brief C = beta C + A A^T (or A^T A with `trans`) by cuBLAS dgemm over the tiles of gram_tiles.hpp, enqueued on
 * the stream `cublas_handle` (a cublasHandle_t) is set to: A and C as gram_syrk_device_async. C's upper triangle is the
 * Gram's, the lower halves of the diagonal tiles are written too (the same values mirrored) and the rest of the
 * lower triangle is left as it was. Raw device pointers. Not collective.
 * @throws CudaError on a cuBLAS failure to enqueue; NotCompiled in host builds.
 */
void gram_gemm_tiles_device(void* cublas_handle, std::uint64_t n, std::uint64_t k, const double* a,
                            std::uint64_t lda, double* c, std::uint64_t ldc, bool trans, double beta);
/**
 * @brief Enqueue on the context's stream, with the context's cuBLAS handle (gram_gemm_tiles_device): with `trans`
 * false, C += A A^T for A n x k row-major (lda >= k); with `trans` true, C += A^T A for A k x n row-major
 * (lda >= n). C is n x n row-major (ldc >= n); its upper triangle is the Gram's (the lower one is only for
 * mirroring). Raw device pointers. It returns at once, so the caller can read the next block while the GPU
 * multiplies: wait with exec.synchronize() before touching C or A. Not collective.
 * @throws CudaError on a cuBLAS failure to enqueue; NotCompiled in host builds.
 */
void gram_syrk_device_async(const ExecutionContext& exec, std::uint64_t n, std::uint64_t k, const double* a,
                            std::uint64_t lda, double* c, std::uint64_t ldc, bool trans);
}  // namespace slab::detail
