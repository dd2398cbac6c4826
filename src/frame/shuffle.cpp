#include "slab/frame/shuffle.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "frame/device_paths.hpp"
#include "frame/hash_bytes.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/key_words_hd.hpp"
#include "frame/kernels/partition.hpp"
#include "frame/partitioner.hpp"
#include "frame/shuffle_device.hpp"
#include "slab/comm/comm.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

std::vector<std::uint64_t> hash_rows(const BatchView& batch, const Schema& schema,
                                     const std::vector<std::size_t>& keys) {
  const auto n = static_cast<std::size_t>(batch.nrows());
  std::vector<std::uint64_t> h(n, kernels::kRowHashSeed);
  if (n == 0) return h;
  std::vector<std::uint64_t> v(n);
  for (auto k : keys) {
    const ElementType t = schema.type(k);
    const std::uint8_t* valid = batch.valid(k);
    constexpr std::uint64_t null_word = kernels::kNullWord;
    // The value word of every row (nulls and NaN get one constant), then one mixing pass.
    if (t == ElementType::string) {
      std::vector<std::uint64_t> dict_hash;
      for (const auto& s : *schema.dictionary(k)) dict_hash.push_back(detail::hash_bytes(s));
      const auto codes = batch.column<std::int32_t>(k);
      for (std::size_t i = 0; i < n; ++i)
        v[i] = codes[i] < 0 ? null_word : dict_hash[static_cast<std::size_t>(codes[i])];
    } else if (t == ElementType::float64) {
      const auto x = batch.column<double>(k);
      for (std::size_t i = 0; i < n; ++i) v[i] = kernels::float_hash_word(x[i]);  // -0.0 == 0.0, NaN null
    } else if (t == ElementType::boolean) {
      const auto x = batch.column<std::uint8_t>(k);
      for (std::size_t i = 0; i < n; ++i) v[i] = x[i];
    } else {
      const auto x = batch.column<std::int64_t>(k);
      for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint64_t>(x[i]);
    }
    if (valid)
      for (std::size_t i = 0; i < n; ++i)
        if (!valid[i]) v[i] = null_word;
    for (std::size_t i = 0; i < n; ++i) h[i] = kernels::row_hash_step(h[i], v[i]);
  }
  return h;
}

std::uint64_t hash_row(const BatchView& batch, const Schema& schema, const std::vector<std::size_t>& keys,
                       std::int64_t row) {
  std::vector<std::int64_t> one{row};
  std::vector<std::byte> tmp;
  take_rows(batch, one, tmp);
  return hash_rows(BatchView(tmp), schema, keys)[0];
}

