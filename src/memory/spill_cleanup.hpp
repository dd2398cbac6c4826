#pragma once
/// @file spill_cleanup.hpp
/// @brief Removal of spill directories when a process ends without running its destructors.
///
/// A MemoryManager's private spill directory is `<spill_root>/slab-spill-<host>-<pid>-XXXXXX`. It is
/// removed by the manager's destructor; when the process ends otherwise, by:
///  * exit() without destructors: an atexit handler;
///  * SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT (mpirun ends the other ranks of an aborted job with
///    SIGTERM): a signal handler that removes the spill files and folders, then restores the previous
///    disposition and re-raises, so the process still ends by that signal;
///  * slab::detail::fatal() and App's MPI_Abort path: the core fatal-cleanup hook;
///  * SIGKILL (nothing can run): the next process on the same host that makes a spill directory in the
///    same root removes the folders of dead processes of its own user (remove_stale_spill_dirs).
/// Only regular files named `spill-<n>` are removed from a folder; links are never followed.

#include <string>

namespace slab::detail {

/// Register a spill directory this process made: removed at exit, on the signals above and before an
/// abort. The first call installs the atexit handler, the signal handlers and the fatal-cleanup hook.
void register_spill_dir(const std::string& dir);

/// The directory was removed by its owner: forget it. Never throws.
void unregister_spill_dir(const std::string& dir) noexcept;

/// Remove this process's registered spill directories now (their spill files, then the folders).
/// Async-signal-safe: no lock, no allocation. Never throws. A registration in flight may be missed.
void remove_spill_dirs_now() noexcept;

/// "slab-spill-<host>-<pid>-": the start of the name of a spill directory made by this process (`host`
/// is the host name with characters other than [A-Za-z0-9._-] replaced by '_').
std::string spill_dir_prefix();

/**
 * @brief Remove the spill folders in `root` left by dead processes: named slab-spill-<host>-<pid>-XXXXXX
 * with this process's host, a real directory (not a link) owned by this user, and `pid` not alive
 * (kill(pid, 0) fails with ESRCH). Only the regular `spill-<n>` files inside are removed, then the folder
 * if that left it empty; nothing else is touched. Logs one info line per folder removed. Not
 * collective; never throws.
 * @return the number of folders removed.
 */
int remove_stale_spill_dirs(const std::string& root) noexcept;

}  // namespace slab::detail
