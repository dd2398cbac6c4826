#pragma once
// The helpers of the device cases (device_cases_frame.cpp, device_cases_array.cpp): device buffers, input
// generators (counter-hash data: duplicates, nulls, -0.0, exactly summable values), the comparison of a reference
// result with two device runs, and event timing. "Device" is the Cuda backend, or the reference itself on host
// memory when compiled with SLAB_KERNEL_CASES_ON_REFERENCE (test_kernels_harness).
#include "device_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "array/kernels/creation.hpp"
#include "array/kernels/elementwise.hpp"
#include "array/kernels/layout.hpp"
#include "array/kernels/reduction.hpp"
#include "array/kernels/scan.hpp"
#include "core/kernels/device.hpp"
#include "core/kernels/exec.hpp"
#include "frame/kernels/expr.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/groupby.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_words_hd.hpp"
#include "frame/kernels/merge.hpp"
#include "frame/kernels/ops.hpp"
#include "frame/kernels/partition.hpp"
#include "frame/kernels/resample.hpp"
#include "frame/kernels/rolling.hpp"
#include "frame/kernels/sort_perm.hpp"
#include "frame/kernels/transform.hpp"
#include "memory/device_allocator.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/runtime/execution_context.hpp"

namespace kernel_check::util {

using slab::ElementType;
using slab::kernels::Exec;
#if defined(SLAB_KERNEL_CASES_ON_REFERENCE)
using Device = slab::kernels::Reference;  // the harness checking itself on the CPU (test_kernels_harness)
#else
using Device = slab::kernels::Cuda;
#endif
using slab::kernels::Reference;
namespace fk = slab::frame::kernels;
namespace sk = slab::kernels;
using I64 = std::int64_t;
using U64 = std::uint64_t;
using U8 = std::uint8_t;

/// A device copy of a host vector (or n uninitialised elements), freed with it. (Host memory when the harness
/// checks itself on the reference.)
#if !defined(SLAB_KERNEL_CASES_ON_REFERENCE)
/// The device cases run on CUDA's legacy default stream (kExec below): copies go through slab::copy on it.
inline const slab::ExecutionContext& legacy_stream_context() {
  static const slab::ExecutionContext context(slab::ExecutionPlace::cuda, 0, nullptr);
  return context;
}
#endif

template <class T>
class Dev {
 public:
  explicit Dev(std::size_t n) : n_(n), p_(static_cast<T*>(alloc(std::max<std::size_t>(n, 1) * sizeof(T)))) {}
  explicit Dev(const std::vector<T>& h) : Dev(h.size()) {
    if (n_) to_device(p_, h.data(), n_ * sizeof(T));
  }
  ~Dev() { release(p_); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  [[nodiscard]] T* get() const { return p_; }
  [[nodiscard]] std::vector<T> host(std::size_t n) const {
    std::vector<T> h(n);
    if (n) to_host(h.data(), p_, n * sizeof(T));
    return h;
  }
  [[nodiscard]] std::vector<T> host() const { return host(n_); }

 private:
#if defined(SLAB_KERNEL_CASES_ON_REFERENCE)
  static void* alloc(std::size_t b) { return std::aligned_alloc(256, (b + 255) / 256 * 256); }
  static void release(void* p) { std::free(p); }
  static void to_device(void* d, const void* h, std::size_t b) { std::memcpy(d, h, b); }
  static void to_host(void* h, const void* d, std::size_t b) { std::memcpy(h, d, b); }
#else
  static void* alloc(std::size_t b) { return slab::detail::device_alloc(b, nullptr); }
  static void release(void* p) { slab::detail::device_free(p, nullptr); }
  static void to_device(void* d, const void* h, std::size_t b) { slab::copy(d, h, b, legacy_stream_context()); }
  static void to_host(void* h, const void* d, std::size_t b) { slab::copy(h, d, b, legacy_stream_context()); }
#endif
  std::size_t n_;
  T* p_;
};

/// Copy a host vector into a Dev of at least its size.
template <class T>
void upload(Dev<T>& d, const std::vector<T>& h) {
  if (h.empty()) return;
#if defined(SLAB_KERNEL_CASES_ON_REFERENCE)
  std::memcpy(d.get(), h.data(), h.size() * sizeof(T));
#else
  slab::copy(d.get(), h.data(), h.size() * sizeof(T), legacy_stream_context());
#endif
}

inline const Exec kExec{};  // legacy default stream, the backend's default scratch

inline U64 hh(U64 s, I64 i) { return slab::counter_hash(s, static_cast<U64>(i)); }
inline std::vector<I64> ints(I64 n, U64 seed, I64 range, I64 offset = 0) {
  std::vector<I64> v(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) v[i] = static_cast<I64>(hh(seed, i) % static_cast<U64>(range)) + offset;
  return v;
}
inline std::vector<double> exact(I64 n, U64 seed) {  // k * 2^-4: sums exact in any order
  std::vector<double> v(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i)
    v[i] = static_cast<double>(static_cast<I64>(hh(seed, i) % (1 << 20)) - (1 << 19)) * 0x1p-4;
  return v;
}
inline std::vector<double> mixed(I64 n, U64 seed) {  // NaN, -0.0, mixed magnitudes
  std::vector<double> v(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) {
    const U64 r = hh(seed, i);
    v[i] = r % 37 == 0   ? std::nan("")
           : r % 41 == 0 ? -0.0
                         : static_cast<double>(r % 100000) * (r % 3 ? 1e-3 : 10.0) - 3e4;
  }
  return v;
}
inline std::vector<U8> valid(I64 n, U64 seed, int every) {
  std::vector<U8> v(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) v[i] = hh(seed, i) % every != 0;
  return v;
}
inline std::vector<std::int32_t> codes(I64 n, U64 seed, int dict) {  // string codes, -1 null every 19th
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (I64 i = 0; i < n; ++i) v[i] = hh(seed, i) % 19 == 0 ? -1 : static_cast<std::int32_t>(hh(seed + 1, i) % dict);
  return v;
}

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Record the comparison of reference `ref` with device runs `a` and `b`.
template <class T>
void compare(Outcome& o, const Options& opt, const std::string& what, const std::vector<T>& ref,
             const std::vector<T>& a, const std::vector<T>& b) {
  if (opt.compare && !same(ref, a)) {
    o.equal = false;
    o.note += what + " differs from the reference; ";
  }
  if (!same(a, b)) {
    o.deterministic = false;
    o.note += what + " differs between device runs; ";
  }
}

/// Device seconds per call of fn (after one warm-up), or -1 when not timing.
template <class F>
double timed(const Options& opt, F&& fn) {
  if (opt.repeats <= 0) return -1;
  fn();
  sk::CudaTimer t(nullptr);
  t.start();
  for (int r = 0; r < opt.repeats; ++r) fn();
  return t.stop() / opt.repeats;
}

/// A device column (values and optional validity) and its view.
struct DevColumn {
  ElementType type;
  std::unique_ptr<Dev<std::byte>> data;
  std::unique_ptr<Dev<U8>> mask;
  template <class T>
  DevColumn(ElementType t, const std::vector<T>& v, const std::vector<U8>* m = nullptr) : type(t) {
    std::vector<std::byte> bytes(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
    data = std::make_unique<Dev<std::byte>>(bytes);
    if (m) mask = std::make_unique<Dev<U8>>(*m);
  }
  [[nodiscard]] fk::ColumnView view() const { return {type, data->get(), mask ? mask->get() : nullptr}; }
};
template <class T>
fk::ColumnView host_view(ElementType t, const std::vector<T>& v, const std::vector<U8>* m = nullptr) {
  return {t, v.data(), m ? m->data() : nullptr};
}

}  // namespace kernel_check::util
