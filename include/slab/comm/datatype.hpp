#pragma once
/// @file datatype.hpp
/// @brief Element types the comm layer moves: the MPI datatype of each, and the enum the non-template
/// implementation (and the NCCL translation unit) dispatches on.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace slab {

/// The reduction operators of Comm::reduce / Comm::allreduce (land/lor: logical and/or, integer types only).
enum class ReduceOp : std::uint8_t { sum, prod, min, max, land, lor };

namespace detail {
/// Element type tags for the type-erased implementation; `bytes` is an opaque trivially copyable byte.
enum class DType : std::uint8_t { i8, u8, i32, u32, i64, u64, f32, f64, bytes };

/// Size of one element of `dt` in bytes (1 for `bytes`). Not collective.
constexpr std::size_t dtype_size(DType dt) noexcept {
  switch (dt) {
    case DType::i8:
    case DType::u8:
    case DType::bytes:
      return 1;
    case DType::i32:
    case DType::u32:
    case DType::f32:
      return 4;
    case DType::i64:
    case DType::u64:
    case DType::f64:
      return 8;
  }
  return 1;
}

template <class T>
struct dtype_of_impl {
  static constexpr bool builtin = false;
  static constexpr DType value = DType::bytes;
};
#define SLAB_DTYPE_OF(T, D)                  \
  template <>                                \
  struct dtype_of_impl<T> {                  \
    static constexpr bool builtin = true;    \
    static constexpr DType value = DType::D; \
  }
SLAB_DTYPE_OF(char, i8);
SLAB_DTYPE_OF(std::byte, u8);
SLAB_DTYPE_OF(int, i32);
SLAB_DTYPE_OF(unsigned, u32);
SLAB_DTYPE_OF(std::int64_t, i64);
SLAB_DTYPE_OF(std::uint64_t, u64);
SLAB_DTYPE_OF(float, f32);
SLAB_DTYPE_OF(double, f64);
#undef SLAB_DTYPE_OF

/// The MPI datatype of a tag (MPI_BYTE for `bytes`); a reduction-capable one when `for_reduction`.
MPI_Datatype mpi_datatype(DType dt, bool for_reduction = false);
}  // namespace detail

/// Whether T is one of the element types with a native MPI datatype (and reductions).
template <class T>
inline constexpr bool is_mpi_builtin_v = detail::dtype_of_impl<std::remove_cv_t<T>>::builtin;

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
  return detail::mpi_datatype(detail::dtype_of_impl<std::remove_cv_t<T>>::value);
}

}  // namespace slab
