#include "slab/frame/frame.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "frame/device_paths.hpp"
#include "frame/hash_bytes.hpp"
#include "frame/map_partitions.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/core/fault.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

struct Frame::State {
  Engine* engine = nullptr;
  Schema schema;
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> rows;
};

Frame::Frame(Engine& engine, Schema schema, std::vector<Chunk> partitions,
             std::vector<std::optional<std::int64_t>> rows)
    : state_(std::make_shared<State>()) {
  SLAB_EXPECTS(
      rows.empty() || rows.size() == partitions.size(), ShapeError,
      "Frame: " + std::to_string(rows.size()) + " row counts for " + std::to_string(partitions.size()) + " partitions");
  rows.resize(partitions.size());
  state_->engine = &engine;
  state_->schema = std::move(schema);
  state_->parts = std::move(partitions);
  state_->rows = std::move(rows);
}

namespace {
const Frame::State& checked(const std::shared_ptr<Frame::State>& s) {
  SLAB_EXPECTS(s != nullptr, InvalidArgument, "Frame: empty handle");
  return *s;
}
}  // namespace

const Schema& Frame::schema() const { return checked(state_).schema; }
Engine& Frame::engine() const { return *checked(state_).engine; }
const std::vector<Chunk>& Frame::partitions() const { return checked(state_).parts; }
const std::vector<std::optional<std::int64_t>>& Frame::partition_rows() const { return checked(state_).rows; }

namespace {
// A ready partition's buffer pinned: the one read of a partition outside a task, view_chunk's and
// view_chunk_in_place's.
Pin pin_partition(const Chunk& chunk) {
  const BufferPtr buffer = chunk.buffer();
  SLAB_EXPECTS(buffer != nullptr, InvalidArgument,
               std::string("frame partition '") + chunk.name() + "' has not run or produced no batch");
  SLAB_FAULT_POINT("partition_read");  // a partition that cannot come back (tests/reliability_faults)
  return buffer->pin();
}
}  // namespace

std::pair<Pin, BatchView> view_chunk(const Chunk& chunk) {
  Pin pin = pin_partition(chunk);
  BatchView view =
      BatchView::copied_to_host(std::span<const std::byte>(pin.data(), pin.size()), chunk.buffer()->execution());
  return {std::move(pin), view};
}

namespace detail {
std::pair<Pin, BatchView> view_chunk_in_place(const Chunk& chunk) {
  Pin pin = pin_partition(chunk);
  BatchView view(std::span<const std::byte>(pin.data(), pin.size()), chunk.buffer()->execution());
  return {std::move(pin), view};
}

void copy_rows_to_host(const BatchView& in, std::int64_t begin, std::int64_t end, const ExecutionContext& where,
                       std::vector<std::byte>& storage) {
  SLAB_EXPECTS(0 <= begin && begin <= end && end <= in.nrows(), InvalidArgument,
               "copy_rows_to_host: rows [" + std::to_string(begin) + ", " + std::to_string(end) + ") of a batch of " +
                   std::to_string(in.nrows()) + " rows (internal)");
  const std::int64_t n = end - begin;
  std::vector<ElementType> types;
  std::vector<bool> masks;
  for (std::size_t c = 0; c < in.ncols(); ++c) {
    types.push_back(in.type(c));
    masks.push_back(n > 0 && in.valid(c) != nullptr);
  }
  BatchBuilder out(storage, n, types, masks);
  if (n == 0) return;
  for (std::size_t c = 0; c < in.ncols(); ++c) {
    const std::size_t es = element_size(types[c]);
    slab::copy(out.data(c), in.data(c) + static_cast<std::size_t>(begin) * es, static_cast<std::size_t>(n) * es, where);
    if (masks[c]) slab::copy(out.valid(c), in.valid(c) + begin, static_cast<std::size_t>(n), where);
  }
}
}  // namespace detail

