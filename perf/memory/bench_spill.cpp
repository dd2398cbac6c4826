// bench_spill: slab's spill path (checksum + write of one file per buffer) and reload path (read + verify)
// against a plain write(2)/read(2) loop over the same bytes in the same directory, in the same run.
//
//   bench_spill [--bytes 1GiB] [--buffer 64MiB] [--dir /tmp] [--repeats 3] [--no-fsync]
//
// With fsync (the default) the plain loop ends with fsync(fd) and the spill phase with syncfs() on the
// spill directory, both inside the timed region; with --no-fsync neither syncs (page-cache bandwidth).
// Both write phases produce each block untimed and time only the writes (and the final sync), so the
// disk gets the same idle time in both. Every phase runs between barriers; the time is the max over ranks, the figure
// the median of repeats, and bandwidth is the bytes of all ranks over that time (GB/s = 1e9 bytes per second).
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "slab/core/units.hpp"
#include "slab/memory/checksum.hpp"
#include "slab/memory/memory_manager.hpp"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_spill: %s: %s\n", what.c_str(), std::strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

void fill_random(std::byte* p, std::uint64_t n, std::uint64_t seed) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  std::uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(p + i, &x, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<std::byte>(i);
}

// Untimed: flush dirty pages left by the previous phase so that each write phase starts from a clean
// page cache (otherwise whichever phase runs second pays for the first one's writeback).
void quiesce(const std::string& dir) {
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::syncfs(dfd);
    ::close(dfd);
  }
}

