// The typed collectives of slab::Comm: argument checks agreed on every rank, pieces of at most
// max_message_bytes() per MPI call, a fixed binomial reduction tree, pairwise exchange for large v-collectives,
// and the device path (NCCL, or staging through host memory).
#include <algorithm>
#include <climits>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include "comm/comm_impl.hpp"
#include "comm/cuda/nccl_collectives.hpp"
#include "slab/comm/mpi_error.hpp"
#include "slab/core/fault.hpp"

namespace slab {

namespace {

constexpr std::size_t kIntMax = static_cast<std::size_t>(INT_MAX);

std::string root_error(int root, int size) {
  if (root >= 0 && root < size) return {};
  return "root " + std::to_string(root) + " is out of range for " + std::to_string(size) + " ranks";
}

/// A host copy of a device buffer for the staging path (or the buffer itself when it is on the host): a block of
/// the execution context's staging pool (page-locked on a GPU), copied with slab::copy on its stream.
class HostMirror {
 public:
  HostMirror(const Comm::Impl& impl, const void* p, std::size_t bytes, bool copy_in)
      : impl_(impl), device_(const_cast<void*>(p)), bytes_(bytes), is_device_(impl.on_device(p)) {
    if (!is_device_) return;
    host_ = impl.execution->staging_block(bytes);
    if (copy_in) slab::copy(host_.data(), p, bytes, *impl.execution);
  }
  [[nodiscard]] char* get() { return is_device_ ? reinterpret_cast<char*>(host_.data()) : static_cast<char*>(device_); }
  void copy_out() {
    if (is_device_) slab::copy(device_, host_.data(), bytes_, *impl_.execution);
  }

