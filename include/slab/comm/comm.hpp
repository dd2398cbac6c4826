#pragma once
/// @file comm.hpp
/// @brief slab::Comm: a communicator with typed, size_t-counted collectives, a fixed-order tree reduction,
/// collective error agreement, tracing, and an NCCL (or host-staging) path for device buffers.
///
/// Every collective must be called by every rank of the communicator in the same order. Arguments that
/// must match across ranks (counts, roots, operators) are checked on every rank together before any data
/// moves, so a mismatch throws the same error on every rank instead of hanging. Messages larger than
/// detail::max_message_bytes() are sent in pieces, so counts beyond 2^31 elements work with MPI-3.
///
/// Failure on one rank: every agreement point (that argument check at the start of each collective,
/// barrier(), agree()) is the same small status exchange, so a rank whose own work threw can call
/// agree(error) and meet the other ranks wherever they wait next in this communicator: every rank then
/// throws the same error. Only a rank that fails partway through a collective's data transfer, or whose
/// peers never reach an agreement point (they wait in a user's own MPI call), ends the job with MPI_Abort,
/// the latter after SLAB_AGREE_TIMEOUT seconds (default 60; 0 waits forever).
///
/// A rank or host that disappears (killed, crashed, its node or link gone) cannot reach any agreement point,
/// and MPI may wait for it forever. The Runtime's liveness ring covers that without touching any collective:
/// each world rank keeps a TCP connection to its two ring neighbours (addresses exchanged once with MPI at
/// start-up) and a watchdog thread exchanges a one-byte heartbeat on them every min(1 s, T/6). A neighbour whose
/// connection closes without a goodbye (1 s grace), or from which nothing arrives for T = SLAB_LIVENESS_TIMEOUT
/// seconds (default 30; 0 turns the check off), is gone: the notice runs round the ring in both directions, and
/// every healthy rank prints "slab: rank R on host H stopped responding: <why>", removes its spill folders and
/// exits with code 4, within T + 1 s of the loss (1 s for a killed process) plus a few TCP hops. No-op at one
/// rank; SLAB_LIVENESS_IFNAME (comma-separated interface name prefixes) chooses the addresses it publishes.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "slab/comm/datatype.hpp"
#include "slab/core/error.hpp"

namespace slab {

class Tracer;
class ExecutionContext;

namespace detail {
/**
 * @brief The largest message the comm layer hands to one MPI call (default 2^30 bytes); larger transfers
 * are split into pieces. Settable for tests of the chunked path; must be the same on every rank when a
 * collective runs. Not collective; thread-unsafe by design (set it between collectives).
 */
void set_max_message_bytes(std::size_t bytes);
/// @brief The current piece size (see set_max_message_bytes). Not collective.
[[nodiscard]] std::size_t max_message_bytes() noexcept;
}  // namespace detail

/// Counts and displacements (in elements) of a variable-size gather, as returned by Comm::allgatherv.
struct VCounts {
  std::vector<std::size_t> counts;  ///< elements from each rank
  std::vector<std::size_t> displs;  ///< offset of each rank's elements in the output
};

/**
 * @brief A communicator. Copies share one underlying state (value semantics by shared ownership).
 *
 * The comm layer's own point-to-point traffic (tree reductions, chunked exchanges) runs on a private
 * duplicate of the communicator with MPI_ERRORS_RETURN, so it never matches user messages; send/recv
 * with user tags run on the communicator itself (mpi()).
 */
class Comm {
 public:
  /**
   * @brief Wrap `comm` (not freed by slab). Collective over `comm` (it is duplicated for internal traffic).
   * @param tracer where to record a TraceKind::comm event per collective; may be null. Must outlive the Comm.
   * @throws CommError when the duplicate cannot be made.
   */
  explicit Comm(MPI_Comm comm, Tracer* tracer = nullptr);

  /**
   * @brief MPI_Comm_split: ranks with the same color form a new communicator, ordered by key (then rank).
   * Collective. The returned Comm owns the new communicator and frees it with its last copy.
   * @throws CommError when MPI fails.
   */
  [[nodiscard]] Comm split(int color, int key) const;
  /// @brief Same as comm.split(color, key). Collective.
  [[nodiscard]] static Comm split(const Comm& comm, int color, int key) { return comm.split(color, key); }

