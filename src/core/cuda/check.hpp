#pragma once
// The one way a CUDA, cuBLAS, cuSOLVER or NCCL status becomes an error: slab::CudaError naming the call and the
// library's own name and text for the status, at the caller's source line (OutOfMemory where CUDA could not
// allocate, so that it spills or fails like any other allocation). Include it after the library headers a .cu file
// uses; an overload exists for each of them that was included first. Only src/<layer>/cuda/*.cu(h) include it.
#include <cuda_runtime.h>

#include <source_location>
#include <string>

#include "slab/core/error.hpp"

namespace slab::detail {

/// The error of a failed library call `what` whose status reads `text`: OutOfMemory where the library could not
/// allocate, else CudaError, at the caller's line.
[[noreturn]] inline void throw_status(const char* what, const std::string& text, bool out_of_memory,
                                      const std::source_location& where) {
  if (out_of_memory)
    throw OutOfMemory(std::string(what) + ": the GPU is out of memory (" + text + ")", where.file_name(),
                      static_cast<int>(where.line()));
  throw CudaError(std::string(what) + " failed: " + text, where.file_name(), static_cast<int>(where.line()));
}

/// @throws CudaError "<what> failed: <name>: <text>" unless `status` is cudaSuccess; OutOfMemory for
/// cudaErrorMemoryAllocation. A non-sticky error is cleared first, so that the next call does not report it again.
inline void check_cuda(cudaError_t status, const char* what,
                       std::source_location where = std::source_location::current()) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  throw_status(what, std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status),
               status == cudaErrorMemoryAllocation, where);
}

#if defined(CUBLAS_V2_H_) || defined(CUBLAS_API_H_)
/// @throws CudaError unless `status` is CUBLAS_STATUS_SUCCESS (OutOfMemory for CUBLAS_STATUS_ALLOC_FAILED).
inline void check_cublas(cublasStatus_t status, const char* what,
                         std::source_location where = std::source_location::current()) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw_status(what, std::string(cublasGetStatusName(status)) + ": " + cublasGetStatusString(status),
               status == CUBLAS_STATUS_ALLOC_FAILED, where);
}
#endif

#if defined(CUSOLVERDN_H_) || defined(CUSOLVER_COMMON_H_)
/// @throws CudaError unless `status` is CUSOLVER_STATUS_SUCCESS (cuSOLVER has no status strings: the number).
inline void check_cusolver(cusolverStatus_t status, const char* what,
                           std::source_location where = std::source_location::current()) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  throw_status(what, "cusolverStatus_t " + std::to_string(static_cast<int>(status)),
               status == CUSOLVER_STATUS_ALLOC_FAILED, where);
}
#endif

#if defined(NCCL_H_)
/// @throws CudaError unless `status` is ncclSuccess or ncclInProgress (a nonblocking communicator's call that
/// goes on in the background).
inline void check_nccl(ncclResult_t status, const char* what,
                       std::source_location where = std::source_location::current()) {
  if (status == ncclSuccess || status == ncclInProgress) return;
  throw_status(what, ncclGetErrorString(status), false, where);
}
#endif

}  // namespace slab::detail