namespace {

/// A round's send buffer for one destination: nparts u64 batch sizes, then the batches (8-byte multiples;
/// size 0 = no rows). A piece (one output partition's share of a round): u64 nranks, nranks u64 sizes, then
/// the batches received from each source rank in rank order.
std::vector<BatchView> piece_batches(std::span<const std::byte> piece, const ExecutionContext& where) {
  std::vector<BatchView> out;
  if (piece.empty()) return out;
  std::uint64_t p = 0;
  slab::copy(&p, piece.data(), 8, where);
  std::vector<std::uint64_t> sizes(p);
  slab::copy(sizes.data(), piece.data() + 8, 8 * p, where);
  std::size_t at = 8 * (1 + p);
  for (std::uint64_t s = 0; s < p; ++s) {
    out.emplace_back(piece.subspan(at, sizes[s]), where);
    at += sizes[s];
  }
  return out;
}

/// Send and receive buffers shared by one shuffle's rounds (freed with its last round): reusing them keeps
/// the exchange off freshly faulted pages, which otherwise cost as much as the alltoallv itself.
struct RoundBuffers {
  std::vector<std::byte> send, recv;
};

/// Bytes of a round's send buffer with these bucket batch sizes: per destination nparts u64 sizes, then the batches.
std::size_t send_bytes(const std::vector<std::uint64_t>& sizes) {
  std::size_t total = 8 * sizes.size();
  for (auto b : sizes) total += b;
  return total;
}

/// Lay out a round's send buffer (send_bytes(sizes) bytes in the memory `where` copies): per destination, nparts
/// u64 sizes, then the batches, each written by write(bucket, bytes); counts[d] = destination d's bytes.
template <class Write>
void lay_out_send(const std::vector<std::uint64_t>& sizes, int nparts, std::span<std::byte> send,
                  const ExecutionContext& where, std::vector<std::size_t>& counts, Write&& write) {
  const std::size_t p = counts.size();
  std::size_t at = 0;
  for (std::size_t d = 0; d < p; ++d) {
    const std::size_t begin = at;
    const std::size_t b0 = d * static_cast<std::size_t>(nparts);
    slab::copy(send.data() + at, sizes.data() + b0, 8 * static_cast<std::size_t>(nparts), where);
    at += 8 * static_cast<std::size_t>(nparts);
    for (std::size_t b = b0; b < b0 + static_cast<std::size_t>(nparts); ++b) {
      if (sizes[b]) write(b, std::span<std::byte>(send.data() + at, sizes[b]));
      at += sizes[b];
    }
    counts[d] = at - begin;
  }
}

/// The host's packing of a round: rows routed by `route` on the host, grouped by bucket (a stable counting sort),
/// each bucket's rows taken into its batch in the send buffer (per destination: nparts u64 batch sizes, then the
/// batches).
void pack_on_host(TaskContext& ctx, int nparts, const RouteFn& route, std::vector<std::byte>& send,
                  std::vector<std::size_t>& counts) {
  const int p = ctx.comm().size();
  const auto nb = static_cast<std::size_t>(p) * static_cast<std::size_t>(nparts);
  const BatchView in = ctx.num_inputs() ? input_batch(ctx, 0) : BatchView();
  const auto n = static_cast<std::size_t>(in.nrows());
  std::vector<std::uint32_t> bucket;
  if (n) route(in, bucket);
  // Rows grouped by bucket, stable (counting sort).
  std::vector<std::size_t> start(nb + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (bucket[i] == kDropRow) continue;
    SLAB_EXPECTS(bucket[i] < nb, InvalidArgument, "shuffle: route gave bucket " + std::to_string(bucket[i]));
    ++start[bucket[i] + 1];
  }
  for (std::size_t b = 0; b < nb; ++b) start[b + 1] += start[b];
  std::vector<std::int64_t> rows(start[nb]);
  {
    std::vector<std::size_t> at(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (bucket[i] != kDropRow) rows[at[bucket[i]]++] = static_cast<std::int64_t>(i);
  }
  auto rows_of = [&](std::size_t b) {
    return std::span<const std::int64_t>(rows.data() + start[b], start[b + 1] - start[b]);
  };
  std::vector<std::uint64_t> sizes(nb, 0);
  for (std::size_t b = 0; b < nb; ++b)
    if (start[b + 1] > start[b]) sizes[b] = take_rows_bytes(in, rows_of(b));
  send.resize(send_bytes(sizes));
  lay_out_send(sizes, nparts, send, ExecutionContext::host(), counts,
               [&](std::size_t b, std::span<std::byte> out) { take_rows(in, rows_of(b), out); });
}

/// The device path's packing (frame/kernels/partition.hpp, gather.hpp) into `send`, backend memory made here:
/// buckets from the device route, PartitionKernels::group_by_bucket, then each bucket's batch header written
/// where the batch goes and its columns gathered there on the device. The same bytes as pack_on_host.
template <class B>
void pack_on_device(TaskContext& ctx, const kernels::Exec& exec, int nparts, const detail::DeviceRouteFn& route,
                    std::optional<slab::detail::ScratchBytes>& send, std::vector<std::size_t>& counts) {
  const int p = ctx.comm().size();
  const auto nb = static_cast<std::size_t>(p) * static_cast<std::size_t>(nparts);
  const BatchView in = ctx.num_inputs() ? input_batch(ctx, 0) : BatchView();
  const std::int64_t n = in.nrows();
  const ExecutionContext& context = ctx.execution();
  std::vector<std::int64_t> start(nb + 1, 0);
  slab::detail::ScratchBytes bucket(exec, static_cast<std::size_t>(n) * 4), rows(exec, static_cast<std::size_t>(n) * 8),
      offsets(exec, (nb + 1) * 8);
  auto* r = static_cast<std::int64_t*>(rows.get());
  if (n > 0) {
    auto* bk = static_cast<std::uint32_t*>(bucket.get());
    route(ctx, exec, in, bk);
    (void)kernels::PartitionKernels<B>::group_by_bucket(exec, bk, n, static_cast<std::int64_t>(nb), r,
                                                        static_cast<std::int64_t*>(offsets.get()));
    slab::copy(start.data(), offsets.get(), (nb + 1) * 8, context);
  }
  std::vector<ElementType> types;
  std::vector<bool> masks;
  for (std::size_t c = 0; c < in.ncols(); ++c) {
    types.push_back(in.type(c));
    masks.push_back(in.valid(c) != nullptr);
  }
  std::vector<std::uint64_t> sizes(nb, 0);
  for (std::size_t b = 0; b < nb; ++b) {
    const std::int64_t m = start[b + 1] - start[b];
    if (m > 0) sizes[b] = BatchBuilder::size_for(m, types, masks);
  }
  const std::size_t total = send_bytes(sizes);
  send.emplace(exec, total);
  const std::span<std::byte> bytes(static_cast<std::byte*>(send->get()), total);
  lay_out_send(sizes, nparts, bytes, context, counts, [&](std::size_t b, std::span<std::byte> batch) {
    const std::int64_t m = start[b + 1] - start[b];
    BatchBuilder out(batch, m, types, masks, context);
    for (std::size_t c = 0; c < types.size(); ++c)
      kernels::GatherKernels<B>::column(exec, detail::column_view(in, c), r + start[b], m, out.data(c),
                                        masks[c] ? out.valid(c) : nullptr);
  });
  context.synchronize();  // the gathers are queued on the stream; the exchange may read from another
}

/// The received bytes of a round as nparts pieces, output j = the j-th batch of every source's segment. `recv`
/// (in the memory `where` copies) holds each source's segment in rank order, rcounts[s] bytes each. Each piece is
/// unpinned as soon as it is written, so the round's pieces may spill while later ones are made.
void write_pieces(TaskContext& ctx, int nparts, std::span<const std::byte> recv,
                  const std::vector<std::size_t>& rcounts, const ExecutionContext& where) {
  const auto p = rcounts.size();
  const auto parts = static_cast<std::size_t>(nparts);
  std::vector<std::size_t> seg(p, 0);
  for (std::size_t s = 1; s < p; ++s) seg[s] = seg[s - 1] + rcounts[s - 1];
  // Every source's nparts batch sizes, one copy per source (device memory is read in as few copies as may be).
  std::vector<std::uint64_t> sizes(p * parts);
  std::vector<std::size_t> cursor(p);
  for (std::size_t s = 0; s < p; ++s) {
    SLAB_EXPECTS(rcounts[s] >= 8 * parts, Error,
                 "shuffle: rank " + std::to_string(s) + " sent " + std::to_string(rcounts[s]) +
                     " bytes, less than its batch sizes (internal)");
    slab::copy(sizes.data() + s * parts, recv.data() + seg[s], 8 * parts, where);
    cursor[s] = seg[s] + 8 * parts;
  }
  // The piece is a device-tier buffer, whether or not the task is staged: copied with the memory's context.
  const ExecutionContext& memory = ctx.memory().execution();
  for (std::size_t j = 0; j < parts; ++j) {
    std::vector<std::uint64_t> header(1 + p);
    header[0] = static_cast<std::uint64_t>(p);
    std::uint64_t bytes = 8 * header.size();
    for (std::size_t s = 0; s < p; ++s) {
      header[1 + s] = sizes[s * parts + j];
      bytes += header[1 + s];
    }
    BufferPtr piece = ctx.memory().allocate(bytes, "shuffle piece");
    {
      Pin out = piece->pin();
      slab::copy(out.data(), header.data(), 8 * header.size(), memory);
      std::size_t at = 8 * header.size();
      for (std::size_t s = 0; s < p; ++s) {
        if (header[1 + s]) slab::copy(out.data() + at, recv.data() + cursor[s], header[1 + s], memory);
        at += header[1 + s];
        cursor[s] += header[1 + s];
      }
    }
    ctx.set_output(std::move(piece), j);
  }
}

/// One host round: packed on the host into the shared send buffer, exchanged, written as nparts pieces.
void shuffle_round(TaskContext& ctx, int nparts, const RouteFn& route, RoundBuffers& buffers) {
  const Comm& comm = ctx.comm();
  std::vector<std::size_t> counts(static_cast<std::size_t>(comm.size()), 0);
  // A routing error becomes every rank's error, never a hang in the alltoallv.
  comm.run_collectively([&] { pack_on_host(ctx, nparts, route, buffers.send, counts); });
  std::vector<std::size_t> rcounts;
  comm.alltoallv(std::span<const std::byte>(buffers.send), std::span<const std::size_t>(counts), buffers.recv, rcounts);
  // Agreed, so that a failure here (out of memory) is every rank's error.
  comm.run_collectively([&] { write_pieces(ctx, nparts, buffers.recv, rcounts, ExecutionContext::host()); });
}

/// One device round: packed on the device into backend memory and exchanged from there, so that on a GPU the
/// bytes stay in GPU memory (Comm sends device buffers over NCCL, or through host staging where ranks share a
/// GPU), and the pieces copied out of the received bytes where they landed. Send and receive buffers are
/// kernel scratch: counted against the device limit, spilling other buffers to make room.
void shuffle_round_on_device(TaskContext& ctx, int nparts, const detail::DeviceRouteFn& route) {
  const Comm& comm = ctx.comm();
  const auto p = static_cast<std::size_t>(comm.size());
  detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
    using B = typename decltype(tag)::type;
    std::vector<std::size_t> counts(p, 0);
    std::optional<slab::detail::ScratchBytes> send, recv;
    comm.run_collectively([&] { pack_on_device<B>(ctx, exec, nparts, route, send, counts); });
    std::vector<std::uint64_t> mine(counts.begin(), counts.end()), theirs(p);
    comm.alltoall(std::span<const std::uint64_t>(mine), std::span<std::uint64_t>(theirs));
    const std::vector<std::size_t> rcounts(theirs.begin(), theirs.end());
    std::size_t stotal = 0, rtotal = 0;
    for (std::size_t s = 0; s < p; ++s) {
      stotal += counts[s];
      rtotal += rcounts[s];
    }
    comm.run_collectively([&] { recv.emplace(exec, rtotal); });
    const std::span<std::byte> received(static_cast<std::byte*>(recv->get()), rtotal);
    comm.alltoallv(std::span<const std::byte>(static_cast<const std::byte*>(send->get()), stotal),
                   std::span<const std::size_t>(counts), received, std::span<const std::size_t>(rcounts));
    send.reset();
    comm.run_collectively([&] { write_pieces(ctx, nparts, received, rcounts, ctx.execution()); });
  });
}

}  // namespace

