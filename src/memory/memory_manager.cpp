// MemoryManager, Buffer and Pin. All state lives in detail::MemoryState, shared by the manager and its
// buffers (so a buffer outliving the manager is safe), guarded by one mutex.
//
// LRU lists hold only spillable buffers: device_lru_ the unpinned device-resident ones, host_lru_ the
// host-resident ones (never pinned). Front = least recently used.
#include "slab/memory/memory_manager.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "memory/device_allocator.hpp"
#include "memory/spill_cleanup.hpp"
#include "memory/spill_file.hpp"
#include "slab/core/error.hpp"
#include "slab/core/units.hpp"
#include "slab/trace/tracer.hpp"

namespace slab {
namespace detail {
namespace {

// Large buffers are 2 MiB aligned and advised to use transparent huge pages: a reload or a fresh chunk
// then costs one page fault per 2 MiB instead of per 4 KiB (a 64 MiB reload spent more time faulting
// than reading without this).
std::byte* host_alloc(std::uint64_t bytes) {
  constexpr std::uint64_t huge = std::uint64_t{2} << 20;
  const bool large = bytes >= 2 * huge;
  const std::uint64_t align = large ? huge : 64;
  const std::uint64_t rounded = ((bytes == 0 ? 1 : bytes) + align - 1) & ~(align - 1);
  void* p = std::aligned_alloc(align, rounded);
  SLAB_EXPECTS(p != nullptr, OutOfMemory,
               "host allocation of " + format_bytes(bytes) + " failed: the machine is out of memory");
  if (large) (void)::madvise(p, rounded, MADV_HUGEPAGE);  // advisory: ignore failure
  return static_cast<std::byte*>(p);
}

void host_free(std::byte* p) noexcept { std::free(p); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string quoted_label(const Buffer& b) {
  return b.label().empty() ? "buffer #" + std::to_string(b.id()) : "'" + b.label() + "'";
}

}  // namespace

class MemoryState {
 public:
  explicit MemoryState(MemoryConfig config)
      : cfg(std::move(config)),
        exec(cfg.execution != nullptr ? *cfg.execution : ExecutionContext::host()),
        on_gpu(exec.on_device()) {
    // The context's staging pool keeps at most an eighth of the host limit (and 256 MiB) for reuse: outside the
    // host tier's count, as the runtime's own bookkeeping; the memory in blocks is reserved on the host tier by
    // their owners.
    exec.set_staging_keep_limit(std::min<std::uint64_t>(cfg.host_limit / 8, 256ull << 20));
    SLAB_EXPECTS(cfg.device_limit > 0, InvalidArgument, "the device memory limit is 0 bytes; raise --memory-limit");
    if (cfg.spill_root.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      cfg.spill_root = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
  }

  ~MemoryState() { shutdown(); }

  std::mutex mu;
  MemoryConfig cfg;
  const ExecutionContext& exec;
  const bool on_gpu;  // the device tier is GPU memory
  std::string dir;  // private spill directory, "" until created
  bool closed = false;
  std::uint64_t next_buffer_id = 1;
  std::uint64_t next_file_id = 1;
  std::list<Buffer*> device_lru;
  std::list<Buffer*> host_lru;
  std::unordered_set<Buffer*> live;
  MemoryStats st;
  std::map<std::string, std::uint64_t> reserved_now;  // per purpose

  // ---- everything below requires `mu` held ----

  TierUsage& usage(Tier t) { return t == Tier::device ? st.device : t == Tier::host ? st.host : st.disk; }

  void sample() {
    if (cfg.tracer != nullptr) cfg.tracer->sample_memory(st.device.current, st.host.current, st.disk.current);
  }

  // Usage changed: the tracer keeps at most one such sample per millisecond.
  void update() {
    if (cfg.tracer != nullptr) cfg.tracer->update_memory(st.device.current, st.host.current, st.disk.current);
  }

  // `trace` false: part of a move between tiers, sampled once the move is done (by record()).
  void add(Tier t, std::uint64_t bytes, bool trace = true) {
    TierUsage& u = usage(t);
    u.current += bytes;
    u.buffers += 1;
    u.high_water = std::max(u.high_water, u.current);
    if (trace) update();
  }

  void sub(Tier t, std::uint64_t bytes, bool trace = true) {
    TierUsage& u = usage(t);
    u.current -= bytes;
    u.buffers -= 1;
    if (trace) update();
  }

  void lru_insert(Buffer& b) {
    if (b.in_lru_) return;
    if (b.tier_ == Tier::device && b.pins_ == 0) {
      b.lru_pos_ = device_lru.insert(device_lru.end(), &b);
      b.in_lru_ = true;
    } else if (b.tier_ == Tier::host) {
      b.lru_pos_ = host_lru.insert(host_lru.end(), &b);
      b.in_lru_ = true;
    }
  }

  void lru_remove(Buffer& b) noexcept {
    if (!b.in_lru_) return;
    (b.tier_ == Tier::device ? device_lru : host_lru).erase(b.lru_pos_);
    b.in_lru_ = false;
  }

  void touch(Buffer& b) noexcept {
    if (!b.in_lru_) return;
    auto& list = b.tier_ == Tier::device ? device_lru : host_lru;
    list.splice(list.end(), list, b.lru_pos_);
  }

  std::byte* alloc_device(std::uint64_t bytes) {
    return on_gpu ? static_cast<std::byte*>(device_alloc(bytes, exec.stream())) : host_alloc(bytes);
  }

  void free_device(std::byte* p) noexcept {
    if (on_gpu) {
      device_free(p, exec.stream());
    } else {
      host_free(p);
    }
  }

  std::string file_path(std::uint64_t file_id) const { return dir + "/spill-" + std::to_string(file_id); }

  void record(const char* name, double trace_start, std::uint64_t bytes) {
    if (cfg.tracer == nullptr) return;
    cfg.tracer->record(name, TraceKind::spill, trace_start, cfg.tracer->now() - trace_start, bytes);
    sample();
  }

  double trace_now() const { return cfg.tracer != nullptr ? cfg.tracer->now() : 0.0; }

  void ensure_dir() {
    if (!dir.empty()) return;
    SLAB_EXPECTS(!closed, IoError, "the memory manager was destroyed; cannot spill");
    const std::string& root = cfg.spill_root;
    const std::string hint = "; set --spill-dir (SLAB_SPILL_DIR) to a writable folder";
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    if (ec) SLAB_FAIL(IoError, "cannot create the spill root '" + root + "': " + ec.message() + hint);
    std::string tmpl = root + "/" + spill_dir_prefix() + "XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) {
      const int err = errno;
      SLAB_FAIL(IoError,
                "cannot create a spill directory '" + tmpl + "' in '" + root + "': " + std::strerror(err) + hint);
    }
    std::string made(buf.data());
    if (::chmod(made.c_str(), 0700) != 0) {
      const int err = errno;
      ::rmdir(made.c_str());
      SLAB_FAIL(IoError, "cannot set mode 0700 on the spill directory '" + made + "': " + std::strerror(err));
    }
    register_spill_dir(made);
    dir = std::move(made);
    // Folders of this host's processes that were SIGKILLed (nothing ran there to remove them).
    remove_stale_spill_dirs(root);
  }

