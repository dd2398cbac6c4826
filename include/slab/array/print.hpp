#pragma once
/// @file print.hpp
/// @brief Printing arrays like NumPy's repr: `array([1., 2.5, 3.])`, a 2-D array one bracketed row per line,
/// and past 1000 elements the first and last 3 rows (and columns) around "...".

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "slab/array/array.hpp"

namespace slab {

/**
 * @brief NumPy's repr of `a` ("array([...])"): values right-aligned to a common width; floats with up to 8
 * significant digits (a trailing "." for integral values, as NumPy prints them); past `threshold` elements
 * only the first and last `edgeitems` rows and columns, with "..." between. Only those rows are gathered.
 * Collective (the string is returned on every rank).
 */
template <class T>
[[nodiscard]] std::string to_string(const Array<T>& a, std::int64_t threshold = 1000, std::int64_t edgeitems = 3);

/// `std::cout << a`: to_string(a) written by rank 0 only (other ranks write nothing to `os`). Collective:
/// every rank must call it, in the same order as its other collectives.
template <class T>
std::ostream& operator<<(std::ostream& os, const Array<T>& a);

/// NumPy's repr of host values as a 1-D array (e.g. the singular values svd() returns on every rank), formatted
/// as to_string(Array) formats them. Not collective.
[[nodiscard]] std::string to_string(const std::vector<double>& values, std::int64_t threshold = 1000,
                                    std::int64_t edgeitems = 3);
[[nodiscard]] std::string to_string(const std::vector<std::int64_t>& values, std::int64_t threshold = 1000,
                                    std::int64_t edgeitems = 3);

extern template std::string to_string(const Array<float>&, std::int64_t, std::int64_t);
extern template std::string to_string(const Array<double>&, std::int64_t, std::int64_t);
extern template std::string to_string(const Array<std::int32_t>&, std::int64_t, std::int64_t);
extern template std::string to_string(const Array<std::int64_t>&, std::int64_t, std::int64_t);
extern template std::ostream& operator<<(std::ostream&, const Array<float>&);
extern template std::ostream& operator<<(std::ostream&, const Array<double>&);
extern template std::ostream& operator<<(std::ostream&, const Array<std::int32_t>&);
extern template std::ostream& operator<<(std::ostream&, const Array<std::int64_t>&);

}  // namespace slab