namespace {
// This rank's partitions concatenated into `storage`, one partition pinned at a time (pinning them all at once
// would need the whole rank's rows on the device tier): a pass over the batches' headers for the sizes and masks,
// then one for the copies, each column copied straight out of the partition where it lies (device memory on a GPU).
void concat_streamed(const Frame& frame, std::vector<std::byte>& storage) {
  const std::vector<ElementType> types = types_of(frame.schema());
  std::int64_t total = 0;
  std::vector<bool> masked(types.size(), false);
  for (const Chunk& c : frame.partitions()) {
    auto [pin, view] = detail::view_chunk_in_place(c);
    total += view.nrows();
    for (std::size_t k = 0; k < types.size(); ++k)
      if (view.nrows() && view.valid(k)) masked[k] = true;
  }
  BatchBuilder out(storage, total, types, masked);
  std::int64_t row = 0;
  for (const Chunk& c : frame.partitions()) {
    auto [pin, view] = detail::view_chunk_in_place(c);
    const ExecutionContext& where = c.buffer()->execution();
    const auto n = static_cast<std::size_t>(view.nrows());
    if (n == 0) continue;
    for (std::size_t k = 0; k < types.size(); ++k) {
      const std::size_t es = element_size(types[k]);
      slab::copy(out.data(k) + static_cast<std::size_t>(row) * es, view.data(k), n * es, where);
      if (std::uint8_t* v = out.valid(k)) {
        if (const std::uint8_t* src = view.valid(k))
          slab::copy(v + row, src, n, where);
        else
          std::memset(v + row, 1, n);
      }
    }
    row += view.nrows();
  }
}
}  // namespace

BatchView concat_local_partitions(const Frame& frame, std::vector<std::byte>& storage) {
  concat_streamed(frame, storage);
  return BatchView(storage);
}

Frame& Frame::persist() {
  auto& s = const_cast<State&>(checked(state_));
  s.engine->tasks().persist(std::span<const Chunk>(s.parts));  // agrees on a failed task
  s.engine->comm().run_collectively([&] {  // a partition not read back on one rank fails on every rank
    for (std::size_t i = 0; i < s.parts.size(); ++i) {
      if (s.rows[i]) continue;
      // The batch's header only (view_chunk would copy a partition in device memory whole to the host).
      auto [pin, view] = detail::view_chunk_in_place(s.parts[i]);
      s.rows[i] = view.nrows();
    }
  });
  return *this;
}

std::vector<std::int64_t> Frame::local_partition_rows() const {
  const auto& s = checked(state_);
  int known = 1;
  for (const auto& r : s.rows) known &= r.has_value() ? 1 : 0;
  if (!s.engine->comm().allreduce(known, ReduceOp::min)) const_cast<Frame*>(this)->persist();
  std::vector<std::int64_t> out;
  for (const auto& r : s.rows) out.push_back(*r);
  return out;
}

std::int64_t Frame::local_len() const {
  std::int64_t n = 0;
  for (auto r : local_partition_rows()) n += r;
  return n;
}

std::int64_t Frame::len() const { return engine().comm().allreduce(local_len(), ReduceOp::sum); }

std::pair<std::int64_t, std::int64_t> Frame::shape() const {
  return {len(), static_cast<std::int64_t>(schema().size())};
}

std::int64_t Frame::global_offset() const {
  const Comm& comm = engine().comm();
  std::int64_t mine = local_len();
  std::vector<std::int64_t> all(static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const std::int64_t>(&mine, 1), std::span<std::int64_t>(all));
  std::int64_t off = 0;
  for (int r = 0; r < comm.rank(); ++r) off += all[static_cast<std::size_t>(r)];
  return off;
}

