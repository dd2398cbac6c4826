#pragma once
/// @file output.hpp
/// @brief groupby's output (stage 3 of 3: plan, state, output): a final state's groups as the result batch, the
/// key columns decoded from their words, then one column per (column, aggregation) as pandas names and types them.

#include <cstddef>
#include <vector>

#include "frame/groupby/plan.hpp"

namespace slab::frame::detail {

/// The result batch of fin's groups (sorted by key when `sort`) into `storage`. Not collective.
void write_result(const GroupbyState& fin, const std::vector<OutCol>& out_cols, const Schema& out_schema, bool sort,
                  std::vector<std::byte>& storage);

}  // namespace slab::frame::detail
