#pragma once
/// @file from_arrays.hpp
/// @brief Frames from slab::Array columns, and numeric frame columns back to Arrays (pandas'
/// `pd.DataFrame({"a": a, "b": b})`, `pd.DataFrame(X, columns=names)` and `df["a"].to_numpy()`).
///
/// Both directions are lazy: one task per output partition or chunk, whose inputs are the source chunks or
/// partitions that overlap its rows; no data moves between ranks unless the sources' row distributions differ
/// (then one recorded alltoallv per mismatching array, as Array's redistribute does).

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/frame/frame.hpp"

namespace slab::frame {

/// A named column for from_arrays: a 1-D array of int64 (an int64 column), double or float (a float64 column).
struct ArrayColumn {
  std::string name;
  std::variant<Array<std::int64_t>, Array<double>, Array<float>> values;
};

/**
 * @brief A frame whose columns are the given 1-D arrays, all of the same length, in order. The rows keep the
 * first array's distribution (rank r holds its block; one partition per chunk of it); an array whose blocks
 * differ is redistributed to those blocks, and an array not split by rows (or the first one) is resplit by
 * rows first. Lazy; collective (the same calls on every rank, as for any Array operation).
 * @throws InvalidArgument for no columns or duplicate names; ShapeError (every rank) for a 2-D array or
 * different lengths, naming the column.
 */
[[nodiscard]] Frame from_arrays(const std::vector<ArrayColumn>& columns);

/**
 * @brief A frame of float64 columns named `names` from the columns of a 2-D array (`names.size()` =
 * matrix.cols()): one partition per chunk of the array split by rows (resplit first otherwise). Lazy;
 * collective. @throws ShapeError (every rank) for a 1-D array or a names count that differs from cols.
 */
[[nodiscard]] Frame from_array(const Array<double>& matrix, const std::vector<std::string>& names);

/**
 * @brief Column `name` as a 1-D Array<T> split by rows with the frame's row distribution (rank r's block is
 * its rows; uneven blocks use Layout::bounds), in chunks of `chunk` rows (<= 0: the frame's largest
 * partition). T = std::int64_t takes int64, timestamp (ns) and bool columns; T = double also float64 (nulls
 * become NaN). Each chunk is one lazy task reading the partitions it overlaps. Collective (learns the
 * partitions' row counts, running the frame when they are unknown).
 * @throws InvalidArgument for an unknown column; TypeError for a string column or float64 into int64 (every
 * rank; the schema is replicated); at run time, TypeError for a null in a column read as int64.
 */
template <class T>
[[nodiscard]] Array<T> to_array(const Frame& frame, const std::string& name, std::int64_t chunk = 0);

extern template Array<std::int64_t> to_array<std::int64_t>(const Frame&, const std::string&, std::int64_t);
extern template Array<double> to_array<double>(const Frame&, const std::string&, std::int64_t);

}  // namespace slab::frame
