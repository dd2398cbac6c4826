#pragma once
// Private to the frame layer: a frame expression compiled for the device interpreter (frame/kernels/expr.hpp),
// with what the host's evaluation would say about the result's mask.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "frame/kernels/expr.hpp"
#include "slab/frame/batch.hpp"
#include "slab/frame/expr.hpp"
#include "slab/frame/schema.hpp"

namespace slab::frame::detail {

struct CompiledExpr {
  kernels::ExprProgram program;       ///< its columns are bound per batch (bind)
  std::vector<std::size_t> columns;   ///< the batch column of each program column
  std::vector<std::uint64_t> tables;  ///< the program's lookup tables, to copy into the backend's memory
  ElementType type = ElementType::float64;
  /// Per step, whether the host's EvalColumn there has a mask: 0 never, 1 when its batch column has one, 2 when
  /// its first operand's has, 3 when either operand's has, 4 when some row is invalid (decided by the data).
  std::vector<std::uint8_t> mask_rule;

  /// The program with the columns of `batch`.
  [[nodiscard]] kernels::ExprProgram bind(const BatchView& batch) const;
  /// Whether the host's result has a mask for `batch`, given the number of invalid rows the kernel counted.
  [[nodiscard]] bool has_mask(const BatchView& batch, std::int64_t invalid_rows) const;
};

/// `expr` over `schema` as a device program, or nullopt where the interpreter does not cover it (too many
/// steps or columns, or an expression the host evaluation rejects: the host then raises its own error).
/// Not collective.
[[nodiscard]] std::optional<CompiledExpr> compile_for_device(const Expr& expr, const Schema& schema);

}  // namespace slab::frame::detail
