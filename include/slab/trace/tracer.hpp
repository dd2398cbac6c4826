#pragma once
/// @file tracer.hpp
/// @brief The per-rank timeline: every task, transfer, I/O call and spill is recorded here and written,
/// for the whole run, as one Chrome/Perfetto trace-event JSON file (one process per rank).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <mpi.h>

namespace slab {

/// What kind of work an event is; the summary table and slab-report group time by it.
enum class TraceKind : std::uint8_t { compute, comm, io, spill, generate, other };

std::string_view to_string(TraceKind kind) noexcept;

/// One complete event ("X" phase in the trace-event format). Times are seconds since the run's common start.
struct TraceEvent {
  std::string name;
  TraceKind kind = TraceKind::other;
  double start = 0;         ///< seconds since the aligned start
  double duration = 0;      ///< seconds
  std::uint64_t bytes = 0;  ///< bytes moved (comm, io, spill), 0 when not meaningful
};

/// A memory sample ("C" counter events): bytes in each tier at a point in time.
struct MemorySample {
  double time = 0;
  std::uint64_t device = 0;
  std::uint64_t host = 0;
  std::uint64_t disk = 0;
};

/// A change of the bytes reserved for one purpose ("C" counter events "reserved: <purpose>").
struct ReservationSample {
  double time = 0;
  std::string purpose;
  std::uint64_t bytes = 0;  ///< held for the purpose from this time on
};

/// Per-kind totals of one rank, for the --verbose table and the --json "phases".
struct TraceSummary {
  double seconds[6] = {0, 0, 0, 0, 0, 0};  ///< indexed by TraceKind
  std::uint64_t bytes[6] = {0, 0, 0, 0, 0, 0};
  std::uint64_t events[6] = {0, 0, 0, 0, 0, 0};
};

/**
 * @brief Records events of one rank. Recording is cheap (an append) and always on: the summary needs it
 * even without --trace. Not thread-safe: slab records from the rank's main thread only.
 */
class Tracer {
 public:
  /// Collective over `comm`: barrier, then take the common start time (MPI clocks are not synchronised
  /// across ranks, so each rank's zero is its own clock right after the same barrier).
  explicit Tracer(MPI_Comm comm);

  /// Seconds since the aligned start.
  [[nodiscard]] double now() const noexcept;

  /// Record a finished event. Not collective.
  void record(std::string_view name, TraceKind kind, double start, double duration, std::uint64_t bytes = 0);
  /// Record memory in each tier now (always kept). Not collective.
  void sample_memory(std::uint64_t device, std::uint64_t host, std::uint64_t disk);
  /// Memory in each tier changed: kept at most once per millisecond (the latest value of a quieter period is
  /// kept when the next sample is taken or the trace is written), so that frequent small allocations do not
  /// flood the trace. Peaks are exact either way. Not collective.
  void update_memory(std::uint64_t device, std::uint64_t host, std::uint64_t disk);

  /// The bytes reserved for `purpose` are now `bytes` (the memory manager calls this on every change; kept
  /// unthrottled: reservations change a few times per operation). Not collective.
  void update_reservation(std::string_view purpose, std::uint64_t bytes);

  /// Operation `op` ran its host kernel on a rank that computes on a CUDA device: an instant event (duration 0,
  /// kind other) named "fallback:host <op>", and one more in fallbacks()[op]. Called through
  /// slab::note_host_fallback (slab/engine/host_fallback.hpp), which decides whether it was one. Not collective.
  void record_fallback(std::string_view op);
  /// How many times each operation fell back to the host on this rank (empty on a host context).
  [[nodiscard]] const std::map<std::string, std::uint64_t, std::less<>>& fallbacks() const noexcept {
    return fallbacks_;
  }

  /// RAII scope: records [construction, destruction) as one event. A null tracer records nothing (for code
  /// that reaches the tracer through Comm::tracer(), which may be null).
  class Scope {
   public:
    Scope(Tracer& tracer, std::string_view name, TraceKind kind, std::uint64_t bytes = 0);
    Scope(Tracer* tracer, std::string_view name, TraceKind kind, std::uint64_t bytes = 0);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    void set_bytes(std::uint64_t bytes) noexcept { bytes_ = bytes; }

   private:
    Tracer* tracer_;
    std::string name_;
    TraceKind kind_;
    double start_;
    std::uint64_t bytes_;
  };

  [[nodiscard]] const std::vector<TraceEvent>& events() const noexcept { return events_; }
  /// The samples kept so far (a throttled update not yet kept is not among them).
  [[nodiscard]] const std::vector<MemorySample>& memory_samples() const noexcept { return samples_; }
  /// The highest bytes seen in each tier by sample_memory() and update_memory() (time is 0).
  [[nodiscard]] const MemorySample& memory_peak() const noexcept { return peak_; }
  [[nodiscard]] const std::vector<ReservationSample>& reservation_samples() const noexcept { return reservations_; }
  /// The most reserved for each purpose at once on this rank.
  [[nodiscard]] const std::map<std::string, std::uint64_t>& reservation_peaks() const noexcept {
    return reservation_peaks_;
  }
  /// Totals per kind on this rank.
  [[nodiscard]] TraceSummary summary() const;

  /**
   * @brief Collective: gather every rank's events to rank 0 and write one trace-event JSON file
   * ({"traceEvents":[...], "displayTimeUnit":"ms", "otherData":{...}}): pid = rank, process names
   * "rank R (host)", "X" events with cat = kind and args.bytes, "C" counter events "memory" with args
   * device/host/disk in bytes and "reserved: <purpose>" with args.bytes. otherData: producer "slab", ranks, app
   * (the program's file name), wall_seconds (rank 0's clock when writing), memory_peak_bytes (per rank: the
   * exact device/host/disk peaks, which the throttled counters may miss), reservation_peak_bytes (per rank: the
   * most reserved per purpose), fallbacks (per rank: operation -> host fallbacks). Nothing from the environment
   * or command line is written.
   * The file is written to `path`.tmp and renamed, so it is complete or absent.
   * @throws IoError on every rank when rank 0 cannot write the file.
   */
  void write_chrome_trace(const std::string& path) const;

  /**
   * @brief Collective: print a table to stdout on rank 0 with one row per rank: seconds per kind,
   * bytes moved per kind, and the extra columns given (e.g. memory high-water, spilled bytes), one value
   * per rank each.
   */
  void print_summary(const std::vector<std::pair<std::string, std::uint64_t>>& extra_columns) const;

 private:
  MPI_Comm comm_;
  std::chrono::steady_clock::time_point start_;
  std::vector<TraceEvent> events_;
  std::vector<MemorySample> samples_;
  MemorySample pending_;  ///< an update_memory() not yet kept (valid when has_pending_)
  bool has_pending_ = false;
  MemorySample peak_;
  std::vector<ReservationSample> reservations_;
  std::map<std::string, std::uint64_t> reservation_peaks_;
  std::map<std::string, std::uint64_t, std::less<>> fallbacks_;
};

}  // namespace slab
