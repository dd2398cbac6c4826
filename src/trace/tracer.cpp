#include "slab/trace/tracer.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "slab/core/error.hpp"
#include "slab/core/units.hpp"

namespace slab {

std::string_view to_string(TraceKind kind) noexcept {
  switch (kind) {
    case TraceKind::compute:
      return "compute";
    case TraceKind::comm:
      return "comm";
    case TraceKind::io:
      return "io";
    case TraceKind::spill:
      return "spill";
    case TraceKind::generate:
      return "generate";
    case TraceKind::other:
      return "other";
  }
  return "other";
}

Tracer::Tracer(MPI_Comm comm) : comm_(comm) {
  MPI_Barrier(comm_);
  start_ = std::chrono::steady_clock::now();
}

double Tracer::now() const noexcept {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Tracer::record(std::string_view name, TraceKind kind, double start, double duration, std::uint64_t bytes) {
  events_.push_back(TraceEvent{std::string(name), kind, start, duration, bytes});
}

void Tracer::sample_memory(std::uint64_t device, std::uint64_t host, std::uint64_t disk) {
  samples_.push_back(MemorySample{now(), device, host, disk});
}

Tracer::Scope::Scope(Tracer& tracer, std::string_view name, TraceKind kind, std::uint64_t bytes)
    : tracer_(tracer), name_(name), kind_(kind), start_(tracer.now()), bytes_(bytes) {}

Tracer::Scope::~Scope() { tracer_.record(name_, kind_, start_, tracer_.now() - start_, bytes_); }

TraceSummary Tracer::summary() const {
  TraceSummary s;
  for (const auto& e : events_) {
    const auto k = static_cast<std::size_t>(e.kind);
    s.seconds[k] += e.duration;
    s.bytes[k] += e.bytes;
    s.events[k] += 1;
  }
  return s;
}

namespace {

// Gather one string per rank to rank 0 (counts can exceed 2^31 in total only for absurd traces; each rank's
// part is limited to INT_MAX bytes, which the caller checks).
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const long long n = static_cast<long long>(mine.size());
  std::vector<long long> sizes(rank == 0 ? size : 0);
  MPI_Gather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, 0, comm);
  std::vector<std::string> out;
  if (rank == 0) {
    out.resize(size);
    out[0] = mine;
    for (int r = 1; r < size; ++r) {
      out[r].resize(static_cast<std::size_t>(sizes[r]));
      std::size_t done = 0;
      while (done < out[r].size()) {
        const int chunk = static_cast<int>(std::min<std::size_t>(out[r].size() - done, 1u << 30));
        MPI_Recv(out[r].data() + done, chunk, MPI_CHAR, r, 7101, comm, MPI_STATUS_IGNORE);
        done += chunk;
      }
    }
  } else {
    std::size_t done = 0;
    while (done < mine.size()) {
      const int chunk = static_cast<int>(std::min<std::size_t>(mine.size() - done, 1u << 30));
      MPI_Send(mine.data() + done, chunk, MPI_CHAR, 0, 7101, comm);
      done += chunk;
    }
  }
  return out;
}

std::string local_hostname() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace

void Tracer::write_chrome_trace(const std::string& path) const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  // Each rank serialises its own events (the work is spread); rank 0 only concatenates.
  std::string mine;
  {
    using nlohmann::json;
    json meta = {{"name", "process_name"},
                 {"ph", "M"},
                 {"pid", rank},
                 {"tid", 0},
                 {"args", {{"name", "rank " + std::to_string(rank) + " (" + local_hostname() + ")"}}}};
    json sort = {
        {"name", "process_sort_index"}, {"ph", "M"}, {"pid", rank}, {"tid", 0}, {"args", {{"sort_index", rank}}}};
    mine += meta.dump() + ",\n" + sort.dump();
    for (const auto& e : events_) {
      json ev = {{"name", e.name},
                 {"cat", std::string(to_string(e.kind))},
                 {"ph", "X"},
                 {"pid", rank},
                 {"tid", 0},
                 {"ts", e.start * 1e6},
                 {"dur", e.duration * 1e6}};
      if (e.bytes) ev["args"] = {{"bytes", e.bytes}};
      mine += ",\n" + ev.dump();
    }
    for (const auto& s : samples_) {
      json ev = {{"name", "memory"},   {"ph", "C"},
                 {"pid", rank},        {"tid", 0},
                 {"ts", s.time * 1e6}, {"args", {{"device", s.device}, {"host", s.host}, {"disk", s.disk}}}};
      mine += ",\n" + ev.dump();
    }
  }
  const auto parts = gather_strings(comm_, mine);
  int ok = 1;
  std::string why;
  if (rank == 0) {
    const std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"slab\",\"ranks\":" << parts.size()
          << "},\"traceEvents\":[\n";
      for (std::size_t r = 0; r < parts.size(); ++r) out << (r ? ",\n" : "") << parts[r];
      out << "\n]}\n";
      out.flush();
      if (!out) {
        ok = 0;
        why = "cannot write trace file '" + path + "'";
      }
    }
    if (ok) {
      std::error_code ec;
      std::filesystem::rename(tmp, path, ec);
      if (ec) {
        ok = 0;
        why = "cannot move trace file into place at '" + path + "': " + ec.message();
      }
    }
    if (!ok) std::filesystem::remove(tmp);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm_);
  if (!ok) {
    int n = static_cast<int>(why.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm_);
    why.resize(n);
    MPI_Bcast(why.data(), n, MPI_CHAR, 0, comm_);
    SLAB_FAIL(IoError, why);
  }
}

void Tracer::print_summary(const std::vector<std::pair<std::string, std::uint64_t>>& extra_columns) const {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  const TraceSummary s = summary();
  constexpr int nk = 6;
  const int ncols = nk * 2 + static_cast<int>(extra_columns.size());
  std::vector<double> row(ncols);
  for (int k = 0; k < nk; ++k) {
    row[k] = s.seconds[k];
    row[nk + k] = static_cast<double>(s.bytes[k]);
  }
  for (std::size_t c = 0; c < extra_columns.size(); ++c) row[2 * nk + c] = static_cast<double>(extra_columns[c].second);
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(ncols) * size : 0);
  MPI_Gather(row.data(), ncols, MPI_DOUBLE, all.data(), ncols, MPI_DOUBLE, 0, comm_);
  if (rank != 0) return;
  std::ostringstream out;
  out << "slab summary (seconds per kind of work; bytes moved)\n";
  out << std::left << std::setw(6) << "rank";
  for (int k = 0; k < nk; ++k) out << std::right << std::setw(10) << to_string(static_cast<TraceKind>(k));
  out << std::setw(12) << "comm bytes" << std::setw(12) << "io bytes" << std::setw(12) << "spill bytes";
  for (const auto& c : extra_columns) out << std::setw(std::max<int>(12, c.first.size() + 2)) << c.first;
  out << "\n";
  for (int r = 0; r < size; ++r) {
    const double* v = all.data() + static_cast<std::size_t>(r) * ncols;
    out << std::left << std::setw(6) << r << std::right << std::fixed << std::setprecision(3);
    for (int k = 0; k < nk; ++k) out << std::setw(10) << v[k];
    for (int k : {1, 2, 3}) out << std::setw(12) << format_bytes(static_cast<std::uint64_t>(v[nk + k]));
    for (std::size_t c = 0; c < extra_columns.size(); ++c)
      out << std::setw(std::max<int>(12, extra_columns[c].first.size() + 2))
          << format_bytes(static_cast<std::uint64_t>(v[2 * nk + c]));
    out << "\n";
  }
  std::cout << out.str() << std::flush;
}

}  // namespace slab
