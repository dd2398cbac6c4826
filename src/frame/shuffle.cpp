#include "slab/frame/shuffle.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {
std::uint64_t hash_bytes(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}
}  // namespace

std::vector<std::uint64_t> hash_rows(const BatchView& batch, const Schema& schema,
                                     const std::vector<std::size_t>& keys) {
  std::size_t n = static_cast<std::size_t>(batch.nrows());
  std::vector<std::uint64_t> h(n, 0x12345678ull);
  for (auto k : keys) {
    DType t = schema.type(k);
    std::vector<std::uint64_t> dict_hash;
    if (t == DType::string)
      for (const auto& s : *schema.dictionary(k)) dict_hash.push_back(hash_bytes(s));
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t v;
      if (batch.is_null(k, static_cast<std::int64_t>(i))) {
        v = 0x6e756c6c6e756c6cull;
      } else if (t == DType::string) {
        v = dict_hash[static_cast<std::size_t>(batch.column<std::int32_t>(k)[i])];
      } else if (t == DType::float64) {
        double d = batch.column<double>(k)[i];
        if (d == 0) d = 0;  // -0.0 == 0.0
        v = std::bit_cast<std::uint64_t>(d);
      } else if (t == DType::boolean) {
        v = batch.column<std::uint8_t>(k)[i];
      } else {
        v = static_cast<std::uint64_t>(batch.column<std::int64_t>(k)[i]);
      }
      h[i] = mix64(h[i] * 0x9E3779B97F4A7C15ull + mix64(v + 0x632BE59BD9B4E019ull));
    }
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

Frame shuffle(const Frame& frame, const std::vector<std::string>& key_columns, int nparts) {
  SLAB_EXPECTS(nparts >= 1, InvalidArgument, "shuffle: nparts must be >= 1");
  const Schema schema = frame.schema();
  auto keys = schema.indices_of(key_columns);
  auto types = types_of(schema);
  TaskQueue& queue = frame.queue();
  // One collective task: hash every local row, pack rows per destination rank, alltoallv the bytes.
  // Output: the received batches (one per source rank) concatenated into one batch.
  Chunk received = queue.submit(
      "shuffle", frame.partitions(),
      [schema, keys, types](TaskContext& ctx) {
        const Comm& comm = ctx.comm();
        int p = comm.size();
        std::vector<std::vector<std::int64_t>> part_rows;
        std::vector<std::vector<std::byte>> per_dest(static_cast<std::size_t>(p));
        std::vector<BatchView> views;
        for (std::size_t i = 0; i < ctx.num_inputs(); ++i) views.emplace_back(ctx.input(i));
        // Concatenate local inputs, then split by destination.
        std::vector<std::byte> local;
        concat_batches(views, types, local);
        BatchView all(local);
        auto h = hash_rows(all, schema, keys);
        std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(p));
        for (std::size_t i = 0; i < h.size(); ++i)
          rows[static_cast<std::size_t>(shuffle_rank(h[i], p))].push_back(static_cast<std::int64_t>(i));
        std::vector<std::byte> send;
        std::vector<std::size_t> counts(static_cast<std::size_t>(p));
        for (int d = 0; d < p; ++d) {
          std::vector<std::byte> b;
          take_rows(all, rows[static_cast<std::size_t>(d)], b);
          counts[static_cast<std::size_t>(d)] = b.size();
          send.insert(send.end(), b.begin(), b.end());
        }
        local.clear();
        local.shrink_to_fit();
        std::vector<std::byte> recv;
        std::vector<std::size_t> rcounts;
        comm.alltoallv(std::span<const std::byte>(send), std::span<const std::size_t>(counts), recv, rcounts);
        std::vector<BatchView> in;
        std::size_t off = 0;
        for (auto c : rcounts) {
          in.emplace_back(std::span<const std::byte>(recv.data() + off, c));
          off += c;
        }
        concat_batches(in, types, ctx);
      },
      TaskOptions{TraceKind::comm, true});
  std::vector<Chunk> parts;
  if (nparts == 1) {
    parts.push_back(received);
  } else {
    for (int j = 0; j < nparts; ++j)
      parts.push_back(queue.submit("shuffle_split", {received}, [schema, keys, j, nparts](TaskContext& ctx) {
        BatchView in(ctx.input(0));
        auto h = hash_rows(in, schema, keys);
        int p = ctx.comm().size();
        std::vector<std::int64_t> rows;
        for (std::size_t i = 0; i < h.size(); ++i)
          if (shuffle_part(h[i], p, nparts) == j) rows.push_back(static_cast<std::int64_t>(i));
        take_rows(in, rows, ctx);
      }));
  }
  return Frame(queue, schema, std::move(parts));
}

}  // namespace slab::frame
