"""Helpers shared by the Python reliability tests (faults, atomic outputs, security).

record() writes the same JSON line as tests/common/reliability_record.hpp (slab::testing::record_reliability):
one object per line in $SLAB_RELIABILITY_DIR/<category>.jsonl, nothing when the variable is unset.
"""
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import tempfile
import time

# An app's error line, and the line of an error that ends the job from inside the library (SLAB_FATAL).
ERROR_LINE = re.compile(r"(slab-[a-z]+): error \(rank (\d+)\): (.*)$")
FATAL_LINE = re.compile(r"(slab) fatal error \(rank (\d+), [^)]*\): (.*)$")


def record(category, case, expected, passed, detail="", ranks=0):
    out_dir = os.environ.get("SLAB_RELIABILITY_DIR", "")
    if not out_dir:
        return
    os.makedirs(out_dir, exist_ok=True)
    line = {"category": category, "case": case, "expected": expected,
            "outcome": "pass" if passed else "fail", "detail": detail, "ranks": ranks}
    with open(os.path.join(out_dir, category + ".jsonl"), "a") as f:
        f.write(json.dumps(line) + "\n")


class Run:
    """The result of one command: exit code, output, seconds, whether it ran past its time."""

    def __init__(self, rc, out, seconds, timed_out):
        self.rc, self.out, self.seconds, self.timed_out = rc, out, seconds, timed_out

    def errors(self):
        """{rank: message} from the "NAME: error (rank R): MESSAGE" and "slab fatal error (rank R, ...)" lines."""
        found = {}
        for line in self.out.splitlines():
            m = ERROR_LINE.search(line.strip()) or FATAL_LINE.search(line.strip())
            if m:
                found[int(m.group(2))] = m.group(3)
        return found


def _marked_pids(marker):
    """Processes whose environment carries `marker` (the run's ranks, wherever mpirun put them)."""
    pids = []
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read():
                    pids.append(int(entry))
        except OSError:
            pass
    return pids


def _kill_run(proc, marker):
    """SIGKILL the run's whole tree and wait until none of it is left. Killing mpirun's process group is not
    enough: Open MPI starts each rank in a process group of its own, and an orphaned rank would go on writing
    while the test already reads the file."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        left = [p for p in _marked_pids(marker) if p != os.getpid()]
        if not left:
            break
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    proc.wait()


def run(cmd, timeout, env_extra=None, kill_after=None):
    """Run cmd (a list) in its own session; after `timeout` s (or `kill_after` s, as SIGKILL of the whole tree:
    an interrupted run) every process of the run is killed, ranks included."""
    env = dict(os.environ)
    env.update(env_extra or {})
    marker = f"SLAB_TEST_RUN_MARKER={os.getpid()}-{time.monotonic_ns()}"
    env["SLAB_TEST_RUN_MARKER"] = marker.split("=", 1)[1]
    start = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=kill_after if kill_after is not None else timeout)
        except subprocess.TimeoutExpired:
            timed_out = kill_after is None
            _kill_run(proc, marker)
        seconds = time.monotonic() - start
        log.seek(0)
        return Run(proc.returncode, log.read(), seconds, timed_out)


def mpi_cmd(mpiexec, np, *args):
    return shlex.split(mpiexec) + [str(np)] + [str(a) for a in args]


def leftover_spill(spill_root):
    """Files and folders left under a spill root (empty when every spill directory was removed)."""
    left = []
    for base, dirs, files in os.walk(spill_root):
        left += [os.path.join(base, d) for d in dirs] + [os.path.join(base, f) for f in files]
    return left


def dataset_hash(file, dataset):
    """SHA-256 of a dataset's raw values (h5dump -b), or None when the file or dataset cannot be read."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.bin")
        p = subprocess.run(["h5dump", "-d", dataset, "-b", "LE", "-o", raw, file], capture_output=True, text=True)
        if p.returncode != 0 or "error" in (p.stdout + p.stderr).lower() or not os.path.exists(raw):
            return None
        with open(raw, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()


def dataset_names(file):
    """Every object path in an HDF5 file (h5ls -r), or None when the file cannot be read."""
    p = subprocess.run(["h5ls", "-r", file], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return [line.split()[0] for line in p.stdout.splitlines() if line.strip()]