  /// @brief This rank in the communicator. Not collective.
  [[nodiscard]] int rank() const noexcept;
  /// @brief The number of ranks. Not collective.
  [[nodiscard]] int size() const noexcept;
  /// @brief The wrapped MPI communicator (user point-to-point runs here). Not collective.
  [[nodiscard]] MPI_Comm mpi() const noexcept;
  /// @brief The tracer given at construction (may be null). Not collective.
  [[nodiscard]] Tracer* tracer() const noexcept;

  /**
   * @brief Enable the device path: collectives on GPU memory (as `execution` tells it:
   * ExecutionContext::is_device_memory) use `nccl_comm` (an ncclComm_t over the same ranks) on the context's
   * stream, or, with `staging`, copy device buffers to blocks of the context's page-locked staging pool, go
   * through MPI and copy back (for several ranks per GPU, which NCCL refuses). Pass nullptr/false to disable.
   * `execution` (the rank's, from the Runtime) must outlive the communicator's collectives. The communicator
   * takes ownership of `nccl_comm` and destroys it with its last copy (or when another is set). Not collective,
   * but must be called identically on every rank. Affects every copy.
   * A collective takes NCCL only where every buffer that carries bytes, on every rank, is device memory (a
   * buffer without bytes, often null, does not count); buffers of mixed kinds (device partials reduced into a
   * host result on the root, say) go through MPI on every rank, each device buffer staged through the host.
   * @throws NotCompiled when nccl_comm is given and this build has no NCCL, or staging without CUDA.
   */
  void set_device_path(const ExecutionContext* execution, void* nccl_comm, bool staging);

  /// @brief Block until every rank arrives (an agreement point: see the file comment). Collective.
  /// @throws CommError; the agreed error of a rank that failed alone and meets the others here.
  void barrier() const;

  /**
   * @brief Broadcast `data` from `root`. Collective; every rank passes the same count and root.
   * @throws ShapeError (every rank) when counts differ; InvalidArgument when root is out of range or differs.
   */
  template <Transferable T>
  void bcast(std::span<T> data, int root) const {
    bcast_raw(data.data(), data.size() * elem_scale<T>(), dtype<T>(), root);
  }

  /**
   * @brief Reduce `in` element-wise onto `out` at `root` over a fixed binomial tree of point-to-point
   * messages rooted at rank 0 (then forwarded to root): the combine order depends only on the rank count,
   * so results are bitwise identical run to run, and equal for every root. Element i of the result is
   * ((x0 op x1) op (x2 op x3)) op ... in rank order. Collective. `out` is used only on root (may be empty
   * elsewhere); in-place (in.data() == out.data()) is allowed.
   * @throws ShapeError when counts differ or root's out is too small; InvalidArgument for a bad root/op.
   */
  template <Reducible T>
  void reduce(std::span<const T> in, std::span<T> out, ReduceOp op, int root) const {
    reduce_raw(in.data(), in.size(), out.data(), out.size(), dtype<T>(), op, root);
  }

  /**
   * @brief Element-wise reduction of `in` into `out` on every rank (MPI_Allreduce, in pieces when large).
   * Collective; `out.size() == in.size()`; in-place (same data pointer) allowed.
   * @throws ShapeError when sizes differ on a rank or across ranks; InvalidArgument for land/lor on floats.
   */
  template <Reducible T>
  void allreduce(std::span<const T> in, std::span<T> out, ReduceOp op) const {
    allreduce_raw(in.data(), in.size(), out.data(), out.size(), dtype<T>(), op);
  }
  /// @brief In-place allreduce of `data`. Collective. @throws as allreduce above.
  template <Reducible T>
  void allreduce(std::span<T> data, ReduceOp op) const {
    allreduce_raw(data.data(), data.size(), data.data(), data.size(), dtype<T>(), op);
  }
  /// @brief Allreduce of one value, returned. Collective. @throws CommError.
  template <Reducible T>
  [[nodiscard]] T allreduce(T value, ReduceOp op) const {
    allreduce_raw(&value, 1, &value, 1, dtype<T>(), op);
    return value;
  }

