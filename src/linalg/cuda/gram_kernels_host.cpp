// Host twin of gram_kernels.cu: builds without CUDA have no device kernels (the host path uses cblas in gram.cpp).
#include "linalg/cuda/gram_kernels.hpp"
#include "slab/core/error.hpp"

namespace slab::detail {

bool gram_kernels_have_cuda() noexcept { return false; }

void gram_gemm_tiles_device(void*, std::uint64_t, std::uint64_t, const double*, std::uint64_t, double*, std::uint64_t,
                            bool, double) {
  SLAB_FAIL(NotCompiled, "gram: the cuBLAS dgemm path needs a CUDA build of slab");
}

void gram_syrk_device_async(const ExecutionContext&, std::uint64_t, std::uint64_t, const double*, std::uint64_t,
                            double*, std::uint64_t, bool) {
  SLAB_FAIL(NotCompiled, "gram: the cuBLAS dgemm path needs a CUDA build of slab");
}

}  // namespace slab::detail
