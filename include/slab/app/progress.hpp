#pragma once
/// @file progress.hpp
/// @brief A progress bar on rank 0 for long work; silent elsewhere, with --quiet, or off a terminal.

#include <chrono>
#include <cstdint>
#include <string>

namespace slab {

/// Not collective. Draws "label [#####.....] 42% 12/30 3.1s" on stderr, at most every 100 ms.
class ProgressBar {
 public:
  ProgressBar() = default;  ///< disabled
  ProgressBar(std::string label, std::uint64_t total, bool enabled);
  ~ProgressBar();
  ProgressBar(ProgressBar&&) noexcept;
  ProgressBar& operator=(ProgressBar&&) noexcept;
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(std::uint64_t done, std::uint64_t total = 0);
  void advance(std::uint64_t by = 1) { update(done_ + by); }
  /// Draw the final state and end the line.
  void finish();
  [[nodiscard]] bool enabled() const noexcept { return enabled_; }

 private:
  void draw();
  std::string label_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_{};
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace slab
