#pragma once
/// @file host_view.hpp
/// @brief slab::HostView: a pinned buffer's bytes readable on the host, for code that reads a device-tier buffer
/// outside a host task (gathering results, samples, small tables): the pin's own bytes where the device tier is
/// host memory, else one copy (slab::copy) that the view owns. slab::HostEdit: the same for writing, the copy
/// written back when the edit ends.

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/core/log.hpp"
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

/// The bytes of `pin` (which must outlive the edit) writable on the host: the pin's own bytes where the device
/// tier is host memory, else a copy that commit() (or the end of the edit) writes back to the buffer; the
/// reference place copies too, as a GPU would, so that CI runs the write-back (TaskPlace does the same). Move-only.
/// Not collective. @throws CudaError when a copy fails (from the destructor: logged, the buffer keeps its bytes).
class HostEdit {
 public:
  HostEdit() = default;
  explicit HostEdit(const Pin& pin) {
    const ExecutionContext& context = pin.buffer() ? pin.buffer()->execution() : ExecutionContext::host();
    if (context.device_kernels() && pin.size() > 0) {
      copy_.resize(static_cast<std::size_t>(pin.size()));
      slab::copy(copy_.data(), pin.data(), copy_.size(), context);
      device_ = pin.data();
      context_ = &context;
      bytes_ = copy_;
    } else {
      bytes_ = {pin.data(), static_cast<std::size_t>(pin.size())};
    }
  }
  HostEdit(HostEdit&& other) noexcept { take(other); }
  HostEdit& operator=(HostEdit&& other) noexcept {
    if (this != &other) {
      end();
      take(other);
    }
    return *this;
  }
  HostEdit(const HostEdit&) = delete;
  HostEdit& operator=(const HostEdit&) = delete;
  ~HostEdit() { end(); }

  [[nodiscard]] std::span<std::byte> bytes() const noexcept { return bytes_; }
  /// Whether the bytes are a host copy (written back by commit()).
  [[nodiscard]] bool staged() const noexcept { return device_ != nullptr; }
  /// Write the host copy back to the buffer now (nothing where the bytes are the buffer's own).
  void commit() const {
    if (device_ != nullptr) slab::copy(device_, copy_.data(), copy_.size(), *context_);
  }

 private:
  void take(HostEdit& other) noexcept {
    copy_ = std::move(other.copy_);
    bytes_ = std::exchange(other.bytes_, {});
    device_ = std::exchange(other.device_, nullptr);
    context_ = std::exchange(other.context_, nullptr);
  }
  void end() noexcept {
    try {
      commit();
    } catch (const Error& e) {
      log(LogLevel::error, "HostEdit: writing a host copy back to GPU memory failed: " + e.message());
    }
    device_ = nullptr;
  }

  std::vector<std::byte> copy_;
  std::span<std::byte> bytes_;
  std::byte* device_ = nullptr;
  const ExecutionContext* context_ = nullptr;
};

}  // namespace slab