  // Makes sure `bytes` more fit on the device tier, spilling LRU unpinned buffers. `what` describes the
  // request for the error message ("allocate 96 MiB").
  void make_room_device(std::uint64_t bytes, const std::string& what) {
    const std::uint64_t limit = cfg.device_limit;
    SLAB_EXPECTS(bytes <= limit, OutOfMemory,
                 "cannot " + what + " on the device tier: it is larger than the whole device limit of " +
                     format_bytes(limit) +
                     " (a memory limit smaller than one chunk); raise --memory-limit or use smaller chunks");
    while (st.device.current + bytes > limit) {
      if (device_lru.empty()) {
        SLAB_FAIL(OutOfMemory, "cannot " + what + " on the device tier: limit " + format_bytes(limit) + ", " +
                                   format_bytes(st.pinned_bytes) + " pinned by running tasks (" +
                                   format_bytes(st.device.current) + " resident); raise --memory-limit");
      }
      spill_device(*device_lru.front());
    }
  }

  // Whether spilling every unpinned device buffer would make room for `bytes` more.
  bool room_possible(std::uint64_t bytes) const {
    return st.pinned_bytes + st.reserved_bytes <= cfg.device_limit &&
           bytes <= cfg.device_limit - st.pinned_bytes - st.reserved_bytes;
  }

