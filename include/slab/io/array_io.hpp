#pragma once
/// @file array_io.hpp
/// @brief Arrays from and to HDF5 datasets: lazy chunk-by-chunk hyperslab reads, atomic collective writes.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/io/hdf5.hpp"

namespace slab::io {

/// How read_hdf5 lays the array out and which stored dtypes it accepts for T.
struct ReadOptions {
  /// Chunk length along the chunked axis (rows, or columns for Split::cols); 0: Layout's default, rounded to
  /// a multiple of the file's chunk extent along that axis when at least one file chunk long.
  std::int64_t chunk = 0;
  /// Also read a dataset stored in a narrower type that T holds exactly, converting as it is read (HDF5
  /// converts each hyperslab; no second copy): int32 as std::int64_t or double, float32 as double. Off by
  /// default, so that T is the stored dtype, as h5py gives it; a conversion that could change a value (float64
  /// to float, int64 to int32, a float to an integer, int64 to double past 2^53, int32 to float past 2^24) is
  /// never made, with or without this: read the stored dtype and convert with astype().
  bool widen = false;
};

/**
 * @brief The dataset `dataset` of `file` as an Array<T> split along `split`, read lazily: chunk i of a rank is
 * one task of kind TraceKind::io that reads its hyperslab independently when (and only when) the chunk is
 * needed. Contiguous, chunked and compressed (deflate) datasets of float32, float64, int32 and int64, read as
 * Array<float>, Array<double>, Array<std::int32_t> and Array<std::int64_t>, or widened (ReadOptions::widen). The
 * array remembers the dataset (source_dataset()), so linalg can stream it from the file in the blocks it wants
 * (X X^T in column blocks) instead of through the chunks. Collective (validation: slab::io::inspect).
 * @throws IoError / ShapeError / TypeError on every rank as slab::io::inspect; TypeError "<file>:<dataset> is
 * <stored>; expected <T's dtype>" when the stored dtype is not T's and widening is off or would not be exact
 * (the message says which).
 */
template <ArrayElement T>
Array<T> read_hdf5(Engine& engine, const std::string& file, const std::string& dataset, Split split,
                   ReadOptions options = {});

/// The ArraySource of an array read_hdf5 made: the validated dataset it reads.
struct DatasetSource : ArraySource {
  explicit DatasetSource(DatasetInfo dataset) : info(std::move(dataset)) {}
  DatasetInfo info;
};

/**
 * @brief The dataset `array` was read from when it is itself a result of read_hdf5 (a handle to it, not a slice,
 * expression or transpose of it), else null. Not collective.
 */
template <ArrayElement T>
[[nodiscard]] const DatasetInfo* source_dataset(const Array<T>& array);

/**
 * @brief Write `array` to `dataset` of `file` (created when missing; other objects untouched) collectively
 * and atomically: under a temporary name moved into place with H5Lmove only when every rank's chunks are
 * written, replacing an existing dataset of that name only then. Chunks are computed one round at a time
 * (round r: every rank's chunk r, one collective write), so a lazy array streams. The first round is computed
 * before the file is opened for writing, so an array whose collective work reads the same file (the lazy
 * X X^T of linalg::matmul, written next to X) has read it by then. `chunk`: the file's chunk
 * extents (empty: contiguous). Collective. @throws IoError (every rank); the target is then untouched.
 */
template <ArrayElement T>
void write_hdf5(const Array<T>& array, const std::string& file, const std::string& dataset,
                std::vector<std::uint64_t> chunk = {});

}  // namespace slab::io