namespace {
/// shuffle_routed with `round(ctx, nparts, buffers)` as each round's task body.
template <class Round>
Frame shuffle_with(const Frame& frame, int nparts, Round round, const std::string& name, TaskPlace place) {
  SLAB_EXPECTS(nparts >= 1, InvalidArgument, name + ": nparts must be >= 1");
  Engine& engine = frame.engine();
  const auto types = types_of(frame.schema());
  const auto& in = frame.partitions();
  const std::int64_t rounds =
      engine.comm().allreduce(static_cast<std::int64_t>(in.size()), ReduceOp::max);  // same on every rank
  auto roundp = std::make_shared<Round>(std::move(round));
  auto buffers = std::make_shared<RoundBuffers>();
  std::vector<std::vector<Chunk>> pieces(static_cast<std::size_t>(nparts));
  for (std::int64_t r = 0; r < rounds; ++r) {
    std::vector<Chunk> inputs;
    if (r < static_cast<std::int64_t>(in.size())) inputs.push_back(in[static_cast<std::size_t>(r)]);
    auto out = engine.tasks().submit_multi(
        name, std::move(inputs), static_cast<std::size_t>(nparts),
        [nparts, roundp, buffers](TaskContext& ctx) { (*roundp)(ctx, nparts, *buffers); },
        TaskOptions{TraceKind::comm, true, place});
    for (int j = 0; j < nparts; ++j) pieces[j].push_back(std::move(out[j]));
  }
  std::vector<Chunk> parts;
  for (int j = 0; j < nparts; ++j)
    parts.push_back(engine.tasks().submit(
        name + "_concat", std::move(pieces[j]),
        [types](TaskContext& ctx) {
          // By source rank, then round (= the source's partition order).
          std::vector<std::vector<BatchView>> per_round;
          for (std::size_t r = 0; r < ctx.num_inputs(); ++r)
            per_round.push_back(piece_batches(ctx.input(r), ctx.execution()));
          std::vector<BatchView> views;
          const std::size_t p = per_round.empty() ? 0 : per_round[0].size();
          for (std::size_t s = 0; s < p; ++s)
            for (const auto& r : per_round) views.push_back(r[s]);
          concat_batches(views, types, ctx);
        },
        TaskOptions{TraceKind::compute, false, place}));
  return Frame(engine, frame.schema(), std::move(parts));
}
}  // namespace

