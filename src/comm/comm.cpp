// slab::Comm basics: construction, split, device path, argument checks and collective error agreement,
// and the chunked point-to-point helpers the collectives share.
#include "comm/comm_impl.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <new>

#include "comm/cuda/nccl_collectives.hpp"
#include "slab/comm/mpi_error.hpp"
#include "slab/core/version.hpp"

namespace slab {

namespace detail {

namespace {
std::atomic<std::size_t> g_max_message_bytes{std::size_t{1} << 30};

/// Marks an exception produced by agreement, so a nested agreement keeps its message instead of
/// prefixing "rank R: " again.
struct AgreedMarker {
  virtual ~AgreedMarker() = default;
};
template <class E>
class Agreed final : public E, public AgreedMarker {
 public:
  using E::E;
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

bool is_device_pointer(const void* ptr) noexcept { return device_pointer_query(ptr); }

MPI_Datatype mpi_datatype(DType dt, bool for_reduction) {
  switch (dt) {
    case DType::i8:
      return for_reduction ? MPI_SIGNED_CHAR : MPI_CHAR;
    case DType::u8:
      return for_reduction ? MPI_UNSIGNED_CHAR : MPI_BYTE;
    case DType::i32:
      return MPI_INT;
    case DType::u32:
      return MPI_UNSIGNED;
    case DType::i64:
      return MPI_INT64_T;
    case DType::u64:
      return MPI_UINT64_T;
    case DType::f32:
      return MPI_FLOAT;
    case DType::f64:
      return MPI_DOUBLE;
    case DType::bytes:
      return MPI_BYTE;
  }
  return MPI_BYTE;
}

[[noreturn]] void throw_agreed(const std::string& kind, const std::string& message) {
#define SLAB_AGREED_KIND(Name) \
  if (kind == #Name) throw Agreed<Name>(message, __FILE__, __LINE__)
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
  throw Agreed<Error>(message, __FILE__, __LINE__);
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

/// The agreement protocol: allgather of one status per rank (0 ok, 1 failed, 2 failed with an already
/// agreed error), then the lowest failing rank broadcasts "kind\0message".
void agree_impl(const Comm::Impl& impl, int status, const std::string& kind, const std::string& message) {
  std::vector<int> all(static_cast<std::size_t>(impl.size), 0);
  if (impl.size == 1) {
    all[0] = status;
  } else {
    SLAB_MPI_TRY(MPI_Allgather(&status, 1, MPI_INT, all.data(), 1, MPI_INT, impl.coll));
  }
  std::vector<int> failed;
  for (int r = 0; r < impl.size; ++r)
    if (all[static_cast<std::size_t>(r)] != 0) failed.push_back(r);
  if (failed.empty()) return;
  const int first = failed.front();
  std::string packed = kind + std::string(1, '\0') + message;
  if (impl.size > 1) packed = bcast_string(packed, first, impl.rank, impl.coll);
  const auto nul = packed.find('\0');
  const std::string first_kind = packed.substr(0, nul);
  const std::string first_message = packed.substr(nul + 1);
  if (all[static_cast<std::size_t>(first)] == 2) throw_agreed(first_kind, first_message);
  std::string text = "rank " + std::to_string(first) + ": " + first_message;
  if (failed.size() > 1) {
    text += " (also failed on rank";
    text += failed.size() > 2 ? "s " : " ";
    for (std::size_t i = 1; i < failed.size(); ++i) text += (i > 1 ? ", " : "") + std::to_string(failed[i]);
    text += ")";
  }
  throw_agreed(first_kind, text);
}
}  // namespace

std::vector<std::int64_t> check_args(const Comm::Impl& impl, const char* op, std::initializer_list<Uniform> uniform,
                                     const std::string& local_error, std::initializer_list<std::int64_t> maxes) {
  // [P - lowest failing rank (0: none), u0, -u0, u1, -u1, ..., maxes...] reduced with MAX.
  std::vector<std::int64_t> v;
  v.reserve(1 + 2 * uniform.size() + maxes.size());
  v.push_back(local_error.empty() ? 0 : impl.size - impl.rank);
  for (const auto& u : uniform) {
    v.push_back(u.value);
    v.push_back(-u.value);
  }
  for (auto m : maxes) v.push_back(m);
  if (impl.size > 1)
    SLAB_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_INT64_T, MPI_MAX, impl.coll));
  if (v[0] > 0) {
    const int first = impl.size - static_cast<int>(v[0]);
    std::string msg = local_error;
    if (impl.size > 1) msg = bcast_string(msg, first, impl.rank, impl.coll);
    throw_agreed("ShapeError", std::string(op) + ": rank " + std::to_string(first) + ": " + msg);
  }
  std::size_t i = 1;
  for (const auto& u : uniform) {
    const std::int64_t hi = v[i];
    const std::int64_t lo = -v[i + 1];
    i += 2;
    if (hi != lo)
      throw_agreed(u.shape ? "ShapeError" : "InvalidArgument", std::string(op) + ": " + u.what +
                                                                   " differs across ranks (min " + std::to_string(lo) +
                                                                   ", max " + std::to_string(hi) + ")");
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
  MPI_Comm out = MPI_COMM_NULL;
  SLAB_MPI_TRY(MPI_Comm_split(impl_->coll, color, key, &out));
  try {
    auto impl = std::make_shared<Impl>(out, true, impl_->tracer);
    impl->nccl = nullptr;  // an NCCL communicator spans the parent's ranks only
    impl->staging = impl_->staging;
    impl->stream = impl_->stream;
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

void Comm::set_device_path(void* nccl_comm, void* stream, bool staging) {
  if (nccl_comm != nullptr && !built_with_nccl) SLAB_FAIL(NotCompiled, "set_device_path: slab was built without NCCL");
  if (staging && !built_with_cuda) SLAB_FAIL(NotCompiled, "set_device_path: slab was built without CUDA");
  if (impl_->owns_nccl && impl_->nccl != nccl_comm) detail::nccl_comm_destroy(impl_->nccl);
  impl_->nccl = nccl_comm;
  impl_->owns_nccl = nccl_comm != nullptr;
  impl_->stream = stream;
  impl_->staging = staging;
}

void Comm::barrier() const {
  detail::CommTrace trace(impl_->tracer, "barrier", 0);
  SLAB_MPI_TRY(MPI_Barrier(impl_->coll));
}

void Comm::agree(bool ok, std::string_view message) const {
  detail::CommTrace trace(impl_->tracer, "agree", 0);
  detail::agree_impl(*impl_, ok ? 0 : 1, "InvalidArgument", std::string(message));
}

void Comm::agree(std::exception_ptr error) const {
  detail::CommTrace trace(impl_->tracer, "agree", 0);
  int status = 0;
  std::string kind;
  std::string message;
  if (error) {
    status = 1;
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      kind = e.kind();
      message = e.message();
      if (dynamic_cast<const detail::AgreedMarker*>(&e) != nullptr) status = 2;
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
  }
  detail::agree_impl(*impl_, status, kind, message);
}

}  // namespace slab
