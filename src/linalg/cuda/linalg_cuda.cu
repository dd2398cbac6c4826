// Every cuBLAS/cuSOLVER call of the linalg layer. Row-major matrices are column-major transposes, so
// row-major C = A B is column-major C^T = B^T A^T: operands swap and no data moves.
#include "linalg/cuda/linalg_cuda.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <string>

#include "core/cuda/check.hpp"
#include "linalg/cuda/gram_kernels.hpp"
#include "slab/core/error.hpp"
#include "slab/runtime/execution_context.hpp"

namespace slab::linalg::detail {
namespace {

using slab::detail::check_cublas;
using slab::detail::check_cuda;
using slab::detail::check_cusolver;

// The rank's handles, made on first use by its ExecutionContext and bound to its stream there.
void* make_blas(void* stream) {
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  check_cublas(cublasSetStream(h, static_cast<cudaStream_t>(stream)), "cublasSetStream");
  return h;
}
void destroy_blas(void* h) { cublasDestroy(static_cast<cublasHandle_t>(h)); }
void* make_solver(void* stream) {
  cusolverDnHandle_t h = nullptr;
  check_cusolver(cusolverDnCreate(&h), "cusolverDnCreate");
  check_cusolver(cusolverDnSetStream(h, static_cast<cudaStream_t>(stream)), "cusolverDnSetStream");
  return h;
}
void destroy_solver(void* h) { cusolverDnDestroy(static_cast<cusolverDnHandle_t>(h)); }
cublasHandle_t blas(const ExecutionContext& exec) {
  return static_cast<cublasHandle_t>(exec.library_handle(LibraryHandle::cublas, make_blas, destroy_blas));
}
cusolverDnHandle_t solver(const ExecutionContext& exec) {
  return static_cast<cusolverDnHandle_t>(exec.library_handle(LibraryHandle::cusolver, make_solver, destroy_solver));
}

// Workspace of a cuSOLVER call: from the caller's scratch (the memory manager's device tier: counted against the
// limit, other buffers spill to make room), given back stream-ordered when it goes; cudaMallocAsync on the stream
// where the caller gives no scratch.
class DeviceBuffer {
 public:
  DeviceBuffer(const kernels::ScratchAllocator& scratch, std::size_t bytes, const ExecutionContext& exec)
      : scratch_(scratch), stream_(static_cast<cudaStream_t>(exec.stream())), bytes_(bytes ? bytes : 1) {
    if (scratch_.allocate != nullptr)
      p = scratch_.allocate(scratch_.state, bytes_);
    else
      check_cuda(cudaMallocAsync(&p, bytes_, stream_), "cudaMallocAsync");
  }
  ~DeviceBuffer() {
    if (scratch_.deallocate != nullptr)
      scratch_.deallocate(scratch_.state, p, bytes_);
    else
      (void)cudaFreeAsync(p, stream_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
  void* p = nullptr;

 private:
  kernels::ScratchAllocator scratch_;
  cudaStream_t stream_;
  std::size_t bytes_;
};

__global__ void upper_rowmajor(const double* w, int ldw, int n, double* r) {
  // w: column-major factored matrix (R in its upper triangle); r: row-major n x n upper triangle.
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) r[static_cast<size_t>(i) * n + j] = j >= i ? w[i + static_cast<size_t>(j) * ldw] : 0.0;
}

// Column-major copy (m x n, ld m) of row-major A (m x n), by geam.
void transpose_to(const double* a, int m, int n, double* w, const ExecutionContext& exec) {
  const double one = 1, zero = 0;
  check_cublas(cublasDgeam(blas(exec), CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, n, &zero, w, m, w, m), "cublasDgeam");
}

// geqrf in place on w (m x n col-major); returns tau.
void geqrf(double* w, int m, int n, double* tau, const kernels::ScratchAllocator& scratch,
           const ExecutionContext& exec) {
  auto h = solver(exec);
  int lwork = 0;
  check_cusolver(cusolverDnDgeqrf_bufferSize(h, m, n, w, m, &lwork), "cusolverDnDgeqrf_bufferSize");
  DeviceBuffer work(scratch, sizeof(double) * lwork, exec), info(scratch, sizeof(int), exec);
  check_cusolver(cusolverDnDgeqrf(h, m, n, w, m, tau, work.as<double>(), lwork, info.as<int>()), "cusolverDnDgeqrf");
}

}  // namespace

void* cublas_handle(const ExecutionContext& exec) { return blas(exec); }

void gpu_dgemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha, const double* a,
               const double* b, double beta, double* c, const ExecutionContext& exec) {
  // Row-major: C^T (n x m) = op(B)^T op(A)^T in column-major.
  const int lda = trans_a ? int(m) : int(k), ldb = trans_b ? int(k) : int(n);
  check_cublas(cublasDgemm(blas(exec), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, int(n),
                           int(m), int(k), &alpha, b, ldb, a, lda, &beta, c, int(n)),
               "cublasDgemm");
}

void gpu_dgemm_ld(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha,
                  const double* a, std::size_t lda, const double* b, std::size_t ldb, double beta, double* c,
                  std::size_t ldc, const ExecutionContext& exec) {
  // Row-major strides are the column-major leading dimensions of the transposes: C^T = op(B)^T op(A)^T.
  check_cublas(cublasDgemm(blas(exec), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, int(n),
                           int(m), int(k), &alpha, b, int(ldb), a, int(lda), &beta, c, int(ldc)),
               "cublasDgemm");
}

void gpu_dsyrk_ata(const double* a, std::size_t m, std::size_t n, double* c, const ExecutionContext& exec) {
  // A^T A of row-major A (m x n) into C's upper triangle: dgemm over its tiles, at dgemm's rate (gram_tiles.hpp).
  slab::detail::gram_gemm_tiles_device(blas(exec), n, m, a, n, c, n, true, 0.0);
}

void gpu_qr(const double* a, std::size_t m, std::size_t n, double* r, double* q,
            const kernels::ScratchAllocator& scratch, const ExecutionContext& exec) {
  auto stream = static_cast<cudaStream_t>(exec.stream());
  DeviceBuffer w(scratch, sizeof(double) * m * n, exec), tau(scratch, sizeof(double) * n, exec);
  transpose_to(a, int(m), int(n), w.as<double>(), exec);
  geqrf(w.as<double>(), int(m), int(n), tau.as<double>(), scratch, exec);
  if (r != nullptr) {  // before orgqr overwrites the factor
    dim3 block(16, 16), grid((unsigned)((n + 15) / 16), (unsigned)((n + 15) / 16));
    upper_rowmajor<<<grid, block, 0, stream>>>(w.as<double>(), int(m), int(n), r);
    check_cuda(cudaGetLastError(), "upper_rowmajor");
  }
  if (q != nullptr) {
    auto h = solver(exec);
    int lwork = 0;
    check_cusolver(
        cusolverDnDorgqr_bufferSize(h, int(m), int(n), int(n), w.as<double>(), int(m), tau.as<double>(), &lwork),
        "cusolverDnDorgqr_bufferSize");
    DeviceBuffer work(scratch, sizeof(double) * lwork, exec), info(scratch, sizeof(int), exec);
    check_cusolver(cusolverDnDorgqr(h, int(m), int(n), int(n), w.as<double>(), int(m), tau.as<double>(),
                                    work.as<double>(), lwork, info.as<int>()),
                   "cusolverDnDorgqr");
    const double one = 1, zero = 0;  // back to row-major
    check_cublas(cublasDgeam(blas(exec), CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), &one, w.as<double>(), int(m), &zero,
                             q, int(n), q, int(n)),
                 "cublasDgeam");
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

void gpu_qr_r(const double* a, std::size_t m, std::size_t n, double* r, const kernels::ScratchAllocator& scratch,
              const ExecutionContext& exec) {
  gpu_qr(a, m, n, r, nullptr, scratch, exec);
}

void gpu_combine_r(double* acc, const double* other, std::size_t n, const kernels::ScratchAllocator& scratch,
                   const ExecutionContext& exec) {
  // Row-major [acc; other] is the two blocks one after the other: two copies make the 2n x n stack.
  auto stream = static_cast<cudaStream_t>(exec.stream());
  DeviceBuffer stack(scratch, sizeof(double) * 2 * n * n, exec);
  check_cuda(cudaMemcpyAsync(stack.as<double>(), acc, sizeof(double) * n * n, cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync");
  check_cuda(
      cudaMemcpyAsync(stack.as<double>() + n * n, other, sizeof(double) * n * n, cudaMemcpyDeviceToDevice, stream),
      "cudaMemcpyAsync");
  gpu_qr(stack.as<double>(), 2 * n, n, acc, nullptr, scratch, exec);
}

void gpu_svd(const double* a, std::size_t n, double* u, double* s, double* vt, const kernels::ScratchAllocator& scratch,
             const ExecutionContext& exec) {
  // Row-major A is column-major A^T = U' S VT', so A = VT'^T S U'^T. Column-major U' read as row-major is
  // U'^T = A's VT, and column-major VT' read as row-major is A's U: hence U' -> vt and VT' -> u.
  DeviceBuffer w(scratch, sizeof(double) * n * n, exec), info(scratch, sizeof(int), exec);
  check_cuda(
      cudaMemcpyAsync(w.p, a, sizeof(double) * n * n, cudaMemcpyDefault, static_cast<cudaStream_t>(exec.stream())),
      "cudaMemcpyAsync");
  auto h = solver(exec);
  int lwork = 0;
  check_cusolver(cusolverDnDgesvd_bufferSize(h, int(n), int(n), &lwork), "cusolverDnDgesvd_bufferSize");
  DeviceBuffer work(scratch, sizeof(double) * lwork, exec);
  check_cusolver(cusolverDnDgesvd(h, 'A', 'A', int(n), int(n), w.as<double>(), int(n), s, vt, int(n), u, int(n),
                                  work.as<double>(), lwork, nullptr, info.as<int>()),
                 "cusolverDnDgesvd");
  check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(exec.stream())), "cudaStreamSynchronize");
}

void gpu_axpy(std::size_t count, double alpha, const double* x, double* y, const ExecutionContext& exec) {
  check_cublas(cublasDaxpy(blas(exec), int(count), &alpha, x, 1, y, 1), "cublasDaxpy");
  check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(exec.stream())), "cudaStreamSynchronize");
}

}  // namespace slab::linalg::detail
