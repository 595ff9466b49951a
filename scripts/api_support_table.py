#!/usr/bin/env python3
"""Regenerates the per-module tables of docs/api_support.md from the real modules.

"Supported" is what shard's own modules hold: a shard script imports each module and prints
its public dir(). JAX's (and numpy's) names are the table that src/api/modules/
jax_public_names.cpp holds (scripts/gen_jax_public_names.py reads them from JAX's sources).
The text between the markers `<!-- api-tables:begin -->` and `<!-- api-tables:end -->` is
replaced; the rest of the page is prose.

  python3 scripts/api_support_table.py [build/src/shard] [docs/api_support.md]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The modules shard registers (the jax.* ones and numpy), in the page's order.
MODULES = [
    "jax", "jax.dtypes", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax", "jax.lax.linalg", "jax.random",
    "jax.nn", "jax.nn.initializers", "jax.sharding", "jax.tree_util", "jax.tree", "jax.debug",
    "jax.distributed", "jax.profiler", "jax.core", "jax.experimental", "jax.experimental.shard", "jax.experimental.shard_map",
    "jax.experimental.mesh_utils", "jax.experimental.multihost_utils", "jax.scipy", "jax.scipy.special",
    "jax.scipy.linalg", "numpy", "numpy.random", "numpy.linalg", "numpy.fft",
]

# One import per module (shard has no __import__); a module shard lacks prints nothing.
DUMP = """
try:
    import {name} as m
    for n in dir(m):
        if not n.startswith('_'):
            print('{name} ' + n)
except ImportError:
    pass
"""


def shard_names(shard):
    script = "".join(DUMP.format(name=m) for m in MODULES)
    out = subprocess.run([shard, "-c", script], check=True, capture_output=True, text=True).stdout
    names = {m: set() for m in MODULES}
    for line in out.splitlines():
        m, n = line.split(" ")
        names[m].add(n)
    return names


def reference_names():
    text = open(os.path.join(ROOT, "src/api/modules/jax_public_names.cpp")).read()
    names = {}
    for m, n in re.findall(r'\{"([^"]+)", "([^"]*)"\}', text):
        names.setdefault(m, set())
        if n:
            names[m].add(n)
    return names


def code_list(names):
    return ", ".join(f"`{n}`" for n in sorted(names)) if names else "(none)"


def tables(shard):
    have = shard_names(shard)
    ref = reference_names()
    out = ["| module | JAX / numpy names | shard has | missing |", "| --- | --- | --- | --- |"]
    for m in MODULES:
        r = ref.get(m, set())
        out.append(f"| `{m}` | {len(r)} | {len(r & have[m])} | {len(r - have[m])} |")
    out.append("")
    for m in MODULES:
        r = ref.get(m, set())
        out.append(f"### `{m}`")
        out.append("")
        out.append(f"Supported ({len(r & have[m])}): {code_list(r & have[m])}")
        out.append("")
        out.append(f"Missing ({len(r - have[m])}): {code_list(r - have[m])}")
        extra = have[m] - r
        if extra:
            out.append("")
            out.append(f"Only in shard ({len(extra)}): {code_list(extra)}")
        out.append("")
    # A missing package stands for its submodules too.
    missing = {x for x in ref if x.startswith("jax.") and x not in MODULES}
    absent = sorted(x for x in missing if x.rpartition(".")[0] not in missing)
    out.append("### JAX modules shard does not have")
    out.append("")
    out.append(code_list(absent))
    out.append("")
    return "\n".join(out)


def main():
    shard = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/src/shard")
    page = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs/api_support.md")
    text = open(page).read()
    begin, end = "<!-- api-tables:begin -->\n", "<!-- api-tables:end -->"
    i, j = text.index(begin) + len(begin), text.index(end)
    open(page, "w").write(text[:i] + "\n" + tables(shard) + "\n" + text[j:])


if __name__ == "__main__":
    main()
