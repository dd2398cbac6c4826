#!/usr/bin/env python3
"""Predicted strong scaling of TSQR, X X^T and groupby on Perlmutter, to 1,024 GPUs, from an alpha-beta model.

    python3 perf/model/model.py                          # reads perf/model/params.json
    python3 perf/model/model.py --params P.json --out perf/results/scaling/model

Each algorithm's time on p ranks (one per GPU, four per node) is compute at a per-rank rate plus messages at
alpha + bytes / beta, with NVLink for the tree levels inside a node and Slingshot across nodes, following what
slab does (see perf/model/README.md). Two rate sets from params.json: an A100 estimate and the rates measured
on this machine's ranks. Writes OUT.png (times and efficiencies), OUT.csv (every point) and prints, per
algorithm, the largest p with parallel efficiency >= 50%. Plots need matplotlib (perf/.venv has it).
"""
import argparse
import csv
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Machine:
    def __init__(self, prm, rates):
        self.gpn = prm["gpus_per_node"]
        self.net = (prm["network"]["alpha_s"] + prm["software_alpha_s"], prm["network"]["beta_Bps"])
        self.nvl = (prm["nvlink"]["alpha_s"] + prm["software_alpha_s"], prm["nvlink"]["beta_Bps"])
        self.r = rates

    def tree(self, p, nbytes, combine_s=0.0):
        """A binomial tree (reduce or broadcast) of nbytes per message: log2(p) levels, the first
        log2(gpus_per_node) over NVLink, the rest over the network; combine_s of work per level."""
        levels = math.ceil(math.log2(p)) if p > 1 else 0
        intra = min(levels, int(math.log2(self.gpn)))
        t = 0.0
        for lev in range(levels):
            a, b = self.nvl if lev < intra else self.net
            t += a + nbytes / b + combine_s
        return t

    def alltoall(self, p, nbytes):
        """Each rank sends nbytes in all, spread evenly over the p - 1 others (pairwise exchange): p - 1
        message latencies; the bytes to the node's other GPUs over NVLink, the rest over the rank's NIC."""
        if p == 1:
            return 0.0
        on_node = min(p, self.gpn) - 1
        off_node = p - 1 - on_node
        per = nbytes / (p - 1)
        return on_node * self.nvl[0] + off_node * self.net[0] + max(on_node * per / self.nvl[1],
                                                                    off_node * per / self.net[1])


def tsqr(mach, prob, p):
    """slab's TSQR SVD: local Householder QR of the rank's m/p x n rows, a binomial tree of n x n R factors
    (each level: send a triangle, QR of two stacked triangles), the SVD of R on one rank, V broadcast, then
    U = Q U_R applied to the rank's rows."""
    m, n, r = prob["m"], prob["n"], mach.r
    local = 2.0 * (m / p) * n * n / r["qr_flops"] + 2.0 * (m / p) * n * n / r["dgemm_flops"]
    comm = mach.tree(p, 8.0 * n * (n + 1) / 2, combine_s=(2.0 * n ** 3 / 3) / r["small_dense_flops"])
    comm += mach.tree(p, 8.0 * n * n)  # V back to every rank
    serial = 12.0 * n ** 3 / r["small_dense_flops"]  # the SVD of R (dgesdd ~ 12 n^3)
    return {"compute": local, "comm": comm, "serial": serial, "io": 0.0}


