#pragma once
/// @file batch.hpp
/// @brief A Batch: one partition of a frame (every column), serialised into ONE task-queue buffer so that
/// it spills as a unit. BatchView reads one (non-owning, over pinned bytes); BatchBuilder writes one.
///
/// A batch in GPU memory (a device task's input or output, where the device tier is GPU memory) is read and
/// written with its execution context: the view keeps a host copy of the headers, the builder writes them with
/// slab::copy, and column pointers are device pointers for the device kernels. Such a view refuses host reads
/// (column(), is_valid(), is_null()); the reference place builds its views the same way, so CI finds them.
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
#include <memory>
#include <span>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/frame/schema.hpp"

namespace slab {
class TaskContext;
class ExecutionContext;
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
  /// A batch in the memory of `where`'s device tier: its headers are copied to the host where that is not host
  /// memory (or is the reference place), and the view then refuses host reads of its values.
  BatchView(std::span<const std::byte> bytes, const ExecutionContext& where);
  /// A view that owns a host copy of the batch at `bytes` in `where`'s memory (one copy on a GPU; none, and a
  /// plain view, where the bytes are host memory).
  [[nodiscard]] static BatchView copied_to_host(std::span<const std::byte> bytes, const ExecutionContext& where);

  [[nodiscard]] std::int64_t nrows() const noexcept { return nrows_; }
  /// Whether the host may read the values (false for a view of a device-resident batch).
  [[nodiscard]] bool host_readable() const noexcept { return host_readable_; }
  [[nodiscard]] std::size_t ncols() const noexcept { return ncols_; }
  [[nodiscard]] ElementType type(std::size_t i) const;
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }

  /// Column i's values. @throws TypeError when sizeof(T) differs from the column's value size.
  template <class T>
  [[nodiscard]] std::span<const T> column(std::size_t i) const {
    const ColumnHeader& h = header(i);
    check_elem(i, sizeof(T));
    check_host_read("column");
    return {reinterpret_cast<const T*>(bytes_.data() + h.data_offset), static_cast<std::size_t>(nrows_)};
  }
  /// Column i's raw value bytes (nrows * dtype_size), where the batch lives (a device pointer on a GPU).
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
  void check_host_read(const char* what) const;
  std::span<const std::byte> bytes_;
  std::int64_t nrows_ = 0;
  std::size_t ncols_ = 0;
  const ColumnHeader* headers_ = nullptr;
  bool host_readable_ = true;
  std::shared_ptr<const std::vector<std::byte>> owned_;  ///< headers copied from the device, or a host copy
};

/// Input i of a task as a batch, where the task's context has it (BatchView(bytes, ctx.execution())).
[[nodiscard]] BatchView input_batch(const TaskContext& ctx, std::size_t i);

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
  /// Write the header into `out` (at least size_for(...) bytes, host memory). has_validity empty = no masks.
  BatchBuilder(std::span<std::byte> out, std::int64_t nrows, const std::vector<ElementType>& types,
               const std::vector<bool>& has_validity);
  /// The same into `out` in the memory of `where`'s device tier (see the file's comment).
  BatchBuilder(std::span<std::byte> out, std::int64_t nrows, const std::vector<ElementType>& types,
               const std::vector<bool>& has_validity, const ExecutionContext& where);
  /// Allocate ctx.output(size_for(...)) and write the header there (with ctx.execution(): a device task's output
  /// is in the device tier).
  BatchBuilder(TaskContext& ctx, std::int64_t nrows, const Schema& schema, const std::vector<bool>& has_validity);
  /// Same into output `output` of a multi-output task.
  BatchBuilder(TaskContext& ctx, std::int64_t nrows, const std::vector<ElementType>& types,
               const std::vector<bool>& has_validity, std::size_t output = 0);
  /// A builder into an owned host vector (for shuffles and gathers); see bytes().
  BatchBuilder(std::vector<std::byte>& storage, std::int64_t nrows, const std::vector<ElementType>& types,
               const std::vector<bool>& has_validity);

  [[nodiscard]] std::int64_t nrows() const noexcept { return nrows_; }
  [[nodiscard]] std::size_t ncols() const noexcept { return types_.size(); }
  /// Column i's values, where the batch is written (device memory for a device-resident batch: for kernels).
  template <class T>
  [[nodiscard]] std::span<T> column(std::size_t i) {
    SLAB_EXPECTS(sizeof(T) == element_size(types_.at(i)), TypeError, "BatchBuilder::column: wrong element size");
    return {reinterpret_cast<T*>(out_.data() + headers_.at(i).data_offset), static_cast<std::size_t>(nrows_)};
  }
  [[nodiscard]] std::byte* data(std::size_t i) { return out_.data() + headers_.at(i).data_offset; }
  /// Column i's mask (all 1 initially), or nullptr when built without one.
  [[nodiscard]] std::uint8_t* valid(std::size_t i) {
    auto off = headers_.at(i).validity_offset;
    return off ? reinterpret_cast<std::uint8_t*>(out_.data() + off) : nullptr;
  }
  [[nodiscard]] std::span<std::byte> bytes() const noexcept { return out_; }
  [[nodiscard]] BatchView view() const;

 private:
  void init(std::int64_t nrows, const std::vector<ElementType>& types, const std::vector<bool>& has_validity);
  std::span<std::byte> out_;
  std::int64_t nrows_ = 0;
  std::vector<ElementType> types_;
  std::vector<ColumnHeader> headers_;        ///< as written into out_ (kept on the host)
  const ExecutionContext* where_ = nullptr;  ///< out_'s memory; null: host memory
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
/// The same into `out` (exactly concat_batches_bytes(in, types) bytes) in `where`'s device tier; on a GPU's context
/// the inputs may each be in host or device memory.
void concat_batches(std::span<const BatchView> in, const std::vector<ElementType>& types, std::span<std::byte> out,
                    const ExecutionContext& where);
/// The bytes concat_batches writes for these batches.
[[nodiscard]] std::uint64_t concat_batches_bytes(std::span<const BatchView> in, const std::vector<ElementType>& types);

}  // namespace slab::frame
