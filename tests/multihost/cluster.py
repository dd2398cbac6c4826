"""The test cluster of scripts/cluster/up.sh, seen from the machine: its hosts, running commands on them, and
the processes of one host (by its pid namespace), for the multihost tests."""
import os
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STATE = os.environ.get("SLAB_CLUSTER_DIR", "/var/tmp/slab-cluster")
ON = os.path.join(REPO, "scripts", "cluster", "on")
SKIP = 77  # CTest's SKIP_RETURN_CODE for these tests


def status():
    """(up, line) from scripts/cluster/status.sh."""
    r = subprocess.run([os.path.join(REPO, "scripts", "cluster", "status.sh")], capture_output=True, text=True)
    return r.returncode == 0, (r.stdout + r.stderr).strip()


def hosts():
    """{name: init pid} of the hosts up.sh recorded."""
    out = {}
    with open(os.path.join(STATE, "pids")) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "host":
                out[p[1]] = int(p[2])
    return out


def env():
    """cluster.env as a dict."""
    out = {}
    with open(os.path.join(STATE, "cluster.env")) as f:
        for line in f:
            line = line.strip()
            if "=" in line:
                k, v = line.split("=", 1)
                out[k] = v.strip('"')
    return out


def on(host, args, **kw):
    """subprocess.Popen of `args` on `host` (scripts/cluster/on)."""
    return subprocess.Popen([ON, host] + list(args), **kw)


def run_on(host, args, timeout=60, **kw):
    return subprocess.run([ON, host] + list(args), capture_output=True, text=True, timeout=timeout, **kw)


def _ns(pid):
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def processes(host):
    """[(global pid, comm, cmdline)] of every live process of `host` but its init (same pid namespace)."""
    init = hosts()[host]
    ns = _ns(init)
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == init:
            continue
        pid = int(d)
        if _ns(pid) != ns:
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            if stat[stat.rfind(")") + 2] == "Z":
                continue
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        out.append((pid, comm, cmd))
    return out


def pids_of(host, comm):
    """Global pids of `host`'s processes whose name is `comm` (exact)."""
    return [p for p, c, _ in processes(host) if c == comm]


def wait_for(pred, timeout, step=0.1):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()
