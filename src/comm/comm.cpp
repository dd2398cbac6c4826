// slab::Comm basics: construction, split, device path, argument checks and collective error agreement,
// and the chunked point-to-point helpers the collectives share.
#include "comm/comm_impl.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include "comm/cuda/nccl_collectives.hpp"
#include "slab/comm/mpi_error.hpp"
#include "slab/core/version.hpp"

namespace slab {

namespace detail {

namespace {
std::atomic<std::size_t> g_max_message_bytes{std::size_t{1} << 30};

/// Marks an exception produced by agreement, so that a later agreement passes it on as it is (with the
/// origin it already carries).
struct AgreedMarker {
  virtual ~AgreedMarker() = default;
};
template <class E>
class Agreed final : public E, public AgreedMarker {
 public:
  Agreed(const std::string& message, const ErrorOrigin& origin, const char* file, int line) : E(message, file, line) {
    const bool located = !origin.file.empty();
    this->set_origin(origin.rank < 0 ? this->rank() : origin.rank, origin.also_failed,
                     located ? origin.file : std::string(file), located ? origin.line : line);
  }
};
}  // namespace

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(len));
}

void set_max_message_bytes(std::size_t bytes) {
  SLAB_EXPECTS(bytes >= 1 && bytes <= static_cast<std::size_t>(INT_MAX), InvalidArgument,
               "max message bytes must be in [1, INT_MAX], got " + std::to_string(bytes));
  g_max_message_bytes.store(bytes);
}
std::size_t max_message_bytes() noexcept { return g_max_message_bytes.load(); }

MPI_Datatype mpi_datatype(ElementType dt, bool for_reduction) {
  switch (dt) {
    case ElementType::int8:
      return for_reduction ? MPI_SIGNED_CHAR : MPI_CHAR;
    case ElementType::uint8:
    case ElementType::boolean:
      return for_reduction ? MPI_UNSIGNED_CHAR : MPI_BYTE;
    case ElementType::int32:
    case ElementType::string:  // dictionary codes
      return MPI_INT;
    case ElementType::uint32:
      return MPI_UNSIGNED;
    case ElementType::int64:
    case ElementType::timestamp:
      return MPI_INT64_T;
    case ElementType::uint64:
      return MPI_UINT64_T;
    case ElementType::float32:
      return MPI_FLOAT;
    case ElementType::float64:
      return MPI_DOUBLE;
    case ElementType::bytes:
      return MPI_BYTE;
  }
  return MPI_BYTE;
}

