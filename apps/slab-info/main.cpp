// slab-info: what a slab job runs on (ranks, hosts, devices, backend, versions, limits) and how fast its
// interconnect is between the ranks it was given (point-to-point latency and bandwidth, allreduce and
// alltoall bandwidth; point-to-point both within a host and between hosts). --json adds "rank_map": rank, host,
// local rank, device, PCI bus id and CPUs of every rank. Run it first on a new machine or allocation:
//
//   mpirun -n 4 slab-info            srun -N 2 --ntasks-per-node=4 --gpus-per-node=4 slab-info --json
#include <slab/app/app.hpp>
#include <slab/core/units.hpp>
#include <slab/core/version.hpp>

#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The median over repeats of the slowest rank's time: what a bulk-synchronous code sees.
double timed(slab::Comm& comm, int repeats, const std::function<void()>& fn) {
  std::vector<double> times;
  fn();  // warm-up (connection set-up, page faults)
  for (int r = 0; r < repeats; ++r) {
    comm.barrier();
    const double t0 = MPI_Wtime();
    fn();
    double t = MPI_Wtime() - t0;
    times.push_back(comm.allreduce(t, slab::ReduceOp::max));
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Every rank's host name, in rank order, on every rank (a fixed 64 bytes each).
std::vector<std::string> all_hosts(slab::Comm& comm, const std::string& host) {
  std::array<char, 64> mine{};
  std::memcpy(mine.data(), host.data(), std::min(host.size(), mine.size() - 1));
  std::vector<char> all(mine.size() * static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const char>(mine.data(), mine.size()), std::span<char>(all));
  std::vector<std::string> out;
  for (int r = 0; r < comm.size(); ++r) out.emplace_back(all.data() + r * mine.size());
  return out;
}

// The CPUs this rank may run on (its affinity mask: what srun -c / --cpu-bind gave it).
int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

std::string fmt_seconds(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

std::string pad(const std::string& s, std::size_t n) {
  return s.size() >= n ? s + " " : s + std::string(n - s.size(), ' ');
}

}  // namespace

int main(int argc, char** argv) {
  slab::App app("slab-info", "Describe the ranks, devices and backend of a slab job and measure its interconnect.");
  std::string bytes_text = "16MiB";
  int repeats = 5;
  bool skip_bench = false;
  app.cli().add_option("--bytes", bytes_text, "message size per rank for the bandwidth figures")->capture_default_str();
  app.cli()
      .add_option("--repeats", repeats, "timed repeats per figure (median reported)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.cli().add_flag("--no-bench", skip_bench, "describe only; measure nothing");

  return app.run(argc, argv, [&](slab::AppContext& ctx) {
    const std::uint64_t bytes = slab::parse_bytes(bytes_text, "--bytes");
    slab::Runtime& rt = ctx.runtime();
    slab::Comm& comm = ctx.comm();
    const int rank = comm.rank();
    const int size = comm.size();

    // Who is where: every rank's host (all ranks need them to choose the pairs below), and one line and one
    // JSON record per rank, gathered to rank 0.
    const std::vector<std::string> hosts = all_hosts(comm, rt.hostname());
    const slab::DeviceInfo& dev = rt.device();
    const int cpus = affinity_cpus();
    std::ostringstream mine;
    mine << pad(std::to_string(rank), 6) << pad(rt.hostname(), 20)
         << pad(std::to_string(rt.local_rank()) + "/" + std::to_string(rt.local_size()), 8)
         << pad(dev.id >= 0 ? std::to_string(dev.id) + " " + dev.name : "host", 28)
         << pad(dev.pci_bus_id.empty() ? "-" : dev.pci_bus_id, 14) << pad(std::to_string(cpus), 6)
         << slab::format_bytes(rt.device_memory_limit()) << " / " << slab::format_bytes(rt.host_memory_limit());
    const std::string line = mine.str() + "\n";
    std::vector<char> all;
    comm.gatherv(std::span<const char>(line.data(), line.size()), all, 0);
    const char* omp = std::getenv("OMP_NUM_THREADS");
    const std::string record = "{\"rank\":" + std::to_string(rank) + ",\"host\":" + quoted(rt.hostname()) +
                               ",\"local_rank\":" + std::to_string(rt.local_rank()) +
                               ",\"local_size\":" + std::to_string(rt.local_size()) +
                               ",\"device\":" + std::to_string(dev.id) + ",\"device_name\":" + quoted(dev.name) +
                               ",\"pci_bus_id\":" + (dev.pci_bus_id.empty() ? "null" : quoted(dev.pci_bus_id)) +
                               ",\"cpus\":" + std::to_string(cpus) + ",\"omp_threads\":" + quoted(omp ? omp : "") + "}";
    std::vector<char> records;
    comm.gatherv(std::span<const char>(record.data(), record.size() + 1), records, 0);  // NUL-separated
    if (rank == 0) {
      std::string array = "[";
      for (std::size_t i = 0; i < records.size(); ++i) {
        if (records[i] == '\0') {
          if (i + 1 < records.size()) array += ",";
        } else {
          array += records[i];
        }
      }
      ctx.report("rank_map", array + "]");
    }
    std::vector<std::string> distinct = hosts;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const double liveness = rt.liveness_timeout();
    std::ostringstream report;
    report << "slab " << slab::version_string << " on " << size << " rank" << (size == 1 ? "" : "s") << ", "
           << distinct.size() << " host" << (distinct.size() == 1 ? "" : "s") << "\n"
           << "versions:     " << rt.versions() << "\n"
           << "backend:      " << (slab::built_with_cuda ? "CUDA build" : "host build") << "; device buffers travel by "
           << slab::to_string(rt.device_comm_path()) << "\n"
           << "spill root:   " << rt.spill_root() << "\n"
           << "liveness:     "
           << (liveness > 0 ? "heartbeat ring; a rank silent for " + fmt_seconds(liveness) +
                                  " s or gone without a goodbye ends the job (SLAB_LIVENESS_TIMEOUT)"
                            : std::string(size == 1 ? "off (one rank)" : "off (SLAB_LIVENESS_TIMEOUT=0 or no TCP)"))
           << "\n\n"
           << pad("rank", 6) << pad("host", 20) << pad("local", 8) << pad("device", 28) << pad("pci bus", 14)
           << pad("cpus", 6) << "limits (device / host)\n"
           << std::string(all.begin(), all.end()) << "\n";
    ctx.print(report.str());

    ctx.check("ranks", static_cast<std::int64_t>(size));
    ctx.check("hosts", static_cast<std::int64_t>(distinct.size()));
    ctx.check("device_path", std::string(slab::to_string(rt.device_comm_path())));
    ctx.check("device_memory_limit", static_cast<std::int64_t>(rt.device_memory_limit()));
    ctx.check("host_memory_limit", static_cast<std::int64_t>(rt.host_memory_limit()));
    ctx.check("liveness_timeout_s", liveness);
    ctx.check("versions", rt.versions());
    if (skip_bench) return;

    ctx.job_begin();
    std::ostringstream bench;
    bench << "interconnect (" << slab::format_bytes(bytes) << " per rank, median of " << repeats
          << ", slowest rank):\n";
    // Ping-pong from rank 0 to the first other rank on its host ("intra") and to the first rank on another
    // host ("inter"): the two figures a cluster's ranks see. Every rank knows the hosts, so all agree on the
    // pairs (and take part in the barriers of `timed`).
    int intra = -1, inter = -1;
    for (int r = 1; r < size; ++r) {
      if (hosts[r] == hosts[0] && intra < 0) intra = r;
      if (hosts[r] != hosts[0] && inter < 0) inter = r;
    }
    std::vector<char> small(8), big(bytes);
    for (const auto& [kind, peer] : {std::pair<std::string, int>{"intra", intra}, {"inter", inter}}) {
      if (peer < 0) continue;
      auto pingpong = [&, peer = peer](std::vector<char>& buf) {
        return [&, peer] {
          if (rank == 0) {
            comm.send(std::span<const char>(buf), peer, 11);
            comm.recv(std::span<char>(buf), peer, 12);
          } else if (rank == peer) {
            comm.recv(std::span<char>(buf), 0, 11);
            comm.send(std::span<const char>(buf), 0, 12);
          }
        };
      };
      const int latency_rounds = 1000;
      const double lat = timed(comm, repeats,
                               [&] {
                                 auto once = pingpong(small);
                                 for (int i = 0; i < latency_rounds; ++i) once();
                               }) /
                         latency_rounds / 2;
      const double bw_time = timed(comm, repeats, pingpong(big)) / 2;
      const double bw = static_cast<double>(bytes) / bw_time / 1e9;
      bench << "  point-to-point " << kind << "-node 0<->" << peer << " (" << hosts[0] << "<->" << hosts[peer]
            << "): latency " << lat * 1e6 << " us, bandwidth " << bw << " GB/s\n";
      ctx.check("p2p_" + kind + "_pair", "0<->" + std::to_string(peer));
      ctx.check("p2p_" + kind + "_latency_us", lat * 1e6);
      ctx.check("p2p_" + kind + "_bandwidth_GBps", bw);
      // The figures of earlier versions (rank 0 to one other rank): the between-host pair where there is one.
      ctx.check("p2p_latency_us", lat * 1e6);
      ctx.check("p2p_bandwidth_GBps", bw);
    }
    {
      std::vector<double> in(bytes / sizeof(double), 1.0), out(in.size());
      const double t = timed(comm, repeats, [&] {
        comm.allreduce(std::span<const double>(in), std::span<double>(out), slab::ReduceOp::sum);
      });
      // Bus bandwidth as NCCL's tests define it: 2 (n-1)/n of the buffer crosses each rank's link.
      const double algbw = static_cast<double>(bytes) / t / 1e9;
      const double busbw = algbw * (size > 1 ? 2.0 * (size - 1) / size : 1.0);
      bench << "  allreduce:  " << t * 1e3 << " ms, algorithm bandwidth " << algbw << " GB/s, bus bandwidth " << busbw
            << " GB/s\n";
      ctx.check("allreduce_seconds", t);
      ctx.check("allreduce_busbw_GBps", busbw);
    }
    {
      const std::size_t per_peer = std::max<std::size_t>(1, bytes / size);
      std::vector<char> send(per_peer * size, 1), recv(per_peer * size);
      const double t = timed(comm, repeats, [&] { comm.alltoall(std::span<const char>(send), std::span<char>(recv)); });
      const double algbw = static_cast<double>(per_peer * size) / t / 1e9;
      const double busbw = algbw * (size > 1 ? static_cast<double>(size - 1) / size : 1.0);
      bench << "  alltoall:   " << t * 1e3 << " ms, algorithm bandwidth " << algbw << " GB/s, bus bandwidth " << busbw
            << " GB/s\n";
      ctx.check("alltoall_seconds", t);
      ctx.check("alltoall_busbw_GBps", busbw);
    }
    ctx.job_end();
    ctx.print(bench.str());
  });
}