double max_over_ranks(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Result {
  double plain_write, plain_read, spill, reload, checksum;  // seconds (max over ranks)
  std::uint64_t spilled_bytes, reloaded_bytes;              // this rank
};

Result run_once(const std::string& dir, std::uint64_t total, std::uint64_t buffer, bool do_fsync, int rank,
                std::byte* source) {
  Result r{};
  const std::uint64_t n = total / buffer;
  // (a) plain write loop, then read back.
  const std::string path = dir + "/bench-plain-" + std::to_string(::getpid()) + "-" + std::to_string(rank);
  quiesce(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now();
  double write_time = 0;
  {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) die("open " + path);
    for (std::uint64_t i = 0; i < n; ++i) {
      // Produce each block untimed, as the spill phase does, so both give the disk the same idle time.
      fill_random(source, buffer, i);
      t0 = now();
      std::uint64_t done = 0;
      while (done < buffer) {
        const ssize_t w = ::write(fd, source + done, buffer - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("write " + path);
        done += static_cast<std::uint64_t>(w);
      }
      write_time += now() - t0;
    }
    t0 = now();
    if (do_fsync && ::fsync(fd) != 0) die("fsync " + path);
    ::close(fd);
    write_time += now() - t0;
  }
  r.plain_write = max_over_ranks(write_time);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = now();
  {
    std::vector<std::byte> in(buffer);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("open " + path);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t done = 0;
      while (done < buffer) {
        const ssize_t got = ::read(fd, in.data() + done, buffer - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) die("read " + path);
        done += static_cast<std::uint64_t>(got);
      }
    }
    ::close(fd);
  }
  r.plain_read = max_over_ranks(now() - t0);
  ::unlink(path.c_str());

  // Checksum alone, for reference.
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = now();
  volatile std::uint64_t sink = 0;
  for (std::uint64_t i = 0; i < n; ++i) sink = sink + slab::checksum64(source, buffer, i);
  r.checksum = max_over_ranks(now() - t0);

  // (b) slab spill: device and host tiers of one buffer each, so every buffer but the newest ends on disk.
  slab::MemoryConfig cfg;
  cfg.device_limit = buffer;
  cfg.host_limit = buffer;
  cfg.spill_root = dir;
  slab::MemoryManager m(cfg);
  m.check_spill_dir();
  std::vector<slab::BufferPtr> bufs;
  double spill_time = 0;
  quiesce(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  for (std::uint64_t i = 0; i < n + 1; ++i) {  // one extra so that n buffers reach the disk
    t0 = now();
    bufs.push_back(m.allocate(buffer));  // spills the LRU buffer(s): timed
    spill_time += now() - t0;
    auto pin = bufs.back()->pin();
    fill_random(pin.data(), buffer, i);  // producing the data is not timed
  }
  t0 = now();
  m.spill(buffer);  // host -> disk for the second-to-last
  if (do_fsync) {
    int dfd = ::open(m.spill_dir().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || ::syncfs(dfd) != 0) die("syncfs " + m.spill_dir());
    ::close(dfd);
  }
  spill_time += now() - t0;
  r.spill = max_over_ranks(spill_time);
  r.spilled_bytes = m.stats().spilled_to_disk_bytes;

  // Reload every buffer once, in allocation order, dropping each after use (consume-once streaming).
  MPI_Barrier(MPI_COMM_WORLD);
  double reload_time = 0;
  for (auto& b : bufs) {
    t0 = now();
    { auto pin = b->pin(); }
    reload_time += now() - t0;
    b.reset();
  }
  r.reload = max_over_ranks(reload_time);
  r.reloaded_bytes = m.stats().reloaded_from_disk_bytes;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::uint64_t total = std::uint64_t{1} << 30;
  std::uint64_t buffer = std::uint64_t{64} << 20;
  std::string dir = "/tmp";
  int repeats = 3;
  bool do_fsync = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_spill: %s needs a value\n", a.c_str());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      return argv[++i];
    };
    if (a == "--bytes")
      total = slab::parse_bytes(next(), "--bytes");
    else if (a == "--buffer")
      buffer = slab::parse_bytes(next(), "--buffer");
    else if (a == "--dir")
      dir = next();
    else if (a == "--repeats")
      repeats = std::max(1, std::atoi(next().c_str()));
    else if (a == "--no-fsync")
      do_fsync = false;
    else {
      if (rank == 0)
        std::fprintf(stderr,
                     "usage: bench_spill [--bytes 1GiB] [--buffer 64MiB] [--dir D] [--repeats 3] [--no-fsync]\n");
      MPI_Finalize();
      return 2;
    }
  }
  buffer = std::min(buffer, total);
  total = total / buffer * buffer;
  std::vector<std::byte> source(buffer);
  fill_random(source.data(), buffer, 12345 + rank);

  std::vector<double> pw, pr, sp, rl, ck, ratio;
  std::uint64_t spilled = 0, reloaded = 0;
  const double all = static_cast<double>(total) * size;
  for (int k = 0; k < repeats; ++k) {
    const Result r = run_once(dir, total, buffer, do_fsync, rank, source.data());
    std::uint64_t s = 0, l = 0;
    MPI_Allreduce(&r.spilled_bytes, &s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&r.reloaded_bytes, &l, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    spilled = s;
    reloaded = l;
    pw.push_back(all / r.plain_write / 1e9);
    pr.push_back(all / r.plain_read / 1e9);
    sp.push_back(static_cast<double>(s) / r.spill / 1e9);
    rl.push_back(static_cast<double>(l) / r.reload / 1e9);
    ck.push_back(all / r.checksum / 1e9);
    ratio.push_back(sp.back() / pw.back());
  }
  if (rank == 0) {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    std::printf(
        "{\"bench\":\"spill\",\"host\":\"%s\",\"ranks\":%d,\"bytes_per_rank\":%llu,\"buffer_bytes\":%llu,"
        "\"fsync\":%s,\"repeats\":%d,\"plain_write_GBps\":%.3f,\"spill_GBps\":%.3f,\"ratio\":%.3f,"
        "\"plain_read_GBps\":%.3f,\"reload_GBps\":%.3f,\"checksum_GBps\":%.3f,\"spilled_bytes\":%llu,"
        "\"reloaded_bytes\":%llu,\"dir\":\"%s\"}\n",
        host, size, static_cast<unsigned long long>(total), static_cast<unsigned long long>(buffer),
        do_fsync ? "true" : "false", repeats, median(pw), median(sp), median(ratio), median(pr), median(rl), median(ck),
        static_cast<unsigned long long>(spilled), static_cast<unsigned long long>(reloaded), dir.c_str());
  }
  MPI_Finalize();
  return 0;
}
