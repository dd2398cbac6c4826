#include "slab/frame/batch.hpp"

#include <cmath>

#include "slab/runtime/execution_context.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {
constexpr std::uint64_t align8(std::uint64_t n) { return (n + 7) & ~std::uint64_t{7}; }

// Whether bytes in `where`'s device tier are read as a GPU's would be: through copies (the reference place too,
// so that CI takes the path a GPU takes).
bool device_resident(const ExecutionContext* where) { return where && where->place() != ExecutionPlace::host; }

}  // namespace

BatchView::BatchView(std::span<const std::byte> bytes) : BatchView(bytes, ExecutionContext::host()) {}

BatchView::BatchView(std::span<const std::byte> bytes, const ExecutionContext& where)
    : bytes_(bytes), host_readable_(!device_resident(&where)) {
  if (bytes.empty()) return;
  SLAB_EXPECTS(bytes.size() >= sizeof(BatchHeader), InvalidArgument, "BatchView: buffer too short for a batch");
  BatchHeader h;
  slab::copy(&h, bytes.data(), sizeof h, where);
  SLAB_EXPECTS(h.magic == BatchHeader{}.magic, InvalidArgument, "BatchView: not a batch (bad magic)");
  SLAB_EXPECTS(bytes.size() >= sizeof(BatchHeader) + h.ncols * sizeof(ColumnHeader), InvalidArgument,
               "BatchView: buffer too short for its column headers");
  nrows_ = h.nrows;
  ncols_ = h.ncols;
  const std::byte* at = bytes.data() + sizeof(BatchHeader);
  if (!host_readable_) {  // the column headers read on the host, from a copy
    auto headers = std::make_shared<std::vector<std::byte>>(ncols_ * sizeof(ColumnHeader));
    slab::copy(headers->data(), at, headers->size(), where);
    at = headers->data();
    owned_ = std::move(headers);
  }
  headers_ = reinterpret_cast<const ColumnHeader*>(at);
}

BatchView BatchView::copied_to_host(std::span<const std::byte> bytes, const ExecutionContext& where) {
  if (!where.on_device()) return BatchView(bytes);
  auto host = std::make_shared<std::vector<std::byte>>(bytes.size());
  slab::copy(host->data(), bytes.data(), bytes.size(), where);
  BatchView view{std::span<const std::byte>(*host)};
  view.owned_ = std::move(host);
  return view;
}

BatchView input_batch(const TaskContext& ctx, std::size_t i) { return BatchView(ctx.input(i), ctx.execution()); }

const ColumnHeader& BatchView::header(std::size_t i) const {
  SLAB_EXPECTS(i < ncols_, InvalidArgument,
               "BatchView: column " + std::to_string(i) + " out of range (" + std::to_string(ncols_) + " columns)");
  return headers_[i];
}

void BatchView::check_host_read(const char* what) const {
  SLAB_EXPECTS(host_readable_, Error,
               std::string("BatchView::") + what +
                   ": the batch is in device memory; a host kernel reads it in a host task (TaskPlace::host, "
                   "staged) or through view_chunk (internal)");
}

ElementType BatchView::type(std::size_t i) const { return static_cast<ElementType>(header(i).type); }

void BatchView::check_elem(std::size_t i, std::size_t size) const {
  SLAB_EXPECTS(element_size(type(i)) == size, TypeError,
               std::string("BatchView::column: element size ") + std::to_string(size) + " for a " + to_string(type(i)) +
                   " column");
}

bool BatchView::is_valid(std::size_t i, std::int64_t row) const {
  check_host_read("is_valid");
  const auto* v = valid(i);
  if (v && !v[row]) return false;
  if (type(i) == ElementType::string) return reinterpret_cast<const std::int32_t*>(data(i))[row] >= 0;
  return true;
}

bool BatchView::is_null(std::size_t i, std::int64_t row) const {
  if (!is_valid(i, row)) return true;
  if (type(i) == ElementType::float64) return std::isnan(reinterpret_cast<const double*>(data(i))[row]);
  return false;
}

std::uint64_t BatchBuilder::size_for(std::int64_t nrows, const std::vector<ElementType>& types,
                                     const std::vector<bool>& has_validity) {
  std::uint64_t n = static_cast<std::uint64_t>(nrows);
  std::uint64_t size = sizeof(BatchHeader) + types.size() * sizeof(ColumnHeader);
  for (std::size_t i = 0; i < types.size(); ++i) {
    size += align8(n * element_size(types[i]));
    if (i < has_validity.size() && has_validity[i]) size += align8(n);
  }
  return size;
}

std::uint64_t BatchBuilder::size_for(std::int64_t nrows, const Schema& schema, const std::vector<bool>& has_validity) {
  return size_for(nrows, types_of(schema), has_validity);
}

BatchBuilder::BatchBuilder(std::span<std::byte> out, std::int64_t nrows, const std::vector<ElementType>& types,
                           const std::vector<bool>& has_validity)
    : out_(out) {
  init(nrows, types, has_validity);
}