Frame shuffle_routed(const Frame& frame, int nparts, RouteFn route, const std::string& name) {
  return shuffle_with(
      frame, nparts,
      [route = std::move(route)](TaskContext& ctx, int parts, RoundBuffers& buffers) {
        shuffle_round(ctx, parts, route, buffers);
      },
      name, TaskPlace::host);
}

Frame detail::shuffle_routed_on_device(const Frame& frame, int nparts, DeviceRouteFn route, const std::string& name) {
  return shuffle_with(
      frame, nparts,
      [route = std::move(route)](TaskContext& ctx, int parts, RoundBuffers&) {
        shuffle_round_on_device(ctx, parts, route);
      },
      name, TaskPlace::device);
}

int choose_nparts(const Frame& frame, int at_least) {
  const Comm& comm = frame.engine().comm();
  std::int64_t row_bytes = 0;
  for (const auto& f : frame.schema().fields()) row_bytes += static_cast<std::int64_t>(element_size(f.type)) + 1;
  std::int64_t known = 1, rows = 0;
  for (const auto& r : frame.partition_rows()) {
    if (r)
      rows += *r;
    else
      known = 0;
  }
  const std::int64_t parts = static_cast<std::int64_t>(frame.num_partitions());
  std::int64_t mine[3] = {rows, parts, -known};
  comm.allreduce(std::span<std::int64_t>(mine, 3), ReduceOp::sum);
  // Held at once around an output partition: in a round task its input partition, the send and receive buffers
  // and the round's pieces (about one partition each); then the partition itself and its consumer's output,
  // with as much again for what spills and reloads around them. Every rank sizes alike (the smallest budget).
  constexpr std::uint32_t kHeldAtOnce = 8;
  const std::uint64_t budget = comm.allreduce(frame.engine().memory().budget(kHeldAtOnce), ReduceOp::min);
  const std::int64_t p = comm.size();
  std::int64_t n = 1;
  if (mine[2] == -p) {  // every rank knows its rows
    const auto target = static_cast<std::int64_t>(std::max<std::uint64_t>(budget, 1));
    const std::int64_t per_rank = (mine[0] * row_bytes + p - 1) / p;
    n = (per_rank + target - 1) / target;
  } else {
    n = (mine[1] + p - 1) / p;
  }
  return static_cast<int>(std::clamp<std::int64_t>(n, std::max(at_least, 1), 1 << 16));
}

