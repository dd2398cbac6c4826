#pragma once
/// @file host_view.hpp
/// @brief slab::HostView: a pinned buffer's bytes readable on the host, for code that reads a device-tier buffer
/// outside a host task (gathering results, samples, small tables): the pin's own bytes where the device tier is
/// host memory, else one copy (slab::copy) that the view owns.

#include <cstddef>
#include <span>
#include <vector>

#include "slab/memory/buffer.hpp"
#include "slab/runtime/execution_context.hpp"

namespace slab {

/// The bytes of `pin` (which must outlive the view) on the host, copied once where its buffer's manager keeps the
/// device tier in GPU memory. Not collective. @throws CudaError when the copy fails.
class HostView {
 public:
  explicit HostView(const Pin& pin) {
    const ExecutionContext& context = pin.buffer() ? pin.buffer()->execution() : ExecutionContext::host();
    if (context.on_device()) {
      copy_.resize(static_cast<std::size_t>(pin.size()));
      if (!copy_.empty()) slab::copy(copy_.data(), pin.data(), copy_.size(), context);
      bytes_ = copy_;
    } else {
      bytes_ = {pin.data(), static_cast<std::size_t>(pin.size())};
    }
  }
  HostView(const HostView&) = delete;
  HostView& operator=(const HostView&) = delete;

  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }
  /// The bytes as an array of T (size() / sizeof(T) of them).
  template <class T>
  [[nodiscard]] std::span<const T> as() const noexcept {
    return {reinterpret_cast<const T*>(bytes_.data()), bytes_.size() / sizeof(T)};
  }

 private:
  std::vector<std::byte> copy_;
  std::span<const std::byte> bytes_;
};

}  // namespace slab