BatchBuilder::BatchBuilder(TaskContext& ctx, std::int64_t nrows, const Schema& schema,
                           const std::vector<bool>& has_validity)
    : BatchBuilder(ctx, nrows, types_of(schema), has_validity) {}

BatchBuilder::BatchBuilder(std::span<std::byte> out, std::int64_t nrows, const std::vector<ElementType>& types,
                           const std::vector<bool>& has_validity, const ExecutionContext& where)
    : out_(out), where_(&where) {
  init(nrows, types, has_validity);
}

BatchBuilder::BatchBuilder(TaskContext& ctx, std::int64_t nrows, const std::vector<ElementType>& types,
                           const std::vector<bool>& has_validity, std::size_t output)
    : out_(ctx.output(size_for(nrows, types, has_validity), output)), where_(&ctx.execution()) {
  init(nrows, types, has_validity);
}

BatchView BatchBuilder::view() const { return where_ ? BatchView(out_, *where_) : BatchView(out_); }

BatchBuilder::BatchBuilder(std::vector<std::byte>& storage, std::int64_t nrows, const std::vector<ElementType>& types,
                           const std::vector<bool>& has_validity) {
  storage.resize(size_for(nrows, types, has_validity));
  out_ = storage;
  init(nrows, types, has_validity);
}

void BatchBuilder::init(std::int64_t nrows, const std::vector<ElementType>& types,
                        const std::vector<bool>& has_validity) {
  SLAB_EXPECTS(nrows >= 0, InvalidArgument, "BatchBuilder: negative row count");
  auto need = size_for(nrows, types, has_validity);
  SLAB_EXPECTS(out_.size() >= need, InvalidArgument,
               "BatchBuilder: output of " + std::to_string(out_.size()) + " bytes, need " + std::to_string(need));
  nrows_ = nrows;
  types_ = types;
  // Headers and fills are written through slab::copy / slab::fill, so that the same code writes a batch in host
  // or GPU memory (where_; host memory when null).
  const ExecutionContext& where = where_ ? *where_ : ExecutionContext::host();
  BatchHeader h;
  h.nrows = nrows;
  h.ncols = types.size();
  std::uint64_t n = static_cast<std::uint64_t>(nrows);
  std::uint64_t offset = sizeof(BatchHeader) + types.size() * sizeof(ColumnHeader);
  headers_.assign(types.size(), ColumnHeader{});
  for (std::size_t i = 0; i < types.size(); ++i) {
    headers_[i].type = static_cast<std::uint64_t>(types[i]);
    headers_[i].data_offset = offset;
    std::uint64_t bytes = n * element_size(types[i]);
    slab::fill(out_.data() + offset + bytes, 0, align8(bytes) - bytes, where);  // deterministic padding
    offset += align8(bytes);
  }
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i < has_validity.size() && has_validity[i]) {
      headers_[i].validity_offset = offset;
      slab::fill(out_.data() + offset, 1, n, where);
      slab::fill(out_.data() + offset + n, 0, align8(n) - n, where);
      offset += align8(n);
    }
  }
  slab::copy(out_.data(), &h, sizeof h, where);
  if (!headers_.empty())
    slab::copy(out_.data() + sizeof h, headers_.data(), headers_.size() * sizeof(ColumnHeader), where);
}

std::vector<ElementType> types_of(const Schema& schema) {
  std::vector<ElementType> out;
  for (const auto& f : schema.fields()) out.push_back(f.type);
  return out;
}

namespace {

/// Column types and masks of take_rows' output.
void take_layout(const BatchView& in, std::span<const std::int64_t> rows, std::vector<ElementType>& types,
                 std::vector<bool>& masks) {
  bool any_null_row = false;
  for (auto r : rows) any_null_row |= r < 0;
  for (std::size_t c = 0; c < in.ncols(); ++c) {
    types.push_back(in.type(c));
    masks.push_back(in.valid(c) != nullptr || (any_null_row && in.type(c) != ElementType::string));
  }
}

template <class T>
void gather_values(const std::byte* src, std::byte* dst, std::span<const std::int64_t> rows, T null_value) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  for (std::size_t i = 0; i < rows.size(); ++i) d[i] = rows[i] >= 0 ? s[rows[i]] : null_value;
}

/// `alloc(bytes)` returns the span the batch is written to.
template <class Alloc>
void take_rows_impl(const BatchView& in, std::span<const std::int64_t> rows, Alloc&& alloc) {
  SLAB_EXPECTS(in.host_readable(), Error, "take_rows: the batch is in device memory (internal)");
  std::vector<ElementType> types;
  std::vector<bool> masks;
  take_layout(in, rows, types, masks);
  const auto n = static_cast<std::int64_t>(rows.size());
  BatchBuilder b(alloc(BatchBuilder::size_for(n, types, masks)), n, types, masks);
  for (std::size_t c = 0; c < in.ncols(); ++c) {
    const std::byte* src = in.data(c);
    std::byte* dst = b.data(c);
    switch (element_size(types[c])) {
      case 8:
        gather_values<std::uint64_t>(src, dst, rows, 0);
        break;
      case 4:
        gather_values<std::int32_t>(src, dst, rows, -1);
        break;
      default:
        gather_values<std::uint8_t>(src, dst, rows, 0);
        break;
    }
    if (auto* v = b.valid(c)) {
      const auto* iv = in.valid(c);
      for (std::size_t i = 0; i < rows.size(); ++i) v[i] = rows[i] < 0 ? 0 : (iv ? iv[rows[i]] : 1);
    }
  }
}

