#include "slab/trace/tracer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "slab/core/error.hpp"
#include "slab/core/units.hpp"
#include "trace/replace_file.hpp"

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

void Tracer::record_fallback(std::string_view op) {
  record(std::string("fallback:host ").append(op), TraceKind::other, now(), 0);
  auto it = fallbacks_.find(op);
  if (it == fallbacks_.end()) it = fallbacks_.emplace(std::string(op), 0).first;
  ++it->second;
}

namespace {

constexpr double kMemorySamplePeriod = 1e-3;  // seconds between kept update_memory() samples

void raise_peak(MemorySample& peak, const MemorySample& s) {
  peak.device = std::max(peak.device, s.device);
  peak.host = std::max(peak.host, s.host);
  peak.disk = std::max(peak.disk, s.disk);
}

}  // namespace

void Tracer::sample_memory(std::uint64_t device, std::uint64_t host, std::uint64_t disk) {
  if (has_pending_) samples_.push_back(pending_);  // keep times in order
  has_pending_ = false;
  samples_.push_back(MemorySample{now(), device, host, disk});
  raise_peak(peak_, samples_.back());
}

void Tracer::update_memory(std::uint64_t device, std::uint64_t host, std::uint64_t disk) {
  const MemorySample s{now(), device, host, disk};
  raise_peak(peak_, s);
  if (!samples_.empty() && s.time - samples_.back().time < kMemorySamplePeriod) {
    pending_ = s;
    has_pending_ = true;
    return;
  }
  // The pending value held from its time until now: keep it so that the step lands where it happened.
  if (has_pending_) samples_.push_back(pending_);
  has_pending_ = false;
  samples_.push_back(s);
}

void Tracer::update_reservation(std::string_view purpose, std::uint64_t bytes) {
  reservations_.push_back(ReservationSample{now(), std::string(purpose), bytes});
  std::uint64_t& peak = reservation_peaks_[std::string(purpose)];
  peak = std::max(peak, bytes);
}

Tracer::Scope::Scope(Tracer& tracer, std::string_view name, TraceKind kind, std::uint64_t bytes)
    : Scope(&tracer, name, kind, bytes) {}

Tracer::Scope::Scope(Tracer* tracer, std::string_view name, TraceKind kind, std::uint64_t bytes)
    : tracer_(tracer),
      name_(tracer ? name : std::string_view()),
      kind_(kind),
      start_(tracer ? tracer->now() : 0),
      bytes_(bytes) {}

Tracer::Scope::~Scope() {
  if (tracer_ != nullptr) tracer_->record(name_, kind_, start_, tracer_->now() - start_, bytes_);
}

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

nlohmann::json memory_json(const MemorySample& s) { return {{"device", s.device}, {"host", s.host}, {"disk", s.disk}}; }

// The program's file name (no path, no arguments: those may hold private paths or values).
std::string program_name() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.filename().string();
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
    auto counter = [&](const MemorySample& s) {
      json ev = {{"name", "memory"}, {"ph", "C"}, {"pid", rank}, {"tid", 0}, {"ts", s.time * 1e6}};
      ev["args"] = memory_json(s);
      mine += ",\n" + ev.dump();
    };
    for (const auto& s : samples_) counter(s);
    if (has_pending_) counter(pending_);
    for (const auto& r : reservations_) {
      json ev = {{"name", "reserved: " + r.purpose}, {"ph", "C"}, {"pid", rank}, {"tid", 0}, {"ts", r.time * 1e6}};
      ev["args"] = {{"bytes", r.bytes}};
      mine += ",\n" + ev.dump();
    }
  }
  const auto parts = gather_strings(comm_, mine);
  const auto reserved_peaks = gather_strings(comm_, nlohmann::json(reservation_peaks_).dump());
  const auto fallback_counts = gather_strings(comm_, nlohmann::json(fallbacks_).dump());
  // Exact peaks (the counters are throttled), one entry per rank in otherData, where viewers ignore them.
  const std::uint64_t my_peak[3] = {peak_.device, peak_.host, peak_.disk};
  std::vector<std::uint64_t> peaks(rank == 0 ? 3 * parts.size() : 0);
  MPI_Gather(my_peak, 3, MPI_UINT64_T, peaks.data(), 3, MPI_UINT64_T, 0, comm_);
  int ok = 1;
  std::string why;
  if (rank == 0) {
    nlohmann::json other = {
        {"producer", "slab"}, {"ranks", parts.size()}, {"app", program_name()}, {"wall_seconds", now()}};
    for (std::size_t r = 0; r < parts.size(); ++r)
      other["memory_peak_bytes"].push_back(
          memory_json(MemorySample{0, peaks[3 * r], peaks[3 * r + 1], peaks[3 * r + 2]}));
    for (const auto& text : reserved_peaks) other["reservation_peak_bytes"].push_back(nlohmann::json::parse(text));
    for (const auto& text : fallback_counts) other["fallbacks"].push_back(nlohmann::json::parse(text));
    try {
      detail::replace_file(path, "trace file", [&](std::ostream& out) {
        out << "{\"displayTimeUnit\":\"ms\",\"otherData\":" << other.dump() << ",\"traceEvents\":[\n";
        for (std::size_t r = 0; r < parts.size(); ++r) out << (r ? ",\n" : "") << parts[r];
        out << "\n]}\n";
      });
    } catch (const IoError& e) {
      ok = 0;
      why = e.message();
    }
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
