// The liveness ring (liveness.hpp): set-up over MPI once, then a watchdog thread per rank that talks only TCP.
#include "runtime/liveness.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/core/log.hpp"

namespace slab::detail {

namespace {

constexpr std::uint32_t kMagic = 0x534c4256;  // "SLBV"
constexpr int kMaxAddrs = 8;
constexpr int kHostLen = 64;
constexpr double kClosedGrace = 1.0;      // seconds between a closed connection and ending this rank
constexpr double kConnectSeconds = 10.0;  // set-up: connect to the successor, accept the predecessor

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void copy_host(char (&dst)[kHostLen], const std::string& src) {
  std::memset(dst, 0, kHostLen);
  std::memcpy(dst, src.data(), std::min<std::size_t>(src.size(), kHostLen - 1));
}

/// What a rank publishes to its predecessor (which connects to it).
struct Endpoint {
  char host[kHostLen];
  std::uint32_t addr[kMaxAddrs];  // IPv4, network order
  std::int32_t naddr;
  std::uint16_t port;  // 0: this rank has no listening socket
  std::uint64_t nonce;
};

/// The connector's first message.
struct Hello {
  std::uint32_t magic;
  std::int32_t rank;
  std::uint64_t nonce;
  char host[kHostLen];
};

enum class Reason : std::uint8_t { closed = 1, silent = 2 };

/// 'D' + this: rank `dead` is gone; `seen_by` noticed it.
struct DeadNotice {
  std::int32_t dead;
  std::int32_t seen_by;
  std::uint8_t reason;
  float silent_seconds;
  char dead_host[kHostLen];
  char seen_host[kHostLen];
};

constexpr char kHeartbeat = 'H';
constexpr char kGoodbye = 'B';
constexpr char kDead = 'D';

struct LocalAddr {
  std::uint32_t addr;
  std::uint32_t mask;
};

std::vector<LocalAddr> local_addresses(const std::string& ifname) {
  std::vector<std::string> prefixes;
  for (std::size_t start = 0; start <= ifname.size();) {
    const auto comma = std::min(ifname.find(',', start), ifname.size());
    if (comma > start) prefixes.push_back(ifname.substr(start, comma - start));
    start = comma + 1;
  }
  std::vector<LocalAddr> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP)) continue;
    if (a->ifa_flags & IFF_LOOPBACK) continue;
    if (!prefixes.empty() && std::none_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) {
          return std::strncmp(a->ifa_name, p.c_str(), p.size()) == 0;
        }))
      continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    const auto* mask = reinterpret_cast<const sockaddr_in*>(a->ifa_netmask);
    out.push_back({in->sin_addr.s_addr, mask ? mask->sin_addr.s_addr : 0xffffffffu});
  }
  freeifaddrs(list);
  return out;
}

std::string ip_text(std::uint32_t addr) {
  char text[INET_ADDRSTRLEN] = {};
  in_addr a{};
  a.s_addr = addr;
  inet_ntop(AF_INET, &a, text, sizeof text);
  return text;
}

bool wait_fd(int fd, short events, double deadline) {
  while (true) {
    const double left = deadline - now_seconds();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int rc = poll(&p, 1, static_cast<int>(left * 1000) + 1);
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) return false;
  }
}

/// Write all of `data` to a non-blocking socket before `deadline`.
bool write_all(int fd, const void* data, std::size_t n, double deadline) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) {
      p += w;
      n -= static_cast<std::size_t>(w);
    } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_fd(fd, POLLOUT, deadline)) return false;
    } else {
      return false;
    }
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t n, double deadline) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
    if (r > 0) {
      p += r;
      n -= static_cast<std::size_t>(r);
    } else if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_fd(fd, POLLIN, deadline)) return false;
    } else {
      return false;
    }
  }
  return true;
}

