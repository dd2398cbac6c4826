// sort_values: distributed sample sort. See slab/frame/sort.hpp.
#include "slab/frame/sort.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace sort_detail {

namespace {
bool less_record(const std::uint64_t* a, const std::uint64_t* b, std::size_t words) {
  for (std::size_t k = 0; k < words; ++k)
    if (a[k] != b[k]) return a[k] < b[k];
  return false;
}
}  // namespace

std::vector<std::uint64_t> choose_splitters(std::vector<std::uint64_t> samples, std::size_t words, int nranks) {
  const std::size_t n = words ? samples.size() / words : 0;
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(),
            [&](std::size_t a, std::size_t b) { return less_record(&samples[a * words], &samples[b * words], words); });
  std::vector<std::uint64_t> out;
  if (n == 0) return out;  // no rows anywhere: everything (nothing) goes to rank 0
  for (int k = 1; k < nranks; ++k) {
    const std::size_t at = std::min(n - 1, n * static_cast<std::size_t>(k) / static_cast<std::size_t>(nranks));
    out.insert(out.end(), samples.begin() + idx[at] * words, samples.begin() + (idx[at] + 1) * words);
  }
  return out;
}

int destination(const std::uint64_t* record, const std::vector<std::uint64_t>& splitters, std::size_t words) {
  // Number of splitters <= record (binary search; splitters are sorted).
  std::size_t lo = 0, hi = words ? splitters.size() / words : 0;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (less_record(record, &splitters[mid * words], words))
      hi = mid;
    else
      lo = mid + 1;
  }
  return static_cast<int>(lo);
}

}  // namespace sort_detail

