#pragma once
/// @file reliability_record.hpp
/// @brief One line per reliability case (fault injected, bad input tried, ...) for docs/RELIABILITY.md.
///
/// When SLAB_RELIABILITY_DIR is set, record() appends one JSON object per line to
/// $SLAB_RELIABILITY_DIR/<category>.jsonl: {"category", "case", "expected", "outcome", "detail", "ranks"}.
/// scripts/reliability_report.py turns those files into the table of docs/RELIABILITY.md, so the table is
/// produced from test results, never written by hand. Shell and Python tests write the same line themselves.
/// Call it on one rank (rank 0) after the outcome is known; without the variable it does nothing.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace slab::testing {

inline void record_reliability(const std::string& category, const std::string& case_name, const std::string& expected,
                               bool passed, const std::string& detail = {}, int ranks = 0) {
  const char* dir = std::getenv("SLAB_RELIABILITY_DIR");
  if (dir == nullptr || *dir == '\0') return;
  std::filesystem::create_directories(dir);
  nlohmann::json line{{"category", category}, {"case", case_name}, {"expected", expected},
                      {"outcome", passed ? "pass" : "fail"}, {"detail", detail}, {"ranks", ranks}};
  std::ofstream out(std::filesystem::path(dir) / (category + ".jsonl"), std::ios::app);
  out << line.dump() << '\n';
}

}  // namespace slab::testing
