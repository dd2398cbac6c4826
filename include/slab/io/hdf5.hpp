#pragma once
/// @file hdf5.hpp
/// @brief Parallel HDF5 on raw buffers: collective open and validation of a dataset, independent hyperslab
/// reads (what the lazy read tasks call), and an atomic collective writer (temporary name, moved into place
/// with H5Lmove only when complete). This header includes no HDF5 header: libslab links HDF5 privately.
///
/// Datasets are rank 1 or 2, of float32, float64, int32 or int64, contiguous, chunked or chunked + deflate. A
/// 1-D dataset of length n is seen as n x 1. Every collective function reports a failure on any rank as the
/// same exception on every rank (Comm::run_collectively), so a bad file never hangs a job.

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/core/element_type.hpp"

namespace slab {
class MemoryManager;
}  // namespace slab

namespace slab::io {

/// A validated dataset.
struct DatasetInfo {
  std::string file;     ///< path of the HDF5 file
  std::string dataset;  ///< absolute object path, "/X"
  ElementType type = ElementType::float64;
  std::vector<std::uint64_t> shape;  ///< 1 or 2 extents
  std::vector<std::uint64_t> chunk;  ///< chunk extents; empty when the layout is not chunked
  bool filtered = false;             ///< has filters (deflate, ...)

  /// Rows (shape[0]).
  [[nodiscard]] std::uint64_t rows() const noexcept { return shape.empty() ? 0 : shape[0]; }
  /// Columns (shape[1]; 1 for a 1-D dataset).
  [[nodiscard]] std::uint64_t cols() const noexcept { return shape.size() < 2 ? 1 : shape[1]; }
  /// "file:/dataset", for messages.
  [[nodiscard]] std::string name() const { return file + ":" + dataset; }
};

/**
 * @brief Open `file` collectively over `comm` with the MPI-IO driver, validate `dataset` and close the file.
 * Collective. Checks, in order, with these messages (every rank throws the same; Error::origin_rank() names
 * the rank that found it):
 * - IoError "<file>: no such file" / "<file>: not an HDF5 file" / "<file>: cannot open: <HDF5's reason>"
 * - IoError "<file>: no dataset '<dataset>'" (also when an intermediate group is missing) or
 *   "<file>:<dataset> is not a dataset"
 * - ShapeError "<file>:<dataset> has rank R; expected 1 or 2"
 * - TypeError "<file>:<dataset> has dtype <d>; expected float32, float64, int32 or int64"
 * - TypeError "<file>:<dataset> is <d>; expected <expected>" when `expected` is given and differs.
 */
DatasetInfo inspect(const Comm& comm, const std::string& file, const std::string& dataset);
DatasetInfo inspect(const Comm& comm, const std::string& file, const std::string& dataset, ElementType expected);

/// Whether `file` exists and holds an object `dataset`. Collective (rank 0 looks, the answer is broadcast).
bool exists(const Comm& comm, const std::string& file, const std::string& dataset);

/**
 * @brief Read rows [row0, row0 + nrows) x columns [col0, col0 + ncols) of the dataset into `out` as a
 * row-major nrows x ncols block of `mem_type` (HDF5 converts when the stored type differs). Not collective:
 * the file is opened read-only on this rank alone (sec2 driver, no file lock) for the duration of the call,
 * which is what lets any rank read any hyperslab in any task at any time.
 * @throws IoError naming the file, dataset and hyperslab, with the HDF5 error stack; ShapeError when the
 * hyperslab is outside the dataset.
 */
void read_block(const DatasetInfo& info, std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0,
                std::uint64_t ncols, ElementType mem_type, void* out);

/**
 * @brief read_block into `out` in the memory of `memory`'s device tier: on a GPU (device memory), in slabs of whole
 * rows of about `slab_bytes` through two page-locked blocks of `memory`'s staging pool, held in a host-tier
 * reservation ("hdf5 read staging"), each slab's copy to the device overlapping the read of the next; on the
 * reference place the same slabs with host copies (so CI runs the loop); elsewhere straight into `out`. Complete
 * when it returns (it waits for the rank's stream). Not collective.
 * @throws IoError and ShapeError as read_block; OutOfMemory when the host limit cannot hold the staging blocks;
 * CudaError.
 */
void read_block_to(const DatasetInfo& info, std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0,
                   std::uint64_t ncols, ElementType mem_type, void* out, MemoryManager& memory,
                   std::uint64_t slab_bytes = std::uint64_t{8} << 20);

/**
 * @brief XXH64 of the dataset's elements in row-major order (read in pieces of rows on this rank).
 * Not collective; for checking that a dataset was left untouched. @throws IoError.
 */
std::uint64_t dataset_checksum(const DatasetInfo& info);

/**
 * @brief Writes one dataset collectively and atomically.
 *
 * The constructor opens (or creates) the file collectively with the MPI-IO driver and creates the dataset
 * under a temporary name "<parent>/.<name>.slab-tmp" (a stale one from a crashed run is removed first); ranks
 * then write hyperslabs (write(): independent, any rank any number of times; write_collective(): every rank
 * calls it the same number of times, possibly with an empty block). commit() closes the dataset and, only
 * then, removes an existing dataset of the target name and moves the temporary into place with H5Lmove.
 * Other objects of the file are never touched. A writer destroyed without commit() leaves the target as it
 * was (absent or old); only the hidden temporary remains, removed by the next writer of that name.
 */
class DatasetWriter {
 public:
  /**
   * @brief Collective. `chunk` empty: contiguous layout; otherwise chunked (no filters), chunk extents
   * clamped to the shape. @throws IoError (every rank) when the file cannot be opened or created, when
   * the parent group is missing, or when `dataset` names an object that is not a dataset; ShapeError
   * for a rank other than 1 or 2 or a zero chunk extent.
   */
  DatasetWriter(const Comm& comm, std::string file, std::string dataset, ElementType type,
                std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunk = {});
  /// Closes what is open (without moving anything into place). Must be reached on every rank (SPMD).
  ~DatasetWriter();
  DatasetWriter(const DatasetWriter&) = delete;
  DatasetWriter& operator=(const DatasetWriter&) = delete;

