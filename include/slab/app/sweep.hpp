#pragma once
/// @file sweep.hpp
/// @brief slab::sweep: a parameter sweep (joblib's `Parallel(delayed(f)(p) for p in grid)`) done SPMD: the
/// grid is known to every rank, each rank takes the next point from a shared counter when it is free
/// (slab::WorkCounter: dynamic load balancing with no scheduler rank), and the named values each point
/// returns are gathered into one table in grid order on every rank.
///
/// Sweeping your own model:
/// @code
///   #include <slab/app/app.hpp>
///   #include <slab/app/sweep.hpp>
///
///   int main(int argc, char** argv) {
///     slab::App app("my-sweep", "Score my model over a grid");
///     std::string grid_csv = "grid.csv";  // a header row of names, then one row of numbers per point
///     app.cli().add_option("--grid", grid_csv, "grid CSV");
///     return app.run(argc, argv, [&](slab::AppContext& ctx) {
///       const slab::Grid grid = slab::Grid::read_csv(ctx.comm(), grid_csv);  // collective
///       MyData data = load_my_data(ctx.comm());   // collective work belongs here, before the sweep
///       ctx.job_begin();
///       const slab::SweepTable table = slab::sweep(ctx.comm(), grid, [&](const slab::SweepPoint& p) {
///         // Runs on whichever rank takes point p.index(); must not call collectives.
///         const double score = my_model(data, p["depth"], p["rate"]);
///         return slab::SweepValues{{"score", score}};
///       });
///       ctx.job_end();
///       table.write_csv(ctx.comm(), "results.csv");  // collective, atomic: complete or absent
///       ctx.check("best", table.at(table.argmin("score"), "score"));
///     });
///   }
/// @endcode
/// The function runs on one rank at a time per point, so it must not call collectives (do collective
/// set-up, such as factoring distributed data, before the sweep; see slab::linalg::RidgeCv). If it throws on
/// any rank, the other ranks stop taking points and every rank throws the same error naming the point.

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slab/comm/comm.hpp"

namespace slab {

/// @brief A parameter grid: named float64 columns, one row per point; every rank holds the same grid.
class Grid {
 public:
  Grid() = default;
  /// @throws InvalidArgument when a name is empty, repeated, or holds a comma, quote or line break.
  explicit Grid(std::vector<std::string> names);

  /// @brief Append a point. Not collective. @throws InvalidArgument when values.size() != names().size().
  void add(std::vector<double> values);

  [[nodiscard]] std::size_t size() const noexcept { return names_.empty() ? 0 : values_.size() / names_.size(); }
  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }
  /// @brief The values of point i, in names() order. Not collective.
  [[nodiscard]] std::span<const double> point(std::size_t i) const;
  /// @brief The index of column `name`. @throws InvalidArgument naming the columns when there is none.
  [[nodiscard]] std::size_t column(std::string_view name) const;
  /// @brief "alpha=0.001, folds=5": point i for messages. Not collective.
  [[nodiscard]] std::string describe(std::size_t i) const;

  /**
   * @brief Parse grid CSV text: a header row of column names, then one row of numbers per point (comma
   * separated, spaces around fields ignored; blank lines and lines starting with '#' skipped). Not collective.
   * @throws IoError "SOURCE:LINE: column C ('name'): ..." for a bad number or a wrong field count, or when
   * there is no header or no point.
   */
  [[nodiscard]] static Grid parse_csv(std::string_view text, const std::string& source);

  /**
   * @brief Read a grid CSV (format of parse_csv): rank 0 reads and parses, every rank gets the grid.
   * Collective. @throws IoError (every rank, the same message) when the file cannot be read or a row is bad.
   */
  [[nodiscard]] static Grid read_csv(const Comm& comm, const std::string& path);

 private:
  std::vector<std::string> names_;
  std::vector<double> values_;  // row-major, size() x names_.size()
};

