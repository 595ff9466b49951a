#!/usr/bin/python3
"""numpy oracle for jax.shard_map (issue 6): shard's results against shmap_reference.

For each mesh — (1,), (2,), (4,), (8,) over ('x',) and (2,2), (2,4), (4,2) over ('x','y') —
generates cases over in_specs, the collective's axes (one axis or a tuple) and bodies
(identity, elementwise, dot + psum, psum/pmax/pmean, all_gather tiled and not, psum_scatter,
ppermute with a missing destination, all_to_all tiled and not, axis_index), writes one .shard
program running them (eager or under jit, inputs uncommitted or placed at their in_specs), and
compares every output's shape and values with shmap_reference.py.

usage: shmap_oracle.py SHARD [-v] [-k SUBSTRING] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import ast
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shmap_reference as R  # noqa: E402

MESHES = [((1,), ("x",)), ((2,), ("x",)), ((4,), ("x",)), ((8,), ("x",)),
          ((2, 2), ("x", "y")), ((2, 4), ("x", "y")), ((4, 2), ("x", "y"))]
CASES_PER_MESH = 48
RTOL, ATOL = 1e-5, 1e-5


def spec_src(spec):
    parts = []
    for e in spec:
        if e is None:
            parts.append("None")
        elif isinstance(e, str):
            parts.append(repr(e))
        else:
            parts.append("(" + ", ".join(repr(a) for a in e) + ("," if len(e) == 1 else "") + ")")
    return "P(" + ", ".join(parts) + ")"


def axes_src(axes):
    return repr(axes[0]) if len(axes) == 1 else repr(tuple(axes))


def spec_axes(spec):
    return [a for e in spec for a in R.entry_axes(e)]


def mesh_order(names, axes):
    return tuple(a for a in names if a in axes)


class Case:
    def __init__(self, name, body, in_specs, out_specs, shapes, jit, committed):
        self.name, self.body, self.in_specs, self.out_specs = name, body, in_specs, out_specs
        self.shapes, self.jit, self.committed = shapes, jit, committed


def make_input(shape, seed):
    n = int(np.prod(shape))
    return (((np.arange(n) * 7 + seed) % 13 - 6).reshape(shape) / 4).astype(np.float32)


def global_shape(mesh, local, spec):
    return tuple(local[d] * (mesh.size(R.entry_axes(spec[d])) if d < len(spec) else 1) for d in range(len(local)))


def generate(shape, names):
    mesh = R.Mesh(shape, names)
    specs = [(), ("x",), (None, "x")] if len(names) == 1 else \
        [(), ("x",), (None, "y"), ("x", "y"), ("y", "x"), (("x", "y"),), (None, ("y", "x"))]
    axes_choices = [("x",)] if len(names) == 1 else [("x",), ("y",), ("x", "y")]
    cases = []
    for spec in specs:
        vma = set(spec_axes(spec))
        for axes in axes_choices:
            n = mesh.size(axes)
            A = axes_src(axes)
            out_vma = mesh_order(names, vma | set(axes))

            def add(kind, body, local, out_vma_axes, nout=1):
                out = (tuple([out_vma_axes]) if out_vma_axes else ())
                cases.append((kind, spec, axes, body, [global_shape(mesh, local, spec)], out if nout == 1 else (out,) * nout))

            add("identity", "return a", (2, 3), mesh_order(names, vma))
            add("elementwise", "return jnp.sin(a) * 2 + a", (2, 3), mesh_order(names, vma))
            red = mesh_order(names, vma - set(axes))
            add("psum", f"return lax.psum(a, {A})", (2, 3), red)
            add("pmax", f"return lax.pmax(a, {A})", (2, 3), red)
            add("pmean", f"return lax.pmean(a, {A})", (2, 3), red)
            add("all_gather_tiled", f"return lax.all_gather(a, {A}, axis=1, tiled=True)", (2, 3), out_vma)
            add("all_gather_stacked", f"return lax.all_gather(a, {A})", (2, 3), out_vma)
            add("psum_scatter_tiled", f"return lax.psum_scatter(a, {A}, scatter_dimension=0, tiled=True)", (2 * n, 3), out_vma)
            add("psum_scatter", f"return lax.psum_scatter(a, {A}, scatter_dimension=0)", (n, 3), out_vma)
            perm = [(i, i + 1) for i in range(n - 1)] if n > 1 else [(0, 0)]
            add("ppermute", f"return lax.ppermute(a, {A}, perm={perm})", (2, 3), out_vma)
            add("all_to_all_tiled", f"return lax.all_to_all(a, {A}, 0, 1, tiled=True)", (2 * n, 3), out_vma)
            add("all_to_all", f"return lax.all_to_all(a, {A}, 0, 1)", (n, 3), out_vma)
            add("axis_index", f"return a + lax.axis_index({A})", (2, 3), out_vma)
    # dot + psum: the contracting dim sharded over `axes` on both sides (matmul_basic).
    two = [(("x",), ("x",), None)] if len(names) == 1 else [(("y",), ("y",), "x"), (("x",), ("x",), "y"), (("x", "y"), ("x", "y"), None)]
    dots = []
    for axes, _, other in two:
        k = axes if len(axes) == 1 else (axes,)
        xs = (other, k[0]) if other else (None, k[0])
        ws = (k[0], None)
        out = (other,) if other else ()
        local_x, local_w = (2, 3), (3, 2)
        dots.append(("dot_psum", xs, ws, axes, f"return lax.psum(jnp.dot(a, b), {axes_src(axes)})",
                     [global_shape(mesh, local_x, xs), global_shape(mesh, local_w, ws)], out))
    rng = random.Random(hash((shape, names)) & 0xffff)
    rng.shuffle(cases)
    picked = cases[:CASES_PER_MESH - len(dots)]
    out = []
    for i, (kind, spec, axes, body, shapes, out_spec) in enumerate(picked):
        out.append(Case(f"{kind}[{spec_src(spec)},{axes_src(axes)}]", f"def body(a):\n    {body}\n", [spec], out_spec,
                        shapes, jit=i % 2 == 1, committed=i % 3 == 1))
    for i, (kind, xs, ws, axes, body, shapes, out_spec) in enumerate(dots):
        out.append(Case(f"{kind}[{spec_src(xs)},{spec_src(ws)}]", f"def body(a, b):\n    {body}\n", [xs, ws], out_spec,
                        shapes, jit=i % 2 == 0, committed=i % 2 == 1))
    return out


HEADER = '''import sys
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P, NamedSharding

mesh = jax.make_mesh({shape}, {names})
jax.sharding.set_mesh(mesh)


def mk(shape, seed):
    n = int(np.prod(shape))
    return jnp.asarray((((np.arange(n) * 7 + seed) % 13 - 6).reshape(shape) / 4).astype(np.float32))


def run(k, f, args):
    try:
        outs = f(*args)
        if not isinstance(outs, tuple):
            outs = (outs,)
        for i, y in enumerate(outs):
            print("R", k, i, np.asarray(y).tolist())
    except Exception as e:
        print("E", k, type(e).__name__, str(e).replace(chr(10), " "))
    sys.stdout.flush()

'''


def write_program(path, shape, names, cases):
    lines = [HEADER.format(shape=shape, names=names)]
    for k, c in enumerate(cases):
        lines.append(c.body.replace("def body(", f"def body{k}("))
        args = []
        for j, (s, spec) in enumerate(zip(c.shapes, c.in_specs)):
            a = f"mk({s}, {k * 3 + j})"
            if c.committed:
                a = f"jax.device_put({a}, NamedSharding(mesh, {spec_src(spec)}))"
            args.append(a)
        in_specs = "(" + ", ".join(spec_src(s) for s in c.in_specs) + ",)"
        out_specs = spec_src(c.out_specs) if not (c.out_specs and isinstance(c.out_specs[0], tuple) and
                                                  all(isinstance(e, tuple) for e in c.out_specs)) else spec_src(c.out_specs)
        f = f"jax.shard_map(body{k}, mesh=mesh, in_specs={in_specs}, out_specs={out_specs})"
        if c.jit:
            f = f"jax.jit({f})"
        lines.append(f"run({k}, {f}, [{', '.join(args)}])\n")
    with open(path, "w") as fh:
        fh.write("\n".join(lines))


def reference(shape, names, case, k):
    ns = R.reference_namespace(shape, names)
    exec(case.body, ns)
    args = [make_input(s, k * 3 + j) for j, s in enumerate(case.shapes)]
    return R.shmap_reference(shape, names, ns["body"], case.in_specs, case.out_specs, *args)


def main():
    argv = sys.argv[1:]
    shard = argv[0]
    verbose = "-v" in argv
    pattern = argv[argv.index("-k") + 1] if "-k" in argv else None
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    tmp = keep or tempfile.mkdtemp(prefix="shmap_oracle_")
    os.makedirs(tmp, exist_ok=True)
    passed = failed = 0
    for shape, names in MESHES:
        cases = [c for c in generate(shape, names) if not pattern or pattern in c.name]
        if not cases:
            continue
        path = os.path.join(tmp, "mesh" + "x".join(map(str, shape)) + ".shard")
        write_program(path, shape, names, cases)
        proc = subprocess.run([shard, "--devices", "8", path], capture_output=True, text=True, timeout=600)
        got = {}
        for line in proc.stdout.splitlines():
            parts = line.split(" ", 3)
            if parts[0] == "R":
                got.setdefault(int(parts[1]), []).append(np.array(ast.literal_eval(parts[3]), dtype=np.float64))
            elif parts[0] == "E":
                got[int(parts[1])] = line
        for k, c in enumerate(cases):
            label = f"mesh{shape} {c.name}{' jit' if c.jit else ''}{' committed' if c.committed else ''}"
            want = reference(shape, names, c, k)
            want = list(want) if isinstance(want, tuple) else [want]
            have = got.get(k)
            problem = None
            if have is None:
                problem = f"no output (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"
            elif isinstance(have, str):
                problem = have
            elif len(have) != len(want):
                problem = f"{len(have)} outputs, want {len(want)}"
            else:
                for h, w in zip(have, want):
                    if h.shape != w.shape:
                        problem = f"shape {h.shape}, want {w.shape}"
                    elif not np.allclose(h, w, rtol=RTOL, atol=ATOL):
                        problem = f"values differ: got {h.tolist()} want {w.tolist()}"
            if problem:
                failed += 1
                print(f"FAIL {label}: {problem}")
            else:
                passed += 1
                if verbose:
                    print(f"ok   {label}")
    if not keep:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
