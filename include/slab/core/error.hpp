#pragma once
/// @file error.hpp
/// @brief slab's exception hierarchy and the SLAB_* checking macros.
///
/// Every error carries the source location and the MPI rank that raised it. Errors that every rank
/// agrees on (see slab::Comm::agree) are rethrown on every rank with the same message() and the origin
/// rank kept apart (Error::origin_rank()).

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace slab {

/**
 * @brief Base class of every exception slab throws.
 *
 * message() is the bare message: the same text whether the error was raised on this rank or agreed on by
 * every rank (slab::Comm::agree, run_collectively), so code and tests can compare it exactly. Where it came
 * from is kept apart: origin_rank() and also_failed_on(). what() reads "<message> (rank R, file:line)" with
 * R the origin rank and the raising file and line, plus "; also failed on ranks ..." for an agreed error
 * that several ranks raised.
 */
class Error : public std::runtime_error {
 public:
  Error(std::string message, const char* file, int line);
  /// The message without location or rank (the same on every rank for an agreed error).
  [[nodiscard]] const std::string& message() const noexcept { return message_; }
  [[nodiscard]] const char* what() const noexcept override { return what_.c_str(); }
  /// Where the error was raised (for an agreed error: on the origin rank).
  [[nodiscard]] const char* file() const noexcept { return file_.c_str(); }
  [[nodiscard]] int line() const noexcept { return line_; }
  /// The MPI world rank of this process, where this exception object was thrown (-1 before MPI is
  /// initialised).
  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// The rank that raised the error: rank() for an error raised here; for an agreed error the lowest rank
  /// (of the communicator that agreed) that failed with it.
  [[nodiscard]] int origin_rank() const noexcept { return origin_rank_; }
  /// For an agreed error, the other ranks of that communicator that failed too (ascending); else empty.
  [[nodiscard]] const std::vector<int>& also_failed_on() const noexcept { return also_failed_; }
  /// A short name of the error class ("ShapeError", ...), used when an error is re-raised on other ranks.
  [[nodiscard]] virtual const char* kind() const noexcept { return "Error"; }

 protected:
  /// @private For agreed errors (slab::Comm): the origin's rank, location and the other failing ranks.
  void set_origin(int origin_rank, std::vector<int> also_failed, std::string file, int line);

 private:
  void format_what();
  std::string message_;
  std::string file_;
  int line_;
  int rank_;
  int origin_rank_;
  std::vector<int> also_failed_;
  std::string what_;
};

#define SLAB_DEFINE_ERROR(Name)                                                \
  class Name : public Error {                                                  \
   public:                                                                     \
    using Error::Error;                                                        \
    [[nodiscard]] const char* kind() const noexcept override { return #Name; } \
  }

/// A user-facing argument or setting is invalid (a bad flag, an impossible limit).
SLAB_DEFINE_ERROR(InvalidArgument);
/// Shapes, counts or extents do not match.
SLAB_DEFINE_ERROR(ShapeError);
/// A dtype is not the one expected.
SLAB_DEFINE_ERROR(TypeError);
/// A file could not be read, written or validated.
SLAB_DEFINE_ERROR(IoError);
/// A memory limit cannot be met, even after spilling.
SLAB_DEFINE_ERROR(OutOfMemory);
/// An MPI or NCCL call failed, or another rank reported a failure.
SLAB_DEFINE_ERROR(CommError);
/// Data read back (a spill file) does not match what was written.
SLAB_DEFINE_ERROR(IntegrityError);
/// The feature needs a backend this build does not have (CUDA, NCCL).
SLAB_DEFINE_ERROR(NotCompiled);
/// A CUDA runtime, cuBLAS or cuSOLVER call failed.
SLAB_DEFINE_ERROR(CudaError);
/// An error raised on another rank, re-raised here by a collective agreement.
SLAB_DEFINE_ERROR(RemoteError);

#undef SLAB_DEFINE_ERROR

namespace detail {
/// Print a fatal message with rank and location to stderr and abort (for destructors and noexcept paths).
[[noreturn]] void fatal(std::string_view message, const char* file, int line) noexcept;
/// The current MPI world rank, or -1 when MPI is not initialised (or already finalised).
int world_rank_or_minus_one() noexcept;
/// A clean-up to run just before the job is aborted (fatal(), App's MPI_Abort path). Core cannot call the
/// layers above it, so they register one here: the memory layer removes this process's spill folders.
/// It must be async-signal-safe and must not throw. One hook; a later call replaces it.
using FatalCleanup = void (*)() noexcept;
void set_fatal_cleanup(FatalCleanup cleanup) noexcept;
/// Run the registered fatal clean-up, if any. Call it right before MPI_Abort.
void run_fatal_cleanup() noexcept;
}  // namespace detail

}  // namespace slab

/// Throw `ErrorType(message)` unless `cond` holds. The message is evaluated only on failure.
#define SLAB_EXPECTS(cond, ErrorType, message)                   \
  do {                                                           \
    if (!(cond)) throw ErrorType((message), __FILE__, __LINE__); \
  } while (0)

/// Throw `ErrorType(message)` unconditionally.
#define SLAB_FAIL(ErrorType, message) throw ErrorType((message), __FILE__, __LINE__)

/// Print and abort; for paths that must not throw.
#define SLAB_FATAL(message) ::slab::detail::fatal((message), __FILE__, __LINE__)
