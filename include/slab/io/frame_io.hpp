#pragma once
/// @file frame_io.hpp
/// @brief Frames in HDF5, in the layout of docs/WORKLOADS.md ("HDF5 layout of a frame"), which h5py reads and
/// writes (pandas through h5py: the README shows how; pandas' own to_hdf writes PyTables' layout instead):
///   - a group; int64/float64 columns: 1-D datasets named after the column; bool: uint8 (0/1); timestamp:
///     int64 ns since the epoch with the attribute unit = "ns";
///   - string columns: a subgroup <column> with `codes` (int32, -1 null) and `categories` (fixed-length UTF-8),
///     so that pd.Categorical.from_codes(codes, categories) rebuilds the column;
///   - nulls: NaN in float columns; a uint8 dataset `<column>.valid` (1 = valid) for other columns with nulls;
///   - the group attribute `columns` (fixed-length UTF-8 strings) lists the column names in order.

#include <cstdint>
#include <string>

#include "slab/frame/frame.hpp"

namespace slab::io {

/**
 * @brief Write `frame` as the group `group` ("/frame", "/a/b"; missing parents are created) of `file` (created
 * when missing; other objects are left alone). Complete-or-absent: the group is written under a temporary name
 * ".<name>.slab-tmp" next to it (a stale one is removed first) and, only once every column is written and
 * closed, an existing object of the target name is removed and the temporary moved into place with H5Lmove.
 * Out of core: each rank writes its partitions one at a time (one resident), in rounds of collective MPI-IO
 * hyperslab writes, one per column and round (a rank past its last partition writes nothing); a frame of zero rows (or
 * a rank with none) writes empty datasets, as h5py does for zero-length arrays. Collective (runs the graph).
 * @throws IoError (every rank) when the file cannot be opened or created, or a write fails, saying what failed
 * in one line ("<file>: cannot create: <reason>", "<file>:<group>/<column>: H5Dwrite failed: <reason>"); the
 * target is then untouched.
 */
void write_hdf5(const frame::Frame& frame, const std::string& file, const std::string& group);

/**
 * @brief Read the frame in group `group` of `file` (written by write_hdf5, h5py or plain HDF5 calls in the layout
 * above: the `columns` attribute may hold fixed or variable-length strings; without it, the group's datasets and
 * string subgroups in alphabetical order; h5py's bool enum and float32 are accepted; unsorted or duplicated
 * categories are re-encoded into a sorted dictionary). Rank r reads rows [n r / p, n (r+1) / p), in partitions
 * of `rows_per_partition` rows (<= 0: one, or as many as keep one within MemoryManager::budget(8) when the rank's
 * rows do not fit it). Lazy reads: each partition's task reads its own rows (hyperslabs) when it runs, so the rows
 * are read out of core. Collective (the metadata).
 * A frame of zero rows reads back with its columns and types and no rows.
 * @throws IoError (every rank) for a missing file or group, a column of another length, an unsupported dtype;
 * for a group written by pandas.DataFrame.to_hdf or PyTables (group attribute `pandas_type`, or PyTables'
 * `CLASS`/`TITLE` without `columns`): "<file>:<group> was written by pandas (DataFrame.to_hdf through PyTables,
 * format='fixed'|'table', ...), which slab does not read; slab reads a group with one 1-D dataset per column ...".
 */
[[nodiscard]] frame::Frame read_hdf5(Engine& engine, const std::string& file, const std::string& group,
                                     std::int64_t rows_per_partition = 0);

}  // namespace slab::io
