// Every cuBLAS/cuSOLVER call of the linalg layer. Row-major matrices are column-major transposes, so
// row-major C = A B is column-major C^T = B^T A^T: operands swap and no data moves.
#include "linalg/cuda/linalg_cuda.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <string>

#include "slab/core/error.hpp"

namespace slab::linalg::detail {
namespace {

void cuda_try(cudaError_t e, const char* what) {
  if (e != cudaSuccess) SLAB_FAIL(CudaError, std::string("linalg: ") + what + ": " + cudaGetErrorString(e));
}
void blas_try(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    SLAB_FAIL(CudaError, std::string("linalg: ") + what + " failed (cuBLAS status " + std::to_string(int(s)) + ")");
}
void solver_try(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    SLAB_FAIL(CudaError, std::string("linalg: ") + what + " failed (cuSOLVER status " + std::to_string(int(s)) + ")");
}

// One handle per thread (slab uses the rank's main thread), bound to the stream at each call.
cublasHandle_t blas(void* stream) {
  thread_local cublasHandle_t h = nullptr;
  if (!h) blas_try(cublasCreate(&h), "cublasCreate");
  blas_try(cublasSetStream(h, static_cast<cudaStream_t>(stream)), "cublasSetStream");
  return h;
}
cusolverDnHandle_t solver(void* stream) {
  thread_local cusolverDnHandle_t h = nullptr;
  if (!h) solver_try(cusolverDnCreate(&h), "cusolverDnCreate");
  solver_try(cusolverDnSetStream(h, static_cast<cudaStream_t>(stream)), "cusolverDnSetStream");
  return h;
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { cuda_try(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

__global__ void upper_rowmajor(const double* w, int ldw, int n, double* r) {
  // w: column-major factored matrix (R in its upper triangle); r: row-major n x n upper triangle.
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) r[static_cast<size_t>(i) * n + j] = j >= i ? w[i + static_cast<size_t>(j) * ldw] : 0.0;
}

// Column-major copy (m x n, ld m) of row-major A (m x n), by geam.
void transpose_to(const double* a, int m, int n, double* w, void* stream) {
  const double one = 1, zero = 0;
  blas_try(cublasDgeam(blas(stream), CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, n, &zero, w, m, w, m), "cublasDgeam");
}

// geqrf in place on w (m x n col-major); returns tau.
void geqrf(double* w, int m, int n, double* tau, void* stream) {
  auto h = solver(stream);
  int lwork = 0;
  solver_try(cusolverDnDgeqrf_bufferSize(h, m, n, w, m, &lwork), "cusolverDnDgeqrf_bufferSize");
  DeviceBuffer work(sizeof(double) * lwork), info(sizeof(int));
  solver_try(cusolverDnDgeqrf(h, m, n, w, m, tau, work.as<double>(), lwork, info.as<int>()), "cusolverDnDgeqrf");
}

}  // namespace

bool gpu_available() noexcept { return true; }

void gpu_dgemm(bool trans_a, bool trans_b, std::size_t m, std::size_t n, std::size_t k, double alpha, const double* a,
               const double* b, double beta, double* c, void* stream) {
  // Row-major: C^T (n x m) = op(B)^T op(A)^T in column-major.
  const int lda = trans_a ? int(m) : int(k), ldb = trans_b ? int(k) : int(n);
  blas_try(cublasDgemm(blas(stream), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, int(n),
                       int(m), int(k), &alpha, b, ldb, a, lda, &beta, c, int(n)),
           "cublasDgemm");
}

void gpu_dsyrk_ata(const double* a, std::size_t m, std::size_t n, double* c, void* stream) {
  // Row-major A (m x n) is column-major A^T (n x m): A^T A = (A^T)(A^T)^T, syrk with op N.
  const double one = 1, zero = 0;
  blas_try(
      cublasDsyrk(blas(stream), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, int(n), int(m), &one, a, int(n), &zero, c, int(n)),
      "cublasDsyrk");  // lower in column-major = upper in row-major
}

void gpu_qr_r(const double* a, std::size_t m, std::size_t n, double* r, void* stream) {
  DeviceBuffer w(sizeof(double) * m * n), tau(sizeof(double) * n);
  transpose_to(a, int(m), int(n), w.as<double>(), stream);
  geqrf(w.as<double>(), int(m), int(n), tau.as<double>(), stream);
  dim3 block(16, 16), grid((unsigned)((n + 15) / 16), (unsigned)((n + 15) / 16));
  upper_rowmajor<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(w.as<double>(), int(m), int(n), r);
  cuda_try(cudaGetLastError(), "upper_rowmajor");
  cuda_try(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

void gpu_qr_q(const double* a, std::size_t m, std::size_t n, double* q, void* stream) {
  DeviceBuffer w(sizeof(double) * m * n), tau(sizeof(double) * n);
  transpose_to(a, int(m), int(n), w.as<double>(), stream);
  geqrf(w.as<double>(), int(m), int(n), tau.as<double>(), stream);
  auto h = solver(stream);
  int lwork = 0;
  solver_try(cusolverDnDorgqr_bufferSize(h, int(m), int(n), int(n), w.as<double>(), int(m), tau.as<double>(), &lwork),
             "cusolverDnDorgqr_bufferSize");
  DeviceBuffer work(sizeof(double) * lwork), info(sizeof(int));
  solver_try(cusolverDnDorgqr(h, int(m), int(n), int(n), w.as<double>(), int(m), tau.as<double>(), work.as<double>(),
                              lwork, info.as<int>()),
             "cusolverDnDorgqr");
  const double one = 1, zero = 0;  // back to row-major
  blas_try(cublasDgeam(blas(stream), CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), &one, w.as<double>(), int(m), &zero, q,
                       int(n), q, int(n)),
           "cublasDgeam");
  cuda_try(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

void gpu_svd(const double* a, std::size_t n, double* u, double* s, double* vt, void* stream) {
  // Row-major A is column-major A^T = U' S VT', so A = VT'^T S U'^T. Column-major U' read as row-major is
  // U'^T = A's VT, and column-major VT' read as row-major is A's U: hence U' -> vt and VT' -> u.
  DeviceBuffer w(sizeof(double) * n * n), info(sizeof(int));
  cuda_try(cudaMemcpyAsync(w.p, a, sizeof(double) * n * n, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)),
           "cudaMemcpyAsync");
  auto h = solver(stream);
  int lwork = 0;
  solver_try(cusolverDnDgesvd_bufferSize(h, int(n), int(n), &lwork), "cusolverDnDgesvd_bufferSize");
  DeviceBuffer work(sizeof(double) * lwork);
  solver_try(cusolverDnDgesvd(h, 'A', 'A', int(n), int(n), w.as<double>(), int(n), s, vt, int(n), u, int(n),
                              work.as<double>(), lwork, nullptr, info.as<int>()),
             "cusolverDnDgesvd");
  cuda_try(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

void gpu_axpy(std::size_t count, double alpha, const double* x, double* y, void* stream) {
  blas_try(cublasDaxpy(blas(stream), int(count), &alpha, x, 1, y, 1), "cublasDaxpy");
  cuda_try(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

void gpu_copy(void* dst, const void* src, std::size_t bytes, void* stream) {
  cuda_try(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)), "cudaMemcpyAsync");
  cuda_try(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

}  // namespace slab::linalg::detail
