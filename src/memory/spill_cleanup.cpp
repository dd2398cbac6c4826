// Spill-directory removal when a process ends without destructors (see spill_cleanup.hpp).
//
// The signal handler may run at any point of any thread, so the registered folders live in a fixed array
// of slots, each a seqlock (an odd sequence number means "being written"): the handler reads a slot without
// a lock and skips it when a write is in flight. Removal uses only system calls (open, getdents64, fstatat,
// unlinkat, close) and stack buffers: no lock, no allocation.
#include "memory/spill_cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/core/log.hpp"

namespace slab::detail {
namespace {

constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;  // Linux PATH_MAX: a longer path cannot be opened anyway

struct Slot {
  std::atomic<unsigned> seq{0};           // odd while being written
  std::atomic<pid_t> owner{0};            // a forked child must not remove its parent's folders
  std::atomic<char> path[kPathMax] = {};  // "" when free
};
static_assert(std::atomic<unsigned>::is_always_lock_free && std::atomic<char>::is_always_lock_free &&
              std::atomic<pid_t>::is_always_lock_free);

Slot g_slots[kSlots];

// Writers (register/unregister) hold this; the handler never takes it. Folders beyond the slots (more than
// kSlots managers alive at once) are only removed at exit.
struct Registry {
  std::mutex mu;
  std::set<std::string> overflow;
};
Registry& registry() {
  static auto* r = new Registry;  // leaked on purpose: used by the atexit handler after statics are gone
  return *r;
}

void write_slot(Slot& s, const char* path, pid_t owner) noexcept {
  const unsigned seq = s.seq.load(std::memory_order_relaxed);
  s.seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.owner.store(owner, std::memory_order_relaxed);
  std::size_t i = 0;
  for (; path[i] != '\0'; ++i) s.path[i].store(path[i], std::memory_order_relaxed);
  s.path[i].store('\0', std::memory_order_relaxed);
  s.seq.store(seq + 2, std::memory_order_release);
}

// Copies a stable slot into `out`; false when it is free, being written, or another process's.
bool read_slot(const Slot& s, char (&out)[kPathMax], pid_t self) noexcept {
  const unsigned seq = s.seq.load(std::memory_order_acquire);
  if (seq % 2 != 0) return false;
  const pid_t owner = s.owner.load(std::memory_order_relaxed);
  std::size_t i = 0;
  for (; i + 1 < kPathMax; ++i) {
    out[i] = s.path[i].load(std::memory_order_relaxed);
    if (out[i] == '\0') break;
  }
  out[i] = '\0';
  std::atomic_thread_fence(std::memory_order_acquire);
  return s.seq.load(std::memory_order_relaxed) == seq && owner == self && out[0] != '\0';
}

bool is_spill_file_name(const char* name) noexcept {
  if (std::strncmp(name, "spill-", 6) != 0 || name[6] == '\0') return false;
  for (const char* p = name + 6; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
  }
  return true;
}

// Unlinks the regular spill-<n> files of the open directory `dir_fd` (links and everything else are left
// alone; nothing is opened or followed). Returns the number removed. Async-signal-safe.
int remove_spill_files(int dir_fd) noexcept {
  alignas(8) char buf[4096];
  int removed = 0;
  // Entries are unlinked while listing: list again until a pass removes nothing (at most a few passes).
  for (int pass = 0; pass < 4; ++pass) {
    int this_pass = 0;
    if (::lseek(dir_fd, 0, SEEK_SET) != 0) break;
    while (true) {
      const long n = ::syscall(SYS_getdents64, dir_fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
        off += d->d_reclen;
        if (!is_spill_file_name(d->d_name)) continue;
        struct stat st {};
        if (::fstatat(dir_fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        if (::unlinkat(dir_fd, d->d_name, 0) == 0) ++this_pass;
      }
    }
    removed += this_pass;
    if (this_pass == 0) break;
  }
  return removed;
}

enum class Folder { removed, already_gone, left };

// Removes the spill files of the folder `name` (relative to `parent_fd`, or a path with AT_FDCWD), then
// the folder. Refuses a link or a folder of another user (-1, `*folder` left). Returns files removed.
// Async-signal-safe.
int remove_spill_folder(int parent_fd, const char* name, Folder* folder) noexcept {
  *folder = Folder::left;
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) *folder = Folder::already_gone;
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
    ::close(fd);
    return -1;
  }
  // Another thread of this process may still be spilling (the liveness watchdog ends a rank while its main
  // thread writes): a file it creates between the last pass and the rmdir makes the folder non-empty, so
  // empty it again and retry, a bounded number of times.
  int removed = 0;
  for (int attempt = 0; attempt < 64; ++attempt) {
    removed += remove_spill_files(fd);
    if (::unlinkat(parent_fd, name, AT_REMOVEDIR) == 0) {
      *folder = Folder::removed;
      break;
    }
    if (errno == ENOENT) {
      *folder = Folder::already_gone;  // another rank of this host cleaned it at the same time
      break;
    }
    if (errno != ENOTEMPTY && errno != EEXIST) break;
  }
  ::close(fd);
  return removed;
}

void remove_overflow_at_exit() noexcept {
  auto& r = registry();
  std::unique_lock lock(r.mu, std::try_to_lock);  // never block at exit
  if (!lock.owns_lock()) return;
  for (const auto& dir : r.overflow) {
    Folder folder{};
    (void)remove_spill_folder(AT_FDCWD, dir.c_str(), &folder);
  }
  r.overflow.clear();
}

void remove_at_exit() noexcept {
  remove_spill_dirs_now();
  remove_overflow_at_exit();
}

// SIGABRT too: std::terminate and abort() end a process without destructors.
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT};
struct sigaction g_previous[std::size(kSignals)];

void on_signal(int sig) noexcept {
  const int saved_errno = errno;
  remove_spill_dirs_now();
  // Hand the signal on: the previous handler (or the default action, which ends the process by `sig`).
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  }
  ::raise(sig);  // blocked until this handler returns, then delivered with the restored disposition
  errno = saved_errno;
}