void tune(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/// Connect to one of `ep`'s addresses (those on one of our subnets first). Returns the socket or -1.
int connect_to(const Endpoint& ep, const std::vector<LocalAddr>& mine, double deadline, std::string& error) {
  std::vector<std::uint32_t> order(ep.addr, ep.addr + std::clamp(ep.naddr, 0, kMaxAddrs));
  std::stable_partition(order.begin(), order.end(), [&](std::uint32_t a) {
    return std::any_of(mine.begin(), mine.end(), [&](const LocalAddr& m) { return (a & m.mask) == (m.addr & m.mask); });
  });
  if (ep.port == 0) {
    error = "it has no listening socket";
    return -1;
  }
  if (order.empty()) {
    error = "it published no address";
    return -1;
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      error = std::string("socket: ") + std::strerror(errno);
      return -1;
    }
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(ep.port);
    sa.sin_addr.s_addr = order[i];
    // Each address gets an equal share of what is left of the deadline.
    const double share = now_seconds() + (deadline - now_seconds()) / static_cast<double>(order.size() - i);
    int rc = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
    if (rc != 0 && errno == EINPROGRESS && wait_fd(fd, POLLOUT, share)) {
      int soerr = 0;
      socklen_t len = sizeof soerr;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
      rc = soerr == 0 ? 0 : -1;
      errno = soerr == 0 ? ETIMEDOUT : soerr;
    } else if (rc != 0 && errno == EINPROGRESS) {
      errno = ETIMEDOUT;
    }
    if (rc == 0) {
      tune(fd);
      return fd;
    }
    error +=
        (error.empty() ? "" : "; ") + ip_text(order[i]) + ":" + std::to_string(ep.port) + ": " + std::strerror(errno);
    close(fd);
  }
  return -1;
}

struct Link {
  int fd = -1;
  int peer = -1;
  std::string peer_host;
  bool goodbye = false;  // the peer ended normally: stop watching it
  double last_rx = 0;
  std::string buf;
};

std::atomic<Liveness::State*> g_active{nullptr};
std::atomic<bool> g_atexit_installed{false};

}  // namespace

struct Liveness::State {
  int rank = 0;
  int size = 1;
  std::string host;
  double timeout = 30;
  double interval = 1;
  std::array<Link, 2> links;  // [0]: to rank + 1, [1]: from rank - 1
  int wake[2] = {-1, -1};
  std::thread thread;
  std::atomic<bool> stopped{false};

  ~State() {
    for (auto& l : links)
      if (l.fd >= 0) close(l.fd);
    for (int fd : wake)
      if (fd >= 0) close(fd);
  }

  void stop() {
    if (stopped.exchange(true)) return;
    const char c = 's';
    [[maybe_unused]] const ssize_t w = write(wake[1], &c, 1);
    if (thread.joinable()) thread.join();
    Liveness::State* self = this;
    g_active.compare_exchange_strong(self, nullptr);
  }

