#!/usr/bin/env python3
"""Multi-host tests on the test cluster of scripts/cluster/ (two hosts, n1 and n2, each its own network, uts,
mount and pid namespace; mpirun over ssh and srun --mpi=pmix between them).

  multihost.py CASE --bin BUILD/bin

Exits 77 (CTest's SKIP_RETURN_CODE) with a message when the cluster is not up. Every case prints one line
"multihost: CASE ... <timings>" and appends a JSON record to $SLAB_MULTIHOST_LOG (default
BUILD/multihost.jsonl): the failure cases record how long each took to end the job.

Cases (see CASES): equal results on 2 hosts x 1 and 2 x 2 ranks as on one host; the slurm/ scripts through
sbatch; an injected fault on the other host; kill -9 of the other host's ranks, of its daemons and of a host
whose link was cut; spill folders shared by the hosts and node-local; and "control" cases that show the
failure cases detect a hang: with the liveness check off, the same kill must leave the job hanging.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster  # noqa: E402

# SLAB_LIVENESS_TIMEOUT for these runs, seconds. SLAB_MULTIHOST_LIVENESS=0 runs a case with the check off, to
# see that it fails then (the _control cases do that in the suite for the kill and the cut).
LIVENESS = float(os.environ.get("SLAB_MULTIHOST_LIVENESS", "5"))
A = None  # parsed arguments
RECORD = {}


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def log(msg):
    print(msg, flush=True)


# ---------------------------------------------------------------------------------------------- launching

def app(name):
    return os.path.join(A.bin, name)


def mpirun(hosts, n, args, env=None, extra=()):
    """The mpirun command line, run on n1: `hosts` like "n1:2,n2:2"; env vars passed on with -x."""
    cmd = ["mpirun", "--host", hosts, "-n", str(n), "--bind-to", "none", "--oversubscribe", *extra]
    for k, v in (env or {}).items():
        cmd += ["-x", f"{k}={v}"]
    return cmd + list(args)


def base_env(**more):
    e = {"SLAB_LIVENESS_TIMEOUT": str(LIVENESS), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    e.update(more)
    return e


def run(cmd, timeout=60):
    """Run `cmd` on n1; (rc, output, seconds)."""
    t0 = time.time()
    try:
        r = cluster.run_on("n1", cmd, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise Failure(f"timed out after {timeout} s: {' '.join(cmd)}\n{e.stdout or ''}{e.stderr or ''}")
    return r.returncode, r.stdout + r.stderr, time.time() - t0


def json_line(out):
    for line in out.splitlines():
        if line.startswith("{") and '"app"' in line:
            return json.loads(line)
    raise Failure("no --json line in:\n" + out[-3000:])


def job_processes(names=("slab-",)):
    """Processes of the job on every host: slab apps, mpirun, orted, srun, slurmstepd."""
    out = []
    for h in cluster.hosts():
        for pid, comm, cmd in cluster.processes(h):
            if comm.startswith(names) or comm in ("mpirun", "orted", "srun", "slurmstepd", "prted"):
                out.append((h, pid, comm))
    return out


def slab_ranks(host, exe):
    return cluster.pids_of(host, exe[:15])  # comm is at most 15 characters


def no_strays(what):
    left = cluster.wait_for(lambda: not job_processes(), 15) or job_processes()
    expect(left is True or not left, f"{what}: processes left behind: {left}")


def kill_all(procs):
    for _, pid, _ in procs:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def cleanup_jobs():
    """After a case, whatever it left (only on failure): cancel Slurm jobs, kill the job's processes by pid."""
    cluster.run_on("n1", ["scancel", "--user=root"])
    kill_all(job_processes())


