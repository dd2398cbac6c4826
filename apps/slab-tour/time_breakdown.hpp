#pragma once
// Where a rank's time went between two instants, from its own trace: each instant is given to the innermost
// event covering it (a spill inside a task counts as spill, not as compute), and an instant no event covers is
// "other" (waiting, scheduling, the app's own bookkeeping). Only public headers: an example a user can copy.
//
// The app also records each library call it makes as one event named "call: ..." of the call's kind (svd is
// compute, writing X is io): the call's time that no event of the library covers (work the library does outside
// its tasks and collectives, e.g. the SVD of R, the rolling kernel, HDF5 writes) then counts as that kind.
// Without them (with_calls false) the breakdown credits only what the library itself records.
#include <slab/trace/tracer.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

namespace tour {

/// Seconds per slab::TraceKind (compute, comm, io, spill, generate, other) in a window of one rank.
using KindSeconds = std::array<double, 6>;

/// Attribute [t0, t1) of this rank's `events` to kinds (innermost event wins; uncovered time is "other").
/// Events of kind other are markers (e.g. the tour's steps) and are ignored, and so are the app's "call: " events
/// unless `with_calls`. Not collective.
inline KindSeconds attribute_time(const std::vector<slab::TraceEvent>& events, double t0, double t1,
                                  bool with_calls = true) {
  constexpr auto other = static_cast<std::size_t>(slab::TraceKind::other);
  struct Span {
    double start, end;
    std::size_t kind;
  };
  std::vector<Span> spans;
  for (const auto& e : events) {
    const double s = std::max(e.start, t0), f = std::min(e.start + e.duration, t1);
    if (!with_calls && e.name.rfind("call: ", 0) == 0) continue;
    if (f > s && e.kind != slab::TraceKind::other) spans.push_back({s, f, static_cast<std::size_t>(e.kind)});
  }
  // Outer events first when they start together, so that the stack below holds them under their children.
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
  KindSeconds out{};
  std::vector<Span> open;  // nested events covering the cursor, innermost last
  double cursor = t0;
  auto give = [&](double until) {  // [cursor, until) to the innermost open event, or to "other"
    if (until > cursor) out[open.empty() ? other : open.back().kind] += until - cursor;
    cursor = std::max(cursor, until);
  };
  auto close_until = [&](double t) {
    while (!open.empty() && open.back().end <= t) {
      give(open.back().end);
      open.pop_back();
    }
  };
  for (Span s : spans) {
    close_until(s.start);
    give(s.start);
    if (!open.empty()) s.end = std::min(s.end, open.back().end);  // one thread's events nest; clip if not
    open.push_back(s);
  }
  close_until(t1);
  give(t1);
  return out;
}

}  // namespace tour
