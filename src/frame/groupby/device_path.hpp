#pragma once
/// @file device_path.hpp
/// @brief groupby on the device kernels (frame/kernels/key_encode.hpp and groupby.hpp): each input partition's
/// rows are encoded, sorted and reduced into partial records of its own groups (the records the host's partial
/// state writes out, R int64 columns), the records take the host's exchange, and each shuffled partition is
/// combined and finalised into its result partition (key columns decoded from their words). Groups come out in
/// key order, as the host's sorted result.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "frame/groupby/plan.hpp"
#include "frame/partitioner.hpp"
#include "frame/shuffle_device.hpp"
#include "slab/frame/batch.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/groupby.hpp"

namespace slab {
class TaskContext;
}

namespace slab::frame::detail {

/// groupby's route_by_key on the device kernels (PartitionKernels::range_buckets for a range partitioner, else
/// word_hashes and hash_buckets) over a batch's first W columns (key words) in the backend's memory; the
/// group transforms' hash route too.
[[nodiscard]] DeviceRouteFn device_route_by_key(std::shared_ptr<const Partitioner> part, int W);

/// Whether this groupby takes the device path: a device context and at most kMaxKeyColumns keys (with nunique,
/// key words that leave room for a pair's two; with median/quantile, for a value's one).
/// With sort=False (no order asked) the hash-routed partitions' groups come out in key order within each.
[[nodiscard]] bool groupby_takes_device_path(const Frame& frame, const GroupbyPlan& plan,
                                             const GroupbyOptions& options);

/**
 * @brief Partition `part` of this rank (`in`) aggregated into its partial records, written to output 0 of `ctx`
 * (R int64 columns: W key words, size, the states in write_record's order), groups in key order; with nunique,
 * its distinct (group, value) pairs to output 1 (W + 2 int64 columns, the host's pair records); with
 * median/quantile, the values of its kept rows to the output after those (the host's write_values layout), their
 * count in `value_rows`. Appends up to 256 of their keys (W words each) to `samples` for range routing. Returns
 * the number of records. Not collective.
 */
std::int64_t aggregate_partition_on_device(TaskContext& ctx, const GroupbyPlan& plan, const BatchView& in,
                                           std::size_t part, int rank, std::vector<std::uint64_t>& samples,
                                           std::int64_t& value_rows);

/// Shuffled partial records (`records`, R int64 columns) combined by key and finalised into the result batch of
/// plan.out_schema, output 0 of `ctx`; nunique from the shuffled distinct `pairs` of the same keys (nullptr
/// without nunique), median/quantile from the shuffled `values` (nullptr without them: GroupbyKernels::holistic).
/// Returns the number of groups. Not collective.
std::int64_t combine_records_on_device(TaskContext& ctx, const GroupbyPlan& plan, const BatchView& records,
                                       const BatchView* pairs, const BatchView* values);

}  // namespace slab::frame::detail
