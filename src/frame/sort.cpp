// sort_values: distributed sample sort. See slab/frame/sort.hpp.
#include "slab/frame/sort.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

#include "frame/device_paths.hpp"
#include "frame/kernels/gather.hpp"
#include "frame/kernels/generate.hpp"
#include "frame/kernels/key_encode.hpp"
#include "frame/kernels/key_words_hd.hpp"
#include "frame/kernels/partition.hpp"
#include "frame/kernels/sort_perm.hpp"
#include "frame/move_rows.hpp"
#include "frame/partitioner.hpp"
#include "frame/shuffle_device.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/frame/shuffle.hpp"
#include "slab/memory/host_view.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {

struct Encoder {
  std::vector<std::size_t> cols;
  std::vector<bool> ascending;
  bool nulls_first = false;
  std::size_t words() const { return 2 * cols.size() + 1; }

  // Records of every row of `b`; the row index comes from `row_col` (a column of b) or first_row + i.
  std::vector<std::uint64_t> encode(const BatchView& b, std::int64_t first_row, int row_col) const {
    const std::size_t w = words();
    const auto n = static_cast<std::size_t>(b.nrows());
    std::vector<std::uint64_t> out(n * w);
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const std::size_t c = cols[k];
      const std::uint8_t* valid = b.valid(c);
      // The words are kernels/key_words_hd.hpp's, the one source the device's sort records share.
      const bool asc = ascending[k], first = nulls_first;
      auto put = [&](std::size_t i, bool null, std::uint64_t v) {
        out[i * w + 2 * k] = kernels::sort_null_word(null, first);
        out[i * w + 2 * k + 1] = kernels::sort_value_word(v, null, asc);
      };
      switch (b.type(c)) {
        case ElementType::int64:
        case ElementType::timestamp: {
          auto v = b.column<std::int64_t>(c);
          for (std::size_t i = 0; i < n; ++i) put(i, valid && !valid[i], kernels::int_word(v[i]));
          break;
        }
        case ElementType::float64: {
          auto v = b.column<double>(c);
          for (std::size_t i = 0; i < n; ++i) {
            const double x = v[i];
            put(i, (valid && !valid[i]) || std::isnan(x), kernels::float_word(x));
          }
          break;
        }
        case ElementType::boolean: {
          auto v = b.column<std::uint8_t>(c);
          for (std::size_t i = 0; i < n; ++i) put(i, valid && !valid[i], v[i] ? 1 : 0);
          break;
        }
        case ElementType::string: {
          auto v = b.column<std::int32_t>(c);
          for (std::size_t i = 0; i < n; ++i)
            put(i, (valid && !valid[i]) || v[i] < 0, static_cast<std::uint64_t>(static_cast<std::uint32_t>(v[i])));
          break;
        }
        default:  // not a column type: a Schema holds none
          break;
      }
    }
    if (row_col >= 0) {
      auto r = b.column<std::int64_t>(static_cast<std::size_t>(row_col));
      for (std::size_t i = 0; i < n; ++i) out[i * w + w - 1] = static_cast<std::uint64_t>(r[i]);
    } else {
      for (std::size_t i = 0; i < n; ++i) out[i * w + w - 1] = static_cast<std::uint64_t>(first_row) + i;
    }
    return out;
  }
};

// Copy rows `rows` of columns [0, ncols) of `in` into columns [0, ncols) of `b` (same types and masks).
void copy_rows(const BatchView& in, std::span<const std::int64_t> rows, std::size_t ncols, BatchBuilder& b) {
  for (std::size_t c = 0; c < ncols; ++c) {
    const std::size_t es = element_size(in.type(c));
    const std::byte* src = in.data(c);
    std::byte* dst = b.data(c);
    if (es == 8) {
      for (std::size_t i = 0; i < rows.size(); ++i) std::memcpy(dst + 8 * i, src + 8 * rows[i], 8);
    } else if (es == 4) {
      for (std::size_t i = 0; i < rows.size(); ++i) std::memcpy(dst + 4 * i, src + 4 * rows[i], 4);
    } else {
      for (std::size_t i = 0; i < rows.size(); ++i) dst[i] = src[rows[i]];
    }
    if (std::uint8_t* v = b.valid(c)) {
      const std::uint8_t* iv = in.valid(c);
      for (std::size_t i = 0; i < rows.size(); ++i) v[i] = iv ? iv[rows[i]] : 1;
    }
  }
}