[[noreturn]] void throw_agreed(const std::string& kind, const std::string& message, const ErrorOrigin& origin) {
#define SLAB_AGREED_KIND(Name) \
  if (kind == #Name) throw Agreed<Name>(message, origin, __FILE__, __LINE__)
  SLAB_AGREED_KIND(InvalidArgument);
  SLAB_AGREED_KIND(ShapeError);
  SLAB_AGREED_KIND(TypeError);
  SLAB_AGREED_KIND(IoError);
  SLAB_AGREED_KIND(OutOfMemory);
  SLAB_AGREED_KIND(CommError);
  SLAB_AGREED_KIND(IntegrityError);
  SLAB_AGREED_KIND(NotCompiled);
  SLAB_AGREED_KIND(CudaError);
  SLAB_AGREED_KIND(RemoteError);
#undef SLAB_AGREED_KIND
  throw Agreed<Error>(message, origin, __FILE__, __LINE__);
}

namespace {
/// Broadcast a string from root over comm (length, then bytes).
std::string bcast_string(std::string s, int root, int rank, MPI_Comm comm) {
  std::uint64_t n = s.size();
  SLAB_MPI_TRY(MPI_Bcast(&n, 1, MPI_UINT64_T, root, comm));
  if (rank != root) s.resize(n);
  if (n > 0) SLAB_MPI_TRY(MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, root, comm));
  return s;
}

/// Set once a collective's data transfer was left by an exception on this process: the other ranks may be
/// inside that transfer, where no agreement can reach them.
std::atomic<bool> g_transfer_broken{false};

/// How long a rank that failed on its own waits for the other ranks to reach an agreement point before it
/// ends the job (SLAB_AGREE_TIMEOUT seconds; 0 waits forever).
double agree_timeout_seconds() {
  static const double seconds = [] {
    const char* v = std::getenv("SLAB_AGREE_TIMEOUT");
    if (v == nullptr || *v == '\0') return 60.0;
    char* end = nullptr;
    const double d = std::strtod(v, &end);
    return (end != v && *end == '\0' && d >= 0) ? d : 60.0;
  }();
  return seconds;
}

/// Ends the job when the agreement it guards has not completed in time: the other ranks are somewhere no
/// agreement reaches (a user's own MPI call, an HDF5 collective), and waiting would hang the job.
class AgreeWatchdog {
 public:
  AgreeWatchdog(int rank, std::string message) : message_(std::move(message)) {
    const double limit = agree_timeout_seconds();
    if (limit <= 0) return;
    thread_ = std::thread([this, rank, limit] {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, std::chrono::duration<double>(limit), [this] { return done_; })) return;
      fatal("rank " + std::to_string(rank) + " failed: " + message_ + "; the other ranks did not reach an " +
                "agreement point within " + std::to_string(static_cast<int>(limit)) +
                " s (SLAB_AGREE_TIMEOUT), so the error cannot be shared: aborting the job",
            __FILE__, __LINE__);
    });
  }
  ~AgreeWatchdog() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  AgreeWatchdog(const AgreeWatchdog&) = delete;
  AgreeWatchdog& operator=(const AgreeWatchdog&) = delete;

 private:
  std::string message_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};
}  // namespace

void mark_transfer_broken() noexcept { g_transfer_broken.store(true); }

namespace {
// The first failing rank's error, as broadcast: fields separated by NUL.
std::string pack_error(const std::string& kind, const std::string& message, const ErrorOrigin& origin) {
  std::string also;
  for (std::size_t i = 0; i < origin.also_failed.size(); ++i)
    also += (i ? "," : "") + std::to_string(origin.also_failed[i]);
  const char nul = '\0';
  return kind + nul + message + nul + origin.file + nul + std::to_string(origin.line) + nul +
         std::to_string(origin.rank) + nul + also;
}
void unpack_error(const std::string& packed, std::string& kind, std::string& message, ErrorOrigin& origin) {
  std::vector<std::string> f;
  std::size_t at = 0;
  for (int i = 0; i < 5; ++i) {
    const auto nul = packed.find('\0', at);
    f.push_back(packed.substr(at, nul - at));
    at = nul + 1;
  }
  f.push_back(packed.substr(at));
  kind = f[0], message = f[1], origin.file = f[2], origin.line = std::atoi(f[3].c_str());
  origin.rank = std::atoi(f[4].c_str());
  origin.also_failed.clear();
  for (std::size_t b = 0; b < f[5].size();) {
    auto comma = f[5].find(',', b);
    if (comma == std::string::npos) comma = f[5].size();
    origin.also_failed.push_back(std::atoi(f[5].substr(b, comma - b).c_str()));
    b = comma + 1;
  }
}
}  // namespace

