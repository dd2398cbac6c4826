// slab::sweep: grid points taken from a WorkCounter, results packed as doubles and gathered in grid order.
#include "slab/app/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "slab/comm/work_counter.hpp"
#include "slab/core/error.hpp"
#include "slab/io/csv.hpp"
#include "slab/trace/tracer.hpp"

namespace slab {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i)
    if (i == line.size() || line[i] == ',') {
      out.push_back(trim(line.substr(start, i - start)));
      start = i + 1;
    }
  return out;
}

std::string join(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? sep : "") + names[i];
  return out;
}

/// A column name must survive a CSV round trip unquoted.
void check_name(const std::string& name, const char* what) {
  SLAB_EXPECTS(!name.empty() && name.find_first_of(",\"\r\n") == std::string::npos, InvalidArgument,
               std::string(what) + ": column name '" + name + "' is empty or holds a comma, quote or line break");
}

std::size_t find_column(const std::vector<std::string>& names, std::string_view name, const char* what) {
  const auto it = std::find(names.begin(), names.end(), name);
  SLAB_EXPECTS(it != names.end(), InvalidArgument,
               std::string(what) + ": no column '" + std::string(name) + "' (columns: " + join(names, ", ") + ")");
  return std::size_t(it - names.begin());
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string temporary_name(const std::string& path) { return path + ".tmp-" + std::to_string(::getpid()); }

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Grid

Grid::Grid(std::vector<std::string> names) : names_(std::move(names)) {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    check_name(names_[i], "Grid");
    SLAB_EXPECTS(
        std::find(names_.begin(), names_.begin() + std::ptrdiff_t(i), names_[i]) == names_.begin() + std::ptrdiff_t(i),
        InvalidArgument, "Grid: column '" + names_[i] + "' appears twice");
  }
}

void Grid::add(std::vector<double> values) {
  SLAB_EXPECTS(!names_.empty() && values.size() == names_.size(), InvalidArgument,
               "Grid::add: " + std::to_string(values.size()) + " values for " + std::to_string(names_.size()) +
                   " columns (" + join(names_, ", ") + ")");
  values_.insert(values_.end(), values.begin(), values.end());
}

std::span<const double> Grid::point(std::size_t i) const {
  SLAB_EXPECTS(i < size(), InvalidArgument, "Grid: point " + std::to_string(i) + " of " + std::to_string(size()));
  return {values_.data() + i * names_.size(), names_.size()};
}

std::size_t Grid::column(std::string_view name) const { return find_column(names_, name, "Grid"); }

std::string Grid::describe(std::size_t i) const {
  const auto p = point(i);
  std::string out;
  for (std::size_t c = 0; c < names_.size(); ++c) out += (c ? ", " : "") + names_[c] + "=" + format_number(p[c]);
  return out;
}

Grid Grid::parse_csv(std::string_view text, const std::string& source) {
  Grid grid;
  std::size_t line_no = 0, pos = 0;
  bool header = false;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const auto fields = split_fields(line);
    const std::string where = source + ":" + std::to_string(line_no);
    if (!header) {
      std::vector<std::string> names(fields.begin(), fields.end());
      try {
        grid = Grid(std::move(names));
      } catch (const Error& e) {
        SLAB_FAIL(IoError, where + ": bad header: " + e.message());
      }
      header = true;
      continue;
    }
    const std::size_t want = grid.names_.size();
    if (fields.size() != want) {
      const std::size_t col = std::min(fields.size(), want) + 1;
      SLAB_FAIL(IoError, where + ": column " + std::to_string(col) + ": " + std::to_string(fields.size()) +
                             " fields, the header has " + std::to_string(want) + " (" + join(grid.names_, ", ") + ")");
    }
    for (std::size_t c = 0; c < want; ++c) {
      double v = 0;
      SLAB_EXPECTS(!fields[c].empty() && slab::io::parse_float64(fields[c], v), IoError,
                   where + ": column " + std::to_string(c + 1) + " ('" + grid.names_[c] + "'): '" +
                       std::string(fields[c]) + "' is not a number");
      grid.values_.push_back(v);
    }
  }
  SLAB_EXPECTS(header, IoError, source + ": no header row (expected column names, e.g. 'alpha,folds')");
  SLAB_EXPECTS(grid.size() > 0, IoError, source + ": a header but no grid points");
  return grid;
}