  /**
   * @brief Reduce-scatter in place: `data` holds this rank's contribution to every block, block k being the
   * counts[k] elements after those of blocks 0..k-1; on return, this rank's block (the span returned) holds the
   * element-wise reduction of that block over all ranks. Every element is combined in the same fixed order as
   * reduce() (the binomial tree: ((x0 op x1) op (x2 op x3)) op ... in rank order), so the result is bitwise equal
   * to reduce()'s at the same rank count, for every block and run to run.
   *
   * Recursive halving along that tree: at the level of distance d, each pair of neighbouring rank ranges of d
   * ranks exchanges the blocks the other range will hold (every block moves straight from the rank holding one
   * half's partial to the rank holding the other's), so with a power-of-two rank count each rank sends and
   * receives (p - 1) / p of `data` in log2 p levels; no rank relays for the others (with other rank counts the
   * ranks above the largest power of two send up to that much once more, in the last level). Messages are pieces
   * of at most min(detail::max_message_bytes(), 4 MiB), so any count works. Besides `data`, which it uses as its
   * working space (everything outside this rank's block is unspecified on return), it holds two such pieces.
   * Device buffers go through NCCL where it is built and on (one grouped ncclReduce per block, rooted at its
   * owner: NCCL's combine order, as reduce() has there); otherwise they are staged through host memory whole.
   * Collective; `counts` must be the same on every rank, data.size() their sum.
   * @return this rank's block: data.subspan(counts[0] + ... + counts[rank - 1], counts[rank]).
   * @throws ShapeError (every rank) when counts has other than size() entries or does not sum to data.size() on
   * a rank, when the counts differ across ranks, and for land/lor on floating-point types (the argument check
   * every collective here shares raises ShapeError for all of these).
   */
  template <Reducible T>
  std::span<T> reduce_scatter(std::span<T> data, std::span<const std::size_t> counts, ReduceOp op) const {
    const std::size_t offset = reduce_scatter_raw(data.data(), data.size(), counts, dtype<T>(), op);
    return data.subspan(offset, counts[static_cast<std::size_t>(rank())]);
  }

  /**
   * @brief Reduce variable-size byte values to `root` with a user combine, over the same fixed binomial tree
   * as reduce: combine(acc, other) is called with acc holding a contiguous lower range of ranks and other
   * the range just above it, so an associative (even non-commutative) combine gives the rank-ordered fold.
   * On root, `value` holds the result; elsewhere it is left in an unspecified state. Collective.
   * @throws InvalidArgument for a bad root; the error of a combine that threw on any rank, on every rank (the
   * failure travels up the tree in place of the value, then the ranks agree).
   */
  void tree_reduce_bytes(
      std::vector<std::byte>& value,
      const std::function<void(std::vector<std::byte>& acc, const std::vector<std::byte>& other)>& combine,
      int root) const;
  /// @brief tree_reduce_bytes to rank 0, then broadcast: every rank gets the identical result. Collective.
  void tree_allreduce_bytes(
      std::vector<std::byte>& value,
      const std::function<void(std::vector<std::byte>& acc, const std::vector<std::byte>& other)>& combine) const;

  /**
   * @brief Gather `in` (same count on every rank) from every rank into `out` (size() * in.size(), rank order).
   * Collective. @throws ShapeError when counts differ across ranks or out has the wrong size.
   */
  template <Transferable T>
  void allgather(std::span<const T> in, std::span<T> out) const {
    allgather_raw(in.data(), in.size() * elem_scale<T>(), out.data(), out.size() * elem_scale<T>(), dtype<T>());
  }

  /**
   * @brief Gather variable-size `in` from every rank into `out` (resized), in rank order; counts are exchanged
   * internally (zero counts allowed). Collective. @return counts and displacements, in elements.
   * @throws CommError when MPI fails.
   */
  template <Transferable T>
  VCounts allgatherv(std::span<const T> in, std::vector<T>& out) const {
    VCounts v = exchange_counts_all(in.size());
    out.resize(v.displs.empty() ? 0 : v.displs.back() + v.counts.back());
    allgatherv_raw(in.data(), out.data(), v.counts, elem_scale<T>(), dtype<T>());
    return v;
  }