 private:
  const Comm::Impl& impl_;
  void* device_;
  std::size_t bytes_;
  bool is_device_;
  StagingBlock host_;
};

/**
 * The memory kinds of one rank's buffers that carry bytes (a buffer without bytes, often null, has none), as
 * check_args' maxes: agreed over the ranks they choose the one path every rank takes. NCCL where it is on and every
 * such buffer of every rank is device memory; otherwise MPI, each device buffer staged through the host
 * (HostMirror). A rank that mixes kinds, or differs from the others, so stages instead of leaving NCCL alone (which
 * would hang the others in it).
 */
struct BufferKinds {
  BufferKinds(const Comm::Impl& im, std::initializer_list<std::pair<const void*, std::size_t>> buffers) {
    for (const auto& [p, bytes] : buffers)
      if (bytes) (im.on_device(p) ? device : host) = 1;
  }
  std::int64_t device = 0, host = 0;
};
/// Whether the agreed kinds (maxes [at], [at + 1] of check_args, as BufferKinds gave them) take NCCL.
bool agreed_on_nccl(const Comm::Impl& im, const std::vector<std::int64_t>& agreed, std::size_t at) {
  return im.use_nccl() && agreed[at] != 0 && agreed[at + 1] == 0;
}

template <class T>
void combine_typed(T* acc, const T* other, std::size_t n, ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      for (std::size_t i = 0; i < n; ++i) acc[i] = static_cast<T>(acc[i] + other[i]);
      break;
    case ReduceOp::prod:
      for (std::size_t i = 0; i < n; ++i) acc[i] = static_cast<T>(acc[i] * other[i]);
      break;
    case ReduceOp::min:
      for (std::size_t i = 0; i < n; ++i) acc[i] = std::min(acc[i], other[i]);
      break;
    case ReduceOp::max:
      for (std::size_t i = 0; i < n; ++i) acc[i] = std::max(acc[i], other[i]);
      break;
    case ReduceOp::land:
      for (std::size_t i = 0; i < n; ++i) acc[i] = static_cast<T>(acc[i] != 0 && other[i] != 0);
      break;
    case ReduceOp::lor:
      for (std::size_t i = 0; i < n; ++i) acc[i] = static_cast<T>(acc[i] != 0 || other[i] != 0);
      break;
  }
}

void combine(char* acc, const char* other, std::size_t n, ElementType dt, ReduceOp op) {
  switch (dt) {
    case ElementType::int8:
      combine_typed(reinterpret_cast<signed char*>(acc), reinterpret_cast<const signed char*>(other), n, op);
      break;
    case ElementType::uint8:
    case ElementType::boolean:
    case ElementType::bytes:
      combine_typed(reinterpret_cast<unsigned char*>(acc), reinterpret_cast<const unsigned char*>(other), n, op);
      break;
    case ElementType::int32:
    case ElementType::string:
      combine_typed(reinterpret_cast<int*>(acc), reinterpret_cast<const int*>(other), n, op);
      break;
    case ElementType::uint32:
      combine_typed(reinterpret_cast<unsigned*>(acc), reinterpret_cast<const unsigned*>(other), n, op);
      break;
    case ElementType::int64:
    case ElementType::timestamp:
      combine_typed(reinterpret_cast<std::int64_t*>(acc), reinterpret_cast<const std::int64_t*>(other), n, op);
      break;
    case ElementType::uint64:
      combine_typed(reinterpret_cast<std::uint64_t*>(acc), reinterpret_cast<const std::uint64_t*>(other), n, op);
      break;
    case ElementType::float32:
      combine_typed(reinterpret_cast<float*>(acc), reinterpret_cast<const float*>(other), n, op);
      break;
    case ElementType::float64:
      combine_typed(reinterpret_cast<double*>(acc), reinterpret_cast<const double*>(other), n, op);
      break;
  }
}

/// Logical results are 0/1 at every rank count (a single rank's input is not otherwise touched).
void normalize_logical(char* data, std::size_t n, ElementType dt, ReduceOp op) {
  if (op != ReduceOp::land && op != ReduceOp::lor) return;
  std::vector<char> one(n * element_size(dt), 0);  // x lor 0 == (x != 0) for every integer type
  combine(data, one.data(), n, dt, ReduceOp::lor);
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return MPI_SUM;
    case ReduceOp::prod:
      return MPI_PROD;
    case ReduceOp::min:
      return MPI_MIN;
    case ReduceOp::max:
      return MPI_MAX;
    case ReduceOp::land:
      return MPI_LAND;
    case ReduceOp::lor:
      return MPI_LOR;
  }
  return MPI_SUM;
}

std::string op_error(ElementType dt, ReduceOp op) {
  if ((op == ReduceOp::land || op == ReduceOp::lor) && (dt == ElementType::float32 || dt == ElementType::float64))
    return "logical and/or are defined for integer types only";
  return {};
}

/// The binomial tree on ranks 0..P-1: at distance d = 1, 2, 4, ... rank r with r % 2d == d sends its partial
/// to r - d; rank r with r % 2d == 0 receives from r + d and combines (acc = acc op other). acc always covers
/// a contiguous range of ranks in order, and the shape depends only on P. The result lands on rank 0, then
/// moves to root. `exchange(peer, sending)` moves acc; `merge()` combines the received partial.
template <class Exchange, class Merge>
void binomial_tree(int rank, int size, int root, Exchange&& exchange, Merge&& merge) {
  for (int d = 1; d < size; d *= 2) {
    if (rank % (2 * d) == d) {
      exchange(rank - d, true);
      break;
    }
    if (rank % (2 * d) == 0 && rank + d < size) {
      exchange(rank + d, false);
      merge();
    }
  }
  if (root != 0) {
    if (rank == 0) exchange(root, true);
    if (rank == root) exchange(0, false), merge();  // merge() here only moves the received value in
  }
}

}  // namespace

namespace detail {
void combine_elements(char* acc, const char* other, std::size_t n, ElementType dt, ReduceOp op) {
  combine(acc, other, n, dt, op);
}
void normalize_logical_elements(char* data, std::size_t n, ElementType dt, ReduceOp op) {
  normalize_logical(data, n, dt, op);
}
std::string reduce_op_error(ElementType dt, ReduceOp op) { return op_error(dt, op); }
}  // namespace detail

