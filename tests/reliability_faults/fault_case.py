#!/usr/bin/env python3
"""One injected fault in a real app under mpirun, and what must follow.

  fault_case.py SITE NP --bin DIR --mpiexec "mpiexec --oversubscribe -n" --work DIR [--rank R] [--step S]

Runs the app that exercises SITE (see SCENARIOS) with SLAB_FAULT=SITE:RANK:STEP (RANK = NP - 1, the last
rank, STEP 0 unless --step) and a private --spill-dir, then checks:
  * the fault fired (the message names it) and the job ended within the timeout, with a non-zero exit;
  * every rank printed the same error line (the failing rank met the others at their next agreement point:
    see include/slab/comm/comm.hpp), none aborted the job;
  * nothing is left under the spill root, not even an empty folder;
  * for hdf5_write: X and a previous Y are byte-identical afterwards, and no new Y appeared.
Appends one line to $SLAB_RELIABILITY_DIR/fault_injection.jsonl.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability as rel  # noqa: E402

# site -> (app, arguments). Small inputs: each run takes a second or two.
SCENARIOS = {
    "allreduce": ("slab-reduce", ["--generate", "--n", "200000", "--chunk", "10000"]),
    "alltoallv": ("slab-groupby", ["--generate", "--rows", "20000", "--partition-rows", "2500"]),
    "tsqr_level": ("slab-svd", ["--generate", "--rows", "3001", "--cols", "5", "--chunk-rows", "200"]),
    "hdf5_write": ("slab-gram", ["--memory-limit", "600KiB", "--rows", "40", "--cols", "3000"]),
    "spill": ("slab-reduce", ["--generate", "--n", "400000", "--chunk", "10000", "--memory-limit", "200KiB",
                              "--host-memory-limit", "200KiB"]),
    # A device kernel failing as a CUDA call does (SLAB_FAULT action cuda: slab::CudaError), in a groupby's device
    # path on the reference place (the GPU's wiring, run on the CPU).
    "device_kernel": ("slab-groupby", ["--generate", "--rows", "20000", "--partition-rows", "2500", "--kernels",
                                       "reference"]),
}
# --array: the device kernel fails in an array app's device path instead (slab-reduce's programs and reductions).
ARRAY = {"device_kernel": ("slab-reduce", ["--generate", "--n", "400000", "--chunk", "10000", "--kernels",
                                           "reference"])}
# Sites that fail as CUDA does: the action, and what every rank's error line must name (slab::CudaError's message
# carries the CUDA error's name; the line itself is Error::message(), without the class).
ACTIONS = {"device_kernel": ("cuda", "cudaErrorLaunchFailure")}
# --late: rank 0 (the root of the trees) fails at a later occurrence, mid-run: in the merge's ninth allreduce,
# the third round of a groupby shuffle that spills to disk (a round per written-out chunk of partial records: the
# state outgrows its budget after every partition of 1000 rows, so every rank count has at least five rounds), the second TSQR level, the fourth spill write.
LATE = {
    "allreduce": ("slab-merge", ["--generate", "--rows", "20000"], 8),
    "alltoallv": ("slab-groupby", ["--generate", "--rows", "20000", "--partition-rows", "1000", "--memory-limit",
                                   "384KiB", "--host-memory-limit", "512KiB"], 2),
    "tsqr_level": ("slab-svd", ["--generate", "--rows", "3001", "--cols", "5", "--chunk-rows", "200"], 1),
    "spill": SCENARIOS["spill"] + (3,),
    "device_kernel": SCENARIOS["device_kernel"] + (5,),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("site", choices=sorted(SCENARIOS))
    ap.add_argument("np", type=int)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--mpiexec", required=True, help="launcher up to (and including) the rank-count flag")
    ap.add_argument("--work", required=True)
    ap.add_argument("--rank", type=int, default=-1, help="failing rank (default: the last)")
    ap.add_argument("--step", type=int, default=0)
    ap.add_argument("--late", action="store_true", help="rank 0 fails mid-run (see LATE)")
    ap.add_argument("--array", action="store_true", help="in an array app (see ARRAY)")
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()

    app, args = ARRAY[a.site] if a.array else SCENARIOS[a.site]
    if a.late:
        app, args, a.step = LATE[a.site]
        a.rank = 0
    rank = a.rank if a.rank >= 0 else a.np - 1
    work = os.path.join(a.work, f"fault_{a.site}{'_array' if a.array else ''}_np{a.np}_r{rank}_s{a.step}")
    shutil.rmtree(work, ignore_errors=True)
    spill_root = os.path.join(work, "spill")
    os.makedirs(spill_root)
    exe = os.path.join(a.bin, app)
    problems = []

    h5 = os.path.join(work, "w2.h5")
    before = {}
    if a.site == "hdf5_write":
        # X, then a first Y (no fault): the failed run must leave both byte-identical.
        prep = rel.run(rel.mpi_cmd(a.mpiexec, a.np, exe, "--generate-file", h5, *args[2:]), a.timeout)
        good = rel.run(rel.mpi_cmd(a.mpiexec, a.np, exe, "--input", h5 + ":/X", "--output", h5 + ":/Y", *args),
                       a.timeout)
        if prep.rc != 0 or good.rc != 0:
            print(prep.out, good.out)
            problems.append("could not prepare X and Y")
        before = {d: rel.dataset_hash(h5, d) for d in ("/X", "/Y")}
        args = ["--input", h5 + ":/X", "--output", h5 + ":/Y"] + args

    action, kind = ACTIONS.get(a.site, (None, None))
    fault = f"{a.site}:{rank}:{a.step}" + (f":{action}" if action else "")
    r = rel.run(rel.mpi_cmd(a.mpiexec, a.np, exe, "--spill-dir", spill_root, *args), a.timeout,
                {"SLAB_FAULT": fault})
    print(f"$ SLAB_FAULT={fault} {app} ... -> exit {r.rc} in {r.seconds:.1f} s\n{r.out}")

    errors = r.errors()
    fired = f"injected fault at '{a.site}'" in r.out
    if not fired:
        problems.append("the fault did not fire")
    if r.timed_out:
        problems.append(f"hung: still running after {a.timeout:.0f} s")
    if r.rc == 0:
        problems.append("exit code 0")
    messages = set(errors.values())
    if sorted(errors) != list(range(a.np)) or len(messages) != 1:
        problems.append(f"not the same error on every rank: {errors}")
    if kind and not all(kind in line for line in r.out.splitlines() if "injected fault at" in line):
        problems.append(f"not every rank's error names {kind}")
    if "aborting the job" in r.out or "MPI_ABORT" in r.out:
        problems.append("the job was aborted instead of every rank ending with the agreed error")
    how = "agreed: " + (next(iter(messages)) if len(messages) == 1 else "?")
    left = rel.leftover_spill(spill_root)
    if left:
        problems.append("spill files or folders left: " + ", ".join(left[:5]))
    if a.site == "hdf5_write":
        after = {d: rel.dataset_hash(h5, d) for d in ("/X", "/Y")}
        for d in ("/X", "/Y"):
            if before.get(d) is None or after[d] != before[d]:
                problems.append(f"{d} changed or unreadable after the failed write ({before.get(d)} -> {after[d]})")
        how += "; X and previous Y byte-identical"

    ok = not problems
    detail = f"{how} ({r.seconds:.1f} s, exit {r.rc})" if ok else "; ".join(problems)
    rel.record("fault_injection", f"{a.site} on rank {rank} of {a.np}, occurrence {a.step}",
               "same error on every rank, exit != 0, no spill files or folders, outputs intact", ok, detail,
               a.np)
    print(("ok: " if ok else "FAILED: ") + detail)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