  /**
   * @brief Gather variable-size `in` to `root` into `out` (resized on root, cleared elsewhere). Collective.
   * @return counts and displacements (every rank gets them). @throws InvalidArgument for a bad root.
   */
  template <Transferable T>
  VCounts gatherv(std::span<const T> in, std::vector<T>& out, int root) const {
    VCounts v = exchange_counts_all(in.size());
    if (rank() == root)
      out.resize(v.displs.empty() ? 0 : v.displs.back() + v.counts.back());
    else
      out.clear();
    gatherv_raw(in.data(), out.data(), v.counts, elem_scale<T>(), dtype<T>(), root);
    return v;
  }

  /**
   * @brief Send send[k*c .. (k+1)*c) to rank k, receive rank k's block into recv[k*c ...), c = send.size()/size().
   * Collective. @throws ShapeError when sizes are not multiples of size(), differ from recv, or c differs.
   */
  template <Transferable T>
  void alltoall(std::span<const T> send, std::span<T> recv) const {
    alltoall_raw(send.data(), send.size() * elem_scale<T>(), recv.data(), recv.size() * elem_scale<T>(), dtype<T>());
  }

  /**
   * @brief Variable all-to-all: send_counts[k] elements (consecutive, rank order) go to rank k; `recv` is
   * resized and filled in rank order, `recv_counts` receives the counts from each rank (exchanged
   * internally). Any count beyond INT_MAX or the piece size uses a pairwise exchange. Collective.
   * @throws ShapeError (every rank) when send_counts has the wrong length or does not sum to send.size().
   */
  template <Transferable T>
  void alltoallv(std::span<const T> send, std::span<const std::size_t> send_counts, std::vector<T>& recv,
                 std::vector<std::size_t>& recv_counts) const {
    recv_counts = exchange_counts_alltoall(send.size(), send_counts);
    std::size_t total = 0;
    for (auto c : recv_counts) total += c;
    recv.resize(total);
    alltoallv_raw(send.data(), send_counts, recv.data(), recv_counts, elem_scale<T>(), dtype<T>());
  }

  /**
   * @brief Variable all-to-all into a caller-sized `recv` whose counts the caller knows (no count exchange;
   * works on device buffers). Collective. @throws ShapeError when counts do not sum to the span sizes.
   */
  template <Transferable T>
  void alltoallv(std::span<const T> send, std::span<const std::size_t> send_counts, std::span<T> recv,
                 std::span<const std::size_t> recv_counts) const {
    check_vcounts(send.size(), send_counts, recv.size(), recv_counts);
    alltoallv_raw(send.data(), send_counts, recv.data(), recv_counts, elem_scale<T>(), dtype<T>());
  }

  /**
   * @brief Blocking send of `data` to `dest` with `tag` on mpi(); the receiver must post recv with the same
   * count. Not collective. @throws CommError.
   */
  template <Transferable T>
  void send(std::span<const T> data, int dest, int tag) const {
    send_raw(data.data(), data.size() * elem_scale<T>(), dtype<T>(), dest, tag);
  }
  /// @brief Blocking receive of exactly data.size() elements from `source`. Not collective.
  /// @throws CommError when MPI fails or the sender sent a different count.
  template <Transferable T>
  void recv(std::span<T> data, int source, int tag) const {
    recv_raw(data.data(), data.size() * elem_scale<T>(), dtype<T>(), source, tag);
  }
  /// @brief Send to `dest` and receive from `source` at once (no deadlock in rings). Not collective.
  /// @throws CommError.
  template <Transferable T>
  void sendrecv(std::span<const T> send, int dest, std::span<T> recv, int source, int tag) const {
    sendrecv_raw(send.data(), send.size() * elem_scale<T>(), dest, recv.data(), recv.size() * elem_scale<T>(), source,
                 dtype<T>(), tag);
  }

  /**
   * @brief Collective error agreement: when any rank passes ok == false, every rank throws InvalidArgument
   * with the message of R, the lowest failing rank, unchanged; Error::origin_rank() is R and
   * Error::also_failed_on() the other failing ranks (what() shows both). Collective.
   * @throws InvalidArgument as described.
   */
  void agree(bool ok, std::string_view message) const;

