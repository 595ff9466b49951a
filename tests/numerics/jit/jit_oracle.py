#!/usr/bin/python3
"""numpy oracle for jitted functions on sharded inputs (issue 4).

For each mesh — 1-D (2,), (4,), (8,) over ('x',) and 2-D (2,2), (2,4), (4,2) over ('x','y'),
all Explicit — generates one .shard program that places deterministic float32 inputs with
every PartitionSpec combination (cases.py) and calls a jitted function per combination: an
MLP forward, elementwise chains with broadcasting, where, einsums, reductions/argmax,
transpose/reshape, cumsum/sort (and, with --with-control-flow, lax loops and conditionals).
Each result's values are compared with numpy (rtol 1e-5) and its `jax.typeof` with the type
SHARDING_RULES.md gives (model.py). Where the rules make a combination a ShardingTypeError,
shard must raise it, and the fixed variant (out_sharding= / reshard) must compute the values.

usage: jit_oracle.py SHARD [--with-control-flow] [-v] [-k SUBSTRING] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import ast
import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as C  # noqa: E402

MESHES = [((2,), ("x",)), ((4,), ("x",)), ((8,), ("x",)),
          ((2, 2), ("x", "y")), ((2, 4), ("x", "y")), ((4, 2), ("x", "y"))]

# Cases shard gets wrong today, by fnmatch pattern on the case name, with the reason (a
# minimal reproducer is in the report that added it). They run but do not count; a known
# failure that passes is reported so it can be taken off this list.
# Cases that run but do not count, each with the reason (empty: every case counts).
KNOWN_FAILING: list[tuple[str, str]] = []

RTOL = 1e-5
MAX_RESTARTS = 10


def mesh_label(shape):
    return "mesh" + "x".join(map(str, shape))


# ---- the .shard program -------------------------------------------------------------------

HEADER = '''import sys
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType

START = int(sys.argv[1]) if len(sys.argv) > 1 else 0
mesh = jax.make_mesh({shape}, {names}, axis_types=(AxisType.Explicit,) * {rank})
jax.sharding.set_mesh(mesh)


def run(k, f, args):
    """Case k: the jitted f on args; prints `R k i TYPE VALUES` per result or `E k ERROR`."""
    if k < START:
        return
    try:
        outs = jax.jit(f)(*args)
        for i, y in enumerate(outs):
            print("R", k, i, jax.typeof(y), np.asarray(y).tolist())
    except Exception as e:
        print("E", k, type(e).__name__, str(e).replace(chr(10), " "))
    sys.stdout.flush()

'''


def write_program(path, shape, names, cases, input_dir):
    lines = HEADER.format(shape=shape, names=names, rank=len(shape)).splitlines()
    placed = {}
    for case in cases:
        for _, key, spec in case.params:
            if (key, spec) not in placed:
                var = f"{key}_{len(placed)}"
                placed[(key, spec)] = var
                if not any(k == key for k, _ in list(placed)[:-1]):
                    lines.append(f"IN_{key} = np.load({os.path.join(input_dir, key + '.npy')!r})")
                lines.append(f"{var} = jax.device_put(IN_{key}, NamedSharding(mesh, {spec}))")
    lines.append("")
    where = {}
    for k, case in enumerate(cases):
        lines.append(f"# {case.name}")
        where[k] = len(lines) + 1
        lines.append(f"def f{k}({', '.join(p for p, _, _ in case.params)}):")
        lines += ["    " + line for line in case.lines]
        # An erroring case returns the value of its last line, the op that must raise.
        rets = [src for src, _, _ in case.outs] or [case.lines[-1].split(" = ")[0]]
        lines.append(f"    return ({', '.join(rets)},)")
        args = ", ".join(placed[(key, spec)] for _, key, spec in case.params)
        lines.append(f"run({k}, f{k}, ({args},))")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return where


# ---- running ------------------------------------------------------------------------------

def run_program(shard, path, n_cases, log):
    """Runs the program; after a crash, resumes after the case that crashed it.
    Returns {k: ("R", [(type, values)]) | ("E", name, message) | ("CRASH", text)}."""
    results = {}
    start = restarts = 0
    while start < n_cases:
        env = dict(os.environ, NO_COLOR="1")
        env.pop("SHARD_DEVICES", None)
        proc = subprocess.run([shard, "--devices", "8", path, str(start)], capture_output=True,
                              text=True, env=env, timeout=900)
        for line in proc.stdout.splitlines():
            parts = line.split(" ", 4)
            if parts[0] == "R" and len(parts) == 5:
                k = int(parts[1])
                entry = results.setdefault(k, ("R", []))
                if entry[0] == "R":
                    entry[1].append((parts[3], parts[4]))
            elif parts[0] == "E" and len(parts) >= 3:
                rest = line.split(" ", 3)
                results[int(rest[1])] = ("E", rest[2], rest[3] if len(rest) > 3 else "")
        if proc.returncode == 0:
            break
        done = [k for k in results if k >= start]
        crashed = max(done) + 1 if done else start
        if crashed >= n_cases:
            break
        results[crashed] = ("CRASH", f"shard exited with status {proc.returncode} in this case: "
                                     f"{proc.stderr.strip()[-1500:]}")
        restarts += 1
        log(f"  {os.path.basename(path)}: shard exited with {proc.returncode} at case {crashed};"
            f" resuming after it")
        if restarts == MAX_RESTARTS:
            for k in range(crashed + 1, n_cases):
                results[k] = ("CRASH", f"not run: shard crashed {MAX_RESTARTS} times")
            break
        start = crashed + 1
    return results


# ---- comparing ----------------------------------------------------------------------------

def compare(case, result):
    """None when the case passed, else a readable account of the first mismatch."""
    if result is None:
        return "no output for this case"
    if result[0] == "CRASH":
        return result[1]
    if case.error:
        if result[0] == "E" and result[1] == case.error_type and case.error in result[2]:
            return None
        got = (f"{result[1]}: {result[2][:300]}" if result[0] == "E"
               else "a result: " + ", ".join(t for t, _ in result[1]))
        return f"expected a {case.error_type} mentioning '{case.error}', got {got}"
    if result[0] == "E":
        return f"unexpected {result[1]}: {result[2][:600]}"
    got = result[1]
    if len(got) != len(case.outs):
        return f"{len(got)} results, expected {len(case.outs)}"
    for i, ((src, want_type, want), (got_type, got_text)) in enumerate(zip(case.outs, got)):
        problem = compare_value(want, got_text)
        if problem:
            return f"result {i} ({src}): {problem}"
        if got_type != want_type:
            return f"result {i} ({src}): type {got_type}, expected {want_type}"
    return None


def compare_value(want, got_text):
    try:
        got = np.array(ast.literal_eval(got_text))
    except (ValueError, SyntaxError) as e:
        return f"unparsable values ({e}): {got_text[:200]}"
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if want.dtype.kind in "iub":
        if got.dtype.kind != want.dtype.kind and not (got.size == 0):
            return f"values of kind {got.dtype.kind!r}, expected {want.dtype.kind!r}"
        bad = got != want
    else:
        if got.dtype.kind not in "f":
            return f"values of kind {got.dtype.kind!r}, expected floats"
        bad = ~np.isclose(got, want.astype(np.float64), rtol=RTOL, atol=1e-6, equal_nan=True)
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    lines = [f"{int(bad.sum())} of {bad.size} elements differ; first at index {idx}: "
             f"got {got[idx]!r}, expected {want[idx]!r}"]
    if want.ndim >= 1:  # the row holding the first mismatch, both ways
        row = idx[:-1]
        where = f"row {row}" if row else "values"
        show = lambda a: np.array2string(a, precision=6, max_line_width=200)
        lines.append(f"      got      {where}: {show(got[row])}")
        lines.append(f"      expected {where}: {show(want[row].astype(got.dtype))}")
    return "\n".join(lines)


def function_source(path, line):
    with open(path) as f:
        text = f.read().splitlines()
    out = [text[line - 2]] if line >= 2 else []
    for l in text[line - 1:]:
        out.append(l)
        if l.startswith("run("):
            break
    return "\n".join("      | " + l for l in out)


# ---- main ---------------------------------------------------------------------------------

def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    shard = os.path.abspath(args[0])
    if not os.access(shard, os.X_OK):
        print(f"{shard}: not an executable shard binary")
        print("0 passed, 1 failed")
        return 1
    verbose = "-v" in args
    control_flow = "--with-control-flow" in args
    only = args[args.index("-k") + 1] if "-k" in args else None
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    work = keep or tempfile.mkdtemp(prefix="jit_oracle_")
    os.makedirs(work, exist_ok=True)
    x = C.make_inputs()
    for key, val in x.items():
        np.save(os.path.join(work, key + ".npy"), val)

    t0 = time.time()
    passed = failed = details = 0
    known = {pat: [0, 0] for pat, _ in KNOWN_FAILING}  # pattern -> [failing, passing]
    for shape, names in MESHES:
        label = mesh_label(shape)
        mesh = dict(zip(names, shape))
        cases = C.cases_for_mesh(label, mesh, x, control_flow)
        if only:
            cases = [c for c in cases if only in c.name]
        if not cases:
            continue
        path = os.path.join(work, f"{label}.shard")
        where = write_program(path, shape, names, cases, work)
        ts = time.time()
        results = run_program(shard, path, len(cases), print)
        n_err = sum(1 for c in cases if c.error)
        mp = mf = 0
        for k, case in enumerate(cases):
            problem = compare(case, results.get(k))
            pattern = next((pat for pat, _ in KNOWN_FAILING if fnmatch.fnmatchcase(case.name, pat)),
                           None)
            if pattern is not None:  # runs, does not count
                known[pattern][0 if problem else 1] += 1
                if verbose:
                    print(f"{'xfail' if problem else 'xpass'} {case.name}" +
                          (f"\n    {problem}" if problem else ""))
                continue
            if problem is None:
                mp += 1
                if verbose:
                    print(f"ok   {case.name}")
                continue
            mf += 1
            print(f"FAIL {case.name}\n    {problem}")
            if details < 3 or verbose:  # the function itself, for the first few failures
                details += 1
                print(f"    {path}:{where[k]}:\n{function_source(path, where[k])}")
        passed += mp
        failed += mf
        print(f"{label}: {len(cases)} cases ({n_err} must raise), {mp} passed, {mf} failed, "
              f"{time.time() - ts:.1f} s")
    for pat, why in KNOWN_FAILING:
        nf, np_ = known[pat]
        if not nf + np_:
            continue
        state = "all pass now: remove it from KNOWN_FAILING" if nf == 0 and np_ else \
            f"{nf} fail, {np_} pass"
        print(f"known failing ({why}): {state}")
    print(f"jit oracle: {time.time() - t0:.1f} s"
          + ("" if control_flow else "; control flow off (no jax.lax.fori_loop)")
          + (f"; programs in {work}" if failed or keep else ""))
    if not failed and not keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