LocalTable to_local_table(const BatchView& batch, const Schema& schema, std::int64_t first_row) {
  LocalTable t;
  std::size_t n = static_cast<std::size_t>(batch.nrows());
  for (std::size_t c = 0; c < schema.size(); ++c) {
    LocalColumn col;
    col.name = schema.name(c);
    col.type = schema.type(c);
    SLAB_EXPECTS(n == 0 || batch.type(c) == col.type, TypeError,
                 "to_local_table: batch column " + std::to_string(c) + " is not " + to_string(col.type));
    const auto* v = n ? batch.valid(c) : nullptr;
    switch (col.type) {
      case ElementType::int64:
      case ElementType::timestamp: {
        if (n) {
          auto s = batch.column<std::int64_t>(c);
          col.ints.assign(s.begin(), s.end());
        }
        break;
      }
      case ElementType::float64: {
        if (n) {
          auto s = batch.column<double>(c);
          col.floats.assign(s.begin(), s.end());
        }
        break;
      }
      case ElementType::boolean: {
        if (n) {
          auto s = batch.column<std::uint8_t>(c);
          col.bools.assign(s.begin(), s.end());
        }
        break;
      }
      case ElementType::string: {
        const auto& dict = *schema.dictionary(c);
        col.strings.resize(n);
        if (n) {
          auto s = batch.column<std::int32_t>(c);
          bool any_null = false;
          for (std::size_t i = 0; i < n; ++i) {
            bool ok = s[i] >= 0 && (!v || v[i]);
            if (ok) {
              SLAB_EXPECTS(static_cast<std::size_t>(s[i]) < dict.size(), InvalidArgument,
                           "to_local_table: string code out of the dictionary of '" + col.name + "'");
              col.strings[i] = dict[static_cast<std::size_t>(s[i])];
            } else {
              any_null = true;
            }
          }
          if (any_null) {
            col.valid.assign(n, 1);
            for (std::size_t i = 0; i < n; ++i)
              if (s[i] < 0 || (v && !v[i])) col.valid[i] = 0;
          }
        }
        v = nullptr;
        break;
      }
      default:  // not a column type: a Schema holds none
        break;
    }
    if (v) {
      bool all = std::all_of(v, v + n, [](std::uint8_t x) { return x != 0; });
      if (!all) col.valid.assign(v, v + n);
    }
    t.columns.push_back(std::move(col));
  }
  t.index.resize(n);
  for (std::size_t i = 0; i < n; ++i) t.index[i] = first_row + static_cast<std::int64_t>(i);
  return t;
}

namespace {

template <class Out>
void write_batch_impl(const LocalTable& table, const Schema& schema, std::int64_t begin, std::int64_t end, Out& out) {
  SLAB_EXPECTS(table.columns.size() == schema.size(), ShapeError, "write_batch: table and schema differ");
  std::int64_t n = end - begin;
  std::vector<bool> masks;
  for (std::size_t c = 0; c < schema.size(); ++c) {
    const auto& col = table.columns[c];
    bool m = false;
    if (schema.type(c) != ElementType::string && !col.valid.empty())
      for (auto r = begin; r < end && !m; ++r) m = !col.valid[static_cast<std::size_t>(r)];
    masks.push_back(m);
  }
  BatchBuilder b(out, n, types_of(schema), masks);
  for (std::size_t c = 0; c < schema.size(); ++c) {
    const auto& col = table.columns[c];
    SLAB_EXPECTS(col.type == schema.type(c), TypeError, "write_batch: column '" + col.name + "' has another type");
    auto ub = static_cast<std::size_t>(begin);
    switch (col.type) {
      case ElementType::int64:
      case ElementType::timestamp:
        std::copy_n(col.ints.begin() + begin, n, b.column<std::int64_t>(c).begin());
        break;
      case ElementType::float64:
        std::copy_n(col.floats.begin() + begin, n, b.column<double>(c).begin());
        break;
      case ElementType::boolean:
        std::copy_n(col.bools.begin() + begin, n, b.column<std::uint8_t>(c).begin());
        break;
      case ElementType::string: {
        auto codes = b.column<std::int32_t>(c);
        for (std::int64_t i = 0; i < n; ++i) {
          bool ok = col.valid.empty() || col.valid[ub + i];
          codes[i] = ok ? schema.code_of(c, col.strings[ub + i]) : -1;
        }
        break;
      }
      default:  // not a column type: a Schema holds none
        break;
    }
    if (auto* v = b.valid(c))
      for (std::int64_t i = 0; i < n; ++i) v[i] = col.valid[ub + i];
  }
}

std::vector<std::byte> local_concat(const Frame& f) {
  std::vector<std::byte> out;
  concat_streamed(f, out);
  return out;
}

LocalTable tables_from_bytes(const std::vector<std::byte>& all, const VCounts& v, const Schema& schema) {
  std::vector<LocalTable> tables;
  std::int64_t row = 0;
  for (std::size_t r = 0; r < v.counts.size(); ++r) {
    if (v.counts[r] == 0) continue;
    BatchView view(std::span<const std::byte>(all.data() + v.displs[r], v.counts[r]));
    tables.push_back(to_local_table(view, schema, row));
    row += view.nrows();
  }
  if (tables.empty()) {
    std::vector<std::byte> empty;
    BatchBuilder b(empty, 0, types_of(schema), {});
    return to_local_table(b.view(), schema, 0);
  }
  return concat(tables);
}

}  // namespace

