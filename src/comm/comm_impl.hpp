#pragma once
/// @file comm_impl.hpp
/// @brief Private state of slab::Comm and the helpers its translation units share.

#include <mpi.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/trace/tracer.hpp"

namespace slab {

struct Comm::Impl {
  MPI_Comm user = MPI_COMM_NULL;  ///< the communicator users see (mpi()); freed only when owned
  MPI_Comm coll = MPI_COMM_NULL;  ///< private duplicate for the layer's own traffic, MPI_ERRORS_RETURN
  bool owns_user = false;
  Tracer* tracer = nullptr;
  int rank = 0;
  int size = 1;
  void* nccl = nullptr;    ///< ncclComm_t when the device path uses NCCL
  bool owns_nccl = false;  ///< destroy `nccl` with this communicator
  void* stream = nullptr;  ///< cudaStream_t
  bool staging = false;    ///< device buffers go through host memory and MPI

  Impl(MPI_Comm comm, bool owns, Tracer* t);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  /// Whether `p` is a device buffer the device path must handle.
  [[nodiscard]] bool on_device(const void* p) const noexcept {
    return (nccl != nullptr || staging) && p != nullptr && detail::is_device_pointer(p);
  }
  /// Whether device buffers go to NCCL (else they are staged through the host).
  [[nodiscard]] bool use_nccl() const noexcept { return nccl != nullptr && !staging; }
};

namespace detail {

/// Internal tags on Impl::coll.
inline constexpr int tag_tree = 11;
inline constexpr int tag_exchange = 12;
inline constexpr int tag_forward = 13;

/// Records one TraceKind::comm event on destruction when a tracer is present.
class CommTrace {
 public:
  CommTrace(Tracer* tracer, const char* name, std::uint64_t bytes)
      : tracer_(tracer), name_(name), bytes_(bytes), start_(tracer ? tracer->now() : 0.0) {}
  ~CommTrace() {
    if (tracer_) tracer_->record(name_, TraceKind::comm, start_, tracer_->now() - start_, bytes_);
  }
  CommTrace(const CommTrace&) = delete;
  CommTrace& operator=(const CommTrace&) = delete;

 private:
  Tracer* tracer_;
  const char* name_;
  std::uint64_t bytes_;
  double start_;
};

/// A value that must be the same on every rank.
struct Uniform {
  const char* what;
  std::int64_t value;
  bool shape = true;  ///< ShapeError when it differs (else InvalidArgument)
};

/**
 * One small allreduce that (1) agrees on local argument errors (`local_error` non-empty on a rank: every rank
 * throws ShapeError "<op>: rank R: <error>"), (2) checks `uniform` values match, and (3) returns the maximum
 * over ranks of each of `maxes`. Collective over impl.coll.
 */
std::vector<std::int64_t> check_args(const Comm::Impl& impl, const char* op, std::initializer_list<Uniform> uniform,
                                     const std::string& local_error, std::initializer_list<std::int64_t> maxes = {});

/// Chunked blocking point-to-point of raw bytes (pieces of max_message_bytes(); an empty message for 0).
void send_bytes(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm);
void recv_bytes(void* data, std::size_t bytes, int source, int tag, MPI_Comm comm);
/// Nonblocking chunked posts; append their requests.
void post_send(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs);
void post_recv(void* data, std::size_t bytes, int source, int tag, MPI_Comm comm, std::vector<MPI_Request>& reqs);
void wait_all(std::vector<MPI_Request>& reqs);

/**
 * Pairwise exchange in ring order: at step s rank r sends to r+s and receives from r-s, each message in
 * pieces of at most max_message_bytes(). Byte counts and displacements per rank; a sender's count must equal
 * its receiver's. Collective over comm.
 */
void pairwise_exchange(const char* send, const std::size_t* send_bytes, const std::size_t* send_displs, char* recv,
                       const std::size_t* recv_bytes, const std::size_t* recv_displs, int rank, int size,
                       MPI_Comm comm);

/// Throw an exception of the class named `kind` ("ShapeError", ...), marked as agreed, with `message`.
[[noreturn]] void throw_agreed(const std::string& kind, const std::string& message);

}  // namespace detail
}  // namespace slab