  void send_all(char type, const void* payload = nullptr, std::size_t n = 0, const Link* except = nullptr,
                int except_peer = -1) {
    std::string frame(1, type);
    if (payload) frame.append(static_cast<const char*>(payload), n);
    for (auto& l : links) {
      if (l.fd < 0 || &l == except || l.peer == except_peer) continue;
      // Heartbeats never block: a full buffer means the peer is not reading, which the silence check sees.
      if (type == kHeartbeat)
        send(l.fd, frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      else
        write_all(l.fd, frame.data(), frame.size(), now_seconds() + 1.0);
    }
  }

  [[noreturn]] void end_rank(const DeadNotice& n, const Link* from) {
    // Pass it on first (away from where it came, never to the rank that is gone), then report and end.
    send_all(kDead, &n, sizeof n, from, n.dead);
    std::string why;
    if (static_cast<Reason>(n.reason) == Reason::silent) {
      char secs[32];
      std::snprintf(secs, sizeof secs, "%.1f", static_cast<double>(n.silent_seconds));
      why = std::string("nothing heard from it for ") + secs + " s (SLAB_LIVENESS_TIMEOUT): its host or the network " +
            "to it is down, or the process is stopped";
    } else {
      why = "its connection closed without a goodbye: the process was killed, crashed or aborted";
    }
    std::string text =
        "slab: rank " + std::to_string(n.dead) + " on host " + n.dead_host + " stopped responding: " + why;
    if (n.seen_by != rank) text += " (seen by rank " + std::to_string(n.seen_by) + " on " + n.seen_host + ")";
    text += "; ending rank " + std::to_string(rank) + " on " + host + " (exit code " +
            std::to_string(kLivenessExitCode) + ")\n";
    [[maybe_unused]] const ssize_t w = write(STDERR_FILENO, text.data(), text.size());
    run_fatal_cleanup();
    for (auto& l : links) {
      if (l.fd < 0) continue;
      shutdown(l.fd, SHUT_WR);  // the notice goes out before the FIN
      char sink[4096];
      while (recv(l.fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
      }
    }
    _exit(kLivenessExitCode);
  }

  DeadNotice notice_for(const Link& l, Reason reason, double silent) const {
    DeadNotice n{};
    n.dead = l.peer;
    n.seen_by = rank;
    n.reason = static_cast<std::uint8_t>(reason);
    n.silent_seconds = static_cast<float>(silent);
    copy_host(n.dead_host, l.peer_host);
    copy_host(n.seen_host, host);
    return n;
  }

  void run() {
    double next_beat = 0;
    double closed_at = -1;  // when a neighbour's connection closed without a goodbye
    const Link* closed_link = nullptr;
    const double start = now_seconds();
    for (auto& l : links) l.last_rx = start;
    while (true) {
      double now = now_seconds();
      if (now >= next_beat) {
        send_all(kHeartbeat);
        next_beat = now + interval;
      }
      std::array<pollfd, 3> fds{};
      int n = 0;
      for (auto& l : links) fds[n++] = {l.fd, static_cast<short>(l.fd >= 0 ? POLLIN : 0), 0};
      fds[n++] = {wake[0], POLLIN, 0};
      double wait = next_beat - now;
      if (closed_link) wait = std::min(wait, closed_at + kClosedGrace - now);
      poll(fds.data(), static_cast<nfds_t>(n), std::max(1, static_cast<int>(wait * 1000)));
      if (fds[2].revents) {
        send_all(kGoodbye);
        for (auto& l : links)
          if (l.fd >= 0) shutdown(l.fd, SHUT_WR);
        return;
      }
      now = now_seconds();
      for (std::size_t i = 0; i < links.size(); ++i) {
        Link& l = links[i];
        if (l.fd < 0 || !fds[i].revents) continue;
        char chunk[1024];
        bool eof = false;
        while (true) {
          const ssize_t r = recv(l.fd, chunk, sizeof chunk, MSG_DONTWAIT);
          if (r > 0) {
            l.buf.append(chunk, static_cast<std::size_t>(r));
            l.last_rx = now;
            continue;
          }
          if (r < 0 && errno == EINTR) continue;
          eof = r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
          break;
        }
        // Frames: 'H', 'B', or 'D' + DeadNotice.
        std::size_t pos = 0;
        while (pos < l.buf.size()) {
          const char type = l.buf[pos];
          if (type == kDead) {
            if (l.buf.size() - pos < 1 + sizeof(DeadNotice)) break;
            DeadNotice dn{};
            std::memcpy(&dn, l.buf.data() + pos + 1, sizeof dn);
            dn.dead_host[kHostLen - 1] = dn.seen_host[kHostLen - 1] = '\0';
            end_rank(dn, &l);
          }
          if (type == kGoodbye) l.goodbye = true;
          ++pos;
        }
        l.buf.erase(0, pos);
        if (eof) {
          close(l.fd);
          l.fd = -1;
          if (!l.goodbye && !closed_link) {
            closed_link = &l;
            closed_at = now;
          }
        }
      }
      if (closed_link && now >= closed_at + kClosedGrace)
        end_rank(notice_for(*closed_link, Reason::closed, 0), nullptr);
      for (auto& l : links) {
        if (l.fd < 0 || l.goodbye) continue;
        if (now - l.last_rx > timeout) end_rank(notice_for(l, Reason::silent, now - l.last_rx), nullptr);
      }
    }
  }
};

std::string read_liveness_settings(LivenessSettings& out) {
  if (const char* v = std::getenv("SLAB_LIVENESS_TIMEOUT"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const double d = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(d >= 0) || d > 1e6)
      return std::string("SLAB_LIVENESS_TIMEOUT: '") + v + "' is not a number of seconds (0 turns the check off)";
    out.timeout = d;
  }
  if (const char* v = std::getenv("SLAB_LIVENESS_IFNAME")) out.ifname = v;
  return {};
}

Liveness::Liveness(std::unique_ptr<State> state) : state_(std::move(state)) {}

Liveness::~Liveness() {
  if (state_) state_->stop();
}

std::unique_ptr<Liveness> Liveness::start(MPI_Comm world, const std::string& hostname,
                                          const LivenessSettings& settings) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  if (size < 2) return nullptr;
  // Every rank takes the same branch: the smallest timeout wins (0 anywhere turns it off everywhere), and a
  // second Liveness in one process (a nested Runtime) stays off.
  double timeout = g_active.load() ? 0.0 : settings.timeout;
  MPI_Allreduce(MPI_IN_PLACE, &timeout, 1, MPI_DOUBLE, MPI_MIN, world);
  if (timeout <= 0) return nullptr;

  auto st = std::make_unique<State>();
  st->rank = rank;
  st->size = size;
  st->host = hostname;
  st->timeout = timeout;
  st->interval = std::min(1.0, timeout / 6);
  const int succ = (rank + 1) % size;
  const int pred = (rank - 1 + size) % size;
  std::string error;

  // A listening socket on every interface; what we publish is the addresses of the chosen interfaces.
  Endpoint mine{};
  copy_host(mine.host, hostname);
  mine.nonce = std::random_device{}() ^ (static_cast<std::uint64_t>(std::random_device{}()) << 32);
  const auto addrs = local_addresses(settings.ifname);
  for (const auto& a : addrs)
    if (mine.naddr < kMaxAddrs) mine.addr[mine.naddr++] = a.addr;
  if (mine.naddr == 0) mine.addr[mine.naddr++] = htonl(INADDR_LOOPBACK);  // a machine without a network
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof sa;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(listener, 8) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    error = std::string("cannot listen: ") + std::strerror(errno);
  } else {
    mine.port = ntohs(sa.sin_port);
  }

