// Comm::reduce_scatter: recursive halving along reduce()'s binomial tree, in place, in pieces of bounded size,
// so that every element is combined in the same order as reduce() combines it (bitwise the same result) while
// every rank sends and receives only the blocks the other half of its range will hold.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm_impl.hpp"
#include "comm/cuda/nccl_collectives.hpp"
#include "slab/comm/mpi_error.hpp"

namespace slab {

namespace {

/// The largest piece one message carries (less when detail::max_message_bytes() is smaller).
constexpr std::size_t kPieceBytes = std::size_t{4} << 20;

/**
 * Which rank holds the partial of block `b` over the rank range [g, g + s) intersected with [0, p), once that
 * range has been combined (s a power of two, g a multiple of s). A range is the union of its lower half L and
 * upper half H; blocks with bit s/2 set go to H's holder, the others to L's, and everything stays in L when H
 * is empty. By induction a block of the range is held by its own rank, so at the top range [0, p) block b is
 * on rank b: the reduce-scatter's result.
 */
int holder(int p, int s, int g, int b) {
  while (s > 1) {
    const int h = s / 2;
    if (g + h < p && (b & h) != 0) g += h;
    s = h;
  }
  return g;
}

}  // namespace

std::size_t Comm::reduce_scatter_raw(void* data, std::size_t count, std::span<const std::size_t> counts, ElementType dt,
                                     ReduceOp op) const {
  const Impl& im = *impl_;
  const std::size_t es = element_size(dt);
  const auto p = static_cast<std::size_t>(im.size);
  detail::CommTrace trace(im.tracer, "reduce_scatter", count * es);
  std::string err;
  std::uint64_t digest = 14695981039346656037ull;  // FNV-1a of the counts: they must agree across ranks
  std::size_t total = 0;
  for (const std::size_t c : counts) {
    total += c;
    digest = (digest ^ static_cast<std::uint64_t>(c)) * 1099511628211ull;
  }
  if (counts.size() != p)
    err = "counts has " + std::to_string(counts.size()) + " entries for " + std::to_string(p) + " ranks";
  else if (total != count)
    err = "counts sum to " + std::to_string(total) + " but the buffer has " + std::to_string(count) + " elements";
  if (err.empty()) err = detail::reduce_op_error(dt, op);
  const bool dev = im.on_device(data);
  detail::check_args(im, "reduce_scatter",
                     {{"element count", static_cast<std::int64_t>(count)},
                      {"block counts", static_cast<std::int64_t>(digest >> 1)},
                      {"operator", static_cast<int>(op), false},
                      {"memory kind (device/host)", dev, false}},
                     err);
  std::vector<std::size_t> displs(p + 1, 0);
  std::size_t largest = 0;
  for (std::size_t k = 0; k < p; ++k) {
    displs[k + 1] = displs[k] + counts[k];
    largest = std::max(largest, counts[k]);
  }
  const auto me = static_cast<std::size_t>(im.rank);
  const detail::DataPhase transfer;
  // With NCCL, device buffers take NCCL's grouped reduces (its order, as reduce() does there); otherwise they are
  // staged through host memory whole and take the tree below.
  if (dev && im.use_nccl() && op != ReduceOp::land && op != ReduceOp::lor) {
    detail::nccl_reduce_scatterv(data, counts.data(), displs.data(), im.size, dt, op, im.nccl, im.stream());
    return displs[me];
  }
  StagingBlock staged;  // the device buffer's host copy: page-locked, from the context's staging pool
  char* buf = static_cast<char*>(data);
  if (dev) {
    staged = im.execution->staging_block(count * es);
    slab::copy(staged.data(), data, count * es, *im.execution);
    buf = reinterpret_cast<char*>(staged.data());
  }
  const std::size_t piece = std::max<std::size_t>(1, std::min(detail::max_message_bytes(), kPieceBytes) / es);
  std::vector<char> landing[2];  // two receive pieces: one arriving while the other is combined
  const int size = im.size;
  for (int h = 1; h < size; h *= 2) {
    const int g = im.rank & ~(2 * h - 1);  // this rank's range of 2h ranks: [g, g + h) and [g + h, g + 2h)
    if (g + h >= size) continue;           // no upper half: the lower one's partials stand as they are
    const bool low = im.rank < g + h;
    std::vector<MPI_Request> sends;
    struct Piece {
      std::size_t offset;  ///< element offset in buf
      std::size_t n;
      int source;
    };
    std::vector<Piece> recvs;
    for (int b = 0; b < size; ++b) {
      const auto bb = static_cast<std::size_t>(b);
      if (counts[bb] == 0) continue;
      const int lower = holder(size, h, g, b);
      const int upper = holder(size, h, g + h, b);
      if ((low ? lower : upper) != im.rank) continue;
      const bool to_upper = (b & h) != 0;
      const int peer = low ? upper : lower;
      for (std::size_t off = 0; off < counts[bb]; off += piece) {
        const std::size_t n = std::min(piece, counts[bb] - off);
        if (low == to_upper) {  // the other half keeps this block: send our partial
          sends.emplace_back();
          SLAB_MPI_TRY(MPI_Isend(buf + (displs[bb] + off) * es, static_cast<int>(n * es), MPI_BYTE, peer,
                                 detail::tag_reduce_scatter, im.coll, &sends.back()));
        } else {
          recvs.push_back({displs[bb] + off, n, peer});
        }
      }
    }
    MPI_Request pending[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    auto post = [&](std::size_t i) {
      std::vector<char>& land = landing[i % 2];
      if (land.size() < std::min(piece, largest) * es) land.resize(std::min(piece, largest) * es);
      SLAB_MPI_TRY(MPI_Irecv(land.data(), static_cast<int>(recvs[i].n * es), MPI_BYTE, recvs[i].source,
                             detail::tag_reduce_scatter, im.coll, &pending[i % 2]));
    };
    if (!recvs.empty()) post(0);
    for (std::size_t i = 0; i < recvs.size(); ++i) {
      SLAB_MPI_TRY(MPI_Wait(&pending[i % 2], MPI_STATUS_IGNORE));
      if (i + 1 < recvs.size()) post(i + 1);
      // Operand order does not matter (every ReduceOp is commutative); the grouping is the tree's.
      detail::combine_elements(buf + recvs[i].offset * es, landing[i % 2].data(), recvs[i].n, dt, op);
    }
    detail::wait_all(sends);
  }
  detail::normalize_logical_elements(buf + displs[me] * es, counts[me], dt, op);
  if (dev && counts[me] > 0)
    slab::copy(static_cast<char*>(data) + displs[me] * es, buf + displs[me] * es, counts[me] * es, *im.execution);
  return displs[me];
}

}  // namespace slab