/// @brief One grid point as the sweep function sees it.
class SweepPoint {
 public:
  SweepPoint(const Grid& grid, std::size_t index) : grid_(grid), index_(index) {}
  /// Position of the point in the grid (and of its row in the result table).
  [[nodiscard]] std::size_t index() const noexcept { return index_; }
  /// The value of column `name`. @throws InvalidArgument for an unknown name.
  [[nodiscard]] double operator[](std::string_view name) const { return grid_.point(index_)[grid_.column(name)]; }
  [[nodiscard]] std::span<const double> values() const { return grid_.point(index_); }
  [[nodiscard]] const Grid& grid() const noexcept { return grid_; }

 private:
  const Grid& grid_;
  std::size_t index_;
};

/// The named values one point returns: the same names in the same order for every point.
using SweepValues = std::vector<std::pair<std::string, double>>;
/// The user's function: called once per point, on the rank that took it; must not call collectives.
using SweepFunction = std::function<SweepValues(const SweepPoint&)>;

struct SweepOptions {
  /// Points taken per visit to the counter: 1 balances best; more saves round trips when points take microseconds.
  std::size_t batch = 1;
  /// Name of each point's TraceKind::compute event in the trace.
  std::string trace_name = "sweep_point";
};

/**
 * @brief The results of a sweep in grid order, the same on every rank: the grid's columns, the function's
 * named values, then "rank" (who computed the point) and "seconds" (how long it took).
 */
class SweepTable {
 public:
  SweepTable() = default;
  SweepTable(std::vector<std::string> columns, std::vector<double> values);

  [[nodiscard]] const std::vector<std::string>& columns() const noexcept { return columns_; }
  [[nodiscard]] std::size_t size() const noexcept { return columns_.empty() ? 0 : values_.size() / columns_.size(); }
  /// @brief The index of column `name`. @throws InvalidArgument naming the columns when there is none.
  [[nodiscard]] std::size_t column_index(std::string_view name) const;
  /// @brief Row `point`'s value in column `name`. Not collective. @throws InvalidArgument.
  [[nodiscard]] double at(std::size_t point, std::string_view name) const;
  /// @brief Column `name` in grid order. Not collective. @throws InvalidArgument.
  [[nodiscard]] std::vector<double> column(std::string_view name) const;
  /// @brief The first row with the smallest value of column `name` (NaN never wins). @throws InvalidArgument
  /// when the table is empty.
  [[nodiscard]] std::size_t argmin(std::string_view name) const;
  /// @brief The table as CSV text (header, then rows; values round-trip: %.17g). Not collective.
  [[nodiscard]] std::string to_csv() const;

  /**
   * @brief Write to_csv() to `path`, atomically: rank 0 writes a temporary file in the same directory and
   * renames it over `path`, so `path` is complete or absent. Collective.
   * @throws IoError (every rank, the same message) when it cannot be written.
   */
  void write_csv(const Comm& comm, const std::string& path) const;
  /// @brief Check before a long run that write_csv(comm, path) could create its file (rank 0 creates and
  /// removes the temporary file). Collective. @throws IoError (every rank).
  static void check_writable(const Comm& comm, const std::string& path);

 private:
  std::vector<std::string> columns_;
  std::vector<double> values_;  // row-major
};

/**
 * @brief Evaluate `fn` on every point of `grid`, each point on whichever rank takes it first from a shared
 * counter (dynamic load balancing without a scheduler), and gather the results in grid order on every
 * rank. Ranks may outnumber points. Collective; every rank passes the same grid.
 * @throws InvalidArgument (every rank) when the grids differ in shape across ranks, or points return
 * different names; Error (every rank, the same message "sweep: point I (a=.., b=..): <what fn threw>")
 * when fn throws on any rank: the other ranks stop taking points as soon as they see it.
 */
[[nodiscard]] SweepTable sweep(const Comm& comm, const Grid& grid, const SweepFunction& fn,
                               const SweepOptions& options = {});

}  // namespace slab
