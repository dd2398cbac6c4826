#!/usr/bin/env python3
"""No spill folder is left behind when a run is terminated or killed (slab-groupby spilling to disk).

  spill_cleanup.py sigterm|kill|abort NP --bin DIR --abort-exe FILE --mpiexec "mpiexec ... -n" --work DIR

sigterm: every rank gets SIGTERM while it spills (each rank's folder holds spill files). Afterwards no
  folder or file is left under the private spill root and the job reports death by signal 15. At NP 1 the
  app also runs without mpirun and gets SIGTERM, SIGINT and SIGHUP: it must die by that very signal.
kill: SLAB_FAULT=spill:R:2:kill SIGKILLs rank R (1, or 0 at NP 1) inside its third spill write; mpirun
  ends the others. Afterwards only the killed rank's folder is left. Folders are then planted: one of a
  live process (this script), one of another host, one owned by another user (when run as root), one
  holding a symlink named like a spill file, a sub-folder and a regular spill file, and a symlink to a
  folder. A second, normal run in the same root must remove the killed rank's folder and the regular
  spill file, log the removal, and leave everything else (every link target) untouched.
abort: abort_rank (every rank holds spill files) ends the job from rank NP-1, by slab's fatal() and by the
  fatal clean-up + MPI_Abort as App::run does: nothing may be left (the aborting rank cleans up first,
  mpirun's SIGTERM makes the others clean up).
Appends one line to $SLAB_RELIABILITY_DIR/spill_cleanup.jsonl.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reliability_faults"))
import reliability as rel  # noqa: E402

PREFIX = "slab-spill-"
# Spills from the first partitions on: 2 MiB of device tier and 1 MiB of host tier per rank.
LIMITS = ["--memory-limit", "2MiB", "--host-memory-limit", "1MiB", "--quiet"]
LONG_RUN = ["--generate", "--rows", "3000000", "--partition-rows", "5000"] + LIMITS
SHORT_RUN = ["--generate", "--rows", "40000", "--partition-rows", "5000"] + LIMITS


def folders(root):
    return sorted(d for d in os.listdir(root) if d.startswith(PREFIX))


def host_and_pid(name):
    """slab-spill-<host>-<pid>-XXXXXX -> (host, pid)."""
    host, pid, _ = name[len(PREFIX):].rsplit("-", 2)
    return host, int(pid)


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def dead_pid():
    """The pid of a process that has ended (and not been reused since)."""
    while True:
        p = subprocess.Popen(["true"])
        p.wait()
        if not alive(p.pid):
            return p.pid


def wait_until_spilling(proc, root, np, timeout):
    """Wait until NP spill folders exist and each holds a spill file; their names, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        names = folders(root)
        try:
            if len(names) == np and all(any(f.startswith("spill-") for f in os.listdir(os.path.join(root, n)))
                                        for n in names):
                return names
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    return None


