#pragma once
// The one way a CUDA, cuBLAS, cuSOLVER or NCCL status becomes an error: slab::CudaError naming the call and the
// library's own name and text for the status. Include it after the library headers a .cu file uses; an overload
// exists for each of them that was included first. Only src/<layer>/cuda/*.cu include this header.
#include <cuda_runtime.h>

#include <string>

#include "slab/core/error.hpp"

namespace slab::detail {

/// @throws CudaError "<what> failed: <name>: <text>" unless `status` is cudaSuccess.
inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    SLAB_FAIL(CudaError,
              std::string(what) + " failed: " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

#if defined(CUBLAS_V2_H_) || defined(CUBLAS_API_H_)
/// @throws CudaError unless `status` is CUBLAS_STATUS_SUCCESS.
inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    SLAB_FAIL(CudaError,
              std::string(what) + " failed: " + cublasGetStatusName(status) + ": " + cublasGetStatusString(status));
}
#endif

#if defined(CUSOLVERDN_H_) || defined(CUSOLVER_COMMON_H_)
/// @throws CudaError unless `status` is CUSOLVER_STATUS_SUCCESS (cuSOLVER has no status strings: the number).
inline void check_cusolver(cusolverStatus_t status, const char* what) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    SLAB_FAIL(CudaError, std::string(what) + " failed: cusolverStatus_t " + std::to_string(static_cast<int>(status)));
}
#endif

#if defined(NCCL_H_)
/// @throws CudaError unless `status` is ncclSuccess.
inline void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) SLAB_FAIL(CudaError, std::string(what) + " failed: " + ncclGetErrorString(status));
}
#endif

}  // namespace slab::detail