std::vector<bool> masks_of(const BatchView& b, std::size_t ncols) {
  std::vector<bool> m(ncols, false);
  for (std::size_t c = 0; c < ncols && c < b.ncols(); ++c) m[c] = b.valid(c) != nullptr;
  return m;
}

// ---- the device path (frame/kernels/key_encode.hpp, sort_perm.hpp, partition.hpp, gather.hpp) ----------------

/// The Encoder's words of `b` without the row index word, in kernel scratch: words[2k] the null word and
/// words[2k + 1] the value word of key k (KeyKernels::sort_words).
template <class B>
struct SortWords {
  slab::detail::ScratchBytes block;
  std::vector<std::uint64_t*> words;
  SortWords(const kernels::Exec& exec, const Encoder& enc, const BatchView& b)
      : block(exec, 2 * enc.cols.size() * static_cast<std::size_t>(b.nrows()) * 8) {
    const std::int64_t n = b.nrows();
    std::vector<kernels::SortColumn> cols;
    for (std::size_t k = 0; k < enc.cols.size(); ++k)
      cols.push_back({detail::column_view(b, enc.cols[k]), enc.ascending[k]});
    for (std::size_t w = 0; w < 2 * enc.cols.size(); ++w)
      words.push_back(static_cast<std::uint64_t*>(block.get()) + w * static_cast<std::size_t>(n));
    if (n > 0 && !cols.empty())  // no keys (move_rows): the row index alone orders the rows
      kernels::KeyKernels<B>::sort_words(exec, cols.data(), static_cast<int>(cols.size()), enc.nulls_first, n,
                                         words.data());
  }
};

/// sort_sample on the device: the s records of rows (2k + 1) n / (2 s), row index first + row, into the output.
template <class B>
void sample_on_device(TaskContext& ctx, const kernels::Exec& exec, const Encoder& enc, const BatchView& in,
                      std::int64_t first, std::size_t s) {
  const ExecutionContext& context = ctx.execution();
  const auto n = static_cast<std::size_t>(in.nrows());
  const std::size_t K2 = 2 * enc.cols.size(), W = enc.words();
  SortWords<B> words(exec, enc, in);
  std::vector<std::int64_t> rows(s);
  for (std::size_t k = 0; k < s; ++k) rows[k] = static_cast<std::int64_t>((2 * k + 1) * n / (2 * s));
  slab::detail::ScratchBytes at(exec, s * 8), picked(exec, K2 * s * 8);
  slab::copy(at.get(), rows.data(), s * 8, context);
  std::vector<std::uint64_t*> out(K2);
  for (std::size_t w = 0; w < K2; ++w) out[w] = static_cast<std::uint64_t*>(picked.get()) + w * s;
  kernels::SortKernels<B>::gather_words(exec, words.words.data(), static_cast<int>(K2),
                                        static_cast<const std::int64_t*>(at.get()), static_cast<std::int64_t>(s),
                                        out.data());
  std::vector<std::uint64_t> host(K2 * s);
  slab::copy(host.data(), picked.get(), host.size() * 8, context);
  auto rec = ctx.output_as<std::uint64_t>(s * W);
  for (std::size_t k = 0; k < s; ++k) {
    for (std::size_t w = 0; w < K2; ++w) rec[k * W + w] = host[w * s + k];
    rec[k * W + K2] = static_cast<std::uint64_t>(first + rows[k]);
  }
}