void write_batch(const LocalTable& table, const Schema& schema, std::int64_t begin, std::int64_t end,
                 TaskContext& ctx) {
  write_batch_impl(table, schema, begin, end, ctx);
}
void write_batch(const LocalTable& table, const Schema& schema, std::int64_t begin, std::int64_t end,
                 std::vector<std::byte>& storage) {
  write_batch_impl(table, schema, begin, end, storage);
}

LocalTable Frame::local_table() const {
  std::int64_t off = global_offset();
  const_cast<Frame*>(this)->persist();
  std::vector<std::byte> bytes;
  engine().comm().run_collectively([&] { bytes = local_concat(*this); });  // fails on every rank alike
  BatchView view(bytes);
  return to_local_table(view, schema(), off);
}

LocalTable Frame::gather(int root) const {
  const_cast<Frame*>(this)->persist();
  const Comm& comm = engine().comm();
  std::vector<std::byte> mine;
  comm.run_collectively([&] {  // a partition read failing on one rank fails on every rank, not in the allgatherv
    if (!partitions().empty()) mine = local_concat(*this);
  });
  std::vector<std::byte> all;
  VCounts v = comm.gatherv(std::span<const std::byte>(mine), all, root);
  if (comm.rank() != root) return tables_from_bytes({}, VCounts{}, schema());
  return tables_from_bytes(all, v, schema());
}

LocalTable Frame::gather_all() const {
  const_cast<Frame*>(this)->persist();
  const Comm& comm = engine().comm();
  std::vector<std::byte> mine;
  comm.run_collectively([&] {  // a partition read failing on one rank fails on every rank, not in the allgatherv
    if (!partitions().empty()) mine = local_concat(*this);
  });
  std::vector<std::byte> all;
  VCounts v = comm.allgatherv(std::span<const std::byte>(mine), all);
  return tables_from_bytes(all, v, schema());
}

namespace {
// Every column (and its validity) as long as the table, on every rank, else the same InvalidArgument everywhere.
void agree_column_lengths(const Comm& comm, const LocalTable& table, const char* op) {
  std::string size_err;
  for (const auto& c : table.columns)
    if (static_cast<std::int64_t>(c.size()) != table.nrows() || (!c.valid.empty() && c.valid.size() != c.size()))
      size_err = std::string(op) + ": column '" + c.name + "' has another length";
  comm.agree(size_err.empty(), size_err);
}
}  // namespace

Frame Frame::from_local_table(Engine& engine, const LocalTable& table, std::int64_t rows_per_partition) {
  const Comm& comm = engine.comm();
  std::string sig;
  for (const auto& c : table.columns) sig += c.name + ":" + to_string(c.type) + ";";
  std::uint64_t h = detail::hash_bytes(sig);
  std::uint64_t hmin = comm.allreduce(h, ReduceOp::min), hmax = comm.allreduce(h, ReduceOp::max);
  agree_column_lengths(comm, table, "from_local_table");
  comm.agree(hmin == hmax, "from_local_table: ranks have different columns (here: " + sig + ")");
  Schema local = table.schema();
  std::vector<Dictionary> dicts(local.size());
  for (std::size_t c = 0; c < local.size(); ++c) {
    if (local.type(c) != ElementType::string) continue;
    std::vector<char> mine;
    for (const auto& s : *local.dictionary(c)) {
      mine.insert(mine.end(), s.begin(), s.end());
      mine.push_back('\0');
    }
    std::vector<char> all;
    comm.allgatherv(std::span<const char>(mine), all);
    std::set<std::string> u;
    std::size_t start = 0;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i] == '\0') {
        u.emplace(all.data() + start, i - start);
        start = i + 1;
      }
    dicts[c] = make_dictionary({u.begin(), u.end()});
  }
  std::vector<Field> fields = local.fields();
  Schema schema(fields, dicts);
  auto shared = std::make_shared<const LocalTable>(table);
  std::int64_t n = table.nrows();
  std::int64_t per = rows_per_partition > 0 ? rows_per_partition : std::max<std::int64_t>(n, 1);
  std::vector<Chunk> parts;
  std::vector<std::optional<std::int64_t>> rows;
  for (std::int64_t b = 0; b < n; b += per) {
    std::int64_t e = std::min(n, b + per);
    parts.push_back(engine.tasks().submit(
        "from_local_table", {}, [shared, schema, b, e](TaskContext& ctx) { write_batch(*shared, schema, b, e, ctx); }));
    rows.emplace_back(e - b);
  }
  return Frame(engine, std::move(schema), std::move(parts), std::move(rows));
}

