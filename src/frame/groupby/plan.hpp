#pragma once
/// @file plan.hpp
/// @brief groupby's plan (stage 1 of 3: plan, state, output): the arguments checked and turned into the key
/// encoding, the aggregation states to keep, the output columns and the result schema; then the key words' packing
/// ranges, agreed over the ranks.

#include <cstdint>
#include <string>
#include <vector>

#include "frame/groupby/state.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/groupby.hpp"

namespace slab::frame::detail {

/// One output column: an aggregation (index into the states; -1: size) and its op; for median/quantile the
/// index into the aggregation's holistic list.
struct OutCol {
  int agg;
  AggOp op;
  int holistic = -1;
};

struct GroupbyPlan {
  GroupbyState proto;           ///< the key encoding and the aggregations (no groups): the shape of every state
  std::vector<OutCol> out_cols;  ///< after the key columns, in the order asked
  Schema out_schema;
  int W = 0;                 ///< key words per record (after packing)
  int R = 0;                 ///< words per partial record: W key words, size, the aggregations' states
  std::uint64_t direct = 0;  ///< a direct-indexed key range when the packed keys are dense enough, else 0
};

/**
 * @brief The key encoding of `keys` of `schema` (no packing ranges yet). Not collective.
 * @throws InvalidArgument for no keys, an unknown key or a key given twice.
 */
[[nodiscard]] KeyEncoder make_key_encoder(const Schema& schema, const std::vector<std::string>& keys, bool dropna);

/**
 * @brief Check the arguments and plan the states and the result. Not collective (the schema is the same on every
 * rank, so every rank throws together). @throws InvalidArgument for unknown columns, no keys, a key also
 * aggregated, an empty op list or a quantile outside [0, 1]; TypeError for sum/mean/std/var/median/quantile of a
 * string or timestamp column.
 */
[[nodiscard]] GroupbyPlan make_plan(const Schema& schema, const std::vector<std::string>& keys,
                                    const std::vector<Aggregation>& aggregations, const GroupbyOptions& options);

/**
 * @brief Set the key words' packing (static for bool/string keys; one min/max pass over the frame when an int or
 * float key shares the tuple with others), then W, R and direct. Collective (two allreduces when a pass is needed).
 */
void plan_key_ranges(GroupbyPlan& plan, const Frame& frame);

}  // namespace slab::frame::detail