/// sort_index on the device: the columns copied, the global row index made by GenerateKernels (first + k).
template <class B>
void index_on_device(TaskContext& ctx, const kernels::Exec& exec, const BatchView& in, std::int64_t first,
                     const std::vector<ElementType>& wire_types, std::size_t ncols) {
  const ExecutionContext& context = ctx.execution();
  const std::int64_t n = in.nrows();
  std::vector<bool> masks;
  for (std::size_t c = 0; c < ncols; ++c) masks.push_back(n && in.valid(c) != nullptr);
  masks.push_back(false);
  BatchBuilder b(ctx, n, wire_types, masks);
  if (n == 0) return;
  for (std::size_t c = 0; c < ncols; ++c) {
    slab::copy(b.data(c), in.data(c), static_cast<std::size_t>(n) * element_size(wire_types[c]), context);
    if (auto* v = b.valid(c)) slab::copy(v, in.valid(c), static_cast<std::size_t>(n), context);
  }
  kernels::GenerateKernels<B>::column(exec, ColumnRecipe::affine(first, 1), ElementType::int64, 0, n, b.data(ncols));
}

/// sort_shuffle's route on the device: each row's record (its words and its row index, the wire's last column,
/// contiguous from its first row) against the splitters (PartitionKernels::range_buckets).
void route_on_device(TaskContext& ctx, const kernels::Exec& exec, const Encoder& enc, const detail::Partitioner& part,
                     std::size_t ncols, const BatchView& b, std::uint32_t* bucket) {
  const ExecutionContext& context = ctx.execution();
  const std::int64_t n = b.nrows();
  std::int64_t first_row = 0;
  slab::copy(&first_row, b.data(ncols), sizeof first_row, context);
  const std::vector<std::uint64_t>& split = part.splitters();
  slab::detail::ScratchBytes splitters(exec, split.size() * 8);
  if (!split.empty()) slab::copy(splitters.get(), split.data(), split.size() * 8, context);
  detail::with_planned_backend(context, [&](auto tag) {
    using B = typename decltype(tag)::type;
    SortWords<B> words(exec, enc, b);
    kernels::PartitionKernels<B>::range_buckets(exec, words.words.data(), static_cast<int>(words.words.size()), true,
                                                first_row, n, static_cast<const std::uint64_t*>(splitters.get()),
                                                static_cast<std::int64_t>(split.size() / enc.words()), bucket);
  });
}

/// The local sort on the device: the records' words and the row index column sorted by a stable radix sort
/// (SortKernels::permutation: the host's std::sort order, the row index breaking every tie), then one gather per
/// column.
template <class B>
void local_sort_on_device(TaskContext& ctx, const kernels::Exec& exec, const Encoder& enc, const BatchView& mine,
                          std::size_t ncols, const std::vector<ElementType>& types, int row_bits) {
  const std::int64_t m = mine.nrows();
  BatchBuilder b(ctx, m, types, masks_of(mine, ncols));
  if (m == 0) return;
  SortWords<B> words(exec, enc, mine);
  std::vector<const std::uint64_t*> all(words.words.begin(), words.words.end());
  all.push_back(reinterpret_cast<const std::uint64_t*>(mine.data(ncols)));
  std::vector<int> bits;
  for (std::size_t k = 0; k < enc.cols.size(); ++k) {
    bits.push_back(1);   // the null word: 0 or 1
    bits.push_back(64);  // the value word
  }
  bits.push_back(row_bits);
  slab::detail::ScratchBytes perm(exec, static_cast<std::size_t>(m) * 8);
  auto* p = static_cast<std::int64_t*>(perm.get());
  kernels::SortKernels<B>::permutation(exec, all.data(), static_cast<int>(all.size()), bits.data(), m, p);
  for (std::size_t c = 0; c < ncols; ++c)
    kernels::GatherKernels<B>::column(exec, detail::column_view(mine, c), p, m, b.data(c), b.valid(c));
}

/// Task names of a range exchange (sort_values' or move_rows').
struct ExchangeNames {
  std::string index, shuffle, sort;
};

/**
 * The rows of `frame` (partition i: rows[i] rows from global row firsts[i]) with their global row index, routed by
 * `partitioner`'s ranges over their records (`enc`'s key words, then the row index) through the all-to-all, and
 * sorted within each bucket by record, the row index breaking every tie: the exchange of sort_values and of
 * move_rows, on the device kernels where `device`. Every rank gets partitioner->parts() partitions, in bucket
 * order. `total` is the rows of all ranks. Collective (one shuffle).
 */
