#pragma once
// Private to the frame layer: shuffle_routed on the device kernels. The route writes each row's bucket into
// backend memory; the rows are grouped and gathered on the device (PartitionKernels::group_by_bucket,
// GatherKernels::column) into the same batches the host packs, then exchanged as shuffle_routed does.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/kernels/exec.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/shuffle.hpp"

namespace slab {
class TaskContext;
}

namespace slab::frame::detail {

/// bucket[i] (backend memory, batch.nrows() entries) for each row of `batch`: < nranks * nparts, or kDropRow.
using DeviceRouteFn = std::function<void(TaskContext& ctx, const slab::kernels::Exec& exec, const BatchView& batch,
                                         std::uint32_t* bucket)>;

/// FNV-1a hashes of each string key's dictionary entries (hash_rows' words for strings; empty for other keys).
[[nodiscard]] std::vector<std::vector<std::uint64_t>> dictionary_hashes(const Schema& schema,
                                                                        const std::vector<std::size_t>& keys);

/// Hot keys of a hash join (merge.cpp): sorted row hashes and the side each one's rows are replicated from.
struct HotKeys {
  std::vector<std::uint64_t> hashes;
  std::vector<std::uint8_t> sides;
};

/**
 * @brief The hash route on the device: bucket[i] = shuffle_bucket(hash_rows of row i's `keys`) for nranks *
 * nparts buckets (PartitionKernels::hash_rows, hash_buckets); with `hot` (non-empty), merge's split of hot keys
 * for `side` instead (hot_key_buckets). `dict_hashes` as dictionary_hashes gives them. Not collective.
 */
void route_by_row_hash(TaskContext& ctx, const slab::kernels::Exec& exec, const BatchView& batch,
                       const std::vector<std::size_t>& keys, const std::vector<std::vector<std::uint64_t>>& dict_hashes,
                       int nranks, int nparts, const HotKeys* hot, int side, std::uint32_t* bucket);

/**
 * @brief hash_rows' row hashes (the host's, bitwise) of rows 0, stride, 2 stride, ... of `batch` into `hashes`
 * (backend memory, ceil(nrows / stride) entries): merge's sample of key hashes, without the batch leaving the
 * device. Not collective.
 */
void sample_row_hashes(TaskContext& ctx, const slab::kernels::Exec& exec, const BatchView& batch,
                       const std::vector<std::size_t>& keys, const std::vector<std::vector<std::uint64_t>>& dict_hashes,
                       std::int64_t stride, std::uint64_t* hashes);

/**
 * @brief merge's replicated rows of one batch on the device: rows[0, k) = the rows whose key hash (hash_rows) is
 * hot with `side` replicated, in row order (rows: backend memory, batch.nrows() entries). Returns k. Not
 * collective.
 */
std::int64_t hot_rows_of_side(TaskContext& ctx, const slab::kernels::Exec& exec, const BatchView& batch,
                              const std::vector<std::size_t>& keys,
                              const std::vector<std::vector<std::uint64_t>>& dict_hashes, const HotKeys& hot, int side,
                              std::int64_t* rows);

/// shuffle_routed with a device route. Collective, as shuffle_routed.
[[nodiscard]] Frame shuffle_routed_on_device(const Frame& frame, int nparts, DeviceRouteFn route,
                                             const std::string& name);

}  // namespace slab::frame::detail