def terminate_while_spilling(cmd, root, np, sig, timeout, problems, label):
    """Start cmd, send `sig` to every rank once all are spilling; return (rc, output)."""
    marker = f"{os.getpid()}-{time.monotonic_ns()}"
    env = dict(os.environ, SLAB_TEST_RUN_MARKER=marker)
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        names = wait_until_spilling(proc, root, np, timeout)
        ranks = set(rel._marked_pids(f"SLAB_TEST_RUN_MARKER={marker}"))
        if names is None:
            problems.append(f"{label}: the ranks were not all spilling (folders {folders(root)}, exit {proc.poll()})")
        else:
            for name in names:
                pid = host_and_pid(name)[1]
                if pid not in ranks:  # never signal a process that is not a rank of this run
                    problems.append(f"{label}: folder {name} does not name a rank of this run")
                    continue
                os.kill(pid, sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            problems.append(f"{label}: still running {timeout:.0f} s after the signal")
            rel._kill_run(proc, f"SLAB_TEST_RUN_MARKER={marker}")
        log.seek(0)
        return proc.returncode, log.read()


def check_empty(root, problems, label):
    left = rel.leftover_spill(root)
    if left:
        problems.append(f"{label}: left under the spill root: " + ", ".join(left[:6]))


def case_sigterm(a, exe, work, problems):
    root = os.path.join(work, "spill")
    os.makedirs(root)
    cmd = rel.mpi_cmd(a.mpiexec, a.np, exe, "--spill-dir", root, *LONG_RUN)
    rc, out = terminate_while_spilling(cmd, root, a.np, signal.SIGTERM, a.timeout, problems, "mpirun")
    print(f"$ mpirun -n {a.np} slab-groupby ... + SIGTERM to every rank -> exit {rc}\n{out}")
    if "exited on signal 15" not in out and rc not in (128 + 15, -15):
        problems.append(f"mpirun: exit {rc} does not report death by SIGTERM")
    check_empty(root, problems, "mpirun")
    details = [f"mpirun exit {rc}"]
    if a.np == 1:
        # Without mpirun the exit status is the rank's own: the handler must re-raise the signal.
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            root = os.path.join(work, "spill-" + sig.name)  # a fresh root: earlier leftovers must not count
            os.makedirs(root)
            rc, out = terminate_while_spilling([exe, "--spill-dir", root, *LONG_RUN], root, 1, sig, a.timeout,
                                               problems, sig.name)
            print(f"$ slab-groupby ... + {sig.name} -> exit {rc}\n{out}")
            if rc != -sig:
                problems.append(f"{sig.name}: exit status {rc}, not death by signal {int(sig)}")
            check_empty(root, problems, sig.name)
            details.append(f"{sig.name}: exit {rc}")
    return "; ".join(details)


def plant(root, name, files=(), links=(), dirs=()):
    path = os.path.join(root, name)
    os.makedirs(path)
    for f in files:
        with open(os.path.join(path, f), "w") as out:
            out.write("planted\n")
    for link, target in links:
        os.symlink(target, os.path.join(path, link))
    for d in dirs:
        os.makedirs(os.path.join(path, d))
        with open(os.path.join(path, d, "spill-1"), "w") as out:
            out.write("inner\n")
    return path


def case_kill(a, exe, work, problems):
    root = os.path.join(work, "spill")
    os.makedirs(root)
    rank = 1 if a.np > 1 else 0
    fault = f"spill:{rank}:2:kill"
    r = rel.run(rel.mpi_cmd(a.mpiexec, a.np, exe, "--spill-dir", root, *LONG_RUN), a.timeout, {"SLAB_FAULT": fault})
    print(f"$ SLAB_FAULT={fault} mpirun -n {a.np} slab-groupby ... -> exit {r.rc} in {r.seconds:.1f} s\n{r.out}")
    if r.timed_out or r.rc == 0 or "signal 9" not in r.out:
        problems.append(f"the fault run did not end by the rank's SIGKILL (exit {r.rc}, timed out {r.timed_out})")
    left = folders(root)
    if len(left) != 1 or alive(host_and_pid(left[0])[1]):
        problems.append(f"expected exactly the killed rank's folder to be left, found {left}")
        return ""
    killed = left[0]
    host = host_and_pid(killed)[0]
    killed_files = len(os.listdir(os.path.join(root, killed)))
    stray = [p for p in rel.leftover_spill(root) if not p.startswith(os.path.join(root, killed))]
    if stray:
        problems.append("left outside the killed rank's folder: " + ", ".join(stray[:5]))

    # Planted folders: only the regular spill files of dead processes of this host and user may go.
    outside = os.path.join(work, "outside")
    os.makedirs(os.path.join(outside, "folder"))
    target = os.path.join(outside, "target.txt")
    with open(target, "w") as f:
        f.write("must survive\n")
    with open(os.path.join(outside, "folder", "spill-1"), "w") as f:
        f.write("must survive\n")
    dead = dead_pid()
    keep = {
        "live": plant(root, f"{PREFIX}{host}-{os.getpid()}-Live01", files=["spill-1"]),
        "other host": plant(root, f"{PREFIX}{host}x-{dead}-Host01", files=["spill-1"]),
        "links": plant(root, f"{PREFIX}{host}-{dead}-Link01", files=["spill-8", "notes.txt"],
                       links=[("spill-7", target)], dirs=["spill-9"]),
    }
    folder_link = os.path.join(root, f"{PREFIX}{host}-{dead}-Slnk01")
    os.symlink(os.path.join(outside, "folder"), folder_link)
    if os.geteuid() == 0:
        keep["other user"] = plant(root, f"{PREFIX}{host}-{dead}-User01", files=["spill-1"])
        for p in (keep["other user"], os.path.join(keep["other user"], "spill-1")):
            os.chown(p, 65534, 65534)

    r2 = rel.run(rel.mpi_cmd(a.mpiexec, a.np, exe, "--spill-dir", root, "--log-level", "info", *SHORT_RUN),
                 a.timeout)
    print(f"$ mpirun -n {a.np} slab-groupby ... (same spill root) -> exit {r2.rc}\n{r2.out}")
    if r2.rc != 0:
        problems.append(f"the second run failed (exit {r2.rc})")
    if os.path.lexists(os.path.join(root, killed)):
        problems.append(f"the killed rank's folder {killed} is still there")
    if f"removed the stale spill folder '{os.path.join(root, killed)}'" not in r2.out:
        problems.append("no log line names the removed folder")
    for what, path in keep.items():
        if what != "links" and not os.path.exists(os.path.join(path, "spill-1")):
            problems.append(f"the {what} folder {os.path.basename(path)} or its file was removed")
    links = keep["links"]
    expect = {"spill-7", "spill-9", "notes.txt"}
    have = set(os.listdir(links)) if os.path.isdir(links) else set()
    if have != expect:
        problems.append(f"{os.path.basename(links)} holds {sorted(have)}, expected {sorted(expect)} "
                        "(only the regular spill-8 may go)")
    if not os.path.islink(folder_link) or not os.path.exists(os.path.join(outside, "folder", "spill-1")):
        problems.append("the symlinked folder or the file behind it was removed")
    if not os.path.exists(os.path.join(links, "spill-9", "spill-1")):
        problems.append("a file inside a sub-folder was removed")
    if not os.path.exists(target) or open(target).read() != "must survive\n":
        problems.append("the target of the planted symlink was removed or changed")
    mine = set(folders(root)) - {os.path.basename(p) for p in keep.values()} - {os.path.basename(folder_link)}
    if mine:
        problems.append(f"the second run left folders: {sorted(mine)}")
    return (f"killed rank's folder ({killed_files} entries) left by SIGKILL, removed by the next run; "
            f"{len(keep) + 1} planted folders untouched, symlink target intact")


def case_abort(a, exe, work, problems):
    """One rank ends the job by fatal() and by App's clean-up + MPI_Abort; the others get mpirun's SIGTERM."""
    details = []
    for mode in ("fatal", "abort"):
        root = os.path.join(work, "spill-" + mode)
        os.makedirs(root)
        rank = a.np - 1
        r = rel.run(rel.mpi_cmd(a.mpiexec, a.np, a.abort_exe, root, mode, rank), a.timeout)
        print(f"$ mpirun -n {a.np} abort_rank {mode} {rank} -> exit {r.rc}\n{r.out}")
        spilled = [line for line in r.out.splitlines() if "spill folder" in line and " 0 spill files" not in line]
        if len(spilled) != a.np:
            problems.append(f"{mode}: not every rank held spill files before the abort")
        code = 3 if mode == "fatal" else 1  # MPI_Abort's error code is mpirun's exit status
        if r.rc != code or r.timed_out:
            problems.append(f"{mode}: the job did not end by MPI_Abort({code}) (exit {r.rc})")
        check_empty(root, problems, mode)
        details.append(f"{mode}: exit {r.rc}, nothing left")
    return "; ".join(details)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["sigterm", "kill", "abort"])
    ap.add_argument("np", type=int)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--mpiexec", required=True, help="launcher up to (and including) the rank-count flag")
    ap.add_argument("--work", required=True)
    ap.add_argument("--abort-exe", help="tests/reliability_spill_cleanup/abort_rank.cpp, for the abort case")
    ap.add_argument("--timeout", type=float, default=90)
    a = ap.parse_args()
    work = os.path.join(a.work, f"spill_cleanup_{a.case}_np{a.np}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    exe = os.path.join(a.bin, "slab-groupby")
    problems = []
    detail = {"sigterm": case_sigterm, "kill": case_kill, "abort": case_abort}[a.case](a, exe, work, problems)
    ok = not problems
    detail = detail if ok else "; ".join(problems)
    expected = {"sigterm": "every spill folder removed, death by the signal reported",
                "kill": "only the killed rank's folder left; the next run removes it and nothing else",
                "abort": "no spill folder left after fatal() or MPI_Abort on one rank"}[a.case]
    rel.record("spill_cleanup", f"{a.case} at {a.np} rank(s)", expected, ok, detail, a.np)
    print(("ok: " if ok else "FAILED: ") + detail)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
