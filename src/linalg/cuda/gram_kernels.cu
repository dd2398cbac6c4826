// Gram kernels on the device: cuBLAS dgemm over the Gram's upper tiles (gram_tiles.hpp), on raw device pointers
// and a void* stream (no CUDA in headers).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "linalg/cuda/gram_kernels.hpp"
#include "linalg/gram_tiles.hpp"
#include "runtime/cuda/check.hpp"
#include "slab/core/error.hpp"

namespace slab::detail {

namespace {

void check(cudaError_t rc, const char* what) { check_cuda(rc, what); }
void check(cublasStatus_t rc, const char* what) { check_cublas(rc, what); }

// One handle per thread (tasks run on the rank's main thread), created on first use.
cublasHandle_t handle() {
  thread_local cublasHandle_t h = nullptr;
  if (h == nullptr) check(cublasCreate(&h), "cublasCreate");
  return h;
}

// The events around this thread's last asynchronous dsyrk (its GPU time, read by gram_wait_device).
struct SyrkEvents {
  cudaEvent_t start = nullptr, stop = nullptr;
  bool pending = false;
};
SyrkEvents& events() {
  thread_local SyrkEvents e;
  if (e.start == nullptr) {
    check(cudaEventCreate(&e.start), "cudaEventCreate");
    check(cudaEventCreate(&e.stop), "cudaEventCreate");
  }
  return e;
}

void gemm_row_major(cublasHandle_t h, const linalg::detail::GramTileProduct& p, std::uint64_t lda, std::uint64_t ldc,
                    double beta) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the operands swap and keep their flags.
  const double one = 1.0;
  check(cublasDgemm(h, p.b_trans ? CUBLAS_OP_T : CUBLAS_OP_N, p.a_trans ? CUBLAS_OP_T : CUBLAS_OP_N,
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

void gram_syrk_device_async(std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda, double* c,
                            std::uint64_t ldc, bool trans, void* stream) {
  if (n == 0 || k == 0) return;
  cublasHandle_t h = handle();
  auto s = static_cast<cudaStream_t>(stream);
  check(cublasSetStream(h, s), "cublasSetStream");
  SyrkEvents& ev = events();
  check(cudaEventRecord(ev.start, s), "cudaEventRecord");
  // dgemm over the upper tiles, not dsyrk: dsyrk runs at a third of dgemm's rate on a Hopper GPU (gram_tiles.hpp).
  gram_gemm_tiles_device(h, n, k, a, lda, c, ldc, trans, 1.0);
  check(cudaEventRecord(ev.stop, s), "cudaEventRecord");
  ev.pending = true;
}

double gram_wait_device(void* stream) {
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
  SyrkEvents& ev = events();
  if (!ev.pending) return 0.0;
  ev.pending = false;
  float ms = 0;
  check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime");
  return ms / 1000.0;
}

void gram_syrk_device(std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda, double* c,
                      std::uint64_t ldc, bool trans, void* stream) {
  if (n == 0 || k == 0) return;
  gram_syrk_device_async(n, k, a, lda, c, ldc, trans, stream);
  (void)gram_wait_device(stream);
}

void gram_zero_device(void* ptr, std::uint64_t bytes, void* stream) {
  check(cudaMemsetAsync(ptr, 0, bytes, static_cast<cudaStream_t>(stream)), "cudaMemsetAsync");
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

}  // namespace slab::detail