Frame range_exchange(const Frame& frame, const std::shared_ptr<const Encoder>& enc,
                     const std::shared_ptr<const detail::Partitioner>& partitioner,
                     const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& firsts, std::int64_t total,
                     bool device, const ExchangeNames& names) {
  // Rows with their global row index (ties keep their order), streamed through the all-to-all by bucket.
  Engine& engine = frame.engine();
  const Schema& schema = frame.schema();
  const std::size_t W = enc->words();
  const int nparts = partitioner->parts();
  const std::vector<ElementType> types = types_of(schema);
  const std::size_t ncols = types.size();
  std::vector<ElementType> wire_types = types;
  wire_types.push_back(ElementType::int64);  // the global row index travels with the row
  std::vector<Field> wire_fields = schema.fields();
  wire_fields.push_back({"__row", ElementType::int64});
  std::vector<Dictionary> wire_dicts;
  for (std::size_t c = 0; c < ncols; ++c) wire_dicts.push_back(schema.dictionary(c));
  wire_dicts.emplace_back();
  const Schema wire_schema(wire_fields, wire_dicts);
  std::vector<Chunk> wired;
  for (std::size_t i = 0; i < rows.size(); ++i)
    wired.push_back(engine.tasks().submit(
        names.index, {frame.partitions()[i]},
        [f = firsts[i], wire_types, ncols, device](TaskContext& ctx) {
          const BatchView in = input_batch(ctx, 0);
          if (device) {
            detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
              index_on_device<typename decltype(tag)::type>(ctx, exec, in, f, wire_types, ncols);
            });
            return;
          }
          const std::int64_t n = in.nrows();
          std::vector<bool> masks;
          for (std::size_t c = 0; c < ncols; ++c) masks.push_back(n && in.valid(c) != nullptr);
          masks.push_back(false);
          BatchBuilder b(ctx, n, wire_types, masks);
          for (std::size_t c = 0; c < ncols && n; ++c) {
            std::memcpy(b.data(c), in.data(c), static_cast<std::size_t>(n) * element_size(wire_types[c]));
            if (auto* v = b.valid(c)) std::memcpy(v, in.valid(c), static_cast<std::size_t>(n));
          }
          auto r = b.column<std::int64_t>(ncols);
          for (std::int64_t k = 0; k < n; ++k) r[static_cast<std::size_t>(k)] = f + k;
        },
        device ? device_task() : TaskOptions{}));
  const Frame wire(engine, wire_schema, std::move(wired),
                   std::vector<std::optional<std::int64_t>>(rows.begin(), rows.end()));
  const Frame routed = device
                           ? detail::shuffle_routed_on_device(
                                 wire, nparts,
                                 [enc, partitioner, ncols](TaskContext& ctx, const kernels::Exec& exec,
                                                           const BatchView& b, std::uint32_t* bucket) {
                                   route_on_device(ctx, exec, *enc, *partitioner, ncols, b, bucket);
                                 },
                                 names.shuffle)
                           : shuffle_routed(
                                 wire, nparts,
                                 [enc, partitioner, W, ncols](const BatchView& b, std::vector<std::uint32_t>& bucket) {
                                   const std::vector<std::uint64_t> rec = enc->encode(b, 0, static_cast<int>(ncols));
                                   bucket.resize(static_cast<std::size_t>(b.nrows()));
                                   for (std::size_t i = 0; i < bucket.size(); ++i)
                                     bucket[i] = partitioner->bucket_of_key(&rec[i * W]);
                                 },
                                 names.shuffle);

  // Each bucket sorted locally, the row index dropped.
  const int row_bits = kernels::bits_for(static_cast<std::uint64_t>(std::max<std::int64_t>(total, 1) - 1));
  std::vector<Chunk> parts;
  for (const auto& part : routed.partitions())
    parts.push_back(engine.tasks().submit(
        names.sort, {part},
        [enc, W, ncols, types, device, row_bits](TaskContext& ctx) {
          const BatchView mine = input_batch(ctx, 0);
          if (device) {
            detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
              local_sort_on_device<typename decltype(tag)::type>(ctx, exec, *enc, mine, ncols, types, row_bits);
            });
            return;
          }
          const auto m = static_cast<std::size_t>(mine.nrows());
          const std::vector<std::uint64_t> keys_m = enc->encode(mine, 0, static_cast<int>(ncols));
          std::vector<std::int64_t> order(m);
          std::iota(order.begin(), order.end(), 0);
          std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
            return detail::key_less(&keys_m[static_cast<std::size_t>(a) * W], &keys_m[static_cast<std::size_t>(b) * W],
                                    W);
          });
          BatchBuilder b(ctx, static_cast<std::int64_t>(m), types, masks_of(mine, ncols));
          if (m) copy_rows(mine, order, ncols, b);
        },
        device ? device_task() : TaskOptions{}));
  return Frame(engine, schema, std::move(parts));
}

}  // namespace