void install_handlers() {
  std::atexit(remove_at_exit);
  set_fatal_cleanup(&remove_spill_dirs_now);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : kSignals) sigaddset(&sa.sa_mask, sig);  // one clean-up at a time per thread
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction old {};
    if (::sigaction(kSignals[i], nullptr, &old) != 0) continue;
    // An ignored signal (nohup) stays ignored: it does not end the process.
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
    g_previous[i] = old;
    ::sigaction(kSignals[i], &sa, nullptr);
  }
}

std::string sanitized_host() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "unknown";
  std::string out(host);
  for (char& c : out) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

// "<pid>-XXXXXX" (the mkdtemp suffix is 6 letters or digits) -> pid, or 0.
pid_t parse_pid_and_suffix(const std::string& rest) {
  const auto dash = rest.find('-');
  if (dash == std::string::npos || dash == 0 || dash > 9 || rest.size() != dash + 7) return 0;
  pid_t pid = 0;
  for (std::size_t i = 0; i < dash; ++i) {
    if (rest[i] < '0' || rest[i] > '9') return 0;
    pid = pid * 10 + (rest[i] - '0');
  }
  for (std::size_t i = dash + 1; i < rest.size(); ++i) {
    const char c = rest[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return 0;
  }
  return pid;
}

bool process_is_gone(pid_t pid) { return pid > 0 && ::kill(pid, 0) == -1 && errno == ESRCH; }

}  // namespace

void register_spill_dir(const std::string& dir) {
  static std::once_flag once;
  std::call_once(once, install_handlers);
  auto& r = registry();
  std::lock_guard lock(r.mu);
  if (dir.size() < kPathMax) {
    for (auto& s : g_slots) {
      if (s.seq.load(std::memory_order_relaxed) % 2 == 0 && s.path[0].load(std::memory_order_relaxed) == '\0') {
        write_slot(s, dir.c_str(), ::getpid());
        return;
      }
    }
  }
  r.overflow.insert(dir);
}

void unregister_spill_dir(const std::string& dir) noexcept {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  char path[kPathMax];
  for (auto& s : g_slots) {
    if (read_slot(s, path, s.owner.load(std::memory_order_relaxed)) && dir == path) {
      write_slot(s, "", 0);
      return;
    }
  }
  r.overflow.erase(dir);
}

void remove_spill_dirs_now() noexcept {
  const pid_t self = ::getpid();
  char path[kPathMax];
  for (const auto& s : g_slots) {
    if (!read_slot(s, path, self)) continue;
    Folder folder{};
    (void)remove_spill_folder(AT_FDCWD, path, &folder);
  }
}

std::string spill_dir_prefix() { return "slab-spill-" + sanitized_host() + "-" + std::to_string(::getpid()) + "-"; }

int remove_stale_spill_dirs(const std::string& root) noexcept {
  try {
    const std::string ours = "slab-spill-" + sanitized_host() + "-";
    const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) return 0;
    struct Close {
      int fd;
      ~Close() { ::close(fd); }
    } close_root{root_fd};
    std::vector<std::pair<std::string, pid_t>> stale;
    if (DIR* d = ::fdopendir(::dup(root_fd))) {
      while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.compare(0, ours.size(), ours) != 0) continue;
        const pid_t pid = parse_pid_and_suffix(name.substr(ours.size()));
        if (pid != ::getpid() && process_is_gone(pid)) stale.emplace_back(name, pid);
      }
      ::closedir(d);
    }
    int folders = 0;
    for (const auto& [name, pid] : stale) {
      Folder folder{};
      const int files = remove_spill_folder(root_fd, name.c_str(), &folder);
      if (files < 0 || folder == Folder::already_gone) continue;  // not ours to judge, or done by another rank
      const std::string where = "'" + root + "/" + name + "' of process " + std::to_string(pid);
      if (folder == Folder::removed) {
        ++folders;
        log(LogLevel::info, "removed the stale spill folder " + where + ", which is no longer running", true);
      } else {
        log(LogLevel::debug,
            "left the stale spill folder " + where + " (" + std::to_string(files) +
                " spill file(s) removed): it holds entries that are not spill files",
            true);
      }
    }
    return folders;
  } catch (...) {
    return 0;  // best effort: a failed clean-up never stops a run
  }
}

}  // namespace slab::detail
