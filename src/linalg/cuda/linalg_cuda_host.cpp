// Host-only twin of linalg_cuda.cu: the device path does not exist in this build.
#include "linalg/cuda/linalg_cuda.hpp"

#include "slab/core/error.hpp"

namespace slab::linalg::detail {
namespace {
[[noreturn]] void no_cuda(const char* what) {
  SLAB_FAIL(NotCompiled, std::string("linalg: ") + what + " needs a CUDA build (cuBLAS/cuSOLVER)");
}
}  // namespace
void* cublas_handle(const ExecutionContext&) { no_cuda("cuBLAS"); }
void gpu_dgemm(bool, bool, std::size_t, std::size_t, std::size_t, double, const double*, const double*, double, double*,
               const ExecutionContext&) {
  no_cuda("dgemm on device memory");
}
void gpu_dgemm_ld(bool, bool, std::size_t, std::size_t, std::size_t, double, const double*, std::size_t, const double*,
                  std::size_t, double, double*, std::size_t, const ExecutionContext&) {
  no_cuda("dgemm on device memory");
}
void gpu_dsyrk_ata(const double*, std::size_t, std::size_t, double*, const ExecutionContext&) {
  no_cuda("dsyrk on device memory");
}
void gpu_qr_r(const double*, std::size_t, std::size_t, double*, const kernels::ScratchAllocator&,
              const ExecutionContext&) {
  no_cuda("QR on device memory");
}
void gpu_qr(const double*, std::size_t, std::size_t, double*, double*, const kernels::ScratchAllocator&,
            const ExecutionContext&) {
  no_cuda("QR on device memory");
}
void gpu_combine_r(double*, const double*, std::size_t, const kernels::ScratchAllocator&, const ExecutionContext&) {
  no_cuda("QR on device memory");
}
void gpu_svd(const double*, std::size_t, double*, double*, double*, const kernels::ScratchAllocator&,
             const ExecutionContext&) {
  no_cuda("SVD on device memory");
}
void gpu_axpy(std::size_t, double, const double*, double*, const ExecutionContext&) {
  no_cuda("axpy on device memory");
}
}  // namespace slab::linalg::detail
