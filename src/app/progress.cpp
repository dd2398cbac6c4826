#include "slab/app/progress.hpp"

#include <cstdio>
#include <utility>

namespace slab {

ProgressBar::ProgressBar(std::string label, std::uint64_t total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  if (drawn_) finish();
}

ProgressBar::ProgressBar(ProgressBar&& o) noexcept { *this = std::move(o); }

ProgressBar& ProgressBar::operator=(ProgressBar&& o) noexcept {
  if (this != &o) {
    if (drawn_) finish();
    label_ = std::move(o.label_);
    total_ = o.total_;
    done_ = o.done_;
    enabled_ = o.enabled_;
    drawn_ = o.drawn_;
    start_ = o.start_;
    last_ = o.last_;
    o.enabled_ = false;
    o.drawn_ = false;
  }
  return *this;
}

void ProgressBar::update(std::uint64_t done, std::uint64_t total) {
  done_ = done;
  if (total) total_ = total;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done_ < total_) return;
  last_ = now;
  draw();
}

void ProgressBar::draw() {
  constexpr int width = 30;
  const double fraction = total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 0.0;
  const int filled = static_cast<int>(fraction * width);
  char bar[width + 1];
  for (int i = 0; i < width; ++i) bar[i] = i < filled ? '#' : '.';
  bar[width] = 0;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "\r%s [%s] %3d%% %llu/%llu %.1fs", label_.c_str(), bar, static_cast<int>(fraction * 100),
               static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_), seconds);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!enabled_) return;
  draw();
  std::fputc('\n', stderr);
  std::fflush(stderr);
  drawn_ = false;
  enabled_ = false;
}

}  // namespace slab