def scratch(name):
    d = os.path.join(cluster.env()["SLAB_SCRATCH"], "multihost", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    os.chmod(d, 0o777)
    return d


def spill_folders(root):
    return sorted(glob.glob(os.path.join(root, "slab-spill-*")))


def node_tmp(host):
    return os.path.join(cluster.STATE, "hosts", host, "tmp")


# ------------------------------------------------------------------------------------------------ results

# Checks that depend on time, memory or the machine, not on the result.
VOLATILE = re.compile(r"^(time_|seconds_|other_fraction|spilled|versions|.*_us$|.*GBps$|.*seconds$|.*_memory_limit$|"
                      r"p2p_|liveness|hosts$|.*gflops|.*_seconds_|ratio_to_ideal|device_high_water)")


def comparable(checks):
    return {k: v for k, v in checks.items() if not VOLATILE.match(k)}


def same_results(name, ref, got):
    """Integers and strings equal, floats equal to 1e-12 (relative); returns the keys not bitwise equal."""
    a, b = comparable(ref), comparable(got)
    expect(a.keys() == b.keys(), f"{name}: check names differ: {sorted(a.keys() ^ b.keys())}")
    inexact = []
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, float) or isinstance(y, float):
            expect(abs(x - y) <= 1e-12 * max(1.0, abs(x)), f"{name}: {k} = {y}, one host gave {x}")
            if x != y:
                inexact.append(k)
        else:
            expect(x == y, f"{name}: {k} = {y!r}, one host gave {x!r}")
    return inexact


def equal_to_one_host(exe, args, setup=None):
    """Run at 2 hosts x 1 and 2 x 2 ranks and on one host with the same rank counts: the same check values."""
    timings = {}
    for layout, n in (("n1:1,n2:1", 2), ("n1:2,n2:2", 4)):
        outs = {}
        for where in (layout, f"n1:{n}"):
            if setup:
                setup(where, n)
            rc, out, secs = run(mpirun(where, n, [app(exe), *args, "--json"], base_env()), timeout=90)
            expect(rc == 0, f"{exe} on {where} exited {rc}:\n{out[-3000:]}")
            outs[where] = json_line(out)
            timings[f"{where} -n {n}"] = round(secs, 2)
        inexact = same_results(f"{exe} on {layout}", outs[f"n1:{n}"]["checks"], outs[layout]["checks"])
        RECORD.setdefault("not_bitwise", {})[layout] = inexact
        if exe == "slab-info":
            check_rank_map(outs[layout], layout, n)
    RECORD["seconds"] = timings
    return timings


def check_rank_map(report, layout, n):
    m = report.get("rank_map")
    expect(isinstance(m, list) and len(m) == n, f"slab-info: rank_map missing or wrong length: {m}")
    per_host = n // 2
    for r, entry in enumerate(m):
        expect(entry["rank"] == r and entry["host"] == f"n{1 + r // per_host}" and entry["local_rank"] == r % per_host
               and entry["local_size"] == per_host, f"slab-info on {layout}: rank {r} is {entry}")
        expect("device" in entry and "pci_bus_id" in entry and entry["cpus"] >= 1, f"slab-info: fields of {entry}")
    checks = report["checks"]
    expect(checks["hosts"] == 2, f"slab-info on {layout}: hosts = {checks['hosts']}")
    expect(checks.get("p2p_inter_pair") == f"0<->{per_host}", f"slab-info: inter-node pair {checks.get('p2p_inter_pair')}")
    if per_host > 1:
        expect(checks.get("p2p_intra_pair") == "0<->1", f"slab-info: intra-node pair {checks.get('p2p_intra_pair')}")
    else:
        expect("p2p_intra_pair" not in checks, "slab-info: an intra-node pair with one rank per host")


def case_info():
    equal_to_one_host("slab-info", ["--bytes", "64KiB", "--repeats", "1"])


def case_tour():
    equal_to_one_host("slab-tour", ["--size", "tiny", "--memory-limit", "128KiB", "--host-memory-limit", "64MiB",
                                    "--workdir", scratch("tour")])


def case_groupby():
    equal_to_one_host("slab-groupby", ["--generate", "--rows", "30000", "--partition-rows", "7000",
                                       "--host-memory-limit", "64MiB"])


def case_merge():
    equal_to_one_host("slab-merge", ["--generate", "--rows", "20000", "--right-rows", "50000",
                                     "--host-memory-limit", "64MiB"])


def case_svd():
    equal_to_one_host("slab-svd", ["--generate", "--rows", "3001", "--cols", "5", "--chunk-rows", "200",
                                   "--host-memory-limit", "64MiB"])


def case_sweep():
    # MPI one-sided between hosts: the shared counter on rank 0 (OMPI_MCA_osc=pt2pt in cluster.env).
    equal_to_one_host("slab-sweep", ["--generate", "--rows", "2000", "--cols", "5", "--tasks", "16"])