  /// Not collective: write a row-major nrows x ncols block of the writer's type at (row0, col0).
  /// @throws ShapeError outside the dataset; IoError with the HDF5 stack.
  void write(std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0, std::uint64_t ncols, const void* data);
  /// Collective (same number of calls on every rank; nrows or ncols may be 0): one MPI-IO collective write.
  void write_collective(std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0, std::uint64_t ncols,
                        const void* data);
  /// Collective: agree that every rank's writes succeeded, close, replace, move into place, close the file.
  /// @throws the agreed error; the target is then untouched.
  void commit();

  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] const std::string& dataset() const noexcept { return dataset_; }
  [[nodiscard]] const std::vector<std::uint64_t>& shape() const noexcept { return shape_; }

 private:
  void write_impl(std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0, std::uint64_t ncols, const void* data,
                  bool collective);
  void close_handles() noexcept;
  /// Collective: agree on `error` (null: this rank is fine); on any failure close the handles and throw.
  void agree_or_close(std::exception_ptr error);

  Comm comm_;
  std::string file_;
  std::string dataset_;
  std::string temp_;
  ElementType type_;
  std::vector<std::uint64_t> shape_;
  std::int64_t file_id_ = -1;  ///< hid_t
  std::int64_t dset_id_ = -1;  ///< hid_t
  bool failed_ = false;        ///< a write threw on this rank: commit() refuses on every rank
  bool committed_ = false;
};

/**
 * @brief Write a whole dataset from a generator, tile by tile: the dataset is cut into tiles of
 * tile_rows x tile_cols (the last ones smaller), tile t goes to rank t % size, and each rank fills a tile
 * with `fill(row0, nrows, col0, ncols, out)` (out: row-major nrows x ncols of `type`) and writes it. Tiles
 * equal to the chunk extents make every write one contiguous piece of the file. Collective; atomic as
 * DatasetWriter; one tile buffer per rank at a time.
 */
void write_generated(const Comm& comm, const std::string& file, const std::string& dataset, ElementType type,
                     std::vector<std::uint64_t> shape, std::vector<std::uint64_t> chunk, std::uint64_t tile_rows,
                     std::uint64_t tile_cols,
                     const std::function<void(std::uint64_t row0, std::uint64_t nrows, std::uint64_t col0,
                                              std::uint64_t ncols, void* out)>& fill);

}  // namespace slab::io