void Comm::bcast_raw(void* data, std::size_t count, ElementType dt, int root) const {
  const Impl& im = *impl_;
  const std::size_t bytes = count * element_size(dt);
  detail::CommTrace trace(im.tracer, "bcast", bytes);
  const BufferKinds kinds(im, {{data, bytes}});
  const auto agreed =
      detail::check_args(im, "bcast", {{"element count", static_cast<std::int64_t>(count)}, {"root", root, false}},
                         root_error(root, im.size), {kinds.device, kinds.host});
  const detail::DataPhase transfer;
  if (agreed_on_nccl(im, agreed, 0)) return detail::nccl_bcast(data, count, dt, root, im.nccl, im.stream());
  HostMirror buf(im, data, bytes, im.rank == root);
  const std::size_t m = detail::max_message_bytes();
  for (std::size_t off = 0; off < bytes; off += m)
    SLAB_MPI_TRY(MPI_Bcast(buf.get() + off, static_cast<int>(std::min(m, bytes - off)), MPI_BYTE, root, im.coll));
  buf.copy_out();
}

void Comm::reduce_raw(const void* in, std::size_t count, void* out, std::size_t out_count, ElementType dt, ReduceOp op,
                      int root) const {
  const Impl& im = *impl_;
  const std::size_t es = element_size(dt);
  detail::CommTrace trace(im.tracer, "reduce", count * es);
  std::string err = root_error(root, im.size);
  if (err.empty() && im.rank == root && out_count != count)
    err = "output has " + std::to_string(out_count) + " elements, input " + std::to_string(count);
  if (err.empty()) err = op_error(dt, op);
  // The root's output counts too: device partials reduced into a host result on the root stage on every rank.
  const BufferKinds kinds(im, {{in, count * es}, {out, im.rank == root ? count * es : 0}});
  const auto agreed = detail::check_args(im, "reduce",
                                         {{"element count", static_cast<std::int64_t>(count)},
                                          {"root", root, false},
                                          {"operator", static_cast<int>(op), false}},
                                         err, {kinds.device, kinds.host});
  const detail::DataPhase transfer;
  if (agreed_on_nccl(im, agreed, 0) && op != ReduceOp::land && op != ReduceOp::lor)
    return detail::nccl_reduce(in, out, count, dt, op, root, im.nccl, im.stream());
  HostMirror hin(im, in, count * es, true);
  HostMirror hout(im, im.rank == root ? out : nullptr, im.rank == root ? count * es : 0, false);
  const std::size_t chunk = std::max<std::size_t>(1, detail::max_message_bytes() / es);
  std::vector<char> acc;
  std::vector<char> other;
  for (std::size_t off = 0; off < count; off += chunk) {
    const std::size_t n = std::min(chunk, count - off);
    acc.assign(hin.get() + off * es, hin.get() + (off + n) * es);
    other.resize(n * es);
    bool moved = false;  // the forward to root replaces acc instead of combining
    binomial_tree(
        im.rank, im.size, root,
        [&](int peer, bool sending) {
          if (sending) {
            detail::send_bytes(acc.data(), acc.size(), peer, detail::tag_tree, im.coll);
          } else {
            detail::recv_bytes(other.data(), other.size(), peer, detail::tag_tree, im.coll);
            moved = (peer == 0 && im.rank == root && root != 0);
          }
        },
        [&] {
          if (moved)
            acc.swap(other);
          else
            combine(acc.data(), other.data(), n, dt, op);
        });
    if (im.rank == root) {
      normalize_logical(acc.data(), n, dt, op);
      std::memcpy(hout.get() + off * es, acc.data(), n * es);
    }
  }
  if (im.rank == root) hout.copy_out();
}