def gram(mach, prob, p, flow="after", reduce_scatter=False):
    """slab's out-of-core X X^T: read X (n x m) in column blocks dealt to ranks, dsyrk each into one n x n sum per
    rank, then combine the sums and write Y.

    flow="before" (slab up to issue 14; `--gram-flow before` prints only this): read and dsyrk take turns (their
    times add), the sums are reduced over the binomial tree to rank 0 (n x n per level), and rank 0 alone writes Y.
    With reduce_scatter=True, the old dotted alternative: that tree replaced by Rabenseifner's reduce-scatter plus
    a gather to rank 0, which still writes Y alone.

    flow="after" (slab now): block i + 1 is read while block i's dsyrk runs, so the pass costs the longer of the
    two plus the shorter one's share of one block (at least four blocks per rank, gram_block_cols); the sums are
    reduce-scattered by recursive halving along the same tree (level l sends n^2 / 2^(l+1) doubles, the first
    levels inside a node over NVLink) into row blocks; and every rank writes its rows collectively, so writing Y
    scales with the nodes' bandwidth like the read."""
    n, m, r = prob["n"], prob["m"], mach.r
    nodes = math.ceil(p / mach.gpn)
    io = 8.0 * n * m / min(nodes * r["read_Bps_per_node"], 5.0e12)  # scratch: > 5 TB/s in all
    compute = float(n) * n * m / p / r["syrk_flops"]
    add = 3 * 8.0 * n * n / r["mem_Bps"]  # one n x n sum per level: read two, write one
    if flow == "before":
        if reduce_scatter and p > 1:  # Rabenseifner: reduce-scatter + gather, 2 (p-1)/p of the matrix per rank
            comm = 2 * math.log2(p) * mach.net[0] + 2.0 * (p - 1) / p * 8.0 * n * n / mach.net[1] + add
        else:
            comm = mach.tree(p, 8.0 * n * n, combine_s=add)
        serial = 8.0 * n * n / r["read_Bps_per_node"]  # rank 0 writes Y
        return {"compute": compute, "comm": comm, "serial": serial, "io": io}
    blocks = 4  # per rank (gram_block_cols' floor, where the memory allows no fewer)
    levels = math.ceil(math.log2(p)) if p > 1 else 0
    intra = min(levels, int(math.log2(mach.gpn)))
    comm = 0.0
    for lev in range(levels):  # recursive halving: half the remaining blocks cross at each level
        a, b = mach.nvl if lev < intra else mach.net
        piece = 8.0 * n * n / 2 ** (lev + 1)
        comm += a + piece / b + 3 * piece / r["mem_Bps"]
    write = 8.0 * n * n / min(nodes * r["read_Bps_per_node"], 5.0e12)  # every rank its rows, collectively
    hidden = min(io, compute) * (1.0 - 1.0 / blocks)  # what the overlap hides of the shorter of the two
    return {"compute": compute, "comm": comm, "serial": 0.0, "io": io - hidden + write}


def groupby(mach, prob, p):
    """slab's groupby: pre-aggregate the rank's rows into partial states, alltoallv the partials by key hash,
    combine what arrives."""
    rows, groups, rec, r = prob["rows"], prob["groups"], prob["record_bytes"], mach.r
    local_rows = rows / p
    partial = groups * (1.0 - math.exp(-local_rows / groups))  # distinct keys among the rank's rows
    compute = local_rows / r["hash_rows_per_s"] + partial / r["hash_rows_per_s"]  # aggregate, then combine
    comm = mach.alltoall(p, partial * rec * (p - 1) / p)
    return {"compute": compute, "comm": comm, "serial": 0.0, "io": 0.0}


