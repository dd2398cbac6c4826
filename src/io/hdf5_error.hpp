#pragma once
/// @file hdf5_error.hpp
/// @brief Private: SLAB_HDF5_TRY turns a failed HDF5 call into a slab::IoError saying in one line what failed
/// (the context, the HDF5 function and its innermost reason; the whole HDF5 error stack is logged at
/// --log-level debug), and RAII handles for HDF5 identifiers.

#include <hdf5.h>

#include <string>
#include <utility>

#include "slab/core/error.hpp"

namespace slab::io::detail {

/// Switch off HDF5's automatic error printing (once per process). Not collective; never throws.
void hdf5_quiet() noexcept;
/// The current HDF5 error stack as text ("H5Dopen2(): unable to open dataset; ..."), then cleared.
std::string hdf5_error_stack();
/// The reason at the bottom of the current HDF5 error stack, in one line: the system's message where HDF5
/// quotes one ("no such file or directory", "No space left on device"), else the innermost entry's text
/// ("truncated file: eof = 1024, ..."). The whole stack is logged at LogLevel::debug; the stack is cleared.
std::string hdf5_error_reason();

/// "H5Dwrite" of the stringified call "H5Dwrite(dset, ...)".
inline std::string hdf5_function(const char* call) {
  const std::string c(call);
  return c.substr(0, c.find('('));
}

/// An HDF5 identifier closed with the matching H5?close on destruction.
class H5Handle {
 public:
  H5Handle() = default;
  explicit H5Handle(hid_t id) noexcept : id_(id) {}
  H5Handle(H5Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  H5Handle& operator=(H5Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() { reset(); }
  [[nodiscard]] hid_t get() const noexcept { return id_; }
  operator hid_t() const noexcept { return id_; }  // NOLINT: handles pass straight to the C API
  hid_t release() noexcept { return std::exchange(id_, H5I_INVALID_HID); }
  void reset() noexcept;

 private:
  hid_t id_ = H5I_INVALID_HID;
};

}  // namespace slab::io::detail

/// Evaluate an HDF5 call; when it returns a negative value (hid_t, herr_t, htri_t), throw
/// slab::IoError("<context>: <function> failed: <reason>"), e.g. "out.h5:/frame/x: H5Dwrite failed: No space
/// left on device". Yields the call's value.
#define SLAB_HDF5_TRY(context, call)                                                                 \
  ([&]() {                                                                                           \
    ::slab::io::detail::hdf5_quiet();                                                                \
    auto slab_h5_rc_ = (call);                                                                       \
    if (slab_h5_rc_ < 0)                                                                             \
      throw ::slab::IoError(std::string(context) + ": " + ::slab::io::detail::hdf5_function(#call) + \
                                " failed: " + ::slab::io::detail::hdf5_error_reason(),               \
                            __FILE__, __LINE__);                                                     \
    return slab_h5_rc_;                                                                              \
  }())