namespace {
// A hash of everything a LocalTable holds but its print labels, to check that every rank built the same.
std::uint64_t table_content_hash(const LocalTable& table) {
  std::string bytes;
  auto put = [&bytes](const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); };
  for (const auto& c : table.columns) {
    const std::uint64_t sizes[] = {c.name.size(), static_cast<std::uint64_t>(c.type), c.ints.size(), c.floats.size(),
                                   c.bools.size(), c.strings.size(), c.valid.size()};
    put(sizes, sizeof sizes);
    put(c.name.data(), c.name.size());
    put(c.ints.data(), c.ints.size() * sizeof(std::int64_t));
    put(c.floats.data(), c.floats.size() * sizeof(double));  // bitwise: NaN == NaN, -0.0 != 0.0
    put(c.bools.data(), c.bools.size());
    put(c.valid.data(), c.valid.size());
    for (const auto& s : c.strings) {
      const std::uint64_t n = s.size();
      put(&n, sizeof n);
      put(s.data(), s.size());
    }
  }
  return detail::hash_bytes(bytes);
}
}  // namespace

Frame Frame::from_replicated_table(Engine& engine, const LocalTable& table, std::int64_t rows_per_partition) {
  const Comm& comm = engine.comm();
  const std::uint64_t h = table_content_hash(table);
  const std::uint64_t hmin = comm.allreduce(h, ReduceOp::min), hmax = comm.allreduce(h, ReduceOp::max);
  comm.agree(hmin == hmax, "from_replicated_table: the ranks' tables differ (every rank must pass the same table; "
                           "from_local_table stacks tables that differ)");
  agree_column_lengths(comm, table, "from_replicated_table");
  const std::int64_t n = table.nrows(), p = comm.size(), r = comm.rank();
  return from_local_table(engine, table.slice(n * r / p, n * (r + 1) / p), rows_per_partition);
}

Frame map_partitions(const Frame& frame, Schema out, std::string name, PartitionFn fn, bool keeps_rows) {
  // fn is a host loop (filter, assign, ... and users' functions)
  return detail::map_partitions_with(frame, std::move(out), std::move(name), std::move(fn), keeps_rows, false);
}

Frame detail::map_partitions_with(const Frame& frame, Schema out, std::string name, PartitionFn fn, bool keeps_rows,
                                  bool device_path) {
  if (!device_path) note_host_fallback(frame.engine(), name);
  std::vector<Chunk> parts;
  auto fnp = std::make_shared<PartitionFn>(std::move(fn));
  for (const auto& p : frame.partitions())
    parts.push_back(frame.engine().tasks().submit(
        name, {p},
        [fnp](TaskContext& ctx) {
          BatchView in = input_batch(ctx, 0);
          (*fnp)(in, ctx);
        },
        TaskOptions{TraceKind::compute, false, device_path ? TaskPlace::device : TaskPlace::host}));
  std::vector<std::optional<std::int64_t>> rows;
  if (keeps_rows) rows = frame.partition_rows();
  return Frame(frame.engine(), std::move(out), std::move(parts), std::move(rows));
}

}  // namespace slab::frame