  // Publish to the predecessor (which connects to us); learn the successor's endpoint.
  Endpoint next{};
  MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, pred, 0, &next, sizeof next, MPI_BYTE, succ, 0, world, MPI_STATUS_IGNORE);
  next.host[kHostLen - 1] = '\0';

  const double deadline = now_seconds() + kConnectSeconds;
  Link& out = st->links[0];
  Link& in = st->links[1];
  if (error.empty()) {
    std::string why;
    out.fd = connect_to(next, addrs, deadline, why);
    out.peer = succ;
    out.peer_host = next.host;
    Hello h{kMagic, rank, next.nonce, {}};
    copy_host(h.host, hostname);
    if (out.fd < 0 || !write_all(out.fd, &h, sizeof h, deadline))
      error = "cannot reach rank " + std::to_string(succ) + " on " + next.host + " (" +
              (why.empty() ? std::string(std::strerror(errno)) : why) + ")";
  }
  // Accept the predecessor; anything else that connects is closed.
  while (error.empty() && in.fd < 0) {
    if (!wait_fd(listener, POLLIN, deadline)) {
      error = "rank " + std::to_string(pred) + " did not connect within " +
              std::to_string(static_cast<int>(kConnectSeconds)) + " s";
      break;
    }
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;
    Hello h{};
    if (read_all(fd, &h, sizeof h, deadline) && h.magic == kMagic && h.rank == pred && h.nonce == mine.nonce) {
      tune(fd);
      h.host[kHostLen - 1] = '\0';
      in.fd = fd;
      in.peer = pred;
      in.peer_host = h.host;
    } else {
      close(fd);
    }
  }
  if (listener >= 0) close(listener);
  if (error.empty() && pipe2(st->wake, O_CLOEXEC) != 0) error = std::string("pipe: ") + std::strerror(errno);

  int ok = error.empty() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, world);
  if (!ok) {
    if (!error.empty()) log(LogLevel::warn, "liveness check: " + error, true);
    if (rank == 0)
      log(LogLevel::warn,
          "liveness check off for this job (a rank or host that disappears may hang the others; "
          "SLAB_LIVENESS_IFNAME chooses the interfaces)");
    return nullptr;
  }

  // The watchdog takes no signal: handlers (spill clean-up, ...) keep running on the threads they ran on.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  State* raw = st.get();
  st->thread = std::thread([raw] { raw->run(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  g_active.store(raw);
  if (!g_atexit_installed.exchange(true))
    std::atexit([] {
      if (State* s = g_active.load()) s->stop();
    });
  return std::unique_ptr<Liveness>(new Liveness(std::move(st)));
}

}  // namespace slab::detail
