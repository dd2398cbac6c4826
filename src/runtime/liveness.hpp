#pragma once
/// @file liveness.hpp
/// @brief The liveness ring: a heartbeat between neighbouring ranks on a TCP side channel, so that a rank or
/// host that disappears ends the job on every healthy rank within a bounded time instead of hanging it in an
/// MPI call (see "A rank or host that disappears" in slab/comm/comm.hpp).
///
/// World rank r holds two TCP connections: one to r+1 and one from r-1 (mod P; at P = 2 both go to the other
/// rank). The addresses are exchanged once, with MPI, when the Runtime starts. A watchdog thread per rank (no
/// MPI calls, signals blocked) sends one byte to both neighbours every min(1 s, T/6) and watches what comes
/// back. A neighbour is declared gone when
///  * its connection closes or resets without the goodbye a rank sends when it ends normally (the process was
///    killed, crashed or aborted; a 1 s grace lets mpirun's or Slurm's own clean-up act first), or
///  * nothing arrived from it for T = SLAB_LIVENESS_TIMEOUT seconds (default 30; its host or the network to
///    it is down, or the process is stopped).
/// The rank that sees it sends the notice on to its other neighbour, which passes it on in turn, so it runs
/// round the ring in both directions (P/2 hops, each a TCP message); every rank that gets it prints
/// "slab: rank R on host H stopped responding: <why>; ...", runs the fatal clean-up (spill folders) and ends
/// with exit code kLivenessExitCode. Bound: a killed rank's neighbours end 1 s after its death, a silent host's
/// within T + min(1 s, T/6); the rest follow within the propagation time. Nothing is added to any MPI call.
///
/// Not in the public headers: the Runtime starts and stops it.

#include <mpi.h>

#include <memory>
#include <string>

namespace slab::detail {

/// The exit code of a rank that ended because another rank or host disappeared.
inline constexpr int kLivenessExitCode = 4;

/// The liveness settings of this process.
struct LivenessSettings {
  double timeout = 30;  ///< SLAB_LIVENESS_TIMEOUT: seconds of silence before a neighbour is gone; 0 = off
  std::string ifname;   ///< SLAB_LIVENESS_IFNAME: comma-separated interface name prefixes to publish ("" = all)
};

/// Read SLAB_LIVENESS_TIMEOUT and SLAB_LIVENESS_IFNAME into `out`. Not collective.
/// @return an error message naming the variable, or "" when both are valid (or unset).
std::string read_liveness_settings(LivenessSettings& out);

/// One process's place in the ring; ends it with a goodbye to both neighbours.
class Liveness {
 public:
  /**
   * Join the ring over `world`. Collective over world (two small allreduces and one exchange with each
   * neighbour). Returns null, doing nothing more, at one rank, when any rank's timeout is 0, or when another
   * Liveness is active in this process; and, after a warning, when some rank could not connect to its
   * neighbour (the job then runs without the check). Never throws.
   */
  static std::unique_ptr<Liveness> start(MPI_Comm world, const std::string& hostname, const LivenessSettings& settings);

  /// Says goodbye to both neighbours and stops the watchdog (also done by an atexit handler, for exit()).
  ~Liveness();
  Liveness(const Liveness&) = delete;
  Liveness& operator=(const Liveness&) = delete;

  struct State;

 private:
  explicit Liveness(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace slab::detail