std::vector<std::int64_t> exchange_status(const Comm::Impl& impl, Status status, const std::string& kind,
                                          const std::string& message, std::span<const std::int64_t> values,
                                          const ErrorOrigin& origin) {
  // [P - lowest failing rank (0: none), values...] reduced with MAX, always kStatusSlots long.
  SLAB_EXPECTS(values.size() < kStatusSlots, InvalidArgument,
               "exchange_status: " + std::to_string(values.size()) + " values do not fit");
  std::array<std::int64_t, kStatusSlots> v{};
  v[0] = status == Status::ok ? 0 : impl.size - impl.rank;
  std::copy(values.begin(), values.end(), v.begin() + 1);
  if (impl.size > 1)
    SLAB_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_INT64_T, MPI_MAX, impl.coll));
  if (v[0] == 0) return {v.begin() + 1, v.begin() + 1 + static_cast<std::ptrdiff_t>(values.size())};

  // Some rank failed (rare, so two more collectives are fine): who, and the first one's error.
  std::vector<int> all(static_cast<std::size_t>(impl.size), 0);
  const int mine = static_cast<int>(status);
  if (impl.size == 1)
    all[0] = mine;
  else
    SLAB_MPI_TRY(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, impl.coll));
  const int first = impl.size - static_cast<int>(v[0]);
  std::string packed = pack_error(kind, message, origin);
  if (impl.size > 1) packed = bcast_string(packed, first, impl.rank, impl.coll);
  std::string first_kind, first_message;
  ErrorOrigin first_origin;
  unpack_error(packed, first_kind, first_message, first_origin);
  // The message is passed on unchanged (Error::message() is the same text everywhere); where it came from
  // travels beside it: an error agreed before keeps its origin, a new one names the lowest failing rank.
  if (all[static_cast<std::size_t>(first)] != static_cast<int>(Status::verbatim)) {
    first_origin.rank = first;
    first_origin.also_failed.clear();
    for (int r = first + 1; r < impl.size; ++r)
      if (all[static_cast<std::size_t>(r)] != 0) first_origin.also_failed.push_back(r);
  }
  throw_agreed(first_kind, first_message, first_origin);
}

void agree_error(const Comm::Impl& impl, const std::exception_ptr& error) {
  if (!error) {
    exchange_status(impl, Status::ok, {}, {}, {});
    return;
  }
  std::string kind;
  std::string message;
  ErrorOrigin origin;
  Status status = Status::failed;
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    kind = e.kind();
    message = e.message();
    origin.file = e.file(), origin.line = e.line();
    if (dynamic_cast<const AgreedMarker*>(&e) != nullptr) {
      status = Status::verbatim;
      origin.rank = e.origin_rank(), origin.also_failed = e.also_failed_on();
    }
  } catch (const std::bad_alloc&) {
    kind = "OutOfMemory";
    message = "out of host memory (std::bad_alloc)";
  } catch (const std::exception& e) {
    kind = "Error";
    message = e.what();
  } catch (...) {
    kind = "Error";
    message = "unknown exception";
  }
  if (status == Status::failed && g_transfer_broken.load())
    fatal("rank " + std::to_string(impl.rank) + " failed inside a collective's data transfer: " + message +
              "; the other ranks may be waiting in that transfer, where no agreement reaches them: aborting the job",
          __FILE__, __LINE__);
  std::optional<AgreeWatchdog> watchdog;
  if (status == Status::failed && impl.size > 1) watchdog.emplace(impl.rank, message);
  exchange_status(impl, status, kind, message, {}, origin);
}

std::vector<std::int64_t> check_args(const Comm::Impl& impl, const char* op, std::initializer_list<Uniform> uniform,
                                     const std::string& local_error, std::initializer_list<std::int64_t> maxes) {
  // [u0, -u0, u1, -u1, ..., maxes...]: one MAX reduction gives each uniform value's max and min.
  std::vector<std::int64_t> v;
  v.reserve(2 * uniform.size() + maxes.size());
  for (const auto& u : uniform) {
    v.push_back(u.value);
    v.push_back(-u.value);
  }
  for (auto m : maxes) v.push_back(m);
  const std::string message = local_error.empty() ? std::string() : std::string(op) + ": " + local_error;
  v = exchange_status(impl, local_error.empty() ? Status::ok : Status::failed, "ShapeError", message, v);
  std::size_t i = 0;
  for (const auto& u : uniform) {
    const std::int64_t hi = v[i];
    const std::int64_t lo = -v[i + 1];
    i += 2;
    if (hi != lo)
      throw_agreed(u.shape ? "ShapeError" : "InvalidArgument",
                   std::string(op) + ": " + u.what + " differs across ranks (min " + std::to_string(lo) + ", max " +
                       std::to_string(hi) + ")",
                   ErrorOrigin{impl.rank, {}, {}, 0});  // every rank found it itself
  }
  return {v.begin() + static_cast<std::ptrdiff_t>(i), v.end()};
}

