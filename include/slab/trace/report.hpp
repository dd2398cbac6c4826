#pragma once
/// @file report.hpp
/// @brief slab-report: a trace written with --trace turned into one self-contained, offline HTML page (a task
/// stream per rank, time per kind of task, memory per tier over time, and the run's summary).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace slab {

/// Kinds of work in a report: the tracer's kinds, with spill split into spill (out of a tier) and unspill
/// (a reload back to the device tier).
inline constexpr std::array<std::string_view, 7> kReportKinds{"compute", "comm",     "io",   "spill",
                                                              "unspill", "generate", "other"};
inline constexpr std::size_t kReportKindCount = kReportKinds.size();

/// One rank (one lane of the task stream).
struct RankReport {
  int rank = 0;
  std::string label;  ///< "rank R (host)" from the trace, or "rank R"
  /// Seconds per kind, excluding time spent in nested events (a spill inside a task counts as spill only).
  std::array<double, kReportKindCount> self_seconds{};
  std::array<std::uint64_t, kReportKindCount> bytes{};
  std::array<std::uint64_t, kReportKindCount> events{};
  double busy_seconds = 0;                    ///< time covered by any event
  std::array<std::uint64_t, 3> peak_bytes{};  ///< device, host, disk
};

/// Memory reserved for one purpose (a groupby's partial state, a merge's broadcast side, ...): the most any rank
/// held at once, and which rank.
struct ReservationReport {
  std::string purpose;
  std::uint64_t peak_bytes = 0;
  int rank = 0;
};

/// The numbers a report is drawn from.
struct TraceReport {
  std::string app;  ///< program name from the trace ("" when absent)
  double wall_seconds = 0;
  std::vector<RankReport> ranks;  ///< one per lane, by rank
  std::uint64_t spilled_bytes = 0;
  std::uint64_t unspilled_bytes = 0;
  std::array<std::uint64_t, 3> peak_bytes{};  ///< largest rank's peak per tier
  std::uint64_t events = 0;                   ///< complete ("X") events read
  std::uint64_t memory_samples = 0;           ///< counter ("C" memory) events read
  std::vector<ReservationReport> reservations;  ///< by purpose, largest peak first
};

/// Summarise the trace-event JSON `json_text`.
/// @throws InvalidArgument naming `source` when the text is not a trace-event JSON file.
TraceReport summarize_trace(std::string_view json_text, std::string_view source);

/// The HTML page for the trace-event JSON `json_text` (inline CSS, JS and SVG; no network).
/// @throws InvalidArgument naming `source` when the text is not a trace-event JSON file.
std::string render_html_report(std::string_view json_text, std::string_view source);

/**
 * @brief Read `trace_json_path` and write the report to `html_path` (through `html_path`.tmp renamed into
 * place, so the page is complete or absent). Returns the trace's summary.
 * @throws IoError when the trace cannot be read or the page cannot be written; InvalidArgument when the
 * trace is not a trace-event JSON file.
 */
TraceReport write_html_report(const std::string& trace_json_path, const std::string& html_path);

}  // namespace slab