/// concat_batches' row count and masks.
std::int64_t concat_layout(std::span<const BatchView> in, const std::vector<ElementType>& types,
                           std::vector<bool>& masks) {
  std::int64_t n = 0;
  masks.assign(types.size(), false);
  for (const auto& b : in) {
    if (b.ncols() == 0 && b.nrows() == 0) continue;
    SLAB_EXPECTS(b.ncols() == types.size(), ShapeError, "concat_batches: column counts differ");
    n += b.nrows();
    for (std::size_t c = 0; c < types.size(); ++c) {
      SLAB_EXPECTS(b.type(c) == types[c], TypeError, "concat_batches: column types differ");
      if (b.valid(c)) masks[c] = true;
    }
  }
  return n;
}

/// Copies go through slab::copy on `where` (host memory: memcpy), so inputs and output may each be host or device
/// memory where `where` is a GPU's context (only the headers are read on the host).
template <class Alloc>
void concat_impl(std::span<const BatchView> in, const std::vector<ElementType>& types, Alloc&& alloc,
                 const ExecutionContext& where) {
  std::vector<bool> masks;
  const std::int64_t n = concat_layout(in, types, masks);
  const bool host = where.place() == ExecutionPlace::host;
  for (const auto& b : in)
    SLAB_EXPECTS(!host || b.host_readable(), Error, "concat_batches: a batch is in device memory (internal)");
  BatchBuilder out_b(alloc(BatchBuilder::size_for(n, types, masks)), n, types, masks, where);
  for (std::size_t c = 0; c < types.size(); ++c) {
    std::size_t es = element_size(types[c]);
    std::int64_t at = 0;
    for (const auto& b : in) {
      if (b.nrows() == 0) continue;
      slab::copy(out_b.data(c) + at * es, b.data(c), static_cast<std::size_t>(b.nrows()) * es, where);
      if (auto* v = out_b.valid(c)) {
        if (const auto* iv = b.valid(c)) slab::copy(v + at, iv, static_cast<std::size_t>(b.nrows()), where);
      }
      at += b.nrows();
    }
  }
}

auto to_vector(std::vector<std::byte>& storage) {
  return [&storage](std::uint64_t bytes) {
    storage.resize(bytes);
    return std::span<std::byte>(storage);
  };
}
auto to_output(TaskContext& ctx, std::size_t output) {
  return [&ctx, output](std::uint64_t bytes) { return ctx.output(bytes, output); };
}

}  // namespace

void take_rows(const BatchView& in, std::span<const std::int64_t> rows, TaskContext& ctx, std::size_t output) {
  take_rows_impl(in, rows, to_output(ctx, output));
}
void take_rows(const BatchView& in, std::span<const std::int64_t> rows, std::vector<std::byte>& storage) {
  take_rows_impl(in, rows, to_vector(storage));
}
void take_rows(const BatchView& in, std::span<const std::int64_t> rows, std::span<std::byte> out) {
  take_rows_impl(in, rows, [out](std::uint64_t bytes) {
    SLAB_EXPECTS(bytes == out.size(), InvalidArgument,
                 "take_rows: output of " + std::to_string(out.size()) + " bytes, need " + std::to_string(bytes));
    return out;
  });
}
std::uint64_t take_rows_bytes(const BatchView& in, std::span<const std::int64_t> rows) {
  std::vector<ElementType> types;
  std::vector<bool> masks;
  take_layout(in, rows, types, masks);
  return BatchBuilder::size_for(static_cast<std::int64_t>(rows.size()), types, masks);
}
void concat_batches(std::span<const BatchView> in, const std::vector<ElementType>& types, TaskContext& ctx,
                    std::size_t output) {
  concat_impl(in, types, to_output(ctx, output), ctx.execution());
}
void concat_batches(std::span<const BatchView> in, const std::vector<ElementType>& types,
                    std::vector<std::byte>& storage) {
  concat_impl(in, types, to_vector(storage), ExecutionContext::host());
}
void concat_batches(std::span<const BatchView> in, const std::vector<ElementType>& types, std::span<std::byte> out,
                    const ExecutionContext& where) {
  concat_impl(
      in, types,
      [out](std::uint64_t bytes) {
        SLAB_EXPECTS(
            bytes == out.size(), InvalidArgument,
            "concat_batches: output of " + std::to_string(out.size()) + " bytes, need " + std::to_string(bytes));
        return out;
      },
      where);
}
std::uint64_t concat_batches_bytes(std::span<const BatchView> in, const std::vector<ElementType>& types) {
  std::vector<bool> masks;
  const std::int64_t n = concat_layout(in, types, masks);
  return BatchBuilder::size_for(n, types, masks);
}

}  // namespace slab::frame