Grid Grid::read_csv(const Comm& comm, const std::string& path) {
  Grid grid;
  comm.run_collectively([&] {
    if (comm.rank() != 0) return;
    std::ifstream in(path, std::ios::binary);
    SLAB_EXPECTS(in, IoError, "grid CSV '" + path + "' cannot be opened");
    std::ostringstream text;
    text << in.rdbuf();
    SLAB_EXPECTS(!in.bad(), IoError, "grid CSV '" + path + "' cannot be read");
    grid = parse_csv(text.str(), path);
  });
  // Rank 0's grid to every rank: sizes, then names (one per line) and values.
  std::string names = join(grid.names_, "\n");
  std::uint64_t sizes[2] = {names.size(), grid.values_.size()};
  comm.bcast(std::span<std::uint64_t>(sizes, 2), 0);
  names.resize(sizes[0]);
  grid.values_.resize(sizes[1]);
  comm.bcast(std::span<char>(names), 0);
  comm.bcast(std::span<double>(grid.values_), 0);
  if (comm.rank() != 0) {
    grid.names_.clear();
    for (std::size_t start = 0;;) {
      const std::size_t nl = names.find('\n', start);
      grid.names_.push_back(names.substr(start, nl - start));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  return grid;
}

// ---------------------------------------------------------------------------------------------------------------
// SweepTable

SweepTable::SweepTable(std::vector<std::string> columns, std::vector<double> values)
    : columns_(std::move(columns)), values_(std::move(values)) {
  SLAB_EXPECTS(
      columns_.empty() ? values_.empty() : values_.size() % columns_.size() == 0, ShapeError,
      "SweepTable: " + std::to_string(values_.size()) + " values for " + std::to_string(columns_.size()) + " columns");
}

std::size_t SweepTable::column_index(std::string_view name) const { return find_column(columns_, name, "SweepTable"); }

double SweepTable::at(std::size_t point, std::string_view name) const {
  const std::size_t c = column_index(name);
  SLAB_EXPECTS(point < size(), InvalidArgument,
               "SweepTable: row " + std::to_string(point) + " of " + std::to_string(size()));
  return values_[point * columns_.size() + c];
}

std::vector<double> SweepTable::column(std::string_view name) const {
  const std::size_t c = column_index(name);
  std::vector<double> out(size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = values_[i * columns_.size() + c];
  return out;
}

std::size_t SweepTable::argmin(std::string_view name) const {
  const auto v = column(name);
  SLAB_EXPECTS(!v.empty(), InvalidArgument, "SweepTable::argmin: the table is empty");
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[best] || (std::isnan(v[best]) && !std::isnan(v[i]))) best = i;
  return best;
}

std::string SweepTable::to_csv() const {
  std::string out = join(columns_, ",") + "\n";
  for (std::size_t i = 0; i < size(); ++i) {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c) out += ',';
      out += format_number(values_[i * columns_.size() + c]);
    }
    out += '\n';
  }
  return out;
}

void SweepTable::write_csv(const Comm& comm, const std::string& path) const {
  comm.run_collectively([&] {
    if (comm.rank() != 0) return;
    const std::string tmp = temporary_name(path), text = to_csv();
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    SLAB_EXPECTS(f, IoError, "cannot write '" + path + "': cannot create '" + tmp + "'");
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    const bool closed = std::fclose(f) == 0;
    if (!(written && flushed && closed) || std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      SLAB_FAIL(IoError, "cannot write '" + path + "' (disk full or not writable)");
    }
  });
}

void SweepTable::check_writable(const Comm& comm, const std::string& path) {
  comm.run_collectively([&] {
    if (comm.rank() != 0) return;
    const std::string tmp = temporary_name(path);
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    SLAB_EXPECTS(f, IoError, "cannot write '" + path + "': cannot create '" + tmp + "'");
    std::fclose(f);
    std::remove(tmp.c_str());
  });
}

// ---------------------------------------------------------------------------------------------------------------
// sweep

