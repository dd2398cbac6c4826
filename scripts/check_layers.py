#!/usr/bin/env python3
"""Check slab's include graph: no include runs upward (or sideways) between layers, no header include cycle, and
apps/, examples/ and perf/ use only slab's public headers.

The layers and which layers each may use are read from src/CMakeLists.txt (`set(slab_<layer>_uses ...)`), the
same lists whose link the build checks with --no-undefined. Run from anywhere:

    python3 scripts/check_layers.py            # prints the layer graph; exit 1 on a violation
    python3 scripts/check_layers.py --quiet    # only violations
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def layers_from_cmake():
    text = open(os.path.join(ROOT, "src", "CMakeLists.txt")).read()
    uses = {}
    for m in re.finditer(r"set\(slab_(\w+)_uses((?:\s+\w+)*)\)", text):
        uses[m.group(1)] = m.group(2).split()
    order = [m.group(1) for m in re.finditer(r"set\(slab_(\w+)_sources\b", text)]
    return order, uses


def files_under(*parts, exts=(".hpp", ".cpp", ".cu", ".inl", ".h")):
    base = os.path.join(ROOT, *parts)
    for dirpath, _, names in os.walk(base):
        for n in sorted(names):
            if n.endswith(exts):
                yield os.path.join(dirpath, n)


def layer_of_include(inc, layers):
    """The layer an include names: "slab/<layer>/..." (public) or "<layer>/..." (src-internal), else None."""
    parts = inc.split("/")
    if len(parts) >= 3 and parts[0] == "slab" and parts[1] in layers:
        return parts[1], True
    if len(parts) >= 2 and parts[0] in layers:
        return parts[0], False
    return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    order, uses = layers_from_cmake()
    layers = set(order)
    problems = []
    edges = {}  # (from, to) -> count
    headers = {}  # file -> included files (resolved) for the cycle check

    def resolve(inc, public):
        path = os.path.join(ROOT, "include", inc) if public else os.path.join(ROOT, "src", inc)
        return path if os.path.exists(path) else None

    for layer in order:
        for f in list(files_under("include", "slab", layer)) + list(files_under("src", layer)):
            rel = os.path.relpath(f, ROOT)
            text = open(f, encoding="utf-8", errors="replace").read()
            resolved = []
            for inc in INCLUDE.findall(text):
                to, public = layer_of_include(inc, layers)
                if to is None:
                    continue
                r = resolve(inc, public)
                if r:
                    resolved.append(r)
                if f.startswith(os.path.join(ROOT, "include")) and not public:
                    problems.append(f"{rel}: a public header includes the internal header '{inc}'")
                if to == layer:
                    continue
                edges[(layer, to)] = edges.get((layer, to), 0) + 1
                if to not in uses.get(layer, []):
                    problems.append(f"{rel}: layer '{layer}' includes '{inc}' of layer '{to}', which it may not use "
                                    f"(allowed: {', '.join(uses.get(layer, [])) or 'none'})")
            headers[f] = resolved

    # Header include cycles (a header that reaches itself through its includes).
    state = {}

    def visit(f, stack):
        state[f] = 1
        stack.append(f)
        for g in headers.get(f, []):
            if state.get(g) == 1:
                cyc = stack[stack.index(g):] + [g]
                problems.append("include cycle: " + " -> ".join(os.path.relpath(x, ROOT) for x in cyc))
            elif state.get(g) is None:
                visit(g, stack)
        stack.pop()
        state[f] = 2

    for f in sorted(headers):
        if state.get(f) is None:
            visit(f, [])

    # Users of the library: only public headers (what a user who copies them has).
    for top in ("apps", "examples", "perf"):
        for f in files_under(top, exts=(".hpp", ".cpp")):
            if os.sep + ".venv" + os.sep in f:
                continue
            for inc in INCLUDE.findall(open(f, encoding="utf-8", errors="replace").read()):
                to, public = layer_of_include(inc, layers)
                if to is not None and not public:
                    problems.append(f"{os.path.relpath(f, ROOT)}: includes slab's internal header '{inc}'")

    if not args.quiet:
        print("layer graph (includes between layers; every edge points down):")
        for layer in order:
            outs = sorted(((to, n) for (fr, to), n in edges.items() if fr == layer), key=lambda x: order.index(x[0]))
            print(f"  {layer:8s} -> " + (", ".join(f"{to} ({n})" for to, n in outs) or "-"))
    for p in problems:
        print("check_layers: " + p, file=sys.stderr)
    if not args.quiet:
        print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
