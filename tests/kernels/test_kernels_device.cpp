// Every kernel entry point on the device against its reference instantiation, each device run twice for
// bitwise determinism (device_cases.cpp), on the sizes. Skips with a message where this build has no
// CUDA or the machine no device (label `gpu`; scripts/device_check.sh runs it on a borrowed GPU machine).
#include <gtest/gtest.h>

#include "core/kernels/device.hpp"
#include "device_cases.hpp"
#include "slab/core/version.hpp"

namespace {

bool no_device(std::string& why) {
#if defined(SLAB_KERNEL_CASES_ON_REFERENCE)
  (void)why;
  return false;  // the harness checking itself on the reference: no device needed
#endif
  if (!slab::built_with_cuda) {
    why = "this build has no CUDA kernels (SLAB_ENABLE_CUDA=OFF or no toolkit)";
    return true;
  }
  if (slab::kernels::cuda_devices() == 0) {
    why = "no CUDA device on this machine: the device kernels are compiled but not run here";
    return true;
  }
  return false;
}

class KernelDevice : public ::testing::TestWithParam<std::size_t> {};

TEST_P(KernelDevice, EqualsTheReferenceAndIsDeterministic) {
  std::string why;
  if (no_device(why)) GTEST_SKIP() << why;
  const kernel_check::Case c = kernel_check::cases()[GetParam()];
  for (std::int64_t n : kernel_check::test_sizes()) {
    const kernel_check::Outcome o = c.run(n, {});
    EXPECT_TRUE(o.equal) << c.name << " n=" << n << ": " << o.note;
    EXPECT_TRUE(o.deterministic) << c.name << " n=" << n << ": " << o.note;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryEntryPoint, KernelDevice, ::testing::Range<std::size_t>(0, kernel_check::cases().size()),
                         [](const auto& info) {
                           std::string name = kernel_check::cases()[info.param].name;
                           for (auto& ch : name)
                             if (ch == '.') ch = '_';
                           return name;
                         });

}  // namespace