void Comm::allreduce_raw(const void* in, std::size_t count, void* out, std::size_t out_count, ElementType dt,
                         ReduceOp op) const {
  SLAB_FAULT_POINT("allreduce");
  const Impl& im = *impl_;
  const std::size_t es = element_size(dt);
  detail::CommTrace trace(im.tracer, "allreduce", count * es);
  std::string err;
  if (out_count != count) err = "output has " + std::to_string(out_count) + " elements, input " + std::to_string(count);
  if (err.empty()) err = op_error(dt, op);
  const BufferKinds kinds(im, {{in, count * es}, {out, count * es}});
  const auto agreed = detail::check_args(
      im, "allreduce", {{"element count", static_cast<std::int64_t>(count)}, {"operator", static_cast<int>(op), false}},
      err, {kinds.device, kinds.host});
  const detail::DataPhase transfer;
  if (agreed_on_nccl(im, agreed, 0) && op != ReduceOp::land && op != ReduceOp::lor)
    return detail::nccl_allreduce(in, out, count, dt, op, im.nccl, im.stream());
  const bool in_place = in == out;
  HostMirror hin(im, in, in_place ? 0 : count * es, true);
  HostMirror hout(im, out, count * es, in_place);
  const std::size_t chunk = std::max<std::size_t>(1, detail::max_message_bytes() / es);
  const MPI_Datatype type = detail::mpi_datatype(dt, true);
  for (std::size_t off = 0; off < count; off += chunk) {
    const int n = static_cast<int>(std::min(chunk, count - off));
    const void* src = in_place ? MPI_IN_PLACE : static_cast<const void*>(hin.get() + off * es);
    SLAB_MPI_TRY(MPI_Allreduce(src, hout.get() + off * es, n, type, mpi_op(op), im.coll));
  }
  normalize_logical(hout.get(), count, dt, op);
  hout.copy_out();
}

void Comm::tree_reduce_bytes(
    std::vector<std::byte>& value,
    const std::function<void(std::vector<std::byte>& acc, const std::vector<std::byte>& other)>& combine_fn,
    int root) const {
  const Impl& im = *impl_;
  detail::CommTrace trace(im.tracer, "tree_reduce", value.size());
  detail::check_args(im, "tree_reduce_bytes", {{"root", root, false}}, root_error(root, im.size));
  // A combine that throws must not strand the ranks above it in the tree: a failed subtree sends this
  // marker instead of its value, the tree runs to the end, and then every rank agrees on the error.
  constexpr std::uint64_t failed_marker = ~std::uint64_t{0};
  std::exception_ptr error;
  bool failed = false;  // this rank's partial is lost (its own combine threw, or a child's subtree failed)
  std::vector<std::byte> other;
  bool moved = false;
  bool other_failed = false;
  {
    const detail::DataPhase transfer;
    binomial_tree(
        im.rank, im.size, root,
        [&](int peer, bool sending) {
          if (sending) {
            const std::uint64_t n = failed ? failed_marker : value.size();
            detail::send_bytes(&n, sizeof n, peer, detail::tag_tree, im.coll);
            if (!failed) detail::send_bytes(value.data(), value.size(), peer, detail::tag_tree, im.coll);
          } else {
            std::uint64_t n = 0;
            detail::recv_bytes(&n, sizeof n, peer, detail::tag_tree, im.coll);
            other_failed = n == failed_marker;
            other.resize(other_failed ? 0 : n);
            if (!other_failed) detail::recv_bytes(other.data(), n, peer, detail::tag_tree, im.coll);
            moved = (peer == 0 && im.rank == root && root != 0);
          }
        },
        [&] {
          if (other_failed) failed = true;
          if (failed) return;
          if (moved) {
            value.swap(other);
            return;
          }
          try {
            combine_fn(value, other);
          } catch (...) {
            error = std::current_exception();
            failed = true;
          }
        });
  }
  detail::agree_error(im, error);  // only the rank whose combine threw reports; the others learn it here
}

