#pragma once
/// @file comm_impl.hpp
/// @brief Private state of slab::Comm and the helpers its translation units share.

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/runtime/execution_context.hpp"
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
  /// Where the device path runs (its stream, what is GPU memory, its staging pool); null without a device path
  /// (set_device_path sets it only with NCCL or staging).
  const ExecutionContext* execution = nullptr;
  bool staging = false;  ///< device buffers go through host memory and MPI

  Impl(MPI_Comm comm, bool owns, Tracer* t);
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  /// Whether `p` is a device buffer the device path must handle (the execution context tells).
  [[nodiscard]] bool on_device(const void* p) const noexcept {
    return execution != nullptr && execution->is_device_memory(p);
  }
  /// The device path's stream (a cudaStream_t), null without one.
  [[nodiscard]] void* stream() const noexcept { return execution != nullptr ? execution->stream() : nullptr; }
  /// Whether device buffers go to NCCL (else they are staged through the host).
  [[nodiscard]] bool use_nccl() const noexcept { return nccl != nullptr && !staging; }
};

namespace detail {

/// Internal tags on Impl::coll.
inline constexpr int tag_tree = 11;
inline constexpr int tag_exchange = 12;
inline constexpr int tag_forward = 13;
inline constexpr int tag_reduce_scatter = 14;

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

/// A rank's part in a status exchange.
enum class Status : int {
  ok = 0,
  failed = 1,    ///< this rank failed: the agreed error's origin is the lowest failing rank (others: also_failed)
  verbatim = 2,  ///< this rank passes on an error agreed before, with the origin that error carries
};

/// Where an agreed error was raised: the rank (of the agreeing communicator; -1: this rank), the other ranks
/// that failed with it, and the source location (empty file: unknown).
struct ErrorOrigin {
  int rank = -1;
  std::vector<int> also_failed;
  std::string file;
  int line = 0;
};

/// Every agreement point is one MPI_Allreduce of this many int64 (MAX) on Impl::coll, whatever it checks: a
/// rank that failed on its own can then join whichever agreement point the other ranks reach next (the
/// argument check at the start of each collective, a barrier, agree()) and every rank throws the same error.
inline constexpr std::size_t kStatusSlots = 16;

/**
 * The status exchange behind every agreement: one fixed-shape allreduce carrying this rank's status and
 * `values` (at most kStatusSlots - 1), returning the maximum over ranks of each value. When any rank's
 * status is not ok, every rank throws (marked as agreed) the lowest failing rank's error: exception class
 * `kind` with the message unchanged and the origin as described in Status. Collective over impl.coll.
 */
std::vector<std::int64_t> exchange_status(const Comm::Impl& impl, Status status, const std::string& kind,
                                          const std::string& message, std::span<const std::int64_t> values,
                                          const ErrorOrigin& origin = {});

/**
 * exchange_status for an exception (null = this rank is fine): ends the job instead when this rank left a
 * collective's data transfer by that exception (the others may be inside it), or when the other ranks do not
 * reach an agreement point within SLAB_AGREE_TIMEOUT seconds (default 60). Collective over impl.coll.
 */
void agree_error(const Comm::Impl& impl, const std::exception_ptr& error);

/// Records that an exception left a collective's data transfer on this process (see DataPhase).
void mark_transfer_broken() noexcept;

/**
 * Marks the data transfer of a collective, after its status exchange: an exception leaving it means this
 * rank stopped partway through a transfer the other ranks are still in, and agreement is no longer possible.
 */
class DataPhase {
 public:
  DataPhase() = default;
  ~DataPhase() {
    if (std::uncaught_exceptions() > exceptions_) mark_transfer_broken();
  }
  DataPhase(const DataPhase&) = delete;
  DataPhase& operator=(const DataPhase&) = delete;

 private:
  int exceptions_ = std::uncaught_exceptions();
};

/**
 * The argument check at the start of every collective, as one status exchange: (1) agrees on local argument
 * errors (`local_error` non-empty on a rank: every rank throws ShapeError "<op>: <error>", origin R), (2) checks
 * `uniform` values match, and (3) returns the maximum over ranks of each of `maxes`. Collective over impl.coll.
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

/// acc[i] = acc[i] op other[i] for n elements of `dt` (the combine of reduce and its tree). Not collective.
void combine_elements(char* acc, const char* other, std::size_t n, ElementType dt, ReduceOp op);
/// Logical results as 0/1 (land/lor; other operators leave `data` as it is). Not collective.
void normalize_logical_elements(char* data, std::size_t n, ElementType dt, ReduceOp op);
/// Why `op` is not defined for `dt` (land/lor on floating point), or empty. Not collective.
std::string reduce_op_error(ElementType dt, ReduceOp op);

/// Throw an exception of the class named `kind` ("ShapeError", ...), marked as agreed, with `message` and
/// `origin` (Error::origin_rank(), also_failed_on(), file(), line()).
[[noreturn]] void throw_agreed(const std::string& kind, const std::string& message, const ErrorOrigin& origin);

}  // namespace detail
}  // namespace slab