def gram_table(rows, prm, gpus):
    """The X X^T flows at the given GPU counts, for each rate set, as a markdown table: predicted seconds,
    efficiency against the same flow on 1 GPU, and the speedup over the 1-GPU time of the flow before."""
    names = [n for n in ("gram", "gram (reduce-scatter)", "gram (rs + overlap)") if any(r["model"] == n for r in rows)]
    label = {"gram": "before: tree reduce to rank 0, read then dsyrk, rank 0 writes Y",
             "gram (reduce-scatter)": "before, tree replaced by reduce-scatter + gather (the old dotted line)",
             "gram (rs + overlap)": "after: reduce-scatter into row blocks, reads overlap dsyrk, collective write"}
    out = [f"# X X^T, predicted on Perlmutter ({prm['problems']['gram']['label']})", "",
           "Regenerate: `python3 perf/model/model.py --table perf/model/gram-scaling.md` "
           "(`--gram-flow before` keeps only the flow before issue 14). Efficiency is against the same flow on "
           "1 GPU; \"vs before @1\" is the speedup over the flow before on 1 GPU.", ""]
    for rates in prm["rates"]:
        out += [f"## {rates.replace('_', ' ')} rates", "",
                "| flow | GPUs | seconds | efficiency | vs before @1 | compute s | comm s | serial s | io s |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        base = [r for r in rows if r["model"] == "gram" and r["rates"] == rates and r["gpus"] == 1]
        for name in names:
            for g in gpus:
                for r in rows:
                    if r["model"] == name and r["rates"] == rates and r["gpus"] == g:
                        vs = f"{base[0]['seconds'] / r['seconds']:.0f}x" if base else "-"
                        out.append(f"| {label[name]} | {g} | {r['seconds']:.3g} | {100 * r['efficiency']:.1f}% | {vs} | "
                                   f"{r['compute_s']:.3g} | {r['comm_s']:.3g} | {r['serial_s']:.3g} | {r['io_s']:.3g} |")
        out.append("")
    return "\n".join(out)


MODELS = [
    ("tsqr", "tsqr", tsqr, {}),
    ("gram", "gram", gram, {"flow": "before"}),
    ("gram (reduce-scatter)", "gram", gram, {"flow": "before", "reduce_scatter": True}),
    ("gram (rs + overlap)", "gram", gram, {"flow": "after"}),
    ("groupby, few groups", "groupby_low", groupby, {}),
    ("groupby, many groups", "groupby_high", groupby, {}),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default=os.path.join(HERE, "params.json"))
    ap.add_argument("--out", default=os.path.join(ROOT, "perf", "results", "scaling", "model"))
    ap.add_argument("--gram-flow", choices=["before", "after", "both"], default="both",
                    help="X X^T as slab did it before issue 14 (tree reduce to rank 0, read and dsyrk in turn, rank 0 "
                         "writes Y), as it does now (reduce-scatter, overlapped reads, collective write), or both")
    ap.add_argument("--table", help="also write the X X^T efficiencies at --table-gpus as a markdown table here")
    ap.add_argument("--table-gpus", default="256,1024")
    opts = ap.parse_args()
    with open(opts.params) as f:
        prm = json.load(f)
    ps = [2 ** k for k in range(int(math.log2(prm["max_gpus"])) + 1)]
    results = {}  # (model, rates) -> [parts per p]
    rows = []
    models = [mdl for mdl in MODELS
              if mdl[1] != "gram" or opts.gram_flow == "both" or mdl[3].get("flow") == opts.gram_flow]
    for rates in prm["rates"]:
        mach = Machine(prm, prm["rates"][rates])
        for name, key, fn, kw in models:
            parts = [fn(mach, prm["problems"][key], p, **kw) for p in ps]
            results[(name, rates)] = parts
            t1 = sum(parts[0].values())
            for p, part in zip(ps, parts):
                t = sum(part.values())
                rows.append({"model": name, "rates": rates, "gpus": p, "seconds": t, "speedup": t1 / t,
                             "efficiency": t1 / t / p, **{k + "_s": v for k, v in part.items()}})
    os.makedirs(os.path.dirname(opts.out), exist_ok=True)
    with open(opts.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {opts.out}.csv")
    for name, _, _, _ in models:
        for rates in prm["rates"]:
            good = [r["gpus"] for r in rows if r["model"] == name and r["rates"] == rates and r["efficiency"] >= 0.5]
            print(f"{name:24s} {rates:14s} efficiency >= 50% up to {max(good)} GPUs")
    table = gram_table(rows, prm, [int(g) for g in opts.table_gpus.split(",")])
    print(table)
    if opts.table:
        with open(opts.table, "w") as f:
            f.write(table)
        print(f"wrote {opts.table}")

    try:
        import matplotlib
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    have = {mdl[0] for mdl in models}
    panels = [("tsqr", ["tsqr"]),
              ("gram", [g for g in ("gram", "gram (reduce-scatter)", "gram (rs + overlap)") if g in have]),
              ("groupby", ["groupby, few groups", "groupby, many groups"])]
    fig, ax = plt.subplots(2, 3, figsize=(16, 8.5))
    colors = {"compute": "#4c72b0", "comm": "#dd8452", "serial": "#c44e52", "io": "#55a868"}
    for c, (key, names) in enumerate(panels):
        a = ax[0][c]
        for i, name in enumerate(names):
            parts = results[(name, "a100")]
            ls = "-" if i == 0 else ":"
            a.plot(ps, [sum(x.values()) for x in parts], "k" + ls, lw=2, label=f"total: {name}")
            for comp in ("compute", "comm", "serial", "io"):
                v = [x[comp] for x in parts]
                if max(v) > 0:
                    a.plot(ps, v, ls, color=colors[comp], label=f"{comp}" + ("" if i == 0 else f" ({name})"))
        prob = prm["problems"][MODELS[[m[0] for m in MODELS].index(names[0])][1]]
        a.set(xscale="log", yscale="log", xlabel="GPUs (4 per node)", ylabel="predicted seconds (A100 rates)",
              title=prob["label"])
        a.legend(fontsize=7)
        a.grid(alpha=0.3, which="both")
        b = ax[1][c]
        for name in names:
            for rates, ls in (("a100", "-"), ("measured_here", "--")):
                eff = [r["efficiency"] for r in rows if r["model"] == name and r["rates"] == rates]
                b.plot(ps, eff, ls, marker="o", ms=3, label=f"{name}, {rates.replace('_', ' ')} rates")
        b.axhline(0.5, color="k", lw=0.8, ls=":")
        b.set(xscale="log", ylim=(0, 1.05), xlabel="GPUs (4 per node)", ylabel="parallel efficiency vs 1 GPU")
        b.legend(fontsize=7)
        b.grid(alpha=0.3, which="both")
    fig.suptitle("slab on Perlmutter, predicted: alpha-beta model (Slingshot-11 2 us / 25 GB/s per GPU, NVLink "
                 "100 GB/s per pair), perf/model/params.json", fontsize=10)
    fig.tight_layout()
    fig.savefig(opts.out + ".png", dpi=100)
    print(f"wrote {opts.out}.png")


if __name__ == "__main__":
    main()