  // Device bytes an algorithm may plan for besides what is pinned or reserved now.
  std::uint64_t unheld() const {
    const std::uint64_t held = st.pinned_bytes + st.reserved_bytes;
    return held < cfg.device_limit ? cfg.device_limit - held : 0;
  }

  void trace_reservation(const std::string& purpose) {
    if (cfg.tracer != nullptr) cfg.tracer->update_reservation(purpose, reserved_now[purpose]);
  }

  // Holds `bytes` more for `purpose` (room made first). Throws OutOfMemory as make_room_device would, with
  // what is reserved named.
  void reserve(const std::string& purpose, std::uint64_t bytes) {
    if (bytes == 0) return;
    if (!room_possible(bytes)) {
      std::string held;
      for (const auto& [p, b] : reserved_now)
        if (b > 0) held += (held.empty() ? "" : ", ") + format_bytes(b) + " for '" + p + "'";
      SLAB_FAIL(OutOfMemory, "cannot reserve " + format_bytes(bytes) + " for '" + purpose + "' on the device tier: limit " +
                                 format_bytes(cfg.device_limit) + ", " + format_bytes(st.pinned_bytes) +
                                 " pinned by running tasks, " + format_bytes(st.reserved_bytes) + " reserved" +
                                 (held.empty() ? "" : " (" + held + ")") + "; raise --memory-limit");
    }
    make_room_device(bytes, "reserve " + format_bytes(bytes) + " for '" + purpose + "'");
    hold(Tier::device, purpose, bytes);
  }

  std::uint64_t& reserved_on(Tier t) { return t == Tier::host ? st.host_reserved_bytes : st.reserved_bytes; }

  // Counts `bytes` more held on tier t for `purpose` (their room already made).
  void hold(Tier t, const std::string& purpose, std::uint64_t bytes) {
    TierUsage& u = usage(t);
    u.current += bytes;
    u.high_water = std::max(u.high_water, u.current);
    reserved_on(t) += bytes;
    std::uint64_t& now = reserved_now[purpose];
    now += bytes;
    std::uint64_t& peak = st.reserved_peak_by_purpose[purpose];
    peak = std::max(peak, now);
    update();
    trace_reservation(purpose);
  }

  void unreserve(Tier t, const std::string& purpose, std::uint64_t bytes) noexcept {
    if (bytes == 0) return;
    usage(t).current -= bytes;
    reserved_on(t) -= bytes;
    reserved_now[purpose] -= bytes;
    update();
    trace_reservation(purpose);
  }

  // Whether spilling every host buffer to disk would make room for `bytes` more of host reservations (host
  // buffers are never pinned: a pinned buffer is on the device tier).
  bool host_room_possible(std::uint64_t bytes) const {
    return st.host_reserved_bytes <= cfg.host_limit && bytes <= cfg.host_limit - st.host_reserved_bytes;
  }

  // Holds `bytes` more of the host tier for `purpose`, host buffers spilled to disk first. Throws OutOfMemory
  // naming the purpose and the limit when that cannot make room.
  void reserve_host(const std::string& purpose, std::uint64_t bytes) {
    if (bytes == 0) return;
    SLAB_EXPECTS(host_room_possible(bytes) && make_room_host(bytes), OutOfMemory,
                 "cannot hold " + format_bytes(bytes) + " of host memory for '" + purpose +
                     "': the host tier's limit is " + format_bytes(cfg.host_limit) + " and reservations hold " +
                     format_bytes(st.host_reserved_bytes) +
                     " of it; raise --host-memory-limit, or lower --memory-limit or the chunk size");
    hold(Tier::host, purpose, bytes);
  }

