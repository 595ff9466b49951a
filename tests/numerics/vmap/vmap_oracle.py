#!/usr/bin/python3
"""vmap oracle: for every function of the gradient oracle's case list (one or more per
primitive, with numpy references), shard computes jax.vmap(f) over a batch of eight examples
and numpy stacks f over them: unsharded, with each example sharded, and with the batch dim
itself sharded over a mesh axis (Explicit and Auto). Checked: values (rtol 1e-4), and that the
batch dim of the result keeps the inputs' batch sharding (vmap preserves it). A second pass
maps only the first argument (in_axes=(0, None, ...)) and puts the batch last (out_axes=-1).

usage: vmap_oracle.py SHARD_EXE [-v] [-k SUBSTRING]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "grad"))
import grad_oracle as G  # noqa: E402

B = 8  # examples: every input scaled by 1, 0.95, 0.9, ... (keeps each input's domain)

# (label, mesh constructor, axis types, the batch dim's axes, each example's spec)
PLACEMENTS = [
    ("unsharded", None, None, None, None),
    ("1d-explicit examples P('x')", "jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))", "Explicit", None, "P('x')"),
    ("2d-explicit examples P('dp','mp')", "jax.make_mesh((4, 2), ('dp', 'mp'), axis_types=(AxisType.Explicit, AxisType.Explicit))",
     "Explicit", None, "P('dp', 'mp')"),
    ("1d-explicit batch P('x')", "jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))", "Explicit", "'x'", "P()"),
    ("2d-explicit batch 'dp', examples P(None,'mp')",
     "jax.make_mesh((4, 2), ('dp', 'mp'), axis_types=(AxisType.Explicit, AxisType.Explicit))", "Explicit", "'dp'", "P(None, 'mp')"),
    ("2d-auto batch 'dp', examples P(None,'mp')", "jax.make_mesh((4, 2), ('dp', 'mp'), axis_types=(AxisType.Auto, AxisType.Auto))",
     "Auto", "'dp'", "P(None, 'mp')"),
]


applies = G.applies  # shard_map cases run on their own mesh, unsharded placements only


def program(work, placement, cases, x):
    _label, mesh_ctor, _types, batch_axis, spec = placement
    lines = ["import jax", "import jax.numpy as jnp", "import jax.scipy.special", "import numpy as np",
             "from jax.sharding import PartitionSpec as P, NamedSharding, AxisType"]
    if mesh_ctor:
        lines += [f"mesh = {mesh_ctor}", f"spec = {spec}",
                  "def put(x, entries):",
                  "    try:",
                  "        return jax.device_put(x, NamedSharding(mesh, P(*entries)))",
                  "    except ValueError:",
                  "        return jax.device_put(x, NamedSharding(mesh, P()))",
                  "def place_one(x):",
                  "    return put(x, list(spec)[:x.ndim])",
                  "def place(x):",
                  f"    return put(x, [{batch_axis}] + list(spec)[:x.ndim - 1])"]
    else:
        lines += ["def place(x):", "    return jnp.asarray(x)", "place_one = place"]
    for name in x:
        lines.append(f"{name} = place(np.load({os.path.join(work, 'in', name + '.npy')!r}))")
        lines.append(f"{name}_one = place_one(np.load({os.path.join(work, 'in', name + '_one.npy')!r}))")
    lines += G.CASE_DEFINITIONS
    if mesh_ctor:
        lines.append("jax.sharding.set_mesh(mesh)")
    for k, (name, args, src, _ref) in enumerate(cases):
        if not applies(name, placement):
            continue
        d = os.path.join(work, "case", str(k))
        n = len(args)
        others = ", ".join(f"{a}_one" for a in args[1:])
        lines += [
            "try:",
            f"    f = {src}",
            f"    r = jax.vmap(f)({', '.join(args)})",
            f"    np.save({d!r} + '/all.npy', np.asarray(r))",
            f"    print('TYPE', {k}, str(jax.typeof(r)) + ' | ' + str(jax.typeof({args[0]})))",
            f"    r1 = jax.vmap(f, in_axes=(0,{' None,' * (n - 1)}), out_axes=-1)({args[0]}{', ' + others if n > 1 else ''})",
            f"    np.save({d!r} + '/first.npy', np.asarray(r1))",
            "except Exception as e:",
            "    try:",
            f"        f({', '.join(a + '_one' for a in args)})",
            "        fwd = 'forward-ok'",
            "    except Exception:",
            "        fwd = 'forward-fails'",
            f"    print('CASE', {k}, fwd, type(e).__name__ + ':', str(e).replace(chr(10), ' '))",
        ]
    return "\n".join(lines) + "\n"


def spec_of(type_text):
    # "ShapedArray(float32[2@x,8,16])" -> the first dim's axes ("" when unsharded)
    inner = type_text[type_text.index("[") + 1:type_text.index("]")]
    first = inner.split(",")[0]
    return first.split("@")[1] if "@" in first else ""


def main(argv):
    shard = os.path.abspath(argv[1])
    verbose = "-v" in argv
    only = argv[argv.index("-k") + 1] if "-k" in argv else None
    one = G.make_inputs()
    x = {k: np.stack([(v * np.float32(1 - 0.05 * b)).astype(np.float32) for b in range(B)]) for k, v in one.items()}
    cases = [c for c in G.C if only is None or only in c[0]]
    work = tempfile.mkdtemp(prefix="vmap_oracle_")
    os.makedirs(os.path.join(work, "in"), exist_ok=True)
    for name, arr in x.items():
        np.save(os.path.join(work, "in", name + ".npy"), arr)
        np.save(os.path.join(work, "in", name + "_one.npy"), one[name])
    refs = []
    for k, (name, args, _src, ref) in enumerate(cases):
        os.makedirs(os.path.join(work, "case", str(k)), exist_ok=True)
        f64 = {a: x[a].astype(np.float64) for a in args}
        all_ = np.stack([ref(*[f64[a][b] for a in args]) for b in range(B)])
        first = np.stack([ref(*([f64[args[0]][b]] + [one[a].astype(np.float64) for a in args[1:]])) for b in range(B)], axis=-1)
        refs.append((all_, first))
    passed = failed = skipped = 0
    for placement in PLACEMENTS:
        label = placement[0]
        prog = os.path.join(work, "prog.shard")
        with open(prog, "w") as fh:
            fh.write(program(work, placement, cases, x))
        proc = subprocess.run([shard, prog], capture_output=True, text=True, env=dict(os.environ, SHARD_DEVICES="8"), timeout=1800)
        errors, types = {}, {}
        for line in proc.stdout.splitlines():
            if line.startswith("CASE "):
                _, k, msg = line.split(" ", 2)
                errors[int(k)] = msg
            elif line.startswith("TYPE "):
                _, k, rest = line.split(" ", 2)
                types[int(k)] = rest
        if proc.returncode != 0:
            print(f"[{label}] shard exited with {proc.returncode}: {proc.stderr[-2000:]}")
            failed += 1
        for k, (name, args, src, _ref) in enumerate(cases):
            if not applies(name, placement):
                continue
            if k in errors:
                fwd, msg = errors[k].split(" ", 1)
                if placement[2] == "Explicit" and fwd == "forward-fails":
                    skipped += 1
                    continue
                failed += 1
                print(f"[{label}] FAIL {name} ({fwd}): {msg[:300]}")
                continue
            d = os.path.join(work, "case", str(k))
            problems = []
            for tag, want in zip(("all", "first"), refs[k]):
                got = np.load(os.path.join(d, f"{tag}.npy")).astype(np.float64)
                scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
                if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-4 * scale):
                    problems.append(f"{tag}: shape {got.shape} vs {want.shape}" if got.shape != want.shape
                                    else f"{tag}: max abs diff {np.max(np.abs(got - want)):.3g}")
            got_t, in_t = types.get(k, "? | ?").split(" | ")
            if "[" in got_t and "[" in in_t and spec_of(got_t) != spec_of(in_t) and not name.startswith("shard_map"):
                problems.append(f"batch dim sharding {got_t} vs input {in_t}")
            if problems:
                failed += 1
                print(f"[{label}] FAIL {name} ({src}): " + "; ".join(problems))
            else:
                passed += 1
                if verbose:
                    print(f"[{label}] ok {name}")
    print(f"{skipped} skipped (functions the sharding rules reject on Explicit meshes)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