std::vector<std::vector<std::uint64_t>> detail::dictionary_hashes(const Schema& schema,
                                                                  const std::vector<std::size_t>& keys) {
  std::vector<std::vector<std::uint64_t>> out(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k)
    if (schema.type(keys[k]) == ElementType::string)
      for (const auto& s : *schema.dictionary(keys[k])) out[k].push_back(detail::hash_bytes(s));
  return out;
}

namespace {
/// The key columns of a batch as PartitionKernels::hash_rows takes them, each string column with its dictionary's
/// hashes uploaded to backend memory (held here).
struct DeviceHashKeys {
  DeviceHashKeys(const ExecutionContext& context, const kernels::Exec& exec, const BatchView& batch,
                 const std::vector<std::size_t>& keys, const std::vector<std::vector<std::uint64_t>>& dict_hashes)
      : context_(context), exec_(exec) {
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const auto& d = dict_hashes[k];
      cols.push_back({detail::column_view(batch, keys[k]),
                      d.empty() ? nullptr : static_cast<const std::uint64_t*>(upload(d.data(), d.size() * 8))});
    }
  }
  /// A host array's copy in backend memory, held as long as this object.
  const void* upload(const void* data, std::size_t bytes) {
    held_.push_back(std::make_unique<slab::detail::ScratchBytes>(exec_, bytes));
    if (bytes) slab::copy(held_.back()->get(), data, bytes, context_);
    return held_.back()->get();
  }
  std::vector<kernels::HashColumn> cols;