Frame sort_values(const Frame& frame, const std::vector<SortKey>& keys, NullsPosition nulls,
                  std::int64_t rows_per_partition) {
  const Schema& schema = frame.schema();
  SLAB_EXPECTS(!keys.empty(), InvalidArgument, "sort_values: no sort columns given");
  const bool device =
      detail::takes_device_paths(frame) && 2 * keys.size() + 1 <= static_cast<std::size_t>(kernels::kMaxKeyWords);
  if (!device) note_host_fallback(frame.engine(), "sort_values");
  auto enc = std::make_shared<Encoder>();
  enc->nulls_first = nulls == NullsPosition::first;
  for (const auto& k : keys) {
    enc->cols.push_back(schema.index_of(k.column));  // same schema everywhere: throws on every rank alike
    enc->ascending.push_back(k.ascending);
  }
  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  const int p = comm.size();
  const std::size_t W = enc->words();

  // Row counts (runs the graph; partitions stay spillable), each partition's first global row, the size.
  const std::vector<std::int64_t> rows = frame.local_partition_rows();
  std::int64_t first = frame.global_offset();
  std::int64_t local = 0;
  for (auto r : rows) local += r;
  const std::int64_t total = comm.allreduce(local, ReduceOp::sum);
  int nparts = choose_nparts(frame);
  if (rows_per_partition > 0)
    nparts = std::max<std::int64_t>(nparts, (total / p + rows_per_partition - 1) / rows_per_partition);
  nparts = comm.allreduce(nparts, ReduceOp::max);
  const int nbuckets = p * nparts;

  // Samples in proportion to each partition's rows (one small task per partition), splitters for p * nparts
  // buckets at even quantiles: bucket b goes to rank b / nparts, output partition b % nparts.
  const std::size_t want = static_cast<std::size_t>(64) * static_cast<std::size_t>(nbuckets);
  std::vector<Chunk> sample_tasks;
  std::vector<std::int64_t> firsts;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto n = static_cast<std::size_t>(rows[i]);
    const std::size_t s = n == 0 ? 0 : std::clamp<std::size_t>((want * n + total - 1) / total, 1, n);
    firsts.push_back(first);
    sample_tasks.push_back(engine.tasks().submit(
        "sort_sample", {frame.partitions()[i]},
        [enc, first, n, s, W, device](TaskContext& ctx) {
          if (s == 0) return;
          if (device) {
            detail::on_device_backend(ctx, [&](const kernels::Exec& exec, auto tag) {
              sample_on_device<typename decltype(tag)::type>(ctx, exec, *enc, input_batch(ctx, 0), first, s);
            });
            return;
          }
          const std::vector<std::uint64_t> rec = enc->encode(input_batch(ctx, 0), first, -1);
          auto out = ctx.output_as<std::uint64_t>(s * W);
          for (std::size_t k = 0; k < s; ++k) {
            const std::size_t row = (2 * k + 1) * n / (2 * s);
            std::copy_n(rec.begin() + static_cast<std::ptrdiff_t>(row * W), W,
                        out.begin() + static_cast<std::ptrdiff_t>(k * W));
          }
        },
        device ? device_task() : TaskOptions{}));
    first += rows[i];
  }
  engine.tasks().persist(sample_tasks);
  std::vector<std::uint64_t> samples;
  comm.run_collectively([&] {  // read outside any task: a failure on one rank fails on every rank
    for (const auto& t : sample_tasks)
      if (t.buffer()) {
        const Pin pin = t.buffer()->pin();
        const auto w = HostView(pin).as<std::uint64_t>();
        samples.insert(samples.end(), w.begin(), w.end());
      }
  });
  sample_tasks.clear();
  auto partitioner = std::make_shared<const detail::Partitioner>(
      detail::Partitioner::sampled(comm, nparts, std::span<const std::uint64_t>(samples), W));

  return range_exchange(frame, enc, partitioner, rows, firsts, total, device,
                        {"sort_index", "sort_shuffle", "sort_values"});
}

