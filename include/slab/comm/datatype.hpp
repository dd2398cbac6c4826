#pragma once
/// @file datatype.hpp
/// @brief Element types the comm layer moves (slab::ElementType, which the non-template implementation and the
/// NCCL translation unit dispatch on) and the MPI datatype of each.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "slab/core/element_type.hpp"

namespace slab {

/// The reduction operators of Comm::reduce / Comm::allreduce (land/lor: logical and/or, integer types only).
enum class ReduceOp : std::uint8_t { sum, prod, min, max, land, lor };

namespace detail {
/// The MPI datatype of a tag (MPI_BYTE for `bytes`); a reduction-capable one when `for_reduction`.
MPI_Datatype mpi_datatype(ElementType dt, bool for_reduction = false);
}  // namespace detail

/// Whether T is one of the element types with a native MPI datatype (and reductions).
template <class T>
inline constexpr bool is_mpi_builtin_v = element_type_of<std::remove_cv_t<T>>::native;

/// Types the comm layer can move: natively typed, or byte-wise when trivially copyable.
template <class T>
concept Transferable = std::is_trivially_copyable_v<T>;

/// Types with reductions: char, std::byte, int, unsigned, int64_t, uint64_t, float, double.
template <class T>
concept Reducible = is_mpi_builtin_v<T>;

/**
 * @brief The MPI datatype of T (MPI_CHAR, MPI_BYTE, MPI_INT, MPI_UNSIGNED, MPI_INT64_T, MPI_UINT64_T,
 * MPI_FLOAT, MPI_DOUBLE). Not collective.
 */
template <Reducible T>
MPI_Datatype mpi_type() {
  return detail::mpi_datatype(element_type_of<std::remove_cv_t<T>>::value);
}

}  // namespace slab