void Comm::tree_allreduce_bytes(
    std::vector<std::byte>& value,
    const std::function<void(std::vector<std::byte>& acc, const std::vector<std::byte>& other)>& combine_fn) const {
  SLAB_FAULT_POINT("allreduce");
  tree_reduce_bytes(value, combine_fn, 0);
  const Impl& im = *impl_;
  detail::CommTrace trace(im.tracer, "bcast", value.size());
  std::uint64_t n = value.size();
  SLAB_MPI_TRY(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, im.coll));
  value.resize(n);
  const std::size_t m = detail::max_message_bytes();
  for (std::size_t off = 0; off < n; off += m)
    SLAB_MPI_TRY(
        MPI_Bcast(value.data() + off, static_cast<int>(std::min<std::size_t>(m, n - off)), MPI_BYTE, 0, im.coll));
}

void Comm::allgather_raw(const void* in, std::size_t count, void* out, std::size_t out_count, ElementType dt) const {
  const Impl& im = *impl_;
  const std::size_t es = element_size(dt);
  const auto p = static_cast<std::size_t>(im.size);
  detail::CommTrace trace(im.tracer, "allgather", (count + out_count) * es);
  std::string err;
  if (out_count != p * count)
    err = "output has " + std::to_string(out_count) + " elements, expected " + std::to_string(p * count);
  const BufferKinds kinds(im, {{in, count * es}, {out, out_count * es}});
  const auto agreed = detail::check_args(im, "allgather", {{"element count", static_cast<std::int64_t>(count)}}, err,
                                         {kinds.device, kinds.host});
  const detail::DataPhase transfer;
  if (agreed_on_nccl(im, agreed, 0)) return detail::nccl_allgather(in, out, count, dt, im.nccl, im.stream());
  HostMirror hin(im, in, count * es, true);
  HostMirror hout(im, out, out_count * es, false);
  if (count * es <= detail::max_message_bytes() && out_count <= kIntMax) {
    const MPI_Datatype type = detail::mpi_datatype(dt);
    SLAB_MPI_TRY(
        MPI_Allgather(hin.get(), static_cast<int>(count), type, hout.get(), static_cast<int>(count), type, im.coll));
  } else {
    std::vector<std::size_t> sb(p, count * es), sd(p, 0), rb(p, count * es), rd(p);
    for (std::size_t k = 0; k < p; ++k) rd[k] = k * count * es;
    detail::pairwise_exchange(hin.get(), sb.data(), sd.data(), hout.get(), rb.data(), rd.data(), im.rank, im.size,
                              im.coll);
  }
  hout.copy_out();
}

VCounts Comm::exchange_counts_all(std::size_t count) const {
  const Impl& im = *impl_;
  detail::check_args(im, "allgatherv", {}, {});
  const detail::DataPhase transfer;
  VCounts v;
  std::vector<std::uint64_t> all(static_cast<std::size_t>(im.size));
  const std::uint64_t mine = count;
  SLAB_MPI_TRY(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, im.coll));
  v.counts.assign(all.begin(), all.end());
  v.displs.resize(v.counts.size());
  std::size_t off = 0;
  for (std::size_t k = 0; k < v.counts.size(); ++k) {
    v.displs[k] = off;
    off += v.counts[k];
  }
  return v;
}

namespace {
/// Element counts and displacements as int for the MPI-3 v-collectives; false when any does not fit or a
/// message exceeds the piece size (every rank computes the same answer from the same counts).
bool int_layout(const std::vector<std::size_t>& counts, std::size_t unit_bytes, std::vector<int>& ic,
                std::vector<int>& id) {
  ic.resize(counts.size());
  id.resize(counts.size());
  std::size_t off = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] * unit_bytes > detail::max_message_bytes() || off > kIntMax || counts[k] > kIntMax) return false;
    ic[k] = static_cast<int>(counts[k]);
    id[k] = static_cast<int>(off);
    off += counts[k];
  }
  return off <= kIntMax;
}
}  // namespace

