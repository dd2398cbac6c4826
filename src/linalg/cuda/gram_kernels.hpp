#pragma once
/// @file gram_kernels.hpp
/// @brief The Gram's device kernels on raw pointers and a stream (gram_kernels.cu; gram_kernels_host.cpp in
/// builds without CUDA). Includes no CUDA header.

#include <cstdint>

namespace slab::detail {
/// Whether the GPU kernels below are compiled (false in host builds: they throw NotCompiled).
bool gram_kernels_have_cuda() noexcept;
/**
 * @brief C = beta C + A A^T (or A^T A with `trans`) by cuBLAS dgemm over the tiles of gram_tiles.hpp, enqueued on
 * the stream `cublas_handle` (a cublasHandle_t) is set to: A and C as gram_syrk_device. C's upper triangle is the
 * Gram's, the lower halves of the diagonal tiles are written too (the same values mirrored) and the rest of the
 * lower triangle is left as it was. Raw device pointers. Not collective.
 * @throws CudaError on a cuBLAS failure to enqueue; NotCompiled in host builds.
 */
void gram_gemm_tiles_device(void* cublas_handle, std::uint64_t n, std::uint64_t k, const double* a,
                            std::uint64_t lda, double* c, std::uint64_t ldc, bool trans, double beta);
/**
 * @brief On the device (gram_gemm_tiles_device on this thread's cuBLAS handle, stream a cudaStream_t): with `trans`
 * false, C += A A^T for A n x k row-major (lda >= k); with `trans` true, C += A^T A for A k x n row-major
 * (lda >= n). C is n x n row-major (ldc >= n); its upper triangle is the Gram's (the lower one is only for
 * mirroring). Raw device pointers. Not collective.
 * @throws CudaError on a cuBLAS failure; NotCompiled in host builds.
 */
void gram_syrk_device(std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda, double* c,
                      std::uint64_t ldc, bool trans, void* stream);
/**
 * @brief As gram_syrk_device, but only enqueued on `stream`: it returns at once, so the caller can read the next
 * block from the file while the GPU multiplies (wait with gram_wait_device before touching C or A). Not
 * collective. @throws CudaError on a cuBLAS failure to enqueue; NotCompiled in host builds.
 */
void gram_syrk_device_async(std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda, double* c,
                            std::uint64_t ldc, bool trans, void* stream);
/**
 * @brief Wait for everything enqueued on `stream`; returns the seconds the GPU spent in the last
 * gram_syrk_device_async of this thread (CUDA events around it; 0 when there was none). Not collective.
 * @throws CudaError (an asynchronous failure); NotCompiled in host builds.
 */
double gram_wait_device(void* stream);
/// Zero `bytes` of device memory on `stream` and wait. @throws CudaError; NotCompiled in host builds.
void gram_zero_device(void* ptr, std::uint64_t bytes, void* stream);
}  // namespace slab::detail