void post_send(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs) {
  const std::size_t m = max_message_bytes();
  const auto* p = static_cast<const char*>(data);
  std::size_t off = 0;
  do {
    const std::size_t n = std::min(m, bytes - off);
    reqs.emplace_back();
    SLAB_MPI_TRY(MPI_Isend(p + off, static_cast<int>(n), MPI_BYTE, dest, tag, comm, &reqs.back()));
    off += n;
  } while (off < bytes);
}

void post_recv(void* data, std::size_t bytes, int source, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs) {
  const std::size_t m = max_message_bytes();
  auto* p = static_cast<char*>(data);
  std::size_t off = 0;
  do {
    const std::size_t n = std::min(m, bytes - off);
    reqs.emplace_back();
    SLAB_MPI_TRY(MPI_Irecv(p + off, static_cast<int>(n), MPI_BYTE, source, tag, comm, &reqs.back()));
    off += n;
  } while (off < bytes);
}

void wait_all(std::vector<MPI_Request>& reqs) {
  if (reqs.empty()) return;
  std::vector<MPI_Status> st(reqs.size());
  const int rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), st.data());
  reqs.clear();
  if (rc == MPI_ERR_IN_STATUS) {
    for (const auto& s : st)
      if (s.MPI_ERROR != MPI_SUCCESS) SLAB_FAIL(CommError, "MPI_Waitall: " + mpi_error_string(s.MPI_ERROR));
  }
  SLAB_MPI_TRY(rc);
}

void send_bytes(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm) {
  std::vector<MPI_Request> reqs;
  post_send(data, bytes, dest, tag, comm, reqs);
  wait_all(reqs);
}

void recv_bytes(void* data, std::size_t bytes, int source, int tag, MPI_Comm comm) {
  std::vector<MPI_Request> reqs;
  post_recv(data, bytes, source, tag, comm, reqs);
  wait_all(reqs);
}

void pairwise_exchange(const char* send, const std::size_t* send_bytes, const std::size_t* send_displs, char* recv,
                       const std::size_t* recv_bytes, const std::size_t* recv_displs, int rank, int size,
                       MPI_Comm comm) {
  const auto me = static_cast<std::size_t>(rank);
  SLAB_EXPECTS(send_bytes[me] == recv_bytes[me], ShapeError, "pairwise exchange: self counts differ");
  if (send_bytes[me] > 0) std::memmove(recv + recv_displs[me], send + send_displs[me], send_bytes[me]);
  std::vector<MPI_Request> reqs;
  for (int s = 1; s < size; ++s) {
    const auto dst = static_cast<std::size_t>((rank + s) % size);
    const auto src = static_cast<std::size_t>((rank - s + size) % size);
    if (recv_bytes[src] > 0)
      post_recv(recv + recv_displs[src], recv_bytes[src], static_cast<int>(src), tag_exchange, comm, reqs);
    if (send_bytes[dst] > 0)
      post_send(send + send_displs[dst], send_bytes[dst], static_cast<int>(dst), tag_exchange, comm, reqs);
    wait_all(reqs);
  }
}

}  // namespace detail

// Declared in slab/comm/world.hpp (and comm.hpp); defined here because only this file knows the marker.
bool is_agreed_error(const std::exception& error) noexcept {
  return dynamic_cast<const detail::AgreedMarker*>(&error) != nullptr;
}