void Comm::allgatherv_raw(const void* in, void* out, const std::vector<std::size_t>& counts, std::size_t scale,
                          ElementType dt) const {
  const Impl& im = *impl_;
  const std::size_t unit = scale * element_size(dt);  // bytes per caller element
  const auto me = static_cast<std::size_t>(im.rank);
  std::size_t total = 0;
  for (auto c : counts) total += c;
  detail::CommTrace trace(im.tracer, "allgatherv", (counts[me] + total) * unit);
  detail::check_args(im, "allgatherv", {}, {});  // a rank that failed since the counts were exchanged
  const detail::DataPhase transfer;
  std::vector<std::size_t> scaled(counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k) scaled[k] = counts[k] * scale;
  HostMirror hin(im, in, counts[me] * unit, true);
  std::vector<int> ic, id;
  if (int_layout(scaled, element_size(dt), ic, id)) {
    const MPI_Datatype type = detail::mpi_datatype(dt);
    SLAB_MPI_TRY(MPI_Allgatherv(hin.get(), ic[me], type, out, ic.data(), id.data(), type, im.coll));
    return;
  }
  const auto p = counts.size();
  std::vector<std::size_t> sb(p, counts[me] * unit), sd(p, 0), rb(p), rd(p);
  std::size_t off = 0;
  for (std::size_t k = 0; k < p; ++k) {
    rb[k] = counts[k] * unit;
    rd[k] = off;
    off += rb[k];
  }
  detail::pairwise_exchange(hin.get(), sb.data(), sd.data(), static_cast<char*>(out), rb.data(), rd.data(), im.rank,
                            im.size, im.coll);
}

void Comm::gatherv_raw(const void* in, void* out, const std::vector<std::size_t>& counts, std::size_t scale,
                       ElementType dt, int root) const {
  const Impl& im = *impl_;
  const std::size_t unit = scale * element_size(dt);
  const auto me = static_cast<std::size_t>(im.rank);
  detail::CommTrace trace(im.tracer, "gatherv", counts[me] * unit);
  detail::check_args(im, "gatherv", {{"root", root, false}}, root_error(root, im.size));
  const detail::DataPhase transfer;
  HostMirror hin(im, in, counts[me] * unit, true);
  std::vector<std::size_t> scaled(counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k) scaled[k] = counts[k] * scale;
  std::vector<int> ic, id;
  if (int_layout(scaled, element_size(dt), ic, id)) {
    const MPI_Datatype type = detail::mpi_datatype(dt);
    SLAB_MPI_TRY(MPI_Gatherv(hin.get(), ic[me], type, out, ic.data(), id.data(), type, root, im.coll));
    return;
  }
  if (im.rank != root) return detail::send_bytes(hin.get(), counts[me] * unit, root, detail::tag_exchange, im.coll);
  std::size_t off = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    auto* dst = static_cast<char*>(out) + off;
    if (k == me) {
      if (counts[k] > 0) std::memcpy(dst, hin.get(), counts[k] * unit);  // no memcpy from a null empty buffer
    } else {
      detail::recv_bytes(dst, counts[k] * unit, static_cast<int>(k), detail::tag_exchange, im.coll);
    }
    off += counts[k] * unit;
  }
}

