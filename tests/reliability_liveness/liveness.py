#!/usr/bin/env python3
"""The liveness ring on one machine (src/runtime/liveness.hpp), under mpirun --enable-recovery, so that mpirun
does not end the job itself when a rank dies: only slab's own check can end the others.

  liveness.py CASE NP --bin DIR --mpiexec "mpiexec --oversubscribe -n"

  kill     SIGKILL one rank (the middle one): every other rank ends within 1 s (the grace) + 4 s,
           printing "slab: rank R on host H stopped responding: its connection closed ...".
  stop     SIGSTOP one rank (silence, as from a host whose link is cut): the others end within
           SLAB_LIVENESS_TIMEOUT (2 s) + 4 s with "nothing heard from it".
  control  SIGSTOP with SLAB_LIVENESS_TIMEOUT=0: the others must still be waiting 6 s later (so `stop` can fail).
Appends one line to $SLAB_RELIABILITY_DIR/liveness.jsonl (scripts/reliability_report.py) when that is set.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reliability_faults"))
import reliability as rel  # noqa: E402

TIMEOUT = 2.0  # SLAB_LIVENESS_TIMEOUT for these runs


def children(ppid, comm):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        name = st[st.index("(") + 1:st.rindex(")")]
        fields = st[st.rindex(")") + 2:].split()
        if name == comm and int(fields[1]) == ppid and fields[0] != "Z":
            out.append(int(d))
    return sorted(out)


def tcp_established(pid):
    """How many ESTABLISHED TCP sockets process `pid` holds."""
    try:
        inodes = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
        n = 0
        for table in ("tcp", "tcp6"):
            with open(f"/proc/{pid}/net/{table}") as f:
                for line in f.readlines()[1:]:
                    parts = line.split()
                    if parts[3] == "01" and parts[9] in inodes:
                        n += 1
        return n
    except OSError:
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["kill", "stop", "control"])
    ap.add_argument("np", type=int)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--mpiexec", required=True)
    a = ap.parse_args()
    exe = "slab-svd"
    env = dict(os.environ, SLAB_LIVENESS_TIMEOUT="0" if a.case == "control" else str(TIMEOUT))
    # A minute of work (an SVD's local QR), far longer than any case.
    cmd = a.mpiexec.split()[:-1] + ["--enable-recovery", a.mpiexec.split()[-1], str(a.np),
                                   os.path.join(a.bin, exe), "--generate", "--rows", str(60000 * a.np), "--cols", "500"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    problems = []
    end = time.time() + 20
    while len(children(p.pid, exe)) < a.np and time.time() < end:
        time.sleep(0.05)
    ranks = children(p.pid, exe)
    if len(ranks) != a.np:
        p.kill()
        print(f"FAIL: {len(ranks)} of {a.np} ranks started")
        return 1
    # Past MPI_Init and the ring's set-up, whatever the machine's load: every rank holds its two ring connections
    # (on one machine the ranks' only TCP connections: MPI goes through shared memory), then the watchdog starts.
    # (The control case has no ring: it waits the 2 s the others would have had, then looks for a hang.)
    end = time.time() + (2.0 if a.case == "control" else 40)
    while time.time() < end and (a.case == "control" or not all(tcp_established(r) >= 2 for r in ranks)):
        time.sleep(0.05)
    time.sleep(0.5)
    victim = ranks[len(ranks) // 2]
    t0 = time.time()
    os.kill(victim, signal.SIGKILL if a.case == "kill" else signal.SIGSTOP)
    bound = (1.0 if a.case == "kill" else TIMEOUT) + 4.0
    others = [r for r in ranks if r != victim]
    while time.time() - t0 < (6.0 if a.case == "control" else bound):
        if not any(os.path.exists(f"/proc/{r}") and r in children(p.pid, exe) for r in others):
            break
        time.sleep(0.05)
    elapsed = time.time() - t0
    alive = [r for r in others if r in children(p.pid, exe)]
    if a.case != "kill":
        os.kill(victim, signal.SIGKILL)
    if a.case == "control":
        if len(alive) != len(others):
            problems.append(f"ranks ended without the liveness check ({elapsed:.1f} s): the test cannot fail")
        for r in alive:
            os.kill(r, signal.SIGKILL)
    elif alive:
        problems.append(f"{len(alive)} rank(s) still running {elapsed:.1f} s after the {a.case} (bound {bound} s)")
        for r in alive:
            os.kill(r, signal.SIGKILL)
    try:
        out, _ = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        problems.append("mpirun did not end")
    if a.case != "control":
        lines = [l for l in out.splitlines() if re.search(r"slab: rank \d+ on host \S+ stopped responding", l)]
        want = "its connection closed" if a.case == "kill" else "nothing heard from it"
        if len(lines) < len(others) or not all(want in l for l in lines):
            problems.append(f"expected {len(others)} '{want}' lines, got:\n" + "\n".join(lines) + "\n" + out[-2000:])
    record = {"case": a.case, "np": a.np, "seconds_to_end": round(elapsed, 2), "ok": not problems}
    expected = {"kill": "every other rank ends within 1 s + 4 s, naming the rank that is gone",
                "stop": f"every other rank ends within {TIMEOUT:g} s + 4 s, naming the silent rank",
                "control": "with SLAB_LIVENESS_TIMEOUT=0 the others still wait 6 s later"}[a.case]
    rel.record("liveness", f"SIG{'KILL' if a.case == 'kill' else 'STOP'} of one rank"
               + (" (check off)" if a.case == "control" else ""), expected, not problems,
               f"{'still waiting' if a.case == 'control' else 'ended'} after {elapsed:.2f} s", a.np)
    print(json.dumps(record))
    for pr in problems:
        print("FAIL:", pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