  // A resident, unpinned, most recently used buffer whose room has already been made.
  BufferPtr new_buffer(const std::shared_ptr<MemoryState>& self, std::uint64_t bytes, std::string_view label) {
    std::byte* d = alloc_device(bytes);
    BufferPtr b;
    try {
      b = std::make_shared<Buffer>(Buffer::Key{}, self, next_buffer_id++, bytes, std::string(label));
      live.insert(b.get());
    } catch (...) {
      free_device(d);
      throw;
    }
    b->device_ptr_ = d;
    b->tier_ = Tier::device;
    add(Tier::device, bytes);
    st.allocated_bytes += bytes;
    st.allocated_count += 1;
    lru_insert(*b);
    return b;
  }

  // Makes sure `bytes` more fit on the host tier by spilling host buffers to disk. False when impossible.
  bool make_room_host(std::uint64_t bytes) {
    if (bytes > cfg.host_limit) return false;
    while (st.host.current + bytes > cfg.host_limit) {
      if (host_lru.empty()) return false;
      spill_host_to_disk(*host_lru.front());
    }
    return true;
  }

  // Device memory goes to and from spill files through one page-locked block of the context's staging pool, a
  // piece at a time: a spill holds kSpillPiece bytes of host memory, not the buffer's size.
  SpillStaging gpu_spill_staging(const StagingBlock& block) const {
    return {block.data(), [this](void* dst, const void* src, std::size_t bytes) { slab::copy(dst, src, bytes, exec); }};
  }

  // Writes b's bytes at `src` to a new spill file (checks the disk cap first), through `staging` when given.
  void write_to_disk(Buffer& b, const std::byte* src, const SpillStaging* staging = nullptr) {
    ensure_dir();
    if (cfg.disk_limit != UINT64_MAX && st.disk.current + b.size_ > cfg.disk_limit) {
      SLAB_FAIL(OutOfMemory, "cannot spill " + quoted_label(b) + " (" + format_bytes(b.size_) +
                                 ") to disk: spill directory cap of " + format_bytes(cfg.disk_limit) + " reached (" +
                                 format_bytes(st.disk.current) +
                                 " already spilled); raise --disk-limit or --memory-limit");
    }
    const std::uint64_t file_id = next_file_id++;
    b.checksum_ = write_spill_file(file_path(file_id), dir, src, b.size_, b.id_, staging);
    b.file_id_ = file_id;
  }

  // Device -> host, or device -> disk when the host tier cannot take it.
  void spill_device(Buffer& b) {
    lru_remove(b);
    try {
      const bool to_host = make_room_host(b.size_);
      const auto t0 = std::chrono::steady_clock::now();
      const double trace_start = trace_now();
      if (to_host) {
        std::byte* h = b.device_ptr_;  // host build: the device tier is host memory, relabel it
        if (on_gpu) {
          h = host_alloc(b.size_);
          try {
            slab::copy(h, b.device_ptr_, b.size_, exec);
          } catch (...) {
            host_free(h);
            throw;
          }
          device_free(b.device_ptr_, exec.stream());
        }
        b.device_ptr_ = nullptr;
        b.host_ptr_ = h;
        b.tier_ = Tier::host;
        sub(Tier::device, b.size_, false);
        add(Tier::host, b.size_, false);
        st.spilled_to_host_bytes += b.size_;
        st.spilled_to_host_count += 1;
        st.spill_seconds += seconds_since(t0);
        record("spill device->host", trace_start, b.size_);
      } else {
        if (on_gpu) {
          const StagingBlock block = exec.staging_block(std::min<std::uint64_t>(b.size_, kSpillPiece));
          const SpillStaging staging = gpu_spill_staging(block);
          write_to_disk(b, b.device_ptr_, &staging);
        } else {
          write_to_disk(b, b.device_ptr_);
        }
        free_device(b.device_ptr_);
        b.device_ptr_ = nullptr;
        b.tier_ = Tier::disk;
        sub(Tier::device, b.size_, false);
        add(Tier::disk, b.size_, false);
        st.spilled_to_disk_bytes += b.size_;
        st.spilled_to_disk_count += 1;
        st.spill_seconds += seconds_since(t0);
        record("spill device->disk", trace_start, b.size_);
      }
    } catch (...) {
      lru_insert(b);
      throw;
    }
    lru_insert(b);
  }

