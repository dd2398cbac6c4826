#pragma once
/// @file batch.hpp
/// @brief A Batch: one partition of a frame (every column), serialised into ONE task-queue buffer so that
/// it spills as a unit. BatchView reads one (non-owning, over pinned bytes); BatchBuilder writes one.
///
/// Layout (all offsets in bytes from the start of the buffer, every array 8-byte aligned):
///   BatchHeader { magic, nrows, ncols }
///   ColumnHeader[ncols] { type, data offset, validity offset (0 = all valid) }
///   column arrays: int64/timestamp/float64 8-byte values, boolean uint8, string int32 codes (-1 null);
///   validity arrays: uint8 per row (1 = valid).
/// Nothing here is collective.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/frame/schema.hpp"

namespace slab {
class TaskContext;
}

namespace slab::frame {

struct BatchHeader {
  std::uint64_t magic = 0x48435441424C5331ull;  // "1SLBATCH"
  std::int64_t nrows = 0;
  std::uint64_t ncols = 0;
};
struct ColumnHeader {
  std::uint64_t type = 0;  ///< ElementType
  std::uint64_t data_offset = 0;
  std::uint64_t validity_offset = 0;  ///< 0 = all valid
};

/// A read-only view of a serialised batch. Cheap to copy; valid while the bytes are (keep the Pin alive).
class BatchView {
 public:
  BatchView() = default;
  /// @throws InvalidArgument when the bytes are not a batch (bad magic, too short). Empty bytes = 0x0 batch.
  explicit BatchView(std::span<const std::byte> bytes);

  [[nodiscard]] std::int64_t nrows() const noexcept { return nrows_; }
  [[nodiscard]] std::size_t ncols() const noexcept { return ncols_; }
  [[nodiscard]] ElementType type(std::size_t i) const;
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }

  /// Column i's values. @throws TypeError when sizeof(T) differs from the column's value size.
  template <class T>
  [[nodiscard]] std::span<const T> column(std::size_t i) const {
    const ColumnHeader& h = header(i);
    check_elem(i, sizeof(T));
    return {reinterpret_cast<const T*>(bytes_.data() + h.data_offset), static_cast<std::size_t>(nrows_)};
  }
  /// Column i's raw value bytes (nrows * dtype_size).
  [[nodiscard]] const std::byte* data(std::size_t i) const { return bytes_.data() + header(i).data_offset; }
  /// Column i's validity mask (1 = valid), or nullptr when every value is valid.
  [[nodiscard]] const std::uint8_t* valid(std::size_t i) const {
    const ColumnHeader& h = header(i);
    return h.validity_offset ? reinterpret_cast<const std::uint8_t*>(bytes_.data() + h.validity_offset) : nullptr;
  }
  /// Whether (i, row) is valid by the mask (string code -1 also counts as invalid). NaN is NOT checked here.
  [[nodiscard]] bool is_valid(std::size_t i, std::int64_t row) const;
  /// Null like pandas: masked out, string code -1, or NaN in a float64 column.
  [[nodiscard]] bool is_null(std::size_t i, std::int64_t row) const;

 private:
  [[nodiscard]] const ColumnHeader& header(std::size_t i) const;
  void check_elem(std::size_t i, std::size_t size) const;
  std::span<const std::byte> bytes_;
  std::int64_t nrows_ = 0;
  std::size_t ncols_ = 0;
};

/**
 * @brief Writes a batch: the size for (nrows, types, which columns have validity), then the header, then
 * mutable column spans. Validity masks start all valid (1); value arrays start uninitialised (fill them all).
 */
class BatchBuilder {
 public:
  /// Bytes of a batch with these columns.
  [[nodiscard]] static std::uint64_t size_for(std::int64_t nrows, const std::vector<ElementType>& types,
                                              const std::vector<bool>& has_validity);
  [[nodiscard]] static std::uint64_t size_for(std::int64_t nrows, const Schema& schema,
                                              const std::vector<bool>& has_validity);
  /// Write the header into `out` (at least size_for(...) bytes). has_validity empty = no masks.
  BatchBuilder(std::span<std::byte> out, std::int64_t nrows, const std::vector<ElementType>& types,
               const std::vector<bool>& has_validity);
  /// Allocate ctx.output(size_for(...)) and write the header there.
  BatchBuilder(TaskContext& ctx, std::int64_t nrows, const Schema& schema, const std::vector<bool>& has_validity);
  /// Same into output `output` of a multi-output task.
  BatchBuilder(TaskContext& ctx, std::int64_t nrows, const std::vector<ElementType>& types,
               const std::vector<bool>& has_validity, std::size_t output = 0);
  /// A builder into an owned host vector (for shuffles and gathers); see bytes().
  BatchBuilder(std::vector<std::byte>& storage, std::int64_t nrows, const std::vector<ElementType>& types,
               const std::vector<bool>& has_validity);

  [[nodiscard]] std::int64_t nrows() const noexcept { return nrows_; }
  [[nodiscard]] std::size_t ncols() const noexcept { return types_.size(); }
  template <class T>
  [[nodiscard]] std::span<T> column(std::size_t i) {
    SLAB_EXPECTS(sizeof(T) == element_size(types_.at(i)), TypeError, "BatchBuilder::column: wrong element size");
    return {reinterpret_cast<T*>(out_.data() + headers()[i].data_offset), static_cast<std::size_t>(nrows_)};
  }
  [[nodiscard]] std::byte* data(std::size_t i) { return out_.data() + headers()[i].data_offset; }
  /// Column i's mask (all 1 initially), or nullptr when built without one.
  [[nodiscard]] std::uint8_t* valid(std::size_t i) {
    auto off = headers()[i].validity_offset;
    return off ? reinterpret_cast<std::uint8_t*>(out_.data() + off) : nullptr;
  }
  [[nodiscard]] std::span<std::byte> bytes() const noexcept { return out_; }
  [[nodiscard]] BatchView view() const { return BatchView(out_); }

 private:
  void init(std::int64_t nrows, const std::vector<ElementType>& types, const std::vector<bool>& has_validity);
  ColumnHeader* headers() { return reinterpret_cast<ColumnHeader*>(out_.data() + sizeof(BatchHeader)); }
  std::span<std::byte> out_;
  std::int64_t nrows_ = 0;
  std::vector<ElementType> types_;
};

/// The column types of a schema.
[[nodiscard]] std::vector<ElementType> types_of(const Schema& schema);

/**
 * @brief Copy rows of `in` selected by `rows` (indices into in, in output order) into a new batch written to
 * `ctx`'s output `output` (or `storage`, or `out` of exactly take_rows_bytes(in, rows) bytes). Masks are kept
 * where the input column has one. -1 in rows = a null row.
 */
void take_rows(const BatchView& in, std::span<const std::int64_t> rows, TaskContext& ctx, std::size_t output = 0);
void take_rows(const BatchView& in, std::span<const std::int64_t> rows, std::vector<std::byte>& storage);
void take_rows(const BatchView& in, std::span<const std::int64_t> rows, std::span<std::byte> out);
/// The bytes take_rows writes for these rows.
[[nodiscard]] std::uint64_t take_rows_bytes(const BatchView& in, std::span<const std::int64_t> rows);
/// Concatenate batches of the same column types into one (masks where any input has one).
void concat_batches(std::span<const BatchView> in, const std::vector<ElementType>& types, TaskContext& ctx,
                    std::size_t output = 0);
void concat_batches(std::span<const BatchView> in, const std::vector<ElementType>& types,
                    std::vector<std::byte>& storage);

}  // namespace slab::frame
