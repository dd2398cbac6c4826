#!/usr/bin/env python3
"""Atomic outputs of slab-gram (Y = X X^T written into X's own file), at NP ranks.

  atomic_output.py NP --bin DIR --mpiexec "mpiexec ... -n" --work DIR

1. Writing Y into the file that holds X leaves X byte-identical (SHA-256 of the values, via h5dump).
2. A run killed mid-write (SLAB_FAULT=hdf5_write:0:0:kill: rank 0 gets SIGKILL after Y's data is flushed
   and before the new Y is moved into place) exits non-zero; X and the previous Y are byte-identical and
   readable, and no new dataset appears under a visible name.
3. Runs SIGKILLed from outside at several moments while they compute and write /Z: the file stays readable,
   X and Y byte-identical, and /Z is either absent or complete (equal to an uninterrupted run's /Z).
4. The next uninterrupted run succeeds and removes the stale temporary the killed runs left.
Appends one line per case to $SLAB_RELIABILITY_DIR/atomic_output.jsonl.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability as rel  # noqa: E402

SIZE = ["--rows", "40", "--cols", "3000", "--memory-limit", "600KiB"]
EXPECTED = "X and previous Y byte-identical and readable; new dataset absent or complete"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("np", type=int)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--timeout", type=float, default=90)
    a = ap.parse_args()
    work = os.path.join(a.work, f"atomic_np{a.np}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    spill = os.path.join(work, "spill")
    os.makedirs(spill)
    h5 = os.path.join(work, "w2.h5")
    gram = os.path.join(a.bin, "slab-gram")
    failures = 0

    def gram_run(output, env=None, kill_after=None):
        return rel.run(rel.mpi_cmd(a.mpiexec, a.np, gram, "--input", h5 + ":/X", "--output", h5 + ":" + output,
                                   "--spill-dir", spill, *SIZE), a.timeout, env, kill_after)

    def case(name, ok, detail):
        nonlocal failures
        failures += 0 if ok else 1
        rel.record("atomic_output", name, EXPECTED, ok, detail, a.np)
        print(("ok: " if ok else "FAILED: ") + name + ": " + detail)

    prep = rel.run(rel.mpi_cmd(a.mpiexec, a.np, gram, "--generate-file", h5, *SIZE), a.timeout)
    if prep.rc != 0:
        print(prep.out)
        return 1
    x0 = rel.dataset_hash(h5, "/X")

    # 1. Y next to X.
    r = gram_run("/Y")
    y0 = rel.dataset_hash(h5, "/Y")
    x1 = rel.dataset_hash(h5, "/X")
    case("write Y = X X^T into X's file", r.rc == 0 and x0 is not None and x1 == x0 and y0 is not None,
         f"exit {r.rc}; X sha256 {str(x0)[:12]} before, {str(x1)[:12]} after; Y readable: {y0 is not None}")

    # A reference /Z from an uninterrupted run into a copy of the file (for the "complete" check below).
    ref = os.path.join(work, "ref.h5")
    shutil.copyfile(h5, ref)
    rr = rel.run(rel.mpi_cmd(a.mpiexec, a.np, gram, "--input", ref + ":/X", "--output", ref + ":/Z",
                             "--spill-dir", spill, *SIZE), a.timeout)
    z_ref = rel.dataset_hash(ref, "/Z")
    full_seconds = rr.seconds

    # 2. Killed between flushing Y's data and moving it into place.
    r = gram_run("/Y", {"SLAB_FAULT": "hdf5_write:0:0:kill"})
    names = rel.dataset_names(h5) or []
    visible = [n for n in names if not os.path.basename(n).startswith(".")]
    ok = (r.rc != 0 and not r.timed_out and rel.dataset_hash(h5, "/X") == x0 and rel.dataset_hash(h5, "/Y") == y0
          and sorted(visible) == ["/", "/X", "/Y"])
    case("SIGKILL of rank 0 after Y's data is flushed, before the rename", ok,
         f"exit {r.rc} after {r.seconds:.1f} s; objects now {names}")

    # 3. SIGKILL of the whole job at moments spread over an uninterrupted run's duration.
    for frac in (0.2, 0.4, 0.6, 0.8, 0.95):
        delay = max(0.05, frac * full_seconds)
        r = gram_run("/Z", kill_after=delay)
        z = rel.dataset_hash(h5, "/Z")
        names = rel.dataset_names(h5)
        readable = names is not None
        has_z = names is not None and "/Z" in names
        ok = (readable and rel.dataset_hash(h5, "/X") == x0 and rel.dataset_hash(h5, "/Y") == y0 and
              (not has_z or z == z_ref))
        state = "absent" if not has_z else ("complete" if z == z_ref else "PRESENT BUT DIFFERENT")
        case(f"SIGKILL of the job {delay:.2f} s into a {full_seconds:.2f} s run writing Z", ok,
             f"exit {r.rc}; file readable {readable}; Z {state}")
        if has_z:
            break  # Z is in place: later kills would only test the replace path of an identical Z

    # 4. The next run cleans up after the killed ones.
    r = gram_run("/Y")
    names = rel.dataset_names(h5) or []
    stale = [n for n in names if n.endswith(".slab-tmp")]
    ok = r.rc == 0 and rel.dataset_hash(h5, "/Y") == y0 and rel.dataset_hash(h5, "/X") == x0 and not any(
        n.endswith(".Y.slab-tmp") for n in stale)
    case("rerun after the killed runs", ok, f"exit {r.rc}; Y identical to the first run's; temporaries left: {stale}")
    left = rel.leftover_spill(spill)
    if left:
        print("spill files left by the killed runs (SIGKILL runs no clean-up):", left[:5])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