 private:
  const ExecutionContext& context_;
  kernels::Exec exec_;
  std::vector<std::unique_ptr<slab::detail::ScratchBytes>> held_;
};
}  // namespace

void detail::route_by_row_hash(TaskContext& ctx, const kernels::Exec& exec, const BatchView& batch,
                               const std::vector<std::size_t>& keys,
                               const std::vector<std::vector<std::uint64_t>>& dict_hashes, int nranks, int nparts,
                               const HotKeys* hot, int side, std::uint32_t* bucket) {
  const ExecutionContext& context = ctx.execution();
  const std::int64_t n = batch.nrows();
  DeviceHashKeys in(context, exec, batch, keys, dict_hashes);
  slab::detail::ScratchBytes hashes(exec, static_cast<std::size_t>(n) * 8);
  auto* h = static_cast<std::uint64_t*>(hashes.get());
  const bool split = hot && !hot->hashes.empty();
  const void* hot_hashes = split ? in.upload(hot->hashes.data(), hot->hashes.size() * 8) : nullptr;
  const void* hot_sides = split ? in.upload(hot->sides.data(), hot->sides.size()) : nullptr;
  detail::with_planned_backend(context, [&](auto tag) {
    using Kernels = kernels::PartitionKernels<typename decltype(tag)::type>;
    Kernels::hash_rows(exec, in.cols.data(), static_cast<int>(in.cols.size()), n, h);
    if (split)
      Kernels::hot_key_buckets(exec, h, n, nranks, nparts, static_cast<const std::uint64_t*>(hot_hashes),
                               static_cast<const std::uint8_t*>(hot_sides),
                               static_cast<std::int64_t>(hot->hashes.size()), side, bucket);
    else
      Kernels::hash_buckets(exec, h, n, nranks, nparts, bucket);
  });
}