def case_gram():
    d = scratch("gram")
    h5 = os.path.join(d, "w2.h5")

    def setup(where, n):
        if os.path.exists(h5):
            os.unlink(h5)
        rc, out, _ = run(mpirun(where, n, [app("slab-gram"), "--generate-file", h5, "--rows", "40", "--cols", "3000"],
                                base_env()))
        expect(rc == 0, f"slab-gram --generate-file on {where}: {out[-2000:]}")

    # X written by the ranks of both hosts into the shared folder, then Y = X X^T into the same file.
    equal_to_one_host("slab-gram", ["--input", h5 + ":/X", "--output", h5 + ":/Y", "--memory-limit", "600KiB",
                                    "--host-memory-limit", "64MiB", "--rows", "40", "--cols", "3000"], setup)


# ---------------------------------------------------------------------------------------------- sbatch

def sbatch(script, nodes, per_node, cpus, args, env_extra=None, timeout=90, unset=()):
    """Submit a slurm/perlmutter script with the overrides a non-Perlmutter site needs; wait for it."""
    out_dir = scratch(f"sbatch-{os.path.basename(script)}-{per_node}")
    env = {"SLAB_SITE": "generic", "SLAB_SCRATCH": cluster.env()["SLAB_SCRATCH"], "SLAB_SRUN_MPI": "pmix",
           "SLAB_GPU_BIND": "", "SLAB_CPUS_PER_CORE": "1", "SLAB_BUILD": os.path.dirname(A.bin),
           "SLAB_LIVENESS_TIMEOUT": str(LIVENESS)}
    env.update(env_extra or {})
    for k in unset:
        env.pop(k, None)
    drop = [x for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", *unset) for x in ("-u", k)]
    cmd = ["env", *drop, *[f"{k}={v}" for k, v in env.items()],
           "sbatch", "--parsable", "-N", str(nodes), "--constraint=", "--gpus-per-node=0", "--qos=",
           f"--ntasks-per-node={per_node}", f"--cpus-per-task={cpus}", "--time=00:05:00",
           f"--output={out_dir}/%j.out", os.path.join(cluster.REPO, "slurm", "perlmutter", script), *args]
    t0 = time.time()
    r = subprocess.run([cluster.ON, "n1", *cmd], capture_output=True, text=True, timeout=timeout, cwd=cluster.REPO)
    job = r.stdout.strip().splitlines()[0] if r.stdout.strip() else "?"
    rc = r.returncode
    if rc == 0:
        rc = wait_job(job, timeout)
    secs = time.time() - t0
    outs = glob.glob(os.path.join(out_dir, "*.out"))
    text = open(outs[0]).read() if outs else ""
    return rc, job, text + r.stderr, secs


def wait_job(job, timeout):
    """Wait for a batch job (polling: sbatch --wait looks only every 10 s); its exit code, as sbatch --wait's."""
    end = time.time() + timeout
    while time.time() < end:
        info = cluster.run_on("n1", ["scontrol", "-o", "show", "job", job]).stdout
        state = re.search(r"JobState=(\S+)", info)
        if state and state.group(1) not in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
            code = re.search(r"ExitCode=(\d+):(\d+)", info)
            if state.group(1) == "COMPLETED":
                return 0
            return int(code.group(1)) or 128 + int(code.group(2)) if code else 1
        time.sleep(0.25)
    raise Failure(f"batch job {job} still running after {timeout} s")


def case_sbatch_info():
    # 2 nodes x 1 rank with 2 CPUs each: srun -c must give each rank both (srun does not inherit -c).
    rc, job, out, secs = sbatch("slab-info.sbatch", 2, 1, 2, ["--bytes", "256KiB", "--repeats", "2"])
    expect(rc == 0, f"slab-info.sbatch: job {job} rc {rc}:\n{out[-3000:]}")
    rep = json_line(out)
    cpus = [e["cpus"] for e in rep["rank_map"]]
    expect(cpus == [2, 2], f"slab-info.sbatch: CPUs per rank {cpus}, asked for 2 each (srun -c)")
    expect([e["omp_threads"] for e in rep["rank_map"]] == ["2", "2"], f"threads: {rep['rank_map']}")
    expect([e["host"] for e in rep["rank_map"]] == ["n1", "n2"], f"hosts: {rep['rank_map']}")
    expect(not os.path.exists(os.path.join(cluster.env()["SLAB_SCRATCH"], "slab-spill", f"job-{job}")),
           "the job's spill folder is still there")
    RECORD["seconds"] = round(secs, 2)


def case_sbatch_tour():
    rc, job, out, secs = sbatch("slab-tour.sbatch", 2, 2, 1, ["--size", "tiny", "--json", "--memory-limit", "128KiB"])
    expect(rc == 0, f"slab-tour.sbatch: job {job} rc {rc}:\n{out[-3000:]}")
    rep = json_line(out)
    expect(rep["ranks"] == 4, f"slab-tour.sbatch: {rep['ranks']} ranks")
    expect(rep["checks"]["spilled"] > 0, "slab-tour.sbatch: nothing spilled")
    spill = os.path.join(cluster.env()["SLAB_SCRATCH"], "slab-spill", f"job-{job}")
    expect(not os.path.exists(spill), f"the job's spill folder {spill} is still there")
    RECORD["seconds"] = round(secs, 2)


def case_sbatch_site_errors():
    # Perlmutter's defaults elsewhere: env.sh stops at once with a message naming what is missing.
    for unset, extra, want in (
            (("SLAB_SITE",), {}, "no 'module' command here"),
            (("SLAB_SCRATCH",), {}, "set SLAB_SCRATCH to a folder every node sees"),
            ((), {"SLAB_BUILD": "/nonexistent"}, "no slab build in SLAB_BUILD='/nonexistent'")):
        rc, job, out, secs = sbatch("slab-info.sbatch", 1, 1, 1, ["--no-bench"], extra, unset=unset)
        expect(rc != 0 and want in out, f"slab-info.sbatch without {unset or extra}: rc {rc}, output:\n{out[-2000:]}")
        RECORD.setdefault("seconds", {})[want] = round(secs, 2)


def case_sbatch_scaling():
    rc, job, out, secs = sbatch("strong-scaling.sbatch", 2, 1, 1,
                                ["slab-groupby", "--generate", "--rows", "30000", "--partition-rows", "7000"])
    expect(rc == 0, f"strong-scaling.sbatch: job {job} rc {rc}:\n{out[-3000:]}")
    run_dir = os.path.join(cluster.env()["SLAB_SCRATCH"], "slab-scaling", job)
    runs = {n: json.load(open(os.path.join(run_dir, f"run-{n}.json"))) for n in (1, 2)}
    expect(runs[1]["ranks"] == 1 and runs[2]["ranks"] == 2, f"ranks per run: {[r['ranks'] for r in runs.values()]}")
    RECORD["not_bitwise"] = same_results("strong-scaling 1 vs 2 nodes", runs[1]["checks"], runs[2]["checks"])
    RECORD["seconds"] = round(secs, 2)


# ---------------------------------------------------------------------------------------------- failures

# Two long jobs (minutes) that are always mid-run when a test strikes. "spill": every rank streams and spills to
# disk from the start (about 200 MB/s per rank: the tests strike 0.3 s after every rank has its spill folder, so a
# test writes about 1 GB). "compute": an SVD of 200,000 x 1,000 (1.6 GB; a minute of local QR, then the tree).
LONG = {
    "spill": ("slab-reduce", ["--generate", "--n", "40000000000", "--chunk", "100000", "--memory-limit", "2MiB",
                              "--host-memory-limit", "2MiB"]),
    "compute": ("slab-svd", ["--generate", "--rows", "200000", "--cols", "1000"]),
}


def long_cmd(launcher, spill_root, liveness, per_host, workload):
    exe, args = LONG[workload]
    env = base_env(SLAB_LIVENESS_TIMEOUT=str(liveness), SLAB_SPILL_DIR=spill_root)
    if launcher == "mpirun":
        return exe, mpirun(f"n1:{per_host},n2:{per_host}", 2 * per_host, [app(exe), *args], env)
    # srun without -K: nothing but slab ends the ranks that are left
    return exe, ["env", *[f"{k}={v}" for k, v in env.items()], "srun", "-N", "2", f"--ntasks-per-node={per_host}",
                 "--mpi=pmix", app(exe), *args]


def start_long(launcher, spill_root, liveness=LIVENESS, per_host=2, workload="spill"):
    exe, cmd = long_cmd(launcher, spill_root, liveness, per_host, workload)
    p = cluster.on("n1", cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cluster.REPO)
    running = lambda: all(len(slab_ranks(h, exe)) == per_host for h in ("n1", "n2"))  # noqa: E731
    if workload == "spill":  # and spilling on both hosts: every rank has made its spill folder
        ok = cluster.wait_for(lambda: running() and len(spill_folders(spill_root)) == 2 * per_host, 30, 0.02)
        time.sleep(0.3)
    else:
        ok = cluster.wait_for(running, 30)
        time.sleep(2.0)  # past start-up: in the sweep
    if not ok:
        p.kill()
        raise Failure(f"the job did not start on both hosts: {job_processes()} {spill_folders(spill_root)}")
    return exe, p


def finish(p, timeout):
    """Wait for the launcher; (ended, output)."""
    try:
        out, _ = p.communicate(timeout=timeout)
        return True, out
    except subprocess.TimeoutExpired:
        return False, ""


def liveness_lines(out, host="n2"):
    return [l for l in out.splitlines() if re.search(rf"slab: rank \d+ on host {host} stopped responding", l)]


def check_spill_after(spill_root, killed_host, local=False):
    """Healthy ranks removed their spill folders; only the killed ranks' may remain (the launcher removes them)."""
    left = spill_folders(spill_root)
    healthy = [f for f in left if f"-{killed_host}-" not in os.path.basename(f)]
    expect(not healthy, f"healthy ranks left spill folders: {healthy}")
    return len(left)


def case_fault():
    # SLAB_FAULT on rank 3 (n2): every rank reports the same error through the agreement, exit 1, quickly.
    spill = scratch("fault")
    t0 = time.time()
    rc, out, secs = run(mpirun("n1:2,n2:2", 4, [app("slab-groupby"), "--generate", "--rows", "20000",
                                                "--partition-rows", "2500"],
                               base_env(SLAB_FAULT="alltoallv:3:0", SLAB_SPILL_DIR=spill)))
    expect(rc == 1, f"the job ended with {rc}, not 1:\n{out[-2000:]}")
    lines = [l for l in out.splitlines() if "injected fault at 'alltoallv'" in l and "error (rank" in l]
    ranks = sorted({re.search(r"error \(rank (\d+)\)", l).group(1) for l in lines})
    expect(ranks == ["0", "1", "2", "3"], f"the error reached ranks {ranks}:\n{out[-3000:]}")
    expect(not liveness_lines(out), "the liveness check fired on an ordinary error")
    expect(not spill_folders(spill), f"spill folders left: {spill_folders(spill)}")
    no_strays("fault")
    RECORD["time_to_end_s"] = round(secs, 2)
    return f"time to end {secs:.2f} s"


def case_kill_ranks_srun(liveness=LIVENESS, control=False):
    spill = scratch("kill-ranks")
    exe, p = start_long("srun", spill, liveness)
    t_kill = time.time()
    victims = [("n2", pid, exe) for pid in slab_ranks("n2", exe)]
    kill_all(victims)
    ended, out = finish(p, 10 if control else 30)
    t_end = time.time() - t_kill
    if control:
        # With the check off the ranks on n1 wait forever in MPI: still there after 10 s.
        alive = slab_ranks("n1", exe)
        cleanup_jobs()
        p.wait(30)
        expect(not ended and len(alive) == 2, f"control: the job ended without the liveness check ({t_end:.1f} s)")
        RECORD["hung_for_s"] = round(t_end, 1)
        return f"hung as expected without the check ({t_end:.1f} s, then cancelled)"
    if not ended:  # say what is still there, and what the ranks printed, before the clean-up ends it
        left = job_processes()
        p.kill()
        out = p.communicate()[0] or ""
        expect(False, f"the job still runs {t_end:.1f} s after its n2 ranks were killed; left: {left}\n{out[-3000:]}")
    lines = liveness_lines(out)
    expect(len(lines) >= 1, f"no 'rank R on host n2 stopped responding' line:\n{out[-3000:]}")
    n_left = check_spill_after(spill, "n2")
    no_strays("kill ranks (srun)")
    shutil.rmtree(spill, ignore_errors=True)  # the killed ranks' folders: what a batch script's clean-up removes
    RECORD.update(time_to_end_s=round(t_end, 2), killed=len(victims), message=lines[0], killed_spill_folders=n_left)
    return f"time to end {t_end:.2f} s"


def case_kill_ranks_srun_control():
    return case_kill_ranks_srun(liveness=0, control=True)


def case_kill_ranks_sbatch():
    # The batch script's srun -K: Slurm ends the step; the script removes the job's spill folder.
    spill_base = scratch("kill-sbatch")
    out_dir = scratch("kill-sbatch-out")
    cmd = ["env", "SLAB_SITE=generic", f"SLAB_SCRATCH={cluster.env()['SLAB_SCRATCH']}", "SLAB_SRUN_MPI=pmix",
           "SLAB_GPU_BIND=", "SLAB_CPUS_PER_CORE=1", f"SLAB_BUILD={os.path.dirname(A.bin)}",
           f"SLAB_LIVENESS_TIMEOUT={LIVENESS}", f"SLAB_SPILL_DIR={spill_base}", "sbatch", "--parsable",
           "-N", "2", "--constraint=", "--gpus-per-node=0", "--qos=", "--ntasks-per-node=2", "--cpus-per-task=1",
           f"--output={out_dir}/%j.out", os.path.join(cluster.REPO, "slurm", "perlmutter", "run.sbatch"),
           LONG["spill"][0], *LONG["spill"][1]]
    r = subprocess.run([cluster.ON, "n1", *cmd], capture_output=True, text=True, timeout=30, cwd=cluster.REPO)
    job = r.stdout.strip()
    expect(r.returncode == 0 and job, f"sbatch failed: {r.stdout}{r.stderr}")
    ok = cluster.wait_for(lambda: len(glob.glob(os.path.join(spill_base, "job-*", "slab-spill-*"))) == 4, 40, 0.02)
    expect(ok, f"the batch job did not start spilling on both hosts: {job_processes()}")
    time.sleep(0.3)
    t_kill = time.time()
    kill_all([("n2", pid, "") for pid in slab_ranks("n2", LONG["spill"][0])])
    try:
        rc = wait_job(job, 40)
    except Failure:
        raise Failure(f"the batch job still runs {time.time() - t_kill:.1f} s after its n2 ranks were killed")
    t_end = time.time() - t_kill
    expect(rc != 0, "the batch job succeeded although ranks were killed")
    expect(not glob.glob(os.path.join(spill_base, "job-*")), f"spill folders left: {glob.glob(spill_base + '/*')}")
    no_strays("kill ranks (sbatch)")
    RECORD["time_to_end_s"] = round(t_end, 2)
    return f"time to end {t_end:.2f} s"


def case_kill_daemon_mpirun():
    spill = scratch("kill-orted")
    exe, p = start_long("mpirun", spill, workload="compute")
    t_kill = time.time()
    kill_all([("n2", pid, "orted") for pid in cluster.pids_of("n2", "orted")])
    ended, out = finish(p, 30)
    t_end = time.time() - t_kill
    expect(ended, f"mpirun still runs {t_end:.1f} s after orted on n2 was killed")
    ranks_gone = cluster.wait_for(lambda: not slab_ranks("n1", exe) and not slab_ranks("n2", exe), 10)
    t_ranks = time.time() - t_kill
    expect(ranks_gone, "slab ranks left after the daemon was killed")
    check_spill_after(spill, "n2")
    no_strays("kill orted")
    RECORD.update(time_to_end_s=round(t_end, 2), ranks_gone_s=round(t_ranks, 2))
    return f"time to end {t_end:.2f} s (all ranks gone {t_ranks:.2f} s)"


def case_kill_daemon_srun():
    # slurmstepd and slurmd of n2: the n2 ranks lose their step daemon; slab ends the n1 ranks; Slurm ends the
    # job when it marks n2 down (SlurmdTimeout=10 on the test cluster).
    spill = scratch("kill-slurmd")
    exe, p = start_long("srun", spill, workload="compute")
    t_kill = time.time()
    kill_all([("n2", pid, c) for c in ("slurmstepd", "slurmd") for pid in cluster.pids_of("n2", c)])
    ranks_gone, t_ranks, ended, t_end = False, 0.0, False, 0.0
    try:
        # slab's bound, well before Slurm's (node down after SlurmdTimeout, about 15-20 s here)
        ranks_gone = cluster.wait_for(lambda: not slab_ranks("n1", exe) and not slab_ranks("n2", exe), 8)
        t_ranks = time.time() - t_kill
        ended, out = finish(p, 60)
        t_end = time.time() - t_kill
    finally:
        cluster.run_on("n2", ["slurmd"])  # the node comes back (ReturnToService=2)
    expect(ranks_gone, f"slab ranks still run {t_ranks:.1f} s after n2's slurmstepd and slurmd were killed")
    expect(ended, f"srun still runs {t_end:.1f} s after n2's daemons were killed")
    check_spill_after(spill, "n2")
    no_strays("kill slurmd")
    back = cluster.wait_for(lambda: "idle" in cluster.run_on("n1", ["sinfo", "-h", "-n", "n2", "-o", "%t"]).stdout, 30)
    expect(back, "n2 did not come back after slurmd was restarted")
    RECORD.update(time_to_end_s=round(t_end, 2), ranks_gone_s=round(t_ranks, 2))
    return f"ranks gone {t_ranks:.2f} s, job (srun) ended {t_end:.2f} s"


def set_link(host, up):
    subprocess.run(["ip", "-n", "slabc-br", "link", "set", f"v{host}", "up" if up else "down"], check=True)


def case_link_cut(liveness=LIVENESS, control=False):
    # n2's link is cut (no reset, only silence), then its part of the job is killed, as if the host died.
    spill = scratch("link-cut")
    exe, p = start_long("mpirun", spill, liveness, per_host=1, workload="compute")
    t_cut = time.time()
    set_link("n2", False)
    try:
        bound = LIVENESS + 3
        gone = cluster.wait_for(lambda: not slab_ranks("n1", exe) and not slab_ranks("n2", exe), bound)
        t_ranks = time.time() - t_cut
        if control:
            alive = slab_ranks("n1", exe)
            expect(not gone and alive, f"control: ranks ended without the liveness check ({t_ranks:.1f} s)")
            RECORD["hung_for_s"] = round(t_ranks, 1)
            return f"ranks still waiting after {t_ranks:.1f} s without the check, as expected"
        expect(gone, f"slab ranks still run {t_ranks:.1f} s after n2's link was cut (bound {bound} s)")
        # "then killed": what is left of the job on n2 (its orted) dies with the host.
        kill_all([("n2", pid, c) for pid, c, cmd in cluster.processes("n2")
                  if c in ("orted", "prted") or c.startswith("slab-") or (c == "sshd" and "listener" not in cmd)])
        ended, out = finish(p, 30)
        t_end = time.time() - t_cut
        expect(ended, f"mpirun still runs {t_end:.1f} s after the cut (Open MPI's keepalive: cluster.env)")
        lines = liveness_lines(out)
        expect(lines and "nothing heard from it" in lines[0], f"no liveness message naming n2:\n{out[-3000:]}")
    finally:
        if control:
            kill_all(job_processes())
            p.wait(30)
        set_link("n2", True)
    check_spill_after(spill, "n2")
    no_strays("link cut")
    RECORD.update(time_to_end_s=round(t_end, 2), ranks_gone_s=round(t_ranks, 2), message=lines[0])
    return f"ranks gone {t_ranks:.2f} s, mpirun ended {t_end:.2f} s"


def case_link_cut_control():
    return case_link_cut(liveness=0, control=True)


def case_spill_folders():
    # The same spilling groupby with a spill folder every host shares and with each host's own /tmp: the same
    # results, and nothing left in either place.
    shared = scratch("spill-shared")
    args = [app("slab-groupby"), "--generate", "--rows", "80000", "--partition-rows", "2500", "--memory-limit",
            "512KiB", "--host-memory-limit", "256KiB", "--json"]
    res = {}
    for kind, root in (("shared", shared), ("node-local", "/tmp")):
        before = {h: spill_folders(node_tmp(h)) for h in ("n1", "n2")}
        rc, out, secs = run(mpirun("n1:2,n2:2", 4, args, base_env(SLAB_SPILL_DIR=root)))
        expect(rc == 0, f"groupby with {kind} spill folder: rc {rc}\n{out[-2000:]}")
        rep = json_line(out)
        expect(rep["spilled_bytes"] > 0 and rep["peak_bytes"]["disk"] > 0, f"{kind}: nothing spilled to disk")
        res[kind] = comparable(rep["checks"])
        expect(not spill_folders(shared), f"{kind}: left {spill_folders(shared)}")
        for h in ("n1", "n2"):
            expect(spill_folders(node_tmp(h)) == before[h], f"{kind}: left in {h}:/tmp {spill_folders(node_tmp(h))}")
        RECORD.setdefault("seconds", {})[kind] = round(secs, 2)
    expect(res["shared"] == res["node-local"], "shared and node-local spill folders gave different results")
    # Node-local means per host: a rank of n2 killed while spilling leaves its folder in n2's /tmp only, and the
    # next run on n2 removes it (the folder names the host; pid checked in n2's own process table).
    # mpirun follows its SIGTERM with SIGKILL after 1 s; on a loaded 2-core machine the healthy ranks' removal of
    # their spill files can take longer, so give them 3 s, as the spill-cleanup tests do (README: signal grace).
    rc, out, _ = run(mpirun("n1:2,n2:2", 4, args, base_env(SLAB_SPILL_DIR="/tmp", SLAB_FAULT="spill:3:2:kill"),
                            extra=("--mca", "odls_base_sigkill_timeout", "3")))
    expect(rc != 0, "the run with a killed rank succeeded")
    left2 = spill_folders(node_tmp("n2"))
    expect(len(left2) == 1 and "-n2-" in left2[0] and not spill_folders(node_tmp("n1")),
           f"after the kill: n1 {spill_folders(node_tmp('n1'))}, n2 {left2}")
    rc, out, _ = run(mpirun("n1:2,n2:2", 4, args, base_env(SLAB_SPILL_DIR="/tmp")))
    expect(rc == 0 and not spill_folders(node_tmp("n2")), f"the next run left {spill_folders(node_tmp('n2'))}")
    no_strays("spill folders")


CASES = {
    "info": case_info, "tour": case_tour, "groupby": case_groupby, "merge": case_merge, "svd": case_svd,
    "gram": case_gram, "sweep": case_sweep, "sbatch_info": case_sbatch_info, "sbatch_tour": case_sbatch_tour,
    "sbatch_scaling": case_sbatch_scaling,
    "sbatch_site_errors": case_sbatch_site_errors, "fault": case_fault, "kill_ranks_srun": case_kill_ranks_srun,
    "kill_ranks_srun_control": case_kill_ranks_srun_control, "kill_ranks_sbatch": case_kill_ranks_sbatch,
    "kill_daemon_mpirun": case_kill_daemon_mpirun, "kill_daemon_srun": case_kill_daemon_srun,
    "link_cut": case_link_cut, "link_cut_control": case_link_cut_control, "spill_folders": case_spill_folders,
}


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--bin", required=True, help="the build's bin folder")
    A = ap.parse_args()
    A.bin = os.path.abspath(A.bin)
    up, line = cluster.status()
    if not up:
        print(f"multihost: SKIP {A.case}: {line}")
        return cluster.SKIP
    if job_processes():
        cleanup_jobs()
    t0 = time.time()
    try:
        note = CASES[A.case]() or ""
        ok = True
    except Failure as e:
        note, ok = str(e), False
        cleanup_jobs()
    RECORD.update(case=A.case, ok=ok, wall_s=round(time.time() - t0, 2))
    path = os.environ.get("SLAB_MULTIHOST_LOG", os.path.join(os.path.dirname(A.bin), "multihost.jsonl"))
    with open(path, "a") as f:
        f.write(json.dumps(RECORD) + "\n")
    print(f"multihost: {'PASS' if ok else 'FAIL'} {A.case} ({RECORD['wall_s']} s) {note}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