void Comm::alltoall_raw(const void* send, std::size_t count, void* recv, std::size_t recv_count, ElementType dt) const {
  const Impl& im = *impl_;
  const std::size_t es = element_size(dt);
  const auto p = static_cast<std::size_t>(im.size);
  detail::CommTrace trace(im.tracer, "alltoall", (count + recv_count) * es);
  std::string err;
  if (count % p != 0)
    err = "send has " + std::to_string(count) + " elements, not a multiple of " + std::to_string(p) + " ranks";
  else if (recv_count != count)
    err = "recv has " + std::to_string(recv_count) + " elements, send " + std::to_string(count);
  const std::size_t c = count / p;
  const BufferKinds kinds(im, {{send, count * es}, {recv, recv_count * es}});
  const auto agreed = detail::check_args(im, "alltoall", {{"elements per rank", static_cast<std::int64_t>(c)}}, err,
                                         {kinds.device, kinds.host});
  const detail::DataPhase transfer;
  if (agreed_on_nccl(im, agreed, 0)) {
    std::vector<std::size_t> counts(p, c), displs(p);
    for (std::size_t k = 0; k < p; ++k) displs[k] = k * c;
    return detail::nccl_alltoallv(send, counts.data(), displs.data(), recv, counts.data(), displs.data(), im.size, dt,
                                  im.nccl, im.stream());
  }
  HostMirror hs(im, send, count * es, true);
  HostMirror hr(im, recv, count * es, false);
  if (c * es <= detail::max_message_bytes()) {
    const MPI_Datatype type = detail::mpi_datatype(dt);
    SLAB_MPI_TRY(MPI_Alltoall(hs.get(), static_cast<int>(c), type, hr.get(), static_cast<int>(c), type, im.coll));
  } else {
    std::vector<std::size_t> b(p, c * es), d(p);
    for (std::size_t k = 0; k < p; ++k) d[k] = k * c * es;
    detail::pairwise_exchange(hs.get(), b.data(), d.data(), hr.get(), b.data(), d.data(), im.rank, im.size, im.coll);
  }
  hr.copy_out();
}

namespace {
std::string vcount_error(std::size_t size, std::span<const std::size_t> counts, int nranks, const char* what) {
  if (counts.size() != static_cast<std::size_t>(nranks))
    return std::string(what) + " counts has " + std::to_string(counts.size()) + " entries for " +
           std::to_string(nranks) + " ranks";
  std::size_t total = 0;
  for (auto c : counts) total += c;
  if (total != size)
    return std::string(what) + " counts sum to " + std::to_string(total) + " but the buffer has " +
           std::to_string(size) + " elements";
  return {};
}
}  // namespace

std::vector<std::size_t> Comm::exchange_counts_alltoall(std::size_t send_size,
                                                        std::span<const std::size_t> send_counts) const {
  const Impl& im = *impl_;
  detail::check_args(im, "alltoallv", {}, vcount_error(send_size, send_counts, im.size, "send"));
  const detail::DataPhase transfer;
  std::vector<std::uint64_t> s(send_counts.begin(), send_counts.end()), r(s.size());
  SLAB_MPI_TRY(MPI_Alltoall(s.data(), 1, MPI_UINT64_T, r.data(), 1, MPI_UINT64_T, im.coll));
  return {r.begin(), r.end()};
}

void Comm::check_vcounts(std::size_t send_size, std::span<const std::size_t> send_counts, std::size_t recv_size,
                         std::span<const std::size_t> recv_counts) const {
  std::string err = vcount_error(send_size, send_counts, impl_->size, "send");
  if (err.empty()) err = vcount_error(recv_size, recv_counts, impl_->size, "recv");
  detail::check_args(*impl_, "alltoallv", {}, err);
}

