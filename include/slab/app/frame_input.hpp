#pragma once
/// @file frame_input.hpp
/// @brief The frame apps' file flags: `--input FILE.h5:/group` (a frame in the HDF5 layout of
/// docs/WORKLOADS.md; FILE.h5 alone means the group /frame) or `--input FILE.csv`, and the check that an
/// input has the columns an app needs, with the types it needs.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slab/app/app.hpp"
#include "slab/frame/frame.hpp"

namespace slab {

/// Where a frame lives: an HDF5 group of a file, or a CSV file (group empty).
struct FrameFile {
  std::string file;
  std::string group;  ///< "/frame"; empty for a CSV file
  /**
   * @brief "FILE.h5:/group", "FILE.h5" or "FILE.hdf5" (group /frame), or "FILE.csv" (any case).
   * @throws InvalidArgument naming `flag` for anything else.
   */
  static FrameFile parse(const std::string& text, std::string_view flag);
  [[nodiscard]] bool is_csv() const noexcept { return group.empty(); }
  /// "FILE.h5:/group" or "FILE.csv", for messages.
  [[nodiscard]] std::string str() const { return is_csv() ? file : file + ":" + group; }
};

/// Add the option `flag` (FILE.h5:/group or FILE.csv) to `app`; parsed into `target` (exit 2 when malformed).
void add_frame_file(App& app, const std::string& flag, std::optional<FrameFile>& target, const std::string& help);

/**
 * @brief Rows per partition for an app's frame of about `row_bytes` bytes a row: `requested` when the user gave one
 * (> 0), else the most rows, up to `at_most`, whose partition fits the memory manager's budget for 8 buffers (an
 * operation's input, output and exchange partitions at once), and at least 1,024. So the apps' defaults run
 * out of core under a small --memory-limit instead of failing on a partition larger than the limit. Not
 * collective (the budget is the same on every rank at start-up).
 */
[[nodiscard]] std::int64_t partition_rows_for(Engine& engine, std::int64_t row_bytes, std::int64_t requested = 0,
                                              std::int64_t at_most = 1'000'000);

/**
 * @brief Read the frame (read_hdf5 or read_csv with inferred types), rank r taking its share of the rows, in
 * partitions of `rows_per_partition`. Collective. @throws IoError (every rank) naming the file: missing,
 * unreadable, not in the layout, malformed CSV (with line and column).
 */
[[nodiscard]] frame::Frame read_frame(Engine& engine, const FrameFile& input, std::int64_t rows_per_partition);

/**
 * @brief Write `frame` (an app's generated input, `what`: "the W3 input") as the HDF5 frame `output` (complete or
 * absent: slab::io::write_hdf5) and say so on rank 0. Collective. @throws IoError (every rank) when it cannot.
 */
void write_frame(AppContext& ctx, const frame::Frame& frame, const FrameFile& output, std::string_view what);

/// A column an app needs and the types it accepts (the first one is the one named in messages).
struct NeededColumn {
  std::string name;
  std::vector<ElementType> types;
};

/**
 * @brief Check that `frame` (read from `input`) has every needed column with an accepted type. Collective:
 * every rank throws the same agreed error, InvalidArgument "<input>: no column 'x' (columns: id, name, y)"
 * or TypeError "<input>: column 'id' is float64; <app> needs int64".
 */
void require_columns(const frame::Frame& frame, const FrameFile& input, std::string_view app,
                     const std::vector<NeededColumn>& needed);

}  // namespace slab