SweepTable sweep(const Comm& comm, const Grid& grid, const SweepFunction& fn, const SweepOptions& options) {
  const std::int64_t n = std::int64_t(grid.size());
  const std::int64_t cols = std::int64_t(grid.names().size());
  {
    std::int64_t shape[4] = {n, -n, cols, -cols};
    comm.allreduce(std::span<std::int64_t>(shape, 4), ReduceOp::max);
    comm.agree(shape[0] == -shape[1] && shape[2] == -shape[3], "sweep: the ranks hold different grids (" +
                                                                   std::to_string(n) + " points of " +
                                                                   std::to_string(cols) + " columns here)");
  }
  const std::int64_t batch = std::int64_t(std::max<std::size_t>(1, options.batch));
  Tracer* tracer = comm.tracer();

  // This rank's points, packed as [index, seconds, values...]; the names from its first point.
  std::vector<double> mine;
  std::vector<std::string> names;
  bool have_names = false;
  std::exception_ptr error;
  WorkCounter counter(comm);
  for (std::int64_t first = counter.fetch_add(batch); first < n && !error; first = counter.fetch_add(batch)) {
    for (std::int64_t i = first; i < std::min(n, first + batch); ++i) {
      const double t0 = seconds_now(), trace_t0 = tracer ? tracer->now() : 0.0;
      try {
        SweepValues values = fn(SweepPoint(grid, std::size_t(i)));
        std::vector<std::string> got;
        for (const auto& [name, value] : values) got.push_back(name);
        if (!have_names) {
          for (const auto& name : got) {
            check_name(name, "sweep");
            SLAB_EXPECTS(std::find(grid.names().begin(), grid.names().end(), name) == grid.names().end() &&
                             name != "rank" && name != "seconds" && std::count(got.begin(), got.end(), name) == 1,
                         InvalidArgument,
                         "the value '" + name + "' repeats a grid column, another value, 'rank' or 'seconds'");
          }
          names = got;
          have_names = true;
        }
        SLAB_EXPECTS(
            got == names, InvalidArgument,
            "returned values (" + join(got, ", ") + "), but an earlier point returned (" + join(names, ", ") + ")");
        mine.push_back(double(i));
        mine.push_back(seconds_now() - t0);
        for (const auto& v : values) mine.push_back(v.second);
      } catch (const std::exception& e) {
        const auto* se = dynamic_cast<const Error*>(&e);
        error = std::make_exception_ptr(Error("sweep: point " + std::to_string(i) + " (" + grid.describe(i) +
                                                  "): " + (se ? se->message() : std::string(e.what())),
                                              __FILE__, __LINE__));
      } catch (...) {
        error = std::make_exception_ptr(Error("sweep: point " + std::to_string(i) + " (" + grid.describe(i) +
                                                  "): an exception that is not a std::exception",
                                              __FILE__, __LINE__));
      }
      if (tracer) tracer->record(options.trace_name, TraceKind::compute, trace_t0, tracer->now() - trace_t0);
      if (error) {
        counter.fetch_add(n + 1);  // poison: every rank's next fetch is past the end, so all stop early
        break;
      }
    }
  }
  counter.close();
  comm.agree(error);

  // Every rank that ran a point names the same values (ranks without points have none).
  std::string packed = join(names, "\n") + (have_names ? "\n" : "");
  std::vector<char> all_names;
  const VCounts name_counts = comm.allgatherv(std::span<const char>(packed.data(), packed.size()), all_names);
  std::string agreed;
  bool found = false;
  for (std::size_t r = 0; r < name_counts.counts.size(); ++r) {
    if (name_counts.counts[r] == 0) continue;
    const std::string theirs(all_names.data() + name_counts.displs[r], name_counts.counts[r]);
    SLAB_EXPECTS(!found || theirs == agreed, InvalidArgument,
                 "sweep: points return different values on different ranks (" + agreed + " vs " + theirs + ")");
    agreed = theirs;
    found = true;
  }
  std::vector<std::string> value_names;
  for (std::size_t start = 0; start < agreed.size();) {
    const std::size_t nl = agreed.find('\n', start);
    value_names.push_back(agreed.substr(start, nl - start));
    start = nl + 1;
  }

  std::vector<double> records;
  const VCounts counts = comm.allgatherv(std::span<const double>(mine), records);
  const std::size_t width = 2 + value_names.size();
  std::vector<std::string> columns = grid.names();
  columns.insert(columns.end(), value_names.begin(), value_names.end());
  columns.push_back("rank");
  columns.push_back("seconds");
  const std::size_t ncols = columns.size();
  std::vector<double> table(std::size_t(n) * ncols, 0.0);
  std::vector<char> seen(std::size_t(n), 0);
  for (std::size_t r = 0; r < counts.counts.size(); ++r)
    for (std::size_t k = counts.displs[r]; k < counts.displs[r] + counts.counts[r]; k += width) {
      const auto i = std::size_t(records[k]);
      SLAB_EXPECTS(i < std::size_t(n) && !seen[i], Error, "sweep: point " + std::to_string(i) + " ran twice");
      seen[i] = 1;
      double* row = table.data() + i * ncols;
      const auto p = grid.point(i);
      std::copy(p.begin(), p.end(), row);
      std::copy_n(records.data() + k + 2, value_names.size(), row + p.size());
      row[ncols - 2] = double(r);
      row[ncols - 1] = records[k + 1];
    }
  SLAB_EXPECTS(std::count(seen.begin(), seen.end(), 1) == n, Error, "sweep: a grid point was not run");
  return SweepTable(std::move(columns), std::move(table));
}

}  // namespace slab
