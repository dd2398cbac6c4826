// Gram kernels on the device: cuBLAS dgemm over the Gram's upper tiles (gram_tiles.hpp), on raw device pointers
// with the ExecutionContext's cuBLAS handle and stream (no CUDA in headers).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/cuda/check.hpp"
#include "linalg/cuda/gram_kernels.hpp"
#include "linalg/cuda/linalg_cuda.hpp"
#include "linalg/gram_tiles.hpp"
#include "slab/core/error.hpp"

namespace slab::detail {

namespace {

void gemm_row_major(cublasHandle_t h, const linalg::detail::GramTileProduct& p, std::uint64_t lda, std::uint64_t ldc,
                    double beta) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the operands swap and keep their flags.
  const double one = 1.0;
  check_cublas(cublasDgemm(h, p.b_trans ? CUBLAS_OP_T : CUBLAS_OP_N, p.a_trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                           static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), &one, p.b,
                           static_cast<int>(lda), p.a, static_cast<int>(lda), &beta, p.c, static_cast<int>(ldc)),
               "cublasDgemm");
}

}  // namespace

bool gram_kernels_have_cuda() noexcept { return true; }

void gram_gemm_tiles_device(void* cublas_handle, std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda,
                            double* c, std::uint64_t ldc, bool trans, double beta) {
  auto h = static_cast<cublasHandle_t>(cublas_handle);
  linalg::detail::gram_by_tiles(n, k, a, lda, c, ldc, trans, beta,
                                [h](const linalg::detail::GramTileProduct& p, std::uint64_t ld_a, std::uint64_t ld_c,
                                    double b) { gemm_row_major(h, p, ld_a, ld_c, b); });
}

void gram_syrk_device_async(const ExecutionContext& exec, std::uint64_t n, std::uint64_t k, const double* a,
                            std::uint64_t lda, double* c, std::uint64_t ldc, bool trans) {
  if (n == 0 || k == 0) return;
  // dgemm over the upper tiles, not dsyrk: dsyrk runs at a third of dgemm's rate on a Hopper GPU (gram_tiles.hpp).
  gram_gemm_tiles_device(linalg::detail::cublas_handle(exec), n, k, a, lda, c, ldc, trans, 1.0);
}

}  // namespace slab::detail
