#!/usr/bin/env python3
"""One injected fault in a real app under mpirun, and what must follow.

  fault_case.py SITE NP --bin DIR --mpiexec "mpiexec --oversubscribe -n" --work DIR [--expect agreed|abort]

Runs the app that exercises SITE (see SCENARIOS) with SLAB_FAULT=SITE:RANK:STEP (RANK = NP - 1, the last
rank, STEP 0 unless --step) and a private --spill-dir, then checks:
  * the fault fired (the message names it) and the job ended within the timeout, with a non-zero exit;
  * agreed: every rank printed the same error line; abort: the failing rank said it aborts the job (the
    error could not be agreed because the other ranks were inside a collective), and every rank ended;
  * nothing is left under the spill root;
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
    ap.add_argument("--expect", choices=["agreed", "abort"], default="agreed")
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()

    rank = a.rank if a.rank >= 0 else a.np - 1
    work = os.path.join(a.work, f"fault_{a.site}_np{a.np}")
    shutil.rmtree(work, ignore_errors=True)
    spill_root = os.path.join(work, "spill")
    os.makedirs(spill_root)
    app, args = SCENARIOS[a.site]
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

    fault = f"{a.site}:{rank}:{a.step}"
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
    if a.expect == "agreed":
        messages = set(errors.values())
        if sorted(errors) != list(range(a.np)) or len(messages) != 1:
            problems.append(f"not the same error on every rank: {errors}")
        how = "agreed: " + (next(iter(messages)) if len(messages) == 1 else "?")
    else:
        if "aborting the job" not in errors.get(rank, ""):
            problems.append(f"rank {rank} did not report an abort: {errors}")
        how = "MPI_Abort: " + errors.get(rank, "?")
    left = rel.leftover_spill(spill_root)
    files = [p for p in left if not os.path.isdir(p)]
    if a.expect == "agreed" and left:
        problems.append("spill files or folders left: " + ", ".join(left[:5]))
    elif files:
        problems.append("spill files left: " + ", ".join(files[:5]))
    elif left:
        # mpirun ends the other ranks with SIGTERM: no clean-up runs there, their (empty) folders stay.
        how += f"; {len(left)} empty spill folder(s) of the terminated ranks left"
    if a.site == "hdf5_write":
        after = {d: rel.dataset_hash(h5, d) for d in ("/X", "/Y")}
        for d in ("/X", "/Y"):
            if before.get(d) is None or after[d] != before[d]:
                problems.append(f"{d} changed or unreadable after the failed write ({before.get(d)} -> {after[d]})")
        how += "; X and previous Y byte-identical"

    ok = not problems
    detail = f"{how} ({r.seconds:.1f} s, exit {r.rc})" if ok else "; ".join(problems)
    rel.record("fault_injection", f"{a.site} on rank {rank} of {a.np}, occurrence {a.step}",
               "same error on every rank or prompt abort, exit != 0, no spill files, outputs intact", ok, detail,
               a.np)
    print(("ok: " if ok else "FAILED: ") + detail)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