std::int64_t detail::hot_rows_of_side(TaskContext& ctx, const kernels::Exec& exec, const BatchView& batch,
                                      const std::vector<std::size_t>& keys,
                                      const std::vector<std::vector<std::uint64_t>>& dict_hashes, const HotKeys& hot,
                                      int side, std::int64_t* rows) {
  const std::int64_t n = batch.nrows();
  DeviceHashKeys in(ctx.execution(), exec, batch, keys, dict_hashes);
  slab::detail::ScratchBytes hashes(exec, static_cast<std::size_t>(n) * 8);
  auto* h = static_cast<std::uint64_t*>(hashes.get());
  const void* hot_hashes = in.upload(hot.hashes.data(), hot.hashes.size() * 8);
  const void* hot_sides = in.upload(hot.sides.data(), hot.sides.size());
  std::int64_t k = 0;
  detail::with_planned_backend(ctx.execution(), [&](auto tag) {
    using Kernels = kernels::PartitionKernels<typename decltype(tag)::type>;
    Kernels::hash_rows(exec, in.cols.data(), static_cast<int>(in.cols.size()), n, h);
    k = Kernels::hot_rows(exec, h, n, static_cast<const std::uint64_t*>(hot_hashes),
                          static_cast<const std::uint8_t*>(hot_sides), static_cast<std::int64_t>(hot.hashes.size()),
                          side, rows);
  });
  return k;
}

void detail::sample_row_hashes(TaskContext& ctx, const kernels::Exec& exec, const BatchView& batch,
                               const std::vector<std::size_t>& keys,
                               const std::vector<std::vector<std::uint64_t>>& dict_hashes, std::int64_t stride,
                               std::uint64_t* hashes) {
  DeviceHashKeys in(ctx.execution(), exec, batch, keys, dict_hashes);
  detail::with_planned_backend(ctx.execution(), [&](auto tag) {
    kernels::PartitionKernels<typename decltype(tag)::type>::hash_sample(
        exec, in.cols.data(), static_cast<int>(in.cols.size()), batch.nrows(), stride, hashes);
  });  // the uploaded dictionary hashes go with `in`, freed in stream order after the kernel
}

Frame shuffle(const Frame& frame, const std::vector<std::string>& key_columns, int nparts) {
  SLAB_EXPECTS(nparts >= 0, InvalidArgument, "shuffle: nparts must be >= 0");
  const Schema schema = frame.schema();
  auto keys = schema.indices_of(key_columns);
  if (nparts == 0) nparts = choose_nparts(frame);
  const int nranks = frame.engine().comm().size();
  if (detail::takes_device_paths(frame)) {
    auto dict =
        std::make_shared<const std::vector<std::vector<std::uint64_t>>>(detail::dictionary_hashes(schema, keys));
    return detail::shuffle_routed_on_device(
        frame, nparts,
        [keys, dict, nranks, nparts](TaskContext& ctx, const kernels::Exec& exec, const BatchView& b,
                                     std::uint32_t* bucket) {
          detail::route_by_row_hash(ctx, exec, b, keys, *dict, nranks, nparts, nullptr, 0, bucket);
        },
        "shuffle");
  }
  note_host_fallback(frame.engine(), "shuffle");
  const auto partitioner = detail::Partitioner::hash(nranks, nparts);
  return shuffle_routed(frame, nparts,
                        [schema, keys, partitioner](const BatchView& b, std::vector<std::uint32_t>& bucket) {
                          const auto h = hash_rows(b, schema, keys);
                          bucket.resize(h.size());
                          for (std::size_t i = 0; i < h.size(); ++i) bucket[i] = partitioner.bucket_of_hash(h[i]);
                        });
}

}  // namespace slab::frame