Comm::Impl::Impl(MPI_Comm comm, bool owns, Tracer* t) : user(comm), owns_user(owns), tracer(t) {
  SLAB_EXPECTS(comm != MPI_COMM_NULL, InvalidArgument, "Comm: MPI_COMM_NULL");
  SLAB_MPI_TRY(MPI_Comm_rank(comm, &rank));
  SLAB_MPI_TRY(MPI_Comm_size(comm, &size));
  SLAB_MPI_TRY(MPI_Comm_dup(comm, &coll));
  MPI_Comm_set_errhandler(coll, MPI_ERRORS_RETURN);
  if (owns_user) MPI_Comm_set_errhandler(user, MPI_ERRORS_RETURN);
}

Comm::Impl::~Impl() {
  if (owns_nccl) detail::nccl_comm_destroy(nccl);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;  // too late to free; MPI_Finalize released them
  if (coll != MPI_COMM_NULL) MPI_Comm_free(&coll);
  if (owns_user && user != MPI_COMM_NULL) MPI_Comm_free(&user);
}

Comm::Comm(MPI_Comm comm, Tracer* tracer) : impl_(std::make_shared<Impl>(comm, false, tracer)) {}
Comm::Comm(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Comm Comm::split(int color, int key) const {
  detail::CommTrace trace(impl_->tracer, "split", 0);
  detail::exchange_status(*impl_, detail::Status::ok, {}, {}, {});  // a rank that failed alone meets us here
  MPI_Comm out = MPI_COMM_NULL;
  SLAB_MPI_TRY(MPI_Comm_split(impl_->coll, color, key, &out));
  try {
    auto impl = std::make_shared<Impl>(out, true, impl_->tracer);
    impl->nccl = nullptr;                                      // an NCCL communicator spans the parent's ranks only
    impl->staging = impl_->staging || impl_->nccl != nullptr;  // no NCCL here: device buffers go through the host
    impl->execution = impl_->execution;
    return Comm(std::move(impl));
  } catch (...) {
    MPI_Comm_free(&out);
    throw;
  }
}

int Comm::rank() const noexcept { return impl_->rank; }
int Comm::size() const noexcept { return impl_->size; }
MPI_Comm Comm::mpi() const noexcept { return impl_->user; }
Tracer* Comm::tracer() const noexcept { return impl_->tracer; }

void Comm::set_device_path(const ExecutionContext* execution, void* nccl_comm, bool staging) {
  if (nccl_comm != nullptr && !built_with_nccl) SLAB_FAIL(NotCompiled, "set_device_path: slab was built without NCCL");
  if (staging && !built_with_cuda) SLAB_FAIL(NotCompiled, "set_device_path: slab was built without CUDA");
  if (impl_->owns_nccl && impl_->nccl != nccl_comm) detail::nccl_comm_destroy(impl_->nccl);
  impl_->nccl = nccl_comm;
  impl_->owns_nccl = nccl_comm != nullptr;
  impl_->execution = nccl_comm != nullptr || staging ? execution : nullptr;
  impl_->staging = staging;
}

void Comm::barrier() const {
  // A status exchange, not MPI_Barrier: a rank that failed alone can then meet the others here too.
  detail::CommTrace trace(impl_->tracer, "barrier", 0);
  detail::exchange_status(*impl_, detail::Status::ok, {}, {}, {});
}

void Comm::agree(bool ok, std::string_view message) const {
  detail::CommTrace trace(impl_->tracer, "agree", 0);
  detail::exchange_status(*impl_, ok ? detail::Status::ok : detail::Status::failed, "InvalidArgument",
                          std::string(message), {});
}

void Comm::agree(std::exception_ptr error) const {
  if (error) {
    // An agreed error was raised on every rank by one exchange: every rank passes it on without another.
    try {
      std::rethrow_exception(error);
    } catch (const detail::AgreedMarker&) {
      throw;
    } catch (...) {
    }
  }
  detail::CommTrace trace(impl_->tracer, "agree", 0);
  detail::agree_error(*impl_, error);
}

}  // namespace slab