Frame sort_values(const Frame& frame, const std::vector<std::string>& by, bool ascending, NullsPosition nulls,
                  std::int64_t rows_per_partition) {
  std::vector<SortKey> keys;
  for (const auto& c : by) keys.push_back({c, ascending});
  return sort_values(frame, keys, nulls, rows_per_partition);
}

Frame sort_values(const Frame& frame, std::initializer_list<SortKey> keys, NullsPosition nulls,
                  std::int64_t rows_per_partition) {
  return sort_values(frame, std::vector<SortKey>(keys), nulls, rows_per_partition);
}

Frame sort_values(const Frame& frame, std::initializer_list<const char*> by, bool ascending, NullsPosition nulls,
                  std::int64_t rows_per_partition) {
  std::vector<SortKey> keys;
  for (const char* c : by) keys.push_back({c, ascending});
  return sort_values(frame, keys, nulls, rows_per_partition);
}

Frame detail::move_rows(const Frame& frame, const std::vector<std::int64_t>& starts,
                        const std::vector<std::int64_t>& target, const std::string& name) {
  Engine& engine = frame.engine();
  const Comm& comm = engine.comm();
  // Buckets rank-major, nparts per rank (the most partitions a rank asks for; a rank's missing ones hold no rows):
  // the splitters are the first rows of every bucket but the first, so a row's bucket is the one its position
  // falls in (an empty bucket shares its start with the next, which the count of splitters <= it passes).
  const auto counts = static_cast<std::int64_t>(target.size());
  const int nparts = static_cast<int>(std::max<std::int64_t>(comm.allreduce(counts, ReduceOp::max), 1));
  std::vector<std::int64_t> all_targets;
  const auto v = comm.allgatherv(std::span<const std::int64_t>(target), all_targets);
  std::vector<std::uint64_t> splitters;
  std::int64_t at = 0;
  for (int r = 0; r < comm.size(); ++r)
    for (int j = 0; j < nparts; ++j) {
      if (r > 0 || j > 0) splitters.push_back(static_cast<std::uint64_t>(at));
      if (j < static_cast<int>(v.counts[static_cast<std::size_t>(r)]))
        at += all_targets[static_cast<std::size_t>(v.displs[static_cast<std::size_t>(r)] + j)];
    }
  auto partitioner = std::make_shared<const detail::Partitioner>(
      detail::Partitioner::range(comm.size(), nparts, std::move(splitters), 1));
  const std::vector<std::int64_t> rows = frame.local_partition_rows();
  const bool device = detail::takes_device_paths(frame);
  if (!device) note_host_fallback(engine, name);
  const Frame routed = range_exchange(frame, std::make_shared<const Encoder>(), partitioner, rows, starts, at, device,
                                      {name + ".position", name, name + ".order"});
  std::vector<Chunk> parts(routed.partitions().begin(),
                           routed.partitions().begin() + static_cast<std::ptrdiff_t>(target.size()));
  return Frame(engine, frame.schema(), std::move(parts),
               std::vector<std::optional<std::int64_t>>(target.begin(), target.end()));
}

}  // namespace slab::frame
