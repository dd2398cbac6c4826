#pragma once
/// @file mpi_error.hpp
/// @brief SLAB_MPI_TRY: turn a failed MPI call into a slab::CommError carrying the MPI error string.

#include <mpi.h>

#include <string>

#include "slab/core/error.hpp"

namespace slab::detail {
/**
 * @brief The MPI library's text for an error code ("MPI_ERR_TRUNCATE: message truncated").
 * Not collective; never throws.
 */
std::string mpi_error_string(int code);
}  // namespace slab::detail

/**
 * @brief Run an MPI call; unless it returns MPI_SUCCESS, throw slab::CommError("<call>: <MPI error string>").
 * Only calls on communicators with MPI_ERRORS_RETURN can return errors; slab sets it on every communicator
 * it creates. Not collective in itself.
 */
#define SLAB_MPI_TRY(call)                                                                                          \
  do {                                                                                                              \
    const int slab_mpi_rc_ = (call);                                                                                \
    if (slab_mpi_rc_ != MPI_SUCCESS)                                                                                \
      throw ::slab::CommError(std::string(#call) + ": " + ::slab::detail::mpi_error_string(slab_mpi_rc_), __FILE__, \
                              __LINE__);                                                                            \
  } while (0)
