#include "slab/frame/batch.hpp"

#include <cmath>

#include "slab/task/task_context.hpp"

namespace slab::frame {

namespace {
constexpr std::uint64_t align8(std::uint64_t n) { return (n + 7) & ~std::uint64_t{7}; }
}  // namespace

BatchView::BatchView(std::span<const std::byte> bytes) : bytes_(bytes) {
  if (bytes.empty()) return;
  SLAB_EXPECTS(bytes.size() >= sizeof(BatchHeader), InvalidArgument, "BatchView: buffer too short for a batch");
  BatchHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  SLAB_EXPECTS(h.magic == BatchHeader{}.magic, InvalidArgument, "BatchView: not a batch (bad magic)");
  SLAB_EXPECTS(bytes.size() >= sizeof(BatchHeader) + h.ncols * sizeof(ColumnHeader), InvalidArgument,
               "BatchView: buffer too short for its column headers");
  nrows_ = h.nrows;
  ncols_ = h.ncols;
}

const ColumnHeader& BatchView::header(std::size_t i) const {
  SLAB_EXPECTS(i < ncols_, InvalidArgument,
               "BatchView: column " + std::to_string(i) + " out of range (" + std::to_string(ncols_) + " columns)");
  return reinterpret_cast<const ColumnHeader*>(bytes_.data() + sizeof(BatchHeader))[i];
}

ElementType BatchView::type(std::size_t i) const { return static_cast<ElementType>(header(i).type); }

void BatchView::check_elem(std::size_t i, std::size_t size) const {
  SLAB_EXPECTS(element_size(type(i)) == size, TypeError,
               std::string("BatchView::column: element size ") + std::to_string(size) + " for a " + to_string(type(i)) +
                   " column");
}

bool BatchView::is_valid(std::size_t i, std::int64_t row) const {
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

BatchBuilder::BatchBuilder(TaskContext& ctx, std::int64_t nrows, const std::vector<ElementType>& types,
                           const std::vector<bool>& has_validity, std::size_t output)
    : out_(ctx.output(size_for(nrows, types, has_validity), output)) {
  init(nrows, types, has_validity);
}

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
  BatchHeader h;
  h.nrows = nrows;
  h.ncols = types.size();
  std::memcpy(out_.data(), &h, sizeof h);
  std::uint64_t n = static_cast<std::uint64_t>(nrows);
  std::uint64_t offset = sizeof(BatchHeader) + types.size() * sizeof(ColumnHeader);
  auto* hdr = headers();
  for (std::size_t i = 0; i < types.size(); ++i) {
    hdr[i].type = static_cast<std::uint64_t>(types[i]);
    hdr[i].data_offset = offset;
    std::uint64_t bytes = n * element_size(types[i]);
    std::memset(out_.data() + offset + bytes, 0, align8(bytes) - bytes);  // deterministic padding
    offset += align8(bytes);
    hdr[i].validity_offset = 0;
  }
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i < has_validity.size() && has_validity[i]) {
      hdr[i].validity_offset = offset;
      std::memset(out_.data() + offset, 1, n);
      std::memset(out_.data() + offset + n, 0, align8(n) - n);
      offset += align8(n);
    }
  }
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

template <class Alloc>
void concat_impl(std::span<const BatchView> in, const std::vector<ElementType>& types, Alloc&& alloc) {
  std::int64_t n = 0;
  std::vector<bool> masks(types.size(), false);
  for (const auto& b : in) {
    if (b.ncols() == 0 && b.nrows() == 0) continue;
    SLAB_EXPECTS(b.ncols() == types.size(), ShapeError, "concat_batches: column counts differ");
    n += b.nrows();
    for (std::size_t c = 0; c < types.size(); ++c) {
      SLAB_EXPECTS(b.type(c) == types[c], TypeError, "concat_batches: column types differ");
      if (b.valid(c)) masks[c] = true;
    }
  }
  BatchBuilder out_b(alloc(BatchBuilder::size_for(n, types, masks)), n, types, masks);
  for (std::size_t c = 0; c < types.size(); ++c) {
    std::size_t es = element_size(types[c]);
    std::int64_t at = 0;
    for (const auto& b : in) {
      if (b.nrows() == 0) continue;
      std::memcpy(out_b.data(c) + at * es, b.data(c), static_cast<std::size_t>(b.nrows()) * es);
      if (auto* v = out_b.valid(c)) {
        if (const auto* iv = b.valid(c)) std::memcpy(v + at, iv, static_cast<std::size_t>(b.nrows()));
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
  concat_impl(in, types, to_output(ctx, output));
}
void concat_batches(std::span<const BatchView> in, const std::vector<ElementType>& types,
                    std::vector<std::byte>& storage) {
  concat_impl(in, types, to_vector(storage));
}

}  // namespace slab::frame