  /**
   * @brief Collective error agreement on an exception (null = this rank is fine). When any rank has one,
   * every rank throws an exception of the lowest failing rank's kind (ShapeError, IoError, ...; slab::Error
   * for non-slab exceptions, OutOfMemory for std::bad_alloc) with that rank's message() unchanged and its
   * origin as described in agree(bool, ...), its file() and line() those of the original throw.
   * An exception that was itself agreed is rethrown at once, without communication: one exchange raised it on
   * every rank. A rank that failed alone waits at most SLAB_AGREE_TIMEOUT seconds (default 60) for the others
   * to reach an agreement point, then ends the job; a rank whose exception left a collective's data transfer
   * ends the job at once (the others may be inside that transfer). Collective.
   */
  void agree(std::exception_ptr error) const;

  /**
   * @brief Run `fn` on every rank, catch what it throws, and agree (see agree(std::exception_ptr)): either
   * every rank returns normally or every rank throws the same error. Collective; fn may run slab collectives on
   * this communicator: a rank that fails before one of them meets the others at its argument check.
   */
  template <class F>
  void run_collectively(F&& fn) const {
    std::exception_ptr error;
    try {
      std::forward<F>(fn)();
    } catch (...) {
      error = std::current_exception();
    }
    agree(error);
  }

  /// Implementation state (src/comm/comm_impl.hpp); public only so the layer's helpers can name it.
  struct Impl;

 private:
  explicit Comm(std::shared_ptr<Impl> impl);

  template <class T>
  static constexpr ElementType dtype() {
    return element_type_of<std::remove_cv_t<T>>::value;
  }
  /// Non-native types travel as bytes: counts are scaled by sizeof(T).
  template <class T>
  static constexpr std::size_t elem_scale() {
    return is_mpi_builtin_v<T> ? 1 : sizeof(T);
  }

  void bcast_raw(void* data, std::size_t count, ElementType dt, int root) const;
  void reduce_raw(const void* in, std::size_t count, void* out, std::size_t out_count, ElementType dt, ReduceOp op,
                  int root) const;
  void allreduce_raw(const void* in, std::size_t count, void* out, std::size_t out_count, ElementType dt,
                     ReduceOp op) const;
  std::size_t reduce_scatter_raw(void* data, std::size_t count, std::span<const std::size_t> counts, ElementType dt,
                                 ReduceOp op) const;
  void allgather_raw(const void* in, std::size_t count, void* out, std::size_t out_count, ElementType dt) const;
  VCounts exchange_counts_all(std::size_t count) const;
  void allgatherv_raw(const void* in, void* out, const std::vector<std::size_t>& counts, std::size_t scale,
                      ElementType dt) const;
  void gatherv_raw(const void* in, void* out, const std::vector<std::size_t>& counts, std::size_t scale, ElementType dt,
                   int root) const;
  void alltoall_raw(const void* send, std::size_t count, void* recv, std::size_t recv_count, ElementType dt) const;
  std::vector<std::size_t> exchange_counts_alltoall(std::size_t send_size,
                                                    std::span<const std::size_t> send_counts) const;
  void check_vcounts(std::size_t send_size, std::span<const std::size_t> send_counts, std::size_t recv_size,
                     std::span<const std::size_t> recv_counts) const;
  void alltoallv_raw(const void* send, std::span<const std::size_t> send_counts, void* recv,
                     std::span<const std::size_t> recv_counts, std::size_t scale, ElementType dt) const;
  void send_raw(const void* data, std::size_t count, ElementType dt, int dest, int tag) const;
  void recv_raw(void* data, std::size_t count, ElementType dt, int source, int tag) const;
  void sendrecv_raw(const void* send, std::size_t send_count, int dest, void* recv, std::size_t recv_count, int source,
                    ElementType dt, int tag) const;

  std::shared_ptr<Impl> impl_;
};

/// @brief Whether `error` came out of a collective agreement (every rank of the communicator has it).
/// Not collective.
[[nodiscard]] bool is_agreed_error(const std::exception& error) noexcept;

/**
 * @brief Run `fn` on every rank of `comm` and agree on failure (Comm::run_collectively). Collective.
 * @throws the agreed error on every rank when any rank's fn threw.
 */
template <class F>
void collective(const Comm& comm, F&& fn) {
  comm.run_collectively(std::forward<F>(fn));
}

}  // namespace slab