namespace {

constexpr std::uint64_t kSign = 0x8000000000000000ull;

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
      const std::uint64_t flip = ascending[k] ? 0 : ~0ull;
      const std::uint64_t null_w = nulls_first ? 0 : 1, valid_w = nulls_first ? 1 : 0;
      auto put = [&](std::size_t i, bool null, std::uint64_t v) {
        out[i * w + 2 * k] = null ? null_w : valid_w;
        out[i * w + 2 * k + 1] = null ? 0 : (v ^ flip);
      };
      switch (b.type(c)) {
        case DType::int64:
        case DType::timestamp: {
          auto v = b.column<std::int64_t>(c);
          for (std::size_t i = 0; i < n; ++i) put(i, valid && !valid[i], static_cast<std::uint64_t>(v[i]) ^ kSign);
          break;
        }
        case DType::float64: {
          auto v = b.column<double>(c);
          for (std::size_t i = 0; i < n; ++i) {
            double x = v[i];
            const bool null = (valid && !valid[i]) || std::isnan(x);
            if (x == 0) x = 0.0;
            const auto bits = std::bit_cast<std::uint64_t>(x);
            put(i, null, (bits & kSign) ? ~bits : (bits | kSign));
          }
          break;
        }
        case DType::boolean: {
          auto v = b.column<std::uint8_t>(c);
          for (std::size_t i = 0; i < n; ++i) put(i, valid && !valid[i], v[i] ? 1 : 0);
          break;
        }
        case DType::string: {
          auto v = b.column<std::int32_t>(c);
          for (std::size_t i = 0; i < n; ++i)
            put(i, (valid && !valid[i]) || v[i] < 0, static_cast<std::uint64_t>(static_cast<std::uint32_t>(v[i])));
          break;
        }
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
    const std::size_t es = dtype_size(in.type(c));
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

}  // namespace

Frame sort_values(const Frame& frame, const std::vector<SortKey>& keys, NullsPosition nulls,
                  std::int64_t rows_per_partition) {
  const Schema& schema = frame.schema();
  SLAB_EXPECTS(!keys.empty(), InvalidArgument, "sort_values: no sort columns given");
  Encoder enc;
  enc.nulls_first = nulls == NullsPosition::first;
  for (const auto& k : keys) {
    enc.cols.push_back(schema.index_of(k.column));  // same schema everywhere: throws on every rank alike
    enc.ascending.push_back(k.ascending);
  }
  TaskQueue& queue = frame.queue();
  const Comm& comm = queue.comm();
  const int p = comm.size();
  const std::size_t W = enc.words();
  const std::vector<DType> types = types_of(schema);
  const std::size_t ncols = types.size();
  std::vector<DType> wire_types = types;
  wire_types.push_back(DType::int64);  // the global row index travels with the row

  Frame(frame).persist();  // runs the graph (every partition ready; collective)
  const std::int64_t offset = frame.global_offset();

  // This rank's rows as one batch.
  std::vector<std::byte> local_storage;
  const BatchView local = concat_local_partitions(frame, local_storage);
  const auto n = static_cast<std::size_t>(local.nrows());
  std::vector<std::uint64_t> rec = enc.encode(local, offset, -1);

  // Samples, in proportion to the row count; splitters at even quantiles.
  const auto total = static_cast<std::size_t>(comm.allreduce(static_cast<std::int64_t>(n), ReduceOp::sum));
  std::vector<std::uint64_t> samples;
  if (n > 0) {
    const std::size_t want = static_cast<std::size_t>(64) * static_cast<std::size_t>(p);
    const std::size_t s = std::clamp<std::size_t>((want * n + total - 1) / total, 1, n);
    for (std::size_t i = 0; i < s; ++i) {
      const std::size_t row = (2 * i + 1) * n / (2 * s);
      samples.insert(samples.end(), rec.begin() + row * W, rec.begin() + (row + 1) * W);
    }
  }
  std::vector<std::uint64_t> all_samples;
  comm.allgatherv(std::span<const std::uint64_t>(samples), all_samples);
  const std::vector<std::uint64_t> splitters = sort_detail::choose_splitters(std::move(all_samples), W, p);

  // Route rows: group by destination (stable), one wire batch per destination.
  std::vector<int> dest(n);
  std::vector<std::size_t> counts(p, 0);
  for (std::size_t i = 0; i < n; ++i) {
    dest[i] = sort_detail::destination(&rec[i * W], splitters, W);
    ++counts[dest[i]];
  }
  rec.clear();
  rec.shrink_to_fit();
  std::vector<std::vector<std::int64_t>> rows_to(p);
  for (int q = 0; q < p; ++q) rows_to[q].reserve(counts[q]);
  for (std::size_t i = 0; i < n; ++i) rows_to[dest[i]].push_back(static_cast<std::int64_t>(i));
  const std::vector<bool> wire_masks = [&] {
    auto m = masks_of(local, ncols);
    m.push_back(false);
    return m;
  }();
  std::vector<std::byte> send;
  std::vector<std::size_t> send_bytes(p);
  for (int q = 0; q < p; ++q) {
    const auto nq = static_cast<std::int64_t>(rows_to[q].size());
    const std::size_t bytes = BatchBuilder::size_for(nq, wire_types, wire_masks);
    const std::size_t padded = (bytes + 7) / 8 * 8;
    const std::size_t at = send.size();
    send.resize(at + padded);
    BatchBuilder b(std::span<std::byte>(send.data() + at, bytes), nq, wire_types, wire_masks);
    copy_rows(local, rows_to[q], ncols, b);
    auto r = b.column<std::int64_t>(ncols);
    for (std::int64_t i = 0; i < nq; ++i) r[i] = offset + rows_to[q][i];
    send_bytes[q] = padded;
    rows_to[q] = {};
  }
  local_storage = {};
  std::vector<std::byte> recv;
  std::vector<std::size_t> recv_bytes;
  comm.alltoallv(std::span<const std::byte>(send), std::span<const std::size_t>(send_bytes), recv, recv_bytes);
  send = {};

  std::vector<std::byte> mine_storage;
  {
    std::vector<BatchView> pieces;
    std::size_t at = 0;
    for (int q = 0; q < p; ++q) {
      pieces.emplace_back(std::span<const std::byte>(recv.data() + at, recv_bytes[q]));
      at += recv_bytes[q];
    }
    concat_batches(pieces, wire_types, mine_storage);
  }
  recv = {};
  const BatchView mine(mine_storage);
  const auto m = static_cast<std::size_t>(mine.nrows());
  const std::vector<std::uint64_t> keys_m = enc.encode(mine, 0, static_cast<int>(ncols));
  std::vector<std::int64_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    const std::uint64_t* x = &keys_m[static_cast<std::size_t>(a) * W];
    const std::uint64_t* y = &keys_m[static_cast<std::size_t>(b) * W];
    for (std::size_t k = 0; k < W; ++k)
      if (x[k] != y[k]) return x[k] < y[k];
    return false;
  });

  // Output partitions.
  const std::vector<bool> out_masks = masks_of(mine, ncols);
  const std::int64_t per =
      rows_per_partition > 0 ? rows_per_partition : static_cast<std::int64_t>(std::max<std::size_t>(m, 1));
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> known;
  for (std::int64_t begin = 0; begin < static_cast<std::int64_t>(m); begin += per) {
    const std::int64_t nrows = std::min<std::int64_t>(per, static_cast<std::int64_t>(m) - begin);
    auto data = std::make_shared<std::vector<std::byte>>(BatchBuilder::size_for(nrows, types, out_masks));
    BatchBuilder b(std::span<std::byte>(*data), nrows, types, out_masks);
    copy_rows(mine, std::span<const std::int64_t>(order.data() + begin, static_cast<std::size_t>(nrows)), ncols, b);
    parts.push_back(queue.submit("sort_values", {}, [data](TaskContext& ctx) {
      auto out = ctx.output(data->size());
      std::memcpy(out.data(), data->data(), data->size());
      data->clear();
      data->shrink_to_fit();
    }));
    known.emplace_back(nrows);
  }
  return Frame(queue, schema, std::move(parts), std::move(known));
}

Frame sort_values(const Frame& frame, const std::vector<std::string>& by, bool ascending, NullsPosition nulls,
                  std::int64_t rows_per_partition) {
  std::vector<SortKey> keys;
  for (const auto& c : by) keys.push_back({c, ascending});
  return sort_values(frame, keys, nulls, rows_per_partition);
}

}  // namespace slab::frame