void Comm::alltoallv_raw(const void* send, std::span<const std::size_t> send_counts, void* recv,
                         std::span<const std::size_t> recv_counts, std::size_t scale, ElementType dt) const {
  SLAB_FAULT_POINT("alltoallv");
  const Impl& im = *impl_;
  const std::size_t unit = scale * element_size(dt);
  const auto p = static_cast<std::size_t>(im.size);
  std::size_t stotal = 0, rtotal = 0;
  for (std::size_t k = 0; k < p; ++k) {
    stotal += send_counts[k];
    rtotal += recv_counts[k];
  }
  detail::CommTrace trace(im.tracer, "alltoallv", (stotal + rtotal) * unit);
  std::vector<std::size_t> sc(p), rc(p);
  for (std::size_t k = 0; k < p; ++k) {
    sc[k] = send_counts[k] * scale;
    rc[k] = recv_counts[k] * scale;
  }
  std::vector<int> isc, isd, irc, ird;
  const bool fits = int_layout(sc, element_size(dt), isc, isd) && int_layout(rc, element_size(dt), irc, ird);
  // Every rank must take the same path: agree on it (and on the memory kinds) in the status exchange. A rank with
  // nothing to send or receive often has no buffer at all (BufferKinds).
  const BufferKinds kinds(im, {{send, stotal * unit}, {recv, rtotal * unit}});
  const std::vector<std::int64_t> agreed =
      detail::check_args(im, "alltoallv", {}, {}, {fits ? 0 : 1, kinds.device, kinds.host});
  const bool pairwise = agreed[0] != 0;
  const detail::DataPhase transfer;
  if (agreed_on_nccl(im, agreed, 1)) {
    std::vector<std::size_t> sd(p), rd(p);
    for (std::size_t k = 0, so = 0, ro = 0; k < p; ++k) {
      sd[k] = so;
      rd[k] = ro;
      so += sc[k];
      ro += rc[k];
    }
    return detail::nccl_alltoallv(send, sc.data(), sd.data(), recv, rc.data(), rd.data(), im.size, dt, im.nccl,
                                  im.stream());
  }
  HostMirror hs(im, send, stotal * unit, true);
  HostMirror hr(im, recv, rtotal * unit, false);
  if (!pairwise) {
    const MPI_Datatype type = detail::mpi_datatype(dt);
    SLAB_MPI_TRY(
        MPI_Alltoallv(hs.get(), isc.data(), isd.data(), type, hr.get(), irc.data(), ird.data(), type, im.coll));
  } else {
    std::vector<std::size_t> sb(p), sd(p), rb(p), rd(p);
    for (std::size_t k = 0, so = 0, ro = 0; k < p; ++k) {
      sb[k] = send_counts[k] * unit;
      rb[k] = recv_counts[k] * unit;
      sd[k] = so;
      rd[k] = ro;
      so += sb[k];
      ro += rb[k];
    }
    detail::pairwise_exchange(hs.get(), sb.data(), sd.data(), hr.get(), rb.data(), rd.data(), im.rank, im.size,
                              im.coll);
  }
  hr.copy_out();
}

void Comm::send_raw(const void* data, std::size_t count, ElementType dt, int dest, int tag) const {
  const Impl& im = *impl_;
  const std::size_t bytes = count * element_size(dt);
  detail::CommTrace trace(im.tracer, "send", bytes);
  if (im.on_device(data) && im.use_nccl())
    return detail::nccl_sendrecv(data, count, dest, nullptr, 0, -1, dt, im.nccl, im.stream());
  HostMirror h(im, data, bytes, true);
  detail::send_bytes(h.get(), bytes, dest, tag, im.user);
}

void Comm::recv_raw(void* data, std::size_t count, ElementType dt, int source, int tag) const {
  const Impl& im = *impl_;
  const std::size_t bytes = count * element_size(dt);
  detail::CommTrace trace(im.tracer, "recv", bytes);
  if (im.on_device(data) && im.use_nccl())
    return detail::nccl_sendrecv(nullptr, 0, -1, data, count, source, dt, im.nccl, im.stream());
  HostMirror h(im, data, bytes, false);
  detail::recv_bytes(h.get(), bytes, source, tag, im.user);
  h.copy_out();
}

void Comm::sendrecv_raw(const void* send, std::size_t send_count, int dest, void* recv, std::size_t recv_count,
                        int source, ElementType dt, int tag) const {
  const Impl& im = *impl_;
  const std::size_t es = element_size(dt);
  detail::CommTrace trace(im.tracer, "sendrecv", (send_count + recv_count) * es);
  if (im.use_nccl() && im.on_device(send) && im.on_device(recv))
    return detail::nccl_sendrecv(send, send_count, dest, recv, recv_count, source, dt, im.nccl, im.stream());
  HostMirror hs(im, send, send_count * es, true);
  HostMirror hr(im, recv, recv_count * es, false);
  std::vector<MPI_Request> reqs;
  detail::post_recv(hr.get(), recv_count * es, source, tag, im.user, reqs);
  detail::post_send(hs.get(), send_count * es, dest, tag, im.user, reqs);
  detail::wait_all(reqs);
  hr.copy_out();
}

}  // namespace slab