  void spill_host_to_disk(Buffer& b) {
    lru_remove(b);
    const auto t0 = std::chrono::steady_clock::now();
    const double trace_start = trace_now();
    try {
      write_to_disk(b, b.host_ptr_);
    } catch (...) {
      lru_insert(b);
      throw;
    }
    host_free(b.host_ptr_);
    b.host_ptr_ = nullptr;
    b.tier_ = Tier::disk;
    sub(Tier::host, b.size_, false);
    add(Tier::disk, b.size_, false);
    st.spilled_to_disk_bytes += b.size_;
    st.spilled_to_disk_count += 1;
    st.spill_seconds += seconds_since(t0);
    record("spill host->disk", trace_start, b.size_);
  }

  // Host or disk -> device. On return b is on the device tier and in no LRU list (the caller pins it).
  void reload(Buffer& b) {
    SLAB_EXPECTS(!b.lost_, IoError,
                 "buffer " + quoted_label(b) +
                     " was spilled to disk when its MemoryManager was destroyed; its "
                     "spill file is gone");
    lru_remove(b);  // so that making room cannot pick b itself
    try {
      make_room_device(b.size_, "reload " + quoted_label(b) + " (" + format_bytes(b.size_) + ")");
    } catch (...) {
      lru_insert(b);
      throw;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const double trace_start = trace_now();
    if (b.tier_ == Tier::host) {
      std::byte* d = b.host_ptr_;
      if (on_gpu) {
        try {
          d = alloc_device(b.size_);
          try {
            slab::copy(d, b.host_ptr_, b.size_, exec);
          } catch (...) {
            free_device(d);
            throw;
          }
        } catch (...) {
          lru_insert(b);
          throw;
        }
        host_free(b.host_ptr_);
      }
      b.host_ptr_ = nullptr;
      b.device_ptr_ = d;
      b.tier_ = Tier::device;
      sub(Tier::host, b.size_, false);
      add(Tier::device, b.size_, false);
      st.reloaded_from_host_bytes += b.size_;
      st.reloaded_from_host_count += 1;
      st.reload_seconds += seconds_since(t0);
      record("reload host->device", trace_start, b.size_);
      return;
    }
    // From disk: b stays on disk (untouched) if anything below fails.
    const std::string path = file_path(b.file_id_);
    std::byte* d = alloc_device(b.size_);
    try {
      if (on_gpu) {
        const StagingBlock block = exec.staging_block(std::min<std::uint64_t>(b.size_, kSpillPiece));
        const SpillStaging staging = gpu_spill_staging(block);
        read_spill_file(path, d, b.size_, b.checksum_, &staging);
      } else {
        read_spill_file(path, d, b.size_, b.checksum_);
      }
    } catch (...) {
      free_device(d);
      throw;
    }
    ::unlink(path.c_str());
    b.device_ptr_ = d;
    b.tier_ = Tier::device;
    sub(Tier::disk, b.size_, false);
    add(Tier::device, b.size_, false);
    st.reloaded_from_disk_bytes += b.size_;
    st.reloaded_from_disk_count += 1;
    st.reload_seconds += seconds_since(t0);
    record("reload disk->device", trace_start, b.size_);
  }

  // Frees b's bytes wherever they are (b is being destroyed).
  void release(Buffer& b) noexcept {
    lru_remove(b);
    switch (b.tier_) {
      case Tier::device:
        free_device(b.device_ptr_);
        break;
      case Tier::host:
        host_free(b.host_ptr_);
        break;
      case Tier::disk:
        if (!b.lost_) ::unlink(file_path(b.file_id_).c_str());
        break;
    }
    b.device_ptr_ = b.host_ptr_ = nullptr;
    if (!b.lost_) sub(b.tier_, b.size_);
    live.erase(&b);
  }

  // The manager is going away: remove the spill directory; buffers then on disk are lost.
  void shutdown() noexcept {
    if (closed) return;
    closed = true;
    for (Buffer* b : live) {
      if (b->tier_ == Tier::disk) {
        b->lost_ = true;
        sub(Tier::disk, b->size_);
      }
    }
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      unregister_spill_dir(dir);
    }
  }
};

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------
// Buffer and Pin

Buffer::Buffer(Key, std::shared_ptr<detail::MemoryState> state, std::uint64_t id, std::uint64_t bytes,
               std::string label)
    : state_(std::move(state)), id_(id), size_(bytes), label_(std::move(label)) {}

Buffer::~Buffer() {
  std::lock_guard lock(state_->mu);
  state_->release(*this);
}

Pin Buffer::pin() {
  std::lock_guard lock(state_->mu);
  auto& s = *state_;
  if (tier_ != Tier::device) {
    s.reload(*this);
  } else {
    s.lru_remove(*this);
  }
  if (pins_++ == 0) s.st.pinned_bytes += size_;
  return Pin(shared_from_this(), device_ptr_);
}

void Buffer::touch() noexcept {
  std::lock_guard lock(state_->mu);
  state_->touch(*this);
}

Tier Buffer::tier() const noexcept {
  std::lock_guard lock(state_->mu);
  return tier_;
}

bool Buffer::is_pinned() const noexcept {
  std::lock_guard lock(state_->mu);
  return pins_ > 0;
}

const ExecutionContext& Buffer::execution() const noexcept { return state_->exec; }

Pin::Pin(Pin&& other) noexcept : buffer_(std::move(other.buffer_)), data_(other.data_) { other.data_ = nullptr; }

Pin& Pin::operator=(Pin&& other) noexcept {
  if (this != &other) {
    reset();
    buffer_ = std::move(other.buffer_);
    data_ = other.data_;
    other.data_ = nullptr;
  }
  return *this;
}

Pin::~Pin() { reset(); }

void Pin::reset() noexcept {
  if (!buffer_) return;
  {
    Buffer& b = *buffer_;
    std::lock_guard lock(b.state_->mu);
    if (--b.pins_ == 0) {
      b.state_->st.pinned_bytes -= b.size_;
      b.state_->lru_insert(b);  // most recently used
    }
  }
  data_ = nullptr;
  buffer_.reset();  // outside the lock: this may destroy the buffer, which takes the lock
}

// ---------------------------------------------------------------------------------------------------------
// MemoryManager

MemoryManager::MemoryManager(MemoryConfig config) : state_(std::make_shared<detail::MemoryState>(std::move(config))) {}

MemoryManager::~MemoryManager() {
  std::lock_guard lock(state_->mu);
  state_->shutdown();
}

BufferPtr MemoryManager::allocate(std::uint64_t bytes, std::string_view label) {
  std::lock_guard lock(state_->mu);
  auto& s = *state_;
  s.make_room_device(
      bytes, "allocate " + format_bytes(bytes) + (label.empty() ? std::string() : " for '" + std::string(label) + "'"));
  return s.new_buffer(state_, bytes, label);
}

Reservation MemoryManager::reserve(std::string purpose, std::uint64_t bytes) {
  std::lock_guard lock(state_->mu);
  state_->reserve(purpose, bytes);
  return Reservation(state_, std::move(purpose), bytes);
}

std::optional<Reservation> MemoryManager::try_reserve(std::string purpose, std::uint64_t bytes) {
  std::lock_guard lock(state_->mu);
  if (!state_->room_possible(bytes)) return std::nullopt;
  state_->reserve(purpose, bytes);
  return Reservation(state_, std::move(purpose), bytes);
}

Reservation MemoryManager::reserve_host(std::string purpose, std::uint64_t bytes) {
  std::lock_guard lock(state_->mu);
  state_->reserve_host(purpose, bytes);
  return Reservation(state_, std::move(purpose), bytes, Tier::host);
}

StagingBlock MemoryManager::staging_block(std::uint64_t bytes) { return state_->exec.staging_block(bytes); }

std::uint64_t MemoryManager::budget(std::uint32_t buffers) const {
  std::lock_guard lock(state_->mu);
  return state_->unheld() / std::max<std::uint32_t>(buffers, 1);
}

Reservation MemoryManager::reserve_budget(std::string purpose, std::uint32_t buffers, std::uint64_t at_least) {
  std::lock_guard lock(state_->mu);
  const std::uint64_t bytes = std::max(state_->unheld() / std::max<std::uint32_t>(buffers, 1), at_least);
  state_->reserve(purpose, bytes);
  return Reservation(state_, std::move(purpose), bytes);
}

// ---------------------------------------------------------------------------------------------------------
// Reservation

Reservation::Reservation(Reservation&& other) noexcept
    : state_(std::move(other.state_)), purpose_(std::move(other.purpose_)), bytes_(other.bytes_), tier_(other.tier_) {
  other.bytes_ = 0;
}

Reservation& Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    release();
    state_ = std::move(other.state_);
    purpose_ = std::move(other.purpose_);
    bytes_ = other.bytes_;
    tier_ = other.tier_;
    other.bytes_ = 0;
  }
  return *this;
}

Reservation::~Reservation() { release(); }

bool Reservation::try_grow(std::uint64_t bytes) {
  if (!state_) return false;
  std::lock_guard lock(state_->mu);
  if (tier_ == Tier::host) {
    if (state_->closed || !state_->host_room_possible(bytes)) return false;
    state_->reserve_host(purpose_, bytes);
  } else {
    if (state_->closed || !state_->room_possible(bytes)) return false;
    state_->reserve(purpose_, bytes);
  }
  bytes_ += bytes;
  return true;
}

void Reservation::shrink(std::uint64_t bytes) noexcept {
  if (!state_) return;
  bytes = std::min(bytes, bytes_);
  std::lock_guard lock(state_->mu);
  state_->unreserve(tier_, purpose_, bytes);
  bytes_ -= bytes;
}

void Reservation::release() noexcept {
  shrink(bytes_);
  state_.reset();
}

BufferPtr Reservation::allocate(std::uint64_t bytes, std::string_view label) {
  SLAB_EXPECTS(tier_ == Tier::device, InvalidArgument,
               "cannot allocate a buffer from the host reservation for '" + purpose_ +
                   "': buffers live on the device tier; a host reservation holds room its owner allocates itself");
  SLAB_EXPECTS(state_ && bytes <= bytes_, OutOfMemory,
               "cannot allocate " + format_bytes(bytes) + " from the reservation for '" + purpose_ + "': it holds " +
                   format_bytes(bytes_));
  std::lock_guard lock(state_->mu);
  state_->unreserve(Tier::device, purpose_, bytes);  // the bytes stay on the device tier, now as a buffer
  bytes_ -= bytes;
  return state_->new_buffer(state_, bytes, label);
}

std::uint64_t MemoryManager::spill(std::uint64_t bytes) {
  std::lock_guard lock(state_->mu);
  auto& s = *state_;
  std::uint64_t moved = 0;
  while (s.cfg.device_limit - std::min(s.st.device.current, s.cfg.device_limit) < bytes && !s.device_lru.empty()) {
    Buffer* victim = s.device_lru.front();
    moved += victim->size();
    s.spill_device(*victim);
  }
  return moved;
}

void MemoryManager::check_spill_dir() {
  std::lock_guard lock(state_->mu);
  state_->ensure_dir();
}

std::string MemoryManager::spill_dir() const {
  std::lock_guard lock(state_->mu);
  return state_->dir;
}

MemoryStats MemoryManager::stats() const {
  std::lock_guard lock(state_->mu);
  MemoryStats s = state_->st;
  s.staging = state_->exec.staging_stats();
  return s;
}

const MemoryConfig& MemoryManager::config() const noexcept { return state_->cfg; }
const ExecutionContext& MemoryManager::execution() const noexcept { return state_->exec; }

}  // namespace slab
